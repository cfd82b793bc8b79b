"""A Polyglot book as a table: one row per entry, in file order (:mod:`..booktable` gives the shared columns).

Polyglot stores keys, not positions: the ``fen`` of an entry is the position its key belongs to when that position
is reached from the start position through the book's own moves (:func:`.read.reachable_positions`, a walk of the
whole book: ``fen=False`` leaves it out); its ``move`` is then decoded on that board (castling as the king's move,
``e1g1``), else without one (castling as king takes rook, ``e1h1``, as a probe by key gives it). Every entry has a
row: ``a1a1`` entries (``move`` null), weight-0 entries, entries whose move is not legal in the position.

Columns after the shared ones: ``entry`` (its number in the file, from 0), ``raw_move`` (the 16-bit move as
stored), ``learn``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import chess

from ...engine.tables import arrow
from ..booktable import BOOK_BATCH, book_schema, row_batches
from .moves import decode_move

__all__ = ["polyglot_batches", "polyglot_schema"]


def polyglot_schema() -> Any:
    """The Arrow schema of a Polyglot book's table."""
    pa = arrow()
    return book_schema(pa.uint64(), [("entry", pa.uint32()), ("raw_move", pa.uint16()), ("learn", pa.uint32())])


def polyglot_batches(book: Iterable[Any], positions: Iterable[tuple[chess.Board, list[Any]]] = (), *,
                     batch_size: int = BOOK_BATCH) -> Iterator[Any]:
    """Every entry of ``book`` (a :class:`.read.PolyglotBook`) as rows of :func:`polyglot_schema`, in record
    batches of ``batch_size`` rows; ``positions``: the boards known for keys, with their entries
    (:func:`.read.reachable_positions`)."""
    return row_batches(_rows(book, positions), polyglot_schema(), batch_size)


def _rows(book: Iterable[Any], positions: Iterable[tuple[chess.Board, list[Any]]]) -> Iterator[tuple[Any, ...]]:
    boards: dict[int, chess.Board] = {}
    for reached, entries in positions:
        boards.setdefault(entries[0].key, reached)
    texts = {key: board.fen() for key, board in boards.items()}
    for entry in book:
        board: chess.Board | None = boards.get(entry.key)
        if entry.raw_move == 0:
            move = None
        elif board is not None:
            move = decode_move(board, entry.raw_move).uci()
        else:
            move = entry.move.uci()
        yield (entry.key, texts.get(entry.key), move, entry.weight, None, None, None, None, entry.number,
               entry.raw_move, entry.learn)
