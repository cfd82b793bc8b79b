"""The kernel's attack tables (:mod:`.tables`) as numpy ``uint64`` arrays, for the batch move generator
(:mod:`.batch`): the same tables by square (:data:`SQUARE_BB` ...), and the sliders' attacks through
*kindergarten* lookups (:func:`slider_tables`): the occupancy of one line collapsed to a byte by a
multiplication, then a (square, byte) table, filled from python-chess's own attack tables on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import chess
import numpy as np

from .tables import (
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


def _diagonal(square: int, step: int) -> list[int]:
    """The squares of the diagonal through ``square`` (``step`` 9: a1-h8 direction, 7: a8-h1), by file."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    found = []
    for f in range(8):
        r = rank + (f - file) * (1 if step == 9 else -1)
        if 0 <= r < 8:
            found.append(chess.square(f, r))
    return found


@functools.cache
def slider_tables() -> SliderTables:
    """The kindergarten tables (built on first use from python-chess's attack tables, about 65,000 look-ups)."""
    rank = np.zeros((64, 256), dtype=U64)
    file = np.zeros((64, 256), dtype=U64)
    diagonal = np.zeros((64, 256), dtype=U64)
    anti = np.zeros((64, 256), dtype=U64)
    diagonal_mask = np.zeros(64, dtype=U64)
    anti_mask = np.zeros(64, dtype=U64)
    for square in chess.SQUARES:
        r, f = chess.square_rank(square), chess.square_file(square)
        rank_squares = [chess.square(x, r) for x in range(8)]
        file_squares = [chess.square(f, y) for y in range(8)]
        lines: list[tuple[np.ndarray, Sequence[int | None], dict[int, int], int, int]] = [
            (rank, rank_squares, RANK_ATTACKS[square], RANK_MASKS[square], chess.BB_ALL),
            (file, file_squares, FILE_ATTACKS[square], FILE_MASKS[square], chess.BB_ALL)]
        for table, step, masks in ((diagonal, 9, diagonal_mask), (anti, 7, anti_mask)):
            line = _diagonal(square, step)
            bits = 0
            for s in line:
                bits |= SQUARES[s]
            masks[square] = bits
            by_file: list[int | None] = [next((s for s in line if chess.square_file(s) == x), None)
                                         for x in range(8)]
            lines.append((table, by_file, DIAG_ATTACKS[square], DIAG_MASKS[square], bits))
        for table, by_bit, attacks, mask, keep in lines:
            row = table[square]
            for byte in range(256):
                occupied = 0
                for bit, at in enumerate(by_bit):
                    if byte >> bit & 1 and at is not None:
                        occupied |= SQUARES[at]
                row[byte] = attacks[occupied & mask] & keep
    return SliderTables(rank.ravel(), file.ravel(), diagonal.ravel(), anti.ravel(), diagonal_mask, anti_mask)
