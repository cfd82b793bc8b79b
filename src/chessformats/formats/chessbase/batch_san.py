"""What SAN needs, for many games at once: rivals of a move (for disambiguation), check, and mate.

Used by :mod:`.batch` while it decodes (``san=True``): each step, for the games that moved, on the state's
bitboards (:func:`bitboards`). Every attack is the chess kernel's (:func:`chessformats.kernel.batch.attacked`,
its slider look-ups and tables); the rules are those of SAN:

- rivals: the other pieces of the kind (knights, bishops, rooks, queens) that attack the target square and
  could go there legally (their king not attacked afterwards);
- check: the opponent's king attacked after the move. A game with a move that leaves its own king attacked (a
  damaged stream that still decodes) goes to the scalar path (``State._legal``);
- mate: a check after which the opponent has no legal move. When the next token of the stream is a move
  played from that position and that move is legal, the check is no mate; otherwise (the line ends there,
  or the next move is one this module does not verify) the kernel's move generator decides from the position
  (:class:`Mates`, all such positions of a chunk at once).
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np

from ...kernel.batch import Boards, attacked, expand_bits, legal_moves, square_of
from ...kernel.lookup import BETWEEN_BB, EMPTY_ATTACKS_BB, LINE_BB, PAWN_BB, SQUARE_BB

__all__ = ["COLUMNS", "Mates", "attacked_by", "bitboards", "checks", "open_line", "rivals", "settle_mates"]

_N, _B, _R, _Q, _K, _P = chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING, chess.PAWN
COLUMNS = 16
"""A game's bitboards: column ``colour * 8 + piece`` (colour 0 white, 1 black; piece: python-chess's type) holds
that piece's squares -- the column is the board's piece code -- and column ``colour * 8`` all that colour's."""
_U64 = np.uint64
_ALL = _U64(0xFFFF_FFFF_FFFF_FFFF)
_LINE, _BETWEEN = LINE_BB.ravel(), BETWEEN_BB.ravel()
"""By ``a * 64 + b``."""
_ATTACKS_BY_CODE = np.concatenate([EMPTY_ATTACKS_BB, EMPTY_ATTACKS_BB[:1]] * 2)
_ATTACKS_BY_CODE[_P], _ATTACKS_BY_CODE[8 + _P] = PAWN_BB[1], PAWN_BB[0]
_ATTACKS_BY_CODE = _ATTACKS_BY_CODE.ravel()
"""By ``piece code * 64 + square`` (the codes of the bitboards' columns): the squares that piece there attacks on
an empty board."""
_RIVAL_REACH = EMPTY_ATTACKS_BB.copy()
_RIVAL_REACH[_K] = 0
_RIVAL_REACH = _RIVAL_REACH.ravel()
"""By ``piece * 64 + square``: where a knight, bishop, rook or queen that could go to the square stands, on an
empty board (none for a pawn or king: SAN names no rival of theirs)."""


