"""The hot keys of a distributed Polyglot build: the positions of the first plies, counted by the map itself.

Every game starts from one position and most games pass through a few positions of the next plies: in a build by
key range (:mod:`.shuffle`) their events would all go to a few reduce tasks (the start position's range alone gets
one event per game of the input). So the positions reachable from the start position within :data:`HOT_PLIES`
plies (:func:`hot_keys`: 5,783 keys; a key is hot wherever it is met, also by transposition deeper in a game) take
a path of their own:

- **the map** (:func:`hot_tables`) counts their events itself: one row per (key, move) of the piece with its games,
  wins, draws, losses, White to move and ``first`` (the smallest order number in the piece), and, for polyglot's
  halving, each key's events in game order as one small code each (:data:`CODE_DTYPE`: the move's rank among the
  key's rows times 4 plus the points of the outcome: ``rank << 2 | points``); no raw event of a hot key is written;
- **the reducer** of the key's range (:class:`HotCounts`) adds the pieces' rows in input order (``first`` made
  global with the games before the piece) and, only for the positions where a move reaches
  :data:`~.build.COUNT_MAX` in the batch of pieces added, rebuilds their events from the codes in game order and
  replays the halving (:func:`~.halving.replay`, as the one-process build does for the same events: a halving at
  a time, 13-15 ns an event in ``bench_reduce.py``, up to 60 in smaller trials).

Ties of weight are broken within a position by ``first``, and the halving replays a position's events in game order:
both are per position, so the counts are the one-process build's.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from . import build
from .batches import DRAW, LOSS, POINTS, WIN
from .halving import grouped, replay
from .runs import group_starts, sort_order
from .spill import combine_rows

__all__ = ["CODE_DTYPE", "HOT_DTYPE", "HOT_PLIES", "HotCounts", "HotPart", "hot_keys", "hot_tables", "is_hot"]

HOT_PLIES = 3
"""Positions reachable from the start position within this many plies are hot (1 + 20 + 400 + 5,362 keys)."""

HOT_DTYPE = np.dtype([("key", "<u8"), ("raw", "<u2"), ("white", "u1"), ("first", "<u4"), ("games", "<u4"),
                      ("wins", "<u4"), ("draws", "<u4"), ("losses", "<u4")])
"""A hot (key, move) of a piece (27 bytes): its counts in the piece; ``first``: its smallest order number there."""

CODE_DTYPE = np.dtype("u1")
"""A hot event in a map file: its move's rank among its key's rows of the piece (< 64) times 4 plus its points."""

_FILTER_BITS = 20
_FILTER_SHIFT = np.uint64(64 - _FILTER_BITS)


@functools.lru_cache(maxsize=4)
def hot_keys(plies: int = HOT_PLIES) -> np.ndarray[Any, Any]:
    """The Polyglot keys of the positions reachable from the start position within ``plies`` plies, sorted (none
    for ``plies < 0``)."""
    import chess

    if plies < 0:
        return np.zeros(0, dtype=np.uint64)

    from ..formats.zobrist import child_keys, zobrist_hash

    board = chess.Board()
    keys = {zobrist_hash(board)}
    level = [board]
    for _ in range(plies):
        following: dict[int, chess.Board] = {}
        for parent in level:
            moves = list(parent.legal_moves)
            for move, key in zip(moves, child_keys(parent, moves), strict=True):
                if key not in following:
                    child = parent.copy(stack=False)
                    child.push(move)
                    following[key] = child
        keys.update(following)
        level = list(following.values())
    return np.array(sorted(keys), dtype=np.uint64)


_SLOTS: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None
"""The last hot keys given to :func:`is_hot` and their slot table (4 MiB, made once per worker, not per piece)."""


def _slots(hot: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """By top 20 bits: the index of the one hot key with them, -1 (none) or -2 (more than one)."""
    global _SLOTS
    cached = _SLOTS
    if cached is not None and (cached[0] is hot or np.array_equal(cached[0], hot)):
        return cached[1]
    slot = np.full(1 << _FILTER_BITS, -1, dtype=np.int32)
    top = (hot >> _FILTER_SHIFT).astype(np.intp)
    slot[top] = np.arange(len(hot), dtype=np.int32)
    tops, counts = np.unique(top, return_counts=True)
    slot[tops[counts > 1]] = -2
    _SLOTS = (hot, slot)  # (one assignment: a task in another thread sees the old pair or the new one)
    return slot


def is_hot(key: np.ndarray[Any, Any], hot: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Which of ``key`` are among ``hot`` (sorted): a look-up by the top 20 bits (the hot key of those bits, if one
    has them), a binary search only for the top bits two hot keys share."""
    found = _slots(hot).take((key >> _FILTER_SHIFT).astype(np.intp))
    mask: np.ndarray[Any, Any] = found >= 0
    maybe = np.flatnonzero(mask)
    mask[maybe] = hot[found[maybe]] == key[maybe]
    shared = np.flatnonzero(found == -2)
    if len(shared):
        place = np.minimum(np.searchsorted(hot, key[shared]), len(hot) - 1)
        mask[shared] = hot[place] == key[shared]
    return mask


