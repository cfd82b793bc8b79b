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


class EntityTable:
    """The records of one entity file being written: found or added by their values, counted per game."""

    def __init__(self, extension: str) -> None:
        self.extension = extension
        self.declaration = schema.ENTITY_RECORDS[extension]
        self.codec = codec(self.declaration)
        self.signed = _SIGNED_BYTES[extension]
        self._numbers: dict[Any, int] = {}
        self._values: list[dict[str, Any]] = []

    def __len__(self) -> int:
        return len(self._values)

    def add(self, key: Any, values: dict[str, Any], game: int) -> int:
        """The record number of the entity ``key`` (added with ``values``, every field but the tree node and the
        game counts, when new); counts game ``game`` for it."""
        number = self._numbers.get(key)
        if number is None:
            number = len(self._values)
            self._numbers[key] = number
            self._values.append({**values, "games": 0, "first_game": game})
        record = self._values[number]
        record["games"] += 1
        return number

    def records(self) -> tuple[int, list[bytes]]:
        """The tree's root and every record's bytes, tree node included (record order)."""
        node = {"left": _NO_LINK, "right": _NO_LINK, "balance": 0}
        raw = [self.codec.encode({**node, **values}) for values in self._values]
        order = sorted(range(len(raw)), key=lambda n: entity_sort_key(self.extension, raw[n], self.signed))
        links = avl_links(order)
        out = []
        for number, record in enumerate(raw):
            left, right, balance = links[number]
            out.append(_NODE.encode({"left": left, "right": right, "balance": balance}) + record[_NODE_SIZE:])
        return (order[_middle(0, len(order) - 1)] if order else _NO_ROOT), out

    def file_bytes(self) -> list[bytes]:
        """The whole file: header, then the records."""
        count = len(self._values)
        root, records = self.records()
        header = _HEAD.encode({
            "records": count, "root": root, "record_data_size": self.declaration.sizeof() - _NODE_SIZE,
            "first_deleted": _NO_LINK, "existing": count, "extra_space": _EXTRA_SPACE,
        })
        return [header + bytes(_EXTRA_SPACE), *records]


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