def bitboards(board: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The bitboards (games, :data:`COLUMNS`) of boards of piece codes (games, 64)."""
    bits = np.zeros((len(board), COLUMNS), _U64)
    for code in (*range(1, 7), *range(9, 15)):
        packed = np.packbits(board == code, axis=1, bitorder="little")
        bits[:, code] = np.ascontiguousarray(packed).view("<u8").reshape(-1)
        bits[:, code & 8] |= bits[:, code]
    return bits


def attacked_by(bits: np.ndarray[Any, Any], games: np.ndarray[Any, Any], square: np.ndarray[Any, Any],
                by: np.ndarray[Any, Any], occupied: np.ndarray[Any, Any],
                keep: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
    """Per row: is ``square`` attacked by side ``by`` (0 white) of game ``games`` (rows of ``bits``), squares
    ``occupied``, only its pieces on ``keep`` counted (default all)?"""
    flat = bits.reshape(-1)
    base = games * COLUMNS + by * 8
    mask = _ALL if keep is None else keep
    queens = flat.take(base + _Q)
    found = attacked(square, occupied, flat.take(base + _N) & mask, flat.take(base + _K) & mask,
                     flat.take(base + _P) & mask, by, (flat.take(base + _B) | queens) & mask,
                     (flat.take(base + _R) | queens) & mask)
    return np.asarray(found != 0, dtype=bool)


def _king(bits: np.ndarray[Any, Any], games: np.ndarray[Any, Any],
          side: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The square of side ``side``'s king in each game, and whether it has one."""
    kings = bits.reshape(-1).take(games * COLUMNS + side * 8 + _K)
    return square_of(kings), kings != 0


def open_line(square: np.ndarray[Any, Any], king: np.ndarray[Any, Any],
              occupied: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Does ``square`` share a line with ``king``, nothing between them?"""
    index = square * 64 + king
    return np.asarray((_LINE.take(index) != 0) & ((_BETWEEN.take(index) & occupied) == 0), dtype=bool)


def checks(bits: np.ndarray[Any, Any], games: np.ndarray[Any, Any], side: np.ndarray[Any, Any],
           near: tuple[np.ndarray[Any, Any], ...] | None = None) -> np.ndarray[Any, Any]:
    """After ``side`` moved in ``games``: is the other side's king attacked? ``near``: the piece code now on the
    move's target, its source, target and the square an en-passant capture emptied (else its source), for a quick
    answer (by that piece, or through a line from the king to a square the move emptied); None: every attacker."""
    king, present = _king(bits, games, 1 - side)
    flat = bits.reshape(-1)
    occupied = flat.take(games * COLUMNS) | flat.take(games * COLUMNS + 8)
    if near is None:
        return attacked_by(bits, games, king, side, occupied) & present
    code, source, target, emptied = near
    checking = (_ATTACKS_BY_CODE.take(code * 64 + target) & SQUARE_BB.take(king)) != 0
    checking &= (_BETWEEN.take(target * 64 + king) & occupied) == 0
    maybe = ~checking & (open_line(source, king, occupied) | open_line(emptied, king, occupied))
    lanes = np.flatnonzero(maybe)
    if lanes.size:
        checking[lanes] = attacked_by(bits, games[lanes], king[lanes], side[lanes], occupied[lanes])
    return checking & present


def rivals(bits: np.ndarray[Any, Any], games: np.ndarray[Any, Any], side: np.ndarray[Any, Any],
           piece: np.ndarray[Any, Any], source: np.ndarray[Any, Any],
           target: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per row (before the move): 0 = no rival, else how SAN names the source: 1 by its file, 2 by its rank, 3 by
    its square."""
    out = np.zeros(len(source), np.int8)
    flat = bits.reshape(-1)
    base = games * COLUMNS + side * 8
    reach = _RIVAL_REACH.take(piece * 64 + target)  # the others of the kind on its lines, blocked or not
    reach &= flat.take(base + piece)
    reach &= ~SQUARE_BB.take(source)
    owner, rival = expand_bits(reach)
    if not owner.size:
        return out
    games, side, source, target = games[owner], side[owner], source[owner], target[owner]
    occupied = flat.take(games * COLUMNS) | flat.take(games * COLUMNS + 8)
    king, present = _king(bits, games, side)
    to_bit = SQUARE_BB.take(target)
    after = (occupied & ~SQUARE_BB.take(rival)) | to_bit
    legal = present & ((_BETWEEN.take(rival * 64 + target) & occupied) == 0)
    legal &= ~attacked_by(bits, games, king, 1 - side, after, ~to_bit)
    owner, rival, source = owner[legal], rival[legal], source[legal]
    count = len(out)
    any_rival = np.zeros(count, bool)
    any_rival[owner] = True
    same_file = np.zeros(count, bool)
    same_rank = np.zeros(count, bool)
    same_file[owner[(rival & 7) == (source & 7)]] = True
    same_rank[owner[(rival >> 3) == (source >> 3)]] = True
    out[any_rival] = np.where(~same_file, 1, np.where(~same_rank, 2, 3))[any_rival]
    return out


def _sound(rows: np.ndarray[Any, Any], side: np.ndarray[Any, Any], piece: np.ndarray[Any, Any],
           source: np.ndarray[Any, Any], target: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Is each move a piece's move along its lines, nothing between, or a pawn's push onto empty squares or
    capture of a piece (en passant not counted)? ``rows``: the bitboards before the move."""
    occupied = rows[:, 0] | rows[:, 8]
    to_bit = SQUARE_BB.take(target)
    index = source * 64 + target
    sound = (piece >= _N) & ((EMPTY_ATTACKS_BB[np.minimum(piece, _K), source] & to_bit) != 0)
    sound &= (_BETWEEN.take(index) & occupied) == 0
    pawn = piece == _P
    if pawn.any():
        taken = (occupied & to_bit) != 0
        forward = np.where(side == 0, 8, -8)
        straight = ((source & 7) == (target & 7)) & ~taken
        single = straight & (target == source + forward)
        middle = SQUARE_BB.take(np.clip(source + forward, 0, 63))
        double = straight & (target == source + 2 * forward) & ((source >> 3) == np.where(side == 0, 1, 6)) & \
            ((occupied & middle) == 0)
        capture = taken & ((PAWN_BB[1 - side, source] & to_bit) != 0)
        sound |= pawn & (single | double | capture)
    return np.asarray(sound, dtype=bool)


class Mates:
    """Checks whose mate the stream does not settle, decided together (:meth:`decide`) by the kernel's move
    generator: the position after each (bitboards, side to move, en-passant square) and its token slot."""

    def __init__(self) -> None:
        self.parts: list[tuple[np.ndarray[Any, Any], ...]] = []

    def add(self, rows: np.ndarray[Any, Any], white: np.ndarray[Any, Any], slots: np.ndarray[Any, Any],
            out: Any) -> None:
        """The checks of token ``slots``, from the positions after them (``rows``: their bitboards, ``white``:
        white to move there)."""
        if not len(slots):
            return
        source, target = out.source[slots].astype(np.int64), out.target[slots].astype(np.int64)
        double = (out.piece[slots] == _P) & (np.abs(target - source) == 16)
        self.parts.append((rows, white, np.where(double, (source + target) >> 1, 0), slots))

    def decide(self, out: Any) -> None:
        """Mark each check 1 ("+") or 2 ("#": no legal move)."""
        if not self.parts:
            return
        rows, white, ep, slots = (np.concatenate(column) for column in zip(*self.parts, strict=True))
        self.parts = []
        count = len(slots)
        pieces = [rows[:, piece] | rows[:, 8 + piece] for piece in range(_P, _K + 1)]
        boards = Boards(rows[:, 0], rows[:, 8], *pieces, white.astype(bool), ep.astype(np.uint8),
                        np.zeros(count, _U64), np.zeros(count, np.uint16), np.ones(count, np.uint16))
        offsets, _ = legal_moves(boards)
        out.check[slots] = np.where(np.diff(offsets) > 0, 1, 2)


def settle_mates(state: Any, verify: tuple[Any, ...] | None, bad: np.ndarray[Any, Any], out: Any) -> None:
    """Settle the checks whose next move was played this step (``verify``: from ``State._pending``): a legal
    move there proves no mate; the others are decided from the position before that move."""
    if verify is None:
        return
    lanes, games, check_slots, move_slots, rows = verify
    ok = ~bad[lanes]
    piece = out.piece[move_slots].astype(np.int64)
    source = out.source[move_slots].astype(np.int64)
    target = out.target[move_slots].astype(np.int64)
    side = (~out.white[move_slots]).astype(np.int64)
    sound = _sound(rows, side, piece, source, target)
    sound &= ok & ~out.castling[move_slots] & ~out.null[move_slots]
    king, present = _king(state.bits, games, side)
    flat = state.bits.reshape(-1)
    occupied = flat.take(games * COLUMNS) | flat.take(games * COLUMNS + 8)
    safe = ~attacked_by(state.bits, games, king, 1 - side, occupied) & present
    bad[lanes[ok & ~safe]] = True  # a move that leaves its king in check: the scalar path (see State._legal)
    proved = sound & safe
    out.check[check_slots[proved]] = 1
    rest = np.flatnonzero(~proved & ok)
    state.mates.add(rows[rest], side[rest] == 0, check_slots[rest], out)
