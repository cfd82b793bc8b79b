"""Many positions at once: numpy arrays of bitboards and their legal moves (:mod:`.playing` plays moves on them).

A batch is a :class:`Boards`: one entry per position in each array (python-chess's representation, array-wise:
piece and colour bitboards, side to move, en-passant square, castling rights as the bitboard of the castling
rooks' squares). :func:`legal_moves` gives every position's legal moves as 16-bit move codes, sorted by code.
Every step is a numpy operation over the whole batch (or over all its pieces, or all its moves), never a Python
loop over positions.

A move code is ``flag | target << 4 | origin << 10`` (squares 0 = a1 ... 63 = h8) with the 4-bit flags of the
"from-to-flags" encoding (:data:`QUIET` ... :data:`PROMOTION`): the encoding Monty's files store, and one from
which Polyglot's (from, to, promotion) or ChessBase's numbering are a table away. Castling is the king's move to
the c- or g-file (:data:`KING_CASTLE`, :data:`QUEEN_CASTLE`), in Chess960 too (with the king's own square as
target when it does not move). The rules are python-chess's (``Board.legal_moves``, Chess960 included).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .attacks import (
    DOUBLE_BB,
    KING_BB,
    KNIGHT_BB,
    PAWN_BB,
    PUSH_BB,
    SQUARE_BB,
    attack_map,
    attacked,
    bishop_attacks,
    pawn_pushes,
    rook_attacks,
    single_square,
)
from .lookup import BETWEEN_BB, BISHOP_RAYS_BB, LINE_BB, ROOK_RAYS_BB

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
    "bishop_attacks",
    "checkers",
    "contains",
    "expand_bits",
    "legal_moves",
    "pseudo_en_passant",
    "rook_attacks",
    "square_of",
]

QUIET, DOUBLE_PUSH, KING_CASTLE, QUEEN_CASTLE, CAPTURE, EN_PASSANT = 0, 1, 2, 3, 4, 5
PROMOTION = 8
"""Promotion flags: ``PROMOTION + piece - 2`` (knight 8 ... queen 11), plus :data:`CAPTURE` for a capture."""
FLAG_SHIFT, TARGET_SHIFT, ORIGIN_SHIFT = 0, 4, 10

U64 = np.uint64
_ALL = U64(0xFFFF_FFFF_FFFF_FFFF)
_RANK_1, _RANK_8 = U64(0xFF), U64(0xFF << 56)
_PUSH_FLAT, _DOUBLE_FLAT, _PAWN_FLAT = PUSH_BB.ravel(), DOUBLE_BB.ravel(), PAWN_BB.ravel()
"""The same by ``colour << 6 | square``."""
_LOWER_BB = SQUARE_BB - U64(1)
"""By square: the squares below it."""
_RANK_2, _RANK_7 = U64(0xFF << 8), U64(0xFF << 48)
_LANES = np.arange(8)
_LOW_CODES = ((_LANES << TARGET_SHIFT)[None, :]
              | ((np.arange(256)[:, None] >> _LANES) & 1) * CAPTURE).astype(np.uint16)
"""By the byte of a piece's captures among eight target squares: the low bits of those eight codes (the target's
file, the capture flag)."""


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
    squares = single_square(low)
    squares[low == 0] = 0
    return squares


def expand_bits(bitboards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every set bit: (index of its bitboard, its square), ordered by bitboard, then square."""
    flat = np.ascontiguousarray(bitboards, dtype=U64).view(np.uint8)
    nonzero = (flat != 0).nonzero()[0]  # (numpy's nonzero is fastest on booleans)
    bits = np.unpackbits(flat.take(nonzero), bitorder="little").view(bool).nonzero()[0]
    square = nonzero.take(bits >> 3)  # the byte of each bit, then its square
    owner = square >> 3
    square <<= 3
    bits &= 7
    square |= bits
    square &= 63
    return owner, square


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


def checkers(boards: Boards, occupied: np.ndarray | None = None) -> np.ndarray:
    """Per position: the enemy pieces attacking the king to move (python-chess's ``Board.checkers()``); with
    ``occupied``, the pieces there block the sliders instead of the position's. The attackers are still the
    position's own pieces: to ask whether a move of the side to move leaves its king attacked, the pieces it
    takes must be off the boards already (ask it of the position after the move, with the turn given back), or
    the piece it takes is reported."""
    return _checkers(_side(boards), occupied=occupied)


