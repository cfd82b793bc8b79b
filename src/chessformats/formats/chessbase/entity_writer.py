"""Writing ChessBase entity files (``.cbp .cbt .cbc .cbs .cbe``): records gathered while the games stream, then
written as one AVL tree in ChessBase's order (:func:`.entities.entity_sort_key`).

Record numbers are given in order of first appearance (game records name them as they are written); the tree
is built at the end from the records sorted by key, each subtree's middle record as its root, so every balance
factor is -1, 0 or 1 (the reader's :meth:`.entities.EntityFile.check` verifies order, counts and balance).
Memory holds one record per distinct entity, never one per game.
"""

from __future__ import annotations

from typing import Any

from ...engine.codec import codec
from ...engine.layout import describe
from ...schemas import chessbase as schema
from .entities import _SIGNED_BYTES, entity_sort_key

__all__ = ["EntityTable", "avl_links"]

_HEAD = codec(schema.ENTITY_HEADER_HEAD)
_NODE = codec(schema.ENTITY_NODE)
_NODE_SIZE: int = _NODE.size or 0
_EXTRA_SPACE = 4
"""Header bytes after ``extra_space`` in modern bases (every corpus base but the oldest: zeros)."""
_NO_LINK = -1
_NO_ROOT = 0
"""The root field of an empty file, as every empty corpus file has it (the reader ignores it)."""


_KEY_FIELDS = {".cbp": ("last_name", "first_name"), ".cbt": ("title", "place"), ".cbc": ("name",),
               ".cbs": ("title",), ".cbe": ("title",)}
"""The name fields that identify an entity (tournaments: with their date), as :mod:`.write` builds its keys."""
_TOURNAMENT_DATE = tuple(codec(schema.TOURNAMENT).field(f"date.{part}") for part in ("year", "month", "day"))
_DELETED = -999
"""``left`` of a deleted record (see ``ENTITY_NODE``)."""


def _padded(raw: bytes, size: int) -> bytes:
    return raw.split(b"\0", 1)[0].ljust(size, b"\0")


