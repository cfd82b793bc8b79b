"""The one way a ``chess.Board`` is made from bitboards (:func:`new_board`): the kernel's ``to_board``, Monty's
games and start positions, the normalised boards of CTG and Kvetka, the book builder's stored positions and the
packed boards of the walks all make their boards with it. It imports python-chess only (no numpy): the quick
probes of CTG and Kvetka boards use it.

And the one rule for when a board is a Chess960 board though nobody said so (:func:`chess960_if_needed`,
:func:`fen_board`): the book builder's FEN tags and stored positions, and the FENs and boards given to the Polyglot
writer.
"""

from __future__ import annotations

import chess

__all__ = ["chess960_if_needed", "fen_board", "new_board"]


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


def chess960_if_needed(board: chess.Board) -> chess.Board:
    """``board`` in Chess960 mode when its castling rights are possible only in Chess960 (a right with a rook off
    a1/h1/a8/h8, or with the king off e1/e8: :meth:`chess.Board.has_chess960_castling_rights`): outside Chess960
    mode python-chess drops such rights, so the Polyglot key and the castling moves would be another position's.
    ``board`` itself when it is in Chess960 mode already or needs not be, else a copy (without its move stack)."""
    if board.chess960 or not board.has_chess960_castling_rights():
        return board
    board = board.copy(stack=False)
    board.chess960 = True
    return board


def fen_board(fen: str, *, chess960: bool = False) -> chess.Board:
    """The board of ``fen`` (``ValueError`` for a bad one), in Chess960 mode when ``chess960`` says so or when its
    castling rights do (:func:`chess960_if_needed`: Shredder-FEN ``HBhb``, X-FEN rights with the king off e1/e8)."""
    return chess960_if_needed(chess.Board(fen, chess960=chess960))
