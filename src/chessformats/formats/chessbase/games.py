"""ChessBase games and guiding texts: a ``.cbh`` record with its names resolved, as PGN tags."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import chess.pgn

from ...engine import display
from ...engine.codec import codec
from ...schemas import chessbase as schema
from .annotations import Annotator
from .entities import EntityFile, decode_name
from .extended import ExtendedHeader
from .moves import DecodedGame
from .pgn import build_game
from .tags import RESULT_TAGS

__all__ = ["RESULT_TAGS", "GameHeader", "GameSource", "GuidingText", "RecordFields", "annotated_game", "game_header",
           "pgn_headers"]

_ECO = codec(schema.ECO)
_ECO_CODE, _ECO_SUBCODE = _ECO.field("code"), _ECO.field("subcode")


def _pgn_date(year: int, month: int, day: int) -> str:
    return ".".join((f"{year:04d}" if year else "????", f"{month:02d}" if month else "??",
                     f"{day:02d}" if day else "??"))


_CONTROLS = {code: " " for code in (*range(32), 0x7F)}


def _tag_value(text: str) -> str:
    """A PGN tag value: control characters (a damaged name's line break, say) become spaces."""
    return text if text.isprintable() else text.translate(_CONTROLS)


@functools.cache
def _eco(code: int, sub: int) -> tuple[str | None, int | None]:
    """(ECO code, Chess960 start position) of the ECO field's code and subcode."""
    value = _ECO_SUBCODE.insert(_ECO_CODE.insert(0, code), sub)
    if value >= schema.ECO_CHESS960:
        return None, value - schema.ECO_CHESS960
    if not 1 <= code <= 500:
        return None, None
    code -= 1
    return f"{'ABCDE'[code // 100]}{code % 100:02d}" + (f"/{sub:02d}" if sub else ""), None


class GameSource(Protocol):
    """What a game needs from the database it belongs to (a :class:`~.database.Database`)."""

    encoding: str | None
    players: EntityFile
    tournaments: EntityFile
    annotators: EntityFile
    sources: EntityFile

    def team_numbers(self, number: int) -> tuple[int | None, int | None]: ...

    def team_name(self, number: int) -> str: ...

    def extended_header(self, number: int) -> ExtendedHeader | None: ...

    def decode(self, number: int) -> DecodedGame: ...

    def annotations(self, number: int) -> list[Any]: ...


def annotated_game(database: GameSource, number: int, decoded: DecodedGame, headers: Mapping[str, str],
                   also: Callable[[chess.pgn.GameNode, int], None] | None = None) -> chess.pgn.Game:
    """Game ``number`` of ``database`` as a :class:`chess.pgn.Game` with its annotations: the tags ``headers``, the
    moves ``decoded``, the items without a PGN form in ``chessbase_extras``. ``also(node, stream_index)`` is called
    for each node once it is annotated (:func:`.pgn.build_game`'s numbering)."""
    annotator = Annotator(database.annotations(number), database.encoding)

    def annotate(node: chess.pgn.GameNode, index: int) -> None:
        annotator(node, index)
        if also is not None:
            also(node, index)

    game = build_game(decoded, headers, annotate if also is not None else annotator)
    annotator.finish(game)
    game.chessbase_extras = annotator.extras  # type: ignore[attr-defined]
    return game


def _deprecated_record(owner: str) -> None:
    warnings.warn(f"{owner}.record (a construct container) is deprecated: use the typed fields "
                  f"({'fields, headers, deleted' if owner == 'GameHeader' else 'titles, texts, tournament'} ...)",
                  DeprecationWarning, stacklevel=3)


@dataclass(frozen=True)
class GameHeader:
    """A game: its ``.cbh`` record with the names resolved; :meth:`to_pgn` builds its moves as a
    :class:`chess.pgn.Game`.

    ``number`` is the game's number in its base as ChessBase shows it (its record number, from 1: guiding
    texts and deleted games take numbers too); ``db[game.number] == game``.
    """

    number: int
    headers: dict[str, str]
    """PGN-style tags: Event, Site, Date, Round, White, Black, Result, WhiteElo, BlackElo, ECO, Annotator..."""
    fields: RecordFields
    """The record's values the tags come from, as numbers: entity record numbers (``white``, ``black``,
    ``tournament``, ``annotator``, ``source``), date parts, round, result code, ratings, ECO code."""
    chess960_position: int | None = None
    medals: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    database: GameSource | None = field(default=None, repr=False, compare=False)
    white_team: str | None = None
    """White's team (from the ``.cbj`` and ``.cbe`` files; ``None``: not given)."""
    black_team: str | None = None
    deleted: bool = False
    """Marked deleted (ChessBase keeps it, and its number, until the base is compacted): iterating a base
    leaves it out, :meth:`~.database.Database.record` reaches it."""
    _record: Any = field(default=None, repr=False, compare=False)

    def _repr_html_(self) -> str | None:
        """In a notebook: the tags as a table, with the teams, medals and flags."""
        return display.repr_html(self)

    @property
    def record(self) -> Any:
        """Deprecated: the parsed ``.cbh`` record (a construct container); use :attr:`fields`, :attr:`headers`."""
        _deprecated_record("GameHeader")
        return self._record

    @property
    def extended(self) -> ExtendedHeader | None:
        """The game's ``.cbj`` record: rating types, final material, timestamps, version (``None``: no record)."""
        return self.database.extended_header(self.number) if self.database is not None else None

    def decode(self) -> DecodedGame:
        """The decoded move stream (tokens in stream order, start position, mode)."""
        if self.database is None:
            raise ValueError("the game is not attached to an open database")
        return self.database.decode(self.number)

    def to_pgn(self, *, annotations: bool = True) -> chess.pgn.Game:
        """The game as a :class:`chess.pgn.Game`: its tags, variation tree, setup position and Chess960 castling,
        and (``annotations``) its annotations as comments, NAGs and ``[%...]`` commands (the items without a PGN
        form in the game's ``chessbase_extras``)."""
        if not annotations or self.database is None:
            return build_game(self.decode(), self.headers)
        return annotated_game(self.database, self.number, self.decode(), self.headers)

    def moves(self) -> chess.pgn.Game:
        """Deprecated: ``to_pgn(annotations=False)``, which it returns."""
        warnings.warn("GameHeader.moves() is deprecated: use GameHeader.to_pgn(annotations=False)",
                      DeprecationWarning, stacklevel=2)
        return self.to_pgn(annotations=False)


@dataclass(frozen=True)
class GuidingText:
    """A guiding-text record: its titles and texts per language, and its body (raw bytes, for a byte-exact copy).

    ``texts`` maps a language (``english``, ``german``, ... ``unknown``) to its text: HTML when
    ``text_format`` is ``"html"`` (ChessBase 16), else plain text with CR line ends whose formatting runs
    are in ``formatting``. The body's layout is ``schema.TEXT_CONTENTS``. ``number``: its record number, as
    ChessBase shows it (:meth:`~.database.Database.record` reaches it; :meth:`~.database.Database.guiding_texts`
    gives them all).
    """

    number: int
    titles: dict[str, str]
    body: bytes = field(repr=False)
    tournament: str = ""
    annotator: str = ""
    source: str = ""
    text_format: str = ""
    texts: dict[str, str] = field(default_factory=dict, repr=False)
    formatting: dict[str, bytes] = field(default_factory=dict, repr=False)
    deleted: bool = False
    _record: Any = field(default=None, repr=False, compare=False)

    @property
    def record(self) -> Any:
        """Deprecated: the parsed ``.cbh`` record (a construct container)."""
        _deprecated_record("GuidingText")
        return self._record

    @property
    def html(self) -> dict[str, str]:
        """The HTML of each language (empty unless ``text_format`` is ``"html"``)."""
        return dict(self.texts) if self.text_format == "html" else {}


def game_header(database: GameSource, number: int, record: Any) -> GameHeader:
    """Game ``number``'s header from its parsed ``.cbh`` record: the PGN tags with the names of its players,
    tournament, annotator, source and teams, its medals and flags."""
    body = record.body
    date, eco = body.date, body.eco  # the generated decoder's numbers are ints already (the result: an enum)
    fields = RecordFields(
        body.tournament, date.year, date.month, date.day, body.round, body.subround, body.white, body.black,
        int(body.result), body.white_elo, body.black_elo, eco.code, eco.subcode, body.annotator, body.source)
    headers, teams = pgn_headers(database, number, fields)
    _, chess960 = _eco(body.eco.code, body.eco.subcode)
    medals, flags = _set_flags(body.medals), _set_flags(body.flags)
    if body.flags.chess960 and chess960 is None:
        chess960 = -1
    return GameHeader(number, headers, fields, chess960, medals, flags, database, white_team=teams[0],
                      black_team=teams[1], deleted=bool(record.kind.deleted), _record=record)


def _set_flags(flags: Any) -> list[str]:
    """The names of the flags set in a decoded bit structure (its other fields are numbers, never ``True``)."""
    if True not in flags:  # most games: no medal
        return []
    return [name for name, value in zip(flags._fields, flags, strict=True) if value is True]


class RecordFields(NamedTuple):
    """The fields of a game record the PGN tags come from (from a parsed record, or from the record array)."""

    tournament: int
    year: int
    month: int
    day: int
    round: int
    subround: int
    white: int
    black: int
    result: int
    white_elo: int
    black_elo: int
    eco_code: int
    eco_subcode: int
    annotator: int
    source: int


def pgn_headers(database: GameSource, number: int, fields: RecordFields) -> tuple[dict[str, str],
                                                                                   list[str | None]]:
    """Game ``number``'s PGN tags and its (white, black) team names."""
    event, site, event_date, event_type = _tournament_tags(database, fields.tournament)
    headers = {
        "Event": event,
        "Site": site,
        "Date": _pgn_date(fields.year, fields.month, fields.day),
        "Round": (f"{fields.round}" + (f".{fields.subround}" if fields.subround else "")) if fields.round else "?",
        "White": _tag_value(database.players.name_of(fields.white)) or "?",
        "Black": _tag_value(database.players.name_of(fields.black)) or "?",
        "Result": RESULT_TAGS.get(fields.result, "*"),
    }
    if fields.white_elo:
        headers["WhiteElo"] = str(fields.white_elo)
    if fields.black_elo:
        headers["BlackElo"] = str(fields.black_elo)
    eco, _ = _eco(fields.eco_code, fields.eco_subcode)
    if eco:
        headers["ECO"] = eco
    annotator = database.annotators.name_of(fields.annotator)
    if annotator:
        headers["Annotator"] = _tag_value(annotator)
    source = database.sources.name_of(fields.source)
    if source:
        headers["Source"] = _tag_value(source)
    if event_date is not None:
        headers["EventDate"] = event_date
    if event_type is not None:
        headers["EventType"] = event_type
    teams: list[str | None] = [None, None]
    numbers = database.team_numbers(number)
    if numbers == (None, None):  # most games
        return headers, teams
    for side, (team, tag) in enumerate(zip(numbers, ("WhiteTeam", "BlackTeam"), strict=True)):
        if team is not None and (name := database.team_name(team)):
            teams[side] = name
            headers[tag] = _tag_value(name)
    return headers, teams


def _tournament_tags(database: GameSource, number: int) -> tuple[str, str, str | None, str | None]:
    """(Event, Site, EventDate, EventType) of tournament record ``number``, kept with the tournament file (many
    games share a tournament)."""
    tournaments = database.tournaments
    known = tournaments.derived
    found: tuple[str, str, str | None, str | None] | None = known.get(("tags", number, database.encoding))
    if found is not None:
        return found
    if number >= len(tournaments):
        return "?", "?", None, None
    tournament = tournaments[number]
    date, kind = tournament.record.date, tournament.record.kind
    # an empty title or place is PGN's unknown "?" (as ChessBase exports it: corpus libcbh_Annotation)
    found = (_tag_value(tournament.name) or "?",
             _tag_value(decode_name(tournament.record.place, database.encoding)) or "?",
             _pgn_date(date.year, date.month, date.day) if date.year else None,
             str(kind.type) if int(kind.type) else None)
    known["tags", number, database.encoding] = found
    return found
