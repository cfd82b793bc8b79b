"""PGN tags to ChessBase header values: the inverse of :func:`.games.game_header` (date, round, result, ECO,
ratings; player names split into last and first name; names coded to a field's bytes, truncated on a character
boundary)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ...engine.codec import codec
from ...engine.schema import enum_view
from ...schemas import chessbase as schema

__all__ = ["RESULT_TAGS", "HeaderValues", "encode_name", "header_values", "split_player", "unencodable"]

_PGN_RESULTS = {"black_wins": "0-1", "draw": "1/2-1/2", "white_wins": "1-0", "line": "*", "black_wins_forfeit": "0-1",
                "draw_forfeit": "1/2-1/2", "white_wins_forfeit": "1-0", "both_lose": "0-1"}
RESULT_TAGS = {value: _PGN_RESULTS[name] for value, name in enum_view(schema.RESULT).names.items()}
"""A game record's result code (:data:`chessformats.schemas.chessbase.RESULT`) as a PGN result (here, not in
:mod:`.games`, so that writing a base does not import the reader)."""

_RESULT_VALUES = {tag: value for value, tag in sorted(RESULT_TAGS.items(), reverse=True)}
"""A PGN result -> the record's result code (the plain results: 2 1-0, 1 draw, 0 0-1, 3 "*")."""
_DATE = codec(schema.DATE)
_DATE_LIMITS = {name: _DATE.field(name).mask for name in ("year", "month", "day")}
_ECO = codec(schema.ECO)
_ECO_CODE_MAX = _ECO.field("code").mask
_ECO_SUBCODE_MAX = _ECO.field("subcode").mask
_BYTE_MAX = codec(schema.GAME_RECORD).field("round").mask
_ELO_MAX = codec(schema.GAME_RECORD).field("white_elo").mask
_TOURNAMENT_TYPES = {name: name for name in enum_view(schema.TOURNAMENT_TYPE).names.values()}
_ECO_TEXT = re.compile(r"([A-E])(\d\d)(?:/(\d\d))?")


@dataclass
class HeaderValues:
    """What a game's tags give its ``.cbh`` record and entities."""

    date: tuple[int, int, int] = (0, 0, 0)
    round: int = 0
    subround: int = 0
    result: int = _RESULT_VALUES["*"]
    white_elo: int = 0
    black_elo: int = 0
    eco: tuple[int, int] = (0, 0)
    event_date: tuple[int, int, int] = (0, 0, 0)
    event_type: str = "none"
    problems: list[str] = field(default_factory=list)
    """Tags whose value the record cannot hold (reported; the field is left empty)."""


def _date(text: str, tag: str, problems: list[str]) -> tuple[int, int, int]:
    """A PGN date ``YYYY.MM.DD`` (any part "?"s: unknown). Another form (``2023-02-03``: python-chess reads no
    date, and the PGN standard has only this one) is reported and left out, as a part out of range is. Kept by
    text: a file has few dates."""
    known = _DATES.get(text)
    if known is None:
        found: list[str] = []
        known = _DATES[text] = _read_date(text, found), found
        if len(_DATES) > _DATES_KEPT:
            _DATES.clear()
    if known[1]:
        problems += [problem.format(tag=tag) for problem in known[1]]
    return known[0]


_DATES: dict[str, tuple[tuple[int, int, int], list[str]]] = {}
"""A date text's values and problems (with ``{tag}`` for the tag's name)."""
_DATES_KEPT = 1 << 14


def _read_date(text: str, problems: list[str]) -> tuple[int, int, int]:
    parts = [*text.strip().split("."), "?", "?", "?"][:3]
    shown = repr(text).replace("{", "{{").replace("}", "}}")
    if any(part.strip("?") and not part.isdigit() for part in parts) or text.count(".") > 2:
        problems.append(f"{{tag}} {shown}: not a PGN date (YYYY.MM.DD), left out")
        return 0, 0, 0
    values = []
    for name, part in zip(("year", "month", "day"), parts, strict=True):
        number = int(part) if part.isdigit() else 0
        if number > _DATE_LIMITS[name] or (name != "year" and number > (12 if name == "month" else 31)):
            problems.append(f"{{tag}} {shown}: {name} out of range")
            number = 0
        values.append(number)
    return values[0], values[1], values[2]


