"""Which book moves are legal: ``board.is_legal`` for several moves of one position, on the chess kernel's
one-position functions (:mod:`chessformats.kernel.scalar`), sharing the work that depends only on the position."""

from __future__ import annotations

from collections.abc import Callable

import chess

from ...kernel.scalar import attacked, attacks, king_safe_after, of_board, pawn_moves
from ...kernel.tables import RAYS, SQUARES

__all__ = ["legality_checker"]

_LAST_RANK = (chess.BB_RANK_1, chess.BB_RANK_8)
"""By side to move: the rank its pawns promote on."""


def legality_checker(board: chess.Board) -> Callable[[chess.Move], bool]:
    """``board.is_legal`` for several moves of one position, sharing the work that depends only on it.

    Out of check, a move is legal when it is pseudo-legal and does not expose the king. Pawn and piece moves
    are tested directly on the bitboards (a book move is one move, so generating every move of the position,
    as python-chess's pseudo-legality test does for pawns, is wasted work), the king's safety only when the
    piece stands on a line from its king that holds an enemy slider of the right kind
    (:func:`~chessformats.kernel.scalar.king_safe_after`); king moves, castling, en passant, drops, variants
    and positions in check go to ``board.is_legal``. The tests compare this with ``board.is_legal`` on every
    square pair.
    """
    turn = board.turn
    own = board.occupied_co[turn]
    king_bb = board.kings & own
    if type(board) is not chess.Board or not king_bb or king_bb & (king_bb - 1):
        return board.is_legal
    king = king_bb.bit_length() - 1
    pieces, colour = of_board(board)
    if attacked(pieces, colour[not turn], king, not turn, board.occupied):
        return board.is_legal
    squares, rays = SQUARES, RAYS

    def legal(move: chess.Move) -> bool:
        # Beyond the piece lists (above), everything is read from the board when needed: a probe checks only one
        # to a few moves.
        origin, target = move.from_square, move.to_square
        origin_mask, target_mask = squares[origin], squares[target]
        ep = board.ep_square
        special = board.kings | (squares[ep] if ep is not None else 0)  # king moves, castling, en passant
        if not own & origin_mask or target_mask & own or move.drop:
            return (origin_mask | target_mask) & special != 0 and board.is_legal(move)
        if (origin_mask | target_mask) & special:
            return board.is_legal(move)
        occupied = board.occupied
        if board.pawns & origin_mask:
            piece = chess.PAWN
            if (move.promotion is not None) != (target_mask & _LAST_RANK[turn] != 0):
                return False
            ok = pawn_moves(turn, origin, occupied, colour[not turn]) & target_mask != 0
        else:
            piece = board.piece_type_at(origin) or 0
            ok = move.promotion is None and attacks(piece, origin, occupied) & target_mask != 0
        if not ok:
            return False
        # a piece can only be pinned on a line from the king that holds an enemy slider of the right kind
        line = rays[king][origin]
        if not line:
            return True
        straight = (origin & 7) == (king & 7) or (origin >> 3) == (king >> 3)
        pinners = board.occupied_co[not turn] & (board.queens | (board.rooks if straight else board.bishops))
        if not line & pinners:
            return True
        return king_safe_after(pieces, colour, None, origin, target, piece, turn)

    return legal
