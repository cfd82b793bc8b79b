"""Monty files as numpy arrays: the types (:class:`PlyArrays`, :class:`MontyArrays`), the stored game header as a
numpy record, start positions as kernel batches, and writing a file from arrays (:func:`write_arrays`).

Why this representation. A training run reads billions of plies, so a ply is a row in a few flat arrays, never
a Python object:

- a position is the four overlapping bitboards the file itself stores in a game header (``boards``, 32 bytes:
  black, rooks|queens|kings, knights|bishops|kings, pawns|bishops|queens), plus side to move, en-passant square,
  castling rooks and the move counters. It is the most compact exact form (a network's 768 piece planes are 24
  times larger as bytes), numpy expands it in seven bit operations (:func:`piece_bitboards`), and it is the
  form a header is written from;
- the visit distributions are ragged (one byte per legal move), so they are one flat ``uint8`` array with
  per-ply offsets (``visits[visit_offsets[i]:visit_offsets[i + 1]]``, the CSR layout every framework takes)
  and beside it, aligned byte for byte, the legal moves' codes (``visit_moves``), so that a consumer never
  generates moves again.

All arrays are C-contiguous numpy arrays of fixed-width types: ``torch.from_numpy`` and the like share their
memory.
"""

from __future__ import annotations

import os
from typing import IO, NamedTuple

import numpy as np

from ...engine.codec import codec
from ...engine.contract import WriteReport
from ...engine.fileio import atomic_write
from ...kernel.batch import Boards
from ...kernel.lookup import SQUARE_BB
from ...schemas import monty as schema
from .model import (
    HEADER_NAMES,
    HEADER_OFFSETS,
    HEADER_SIZE,
    RIGHT_NAMES,
    RIGHT_SIDES,
    RIGHTS,
    ROOK_FIELDS,
    STANDARD_FILES,
    TERMINATORS,
    check_format,
)

__all__ = ["HEADER_DTYPE", "MontyArrays", "PlyArrays", "piece_bitboards", "start_boards", "take_games",
           "write_arrays"]

_BITBOARDS = codec(schema.BITBOARDS).dtype
_STORED = codec(schema.HEADER).dtype
_BOARD = (_BITBOARDS[0], (len(_BITBOARDS.names or ()),))
HEADER_DTYPE = np.dtype({
    "names": list(HEADER_NAMES),
    "formats": [_BOARD if name == "board" else _STORED[name] for name in HEADER_NAMES],
    "offsets": [HEADER_OFFSETS[name] for name in HEADER_NAMES],
    "itemsize": HEADER_SIZE,
})
"""A game header as stored (43 bytes, :data:`chessformats.schemas.monty.HEADER`), as a numpy record: the declaration's
dtype, its board (four bitboards of one type) as one ``(4,)`` field."""
PLY_DTYPES = {"policy": codec(schema.PLY_HEAD).dtype, "value": codec(schema.VALUE_PLY).dtype}
"""A ply record's fixed part as stored, by format (the policy format's visit bytes follow it), as a numpy record."""


class PlyArrays(NamedTuple):
    """Plies as arrays, one row per ply (see the module's docstring for why this form)."""

    boards: np.ndarray
    """``uint64 (n, 4)``: the position before the move as the file stores a position (black, rooks|queens|kings,
    knights|bishops|kings, pawns|bishops|queens)."""
    side: np.ndarray
    """``uint8``: 0 white to move, 1 black (the header's byte)."""
    ep_square: np.ndarray
    """``uint8``: en-passant square after a double push, 0 for none."""
    castling: np.ndarray
    """``uint64``: the squares of the rooks that may still castle."""
    halfmove: np.ndarray
    """``uint16``."""
    fullmove: np.ndarray
    """``uint16``."""
    move: np.ndarray
    """``uint16``: the move played, as stored."""
    score: np.ndarray
    """The score as stored: ``uint16`` (policy: side to move's, times 65535) or ``int16`` (value: white's)."""
    result: np.ndarray
    """``uint8``: the game's result byte (0 white lost, 1 draw, 2 white won)."""
    game: np.ndarray
    """``int64``: the game's number in its file."""
    visit_offsets: np.ndarray
    """``int64 (n + 1)``: ply ``i``'s visits are ``visits[visit_offsets[i]:visit_offsets[i + 1]]`` (empty: none
    stored, and always in the value format)."""
    visits: np.ndarray
    """``uint8``: the stored visit bytes (255 = the most visited move)."""
    visit_moves: np.ndarray
    """``uint16``: the legal move each visit byte belongs to (the position's legal moves in code order)."""

    @property
    def size(self) -> int:
        """The number of plies."""
        return len(self.move)

    def take(self, index: np.ndarray) -> PlyArrays:
        """The plies at ``index`` (any order), visits moved with them."""
        index = np.asarray(index, dtype=np.int64)
        offsets, flat = runs(self.visit_offsets, index)
        return PlyArrays._make([*(field[index] for field in self[:10]), offsets, self.visits[flat],
                                self.visit_moves[flat]])

    def scores(self) -> np.ndarray:
        """The scores as ``float32`` in [0, 1] for the side to move."""
        if self.score.dtype == np.uint16:
            policy: np.ndarray = (self.score / np.float32(65535)).astype(np.float32)
            return policy
        white = 1 / (1 + np.exp(-self.score.astype(np.float64) / 400))
        return np.where(self.side == 0, white, 1 - white).astype(np.float32)


