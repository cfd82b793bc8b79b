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
    """The board of a FEN: a Chess960 board when its castling rights are valid only in Chess960 and say so
    (Shredder-FEN letters, ``GDgd``; ``KQkq`` of a king off e1/e8); castling rights that are valid in neither
    are said in a warning, not dropped silently (``KQkq`` of a rook that left h1 is not Chess960)."""
    import chess

    board = chess.Board(fen)
    field = fen.split()[2] if len(fen.split()) > 2 else "-"
    chess960 = chess.Board(fen, chess960=True)
    if board.clean_castling_rights() != chess960.clean_castling_rights() and (
            any(letter not in "KQkq-" for letter in field)
            or (any(letter.isupper() for letter in field) and board.king(chess.WHITE) != chess.E1)
            or (any(letter.islower() for letter in field) and board.king(chess.BLACK) != chess.E8)):
        board = chess960
    if board.clean_castling_rights() != board.castling_rights:
        given, kept = field, board.castling_xfen()
        warnings.warn(f"the FEN's castling rights {given!r} name castlings the position cannot have (no king or rook "
                      f"on its square): kept {kept!r}", stacklevel=3)
    return board


def is_uci(text: str) -> bool:
    """Whether ``text`` is written as a UCI move (``e2e4``, ``e7e8q``, ``0000``), not SAN."""
    import chess

    try:
        chess.Move.from_uci(text)
    except ValueError:
        return False
    return True
