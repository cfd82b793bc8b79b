"""The reduce of a distributed Polyglot build, by key range: the two task functions and what they exchange.

A distributed build (:func:`chessformats.books.distributed.write_book`) runs in two phases:

1. **Map** (:func:`map_piece`, one task per piece of the input): the piece is read and replayed as in every
   build (:func:`~.pieces.read_piece`, games numbered from 1 in the piece), and its events -- one per ply:
   position key, raw move, White to move, outcome for the mover, and order number (game, then ply) -- grouped by
   key range (:func:`range_bounds`: ``R`` equal slices of the 64-bit key space; Zobrist keys are uniform), are
   written to one file of fixed-size records (:data:`EVENT_DTYPE`, 15 bytes) in a folder every worker sees: ``R``
   segments; the task returns the segments' row offsets, its games and its skipped games (:class:`Mapped`), not
   the events.
2. **Reduce** (:func:`reduce_range`, one task per key range, started when every piece is mapped): once every
   piece's games are counted, the client knows each piece's first global game number (the games of the pieces
   before it); reducer ``r`` reads segment ``r`` of every piece **in input order**, shifts the order numbers by
   the games before the piece, and counts them (a range larger than its memory budget cut into sub-ranges, each
   counted whole by a :class:`~.build.BookBuilder` of its own: see :func:`reduce_range`), then writes that key
   range of the Polyglot book (:func:`~.polyglot.make_book`: entries sorted by key). The client concatenates the
   range files in key order.

Why the bytes are those of the one-process build: everything order-dependent in a Polyglot book is per position
-- the halving when a move reaches 16,384 games replays one position's events in game order, and ties of weight
are broken by the order moves were first met (``first``, the smallest global order number) -- and every event of
a position is in one key range, merged with the global numbers.
"""

from __future__ import annotations

import gc
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from .batches import SkippedGame, event_stride
from .build import BookBuilder
from .filters import GameFilter
from .pieces import Piece, read_piece

__all__ = ["EVENT_DTYPE", "Mapped", "RangeBook", "Segment", "map_piece", "range_bounds", "reduce_range"]

EVENT_DTYPE = np.dtype([("key", "<u8"), ("raw", "<u2"), ("flags", "u1"), ("seq", "<u4")])
"""An event in a map file (15 bytes): position key, raw move, ``flags`` (White to move times 4 plus the outcome for
the mover: WIN, DRAW, LOSS, UNKNOWN), and its order number in its piece (game number from 1 times the stride, plus
the ply: under 2**32 for a piece of up to 4 million games at ``max_ply`` 1024)."""

REDUCE_EVENTS = 1 << 20
"""Events a reducer reads from consecutive pieces, or counts into a sub-range's builder, at a time."""


