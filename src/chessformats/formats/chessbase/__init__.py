"""ChessBase game databases: games with their headers, entities (players, tournaments, ...), a fast header scan.

>>> from chessformats import chessbase
>>> with chessbase.open_database("twic1134.cbh") as db:        # doctest: +SKIP
...     print(len(db), db[1].headers["White"])
...     for player in db.players.sorted():
...         print(player.name)

The byte layouts live in :mod:`chessformats.schemas.chessbase`; this module adds the meaning. Files are
memory-mapped and records are read when asked for, so memory does not grow with the number of games.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from types import TracebackType
from typing import Any

import chess.pgn
import numpy as np

from ...engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from ...engine.fileio import atomic_write, map_file
from ...engine.layout import bit_fields, describe, numpy_dtype
from ...engine.records import record_array
from ...engine.trace import parse
from ...schemas import chessbase as schema
from .annotations import Annotator, decode_bytes
from .moves import DecodedGame, decode_game
from .pgn import build_game, pgn_text, stream_pgn_text

__all__ = [
    "COMPANIONS",
    "GAME_DTYPE",
    "RESULT_TAGS",
    "Database",
    "Entity",
    "EntityFile",
    "ExtendedHeader",
    "ExtendedHeaders",
    "GameHeader",
    "GuidingText",
    "decode_name",
    "export_pgn",
    "open_database",
]

COMPANIONS = (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj", ".cbm", ".cbl", ".cbtt",
              ".cib", ".cib2", ".cit", ".cit2", ".cbb", ".cbgi", ".flags", ".ini", ".cko", ".ckn", ".cpo", ".cpn",
              ".pgi")
"""Extensions of a database's files; a database can be opened by any of them."""

GAME_DTYPE = numpy_dtype(schema.GAME_RECORD)
"""The numpy dtype of a ``.cbh`` record read as a game record, derived from the declaration."""

_DATE_BITS = bit_fields(schema.DATE)
_KIND_BITS = bit_fields(schema.RECORD_KIND)
RESULT_TAGS = {0: "0-1", 1: "1/2-1/2", 2: "1-0", 3: "*", 4: "0-1", 5: "1/2-1/2", 6: "1-0", 7: "0-1"}
"""A game record's result code as a PGN result."""
_CHESS960_ECO = 64576
_ENTITY_CACHE = 1 << 16  # entities kept parsed (bounded: memory does not grow with the base)


def decode_name(raw: bytes, encoding: str | None = None) -> str:
    """The text of a 0-terminated name field: UTF-8 when valid, else cp1252 (``encoding`` overrides).

    Never raises: bytes the code page does not define become U+FFFD.
    """
    return decode_bytes(raw.split(b"\0", 1)[0], encoding)


def _pgn_date(year: int, month: int, day: int) -> str:
    return ".".join((f"{year:04d}" if year else "????", f"{month:02d}" if month else "??",
                     f"{day:02d}" if day else "??"))


def _tag_value(text: str) -> str:
    """A PGN tag value: control characters (a damaged name's line break, say) become spaces."""
    return "".join(" " if ord(c) < 32 or c == "\x7f" else c for c in text)


def _eco(value: int) -> tuple[str | None, int | None]:
    """(ECO code, Chess960 start position) of the 16-bit ECO field."""
    if value >= _CHESS960_ECO:
        return None, value - _CHESS960_ECO
    code, sub = value >> 7, value & 0x7F
    if not 1 <= code <= 500:
        return None, None
    code -= 1
    return f"{'ABCDE'[code // 100]}{code % 100:02d}" + (f"/{sub:02d}" if sub else ""), None


# --- entities ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entity:
    """One record of an entity file (a player, tournament, annotator, source or team)."""

    number: int
    """Record number in its file (from 0), as game records name it."""
    name: str
    """The display name: "Last, First" for players, the title otherwise."""
    record: Any = field(repr=False)
    """The parsed record (every field of the declaration; names as raw bytes)."""
    deleted: bool = False


SortKey = tuple[Any, ...]
"""An entity's key in its tree's order (compare keys of one file only)."""

# The order of the entity trees (facts from Yarin78/morphy: the compareTo of its Player, Tournament, Annotator,
# Source and Team classes, and format/v1/spec/4-entities.md "Sort order"; checked on every corpus tree):
#   players      last name, first name
#   tournaments  year descending, title, place, month descending, day descending
#   annotators   name
#   sources      title
#   teams        title, team number, season (a season first), year, nation
# Strings compare byte by byte, then a 0 byte (a string sorts before any longer one it begins), with no
# collation. Bytes are unsigned for players and teams and signed for the others (morphy; ChessBase 16 for
# players; no corpus tree tells for tournaments, annotators, sources or teams). The old morphy_linares_old base
# compares player names signed ("L\xe9k\xf3" before "Larsen"): EntityFile.check and find accept a tree that
# follows the other byte comparison throughout.
_SIGNED_BYTES = {".cbp": False, ".cbt": True, ".cbc": True, ".cbs": True, ".cbe": False}
_ENTITY_FIELDS = {extension: {f.name: (f.offset or 0, f.size or 0) for f in describe(declaration)}
                  for extension, declaration in schema.ENTITY_RECORDS.items()}
_ENTITY_NAME = {".cbp": "last_name", ".cbt": "title", ".cbc": "name", ".cbs": "title", ".cbe": "title"}


