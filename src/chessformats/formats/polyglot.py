"""Polyglot opening books: Zobrist keys, probing, iterating, writing.

>>> import chess
>>> from chessformats import polyglot
>>> with polyglot.open_book("book.bin") as book:          # doctest: +SKIP
...     for entry in book.probe(chess.Board()):
...         print(entry.move, entry.weight)

The byte layout lives in :mod:`chessformats.schemas.polyglot`; this module adds the chess meaning.
Bulk reads go through the numpy dtype derived from the entry declaration.
"""

from __future__ import annotations

import bisect
import collections
import os
import random as _random
import struct
import warnings
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple

import chess
import numpy as np

from ..books.stats import BookStats
from ..engine.errors import InvalidValueError, join_path
from ..engine.fileio import atomic_write, map_file
from ..engine.layout import bit_fields, numpy_dtype, struct_format, unpack_bits
from ..engine.records import record_array
from ..schemas import polyglot as schema
from .zobrist import zobrist_hash

if TYPE_CHECKING:
    from ..books.build import BookBuilder

__all__ = [
    "ENTRY_DTYPE",
    "Entry",
    "PolyglotBook",
    "UnsortedBookWarning",
    "build_records",
    "decode_move",
    "encode_move",
    "make_book",
    "merge_books",
    "open_book",
    "reachable_positions",
    "weights_from_stats",
    "write_book",
    "zobrist_hash",
]

ENTRY_DTYPE = numpy_dtype(schema.ENTRY)
"""The numpy dtype of one entry, derived from :data:`chessformats.schemas.polyglot.ENTRY`."""
_ENTRY_STRUCT = struct.Struct(struct_format(schema.ENTRY))  # single entries, also derived from the schema

_MOVE_BITS = bit_fields(schema.MOVE)
_PROMOTION_NAMES = {value: name for value, (name, _) in schema.PROMOTION.meanings.items()}
_PIECE_OF_PROMOTION: dict[int, chess.PieceType | None] = {
    value: (None if name == "none" else chess.PIECE_NAMES.index(name))
    for value, name in _PROMOTION_NAMES.items()
}
_PROMOTION_OF_PIECE = {piece: value for value, piece in _PIECE_OF_PROMOTION.items() if piece is not None}


# --- moves --------------------------------------------------------------------------------------------

def _raw_to_move(raw: int) -> chess.Move:
    to_square = raw & 0x3F
    from_square = (raw >> 6) & 0x3F
    promotion = (raw >> _MOVE_BITS["promotion"].shift) & _MOVE_BITS["promotion"].mask
    if raw == 0:
        return chess.Move.null()
    return chess.Move(from_square, to_square, _PIECE_OF_PROMOTION.get(promotion))


_MOVE_CACHE: dict[int, chess.Move] = {}
# raw moves that mean castling when a king stands on their origin: e1h1, e1a1, e8h8, e8a8
_KING_TAKES_ROOK = frozenset((origin << 6) | target for origin, target in (
    (chess.E1, chess.H1), (chess.E1, chess.A1), (chess.E8, chess.H8), (chess.E8, chess.A8)))


def decode_move(raw: int, board: chess.Board | None = None) -> chess.Move:
    """The :class:`chess.Move` of a raw 16-bit move.

    Without a board the move is as stored (castling as king-takes-rook, ``a1a1`` as the null move).
    With a board, king-takes-rook becomes standard castling when a king stands on e1/e8 and the board
    is not Chess960 (where python-chess itself writes castling as king-takes-rook).
    """
    move = _MOVE_CACHE.get(raw)
    if move is None:
        move = _MOVE_CACHE[raw] = _raw_to_move(raw)
    if board is not None and not board.chess960 and move.from_square in (chess.E1, chess.E8):
        if move.to_square in (chess.H1, chess.A1, chess.H8, chess.A8) and board.kings & chess.BB_SQUARES[
                move.from_square]:
            file = 6 if chess.square_file(move.to_square) == 7 else 2
            return chess.Move(move.from_square, chess.square(file, chess.square_rank(move.from_square)))
    return move


