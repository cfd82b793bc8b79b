"""The kernel's attack tables (:mod:`.tables`) as numpy ``uint64`` arrays, for the batch move generator
(:mod:`.batch`): the same tables by square (:data:`SQUARE_BB` ...), and the sliders' attacks through
*kindergarten* lookups (:func:`slider_tables`): the occupancy of one line collapsed to a byte by a
multiplication, then a (square, byte) table, made on first use (:mod:`.kindergarten`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import chess
import numpy as np

from .kindergarten import slider_arrays
from .tables import (
    BETWEEN,
    DIAG_RAYS,
    KING,
    KNIGHT,
    PAWN_ATTACKS,
    RAYS,
    SQUARES,
    STRAIGHT_RAYS,
)

__all__ = [
    "BETWEEN_BB",
    "BISHOP_RAYS_BB",
    "DIAGONAL_MAGIC",
    "EMPTY_ATTACKS_BB",
    "FILE_A",
    "FILE_MAGIC",
    "KING_BB",
    "KNIGHT_BB",
    "LINE_BB",
    "PAWN_BB",
    "ROOK_RAYS_BB",
    "SQUARE_BB",
    "SliderTables",
    "slider_tables",
]

U64 = np.uint64
SQUARE_BB = np.array(SQUARES, dtype=U64)
"""By square: the bitboard of that square alone."""
KNIGHT_BB = np.array(KNIGHT, dtype=U64)
KING_BB = np.array(KING, dtype=U64)
PAWN_BB = np.array(PAWN_ATTACKS, dtype=U64)
"""By colour (0 black, 1 white), then square."""
BETWEEN_BB = np.array(BETWEEN, dtype=U64)
LINE_BB = np.array(RAYS, dtype=U64)
ROOK_RAYS_BB = np.array(STRAIGHT_RAYS, dtype=U64)
BISHOP_RAYS_BB = np.array(DIAG_RAYS, dtype=U64)
EMPTY_ATTACKS_BB = np.array([[0] * 64, [0] * 64, KNIGHT, DIAG_RAYS, STRAIGHT_RAYS,
                             [d | s for d, s in zip(DIAG_RAYS, STRAIGHT_RAYS, strict=True)], KING], dtype=U64)
"""By python-chess piece type (knight ... king; none and pawn: empty), then square: the squares that piece there
attacks on an empty board."""

FILE_A = int(chess.BB_FILE_A)
FILE_MAGIC = 0x0102040810204080
"""``(file bits of the a-file) * FILE_MAGIC >> 56``: bit r of the byte is the a-file square of rank r."""
DIAGONAL_MAGIC = 0x0101010101010101
"""``(bits of one diagonal) * DIAGONAL_MAGIC >> 56``: bit f of the byte is the diagonal's square on file f (a
diagonal has one square per file, so the bytes add without carries)."""


class SliderTables(NamedTuple):
    """Kindergarten tables, each flat ``square * 256 + byte`` -> the attacks along one line."""

    rank: np.ndarray
    file: np.ndarray
    diagonal: np.ndarray
    anti: np.ndarray
    diagonal_mask: np.ndarray
    """By square: the a1-h8-direction diagonal through it."""
    anti_mask: np.ndarray
    """By square: the a8-h1-direction diagonal through it."""


@functools.cache
def slider_tables() -> SliderTables:
    """The kindergarten tables (made on first use, :mod:`.kindergarten`)."""
    return SliderTables(*slider_arrays())
