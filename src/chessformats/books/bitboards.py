"""Bitboard tables for the batch replay (:mod:`chessformats.books.batchplay`): attacks looked up, not computed.

Leapers (knight, king, pawn captures) have one attack set per square. Sliders use "kindergarten" lookups
(chessprogramming.org, *Kindergarten Bitboards*): the inner squares of the line (rank, file, diagonal or
anti-diagonal) through a square, masked out of the occupancy and multiplied by a constant, land on the six top
bits without carries (each inner square of a rank or a diagonal is on its own file and goes to the top rank at
that file; a file is first turned onto a diagonal the same way), so ``((occupied & MASK) * MULTIPLIER) >> 58``
numbers the occupancies of the line. Per line and square the table holds the attacks of every such occupancy,
made at import from the attacks along one rank (about 0.1 ms).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["KING", "KNIGHT", "PAWN_FROM", "SQUARE", "line_attacks", "square_of"]

U64 = np.uint64
_ALL = (1 << 64) - 1
_FILE_A = 0x0101_0101_0101_0101
_INDEX_SHIFT = U64(58)

SQUARE = np.array([1 << square for square in range(64)] + [0], dtype=U64)
"""The bitboard of each square; index 64 (no square) is empty."""

_NOT_A, _NOT_H, _NOT_AB, _NOT_GH = (U64(_ALL ^ _FILE_A * mask) for mask in (0x01, 0x80, 0x03, 0xC0))
_ON = SQUARE[:64]
_ROW = _ON | ((_ON << U64(1)) & _NOT_A) | ((_ON >> U64(1)) & _NOT_H)  # the square and its neighbours on the rank
KING = (_ROW | (_ROW << U64(8)) | (_ROW >> U64(8))) ^ _ON
KNIGHT = ((_ON << U64(17)) & _NOT_A) | ((_ON << U64(15)) & _NOT_H) | ((_ON << U64(10)) & _NOT_AB) \
    | ((_ON << U64(6)) & _NOT_GH) | ((_ON >> U64(17)) & _NOT_H) | ((_ON >> U64(15)) & _NOT_A) \
    | ((_ON >> U64(10)) & _NOT_GH) | ((_ON >> U64(6)) & _NOT_AB)
PAWN_FROM = (((_ON << U64(7)) & _NOT_H) | ((_ON << U64(9)) & _NOT_A),
             ((_ON >> U64(7)) & _NOT_A) | ((_ON >> U64(9)) & _NOT_H))
"""By colour (0 black, 1 white, as python-chess), then square: where a pawn of that colour attacks the square from."""

_TO_TOP_RANK = 0x0202_0202_0202_0202  # (rank, file) -> (8, file + 1): the index of a rank or a diagonal
_FILE_TO_TOP_RANK = 0x0004_0810_2040_8000  # file a, ranks 2-7 -> bits 58-63 (shifted right by the file)
_BITS = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (byte, bit)
_REVERSED = _BITS @ (1 << (7 - np.arange(8)))  # each byte with its bits reversed
_ON_FILE_A = np.bitwise_or.reduce(_BITS.astype(U64) << (8 * np.arange(8)).astype(U64), axis=1)  # bit r: square r, a


def _first_rank() -> np.ndarray[Any, Any]:
    """By file and 6-bit index (files b-g occupied): the files a piece on that file attacks along its rank.

    Hyperbola quintessence (chessprogramming.org): subtracting the slider from the occupancy flips the squares up
    to the first blocker above it; the same on the reversed byte gives those below it."""
    slider = 1 << np.arange(8)[:, None]
    others = 0xFF ^ slider
    occupied = (np.arange(64)[None, :] << 1) & others
    above = occupied - slider
    below = _REVERSED[occupied] - _REVERSED[slider]
    attacked: np.ndarray[Any, Any] = (above ^ _REVERSED[below & 0xFF]) & others
    return attacked.astype(U64)


def _tables() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Per square and line: the inner-square mask, the multiplier, and the attacks of each of the 64 indexes."""
    squares = np.arange(64)
    files, ranks = squares & 7, squares >> 3

    def shifted(line: int, ranks_up: Any) -> Any:  # a diagonal moved up or down by whole ranks
        up, down = (8 * ranks_up.clip(0)).astype(U64), (-8 * ranks_up.clip(None, 0)).astype(U64)
        return np.where(ranks_up >= 0, U64(line) << up, U64(line) >> down)

    # the lines through each square (the square left out): diagonal, anti-diagonal, rank, file
    full = np.stack((shifted(0x8040_2010_0804_0201, ranks - files), shifted(0x0102_0408_1020_4080, ranks + files - 7),
                     U64(0xFF) << (8 * ranks).astype(U64), U64(_FILE_A) << files.astype(U64)), axis=1) ^ _ON[:, None]
    # the inner squares: a line's ends (on the border; the files a and h for a rank, ranks 1 and 8 for a file) are
    # attacked whatever stands on them
    border = [_ALL ^ 0x007E_7E7E_7E7E_7E00, _FILE_A | _FILE_A << 7, 0xFF | 0xFF << 56]
    masks = full & np.array([border[0], border[0], border[1], border[2]], dtype=U64) ^ full
    multipliers = np.full((64, 4), _TO_TOP_RANK, dtype=U64)
    multipliers[:, 3] = U64(_FILE_TO_TOP_RANK) >> files.astype(U64)
    first_rank = _first_rank()
    # a rank or a diagonal has one square per file, and so does the index: the files attacked, on every rank, on
    # the line; a file's index numbers its ranks: the ranks attacked, as squares of file a, moved to the file
    attacks = np.empty((64, 4, 64), dtype=U64)
    attacks[:, :3] = (first_rank[files][:, None, :] * U64(_FILE_A)) & full[:, :3, None]
    attacks[:, 3] = _ON_FILE_A[first_rank[ranks].astype(np.intp)] << files.astype(U64)[:, None]
    return masks, multipliers, attacks.reshape(-1)


_MASKS, _MULTIPLIERS, _ATTACKS = _tables()
_MASKS_BY_LINE = np.ascontiguousarray(_MASKS.T)  # (line, square): a step gathers the four lines of its squares
_FILE_MULTIPLIERS = np.ascontiguousarray(_MULTIPLIERS[:, 3])  # (the other lines' multiplier is the same everywhere)
_LINE_STARTS = (np.arange(4, dtype=U64) * 64)[:, None]  # where a line's indexes start in a square's 256 entries


def line_attacks(square: Any, occupied: Any) -> Any:
    """Per game (arrays of the same length): the attacks from ``square`` (0-63) along its four lines, given the
    occupied squares; a ``(4, games)`` array: diagonal, anti-diagonal, rank, file."""
    index = np.take(_MASKS_BY_LINE, square, axis=1)
    index &= occupied
    index[:3] *= U64(_TO_TOP_RANK)
    index[3] *= np.take(_FILE_MULTIPLIERS, square)
    index >>= _INDEX_SHIFT
    index += _LINE_STARTS
    index += (square << 8).astype(U64)
    return np.take(_ATTACKS, index.view(np.int64))


def square_of(bitboard: Any) -> Any:
    """The square of a one-bit bitboard (garbage, but in range 0-63, for other values): the exponent of the
    bitboard as a float."""
    return ((bitboard.astype(np.float64).view(np.int64) >> 52) - 1023) & 63
