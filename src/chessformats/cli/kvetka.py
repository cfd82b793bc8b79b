"""The command line's handler for kvetka files: info, inspect, probe."""

from __future__ import annotations

import os
import re
from typing import Any

import chess.pgn

from chessformats.books.kvetka import make_book
from chessformats.engine.errors import FormatError, InvalidValueError
from chessformats.formats.kvetka import (
    BLOCK_SIZE,
    KEY_SIZE,
    KsfFile,
    KvetkaBook,
    header_size,
    open_book,
    toc_count,
    toc_size,
)
from chessformats.formats.kvetka.model import element_notes
from chessformats.schemas import kvetka as schema

from .positions import fen_board
from .registry import FormatHandler


def _sniff(path: str, head: bytes, size: int) -> int:
    """3: a ``NAME_0.kob`` header of the supported type whose blocks fill the file (``NAME_k.kob``: whole blocks);
    1: such a header in a file of another size; ``.kin``/``.ksf``: by their name and size."""
    lower = path.lower()
    if lower.endswith(".kin"):
        return 2 if size and size % KEY_SIZE == 0 else 0
    if lower.endswith(".ksf"):
        return 2 if size >= schema.KSF_TOC_UNIT else 0
    header = header_size(head)
    if header is not None:
        return 3 if header <= size and (size - header) % BLOCK_SIZE == 0 else 1
    if lower.endswith(".kob") and not re.search(r"_0\.kob$", lower) and size and size % BLOCK_SIZE == 0:
        return 2  # a later file of a book (NAME_1.kob, ...): blocks only
    return 0


def _open(path: str) -> KvetkaBook:
    """The book of ``path`` (as :func:`open_book` finds it); the first file of a book under another name than
    ``NAME_0.kob`` (which the reader finds a book by) is refused saying what to rename it to."""
    stem, extension = os.path.splitext(path)
    if extension.lower() == ".kob" and not re.search(r"_[0-9]+$", stem) and not os.path.exists(
            f"{stem}_0{extension}"):
        with open(path, "rb") as handle:
            first = header_size(handle.read(_HEADER_BYTES)) is not None
        if first:
            name = os.path.basename(stem)
            raise FormatError(f"a Kvetka book's first file, not named NAME_0.kob (the name a book is read by): rename "
                              f"it {name}_0{extension} (and its .kin, if any, {name}.kin)", file=path)
    return open_book(path)


_HEADER_BYTES = 4096
"""Bytes enough for a book's header (its caption's length decides its size)."""


def _info(path: str) -> dict[str, Any]:
    with _open(path) as book:
        elements = 0
        for element in book.elements():  # reads and checks every element, key and move
            board = book.element_board(element)
            if any(move is None for move in element.stored_moves(board)):
                file, offset = book.where(element.offset or 0)
                raise InvalidValueError("a move code moves a piece the position does not have", file=file,
                                        offset=offset, path=f"blocks[{element.block}].elements[?].body.moves")
            elements += 1
        header = book.header
        return {
            "format": "kvetka",
            "kob": book.kob_paths,
            "kin": book.kin_path,
            "ksf": book.ksf_path,
            "caption": book.caption,
            "blocks": book.blocks,
            "elements": elements,
            "max_move": header.max_move,
            "elo_filters": [header.least_white_elo, header.least_black_elo, header.least_strong_elo,
                            header.least_weak_elo],
            "game_references": book.keeps_games,
            "links": header.links,
            "sources": len(book.sources) if book.sources is not None else None,
            "findings": book.findings(),
        }


