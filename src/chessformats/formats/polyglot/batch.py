"""Polyglot books over the kernel's batches of positions (:class:`~chessformats.kernel.batch.Boards`): the Zobrist
keys of many positions at once (:func:`keys`), what a move changes in them (:func:`key_changes`,
:func:`en_passant_keys`: a replay's keys, ply by ply), and Polyglot's raw moves to and from the kernel's move codes
(:func:`entry_queries`, :func:`raw_moves`).

The same numbers as :func:`chessformats.formats.zobrist.zobrist_hash` and
:func:`chessformats.formats.polyglot.moves.decode_move`/``encode_move`` for standard chess (the batches do not
play Chess960), with numpy operations over the whole batch instead of a Python loop per position.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...kernel.attacks import single_square
from ...kernel.batch import KING_CASTLE, ORIGIN_SHIFT, PROMOTION, QUEEN_CASTLE, TARGET_SHIFT, Boards, pseudo_en_passant
from ...kernel.playing import FIELDS, Moves
from ...schemas import polyglot_randoms as randoms
from ..zobrist import CASTLE_TABLE, byte_tables

__all__ = ["en_passant_keys", "entry_queries", "key_changes", "keys", "move_keys", "raw_moves"]

U64 = np.uint64
Array = np.ndarray[Any, Any]
_E1, _E8 = 4, 60
_ROOK = 3
"""The rook's piece type - 1."""
_RANK_1, _RANK_8 = U64(0xFF), U64(0xFF << 56)


@functools.cache
def _byte_tables() -> Array:
    """By ``(2 * (piece type - 1) + white) * 8 + rank``, then the byte of that rank's occupancy: the XOR of the
    piece randoms of the squares set (:func:`~..zobrist.byte_tables` of all twelve kinds)."""
    return np.array(byte_tables(range(12)), dtype=U64)


_PIECE = np.array(randoms.RANDOM_PIECE, dtype=U64)
"""By ``(2 * (piece type - 1) + white) * 64 + square``."""
_CORNERS = U64(0x183)
_CASTLE = np.zeros(int(_CORNERS) + 1, dtype=U64)
"""By the castling rooks' corners folded onto bits 0 (a1), 7 (h1), 1 (a8), 8 (h8) (:func:`_castle_randoms`): the
castling randoms of those rights (:data:`~..zobrist.CASTLE_TABLE`'s bits: white short, white long, black short,
black long)."""
for _index, _random in enumerate(CASTLE_TABLE):
    _CASTLE[(_index & 1) << 7 | (_index >> 1 & 1) | (_index >> 2 & 1) << 8 | (_index >> 3 & 1) << 1] = _random
_EN_PASSANT = np.array(randoms.RANDOM_EN_PASSANT, dtype=U64)
_TURN = U64(randoms.RANDOM_TURN)
_WHITE, _PIECES, _TO_MOVE, _CASTLING = (FIELDS.index(name) for name in ("white", "pawns", "turn", "castling"))
"""Rows of :func:`~chessformats.kernel.playing.stack`."""


def _castle_randoms(rights: Array) -> Array:
    """The castling part of the key of castling rights standing (their rooks on the corners, the king on e1/e8)."""
    found: Array = _CASTLE.take(((rights | rights >> U64(55)) & _CORNERS).view(np.int64))
    return found


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
    key ^= _castle_randoms(rights)
    key ^= en_passant_keys(boards)
    key[boards.turn] ^= _TURN
    return key


def en_passant_keys(boards: Boards) -> Array:
    """The en-passant part of each position's key: the file's random when a pawn of the side to move stands ready
    to capture en passant (legal or not), else 0."""
    found = np.zeros(len(boards.turn), dtype=U64)
    ep = pseudo_en_passant(boards)
    found[ep] = _EN_PASSANT.take(boards.ep_square[ep].astype(np.intp) & 7)
    return found


def key_changes(rows: Array, moves: Moves, played: Array, pieces: Array) -> Array:
    """What playing ``moves`` (:func:`~chessformats.kernel.playing.prepare`'d, legal, the castling rooks known) on
    the positions ``rows`` (:func:`~chessformats.kernel.playing.stack`), which gave ``played``, changes in their
    keys, the en-passant part aside: the keys after are ``keys ^ en_passant_keys(before) ^ changes ^
    en_passant_keys(after)`` (standard chess; the castling rights as python-chess cleans them). ``pieces``: the
    python-chess type of each moving piece."""
    white = rows[_TO_MOVE].view(np.int64) << 6  # the randoms of White's pieces follow Black's
    codes = moves.codes
    target = codes >> TARGET_SHIFT & 63
    kinds = (pieces - 1) << 7 | white  # where the randoms of each moving piece start
    changes: Array = _PIECE.take(kinds + (codes >> ORIGIN_SHIFT & 63))
    changes ^= _PIECE.take(kinds + target)
    changes ^= _TURN
    promoted = moves.promotion.nonzero()[0]
    if len(promoted):  # the pawn that reached the target is the flag's piece
        changes[promoted] ^= _PIECE.take(kinds[promoted] + target[promoted]) ^ _PIECE.take(
            ((codes[promoted] & 3) + 1 << 7 | white[promoted]) + target[promoted])
    taken = moves.capture.nonzero()[0]  # (a legal code has the flag exactly when it captures)
    if len(taken):
        taken_bb = moves.cleared[taken] & np.where(white[taken] != 0, rows[_WHITE + 1, taken], rows[_WHITE, taken])
        kinds = ((rows[_PIECES:_TO_MOVE, taken] & taken_bb) != 0).argmax(axis=0) << 7 | (white[taken] ^ 64)
        changes[taken] ^= _PIECE.take(kinds + single_square(taken_bb))
    castled = (moves.rook_to != 0).nonzero()[0]
    if len(castled):
        kinds = _ROOK << 7 | white[castled]
        rook_from = moves.cleared[castled] & ~moves.from_bit[castled] & ~moves.to_bit[castled]
        changes[castled] ^= _PIECE.take(kinds + single_square(rook_from)) ^ _PIECE.take(
            kinds + single_square(moves.rook_to[castled]))
    rights = (rows[_CASTLING] != played[_CASTLING]).nonzero()[0]
    if len(rights):
        changes[rights] ^= _castle_randoms(rows[_CASTLING, rights]) ^ _castle_randoms(played[_CASTLING, rights])
    return changes


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
    codes = codes.astype(np.int64, copy=False)
    found: Array = codes >> (ORIGIN_SHIFT - 6)
    found &= 63 << 6  # the origin
    found |= _RAW_TARGETS.take(codes & _TARGET_AND_FLAG)
    return found


def _raw_targets() -> Array:
    """By the target and flag bits of a move code: those of its raw move (promotion, target; castling: the rook's
    corner on the king's rank)."""
    codes = np.arange(64 << TARGET_SHIFT)
    target, flag = codes >> TARGET_SHIFT, codes & 15
    target = np.where(flag == KING_CASTLE, target | 7, np.where(flag == QUEEN_CASTLE, target & 56, target))
    found: Array = np.where(flag >= PROMOTION, (flag & 3) + 1, 0) << 12 | target
    return found


_TARGET_AND_FLAG = (64 << TARGET_SHIFT) - 1
_RAW_TARGETS = _raw_targets()