class EntityTable:
    """The records of one entity file being written: found or added by their values, counted per game.

    :meth:`load` starts from an existing file (appending games): its records keep their numbers and bytes
    (leftovers after names, fields no tag gives, deleted records and their list), only their game counts and
    the tree's links change."""

    def __init__(self, extension: str) -> None:
        self.extension = extension
        self.declaration = schema.ENTITY_RECORDS[extension]
        self.codec = codec(self.declaration)
        self.signed = _SIGNED_BYTES[extension]
        self._numbers: dict[Any, int] = {}
        self._values: list[dict[str, Any] | None] = []
        self._raw: list[bytes | None] = []
        self._added_games: dict[int, int] = {}
        self._first_games: dict[int, int] = {}
        """First game of a loaded record that had none (0)."""
        self._first_deleted = _NO_LINK
        self._extra = bytes(_EXTRA_SPACE)
        self._fields = {f.name: (f.offset or 0, f.size or 0) for f in describe(self.declaration)}

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: Any) -> bool:
        """Whether the entity ``key`` has a record (:meth:`add` needs no values for it)."""
        return key in self._numbers

    def load(self, data: bytes) -> None:
        """Start from the existing file ``data`` (empty: no file)."""
        if not data:
            return
        head = _HEAD.decode(data)
        size = _HEAD.size or 0
        self._extra = bytes(data[size:size + head.extra_space])
        self._first_deleted = head.first_deleted
        at = size + head.extra_space
        record_size = self.declaration.sizeof()
        for number in range(head.records):
            raw = bytes(data[at + number * record_size:at + (number + 1) * record_size])
            self._raw.append(raw)
            self._values.append(None)
            if _NODE.field("left").get(raw) != _DELETED:
                self._numbers.setdefault(self._key(raw), number)

    def _key(self, raw: bytes) -> Any:
        names = tuple(_padded(raw[offset:offset + size], size)
                      for offset, size in (self._fields[name] for name in _KEY_FIELDS[self.extension]))
        if self.extension == ".cbt":
            return (*names, tuple(part.get(raw) for part in _TOURNAMENT_DATE))
        return names if len(names) > 1 else names[0]

    def add(self, key: Any, values: dict[str, Any], game: int) -> int:
        """The record number of the entity ``key`` (added with ``values``, every field but the tree node and the
        game counts, when new); counts game ``game`` for it."""
        number = self._numbers.get(key)
        if number is None:
            number = len(self._values)
            self._numbers[key] = number
            self._values.append({**values, "games": 0, "first_game": game})
            self._raw.append(None)
        record = self._values[number]
        if record is None:
            self._added_games[number] = self._added_games.get(number, 0) + 1
            if not self.codec.field("first_game").get(self._raw[number]):
                self._first_games.setdefault(number, game)
        else:
            record["games"] += 1
        return number

    def add_raw(self, key: Any, raw: bytes, game: int) -> int:
        """Like :meth:`add` for a record copied from another file (``raw``: its bytes, kept but the tree node and
        the game counts, which restart from this file's games)."""
        number = self._numbers.get(key)
        if number is None:
            number = len(self._values)
            self._numbers[key] = number
            record = bytearray(raw)
            for name in ("games", "first_game"):
                self.codec.field(name).put(record, 0)
            _NODE.field("left").put(record, _NO_LINK)  # a deleted record's -999 would hide it from the tree
            self._raw.append(bytes(record))
            self._values.append(None)
        return self.add(key, {}, game)

    def _record(self, number: int) -> bytes:
        values, raw = self._values[number], self._raw[number]
        if values is not None:
            return bytes(self.codec.encode({"left": _NO_LINK, "right": _NO_LINK, "balance": 0, **values}))
        assert raw is not None
        if number not in self._added_games:
            return raw
        out = bytearray(raw)
        games = self.codec.field("games")
        games.put(out, games.get(raw) + self._added_games[number])
        if number in self._first_games:
            self.codec.field("first_game").put(out, self._first_games[number])
        return bytes(out)

    def records(self) -> tuple[int, list[bytes], int]:
        """The tree's root, every record's bytes with its tree node (record order), and how many are not deleted."""
        raw = [self._record(number) for number in range(len(self._values))]
        live = [n for n in range(len(raw)) if _NODE.field("left").get(raw[n]) != _DELETED]
        order = sorted(live, key=lambda n: entity_sort_key(self.extension, raw[n], self.signed))
        links = avl_links(order)
        out = []
        for number, record in enumerate(raw):
            if number in links:
                left, right, balance = links[number]
                record = _NODE.encode({"left": left, "right": right, "balance": balance}) + record[_NODE_SIZE:]
            out.append(record)
        return (order[_middle(0, len(order) - 1)] if order else _NO_ROOT), out, len(live)

    def file_bytes(self) -> list[bytes]:
        """The whole file: header, then the records."""
        root, records, live = self.records()
        header = _HEAD.encode({
            "records": len(records), "root": root, "record_data_size": self.declaration.sizeof() - _NODE_SIZE,
            "first_deleted": self._first_deleted, "existing": live, "extra_space": len(self._extra),
        })
        return [header + self._extra, *records]


def _middle(low: int, high: int) -> int:
    return (low + high) // 2


def avl_links(order: list[int]) -> dict[int, tuple[int, int, int]]:
    """By record number: (left, right, balance) of a height-balanced search tree over the records ``order``
    lists in increasing key order (each range's middle as its root; balance = right height - left height)."""
    links: dict[int, tuple[int, int, int]] = {}
    heights: dict[tuple[int, int], int] = {}
    # iterative post-order over the ranges [low, high]
    stack: list[tuple[int, int, bool]] = [(0, len(order) - 1, False)]
    while stack:
        low, high, done = stack.pop()
        if low > high:
            heights[low, high] = 0
            continue
        middle = _middle(low, high)
        if not done:
            stack.append((low, high, True))
            stack.append((low, middle - 1, False))
            stack.append((middle + 1, high, False))
            continue
        left_height, right_height = heights.pop((low, middle - 1)), heights.pop((middle + 1, high))
        heights[low, high] = 1 + max(left_height, right_height)
        left = order[_middle(low, middle - 1)] if low <= middle - 1 else _NO_LINK
        right = order[_middle(middle + 1, high)] if middle + 1 <= high else _NO_LINK
        links[order[middle]] = (left, right, right_height - left_height)
    return links