def _text_key(raw: bytes, signed: bool) -> tuple[int, ...]:
    """A 0-terminated string as ChessBase compares it: its bytes (signed or not), then the terminator."""
    text = raw.split(b"\0", 1)[0]
    return (*(b - 256 if signed and b > 127 else b for b in text), 0)


class EntityFile:
    """An entity file: records by number, in record order, in the tree's (AVL in-order, ``sort_key``) order, by
    name."""

    def __init__(self, path: str | os.PathLike[str], *, encoding: str | None = None) -> None:
        self.path = os.fspath(path)
        self.extension = os.path.splitext(self.path)[1].lower()
        self.declaration = schema.ENTITY_RECORDS[self.extension]
        self.encoding = encoding
        self.signed: bool = _SIGNED_BYTES[self.extension]
        """Whether this kind's names compare as signed bytes (ChessBase's rule; see ``sort_key``)."""
        self.record_size: int = self.declaration.sizeof()
        self._cache: dict[int, Entity] = {}
        self._data = map_file(self.path) if os.path.exists(self.path) else b""
        if not self._data:
            self.header = None
            self.header_size = 0
            self.count = 0
            self.root = -1
            return
        if len(self._data) < 28:
            raise TruncatedError("truncated entity header", needed=28, available=len(self._data), file=self.path,
                                 offset=0)
        extra = int.from_bytes(self._data[24:28], "little")
        if extra > len(self._data) - 28:
            raise InvalidValueError("entity header: extra_space larger than the file", actual=extra,
                                    file=self.path, offset=24, path="extra_space")
        self.header = parse(schema.ENTITY_HEADER, bytes(self._data[:28 + extra]), file=self.path)
        self.header_size = 28 + extra
        if self.header.record_data_size + 9 != self.record_size:
            raise UnsupportedError(f"records of {self.header.record_data_size + 9} bytes "
                                   f"(this reader knows {self.record_size})", file=self.path, offset=12)
        available = (len(self._data) - self.header_size) // self.record_size
        if self.header.records > available:
            raise TruncatedError(f"the header counts {self.header.records} records, the file holds {available}",
                                 file=self.path, offset=self.header_size + available * self.record_size)
        self.count = int(self.header.records)
        self.root = int(self.header.root)
        self._nodes = np.frombuffer(self._data, dtype=np.dtype([("left", "<i4"), ("right", "<i4"), ("balance", "i1"),
                                                                ("rest", f"V{self.record_size - 9}")]),
                                    count=self.count, offset=self.header_size)

    def __len__(self) -> int:
        return self.count

    def close(self) -> None:
        if hasattr(self._data, "close"):
            self._nodes = None  # type: ignore[assignment]
            self._data.close()

    def _raw(self, number: int) -> bytes:
        start = self.header_size + number * self.record_size
        return bytes(self._data[start:start + self.record_size])

    def __getitem__(self, number: int) -> Entity:
        cached = self._cache.get(number)
        if cached is not None:
            return cached
        entity = self._read(number)
        if len(self._cache) >= _ENTITY_CACHE:
            self._cache.clear()
        self._cache[number] = entity
        return entity

    def _read(self, number: int) -> Entity:
        if not 0 <= number < self.count:
            raise IndexError(f"{os.path.basename(self.path)}: no record {number} (the file has {self.count})")
        start = self.header_size + number * self.record_size
        record = parse(self.declaration, self._raw(number), file=self.path, offset=start, path=f"records[{number}]")
        return Entity(number, self._display(record), record, record.left == -999)

    def _display(self, record: Any) -> str:
        if self.extension == ".cbp":
            last, first = decode_name(record.last_name, self.encoding), decode_name(record.first_name, self.encoding)
            return f"{last}, {first}" if first else last
        title = record.name if self.extension == ".cbc" else record.title
        return decode_name(title, self.encoding)

    def name_of(self, number: int) -> str:
        """The display name of record ``number`` ("" when out of range: a game may name no entity)."""
        if not 0 <= number < self.count:
            return ""
        return self[number].name

    def __iter__(self) -> Iterator[Entity]:
        """Records in record order, deleted ones skipped."""
        for number in range(self.count):
            entity = self[number]
            if not entity.deleted:
                yield entity

    def _field(self, raw: bytes, name: str) -> bytes:
        offset, size = _ENTITY_FIELDS[self.extension][name]
        return raw[offset:offset + size]

    def _key(self, number: int) -> bytes:
        """The name as ``find`` takes bytes: the title, or for players last name, a 0 byte, first name."""
        raw = self._raw(number)
        name = self._field(raw, _ENTITY_NAME[self.extension]).split(b"\0", 1)[0]
        if self.extension == ".cbp":
            name += b"\0" + self._field(raw, "first_name").split(b"\0", 1)[0]
        return name

    def sort_key(self, number: int, *, signed: bool | None = None) -> SortKey:
        """Record ``number``'s key in ChessBase's order of this kind (see the module's entity notes).

        Players: last name, first name. Tournaments: year descending, title, place, month descending, day
        descending. Annotators: name. Sources: title. Teams: title, team number, season first, year, nation.
        Names compare byte by byte and then a 0 byte, as unsigned bytes for players and teams and signed ones
        for the others; ``signed`` overrides that (an old base may follow the other comparison).
        """
        raw = self._raw(number)
        signed = self.signed if signed is None else signed
        ext = self.extension
        name = _text_key(self._field(raw, _ENTITY_NAME[ext]), signed)
        if ext == ".cbp":
            return (name, _text_key(self._field(raw, "first_name"), signed))
        if ext == ".cbt":
            date = int.from_bytes(self._field(raw, "date"), "little")  # DATE_LE: day bits 0-4, month 5-8, year 9-20
            year, month, day = date >> 9 & 0xFFF, date >> 5 & 0xF, date & 0x1F
            return (-year, name, _text_key(self._field(raw, "place"), signed), -month, -day)
        if ext == ".cbe":
            # morphy: the team number is a 4-byte integer (our schema: number + reserved_56, 0 in the corpus)
            number_, year = (int.from_bytes(raw[offset:offset + 4], "little", signed=True)
                             for offset in (_ENTITY_FIELDS[ext]["number"][0], _ENTITY_FIELDS[ext]["year"][0]))
            season = self._field(raw, "season")[0] & 1
            return (name, number_, -season, year, self._field(raw, "nation")[0])
        return (name,)

    def _inorder(self) -> Iterator[int]:
        """Record numbers in the tree's in-order; stops (without looping) on a damaged tree."""
        stack: list[int] = []
        node = self.root
        seen: set[int] = set()
        while stack or 0 <= node < self.count:
            while 0 <= node < self.count and node not in seen:
                seen.add(node)
                stack.append(node)
                node = int(self._nodes["left"][node])
            if not stack:
                return
            node = stack.pop()
            yield node
            node = int(self._nodes["right"][node])

    def sorted(self) -> Iterator[Entity]:
        """Records in the tree's order (``sort_key``: tournaments newest year first, the others by name)."""
        for number in self._inorder():
            yield self[number]

    def find(self, name: str | bytes, *, year: int | None = None) -> Entity | None:
        """The record with this name, walking the tree (``sort_key`` order): O(log n).

        Players: "Last, First" or "Last" (as ``bytes``: last name, a 0 byte, first name); other kinds: the
        title (an annotator's name). A ``str`` is looked up in the base's code page (``encoding``, else UTF-8
        and then cp1252). When several records have the name (a team title with several numbers or years, a
        tournament title in several places), the first of them in the tree's order is returned. The walk uses
        this kind's byte comparison, then the other one (an old base's tree may follow that one).

        Tournaments sort by year before title, so a title alone cannot steer the walk: pass ``year`` (0: no
        year) for an O(log n) lookup. Without it every record is compared (O(n)) and the first match in the
        tree's order, i.e. the most recent year, is returned.
        """
        if year is not None and self.extension != ".cbt":
            raise ValueError("find(year=...) is for tournaments only")
        names = self._lookup_keys(name)
        if self.extension == ".cbt" and year is None:
            matches = [n for n in range(self.count) if self._nodes["left"][n] != -999 and self._key(n) in names]
            return self[min(matches, key=self.sort_key)] if matches else None
        for signed in (self.signed, not self.signed):
            for key in names:
                found = self._descend(self._prefix(key, signed, year), signed)
                if found is not None:
                    return self[found]
        return None

    def _prefix(self, name: bytes, signed: bool, year: int | None) -> SortKey:
        """The leading part of ``sort_key`` that a name (and a tournament's year) determines."""
        if self.extension == ".cbp":
            last, _, first = name.partition(b"\0")
            return (_text_key(last, signed), _text_key(first, signed))
        if self.extension == ".cbt":
            return (-(year or 0), _text_key(name, signed))
        return (_text_key(name, signed),)

    def _descend(self, prefix: SortKey, signed: bool) -> int | None:
        """The first record in tree order whose key starts with ``prefix``: one walk from the root down."""
        node, steps, found = self.root, 0, None
        while 0 <= node < self.count and steps <= self.count:
            steps += 1
            here = self.sort_key(node, signed=signed)[:len(prefix)]
            if here == prefix:
                found = node
            node = int(self._nodes["left" if prefix <= here else "right"][node])
        return found

    def _lookup_keys(self, name: str | bytes) -> list[bytes]:
        if isinstance(name, bytes):
            return [name]
        keys = []
        for encoding in (self.encoding,) if self.encoding else ("utf-8", "cp1252"):
            if self.extension == ".cbp":
                last, _, first = name.partition(",")
                key = last.strip().encode(encoding, "replace") + b"\0" + first.strip().encode(encoding, "replace")
            else:
                key = name.encode(encoding, errors="replace")
            if key not in keys:
                keys.append(key)
        return keys

    def disorder(self, order: list[int] | None = None, *, signed: bool | None = None) -> int:
        """How many neighbours of the in-order (or of ``order``) are not in strictly increasing ``sort_key``."""
        keys = [self.sort_key(n, signed=signed) for n in (list(self._inorder()) if order is None else order)]
        return sum(1 for a, b in itertools.pairwise(keys) if a >= b)

    def check(self) -> list[str]:
        """Findings about the tree: balance factors, order, counts (reported, never raised).

        The order is ``sort_key``'s; a tree sorted throughout by the other byte comparison (signed for
        unsigned, or the reverse) is accepted, as in morphy_linares_old's players.
        """
        if self.header is None:
            return []
        name = os.path.basename(self.path)
        findings = []
        deleted = int(np.count_nonzero(self._nodes["left"] == -999))
        if self.count - deleted != self.header.existing:
            findings.append(f"{name}: header says {self.header.existing} records exist, "
                            f"{self.count - deleted} are not deleted")
        order = list(self._inorder())
        if len(order) != self.count - deleted:
            findings.append(f"{name}: the tree reaches {len(order)} of {self.count - deleted} records")
        disorder = self.disorder(order)
        if disorder and self.disorder(order, signed=not self.signed):  # else: an old base's byte comparison
            findings.append(f"{name}: the tree's in-order is not sorted at {disorder} places")
        heights: dict[int, int] = {}
        bad_balance = 0
        for number in reversed(self._postorder_ready(order)):
            left, right = int(self._nodes["left"][number]), int(self._nodes["right"][number])
            lh, rh = heights.get(left, 0), heights.get(right, 0)
            heights[number] = 1 + max(lh, rh)
            if rh - lh != int(self._nodes["balance"][number]) or abs(rh - lh) > 1:
                bad_balance += 1
        if bad_balance:
            findings.append(f"{name}: {bad_balance} nodes with a wrong or out-of-range balance factor")
        return findings

    def _postorder_ready(self, order: list[int]) -> list[int]:
        """Nodes so that, walked backwards, children come before parents (reverse of a pre-order)."""
        pre: list[int] = []
        stack = [self.root] if 0 <= self.root < self.count else []
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if node in seen or not 0 <= node < self.count:
                continue
            seen.add(node)
            pre.append(node)
            stack += [int(self._nodes["right"][node]), int(self._nodes["left"][node])]
        return pre


