"""The sliders' kindergarten tables (:func:`chessformats.kernel.lookup.slider_tables`) made with numpy: about a
millisecond, where looking each of the 65,536 entries up in python-chess's attack tables takes 45 ms at the start of
every process that plays or checks a move (a book build, a base decoded).

An entry is the attacks along one line (rank, file, diagonal, anti-diagonal) of a slider on a square, given the
occupancy of that line collapsed to a byte (:mod:`.lookup` says how: a rank's byte is the rank itself, a file's and
a diagonal's bit ``i`` is its square on rank ``i``, on file ``i``). Along a line every square is a position 0-7 in
that byte, so one table of 8 x 256 bytes (the positions a slider at position ``p`` reaches, walking both ways up to
the first occupied one) gives every line, each byte put back on the board: shifted to the rank, spread up the file,
or copied to every rank and masked with the diagonal (which has one square per file). No python-chess: the tests
compare every entry with its attack tables.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["slider_arrays"]

U64 = np.uint64
_ALL_RANKS = 0x0101_0101_0101_0101
"""The a-file; as a multiplier, a byte copied to every rank."""


def _byte_attacks() -> np.ndarray:
    """``(8, 256)``: by position of the slider and byte of the line's occupancy, the positions it attacks."""
    byte = np.arange(256)
    attacks = np.zeros((8, 256), dtype=np.int64)
    for position in range(8):
        for step in (1, -1):
            open_ = np.ones(256, dtype=bool)  # not blocked yet, per byte
            at = position + step
            while 0 <= at < 8:
                attacks[position] |= open_ << at
                open_ &= (byte >> at & 1) == 0
                at += step
    return attacks


@functools.cache
def slider_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The fields of :class:`chessformats.kernel.lookup.SliderTables`: the rank, file, diagonal and anti-diagonal
    tables (flat, ``square * 256 + byte``), then the diagonal and anti-diagonal through each square."""
    squares = np.arange(64)
    files, ranks = squares & 7, squares >> 3
    on_board = np.arange(64)
    on_files, on_ranks = on_board & 7, on_board >> 3
    bits = U64(1) << on_board.astype(U64)
    diagonal_mask = np.bitwise_or.reduce(np.where((on_ranks - on_files)[None] == (ranks - files)[:, None], bits,
                                                  U64(0)), axis=1)
    anti_mask = np.bitwise_or.reduce(np.where((on_ranks + on_files)[None] == (ranks + files)[:, None], bits,
                                              U64(0)), axis=1)
    byte_attacks = _byte_attacks().astype(U64)
    along_file = np.bitwise_or.reduce(((byte_attacks[..., None] >> np.arange(8, dtype=U64)) & U64(1))
                                      << (U64(8) * np.arange(8, dtype=U64)), axis=-1)  # bit i -> rank i, file a
    by_file = byte_attacks[files]  # (square, byte): the positions attacked, a slider's position being its file
    rank = by_file << (U64(8) * ranks.astype(U64))[:, None]
    file = along_file[ranks] << files.astype(U64)[:, None]
    copied = by_file * U64(_ALL_RANKS)
    diagonal = copied & diagonal_mask[:, None]
    anti = copied & anti_mask[:, None]
    return rank.ravel(), file.ravel(), diagonal.ravel(), anti.ravel(), diagonal_mask, anti_mask
