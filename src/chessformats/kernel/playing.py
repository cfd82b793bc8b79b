"""Moves played on a batch of positions: :func:`play` on a :class:`~.batch.Boards`, and the same on *rows* (one
``uint64`` array, a row per field: :func:`stack`, :func:`play_rows`, :func:`unstack`), the form a replay of many
games keeps between plies: a step is then a few numpy operations on one array (the pieces' bitboards updated as
one block), not one per field.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .batch import (
    CAPTURE,
    DOUBLE_PUSH,
    EN_PASSANT,
    KING_CASTLE,
    ORIGIN_SHIFT,
    PROMOTION,
    QUEEN_CASTLE,
    TARGET_SHIFT,
    Boards,
    square_of,
)
from .lookup import SQUARE_BB

__all__ = ["FIELDS", "Moves", "play", "play_rows", "prepare", "stack", "unstack"]

U64 = np.uint64
FIELDS = Boards._fields
"""The rows, in order: :class:`~.batch.Boards`'s fields (colours, the six pieces, turn, en-passant square,
castling rooks, halfmove clock, fullmove number)."""
_WHITE, _PIECES, _KINGS, _TURN, _EP, _CASTLING, _HALFMOVE, _FULLMOVE = 0, 2, 7, 8, 9, 10, 11, 12
_ROOKS = _PIECES + 3
_KEEP_AFTER_KING = np.array([0xFFFF_FFFF_FFFF_FF00, 0x00FF_FFFF_FFFF_FFFF], dtype=U64)
"""By the row of the colour that moved (0 white, 1 black): the castling rooks kept when its king moves."""
_SPECIAL = np.isin(np.arange(16), (DOUBLE_PUSH, KING_CASTLE, QUEEN_CASTLE, EN_PASSANT))
"""By flag: whether a move of it changes more than its origin and target square."""


def stack(boards: Boards) -> np.ndarray:
    """A batch as rows (``uint64``, shape ``(13, n)``)."""
    rows = np.empty((len(FIELDS), len(boards.turn)), dtype=U64)
    for row, array in zip(rows, boards, strict=True):
        row[...] = array
    return rows


def unstack(rows: np.ndarray) -> Boards:
    """Rows as a batch (the bitboards are views of the rows)."""
    return Boards._make([*rows[:_TURN], rows[_TURN] != 0, rows[_EP].astype(np.uint8), rows[_CASTLING],
                         rows[_HALFMOVE].astype(np.uint16), rows[_FULLMOVE].astype(np.uint16)])


def _castling_rook(castling: np.ndarray, rooks: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The square of the rook each castling code castles with (given the castling rooks and the rooks of its
    position): the castling rook on that side of the king."""
    codes = codes.astype(np.int64)
    king = codes >> ORIGIN_SHIFT & 63
    rights = castling & rooks & (U64(255) << (king & 56).astype(U64))
    king_bit = SQUARE_BB[king]
    above = rights & ~(king_bit | (king_bit - U64(1)))
    below = rights & (king_bit - U64(1))
    squares: np.ndarray = np.where((codes & 15) == KING_CASTLE, _msb(above), square_of(below))
    return squares


def _msb(bitboards: np.ndarray) -> np.ndarray:
    """The highest square of each bitboard (0 for an empty one)."""
    exponent = np.frexp(bitboards.astype(np.float64))[1] - 1  # exact: only the highest bit sets the exponent
    squares: np.ndarray = np.maximum(exponent, 0).astype(np.int64)
    return squares


def play(boards: Boards, codes: np.ndarray) -> Boards:
    """The positions after playing one move code in each, as python-chess's ``Board.push`` does (the codes are
    assumed legal: an illegal one gives some position, never an exception)."""
    return unstack(play_rows(stack(boards), prepare(codes)))


class Moves(NamedTuple):
    """Move codes with what playing them needs that does not depend on the position, one entry per move (sliced
    like an array by :meth:`take`)."""

    codes: np.ndarray
    from_bit: np.ndarray
    to_bit: np.ndarray
    flag: np.ndarray
    ep: np.ndarray
    """The en-passant square after the move (a double push), else 0."""
    cleared: np.ndarray
    """The squares the move empties: its origin and target, the pawn taken en passant, the castling rook (when
    known)."""
    lands: np.ndarray
    """The squares the mover's pieces land on: the target, the castling rook's square."""
    rook_to: np.ndarray
    """Where the castling rook lands."""
    capture: np.ndarray
    """The code's capture flag (a legal code has it exactly when it captures)."""
    rook_unknown: np.ndarray
    """Castling whose rook is found from the position (its castling rights)."""
    promotion: np.ndarray

    def take(self, index: slice) -> Moves:
        return Moves._make(array[index] for array in self)