def legal_moves(boards: Boards) -> tuple[np.ndarray, np.ndarray]:
    """The legal moves of every position: ``(offsets, codes)``, position ``i``'s codes (``uint16``, sorted) being
    ``codes[offsets[i]:offsets[i + 1]]``.

    Moves come out in code order by construction, never sorted for: every piece to move gets a slot, ordered by
    (position, origin square) (its *rank*: the pieces of the positions before, then its own side's pieces on
    lower squares), each piece kind's targets (one bitboard per piece) are written into the slots of its pieces,
    and the targets are read out of all slots at once in (slot, square) order. The flags that are not a capture
    (double push, en passant, promotion, castling) are set afterwards at the index of their move, found from its
    slot and target; the order is checked by the tests.
    """
    count = len(boards.turn)
    side = _side(boards)
    us, them, occupied, king = side.us, side.them, side.occupied, side.king
    king_bit = SQUARE_BB[king]
    danger = attack_map(occupied ^ king_bit, side.knights, side.kings, side.pawns, ~boards.turn, side.diagonal,
                        side.straight)
    in_check = (danger & king_bit) != 0
    evasions = np.full(count, _ALL)
    checked = in_check.nonzero()[0]
    if checked.size:  # the checkers, found for the positions in check only
        checkers = _checkers(side, checked)
        single = (checkers & (checkers - U64(1))) == 0
        evasions[checked] = np.where(single, checkers | BETWEEN_BB[king[checked], square_of(checkers)], U64(0))
    allowed = ~us & evasions
    pieces = _Pieces(us)
    # pawns: the targets of each kind of push, for all pawns of a position at once, then by pawn
    pawns = boards.pawns & us
    white = boards.turn
    empty = ~occupied
    up, twice = pawn_pushes(pawns, white, empty)
    up &= evasions
    twice &= evasions
    targets = them & evasions
    owner, square, rank = pieces.place(pawns)
    index = side.colour[owner] << 6 | square
    double = _DOUBLE_FLAT.take(index)
    double &= twice.take(owner)
    reach = _PUSH_FLAT.take(index)
    reach &= up.take(owner)
    reach |= double
    captures = _PAWN_FLAT.take(index)
    captures &= targets.take(owner)
    reach |= captures
    pieces.reach[rank] = reach
    at = (double != 0).nonzero()[0]
    pushes = rank[at], double[at], white[owner[at]]
    owner, square, rank = pieces.place(boards.knights & us)
    reach = KNIGHT_BB.take(square)
    reach &= allowed.take(owner)
    pieces.reach[rank] = reach
    owner, square, rank = pieces.place((boards.bishops | boards.queens) & us)
    reach = bishop_attacks(square, occupied.take(owner))
    reach &= allowed.take(owner)
    pieces.reach[rank] = reach
    owner, square, rank = pieces.place((boards.rooks | boards.queens) & us)
    reach = rook_attacks(square, occupied.take(owner))
    reach &= allowed.take(owner)
    pieces.reach[rank] |= reach
    pinned = _pinned(side)
    if pinned.any():  # a pinned piece moves along the line through its king
        owner, square = expand_bits(pinned)
        pieces.reach[pieces.rank(owner, square)] &= LINE_BB[king[owner], square]
    en_passant = _en_passant(boards, side, pieces, pawns)
    # the king: its steps off attacked squares, and castling
    own_king = ((boards.kings & us) != 0).nonzero()[0]
    monarch = pieces.rank(own_king, king[own_king])
    steps = KING_BB[king] & ~us & ~danger
    castles = _castling(boards, side, in_check, danger)
    pieces.origin[monarch] = king[own_king].astype(np.uint16) << np.uint16(ORIGIN_SHIFT)
    pieces.reach[monarch] = (steps | castles)[own_king]
    codes, move_start = pieces.codes(them)
    inserted = _Inserts()
    rank, double, forward = pushes  # a double push: a pawn's last move (white), first (black); if not pinned
    still = (pieces.reach[rank] & double) != 0
    rank, forward = rank[still], forward[still]
    codes[np.where(forward, move_start[rank + 1] - 1, move_start[rank])] |= np.uint16(DOUBLE_PUSH)
    if en_passant is not None:
        rank, target = en_passant
        codes[pieces.index(move_start, rank, target)] |= np.uint16(EN_PASSANT)
    owner, square = expand_bits(pawns & np.where(white, _RANK_7, _RANK_2))  # promotions: each move four codes
    if owner.size:
        rank = pieces.rank(owner, square)
        which = _moves_of(move_start[rank], move_start[rank + 1] - move_start[rank])
        codes[which] |= np.uint16(PROMOTION)
        for extra in (1, 2, 3):
            inserted.add(which + 1, codes[which] + np.uint16(extra))
    owner, target = expand_bits(castles)
    if owner.size:  # castling: the king's move to its target takes the flag, or follows a step to that square
        rank = pieces.rank(owner, king[owner])
        at = pieces.index(move_start, rank, target)
        flag = np.where((target & 7) == 6, KING_CASTLE, QUEEN_CASTLE).astype(np.uint16)
        both = (steps[owner] & SQUARE_BB[target]) != 0
        codes[at[~both]] |= flag[~both]
        inserted.add(at[both] + 1, codes[at[both]] | flag[both])
    offsets = move_start[pieces.start]
    return inserted.apply(codes, offsets)


