"""CTG records: a position's moves with their annotations, and its statistics (:class:`PositionRecord`)."""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import NamedTuple

import chess

from ...engine.layout import bit_fields, describe, struct_format
from ...schemas import ctg as schema
from .position import MOVES, encode

__all__ = ["PAGE_SIZE", "BookMove", "PositionRecord", "Rating", "make_record", "polyglot_weight"]

# --- tables derived from the declarations -------------------------------------------------------------

PAGE_SIZE = schema.PAGE_SIZE
"""Every page of a ``.ctg`` file, the header page included, is this long."""
PAGE_HEADER = struct.Struct(struct_format(schema.PAGE_HEADER))
"""A data page's header: (positions, bytes used)."""
PAGE_CAPACITY = PAGE_SIZE - PAGE_HEADER.size
"""Bytes of a data page for records."""
STATS_SIZE = schema.STATS.sizeof()
MOVE_SIZE = schema.MOVE.sizeof()
MOVES_LENGTH_SIZE = schema.MOVES.subcons[0].sizeof()
_RECOMMENDATION_BITS = bit_fields(schema.RECOMMENDATION)
_GREEN = 1 << _RECOMMENDATION_BITS["green"].shift
_RED = 1 << _RECOMMENDATION_BITS["red"].shift
_OTHER_FLAGS = _RECOMMENDATION_BITS["other"].mask << _RECOMMENDATION_BITS["other"].shift

# (name, offset, size) of every byte-level field of the 33 statistics bytes, from the declaration
_STATS_FIELDS = tuple((f.path, f.offset or 0, f.size or 0) for f in describe(schema.STATS)
                      if f.leaf and f.bits is None)
if [name for name, _, _ in _STATS_FIELDS] != ["games", "wins", "losses", "draws", "unknown1", "rating1.games",
                                              "rating1.total", "rating2.games", "rating2.total", "unknown2",
                                              "comment"]:  # pragma: no cover - guards the unpacking below
    raise ImportError("schemas.ctg.STATS changed: update PositionRecord")
_RECOMMENDATION_OFFSET = next(f.offset for f in describe(schema.STATS) if f.path == "recommendation")
_STATS_LIMITS = {name: 1 << (8 * size) for name, _, size in _STATS_FIELDS}
STATS_SHIFTS = tuple((8 * (STATS_SIZE - offset - size), (1 << (8 * size)) - 1) for _, offset, size in
                     (*_STATS_FIELDS, ("recommendation", _RECOMMENDATION_OFFSET or 0, 1)))
"""The 33 bytes read as one integer: (shift, mask) of every field in declaration order, recommendation last."""

_ANNOTATIONS = {a.value: a for a in schema.ANNOTATIONS}
_COMMENTS = {a.value: a for a in schema.COMMENTS}


class Rating(NamedTuple):
    """A rating block: the games with a known rating and the sum of those ratings."""

    games: int
    total: int

    @property
    def average(self) -> float | None:
        return self.total / self.games if self.games else None


NO_RATING = Rating(0, 0)


def _symbol(table: dict[int, schema.Annotation], value: int) -> str:
    """The symbol of an annotation or comment byte (empty for an undeclared value)."""
    known = table.get(value)
    return known.symbol if known is not None else ""


class BookMove(NamedTuple):
    """A book move with its annotation."""

    move: chess.Move
    """The move in the position it belongs to (the probed board, or the normalised board when iterating)."""
    code: int
    """The move code as stored."""
    annotation: int
    """The annotation byte as stored (0 = none); its value is the NAG."""

    @property
    def nag(self) -> int | None:
        return self.annotation or None

    @property
    def symbol(self) -> str:
        """``!``, ``?``, ``!!``, ``??``, ``!?``, ``?!``, ... (empty for none or an undeclared value)."""
        return _symbol(_ANNOTATIONS, self.annotation)


