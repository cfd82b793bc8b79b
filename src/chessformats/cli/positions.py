"""The position a command is given: ``--fen`` (a Chess960 one recognised by its castling rights) and ``--moves``
(SAN or UCI, each checked to be legal)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import chess

__all__ = ["board_of", "fen_board", "is_uci"]


def board_of(fen: str | None, moves: Sequence[str] | None) -> chess.Board:
    """The board of ``fen`` (``None`` or ``startpos``: the start position) after ``moves``; an illegal move is a
    ``ValueError`` (python-chess's ``illegal san: ...``, ``illegal uci: ...``)."""
    import chess  # (not imported by commands that need no board: a build's start-up)

    board = chess.Board() if not fen or fen == "startpos" else fen_board(fen)
    for move in moves or ():
        board.push(board.parse_uci(move) if is_uci(move) else board.parse_san(move))
    return board


def fen_board(fen: str) -> chess.Board:
    """The board of a FEN as the book builder reads one (:func:`chessformats.kernel.newboard.fen_board`: a Chess960
    board when its castling rights are possible only in Chess960, Shredder-FEN ``GDgd`` or ``KQkq`` of a king off
    e1/e8 or a rook off the corner), so that a probe finds what ``build`` wrote; castling rights valid in neither
    are said in a warning, not dropped silently (``K`` with no rook on the king's side)."""
    from ..kernel.newboard import fen_board as read_fen

    try:
        board = read_fen(fen)
    except ValueError as error:  # python-chess's words (invalid fen, ...), said as the command line's
        raise ValueError(str(error)) from None
    if board.clean_castling_rights() != board.castling_rights:
        given = fen.split()[2] if len(fen.split()) > 2 else "-"
        warnings.warn(f"the FEN's castling rights {given!r} name castlings the position cannot have (no king or rook "
                      f"on its square): kept {board.castling_xfen()!r}", stacklevel=3)
    return board


def is_uci(text: str) -> bool:
    """Whether ``text`` is written as a UCI move (``e2e4``, ``e7e8q``, ``0000``), not SAN."""
    import chess

    try:
        chess.Move.from_uci(text)
    except ValueError:
        return False
    return True
