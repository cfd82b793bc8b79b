"""The attackers of squares, many positions at once, without python-chess: the kernel's leaper tables made with
numpy and its sliders' kindergarten tables (:mod:`.kindergarten`), for code that must start quickly.

A PGN book build imports neither python-chess nor construct (start-up time; ``tests/cli/test_quick_start.py``):
its replay (:mod:`chessformats.books.batchstep`) finds moving pieces and checks with :func:`attacked`: the
arguments and result of :func:`chessformats.kernel.batch.attacked` (the tests compare both with python-chess), on
tables that need no ``import chess``, the four lines of the sliders looked up in one gather (:func:`line_attacks`:
a few numpy calls fewer, which counts in the replay's late plies, when only a few games are left).
"""

from __future__ import annotations

import functools

import numpy as np

from .kindergarten import slider_arrays

__all__ = ["KING_BB", "KNIGHT_BB", "PAWN_BB", "SQUARE_BB", "attacked", "line_attacks", "single_square"]

U64 = np.uint64
_ALL = (1 << 64) - 1
_FILE_A = 0x0101_0101_0101_0101
_FILE_MAGIC = U64(0x0102_0408_1020_4080)
"""``(file bits moved to the a-file) * _FILE_MAGIC >> 56``: bit r of the byte is the square of rank r."""
_ALL_RANKS = U64(_FILE_A)
"""``(bits of one diagonal) * _ALL_RANKS >> 56``: bit f of the byte is the diagonal's square on file f."""

SQUARE_BB = U64(1) << np.arange(64, dtype=U64)
"""By square: the bitboard of that square alone."""
_NOT_A, _NOT_H, _NOT_AB, _NOT_GH = (U64(_ALL ^ _FILE_A * files) for files in (0x01, 0x80, 0x03, 0xC0))
_ROW = SQUARE_BB | ((SQUARE_BB << U64(1)) & _NOT_A) | ((SQUARE_BB >> U64(1)) & _NOT_H)  # with its rank neighbours
KING_BB = (_ROW | (_ROW << U64(8)) | (_ROW >> U64(8))) ^ SQUARE_BB
"""By square: the squares a king there attacks."""
KNIGHT_BB = ((SQUARE_BB << U64(17)) & _NOT_A) | ((SQUARE_BB << U64(15)) & _NOT_H) \
    | ((SQUARE_BB << U64(10)) & _NOT_AB) | ((SQUARE_BB << U64(6)) & _NOT_GH) | ((SQUARE_BB >> U64(17)) & _NOT_H) \
    | ((SQUARE_BB >> U64(15)) & _NOT_A) | ((SQUARE_BB >> U64(10)) & _NOT_GH) | ((SQUARE_BB >> U64(6)) & _NOT_AB)
"""By square: the squares a knight there attacks."""
PAWN_BB = np.stack((((SQUARE_BB >> U64(9)) & _NOT_H) | ((SQUARE_BB >> U64(7)) & _NOT_A),
                    ((SQUARE_BB << U64(7)) & _NOT_H) | ((SQUARE_BB << U64(9)) & _NOT_A)))
"""By colour (0 black, 1 white), then square: the squares a pawn of that colour there attacks."""


@functools.cache
def _lines() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """By line (rank, file, diagonal, anti-diagonal), then square: the line's squares and the multiplier that
    collapses them to the top byte (a rank is shifted there; a file turned onto a diagonal, as :mod:`.lookup`
    does after shifting it to the a-file: the same product, the multiplier shifted instead), where the line's
    table starts in :func:`.kindergarten.slider_arrays` (put end to end); and those tables."""
    rank, file, diagonal, anti, diagonal_mask, anti_mask = slider_arrays()
    squares = np.arange(64, dtype=U64)
    files, ranks = squares & U64(7), squares >> U64(3)
    masks = np.stack((U64(0xFF) << (U64(8) * ranks), _ALL_RANKS << files, diagonal_mask, anti_mask))
    multipliers = np.stack((U64(1) << (U64(56) - U64(8) * ranks), _FILE_MAGIC >> files,
                            np.full(64, _ALL_RANKS), np.full(64, _ALL_RANKS)))
    starts = (np.arange(4, dtype=U64)[:, None] * U64(64) + squares) << U64(8)
    return masks, multipliers, starts, np.concatenate((rank, file, diagonal, anti))


def line_attacks(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """``(4, n)``: the squares a slider on each of ``squares`` attacks along its rank, file, diagonal and
    anti-diagonal, pieces on ``occupied`` blocking (the kindergarten look-ups of the four lines at once)."""
    masks, multipliers, starts, table = _lines()
    index = masks.take(squares, axis=1)
    index &= occupied
    index *= multipliers.take(squares, axis=1)
    index >>= U64(56)
    index |= starts.take(squares, axis=1)
    attacks: np.ndarray = table.take(index.view(np.int64))
    return attacks


def attacked(squares: np.ndarray, occupied: np.ndarray, knights: np.ndarray, kings: np.ndarray,
             pawns: np.ndarray, pawn_colour: np.ndarray, diagonal: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """The attackers of each square among the given pieces (sliders seeing through ``occupied``); ``pawn_colour``
    is the colour (1 white) of the side *defending* the square (its pawn-attack table finds the attacking pawns)."""
    lines = line_attacks(squares, occupied)
    found: np.ndarray = KNIGHT_BB.take(squares)
    found &= knights
    found |= KING_BB.take(squares) & kings
    found |= PAWN_BB.take((pawn_colour << 6) + squares) & pawns
    straight_lines, diagonal_lines = lines[0] | lines[1], lines[2] | lines[3]
    straight_lines &= straight
    diagonal_lines &= diagonal
    found |= straight_lines
    found |= diagonal_lines
    return found


def single_square(bitboards: np.ndarray) -> np.ndarray:
    """The square of each one-bit bitboard (``int64``; in 0-63, but meaningless, for other values): the exponent
    of the bitboard as a float (a gather-free bit scan)."""
    squares: np.ndarray = ((bitboards.astype(np.float64).view(np.int64) >> 52) - 1023) & 63
    return squares
