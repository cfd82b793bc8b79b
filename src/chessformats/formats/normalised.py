"""The normalised board and the move codes of CTG and Kvetka books: what the two formats share.

Both formats store a position as the side to move sees it: colours flipped (and ranks mirrored) when
black is to move, then files mirrored (a<->h) when nobody can castle and the white king stands on files
a-d. The squares are coded one prefix code word each, file by file (a1, a2, ..., a8, b1, ..., h8:
:mod:`chessformats.schemas.squares`), and the castling flags follow in a fixed order. A book move is one
byte that names the n-th piece of a kind, counted in that square order, and its step
(:mod:`chessformats.schemas.movecode`); each format has its own table of codes (:class:`MoveTable`).

Nothing is moved to normalise a board: the real board is read in the normalised board's order (squares XOR
``0x38`` when the colours are flipped, ``0x07`` when the files are mirrored), the side to move's pieces
getting the white code words. What differs between the formats (CTG's header byte and padding rule, the
Kvetka key's fixed length; en passant when a capture is legal or only pseudo-legal) stays in each format.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import chess

from ..kernel.newboard import new_board
from ..schemas.movecode import MoveCode
from ..schemas.squares import CASTLING, SQUARE_CODE, SQUARE_NAMES

__all__ = [
    "CASTLING_BITS",
    "CASTLING_NAMES",
    "CODING_ORDER",
    "CORNERS",
    "MoveTable",
    "Normalised",
    "castling_rights",
    "en_passant_file",
    "normalise",
    "occupied_squares",
    "square_board",
    "white_pieces",
]

CODING_ORDER: tuple[chess.Square, ...] = tuple(chess.parse_square(name) for name in SQUARE_NAMES)
"""The squares in coding order: a1, a2, ..., a8, b1, ..., h8."""

CASTLING_NAMES: tuple[str, ...] = tuple(sub.name for sub in CASTLING.subcons)
"""The castling flags in stream order (the first is the highest bit)."""

CASTLING_BITS = len(CASTLING_NAMES)


def _corner(name: str) -> chess.Square:
    """The rook's corner of a castling flag: ``white_short`` is h1, ``black_long`` a8."""
    colour, side = name.split("_")
    return chess.square(7 if side == "short" else 0, 0 if colour == "white" else 7)


CORNERS: dict[str, chess.Square] = {name: _corner(name) for name in CASTLING_NAMES}
"""The corner of each castling flag, on the normalised board."""

_PIECE_OF_SYMBOL: dict[str, chess.Piece | None] = {
    name: None if name == "empty" else chess.Piece(chess.PIECE_NAMES.index(name.split("_")[1]),
                                                   name.split("_")[0] == "white")
    for name in SQUARE_CODE.codes
}
_PIECE_TYPES = {chess.piece_name(piece_type): piece_type for piece_type in chess.PIECE_TYPES}
# the coding order read on the real board, by (0x38 if colours flipped) | (0x07 if files mirrored)
_CODING_ORDERS = {xor: tuple(square ^ xor for square in CODING_ORDER) for xor in (0, 0x07, 0x38, 0x3F)}
_EMPTY_BITS = SQUARE_CODE.bits("empty")
# code words by piece type: (side to move, other side)
_CELL_BITS = [("", "")] + [(SQUARE_CODE.bits(f"white_{chess.piece_name(t)}"),
                            SQUARE_CODE.bits(f"black_{chess.piece_name(t)}")) for t in chess.PIECE_TYPES]
# castling flags in stream order as real corners, by "colours flipped" (the side to move is white when stored)
_CASTLING_CORNERS = (tuple(chess.BB_SQUARES[CORNERS[name]] for name in CASTLING_NAMES),
                     tuple(chess.BB_SQUARES[CORNERS[name] ^ 0x38] for name in CASTLING_NAMES))


class Normalised(NamedTuple):
    """A board as both formats store it (before each format's own flags and padding)."""

    squares: int
    """The code words of the 64 squares in coding order as one number (the first square's word highest)."""
    bits: int
    """Bits of ``squares``."""
    castling: int
    """The castling flags in stream order, the first one highest (0: nobody can castle)."""
    flipped: bool
    """Black is to move: colours flipped."""
    mirrored: bool
    """Files mirrored (nobody can castle, the side to move's king on files a-d)."""
    own: tuple[int, ...]
    """Bitboards of the side to move's pieces by piece type (index 1-6), on the real board."""

    @property
    def xor(self) -> int:
        """What maps a square between the real and the normalised board (either way)."""
        return (0x38 if self.flipped else 0) | (0x07 if self.mirrored else 0)