# --- extended game headers (.cbj) ----------------------------------------------------------------------

_UTC = timezone.utc  # not datetime.UTC: mypy checks for Python 3.10
_CBJ_CREATED_EPOCH = datetime(2008, 11, 30, 23, 0, tzinfo=_UTC)  # 2008-12-01 00:00 in Berlin (CET, UTC+1)
_CBJ_MODIFIED_EPOCH = datetime(1582, 10, 15, tzinfo=_UTC)
_CBJ_LATEST = datetime(2100, 1, 1, tzinfo=_UTC)  # later times are another writer's unit, not a date
_CBJ_MAX_RECORD = 1 << 16
_CBJ_TEAM_FIELDS = {f.name: (f.offset or 0, f.size or 0) for f in describe(schema.CBJ_RECORD)
                    if f.name.endswith("_team")}  # fixed fields at the start of every record version


@dataclass(frozen=True)
class ExtendedHeader:
    """A game's ``.cbj`` record (the extended game header) with its values decoded."""

    number: int
    """The game (record) number, from 1."""
    offset: int
    """Offset of the record in the ``.cbj`` file."""
    record: Any = field(repr=False)
    """The parsed record (every field the record's size holds; see ``schema.cbj_record``)."""
    white_team: int | None = None
    """Record number of white's team in the ``.cbe`` file (``None``: no team)."""
    black_team: int | None = None
    game_version: int | None = None
    """Edit count (1 for a new game); ``None`` in records too old to hold it."""
    created: datetime | None = None
    """When the game was created (``None``: not given, or a value in another writer's unit)."""
    modified: datetime | None = None
    """When the game was last changed (``None``: never, or not given)."""
    white_rating_type: str | None = None
    """Type of white's rating, e.g. "FIDE" or "FIDE blitz" (``None``: not given)."""
    black_rating_type: str | None = None
    final_material: tuple[str, str] | None = None
    """Pieces (kings aside) left at the end of the main line, e.g. ("RB5P", "R6P"): the side with more first,
    which is not necessarily white. ``None``: not computed."""