class PositionRecord(NamedTuple):
    """One position of the book with its moves and statistics (from the point of view of the side to move)."""

    board: chess.Board
    """The position the moves belong to: the probed board, or the normalised board when iterating."""
    moves: tuple[BookMove, ...]
    games: int
    wins: int
    losses: int
    draws: int
    unknown1: int
    rating1: Rating
    """Ratings of the players of the side to move."""
    rating2: Rating
    """Ratings of their opponents."""
    recommendation: int
    unknown2: int
    comment: int
    signature: bytes = b""
    """The encoded normalised position (the record's first bytes)."""
    padding: int = 0
    """The padding bits as stored (0 in every known book)."""
    page: int | None = None
    number: int | None = None
    offset: int | None = None
    """Where the record is: data page, number on the page, absolute offset in the ``.ctg``."""
    flipped: bool = False
    mirrored: bool = False
    """How ``board`` maps onto the normalised board (colours flipped; files mirrored)."""

    @property
    def green(self) -> bool:
        """Recommended (shown green)."""
        return bool(self.recommendation & _GREEN)

    @property
    def red(self) -> bool:
        """Not recommended (shown red)."""
        return bool(self.recommendation & _RED)

    @property
    def other_flags(self) -> int:
        """The recommendation bits other than green and red, as stored."""
        return self.recommendation & _OTHER_FLAGS

    @property
    def comment_nag(self) -> int | None:
        return self.comment or None

    @property
    def comment_symbol(self) -> str:
        return _symbol(_COMMENTS, self.comment)

    @property
    def average_rating(self) -> float | None:
        """Average rating of the players of the side to move."""
        return self.rating1.average

    @property
    def opponents_rating(self) -> float | None:
        return self.rating2.average

    @property
    def performance(self) -> float | None:
        """Performance of the side to move: opponents' average + 400 * (wins - losses) / decided-or-drawn games."""
        scored = self.wins + self.draws + self.losses
        opponents = self.rating2.average
        if opponents is None or not scored:
            return None
        return opponents + 400 * (self.wins - self.losses) / scored

    def stats_bytes(self) -> bytes:
        """The 33 statistics bytes of this record."""
        values = {"games": self.games, "wins": self.wins, "losses": self.losses, "draws": self.draws,
                  "unknown1": self.unknown1, "rating1.games": self.rating1.games,
                  "rating1.total": self.rating1.total, "rating2.games": self.rating2.games,
                  "rating2.total": self.rating2.total, "unknown2": self.unknown2, "comment": self.comment}
        out = bytearray(STATS_SIZE)
        for name, offset, size in _STATS_FIELDS:
            value = values[name]
            if not 0 <= value < _STATS_LIMITS[name]:
                raise ValueError(f"{name} = {value} does not fit in {size} bytes")
            out[offset:offset + size] = value.to_bytes(size, "big")
        if not 0 <= self.recommendation < 256:
            raise ValueError(f"recommendation = {self.recommendation} does not fit in a byte")
        out[_RECOMMENDATION_OFFSET or 0] = self.recommendation
        return bytes(out)

    def to_bytes(self) -> bytes:
        """The whole record as stored."""
        if len(self.moves) > (255 - MOVES_LENGTH_SIZE) // MOVE_SIZE:
            raise ValueError(f"a CTG record holds at most 127 moves, not {len(self.moves)}")
        moves = bytearray((MOVES_LENGTH_SIZE + MOVE_SIZE * len(self.moves),))
        for move in self.moves:
            if move.code not in MOVES or not 0 <= move.annotation < 256:
                raise ValueError(f"invalid move code {move.code} or annotation {move.annotation}")
            moves += bytes((move.code, move.annotation))
        return self.signature + bytes(moves) + self.stats_bytes()


def make_record(board: chess.Board, moves: Iterable[chess.Move | tuple[chess.Move, int]] = (), *,
                games: int = 0, wins: int = 0, losses: int = 0, draws: int = 0, unknown1: int = 0,
                rating1: Rating = NO_RATING, rating2: Rating = NO_RATING, recommendation: int = 0,
                unknown2: int = 0, comment: int = 0) -> PositionRecord:
    """A record for ``board``: moves (optionally ``(move, annotation)``) and statistics of the side to move.

    Raises :class:`ValueError` for a move CTG cannot store (see :func:`~.position.encode_move`).
    """
    encoded, norm = encode(board)
    book_moves = []
    for item in moves:
        move, annotation = item if isinstance(item, tuple) else (item, 0)
        code = MOVES.encode(norm, move, board.piece_type_at(move.from_square))
        if code is None:
            raise ValueError(f"CTG cannot store the move {move.uci()} in {board.fen()}")
        book_moves.append(BookMove(move, code, annotation))
    return PositionRecord(board.copy(stack=False), tuple(book_moves), games, wins, losses, draws, unknown1, rating1,
                          rating2, recommendation, unknown2, comment, encoded, 0, None, None, None,
                          norm.flipped, norm.mirrored)


def polyglot_weight(child: PositionRecord | None, annotation: int = 0) -> int:
    """The Polyglot weight of a CTG move, from the record of the position it leads to and its annotation.

    ``2 * wins + draws + unknown`` for the side that plays the move (its wins are the child record's
    losses; games without a known result count like draws), times 2 for ``!`` and 4 for ``!!``, halved
    for ``?!``; 0 for ``?`` and ``??`` moves and for moves into a position marked red (not recommended);
    1 when the position the move leads to is not stored.
    """
    if annotation in (0x02, 0x04):
        return 0
    if child is None:
        return 1
    if child.red:
        return 0
    unknown = max(child.games - child.wins - child.draws - child.losses, 0)
    weight = 2 * child.losses + child.draws + unknown
    factor = {0x01: 2, 0x03: 4}.get(annotation, 1)
    weight *= factor
    if annotation == 0x06:
        weight = max(weight // 2, 1) if weight else 0
    return weight
