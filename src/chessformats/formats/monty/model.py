"""Monty's games and plies (:class:`Game`, :class:`Ply`), a game as bytes (:class:`RawGame`), and the fast
paths of the records, all derived from :mod:`chessformats.schemas.monty`."""

from __future__ import annotations

import struct
from collections.abc import ItemsView, Iterator, Mapping, Sequence, ValuesView
from typing import Any, NamedTuple

import chess
import numpy as np

from ...engine.codec import codec
from ...engine.errors import FormatError
from ...engine.layout import bit_fields, describe, struct_format
from ...engine.schema import enum_view
from ...schemas import monty as schema

__all__ = [
    "BITBOARDS_STRUCT",
    "BITBOARD_NAMES",
    "FORMATS",
    "HEADER_NAMES",
    "HEADER_OFFSETS",
    "HEADER_RANGES",
    "HEADER_SIZE",
    "HEADER_STRUCT",
    "MAX_PLY",
    "MOVE_WORD",
    "PLY_HEAD_STRUCT",
    "PLY_OFFSETS",
    "RESULTS",
    "RESULT_BYTES",
    "RIGHTS",
    "RIGHT_NAMES",
    "RIGHT_SIDES",
    "ROOK_FIELDS",
    "ROUNDINGS",
    "SCORE_RANGES",
    "SIDES",
    "STANDARD_FILES",
    "TERMINATORS",
    "VALUE_PLY_STRUCT",
    "VISIT_MAX",
    "Game",
    "Ply",
    "RawGame",
    "VisitShares",
    "check_format",
]

FORMATS = ("policy", "value")
"""``policy``: montyformat files (scores, visit distributions); ``value``: montyvalue files (evaluations)."""
ROUNDINGS = ("round", "trunc256")
"""How visit counts become bytes: ``round(v * 255 / max)`` (current writers) or ``min(trunc(v * 256 / max), 255)``."""

# --- fast paths, all derived from the declarations --------------------------------------------------------

HEADER_STRUCT = struct.Struct(struct_format(schema.HEADER))
HEADER_NAMES = tuple(sub.name for sub in schema.HEADER.subcons)
HEADER_OFFSETS = {field.path: field.offset or 0 for field in describe(schema.HEADER)}
BITBOARDS_STRUCT = struct.Struct(struct_format(schema.BITBOARDS))
BITBOARD_NAMES = tuple(sub.name for sub in schema.BITBOARDS.subcons)
RIGHTS = bit_fields(schema.CASTLING_RIGHTS)
PLY_HEAD_STRUCT = struct.Struct(struct_format(schema.PLY_HEAD))
VALUE_PLY_STRUCT = struct.Struct(struct_format(schema.VALUE_PLY))
MOVE_WORD = struct.Struct(codec(schema.MOVE).struct_format)  # the move alone, to find terminators
PLY_OFFSETS = {field.path: field.offset or 0 for field in describe(schema.PLY_HEAD)}
TERMINATORS = {"policy": schema.TERMINATOR.sizeof(), "value": schema.VALUE_TERMINATOR.sizeof()}
HEADER_SIZE = schema.HEADER_SIZE
MAX_PLY = PLY_HEAD_STRUCT.size + codec(schema.PLY_HEAD).field("num_moves").mask  # the largest policy ply record



def _range(declaration: Any, path: str) -> tuple[int, int]:
    """The smallest and largest value of an integer field of a declaration."""
    field = codec(declaration).field(path)
    if field.slot is not None and field.slot.signed:
        return -(1 << (field.width - 1)), (1 << (field.width - 1)) - 1
    return 0, field.mask


SCORE_RANGES = {"policy": _range(schema.PLY_HEAD, "score"), "value": _range(schema.VALUE_PLY, "score")}
"""The stored score's range by format (the policy score is ``trunc(score * largest)``)."""
VISIT_MAX = _range(schema.PLY, "visits[]")[1]
"""The largest visit byte (the most visited move)."""
HEADER_RANGES = {name: _range(schema.HEADER, name) for name in ("halfmove_clock", "fullmove_number")}
SIDES = enum_view(schema.SIDE).values
"""The side-to-move byte by name (``white``, ``black``)."""

