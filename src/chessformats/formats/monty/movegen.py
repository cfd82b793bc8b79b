"""Legal-move generation directly in Monty's move codes, on the tables of :mod:`chessformats.formats.bitboards`.

The visit bytes of a ply belong to the legal moves of its position sorted by their codes, so reading generates
the legal moves of every position: :func:`legal_codes` does it without python-chess's generator (which, plus
encoding each move, is about four times slower); the tests compare it with python-chess on many positions,
Chess960 included.
"""

from __future__ import annotations

from typing import Any

import chess

from ..bitboards import (
    BETWEEN,
    DIAG_ATTACKS,
    DIAG_MASKS,
    DIAG_RAYS,
    FILE_ATTACKS,
    FILE_MASKS,
    KING,
    KNIGHT,
    PAWN_ATTACKS,
    RANK_ATTACKS,
    RANK_MASKS,
    RAYS,
    SQUARES,
    STRAIGHT_RAYS,
)
from .moves import (
    CAPTURE,
    DOUBLE_PUSH,
    EN_PASSANT,
    KING_CASTLE,
    PROMOTION_CAPTURE_FLAGS,
    PROMOTION_FLAGS,
    QUEEN_CASTLE,
    QUIET,
    SHIFT_DESTINATION,
    SHIFT_SOURCE,
    move_of,
)

__all__ = ["encode_move", "legal_codes"]

_ALL = chess.BB_ALL
_NOT_FILE_A, _NOT_FILE_H = _ALL ^ chess.BB_FILE_A, _ALL ^ chess.BB_FILE_H
# by side to move (black 0, white 1): pawn step, rank reached by a single step that may step again, last rank
_PAWN_STEP = (-8, 8)
_DOUBLE_RANK = (chess.BB_RANK_6, chess.BB_RANK_3)
_LAST_RANK = (chess.BB_RANK_1, chess.BB_RANK_8)
_BACK_RANK = (chess.BB_RANK_8, chess.BB_RANK_1)


def _attacked(square: int, occupied: int, pawn_side: int, knights: int, kings: int, pawns: int, diagonal: int,
              straight: int) -> int:
    """Attackers of ``square`` among the given enemy pieces, sliders seeing through ``occupied``."""
    return ((KNIGHT[square] & knights) | (KING[square] & kings) | (PAWN_ATTACKS[pawn_side][square] & pawns)
            | (DIAG_ATTACKS[square][DIAG_MASKS[square] & occupied] & diagonal)
            | ((RANK_ATTACKS[square][RANK_MASKS[square] & occupied]
                | FILE_ATTACKS[square][FILE_MASKS[square] & occupied]) & straight))


def _emit(append: Any, targets: int, delta: int, flag: int) -> None:
    """Append the code of ``target - delta`` to ``target`` with ``flag`` (its bits in a code) for every target."""
    while targets:
        low = targets & -targets
        target = low.bit_length() - 1
        append((target - delta) << SHIFT_SOURCE | target << SHIFT_DESTINATION | flag)
        targets ^= low


def _emit_promotions(append: Any, targets: int, delta: int, flags: tuple[int, ...]) -> None:
    while targets:
        low = targets & -targets
        target = low.bit_length() - 1
        base = (target - delta) << SHIFT_SOURCE | target << SHIFT_DESTINATION
        for flag in flags:
            append(base | flag)
        targets ^= low