class MontyArrays(NamedTuple):
    """A file (or part of one) as arrays: the games' headers and every ply (:class:`PlyArrays`)."""

    format: str
    """``"policy"`` or ``"value"``."""
    headers: np.ndarray
    """:data:`HEADER_DTYPE` records: each game's header as stored (start position, rook files, result)."""
    game_plies: np.ndarray
    """``int64 (games + 1)``: game ``g``'s plies are rows ``game_plies[g]:game_plies[g + 1]`` of ``plies``."""
    offsets: np.ndarray
    """``int64``: each game's byte offset in its file."""
    numbers: np.ndarray
    """``int64``: each game's number in its file, from 0."""
    plies: PlyArrays


def runs(offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs ``offsets[i]:offsets[i + 1]`` for each ``i`` of ``index``, one after the other: their new offsets and
    the position of each of their elements in the old order."""
    starts = offsets[index]
    counts = offsets[index + 1] - starts
    bounds = np.zeros(len(index) + 1, dtype=np.int64)
    np.cumsum(counts, out=bounds[1:])
    return bounds, np.repeat(starts - bounds[:-1], counts) + np.arange(bounds[-1])


def piece_bitboards(boards: np.ndarray) -> np.ndarray:
    """The stored bitboards (``(n, 4)``) expanded to ``(n, 8)``: white, black, pawns, knights, bishops, rooks,
    queens, kings (the specification's formula, as :func:`chessformats.schemas.monty.expand_bitboards`)."""
    black, rqk, nbk, pbq = boards[:, 0], boards[:, 1], boards[:, 2], boards[:, 3]
    kings, queens, bishops = rqk & nbk, rqk & pbq, nbk & pbq
    return np.stack([(rqk | nbk | pbq) ^ black, black, pbq ^ bishops ^ queens, nbk ^ bishops ^ kings, bishops,
                     rqk ^ kings ^ queens, queens, kings], axis=1)


def rook_files(headers: np.ndarray) -> np.ndarray:
    """``(games, 4)`` the castling rook files (Q K q k) as the reader takes them (all zero: standard chess)."""
    files = np.stack([headers[name] for name in ROOK_FIELDS], axis=1).astype(np.int64)
    files[~files.any(axis=1)] = STANDARD_FILES
    return files


def start_boards(headers: np.ndarray) -> tuple[Boards, np.ndarray]:
    """The start positions of games as a kernel batch, and which are Chess960 (rook files other than a and h, or
    a castling right with the king off the e-file). The headers are assumed checked (:func:`suspect_headers`)."""
    pieces = piece_bitboards(headers["board"])
    white, black = pieces[:, 0], pieces[:, 1]
    rights = headers["castling_rights"].astype(np.int64)
    files = rook_files(headers)
    castling = np.zeros(len(headers), dtype=np.uint64)
    chess960 = (files != STANDARD_FILES).any(axis=1)
    for index, name in enumerate(RIGHT_NAMES):
        held = (rights >> RIGHTS[name].shift & 1) == 1
        is_white = RIGHT_SIDES[index][0]
        rank = 0 if is_white else 56
        castling |= np.where(held, SQUARE_BB[rank + files[:, index]], np.uint64(0))
        own_king = pieces[:, 7] & (white if is_white else black) & np.uint64(0xFF << rank)
        chess960 |= held & (own_king != SQUARE_BB[rank + 4])
    boards = Boards._make([white, black, *(pieces[:, i] for i in range(2, 8)), headers["side_to_move"] == 0,
                           headers["ep_square"].copy(), castling, headers["halfmove_clock"].astype(np.uint16),
                           headers["fullmove_number"].astype(np.uint16)])
    return boards, chess960


def stored_boards(boards: Boards) -> np.ndarray:
    """Kernel positions as the file stores them: ``(n, 4)`` black, rooks|queens|kings, knights|bishops|kings,
    pawns|bishops|queens."""
    return np.stack([boards.black, boards.rooks | boards.queens | boards.kings,
                     boards.knights | boards.bishops | boards.kings, boards.pawns | boards.bishops | boards.queens],
                    axis=1)


def take_games(arrays: MontyArrays, games: np.ndarray) -> MontyArrays:
    """The games at ``games`` (any order, repeats allowed), with their plies: a shuffled or filtered copy of a
    file without a Python object per ply (write it with :func:`write_arrays`)."""
    games = np.asarray(games, dtype=np.int64)
    bounds, rows = runs(arrays.game_plies, games)
    return MontyArrays(arrays.format, arrays.headers[games], bounds, arrays.offsets[games], arrays.numbers[games],
                       arrays.plies.take(rows))


def file_bytes(arrays: MontyArrays) -> bytes:
    """The bytes of a file holding the games of ``arrays``, every field as stored (scores and visit bytes
    unchanged): a file read into arrays and written back is identical."""
    check_format(arrays.format)
    value = arrays.format == "value"
    plies = arrays.plies
    games = len(arrays.headers)
    per_game = np.diff(arrays.game_plies)
    if plies.size != arrays.game_plies[-1] or len(per_game) != games:
        raise ValueError("the ply arrays do not match the games' ply counts")
    if np.any(plies.move == 0):
        raise ValueError("a move code 0 (the null move) cannot be stored: it ends a game")
    counts = np.diff(plies.visit_offsets)
    if not value and np.any(counts > 255):
        raise ValueError("more than 255 visit bytes in a ply")
    head = PLY_DTYPES[arrays.format].itemsize
    record = head + (np.zeros_like(counts) if value else counts)
    before = np.zeros(len(record) + 1, dtype=np.int64)
    np.cumsum(record, out=before[1:])
    ends = arrays.game_plies
    game_size = HEADER_SIZE + TERMINATORS[arrays.format] + before[ends[1:]] - before[ends[:-1]]
    starts = np.zeros(games + 1, dtype=np.int64)
    np.cumsum(game_size, out=starts[1:])
    out = np.zeros(int(starts[-1]), dtype=np.uint8)
    heads = np.ascontiguousarray(arrays.headers, dtype=HEADER_DTYPE).view(np.uint8).reshape(games, HEADER_SIZE)
    out[(starts[:-1, None] + np.arange(HEADER_SIZE)).ravel()] = heads.ravel()
    game_of_ply = np.repeat(np.arange(games), per_game)
    within = before[:-1] - before[arrays.game_plies[:-1]][game_of_ply]
    at = starts[:-1][game_of_ply] + HEADER_SIZE + within
    ply = np.zeros(plies.size, dtype=PLY_DTYPES[arrays.format])
    ply["move"], ply["score"] = plies.move, plies.score
    if not value:
        ply["num_moves"] = counts
    out[(at[:, None] + np.arange(head)).ravel()] = ply.view(np.uint8)
    if not value:
        first = np.repeat(at + head - (plies.visit_offsets[:-1] - plies.visit_offsets[0]), counts)
        out[first + np.arange(plies.visit_offsets[-1])] = plies.visits[plies.visit_offsets[0]:plies.visit_offsets[-1]]
    return out.tobytes()


def write_arrays(target: str | os.PathLike[str] | IO[bytes], arrays: MontyArrays) -> WriteReport:
    """Write the games of ``arrays`` (as :func:`~.bulk.read_arrays` gives them, or :func:`take_games` of them) as
    a file of their format; a path is written atomically. Returns a
    :class:`~chessformats.engine.contract.WriteReport` (unit ``games``)."""
    data = file_bytes(arrays)
    if isinstance(target, (str, os.PathLike)):
        path = os.fspath(target)
        with atomic_write(target) as handle:
            handle.write(data)
        return WriteReport(path, len(arrays.headers), "games", files=[path])
    target.write(data)
    name = getattr(target, "name", None)
    return WriteReport(name if isinstance(name, str) else "<stream>", len(arrays.headers), "games")
