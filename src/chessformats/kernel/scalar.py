"""One position on Python integers: what a piece attacks, a pawn's moves, whether a square is attacked, whether a
move leaves its king safe.

:mod:`.batch` answers the same questions on numpy arrays for many positions at once; this module is for Polyglot's
legality check of a probe's few moves (:mod:`chessformats.formats.polyglot.legality`), where python-chess's
``is_legal`` (or its legal moves among the probe's squares) costs the probe its speed target and a batch of one is
far slower still. The tables are :mod:`.tables`'s (no numpy is imported: a probe starts fast). The tests compare
every answer with ``chess.Board``.

A position is two lists of bitboards in python-chess's numbering: ``pieces`` by piece type (index 0 unused,
1 pawn ... 6 king) and ``colour`` by colour (0 black, 1 white, as ``chess.Board.occupied_co``).
"""

from __future__ import annotations

import chess

from . import tables

__all__ = ["attacked", "attacks", "king_safe_after", "of_board", "pawn_moves"]

_N, _B, _R, _Q, _K, _P = chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING, chess.PAWN
_KNIGHT, _KING, _PAWN_ATTACKS, _SQUARES = tables.KNIGHT, tables.KING, tables.PAWN_ATTACKS, tables.SQUARES
_DIAG, _DIAG_MASKS, _RANK, _RANK_MASKS = tables.DIAG_ATTACKS, tables.DIAG_MASKS, tables.RANK_ATTACKS, tables.RANK_MASKS
_FILE, _FILE_MASKS = tables.FILE_ATTACKS, tables.FILE_MASKS


def of_board(board: chess.BaseBoard) -> tuple[list[int], list[int]]:
    """The ``pieces`` and ``colour`` lists of a python-chess board."""
    return ([0, board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings],
            [board.occupied_co[chess.BLACK], board.occupied_co[chess.WHITE]])


def attacks(piece: int, square: int, occupied: int) -> int:
    """The squares a ``piece`` (knight ... king, not a pawn) on ``square`` attacks, sliders stopped by ``occupied``."""
    if piece == _N:
        return _KNIGHT[square]
    if piece == _B:
        return _DIAG[square][_DIAG_MASKS[square] & occupied]
    if piece == _R:
        return _RANK[square][_RANK_MASKS[square] & occupied] | _FILE[square][_FILE_MASKS[square] & occupied]
    if piece == _Q:
        return (_DIAG[square][_DIAG_MASKS[square] & occupied]
                | _RANK[square][_RANK_MASKS[square] & occupied]
                | _FILE[square][_FILE_MASKS[square] & occupied])
    return _KING[square]


def pawn_moves(side: bool, source: int, occupied: int, them: int) -> int:
    """The squares a pawn of ``side`` on ``source`` moves to: one or two steps ahead onto empty squares (two from
    its start rank), or a capture of a piece on ``them`` (en passant: its square in ``them``)."""
    targets: int = _PAWN_ATTACKS[side][source] & them
    step = 8 if side else -8
    one = source + step
    if 0 <= one < 64 and not occupied & _SQUARES[one]:
        targets |= _SQUARES[one]
        if source >> 3 == (1 if side else 6) and not occupied & _SQUARES[one + step]:
            targets |= _SQUARES[one + step]
    return targets


def attacked(pieces: list[int], them: int, square: int, by: bool, occupied: int) -> bool:
    """Is ``square`` attacked by the pieces on ``them`` (of colour ``by``), sliders seeing through ``occupied``?"""
    if _KNIGHT[square] & pieces[_N] & them or _KING[square] & pieces[_K] & them:
        return True
    if _PAWN_ATTACKS[not by][square] & pieces[_P] & them:
        return True
    if _DIAG[square][_DIAG_MASKS[square] & occupied] & (pieces[_B] | pieces[_Q]) & them:
        return True
    straight = _RANK[square][_RANK_MASKS[square] & occupied] | _FILE[square][_FILE_MASKS[square] & occupied]
    return bool(straight & (pieces[_R] | pieces[_Q]) & them)


def king_safe_after(pieces: list[int], colour: list[int], ep: int | None, source: int, target: int, piece: int,
                    side: bool) -> bool:
    """Does ``side`` moving ``piece`` from ``source`` to ``target`` (not castling; en passant when a pawn goes to
    ``ep``) leave its king unattacked? (The king is the highest square of ``side``'s kings.)"""
    target_bit = _SQUARES[target]
    occupied = colour[0] | colour[1]
    removed = target_bit
    if piece == _P and target == ep and not occupied & target_bit:
        captured = _SQUARES[target - 8 if side else target + 8]
        occupied &= ~captured
        removed |= captured
    occupied = occupied & ~_SQUARES[source] | target_bit
    king = target if piece == _K else (pieces[_K] & colour[side]).bit_length() - 1
    return not attacked(pieces, colour[not side] & ~removed, king, not side, occupied)
