"""Kvetka opening books: probing, iterating and writing.

>>> import chess
>>> from chessformats import kvetka
>>> with kvetka.open_book("mybook") as book:            # doctest: +SKIP
...     entry = book.probe(chess.Board())
...     print(entry.moves, entry.wins, entry.draws, entry.losses, entry.opening)

The byte layout lives in :mod:`chessformats.schemas.kvetka` (square codes in
:mod:`chessformats.schemas.squares`, move codes in :mod:`chessformats.schemas.movecode`); this package adds
the chess meaning, one module per concern: :mod:`.key` (the 22-byte key of the normalised position, the
move codes), :mod:`.model` (elements, ECO comments), :mod:`.sources` (the ``.ksf`` file), :mod:`.read`
(:class:`KvetkaBook`, the ``.kin`` lookup) and :mod:`.write`. The normalised board is shared with CTG
(:mod:`chessformats.formats.normalised`). Books from the format-neutral statistics model and conversions
to and from other formats are in :mod:`chessformats.books` (and the public :mod:`chessformats.kvetka`).
"""

from .key import KEY_SIZE, KeyOverflowError, decode_key, decode_move, encode_move, position_key
from .model import Element, KvetkaMove, Opening, ProbeResult, parse_opening
from .read import BLOCK_SIZE, KvetkaBook, book_files, header_size, open_book
from .sources import KsfFile, KvetkaGame, KvetkaSource, SourceGame, ksf_bytes, toc_count, toc_size
from .write import ALL_PLIES, DEFAULT_FILE_LIMIT, WriteResult, write_book

__all__ = [
    "ALL_PLIES",
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
    "decode_key",
    "decode_move",
    "encode_move",
    "header_size",
    "ksf_bytes",
    "open_book",
    "parse_opening",
    "position_key",
    "toc_count",
    "toc_size",
    "write_book",
]
