"""Polyglot books over the kernel's batches of positions (:class:`~chessformats.kernel.batch.Boards`): the Zobrist
keys of many positions at once (:func:`keys`), and
Polyglot's raw moves to and from the kernel's move codes (:func:`entry_queries`, :func:`raw_moves`).

The same numbers as :func:`chessformats.formats.zobrist.zobrist_hash` and
:func:`chessformats.formats.polyglot.moves.decode_move`/``encode_move`` for standard chess (the batches do not
play Chess960), with numpy operations over the whole batch instead of a Python loop per position.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...kernel.batch import KING_CASTLE, ORIGIN_SHIFT, PROMOTION, QUEEN_CASTLE, TARGET_SHIFT, Boards, pseudo_en_passant
from ...schemas import polyglot_randoms as randoms
from ..zobrist import CASTLE_TABLE, byte_tables

__all__ = ["entry_queries", "keys", "move_keys", "raw_moves"]

U64 = np.uint64
Array = np.ndarray[Any, Any]
_E1, _E8 = 4, 60
_RANK_1, _RANK_8 = U64(0xFF), U64(0xFF << 56)


@functools.cache
def _byte_tables() -> Array:
    """By ``(2 * (piece type - 1) + white) * 8 + rank``, then the byte of that rank's occupancy: the XOR of the
    piece randoms of the squares set (:func:`~..zobrist.byte_tables` of all twelve kinds)."""
    return np.array(byte_tables(range(12)), dtype=U64)


_CASTLE = np.array(CASTLE_TABLE, dtype=U64)
_EN_PASSANT = np.array(randoms.RANDOM_EN_PASSANT, dtype=U64)
_TURN = U64(randoms.RANDOM_TURN)


def keys(boards: Boards) -> Array:
    """The Polyglot key (``uint64``) of every position of a batch (standard chess)."""
    tables = _byte_tables()
    count = len(boards.turn)
    key = np.zeros(count, dtype=U64)
    for type_index, pieces in enumerate((boards.pawns, boards.knights, boards.bishops, boards.rooks, boards.queens,
                                         boards.kings)):
        for is_white, colour in ((0, boards.black), (1, boards.white)):
            bits = pieces & colour
            base = (2 * type_index + is_white) * 8
            for rank in range(8):
                byte = ((bits >> U64(8 * rank)) & U64(255)).astype(np.intp)
                key ^= tables[base + rank][byte]
    white, black, kings, rooks = boards.white, boards.black, boards.kings, boards.rooks
    rights = boards.castling & rooks & (np.where((kings & white & U64(1 << _E1)) != 0, white & _RANK_1, U64(0))
                                        | np.where((kings & black & U64(1 << _E8)) != 0, black & _RANK_8, U64(0)))
    index = (((rights >> U64(7)) & U64(1)) | ((rights & U64(1)) << U64(1)) | ((rights >> U64(61)) & U64(4))
             | ((rights >> U64(53)) & U64(8))).astype(np.intp)
    key ^= _CASTLE[index]
    ep = pseudo_en_passant(boards)
    key[ep] ^= _EN_PASSANT[boards.ep_square[ep].astype(np.intp) & 7]
    key[boards.turn] ^= _TURN
    return key


def move_keys(codes: Array) -> Array:
    """A kernel move code as ``origin << 9 | target << 3 | promotion`` (promotion: python-chess's piece type, 0
    for none): what tells a move apart in a position, flags aside (``int64``)."""
    codes = codes.astype(np.int64)
    flag = codes & 15
    promotion = np.where(flag >= PROMOTION, (flag & 3) + 2, 0)
    found: Array = (codes >> ORIGIN_SHIFT & 63) << 9 | (codes >> TARGET_SHIFT & 63) << 3 | promotion
    return found


def entry_queries(boards: Boards, index: Array, raw: Array) -> Array:
    """The :func:`move_keys` of raw Polyglot moves played in the positions ``index`` of ``boards``, as
    :func:`~.moves.decode_move` reads them with a board: king-takes-rook from e1/e8 with a king there is castling
    (the king's two-file step); an undefined promotion value is no promotion."""
    raw = raw.astype(np.int64)
    target, origin, promotion = raw & 63, raw >> 6 & 63, raw >> 12 & 7
    promotion = np.where((promotion >= 1) & (promotion <= 4), promotion + 1, 0)
    castle = (((origin == _E1) | (origin == _E8)) & np.isin(target, (0, 7, 56, 63))
              & ((boards.kings[index] & (U64(1) << origin.astype(U64))) != 0))
    target = np.where(castle, (origin & 56) + np.where((target & 7) == 7, 6, 2), target)
    found: Array = origin << 9 | target << 3 | promotion
    return found


def raw_moves(codes: Array) -> Array:
    """The raw Polyglot move of each kernel move code (castling as king-takes-rook, standard chess)."""
    codes = codes.astype(np.int64)
    origin, target, flag = codes >> ORIGIN_SHIFT & 63, codes >> TARGET_SHIFT & 63, codes & 15
    target = np.where(flag == KING_CASTLE, origin | 7, np.where(flag == QUEEN_CASTLE, origin & 56, target))
    promotion = np.where(flag >= PROMOTION, (flag & 3) + 1, 0)
    found: Array = promotion << 12 | origin << 6 | target
    return found