def _number(text: str, limit: int, tag: str, problems: list[str]) -> int:
    text = text.strip()
    if text in ("", "?", "-"):
        return 0
    if not text.isdigit() or int(text) > limit:
        problems.append(f"{tag} {text!r}: not a number 0-{limit}")
        return 0
    return int(text)


def header_values(tags: Mapping[str, str]) -> HeaderValues:
    """The record values of a game's PGN tags (missing or unreadable tags give empty fields)."""
    values = HeaderValues()
    problems = values.problems
    values.date = _date(tags.get("Date", "????.??.??"), "Date", problems)
    round_text = tags.get("Round", "?").strip()
    main, _, sub = round_text.partition(".")
    values.round = _number(main, _BYTE_MAX, "Round", problems)
    values.subround = _number(sub, _BYTE_MAX, "Round", problems) if sub else 0
    if values.subround and not values.round:
        values.subround = 0
    result = tags.get("Result", "*").strip()
    if result not in _RESULT_VALUES:
        problems.append(f"Result {result!r}: not a PGN result")
    values.result = _RESULT_VALUES.get(result, _RESULT_VALUES["*"])
    values.white_elo = _number(tags.get("WhiteElo", ""), _ELO_MAX, "WhiteElo", problems)
    values.black_elo = _number(tags.get("BlackElo", ""), _ELO_MAX, "BlackElo", problems)
    eco = tags.get("ECO", "").strip()
    if eco and eco != "?":
        match = _ECO_TEXT.fullmatch(eco)
        if match is None:
            problems.append(f"ECO {eco!r}: not an ECO code")
        else:
            number = "ABCDE".index(match[1]) * 100 + int(match[2]) + 1
            subcode = int(match[3] or 0)
            if number <= _ECO_CODE_MAX and subcode <= _ECO_SUBCODE_MAX:
                values.eco = (number, subcode)
    if "EventDate" in tags:
        values.event_date = _date(tags["EventDate"], "EventDate", problems)
    values.event_type = _TOURNAMENT_TYPES.get(tags.get("EventType", "").strip().lower(), "none")
    return values


def split_player(name: str) -> tuple[str, str]:
    """(last name, first name) of a PGN player name, so that the reader's "Last, First" gives it back:
    "?" is no name; a name splits at its first ", " when what follows has no leading or trailing space."""
    if name in ("", "?"):
        return "", ""
    last, comma, first = name.partition(", ")
    if comma and last and first and first == first.strip():
        return last, first
    return name, ""


def encode_name(text: str, size: int, encoding: str | None) -> tuple[bytes, bool, str]:
    """``text`` as the bytes of a name field of ``size`` bytes (0-terminated, or filling the field, as ChessBase
    stores a 45-byte team name of twic1134), whether it had to be cut (on a character boundary, never inside
    a multi-byte character), and the characters ``encoding`` cannot hold (written as "?": :func:`unencodable`).

    ``encoding`` None: cp1252 when the text fits that code page (what ChessBase's Western bases hold), else
    UTF-8 (the reader decodes a name as UTF-8 when it is valid, else as cp1252)."""
    limit = size
    codec_name = encoding or "cp1252"
    lost = ""
    try:
        raw = text.encode(codec_name)
    except UnicodeEncodeError:
        if encoding is not None:
            raw = text.encode(codec_name, errors="replace")
            lost = unencodable(text, codec_name)
        else:
            codec_name = "utf-8"
            raw = text.encode(codec_name)
    cut = len(raw) > limit
    if cut:
        while text and len(text.encode(codec_name, errors="replace")) > limit:
            text = text[:-1]
        raw = text.encode(codec_name, errors="replace")
    return raw.ljust(size, b"\0"), cut, lost


def unencodable(text: str, encoding: str) -> str:
    """The characters of ``text`` that ``encoding`` cannot hold, each once, in order ("": none)."""
    mark = "?".encode(encoding)  # (what errors="replace" writes for one of them)
    return "".join(dict.fromkeys(char for char in text if char != "?" and
                                 char.encode(encoding, errors="replace") == mark))
