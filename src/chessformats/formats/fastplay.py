"""Replaying SAN moves fast: a minimal bitboard position with an incrementally updated Polyglot key.

Book building replays millions of plies, most of them in positions nobody has met yet, where
python-chess's ``parse_san`` + ``push`` + hashing cost ~14 µs. This module does the same work for the
plain cases in a few µs: it resolves a SAN token against a :class:`Position` (a tuple of bitboards),
checks legality (the mover's king is not attacked afterwards; castling rules), applies the move and
updates the Polyglot Zobrist key incrementally. Anything it does not handle (null moves, unusual
notation, Chess960 castling) makes :func:`play_san` return ``None`` and the caller falls back to
python-chess, which also gives the verdict on illegal moves. The tests compare both on many games.
"""

from __future__ import annotations

from typing import NamedTuple

import chess

from ..schemas import polyglot as schema
from .polyglot import _CASTLE_TABLE, _EP_CAPTURERS, zobrist_hash

__all__ = ["Position", "play_san", "position_from_board", "position_to_board"]


class Position(NamedTuple):
    """A standard-chess position as bitboards, with its Polyglot key (and the key's en-passant part)."""

    white: int
    black: int
    pawns: int
    knights: int
    bishops: int
    rooks: int
    queens: int
    kings: int
    turn: bool
    castling: int
    """Rook squares that still carry a castling right (a1, h1, a8, h8), as in python-chess."""
    ep: int  # en-passant square after a double push, -1 when none
    key: int
    ep_part: int  # the en-passant term inside ``key`` (0 when it does not count)


def position_from_board(board: chess.Board) -> Position | None:
    """The :class:`Position` of a standard-chess board (``None`` for Chess960 or variants)."""
    if board.chess960 or type(board) is not chess.Board or board.promoted:
        return None
    ep = board.ep_square if board.ep_square is not None else -1
    key = zobrist_hash(board)
    ep_part = _ep_part(board.pawns, board.occupied_co[board.turn], board.turn, ep)
    castling = board.clean_castling_rights() & (chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8)
    return Position(board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns, board.knights,
                    board.bishops, board.rooks, board.queens, board.kings, board.turn, castling, ep, key, ep_part)


def position_to_board(position: Position) -> chess.Board:
    """A :class:`chess.Board` of the position (move counters 0 and 1)."""
    board = chess.Board(None)
    board.occupied_co[chess.WHITE] = position.white
    board.occupied_co[chess.BLACK] = position.black
    board.occupied = position.white | position.black
    board.pawns, board.knights, board.bishops = position.pawns, position.knights, position.bishops
    board.rooks, board.queens, board.kings = position.rooks, position.queens, position.kings
    board.turn = position.turn
    board.castling_rights = position.castling
    board.ep_square = position.ep if position.ep >= 0 else None
    return board