def _material(value: Any) -> str:
    text: str = "Q" * value.queens + "R" * value.rooks + "B" * value.bishops + "N" * value.knights
    return text + (f"{value.pawns}P" if value.pawns else "")


def _rating_type(value: Any) -> str | None:
    kind = str(value.kind)
    name = decode_name(value.name)
    if kind == "international":
        control = str(value.international_control)
        return (name or "international") + ("" if control in ("normal", "none") else f" {control}")
    if kind == "national":
        control = str(value.national_control)
        return " ".join(part for part in (str(value.nation).upper(), name or "national",
                                          "" if control == "normal" else control) if part)
    return None


def _roman(number: int) -> str:
    """``number`` in Roman numerals (1-3999; others in digits)."""
    if not 1 <= number <= 3999:
        return str(number)
    text = ""
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        text += letters * count
    return text


def _time(epoch: datetime, delta: timedelta) -> datetime | None:
    try:
        moment = epoch + delta
    except OverflowError:
        return None
    return moment if moment < _CBJ_LATEST else None


class ExtendedHeaders:
    """The ``.cbj`` file: one record per game (game n is record n), memory-mapped, read when asked for.

    A missing or empty file, a game beyond the records it holds (a ``.cbj`` older than its games) or a record
    too small for the field asked for mean "not given"; a header or record that cannot be right raises a
    :class:`FormatError`.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._data: Any = map_file(self.path) if os.path.exists(self.path) else b""
        self.header: Any = None
        self.record_size = 0
        self.count = 0
        self._available = 0
        if not self._data:
            return
        if len(self._data) < schema.CBJ_HEADER_SIZE:
            raise TruncatedError("truncated .cbj header", needed=schema.CBJ_HEADER_SIZE, available=len(self._data),
                                 file=self.path, offset=0)
        self.header = parse(schema.CBJ_HEADER, bytes(self._data[:schema.CBJ_HEADER_SIZE]), file=self.path)
        size = int(self.header.record_size)
        if not 1 <= size <= _CBJ_MAX_RECORD:
            raise InvalidValueError(f".cbj records of {size} bytes", expected=f"1..{_CBJ_MAX_RECORD}", actual=size,
                                    file=self.path, offset=4, path="record_size")
        self.record_size = size
        self.count = int(self.header.records)
        self._available = (len(self._data) - schema.CBJ_HEADER_SIZE) // size
        self.declaration = schema.cbj_record(size)

    def __len__(self) -> int:
        return self.count

    def close(self) -> None:
        if hasattr(self._data, "close"):
            self._data.close()

    def offset_of(self, number: int) -> int:
        return schema.CBJ_HEADER_SIZE + (number - 1) * self.record_size

    def raw(self, number: int) -> tuple[int, bytes] | None:
        """(offset, bytes) of game ``number``'s record; ``None`` when the file holds none for it."""
        start = self.raw_span(number)
        if start is None:
            return None
        return start, bytes(self._data[start:start + self.record_size])

    def __getitem__(self, number: int) -> ExtendedHeader | None:
        """Game ``number``'s extended header (``None``: the file holds no record for it)."""
        found = self.raw(number)
        if found is None:
            return None
        start, data = found
        record = parse(self.declaration, data, file=self.path, offset=start, path=f"cbj[{number}]")
        teams = [self._team(record, number, start, name) if name in record else None
                 for name in ("white_team", "black_team")]
        version = record.get("game_version")
        created = record.get("created")
        modified = record.get("modified")
        material = None
        if "material_2" in record:
            material = (_material(record.material_1), _material(record.material_2))
            if material == ("", ""):  # 0: not computed
                material = None
        return ExtendedHeader(
            number, start, record, teams[0], teams[1],
            game_version=None if version is None else int(version),
            created=_time(_CBJ_CREATED_EPOCH, timedelta(seconds=created / 1024)) if created else None,
            modified=_time(_CBJ_MODIFIED_EPOCH, timedelta(microseconds=modified // 10)) if modified else None,
            white_rating_type=_rating_type(record.white_rating) if "white_rating" in record else None,
            black_rating_type=_rating_type(record.black_rating) if "black_rating" in record else None,
            final_material=material,
        )

    def team_numbers(self, number: int) -> tuple[int | None, int | None]:
        """Game ``number``'s (white, black) team numbers, read straight from its record (the offsets come from
        the declaration): the fast path of :meth:`__getitem__` for game lists and PGN export."""
        found = self.raw_span(number)
        if found is None:
            return None, None
        start = found
        teams: list[int | None] = []
        for name in ("white_team", "black_team"):
            offset, size = _CBJ_TEAM_FIELDS[name]
            if offset + size > self.record_size:
                teams.append(None)
                continue
            value = int.from_bytes(self._data[start + offset:start + offset + size], "big", signed=True)
            teams.append(self._checked_team(value, number, start, name))
        return teams[0], teams[1]

    def raw_span(self, number: int) -> int | None:
        """Where game ``number``'s record starts (``None``: the file holds no record for it)."""
        if not 1 <= number <= self.count:
            return None
        start = self.offset_of(number)
        if number > self._available:
            raise TruncatedError(f"the .cbj header counts {self.count} records, the file holds {self._available}",
                                 needed=self.record_size, available=max(0, len(self._data) - start),
                                 file=self.path, offset=start, path=f"cbj[{number}]")
        return start

    def _team(self, record: Any, number: int, start: int, name: str) -> int | None:
        return self._checked_team(int(record[name]), number, start, name)

    def _checked_team(self, value: int, number: int, start: int, name: str) -> int | None:
        if value == -1:
            return None
        if value < 0:
            raise InvalidValueError(f"game {number}: team number {value}", expected="-1 or a .cbe record number",
                                    actual=value, file=self.path, offset=start + (0 if name == "white_team" else 4),
                                    path=f"cbj[{number}].{name}")
        return value


# --- games ---------------------------------------------------------------------------------------------

@dataclass
class GameHeader:
    """A game: its ``.cbh`` record with the names resolved; :meth:`moves` decodes its move stream."""

    number: int
    record: Any = field(repr=False)
    headers: dict[str, str]
    """PGN-style tags: Event, Site, Date, Round, White, Black, Result, WhiteElo, BlackElo, ECO, Annotator..."""
    chess960_position: int | None = None
    medals: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    database: Database | None = field(default=None, repr=False, compare=False)
    white_team: str | None = None
    """White's team (from the ``.cbj`` and ``.cbe`` files; ``None``: not given)."""
    black_team: str | None = None

    @property
    def extended(self) -> ExtendedHeader | None:
        """The game's ``.cbj`` record: rating types, final material, timestamps, version (``None``: no record)."""
        return self.database.extended_header(self.number) if self.database is not None else None

    def decode(self) -> DecodedGame:
        """The decoded move stream (tokens in stream order, start position, mode)."""
        if self.database is None:
            raise ValueError("the game is not attached to an open database")
        return self.database.decode(self.number)

    def moves(self) -> chess.pgn.Game:
        """The game with its variation tree, setup position and Chess960 castling (no annotations)."""
        return build_game(self.decode(), self.headers)

    def to_pgn(self, *, annotations: bool = True) -> chess.pgn.Game:
        """The game as ``moves()``, with its annotations as comments, NAGs and ``[%...]`` commands."""
        if not annotations or self.database is None:
            return self.moves()
        return self.database._annotated(self)


@dataclass
class GuidingText:
    """A guiding-text record: its titles and texts per language, and its body (raw bytes, for a byte-exact copy).

    ``texts`` maps a language (``english``, ``german``, ... ``unknown``) to its text: HTML when
    ``text_format`` is ``"html"`` (ChessBase 16), else plain text with CR line ends whose formatting runs
    are in ``formatting``. The body's layout is ``schema.TEXT_CONTENTS``.
    """

    number: int
    record: Any = field(repr=False)
    titles: dict[str, str]
    body: bytes = field(repr=False)
    tournament: str = ""
    annotator: str = ""
    source: str = ""
    text_format: str = ""
    texts: dict[str, str] = field(default_factory=dict, repr=False)
    formatting: dict[str, bytes] = field(default_factory=dict, repr=False)

    @property
    def html(self) -> dict[str, str]:
        """The HTML of each language (empty unless ``text_format`` is ``"html"``)."""
        return dict(self.texts) if self.text_format == "html" else {}


class Database:
    """A ChessBase database, opened by its ``.cbh`` or any companion file."""

    def __init__(self, path: str | os.PathLike[str], *, encoding: str | None = None) -> None:
        name = os.fspath(path)
        stem, extension = os.path.splitext(name)
        if extension.lower() == ".2cbh" or (os.path.exists(stem + ".2cbh") and not os.path.exists(stem + ".cbh")):
            raise UnsupportedError("a ChessBase 17+ database (.2cbh): not supported yet", file=name)
        if extension.lower() not in COMPANIONS:
            stem = name
        self.base = stem
        self.encoding = encoding
        self.cbh_path = self._companion(".cbh")
        if not os.path.exists(self.cbh_path):
            raise FormatError("no .cbh file beside it: not a ChessBase database", file=name)
        self._cbh = map_file(self.cbh_path)
        if len(self._cbh) < schema.CBH_HEADER_SIZE:
            raise TruncatedError("truncated .cbh header", needed=schema.CBH_HEADER_SIZE, available=len(self._cbh),
                                 file=self.cbh_path, offset=0)
        self.header = parse(schema.CBH_HEADER, bytes(self._cbh[:schema.CBH_HEADER_SIZE]), file=self.cbh_path)
        self.records = record_array(self._cbh, schema.GAME_RECORD, file=self.cbh_path, offset=schema.CBH_HEADER_SIZE,
                                    label="record", path="records")
        self._cbg = self._map(".cbg")
        self._cba = self._map(".cba")
        self.players = EntityFile(self._companion(".cbp"), encoding=encoding)
        self.tournaments = EntityFile(self._companion(".cbt"), encoding=encoding)
        self.annotators = EntityFile(self._companion(".cbc"), encoding=encoding)
        self.sources = EntityFile(self._companion(".cbs"), encoding=encoding)
        self.teams = EntityFile(self._companion(".cbe"), encoding=encoding)
        self._extended: ExtendedHeaders | None = None  # the .cbj file, opened when first needed

    @property
    def extended(self) -> ExtendedHeaders:
        """The ``.cbj`` file (extended game headers), opened on first use; empty when the base has none."""
        if self._extended is None:
            self._extended = ExtendedHeaders(self._companion(".cbj"))
        return self._extended

    def extended_header(self, number: int) -> ExtendedHeader | None:
        """Game ``number``'s ``.cbj`` record with its team numbers checked against the ``.cbe`` file."""
        found = self.extended[number]
        if found is not None:
            self._check_teams(number, (found.white_team, found.black_team))
        return found

    def team_numbers(self, number: int) -> tuple[int | None, int | None]:
        """Game ``number``'s (white, black) team record numbers (``None``: not given), checked."""
        teams = self.extended.team_numbers(number)
        self._check_teams(number, teams)
        return teams

    def _check_teams(self, number: int, teams: tuple[int | None, int | None]) -> None:
        for name, team in zip(("white_team", "black_team"), teams, strict=True):
            if team is not None and team >= len(self.teams):
                raise InvalidValueError(f"game {number}: team {team}, the .cbe file has {len(self.teams)} records",
                                        actual=team, file=self.extended.path,
                                        offset=self.extended.offset_of(number) + _CBJ_TEAM_FIELDS[name][0],
                                        path=f"cbj[{number}].{name}")

    def team_name(self, number: int) -> str:
        """Team ``number``'s name as ChessBase shows it: the title, then the team number (if any) in Roman
        numerals ("Eppingen" with number 2 is "Eppingen II", as UnusualStart.pgn has it). "" when out of range."""
        if not 0 <= number < len(self.teams):
            return ""
        team = self.teams[number]
        suffix = int(team.record.number)
        return f"{team.name} {_roman(suffix)}" if team.name and suffix else team.name

    def _companion(self, extension: str) -> str:
        for candidate in (self.base + extension, self.base + extension.upper()):
            if os.path.exists(candidate):
                return candidate
        return self.base + extension

    def _map(self, extension: str) -> Any:
        path = self._companion(extension)
        return map_file(path) if os.path.exists(path) else b""

    def __enter__(self) -> Database:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.records = None  # type: ignore[assignment]
        for data in (self._cbh, self._cbg, self._cba):
            if hasattr(data, "close"):
                data.close()
        for entities in (self.players, self.tournaments, self.annotators, self.sources, self.teams):
            entities.close()
        if self._extended is not None:
            self._extended.close()

    def __len__(self) -> int:
        """Records (games and guiding texts) in the ``.cbh`` file."""
        return len(self.records)

    def _record(self, number: int) -> Any:
        if not 1 <= number <= len(self):
            raise IndexError(f"{os.path.basename(self.cbh_path)}: no game {number} (games are 1..{len(self)})")
        start = schema.CBH_HEADER_SIZE * number
        return parse(schema.CBH_RECORD, bytes(self._cbh[start:start + schema.CBH_RECORD_SIZE]), file=self.cbh_path,
                     offset=start, path=f"records[{number}]")

    def __getitem__(self, number: int) -> GameHeader | GuidingText:
        """Game (or guiding text) ``number``, counted from 1 as ChessBase does."""
        record = self._record(number)
        if record.kind.guiding_text:
            return self._text(number, record)
        return self._game(number, record)

    def games(self) -> Iterator[GameHeader | GuidingText]:
        """Every record in order (games and guiding texts; deleted ones skipped)."""
        for number in range(1, len(self) + 1):
            if self.records["kind"][number - 1] & 0x80:
                continue
            yield self[number]

    def _game(self, number: int, record: Any) -> GameHeader:
        body = record.body
        tournament = self.tournaments[body.tournament] if body.tournament < len(self.tournaments) else None
        headers = {
            "Event": tournament.name if tournament else "?",
            "Site": decode_name(tournament.record.place, self.encoding) if tournament else "?",
            "Date": _pgn_date(body.date.year, body.date.month, body.date.day),
            "Round": (f"{body.round}" + (f".{body.subround}" if body.subround else "")) if body.round else "?",
            "White": self.players.name_of(body.white) or "?",
            "Black": self.players.name_of(body.black) or "?",
            "Result": RESULT_TAGS.get(int(body.result), "*"),
        }
        if body.white_elo:
            headers["WhiteElo"] = str(body.white_elo)
        if body.black_elo:
            headers["BlackElo"] = str(body.black_elo)
        eco, chess960 = _eco(body.eco.code << 7 | body.eco.subcode)
        if eco:
            headers["ECO"] = eco
        annotator = self.annotators.name_of(body.annotator)
        if annotator:
            headers["Annotator"] = annotator
        source = self.sources.name_of(body.source)
        if source:
            headers["Source"] = source
        if tournament is not None:
            date = tournament.record.date
            if date.year:
                headers["EventDate"] = _pgn_date(date.year, date.month, date.day)
            kind = tournament.record.kind
            if int(kind.type):
                headers["EventType"] = str(kind.type)
        teams: list[str | None] = [None, None]
        for side, (team, tag) in enumerate(zip(self.team_numbers(number), ("WhiteTeam", "BlackTeam"), strict=True)):
            if team is not None and (name := self.team_name(team)):
                teams[side] = name
                headers[tag] = name
        headers = {name: _tag_value(value) for name, value in headers.items()}
        medals = [name for name, value in body.medals.items() if value is True]
        flags = [name for name, value in body.flags.items() if value is True]
        if body.flags.chess960 and chess960 is None:
            chess960 = -1
        return GameHeader(number, record, headers, chess960, medals, flags, self, white_team=teams[0],
                          black_team=teams[1])

    def _text(self, number: int, record: Any) -> GuidingText:
        start = int(record.cbg_offset)
        if start + 4 > len(self._cbg):
            raise TruncatedError(f"guiding text {number}: data beyond the end of the .cbg file",
                                 file=self._companion(".cbg"), offset=start)
        size = int.from_bytes(self._cbg[start:start + 4], "big") & 0xFFFFFF
        if start + size > len(self._cbg) or size < 8:
            raise TruncatedError(f"guiding text {number}: {size} bytes from offset {start}",
                                 file=self._companion(".cbg"), offset=start)
        data = parse(schema.TEXT_DATA, bytes(self._cbg[start:start + size]), file=self._companion(".cbg"),
                     offset=start, path=f"texts[{number}]")
        titles = {str(t.language): decode_name(t.title, self.encoding) for t in data.titles}
        head = 8 + sum(4 + int(t.length) for t in data.titles)
        raw = bytes(self._cbg[start + head:start + size])
        texts = {str(t.language): decode_bytes(t.text, self.encoding) for t in data.body.texts}
        formatting = {str(t.language): bytes(t.formatting) for t in data.body.texts if t.formatting}
        body = record.body
        return GuidingText(number, record, titles, raw, self.tournaments.name_of(body.tournament),
                           self.annotators.name_of(body.annotator), self.sources.name_of(body.source),
                           str(data.text_format), texts, formatting)

    def decode(self, number: int) -> DecodedGame:
        """Game ``number``'s move stream, decoded (without reading its header's names)."""
        offset, data = self.game_data(number)
        return decode_game(data, file=self._companion(".cbg"), base=offset, game=number,
                           main_moves=int(self.records["moves"][number - 1]))

    def annotations(self, number: int) -> list[Any]:
        """The parsed items of game ``number``'s annotation record (empty when it has none)."""
        found = self.annotation_data(number)
        if found is None:
            return []
        offset, data = found
        record = parse(schema.ANNOTATION_RECORD, data, file=self._companion(".cba"), offset=offset,
                       path=f"annotations[{number}]")
        return list(record.entries)

    def _annotated(self, game: GameHeader) -> chess.pgn.Game:
        annotator = Annotator(self.annotations(game.number), self.encoding)
        result = build_game(game.decode(), game.headers, annotator)
        annotator.finish(result)
        result.chessbase_extras = annotator.extras  # type: ignore[attr-defined]
        return result

    def game_data(self, number: int) -> tuple[int, bytes]:
        """(offset, bytes) of game ``number``'s data in the ``.cbg`` file, its size checked against the file."""
        if not 1 <= number <= len(self):
            raise IndexError(f"{os.path.basename(self.cbh_path)}: no game {number} (games are 1..{len(self)})")
        start = int(self.records["cbg_offset"][number - 1])
        cbg = self._companion(".cbg")
        if start + 4 > len(self._cbg):
            raise TruncatedError(f"game {number}: data offset {start} beyond the end of the .cbg file",
                                 file=cbg, offset=start)
        size = int.from_bytes(self._cbg[start:start + 4], "big") & 0xFFFFFF
        if size < 4 or start + size > len(self._cbg):
            raise TruncatedError(f"game {number}: data of {size} bytes from offset {start}", needed=size,
                                 available=len(self._cbg) - start, file=cbg, offset=start)
        return start, bytes(self._cbg[start:start + size])

    def annotation_data(self, number: int) -> tuple[int, bytes] | None:
        """(offset, bytes) of game ``number``'s annotation record in the ``.cba`` file (``None``: none)."""
        if not 1 <= number <= len(self):
            raise IndexError(f"{os.path.basename(self.cbh_path)}: no game {number} (games are 1..{len(self)})")
        start = int(self.records["cba_offset"][number - 1])
        if int(self.records["kind"][number - 1]) & 2 or not start:
            return None
        cba = self._companion(".cba")
        if start + 14 > len(self._cba):
            raise TruncatedError(f"game {number}: annotation offset {start} beyond the end of the .cba file",
                                 file=cba, offset=start)
        size = int.from_bytes(self._cba[start + 10:start + 14], "big")
        if size < 14 or start + size > len(self._cba):
            raise TruncatedError(f"game {number}: annotation record of {size} bytes", needed=size,
                                 available=len(self._cba) - start, file=cba, offset=start)
        return start, bytes(self._cba[start:start + size])

    # --- bulk -------------------------------------------------------------------------------------------

    def header_arrays(self) -> dict[str, np.ndarray[Any, Any]]:
        """Every record's header fields as numpy arrays (one element per record), without a Python loop."""
        records = self.records
        count = len(records)

        def u24(name: str) -> np.ndarray[Any, Any]:
            raw = np.frombuffer(records[name].tobytes(), dtype=np.uint8).reshape(count, 3).astype(np.uint32)
            return np.asarray(raw[:, 0] << 16 | raw[:, 1] << 8 | raw[:, 2])

        date = u24("date")
        kind = records["kind"]
        return {
            "number": np.arange(1, count + 1, dtype=np.uint32),
            "deleted": (kind >> _KIND_BITS["deleted"].shift & 1).astype(bool),
            "guiding_text": (kind >> _KIND_BITS["guiding_text"].shift & 1).astype(bool),
            "cbg_offset": records["cbg_offset"].astype(np.uint32),
            "cba_offset": records["cba_offset"].astype(np.uint32),
            "white": u24("white"), "black": u24("black"), "tournament": u24("tournament"),
            "annotator": u24("annotator"), "source": u24("source"),
            "year": date >> _DATE_BITS["year"].shift & _DATE_BITS["year"].mask,
            "month": date >> _DATE_BITS["month"].shift & _DATE_BITS["month"].mask,
            "day": date >> _DATE_BITS["day"].shift & _DATE_BITS["day"].mask,
            "result": records["result"].astype(np.uint8),
            "white_elo": records["white_elo"].astype(np.uint16),
            "black_elo": records["black_elo"].astype(np.uint16),
            "eco": records["eco"].astype(np.uint16),
            "flags": records["flags"].astype(np.uint32),
            "moves": records["moves"].astype(np.uint8),
        }

    def encoding_modes(self) -> dict[int, int]:
        """How many games use each move-encoding mode (from the first byte of each game's data)."""
        arrays = self.header_arrays()
        games = ~arrays["guiding_text"] & ~arrays["deleted"]
        offsets = arrays["cbg_offset"][games].astype(np.int64)
        if len(offsets) and int(offsets.max()) >= len(self._cbg):
            raise TruncatedError("a game's data offset lies beyond the end of the .cbg file",
                                 file=self._companion(".cbg"), offset=int(offsets.max()))
        cbg = np.frombuffer(self._cbg, dtype=np.uint8) if len(self._cbg) else np.zeros(0, np.uint8)
        modes = cbg[offsets] & 0x3F
        values, counts = np.unique(modes, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


def export_pgn(source: str | os.PathLike[str], target: str | os.PathLike[str], *, annotations: bool = True,
               encoding: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> tuple[int, list[FormatError]]:
    """Write every game of a database as PGN (atomically); returns (games written, errors of skipped games).

    A game that cannot be read (a corrupt stream, an unknown mode) is skipped and its error returned; the
    others are written. Guiding texts have no PGN form and are left out.
    """
    failed: list[FormatError] = []
    written = 0
    with open_database(source, encoding=encoding) as db, atomic_write(target) as handle:
        total = len(db)
        for number in range(1, total + 1):
            if int(db.records["kind"][number - 1]) & 0x82:  # deleted or a guiding text
                continue
            try:
                game = db[number]
                assert isinstance(game, GameHeader)
                if annotations and int(db.records["cba_offset"][number - 1]):
                    text = pgn_text(game.to_pgn())
                else:  # no annotations: straight from the stream, no chess.pgn.Game built
                    text = stream_pgn_text(game.decode(), game.headers)
            except FormatError as error:
                failed.append(error)
                continue
            handle.write(text.encode("utf-8") + b"\n")
            written += 1
            if progress is not None and (number % 256 == 0 or number == total):
                progress(number, total)
    return written, failed


def open_database(path: str | os.PathLike[str], *, encoding: str | None = None) -> Database:
    """Open a ChessBase database by its ``.cbh`` or any companion file (``encoding``: names' code page)."""
    return Database(path, encoding=encoding)