def encode_move(move: chess.Move, board: chess.Board | None = None) -> int:
    """The raw 16-bit move of ``move``; with a board, castling is stored as king-takes-rook."""
    if not move:
        return 0
    from_square, to_square = move.from_square, move.to_square
    if board is not None and board.is_castling(move) and not board.chess960:
        rook_file = 7 if chess.square_file(to_square) > chess.square_file(from_square) else 0
        to_square = chess.square(rook_file, chess.square_rank(from_square))
    if move.drop is not None or from_square == to_square:
        raise ValueError(f"a Polyglot book cannot store the move {move.uci()}")
    promotion = _PROMOTION_OF_PIECE[move.promotion] if move.promotion else 0
    return (promotion << _MOVE_BITS["promotion"].shift) | (from_square << 6) | to_square


# --- reading ------------------------------------------------------------------------------------------

class Entry(NamedTuple):
    """One book entry. ``move`` is decoded (castling converted when the entry came from a board probe)."""

    key: int
    """Zobrist key of the position."""
    raw_move: int
    """The move as stored (16 bits)."""
    weight: int
    """Relative frequency of the move."""
    learn: int
    """The learn field, kept as stored."""
    move: chess.Move
    """The move; ``chess.Move.null()`` for the ignored ``a1a1`` entries when iterating."""
    number: int
    """Number of the entry in the file, from 0 (its byte offset is ``16 * number``)."""


def _legality_checker(board: chess.Board) -> Callable[[chess.Move], bool]:
    """``board.is_legal`` for several moves of one position, sharing the work that depends only on it.

    Out of check, a move is legal when it is pseudo-legal and does not expose the king: the pinned
    pieces are computed once per position. Pawn and piece moves are tested directly on the bitboards
    (a book move is one move, so generating every move of the position, as python-chess's pseudo-legality
    test does for pawns, is wasted work); king moves, castling, en passant, drops, variants and positions
    in check go to ``board.is_legal``. The tests compare this with ``board.is_legal`` on every square pair.
    """
    turn = board.turn
    own = board.occupied_co[turn]
    king_bb = board.kings & own
    if type(board) is not chess.Board or not king_bb or king_bb & (king_bb - 1) or not _HAS_PIN_HELPER:
        return board.is_legal
    king = king_bb.bit_length() - 1
    if board.attackers_mask(not turn, king):
        return board.is_legal
    pins: list[int] = []  # the pinned pieces, computed at most once and only when a pin is possible

    def legal(move: chess.Move) -> bool:
        # Everything is read from the board when needed: a probe checks only one to a few moves.
        origin, target = move.from_square, move.to_square
        origin_mask, target_mask = _SQUARES[origin], _SQUARES[target]
        ep = board.ep_square
        special = board.kings | (_SQUARES[ep] if ep is not None else 0)  # king moves, castling, en passant
        if not own & origin_mask or target_mask & own or move.drop:
            return (origin_mask | target_mask) & special != 0 and board.is_legal(move)
        if (origin_mask | target_mask) & special:
            return board.is_legal(move)
        if board.pawns & origin_mask:
            step, start_rank, last_rank, pawn_attacks = _PAWN_RULES[turn]
            if (move.promotion is not None) != (target_mask & last_rank != 0):
                return False
            occupied = board.occupied
            if target == origin + step:
                ok = not target_mask & occupied
            elif target == origin + 2 * step:
                ok = origin_mask & start_rank != 0 and not (_SQUARES[origin + step] | target_mask) & occupied
            else:
                ok = pawn_attacks[origin] & target_mask & occupied != 0
        else:
            ok = move.promotion is None and board.attacks_mask(origin) & target_mask != 0
        if not ok:
            return False
        # a piece can only be pinned on a line from the king that holds an enemy slider of the right kind
        line = _RAYS[king][origin]
        if not line:
            return True
        straight = (origin & 7) == (king & 7) or (origin >> 3) == (king >> 3)
        pinners = board.occupied_co[not turn] & (board.queens | (board.rooks if straight else board.bishops))
        if not line & pinners:
            return True
        if not pins:
            pins.append(board._slider_blockers(king) & own)
        return not pins[0] & origin_mask or _RAY(origin, target) & _SQUARES[king] != 0

    return legal


