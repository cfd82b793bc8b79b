"""ChessBase CTG opening books: ``from chessformats import ctg``.

The format's own API (:mod:`chessformats.formats.ctg`: open, probe, iterate, write records) with what goes
through the format-neutral statistics model or another format (:mod:`chessformats.books.ctg`,
:mod:`chessformats.books.convert`): ``write_book`` also takes a :class:`~chessformats.books.stats.BookStats`,
``make_book``, ``records_from_stats``, ``to_bookstats``, ``from_bookstats`` and ``convert_book`` (any book
format to any other; ``to_polyglot``/``from_polyglot`` are its deprecated older names).
"""

from .books.convert import convert_book
from .books.convert import ctg_to_polyglot as to_polyglot
from .books.convert import polyglot_to_ctg as from_polyglot
from .books.ctg import from_bookstats, make_book, records_from_stats, to_bookstats, write_book
from .formats.ctg import (
    PAGE_SIZE,
    BookMove,
    CtgBook,
    MissingIndexWarning,
    PositionRecord,
    Rating,
    ctg_hash,
    decode_move,
    encode_move,
    header_numbers,
    lookup_entries,
    make_record,
    open_book,
    polyglot_weight,
    signature,
)

__all__ = [
    "PAGE_SIZE",
    "BookMove",
    "CtgBook",
    "MissingIndexWarning",
    "PositionRecord",
    "Rating",
    "convert_book",
    "ctg_hash",
    "decode_move",
    "encode_move",
    "from_bookstats",
    "from_polyglot",
    "header_numbers",
    "lookup_entries",
    "make_book",
    "make_record",
    "open_book",
    "polyglot_weight",
    "records_from_stats",
    "signature",
    "to_bookstats",
    "to_polyglot",
    "write_book",
]
