"""Opening books as tables (``chessformats[arrow]``): one row per stored position and move, the same columns for
every format, in Arrow record batches.

The columns every book table has, in this order (the contract's names, :mod:`chessformats.engine.contract`):

- ``key``: the format's key of the position (Polyglot: the Zobrist hash, ``uint64``; CTG and Kvetka: the encoded
  position, ``binary``), as :meth:`book.key(board) <chessformats.contract.OpeningBook.key>` gives it;
- ``fen``: the position (CTG and Kvetka: the stored board, normalised so that white is to move; Polyglot: the
  position the key belongs to when it is reached from the start position through the book's moves, else null);
- ``move``: the move in UCI, as a move of that position (null for a Polyglot ``a1a1`` entry, or a move whose piece
  is missing);
- ``weight``: the move's weight as ``find_all`` gives it (Polyglot: stored; CTG and Kvetka: from the results of the
  position the move leads to);
- ``games``, ``wins``, ``draws``, ``losses``: the position's statistics for the side to move (null for Polyglot,
  which stores none).

Each format adds its own columns after these (:mod:`.polyglot.tables`, :mod:`.ctg.tables`, :mod:`.kvetka.tables`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..engine.tables import arrow

__all__ = ["BOOK_BATCH", "book_schema", "row_batches"]

BOOK_BATCH = 65_536
"""Rows per record batch by default."""


def book_schema(key: Any, extra: list[tuple[str, Any]]) -> Any:
    """The schema of a book table whose key has the Arrow type ``key``, with the format's ``extra`` columns."""
    pa = arrow()
    count = pa.uint32()
    return pa.schema([("key", key), ("fen", pa.string()), ("move", pa.string()), ("weight", count),
                      ("games", count), ("wins", count), ("draws", count), ("losses", count), *extra])


def row_batches(rows: Iterable[tuple[Any, ...]], schema: Any, batch_size: int = BOOK_BATCH) -> Iterator[Any]:
    """Rows (tuples in the schema's column order) as record batches of ``batch_size`` rows."""
    pa = arrow()
    pending: list[tuple[Any, ...]] = []
    for row in rows:
        pending.append(row)
        if len(pending) >= batch_size:
            yield _batch(pa, pending, schema)
            pending = []
    if pending:
        yield _batch(pa, pending, schema)


def _batch(pa: Any, rows: list[tuple[Any, ...]], schema: Any) -> Any:
    columns = list(zip(*rows, strict=True))
    return pa.RecordBatch.from_arrays([pa.array(column, type=field.type) for column, field in
                                       zip(columns, schema, strict=True)], schema=schema)