def _inspect(path: str, *, block: int | None = None, record: int | None = None, count: int | None = None,
             fen: str | None = None) -> list[Any]:
    from .registry import InspectTarget, clamped

    lower = path.lower()
    size = os.path.getsize(path)
    if lower.endswith(".kin"):
        total = size // KEY_SIZE
        first = record or 0
        chosen = clamped(first, count or 1, total - 1, "key")
        if not chosen:
            raise IndexError(f"no such key (the .kin holds {total})")
        return [InspectTarget(schema.KEY, KEY_SIZE * n, KEY_SIZE, f"[{n}]", {}) for n in chosen]
    if lower.endswith(".ksf"):
        with open(path, "rb") as handle:
            head = handle.read(schema.KSF_TOC_UNIT)
        sources = toc_count(head) or 0
        if record is None:
            return [InspectTarget(schema.TOC, 0, min(toc_size(sources), size), "toc", {})]
        with KsfFile(path) as reader:
            if not 0 <= record < len(reader):
                raise IndexError(f"no such source (the .ksf has {len(reader)})")
            start = reader.addresses[record]
            end = min([a for a in reader.addresses if a > start] + [size])
        return [InspectTarget(schema.SOURCE, start, end - start, f"sources[{record}]", {})]
    with _open(path) as book:
        here = os.path.abspath(path)
        index = [os.path.abspath(p) for p in book.kob_paths].index(here) if here in map(os.path.abspath,
                                                                                        book.kob_paths) else 0
        file_start = book.starts[index]
        file_end = file_start + os.path.getsize(book.kob_paths[index])

        def local(at: int, what: str) -> int:
            if not file_start <= at < file_end:
                owner, _ = book.where(at)
                raise IndexError(f"{what} is in {os.path.basename(owner)}: inspect that file")
            return at - file_start

        if fen is not None:
            board = fen_board(fen)
            found = book.located(board)
            if found is None:
                raise KeyError(f"position not in book: {fen}")
            number_block, number, element = found
            prefix = f"blocks[{number_block}].elements[{number}]"
            data = element.to_bytes(book.keeps_games)
            notes = element_notes(prefix, element)
            probed = book.probe(board, legal_only=False)
            if probed is not None:
                notes[f"{prefix}.body.key"] += (" for " + board.fen()
                                                + (", colours flipped" if probed.flipped else "")
                                                + (", files mirrored" if probed.mirrored else ""))
            return [InspectTarget(schema.ELEMENT, local(element.offset or 0, "the element"), len(data), prefix,
                                  notes)]
        if block is None:
            if index == 0:
                return [InspectTarget(schema.HEADER, 0, book.header_size, "header", {})]
            block = (file_start - book.header_size) // BLOCK_SIZE
        elements = book.block_elements(block)
        prefix = f"blocks[{block}]"
        offset = local(book.block_offset(block), f"block {block}")
        if record is None:
            block_notes: dict[str, str] = {}
            for number, element in enumerate(elements):
                block_notes.update(element_notes(f"{prefix}.elements[{number}]", element))
            return [InspectTarget(schema.BLOCK, offset, BLOCK_SIZE, prefix, block_notes)]
        chosen = clamped(record, count or 1, len(elements) - 1, "element")
        if record < 0 or not chosen:
            raise IndexError(f"no such element (block {block} has {len(elements)})")
        targets = []
        for number in chosen:
            element = elements[number]
            item = f"{prefix}.elements[{number}]"
            targets.append(InspectTarget(schema.ELEMENT, local(element.offset or 0, "the element"),
                                         len(element.to_bytes(book.keeps_games)), item, element_notes(item, element)))
        return targets


def _move_row(board: chess.Board, book: KvetkaBook, move: chess.Move) -> dict[str, Any]:
    child = board.copy(stack=False)
    child.push(move)
    result = book.probe(child, legal_only=False)
    row: dict[str, Any] = {"uci": move.uci(), "san": board.san(move)}
    if result is None:
        row["weight"] = 1
        return row
    # the position the move leads to, seen from the side that plays the move
    row.update(weight=2 * result.losses + result.draws, games=result.games, wins=result.losses, draws=result.draws,
               losses=result.wins)
    return row


def _probe(path: str, board: chess.Board) -> list[dict[str, Any]]:
    with _open(path) as book:
        result = book.probe(board)
        if result is None:
            return []
        from .registry import with_shares

        return with_shares([_move_row(board, book, move.move) for move in result.moves])


def _position(path: str, board: chess.Board) -> dict[str, Any] | None:
    with _open(path) as book:
        result = book.probe(board)
        if result is None:
            return None
        facts: dict[str, Any] = {"games": result.games, "wins": result.wins, "draws": result.draws,
                                 "losses": result.losses, "comment": result.comment}
        if result.opening is not None:
            facts.update(eco=result.opening.code, opening=result.opening.name, variation=result.opening.variation)
        if result.source is not None:
            game = result.source.game
            facts["source"] = {"type": result.source.source_type, "address": result.source.address,
                               "is_bad": result.source.is_bad, "internet_kind": result.source.internet_kind,
                               "position": result.source.position, "length": game.length, "white": game.white,
                               "black": game.black, "white_elo": game.white_elo, "black_elo": game.black_elo,
                               "result": game.result_name}
        facts.update(block=result.element.block, offset=result.element.offset)
        return facts


def _make_book(path: str, builder: Any, *, pgn_encoding: str | None = None, **options: Any) -> Any:
    """``build -o NAME.kob``: :func:`~chessformats.books.kvetka.make_book` (``--pgn-encoding``: its ``encoding``, the
    code page of the PGN files its ``.ksf`` names)."""
    return make_book(path, builder, encoding=pgn_encoding, **options)


HANDLER = FormatHandler(
    key="kvetka", status="read, write, probe, inspect, convert",
    sniff=_sniff, info=_info, inspect=_inspect, probe=_probe,
    build=_make_book, inspect_options=("block", "record", "count", "fen"), position=_position,
)
