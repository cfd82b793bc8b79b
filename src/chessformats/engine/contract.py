"""The contract every format keeps, written down as code: what an opening book, a game collection and a writer's
report look like from the outside, whatever the bytes.

- :class:`OpeningBook` (Polyglot, CTG, Kvetka): a context manager; ``probe(board | key)`` answers a
  :class:`BookPosition` or ``None``; iteration, ``len`` and ``[i]`` in the format's stored order; python-chess's
  ``find_all``/``find``/``get``/``choice``/``weighted_choice`` with python-chess's meanings (``choice`` uniform,
  ``weighted_choice`` by weight, ``find`` raises :class:`IndexError`, ``get`` returns a default).
- :class:`GameCollection` (ChessBase, Monty): iteration over games, ``len``, ``[n]`` with a documented
  numbering.
- :class:`WriteReport`: what every writer returns (written, skipped with reasons, warnings as objects).

The shared behaviour (``find``, ``get``, the two choices, refusing use after ``close``) is implemented once, in
:class:`BookMethods`; a format implements ``probe`` and ``find_all``. What a format cannot do is absent, not a
stub. ``tests/test_contract.py`` runs every format and every corpus file through these protocols.
"""

from __future__ import annotations

import random as _random
import warnings as _warnings
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from types import TracebackType

    import chess

__all__ = [
    "BookMethods",
    "BookMove",
    "BookPosition",
    "ClosedError",
    "GameCollection",
    "OpeningBook",
    "Skipped",
    "WriteReport",
    "WriteWarning",
    "collect_warnings",
    "deprecated_alias",
]

MoveT = TypeVar("MoveT", bound="BookMove", covariant=True)
_Move = TypeVar("_Move", bound="BookMove")
KeyT = TypeVar("KeyT")
RandomSource = Any
"""``None`` (the :mod:`random` module, as python-chess), a :class:`random.Random`, or an ``int`` seed."""


class ClosedError(ValueError):
    """The book, base or file was closed: use it inside its ``with`` block (or before ``close()``)."""


@runtime_checkable
class BookMove(Protocol):
    """A book move: a move of the probed board and its weight (``None`` where the format stores none and the
    move did not come through :meth:`OpeningBook.find_all`, which gives every move a weight)."""

    @property
    def move(self) -> chess.Move: ...

    @property
    def weight(self) -> int | None: ...


@runtime_checkable
class BookPosition(Protocol):
    """What a book knows of a position. ``wins``, ``draws``, ``losses`` are the results of the side to move
    (``None`` where the format stores no results: Polyglot); ``games`` is at least their sum (CTG also counts
    games of unknown result)."""

    @property
    def board(self) -> chess.Board | None: ...

    @property
    def key(self) -> Any: ...

    @property
    def moves(self) -> Sequence[BookMove]: ...

    @property
    def games(self) -> int | None: ...

    @property
    def wins(self) -> int | None: ...

    @property
    def draws(self) -> int | None: ...

    @property
    def losses(self) -> int | None: ...


@runtime_checkable
class OpeningBook(Protocol):
    """An opening book open for reading (:func:`chessformats.polyglot.open_book`, ``ctg.open_book``,
    ``kvetka.open_book``).

    A position is a :class:`chess.Board` or the format's key of it (:meth:`key`: Polyglot's Zobrist hash, CTG's
    encoded position, Kvetka's key); probed by key, the moves are those of the format's stored board (none for
    Polyglot, whose moves are then decoded without a board: castling as king-takes-rook).
    """

    path: str

    def __enter__(self) -> Any: ...

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None, /) -> None: ...

    def close(self) -> None: ...

    def key(self, board: chess.Board) -> Any: ...

    def probe(self, position: Any) -> BookPosition | None: ...

    def __contains__(self, position: object) -> bool: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Any: ...

    def find_all(self, position: Any, *, minimum_weight: int = 1,
                 exclude_moves: Container[chess.Move] = ()) -> Iterator[BookMove]: ...

    def find(self, position: Any, *, minimum_weight: int = 1, exclude_moves: Container[chess.Move] = ()) -> BookMove:
        ...

    def get(self, position: Any, default: Any = None, *, minimum_weight: int = 1,
            exclude_moves: Container[chess.Move] = ()) -> Any: ...

    def choice(self, position: Any, *, minimum_weight: int = 1, exclude_moves: Container[chess.Move] = (),
               random: RandomSource = None) -> BookMove: ...

    def weighted_choice(self, position: Any, *, exclude_moves: Container[chess.Move] = (),
                        random: RandomSource = None) -> BookMove: ...