_HAS_PIN_HELPER = hasattr(chess.Board, "_slider_blockers")
_SQUARES = chess.BB_SQUARES
_RAYS = chess.BB_RAYS
_RAY = chess.ray
# by side to move: pawn step, start rank, last rank, capture targets by square
_PAWN_RULES = (
    (-8, chess.BB_RANK_7, chess.BB_RANK_1, chess.BB_PAWN_ATTACKS[chess.BLACK]),
    (8, chess.BB_RANK_2, chess.BB_RANK_8, chess.BB_PAWN_ATTACKS[chess.WHITE]),
)


def _move_problems(
    moves: np.ndarray[Any, Any],
) -> tuple[dict[str, tuple[np.ndarray[Any, Any], str]], dict[str, np.ndarray[Any, Any]]]:
    """For raw moves: field path -> (mask of entries where it is invalid, what was expected); and the fields."""
    fields = unpack_bits(moves, schema.MOVE)
    nonzero = moves != 0
    same_square = (fields["from_rank"] == fields["to_rank"]) & (fields["from_file"] == fields["to_file"])
    promotes_ok = (fields["promotion"] == 0) | ((fields["from_rank"] == 6) & (fields["to_rank"] == 7)) | (
        (fields["from_rank"] == 1) & (fields["to_rank"] == 0))
    problems = {
        "move.reserved": (fields["reserved"] != 0, "0"),
        "move.promotion": (fields["promotion"] > 4, "0..4"),
        "move": (nonzero & same_square, "origin differs from destination"),
        "move.to_rank": (nonzero & ~promotes_ok, "7 or 0 (promotions end on the last rank)"),
    }
    return problems, fields


def _new_entry(fields: tuple[int, int, int, int, chess.Move, int]) -> Entry:
    """``Entry(*fields)`` without the NamedTuple constructor's Python-level overhead (hot path)."""
    return tuple.__new__(Entry, fields)


class UnsortedBookWarning(UserWarning):
    """The book's keys are not in ascending order; probes still work (through a sorted index)."""


BoardOrKey = chess.Board | int


