"""What SAN needs, for many games at once: rivals of a move (for disambiguation), check, and mate.

Used by :mod:`.batch` while it decodes (``san=True``): each step, for the games that moved, on the state
arrays. The rules are :class:`~.san.SanBoard`'s, which the export path used game by game:

- rivals: the other pieces of the kind (knights, bishops, rooks, queens) that attack the target square and
  could go there legally (their king not attacked afterwards);
- check: the opponent's king attacked after the move -- by the piece that moved, or through a line from the
  king to a square the move emptied (looked at in full only then). That is every check of a stream whose moves
  are legal; a game with a move that leaves its own king attacked (a damaged stream that still decodes) goes
  to the scalar path (``State._legal``);
- mate: a check after which the opponent has no legal move. When the next token of the stream is a move
  played from that position and that move is legal, the check is no mate; otherwise (the line ends there,
  or the next move is one this module does not verify) :class:`~.san.SanBoard` decides from the position.

Every piece of a game the batch decodes has a number (the batch leaves the others to the scalar decoder),
so the piece lists hold every knight, bishop, rook, queen and king; pawns are looked up on the board.
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np

from ..bitboards import BETWEEN, KING, KNIGHT, PAWN_ATTACKS
from .san import SanBoard
from .start import BLACK

__all__ = ["SQUARE_BITS", "attacked", "decide", "direct_check", "geometry", "has_legal_move", "occupancy",
           "open_line", "pawn_geometry", "rivals", "settle_mates"]

_N, _B, _R, _Q, _K, _P = chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING, chess.PAWN
# geometry kinds: knight, king, diagonal slider, straight slider, queen, white pawn capture, black pawn capture
_KN, _KI, _DIAG, _STRAIGHT, _QU, _WP, _BP = range(7)


def _geometry() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """GEO[kind, from, to]: a piece of that kind on ``from`` attacks ``to`` on an empty board;
    BETWEEN64[from, to]: the squares strictly between (uint64)."""
    geo = np.zeros((7, 64, 64), dtype=bool)
    between = np.zeros((64, 64), dtype=np.uint64)
    for a in range(64):
        for b in range(64):
            between[a, b] = BETWEEN[a][b]
            if a == b:
                continue
            bit = 1 << b
            geo[_KN, a, b] = bool(KNIGHT[a] & bit)
            geo[_KI, a, b] = bool(KING[a] & bit)
            same_line = chess.BB_RAYS[a][b] != 0
            straight = same_line and ((a & 7) == (b & 7) or (a >> 3) == (b >> 3))
            geo[_STRAIGHT, a, b] = straight
            geo[_DIAG, a, b] = same_line and not straight
            geo[_QU, a, b] = same_line
            geo[_WP, a, b] = bool(PAWN_ATTACKS[chess.WHITE][a] & bit)
            geo[_BP, a, b] = bool(PAWN_ATTACKS[chess.BLACK][a] & bit)
    return geo, between


GEO, BETWEEN64 = _geometry()
SQUARE_BITS = np.array([1 << square for square in range(64)], dtype=np.uint64)
_KIND_OF_PIECE = np.array([0, 0, _KN, _DIAG, _STRAIGHT, _QU, _KI], dtype=np.int64)
# the piece-list slots that can attack (side 0; add 56 for side 1) and their geometry kinds
_SLOTS = np.array([_N * 8, _N * 8 + 1, _N * 8 + 2, _K * 8, _B * 8, _B * 8 + 1, _B * 8 + 2, _R * 8, _R * 8 + 1,
                   _R * 8 + 2, _Q * 8, _Q * 8 + 1, _Q * 8 + 2], dtype=np.int64)
_SLOT_KINDS = np.array([_KN, _KN, _KN, _KI, _DIAG, _DIAG, _DIAG, _STRAIGHT, _STRAIGHT, _STRAIGHT, _QU, _QU, _QU],
                       dtype=np.int64)
_PAWN_ATTACKERS = np.full((2, 64, 2), -1, dtype=np.int64)
"""_PAWN_ATTACKERS[side, square]: the squares a pawn of ``side`` (0 white) attacks ``square`` from."""
for _side in (0, 1):
    for _square in range(64):
        _found = [source for source in range(64) if PAWN_ATTACKS[_side == 0][source] >> _square & 1]
        _PAWN_ATTACKERS[_side, _square, :len(_found)] = _found


def occupancy(board: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The occupied squares of each board row (games, 64) as uint64 bitboards."""
    bits = np.packbits(board != 0, axis=1, bitorder="little")
    return np.ascontiguousarray(bits).view("<u8").reshape(-1).astype(np.uint64)


