"""Monty's u16 move codes: the fields and flags (from :data:`chessformats.schemas.monty.MOVE` and ``FLAG``),
and decoding a code into a :class:`chess.Move`."""

from __future__ import annotations

from collections.abc import Mapping

import chess

from ...engine.layout import bit_fields
from ...schemas import monty as schema

__all__ = [
    "CAPTURE", "DOUBLE_PUSH", "EN_PASSANT", "FLAG_MASK", "KING_CASTLE", "MOVES", "MOVE_FIELDS", "PROMOTION",
    "PROMOTION_CAPTURE_FLAGS", "PROMOTION_FLAGS", "QUEEN_CASTLE", "QUIET", "SHIFT_DESTINATION", "SHIFT_SOURCE",
    "SQUARE_MASK", "decode_move", "move_of",
]

MOVE_FIELDS = bit_fields(schema.MOVE)
_FLAGS = {name: value for value, (name, _) in schema.FLAG.meanings.items()}
QUIET, DOUBLE_PUSH, CAPTURE = _FLAGS["quiet"], _FLAGS["double_push"], _FLAGS["capture"]
EN_PASSANT = _FLAGS["en_passant"]
KING_CASTLE, QUEEN_CASTLE = _FLAGS["king_castle"], _FLAGS["queen_castle"]
PROMOTION = _FLAGS["knight_promotion"]  # knight, bishop, rook, queen follow; + CAPTURE for capturing ones
PROMOTION_FLAGS = tuple(range(PROMOTION, PROMOTION + 4))
PROMOTION_CAPTURE_FLAGS = tuple(flag + CAPTURE for flag in PROMOTION_FLAGS)
SHIFT_SOURCE, SHIFT_DESTINATION = MOVE_FIELDS["source"].shift, MOVE_FIELDS["destination"].shift
SQUARE_MASK, FLAG_MASK = MOVE_FIELDS["source"].mask, MOVE_FIELDS["flag"].mask
# the move generator writes codes as ``origin << 10 | target << 4 | flag``
assert MOVE_FIELDS["flag"].shift == 0 and SHIFT_SOURCE == 10 and SHIFT_DESTINATION == 4


class _MoveTable(dict[int, chess.Move]):
    """u16 code -> :class:`chess.Move` as the code reads without a board (castling: king to g/c file)."""

    def __missing__(self, code: int) -> chess.Move:
        flag = code & FLAG_MASK
        promotion = (flag & 3) + chess.KNIGHT if flag & PROMOTION else None
        move = self[code] = chess.Move(code >> SHIFT_SOURCE, (code >> SHIFT_DESTINATION) & SQUARE_MASK, promotion)
        return move


MOVES = _MoveTable()
"""u16 code -> :class:`chess.Move` as the code reads without a board, filled on first use."""


def decode_move(board: chess.Board | None, code: int) -> chess.Move:
    """The :class:`chess.Move` of a u16 move code played from ``board``.

    Without a board (``None``) castling reads as the king's move to the g- or c-file. With a Chess960 board
    (``board.chess960``) castling becomes python-chess's king-takes-own-rook move, the rook found on the
    king's rank on that side (outermost rook with a castling right).
    """
    flag = code & FLAG_MASK
    if board is not None and board.chess960 and flag in (KING_CASTLE, QUEEN_CASTLE):
        king = code >> SHIFT_SOURCE
        rooks = board.castling_rights & board.rooks & chess.BB_RANKS[chess.square_rank(king)]
        side = rooks & (chess.BB_ALL << (king + 1) if flag == KING_CASTLE else chess.BB_SQUARES[king] - 1)
        if side:
            rook = side.bit_length() - 1 if flag == KING_CASTLE else (side & -side).bit_length() - 1
            return chess.Move(king, rook)
    return MOVES[code]


def move_of(code: int, board: chess.Board, rooks: Mapping[int, int]) -> chess.Move:
    """The move of a code from :func:`~.movegen.legal_codes` (``rooks``: the castling rooks it reported)."""
    if board.chess960 and code in rooks:
        return chess.Move(code >> SHIFT_SOURCE, rooks[code])
    return MOVES[code]
