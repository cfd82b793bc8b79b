"""The command line's handler for ctg files: info, inspect, probe."""

from __future__ import annotations

import os
import warnings
from typing import Any

import chess

from chessformats.books.ctg import make_book
from chessformats.engine.errors import FormatError
from chessformats.formats.ctg import (
    PAGE_SIZE,
    BookMove,
    CtgBook,
    MissingIndexWarning,
    PositionRecord,
    header_numbers,
    open_book,
    polyglot_weight,
)
from chessformats.formats.ctg.model import record_notes
from chessformats.schemas import ctg as schema

from .positions import fen_board
from .registry import FormatHandler


def _open(path: str) -> CtgBook:
    """The book at ``path``, without the warning for a missing ``.cto``/``.ctb`` (the commands say it otherwise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingIndexWarning)
        return open_book(path)


_FILLED = bytes.fromhex("ffffffff")


def _sniff(path: str, head: bytes, size: int) -> int:
    """3: a ``.ctg`` header page (its fixed bytes) with as many data pages as the file holds; 1: such a header in
    a file of another size (a damaged book: the reader says what is wrong); ``.cto``/``.ctb``: by their name."""
    lower = path.lower()
    if lower.endswith((".cto", ".ctb")):
        return 2 if size > 0 else 0
    numbers = header_numbers(head)
    if numbers is None or len(head) < 1024 or head[20:24] != _FILLED or any(head[32:1024]):
        return 0
    if size >= 2 * PAGE_SIZE and size % PAGE_SIZE == 0 and numbers["data_pages"] == size // PAGE_SIZE - 1:
        return 3
    return 1


def _info(path: str) -> dict[str, Any]:
    with _open(path) as book:  # the missing index is among the findings
        records = sum(1 for _ in book.records())  # decodes and checks every record
        return {
            "format": "ctg",
            "data_pages": book.data_pages,
            "records": records,
            "games": book.header_games,
            "cto": book.cto_path,
            "ctb": book.ctb_path,
            "lower_bound": book.lower_bound,
            "upper_bound": book.upper_bound,
            "cto_entries": len(book.directory) if book.directory is not None else None,
            "findings": book.findings(),
        }


def _inspect(path: str, *, page: int | None = None, record: int | None = None, count: int | None = None,
             fen: str | None = None) -> list[Any]:
    from .registry import InspectTarget, clamped

    lower = path.lower()
    if lower.endswith((".cto", ".ctb")):
        size = os.path.getsize(path)
        if lower.endswith(".ctb"):
            return [InspectTarget(schema.CTB, 0, size, "ctb", {})]
        header, entry = schema.CTO_HEADER.sizeof(), schema.CTO_ENTRY.sizeof()
        # --record N: entry N and --count entries from it (default 1, as everywhere); neither: the header
        first = record or 0
        shown = count if count is not None else (1 if record is not None else 0)
        chosen = clamped(first, shown, (size - header) // entry - 1, "entry") if shown else range(0)
        targets = [InspectTarget(schema.CTO_HEADER, 0, header, "header", {})] if record is None else []
        return targets + [InspectTarget(schema.CTO_ENTRY, header + entry * n, entry, f"pages[{n}]", {})
                          for n in chosen]
    with _open(path) as book:
        if fen is not None:
            board = fen_board(fen)
            where = book.located(board)
            if where is None:
                raise KeyError(f"position not in book: {board.fen()}")
            found_page, number, offset = where
            stored = book.page_records(found_page)[number]
            probed = book.probe(board, legal_only=False)
            assert probed is not None
            prefix = f"pages[{found_page}].records[{number}]"
            notes = record_notes(prefix, probed)
            notes[f"{prefix}.position"] = (f"{stored.board.fen()} (stored"
                                           + (", colours flipped" if probed.flipped else "")
                                           + (", files mirrored" if probed.mirrored else "") + ")")
            size = len(stored.to_bytes())
            return [InspectTarget(schema.RECORD, offset, size, prefix, notes)]
        if page is None:
            if record is not None or count is not None:  # (not silently the header page)
                option, does = ("--record", "numbers") if record is not None else ("--count", "counts")
                raise FormatError(f"{option} of a .ctg {does} a page's records: give --page P too", file=path)
            return [InspectTarget(schema.HEADER_PAGE, 0, PAGE_SIZE, "header", {})]
        stored_records = book.page_records(page)
        if record is None:
            notes = {}
            for number, item in enumerate(stored_records):
                notes.update(record_notes(f"pages[{page}].records[{number}]", item))
            return [InspectTarget(schema.PAGE, PAGE_SIZE * (page + 1), PAGE_SIZE, f"pages[{page}]", notes)]
        chosen = clamped(record, count or 1, len(stored_records) - 1, "record")
        if record < 0 or not chosen:
            raise IndexError(f"no such record (page {page} has {len(stored_records)})")
        targets = []
        for n in chosen:
            prefix = f"pages[{page}].records[{n}]"
            item = stored_records[n]
            targets.append(InspectTarget(schema.RECORD, item.offset or 0, len(item.to_bytes()), prefix,
                                         record_notes(prefix, item)))
        return targets


def _move_row(board: chess.Board, book: CtgBook, move: BookMove) -> dict[str, Any]:
    child = board.copy(stack=False)
    child.push(move.move)
    record = book.probe(child, legal_only=False)
    row: dict[str, Any] = {"uci": move.move.uci(), "san": board.san(move.move), "weight": polyglot_weight(
        record, move.annotation), "annotation": move.annotation, "nag": move.nag, "symbol": move.symbol,
        "code": move.code, "symbol_meaning": _MEANINGS.get(move.annotation, "")}
    if record is not None:  # the position the move leads to, seen from the side that plays the move
        row.update(games=record.games, wins=record.losses, draws=record.draws, losses=record.wins,
                   average_rating=_rounded(record.rating2.average), performance=_rounded(_mover_performance(record)))
    return row


_MEANINGS = {a.value: a.name.replace("_", " ") for a in schema.ANNOTATIONS}
_COMMENT_MEANINGS = {a.value: a.name.replace("_", " ") for a in schema.COMMENTS}


def _mover_performance(child: PositionRecord) -> float | None:
    scored = child.wins + child.draws + child.losses
    opponents = child.rating1.average
    if opponents is None or not scored:
        return None
    return opponents + 400 * (child.losses - child.wins) / scored


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _probe(path: str, board: chess.Board) -> list[dict[str, Any]]:
    with _open(path) as book:
        record = book.probe(board)
        if record is None:
            return []
        from .registry import with_shares

        return with_shares([_move_row(board, book, move) for move in record.moves])


def _position(path: str, board: chess.Board) -> dict[str, Any] | None:
    with _open(path) as book:
        record = book.probe(board)
        if record is None:
            return None
        return {"games": record.games, "wins": record.wins, "draws": record.draws, "losses": record.losses,
                "average_rating": _rounded(record.average_rating), "performance": _rounded(record.performance),
                "rating1": list(record.rating1), "rating2": list(record.rating2),
                "recommendation": record.recommendation, "green": record.green, "red": record.red,
                "comment": record.comment, "comment_symbol": record.comment_symbol,
                "comment_meaning": _COMMENT_MEANINGS.get(record.comment, ""), "unknown1": record.unknown1,
                "unknown2": record.unknown2, "page": record.page, "offset": record.offset}


HANDLER = FormatHandler(
    key="ctg", status="read, write, probe, inspect, convert",
    sniff=_sniff, info=_info, inspect=_inspect, probe=_probe,
    inspect_options=("page", "record", "count", "fen"), position=_position, build=make_book,
)