def attacked(pieces: np.ndarray[Any, Any], board: np.ndarray[Any, Any], games: np.ndarray[Any, Any],
             square: np.ndarray[Any, Any], by: np.ndarray[Any, Any], occupied: np.ndarray[Any, Any],
             excluded: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per row: is ``square`` attacked by side ``by`` (0 white), squares ``occupied``, the piece on ``excluded``
    (a square or -1) not counted? ``pieces[games]`` and ``board[games]`` are the rows' piece lists and boards."""
    sources = pieces[games[:, None], (by * 56)[:, None] + _SLOTS[None, :]].astype(np.int64)
    valid = (sources >= 0) & (sources != excluded[:, None])
    sources = np.where(valid, sources, 0)
    hits = valid & GEO[_SLOT_KINDS[None, :], sources, square[:, None]]
    hits &= (BETWEEN64[sources, square[:, None]] & occupied[:, None]) == 0
    found = hits.any(axis=1)
    pawns = _PAWN_ATTACKERS[by, square]  # (rows, 2)
    pawn = _P | np.where(by == 1, BLACK, 0)
    on = board[games[:, None], np.maximum(pawns, 0)] == pawn[:, None]
    found |= ((pawns >= 0) & on & (pawns != excluded[:, None])).any(axis=1)
    return np.asarray(found, dtype=bool)


def open_line(square: np.ndarray[Any, Any], king: np.ndarray[Any, Any],
              occupied: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Does ``square`` share a line with ``king``, nothing between them?"""
    return np.asarray(GEO[_QU, square, king] & ((BETWEEN64[square, king] & occupied) == 0), dtype=bool)


def direct_check(board: np.ndarray[Any, Any], games: np.ndarray[Any, Any], side: np.ndarray[Any, Any],
                 target: np.ndarray[Any, Any], king: np.ndarray[Any, Any],
                 occupied: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """After a move of ``side`` onto ``target`` (the board updated): does the piece standing there attack
    ``king``?"""
    piece = (board[games, target] & 7).astype(np.int64)
    kind = np.where(piece == _P, np.where(side == 0, _WP, _BP), _KIND_OF_PIECE[piece])
    found = GEO[kind, target, king] & ((BETWEEN64[target, king] & occupied) == 0)
    return np.asarray(found & (piece != 0), dtype=bool)


def geometry(piece: np.ndarray[Any, Any], source: np.ndarray[Any, Any], target: np.ndarray[Any, Any],
             occupied: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Does a knight, bishop, rook, queen or king on ``source`` attack ``target`` (nothing between)?"""
    kind = _KIND_OF_PIECE[piece]
    clear = (BETWEEN64[source, target] & occupied) == 0
    return np.asarray(GEO[kind, source, target] & clear & (piece >= _N), dtype=bool)


def rivals(pieces: np.ndarray[Any, Any], board: np.ndarray[Any, Any], games: np.ndarray[Any, Any],
           occupied: np.ndarray[Any, Any], side: np.ndarray[Any, Any], piece: np.ndarray[Any, Any],
           source: np.ndarray[Any, Any], target: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per row (before the move; ``pieces[games]``, ``board[games]`` the rows' piece lists and boards): 0 = no
    rival, else how SAN names the source: 1 by its file, 2 by its rank, 3 by its square."""
    out = np.zeros(len(source), np.int8)
    named = (piece >= _N) & (piece <= _Q)
    if not named.any():
        return out
    lanes = np.flatnonzero(named)
    columns = (side[lanes] * 56 + piece[lanes] * 8)[:, None] + np.arange(3)[None, :]
    others = pieces[games[lanes][:, None], columns].astype(np.int64)
    present = (others >= 0) & (others != source[lanes][:, None])
    others = np.where(present, others, 0)
    reach = present & GEO[_KIND_OF_PIECE[piece[lanes]][:, None], others, target[lanes][:, None]]
    reach &= (BETWEEN64[others, target[lanes][:, None]] & occupied[lanes][:, None]) == 0
    if not reach.any():
        return out
    pair_lane, pair_column = np.nonzero(reach)
    rows = lanes[pair_lane]
    rival = others[pair_lane, pair_column]
    king = pieces[games[rows], side[rows] * 56 + _K * 8].astype(np.int64)
    after = (occupied[rows] & ~SQUARE_BITS[rival]) | SQUARE_BITS[target[rows]]
    legal = ~attacked(pieces, board, games[rows], np.maximum(king, 0), 1 - side[rows], after, target[rows])
    legal &= king >= 0
    same_file = np.zeros(len(source), bool)
    same_rank = np.zeros(len(source), bool)
    any_rival = np.zeros(len(source), bool)
    keep = np.flatnonzero(legal)
    rows, rival = rows[keep], rival[keep]
    any_rival[rows] = True
    np.logical_or.at(same_file, rows, (rival & 7) == (source[rows] & 7))
    np.logical_or.at(same_rank, rows, (rival >> 3) == (source[rows] >> 3))
    out[any_rival] = np.where(~same_file[any_rival], 1, np.where(~same_rank[any_rival], 2, 3))
    return out


def pawn_geometry(boards: np.ndarray[Any, Any], side: np.ndarray[Any, Any], source: np.ndarray[Any, Any],
                  target: np.ndarray[Any, Any], taken: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Is a pawn's move of ``side`` a push onto empty squares or a capture of a piece (en passant not counted)?
    ``boards``: the rows' boards before the move; ``taken``: a piece stands on the target."""
    forward = np.where(side == 0, 8, -8)
    straight = ((source & 7) == (target & 7)) & ~taken
    single = straight & (target == source + forward)
    start = np.where(side == 0, 1, 6)
    middle = np.clip(source + forward, 0, 63)
    double = straight & (target == source + 2 * forward) & ((source >> 3) == start) & \
        (boards[np.arange(len(source)), middle] == 0)
    capture = taken & GEO[np.where(side == 0, _WP, _BP), source, target]
    return np.asarray(single | double | capture, dtype=bool)


def has_legal_move(board: list[int], white: bool, ep: int | None) -> bool:
    """Has the side to move a legal move? (:class:`SanBoard`'s answer, from a board of piece codes.)"""
    san = SanBoard.__new__(SanBoard)
    pieces = [0] * 7
    colour = [0, 0]
    for square, code in enumerate(board):
        if code:
            pieces[code & 7] |= 1 << square
            colour[0 if code & BLACK else 1] |= 1 << square
    san.pieces, san.colour, san.turn, san.ep, san.fullmove, san.losing = pieces, colour, white, ep, 1, False
    return san._has_legal_move(white)


def decide(board: list[int], white: bool, slot: int, out: Any) -> int:
    """1 ("+") or 2 ("#") for the check of token ``slot``, from the position after it."""
    ep = None
    if out.piece[slot] == _P and abs(int(out.target[slot]) - int(out.source[slot])) == 16:
        ep = (int(out.target[slot]) + int(out.source[slot])) // 2
    return 1 if has_legal_move(board, white, ep) else 2


def settle_mates(state: Any, verify: tuple[Any, ...] | None, bad: np.ndarray[Any, Any], out: Any) -> None:
    """Settle the checks whose next move was played this step (``verify``: from ``State._pending``): a legal
    move there proves no mate; the others are decided from the position before that move."""
    if verify is None:
        return
    lanes, games, check_slots, move_slots, boards, occupied = verify
    ok = ~bad[lanes]
    piece = out.piece[move_slots].astype(np.int64)
    source = out.source[move_slots].astype(np.int64)
    target = out.target[move_slots].astype(np.int64)
    side = (~out.white[move_slots]).astype(np.int64)
    rows = np.arange(len(games))
    taken = boards[rows, target] != 0
    sound = geometry(piece, source, target, occupied)
    pawn = piece == _P
    if pawn.any():
        sound |= pawn & pawn_geometry(boards, side, source, target, taken)
    sound &= ok & ~out.castling[move_slots] & ~out.null[move_slots]
    king = state.pieces[games, side * 56 + _K * 8].astype(np.int64)
    safe = ~attacked(state.pieces, state.board, games, np.maximum(king, 0), 1 - side, state.occupied[games],
                     np.full(len(games), -1, np.int64)) & (king >= 0)
    bad[lanes[ok & ~safe]] = True  # a move that leaves its king in check: the scalar path (see State._legal)
    proved = sound & safe
    out.check[check_slots[proved]] = 1
    for lane in np.flatnonzero(~proved & ok).tolist():
        white = not bool(side[lane])
        out.check[int(check_slots[lane])] = decide(boards[lane].tolist(), white, int(check_slots[lane]), out)
