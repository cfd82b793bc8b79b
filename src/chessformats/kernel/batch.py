"""Many positions at once: numpy arrays of bitboards, their legal moves, and moves played on them.

A batch is a :class:`Boards`: one entry per position in each array (python-chess's representation, array-wise:
piece and colour bitboards, side to move, en-passant square, castling rights as the bitboard of the castling
rooks' squares). :func:`legal_moves` gives every position's legal moves as 16-bit move codes, sorted by code;
:func:`play` plays one move code in each position. Every step is a numpy operation over the whole batch (or over
all its pieces, or all its moves), never a Python loop over positions.

A move code is ``flag | target << 4 | origin << 10`` (squares 0 = a1 ... 63 = h8) with the 4-bit flags of the
"from-to-flags" encoding (:data:`QUIET` ... :data:`PROMOTION`): the encoding Monty's files store, and one from
which Polyglot's (from, to, promotion) or ChessBase's numbering are a table away. Castling is the king's move to
the c- or g-file (:data:`KING_CASTLE`, :data:`QUEEN_CASTLE`), in Chess960 too (with the king's own square as
target when it does not move). The rules are python-chess's (``Board.legal_moves``, Chess960 included).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .lookup import (
    BETWEEN_BB,
    BISHOP_RAYS_BB,
    DIAGONAL_MAGIC,
    FILE_A,
    FILE_MAGIC,
    KING_BB,
    KNIGHT_BB,
    LINE_BB,
    PAWN_BB,
    ROOK_RAYS_BB,
    SQUARE_BB,
    slider_tables,
)

__all__ = [
    "CAPTURE",
    "DOUBLE_PUSH",
    "EN_PASSANT",
    "FLAG_SHIFT",
    "KING_CASTLE",
    "ORIGIN_SHIFT",
    "PROMOTION",
    "QUEEN_CASTLE",
    "QUIET",
    "TARGET_SHIFT",
    "Boards",
    "attacked",
    "castling_rook",
    "contains",
    "expand_bits",
    "legal_moves",
    "play",
    "pseudo_en_passant",
    "square_of",
]

QUIET, DOUBLE_PUSH, KING_CASTLE, QUEEN_CASTLE, CAPTURE, EN_PASSANT = 0, 1, 2, 3, 4, 5
PROMOTION = 8
"""Promotion flags: ``PROMOTION + piece - 2`` (knight 8 ... queen 11), plus :data:`CAPTURE` for a capture."""
FLAG_SHIFT, TARGET_SHIFT, ORIGIN_SHIFT = 0, 4, 10

U64 = np.uint64
_ALL = U64(0xFFFF_FFFF_FFFF_FFFF)
_NOT_A = U64(~FILE_A & 0xFFFF_FFFF_FFFF_FFFF)
_NOT_H = U64(~(FILE_A << 7) & 0xFFFF_FFFF_FFFF_FFFF)
_FILE_A = U64(FILE_A)
_RANK_1, _RANK_8 = U64(0xFF), U64(0xFF << 56)
_DEBRUIJN = U64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _square in range(64):
    _DEBRUIJN_INDEX[((1 << _square) * 0x03F79D71B4CB0A89 & 0xFFFF_FFFF_FFFF_FFFF) >> 58] = _square
# by colour (0 black, 1 white), then square: the square one step ahead and two steps ahead (0 where none)
_PUSH = np.zeros((2, 64), dtype=U64)
_DOUBLE = np.zeros((2, 64), dtype=U64)
for _square in range(8, 56):
    _PUSH[1, _square], _PUSH[0, _square] = 1 << (_square + 8), 1 << (_square - 8)
    if _square < 16:
        _DOUBLE[1, _square] = 1 << (_square + 16)
    if _square >= 48:
        _DOUBLE[0, _square] = 1 << (_square - 16)


class Boards(NamedTuple):
    """A batch of positions, one entry per position in every array (python-chess's fields, array-wise)."""

    white: np.ndarray
    black: np.ndarray
    pawns: np.ndarray
    knights: np.ndarray
    bishops: np.ndarray
    rooks: np.ndarray
    queens: np.ndarray
    kings: np.ndarray
    turn: np.ndarray
    """``bool``: white to move."""
    ep_square: np.ndarray
    """``uint8``: the square behind a pawn that just advanced two squares, 0 for none."""
    castling: np.ndarray
    """``uint64``: the squares of the rooks that may still castle (python-chess's ``clean_castling_rights``)."""
    halfmove: np.ndarray
    """``uint16``."""
    fullmove: np.ndarray
    """``uint16``."""

    def take(self, index: np.ndarray | slice) -> Boards:
        """The positions at ``index``."""
        return Boards._make(array[index] for array in self)


def square_of(bitboards: np.ndarray) -> np.ndarray:
    """The lowest square of each bitboard (``int64``; 0 for an empty one)."""
    low = bitboards & (~bitboards + U64(1))
    squares: np.ndarray = _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> U64(58)]
    return squares


