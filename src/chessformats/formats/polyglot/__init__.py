"""Polyglot opening books: Zobrist keys, probing, iterating, writing.

>>> import chess
>>> from chessformats import polyglot
>>> with polyglot.open_book("book.bin") as book:          # doctest: +SKIP
...     for entry in book.find_all(chess.Board()):
...         print(entry.move, entry.weight)

The byte layout lives in :mod:`chessformats.schemas.polyglot`; the modules here add the chess meaning:
:mod:`.moves` (the 16-bit moves), :mod:`.legality` (which book moves are legal), :mod:`.read` (the
memory-mapped book), :mod:`.write` (writing and merging books). The keys are :mod:`chessformats.formats.zobrist`.
Books built from games (``make_book``) are :mod:`chessformats.books.polyglot`, re-exported by the public
facade :mod:`chessformats.polyglot`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.lazy import lazy_exports

if TYPE_CHECKING:
    from ..zobrist import zobrist_hash
    from .moves import decode_move, encode_move
    from .read import (
        ENTRY_DTYPE,
        Entry,
        PolyglotBook,
        PolyglotPosition,
        UnsortedBookWarning,
        open_book,
        reachable_positions,
    )
    from .write import build_records, merge_books, write_book

__all__ = [
    "ENTRY_DTYPE",
    "Entry",
    "PolyglotBook",
    "PolyglotPosition",
    "UnsortedBookWarning",
    "build_records",
    "decode_move",
    "encode_move",
    "merge_books",
    "open_book",
    "open_reader",
    "reachable_positions",
    "write_book",
    "zobrist_hash",
]

# names are imported when first used: a quick probe (``open_book(..., scan=False)``) never imports numpy
__getattr__, __dir__ = lazy_exports(__name__, {
    "..zobrist": ("zobrist_hash",),
    "moves": ("decode_move", "encode_move"),
    "read": ("ENTRY_DTYPE", "Entry", "PolyglotBook", "PolyglotPosition", "UnsortedBookWarning", "open_book",
             "open_reader", "reachable_positions"),
    "write": ("build_records", "merge_books", "write_book"),
})
