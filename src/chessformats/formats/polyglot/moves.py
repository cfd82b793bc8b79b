"""Polyglot's 16-bit moves: decoding and encoding (castling stored as king-takes-rook), and which raw moves
cannot be Polyglot moves at all.

The bit fields and the packing of raw moves are :mod:`.packing` (numbers only: no python-chess); this
module adds :class:`chess.Move`.
"""

from __future__ import annotations

import chess

from ...kernel.newboard import chess960_if_needed
from .packing import (
    FROM_BITS,
    PIECE_OF_PROMOTION,
    PROMOTION_BITS,
    TO_BITS,
    field_value,
    move_problem,
    move_problems,
    pack_moves,
)

__all__ = ["KING_STEPS", "KING_TAKES_ROOK", "MOVES", "decode_move", "encode_move", "move_problem", "move_problems",
           "pack_moves"]


def _square(raw: int, end: str) -> chess.Square:
    return chess.square(field_value(raw, f"{end}_file"), field_value(raw, f"{end}_rank"))


class _MoveTable(dict[int, chess.Move]):
    """Raw move -> :class:`chess.Move` as stored (castling as king-takes-rook, 0 as the null move), filled
    on first use."""

    def __missing__(self, raw: int) -> chess.Move:
        if raw == 0:
            move = chess.Move.null()
        else:
            move = chess.Move(_square(raw, "from"), _square(raw, "to"),
                              PIECE_OF_PROMOTION.get(field_value(raw, "promotion")))  # undefined values: none
        self[raw] = move
        return move


MOVES = _MoveTable()
"""Raw move -> :class:`chess.Move` exactly as stored; the decoding of every raw move outside
:data:`KING_TAKES_ROOK` (the probe's hot path reads it directly)."""
KING_STEPS = {FROM_BITS[origin] | TO_BITS[step]: FROM_BITS[origin] | TO_BITS[rook] for origin, step, rook in (
    (chess.E1, chess.G1, chess.H1), (chess.E1, chess.C1, chess.A1), (chess.E8, chess.G8, chess.H8),
    (chess.E8, chess.C8, chess.A8))}
"""Standard castling as the king's two-file step (raw e1g1, e1c1, e8g8, e8c8) -> as Polyglot stores it, king takes
rook (e1h1, e1a1, e8h8, e8a8): the writer's reading of these moves where it has a position's key and no board."""
KING_TAKES_ROOK = frozenset(KING_STEPS.values())
"""The raw moves that mean castling when a king stands on their origin: e1h1, e1a1, e8h8, e8a8."""


def decode_move(board: chess.Board | None, raw: int) -> chess.Move:
    """The :class:`chess.Move` of a raw 16-bit move played from ``board``.

    Without a board (``None``) the move is as stored (castling as king-takes-rook, ``a1a1`` as the null
    move). With a board, king-takes-rook becomes standard castling when a king stands on e1/e8 and the board
    is not Chess960 (where python-chess itself writes castling as king-takes-rook).
    """
    move = MOVES[raw]
    if board is not None and not board.chess960 and move.from_square in (chess.E1, chess.E8):
        if move.to_square in (chess.H1, chess.A1, chess.H8, chess.A8) and board.kings & chess.BB_SQUARES[
                move.from_square]:
            file = 6 if chess.square_file(move.to_square) == 7 else 2
            return chess.Move(move.from_square, chess.square(file, chess.square_rank(move.from_square)))
    return move


def encode_move(board: chess.Board | None, move: chess.Move) -> int:
    """The raw 16-bit move of ``move`` played from ``board``; with a board (not ``None``), castling is stored
    as king-takes-rook. A board whose castling rights are possible only in Chess960 is read as a Chess960 board
    (:func:`~chessformats.kernel.newboard.chess960_if_needed`: its castling is king-takes-rook already), flag or not
    (a board a caller made from a FEN without ``chess960=True`` lacks it)."""
    if not move:
        return 0
    from_square, to_square = move.from_square, move.to_square
    if board is not None and board.is_castling(move) and not chess960_if_needed(board).chess960:
        rook_file = 7 if chess.square_file(to_square) > chess.square_file(from_square) else 0
        to_square = chess.square(rook_file, chess.square_rank(from_square))
    if move.drop is not None or from_square == to_square:
        raise ValueError(f"a Polyglot book cannot store the move {move.uci()}")
    return PROMOTION_BITS[move.promotion or 0] | FROM_BITS[from_square] | TO_BITS[to_square]