def expand_bits(bitboards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every set bit: (index of its bitboard, its square), ordered by bitboard, then square."""
    flat = np.ascontiguousarray(bitboards, dtype=U64).view(np.uint8)
    nonzero = np.flatnonzero(flat != 0)  # (numpy's nonzero is fastest on booleans)
    bits = np.flatnonzero(np.unpackbits(flat[nonzero], bitorder="little").view(bool))
    byte = nonzero[bits >> 3]
    return byte >> 3, (byte & 7) << 3 | (bits & 7)


def _rook(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    tables = slider_tables()
    squares = squares.astype(U64)
    base = squares << U64(8)
    rank = (occupied >> (squares & U64(56))) & U64(255)
    file = (((occupied >> (squares & U64(7))) & _FILE_A) * U64(FILE_MAGIC)) >> U64(56)
    attacks: np.ndarray = tables.rank[base | rank] | tables.file[base | file]
    return attacks


def _bishop(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    tables = slider_tables()
    base = squares.astype(U64) << U64(8)
    diagonal = ((occupied & tables.diagonal_mask[squares]) * U64(DIAGONAL_MAGIC)) >> U64(56)
    anti = ((occupied & tables.anti_mask[squares]) * U64(DIAGONAL_MAGIC)) >> U64(56)
    attacks: np.ndarray = tables.diagonal[base | diagonal] | tables.anti[base | anti]
    return attacks


def attacked(squares: np.ndarray, occupied: np.ndarray, knights: np.ndarray, kings: np.ndarray,
             pawns: np.ndarray, pawn_colour: np.ndarray, diagonal: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """The attackers of each square among the given pieces (sliders seeing through ``occupied``); ``pawn_colour``
    is the colour (1 white) of the side *defending* the square (its pawn-attack table finds the attacking pawns)."""
    found: np.ndarray = ((KNIGHT_BB[squares] & knights) | (KING_BB[squares] & kings)
                          | (PAWN_BB[pawn_colour, squares] & pawns) | (_bishop(squares, occupied) & diagonal)
                          | (_rook(squares, occupied) & straight))
    return found


def _shift(bits: np.ndarray, amount: int) -> np.ndarray:
    shifted: np.ndarray = bits << U64(amount) if amount > 0 else bits >> U64(-amount)
    return shifted


_NOT_AB, _NOT_GH = _NOT_A & (_NOT_A << U64(1)), _NOT_H & (_NOT_H >> U64(1))
_KNIGHT_STEPS = ((17, _NOT_A), (15, _NOT_H), (10, _NOT_AB), (6, _NOT_GH), (-17, _NOT_H), (-15, _NOT_A),
                 (-10, _NOT_GH), (-6, _NOT_AB))
"""(shift, mask of the squares a knight's jump can reach without wrapping)."""
_DIRECTIONS = ((8, _ALL), (-8, _ALL), (1, _NOT_A), (-1, _NOT_H), (9, _NOT_A), (7, _NOT_H), (-7, _NOT_A), (-9, _NOT_H))
"""(shift, mask of the squares a step can reach without wrapping): N, S, E, W, NE, NW, SE, SW."""


def _slides(sliders: np.ndarray, empty: np.ndarray, amount: int, mask: np.uint64) -> np.ndarray:
    """Kogge-Stone occluded fill: the squares the sliders attack in one direction."""
    propagate = empty & mask
    sliders = sliders | (propagate & _shift(sliders, amount))
    propagate &= _shift(propagate, amount)
    sliders |= propagate & _shift(sliders, 2 * amount)
    propagate &= _shift(propagate, 2 * amount)
    sliders |= propagate & _shift(sliders, 4 * amount)
    return _shift(sliders, amount) & mask


def _attack_map(turn: np.ndarray, occupied: np.ndarray, knights: np.ndarray, king: np.ndarray, pawns: np.ndarray,
                diagonal: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """The squares the given pieces (of the side *not* to move) attack, sliders seeing through ``occupied``."""
    up = ((pawns & _NOT_A) << U64(7)) | ((pawns & _NOT_H) << U64(9))
    down = ((pawns & _NOT_A) >> U64(9)) | ((pawns & _NOT_H) >> U64(7))
    found = np.where(turn, down, up) | np.where(king != 0, KING_BB[square_of(king)], U64(0))
    for amount, mask in _KNIGHT_STEPS:
        found |= _shift(knights, amount) & mask
    empty = ~occupied
    for index, (amount, mask) in enumerate(_DIRECTIONS):
        found |= _slides(straight if index < 4 else diagonal, empty, amount, mask)
    result: np.ndarray = found
    return result


class _Side(NamedTuple):
    """A batch seen from the side to move."""

    us: np.ndarray
    them: np.ndarray
    occupied: np.ndarray
    colour: np.ndarray  # int64: 1 white to move
    king: np.ndarray  # square of the king to move
    knights: np.ndarray  # the enemy's
    kings: np.ndarray
    pawns: np.ndarray
    diagonal: np.ndarray
    straight: np.ndarray


def _side(boards: Boards) -> _Side:
    turn = boards.turn
    us = np.where(turn, boards.white, boards.black)
    them = np.where(turn, boards.black, boards.white)
    return _Side(us, them, us | them, turn.astype(np.int64), square_of(boards.kings & us), boards.knights & them,
                 boards.kings & them, boards.pawns & them, (boards.bishops | boards.queens) & them,
                 (boards.rooks | boards.queens) & them)


def _checkers(side: _Side, index: np.ndarray | None = None, occupied: np.ndarray | None = None,
              square: np.ndarray | None = None, pawns: np.ndarray | None = None) -> np.ndarray:
    """Enemy pieces attacking the king to move (or ``square``), for the positions ``index`` (default all)."""
    def pick(array: np.ndarray) -> np.ndarray:
        return array if index is None else array[index]

    return attacked(pick(side.king) if square is None else square, pick(side.occupied) if occupied is None
                    else occupied, pick(side.knights), pick(side.kings), pick(side.pawns) if pawns is None else pawns,
                    pick(side.colour), pick(side.diagonal), pick(side.straight))


def legal_moves(boards: Boards) -> tuple[np.ndarray, np.ndarray]:
    """The legal moves of every position: ``(offsets, codes)``, position ``i``'s codes (``uint16``, sorted) being
    ``codes[offsets[i]:offsets[i + 1]]``.

    Moves come out in code order by construction: the pieces are visited by (position, origin square), the
    targets of each in square order, and the codes sharing an origin and target (promotions, a king step and a
    castling to the same square) are put in flag order; the order is checked by the tests, not sorted for.
    """
    count = len(boards.turn)
    side = _side(boards)
    us, them, occupied, colour, king = side.us, side.them, side.occupied, side.colour, side.king
    checkers = _checkers(side)
    checks = np.bitwise_count(checkers)
    evasions = np.where(checks == 0, _ALL,
                        np.where(checks == 1, checkers | BETWEEN_BB[king, square_of(checkers)], U64(0)))
    # pinned pieces: alone between the king and an enemy slider on its line
    snipers = (ROOK_RAYS_BB[king] & side.straight) | (BISHOP_RAYS_BB[king] & side.diagonal)
    owner, sniper = expand_bits(snipers)
    pinned = np.zeros(count, dtype=U64)
    if owner.size:
        blockers = BETWEEN_BB[king[owner], sniper] & occupied[owner]
        alone = (blockers != 0) & ((blockers & (blockers - U64(1))) == 0)
        np.bitwise_or.at(pinned, owner[alone], blockers[alone] & us[owner[alone]])
    danger = _attack_map(boards.turn, occupied ^ SQUARE_BB[king], side.knights, side.kings, side.pawns,
                         side.diagonal, side.straight)
    # every piece to move, by (position, square); its kind from the three overlapping bitboards Monty stores
    # (pawn 1, knight 2, bishop 3, rook 4, queen 5, king 6)
    owner, square = expand_bits(us)
    bit = SQUARE_BB[square]
    kind = ((((boards.rooks | boards.queens | boards.kings)[owner] & bit) != 0).astype(np.int8) << 2
            | (((boards.knights | boards.bishops | boards.kings)[owner] & bit) != 0).astype(np.int8) << 1
            | (((boards.pawns | boards.bishops | boards.queens)[owner] & bit) != 0).astype(np.int8))
    reach = np.zeros(len(owner), dtype=U64)
    group = np.flatnonzero(kind == 2)
    reach[group] = KNIGHT_BB[square[group]]
    group = np.flatnonzero((kind == 3) | (kind == 5))
    reach[group] = _bishop(square[group], occupied[owner[group]])
    group = np.flatnonzero((kind == 4) | (kind == 5))
    reach[group] |= _rook(square[group], occupied[owner[group]])
    pawn = np.flatnonzero(kind == 1)
    at, where, pawn_colour = square[pawn], owner[pawn], colour[owner[pawn]]
    empty = ~occupied[where]
    single = _PUSH[pawn_colour, at] & empty
    reach[pawn] = (single | np.where(single != 0, _DOUBLE[pawn_colour, at] & empty, U64(0))
                   | (PAWN_BB[pawn_colour, at] & them[where]))
    reach &= evasions[owner] & ~us[owner]
    if pinned.any():
        pin = np.flatnonzero(pinned[owner] & bit)
        reach[pin] &= LINE_BB[king[owner[pin]], square[pin]]
    _en_passant(boards, side, pawn, where, at, reach)
    monarch = np.flatnonzero(kind == 6)
    reach[monarch] = KING_BB[square[monarch]] & ~us[owner[monarch]] & ~danger[owner[monarch]]
    castles = _castling(boards, side, checks, danger)
    stepped = np.zeros(0, dtype=U64)
    if castles.any():
        stepped = reach[monarch] & castles[owner[monarch]]  # king steps that are castling targets too
        reach[monarch] |= castles[owner[monarch]]
    codes, per_entry, move_kind, move_entry = _codes(reach, square, reach & them[owner], kind)
    entry_start = np.cumsum(per_entry) - per_entry
    extra_at: list[np.ndarray] = []
    extra_codes: list[np.ndarray] = []
    if pawn.size:
        which = np.flatnonzero(move_kind == 1)
        entry = move_entry(which)
        code = codes[which]
        step = (code >> TARGET_SHIFT & 63).astype(np.int16) - (code >> ORIGIN_SHIFT).astype(np.int16)
        code[(step == 16) | (step == -16)] |= DOUBLE_PUSH
        ep = boards.ep_square[owner[entry]]
        code[((code >> TARGET_SHIFT & 63) == ep) & (ep != 0) & (step != 8) & (step != -8)] |= EN_PASSANT
        target = code >> TARGET_SHIFT & 63
        last = (target >= 56) | (target < 8)
        code[last] |= PROMOTION
        codes[which] = code
        promoting = which[last]
        for extra in (1, 2, 3):
            extra_at.append(promoting + 1)
            extra_codes.append(codes[promoting] + extra)
    if castles.any():
        castling = monarch[castles[owner[monarch]] != 0]
        which, entry = _moves_of(castling, per_entry, entry_start)
        target = (codes[which] >> TARGET_SHIFT & 63).astype(np.int64)
        is_castle = (castles[owner[entry]] & SQUARE_BB[target]) != 0
        which, entry, target = which[is_castle], entry[is_castle], target[is_castle]
        flag = np.where((target & 7) == 6, KING_CASTLE, QUEEN_CASTLE).astype(np.uint16)
        both = (stepped[np.searchsorted(monarch, entry)] & SQUARE_BB[target]) != 0
        codes[which[~both]] |= flag[~both]  # only a castling reaches that square: its code takes the flag
        extra_at.append(which[both] + 1)  # a king step there too: the castling code follows the step's
        extra_codes.append(codes[which[both]] | flag[both])
    per_position = np.bincount(owner, weights=per_entry, minlength=count).astype(np.int64)
    if extra_at:
        at = np.concatenate(extra_at)
        if at.size:
            order = np.argsort(at, kind="stable")
            at = at[order]
            codes = np.insert(codes, at, np.concatenate(extra_codes)[order])
            entry_of = np.searchsorted(entry_start, at - 1, side="right") - 1
            per_position += np.bincount(owner[entry_of], minlength=count)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(per_position, out=offsets[1:])
    return offsets, codes


def _codes(reach: np.ndarray, origin: np.ndarray, captures: np.ndarray, kind: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The move codes of every piece's targets (``reach``, by piece; ``captures``: the targets holding an enemy
    piece), in (piece, target) order, flagged quiet or capture; the number of moves of each piece, the kind of
    piece of each move, and a function giving the pieces of some moves."""
    flat = reach.view(np.uint8)
    nonzero = np.flatnonzero(flat != 0)
    bits = np.flatnonzero(np.unpackbits(flat[nonzero], bitorder="little").view(bool))
    entry_of_byte = nonzero >> 3
    byte_of_move = bits >> 3
    # per non-zero byte: the code of the piece's origin and the byte's first target; per move: that code with the
    # bit's target and the capture flag (in 16 bits: the arrays are as long as the moves are many)
    u16 = np.uint16
    base = ((origin.astype(u16) << u16(ORIGIN_SHIFT))[entry_of_byte]
            | (nonzero.astype(u16) & u16(7)) << u16(3 + TARGET_SHIFT))
    low = (bits & 7).astype(u16)
    codes = base[byte_of_move] | low << u16(TARGET_SHIFT)
    captured = (captures.view(np.uint8)[nonzero][byte_of_move] >> low.astype(np.uint8)) & np.uint8(1)
    codes |= captured.astype(u16) * u16(CAPTURE)
    kinds = kind[entry_of_byte]
    return (codes, np.bitwise_count(reach).astype(np.int64), kinds[byte_of_move],
            lambda moves: entry_of_byte[bits[moves] >> 3])


def contains(offsets: np.ndarray, codes: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Whether each position's query code is among its codes (``offsets``, ``codes``: as :func:`legal_moves` gives
    them, sorted within each position)."""
    count = len(offsets) - 1
    if not len(codes):
        return np.zeros(count, dtype=bool)
    wide = np.uint32 if count < 1 << 16 else np.uint64
    keys = (np.repeat(np.arange(count, dtype=wide), np.diff(offsets)) << wide(16)) | codes.astype(wide)
    wanted = (np.arange(count, dtype=wide) << wide(16)) | queries.astype(wide)
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    found: np.ndarray = keys[at] == wanted
    return found


def _moves_of(entries: np.ndarray, per_entry: np.ndarray, entry_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The indices of the moves of the given entries (pieces), in order, and the entry of each."""
    counts = per_entry[entries]
    starts = np.repeat(entry_start[entries] - (np.cumsum(counts) - counts), counts)
    return starts + np.arange(len(starts)), np.repeat(entries, counts)


def _en_passant(boards: Boards, side: _Side, pawn: np.ndarray, owner: np.ndarray, square: np.ndarray,
                reach: np.ndarray) -> None:
    """Add the en-passant captures that leave the king safe (tested on the occupancy after the capture)."""
    ep = boards.ep_square[owner].astype(np.int64)
    colour = side.colour[owner]
    candidate = np.flatnonzero((ep != 0) & ((PAWN_BB[colour, square] & SQUARE_BB[ep]) != 0)
                               & ((side.occupied[owner] & SQUARE_BB[ep]) == 0))
    if not candidate.size:
        return
    where, to, origin = owner[candidate], ep[candidate], square[candidate]
    captured = SQUARE_BB[np.where(colour[candidate] == 1, to - 8, to + 8)]
    after = (side.occupied[where] ^ SQUARE_BB[origin] ^ captured) | SQUARE_BB[to]
    safe = _checkers(side, where, after, pawns=side.pawns[where] & ~captured) == 0
    reach[pawn[candidate[safe]]] |= SQUARE_BB[to[safe]]


def _castling(boards: Boards, side: _Side, checks: np.ndarray, danger: np.ndarray) -> np.ndarray:
    """Per position: the bitboard of the king's castling targets (python-chess's ``generate_castling_moves``)."""
    count = len(checks)
    result = np.zeros(count, dtype=U64)
    back = np.where(boards.turn, _RANK_1, _RANK_8)
    king_mask = SQUARE_BB[side.king]
    rights = boards.castling & back & boards.rooks & side.us
    rights[(checks != 0) | ((king_mask & back) == 0)] = 0
    owner, rook = expand_bits(rights)
    if not owner.size:
        return result
    king = side.king[owner]
    base = king & 56
    queenside = rook < king
    king_to = base + np.where(queenside, 2, 6)
    rook_to = base + np.where(queenside, 3, 5)
    occupied = side.occupied[owner]
    rook_mask, king_bit = SQUARE_BB[rook], SQUARE_BB[king]
    path = BETWEEN_BB[king, king_to]
    blocked = ((occupied ^ king_bit ^ rook_mask)
               & (path | BETWEEN_BB[rook, rook_to] | SQUARE_BB[king_to] | SQUARE_BB[rook_to])) != 0
    unsafe = (danger[owner] & (path | king_bit)) != 0
    after = occupied ^ king_bit ^ rook_mask | SQUARE_BB[rook_to]
    hit = _checkers(side, owner, after, square=king_to) != 0
    good = ~(blocked | unsafe | hit)
    np.bitwise_or.at(result, owner[good], SQUARE_BB[king_to[good]])
    return result


def pseudo_en_passant(boards: Boards) -> np.ndarray:
    """Whether a pawn of the side to move stands ready to capture en passant, legal or not (Polyglot's and X-FEN's
    rule: python-chess's ``has_pseudo_legal_en_passant``)."""
    ep = boards.ep_square.astype(np.int64)
    us = np.where(boards.turn, boards.white, boards.black)
    capturers = PAWN_BB[(~boards.turn).astype(np.int64), ep]  # the pawn-attack squares of the other colour
    found: np.ndarray = (ep != 0) & ((capturers & boards.pawns & us) != 0)
    return found


def castling_rook(boards: Boards, index: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The square of the rook each castling code (``codes``, played in the positions ``index``) castles with: the
    castling rook on that side of the king."""
    codes = codes.astype(np.int64)
    king = codes >> ORIGIN_SHIFT & 63
    rights = boards.castling[index] & boards.rooks[index] & (U64(255) << (king & 56).astype(U64))
    king_bit = SQUARE_BB[king]
    above = rights & ~(king_bit | (king_bit - U64(1)))
    below = rights & (king_bit - U64(1))
    return np.where((codes & 15) == KING_CASTLE, _msb(above), square_of(below))


def _msb(bitboards: np.ndarray) -> np.ndarray:
    """The highest square of each bitboard (0 for an empty one)."""
    exponent = np.frexp(bitboards.astype(np.float64))[1] - 1  # exact: only the highest bit sets the exponent
    squares: np.ndarray = np.maximum(exponent, 0).astype(np.int64)
    return squares


def play(boards: Boards, codes: np.ndarray) -> Boards:
    """The positions after playing one move code in each, as python-chess's ``Board.push`` does (the codes are
    assumed legal: an illegal one gives some position, never an exception)."""
    codes = codes.astype(np.int64)
    origin, target, flag = codes >> ORIGIN_SHIFT & 63, codes >> TARGET_SHIFT & 63, codes & 15
    white = boards.turn
    from_bit, to_bit = SQUARE_BB[origin], SQUARE_BB[target]
    us = np.where(white, boards.white, boards.black)
    them = np.where(white, boards.black, boards.white)
    castle = (flag == KING_CASTLE) | (flag == QUEEN_CASTLE)
    rook_bit = np.zeros(len(codes), dtype=U64)
    rook_to_bit = np.zeros(len(codes), dtype=U64)
    if castle.any():
        which = np.flatnonzero(castle)
        rook_bit[which] = SQUARE_BB[castling_rook(boards, which, codes[which])]
        rook_to_bit[which] = SQUARE_BB[(target[which] & 56) + np.where(flag[which] == KING_CASTLE, 5, 3)]
    en_passant = flag == EN_PASSANT
    ep_capture = np.where(en_passant, SQUARE_BB[np.where(white, target - 8, target + 8) & 63], U64(0))
    leave = from_bit | rook_bit
    cleared = ~(leave | to_bit | ep_capture)
    promotion = np.where(flag >= PROMOTION, (flag & 3) + 1, 0)  # 1 knight ... 4 queen (python-chess's types - 1)
    pieces = (boards.pawns, boards.knights, boards.bishops, boards.rooks, boards.queens, boards.kings)
    moved = [(piece & from_bit) != 0 for piece in pieces]
    after = []
    for kind, piece in enumerate(pieces):
        lands = (moved[kind] & (promotion == 0)) | ((promotion == kind) if kind else False)
        new = (piece & cleared) | np.where(lands, to_bit, U64(0))
        after.append(new | rook_to_bit if kind == 3 else new)
    capture = (((them & to_bit) != 0) & ~castle) | en_passant
    us = (us & ~leave) | to_bit | rook_to_bit
    them = them & ~(to_bit | ep_capture)
    castling = boards.castling & ~(leave | to_bit)
    castling &= np.where(moved[5], ~np.where(white, _RANK_1, _RANK_8), _ALL)
    ep = np.where(flag == DOUBLE_PUSH, (origin + target) >> 1, 0).astype(np.uint8)
    halfmove = np.where(moved[0] | capture, 0, boards.halfmove.astype(np.int64) + 1).astype(boards.halfmove.dtype)
    fullmove = boards.fullmove + (~white).astype(boards.fullmove.dtype)
    return Boards._make([np.where(white, us, them), np.where(white, them, us), *after, ~white, ep, castling,
                         halfmove, fullmove])