SUB_RANGES = 4096
"""The most sub-ranges a reducer cuts its range into (each reads a slice of every batch of its file: a tiny memory
budget makes larger sub-ranges, not more of them)."""


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
    chunks = read_piece(piece, max_ply, game_filter, boards=False, ordered=False)  # one chunk
    path = os.path.join(folder, f"piece{index:08d}.events")
    if not chunks:
        np.zeros(0, EVENT_DTYPE).tofile(path)
        return Mapped(0, 0, [], path, [0] * (len(bounds) + 2), time.process_time() - started)
    chunk = chunks[0]
    if len(chunk.seq) and int(chunk.seq.max()) >= 1 << 32:
        raise ValueError(f"{piece.path}: a piece of {chunk.games:,} games is too large for the shuffle: smaller pieces")
    part = np.searchsorted(bounds, chunk.key, side="right")
    order = np.argsort(part.astype(np.uint16) if len(bounds) < 1 << 16 else part, kind="stable")  # (a radix sort)
    events = np.empty(len(chunk.key), EVENT_DTYPE)
    events["key"], events["raw"], events["seq"] = chunk.key[order], chunk.raw[order], chunk.seq[order]
    events["flags"] = (chunk.white.astype(np.uint8) << 2 | chunk.outcome.astype(np.uint8))[order]
    events.tofile(path)
    rows = np.searchsorted(part[order], np.arange(len(bounds) + 2)).tolist()
    return Mapped(chunk.games, chunk.filtered, chunk.skipped, path, rows, time.process_time() - started)


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
                 table_rows: int | None, spill_dir: str | None = None, reducers: int = 1) -> RangeBook:
    """Merge one key range (``reducer`` of ``reducers``) of every piece in input order (on a worker) and write its
    range of the book.

    ``options``: the keyword arguments of :func:`~.polyglot.make_book` (``min_games``, ``min_score``, ``only``,
    ``uniform``); ``table_rows``: the reducer's memory budget for counts. A range of more events than that is cut
    into sub-ranges of about ``table_rows`` events (equal slices of its keys): the events are read once in input
    order and written to a file in ``spill_dir`` (the worker's; the system's temporary folder by default) grouped
    by sub-range, then each sub-range is counted whole by a :class:`~.build.BookBuilder` of its own, with no spill,
    and its entries written. Every position is in one sub-range and its events are counted in input order, so the
    counts are the one-process build's; the work per event does not grow with the range (a table that spills would
    merge its runs again and again as it grows)."""
    from .polyglot import make_book

    started = time.process_time()
    total = sum(segment.stop - segment.start for segment in segments)
    parts = 1 if table_rows is None else min(max(1, -(-total // table_rows)), SUB_RANGES)
    low, high = (reducer << 64) // reducers, ((reducer + 1) << 64) // reducers
    cuts = np.array([low + (high - low) * part // parts for part in range(1, parts)], dtype=np.uint64)
    path = os.path.join(folder, f"range{reducer:06d}.bin")
    collecting = gc.isenabled()
    gc.disable()
    try:
        with tempfile.TemporaryDirectory(prefix="chessformats-reduce-", dir=spill_dir) as scratch:
            counts = _SubRanges(_events(segments, event_stride(max_ply)), cuts, os.path.join(scratch, "events"),
                                max_ply)
            report = make_book(path, counts, **options)
    finally:
        if collecting:
            gc.enable()
    return RangeBook(path, report.written, len(counts), time.process_time() - started)


SCRATCH_DTYPE = np.dtype([("key", "<u8"), ("raw", "<u2"), ("flags", "u1"), ("seq", "<i8")])
"""An event in a reducer's own file: :data:`EVENT_DTYPE` with its global order number (19 bytes)."""


def _events(segments: Sequence[Segment], stride: int) -> Iterator[np.ndarray[Any, Any]]:
    """The segments' events in input order, their order numbers made global, about :data:`REDUCE_EVENTS` at a time."""
    pending: list[np.ndarray[Any, Any]] = []
    waiting = 0
    for segment in segments:
        events = np.fromfile(segment.path, EVENT_DTYPE, count=segment.stop - segment.start,
                             offset=segment.start * EVENT_DTYPE.itemsize)
        shifted = np.empty(len(events), SCRATCH_DTYPE)
        for name in ("key", "raw", "flags"):
            shifted[name] = events[name]
        shifted["seq"] = events["seq"].astype(np.int64) + np.int64(segment.games_before * stride)
        pending.append(shifted)
        waiting += len(shifted)
        if waiting >= REDUCE_EVENTS:
            yield np.concatenate(pending)
            pending, waiting = [], 0
    if pending:
        yield np.concatenate(pending)


def _chunk(events: np.ndarray[Any, Any]) -> Any:
    """Events as a :class:`~.batches.Chunk` for :meth:`~.build.BookBuilder._merge` (no positions)."""
    from .batches import Chunk

    empty = np.zeros(0, dtype=np.uint64)
    flags = events["flags"]
    return Chunk(0, [], events["key"], events["raw"].astype(np.int64), flags >= 4, events["seq"],
                 (flags & 3).astype(np.int8), {"key": empty}, (empty, empty, np.zeros(0, dtype=np.int64)), {})


class _SubRanges(BookBuilder):
    """A reducer's counts, sub-range by sub-range, for :func:`~.polyglot.make_book` (which reads
    :meth:`column_blocks` only)."""

    def __init__(self, batches: Iterator[np.ndarray[Any, Any]], cuts: np.ndarray[Any, Any], path: str,
                 max_ply: int) -> None:
        super().__init__(max_ply=max_ply, boards=False, table_rows=None)
        self._batches, self._cuts, self._path, self._rows = batches, cuts, path, 0

    def column_blocks(self) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
        for builder in self._builders():
            for block in builder.column_blocks():
                self._rows += len(block["key"])
                yield block

    def __len__(self) -> int:
        return self._rows

    def _builders(self) -> Iterator[BookBuilder]:
        """One builder per sub-range, in key order, each given its events in input order."""
        if not len(self._cuts):  # one sub-range: counted as read
            builder = BookBuilder(max_ply=self.max_ply, boards=False, table_rows=None)
            for events in self._batches:
                builder._merge(_chunk(events))
            yield builder
            return
        parts = len(self._cuts) + 1
        offsets = []  # per batch written: its first row in the file and the rows where each sub-range starts
        written = 0
        with open(self._path, "wb") as out:
            for events in self._batches:
                part = np.searchsorted(self._cuts, events["key"], side="right").astype(np.uint16)
                order = np.argsort(part, kind="stable")  # (a radix sort: input order kept in each sub-range)
                events.take(order).tofile(out)
                offsets.append((written, np.searchsorted(part[order], np.arange(parts + 1))))
                written += len(events)
        for index in range(parts):
            builder = BookBuilder(max_ply=self.max_ply, boards=False, table_rows=None)
            pending: list[np.ndarray[Any, Any]] = []
            waiting = 0
            for first, starts in offsets:
                start, stop = int(starts[index]), int(starts[index + 1])
                if stop > start:
                    pending.append(np.fromfile(self._path, SCRATCH_DTYPE, count=stop - start,
                                               offset=(first + start) * SCRATCH_DTYPE.itemsize))
                    waiting += stop - start
                if waiting >= REDUCE_EVENTS:
                    builder._merge(_chunk(np.concatenate(pending)))
                    pending, waiting = [], 0
            if pending:
                builder._merge(_chunk(np.concatenate(pending)))
            yield builder
