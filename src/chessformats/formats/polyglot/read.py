"""Reading Polyglot books: a memory-mapped book, probing by board or key, iterating, the reachable positions.

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
from collections.abc import Container, Iterator
from typing import Any, NamedTuple

import chess
import numpy as np

from ...engine.codec import codec
from ...engine.errors import InvalidValueError, join_path
from ...engine.fileio import MappedFile
from ...engine.layout import numpy_dtype, struct_format, unpack_bits
from ...engine.records import record_array
from ...schemas import polyglot as schema
from ..zobrist import zobrist_hash
from .legality import legality_checker
from .moves import KING_TAKES_ROOK, MOVES, decode_move, move_problems

__all__ = ["ENTRY_DTYPE", "Entry", "PolyglotBook", "UnsortedBookWarning", "open_book", "reachable_positions"]

ENTRY_DTYPE = numpy_dtype(schema.ENTRY)
"""The numpy dtype of one entry, derived from :data:`chessformats.schemas.polyglot.ENTRY`."""
_ENTRY_STRUCT = struct.Struct(struct_format(schema.ENTRY))  # single entries, also derived from the schema
_MOVE_OFFSET = codec(schema.ENTRY).field("move").offset or 0
_NATIVE = {name: ENTRY_DTYPE[name].newbyteorder("=") for name in ENTRY_DTYPE.names or ()}  # the fields' types


class Entry(NamedTuple):
    """One book entry. ``move`` is decoded (castling converted when the entry came from a board probe)."""

    key: int
    """Zobrist key of the position."""
    raw_move: int
    """The move as stored (the 16-bit ``move`` field)."""
    weight: int
    """Relative frequency of the move."""
    learn: int
    """The learn field, kept as stored."""
    move: chess.Move
    """The move; ``chess.Move.null()`` for the ignored ``a1a1`` entries when iterating."""
    number: int
    """Number of the entry in the file, from 0 (its byte offset is ``number`` times the entry size)."""


def _new_entry(fields: tuple[int, int, int, int, chess.Move, int]) -> Entry:
    """``Entry(*fields)`` without the NamedTuple constructor's Python-level overhead (hot path)."""
    return tuple.__new__(Entry, fields)


class UnsortedBookWarning(UserWarning):
    """The book's keys are not in ascending order; probes still work (through a sorted index)."""


BoardOrKey = chess.Board | int


class PolyglotBook(MappedFile):
    """A Polyglot book mapped read-only into memory. Use :func:`open_book`."""

    _views = ("records", "_keys", "_weights", "_moves", "_sorted_keys", "_order", "_key_view")

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = True) -> None:
        self.path = os.fspath(path)
        self._map(self.path)
        try:
            self.records = record_array(self._data, schema.ENTRY, file=self.path, label="entry",
                                        path="entries")
            self._keys = self.records["key"].astype(_NATIVE["key"])
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
            self._key_view = np.ascontiguousarray(self._sorted_keys, dtype=_NATIVE["key"]).data
        except BaseException:
            self.close()
            raise

    def _check_moves(self, strict: bool) -> None:
        problems, fields = move_problems(self._moves)
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
                        actual=value, file=self.path, offset=index * ENTRY_DTYPE.itemsize + _MOVE_OFFSET,
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
            yield Entry(keys[index], raw, weights[index], learns[index], decode_move(None, raw), index)

    def _entry(self, index: int) -> Entry:
        raw = int(self._moves[index])
        return Entry(int(self._keys[index]), raw, int(self._weights[index]), int(self.records["learn"][index]),
                     decode_move(None, raw), index)

    # --- probing ---
    def entry_numbers(self, position: BoardOrKey) -> range | list[int]:
        """The numbers (file order, ascending) of every entry stored for a position (a board or its key),
        ``a1a1``, weight-0 and invalid entries included; see :meth:`probe` for the moves."""
        key = zobrist_hash(position) if isinstance(position, chess.Board) else int(position)
        return self._indices(key)

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
        legal = legality_checker(board) if board is not None and legal_only else None
        result = []
        unpack = _ENTRY_STRUCT.unpack_from
        skip = self._skip
        data = self._data
        size = _ENTRY_STRUCT.size
        moves = MOVES
        for index in indices:
            _, raw, weight, learn = unpack(data, index * size)
            if raw == 0 or weight < minimum_weight or index in skip:
                continue
            move = moves[raw] if raw not in KING_TAKES_ROOK else decode_move(board, raw)
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
            "raw_move": self._moves.astype(_NATIVE["move"]),
            "weight": self.records["weight"].astype(_NATIVE["weight"]),
            "learn": self.records["learn"].astype(_NATIVE["learn"]),
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
