"""Writing Polyglot books: sorted and merged entries (:func:`write_book`), and ``polyglot merge-book``
(:func:`merge_books`). Files are written atomically."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import chess
import numpy as np

from ...engine.codec import codec
from ...engine.contract import WriteReport
from ...engine.fileio import atomic_write
from ...schemas import polyglot as schema
from ..zobrist import zobrist_hash
from .moves import encode_move
from .read import ENTRY_DTYPE, Entry, PolyglotBook, UnsortedBookWarning, open_book

__all__ = ["build_records", "merge_books", "write_book"]

EntryLike = Entry | tuple[int, int, int, int]
MoveWeights = Mapping[Any, Any]


def _rows_from_mapping(book: Mapping[Any, MoveWeights]) -> Iterator[tuple[int, int, int, int]]:
    for position, moves in book.items():
        board: chess.Board | None = None
        if isinstance(position, str):
            board = chess.Board(position)
            key = zobrist_hash(board)
        elif isinstance(position, int):
            key = position
        else:
            raise TypeError(f"a position must be a FEN string or a Zobrist key, not {type(position).__name__} "
                            "(chess.Board is not hashable: use board.fen())")
        rows = []
        for move, value in moves.items():
            weight, learn = (value, 0) if isinstance(value, int) else value
            if isinstance(move, str):
                move = chess.Move.from_uci(move)
            raw = move if isinstance(move, int) else encode_move(board, move)
            rows.append((key, raw, int(weight), int(learn)))
        # highest weight first within a position, as polyglot writes books
        rows.sort(key=lambda row: -row[2])
        yield from rows


def _rows_from_entries(entries: Iterable[EntryLike]) -> Iterator[tuple[int, int, int, int]]:
    for entry in entries:
        if isinstance(entry, Entry):
            yield entry.key, entry.raw_move, entry.weight, entry.learn
        else:
            key, raw, weight, learn = entry
            yield int(key), int(raw), int(weight), int(learn)


# the largest value of each field of an entry (the move: its whole 16-bit word), from the declaration
_KEY_MAX, _MOVE_MAX, _WEIGHT_MAX, _LEARN_MAX = (codec(schema.ENTRY).field(name).mask
                                                for name in ("key", "move", "weight", "learn"))

_MERGERS: dict[str, Callable[[int, int], int]] = {
    "sum": lambda a, b: min(a + b, _WEIGHT_MAX),
    "max": max,
    "first": lambda a, b: a,
}


def build_records(
    book: Mapping[Any, MoveWeights] | Iterable[EntryLike],
    *,
    merge: str | None = "sum",
    sort: bool = True,
) -> np.ndarray[Any, Any]:
    """Sorted entry records (numpy, :data:`ENTRY_DTYPE`) from entries or a mapping, see :func:`write_book`."""
    rows = _rows_from_mapping(book) if isinstance(book, Mapping) else _rows_from_entries(book)
    merged: dict[tuple[int, int], list[int]] = {}
    ordered: list[list[int]] = []
    combine = _MERGERS[merge] if merge is not None else None
    for key, raw, weight, learn in rows:
        if not 0 <= key <= _KEY_MAX or not 0 <= raw <= _MOVE_MAX or not 0 <= weight <= _WEIGHT_MAX \
                or not 0 <= learn <= _LEARN_MAX:
            raise ValueError(f"entry out of range: key={key:#x} move={raw} weight={weight} learn={learn}")
        if combine is not None:
            previous = merged.get((key, raw))
            if previous is not None:
                previous[2] = combine(previous[2], weight)
                previous[3] = previous[3] or learn
                continue
        row = [key, raw, weight, learn]
        if combine is not None:
            merged[(key, raw)] = row
        ordered.append(row)
    records = np.zeros(len(ordered), dtype=ENTRY_DTYPE)
    if ordered:
        columns = list(zip(*ordered, strict=True))
        for name, column in zip(("key", "move", "weight", "learn"), columns, strict=True):  # the rows' order
            records[name] = np.array(column, dtype=ENTRY_DTYPE[name].newbyteorder("="))
        if sort:
            records = records[np.argsort(records["key"].astype(ENTRY_DTYPE["key"].newbyteorder("=")), kind="stable")]
    return records


def write_book(
    path: str | os.PathLike[str],
    book: Mapping[Any, MoveWeights] | Iterable[EntryLike],
    *,
    merge: str | None = "sum",
    sort: bool = True,
) -> WriteReport:
    """Write a sorted Polyglot book atomically; return the :class:`~chessformats.contract.WriteReport` (its
    ``written``: the entries).

    ``book`` is either an iterable of :class:`Entry` / ``(key, raw_move, weight, learn)`` tuples, or a
    mapping ``position -> {move: weight | (weight, learn)}`` where a position is a FEN (castling moves
    are then stored king-takes-rook) or a key, and a move a :class:`chess.Move`, a UCI string or a raw
    16-bit move (with a key, give castling as king-takes-rook yourself).

    Entries are sorted by key with a stable sort: entries of one position keep the order they were
    given in (so a sorted real book written back gives the identical file); from a mapping, a
    position's moves are ordered by descending weight. Repeated (key, move) pairs are merged:
    ``merge="sum"`` adds the weights (capped at 65535), ``"max"`` keeps the largest, ``"first"`` the
    first; the merged entry keeps the first non-zero ``learn``; ``merge=None`` keeps them all.
    ``sort=False`` writes the entries in the order given (to reproduce another program's file). The file
    is written through a temporary file and renamed, so a failure never leaves a half-written book.
    """
    records = build_records(book, merge=merge, sort=sort)
    with atomic_write(path) as handle:
        handle.write(records.tobytes())
    return WriteReport(os.fspath(path), len(records), "entries", [os.fspath(path)])


def merge_books(first: str | os.PathLike[str], second: str | os.PathLike[str],
                out: str | os.PathLike[str]) -> WriteReport:
    """``polyglot merge-book``: both books in one, as polyglot 2.0.4 merges them; returns the entry count.

    Read off the real program (Debian's polyglot 2.0.4; its behaviour differs from older published
    sources, which dropped the second book's moves): each book is taken as runs of consecutive entries
    with the same key, and the runs are merged by key like two sorted lists. For a key in both books the
    first book's run is written with each of the second book's moves either added to the first book's
    entry with the same move (weights summed modulo 65536, as polyglot's 16-bit counter wraps; the first
    book's learn kept) or appended after it. Nothing is re-sorted: unsorted input gives what polyglot
    gives for it. Returns the :class:`~chessformats.contract.WriteReport` (``written``: the entries).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedBookWarning)  # polyglot merges in file order regardless
        one, two = open_book(first, strict=False), open_book(second, strict=False)
    with one, two:
        runs_1, runs_2 = _runs(one), _runs(two)
    rows: list[list[int]] = []
    i = j = 0
    while i < len(runs_1) or j < len(runs_2):
        if j == len(runs_2) or (i < len(runs_1) and runs_1[i][0][0] < runs_2[j][0][0]):
            rows.extend(runs_1[i])
            i += 1
        elif i == len(runs_1) or runs_1[i][0][0] > runs_2[j][0][0]:
            rows.extend(runs_2[j])
            j += 1
        else:
            run = runs_1[i]
            own = len(run)
            for entry in runs_2[j]:
                for mine in run[:own]:
                    if mine[1] == entry[1]:
                        mine[2] = (mine[2] + entry[2]) & _WEIGHT_MAX
                        break
                else:
                    run.append(entry)
            rows.extend(run)
            i += 1
            j += 1
    return write_book(out, [(key, raw, weight, learn) for key, raw, weight, learn in rows], merge=None, sort=False)


def _runs(book: PolyglotBook) -> list[list[list[int]]]:
    """The book's entries as runs of consecutive entries with the same key, in file order."""
    runs: list[list[list[int]]] = []
    arrays = book.arrays()
    columns = [arrays[name].tolist() for name in ("key", "raw_move", "weight", "learn")]
    for row in zip(*columns, strict=True):
        if runs and runs[-1][0][0] == row[0]:
            runs[-1].append(list(row))
        else:
            runs.append([list(row)])
    return runs
