"""Reading Polyglot books: a memory-mapped book, probing by board or key, iterating, the reachable positions.

>>> import chess
>>> from chessformats import polyglot
>>> with polyglot.open_book("book.bin") as book:          # doctest: +SKIP
...     for entry in book.find_all(chess.Board()):           # python-chess's names and meanings
...         print(entry.move, entry.weight)

The byte layout lives in :mod:`chessformats.schemas.polyglot`; this module adds the chess meaning.
Bulk reads go through the numpy dtype derived from the entry declaration.
"""

from __future__ import annotations

import bisect
import collections
import os
import struct
import warnings
from collections.abc import Container, Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

import chess

from ...engine import display
from ...engine.contract import BookMethods
from ...engine.errors import InvalidValueError, join_path
from ...engine.fileio import MappedFile
from ...engine.records import record_count
from ...engine.tables import Tabular
from ...schemas import polyglot_facts as facts
from ..zobrist import zobrist_hash
from .legality import legality_checker
from .moves import KING_TAKES_ROOK, MOVES, decode_move, move_problem, move_problems

if TYPE_CHECKING:
    import numpy as np

__all__ = ["ENTRY_DTYPE", "Entry", "EntryColumns", "PolyglotBook", "PolyglotPosition", "UnsortedBookWarning",
           "open_book", "open_reader", "reachable_positions"]

# single entries: the struct format and offsets derived from the declaration (schemas.polyglot.ENTRY) into the
# generated polyglot_facts, so that a quick probe imports no declaration
_ENTRY_STRUCT = struct.Struct(facts.ENTRY_FORMAT)
_KEY_STRUCT = struct.Struct(_ENTRY_STRUCT.format[:2])  # the key alone (the first field)
_MOVE_OFFSET = facts.ENTRY_OFFSETS["move"]
_CHUNK = 256
"""Entries iterated between two checks that the book is still open (a page of the other books)."""


def __getattr__(name: str) -> Any:
    # ENTRY_DTYPE is made on first use: a probe of a book (scan=False) never imports numpy
    if name == "ENTRY_DTYPE":
        import numpy as np

        dtype = globals()["ENTRY_DTYPE"] = np.dtype(facts.ENTRY_DTYPE)  # (generated from schema.ENTRY)
        return dtype
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ENTRY_DTYPE: np.dtype[Any]
"""The numpy dtype of one entry, derived from :data:`chessformats.schemas.polyglot.ENTRY` (made on first use)."""


def _native(name: str) -> np.dtype[Any]:
    """The type of an entry field in the machine's byte order."""
    entry: np.dtype[Any] = globals().get("ENTRY_DTYPE") or __getattr__("ENTRY_DTYPE")  # made once
    native: np.dtype[Any] = entry[name].newbyteorder("=")
    return native


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

    def _repr_html_(self) -> str | None:
        """In a notebook: the entry's 16 bytes, annotated field by field."""
        return display.repr_html(self)


def _new_entry(fields: tuple[int, int, int, int, chess.Move, int]) -> Entry:
    """``Entry(*fields)`` without the NamedTuple constructor's Python-level overhead (hot path)."""
    return tuple.__new__(Entry, fields)


@dataclass(frozen=True)
class PolyglotPosition:
    """What :meth:`PolyglotBook.probe` answers: the position's entries (Polyglot stores no results)."""

    board: chess.Board | None
    """The probed board (``None`` when probed by key: the moves were then decoded without a board)."""
    key: int
    """The position's Zobrist key."""
    moves: tuple[Entry, ...]
    """The entries, in file order."""

    games = wins = draws = losses = None
    """Polyglot stores no game counts or results."""

    def _repr_html_(self) -> str | None:
        """In a notebook: the board beside the entries with their weights, and the entries' annotated bytes."""
        return display.repr_html(self)

    def _repr_svg_(self) -> str | None:
        """The board with the book moves as arrows."""
        return display.repr_svg(self)

    def __iter__(self) -> NoReturn:
        raise TypeError("a probe answers a PolyglotPosition: iterate its .moves, or book.find_all(board) "
                        "(python-chess's name) for the entries")


class EntryColumns(NamedTuple):
    """A whole book's entries as numpy columns (:meth:`PolyglotBook.columns`), for bulk readers."""

    sorted_keys: Any
    """The keys in key order (the file's order when the book is sorted)."""
    order: Any
    """The file index of each sorted key; ``None`` when the book is sorted (the identity)."""
    moves: Any
    """The raw 16-bit moves, in file order (int64)."""
    weights: Any
    """The weights, in file order (int64)."""