_PGN_RESULTS = {"black_wins": "0-1", "draw": "1/2-1/2", "white_wins": "1-0"}
RESULTS = {value: _PGN_RESULTS[name] for value, (name, _) in schema.RESULT.meanings.items()}
"""The result byte (:data:`chessformats.schemas.monty.RESULT`) -> the PGN result."""
RESULT_BYTES = {text: byte for byte, text in RESULTS.items()}
"""The PGN result -> the result byte."""
ROOK_FIELDS = tuple(name for name in HEADER_NAMES if name.endswith("_rook"))
"""The header's rook-file fields, in their order (Q K q k)."""
RIGHT_NAMES = tuple(name.removesuffix("_rook") for name in ROOK_FIELDS)
"""The castling rights (fields of :data:`chessformats.schemas.monty.CASTLING_RIGHTS`), in the order of
:data:`ROOK_FIELDS`."""
RIGHT_SIDES = tuple((name.startswith("white"), name.endswith("queenside")) for name in RIGHT_NAMES)
"""(white?, queenside?) of each of :data:`RIGHT_NAMES`."""
STANDARD_FILES = tuple(0 if queenside else 7 for _, queenside in RIGHT_SIDES)
"""The rook files of standard chess (a, h), in the order of :data:`RIGHT_NAMES`."""


class _Shares(ValuesView[float]):
    def __init__(self, mapping: VisitShares) -> None:
        super().__init__(mapping)
        self._shares = mapping._made()[1]

    def __iter__(self) -> Iterator[float]:
        return iter(self._shares)


class _Pairs(ItemsView[chess.Move, float]):
    def __init__(self, mapping: VisitShares) -> None:
        super().__init__(mapping)
        self._pairs = mapping._made()

    def __iter__(self) -> Iterator[tuple[chess.Move, float]]:
        return zip(*self._pairs, strict=True)


class VisitShares(Mapping[chess.Move, float]):
    """A ply's visit distribution: each legal move (in the order of the codes) and its share of the visits.

    A read-only mapping like a ``dict``, equal to the ``dict`` of the same pairs. Made for reading files fast:
    the reader gives the codes and shares of a whole batch of plies and each distribution takes its moves and
    shares from them on first use (a ``chess.Move`` per legal move is the largest cost of reading a ply);
    looking a move up builds a ``dict`` once.
    """

    __slots__ = ("_lookup", "_moves", "_shares", "_source")

    def __init__(self, moves: list[chess.Move], shares: list[float]) -> None:
        self._moves: list[chess.Move] | None = moves
        self._shares: list[float] = shares
        self._lookup: dict[chess.Move, float] | None = None
        self._source: tuple[np.ndarray, np.ndarray, int, int, chess.Board | None] | None = None

    @classmethod
    def of_codes(cls, codes: np.ndarray, shares: np.ndarray, low: int, high: int,
                 board: chess.Board | None) -> VisitShares:
        """The distribution of ``codes[low:high]`` with ``shares[low:high]``; ``board``: a Chess960 position
        (castling codes become king-takes-rook moves), else ``None``. It keeps the arrays until first used."""
        return lazy_shares(codes, shares, low, high, board) if cls is VisitShares else cls._of(
            codes, shares, low, high, board)

    @classmethod
    def _of(cls, codes: np.ndarray, shares: np.ndarray, low: int, high: int,
            board: chess.Board | None) -> VisitShares:
        made = cls.__new__(cls)
        made._source, made._moves, made._lookup = (codes, shares, low, high, board), None, None
        return made

    def _made(self) -> tuple[list[chess.Move], list[float]]:
        if self._moves is None:
            from .moves import MOVES

            assert self._source is not None
            codes_array, shares, low, high, board = self._source
            codes = codes_array[low:high].tolist()
            if board is None:
                self._moves = list(map(MOVES.__getitem__, codes))
            else:
                from ...kernel.boards import move_of_code

                self._moves = [move_of_code(code, board) if code & 14 == 2 else MOVES[code] for code in codes]
            self._shares = shares[low:high].tolist()
            self._source = None
        return self._moves, self._shares

    def __getitem__(self, move: chess.Move) -> float:
        if self._lookup is None:
            self._lookup = dict(zip(*self._made(), strict=True))
        return self._lookup[move]

    def __iter__(self) -> Iterator[chess.Move]:
        return iter(self._made()[0])

    def __len__(self) -> int:
        if self._source is not None:
            return self._source[3] - self._source[2]
        assert self._moves is not None
        return len(self._moves)

    def values(self) -> ValuesView[float]:
        return _Shares(self)

    def items(self) -> ItemsView[chess.Move, float]:
        return _Pairs(self)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


