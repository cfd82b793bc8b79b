"""Polyglot books from games: the book ``polyglot make-book`` writes, from a :class:`~.build.BookBuilder`.

``chessformats.polyglot.make_book`` (the public facade) and the ``chessformats build`` command for ``.bin``
outputs are this function.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..engine.contract import WriteReport, collect_warnings
from ..engine.fileio import atomic_write
from ..schemas import polyglot_facts as facts  # the entry's dtype without the declarations (start-up time)

if TYPE_CHECKING:
    import chess

    from ..formats.polyglot.read import PolyglotBook
    from .stats import BookStats
    from .tree import Sieve

__all__ = ["from_bookstats", "make_book", "to_bookstats"]

_WEIGHT_LIMIT = 0xFFFF  # a Polyglot weight is 16 bits


class CountBlocks(Protocol):
    """What :func:`make_book` reads: counts in blocks of ascending key ranges (:meth:`.build.BookBuilder.column_blocks`;
    a distributed build's reducer gives its sub-ranges)."""

    def column_blocks(self) -> Iterator[dict[str, np.ndarray[Any, Any]]]: ...


def make_book(
    path: str | os.PathLike[str],
    builder: CountBlocks,
    *,
    min_games: int = 3,
    min_score: float = 0.0,
    only: chess.Color | None = None,
    uniform: bool = False,
) -> WriteReport:
    """Write the book ``polyglot make-book`` writes for the same games and options; return the report
    (``written``: the entries).

    Mirrors polyglot 2.0.4: an entry needs ``min_games`` games (polyglot's counter, halved when a move of
    the position reaches 16,384 games) and a non-zero ``sum`` of ``result + 1`` (2 for a win of the side
    to move, 1 for a draw or any result but 1-0/0-1, 0 for a loss), a score ``sum / games / 2`` of at
    least ``min_score`` (a fraction; polyglot's ``-min-score`` is in percent), and only moves of
    ``only`` when given (``-only-white``/``-only-black``). The weight is ``sum`` (1 with ``uniform``).
    Entries are sorted by key, then by descending weight, ties in the order the moves were first met,
    as polyglot's sort leaves them. A null move (python-chess's ``--``, ``Z0``; polyglot stops at them) is left
    out, counted in the report (``moves left out``) and said in a warning, as the other books' writers do.
    """
    count = nulls = 0
    with atomic_write(path) as handle:
        for columns in builder.column_blocks():  # key ranges in ascending order: the book is written as it comes
            records, left = _entries(columns, min_games, min_score, only, uniform)
            handle.write(records.tobytes())
            count += len(records)
            nulls += left
    report = WriteReport(os.fspath(path), count, "entries", [os.fspath(path)])
    if nulls:  # (.leftout imports python-chess, which a build of plain games does without)
        from collections import Counter

        from .leftout import NULL_MOVE, warn_left_out

        report.counts["moves left out"] = nulls
        with collect_warnings(report.warnings):
            warn_left_out(Counter({NULL_MOVE: nulls}), "a Polyglot book")
    return report


def to_bookstats(book: PolyglotBook, start: chess.Board | None = None, *, as_draws: bool = False,
                 free_plies: int = 1,
                 progress: Callable[[int], None] | None = None) -> BookStats:
    """The positions of a Polyglot book reached from ``start`` (default: the start position) along its moves, as
    the format-neutral model.

    Polyglot stores weights, not results: a move's weight becomes its ``weight`` and its games (of unknown
    result); with ``as_draws`` also its draws (for a format that stores results only, so that the book converted
    back gets its weights again: ``2 * wins + draws``). The model's games are those of the start position's moves;
    ``stats.unreached`` counts the entries of positions no line reaches.
    ``free_plies``: moves outside the book the search goes through where a book move leads out of the book (1:
    the opponent's replies of a one-sided repertoire; see :func:`.tree.walk`).
    """
    from .stats import BookStats, MoveStats
    from .tree import add_position, fen_key, walk

    stats = BookStats()
    reached = 0
    keys: set[int] = set()
    stored: list[set[int]] = []  # the book's keys, made when the walk first asks for the sieve
    for board, found, _ in walk(book, start, free_plies=free_plies, progress=progress,
                                sieve=lambda: key_sieve(book, keys, stored)):
        if found.key not in keys:
            keys.add(found.key)
            reached += len(book.entry_numbers(found.key))
        position = add_position(stats, board)
        for entry in found.moves:
            position.moves[entry.move] = MoveStats(games=entry.weight, draws=entry.weight if as_draws else 0,
                                                   weight=entry.weight)
    root = stats.positions.get(fen_key(start or _start()))
    stats.games = sum(m.games for m in root.moves.values()) if root is not None else 0
    stats.unreached = len(book) - reached
    return stats



def key_sieve(book: PolyglotBook, reached: set[int], stored: list[set[int]] | None = None) -> Sieve:
    """A :data:`.tree.Sieve` for :func:`.tree.walk` over a Polyglot book: the moves that lead to a key of the
    book outside ``reached`` (keys made from the board's key and the move: :func:`~..formats.zobrist.child_keys`).
    ``stored``: a list that keeps the book's key set from one call to the next (made on the first)."""
    from ..formats.zobrist import child_keys

    stored = [] if stored is None else stored
    if not stored:
        stored.append(set(np.unique(book.records["key"]).tolist()))
    targets = stored[0]

    def test(board: chess.Board, moves: list[chess.Move]) -> list[chess.Move]:
        return [move for move, key in zip(moves, child_keys(board, moves), strict=True)
                if key in targets and key not in reached]

    return test


def _start() -> chess.Board:
    import chess

    return chess.Board()


def stats_weights(stats: BookStats) -> dict[str, dict[chess.Move, int]]:
    """Polyglot weights of the model (``polyglot.write_book``'s mapping): each move's
    :attr:`~.stats.MoveStats.polyglot_weight`, scaled down together when one passes 65535 (``weight * 65535 //
    largest``; a weight that was not 0 stays at least 1)."""
    weights = {position.fen: {move: move_stats.polyglot_weight for move, move_stats in position.moves.items()}
               for position in stats}
    largest = max((w for moves in weights.values() for w in moves.values()), default=0)
    if largest > _WEIGHT_LIMIT:
        for moves in weights.values():
            for move, weight in moves.items():
                moves[move] = max(weight * _WEIGHT_LIMIT // largest, 1) if weight else 0
    return weights


def from_bookstats(path: str | os.PathLike[str], stats: BookStats) -> WriteReport:
    """A Polyglot book from the format-neutral model: each move weighed by :func:`stats_weights`."""
    from ..formats.polyglot.moves import encode_move
    from ..formats.polyglot.write import write_book
    from ..formats.zobrist import zobrist_hash

    # entries made here from the model's boards (write_book's FEN mapping would parse every FEN again): the rows
    # of a position by descending weight, as write_book orders a mapping's
    weights = stats_weights(stats)
    rows: list[tuple[int, int, int, int]] = []
    for position in stats:
        board = position.board()
        key = zobrist_hash(board)
        moves = weights[position.fen]
        rows += sorted(((key, encode_move(board, move), weight, 0) for move, weight in moves.items()),
                       key=lambda row: -row[2])
    report = write_book(path, rows)
    report.counts["positions"] = len(stats)
    return report


def _entries(columns: dict[str, np.ndarray[Any, Any]], min_games: int, min_score: float, only: chess.Color | None,
             uniform: bool) -> tuple[np.ndarray[Any, Any], int]:
    """The book's entries of some positions' counts (see :func:`make_book`), sorted, and how many null moves
    would have been entries (raw move 0, ``a1a1``: never a legal move, so a null move; left out)."""
    n, total = columns["polyglot_n"], columns["polyglot_sum"]
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = (n >= min_games) & (total != 0) & ~((total / n) / 2.0 < min_score)
    if only is not None:
        keep &= columns["white"] == only
    null = columns["raw"] == 0
    nulls = int(np.count_nonzero(keep & null))
    keep &= ~null
    rows = np.flatnonzero(keep)
    weights = np.ones(len(rows), dtype=np.int64) if uniform else total[rows]
    rows = rows[np.lexsort((columns["first"][rows], -weights, columns["key"][rows]))]  # ties: first met first
    records = np.zeros(len(rows), dtype=np.dtype(facts.ENTRY_DTYPE))
    records["key"] = columns["key"][rows]
    records["move"] = columns["raw"][rows]
    records["weight"] = np.ones(len(rows), dtype=np.int64) if uniform else total[rows]
    return records, nulls