_SQUARES = chess.BB_SQUARES
_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_PAWN_ATTACKS = chess.BB_PAWN_ATTACKS
_DIAG_ATTACKS, _DIAG_MASKS = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
_RANK_ATTACKS, _RANK_MASKS = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
_FILE_ATTACKS, _FILE_MASKS = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS
_RANDOM_PIECE = schema.RANDOM_PIECE
_RANDOM_EN_PASSANT = schema.RANDOM_EN_PASSANT
_RANDOM_TURN = schema.RANDOM_TURN
_PIECES = {"N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK, "Q": chess.QUEEN, "K": chess.KING}
_PROMOTIONS = {"N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK, "Q": chess.QUEEN}
_FILES = {c: i for i, c in enumerate("abcdefgh")}
_RANKS = {c: i for i, c in enumerate("12345678")}
# castling: (king from, king to, rook from, rook to, squares that must be empty, squares not attacked)
_CASTLES = {
    (chess.WHITE, True): (chess.E1, chess.G1, chess.H1, chess.F1, chess.BB_F1 | chess.BB_G1,
                          (chess.E1, chess.F1, chess.G1)),
    (chess.WHITE, False): (chess.E1, chess.C1, chess.A1, chess.D1, chess.BB_B1 | chess.BB_C1 | chess.BB_D1,
                           (chess.E1, chess.D1, chess.C1)),
    (chess.BLACK, True): (chess.E8, chess.G8, chess.H8, chess.F8, chess.BB_F8 | chess.BB_G8,
                          (chess.E8, chess.F8, chess.G8)),
    (chess.BLACK, False): (chess.E8, chess.C8, chess.A8, chess.D8, chess.BB_B8 | chess.BB_C8 | chess.BB_D8,
                           (chess.E8, chess.D8, chess.C8)),
}


def _castle_index(rights: int) -> int:
    return ((rights >> 7) & 1) | ((rights & 1) << 1) | ((rights >> 61) & 4) | ((rights >> 53) & 8)


def _ep_part(pawns: int, movers: int, turn: bool, ep: int) -> int:
    """The en-passant term of the key: counted when a pawn of the side to move can reach the ep square."""
    if ep >= 0 and _EP_CAPTURERS[turn][ep] & pawns & movers:
        return _RANDOM_EN_PASSANT[ep & 7]
    return 0


def _attacked(square: int, attackers: int, pos: tuple[int, ...], occupied: int, by_white: bool) -> bool:
    """Whether ``attackers`` (one side's pieces) attack ``square`` with the given occupancy."""
    _, _, pawns, knights, bishops, rooks, queens, kings = pos[:8]
    if _KNIGHT[square] & knights & attackers or _KING[square] & kings & attackers:
        return True
    if _PAWN_ATTACKS[not by_white][square] & pawns & attackers:
        return True
    queens_and = queens & attackers
    if _DIAG_ATTACKS[square][_DIAG_MASKS[square] & occupied] & ((bishops & attackers) | queens_and):
        return True
    return bool((_RANK_ATTACKS[square][_RANK_MASKS[square] & occupied]
                 | _FILE_ATTACKS[square][_FILE_MASKS[square] & occupied]) & ((rooks & attackers) | queens_and))


def _kind(piece_type: int, white: bool) -> int:
    return 64 * (2 * (piece_type - 1) + (1 if white else 0))


# by colour (False black, True white) then piece type (1..6): the 64 key randoms of that piece
_PIECE_KEYS = {color: [[0] * 64] + [list(_RANDOM_PIECE[_kind(piece, color):_kind(piece, color) + 64])
                                    for piece in range(1, 7)] for color in (False, True)}
_KEYS_US = (_PIECE_KEYS[False], _PIECE_KEYS[True])  # indexed by the side to move
_KEYS_THEM = (_PIECE_KEYS[True], _PIECE_KEYS[False])


_CASTLE_SHORT, _CASTLE_LONG, _PIECE_MOVE, _PAWN_PUSH, _PAWN_CAPTURE = range(5)
_ALL = (1 << 64) - 1
_TOKENS: dict[str, tuple[int, int, int, int, int] | None] = {}
"""SAN token -> (form, piece, target square, origin filter, promotion); tokens repeat across positions."""


def _parse_token(token: str) -> tuple[int, int, int, int, int] | None:
    """The position-independent reading of a SAN token (``+``/``#`` already stripped), or ``None``."""
    if token in ("O-O", "0-0"):
        return _CASTLE_SHORT, chess.KING, 0, _ALL, 0
    if token in ("O-O-O", "0-0-0"):
        return _CASTLE_LONG, chess.KING, 0, _ALL, 0
    if len(token) < 2:
        return None
    first = token[0]
    if first in _PIECES:
        rest = token[1:].replace("x", "")
        if not 2 <= len(rest) <= 4:
            return None
        target_file, target_rank = _FILES.get(rest[-2]), _RANKS.get(rest[-1])
        if target_file is None or target_rank is None:
            return None
        mask = _ALL
        for char in rest[:-2]:  # disambiguation
            if char in _FILES:
                mask &= chess.BB_FILES[_FILES[char]]
            elif char in _RANKS:
                mask &= chess.BB_RANKS[_RANKS[char]]
            else:
                return None
        return _PIECE_MOVE, _PIECES[first], 8 * target_rank + target_file, mask, 0
    if first not in _FILES:
        return None
    body, promotion = token, 0
    if "=" in body:
        body, _, letter = body.partition("=")
        promotion = _PROMOTIONS.get(letter, -1)
    elif body[-1] in _PROMOTIONS:
        promotion = _PROMOTIONS[body[-1]]
        body = body[:-1]
    if promotion < 0 or len(body) not in (2, 4):
        return None
    target_file, target_rank = _FILES.get(body[-2]), _RANKS.get(body[-1])
    if target_file is None or target_rank is None or (target_rank in (0, 7)) != (promotion != 0):
        return None
    target = 8 * target_rank + target_file
    if len(body) == 2:
        return _PAWN_PUSH, chess.PAWN, target, _ALL, promotion
    if body[1] != "x" or abs(_FILES[body[0]] - target_file) != 1:
        return None
    return _PAWN_CAPTURE, chess.PAWN, target, chess.BB_FILES[_FILES[body[0]]], promotion


def play_san(pos: Position, san: str) -> tuple[int, Position] | None:
    """Play a SAN token: ``(polyglot raw move, next position)``, or ``None`` when not handled here.

    ``None`` covers both "illegal/unknown" and "not a case this fast path handles"; the caller asks
    python-chess, which decides.
    """
    token = san.rstrip("+#")
    try:
        parsed = _TOKENS[token]
    except KeyError:
        parsed = _TOKENS[token] = _parse_token(token) if len(_TOKENS) < 100_000 else None
        if parsed is None and len(_TOKENS) >= 100_000:
            parsed = _parse_token(token)
    if parsed is None:
        return None
    form, piece, target, mask, promotion = parsed
    if form == _CASTLE_SHORT:
        return _castle(pos, True)
    if form == _CASTLE_LONG:
        return _castle(pos, False)
    turn = pos.turn
    own = pos.white if turn else pos.black
    target_mask = _SQUARES[target]
    if target_mask & own:
        return None
    occupied = pos.white | pos.black
    if form == _PIECE_MOVE:
        if piece == chess.KNIGHT:
            candidates = _KNIGHT[target] & pos.knights
        elif piece == chess.BISHOP:
            candidates = _DIAG_ATTACKS[target][_DIAG_MASKS[target] & occupied] & pos.bishops
        elif piece == chess.ROOK:
            candidates = (_RANK_ATTACKS[target][_RANK_MASKS[target] & occupied]
                          | _FILE_ATTACKS[target][_FILE_MASKS[target] & occupied]) & pos.rooks
        elif piece == chess.QUEEN:
            candidates = (_DIAG_ATTACKS[target][_DIAG_MASKS[target] & occupied]
                          | _RANK_ATTACKS[target][_RANK_MASKS[target] & occupied]
                          | _FILE_ATTACKS[target][_FILE_MASKS[target] & occupied]) & pos.queens
        else:
            candidates = _KING[target] & pos.kings
        candidates &= own & mask
        if candidates & (candidates - 1) == 0:  # one candidate (or none): the usual case
            return _apply(pos, candidates.bit_length() - 1, target, piece, 0) if candidates else None
        result = None
        while candidates:
            origin = candidates.bit_length() - 1
            candidates ^= 1 << origin
            played = _apply(pos, origin, target, piece, 0)
            if played is not None:
                if result is not None:
                    return None  # ambiguous
                result = played
        return result
    step = 8 if turn else -8
    if form == _PAWN_PUSH:
        if target_mask & occupied:
            return None
        origin = target - step
        if not 0 <= origin < 64:
            return None
        if not _SQUARES[origin] & pos.pawns & own:
            if _SQUARES[origin] & occupied or target >> 3 != (3 if turn else 4):
                return None
            origin -= step  # double push from the start rank
    else:  # capture: the origin is on the given file, one rank behind
        origin = (target - step) & ~7 | (mask & -mask).bit_length() - 1
        if not 0 <= target - step < 64 or not (target_mask & (pos.black if turn else pos.white) or target == pos.ep):
            return None
    if not _SQUARES[origin] & pos.pawns & own:
        return None
    return _apply(pos, origin, target, chess.PAWN, promotion)


def _apply(pos: Position, origin: int, target: int, piece: int, promotion: int) -> tuple[int, Position] | None:
    """Make a non-castling move; ``None`` when it leaves the mover's king attacked. (The hot path.)"""
    turn = pos.turn
    white, black, pawns, knights, bishops, rooks, queens, kings = pos[:8]
    origin_mask, target_mask = _SQUARES[origin], _SQUARES[target]
    key = pos.key ^ pos.ep_part ^ _RANDOM_TURN
    them = black if turn else white
    captured_square = target
    if piece == 1 and target == pos.ep and not target_mask & them:
        captured_square = target - 8 if turn else target + 8
    captured_mask = _SQUARES[captured_square]
    if captured_mask & them:
        keys = _KEYS_THEM[turn]
        if pawns & captured_mask:
            pawns ^= captured_mask
            key ^= keys[1][captured_square]
        elif knights & captured_mask:
            knights ^= captured_mask
            key ^= keys[2][captured_square]
        elif bishops & captured_mask:
            bishops ^= captured_mask
            key ^= keys[3][captured_square]
        elif rooks & captured_mask:
            rooks ^= captured_mask
            key ^= keys[4][captured_square]
        elif queens & captured_mask:
            queens ^= captured_mask
            key ^= keys[5][captured_square]
        else:
            return None  # capturing a king: not a legal position
        them ^= captured_mask
    moved = origin_mask | target_mask
    keys = _KEYS_US[turn]
    landing = promotion or piece
    key ^= keys[piece][origin] ^ keys[landing][target]
    if piece == 1:
        pawns ^= origin_mask
    elif piece == 2:
        knights ^= origin_mask
    elif piece == 3:
        bishops ^= origin_mask
    elif piece == 4:
        rooks ^= origin_mask
    elif piece == 5:
        queens ^= origin_mask
    else:
        kings ^= origin_mask
    if landing == 1:
        pawns |= target_mask
    elif landing == 2:
        knights |= target_mask
    elif landing == 3:
        bishops |= target_mask
    elif landing == 4:
        rooks |= target_mask
    elif landing == 5:
        queens |= target_mask
    else:
        kings |= target_mask
    if turn:
        white ^= moved
        black = them
    else:
        black ^= moved
        white = them
    us = white if turn else black
    # legal only if the mover's king is not attacked afterwards
    king = (kings & us).bit_length() - 1
    occupied = white | black
    if (_KNIGHT[king] & knights & them or _KING[king] & kings & them
            or _PAWN_ATTACKS[turn][king] & pawns & them
            or _DIAG_ATTACKS[king][_DIAG_MASKS[king] & occupied] & (bishops | queens) & them
            or (_RANK_ATTACKS[king][_RANK_MASKS[king] & occupied]
                | _FILE_ATTACKS[king][_FILE_MASKS[king] & occupied]) & (rooks | queens) & them):
        return None
    castling = pos.castling
    if castling and (castling & moved or piece == 6):
        castling &= ~moved
        if piece == 6:
            castling &= ~(chess.BB_RANK_1 if turn else chess.BB_RANK_8)
        key ^= _CASTLE_TABLE[_castle_index(pos.castling)] ^ _CASTLE_TABLE[_castle_index(castling)]
    ep = -1
    ep_part = 0
    if piece == 1 and (target - origin == 16 or origin - target == 16):
        ep = (origin + target) >> 1
        if _EP_CAPTURERS[not turn][ep] & pawns & them:
            ep_part = _RANDOM_EN_PASSANT[ep & 7]
            key ^= ep_part
    raw = (origin << 6) | target | ((promotion - 1) << 12 if promotion else 0)
    return raw, tuple.__new__(Position, (white, black, pawns, knights, bishops, rooks, queens, kings, not turn,
                                         castling, ep, key, ep_part))


def _castle(pos: Position, short: bool) -> tuple[int, Position] | None:
    turn = pos.turn
    king_from, king_to, rook_from, rook_to, empty, safe = _CASTLES[(turn, short)]
    us = pos.white if turn else pos.black
    them = pos.black if turn else pos.white
    if not pos.castling & _SQUARES[rook_from] or not pos.kings & us & _SQUARES[king_from] \
            or not pos.rooks & us & _SQUARES[rook_from]:
        return None
    occupied = pos.white | pos.black
    if occupied & empty:
        return None
    if any(_attacked(square, them, tuple(pos), occupied, not turn) for square in safe):
        return None
    king_mask = _SQUARES[king_from] | _SQUARES[king_to]
    rook_mask = _SQUARES[rook_from] | _SQUARES[rook_to]
    white, black = (pos.white ^ king_mask ^ rook_mask, pos.black) if turn else \
        (pos.white, pos.black ^ king_mask ^ rook_mask)
    castling = pos.castling & ~(chess.BB_RANK_1 if turn else chess.BB_RANK_8)
    key = pos.key ^ pos.ep_part ^ _RANDOM_TURN
    key ^= _RANDOM_PIECE[_kind(chess.KING, turn) + king_from] ^ _RANDOM_PIECE[_kind(chess.KING, turn) + king_to]
    key ^= _RANDOM_PIECE[_kind(chess.ROOK, turn) + rook_from] ^ _RANDOM_PIECE[_kind(chess.ROOK, turn) + rook_to]
    key ^= _CASTLE_TABLE[_castle_index(pos.castling)] ^ _CASTLE_TABLE[_castle_index(castling)]
    raw = (king_from << 6) | rook_from  # Polyglot stores castling as the king taking its rook
    return raw, Position(white, black, pos.pawns, pos.knights, pos.bishops, pos.rooks ^ rook_mask, pos.queens,
                         pos.kings ^ king_mask, not turn, castling, -1, key, 0)

