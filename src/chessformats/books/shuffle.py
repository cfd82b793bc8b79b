"""The reduce of a distributed Polyglot build, by key range: the two task functions and what they exchange.

A distributed build (:func:`chessformats.books.distributed.write_book`) runs in two phases:

1. **Map** (:func:`map_piece`, one task per piece of the input): the piece is read and replayed as in every
   build (:func:`~.pieces.read_piece`, games numbered from 1 in the piece), and its events -- one per ply:
   position key, raw move, White to move, outcome for the mover, and order number (game, then ply) -- sorted by
   (key, move), are written to one file of fixed-size records (:data:`EVENT_DTYPE`, 15 bytes) in a folder every
   worker sees. Cut points by key range (:func:`range_bounds`: ``R`` equal slices of the 64-bit key space; Zobrist
   keys are uniform) split the file into ``R`` segments; the task returns the segments' row offsets, its games and
   its skipped games (:class:`Mapped`), not the events.
2. **Reduce** (:func:`reduce_range`, one task per key range, started when every piece is mapped): once every
   piece's games are counted, the client knows each piece's first global game number (the games of the pieces
   before it); reducer ``r`` reads segment ``r`` of every piece **in input order**, shifts the order numbers by
   the games before the piece, and merges them into a :class:`~.build.BookBuilder` as the one-process build
   merges its batches (spilling to its own disk past its budget), then writes that key range of the Polyglot book
   (:func:`~.polyglot.make_book`: entries sorted by key). The client concatenates the range files in key order.

Why the bytes are those of the one-process build: everything order-dependent in a Polyglot book is per position
-- the halving when a move reaches 16,384 games replays one position's events in game order, and ties of weight
are broken by the order moves were first met (``first``, the smallest global order number) -- and every event of
a position is in one key range, merged with the global numbers.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .batches import SkippedGame, event_stride
from .filters import GameFilter
from .pieces import Piece, join_sorted, read_piece

__all__ = ["EVENT_DTYPE", "Mapped", "RangeBook", "Segment", "map_piece", "range_bounds", "reduce_range"]

EVENT_DTYPE = np.dtype([("key", "<u8"), ("raw", "<u2"), ("flags", "u1"), ("seq", "<u4")])
"""An event in a map file (15 bytes): position key, raw move, ``flags`` (White to move times 4 plus the outcome for
the mover: WIN, DRAW, LOSS, UNKNOWN), and its order number in its piece (game number from 1 times the stride, plus
the ply: under 2**32 for a piece of up to 4 million games at ``max_ply`` 1024)."""

REDUCE_EVENTS = 1 << 20
"""Events of consecutive pieces a reducer joins (already sorted: merged, not sorted) before adding them to its
counts: fewer passes over its table than one per piece."""


class Mapped(NamedTuple):
    """What a map task returns to the client (the events stay in ``path``)."""

    games: int
    """Games of the piece (skipped and filtered ones included): the next piece's numbers start after them."""
    filtered: int
    skipped: list[SkippedGame]
    """Numbered in the piece (from 1); the client adds the games before the piece."""
    path: str
    rows: list[int]
    """``R + 1`` row offsets: key range ``r`` is rows ``rows[r]:rows[r + 1]`` of ``path``."""
    seconds: float = 0.0
    """CPU time of the task (read, replay, write)."""


class Segment(NamedTuple):
    """One piece's events of one key range, for a reducer."""

    path: str
    start: int
    stop: int
    games_before: int
    """Games of the input before the piece: added to the piece's game numbers."""


class RangeBook(NamedTuple):
    """What a reduce task returns: its range of the book, written to ``path``."""

    path: str
    entries: int
    rows: int
    """Distinct (position, move) pairs of the range (before ``min_games`` and the other options)."""
    seconds: float = 0.0
    """CPU time of the task (read the segments, merge, write)."""


