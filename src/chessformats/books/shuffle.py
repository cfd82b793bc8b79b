"""The reduce of a distributed Polyglot build, by key range: the two task functions and what they exchange.

A distributed build (:func:`chessformats.books.distributed.write_book`) runs in two phases:

1. **Map** (:func:`map_piece`, one task per piece of the input): the piece is read and replayed as in every
   build (:func:`~.pieces.read_piece`, games numbered from 1 in the piece). The events of the hot keys (the
   positions of the first plies, :mod:`.hotkeys`) are counted here: rows per (key, move) and one small code an
   event. The others -- one per ply: position key, raw move, White to move and the outcome for the mover -- are put
   in game order, grouped by key range (:func:`key_ranges`: ``R`` equal slices of the 64-bit key space; Zobrist
   keys are uniform), and written as fixed-size records (:data:`PACKED_DTYPE`, 10 bytes, or :data:`EVENT_DTYPE`,
   11 bytes, for fewer than 4 ranges: no order number, the place of an event in its range is its order), then
   the hot rows and codes, then where each range's part starts (:data:`OFFSETS_DTYPE`, ``R + 1`` records), to one
   file in a folder every worker sees; the task returns the file's name and sizes, its games and its skipped games
   (:class:`Mapped`: the same few hundred bytes whatever ``R``; each reducer reads its two offset records).
2. **Reduce** (:func:`reduce_range`, one task per key range, started when every piece is mapped): reducer ``r``
   reads range ``r`` of every piece **in input order** and numbers the events in that order (within a position,
   the order of the games), counts them (a range larger than its memory budget cut into sub-ranges, each counted
   whole by a :class:`~.build.BookBuilder` of its own: see :func:`reduce_range`), adds the hot keys' rows piece
   after piece (their ``first`` made global with the games before the piece, which the client knows once every
   piece is mapped) and replays the halving of the hot positions that reach 16,384 games from their codes, then
   writes that key range of the Polyglot book (:func:`~.polyglot.make_book`: entries sorted by key). The client
   concatenates the range files in key order.

Why the bytes are those of the one-process build: everything order-dependent in a Polyglot book is per position
-- the halving when a move reaches 16,384 games replays one position's events in game order, and ties of weight
are broken by the order moves were first met (``first``, the smallest order number of the move at that position)
-- and every event of a position is in one key range, in game order, on one path (a key is hot or not wherever it
is met).
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
from .halving import group_offsets, grouped
from .hotkeys import CODE_DTYPE, HOT_DTYPE, HotCounts, HotPart, hot_tables, is_hot
from .pieces import Piece, read_piece

__all__ = ["EVENT_DTYPE", "OFFSETS_DTYPE", "PACKED_DTYPE", "Mapped", "RangeBook", "Segment", "key_ranges", "map_piece",
           "range_bounds", "reduce_range", "segments_of"]

EVENT_DTYPE = np.dtype([("key", "<u8"), ("raw", "<u2"), ("flags", "u1")])
"""An event in a map file (11 bytes): position key, raw move and ``flags`` (White to move times 4 plus the outcome for
the mover: WIN, DRAW, LOSS, UNKNOWN). A key range's events are in game order in the file: their order is their
order number (no number is written)."""

PACKED_DTYPE = np.dtype([("word", "<u8"), ("move", "<u2")])
"""An event in a map file of 4 key ranges or more (10 bytes): the key less its range's first key (a range is at most
2**62 keys wide) with the outcome for the mover in the top 2 bits, and the raw move (15 bits) with White to move in
the top bit."""

_OFFSET, _MOVE = np.uint64((1 << 62) - 1), np.uint16((1 << 15) - 1)


def file_dtype(reducers: int) -> np.dtype[Any]:
    """The events' records in a map file of ``reducers`` key ranges."""
    return PACKED_DTYPE if reducers >= 4 else EVENT_DTYPE


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
    reducers: int
    events: int
    """The events of the file (its key ranges', the hot keys' not among them)."""
    hot_rows: int
    """The hot keys' rows (:data:`~.hotkeys.HOT_DTYPE`, after the events)."""
    hot_codes: int
    """Their codes (after the rows)."""
    codes: str
    """The codes' dtype (one byte, two when a hot key has 64 moves or more in the piece)."""
    seconds: float = 0.0
    """CPU time of the task (read, replay, write)."""

    @property
    def size(self) -> int:
        """Bytes of the file's events, hot rows and codes; the offsets of each key range follow them
        (:data:`OFFSETS_DTYPE`, ``R + 1`` records: a reducer reads its two, the client holds none)."""
        return (self.events * file_dtype(self.reducers).itemsize + self.hot_rows * HOT_DTYPE.itemsize
                + self.hot_codes * np.dtype(self.codes).itemsize)


