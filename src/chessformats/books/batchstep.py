"""One ply of the batch replay (:mod:`chessformats.books.batchplay`) for every game still playing.

The state of the games is a few arrays (:class:`State`): the eight bitboards as the columns of one matrix, the
castling rights as an index (bit 0 white short, 1 white long, 2 black short, 3 black long), the en-passant square
(64: none), the Polyglot key and the part of the key the en-passant square gave. What a SAN token says whatever
the position is looked up once per batch and colour (:class:`Moves`); a step gathers it per game and finds the
moving piece among the attackers of the target square (the kernel's :func:`chessformats.kernel.attacks.attacked`,
which also says whether a king is in check), then plays it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..formats import squares
from ..formats.polyglot.packing import pack_moves
from ..formats.zobrist import CASTLE_TABLE, EP_CAPTURERS
from ..kernel.attacks import SQUARE_BB
from ..kernel.attacks import attacked as attackers
from ..kernel.attacks import single_square as square_of
from ..schemas import polyglot_randoms as schema

U64 = np.uint64
_ZERO, _ONE, _EIGHT = U64(0), U64(1), U64(8)
_ALL = (1 << 64) - 1

CASTLE_SHORT, CASTLE_LONG, PIECE_MOVE, PAWN_PUSH, PAWN_CAPTURE = range(5)
BAD = -1
"""The forms of a SAN token (:func:`chessformats.books.batchplay.parse_token`)."""

BOARD = ("white", "black", "pawns", "knights", "bishops", "rooks", "queens", "kings")
"""The columns of :attr:`State.board` (a piece type's column is its python-chess number + 1)."""
NO_EP = 64

# the randoms of the Polyglot key as arrays; one extra 0 at the end stands for "nothing"
_PIECE_RANDOMS = np.array([*schema.RANDOM_PIECE, 0], dtype=U64)
_NO_PIECE_INDEX = 768
_CASTLE_RANDOMS = np.array(CASTLE_TABLE, dtype=U64)
_EP_RANDOMS = np.array([schema.RANDOM_EN_PASSANT[square & 7] for square in range(64)] + [0], dtype=U64)
TURN_RANDOM = U64(schema.RANDOM_TURN)
# pawns (of the side to move next) that could capture on an en-passant square; index 64 = no square
_EP_FROM = {color: np.array([*EP_CAPTURERS[color], 0], dtype=U64) for color in (squares.WHITE, squares.BLACK)}
_SIDES = {color: np.array([1 if color else 0], dtype=np.int64) for color in (squares.WHITE, squares.BLACK)}
"""A colour as :func:`attackers` takes it (one entry, for every game)."""
_FROM_BITS = pack_moves(np.arange(64), np.zeros(64, dtype=np.int64)).astype(np.int64)  # (the target a1 adds 0)

# castling rights: the rook squares (as python-chess keeps them) of each index, and the rights a square keeps
_RIGHT_SQUARES = (squares.H1, squares.A1, squares.H8, squares.A8)
CASTLING_BITBOARDS = np.array([sum(1 << square for bit, square in enumerate(_RIGHT_SQUARES) if index >> bit & 1)
                               for index in range(16)], dtype=U64)
_KEPT_RIGHTS = np.full(64, 15, dtype=np.int64)
for _bit, _square in enumerate(_RIGHT_SQUARES):
    _KEPT_RIGHTS[_square] &= ~(1 << _bit)
_KEPT_RIGHTS[squares.E1] &= 12
_KEPT_RIGHTS[squares.E8] &= 3
# castling, per colour (False black, True white) and kind (0 short, 1 long): the right it needs, the squares that
# must be empty, the squares the king stands on or crosses (none may be attacked), the squares the king and the rook
# leave and reach, the randoms of these moves and the raw move (Polyglot stores castling as the king taking its rook)
_B = squares.BB_SQUARES


def _castling(white: bool) -> dict[str, np.ndarray[Any, Any]]:
    king_from = squares.E1 if white else squares.E8
    side = 1 if white else 0
    king_kind, rook_kind = (2 * (squares.KING - 1) + side) * 64, (2 * (squares.ROOK - 1) + side) * 64
    kinds = []
    for king_to, rook_from, rook_to, right in ((king_from + 2, king_from + 3, king_from + 1, 1 if white else 4),
                                               (king_from - 2, king_from - 4, king_from - 1, 2 if white else 8)):
        step = 1 if king_to > king_from else -1
        between = range(min(king_from, rook_from) + 1, max(king_from, rook_from))
        kinds.append({"right": right, "between": sum(_B[s] for s in between),
                      "crossed": [king_from, king_from + step, king_to], "king": _B[king_from], "rook": _B[rook_from],
                      "king_move": _B[king_from] | _B[king_to],
                      "rook_move": _B[rook_from] | _B[rook_to],
                      "key": int(_PIECE_RANDOMS[king_kind + king_from] ^ _PIECE_RANDOMS[king_kind + king_to]
                                 ^ _PIECE_RANDOMS[rook_kind + rook_from] ^ _PIECE_RANDOMS[rook_kind + rook_to]),
                      "raw": int(pack_moves(king_from, rook_from))})
    return {name: np.array([kind[name] for kind in kinds], dtype=np.int64 if name in ("right", "raw", "crossed")
                           else U64) for name in kinds[0]}


_CASTLES = {white: _castling(white) for white in (True, False)}


class State(NamedTuple):
    """The games still playing, one column each."""

    board: np.ndarray[Any, Any]
    """``(8, games)`` bitboards, rows :data:`BOARD`."""
    rights: np.ndarray[Any, Any]
    ep: np.ndarray[Any, Any]
    key: np.ndarray[Any, Any]
    ep_part: np.ndarray[Any, Any]

    def games(self, games: Any) -> State:
        return State(self.board[:, games], self.rights[games], self.ep[games], self.key[games], self.ep_part[games])


class Plies(NamedTuple):
    """Per game: what its token says for this ply (gathered from :class:`Moves`)."""

    form: np.ndarray[Any, Any]
    target: np.ndarray[Any, Any]
    mask: np.ndarray[Any, Any]
    """Squares the moving piece may come from (SAN's disambiguation)."""
    double: np.ndarray[Any, Any]
    """For a pawn push to the fourth rank (of the mover): every square, else none."""
    piece: np.ndarray[Any, Any]
    """Board row of the moving piece, ..."""
    landing: np.ndarray[Any, Any]
    """... and of the piece on the target after the move."""
    piece_randoms: np.ndarray[Any, Any]
    """Where the moving piece's randoms start (the origin square is added), ..."""
    landing_random: np.ndarray[Any, Any]
    """... and the random of the piece landing on the target."""
    to_raw: np.ndarray[Any, Any]
    """The raw move but its origin."""
    kept_rights: np.ndarray[Any, Any]
    """The castling rights a move to the target keeps."""

    @classmethod
    def of(cls, table: np.ndarray[Any, Any]) -> Plies:
        """The plies of a ``(10, games)`` table gathered from :class:`Moves` (rows as the fields)."""
        numbers = table.view(np.int64)
        return cls(numbers[0], numbers[1], table[2], table[3], numbers[4], numbers[5], numbers[6], table[7],
                   numbers[8], numbers[9])


class Moves:
    """The tokens of a vocabulary as a table per colour: what a step gathers for each game."""

    def __init__(self, parsed: list[tuple[int, int, int, int, int]]) -> None:
        form, piece, target, mask, promotion = (np.array(column, dtype=U64 if index == 3 else np.int64)
                                                for index, column in enumerate(zip(*parsed, strict=True))) \
            if parsed else (np.zeros(0, dtype=U64 if index == 3 else np.int64) for index in range(5))
        landing = np.where(promotion > 0, promotion, piece)
        to_raw = pack_moves(np.zeros(len(form), dtype=np.int64), target, promotion)
        self.tables: dict[bool, np.ndarray[Any, Any]] = {}
        for color in (squares.WHITE, squares.BLACK):
            side = 1 if color else 0  # Polyglot piece kinds: 2 * (piece - 1) + (1 for white)
            double = np.where((form == PAWN_PUSH) & (target >> 3 == (3 if color else 4)), U64(_ALL), _ZERO)
            landing_random = _PIECE_RANDOMS[np.clip((2 * (landing - 1) + side) * 64 + target, 0, _NO_PIECE_INDEX)]
            columns = (form, target, mask, double, piece + 1, landing + 1, (2 * (piece - 1) + side) * 64,
                       landing_random, to_raw, _KEPT_RIGHTS[target])
            self.tables[color] = np.stack([column.astype(np.int64).view(U64) if column.dtype != U64 else column
                                           for column in columns])

    def plies(self, tokens: Any, white: bool) -> Plies:
        return Plies.of(np.take(self.tables[white], tokens, axis=1))


def start_state(count: int, start: dict[str, int]) -> State:
    """``count`` games at the position ``start`` (:data:`chessformats.books.batchplay.COLUMNS` values)."""
    board = np.empty((len(BOARD), count), dtype=U64)
    board[:] = np.array([start[name] for name in BOARD], dtype=U64)[:, None]
    rights = int(np.flatnonzero(CASTLING_BITBOARDS == U64(start["castling"]))[0])
    return State(board, np.full(count, rights, dtype=np.int64), np.full(count, start["ep"], dtype=np.int64),
                 np.full(count, start["key"], dtype=U64), np.zeros(count, dtype=U64))


def step(state: State, plies: Plies, white: bool, *, keys: bool = True) -> tuple[State, Any, Any]:
    """One ply for every game of ``state``: the new state, the raw moves and which games failed (``keys=False``:
    the Polyglot keys are not kept up to date)."""
    board = state.board
    mover = 0 if white else 1
    own, them = board[mover], board[1 - mover]
    occupied = own | them
    form, target = plies.form, plies.target
    target_bb = SQUARE_BB.take(target)
    bad = (form == BAD) | ((target_bb & own) != _ZERO)

    # the piece that moves: among the pieces of its kind attacking the target square (for a pawn: capturing on it)
    reach = _attackers_of(target, occupied, board, not white)
    movers = np.take_along_axis(board, plies.piece[None], axis=0)[0]
    if white:
        behind = target_bb >> _EIGHT
        two_behind = (behind & ~occupied) >> _EIGHT
    else:
        behind = target_bb << _EIGHT
        two_behind = (behind & ~occupied) << _EIGHT
    is_push, is_capture = form == PAWN_PUSH, form == PAWN_CAPTURE
    push_origin = (behind | (two_behind & plies.double)) & board[2]
    origin_bb = np.where(is_push, push_origin, reach & movers) & plies.mask & own
    bad |= is_push & ((target_bb & occupied) != _ZERO)
    no_victim = (target_bb & them) == _ZERO
    en_passant = is_capture & no_victim & (target == state.ep)
    bad |= is_capture & no_victim & ~en_passant
    first = origin_bb & (~origin_bb + _ONE)  # the lowest candidate
    rest = origin_bb ^ first
    bad |= (first == _ZERO) | ((rest & (rest - _ONE)) != _ZERO)  # no candidate, or three and more
    moved, raw, illegal = _apply(state, plies, white, first, en_passant, keys)
    two = np.flatnonzero((rest != _ZERO) & ~bad)
    if len(two):  # two candidates: SAN leaves out what a pin decides, so exactly one of them must be legal
        other, other_raw, other_illegal = _apply(state.games(two), Plies(*(column[..., two] for column in plies)),
                                                 white, rest[two], en_passant[two], keys)
        first_illegal = illegal[two]
        chosen = first_illegal & ~other_illegal
        switch = two[chosen]
        for column, other_column in zip(moved, other, strict=True):
            column[..., switch] = other_column[..., chosen]
        raw[switch] = other_raw[chosen]
        illegal[two] = first_illegal == other_illegal  # both legal (ambiguous) or neither
    bad |= illegal
    castles = np.flatnonzero(form.view(U64) <= U64(CASTLE_LONG))  # CASTLE_SHORT 0 or CASTLE_LONG 1 (BAD: -1)
    if len(castles):
        _castle(castles, form[castles], white, state, moved, raw, bad, keys)
    return moved, raw, bad


def _apply(state: State, plies: Plies, white: bool, origin_bb: Any, en_passant: Any,
           keys: bool) -> tuple[State, Any, Any]:
    """Play the move from ``origin_bb`` (one square): the new state, the raw moves, and which leave the king
    attacked."""
    board = state.board
    mover = 0 if white else 1
    own, them = board[mover], board[1 - mover]
    target = plies.target
    target_bb = SQUARE_BB.take(target)
    origin = square_of(origin_bb)
    captured_square = target - 8 * en_passant if white else target + 8 * en_passant
    captured_bb = SQUARE_BB.take(captured_square) & them
    captures = np.flatnonzero(captured_bb)
    captured_square = captured_square[captures]
    captured = np.argmax((board[2:, captures] & captured_bb[captures]) != _ZERO, axis=0)  # board row - 2
    illegal = np.zeros(len(target), dtype=bool)
    illegal[captures] = captured == 5

    new = board.copy(order="C")
    flat = new.reshape(-1)
    games = np.arange(len(target))
    flat[(captured + 2) * len(target) + captures] ^= captured_bb[captures]
    at = plies.piece * len(target) + games
    flat[at] ^= origin_bb
    at = plies.landing * len(target) + games
    flat[at] |= target_bb
    new_own = np.bitwise_xor(own, origin_bb ^ target_bb, out=new[mover])
    new_them = np.bitwise_xor(them, captured_bb, out=new[1 - mover])
    illegal |= (_attackers_of(square_of(new[7] & new_own), new_own | new_them, new, white) & new_them) != _ZERO

    rights = state.rights
    new_rights = rights & _KEPT_RIGHTS.take(origin) & plies.kept_rights
    double = (origin_bb & plies.double & U64(squares.BB_RANKS[1 if white else 6])) != _ZERO
    new_ep = np.where(double, target - 8 if white else target + 8, NO_EP)
    new_key, new_ep_part = state.key, state.ep_part
    if keys:
        side = 1 if white else 0
        new_key = state.key ^ state.ep_part ^ TURN_RANDOM ^ _PIECE_RANDOMS.take(plies.piece_randoms + origin) \
            ^ plies.landing_random
        new_key[captures] ^= _PIECE_RANDOMS.take(captured * 128 + (1 - side) * 64 + captured_square)
        new_key ^= _CASTLE_RANDOMS.take(rights) ^ _CASTLE_RANDOMS.take(new_rights)
        capturers = _EP_FROM[not white].take(new_ep) & new[2] & new_them
        new_ep_part = np.where(capturers != _ZERO, _EP_RANDOMS.take(new_ep), _ZERO)
        new_key ^= new_ep_part
    raw = _FROM_BITS.take(origin) | plies.to_raw
    return State(new, new_rights, new_ep, new_key, new_ep_part), raw, illegal


def _attackers_of(square: Any, occupied: Any, board: Any, defender: bool) -> Any:
    """Per game: the pieces of both colours on ``board`` (:data:`BOARD`) attacking ``square``, the pawns as pawns
    of the side not ``defender`` (sliders seeing through ``occupied``)."""
    queens = board[6]
    return attackers(square, occupied, board[3], board[7], board[2], _SIDES[defender], board[4] | queens,
                     board[5] | queens)


def _castle(games: Any, kind: Any, white: bool, state: State, moved: State, raw: Any, bad: Any, keys: bool) -> None:
    """Castling (``kind``: 0 short, 1 long) for ``games``: written over the general step's results."""
    castles = _CASTLES[white]
    before = state.games(games)
    board = before.board
    mover = 0 if white else 1
    own, them = board[mover], board[1 - mover]
    occupied = own | them
    king_move, rook_move = castles["king_move"][kind], castles["rook_move"][kind]
    ok = ((before.rights & castles["right"][kind]) != 0) & ((board[7] & own & castles["king"][kind]) != _ZERO) \
        & ((board[5] & own & castles["rook"][kind]) != _ZERO) & ((occupied & castles["between"][kind]) == _ZERO)
    crossed = castles["crossed"][kind].T.reshape(-1)  # the three squares of every game, square by square
    hits = _attackers_of(crossed, np.tile(occupied, 3), np.tile(board, 3), white) & np.tile(them, 3)
    ok &= (hits.reshape(3, len(games)) == _ZERO).all(axis=0)
    new = board.copy()
    new[7] ^= king_move
    new[5] ^= rook_move
    new[mover] ^= king_move | rook_move
    new_rights = before.rights & (12 if white else 3)
    moved.board[:, games] = new
    moved.rights[games] = new_rights
    moved.ep[games] = NO_EP
    if keys:
        moved.ep_part[games] = _ZERO
        moved.key[games] = before.key ^ before.ep_part ^ TURN_RANDOM ^ castles["key"][kind] \
            ^ _CASTLE_RANDOMS.take(before.rights) ^ _CASTLE_RANDOMS.take(new_rights)
    raw[games] = castles["raw"][kind]
    bad[games] = ~ok