class UnsortedBookWarning(UserWarning):
    """The book's keys are not in ascending order; probes still work (through a sorted index)."""


BoardOrKey = chess.Board | int


class PolyglotBook(BookMethods[Entry], Tabular, MappedFile):
    """A Polyglot book mapped read-only into memory. Use :func:`open_book`.

    It keeps the contract of every book (:class:`chessformats.contract.OpeningBook`) and python-chess's
    ``MemoryMappedReader`` names and meanings: ``find_all``, ``find``, ``get``, ``choice`` (uniform),
    ``weighted_choice``; ``len``, ``[i]`` and iteration in file order.
    """

    _views = ("records", "_keys", "_weights", "_moves", "_sorted_keys", "_order", "_key_view")
    _scanned_names = frozenset((*_views, "sorted", "invalid_entries", "_skip"))  # what _scan makes

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = True, scan: bool = True) -> None:
        self.path = os.fspath(path)
        self.strict = strict
        self._scanned = False
        self._map(self.path, "a Polyglot book")
        try:
            self._count = record_count(len(self._data), _ENTRY_STRUCT.size, file=self.path, label="entry",
                                       path="entries")
            if scan:
                self._scan()
        except BaseException:
            self.close()
            raise

    def __getattr__(self, name: str) -> Any:
        # opened with scan=False: the whole-book state is made when first needed
        if name in PolyglotBook._scanned_names and self.__dict__.get("_scanned") is False:
            self._scan()
            return self.__dict__[name]
        if name in PolyglotBook._scanned_names:  # dropped by close(): whatever needed it was used too late
            self._check_open()
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _scan(self) -> None:
        """Read the whole book once with numpy: keys, moves checked, sortedness (and an index if unsorted)."""
        import numpy as np

        from ...engine.records import record_array
        from ...schemas import polyglot as schema

        self.records = record_array(self._data, schema.ENTRY, file=self.path, label="entry", path="entries")
        self._keys = self.records["key"].astype(_native("key"))
        self._weights = self.records["weight"].astype(np.int64)
        self._moves = self.records["move"].astype(np.int64)
        self._check_moves(self.strict)
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
                UnsortedBookWarning, stacklevel=4,
            )
        self._key_view = np.ascontiguousarray(self._sorted_keys, dtype=_native("key")).data
        self._scanned = True

    def columns(self) -> EntryColumns:
        """The entries as numpy columns (sorted keys, their file order, moves and weights): what a bulk walk
        reads, without an :class:`Entry` per entry."""
        self._check_open()
        return EntryColumns(self._sorted_keys, self._order, self._moves, self._weights)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self._count} entries"
        return f"<{type(self).__name__} {self.path!r} ({state})>"

    def close(self) -> None:
        self._scanned = True  # nothing left to scan: the whole-book state of a closed book is gone
        super().close()

    def _check_moves(self, strict: bool) -> None:
        import numpy as np

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
                    raise self._invalid(index, field, expected, value)

    def _invalid(self, index: int, field: str, expected: str, value: int) -> InvalidValueError:
        return InvalidValueError(
            f"invalid move in entry {index}: not a Polyglot book?", expected=expected, actual=value,
            file=self.path, offset=index * _ENTRY_STRUCT.size + _MOVE_OFFSET,
            path=join_path(f"entries[{index}]", field),
        )

    def _valid(self, index: int, raw: int) -> bool:
        """Whether entry ``index`` (not scanned: ``scan=False``) holds a valid move; with ``strict`` an invalid one
        raises as the scan would have."""
        problem = move_problem(raw)
        if problem is None:
            return True
        if self.strict:
            raise self._invalid(index, *problem)
        return False

    # --- container protocol ---
    def __len__(self) -> int:
        self._check_open()
        return self._count

    def __getitem__(self, index: int) -> Entry:
        self._check_open()
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._entry(index)

    def __iter__(self) -> Iterator[Entry]:
        """Every entry in file order (weight-0 and ``a1a1`` entries included)."""
        self._check_open()
        keys = self._keys.tolist()
        moves = self._moves.tolist()
        weights = self._weights.tolist()
        learns = self.records["learn"].tolist()
        for start in range(0, len(moves), _CHUNK):
            self._check_open()  # per chunk: a book closed while iterated raises, as the other readers do
            for index in range(start, min(start + _CHUNK, len(moves))):
                raw = moves[index]
                yield Entry(keys[index], raw, weights[index], learns[index], decode_move(None, raw), index)

    def _entry(self, index: int) -> Entry:
        raw = int(self._moves[index])
        return Entry(int(self._keys[index]), raw, int(self._weights[index]), int(self.records["learn"][index]),
                     decode_move(None, raw), index)

    # --- probing ---
    def key(self, board: chess.Board) -> int:
        """The book's key of a board: its Polyglot Zobrist hash."""
        return zobrist_hash(board)

    def entry_numbers(self, position: BoardOrKey) -> range | list[int]:
        """The numbers (file order, ascending) of every entry stored for a position (a board or its key),
        ``a1a1``, weight-0 and invalid entries included; see :meth:`probe` for the moves."""
        key = zobrist_hash(position) if isinstance(position, chess.Board) else int(position)
        return self._indices(key)

    def looks_sorted(self, sample: int = 256) -> bool:
        """Whether about ``sample`` keys spread over the book, its first and last 16 among them, are in order: a test
        in constant time (the keys are read from the map), where :attr:`sorted` reads every key. An unsorted book
        almost always fails it (one with an unsorted stretch between the samples passes it)."""
        self._check_open()
        if self._scanned:
            return bool(self.sorted)
        count = self._count
        keys = _MappedKeys(self._data, count)
        picked = sorted({*range(0, count, max(count // sample, 1)), *range(min(16, count)),
                         *range(max(count - 16, 0), count)})
        values = [keys[index] for index in picked]
        return all(first <= second for first, second in pairwise(values))

    def _indices(self, key: int) -> range | list[int]:
        """File indices of the entries with ``key`` (ascending)."""
        lo, hi = self._key_range(key)
        if not self._scanned or self._order is None:  # not scanned: the book is taken as sorted
            return range(lo, hi)
        return sorted(self._order[lo:hi].tolist())

    def _key_range(self, key: int) -> tuple[int, int]:
        """``[lo, hi)`` of ``key`` in the sorted keys.

        ``bisect`` runs in C over a memoryview of the native key array: no per-call numpy overhead and
        no Python list of the keys.
        """
        if self._scanned:
            keys: Any = self._key_view
        else:  # not scanned (scan=False): the keys are read from the map as the search needs them
            keys = _MappedKeys(self._data, self._count)
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
    ) -> PolyglotPosition | None:
        """What the book holds for a position (a :class:`chess.Board` or a key): its entries in file order, or
        ``None`` when it has none.

        With a board, castling moves come back as standard castling and (with ``legal_only``) moves
        that are not legal in the position are dropped (key collisions, damaged entries). ``a1a1``
        entries are always left out; weight-0 entries only when ``minimum_weight`` > 0.
        """
        entries = list(self.find_all(position, minimum_weight=minimum_weight, exclude_moves=exclude_moves,
                                     legal_only=legal_only))
        if not entries:
            return None
        board = position if isinstance(position, chess.Board) else None
        return PolyglotPosition(None if board is None else board.copy(stack=False), entries[0].key, tuple(entries))

    def find_all(self, position: BoardOrKey, *, minimum_weight: int = 1, exclude_moves: Container[chess.Move] = (),
                 legal_only: bool = True) -> Iterator[Entry]:
        """The entries of a position (board or key) in file order, as python-chess's ``find_all``: weight-0
        entries left out unless ``minimum_weight=0``; with a board, castling as standard castling and only
        legal moves (``legal_only``); ``a1a1`` entries never."""
        if self.closed:
            self._check_open()
        board: chess.Board | None
        if isinstance(position, int):
            board, key = None, position
        elif isinstance(position, chess.Board):
            board = position
            key = zobrist_hash(position)
        else:
            raise TypeError(f"a Polyglot book is probed with a chess.Board or a Zobrist key (int), not "
                            f"{type(position).__name__}")
        indices = self._indices(key)
        if not indices:
            return iter(())
        legal = legality_checker(board) if board is not None and legal_only else None
        result = []
        unpack = _ENTRY_STRUCT.unpack_from
        skip: Container[int] = self._skip if self._scanned else _Unchecked(self)
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
        return iter(result)

    def __contains__(self, position: object) -> bool:
        if isinstance(position, (chess.Board, int)):
            return next(self.find_all(position, minimum_weight=0), None) is not None
        return False

    def arrays(self) -> dict[str, np.ndarray[Any, Any]]:
        """All entries as native numpy arrays: key, raw_move, weight, learn and every move bit field."""
        import numpy as np

        from ...engine.layout import unpack_bits
        from ...schemas import polyglot as schema

        result = {
            "key": self._keys.copy(),
            "raw_move": self._moves.astype(_native("move")),
            "weight": self.records["weight"].astype(_native("weight")),
            "learn": self.records["learn"].astype(_native("learn")),
        }
        result.update({name: values.astype(np.uint8)
                       for name, values in unpack_bits(self._moves, schema.MOVE).items()})
        return result

    def iter_batches(self, *, fen: bool = True, batch_size: int = 65_536) -> Iterator[Any]:
        """Every entry as rows of a table (:mod:`.tables`: key, FEN, move, weight, ...) in Arrow record batches;
        ``fen=False``: no walk from the start position for the positions (``fen`` null). ``to_arrow``,
        ``to_pandas``, ``to_polars`` take the same ``fen``. Needs ``chessformats[arrow]``."""
        from .tables import polyglot_batches

        return polyglot_batches(self, reachable_positions(self) if fen else (), batch_size=batch_size)

    def table_schema(self, **options: Any) -> Any:
        """The Arrow schema of :meth:`iter_batches`' rows."""
        from .tables import polyglot_schema

        return polyglot_schema()

    def findings(self) -> list[str]:
        """Sanity findings a user should know about (unsorted, weight 0, learn data, odd entries)."""
        import numpy as np

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
        import numpy as np

        return len(np.unique(self._keys))


class _MappedKeys:
    """The keys of a mapped book as a sequence for :mod:`bisect`, read one by one (assumed sorted)."""

    def __init__(self, data: Any, count: int) -> None:
        self._data, self._count = data, count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> int:
        key: int = _KEY_STRUCT.unpack_from(self._data, index * _ENTRY_STRUCT.size)[0]
        return key


class _Unchecked:
    """The "entries to skip" of a book opened with ``scan=False``: each entry's move is checked when probed."""

    def __init__(self, book: PolyglotBook) -> None:
        self._book = book

    def __contains__(self, index: object) -> bool:
        assert isinstance(index, int)
        raw: int = _ENTRY_STRUCT.unpack_from(self._book._data, index * _ENTRY_STRUCT.size)[1]
        return not self._book._valid(index, raw)


def open_book(path: str | os.PathLike[str], *, strict: bool = True, scan: bool = True) -> PolyglotBook:
    """Open a Polyglot book (memory-mapped, read-only). Use as a context manager.

    Raises :class:`~chessformats.FormatError` when the file is not a Polyglot book: a size that is
    not a multiple of 16 (:class:`~chessformats.TruncatedError`) or, with ``strict``, an entry whose
    move cannot be a Polyglot move (:class:`~chessformats.InvalidValueError`). With ``strict=False``
    such entries are kept but never returned by probes (see :meth:`PolyglotBook.findings`).

    ``scan=False`` opens in constant time, for a quick probe: nothing is read until asked for, numpy is not
    imported, and a probe checks only the entries of its position (a ``strict`` book raises when one of them is
    invalid); the book is assumed sorted (as Polyglot writes them) until something needs the whole book
    (``len`` aside: iterating, :meth:`~PolyglotBook.arrays`, :attr:`~PolyglotBook.sorted`, ...), which scans it
    then, with the checks above.
    """
    return PolyglotBook(path, strict=strict, scan=scan)


def open_reader(path: str | os.PathLike[str]) -> PolyglotBook:
    """python-chess's name (``chess.polyglot.open_reader``): :func:`open_book` with its defaults, so that code
    written for ``chess.polyglot`` runs with ``from chessformats.polyglot import open_reader``."""
    return PolyglotBook(path)


def reachable_positions(book: PolyglotBook) -> Iterator[tuple[chess.Board, list[Entry]]]:
    """Every position reachable from the start through the book's moves (breadth first), with its entries.

    Positions are told apart as their keys tell them apart (FEN without move counters, the en-passant square kept
    by Polyglot's rule: :meth:`chess.Board.has_pseudo_legal_en_passant`), so a transposition is visited once.
    """
    first = chess.Board()
    queue = collections.deque([first])
    seen = {first.fen(en_passant="xfen").rsplit(" ", 2)[0]}
    while queue:
        board = queue.popleft()
        entries = list(book.find_all(board, minimum_weight=0))
        if not entries:
            continue
        yield board, entries
        for entry in entries:
            child = board.copy(stack=False)
            child.push(entry.move)
            name = child.fen(en_passant="xfen").rsplit(" ", 2)[0]
            if name not in seen:
                seen.add(name)
                queue.append(child)