class PolyglotBook:
    """A Polyglot book mapped read-only into memory. Use :func:`open_book`."""

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = True) -> None:
        self.path = os.fspath(path)
        self._data = map_file(self.path)
        try:
            self.records = record_array(self._data, schema.ENTRY, file=self.path, label="entry",
                                        path="entries")
            self._keys = self.records["key"].astype(np.uint64)
            self._weights = self.records["weight"].astype(np.int64)
            self._moves = self.records["move"].astype(np.int64)
            self._check_moves(strict)
            self.sorted = bool(np.all(self._keys[1:] >= self._keys[:-1])) if len(self._keys) > 1 else True
            if self.sorted:
                self._order: np.ndarray[Any, Any] | None = None
                self._sorted_keys = self._keys
            else:
                self._order = np.argsort(self._keys, kind="stable")
                self._sorted_keys = self._keys[self._order]
                first = int(np.argmax(self._keys[1:] < self._keys[:-1])) + 1
                warnings.warn(
                    f"{os.path.basename(self.path)}: entries are not sorted by key (first out of order: "
                    f"entry {first}); probing through a sorted index",
                    UnsortedBookWarning, stacklevel=3,
                )
            self._key_view = np.ascontiguousarray(self._sorted_keys, dtype=np.uint64).data
        except BaseException:
            self.close()
            raise

    def _check_moves(self, strict: bool) -> None:
        problems, fields = _move_problems(self._moves)
        self.invalid_entries = np.zeros(len(self._moves), dtype=bool)
        for bad, _ in problems.values():
            self.invalid_entries |= bad
        self._skip: frozenset[int] = frozenset(np.flatnonzero(self.invalid_entries).tolist())
        if strict and self.invalid_entries.any():
            index = int(np.argmax(self.invalid_entries))
            for field, (bad, expected) in problems.items():
                if bad[index]:
                    value = int(self._moves[index]) if field == "move" else int(fields[field.split(".")[1]][index])
                    raise InvalidValueError(
                        f"invalid move in entry {index}: not a Polyglot book?", expected=expected,
                        actual=value, file=self.path, offset=index * ENTRY_DTYPE.itemsize + 8,
                        path=join_path(f"entries[{index}]", field),
                    )

    # --- container protocol ---
    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, index: int) -> Entry:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._entry(index)

    def __iter__(self) -> Iterator[Entry]:
        """Every entry in file order (weight-0 and ``a1a1`` entries included)."""
        keys = self._keys.tolist()
        moves = self._moves.tolist()
        weights = self._weights.tolist()
        learns = self.records["learn"].tolist()
        for index, raw in enumerate(moves):
            yield Entry(keys[index], raw, weights[index], learns[index], decode_move(raw), index)

    def _entry(self, index: int, board: chess.Board | None = None) -> Entry:
        raw = int(self._moves[index])
        return Entry(int(self._keys[index]), raw, int(self._weights[index]), int(self.records["learn"][index]),
                     decode_move(raw, board), index)

    def __enter__(self) -> PolyglotBook:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Release the memory map (arrays taken from the book must not be used afterwards)."""
        data = getattr(self, "_data", None)
        for name in ("records", "_keys", "_weights", "_moves", "_sorted_keys", "_order", "_key_view"):
            self.__dict__.pop(name, None)
        if data is not None and hasattr(data, "close"):
            try:
                data.close()
            except BufferError:  # a numpy view still exported by a caller; the map closes when it dies
                pass

    # --- probing ---
    def _indices(self, key: int) -> range | list[int]:
        """File indices of the entries with ``key`` (ascending)."""
        lo, hi = self._key_range(key)
        if self._order is None:
            return range(lo, hi)
        return sorted(self._order[lo:hi].tolist())

    def _key_range(self, key: int) -> tuple[int, int]:
        """``[lo, hi)`` of ``key`` in the sorted keys.

        ``bisect`` runs in C over a memoryview of the native key array: no per-call numpy overhead and
        no Python list of the keys.
        """
        keys = self._key_view
        lo = hi = bisect.bisect_left(keys, key)
        count = len(keys)
        while hi < count and keys[hi] == key:
            hi += 1
        return lo, hi

    def probe(
        self,
        position: BoardOrKey,
        *,
        minimum_weight: int = 0,
        exclude_moves: Container[chess.Move] = (),
        legal_only: bool = True,
    ) -> list[Entry]:
        """The book entries of a position (a :class:`chess.Board` or a key), in file order.

        With a board, castling moves come back as standard castling and (with ``legal_only``) moves
        that are not legal in the position are dropped (key collisions, damaged entries). ``a1a1``
        entries are always left out; weight-0 entries only when ``minimum_weight`` > 0.
        """
        if isinstance(position, chess.Board):
            board: chess.Board | None = position
            key = zobrist_hash(position)
        else:
            board, key = None, int(position)
        indices = self._indices(key)
        if not indices:
            return []
        legal = _legality_checker(board) if board is not None and legal_only else None
        result = []
        unpack = _ENTRY_STRUCT.unpack_from
        skip = self._skip
        data = self._data
        size = _ENTRY_STRUCT.size
        for index in indices:
            _, raw, weight, learn = unpack(data, index * size)
            if raw == 0 or weight < minimum_weight or index in skip:
                continue
            move = _MOVE_CACHE.get(raw) if raw not in _KING_TAKES_ROOK else None
            if move is None:
                move = decode_move(raw, board)
            if exclude_moves and move in exclude_moves:
                continue
            if legal is not None and not legal(move):
                continue
            result.append(_new_entry((key, raw, weight, learn, move, index)))
        return result

    def __contains__(self, position: object) -> bool:
        if isinstance(position, (chess.Board, int)):
            return bool(self.probe(position))
        return False

    def choice(
        self,
        position: BoardOrKey,
        *,
        random: _random.Random | int | None = None,
        exclude_moves: Container[chess.Move] = (),
    ) -> Entry:
        """A book move drawn with probability weight / total weight (weight-0 moves never).

        ``random`` is a :class:`random.Random` or a seed. Raises :class:`IndexError` when the position
        has no move with a positive weight.
        """
        entries = self.probe(position, minimum_weight=1, exclude_moves=exclude_moves)
        total = sum(entry.weight for entry in entries)
        if not total:
            raise IndexError("position not in book")
        rng = random if isinstance(random, _random.Random) else _random.Random(random)
        pick = rng.randrange(total)
        for entry in entries:
            pick -= entry.weight
            if pick < 0:
                return entry
        raise AssertionError("unreachable")

    def arrays(self) -> dict[str, np.ndarray[Any, Any]]:
        """All entries as native numpy arrays: key, raw_move, weight, learn and every move bit field."""
        result = {
            "key": self._keys.copy(),
            "raw_move": self._moves.astype(np.uint16),
            "weight": self.records["weight"].astype(np.uint16),
            "learn": self.records["learn"].astype(np.uint32),
        }
        result.update({name: values.astype(np.uint8)
                       for name, values in unpack_bits(self._moves, schema.MOVE).items()})
        return result

    def findings(self) -> list[str]:
        """Sanity findings a user should know about (unsorted, weight 0, learn data, odd entries)."""
        notes = []
        if not self.sorted:
            first = int(np.argmax(self._keys[1:] < self._keys[:-1])) + 1
            notes.append(f"unsorted: entry {first} has a smaller key than the one before it")
        zero = int(np.count_nonzero(self._weights == 0))
        if zero:
            notes.append(f"{zero} entries with weight 0")
        null = int(np.count_nonzero(self._moves == 0))
        if null:
            notes.append(f"{null} entries with move a1a1 (ignored when probing)")
        learn = int(np.count_nonzero(self.records["learn"]))
        if learn:
            notes.append(f"{learn} entries with a non-zero learn field")
        bad = int(np.count_nonzero(self.invalid_entries))
        if bad:
            notes.append(f"{bad} entries with an invalid move")
        duplicates = len(self) - len(set(zip(self._keys.tolist(), self._moves.tolist(), strict=True)))
        if duplicates:
            notes.append(f"{duplicates} entries repeat a (key, move) pair")
        return notes

    def positions(self) -> int:
        """Number of distinct keys."""
        return len(np.unique(self._keys))


def open_book(path: str | os.PathLike[str], *, strict: bool = True) -> PolyglotBook:
    """Open a Polyglot book (memory-mapped, read-only). Use as a context manager.

    Raises :class:`~chessformats.FormatError` when the file is not a Polyglot book: a size that is
    not a multiple of 16 (:class:`~chessformats.TruncatedError`) or, with ``strict``, an entry whose
    move cannot be a Polyglot move (:class:`~chessformats.InvalidValueError`). With ``strict=False``
    such entries are kept but never returned by probes (see :meth:`PolyglotBook.findings`).
    """
    return PolyglotBook(path, strict=strict)


# --- writing ------------------------------------------------------------------------------------------

EntryLike = Entry | tuple[int, int, int, int]
MoveWeights = Mapping[Any, Any]


def _rows_from_mapping(book: Mapping[Any, MoveWeights]) -> Iterator[tuple[int, int, int, int]]:
    for position, moves in book.items():
        board: chess.Board | None = None
        if isinstance(position, str):
            board = chess.Board(position)
            key = zobrist_hash(board)
        elif isinstance(position, int):
            key = position
        else:
            raise TypeError(f"a position must be a FEN string or a Zobrist key, not {type(position).__name__} "
                            "(chess.Board is not hashable: use board.fen())")
        rows = []
        for move, value in moves.items():
            weight, learn = (value, 0) if isinstance(value, int) else value
            if isinstance(move, str):
                move = chess.Move.from_uci(move)
            raw = move if isinstance(move, int) else encode_move(move, board)
            rows.append((key, raw, int(weight), int(learn)))
        # highest weight first within a position, as polyglot writes books
        rows.sort(key=lambda row: -row[2])
        yield from rows


def _rows_from_entries(entries: Iterable[EntryLike]) -> Iterator[tuple[int, int, int, int]]:
    for entry in entries:
        if isinstance(entry, Entry):
            yield entry.key, entry.raw_move, entry.weight, entry.learn
        else:
            key, raw, weight, learn = entry
            yield int(key), int(raw), int(weight), int(learn)


_MERGERS: dict[str, Callable[[int, int], int]] = {
    "sum": lambda a, b: min(a + b, 0xFFFF),
    "max": max,
    "first": lambda a, b: a,
}


def build_records(
    book: Mapping[Any, MoveWeights] | Iterable[EntryLike],
    *,
    merge: str | None = "sum",
    sort: bool = True,
) -> np.ndarray[Any, Any]:
    """Sorted entry records (numpy, :data:`ENTRY_DTYPE`) from entries or a mapping, see :func:`write_book`."""
    rows = _rows_from_mapping(book) if isinstance(book, Mapping) else _rows_from_entries(book)
    merged: dict[tuple[int, int], list[int]] = {}
    ordered: list[list[int]] = []
    combine = _MERGERS[merge] if merge is not None else None
    for key, raw, weight, learn in rows:
        if not 0 <= key < 1 << 64 or not 0 <= raw < 1 << 16 or not 0 <= weight < 1 << 16 \
                or not 0 <= learn < 1 << 32:
            raise ValueError(f"entry out of range: key={key:#x} move={raw} weight={weight} learn={learn}")
        if combine is not None:
            previous = merged.get((key, raw))
            if previous is not None:
                previous[2] = combine(previous[2], weight)
                previous[3] = previous[3] or learn
                continue
        row = [key, raw, weight, learn]
        if combine is not None:
            merged[(key, raw)] = row
        ordered.append(row)
    records = np.zeros(len(ordered), dtype=ENTRY_DTYPE)
    if ordered:
        columns = list(zip(*ordered, strict=True))
        records["key"] = np.array(columns[0], dtype=np.uint64)
        records["move"] = np.array(columns[1], dtype=np.uint16)
        records["weight"] = np.array(columns[2], dtype=np.uint16)
        records["learn"] = np.array(columns[3], dtype=np.uint32)
        if sort:
            records = records[np.argsort(records["key"].astype(np.uint64), kind="stable")]
    return records


def write_book(
    path: str | os.PathLike[str],
    book: Mapping[Any, MoveWeights] | Iterable[EntryLike],
    *,
    merge: str | None = "sum",
    sort: bool = True,
) -> int:
    """Write a sorted Polyglot book atomically; return the number of entries written.

    ``book`` is either an iterable of :class:`Entry` / ``(key, raw_move, weight, learn)`` tuples, or a
    mapping ``position -> {move: weight | (weight, learn)}`` where a position is a FEN (castling moves
    are then stored king-takes-rook) or a key, and a move a :class:`chess.Move`, a UCI string or a raw
    16-bit move (with a key, give castling as king-takes-rook yourself).

    Entries are sorted by key with a stable sort: entries of one position keep the order they were
    given in (so a sorted real book written back gives the identical file); from a mapping, a
    position's moves are ordered by descending weight. Repeated (key, move) pairs are merged:
    ``merge="sum"`` adds the weights (capped at 65535), ``"max"`` keeps the largest, ``"first"`` the
    first; the merged entry keeps the first non-zero ``learn``; ``merge=None`` keeps them all.
    ``sort=False`` writes the entries in the order given (to reproduce another program's file). The file
    is written through a temporary file and renamed, so a failure never leaves a half-written book.
    """
    records = build_records(book, merge=merge, sort=sort)
    with atomic_write(path) as handle:
        handle.write(records.tobytes())
    return len(records)


def weights_from_stats(stats: BookStats) -> dict[str, dict[chess.Move, int]]:
    """A ``write_book`` mapping from the format-neutral model: weight ``2 * wins + draws`` per move.

    When the largest weight passes 65535 every weight is scaled by ``65535 / largest`` (rounded down).
    Byte-identity with ``polyglot make-book`` (its exact scaling and filters) is the book builder's job.
    """
    largest = max((m.polyglot_weight for p in stats for m in p.moves.values()), default=0)

    def scale(weight: int) -> int:
        return weight * 0xFFFF // largest if largest > 0xFFFF else weight

    return {
        position.fen: {move: scale(move_stats.polyglot_weight) for move, move_stats in position.moves.items()}
        for position in stats
    }


def make_book(
    path: str | os.PathLike[str],
    builder: BookBuilder,
    *,
    min_games: int = 3,
    min_score: float = 0.0,
    only: chess.Color | None = None,
    uniform: bool = False,
) -> int:
    """Write the book ``polyglot make-book`` writes for the same games and options; return its entry count.

    Mirrors polyglot 2.0.4: an entry needs ``min_games`` games (polyglot's counter, halved when a move of
    the position reaches 16,384 games) and a non-zero ``sum`` of ``result + 1`` (2 for a win of the side
    to move, 1 for a draw or any result but 1-0/0-1, 0 for a loss), a score ``sum / games / 2`` of at
    least ``min_score`` (a fraction; polyglot's ``-min-score`` is in percent), and only moves of
    ``only`` when given (``-only-white``/``-only-black``). The weight is ``sum`` (1 with ``uniform``).
    Entries are sorted by key, then by descending weight, ties in the order the moves were first met,
    as polyglot's sort leaves them.
    """
    columns = builder.columns()
    n, total = columns["polyglot_n"], columns["polyglot_sum"]
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = (n >= min_games) & (total != 0) & ~((total / n) / 2.0 < min_score)
    if only is not None:
        keep &= columns["white"] == only
    rows = np.flatnonzero(keep)  # in the order first met
    weights = np.ones(len(rows), dtype=np.int64) if uniform else total[rows]
    rows = rows[np.lexsort((rows, -weights, columns["key"][rows]))]
    records = np.zeros(len(rows), dtype=ENTRY_DTYPE)
    records["key"] = columns["key"][rows]
    records["move"] = columns["raw"][rows]
    records["weight"] = np.ones(len(rows), dtype=np.int64) if uniform else total[rows]
    with atomic_write(path) as handle:
        handle.write(records.tobytes())
    return len(records)


def merge_books(first: str | os.PathLike[str], second: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """``polyglot merge-book``: both books in one, as polyglot 2.0.4 merges them; returns the entry count.

    Read off the real program (Debian's polyglot 2.0.4; its behaviour differs from older published
    sources, which dropped the second book's moves): each book is taken as runs of consecutive entries
    with the same key, and the runs are merged by key like two sorted lists. For a key in both books the
    first book's run is written with each of the second book's moves either added to the first book's
    entry with the same move (weights summed modulo 65536, as polyglot's 16-bit counter wraps; the first
    book's learn kept) or appended after it. Nothing is re-sorted: unsorted input gives what polyglot
    gives for it.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedBookWarning)  # polyglot merges in file order regardless
        one, two = open_book(first, strict=False), open_book(second, strict=False)
    with one, two:
        runs_1, runs_2 = _runs(one), _runs(two)
    rows: list[list[int]] = []
    i = j = 0
    while i < len(runs_1) or j < len(runs_2):
        if j == len(runs_2) or (i < len(runs_1) and runs_1[i][0][0] < runs_2[j][0][0]):
            rows.extend(runs_1[i])
            i += 1
        elif i == len(runs_1) or runs_1[i][0][0] > runs_2[j][0][0]:
            rows.extend(runs_2[j])
            j += 1
        else:
            run = runs_1[i]
            own = len(run)
            for entry in runs_2[j]:
                for mine in run[:own]:
                    if mine[1] == entry[1]:
                        mine[2] = (mine[2] + entry[2]) & 0xFFFF
                        break
                else:
                    run.append(entry)
            rows.extend(run)
            i += 1
            j += 1
    return write_book(out, [(key, raw, weight, learn) for key, raw, weight, learn in rows], merge=None, sort=False)


def _runs(book: PolyglotBook) -> list[list[list[int]]]:
    """The book's entries as runs of consecutive entries with the same key, in file order."""
    runs: list[list[list[int]]] = []
    columns = (book._keys.tolist(), book._moves.tolist(), book._weights.tolist(), book.records["learn"].tolist())
    for row in zip(*columns, strict=True):
        if runs and runs[-1][0][0] == row[0]:
            runs[-1].append(list(row))
        else:
            runs.append([list(row)])
    return runs


def reachable_positions(book: PolyglotBook) -> Iterator[tuple[chess.Board, list[Entry]]]:
    """Every position reachable from the start through the book's moves (breadth first), with its entries.

    Positions are told apart by FEN without move counters, so a transposition is visited once.
    """
    first = chess.Board()
    queue = collections.deque([first])
    seen = {first.fen(en_passant="legal").rsplit(" ", 2)[0]}
    while queue:
        board = queue.popleft()
        entries = book.probe(board)
        if not entries:
            continue
        yield board, entries
        for entry in entries:
            child = board.copy(stack=False)
            child.push(entry.move)
            name = child.fen(en_passant="legal").rsplit(" ", 2)[0]
            if name not in seen:
                seen.add(name)
                queue.append(child)
