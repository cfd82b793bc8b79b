"""One ply of the batch replay (:mod:`chessformats.books.batchplay`) for every game still playing.

The games are the kernel's rows (:func:`chessformats.kernel.playing.stack`: bitboards, side to move, en-passant
square, castling rooks, clocks), one column each, with their Polyglot keys (:class:`State`). What a SAN token says
whatever the position is looked up once per batch and colour (:class:`Moves`); a step gathers it per game, finds
the moving piece among the attackers of the target square (the kernel's
:func:`chessformats.kernel.attacks.attacked`, which also says whether a king is in check), makes the move code and
plays it (:func:`chessformats.kernel.playing.play_rows`), the keys following the move
(:func:`chessformats.formats.polyglot.batch.key_changes`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..formats import squares
from ..formats.polyglot.batch import en_passant_keys, key_changes
from ..kernel.attacks import SQUARE_BB, single_square
from ..kernel.attacks import attacked as attackers
from ..kernel.batch import CAPTURE, DOUBLE_PUSH, EN_PASSANT, KING_CASTLE, ORIGIN_SHIFT, PROMOTION, QUEEN_CASTLE
from ..kernel.batch import TARGET_SHIFT as _TARGET
from ..kernel.lookup import BETWEEN_BB
from ..kernel.playing import FIELDS, play_rows, prepare, unstack

U64 = np.uint64
_ZERO, _ONE, _EIGHT = U64(0), U64(1), U64(8)
_ALL = (1 << 64) - 1

CASTLE_SHORT, CASTLE_LONG, PIECE_MOVE, PAWN_PUSH, PAWN_CAPTURE = range(5)
BAD = -1
"""The forms of a SAN token (:func:`chessformats.books.batchplay.parse_token`)."""

_PAWNS, _KNIGHTS, _BISHOPS, _ROOKS, _QUEENS, _KINGS, _EP, _CASTLING = (FIELDS.index(name) for name in (
    "pawns", "knights", "bishops", "rooks", "queens", "kings", "ep_square", "castling"))
"""Rows of :class:`State` (a piece type's row is its python-chess number + 1)."""
_SIDES = {color: np.array([1 if color else 0], dtype=np.int64) for color in (squares.WHITE, squares.BLACK)}
"""A colour as :func:`attackers` takes it (one entry, for every game)."""
_KING_FROM = {squares.WHITE: squares.E1, squares.BLACK: squares.E8}


class State(NamedTuple):
    """The games still playing, one column each."""

    rows: np.ndarray[Any, Any]
    """The positions (:func:`~chessformats.kernel.playing.stack`)."""
    key: np.ndarray[Any, Any]
    """Their Polyglot keys, ..."""
    ep_part: np.ndarray[Any, Any]
    """... and the en-passant part of them (:func:`~chessformats.formats.polyglot.batch.en_passant_keys`)."""

    def games(self, games: Any) -> State:
        return State(self.rows[:, games], self.key[games], self.ep_part[games])


class Plies(NamedTuple):
    """Per game: what its token says for this ply (gathered from :class:`Moves`)."""

    form: np.ndarray[Any, Any]
    target: np.ndarray[Any, Any]
    """The target square (castling: the king's)."""
    mask: np.ndarray[Any, Any]
    """Squares the moving piece may come from (SAN's disambiguation)."""
    double: np.ndarray[Any, Any]
    """For a pawn push to the fourth rank (of the mover): every square, else none."""
    piece: np.ndarray[Any, Any]
    """Row of the moving piece."""
    code: np.ndarray[Any, Any]
    """The move code but its origin and what the position decides (capture, en passant, double push)."""
    rook: np.ndarray[Any, Any]
    """Castling: the rook's square."""

    @classmethod
    def of(cls, table: np.ndarray[Any, Any]) -> Plies:
        """The plies of a ``(7, games)`` table gathered from :class:`Moves` (rows as the fields)."""
        numbers = table.view(np.int64)
        return cls(numbers[0], numbers[1], table[2], table[3], numbers[4], numbers[5], numbers[6])


class Moves:
    """The tokens of a vocabulary as a table per colour: what a step gathers for each game."""

    def __init__(self, parsed: list[tuple[int, int, int, int, int]]) -> None:
        form, piece, target, mask, promotion = (np.array(column, dtype=U64 if index == 3 else np.int64)
                                                for index, column in enumerate(zip(*parsed, strict=True))) \
            if parsed else (np.zeros(0, dtype=U64 if index == 3 else np.int64) for index in range(5))
        flag = np.where(promotion > 0, PROMOTION + promotion - squares.KNIGHT, 0)
        self.tables: dict[bool, np.ndarray[Any, Any]] = {}
        for color in (squares.WHITE, squares.BLACK):
            king = _KING_FROM[color]
            short, long = form == CASTLE_SHORT, form == CASTLE_LONG
            to = np.where(short, king + 2, np.where(long, king - 2, target))
            double = np.where((form == PAWN_PUSH) & (target >> 3 == (3 if color else 4)), U64(_ALL), _ZERO)
            code = to << _TARGET | np.where(short, KING_CASTLE, np.where(long, QUEEN_CASTLE, flag))
            columns = (form, to, mask, double, piece + 1, code, np.where(short, king + 3, king - 4))
            self.tables[color] = np.stack([column.astype(np.int64).view(U64) if column.dtype != U64 else column
                                           for column in columns])

    def plies(self, tokens: Any, white: bool) -> Plies:
        return Plies.of(np.take(self.tables[white], tokens, axis=1))


def step(state: State, plies: Plies, white: bool, *, keys: bool = True) -> tuple[State, Any, Any]:
    """One ply for every game of ``state``: the new state, the move codes and which games failed (``keys=False``:
    the Polyglot keys are not kept up to date)."""
    rows = state.rows
    mover = 0 if white else 1
    own, them = rows[mover], rows[1 - mover]
    occupied = own | them
    form, target = plies.form, plies.target
    target_bb = SQUARE_BB.take(target)
    bad = (form == BAD) | ((target_bb & own) != _ZERO)

    # the piece that moves: among the pieces of its kind attacking the target square (for a pawn: capturing on it)
    reach = _attackers_of(target, occupied, rows, not white)
    movers = rows[plies.piece, np.arange(len(form))]
    if white:
        behind = target_bb >> _EIGHT
        two_behind = (behind & ~occupied) >> _EIGHT
    else:
        behind = target_bb << _EIGHT
        two_behind = (behind & ~occupied) << _EIGHT
    is_push, is_capture = form == PAWN_PUSH, form == PAWN_CAPTURE
    push_origin = (behind | (two_behind & plies.double)) & rows[_PAWNS]
    origin_bb = np.where(is_push, push_origin, reach & movers) & plies.mask & own
    bad |= is_push & ((target_bb & occupied) != _ZERO)
    no_victim = (target_bb & them) == _ZERO
    ep = rows[_EP].view(np.int64)
    en_passant = is_capture & no_victim & (target == ep) & (ep != 0)
    bad |= is_capture & no_victim & ~en_passant
    castles = np.flatnonzero(form.view(U64) <= U64(CASTLE_LONG))  # CASTLE_SHORT 0 or CASTLE_LONG 1 (BAD: -1)
    if len(castles):
        origin_bb[castles] = SQUARE_BB[_KING_FROM[white]]
    first = origin_bb & (~origin_bb + _ONE)  # the lowest candidate
    rest = origin_bb ^ first
    bad |= (first == _ZERO) | ((rest & (rest - _ONE)) != _ZERO)  # no candidate, or three and more
    double = (first & plies.double & U64(squares.BB_RANKS[1 if white else 6])) != _ZERO
    codes = plies.code | (~no_victim * CAPTURE | en_passant * EN_PASSANT | double * DOUBLE_PUSH)
    codes |= single_square(first) << ORIGIN_SHIFT
    moves = prepare(codes, plies.rook)
    played = play_rows(rows, moves)
    illegal = _in_check(played, white)
    changes = key_changes(rows, moves, played, plies.piece - 1) if keys else None
    two = np.flatnonzero((rest != _ZERO) & ~bad)
    if len(two):  # two candidates: SAN leaves out what a pin decides, so exactly one of them must be legal
        before, other, to = rows[:, two], rest[two], target_bb[two]  # (the other one: a piece, the king stays)
        other_illegal = _in_check(before, white, (own[two] | them[two]) ^ other | to, them[two] & ~to)
        first_illegal = illegal[two]
        switch = two[first_illegal & ~other_illegal]
        illegal[two] = first_illegal == other_illegal  # both legal (ambiguous) or neither
        if len(switch):
            codes[switch] = codes[switch] & ~(63 << ORIGIN_SHIFT) | single_square(rest[switch]) << ORIGIN_SHIFT
            moves = prepare(codes[switch], plies.rook[switch])
            played[:, switch] = play_rows(rows[:, switch], moves)
            if changes is not None:
                changes[switch] = key_changes(rows[:, switch], moves, played[:, switch], plies.piece[switch] - 1)
    bad |= illegal
    if len(castles):
        bad[castles] |= ~_may_castle(rows[:, castles], occupied[castles], them[castles], plies.target[castles],
                                     plies.rook[castles], white)
    if changes is None:
        return State(played, state.key, state.ep_part), codes, bad
    ep_part = np.zeros(len(changes), dtype=U64)
    pushed = double.nonzero()[0]  # (the positions with an en-passant square)
    if len(pushed):
        ep_part[pushed] = en_passant_keys(unstack(played[:, pushed]))
    changes ^= state.ep_part
    changes ^= ep_part
    return State(played, state.key ^ changes, ep_part), codes, bad


def _in_check(rows: np.ndarray[Any, Any], white: bool, occupied: Any = None, them: Any = None) -> Any:
    """Per position of ``rows``: whether the king of White (``white``) or Black is attacked by the enemy pieces
    (``them``, default all), the sliders seeing through ``occupied`` (default the position's pieces)."""
    own = rows[0 if white else 1]
    them = rows[1 if white else 0] if them is None else them
    return (_attackers_of(single_square(rows[_KINGS] & own), own | them if occupied is None else occupied, rows,
                          white) & them) != _ZERO


def _attackers_of(square: Any, occupied: Any, rows: Any, defender: bool) -> Any:
    """Per game: the pieces of both colours on ``rows`` attacking ``square``, the pawns as pawns of the side not
    ``defender`` (sliders seeing through ``occupied``)."""
    queens = rows[_QUEENS]
    return attackers(square, occupied, rows[_KNIGHTS], rows[_KINGS], rows[_PAWNS], _SIDES[defender],
                     rows[_BISHOPS] | queens, rows[_ROOKS] | queens)


def _may_castle(rows: Any, occupied: Any, them: Any, king_to: Any, rook: Any, white: bool) -> Any:
    """Per position of ``rows``: whether its side to move (White: ``white``) has the right to castle with the
    ``rook`` (the king and the rook in place: the kernel's castling rights) with nothing between them, and neither
    the king's square nor the one it crosses is attacked (its target: :func:`_in_check` after the move)."""
    king = _KING_FROM[white]
    allowed = ((rows[_CASTLING] & SQUARE_BB.take(rook)) != _ZERO) & ((occupied & BETWEEN_BB[king].take(rook)) == _ZERO)
    for square in np.full(len(rook), king), (king + king_to) >> 1:
        allowed &= (_attackers_of(square, occupied, rows, white) & them) == _ZERO
    return allowed
