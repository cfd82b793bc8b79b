"""The ``inspect`` command: the options checked against the format and against the numbering every format shares
(docs/cli.md), the handler's targets traced and shown as annotated hex (or one HTML page)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine.errors import FormatError
from . import registry
from .outputs import planned

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["NOT_IN_BOOK", "PATHS", "detect", "inspect_command", "show"]

PATHS = """paths: the hex view's field paths name the file's own structure, as the library's API does: Monty's
  games[0] is --game 1 (the API's GameFile[0], row game 0 of a Parquet table of Monty data); ChessBase's
  games[N] is game N, its .cbh record N (the table's number column)."""
"""Which numbering each surface uses, where it is not the options' (the ``--help`` epilogue's last part)."""

NOT_IN_BOOK = "position not in book"
"""How the handlers' ``inspect`` begins the :class:`KeyError` of a ``--fen`` the book does not hold."""


def inspect_command(args: argparse.Namespace, fen: str | None, console: Console) -> int:
    """``inspect FILE``: ``fen``, the position of ``--fen``/``--moves`` (``None``: neither given)."""
    handler = detect(args.file, args.format, "inspect")
    options = {name: getattr(args, name) for name in registry.INSPECT_OPTIONS if getattr(args, name) is not None}
    if fen is not None:
        options["fen"] = fen
    unsupported = sorted(set(options) - set(handler.inspect_options))
    if unsupported:
        raise FormatError(f"{handler.doc.title}: inspect does not take {', '.join('--' + o for o in unsupported)}"
                          f" (it takes {', '.join('--' + o for o in handler.inspect_options)})", file=args.file)
    check_numbers(args.file, options)
    try:
        targets = handler.inspect(args.file, **options)
    except KeyError as missing:  # --fen/--moves of a position the book does not hold: nothing found, as probe
        if "fen" not in options or not str(missing.args[0] if missing.args else "").startswith(NOT_IN_BOOK):
            raise
        print(f"chessformats: {missing.args[0]}", file=sys.stderr)
        return 1
    if args.html:
        from ..codegen.html import read_targets, write_page

        planned(args.html, force=args.force)

        print(write_page(args.html, f"{os.path.basename(args.file)}: {handler.doc.title}",
                         read_targets(args.file, targets)))
        return 0
    show(console, args.file, targets)
    return 0


def detect(path: str, override: str | None, command: str) -> registry.FormatHandler:
    """:func:`.registry.detect`, PGN games (which only ``convert`` and ``build`` read) refused saying what a user can
    do with them."""
    from .content import is_pgn

    found = registry.recognise(path) if not override else None
    if found is not None and found.handler is None and (found.what == "PGN text (games)" or is_pgn(path)):
        name = os.path.basename(path)
        raise FormatError(f"PGN games: {command} reads books, bases and Monty data; the games convert to a ChessBase "
                          f"base (chessformats convert {name} -o games.cbh) or a table (-o games.parquet), or build a "
                          f"book (chessformats build {name} -o book.bin)", file=path)
    return registry.detect(path, override)


def check_numbers(path: str, options: dict[str, object]) -> None:
    """The numbers of ``options`` against the numbering of every format (games from 1; records, entries, pages,
    blocks, plies and offsets from 0; counts and lengths 1 or more; an offset inside the file): a refusal says the
    valid range, before any format reads anything."""
    for name, plural in (("record", "records"), ("page", "pages"), ("block", "blocks"), ("ply", "plies")):
        value = options.get(name)
        if isinstance(value, int) and value < 0:
            raise IndexError(f"no such {name}: {value} ({plural} count from 0)")
    game = options.get("game")
    if isinstance(game, int) and game < 1:
        raise IndexError(f"no such game: {game} (games count from 1)")
    for name, unit in (("count", "records"), ("length", "bytes")):
        value = options.get(name)
        if isinstance(value, int) and value < 1:
            raise IndexError(f"--{name} {value}: give 1 or more {unit}")
    offset = options.get("offset")
    if isinstance(offset, int):
        size = os.path.getsize(path)
        if not 0 <= offset < size:
            raise IndexError(f"--offset {offset}: not in {os.path.basename(path)} (its {size:,} bytes are at "
                             f"offsets 0..{size - 1})")


def show(console: Console, path: str, targets: Sequence[registry.InspectTarget]) -> None:
    """Trace each target's bytes with its declaration and print the annotated hex."""
    from ..engine.trace import trace  # construct's tracing: only for the hex view

    for target in targets:
        with open(target.file or path, "rb") as handle:
            handle.seek(target.offset)
            data = handle.read(target.size)
        _, fields = trace(target.declaration, data, offset=target.offset, path=target.path, file=target.file or path)
        from ..codegen.hexview import render

        for line in render(fields, data, base=target.offset, annotations=target.annotations):
            console.print(line)