OFFSETS_DTYPE = np.dtype([("rows", "<i8"), ("hot_rows", "<i8"), ("hot_codes", "<i8")])
"""Where key range ``r`` starts in a map file: record ``r`` (and ``r + 1``, where it ends) of the table at its end:
its first event, hot row and code."""


class Segment(NamedTuple):
    """One piece's events of one key range, for a reducer: rows ``start:stop`` of the events of ``path``, rows
    ``hot_start:hot_stop`` of its hot rows (from byte ``hot_at``) and codes ``code_start:code_stop`` (from byte
    ``codes_at``, of dtype ``codes``)."""

    path: str
    start: int
    stop: int
    games_before: int
    """Games of the input before the piece: added to the piece's game numbers."""
    hot_start: int = 0
    hot_stop: int = 0
    code_start: int = 0
    code_stop: int = 0
    hot_at: int = 0
    codes_at: int = 0
    codes: str = CODE_DTYPE.str
    packed: bool = False
    """Whether the events are :data:`PACKED_DTYPE` records (else :data:`EVENT_DTYPE`)."""

    @classmethod
    def of(cls, mapped: Mapped, reducer: int, games_before: int) -> Segment:
        """Range ``reducer`` of a map file, its offsets read from the table at the file's end."""
        records = file_dtype(mapped.reducers)
        (rows, hot_rows, hot_codes), (rows_end, hot_rows_end, hot_codes_end) = np.fromfile(
            mapped.path, OFFSETS_DTYPE, count=2, offset=mapped.size + reducer * OFFSETS_DTYPE.itemsize).tolist()
        hot_at = mapped.events * records.itemsize
        return cls(mapped.path, rows, rows_end, games_before, hot_rows, hot_rows_end, hot_codes, hot_codes_end,
                   hot_at, hot_at + mapped.hot_rows * HOT_DTYPE.itemsize, mapped.codes, records == PACKED_DTYPE)

    def read(self, low: int) -> np.ndarray[Any, Any]:
        """The events (in game order) as :data:`EVENT_DTYPE` records; ``low``: the range's first key."""
        records = PACKED_DTYPE if self.packed else EVENT_DTYPE
        read = np.fromfile(self.path, records, count=self.stop - self.start, offset=self.start * records.itemsize)
        if not self.packed:
            return read
        events = np.empty(len(read), EVENT_DTYPE)
        word, move = read["word"], read["move"]
        events["key"] = (word & _OFFSET) + np.uint64(low)
        events["raw"] = move & _MOVE
        events["flags"] = (move >> 15).astype(np.uint8) << 2 | (word >> np.uint64(62)).astype(np.uint8)
        return events

    def hot(self, stride: int) -> HotPart | None:
        """The hot keys' rows and codes, or ``None`` when the piece has none in the range."""
        if self.hot_stop == self.hot_start:
            return None
        rows = np.fromfile(self.path, HOT_DTYPE, count=self.hot_stop - self.hot_start,
                           offset=self.hot_at + self.hot_start * HOT_DTYPE.itemsize)
        codes = np.dtype(self.codes)
        return HotPart(rows, np.fromfile(self.path, codes, count=self.code_stop - self.code_start,
                                         offset=self.codes_at + self.code_start * codes.itemsize),
                       self.games_before * stride)


