"""The book builder's counts on disk: sorted runs of (position, move) rows that no longer fit the memory budget.

:class:`~chessformats.books.build.BookBuilder` keeps its counts as a table sorted by (key, raw move). When the
table grows past its budget, the rows of positions that cannot be affected by polyglot's halving yet are written
here as a *run* (a file of fixed-size records, still sorted) and dropped from memory; the book is made at the end
by merging the runs and the table key range by key range (:meth:`SpillStore.blocks`), so memory stays bounded
by the budget whatever the input (but for the bound table below: 4 MiB, 16 MiB past 290 million games).

Why this is exact: polyglot halves every counter of a position when one of its moves reaches 16,384 games, in
game order. Until that happens a position's counts are plain sums, whatever the order and however they are
split. So the builder spills only rows of positions none of whose moves has :data:`SPILL_LIMIT` (8,192) games
in memory, and keeps a position in memory from then on ("pinned") as soon as its moves could reach 16,384 games
with what was spilled: :meth:`SpillStore.bound` gives an upper bound of a (key, move)'s spilled games (a table of
sums by a hash of the pair, a count-min sketch with one row, made wider as the games on disk grow so that its
sums stay far below 16,384), and :meth:`SpillStore.fetch` brings the spilled rows of the positions about to be
pinned back into memory, before the builder replays their events in game order. A row on disk was therefore
never halved: its ``polyglot_n`` is its ``games`` and ``polyglot_sum`` is ``games + wins - losses`` (2 a win, 1 a
draw or an unknown result, 0 a loss), so a record stores four counts of 16 bits.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np

from .batches import COUNTS
from .runs import group_starts, sort_order, union_order

__all__ = ["RUN_DTYPE", "SPILL_LIMIT", "SpillStore", "combine_rows"]

SPILL_LIMIT = 8192
"""A position with a move of this many games in memory (or halved already) is pinned rather than spilled: its
rows would soon be brought back, and what is spilled fits 16-bit counts."""

RUN_DTYPE = np.dtype([("key", "<u8"), ("raw", "<u2"), ("white", "u1"), ("first", "<i8"), ("games", "<u2"),
                      ("wins", "<u2"), ("draws", "<u2"), ("losses", "<u2")])
"""A spilled row (27 bytes): the position's key, the raw move, White to move, the first event's order number,
and the counts (below :data:`SPILL_LIMIT` when spilled, below 16,384 once the runs are merged)."""

WRITE_ROWS = 1 << 16
"""Rows converted and written at a time (the memory a spill needs beyond the table)."""

FENCE_ROWS = 1024
"""Every this many rows of a run, its key is kept in memory."""

FAN_IN = 8
"""Runs of one level merged into one run of the next."""

BOUND_BITS = 20
"""The bound table starts with 2**20 counters of 32 bits (4 MiB) ..."""

BOUND_LOAD = 2048
"""... and doubles when the games on disk exceed this many per counter (16 MiB for 8.6 billion games on disk: about
290 million games at ``--max-ply 30``; 4 bytes per 2,048 games beyond), so that a counter's sum stays far below
16,384 and pins only positions that are near it."""

_MIX = np.uint64(0x9E3779B97F4A7C15)
_NAMES = ("key", "raw", "white", "first", *COUNTS)


def combine_rows(*tables: dict[str, np.ndarray[Any, Any]]) -> dict[str, np.ndarray[Any, Any]]:
    """Tables of counts (columns ``key``, ``raw``, ``white``, ``first`` and the counts, each sorted by (key, raw))
    as one sorted table: equal rows summed, ``first`` their smallest. A table given earlier holds earlier games
    (its ``white`` is kept)."""
    tables = tuple(table for table in tables if len(table["key"]))
    if not tables:
        return {name: np.zeros(0, dtype=np.uint64 if name == "key" else bool if name == "white" else np.int64)
                for name in _NAMES}
    combined = tables[0]
    for table in tables[1:]:
        combined = _union(combined, table)
    return combined


def _union(old: dict[str, np.ndarray[Any, Any]],
           added: dict[str, np.ndarray[Any, Any]]) -> dict[str, np.ndarray[Any, Any]]:
    """Two sorted tables merged (not sorted again), column by column: memory of about two tables at a time."""
    merged = union_order(old["key"], old["raw"], added["key"], added["raw"])  # ``old``'s row before ``added``'s
    key, raw = (np.concatenate((old[name], added[name]))[merged] for name in ("key", "raw"))
    starts = group_starts(key, raw)
    table = {"key": key[starts], "raw": raw[starts]}
    del key, raw
    table["white"] = np.concatenate((old["white"], added["white"]))[merged][starts]
    table["first"] = np.minimum.reduceat(np.concatenate((old["first"], added["first"]))[merged], starts)
    for name in COUNTS:
        table[name] = np.add.reduceat(np.concatenate((old[name], added[name]))[merged], starts)
    return table


def _combine_records(parts: list[np.ndarray[Any, Any]], taken: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Record arrays (each sorted) as one sorted array: rows of a (key, move) summed, ``first`` their smallest; rows of
    ``taken`` positions (sorted keys) left out."""
    if not parts:
        return np.zeros(0, dtype=RUN_DTYPE)
    records = np.concatenate(parts) if len(parts) > 1 else parts[0]
    if len(taken):
        records = records[~np.isin(records["key"], taken)]
    if len(parts) < 2 or not len(records):
        return records
    records = records.take(sort_order(records["key"], records["raw"]))
    starts = group_starts(records["key"], records["raw"])
    if len(starts) == len(records):
        return records
    out: np.ndarray[Any, Any] = records[starts]
    out["first"] = np.minimum.reduceat(records["first"], starts)
    for name in ("games", "wins", "draws", "losses"):
        sums = np.add.reduceat(records[name].astype(np.int64), starts)
        if name == "games" and int(sums.max()) > 0xFFFF:  # (below 16,384: see the module documentation)
            raise AssertionError("a spilled position has more games than polyglot's halving allows")
        out[name] = sums
    return out


