"""One position on Python integers: what a piece attacks, whether a square is attacked, whether a move leaves its
king safe, whether a side has a legal move (or, in losing chess, a capture).

:mod:`.batch` answers the same questions on numpy arrays for many positions at once; this module is for the code
that follows one position a move at a time, where a ``chess.Board`` would be too slow and a batch of one slower
still: ChessBase's SAN board (:class:`chessformats.formats.chessbase.san.SanBoard`) and Polyglot's legality check
(:mod:`chessformats.formats.polyglot.legality`). The tables are :mod:`.tables`'s (no numpy is imported). The tests
compare every answer with ``chess.Board``.

A position is two lists of bitboards in python-chess's numbering: ``pieces`` by piece type (index 0 unused,
1 pawn ... 6 king) and ``colour`` by colour (0 black, 1 white, as ``chess.Board.occupied_co``).

:func:`new_board` is the one way a ``chess.Board`` is made from bitboards: the kernel's ``to_board``, Monty's
games and start positions, the normalised boards of CTG and Kvetka, the book builder's stored positions and the
packed boards of the walks all make their boards with it.
"""

from __future__ import annotations

import chess

from . import tables

__all__ = ["attacked", "attacks", "has_capture", "has_legal_move", "king_safe_after", "new_board", "of_board",
           "pawn_moves"]

_N, _B, _R, _Q, _K, _P = chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING, chess.PAWN
_KNIGHT, _KING, _PAWN_ATTACKS, _SQUARES = tables.KNIGHT, tables.KING, tables.PAWN_ATTACKS, tables.SQUARES
_DIAG, _DIAG_MASKS, _RANK, _RANK_MASKS = tables.DIAG_ATTACKS, tables.DIAG_MASKS, tables.RANK_ATTACKS, tables.RANK_MASKS
_FILE, _FILE_MASKS = tables.FILE_ATTACKS, tables.FILE_MASKS
_MOVERS = (_K, _Q, _R, _B, _N)
"""The pieces that move as they attack, in the order :func:`has_legal_move` tries them."""


_FAST = list(chess.Board(None).__dict__) == [
    "occupied_co", "pawns", "knights", "bishops", "rooks", "queens", "kings", "promoted", "occupied", "chess960",
    "ep_square", "move_stack", "_stack", "turn", "castling_rights", "halfmove_clock", "fullmove_number"]
"""python-chess's board has the attributes :func:`new_board` fills, in this order (else boards are made the slower,
documented way)."""
_BOARD, _new = chess.Board, object.__new__


def new_board(white: int, black: int, pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int,
              turn: bool = True, ep_square: int | None = None, castling: int = 0, halfmove: int = 0,
              fullmove: int = 1, chess960: bool = False) -> chess.Board:
    """A :class:`chess.Board` of these bitboards and fields, no move stack (``ep_square`` 0 or None: none;
    ``castling``: the rights as rook squares, as ``Board.castling_rights``)."""
    if _FAST:
        board = _new(_BOARD)  # attributes set in the order of Board.__init__ (no dict object is made)
        board.occupied_co = [black, white]
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings = (
            pawns, knights, bishops, rooks, queens, kings)
        board.promoted, board.occupied, board.chess960, board.ep_square = 0, white | black, chess960, ep_square or None
        board.move_stack, board._stack, board.turn, board.castling_rights = [], [], turn, castling
        board.halfmove_clock, board.fullmove_number = halfmove, fullmove
        return board
    board = chess.Board(None, chess960=chess960)  # pragma: no cover - another python-chess
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
    board.occupied = white | black
    board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings = (
        pawns, knights, bishops, rooks, queens, kings)
    board.turn, board.ep_square, board.castling_rights = turn, ep_square or None, castling
    board.halfmove_clock, board.fullmove_number = halfmove, fullmove
    return board


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


def has_legal_move(pieces: list[int], colour: list[int], side: bool, ep: int | None, *, losing: bool = False) -> bool:
    """Has ``side`` a legal move (castling aside: it is never the only one)? ``losing``: losing chess, where any
    move the pieces can make is legal (no check)."""
    own = colour[side]
    occupied = colour[0] | colour[1]
    for piece in _MOVERS:
        for source in chess.scan_forward(pieces[piece] & own):
            for target in chess.scan_forward(attacks(piece, source, occupied) & ~own):
                if losing or king_safe_after(pieces, colour, ep, source, target, piece, side):
                    return True
    them = colour[not side] | (_SQUARES[ep] if ep is not None else 0)
    for source in chess.scan_forward(pieces[_P] & own):
        for target in chess.scan_forward(pawn_moves(side, source, occupied, them)):
            if losing or king_safe_after(pieces, colour, ep, source, target, _P, side):
                return True
    return False


def has_capture(pieces: list[int], colour: list[int], side: bool, ep: int | None) -> bool:
    """Can ``side`` capture anything, en passant included (king safety not asked: losing chess)?"""
    them = colour[not side]
    own = colour[side]
    occupied = them | own
    for piece in _MOVERS:
        for source in chess.scan_forward(pieces[piece] & own):
            if attacks(piece, source, occupied) & them:
                return True
    targets = them | (_SQUARES[ep] if ep is not None else 0)
    return any(_PAWN_ATTACKS[side][source] & targets for source in chess.scan_forward(pieces[_P] & own))
