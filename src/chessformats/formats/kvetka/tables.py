"""A Kvetka book as a table: one row per stored element (position) and move, in stored (key) order
(:mod:`..booktable` gives the shared columns); a position without moves has one row with ``move`` null.

``fen`` is the element's board (normalised: white to move) and ``move`` a move of it (null for a code whose piece
is not on the board); ``weight`` is ``2 * wins + draws`` of the side that plays the move, from the element of the
position it leads to (found with :meth:`.read.KvetkaBook.probe`; 1 when none), as ``find_all`` gives it;
``games`` is ``wins + draws + losses``. Columns after the shared ones: ``code`` (the move as stored),
``comment`` (the element's comment, an ECO code and name in most books), ``block`` (the ``.kob`` block it is
stored in).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...engine.tables import arrow
from ..booktable import BOOK_BATCH, book_schema, row_batches
from .model import move_weight

__all__ = ["kvetka_batches", "kvetka_schema"]


def kvetka_schema() -> Any:
    """The Arrow schema of a Kvetka book's table."""
    pa = arrow()
    return book_schema(pa.binary(), [("code", pa.uint8()), ("comment", pa.string()), ("block", pa.uint32())])


def kvetka_batches(book: Any, *, batch_size: int = BOOK_BATCH) -> Iterator[Any]:
    """Every element of ``book`` (a :class:`.read.KvetkaBook`) and its moves as rows of :func:`kvetka_schema`,
    in record batches."""
    return row_batches(_rows(book), kvetka_schema(), batch_size)


def _rows(book: Any) -> Iterator[tuple[Any, ...]]:
    for element in book.elements():
        board = book.element_board(element)
        fen = board.fen()
        stats = (element.wins + element.draws + element.losses, element.wins, element.draws, element.losses)
        moves = element.stored_moves(board)
        if not moves:
            yield (element.key, fen, None, None, *stats, None, element.comment, element.block)
        for move, code in zip(moves, element.codes, strict=True):
            weight = None
            if move is not None:
                child = board.copy(stack=False)
                child.push(move)
                weight = move_weight(book.probe(child, legal_only=False))
            yield (element.key, fen, None if move is None else move.uci(), weight, *stats, code, element.comment,
                   element.block)
