"""The moves a book format with a move table (CTG, Kvetka) cannot store, and why: one rule for every writer of
such a book (:func:`.ctg.records_from_stats`, the bulk Polyglot -> CTG conversion :mod:`.ctg_bulk`,
:func:`.kvetka.elements_from_stats`), and one warning counting the moves left out by reason."""

from __future__ import annotations

import warnings
from collections import Counter

import chess

__all__ = ["left_out_reason", "warn_left_out"]

NULL_MOVE, CHESS960_CASTLING, ILLEGAL_MOVE, UNDERPROMOTION = (
    "null move", "Chess960 castling", "illegal move", "underpromotion")


def left_out_reason(board: chess.Board, move: chess.Move, code: int | None, *, beyond: str) -> str | None:
    """Why ``move`` of ``board`` cannot be stored (``code``: the format's move code of it, ``None`` when its table
    has none), or ``None`` when it can: a null move, Chess960 castling (the tables' castling is the king's two-file
    step from e1/e8; a board whose castling rights need Chess960 is in Chess960 mode, as the model makes it:
    :meth:`.stats.PositionStats.board`), a move not legal there, an underpromotion (the tables promote to a queen
    only), else a piece the table does not number (``beyond``: which, in the format's words)."""
    if not move:
        return NULL_MOVE
    if board.chess960 and board.is_castling(move):
        return CHESS960_CASTLING
    if not board.is_legal(move):
        return ILLEGAL_MOVE
    if code is not None:
        return None
    if move.promotion not in (None, chess.QUEEN):
        return UNDERPROMOTION
    return beyond


def warn_left_out(left_out: Counter[str], book: str, *, stacklevel: int = 2) -> int:
    """Warn once of the moves left out, with their count by reason (``book`` names the format: "CTG"); return
    how many there are. ``stacklevel``: the warning's, from the caller (2: the caller's caller)."""
    total = sum(left_out.values())
    if total:
        reasons = ", ".join(f"{reason}: {count}" for reason, count in sorted(left_out.items()))
        warnings.warn(f"{total} moves left out: {book} cannot store them ({reasons})", stacklevel=stacklevel + 1)
    return total