_MEMO: dict[tuple[int | bool, ...], Normalised] = {}
_MEMO_SIZE = 4096


def normalise(board: chess.Board) -> Normalised:
    """The square codes, castling flags and transformation of ``board``.

    Remembered for the last few thousand boards (by their bitboards, side to move and castling rights): a
    writer or a reader codes several moves of one board, and each code needs the board's normalisation.
    """
    state = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
             board.occupied_co[chess.WHITE], board.turn, board.castling_rights, board.chess960)
    known = _MEMO.get(state)
    if known is None:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        known = _MEMO[state] = _normalise(board)
    return known


def _normalise(board: chess.Board) -> Normalised:
    mover = board.occupied_co[board.turn]
    flipped = board.turn == chess.BLACK
    rights = board.clean_castling_rights() & chess.BB_CORNERS if board.castling_rights else 0
    king = board.kings & mover
    mirrored = not rights and king != 0 and (king.bit_length() - 1) & 7 < 4
    cells = [_EMPTY_BITS] * 64  # code words as bit strings: joining them is the fastest concatenation
    own = [0]
    for piece_type, bb in ((chess.PAWN, board.pawns), (chess.KNIGHT, board.knights), (chess.BISHOP, board.bishops),
                           (chess.ROOK, board.rooks), (chess.QUEEN, board.queens), (chess.KING, board.kings)):
        mover_word, other_word = _CELL_BITS[piece_type]
        squares = bb & mover
        own.append(squares)
        while squares:
            low = squares & -squares
            cells[low.bit_length() - 1] = mover_word
            squares ^= low
        squares = bb & ~mover
        while squares:
            low = squares & -squares
            cells[low.bit_length() - 1] = other_word
            squares ^= low
    bits = "".join([cells[square] for square in _CODING_ORDERS[(0x38 if flipped else 0) | (0x07 if mirrored else 0)]])
    castling = 0
    if rights:
        for corner in _CASTLING_CORNERS[flipped]:
            castling = (castling << 1) | (1 if rights & corner else 0)
    return Normalised(int(bits, 2), len(bits), castling, flipped, mirrored, tuple(own))


def en_passant_file(board: chess.Board, mirrored: bool, *, legal: bool) -> int | None:
    """The file (0 = a) of the en-passant square on the normalised board, when a pawn can capture there.

    ``legal``: only when the capture is legal (CTG); otherwise when a pawn stands ready, legal or not (Kvetka).
    """
    if board.ep_square is None:
        return None
    if not (board.has_legal_en_passant() if legal else board.has_pseudo_legal_en_passant()):
        return None
    return 7 - (board.ep_square & 7) if mirrored else board.ep_square & 7


_CODING_BITS = tuple(chess.BB_SQUARES[square] for square in CODING_ORDER)


def occupied_squares(symbols: Sequence[str]) -> chess.Bitboard:
    """The occupied squares (a bitboard) of 64 square symbols in coding order, without making the board."""
    return sum([bit for bit, symbol in zip(_CODING_BITS, symbols, strict=True) if symbol != "empty"])


def square_board(symbols: Sequence[str]) -> chess.Board:
    """The board of 64 square symbols in coding order (white to move, no castling rights, no en passant)."""
    by_type = [0] * 7
    by_colour = [0, 0]
    for bit, symbol in zip(_CODING_BITS, symbols, strict=True):
        piece = _PIECE_OF_SYMBOL[symbol]
        if piece is not None:
            by_type[piece.piece_type] |= bit
            by_colour[piece.color] |= bit
    pawns, knights, bishops, rooks, queens, kings = by_type[1:]
    return new_board(by_colour[1], by_colour[0], pawns, knights, bishops, rooks, queens, kings)


def castling_rights(flags: int) -> int:
    """The castling rights (rook corners) of the normalised board from the flags in stream order."""
    rights = 0
    for position, name in enumerate(CASTLING_NAMES):
        if flags >> (CASTLING_BITS - 1 - position) & 1:
            rights |= chess.BB_SQUARES[CORNERS[name]]
    return rights