def legal_codes(board: chess.Board, castling_rooks: dict[int, int] | None = None) -> list[int]:
    """The u16 codes of the legal moves of ``board`` (unsorted), as Monty's move generator makes them.

    Castling is the king's move to the g- or c-file with flag 2 or 3, in Chess960 too; when
    ``castling_rooks`` is given, the rook square of each castling code is put in it. The moves are the
    ones ``board.legal_moves`` lists (standard chess and Chess960, python-chess's rules).
    """
    # The hot path of reading: tables are local names and the loops are written out (measured: calling a
    # helper per piece costs about a third more).
    knight_table, king_table, pawn_table = KNIGHT, KING, PAWN_ATTACKS
    src, dst = SHIFT_SOURCE, SHIFT_DESTINATION  # the code's fields, from the declaration
    diag_masks, diag_table = DIAG_MASKS, DIAG_ATTACKS
    file_masks, file_table, rank_masks, rank_table = FILE_MASKS, FILE_ATTACKS, RANK_MASKS, RANK_ATTACKS
    turn = board.turn
    us, them = board.occupied_co[turn], board.occupied_co[not turn]
    occupied = us | them
    knights, bishops, rooks, queens = board.knights, board.bishops, board.rooks, board.queens
    king_mask = board.kings & us
    king = king_mask.bit_length() - 1
    their_knights, their_kings, their_pawns = knights & them, board.kings & them, board.pawns & them
    diagonal = (bishops | queens) & them
    straight = (rooks | queens) & them
    pawn_attacks = pawn_table[turn]
    codes: list[int] = []
    append = codes.append

    # king steps: to squares no enemy piece attacks once the king has left its square
    without_king = occupied ^ king_mask
    targets = king_table[king] & ~us
    while targets:
        low = targets & -targets
        target = low.bit_length() - 1
        if not (knight_table[target] & their_knights or king_table[target] & their_kings
                or pawn_attacks[target] & their_pawns
                or diag_table[target][diag_masks[target] & without_king] & diagonal
                or (rank_table[target][rank_masks[target] & without_king]
                    | file_table[target][file_masks[target] & without_king]) & straight):
            append(king << src | target << dst | (CAPTURE if low & them else QUIET))
        targets ^= low

    checkers = ((knight_table[king] & their_knights) | (pawn_attacks[king] & their_pawns)
                | (diag_table[king][diag_masks[king] & occupied] & diagonal)
                | ((rank_table[king][rank_masks[king] & occupied] | file_table[king][file_masks[king] & occupied])
                   & straight))
    if checkers & (checkers - 1):
        return codes  # double check: only the king moves
    enemy = (turn, their_knights, their_kings, their_pawns, diagonal, straight)
    if checkers:
        mask = checkers | BETWEEN[king][checkers.bit_length() - 1]
    else:
        mask = _ALL
        if board.castling_rights & _BACK_RANK[turn]:
            candidates = board.clean_castling_rights() & _BACK_RANK[turn]
            if candidates:
                _castling(append, king, candidates, occupied, enemy, castling_rooks)

    # pinned pieces: alone between the king and an enemy slider
    pinned = 0
    snipers = (STRAIGHT_RAYS[king] & straight) | (DIAG_RAYS[king] & diagonal)
    while snipers:
        low = snipers & -snipers
        blockers = BETWEEN[king][low.bit_length() - 1] & occupied
        if blockers and not blockers & (blockers - 1):
            pinned |= blockers & us
        snipers ^= low

    captures = them & mask
    quiet = ~occupied & mask
    diagonal_movers, straight_movers = bishops | queens, rooks | queens
    movers = (knights & ~pinned | diagonal_movers | straight_movers) & us  # a pinned knight never moves
    while movers:
        low = movers & -movers
        origin = low.bit_length() - 1
        if low & knights:
            attacks = knight_table[origin]
        else:
            attacks = diag_table[origin][diag_masks[origin] & occupied] if low & diagonal_movers else 0
            if low & straight_movers:
                attacks |= (rank_table[origin][rank_masks[origin] & occupied]
                            | file_table[origin][file_masks[origin] & occupied])
            if low & pinned:
                attacks &= RAYS[king][origin]
        base = origin << src | CAPTURE
        targets = attacks & captures
        while targets:
            bit = targets & -targets
            append(base | (bit.bit_length() - 1) << dst)
            targets ^= bit
        base = origin << src | QUIET
        targets = attacks & quiet
        while targets:
            bit = targets & -targets
            append(base | (bit.bit_length() - 1) << dst)
            targets ^= bit
        movers ^= low

    own_pawns = board.pawns & us
    if own_pawns:
        _pawn_moves(append, turn, own_pawns & ~pinned, them, occupied, mask, _ALL)
        pinned_pawns = own_pawns & pinned
        while pinned_pawns:
            low = pinned_pawns & -pinned_pawns
            _pawn_moves(append, turn, low, them, occupied, mask, RAYS[king][low.bit_length() - 1])
            pinned_pawns ^= low
        ep = board.ep_square
        if ep is not None and not occupied >> ep & 1:
            _en_passant(append, turn, own_pawns, ep, occupied, king, enemy)
    return codes


