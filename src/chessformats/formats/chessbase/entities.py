"""ChessBase entity files (``.cbp .cbt .cbc .cbs .cbe``): players, tournaments, annotators, sources and teams by
record number, in ChessBase's tree order, and found by name.

Each file is an AVL tree of fixed-size records (:data:`chessformats.schemas.chessbase.ENTITY_RECORDS`),
memory-mapped; records are parsed when asked for and a bounded number of them are kept.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...engine.codec import codec
from ...engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from ...engine.fileio import MappedFile
from ...engine.layout import describe
from ...engine.trace import parse
from ...schemas import chessbase as schema
from .annotations import decode_bytes

__all__ = ["Entity", "EntityFile", "SortKey", "decode_name", "entity_sort_key"]

_ENTITY_CACHE = 1 << 16  # entities kept parsed (bounded: memory does not grow with the base)


def decode_name(raw: bytes, encoding: str | None = None) -> str:
    """The text of a 0-terminated name field: UTF-8 when valid, else cp1252 (``encoding`` overrides).

    Never raises: bytes the code page does not define become U+FFFD.
    """
    return decode_bytes(raw.split(b"\0", 1)[0], encoding)


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
_HEAD = codec(schema.ENTITY_HEADER_HEAD)
_HEAD_SIZE: int = schema.ENTITY_HEADER_HEAD.sizeof()
_EXTRA_SPACE = _HEAD.field("extra_space")
_NODE = codec(schema.ENTITY_NODE)
_NODE_SIZE: int = schema.ENTITY_NODE.sizeof()
_RECORD_SIZES: dict[str, int] = {extension: int(declaration.sizeof())
                                 for extension, declaration in schema.ENTITY_RECORDS.items()}


@functools.cache
def _nodes_dtype(record_size: int) -> np.dtype[Any]:
    """A record as numpy sees it: the tree node's fields (from ENTITY_NODE), then the rest as bytes."""
    return np.dtype([*_NODE.dtype.descr, ("rest", f"V{record_size - _NODE_SIZE}")])
_TOURNAMENT = codec(schema.TOURNAMENT)
_DATE_FIELDS = tuple(_TOURNAMENT.field(f"date.{name}") for name in ("year", "month", "day"))
_TEAM = codec(schema.TEAM)
_TEAM_NUMBER, _TEAM_NUMBER_HIGH, _TEAM_YEAR, _TEAM_SEASON, _TEAM_NATION = (
    _TEAM.field(name) for name in ("number", "reserved_56", "year", "season", "nation"))
_ENTITY_NAME = {".cbp": "last_name", ".cbt": "title", ".cbc": "name", ".cbs": "title", ".cbe": "title"}


def _text_key(raw: bytes, signed: bool) -> tuple[int, ...]:
    """A 0-terminated string as ChessBase compares it: its bytes (signed or not), then the terminator."""
    text = raw.split(b"\0", 1)[0]
    return (*(b - 256 if signed and b > 127 else b for b in text), 0)


def entity_sort_key(extension: str, raw: bytes, signed: bool) -> SortKey:
    """The key of an entity record's bytes ``raw`` in ChessBase's order of its kind (``extension``: ".cbp",
    ...); ``signed``: names compare as signed bytes (see the entity notes above)."""
    fields = _ENTITY_FIELDS[extension]

    def text(name: str) -> tuple[int, ...]:
        offset, size = fields[name]
        return _text_key(raw[offset:offset + size], signed)

    name = text(_ENTITY_NAME[extension])
    if extension == ".cbp":
        return (name, text("first_name"))
    if extension == ".cbt":
        year, month, day = (part.get(raw) for part in _DATE_FIELDS)
        return (-year, name, text("place"), -month, -day)
    if extension == ".cbe":
        # morphy: the team number is a 4-byte integer (our schema: number + reserved_56, 0 in the corpus)
        width = _TEAM_NUMBER.width + _TEAM_NUMBER_HIGH.width
        number = _TEAM_NUMBER.get(raw) | _TEAM_NUMBER_HIGH.get(raw) << _TEAM_NUMBER.width
        number -= (number >> (width - 1)) << width  # signed
        season = _TEAM_SEASON.get(raw) & 1  # bit 0 (see the field's meaning)
        return (name, number, -season, _TEAM_YEAR.get(raw), int(_TEAM_NATION.get(raw)))
    return (name,)


