"""What SAN needs, for every move of a chunk at once: rivals of a move (for disambiguation), check, and mate.

The batch decoder (:mod:`.batch_state`, ``san=True``) gives every move's squares, piece and the piece it takes;
:func:`positions` rebuilds the bitboards after every token from them (each token's change, XORed along its game;
a variation's end is given the change that undoes the variation), and :func:`annotate` then works out, over the
moves of a block of games together (:data:`BLOCK`), what SAN needs. The chess rules are the kernel's
(:mod:`chessformats.kernel.batch`): its :func:`~chessformats.kernel.batch.checkers` say whether a king is
attacked, its :func:`~chessformats.kernel.attacks.attacked` which pieces reach a square, its move generator
whether a position has a legal move; this module only picks the few positions each question is asked of:

- legality: a move that leaves its own king attacked (a damaged stream that still decodes) sends its game to
  the scalar path, as castling, a null move or a skipped byte in check does (in :func:`positions`); asked where
  a move could expose its king (a king's move, a line opened to it, a move after a check or a marker);
- check: the piece that moved attacks the king (an empty-board table, nothing between), else asked where a line
  from the king was opened, and for castling;
- rivals: the other pieces of the kind (knights, bishops, rooks, queens) that reach the target square and could
  go there legally (their king not attacked afterwards); asked where one stands on the target's lines;
- mate: a check after which the opponent has no legal move. When the next token of the stream is a move played
  from that position along its piece's lines, the check is no mate (the move's legality is checked with the
  others); otherwise the kernel's move generator decides, for all such positions at once.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import chess
import numpy as np

from ...kernel.attacks import pawn_pushes
from ...kernel.batch import Boards, attacked, checkers, expand_bits, legal_moves, square_of
from ...kernel.boards import from_boards
from ...kernel.lookup import BETWEEN_BB, EMPTY_ATTACKS_BB, LINE_BB, PAWN_BB, SQUARE_BB
from ...kernel.playing import stack

__all__ = ["COLUMNS", "START", "annotate"]

_N, _B, _R, _Q, _K, _P = chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING, chess.PAWN
COLUMNS = 8
"""A position's bitboards, in rows: white's pieces, black's, then by python-chess piece type (row ``piece + 1``)
the pawns ... kings of both (the kernel's :class:`~chessformats.kernel.batch.Boards` order)."""
_U64 = np.uint64
_MOVE, _PUSH, _POP, _SKIP = 0, 1, 2, 3
"""The token kinds (``batch_state.MOVE``, ``T_PUSH``, ``T_POP``, ``T_SKIP``)."""
START = stack(from_boards([chess.Board()]))[:COLUMNS]
"""The bitboards of the standard start position (a column)."""
_LINE, _BETWEEN = LINE_BB.ravel(), BETWEEN_BB.ravel()
"""By ``a * 64 + b``."""
_ATTACKS_BY_CODE = np.concatenate([EMPTY_ATTACKS_BB, EMPTY_ATTACKS_BB[:1]] * 2)
_ATTACKS_BY_CODE[_P], _ATTACKS_BY_CODE[8 + _P] = PAWN_BB[1], PAWN_BB[0]
_ATTACKS_BY_CODE = _ATTACKS_BY_CODE.ravel()
"""By ``(colour * 8 + piece) * 64 + square`` (colour 0 white): the squares that piece there attacks on an empty
board."""
_ROLES = np.array([[0xFFFF_FFFF_FFFF_FFFF * (piece in kinds) for piece in range(7)]
                   for kinds in ((_N,), (_K,), (_P,), (_B, _Q), (_R, _Q))], _U64)
"""By the kernel's sets of attackers (knights, kings, pawns, diagonal and straight sliders), then python-chess
piece type: all ones where the piece is one of the set."""


def _boards(rows: np.ndarray[Any, Any], white: np.ndarray[Any, Any],
            ep: np.ndarray[Any, Any] | None = None) -> Boards:
    """The positions of bitboard ``rows`` as the kernel's, ``white`` to move (no castling rights: none of the
    questions asked here needs them; no en-passant square but ``ep``)."""
    size = len(white)
    return Boards._make([*rows, white, np.zeros(size, np.uint8) if ep is None else ep.astype(np.uint8),
                         np.zeros(size, _U64), np.zeros(size, np.uint16), np.ones(size, np.uint16)])


def _own(rows: np.ndarray[Any, Any], side: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per position: the pieces of side ``side`` (0 white)."""
    found: np.ndarray[Any, Any] = np.where(side == 0, rows[0], rows[1])
    return found


def _king(rows: np.ndarray[Any, Any], side: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The square of side ``side``'s king in each position."""
    return square_of(rows[_K + 1] & _own(rows, side))


def _attackers(square: np.ndarray[Any, Any], occupied: np.ndarray[Any, Any], pieces: np.ndarray[Any, Any],
               kind: np.ndarray[Any, Any], side: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per position: which of ``pieces`` (all of python-chess type ``kind``, of side ``side``: 0 white) attack
    ``square``, ``occupied`` blocking (the kernel's :func:`attacked`, those pieces alone given)."""
    knights, kings, pawns, diagonal, straight = _ROLES.take(kind, axis=1) & pieces
    return attacked(square, occupied, knights, kings, pawns, side, diagonal, straight)


def _opened(moves: _Moves, king: np.ndarray[Any, Any], sliders: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per move: could it open a line from ``king`` to one of ``sliders``? Its origin shares a line with the king
    that holds one of them, nothing between the two; or it takes en passant (which empties a second square)."""
    index = moves.source * 64 + king
    opened = ((_LINE.take(index) & sliders) != 0) & ((_BETWEEN.take(index) & moves.occupied) == 0)
    return np.asarray(opened | moves.passant, dtype=bool)


def _sliders(rows: np.ndarray[Any, Any], side: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The bishops, rooks and queens of ``side`` (0 white)."""
    found: np.ndarray[Any, Any] = (rows[_B + 1] | rows[_R + 1] | rows[_Q + 1]) & _own(rows, side)
    return found


class _Moves:
    """The tokens of a chunk, column by column, with the moves that SAN is worked out for marked ``live`` (every
    token a move, not a null move, of a game the batch decoded); or a part of them (:meth:`take`)."""

    def __init__(self, out: Any, owner: np.ndarray[Any, Any], decoded: np.ndarray[Any, Any],
                 after: np.ndarray[Any, Any], fallback: np.ndarray[Any, Any]) -> None:
        self.owner = owner
        """By slot: its game."""
        # a move (not a null move) the decoder wrote, of a game it decoded
        self.live = decoded & (out.kind == _MOVE) & ~out.null & ~fallback[self.owner]
        self.rows = after
        self.side = (~out.white).astype(np.int64)
        self.source = out.source.astype(np.int64)
        self.target = out.target.astype(np.int64)
        self.piece = out.piece.astype(np.int64)
        self.castling = out.castling
        self.passant = out.passant
        self.promotion = out.promotion.astype(np.int64)
        self.occupied = self.rows[0] | self.rows[1]


def _deltas(out: Any, decoded: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per token (a column each): the bitboards it changes, XORed (0 for markers, null moves and the tokens of
    games the batch did not decode; a variation's end is given its own below, :func:`_closed`)."""
    total = len(out.kind)
    delta = np.zeros((COLUMNS, total), _U64)
    flat = delta.reshape(-1)
    rows = np.arange(COLUMNS, dtype=np.int64) * total
    """By row: where it starts in ``flat``."""
    slots = np.flatnonzero(decoded & (out.kind == _MOVE) & ~out.null)
    white = out.white.take(slots)
    source, target = out.source.take(slots), out.target.take(slots)
    from_bit, to_bit = SQUARE_BB.take(source), SQUARE_BB.take(target)
    both = from_bit | to_bit
    mine = np.where(white, slots, slots + total)
    flat[mine] = both
    promotion = out.promotion.take(slots)
    flat[rows.take(out.piece.take(slots) + 1) + slots] = np.where(promotion > 0, from_bit, both)
    lanes = np.flatnonzero(promotion)
    flat[rows.take(promotion[lanes] + 1) + slots[lanes]] ^= to_bit[lanes]
    captured = out.captured.take(slots)
    lanes = np.flatnonzero(captured)
    if lanes.size:
        at, bit = slots[lanes], to_bit[lanes]
        flat[np.where(white[lanes], at + total, at)] = bit
        flat[rows.take(captured[lanes] + 1) + at] ^= bit
    lanes = np.flatnonzero(out.passant.take(slots))
    if lanes.size:
        at, white = slots[lanes], white[lanes]
        bit = SQUARE_BB.take(np.where(white, target[lanes] - 8, target[lanes] + 8))
        flat[np.where(white, at + total, at)] = bit
        flat[(_P + 1) * total + at] ^= bit
    lanes = np.flatnonzero(out.castling.take(slots))
    if lanes.size:  # source: the king, target: the rook; the rows written above for them are written again
        at, king, rook = slots[lanes], from_bit[lanes], to_bit[lanes]
        short = (target[lanes] & 7) == 7
        rank = source[lanes].astype(np.int64) & 56
        king_to = SQUARE_BB.take(rank + np.where(short, 6, 2))
        rook_to = SQUARE_BB.take(rank + np.where(short, 5, 3))
        flat[mine[lanes]] = (king | rook) ^ (king_to | rook_to)
        flat[(_K + 1) * total + at] = king ^ king_to
        flat[(_R + 1) * total + at] = rook ^ rook_to
    return delta


def _closed(out: Any, owner: np.ndarray[Any, Any], decoded: np.ndarray[Any, Any],
            delta: np.ndarray[Any, Any]) -> None:
    """Give each variation's end the change that takes the board back to where the variation began: the XOR of
    the changes between its start and its end (the innermost first, so that those of nested ones are in)."""
    marks = np.flatnonzero(decoded & ((out.kind == _PUSH) | (out.kind == _POP)))
    if not marks.size:
        return
    step = np.where(out.kind.take(marks) == _PUSH, 1, -1)
    games = owner.take(marks)
    # every decoded game's stream ends with a POP at depth 0: its depth counts from the games before it
    depth = np.cumsum(step) + np.cumsum(np.append(True, games[1:] != games[:-1])) - 1
    level = np.where(step > 0, depth, depth + 1)  # a PUSH's depth after it, a POP's before it
    inner = level > 0
    marks, games, level = marks[inner], games[inner], level[inner]
    if not marks.size:
        return
    order = np.lexsort((marks, level, games))
    marks, level = marks[order], level[order]
    starts, ends, level = marks[0::2], marks[1::2], level[0::2]  # push, pop alternate in a game's level
    for depth_now in range(int(level.max()), 0, -1):
        at = np.flatnonzero(level == depth_now)
        low, high = int(starts[at].min()), int(ends[at].max())
        running = np.bitwise_xor.accumulate(delta[:, low:high], axis=1)
        delta[:, ends[at]] = running[:, ends[at] - 1 - low] ^ running[:, starts[at] - low]


def positions(out: Any, first: np.ndarray[Any, Any], count: np.ndarray[Any, Any], fallback: np.ndarray[Any, Any],
              start: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(owner, decoded, after): per slot its game, whether the batch decoded it (a token of a game it decoded) and
    the bitboards (:data:`COLUMNS` rows) of the position after it, from the games' start position ``start`` (a
    column): the changes the tokens make XORed along each game (a variation's end undoes the variation,
    :func:`_closed`). Games where castling, a null move or a skipped byte is played in check join ``fallback``."""
    total = len(out.kind)
    capacity = np.diff(np.append(first, total))
    owner = np.repeat(np.arange(len(first)), capacity)
    used = np.flatnonzero(~fallback & (count > 0))
    edges = np.zeros(total + 1, np.int8)
    edges[first.take(used)] = 1
    edges[first.take(used) + count.take(used)] -= 1
    decoded = np.cumsum(edges[:-1], dtype=np.int8) > 0
    delta = _deltas(out, decoded)
    _closed(out, owner, decoded, delta)
    # played in check? (the position before: the one after, the token's change undone)
    stuck = np.flatnonzero(decoded & (((out.kind == _MOVE) & (out.castling | out.null)) | (out.kind == _SKIP)))
    undo = delta[:, stuck]
    # the running XOR starts again at each game: its first change also undoes the last game's total
    firsts = first[capacity > 0]
    if len(firsts):
        reset = np.bitwise_xor.reduceat(delta, firsts, axis=1)
        reset[:, 1:] = reset[:, :-1]
        reset[:, :1] = start
        delta[:, firsts] ^= reset
    after = np.bitwise_xor.accumulate(delta, axis=1, out=delta)
    if stuck.size:
        checked = checkers(_boards(after[:, stuck] ^ undo, out.white.take(stuck))) != 0
        fallback[owner.take(stuck[checked])] = True
    return owner, decoded, after


BLOCK = 1 << 15
"""About this many tokens are annotated at once (whole games): arrays of that size stay in the caches, and
numpy's temporaries are reused memory rather than fresh pages (which, at a chunk's size, cost more than the
work)."""
_FIELDS = ("kind", "white", "source", "target", "piece", "promotion", "castling", "null", "capture", "captured",
           "check", "rival")


def annotate(out: Any, first: np.ndarray[Any, Any], count: np.ndarray[Any, Any], fallback: np.ndarray[Any, Any],
             start: np.ndarray[Any, Any]) -> None:
    """Fill ``out.check`` and ``out.rival`` for every move of the games the batch decoded (``first``: each game's
    first slot, ``count`` its number of tokens; ``start``: the bitboards of their start position); games with an
    illegal move, or castling, a null move or a skipped byte in check, join ``fallback``. Done in blocks of
    whole games of about :data:`BLOCK` tokens."""
    total = len(out.kind)
    games = len(first)
    if not games:
        return
    cuts = np.unique(np.searchsorted(first, np.arange(0, total, BLOCK), side="right") - 1)
    cuts = np.append(cuts[cuts > 0], games)
    low = 0
    open_checks: list[tuple[np.ndarray[Any, Any], ...]] = []
    for high in cuts.tolist():
        begin = int(first[low])
        end = int(first[high]) if high < games else total
        if end > begin:
            part = SimpleNamespace(**{name: getattr(out, name)[begin:end] for name in _FIELDS})
            part.captured = part.captured & 7
            part.passant = part.capture & (part.captured == 0)  # a capture with nothing on the target square
            found = _annotate(part, first[low:high] - begin, count[low:high], fallback[low:high], start)
            if found is not None:
                open_checks.append((found[0] + begin, *found[1:]))
        low = high
    if open_checks:  # the kernel's move generator, once for the chunk
        slots, rows, white, ep = (np.concatenate(column, axis=-1) for column in zip(*open_checks, strict=True))
        offsets, _ = legal_moves(_boards(rows, white, ep))
        out.check[slots] = np.where(np.diff(offsets) > 0, 1, 2)


def _annotate(out: Any, first: np.ndarray[Any, Any], count: np.ndarray[Any, Any], fallback: np.ndarray[Any, Any],
              start: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], ...] | None:
    """:func:`annotate` on one block of games; the checks it leaves open (:func:`_mates`)."""
    owner, decoded, after = positions(out, first, count, fallback, start)
    moves = _Moves(out, owner, decoded, after, fallback)
    if not moves.live.any():
        return None
    checking = _checks(moves)
    illegal = _illegal(moves, checking) & moves.live
    if illegal.any():
        fallback[moves.owner[illegal]] = True
        moves.live &= ~fallback[moves.owner]
    checking &= moves.live
    out.rival[:] = _rivals(moves)
    return _mates(moves, checking, out)


def _checks(moves: _Moves) -> np.ndarray[Any, Any]:
    """Per move: does it give check? The piece that moved attacks the king, or the kernel says so where it could
    otherwise: a line to the king opened, castling."""
    rows, side, target = moves.rows, moves.side, moves.target
    king = _king(rows, 1 - side)
    code = side * 8 + np.where(moves.promotion > 0, moves.promotion, moves.piece)
    direct: np.ndarray[Any, Any] = (_ATTACKS_BY_CODE.take(code * 64 + target) & SQUARE_BB.take(king)) != 0
    direct &= ((_BETWEEN.take(target * 64 + king) & moves.occupied) == 0) & ~moves.castling
    maybe = (_opened(moves, king, _sliders(rows, side)) | moves.castling) & ~direct
    direct |= _exposed(moves, 1 - side, maybe)
    return direct


def _illegal(moves: _Moves, checking: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per move: does it leave its own king attacked? Asked of the kernel where it could: a king's move, a line
    opened to the king, a move played in check or after a token that is not a move (by induction: a move played
    from a legal position that is not in check, none of these, leaves its king safe)."""
    rows, side = moves.rows, moves.side
    known = np.zeros(len(side), bool)  # after a move of the same game that gave no check
    known[1:] = moves.live[:-1] & ~checking[:-1] & (moves.owner[1:] == moves.owner[:-1])
    maybe = ~known | (moves.piece == _K) | _opened(moves, _king(rows, side), _sliders(rows, 1 - side))
    return _exposed(moves, side, maybe)


def _exposed(moves: _Moves, side: np.ndarray[Any, Any], maybe: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per move: is the king of ``side`` (0 white) attacked after it? The kernel's :func:`checkers` on the
    moves ``maybe`` (the others: no)."""
    found = np.zeros(len(side), bool)
    lanes = np.flatnonzero(maybe & moves.live)
    if lanes.size:
        found[lanes] = checkers(_boards(moves.rows[:, lanes], side[lanes] == 0)) != 0
    return found


def _rivals(moves: _Moves) -> np.ndarray[Any, Any]:
    """Per move: 0 = no rival, else how SAN names the source: 1 by its file, 2 by its rank, 3 by its square."""
    side, piece, source, target = moves.side, moves.piece, moves.source, moves.target
    rows = moves.rows
    count = len(source)
    to_bit = SQUARE_BB.take(target)
    reach = _ATTACKS_BY_CODE.take(piece * 64 + target)  # the others of the kind on its lines, blocked or not
    reach &= rows.reshape(-1).take((piece + 1) * count + np.arange(count))
    reach &= _own(rows, side) & ~to_bit
    reach[~moves.live] = 0
    out = np.zeros(count, np.int8)
    lanes = np.flatnonzero(reach)
    lanes = lanes[(piece[lanes] != _P) & (piece[lanes] != _K)]  # (SAN names no rival of a pawn or king)
    if not lanes.size:
        return out
    side, source, target = side[lanes], source[lanes], target[lanes]
    occupied = moves.occupied[lanes] | SQUARE_BB.take(source)  # before the move
    owner, rival = expand_bits(_attackers(target, occupied, reach[lanes], piece[lanes], side))
    after = (occupied[owner] & ~SQUARE_BB.take(rival)) | to_bit[lanes[owner]]  # the rival's move played instead
    legal = checkers(_boards(rows[:, lanes[owner]], side[owner] == 0), after) == 0
    owner, rival, source = lanes[owner[legal]], rival[legal], source[owner[legal]]
    any_rival = np.zeros(count, bool)
    any_rival[owner] = True
    same_file = np.zeros(count, bool)
    same_rank = np.zeros(count, bool)
    same_file[owner[(rival & 7) == (source & 7)]] = True
    same_rank[owner[(rival >> 3) == (source >> 3)]] = True
    named = np.flatnonzero(any_rival)
    out[named] = np.where(~same_file[named], 1, np.where(~same_rank[named], 2, 3))
    return out


def _sound(occupied: np.ndarray[Any, Any], side: np.ndarray[Any, Any], piece: np.ndarray[Any, Any],
           source: np.ndarray[Any, Any], target: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Is each move a piece's move along its lines, nothing between, or a pawn's push onto empty squares or
    capture of a piece (en passant not counted)? ``occupied``: the squares occupied before the move."""
    from_bit, to_bit = SQUARE_BB.take(source), SQUARE_BB.take(target)
    pawn = piece == _P
    up, twice = pawn_pushes(np.where(pawn, from_bit, _U64(0)), side == 0, ~occupied)
    moving = np.where(pawn & ((occupied & to_bit) == 0), _U64(0), from_bit)  # a pawn takes, onto a piece only
    return np.asarray((_attackers(target, occupied, moving, piece, side) | ((up | twice) & to_bit)) != 0, dtype=bool)


def _mates(moves: _Moves, checking: np.ndarray[Any, Any], out: Any) -> tuple[np.ndarray[Any, Any], ...] | None:
    """``out.check`` of the checking moves: 1 (2 where the opponent has no legal move) where the next token proves
    it, a move along its piece's lines; the others, for the kernel's move generator (:func:`annotate`): their slots,
    bitboards, white to move (the checked side: the mover was black), en-passant square."""
    lanes = np.flatnonzero(checking)
    if not lanes.size:
        return None
    slots = lanes
    following = slots + 1
    inside = following < len(moves.live)
    following = np.minimum(following, len(moves.live) - 1)
    proved = inside & moves.live[following] & (moves.owner[following] == moves.owner[slots])
    proved &= ~out.castling[following]
    rows = moves.rows[:, lanes]
    proved &= _sound(moves.occupied[lanes], 1 - moves.side[lanes], out.piece[following].astype(np.int64),
                     out.source[following].astype(np.int64), out.target[following].astype(np.int64))
    out.check[slots] = 1
    rest = np.flatnonzero(~proved)
    if not rest.size:
        return None
    lanes = lanes[rest]
    double = (moves.piece[lanes] == _P) & (np.abs(moves.target[lanes] - moves.source[lanes]) == 16)
    ep = np.where(double, (moves.source[lanes] + moves.target[lanes]) >> 1, 0)
    return slots[rest], rows[:, rest], moves.side[lanes] == 1, ep