def white_pieces(board: chess.Board) -> tuple[int, ...]:
    """The ``own`` bitboards of a stored (normalised, white to move) board, for :meth:`MoveTable.move`."""
    return (0, *(board.pieces_mask(piece_type, chess.WHITE) for piece_type in chess.PIECE_TYPES))


def _nth_piece(bb: int, number: int) -> chess.Square | None:
    """The ``number``-th (from 1) square of ``bb`` in coding order (a1, a2, ..., a8, b1, ...)."""
    transposed = chess.flip_diagonal(bb)  # bit 8 * file + rank: coding order
    for _ in range(number - 1):
        transposed &= transposed - 1
    if not transposed:
        return None
    index = (transposed & -transposed).bit_length() - 1
    return chess.square(index >> 3, index & 7)


def _normalised_bb(bb: int, flipped: bool, mirrored: bool) -> int:
    """A bitboard of the real board on the normalised board."""
    if flipped:
        bb = chess.flip_vertical(bb)
    if mirrored:
        bb = chess.flip_horizontal(bb)
    return bb


class MoveTable:
    """A format's move codes (its schema's ``MOVE_CODES``): a code byte <-> the move it stands for."""

    def __init__(self, codes: Iterable[MoveCode]) -> None:
        self.steps: dict[int, tuple[chess.PieceType, int, int, int]] = {
            m.code: (_PIECE_TYPES[m.piece], m.number, m.dx, m.dy) for m in codes
        }
        """Code -> (piece type, number of the piece from 1, files right, ranks up), steps modulo 8."""
        self._codes = {step: code for code, step in self.steps.items()}

    def __contains__(self, code: object) -> bool:
        return code in self.steps

    def decode(self, code: int, own: Sequence[int], flipped: bool = False,
               mirrored: bool = False) -> tuple[chess.Square, chess.Square, chess.PieceType | None] | None:
        """``(from, to, promotion)`` on the normalised board; ``None`` when the code's piece is not there.

        ``own``: the side to move's pieces by type on the real board, which ``flipped``/``mirrored`` normalise
        (:func:`white_pieces` for a stored board). A pawn that reaches the last rank becomes a queen. Raises
        :class:`KeyError` for a byte that is not a code of the table.
        """
        piece_type, number, dx, dy = self.steps[code]
        origin = _nth_piece(_normalised_bb(own[piece_type], flipped, mirrored), number)
        if origin is None:
            return None
        target = chess.square((chess.square_file(origin) + dx) & 7, (chess.square_rank(origin) + dy) & 7)
        promotion = chess.QUEEN if piece_type == chess.PAWN and chess.square_rank(target) == 7 else None
        return origin, target, promotion

    def move(self, code: int, own: Sequence[int], flipped: bool = False, mirrored: bool = False) -> chess.Move | None:
        """The move of the real board that ``code`` stands for (``None``: its piece is not there); arguments as
        for :meth:`decode` (a stored board: the move on it)."""
        decoded = self.decode(code, own, flipped, mirrored)
        if decoded is None:
            return None
        origin, target, promotion = decoded
        xor = (0x38 if flipped else 0) | (0x07 if mirrored else 0)
        return chess.Move(origin ^ xor, target ^ xor, promotion)

    def encode(self, norm: Normalised, move: chess.Move, piece_type: chess.PieceType | None) -> int | None:
        """The code of ``move`` of the real board (``piece_type``: the piece on its from-square), or ``None``.

        ``None`` when the table has no code for it: not a piece of the side to move, a piece beyond the
        numbers the table counts, a promotion to anything but a queen, a drop.
        """
        if piece_type is None or move.drop is not None:
            return None
        xor = norm.xor
        origin = move.from_square ^ xor
        target = move.to_square ^ xor
        if piece_type == chess.PAWN and chess.square_rank(target) == 7:
            if move.promotion != chess.QUEEN:
                return None  # both formats promote to a queen only
        elif move.promotion is not None:
            return None
        bb = chess.flip_diagonal(_normalised_bb(norm.own[piece_type], norm.flipped, norm.mirrored))
        mask = 1 << (8 * chess.square_file(origin) + chess.square_rank(origin))
        if not bb & mask:
            return None
        number = bin(bb & (mask - 1)).count("1") + 1
        dx = (chess.square_file(target) - chess.square_file(origin)) & 7
        dy = (chess.square_rank(target) - chess.square_rank(origin)) & 7
        return self._codes.get((piece_type, number, dx, dy))