def range_bounds(reducers: int) -> np.ndarray[Any, Any]:
    """The ``reducers - 1`` keys that cut the 64-bit key space into equal ranges (range ``r``: keys from cut
    ``r - 1`` included to cut ``r`` excluded)."""
    if reducers < 1:
        raise ValueError("reducers must be >= 1")
    return np.array([(r << 64) // reducers for r in range(1, reducers)], dtype=np.uint64)


def map_piece(piece: Piece, index: int, max_ply: int, game_filter: GameFilter | None, folder: str,
              bounds: np.ndarray[Any, Any]) -> Mapped:
    """Read one piece (on a worker) and write its events, sorted by (key, move), to ``folder``."""
    started = time.process_time()
    chunks = read_piece(piece, max_ply, game_filter, boards=False)  # one chunk, sorted by (key, raw)
    path = os.path.join(folder, f"piece{index:08d}.events")
    if not chunks:
        np.zeros(0, EVENT_DTYPE).tofile(path)
        return Mapped(0, 0, [], path, [0] * (len(bounds) + 2), time.process_time() - started)
    chunk = chunks[0]
    if len(chunk.seq) and int(chunk.seq.max()) >= 1 << 32:
        raise ValueError(f"{piece.path}: a piece of {chunk.games:,} games is too large for the shuffle: smaller pieces")
    events = np.empty(len(chunk.key), EVENT_DTYPE)
    events["key"], events["raw"], events["seq"] = chunk.key, chunk.raw, chunk.seq
    events["flags"] = chunk.white.astype(np.uint8) << 2 | chunk.outcome.astype(np.uint8)
    events.tofile(path)
    cuts = np.searchsorted(chunk.key, bounds, side="left").tolist()
    return Mapped(chunk.games, chunk.filtered, chunk.skipped, path, [0, *cuts, len(events)],
                  time.process_time() - started)


def segments_of(mapped: Sequence[Mapped], reducer: int) -> list[Segment]:
    """The segments of key range ``reducer`` of every piece, in input order, with the games before each piece."""
    segments, before = [], 0
    for result in mapped:
        start, stop = result.rows[reducer], result.rows[reducer + 1]
        if stop > start:
            segments.append(Segment(result.path, start, stop, before))
        before += result.games
    return segments


def reduce_range(segments: Sequence[Segment], reducer: int, max_ply: int, folder: str, options: dict[str, Any],
                 table_rows: int | None, spill_dir: str | None = None) -> RangeBook:
    """Merge one key range of every piece in input order (on a worker) and write its range of the book.

    ``options``: the keyword arguments of :func:`~.polyglot.make_book` (``min_games``, ``min_score``, ``only``,
    ``uniform``); ``table_rows`` and ``spill_dir``: the reducer's :class:`~.build.BookBuilder` memory budget and
    where its counts spill beyond it (a folder of the worker's)."""
    from .batches import Chunk
    from .build import BookBuilder
    from .polyglot import make_book

    started = time.process_time()
    stride = event_stride(max_ply)
    builder = BookBuilder(max_ply=max_ply, boards=False, table_rows=table_rows, spill_dir=spill_dir)
    empty = np.zeros(0, dtype=np.uint64)
    links = (empty, empty, np.zeros(0, dtype=np.int64))
    pending: list[Chunk] = []
    waiting = 0

    def flush() -> None:
        nonlocal waiting
        for joined in join_sorted(pending):
            builder._merge(joined)
        pending.clear()
        waiting = 0

    collecting = gc.isenabled()
    gc.disable()
    try:
        for segment in segments:
            events = np.fromfile(segment.path, EVENT_DTYPE, count=segment.stop - segment.start,
                                 offset=segment.start * EVENT_DTYPE.itemsize)
            flags = events["flags"]
            pending.append(Chunk(0, [], events["key"], events["raw"].astype(np.int64), flags >= 4,
                                 events["seq"].astype(np.int64) + np.int64(segment.games_before * stride),
                                 (flags & 3).astype(np.int8), {"key": empty}, links, {}))
            waiting += len(events)
            if waiting >= REDUCE_EVENTS:
                flush()
        flush()
        path = os.path.join(folder, f"range{reducer:06d}.bin")
        report = make_book(path, builder, **options)
        rows = len(builder)
    finally:
        builder.close()
        if collecting:
            gc.enable()
    return RangeBook(path, report.written, rows, time.process_time() - started)
