"""The kernel's attack tables (:mod:`.tables`) as numpy ``uint64`` arrays, for the batch move generator
(:mod:`.batch`): the same tables by square (:data:`SQUARE_BB` ...), and the sliders' attacks through
*kindergarten* lookups (:func:`slider_tables`): the occupancy of one line collapsed to a byte by a
multiplication, then a (square, byte) table, made on first use (:mod:`.kindergarten`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .attacks import KING_BB, KNIGHT_BB, PAWN_BB, SQUARE_BB  # the leaper tables, made once (with numpy)
from .kindergarten import slider_arrays
from .tables import (
    BETWEEN,
    DIAG_RAYS,
    KING,
    KNIGHT,
    RAYS,
    STRAIGHT_RAYS,
)

__all__ = [
    "BETWEEN_BB",
    "BISHOP_RAYS_BB",
    "EMPTY_ATTACKS_BB",
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
BETWEEN_BB = np.array(BETWEEN, dtype=U64)
LINE_BB = np.array(RAYS, dtype=U64)
ROOK_RAYS_BB = np.array(STRAIGHT_RAYS, dtype=U64)
BISHOP_RAYS_BB = np.array(DIAG_RAYS, dtype=U64)
EMPTY_ATTACKS_BB = np.array([[0] * 64, [0] * 64, KNIGHT, DIAG_RAYS, STRAIGHT_RAYS,
                             [d | s for d, s in zip(DIAG_RAYS, STRAIGHT_RAYS, strict=True)], KING], dtype=U64)
"""By python-chess piece type (knight ... king; none and pawn: empty), then square: the squares that piece there
attacks on an empty board."""


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
