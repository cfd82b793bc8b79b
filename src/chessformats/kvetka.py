"""Kvetka opening books: ``from chessformats import kvetka``.

The format's own API (:mod:`chessformats.formats.kvetka`: open, probe, iterate, write elements) with what goes
through the format-neutral statistics model or another format (:mod:`chessformats.books.kvetka`,
:mod:`chessformats.books.convert`): ``write_book`` also takes a :class:`~chessformats.books.stats.BookStats`,
``make_book``, ``elements_from_stats``, ``filter_stats``, ``pgn_sources``, ``to_bookstats``, ``from_bookstats``
and ``convert_book`` (any book format to any other; ``convert`` is its deprecated older name).
"""

from .books.convert import convert, convert_book
from .books.kvetka import elements_from_stats, from_bookstats, make_book, pgn_sources, to_bookstats, write_book
from .books.tree import filter_stats
from .formats.kvetka import (
    BLOCK_SIZE,
    DEFAULT_FILE_LIMIT,
    KEY_SIZE,
    Element,
    KeyOverflowError,
    KsfFile,
    KvetkaBook,
    KvetkaGame,
    KvetkaMove,
    KvetkaSource,
    Opening,
    ProbeResult,
    SourceGame,
    WriteResult,
    book_files,
    decode_key,
    decode_move,
    encode_move,
    header_size,
    ksf_bytes,
    open_book,
    parse_opening,
    position_key,
    toc_size,
)

__all__ = [
    "BLOCK_SIZE",
    "DEFAULT_FILE_LIMIT",
    "KEY_SIZE",
    "Element",
    "KeyOverflowError",
    "KsfFile",
    "KvetkaBook",
    "KvetkaGame",
    "KvetkaMove",
    "KvetkaSource",
    "Opening",
    "ProbeResult",
    "SourceGame",
    "WriteResult",
    "book_files",
    "convert",
    "convert_book",
    "decode_key",
    "decode_move",
    "elements_from_stats",
    "encode_move",
    "filter_stats",
    "from_bookstats",
    "header_size",
    "ksf_bytes",
    "make_book",
    "open_book",
    "parse_opening",
    "pgn_sources",
    "position_key",
    "to_bookstats",
    "toc_size",
    "write_book",
]