def hot_tables(key: np.ndarray[Any, Any], raw: np.ndarray[Any, Any], white: np.ndarray[Any, Any],
               seq: np.ndarray[Any, Any], outcome: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any],
                                                                                   np.ndarray[Any, Any]]:
    """A piece's hot events (given in game order) as rows (:data:`HOT_DTYPE`, sorted by key and move) and codes
    (:data:`CODE_DTYPE`, or 16 bits when a key has 64 moves or more): key by key, as the rows, each key's events in
    game order."""
    by_key = np.argsort(key, kind="stable")  # (key, game) order
    pair_key, pair_raw = key[by_key], raw[by_key].astype(np.int64)
    rows = np.empty(0, HOT_DTYPE)
    if not len(by_key):
        return rows, np.zeros(0, CODE_DTYPE)
    order = sort_order(pair_key, pair_raw)  # stable: each (key, move)'s events in game order
    starts = group_starts(pair_key[order], pair_raw[order])
    new = np.zeros(len(order), dtype=np.int64)
    new[starts] = 1
    row = np.empty(len(order), dtype=np.int64)
    row[order] = np.cumsum(new) - 1  # each event's row
    first = by_key[order[starts]]  # the first event of each row in game order
    rows = np.empty(len(starts), HOT_DTYPE)
    rows["key"], rows["raw"], rows["white"] = key[first], raw[first], white[first]
    rows["first"] = seq[first]
    rows["games"] = np.bincount(row, minlength=len(starts))
    outcomes = outcome[by_key]
    for name, kind in (("wins", WIN), ("draws", DRAW), ("losses", LOSS)):
        rows[name] = np.bincount(row[outcomes == kind], minlength=len(starts))
    key_row = np.searchsorted(rows["key"], rows["key"])  # the first row of each row's key
    rank = row - key_row[row]
    codes = rank << 2 | POINTS[outcomes]
    return rows, codes.astype(CODE_DTYPE if rank.max() < 64 else np.uint16)


class HotPart(NamedTuple):
    """One piece's hot rows and codes of a key range, for its reducer."""

    rows: np.ndarray[Any, Any]
    codes: np.ndarray[Any, Any]
    first: int
    """What makes the rows' ``first`` global (the games before the piece times the stride)."""


class HotCounts:
    """A reducer's counts of its range's hot keys, pieces added in input order (the columns of a
    :class:`~.build.BookBuilder`'s table)."""

    def __init__(self) -> None:
        self.table = combine_rows()

    def add(self, parts: list[HotPart]) -> None:
        """Add consecutive pieces' rows; replay the halving of the positions where a move reaches
        :data:`~.build.COUNT_MAX` among them."""
        if not parts:
            return
        limit = build.COUNT_MAX
        table = combine_rows(self.table, _summed(parts))
        halving = table["polyglot_n"] >= limit
        for key in np.unique(table["key"][halving]).tolist():
            _halve(self.table, table, parts, key, limit)
        self.table = table


def _summed(parts: list[HotPart]) -> dict[str, np.ndarray[Any, Any]]:
    """The parts' rows as one table, rows of a (key, move) summed, ``first`` their smallest (made global)."""
    rows = np.concatenate([part.rows for part in parts])
    first = np.concatenate([part.rows["first"].astype(np.int64) + part.first for part in parts])
    key, raw = rows["key"], rows["raw"].astype(np.int64)
    order = sort_order(key, raw)  # stable: a row of an earlier piece first
    starts = group_starts(key[order], raw[order])
    games, wins, losses = (np.add.reduceat(rows[name][order].astype(np.int64), starts)
                           for name in ("games", "wins", "losses"))
    return {"key": key[order][starts], "raw": raw[order][starts], "white": rows["white"][order][starts] != 0,
            "first": np.minimum.reduceat(first[order], starts), "polyglot_n": games,
            "polyglot_sum": games + wins - losses, "games": games.copy(), "wins": wins,
            "draws": np.add.reduceat(rows["draws"][order].astype(np.int64), starts), "losses": losses}


def _halve(old: dict[str, np.ndarray[Any, Any]], table: dict[str, np.ndarray[Any, Any]], parts: list[HotPart], key: int,
           limit: int) -> None:
    """Set ``polyglot_n`` and ``polyglot_sum`` of ``table``'s rows of ``key`` as polyglot counts them: from ``old``'s
    (the counts before the parts) through the parts' events of the key, rebuilt from the codes in game order."""
    low, high = _span(table["key"], key)
    raws = table["raw"][low:high]
    n, total = np.zeros(high - low, dtype=np.int64), np.zeros(high - low, dtype=np.int64)
    first, last = _span(old["key"], key)
    found = np.searchsorted(raws, old["raw"][first:last])
    n[found], total[found] = old["polyglot_n"][first:last], old["polyglot_sum"][first:last]
    moves, points = [], []
    for part in parts:
        rows = part.rows
        start, stop = _span(rows["key"], key)
        if stop > start:
            games = rows["games"].astype(np.int64)
            codes = part.codes[int(games[:start].sum()):int(games[:stop].sum())].astype(np.int64)
            moves.append(np.searchsorted(raws, rows["raw"][start:stop].astype(np.int64))[codes >> 2])
            points.append(codes & 3)
    by_move, group_start = grouped(np.concatenate(moves), high - low)  # each move's events in game order
    sums = np.concatenate(([0], np.cumsum(np.concatenate(points)[by_move])))
    replay(n, total, by_move, group_start, sums, limit)
    table["polyglot_n"][low:high], table["polyglot_sum"][low:high] = n, total


def _span(keys: np.ndarray[Any, Any], key: int) -> tuple[int, int]:
    """Where the rows of ``key`` are in ``keys`` (sorted)."""
    probe = np.array([key], dtype=np.uint64)
    return int(np.searchsorted(keys, probe)[0]), int(np.searchsorted(keys, probe, side="right")[0])
