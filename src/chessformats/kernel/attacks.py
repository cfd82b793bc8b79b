"""The attackers of squares, many positions at once, without python-chess: the kernel's leaper tables made with
numpy and its sliders' kindergarten tables (:mod:`.kindergarten`), for code that must start quickly.

The kernel's one batch attack implementation: :mod:`.batch` (legal moves, the ChessBase batch decoder's SAN) and
the replay of a PGN book build (:mod:`chessformats.books.batchstep`) both use :func:`attacked`,
:func:`rook_attacks` and :func:`bishop_attacks`, and :mod:`.lookup` takes its leaper tables from here. A PGN book
build imports neither python-chess nor construct (start-up time; ``tests/cli/test_quick_start.py``), so nothing
here needs ``import chess``; the tests compare every table and answer with python-chess.
"""

from __future__ import annotations

import numpy as np

from .kindergarten import slider_arrays

__all__ = ["KING_BB", "KNIGHT_BB", "NOT_A", "NOT_AB", "NOT_GH", "NOT_H", "PAWN_BB", "SQUARE_BB", "attacked",
           "bishop_attacks", "rook_attacks", "single_square"]

U64 = np.uint64
_ALL = (1 << 64) - 1
_FILE_A = 0x0101_0101_0101_0101
_FILE_MAGIC = U64(0x0102_0408_1020_4080)
"""``(file bits moved to the a-file) * _FILE_MAGIC >> 56``: bit r of the byte is the square of rank r."""
_ALL_RANKS = U64(_FILE_A)
"""``(bits of one diagonal) * _ALL_RANKS >> 56``: bit f of the byte is the diagonal's square on file f."""

SQUARE_BB = U64(1) << np.arange(64, dtype=U64)
"""By square: the bitboard of that square alone."""
NOT_A, NOT_H, NOT_AB, NOT_GH = (U64(_ALL ^ _FILE_A * files) for files in (0x01, 0x80, 0x03, 0xC0))
"""Every square but those of the a-file; of the h-file; of the a- and b-files; of the g- and h-files (the squares
a step east, west, or a knight's jump, may land on without wrapping round the board)."""
_ROW = SQUARE_BB | ((SQUARE_BB << U64(1)) & NOT_A) | ((SQUARE_BB >> U64(1)) & NOT_H)  # with its rank neighbours
KING_BB = (_ROW | (_ROW << U64(8)) | (_ROW >> U64(8))) ^ SQUARE_BB
"""By square: the squares a king there attacks."""
KNIGHT_BB = ((SQUARE_BB << U64(17)) & NOT_A) | ((SQUARE_BB << U64(15)) & NOT_H) \
    | ((SQUARE_BB << U64(10)) & NOT_AB) | ((SQUARE_BB << U64(6)) & NOT_GH) | ((SQUARE_BB >> U64(17)) & NOT_H) \
    | ((SQUARE_BB >> U64(15)) & NOT_A) | ((SQUARE_BB >> U64(10)) & NOT_GH) | ((SQUARE_BB >> U64(6)) & NOT_AB)
"""By square: the squares a knight there attacks."""
PAWN_BB = np.stack((((SQUARE_BB >> U64(9)) & NOT_H) | ((SQUARE_BB >> U64(7)) & NOT_A),
                    ((SQUARE_BB << U64(7)) & NOT_H) | ((SQUARE_BB << U64(9)) & NOT_A)))
"""By colour (0 black, 1 white), then square: the squares a pawn of that colour there attacks."""


def rook_attacks(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """The squares a rook on each of ``squares`` attacks, pieces on ``occupied`` blocking (kindergarten look-ups:
    the rank's byte is the rank itself, the file's is turned onto a diagonal and collapsed by a multiplication)."""
    rank_table, file_table = slider_arrays()[:2]
    squares = squares.astype(U64)
    base = squares << U64(8)
    rank = occupied >> (squares & U64(56))
    rank &= U64(255)
    rank |= base
    file = occupied >> (squares & U64(7))
    file &= _ALL_RANKS
    file *= _FILE_MAGIC
    file >>= U64(56)
    file |= base
    attacks: np.ndarray = rank_table.take(rank.view(np.int64))
    attacks |= file_table.take(file.view(np.int64))
    return attacks


def bishop_attacks(squares: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """The squares a bishop on each of ``squares`` attacks, pieces on ``occupied`` blocking."""
    _, _, diagonal_table, anti_table, diagonal_mask, anti_mask = slider_arrays()
    base = squares.astype(U64) << U64(8)
    lines = []
    for mask in (diagonal_mask, anti_mask):
        line = mask.take(squares)
        line &= occupied
        line *= _ALL_RANKS
        line >>= U64(56)
        line |= base
        lines.append(line.view(np.int64))
    attacks: np.ndarray = diagonal_table.take(lines[0])
    attacks |= anti_table.take(lines[1])
    return attacks


_PAWN_FLAT = PAWN_BB.ravel()


def attacked(squares: np.ndarray, occupied: np.ndarray, knights: np.ndarray, kings: np.ndarray,
             pawns: np.ndarray, pawn_colour: np.ndarray, diagonal: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """The attackers of each square among the given pieces (sliders seeing through ``occupied``); ``pawn_colour``
    is the colour (1 white) of the side *defending* the square (its pawn-attack table finds the attacking pawns)."""
    found: np.ndarray = KNIGHT_BB.take(squares)
    found &= knights
    found |= KING_BB.take(squares) & kings
    found |= _PAWN_FLAT.take((pawn_colour << 6) + squares) & pawns
    sliders = bishop_attacks(squares, occupied)
    sliders &= diagonal
    found |= sliders
    sliders = rook_attacks(squares, occupied)
    sliders &= straight
    found |= sliders
    return found


def single_square(bitboards: np.ndarray) -> np.ndarray:
    """The square of each one-bit bitboard (``int64``; in 0-63, but meaningless, for other values): the exponent
    of the bitboard as a float (a gather-free bit scan)."""
    squares: np.ndarray = ((bitboards.astype(np.float64).view(np.int64) >> 52) - 1023) & 63
    return squares