@runtime_checkable
class GameCollection(Protocol):
    """Games stored one after another (ChessBase bases, Monty files): iteration in stored order, ``len``, and
    ``[n]`` with the numbering each format documents (ChessBase: game numbers from 1, as ChessBase shows them;
    Monty: from 0)."""

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...

    def __getitem__(self, number: int) -> Any: ...


def _randint(random: RandomSource, low: int, high: int) -> int:
    """python-chess's draw: ``random.randint`` of the given source (the module when ``None``)."""
    return int((_random if random is None else random).randint(low, high))


def _rng(random: RandomSource) -> Any:
    """``None`` -> the :mod:`random` module (python-chess's default); an ``int`` -> a seeded Random."""
    if isinstance(random, int) and not isinstance(random, bool):
        return _random.Random(random)
    return random


class BookMethods(Generic[_Move]):
    """python-chess's reader vocabulary on top of a format's ``find_all``: one implementation for every book.

    ``find`` is the (first) move of the highest weight and raises :class:`IndexError`; ``get`` returns
    ``default`` instead; ``choice`` is uniform (python-chess's draw: the same moves for the same seed);
    ``weighted_choice`` draws by weight.
    """

    def find_all(self, position: Any, *, minimum_weight: int = 1,
                 exclude_moves: Container[chess.Move] = ()) -> Iterator[_Move]:
        raise NotImplementedError  # pragma: no cover - every book defines it

    def _weighed(self, found: Any, weight: Callable[[Any, Any], int], minimum_weight: int,
                 exclude_moves: Container[chess.Move]) -> Iterator[_Move]:
        """``find_all`` of a format whose moves are weighed by the position they lead to: each move of ``found`` (a
        probe's answer, or ``None``) with ``weight(move, probe of the position after it)``, those of weight >=
        ``minimum_weight`` and not in ``exclude_moves``, in stored order."""
        if found is None:
            return iter(())
        kept = []
        for move in found.moves:
            if exclude_moves and move.move in exclude_moves:
                continue
            child = found.board.copy(stack=False)
            child.push(move.move)
            value = weight(move, getattr(self, "probe")(child, legal_only=False))  # noqa: B009 - every book has one
            if value >= minimum_weight:
                kept.append(move._replace(weight=value))
        return iter(kept)

    def find(self, position: Any, *, minimum_weight: int = 1, exclude_moves: Container[chess.Move] = ()) -> _Move:
        best: _Move | None = None
        for move in self.find_all(position, minimum_weight=minimum_weight, exclude_moves=exclude_moves):
            if best is None or (move.weight or 0) > (best.weight or 0):
                best = move
        if best is None:
            raise IndexError("position not in book (or no move of enough weight)")
        return best

    def get(self, position: Any, default: Any = None, *, minimum_weight: int = 1,
            exclude_moves: Container[chess.Move] = ()) -> _Move | Any:
        try:
            return self.find(position, minimum_weight=minimum_weight, exclude_moves=exclude_moves)
        except IndexError:
            return default

    def choice(self, position: Any, *, minimum_weight: int = 1, exclude_moves: Container[chess.Move] = (),
               random: RandomSource = None) -> _Move:
        """A move drawn uniformly (python-chess's ``choice``: the same draw for the same ``random.Random``)."""
        rng = _rng(random)
        chosen: _Move | None = None
        for index, move in enumerate(self.find_all(position, minimum_weight=minimum_weight,
                                                   exclude_moves=exclude_moves)):
            if chosen is None or _randint(rng, 0, index) == index:
                chosen = move
        if chosen is None:
            raise IndexError("position not in book (or no move of enough weight)")
        return chosen

    def weighted_choice(self, position: Any, *, exclude_moves: Container[chess.Move] = (),
                        random: RandomSource = None) -> _Move:
        """A move drawn with probability weight / total weight (weight-0 moves never)."""
        moves = list(self.find_all(position, exclude_moves=exclude_moves))
        total = sum(move.weight or 0 for move in moves)
        if not total:
            raise IndexError("position not in book (or no move of positive weight)")
        pick = _randint(_rng(random), 0, total - 1)
        running = 0
        for move in moves:
            running += move.weight or 0
            if running > pick:
                return move
        raise AssertionError("unreachable")  # pragma: no cover