def prepare(codes: np.ndarray, rooks: np.ndarray | None = None) -> Moves:
    """The :class:`Moves` of some codes; ``rooks``: the square of the rook each castling code castles with, when
    known beforehand (other entries are not read)."""
    codes = codes.astype(np.int64)
    origin, target, flag = codes >> ORIGIN_SHIFT & 63, codes >> TARGET_SHIFT & 63, codes & 15
    to_bit = SQUARE_BB.take(target)
    from_bit = SQUARE_BB.take(origin)
    cleared = from_bit | to_bit
    ep = np.zeros(len(codes), dtype=U64)
    rook_to = np.zeros(len(codes), dtype=U64)
    castle = flag >> 1 == 1  # KING_CASTLE or QUEEN_CASTLE
    rook_unknown = castle if rooks is None else np.zeros_like(castle)
    special = _SPECIAL.take(flag).nonzero()[0]  # double pushes, castling, en passant: the few that need more
    if len(special):
        kind, at = flag[special], target[special]
        doubles = special[kind == DOUBLE_PUSH]
        ep[doubles] = (origin[doubles] + at[kind == DOUBLE_PUSH]) >> 1
        if len(doubles) < len(special):
            taken = kind == EN_PASSANT
            cleared[special[taken]] |= SQUARE_BB.take(np.where(at[taken] >= 32, at[taken] - 8, at[taken] + 8) & 63)
            castles = special[kind >> 1 == 1]
            rook_to[castles] = SQUARE_BB.take((target[castles] & 56) + np.where(flag[castles] == KING_CASTLE, 5, 3))
            if rooks is not None:
                cleared[castles] |= SQUARE_BB.take(rooks[castles] & 63)
    return Moves(codes, from_bit, to_bit, flag, ep, cleared, to_bit | rook_to, rook_to, (flag & CAPTURE) != 0,
                 rook_unknown, flag >= PROMOTION)


def play_rows(rows: np.ndarray, moves: Moves) -> np.ndarray:
    """:func:`play` on rows (:func:`stack`) and prepared moves (:func:`prepare`): new rows."""
    from_bit, to_bit = moves.from_bit, moves.to_bit
    white = rows[_TURN]  # 1: white moves
    mover = white ^ U64(1)  # the row of the colour that moves: 0 white, 1 black
    moved = (rows[_PIECES:_TURN] & from_bit) != 0  # by piece kind: whether it is the one that moves
    keep = ~moves.cleared
    if moves.rook_unknown.any():  # the castling rook on that side of the king, from the castling rights
        which = moves.rook_unknown.nonzero()[0]
        keep[which] &= ~SQUARE_BB.take(_castling_rook(rows[_CASTLING, which], rows[_ROOKS, which],
                                                      moves.codes[which]))
    lands = moves.lands
    new = np.empty_like(rows)
    np.bitwise_and(rows[:_TURN], keep, out=new[:_TURN])
    new[_WHITE] |= lands * white
    new[_WHITE + 1] |= lands * mover
    new[_PIECES:_TURN] |= moved * to_bit
    new[_ROOKS] |= moves.rook_to
    if moves.promotion.any():  # the pawn becomes the piece of the flag (knight ... queen)
        promoted = moves.promotion.nonzero()[0]
        new[_PIECES, promoted] ^= to_bit[promoted]
        new[_PIECES + 1 + (moves.flag[promoted] & 3), promoted] |= to_bit[promoted]
    new[_TURN] = mover
    new[_EP] = moves.ep
    np.bitwise_and(rows[_CASTLING], keep, out=new[_CASTLING])
    kings = moved[_KINGS - _PIECES].nonzero()[0]
    new[_CASTLING, kings] &= _KEEP_AFTER_KING.take(mover[kings].view(np.int64))
    new[_HALFMOVE] = (rows[_HALFMOVE] + U64(1)) * ~(moved[0] | moves.capture)
    np.add(rows[_FULLMOVE], mover, out=new[_FULLMOVE])
    return new
