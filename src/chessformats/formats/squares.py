"""Squares, files, ranks, piece types and the start position, numbered as python-chess numbers them, for the
code that must not import python-chess to start (the book builder's batch replay, the Polyglot key tables).

Importing ``chess`` builds its attack tables (about 30 ms, a tenth of a small book build). These are plain
numbers: square ``a1`` = 0 .. ``h8`` = 63 (``8 * rank + file``), bitboard bit ``n`` = square ``n``, piece
types pawn 1 .. king 6, White ``True``. ``tests/formats/test_squares.py`` keeps every name equal to
python-chess's.
"""

from __future__ import annotations

__all__ = [
    "A1", "A8", "B1", "B8", "BB_FILES", "BB_RANKS", "BB_RANK_1", "BB_RANK_8", "BB_SQUARES", "BISHOP", "BLACK", "C1",
    "C8", "D1", "D8", "E1", "E8", "F1", "F8", "G1", "G8", "H1", "H8", "KING", "KNIGHT", "PAWN", "PIECE_NAMES",
    "QUEEN", "ROOK", "SQUARES", "START", "WHITE", "square", "square_file", "square_rank",
]

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(1, 7)
PIECE_NAMES = (None, "pawn", "knight", "bishop", "rook", "queen", "king")
"""By piece type: its name (index 0: none)."""
WHITE, BLACK = True, False

SQUARES = range(64)
A1, B1, C1, D1, E1, F1, G1, H1 = range(8)
A8, B8, C8, D8, E8, F8, G8, H8 = range(56, 64)
BB_SQUARES = tuple(1 << square for square in SQUARES)
BB_FILES = tuple(0x0101_0101_0101_0101 << file for file in range(8))
BB_RANKS = tuple(0xFF << (8 * rank) for rank in range(8))
BB_RANK_1, BB_RANK_8 = BB_RANKS[0], BB_RANKS[7]


def square(file: int, rank: int) -> int:
    """The square on ``file`` (0 = a) and ``rank`` (0 = first)."""
    return 8 * rank + file


def square_file(square: int) -> int:
    return square & 7


def square_rank(square: int) -> int:
    return square >> 3


START = {
    "white": BB_RANKS[0] | BB_RANKS[1], "black": BB_RANKS[6] | BB_RANKS[7], "pawns": BB_RANKS[1] | BB_RANKS[6],
    "knights": BB_SQUARES[1] | BB_SQUARES[6] | BB_SQUARES[57] | BB_SQUARES[62],
    "bishops": BB_SQUARES[C1] | BB_SQUARES[F1] | BB_SQUARES[C8] | BB_SQUARES[F8],
    "rooks": BB_SQUARES[A1] | BB_SQUARES[H1] | BB_SQUARES[A8] | BB_SQUARES[H8],
    "queens": BB_SQUARES[D1] | BB_SQUARES[D8], "kings": BB_SQUARES[E1] | BB_SQUARES[E8],
    "castling": BB_SQUARES[A1] | BB_SQUARES[H1] | BB_SQUARES[A8] | BB_SQUARES[H8],
}
"""The standard start position: the bitboards of :class:`chess.Board` (``occupied_co`` as white/black) and its
castling rights (as rook squares, like ``chess.Board.castling_rights``); White to move, no en-passant square."""
