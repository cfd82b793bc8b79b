"""The attack tables of the chess-level readers: :mod:`chessformats.kernel.tables` under their old home (the
readers that bind them as module globals import them from here or from the kernel; there is one set)."""

from __future__ import annotations

from ..kernel.tables import (
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

__all__ = [
    "BETWEEN",
    "DIAG_ATTACKS",
    "DIAG_MASKS",
    "DIAG_RAYS",
    "FILE_ATTACKS",
    "FILE_MASKS",
    "KING",
    "KNIGHT",
    "PAWN_ATTACKS",
    "RANK_ATTACKS",
    "RANK_MASKS",
    "RAYS",
    "SQUARES",
    "STRAIGHT_RAYS",
]