class RangeBook(NamedTuple):
    """What a reduce task returns: its range of the book, written to ``path``."""

    path: str
    entries: int
    rows: int
    """Distinct (position, move) pairs of the range (before ``min_games`` and the other options)."""
    seconds: float = 0.0
    """CPU time of the task (read the segments, merge, write)."""


def range_bounds(reducers: int) -> tuple[int, ...]:
    """The ``reducers + 1`` keys that cut the 64-bit key space into equal ranges: range ``r`` holds the keys from
    bound ``r`` included to bound ``r + 1`` excluded, the keys ``k`` with ``k * reducers // 2**64 == r``
    (:func:`key_ranges`)."""
    if not 1 <= reducers < 1 << 31:  # (key_ranges multiplies by the count in 32-bit halves)
        raise ValueError(f"reducers must be from 1 to {(1 << 31) - 1:,}")
    return tuple(-(-(r << 64) // reducers) for r in range(reducers + 1))


_HALF = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)


def key_ranges(key: np.ndarray[Any, Any], reducers: int) -> np.ndarray[Any, Any]:
    """The key range of each key: ``key * reducers // 2**64``, in 64-bit arithmetic (the key cut in two halves of
    32 bits; no search)."""
    if reducers == 1:
        return np.zeros(len(key), dtype=np.int64)
    count = np.uint64(reducers)
    part: np.ndarray[Any, Any] = ((key >> _HALF) * count + ((key & _LOW) * count >> _HALF) >> _HALF).astype(np.int64)
    return part


def map_piece(piece: Piece, index: int, max_ply: int, game_filter: GameFilter | None, folder: str, reducers: int,
              hot: np.ndarray[Any, Any]) -> Mapped:
    """Read one piece (on a worker) and write its events to ``folder``: the keys ``hot`` (sorted) counted here
    (:func:`~.hotkeys.hot_tables`), the others' events grouped by key range, each range's in game order."""
    started = time.process_time()
    chunks = read_piece(piece, max_ply, game_filter, boards=False, ordered=False)  # one chunk
    path = os.path.join(folder, f"piece{index:08d}.events")
    if not chunks:
        np.zeros(reducers + 1, OFFSETS_DTYPE).tofile(path)
        return Mapped(0, 0, [], path, reducers, 0, 0, 0, CODE_DTYPE.str, time.process_time() - started)
    chunk = chunks[0]
    if len(chunk.seq) and int(chunk.seq.max()) >= 1 << 32:
        raise ValueError(f"{piece.path}: a piece of {chunk.games:,} games is too large for the shuffle: smaller pieces")
    in_games = np.argsort(chunk.seq.astype(np.uint32), kind="stable")  # (the batches' plies are runs: timsort)
    key = chunk.key[in_games]
    part = key_ranges(key, reducers)
    part[is_hot(key, hot)] = reducers  # the hot keys' events last, as one more part
    order, starts = grouped(part, reducers + 1)
    taken = in_games[order[starts[-2]:]]
    rows, codes = hot_tables(chunk.key[taken], chunk.raw[taken], chunk.white[taken], chunk.seq[taken],
                             chunk.outcome[taken])
    hot_rows = group_offsets(key_ranges(rows["key"], reducers), reducers)
    hot_codes = np.concatenate(([0], np.cumsum(rows["games"], dtype=np.int64)))[hot_rows]
    starts = starts[:-1]
    taken = in_games[order[:starts[-1]]]
    events = np.empty(len(taken), file_dtype(reducers))
    if reducers >= 4:
        lows = np.array(range_bounds(reducers)[:-1], dtype=np.uint64).repeat(np.diff(starts))
        events["word"] = chunk.key[taken] - lows | chunk.outcome[taken].astype(np.uint64) << np.uint64(62)
        events["move"] = chunk.raw[taken].astype(np.uint16) | chunk.white[taken].astype(np.uint16) << 15
    else:
        events["key"], events["raw"] = chunk.key[taken], chunk.raw[taken]
        events["flags"] = chunk.white[taken].astype(np.uint8) << 2 | chunk.outcome[taken].astype(np.uint8)
    offsets = np.empty(reducers + 1, OFFSETS_DTYPE)
    offsets["rows"], offsets["hot_rows"], offsets["hot_codes"] = starts, hot_rows, hot_codes
    with open(path, "wb") as out:
        for records in (events, rows, codes, offsets):
            records.tofile(out)
    return Mapped(chunk.games, chunk.filtered, chunk.skipped, path, reducers, len(events), len(rows), len(codes),
                  codes.dtype.str, time.process_time() - started)


def segments_of(mapped: Sequence[Mapped], reducer: int) -> list[Segment]:
    """The segments of key range ``reducer`` of every piece, in input order, with the games before each piece (on
    the reducer: each piece's offsets are read from its file)."""
    segments, before = [], 0
    for result in mapped:
        if result.events or result.hot_rows:
            segment = Segment.of(result, reducer, before)
            if segment.stop > segment.start or segment.hot_stop > segment.hot_start:
                segments.append(segment)
        before += result.games
    return segments


def reduce_range(pieces: Sequence[Mapped], reducer: int, bounds: tuple[int, int], max_ply: int, folder: str,
                 options: dict[str, Any], table_rows: int | None, spill_dir: str | None = None) -> RangeBook:
    """Merge one key range (number ``reducer``, the keys from ``bounds[0]`` to ``bounds[1]`` excluded) of every piece
    (the map tasks' results, in input order: :func:`segments_of`) in input order (on a worker) and write its range of
    the book.

    ``options``: the keyword arguments of :func:`~.polyglot.make_book` (``min_games``, ``min_score``, ``only``,
    ``uniform``); ``table_rows``: the reducer's memory budget for counts. A range of more events than that is cut
    into sub-ranges of about ``table_rows`` events (equal slices of its keys): the events are read once in input
    order and written to a file in ``spill_dir`` (the worker's; the system's temporary folder by default) grouped
    by sub-range, then each sub-range is counted whole by a :class:`~.build.BookBuilder` of its own, with no spill,
    and its entries written. Every position is in one sub-range and its events are counted in input order, so the
    counts are the one-process build's; the work per event does not grow with the range (a table that spills would
    merge its runs again and again as it grows). The hot keys' rows are added piece after piece
    (:class:`~.hotkeys.HotCounts`) and written with their sub-range."""
    from .polyglot import make_book

    started = time.process_time()
    segments = segments_of(pieces, reducer)
    total = sum(segment.stop - segment.start for segment in segments)
    parts = 1 if table_rows is None else min(max(1, -(-total // table_rows)), SUB_RANGES)
    low, high = bounds
    cuts = np.array([low + (high - low) * part // parts for part in range(1, parts)], dtype=np.uint64)
    path = os.path.join(folder, f"range{reducer:06d}.bin")
    collecting = gc.isenabled()
    gc.disable()
    try:
        hot = _hot_counts(segments, event_stride(max_ply))
        with tempfile.TemporaryDirectory(prefix="chessformats-reduce-", dir=spill_dir) as scratch:
            counts = _SubRanges(_events(segments, low), cuts, os.path.join(scratch, "events"), max_ply, hot.table)
            report = make_book(path, counts, **options)
    finally:
        if collecting:
            gc.enable()
    return RangeBook(path, report.written, counts.rows, time.process_time() - started)


def _hot_counts(segments: Sequence[Segment], stride: int) -> HotCounts:
    """The range's hot keys counted, pieces added :data:`REDUCE_EVENTS` codes at a time."""
    counts = HotCounts()
    pending: list[HotPart] = []
    waiting = 0
    for segment in segments:
        part = segment.hot(stride)
        if part is None:
            continue
        pending.append(part)
        waiting += len(part.codes)
        if waiting >= REDUCE_EVENTS:
            counts.add(pending)
            pending, waiting = [], 0
    counts.add(pending)
    return counts


def _events(segments: Sequence[Segment], low: int) -> Iterator[np.ndarray[Any, Any]]:
    """The segments' events in input order, about :data:`REDUCE_EVENTS` at a time (``low``: the range's first key)."""
    pending: list[np.ndarray[Any, Any]] = []
    waiting = 0
    for segment in segments:
        if segment.stop == segment.start:
            continue
        pending.append(segment.read(low))
        waiting += segment.stop - segment.start
        if waiting >= REDUCE_EVENTS:
            yield np.concatenate(pending)
            pending, waiting = [], 0
    if pending:
        yield np.concatenate(pending)


def _chunk(events: np.ndarray[Any, Any], first: int) -> Any:
    """Events as a :class:`~.batches.Chunk` for :meth:`~.build.BookBuilder._merge` (no positions), numbered from
    ``first`` in their order (the order of the games)."""
    from .batches import Chunk

    empty = np.zeros(0, dtype=np.uint64)
    flags = events["flags"]
    return Chunk(0, [], events["key"], events["raw"].astype(np.int64), flags >= 4,
                 np.arange(first, first + len(events), dtype=np.int64), (flags & 3).astype(np.int8),
                 {"key": empty}, (empty, empty, np.zeros(0, dtype=np.int64)), {})


class _SubRanges:
    """A reducer's counts, sub-range by sub-range, for :func:`~.polyglot.make_book` (which reads
    :meth:`column_blocks` only), the hot keys' rows (``hot``: a table of counts) with their sub-range's."""

    def __init__(self, batches: Iterator[np.ndarray[Any, Any]], cuts: np.ndarray[Any, Any], path: str,
                 max_ply: int, hot: dict[str, np.ndarray[Any, Any]]) -> None:
        self._batches, self._cuts, self._path, self.max_ply, self._hot = batches, cuts, path, max_ply, hot
        self.rows = 0
        """Rows yielded so far (every row of the range once :meth:`column_blocks` is done)."""

    def column_blocks(self) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
        hot_starts = [0, *np.searchsorted(self._hot["key"], self._cuts).tolist(), len(self._hot["key"])]
        for index, builder in enumerate(self._builders()):
            hot = {name: column[hot_starts[index]:hot_starts[index + 1]] for name, column in self._hot.items()}
            for block in builder.column_blocks():
                if len(hot["key"]):
                    block = {name: np.concatenate((column, hot[name])) for name, column in block.items()}
                    hot = {name: column[:0] for name, column in hot.items()}
                self.rows += len(block["key"])
                yield block

    def _builders(self) -> Iterator[BookBuilder]:
        """One builder per sub-range, in key order, each given its events in input order."""
        if not len(self._cuts):  # one sub-range: counted as read
            builder = BookBuilder(max_ply=self.max_ply, boards=False, table_rows=None)
            read = 0
            for events in self._batches:
                builder._merge(_chunk(events, read))
                read += len(events)
            yield builder
            return
        parts = len(self._cuts) + 1
        offsets = []  # per batch written: its first row in the file and the rows where each sub-range starts
        written = 0
        with open(self._path, "wb") as out:
            for events in self._batches:
                order, starts = grouped(np.searchsorted(self._cuts, events["key"], side="right"), parts)
                events.take(order).tofile(out)  # (input order kept in each sub-range)
                offsets.append((written, starts))
                written += len(events)
        for index in range(parts):
            builder = BookBuilder(max_ply=self.max_ply, boards=False, table_rows=None)
            pending: list[np.ndarray[Any, Any]] = []
            waiting = read = 0
            for first, starts in offsets:
                start, stop = int(starts[index]), int(starts[index + 1])
                if stop > start:
                    pending.append(np.fromfile(self._path, EVENT_DTYPE, count=stop - start,
                                               offset=(first + start) * EVENT_DTYPE.itemsize))
                    waiting += stop - start
                if waiting >= REDUCE_EVENTS:
                    builder._merge(_chunk(np.concatenate(pending), read))
                    pending, read, waiting = [], read + waiting, 0
            if pending:
                builder._merge(_chunk(np.concatenate(pending), read))
            yield builder