def _from_records(records: np.ndarray[Any, Any]) -> dict[str, np.ndarray[Any, Any]]:
    """Spilled records as table columns (never halved: ``polyglot_n`` = games, ``polyglot_sum`` = games + wins -
    losses)."""
    games, wins, losses = (records[name].astype(np.int64) for name in ("games", "wins", "losses"))
    return {"key": records["key"].astype(np.uint64), "raw": records["raw"].astype(np.int64),
            "white": records["white"].astype(bool), "first": records["first"].astype(np.int64),
            "polyglot_n": games, "polyglot_sum": games + wins - losses, "games": games.copy(), "wins": wins,
            "draws": records["draws"].astype(np.int64), "losses": losses}


def _remove(path: str, owner: int) -> None:
    import shutil

    if os.getpid() == owner:  # (not in a forked child that leaves through its exit handlers)
        shutil.rmtree(path, ignore_errors=True)


class SpillStore:
    """Sorted runs of spilled rows in a temporary folder (removed with the store or at exit).

    Runs are merged as they pile up (:data:`FAN_IN` runs of one level make one run of the next), so reading them
    back touches a few runs whatever the input size, and each row is rewritten about log(rows / budget) / log(FAN_IN)
    times.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None, *, block_rows: int = 1 << 18) -> None:
        import tempfile  # (not imported by builds that never spill: start-up time)

        self.path = os.path.abspath(tempfile.mkdtemp(prefix="chessformats-spill-", dir=folder))
        self._finalizer = weakref.finalize(self, _remove, self.path, os.getpid())
        self.block_rows = block_rows
        """Rows merged at a time when runs are merged or read back."""
        self._runs: list[_Run] = []
        self._bits = BOUND_BITS
        self._bound = np.zeros(1 << self._bits, dtype=np.uint32)
        self._games = 0  # games of the rows on disk (taken positions' rows left out), the sum of the bound
        self._taken = np.zeros(0, dtype=np.uint64)  # positions fetched back: their rows on disk are stale
        self._written = 0
        self.spilled = 0
        """Rows given to :meth:`write` so far."""

    def close(self) -> None:
        """Remove the runs."""
        self._runs = []
        self._finalizer()

    def __len__(self) -> int:
        return len(self._runs)

    def _slots(self, key: np.ndarray[Any, Any], raw: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        mixed = key.astype(np.uint64) ^ (raw.astype(np.uint64) * _MIX)
        slots: np.ndarray[Any, Any] = (mixed >> np.uint64(64 - self._bits)).astype(np.intp)
        return slots

    def write(self, table: dict[str, np.ndarray[Any, Any]], kept: np.ndarray[Any, Any] | None = None) -> None:
        """Write the rows of ``table`` (sorted by (key, raw); never halved, every count below :data:`SPILL_LIMIT`)
        that ``kept`` (a mask, if given) does not keep as a run, :data:`WRITE_ROWS` rows at a time."""
        count = len(table["key"])
        if not count or (kept is not None and kept.all()):
            return
        self._add_run(self._records(table, kept), 0)
        while self._games > BOUND_LOAD << self._bits:
            self._widen()
        self._compact()

    def _records(self, table: dict[str, np.ndarray[Any, Any]],
                 kept: np.ndarray[Any, Any] | None) -> Iterator[np.ndarray[Any, Any]]:
        for start in range(0, len(table["key"]), WRITE_ROWS):
            part = {name: column[start:start + WRITE_ROWS] for name, column in table.items()}
            if kept is not None:
                written = ~kept[start:start + WRITE_ROWS]
                part = {name: column[written] for name, column in part.items()}
            if int(part["games"].max(initial=0)) >= SPILL_LIMIT or \
                    not np.array_equal(part["polyglot_n"], part["games"]):
                raise AssertionError("rows of a position polyglot's halving may concern cannot be spilled")
            records = np.empty(len(part["key"]), dtype=RUN_DTYPE)
            for field in RUN_DTYPE.names or ():
                records[field] = part[field]
            self.spilled += len(records)
            self._count(part["key"], part["raw"], part["games"], 1)
            yield records

    def _add_run(self, parts: Iterable[np.ndarray[Any, Any]], level: int) -> None:
        """Write record arrays (consecutive, sorted) as one run."""
        name = os.path.join(self.path, f"run{self._written:06d}.bin")
        self._written += 1
        count, fences = 0, []
        with open(name, "wb") as out:
            for records in parts:
                records.tofile(out)
                fences.append(records["key"][-count % FENCE_ROWS::FENCE_ROWS].copy())  # (not a view: frees records)
                count += len(records)
        self._runs.append(_Run(name, count, level, np.concatenate(fences) if fences else np.zeros(0, np.uint64)))

    def _compact(self) -> None:
        while True:
            levels = [run.level for run in self._runs]
            full = next((level for level in sorted(set(levels)) if levels.count(level) >= FAN_IN), None)
            if full is None:
                return
            merging = [run for run in self._runs if run.level == full]
            self._runs = [run for run in self._runs if run.level != full]
            self._add_run((records for _, records in self._merged_records(merging)), full + 1)
            for run in merging:
                os.remove(run.name)

    def _count(self, key: np.ndarray[Any, Any], raw: np.ndarray[Any, Any], games: np.ndarray[Any, Any],
               sign: int) -> None:
        """Add (``sign`` 1) or take back (-1) rows' games in the bound."""
        if not len(key):
            return
        slots = self._slots(key, raw)
        order = np.argsort(slots, kind="stable")
        slots = slots[order]
        starts = group_starts(slots, np.zeros(len(slots), dtype=np.int64))
        where = slots[starts]
        added = np.add.reduceat(games[order].astype(np.int64), starts)
        self._bound[where] = self._bound[where].astype(np.int64) + sign * added
        self._games += sign * int(added.sum())

    def _widen(self) -> None:
        """Twice the counters, counted again from the runs (the rows of taken positions left out)."""
        self._bits += 1
        self._bound = np.zeros(1 << self._bits, dtype=np.uint32)
        self._games = 0
        for run in self._runs:
            for start in range(0, run.rows, 1 << 20):
                records = run.read(start, min(run.rows, start + (1 << 20)))
                if len(self._taken):
                    records = records[~np.isin(records["key"], self._taken)]
                self._count(records["key"], records["raw"], records["games"], 1)

    def bound(self, key: np.ndarray[Any, Any], raw: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """At least the games on disk for each (key, raw move)."""
        bounds: np.ndarray[Any, Any] = self._bound[self._slots(key, raw)]
        return bounds

    def fetch(self, keys: np.ndarray[Any, Any]) -> dict[str, np.ndarray[Any, Any]]:
        """The spilled rows of these positions (sorted keys), summed over the runs, as table columns; the rows on disk
        are left out of everything read afterwards."""
        keys = np.setdiff1d(keys, self._taken, assume_unique=True)
        parts = []
        for run in self._runs:
            for key in keys.tolist():
                start, end = run.locate(key), run.locate(key + 1)
                if end > start:
                    records = run.read(start, end)
                    self._count(records["key"], records["raw"], records["games"], -1)  # (no longer on disk)
                    parts.append(_from_records(records))
        self._taken = np.union1d(self._taken, keys)
        return combine_rows(*parts)

    def blocks(self, table: dict[str, np.ndarray[Any, Any]]) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
        """The whole counts, the runs and ``table`` merged, in blocks of consecutive key ranges (about
        :attr:`block_rows` rows each, ascending), each sorted by (key, raw)."""
        table_start = 0
        for high, records in self._merged_records(self._runs, len(table["key"])):
            end = len(table["key"]) if high >> 64 else int(np.searchsorted(table["key"], np.uint64(high)))
            yield combine_rows(_from_records(records),
                               {name: column[table_start:end] for name, column in table.items()})
            table_start = end

    def _merged_records(self, runs: list[_Run], extra: int = 0) -> Iterator[tuple[int, np.ndarray[Any, Any]]]:
        """The runs merged (rows of a (key, move) summed; taken positions left out) in blocks of consecutive key
        ranges: (end of the range, record array) pairs; ``extra``: rows besides the runs (to size the blocks)."""
        total = sum(run.rows for run in runs) + extra
        count = max(1, -(-total // max(1, self.block_rows)))
        bounds = [int(i * (1 << 64) // count) for i in range(1, count)] + [1 << 64]
        starts = [0] * len(runs)
        for high in bounds:
            parts = []
            for index, run in enumerate(runs):
                end = run.locate(high)
                if end > starts[index]:
                    parts.append(run.read(starts[index], end))
                starts[index] = end
            records = _combine_records(parts, self._taken)
            yield high, records

class _Run(NamedTuple):
    """A run on disk: its file, rows, level, and every :data:`FENCE_ROWS`-th key (to find rows without reading the
    file: memory-mapped pages would count as the process's memory)."""

    name: str
    rows: int
    level: int
    fences: np.ndarray[Any, Any]

    def locate(self, key: int) -> int:
        """The first row whose key is at least ``key`` (``rows`` if none)."""
        if key >> 64:
            return self.rows
        after = int(np.searchsorted(self.fences, np.uint64(key), side="left"))  # fences[after - 1] < key
        if after == 0:
            return 0
        low, high = (after - 1) * FENCE_ROWS + 1, min(after * FENCE_ROWS, self.rows)
        return low + int(np.searchsorted(self.read(low, high)["key"], np.uint64(key), side="left"))

    def read(self, start: int, end: int) -> np.ndarray[Any, Any]:
        """Rows ``start:end``."""
        records: np.ndarray[Any, Any] = np.fromfile(self.name, dtype=RUN_DTYPE, count=end - start,
                                                     offset=start * RUN_DTYPE.itemsize)
        return records
