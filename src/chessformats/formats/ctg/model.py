"""CTG records: a position's moves with their annotations, and its statistics (:class:`PositionRecord`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import chess

from ...engine import display
from ...engine.codec import codec
from ...engine.errors import FormatError
from ...schemas import ctg as schema
from .position import MOVES, encode

__all__ = ["PAGE_SIZE", "BookMove", "PositionRecord", "Rating", "make_record", "polyglot_weight", "record_notes"]

# --- tables derived from the declarations -------------------------------------------------------------

PAGE_SIZE = schema.PAGE_SIZE
"""Every page of a ``.ctg`` file, the header page included, is this long (the header page's declared size)."""
PAGE_HEADER = codec(schema.PAGE_HEADER)
"""A data page's header: (positions, bytes used)."""
PAGE_HEADER_SIZE = int(PAGE_HEADER.size or 0)
PAGE_CAPACITY = PAGE_SIZE - PAGE_HEADER_SIZE
"""Bytes of a data page for records."""
STATS = codec(schema.STATS)
"""The 33 statistics bytes after the moves."""
STATS_SIZE = int(STATS.size or 0)
MOVE = codec(schema.MOVE)
"""One book move: (code, annotation)."""
MOVE_SIZE = int(MOVE.size or 0)
MOVES_LENGTH = codec(schema.MOVES.subcons[0])
"""The moves block's length field (it counts itself: ``MOVES_LENGTH_SIZE + MOVE_SIZE * moves``)."""
MOVES_LENGTH_SIZE = int(MOVES_LENGTH.size or 0)
MAX_MOVES = (MOVES_LENGTH.field("length").mask - MOVES_LENGTH_SIZE) // MOVE_SIZE
"""The most moves a moves block's length field can count."""
_RECOMMENDATION_BITS = STATS.bit_fields("recommendation")
_GREEN = 1 << _RECOMMENDATION_BITS["green"].shift
_RED = 1 << _RECOMMENDATION_BITS["red"].shift
_OTHER_FLAGS = _RECOMMENDATION_BITS["other"].mask << _RECOMMENDATION_BITS["other"].shift

# PositionRecord's statistics fields, by their paths in the declaration (the recommendation is kept as its byte)
_STATS_FIELDS = ("games", "wins", "losses", "draws", "unknown1", "rating1.games", "rating1.total", "rating2.games",
                 "rating2.total", "unknown2", "comment")
_RECOMMENDATION = STATS.field("recommendation")
_RECOMMENDATION_LEAVES = tuple((STATS.leaves.index(path), STATS.field(path)) for path in STATS.leaves
                               if path.startswith("recommendation."))
RECOMMENDATION_OF = {tuple(field.extract(number) for _, field in _RECOMMENDATION_LEAVES): number
                     for number in range(_RECOMMENDATION.mask + 1)}
"""The recommendation as stored (its bits together, one number), by the values of its bit fields."""

_ANNOTATIONS = {a.value: a for a in schema.ANNOTATIONS}
_ANNOTATION = {a.name: a.value for a in schema.ANNOTATIONS}
_ZERO_WEIGHT = (_ANNOTATION["mistake"], _ANNOTATION["blunder"])
_WEIGHT_FACTORS = {_ANNOTATION["good"]: 2, _ANNOTATION["brilliant"]: 4}
_HALVED = _ANNOTATION["dubious"]
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
    weight: int | None = None
    """The move's Polyglot weight (:func:`polyglot_weight`: from the position it leads to and the annotation);
    given by :meth:`~chessformats.ctg.CtgBook.find_all` and the choices, ``None`` in records and probes (it takes a
    lookup of the next position)."""

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
    """Games of the position, results unknown included (at least ``wins + draws + losses``)."""
    wins: int
    draws: int
    losses: int
    """Results of the side to move (the contract's order everywhere: wins, draws, losses)."""
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

    def _repr_html_(self) -> str | None:
        """In a notebook: the board beside the moves and statistics, and the record's annotated bytes."""
        return display.repr_html(self)

    def _repr_svg_(self) -> str | None:
        """The board with the book moves as arrows."""
        return display.repr_svg(self)

    @property
    def key(self) -> bytes:
        """The book's key of the position: its encoded normalised board (:meth:`CtgBook.key`)."""
        return self.signature

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
        values = dict(zip(_STATS_FIELDS, (self.games, self.wins, self.losses, self.draws, self.unknown1,  # as stored
                                          self.rating1.games, self.rating1.total, self.rating2.games,
                                          self.rating2.total, self.unknown2, self.comment), strict=True))
        if not 0 <= self.recommendation <= _RECOMMENDATION.mask:
            raise ValueError(f"recommendation = {self.recommendation} does not fit in {_RECOMMENDATION.size} bytes")
        for index, field in _RECOMMENDATION_LEAVES:
            values[STATS.leaves[index]] = field.extract(self.recommendation)
        try:
            return bytes(STATS.pack(*(values[path] for path in STATS.leaves)))
        except FormatError as exc:
            raise ValueError(f"{exc.path} = {values.get(exc.path or '')} does not fit: {exc}") from None

    def to_bytes(self) -> bytes:
        """The whole record as stored."""
        if len(self.moves) > MAX_MOVES:
            raise ValueError(f"a CTG record holds at most {MAX_MOVES} moves, not {len(self.moves)}")
        moves = [MOVES_LENGTH.pack(MOVES_LENGTH_SIZE + MOVE_SIZE * len(self.moves))]
        for move in self.moves:
            if move.code not in MOVES:
                raise ValueError(f"invalid move code {move.code} or annotation {move.annotation}")
            try:
                moves.append(MOVE.pack(move.code, move.annotation))
            except FormatError:
                raise ValueError(f"invalid move code {move.code} or annotation {move.annotation}") from None
        return self.signature + b"".join(moves) + self.stats_bytes()


def record_notes(prefix: str, record: PositionRecord) -> dict[str, str]:
    """The chess meaning of a record's fields, by their paths under ``prefix`` (the hex views show them): its
    position as a FEN, each move code as its move, the ratings' averages."""
    notes = {f"{prefix}.position": record.board.fen()}
    for number, move in enumerate(record.moves):
        text = move.move.uci()
        if record.board.is_legal(move.move):
            text += f" ({record.board.san(move.move)}{move.symbol})"
        notes[f"{prefix}.moves.moves[{number}].code"] = text
    for name, rating in (("rating1", record.rating1), ("rating2", record.rating2)):
        if rating.average is not None:
            notes[f"{prefix}.stats.{name}"] = f"average {rating.average:.0f}"
    if record.performance is not None:
        notes[f"{prefix}.stats.rating2"] += f"; side to move performs at {record.performance:.0f}"
    return notes


def make_record(board: chess.Board, moves: Iterable[chess.Move | tuple[chess.Move, int]] = (), *,
                games: int = 0, wins: int = 0, draws: int = 0, losses: int = 0, unknown1: int = 0,
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
    return PositionRecord(board.copy(stack=False), tuple(book_moves), games, wins, draws, losses, unknown1, rating1,
                          rating2, recommendation, unknown2, comment, encoded, 0, None, None, None,
                          norm.flipped, norm.mirrored)


def polyglot_weight(child: PositionRecord | None, annotation: int = 0) -> int:
    """The Polyglot weight of a CTG move, from the record of the position it leads to and its annotation.

    ``2 * wins + draws + unknown`` for the side that plays the move (its wins are the child record's
    losses; games without a known result count like draws), times 2 for ``!`` and 4 for ``!!``, halved
    for ``?!``; 0 for ``?`` and ``??`` moves and for moves into a position marked red (not recommended);
    1 when the position the move leads to is not stored.
    """
    if annotation in _ZERO_WEIGHT:
        return 0
    if child is None:
        return 1
    if child.red:
        return 0
    unknown = max(child.games - child.wins - child.draws - child.losses, 0)
    weight = 2 * child.losses + child.draws + unknown
    weight *= _WEIGHT_FACTORS.get(annotation, 1)
    if annotation == _HALVED:
        weight = max(weight // 2, 1) if weight else 0
    return weight
