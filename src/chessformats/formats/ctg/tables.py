"""A CTG book as a table: one row per stored position and move, in stored order (:mod:`..booktable` gives the
shared columns); a position without moves has one row with ``move`` null.

``fen`` is the stored (normalised) board, white to move, and ``move`` a move of it; ``weight`` is the move's
Polyglot weight (:func:`.model.polyglot_weight`: from the record of the position it leads to, found with
:meth:`.read.CtgBook.probe`, and the move's annotation), as ``find_all`` gives it. Columns after the shared ones:
``code`` (the move as stored), ``nag`` (the move's annotation, 0 for none), ``page`` (the data page of the record).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...engine.tables import arrow
from ..booktable import BOOK_BATCH, book_schema, row_batches
from .model import polyglot_weight

__all__ = ["ctg_batches", "ctg_schema"]


def ctg_schema() -> Any:
    """The Arrow schema of a CTG book's table."""
    pa = arrow()
    return book_schema(pa.binary(), [("code", pa.uint8()), ("nag", pa.uint8()), ("page", pa.uint32())])


def ctg_batches(book: Any, *, batch_size: int = BOOK_BATCH) -> Iterator[Any]:
    """Every stored position of ``book`` (a :class:`.read.CtgBook`) and its moves as rows of :func:`ctg_schema`,
    in record batches."""
    return row_batches(_rows(book), ctg_schema(), batch_size)


def _rows(book: Any) -> Iterator[tuple[Any, ...]]:
    for record in book.records():
        board = record.board
        fen = board.fen()
        stats = (record.games, record.wins, record.draws, record.losses)
        if not record.moves:
            yield (record.key, fen, None, None, *stats, None, None, record.page)
        for move in record.moves:
            child = board.copy(stack=False)
            child.push(move.move)
            weight = polyglot_weight(book.probe(child, legal_only=False), move.annotation)
            yield (record.key, fen, move.move.uci(), weight, *stats, move.code, move.annotation, record.page)
