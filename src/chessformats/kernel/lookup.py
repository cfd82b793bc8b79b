"""The kernel's tables of lines, as numpy ``uint64`` arrays for the batch move generator (:mod:`.batch`) and the
ChessBase batch SAN, derived from the attacks of :mod:`.attacks` (whose leaper tables are re-exported here): the
sliders' rays on an empty board, the line through two squares, the squares between them.
"""

from __future__ import annotations

import numpy as np

from .attacks import KING_BB, KNIGHT_BB, PAWN_BB, SQUARE_BB, bishop_attacks, rook_attacks

__all__ = ["BETWEEN_BB", "BISHOP_RAYS_BB", "EMPTY_ATTACKS_BB", "KING_BB", "KNIGHT_BB", "LINE_BB", "PAWN_BB",
           "ROOK_RAYS_BB", "SQUARE_BB"]

U64 = np.uint64
_SQUARES = np.arange(64)
ROOK_RAYS_BB = rook_attacks(_SQUARES, np.zeros(64, U64))
"""By square: the squares a rook there attacks on an empty board."""
BISHOP_RAYS_BB = bishop_attacks(_SQUARES, np.zeros(64, U64))
"""By square: the squares a bishop there attacks on an empty board."""
EMPTY_ATTACKS_BB = np.stack([np.zeros(64, U64), np.zeros(64, U64), KNIGHT_BB, BISHOP_RAYS_BB, ROOK_RAYS_BB,
                             BISHOP_RAYS_BB | ROOK_RAYS_BB, KING_BB])
"""By python-chess piece type (knight ... king; none and pawn: empty), then square: the squares that piece there
attacks on an empty board."""


def _lines() -> tuple[np.ndarray, np.ndarray]:
    a, b = (grid.ravel() for grid in np.meshgrid(_SQUARES, _SQUARES, indexing="ij"))
    ends = SQUARE_BB[a] | SQUARE_BB[b]
    line = np.zeros(64 * 64, U64)
    between = np.zeros(64 * 64, U64)
    for rays, attacks in ((ROOK_RAYS_BB, rook_attacks), (BISHOP_RAYS_BB, bishop_attacks)):
        aligned = (rays[a] & SQUARE_BB[b]) != 0
        line[aligned] = (rays[a] & rays[b])[aligned] | ends[aligned]
        between[aligned] = (attacks(a, SQUARE_BB[b]) & attacks(b, SQUARE_BB[a]) & line)[aligned]
    return line.reshape(64, 64), between.reshape(64, 64)


LINE_BB, BETWEEN_BB = _lines()
"""By square, then square: the whole line (rank, file or diagonal) through both, 0 when they share none (or are
the same square); the squares strictly between the two on it."""
