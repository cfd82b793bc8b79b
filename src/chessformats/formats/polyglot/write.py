"""Writing Polyglot books: sorted and merged entries (:func:`write_book`), and ``polyglot merge-book``
(:func:`merge_books`). Files are written atomically."""

from __future__ import annotations

import operator
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import chess
import numpy as np

from ...engine.codec import codec
from ...engine.contract import WriteReport
from ...engine.fileio import atomic_write
from ...kernel.newboard import chess960_if_needed, fen_board
from ...schemas import polyglot as schema
from ..zobrist import zobrist_hash
from .moves import KING_STEPS, decode_move, encode_move, move_problem
from .read import ENTRY_DTYPE, Entry, PolyglotBook, UnsortedBookWarning, open_book

__all__ = ["build_records", "merge_books", "write_book"]

EntryLike = Entry | tuple[int, int, int, int]
MoveWeights = Mapping[Any, Any]
Position = chess.Board | str | int
BookSource = Mapping[Any, MoveWeights] | Iterable[EntryLike | tuple[Position, MoveWeights]]


def _rows(book: BookSource) -> Iterator[tuple[int, int, int, int]]:
    """The entries of a mapping, or of an iterable of entries and (position, moves) pairs."""
    if isinstance(book, Mapping):
        for position, moves in book.items():
            yield from _position_rows(position, moves)
        return
    for item in book:
        if isinstance(item, Entry):
            yield item.key, item.raw_move, item.weight, item.learn
            continue
        fields: tuple[Any, ...] = tuple(item)
        if len(fields) == 2:
            yield from _position_rows(*fields)
        else:
            key, raw, weight, learn = fields
            yield _integer(key, "key"), _integer(raw, "move"), _integer(weight, "weight"), _integer(learn, "learn")


def _integer(value: Any, what: str) -> int:
    """``value`` as an int when it is one (numpy's integers too); a float is refused, not rounded: Polyglot stores
    integers (as ``struct.pack`` refuses a float for python-chess's entry layout ``>QHHI``)."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"an entry's {what} must be an integer, not {type(value).__name__} {value!r}") from None


def _position_rows(position: Any, moves: MoveWeights) -> list[tuple[int, int, int, int]]:
    """The entries of one position's moves, highest weight first (as polyglot writes books)."""
    board: chess.Board | None = None
    if isinstance(position, chess.Board):
        board = chess960_if_needed(position)
    elif isinstance(position, str):
        board = fen_board(position)
    else:
        try:
            key = operator.index(position)
        except TypeError:
            raise TypeError("a position must be a chess.Board, a FEN string or a Zobrist key, not "
                            f"{type(position).__name__} (a chess.Board is not hashable: give (board, moves) pairs "
                            "instead of a mapping)") from None
    if board is not None:
        key = zobrist_hash(board)
    rows = [(key, _raw_move(board, key, move), *_weight(board, key, move, value)) for move, value in moves.items()]
    rows.sort(key=lambda row: -row[2])
    return rows


def _where(board: chess.Board | None, key: int) -> str:
    """The position, for an error message (made only then: a FEN costs more than the entry)."""
    return f"the position of key {key:#018x}" if board is None else f"{board.fen()} (key {key:#018x})"


def _weight(board: chess.Board | None, key: int, move: Any, value: Any) -> tuple[int, int]:
    """(weight, learn) of a weight or a (weight, learn) pair: integers, floats refused (see :func:`_integer`)."""
    try:
        return operator.index(value), 0
    except TypeError:
        pass
    try:
        weight, learn = (operator.index(part) for part in value)
    except (TypeError, ValueError):
        raise TypeError(f"the weight of {move} in {_where(board, key)} must be an integer or a (weight, learn) pair "
                        f"of integers, not {value!r}: Polyglot stores integer weights (round them yourself)") from None
    return weight, learn


