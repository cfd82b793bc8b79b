"""How each piece attacks, written once, without python-chess: the kernel's one attack implementation.

Each rule is a function on a *set* of pieces (a bitboard per position): a leaper's steps as shifts
(:func:`knight_attacks`, :func:`king_attacks`, :func:`pawn_attacks`), a slider's rays as Kogge-Stone fills along
the eight directions (:func:`_slides`). Everything else is those functions, evaluated:

- on single squares, once: the leaper tables (:data:`KNIGHT_BB`, :data:`KING_BB`, :data:`PAWN_BB`) and the
  sliders' *kindergarten* tables (:func:`slider_arrays`: by square and the occupancy of one line collapsed to a
  byte, the attacks along that line), which :func:`rook_attacks`, :func:`bishop_attacks` and :func:`attacked`
  (the attackers of squares) look up, piece by piece;
- on a whole side at once: :func:`attack_map`, the squares a side attacks (the move generator's king danger),
  where one fill per direction costs less than a look-up per piece.

:mod:`.lookup` derives the rest (lines, squares between, empty-board rays) from these; :mod:`.batch` (legal
moves), the ChessBase batch SAN and the replay of a PGN book build use them. A PGN book build imports neither
python-chess nor construct (start-up time; ``tests/cli/test_quick_start.py``); the tests compare every table and
answer with python-chess's, and ``tests/kernel/test_one_attack.py`` that no other module computes attacks.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["DOUBLE_BB", "KING_BB", "KNIGHT_BB", "PAWN_BB", "PUSH_BB", "SQUARE_BB", "attack_map", "attacked",
           "bishop_attacks", "king_attacks", "knight_attacks", "pawn_attacks", "pawn_pushes", "rook_attacks",
           "single_square", "slider_arrays"]

U64 = np.uint64
_ALL = U64((1 << 64) - 1)
_FILE_A = 0x0101_0101_0101_0101
_FILE_MAGIC = U64(0x0102_0408_1020_4080)
"""``(file bits moved to the a-file) * _FILE_MAGIC >> 56``: bit r of the byte is the square of rank r."""
_ALL_RANKS = U64(_FILE_A)
"""``(bits of one diagonal) * _ALL_RANKS >> 56``: bit f of the byte is the diagonal's square on file f; as a
multiplier of a byte, that byte on every rank."""

SQUARE_BB = U64(1) << np.arange(64, dtype=U64)
"""By square: the bitboard of that square alone."""
NOT_A, NOT_H, NOT_AB, NOT_GH = (_ALL ^ U64(_FILE_A * files) for files in (0x01, 0x80, 0x03, 0xC0))
"""Every square but those of the a-file; of the h-file; of the a- and b-files; of the g- and h-files (the squares
a step east, west, or a knight's jump, may land on without wrapping round the board)."""
_DIRECTIONS = ((8, _ALL), (-8, _ALL), (1, NOT_A), (-1, NOT_H), (9, NOT_A), (7, NOT_H), (-7, NOT_A), (-9, NOT_H))
"""(shift, mask of the squares a step can reach without wrapping): N, S, E, W, NE, NW, SE, SW."""
_N, _S, _E, _W, _NE, _NW, _SE, _SW = range(8)
_KNIGHT_JUMPS = ((17, NOT_A), (15, NOT_H), (10, NOT_AB), (6, NOT_GH), (-17, NOT_H), (-15, NOT_A), (-10, NOT_GH),
                 (-6, NOT_AB))
"""(shift, mask of the squares a knight's jump can reach without wrapping)."""


def _shift(bits: np.ndarray, amount: int) -> np.ndarray:
    shifted: np.ndarray = bits << U64(amount) if amount > 0 else bits >> U64(-amount)
    return shifted


def _steps(bits: np.ndarray, steps: tuple[tuple[int, np.uint64], ...]) -> np.ndarray:
    """The squares one of ``steps`` (shift, landing mask) takes ``bits`` to."""
    found = np.zeros_like(bits)
    for amount, mask in steps:
        found |= _shift(bits, amount) & mask
    return found


def knight_attacks(knights: np.ndarray) -> np.ndarray:
    """The squares the knights of each bitboard attack."""
    return _steps(knights, _KNIGHT_JUMPS)


def king_attacks(kings: np.ndarray) -> np.ndarray:
    """The squares the kings of each bitboard attack."""
    return _steps(kings, _DIRECTIONS)


def pawn_attacks(pawns: np.ndarray, white: np.ndarray | bool) -> np.ndarray:
    """The squares the pawns of each bitboard attack, pawns of colour ``white`` (per bitboard or for all)."""
    up = _steps(pawns, (_DIRECTIONS[_NE], _DIRECTIONS[_NW]))
    down = _steps(pawns, (_DIRECTIONS[_SE], _DIRECTIONS[_SW]))
    found: np.ndarray = np.where(white, up, down)
    return found


_RANK_4, _RANK_5 = U64(0xFF << 24), U64(0xFF << 32)


def pawn_pushes(pawns: np.ndarray, white: np.ndarray | bool, empty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The squares the pawns of each bitboard (of colour ``white``) push to: one step ahead onto an ``empty``
    square, and two steps from their start rank through an empty square onto one."""
    up: np.ndarray = np.where(white, pawns << U64(8), pawns >> U64(8)) & empty
    twice: np.ndarray = np.where(white, (up << U64(8)) & _RANK_4, (up >> U64(8)) & _RANK_5) & empty
    return up, twice


def _slides(sliders: np.ndarray, empty: np.ndarray, direction: int) -> np.ndarray:
    """Kogge-Stone occluded fill: the squares the sliders attack in one direction, stopped by the first square not
    ``empty``."""
    amount, mask = _DIRECTIONS[direction]
    propagate = empty & mask
    sliders = sliders | (propagate & _shift(sliders, amount))
    propagate &= _shift(propagate, amount)
    sliders |= propagate & _shift(sliders, 2 * amount)
    propagate &= _shift(propagate, 2 * amount)
    sliders |= propagate & _shift(sliders, 4 * amount)
    found: np.ndarray = _shift(sliders, amount) & mask
    return found


def _rays(sliders: np.ndarray, occupied: np.ndarray, directions: tuple[int, ...]) -> np.ndarray:
    """The squares the sliders attack along ``directions``, pieces on ``occupied`` blocking."""
    empty = ~occupied
    found = np.zeros_like(sliders)
    for direction in directions:
        found |= _slides(sliders, empty, direction)
    return found


_STRAIGHT, _DIAGONAL = (_N, _S, _E, _W), (_NE, _NW, _SE, _SW)

KNIGHT_BB = knight_attacks(SQUARE_BB)
"""By square: the squares a knight there attacks."""
KING_BB = king_attacks(SQUARE_BB)
"""By square: the squares a king there attacks."""
PAWN_BB = np.stack((pawn_attacks(SQUARE_BB, False), pawn_attacks(SQUARE_BB, True)))
"""By colour (0 black, 1 white), then square: the squares a pawn of that colour there attacks."""
_PAWN_SQUARES = SQUARE_BB & ~U64(0xFF | 0xFF << 56)  # (no pawn on the first or last rank)
PUSH_BB, DOUBLE_BB = (np.stack(pushes) for pushes in zip(*(pawn_pushes(_PAWN_SQUARES, white, _ALL)
                                                           for white in (False, True)), strict=True))
"""By colour (0 black, 1 white), then square: the square a pawn there pushes to, one step ahead (0 where none);
two steps ahead (0 off its start rank): :func:`pawn_pushes` on each square of an empty board."""


def attack_map(occupied: np.ndarray, knights: np.ndarray, kings: np.ndarray, pawns: np.ndarray,
               white: np.ndarray, diagonal: np.ndarray, straight: np.ndarray) -> np.ndarray:
    """Per position: every square the given pieces of one side attack (its pawns of colour ``white``), sliders
    seeing through ``occupied``."""
    found = pawn_attacks(pawns, white)
    found |= king_attacks(kings)
    found |= knight_attacks(knights)
    empty = ~occupied
    for direction in _STRAIGHT:
        found |= _slides(straight, empty, direction)
    for direction in _DIAGONAL:
        found |= _slides(diagonal, empty, direction)
    return found


@functools.cache
def slider_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kindergarten tables, made on first use: the rank, file, diagonal and anti-diagonal tables (flat,
    ``square * 256 + byte``: the attacks along that line of a slider on the square, the line's occupancy being the
    byte), then the diagonal and anti-diagonal through each square. A rank's byte is the rank itself, a file's bit
    ``i`` its square on rank ``i``, a diagonal's bit ``f`` its square on file ``f``: along every line a square is a
    position 0-7 of its byte, so the fills of a slider on the first rank, by position and byte, give every line,
    each byte put back on the board (shifted to the rank, spread up the file, or copied to every rank and masked
    with the diagonal, which has one square per file)."""
    squares = np.arange(64, dtype=U64)
    files, ranks = squares & U64(7), squares >> U64(3)
    byte = np.arange(256, dtype=U64)
    first_rank = np.repeat(SQUARE_BB[:8], 256)
    by_position = _rays(first_rank, np.tile(byte, 8), (_E, _W)).reshape(8, 256)
    along_file = np.bitwise_or.reduce(((by_position[..., None] >> squares[:8]) & U64(1)) << (U64(8) * squares[:8]),
                                      axis=-1)  # bit i -> rank i of the a-file
    no_pieces = np.zeros(64, U64)
    diagonal_mask = _rays(SQUARE_BB, no_pieces, (_NE, _SW)) | SQUARE_BB
    anti_mask = _rays(SQUARE_BB, no_pieces, (_NW, _SE)) | SQUARE_BB
    by_file = by_position[files]  # (square, byte): the positions attacked, a slider's position being its file
    copied = by_file * _ALL_RANKS
    rank = by_file << (U64(8) * ranks)[:, None]
    file = along_file[ranks] << files[:, None]
    diagonal, anti = (copied & mask[:, None] for mask in (diagonal_mask, anti_mask))
    return rank.ravel(), file.ravel(), diagonal.ravel(), anti.ravel(), diagonal_mask, anti_mask


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
