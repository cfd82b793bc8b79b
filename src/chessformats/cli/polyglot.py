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
    """From the content alone: 2 for whole entries whose first ones have valid moves and sorted keys, 1 for valid
    moves with unsorted keys or a file that is not whole entries (a damaged book: the reader says what is wrong),
    0 otherwise (text, another format's header, bytes whose moves are not moves)."""
    count = len(head) // _ENTRY.size
    if count == 0 or looks_like_text(head):
        return 0
    records = list(_ENTRY.iter_unpack(head[:count * _ENTRY.size]))
    if any(move_problem(record[1]) is not None for record in records):
        return 0
    keys = [record[0] for record in records]
    if len(records) > 1 and len(set(keys)) == 1 and not keys[0]:
        return 0  # zeros: no book stores its moves under the key 0 again and again
    return 2 if size % _ENTRY.size == 0 and keys == sorted(keys) else 1


def _make_book(*args: Any, **kwargs: Any) -> WriteReport:
    from chessformats.books.polyglot import make_book

    return make_book(*args, **kwargs)


def _info(path: str) -> dict[str, Any]:
    from chessformats.formats.polyglot.read import UnsortedBookWarning, open_book

    with warnings.catch_warnings():  # an unsorted book is reported among the findings
        warnings.simplefilter("ignore", UnsortedBookWarning)
        book = open_book(path, strict=False)
    with book:
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
    from .registry import InspectTarget

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
            indices = list(range(first, min(first + (count or 1), total)))
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
    from chessformats.formats.polyglot.read import open_book

    from .registry import with_shares

    with open_book(path, scan=False) as book:  # constant-time open: a probe reads only its position's entries
        return with_shares([
            {"uci": e.move.uci(), "san": board.san(e.move), "weight": e.weight, "learn": e.learn,
             "raw_move": e.raw_move, "entry": e.number}
            for e in book.find_all(board, minimum_weight=0)
        ])


HANDLER = FormatHandler(
    key="polyglot", status="read, write, probe, inspect",
    sniff=_sniff, info=_info, inspect=_inspect, probe=_probe, build=_make_book, build_needs_boards=False,
)