def _raw_move(board: chess.Board | None, key: int, move: Any) -> int:
    """The raw move of ``move`` (a :class:`chess.Move`, UCI or raw move) played from ``board``, castling as king
    takes rook. With a board the move must be legal (a raw move is decoded first); without one (a key) a raw move is
    kept as it is and a king's two-file step from e1/e8 taken to be castling (:data:`.moves.KING_STEPS`)."""
    if isinstance(move, str):
        try:
            move = chess.Move.from_uci(move)
        except ValueError:
            raise ValueError(f"not a UCI move: {move!r} in {_where(board, key)}") from None
    elif not isinstance(move, chess.Move):
        raw = operator.index(move)
        if board is None:
            return raw
        if not 0 <= raw <= _MOVE_MAX or move_problem(raw) is not None:
            raise ValueError(f"illegal move {raw} (raw, not a Polyglot move) in {_where(board, key)}")
        move = decode_move(board, raw)
    if not move:
        raise ValueError(f"the null move in {_where(board, key)}: a Polyglot book stores no null moves")
    if board is None:
        raw = encode_move(None, move)
        return KING_STEPS.get(raw, raw)
    try:  # python-chess's reading of UCI: e1g1 or e1h1 for castling in standard chess and in Chess960 alike
        played = board.parse_uci(move.uci())
    except ValueError:
        played = None
    if played is None or played.promotion != move.promotion:  # (parse_uci drops a castling king's "promotion")
        raise ValueError(f"illegal move {move.uci()} in {_where(board, key)}")
    return encode_move(board, played)


# the largest value of each field of an entry (the move: its whole 16-bit word), from the declaration
_KEY_MAX, _MOVE_MAX, _WEIGHT_MAX, _LEARN_MAX = (codec(schema.ENTRY).field(name).mask
                                                for name in ("key", "move", "weight", "learn"))

_MERGERS: dict[str, Callable[[int, int], int]] = {
    "sum": lambda a, b: min(a + b, _WEIGHT_MAX),
    "max": max,
    "first": lambda a, b: a,
}


def build_records(
    book: BookSource,
    *,
    merge: str | None = "sum",
    sort: bool = True,
) -> np.ndarray[Any, Any]:
    """Sorted entry records (numpy, :data:`ENTRY_DTYPE`) from entries or positions' moves, see :func:`write_book`."""
    rows = _rows(book)
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
    book: BookSource,
    *,
    merge: str | None = "sum",
    sort: bool = True,
) -> WriteReport:
    """Write a sorted Polyglot book atomically; return the :class:`~chessformats.contract.WriteReport` (its
    ``written``: the entries).

    ``book`` is a mapping ``position -> {move: weight | (weight, learn)}``, or an iterable of
    ``(position, {move: ...})`` pairs (a :class:`chess.Board` is not hashable: give boards this way), of
    :class:`Entry` and of ``(key, raw_move, weight, learn)`` tuples. Weights, learn values and keys are
    integers (a float is refused with ``TypeError``, not rounded: Polyglot stores integers).

    A position is a :class:`chess.Board`, a FEN or a Zobrist key. A board or FEN is taken in Chess960 mode
    when its castling rights are possible only in Chess960 (``HBhb``; a king off e1/e8 with rights), as the
    book builder reads FEN tags; its key is that of python-chess's :func:`chess.polyglot.zobrist_hash`. A
    move is a :class:`chess.Move`, a UCI string or a raw 16-bit move. Castling is stored as Polyglot stores
    it, king takes rook (O-O of white: ``e1h1``; ``g1b1`` in Chess960):

    - with a board or FEN, each move must be legal there (``ValueError`` naming the move and the position,
      also for the null move); castling may be written ``e1g1`` or ``e1h1`` (python-chess's UCI reading);
      a raw move is decoded and checked the same way.
    - with a key nothing can be checked: a raw move is stored as given, and a :class:`chess.Move` or UCI
      move that is a king's two-file step from e1/e8 (``e1g1``, ``e1c1``, ``e8g8``, ``e8c8``) is taken to be
      standard castling and stored king-takes-rook. A rook or queen making that step, or a Chess960
      position, needs a board, a FEN or raw moves. The null move is refused.

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
