"""Polyglot books from games: the book ``polyglot make-book`` writes, from a :class:`~.build.BookBuilder`.

``chessformats.polyglot.make_book`` (the public facade) and the ``chessformats build`` command for ``.bin``
outputs are this function.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.fileio import atomic_write
from ..schemas import polyglot_facts as facts  # the entry's dtype without the declarations (start-up time)

if TYPE_CHECKING:
    import chess

    from .build import BookBuilder

__all__ = ["make_book"]


def make_book(
    path: str | os.PathLike[str],
    builder: BookBuilder,
    *,
    min_games: int = 3,
    min_score: float = 0.0,
    only: chess.Color | None = None,
    uniform: bool = False,
) -> int:
    """Write the book ``polyglot make-book`` writes for the same games and options; return its entry count.

    Mirrors polyglot 2.0.4: an entry needs ``min_games`` games (polyglot's counter, halved when a move of
    the position reaches 16,384 games) and a non-zero ``sum`` of ``result + 1`` (2 for a win of the side
    to move, 1 for a draw or any result but 1-0/0-1, 0 for a loss), a score ``sum / games / 2`` of at
    least ``min_score`` (a fraction; polyglot's ``-min-score`` is in percent), and only moves of
    ``only`` when given (``-only-white``/``-only-black``). The weight is ``sum`` (1 with ``uniform``).
    Entries are sorted by key, then by descending weight, ties in the order the moves were first met,
    as polyglot's sort leaves them.
    """
    count = 0
    with atomic_write(path) as handle:
        for columns in builder.column_blocks():  # key ranges in ascending order: the book is written as it comes
            records = _entries(columns, min_games, min_score, only, uniform)
            handle.write(records.tobytes())
            count += len(records)
    return count


def _entries(columns: dict[str, np.ndarray[Any, Any]], min_games: int, min_score: float, only: chess.Color | None,
             uniform: bool) -> np.ndarray[Any, Any]:
    """The book's entries of some positions' counts (see :func:`make_book`), sorted."""
    n, total = columns["polyglot_n"], columns["polyglot_sum"]
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = (n >= min_games) & (total != 0) & ~((total / n) / 2.0 < min_score)
    if only is not None:
        keep &= columns["white"] == only
    rows = np.flatnonzero(keep)
    weights = np.ones(len(rows), dtype=np.int64) if uniform else total[rows]
    rows = rows[np.lexsort((columns["first"][rows], -weights, columns["key"][rows]))]  # ties: first met first
    records = np.zeros(len(rows), dtype=np.dtype(facts.ENTRY_DTYPE))
    records["key"] = columns["key"][rows]
    records["move"] = columns["raw"][rows]
    records["weight"] = np.ones(len(rows), dtype=np.int64) if uniform else total[rows]
    return records