class _Pieces:
    """The pieces to move of a batch, one slot each in (position, origin square) order, with the squares each
    may move to (``reach``) and its origin as a code (``origin``)."""

    def __init__(self, us: np.ndarray) -> None:
        self.us = us
        self.start = np.zeros(len(us) + 1, dtype=np.int64)
        np.cumsum(np.bitwise_count(us), out=self.start[1:])
        total = int(self.start[-1])
        self.reach = np.zeros(total, dtype=U64)
        self.origin = np.zeros(total, dtype=np.uint16)

    def rank(self, owner: np.ndarray, square: np.ndarray) -> np.ndarray:
        """The slot of the piece on ``square`` of position ``owner``."""
        below = self.us.take(owner)
        below &= _LOWER_BB.take(square)
        rank: np.ndarray = self.start.take(owner)
        rank += np.bitwise_count(below)
        return rank

    def place(self, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pieces on ``bits`` (a subset of the pieces to move): (position, square, slot); their origins set."""
        owner, square = expand_bits(bits)
        rank = self.rank(owner, square)
        self.origin[rank] = square.astype(np.uint16) << np.uint16(ORIGIN_SHIFT)
        return owner, square, rank

    def codes(self, them: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every slot's targets as move codes, flagged quiet or capture, in (slot, target) order; and where each
        slot's moves start (one more entry: the end)."""
        reach = self.reach
        move_start = np.zeros(len(reach) + 1, dtype=np.int64)
        np.cumsum(np.bitwise_count(reach), out=move_start[1:])
        flat = reach.view(np.uint8)
        nonzero = (flat != 0).nonzero()[0]  # (numpy's nonzero is fastest on booleans)
        # per non-zero byte of targets: the code of the piece's origin and the byte's first target, and the low bits
        # of its eight codes (the target's file, the capture flag of those holding an enemy piece); per target, its
        # code from those two
        u16 = np.uint16
        base = self.origin.take(nonzero >> 3)
        first = nonzero.astype(u16)
        first &= u16(7)
        first <<= u16(3 + TARGET_SHIFT)
        base |= first
        captures = them.repeat(np.diff(self.start))
        captures &= reach
        low = _LOW_CODES.take(np.take(captures.view(np.uint8), nonzero), axis=0).ravel()
        bits = np.unpackbits(flat.take(nonzero), bitorder="little").view(bool).nonzero()[0]
        codes: np.ndarray = low.take(bits)
        bits >>= 3
        codes |= base.take(bits)
        return codes, move_start

    def index(self, move_start: np.ndarray, rank: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Where the move of slot ``rank`` to ``target`` is among the codes."""
        index: np.ndarray = move_start[rank] + np.bitwise_count(self.reach[rank] & _LOWER_BB[target])
        return index


class _Inserts:
    """Codes to insert (promotions' other pieces, a castling beside a king step to the same square)."""

    def __init__(self) -> None:
        self.at: list[np.ndarray] = []
        self.codes: list[np.ndarray] = []

    def add(self, at: np.ndarray, codes: np.ndarray) -> None:
        self.at.append(at)
        self.codes.append(codes)

    def apply(self, codes: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The codes with the insertions (each after the move it follows) and the offsets moved by them."""
        if not self.at:
            return offsets, codes
        at = np.concatenate(self.at)
        if not at.size:
            return offsets, codes
        order = np.argsort(at, kind="stable")
        at = at[order]
        codes = np.insert(codes, at, np.concatenate(self.codes)[order])
        return offsets + np.searchsorted(at, offsets, side="right"), codes


def _pinned(side: _Side) -> np.ndarray:
    """Per position: the pieces to move alone between their king and an enemy slider on its line."""
    king = side.king
    snipers = (ROOK_RAYS_BB[king] & side.straight) | (BISHOP_RAYS_BB[king] & side.diagonal)
    owner, sniper = expand_bits(snipers)
    pinned = np.zeros(len(king), dtype=U64)
    if owner.size:
        blockers = BETWEEN_BB[king[owner], sniper] & side.occupied[owner]
        alone = (blockers != 0) & ((blockers & (blockers - U64(1))) == 0)
        np.bitwise_or.at(pinned, owner[alone], blockers[alone] & side.us[owner[alone]])
    return pinned


def pseudo_en_passant(boards: Boards) -> np.ndarray:
    """Whether a pawn of the side to move stands ready to capture en passant, legal or not (Polyglot's and X-FEN's
    rule: python-chess's ``has_pseudo_legal_en_passant``)."""
    ep = boards.ep_square.astype(np.int64)
    us = np.where(boards.turn, boards.white, boards.black)
    capturers = PAWN_BB[(~boards.turn).astype(np.int64), ep]  # the pawn-attack squares of the other colour
    found: np.ndarray = (ep != 0) & ((capturers & boards.pawns & us) != 0)
    return found


def contains(offsets: np.ndarray, codes: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Whether each position's query code is among its codes (``offsets``, ``codes``: as :func:`legal_moves` gives
    them, without repeats within a position)."""
    found = np.zeros(len(offsets) - 1, dtype=bool)
    hits = (codes == np.repeat(queries.astype(codes.dtype), np.diff(offsets))).nonzero()[0]
    found[np.searchsorted(offsets, hits, side="right") - 1] = True
    return found


def _moves_of(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices ``starts[i]``, ``starts[i] + 1`` ... (``counts[i]`` of them) of every ``i``, in order."""
    first = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    indices: np.ndarray = first + np.arange(len(first))
    return indices


def _en_passant(boards: Boards, side: _Side, pieces: _Pieces, pawns: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """Add the en-passant captures that leave the king safe (tested on the occupancy after the capture) to the
    pawns' targets; their (slot, target)."""
    where = boards.ep_square.nonzero()[0]
    if not where.size:
        return None
    ep = boards.ep_square[where].astype(np.int64)
    colour = side.colour[where]
    open_square = (side.occupied[where] & SQUARE_BB[ep]) == 0
    owner, origin = expand_bits(np.where(open_square, PAWN_BB[1 - colour, ep] & pawns[where], U64(0)))
    if not owner.size:
        return None
    to, where = ep[owner], where[owner]
    captured = SQUARE_BB[np.where(side.colour[where] == 1, to - 8, to + 8)]
    after = (side.occupied[where] ^ SQUARE_BB[origin] ^ captured) | SQUARE_BB[to]
    safe = _checkers(side, where, after, pawns=side.pawns[where] & ~captured) == 0
    rank = pieces.rank(where[safe], origin[safe])
    pieces.reach[rank] |= SQUARE_BB[to[safe]]
    return rank, to[safe]


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
    # the king's target with the rook moved: in the standard geometry (king on the e-file, rook in the corner) the
    # squares that change are on the back rank beside the king, where an attacker would give check: as before
    hit = (danger[owner] & SQUARE_BB[king_to]) != 0
    odd = (((king & 7) != 4) | ((rook & 7) % 7 != 0)).nonzero()[0]
    if odd.size:
        hit[odd] = _checkers(side, owner[odd], after[odd], square=king_to[odd]) != 0
    good = ~(blocked | unsafe | hit)
    np.bitwise_or.at(result, owner[good], SQUARE_BB[king_to[good]])
    return result
