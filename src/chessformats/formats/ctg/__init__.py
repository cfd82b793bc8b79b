"""ChessBase CTG opening books: probing, iterating and writing.

>>> import chess
>>> from chessformats import ctg
>>> with ctg.open_book("book.ctg") as book:              # doctest: +SKIP
...     position = book.probe(chess.Board())
...     for move in position.moves:
...         print(move.move, move.symbol)
...     print(position.games, position.wins, position.draws, position.losses)

The byte layout lives in :mod:`chessformats.schemas.ctg` (square codes in :mod:`chessformats.schemas.squares`,
move codes in :mod:`chessformats.schemas.movecode`); this package adds the chess meaning, one module per
concern: :mod:`.position` (the encoded normalised position, the move codes, the hash and the ``.cto``
lookup), :mod:`.model` (records), :mod:`.read` (:class:`CtgBook`) and :mod:`.write`. The normalised board
is shared with Kvetka (:mod:`chessformats.formats.normalised`). Books from the format-neutral statistics
model and conversions to and from other formats are in :mod:`chessformats.books` (and the public
:mod:`chessformats.ctg`).
"""

from .model import PAGE_SIZE, BookMove, PositionRecord, Rating, make_record, polyglot_weight
from .position import ctg_hash, decode_move, encode_move, lookup_entries, signature
from .read import CtgBook, MissingIndexWarning, header_numbers, open_book
from .write import write_book

__all__ = [
    "PAGE_SIZE",
    "BookMove",
    "CtgBook",
    "MissingIndexWarning",
    "PositionRecord",
    "Rating",
    "ctg_hash",
    "decode_move",
    "encode_move",
    "header_numbers",
    "lookup_entries",
    "make_record",
    "open_book",
    "polyglot_weight",
    "signature",
    "write_book",
]