_new_shares = object.__new__


def lazy_shares(codes: np.ndarray, shares: np.ndarray, low: int, high: int,
                board: chess.Board | None) -> VisitShares:
    """:meth:`VisitShares.of_codes` without a method call (the reader makes one per ply)."""
    made: VisitShares = _new_shares(VisitShares)
    made._source = (codes, shares, low, high, board)
    made._moves = made._lookup = None
    return made


class Ply(NamedTuple):
    """One ply: the move played and what the search said about the position before it.

    To write a game only ``move``, ``score`` and (policy format) ``visits`` are needed. ``raw_score`` and
    ``visit_bytes`` are the values as stored; when set, :func:`write_games` writes them unchanged (they
    must agree with ``score`` and ``visits``: to write new values, set them to ``None``).
    """

    move: chess.Move
    """The move played (Chess960 castling as python-chess writes it: king takes own rook)."""
    score: float
    """The search's score in [0, 1] from the side to move's point of view."""
    visits: Mapping[chess.Move, float] | None = None
    """Policy format: each legal move's share of the visits (reading: byte / sum of the bytes; writing:
    counts or fractions, missing moves count 0); ``None`` when the ply stores no distribution."""
    raw_score: int | None = None
    """The score as stored: u16 (policy format) or i16 (value format, from white's point of view)."""
    visit_bytes: bytes | None = None
    """The visit bytes as stored, in the order of the legal moves' codes."""
    board: chess.Board | None = None
    """The position before the move (filled by the reader; ignored by the writer)."""
    code: int | None = None
    """The u16 code of the move as stored (filled by the reader)."""


class Game(NamedTuple):
    """One game: the start position, the plies and the result."""

    board: chess.Board
    """The start position (``chess960`` set for Chess960 games)."""
    plies: Sequence[Ply]
    """The plies, in order."""
    result: str
    """``"1-0"``, ``"1/2-1/2"`` or ``"0-1"``."""
    rook_files: tuple[int, int, int, int] | None = None
    """The stored castling rook files (Q K q k, 0 = a-file); ``None`` to derive them from the board."""
    format: str | None = None
    """The format the game was read from (``raw_score`` is only reused when writing the same format)."""
    number: int | None = None
    """The game's number in its file, from 0 (filled by the reader)."""
    offset: int | None = None
    """The game's byte offset in its file (filled by the reader)."""


class RawGame(NamedTuple):
    """A game as bytes: the header fields and the ply records, checked for structure only.

    ``error`` is a structural fault met after ``plies``: the chess layer checks those plies first, so that
    the first fault in file order is the one reported (a wrong move count misaligns what follows it).
    """

    number: int
    offset: int
    header: dict[str, Any]
    plies: list[tuple[int, int, int, bytes]]  # (offset, move code, raw score, visit bytes)
    end: int
    error: FormatError | None = None


def check_format(format: str) -> None:
    """Raise :class:`ValueError` for a format name other than those of :data:`FORMATS`."""
    if format not in FORMATS:
        raise ValueError(f"unknown Monty format {format!r} (known: {', '.join(FORMATS)})")
