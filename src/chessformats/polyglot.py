"""Polyglot opening books: ``from chessformats import polyglot``. See :mod:`chessformats.formats.polyglot`."""

from .formats.polyglot import (
    ENTRY_DTYPE,
    Entry,
    PolyglotBook,
    UnsortedBookWarning,
    build_records,
    decode_move,
    encode_move,
    open_book,
    weights_from_stats,
    write_book,
    zobrist_hash,
)

__all__ = [
    "ENTRY_DTYPE",
    "Entry",
    "PolyglotBook",
    "UnsortedBookWarning",
    "build_records",
    "decode_move",
    "encode_move",
    "open_book",
    "weights_from_stats",
    "write_book",
    "zobrist_hash",
]