def _pawn_moves(append: Any, turn: bool, pawns: int, them: int, occupied: int, mask: int, line: int) -> None:
    """Pushes and captures of ``pawns`` (moving along ``line``, for pinned pawns) that land in ``mask``."""
    step = _PAWN_STEP[turn]
    last = _LAST_RANK[turn]
    allowed = mask & line
    if turn:
        single = (pawns << 8) & ~occupied
        double = ((single & _DOUBLE_RANK[turn]) << 8) & ~occupied & allowed
        west, east = ((pawns & _NOT_FILE_A) << 7) & them & allowed, ((pawns & _NOT_FILE_H) << 9) & them & allowed
        west_step, east_step = 7, 9
    else:
        single = (pawns >> 8) & ~occupied
        double = ((single & _DOUBLE_RANK[turn]) >> 8) & ~occupied & allowed
        west, east = ((pawns & _NOT_FILE_A) >> 9) & them & allowed, ((pawns & _NOT_FILE_H) >> 7) & them & allowed
        west_step, east_step = -9, -7
    single &= allowed
    _emit(append, single & ~last, step, QUIET)
    _emit(append, double, 2 * step, DOUBLE_PUSH)
    _emit(append, west & ~last, west_step, CAPTURE)
    _emit(append, east & ~last, east_step, CAPTURE)
    if (single | west | east) & last:
        _emit_promotions(append, single & last, step, PROMOTION_FLAGS)
        _emit_promotions(append, west & last, west_step, PROMOTION_CAPTURE_FLAGS)
        _emit_promotions(append, east & last, east_step, PROMOTION_CAPTURE_FLAGS)


def _en_passant(append: Any, turn: bool, pawns: int, ep: int, occupied: int, king: int,
                enemy: tuple[bool, int, int, int, int, int]) -> None:
    """En-passant captures that leave the king safe (tested on the occupancy after the capture)."""
    captured = ep - _PAWN_STEP[turn]
    side, knights, kings, enemy_pawns, diagonal, straight = enemy
    capturers = PAWN_ATTACKS[not turn][ep] & pawns
    while capturers:
        low = capturers & -capturers
        after = (occupied ^ low ^ SQUARES[captured]) | SQUARES[ep]
        if not _attacked(king, after, side, knights, kings, enemy_pawns & ~SQUARES[captured], diagonal,
                         straight):
            append((low.bit_length() - 1) << SHIFT_SOURCE | ep << SHIFT_DESTINATION | EN_PASSANT)
        capturers ^= low


def _castling(append: Any, king: int, candidates: int, occupied: int, enemy: tuple[bool, int, int, int, int, int],
              castling_rooks: dict[int, int] | None) -> None:
    """Castling with the rooks ``candidates``, by python-chess's rules (``generate_castling_moves``)."""
    rank = king & 56
    king_mask = SQUARES[king]
    while candidates:
        rook_mask = candidates & -candidates
        candidates ^= rook_mask
        rook = rook_mask.bit_length() - 1
        queenside = rook < king
        king_to, rook_to = rank + (2 if queenside else 6), rank + (3 if queenside else 5)
        king_to_mask, rook_to_mask = SQUARES[king_to], SQUARES[rook_to]
        path = BETWEEN[king][king_to]
        if (occupied ^ king_mask ^ rook_mask) & (path | BETWEEN[rook][rook_to] | king_to_mask | rook_to_mask):
            continue
        if _any_attacked(path, occupied ^ king_mask, enemy):
            continue
        if _attacked(king_to, occupied ^ king_mask ^ rook_mask ^ rook_to_mask, *enemy):
            continue
        code = king << SHIFT_SOURCE | king_to << SHIFT_DESTINATION | (QUEEN_CASTLE if queenside else KING_CASTLE)
        append(code)
        if castling_rooks is not None:
            castling_rooks[code] = rook


def _any_attacked(squares: int, occupied: int, enemy: tuple[bool, int, int, int, int, int]) -> bool:
    while squares:
        low = squares & -squares
        if _attacked(low.bit_length() - 1, occupied, *enemy):
            return True
        squares ^= low
    return False


def encode_move(board: chess.Board, move: chess.Move) -> int:
    """The u16 code of ``move``, legal in ``board`` (raises :class:`ValueError` for an illegal move)."""
    code = _code_by_move(board).get(move)
    if code is None:
        raise ValueError(f"{move.uci()} is not a legal move in {board.fen()}")
    return code


def _code_by_move(board: chess.Board) -> dict[chess.Move, int]:
    rooks: dict[int, int] = {}
    return {move_of(code, board, rooks): code for code in legal_codes(board, rooks)}
