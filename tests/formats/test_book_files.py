"""What every book reader (Polyglot, CTG, Kvetka) does with the file it is given and with being closed: a folder or
a pipe is a FormatError naming it (never another exception, never an open that blocks); a book closed while it is
iterated raises ClosedError, not an error about the file's bytes; ``repr`` names the file."""

from __future__ import annotations

import os
import random
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import pytest

from chessformats import ctg, kvetka, polyglot
from chessformats.contract import ClosedError
from chessformats.engine.errors import FormatError
from kvetka_examples import many_games


def polyglot_book(folder: Path) -> Path:
    """600 entries (more than one chunk of 256 between two checks that the book is open): keys 1..600, e2e4."""
    path = folder / "book.bin"
    move = (12 << 6) | 28  # from e2 (square 12), to e4 (28): 6 bits each, as Polyglot packs them
    path.write_bytes(b"".join(struct.pack(">QHHI", key, move, 1, 0) for key in range(1, 601)))
    return path


def ctg_book(folder: Path) -> Path:
    """Positions of random games: more than one data page."""
    rng = random.Random(3)
    records = {}
    while len(records) < 150:
        board = chess.Board()
        for _ in range(rng.randrange(1, 12)):
            board.push(rng.choice(list(board.legal_moves)))
        records.setdefault(ctg.signature(board), ctg.make_record(board, [], games=1))
    path = folder / "book.ctg"
    ctg.write_book(path, list(records.values()))
    return path


def kvetka_book(folder: Path) -> Path:
    kvetka.write_book(folder / "book.kob", many_games(20, 1))
    return folder / "book"


FORMATS: dict[str, tuple[Callable[[Path], Path], Callable[[Any], Any], str]] = {
    "polyglot": (polyglot_book, polyglot.open_book, "a Polyglot book"),
    "ctg": (ctg_book, ctg.open_book, "a file of a CTG book"),
    "kvetka": (kvetka_book, kvetka.open_book, "a file of a Kvetka book"),
}
"""Per format: a book made in a folder, the format's ``open_book``, how its errors name what a file is not."""


@pytest.mark.parametrize("name", FORMATS)
def test_closed_while_iterated(tmp_path: Path, name: str) -> None:
    make, open_book, _ = FORMATS[name]
    book = open_book(make(tmp_path))
    pages = {"polyglot": len(book) // 256, "ctg": getattr(book, "data_pages", 0), "kvetka": getattr(book, "blocks", 0)}
    assert pages[name] >= 2  # iteration checks the book is open at each page (block, chunk of entries)
    whole = sum(1 for _ in book)
    iterator = iter(book)
    next(iterator)
    book.close()
    with pytest.raises(ClosedError, match="is closed"):
        rest = sum(1 for _ in iterator)
        pytest.fail(f"{rest + 1} of {whole} items iterated after close()")
    with pytest.raises(ClosedError, match="is closed"):
        book.findings()  # as every use of a closed book


@pytest.mark.parametrize("name", FORMATS)
def test_a_folder_is_no_book(tmp_path: Path, name: str) -> None:
    _, open_book, what = FORMATS[name]
    folder = tmp_path / {"polyglot": "book.bin", "ctg": "book.ctg", "kvetka": "book_0.kob"}[name]
    folder.mkdir()
    with pytest.raises(FormatError, match=f"a folder, not {what}") as caught:
        open_book(folder)
    assert caught.value.file == str(folder)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
@pytest.mark.parametrize("name", FORMATS)
def test_a_pipe_is_no_book(tmp_path: Path, name: str) -> None:
    # opening a named pipe for reading blocks until a writer comes: it must be refused before that
    _, open_book, what = FORMATS[name]
    pipe = tmp_path / {"polyglot": "book.bin", "ctg": "book.ctg", "kvetka": "book_0.kob"}[name]
    os.mkfifo(pipe)
    done = threading.Event()
    threading.Thread(target=_unblock, args=(pipe, done), daemon=True).start()
    try:
        with pytest.raises(FormatError, match=f"a pipe or a device, not {what}") as caught:
            open_book(pipe)
    finally:
        done.set()
    assert caught.value.file == str(pipe)


def _unblock(pipe: Path, done: threading.Event) -> None:
    """Open ``pipe`` for writing (and close it: an empty stream) as soon as a reader holds it open, so that a reader
    that opened it fails its test instead of blocking it forever."""
    while not done.wait(0.05):
        try:
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))  # fails (ENXIO) while no reader has it open
            return
        except OSError:
            continue


@pytest.mark.parametrize("name", FORMATS)
def test_repr_names_the_file(tmp_path: Path, name: str) -> None:
    make, open_book, _ = FORMATS[name]
    with open_book(make(tmp_path)) as book:
        first = Path(book.path)
        size = first.stat().st_size
        known = {"polyglot": lambda: f"{size // 16} entries", "ctg": lambda: f"{size // 4096 - 1} data pages",
                 "kvetka": lambda: f"{(size - book.header_size) // kvetka.BLOCK_SIZE} blocks"}[name]()
        assert repr(book) == f"<{type(book).__name__} {str(first)!r} ({known})>"
    assert repr(book) == f"<{type(book).__name__} {str(first)!r} (closed)>"


@pytest.mark.parametrize("name", ["game.cbh", "game.cbv", "games.montyformat"])
def test_a_folder_is_no_base_archive_or_game_file(tmp_path: Path, name: str) -> None:
    # the readers that map or stream their file refuse a folder in the same words (engine.fileio.regular)
    from chessformats.formats import chessbase, monty

    folder = tmp_path / name
    folder.mkdir()
    what, opener = {".cbh": ("a file of a ChessBase base", chessbase.open_database),
                    ".cbv": ("a ChessBase archive", chessbase.open_database),
                    ".montyformat": ("a Monty file", monty.open_games)}[folder.suffix]
    with pytest.raises(FormatError, match=f"a folder, not {what}") as caught:
        opener(folder)
    assert caught.value.file == str(folder)