class Skipped(NamedTuple):
    """One item a writer left out, and why."""

    item: int | None
    """Its position in the input (from 1), where the writer knows it."""
    reason: str
    line: int | None = None
    """The line of the source text it starts on (from 1), when read from text."""


class WriteWarning(NamedTuple):
    """Something a writer had to change or could not keep (a name cut to its field, a move the format cannot
    store); ``category`` is the :class:`Warning` subclass it was raised as."""

    message: str
    category: type[Warning] = UserWarning
    item: int | None = None


@dataclass
class WriteReport:
    """What a writer did. Every writer of every format returns one."""

    path: str
    """The main file written (a book's ``.bin``/``.ctg``/``_0.kob``, a base's ``.cbh``, a Monty file)."""
    written: int = 0
    """Items written: entries (Polyglot), records (CTG), elements (Kvetka), games (ChessBase, Monty)."""
    unit: str = "items"
    files: list[str] = field(default_factory=list)
    """Every file written, the main one first."""
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[WriteWarning] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    """Other counts a format reports (``blocks`` of a Kvetka book, ``positions`` reached by a conversion, ...)."""

    def __int__(self) -> int:
        return self.written

    __index__ = __int__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, int) and not isinstance(other, bool):
            # writers of Polyglot, CTG and Monty books returned the count before the contract
            _warnings.warn("a writer returns a WriteReport now: compare report.written", DeprecationWarning,
                           stacklevel=2)
            return self.written == other
        if not isinstance(other, WriteReport):
            return NotImplemented
        return (self.path, self.written, self.unit, self.files, self.skipped, self.warnings, self.counts) == (
            other.path, other.written, other.unit, other.files, other.skipped, other.warnings, other.counts)

    __hash__ = None  # type: ignore[assignment]

    def summary(self) -> str:
        """One line for a person: ``"1,234 entries written to book.bin; 2 skipped; 1 warning"``."""
        text = f"{self.written:,} {self.unit} written to {self.path}"
        extra = [f"{value:,} {name}" for name, value in self.counts.items()]
        if extra:
            text += f" ({', '.join(extra)})"
        if self.skipped:
            text += f"; {len(self.skipped):,} skipped"
        if self.warnings:
            text += f"; {len(self.warnings)} warning{'s' * (len(self.warnings) != 1)}"
        return text


@contextmanager
def collect_warnings(report_warnings: list[WriteWarning], *, reraise: bool = True) -> Iterator[None]:
    """Record the warnings raised inside the block as :class:`WriteWarning`\\ s (and, with ``reraise``, warn them
    again to the caller's filters once the block ends)."""
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        yield
    for item in caught:
        report_warnings.append(WriteWarning(str(item.message), item.category))
    if reraise:
        for item in caught:
            _warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)


_F = TypeVar("_F", bound=Callable[..., Any])


def deprecated_alias(function: _F, old: str, new: str) -> _F:
    """``function`` under its old name: the same call, with a :class:`DeprecationWarning` naming the new one."""

    def alias(*args: Any, **kwargs: Any) -> Any:
        _warnings.warn(f"{old} is deprecated: use {new}", DeprecationWarning, stacklevel=2)
        return function(*args, **kwargs)

    alias.__name__ = old.rpartition(".")[2]
    alias.__qualname__ = old
    alias.__doc__ = f"Deprecated alias of :func:`{new}`."
    return alias  # type: ignore[return-value]