class EntityFile(MappedFile):
    """An entity file: records by number, in record order, in the tree's (AVL in-order, ``sort_key``) order, by
    name. A missing file reads as an empty one."""

    _views = ("_nodes",)

    def __init__(self, path: str | os.PathLike[str], *, encoding: str | None = None) -> None:
        self.path = os.fspath(path)
        self.extension = os.path.splitext(self.path)[1].lower()
        self.declaration = schema.ENTITY_RECORDS[self.extension]
        self._codec = codec(self.declaration)
        self.encoding = encoding
        self.signed: bool = _SIGNED_BYTES[self.extension]
        """Whether this kind's names compare as signed bytes (ChessBase's rule; see ``sort_key``)."""
        self.record_size: int = _RECORD_SIZES[self.extension]
        self._cache: dict[int, Entity] = {}
        self.derived: dict[Any, Any] = {}
        """Values other modules derive from records and keep with the file (a tournament's PGN tags)."""
        if os.path.exists(self.path):
            self._map(self.path, "a file of a ChessBase base")
        if not self._data:
            self.header = None
            self.header_size = 0
            self.count = 0
            self.root = -1
            return
        if len(self._data) < _HEAD_SIZE:
            raise TruncatedError("truncated entity header", needed=_HEAD_SIZE, available=len(self._data),
                                 file=self.path, offset=0)
        extra = _EXTRA_SPACE.get(self._data)
        if extra > len(self._data) - _HEAD_SIZE:
            raise InvalidValueError("entity header: extra_space larger than the file", actual=extra,
                                    file=self.path, offset=_EXTRA_SPACE.offset, path="extra_space")
        self.header = parse(schema.ENTITY_HEADER, bytes(self._data[:_HEAD_SIZE + extra]), file=self.path)
        self.header_size = _HEAD_SIZE + extra
        if self.header.record_data_size + _NODE_SIZE != self.record_size:
            raise UnsupportedError(f"records of {self.header.record_data_size + _NODE_SIZE} bytes "
                                   f"(this reader knows {self.record_size})", file=self.path,
                                   offset=_HEAD.field("record_data_size").offset)
        available = (len(self._data) - self.header_size) // self.record_size
        if self.header.records > available:
            raise TruncatedError(f"the header counts {self.header.records} records, the file holds {available}",
                                 file=self.path, offset=self.header_size + available * self.record_size)
        self.count = int(self.header.records)
        self.root = int(self.header.root)
        self._nodes = np.frombuffer(self._data, dtype=_nodes_dtype(self.record_size), count=self.count,
                                    offset=self.header_size)

    def __len__(self) -> int:
        return self.count

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
        try:
            record = self._codec.decode(self._data, start)
        except FormatError as error:
            raise error.located(file=self.path, path_prefix=f"records[{number}]") from None
        return Entity(number, self._display(record), record, record.left == -999)

    def _display(self, record: Any) -> str:
        if self.extension == ".cbp":
            last, first = decode_name(record.last_name, self.encoding), decode_name(record.first_name, self.encoding)
            return f"{last}, {first}" if first else last
        title = record.name if self.extension == ".cbc" else record.title
        return decode_name(title, self.encoding)

    def name_of(self, number: int) -> str:
        """The display name of record ``number`` ("" when out of range: a game may name no entity)."""
        cached = self._cache.get(number)  # only numbers in range are kept
        if cached is not None:
            return cached.name
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
        return entity_sort_key(self.extension, self._raw(number), self.signed if signed is None else signed)

    def _inorder(self, *, strict: bool = False) -> Iterator[int]:
        """Record numbers in the tree's in-order, never looping. On a damaged tree (a link back to a record
        already reached, or to no record) ``strict`` raises :class:`InvalidValueError` naming the link; else
        the walk goes on without it."""
        stack: list[int] = []
        node, link = self.root, (-1, "root")  # the link that leads to node: (record, field); -1: the header
        seen: set[int] = set()
        if not self.count:
            return  # an empty file's root may be anything (0 in corpus morphy_linares_old's teams)
        nodes, count = self._nodes, self.count
        while True:
            while node != -1:
                if not 0 <= node < count or node in seen:
                    if strict:
                        raise self._bad_link(node, *link)
                    break
                seen.add(node)
                stack.append(node)
                node, link = int(nodes["left"][node]), (node, "left")
            if not stack:
                return
            parent = stack.pop()
            yield parent
            node, link = int(nodes["right"][parent]), (parent, "right")

    def _bad_link(self, node: int, record: int, name: str) -> InvalidValueError:
        if record < 0:
            offset, path = int(_HEAD.field("root").offset or 0), "root"
        else:
            offset = self.header_size + record * self.record_size + int(_NODE.field(name).offset or 0)
            path = f"records[{record}].{name}"
        reason = "a cycle: it leads back to" if 0 <= node < self.count else "it leads to no"
        return InvalidValueError(f"entity tree: {reason} record {node}", actual=node, file=self.path, offset=offset,
                                 path=path)

    def sorted(self) -> Iterator[Entity]:
        """Records in the tree's order (``sort_key``: tournaments newest year first, the others by name).

        A tree whose links loop or lead nowhere raises :class:`InvalidValueError` (file, offset and path of
        the link) where the walk meets that link."""
        for number in self._inorder(strict=True):
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
            try:  # (a name the code page cannot hold is no name of the file: "?" for its characters could be one)
                if self.extension == ".cbp":
                    last, _, first = name.partition(",")
                    key = last.strip().encode(encoding) + b"\0" + first.strip().encode(encoding)
                else:
                    key = name.encode(encoding)
            except UnicodeEncodeError:
                continue
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
