"""The command line's handler for polyglot files: info, inspect, probe."""

from __future__ import annotations

import struct
import warnings
from typing import TYPE_CHECKING, Any

from chessformats.formats.polyglot.packing import move_problem
from chessformats.schemas import polyglot_facts as facts

from .content import looks_like_text
from .registry import FormatHandler

if TYPE_CHECKING:
    import chess

    from chessformats.engine.contract import WriteReport

# the handler is imported to sniff every file given to the command line, and by a build: numpy, the declarations
# (construct), python-chess, the reader and the builder are imported by the commands that use them (a probe needs
# neither numpy nor the declarations, a build neither python-chess nor the reader)
_ENTRY = struct.Struct(facts.ENTRY_FORMAT)


def _sniff(path: str, head: bytes, size: int) -> int:
    """From the content alone: 2 for whole entries whose first ones have valid moves and sorted keys, 1 for a
    damaged book (the reader says what is wrong): valid moves with unsorted keys, a file that is not whole
    entries (four at least), or sorted keys with a few entries (at most one in eight) whose moves are not moves;
    0 otherwise (text, another format's header, bytes whose moves are mostly not moves)."""
    count = len(head) // _ENTRY.size
    if count == 0 or looks_like_text(head) or (size % _ENTRY.size and count < 4):
        return 0  # (a few bytes that are not whole entries: no evidence, e.g. a small compressed file)
    records = list(_ENTRY.iter_unpack(head[:count * _ENTRY.size]))
    bad = sum(move_problem(record[1]) is not None for record in records)
    keys = [record[0] for record in records]
    if bad and (bad == count or bad > max(1, count // 8) or keys != sorted(keys)):
        return 0
    if len(records) > 1 and len(set(keys)) == 1 and not keys[0]:
        return 0  # zeros: no book stores its moves under the key 0 again and again
    return 2 if not bad and size % _ENTRY.size == 0 and keys == sorted(keys) else 1


def _invalid(path: str, numbers: list[int], raw_moves: list[int]) -> None:
    """Warn of entries whose moves are not Polyglot moves (left out of every probe), naming the first three."""
    import os

    said = []
    for number, raw in zip(numbers[:3], raw_moves[:3], strict=True):
        problem = move_problem(raw)
        if problem is not None:
            field, expected, value = problem
            said.append(f"entry {number} (offset {number * _ENTRY.size}: entries[{number}].{field}: expected "
                        f"{expected}, found {value})")
    if said:
        more = f" and {len(numbers) - 3} more" if len(numbers) > 3 else ""
        warnings.warn(f"{os.path.basename(path)}: a damaged book: no Polyglot move in {'; '.join(said)}{more}: "
                      "left out", stacklevel=3)


def _make_book(*args: Any, **kwargs: Any) -> WriteReport:
    from chessformats.books.polyglot import make_book

    return make_book(*args, **kwargs)


def _info(path: str) -> dict[str, Any]:
    from chessformats.formats.polyglot.read import UnsortedBookWarning, open_book

    with warnings.catch_warnings():  # an unsorted book is reported among the findings
        warnings.simplefilter("ignore", UnsortedBookWarning)
        book = open_book(path, strict=False)
    with book:
        numbers = book.invalid_entries.nonzero()[0].tolist()
        _invalid(path, numbers, [book[number].raw_move for number in numbers[:3]])
        return {
            "format": "polyglot",
            "entries": len(book),
            "positions": book.positions(),
            "sorted": book.sorted,
            "findings": book.findings(),
        }


def _inspect(path: str, *, record: int | None = None, offset: int | None = None, length: int | None = None,
             fen: str | None = None, count: int | None = None) -> list[Any]:
    from chessformats.formats.polyglot.moves import decode_move
    from chessformats.formats.polyglot.read import open_book
    from chessformats.schemas import polyglot as schema

    from .positions import fen_board
    from .registry import InspectTarget, clamped

    size = _ENTRY.size
    with open_book(path, strict=False) as book:
        total = len(book)
        board = fen_board(fen) if fen else None
        if board is not None:
            indices = book.entry_numbers(board)
            if not indices:
                raise KeyError(f"position not in book: {board.fen()}")
        elif offset is not None:
            first = offset // size
            last = (offset + max(length or size, 1) - 1) // size
            indices = list(range(first, min(last, total - 1) + 1))
        else:
            first = record or 0
            indices = list(clamped(first, count or 1, total - 1, "entry"))
        if not indices or not all(0 <= i < total for i in indices):
            raise IndexError(f"no such entry (the book has {total})")
        targets = []
        for index in indices:
            path_prefix = f"entries[{index}]"
            raw = book[index].raw_move
            annotations = {f"{path_prefix}.move": decode_move(board, raw).uci() if raw else "a1a1 (ignored)"}
            if board is not None:
                annotations[f"{path_prefix}.key"] = board.fen()
            targets.append(InspectTarget(schema.ENTRY, index * size, size, path_prefix, annotations))
        return targets


def _probe(path: str, board: chess.Board) -> list[dict[str, Any]]:
    """The book's moves for ``board``. The book is opened in constant time and taken as sorted (as Polyglot writes
    them); when that finds nothing and keys sampled over the book are out of order, the whole book is read once:
    an unsorted book (the reader's warning says so) is then searched through a sorted index. Entries whose moves
    are not moves are left out, with a warning."""
    from chessformats.formats.polyglot.read import open_book

    from .registry import with_shares

    with open_book(path, scan=False, strict=False) as book:  # constant-time open: a hit reads only its entries
        entries = list(book.find_all(board, minimum_weight=0))
        # a miss in a book whose sampled keys are out of order: read it whole (.sorted; the reader's warning says
        # it is unsorted) and search its sorted index; a sorted-looking book's miss costs no more than a hit
        if not entries and len(book) > 1 and not book.looks_sorted() and not book.sorted:
            entries = list(book.find_all(board, minimum_weight=0))
        left_out = sorted(set(book.entry_numbers(board)) - {entry.number for entry in
                                                            book.find_all(board, minimum_weight=0, legal_only=False)})
        _invalid(path, *_raw_moves(path, left_out))
        return with_shares([
            {"uci": e.move.uci(), "san": board.san(e.move), "weight": e.weight, "learn": e.learn,
             "raw_move": e.raw_move, "entry": e.number}
            for e in entries
        ])


def _raw_moves(path: str, numbers: list[int]) -> tuple[list[int], list[int]]:
    """Of the entries ``numbers``, those whose move is not the ignored ``a1a1``, and their raw moves."""
    kept, moves = [], []
    with open(path, "rb") as handle:
        for number in numbers:
            handle.seek(number * _ENTRY.size)
            raw = _ENTRY.unpack(handle.read(_ENTRY.size))[1]
            if raw:
                kept.append(number)
                moves.append(raw)
    return kept, moves


HANDLER = FormatHandler(
    key="polyglot", status="read, write, probe, inspect",
    sniff=_sniff, info=_info, inspect=_inspect, probe=_probe, build=_make_book, build_needs_boards=False,
)
