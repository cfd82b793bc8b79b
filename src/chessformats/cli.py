"""The ``chessformats`` command: tour, info, probe, inspect, docs, formats."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import chess
from rich.console import Console

from . import __version__
from .codegen.hexview import render
from .codegen.markdown import write_docs
from .engine.errors import FormatError
from .engine.trace import trace
from .formats import registry

__all__ = ["main"]

EXAMPLE_GAMES = "example_games.pgn"


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _board(fen: str | None, moves: Sequence[str] | None) -> chess.Board:
    board = chess.Board() if not fen or fen == "startpos" else chess.Board(fen)
    for move in moves or ():
        board.push(board.parse_san(move) if not _is_uci(move) else chess.Move.from_uci(move))
    return board


def _is_uci(text: str) -> bool:
    try:
        chess.Move.from_uci(text)
    except ValueError:
        return False
    return True


def cmd_formats(args: argparse.Namespace) -> int:
    console = _console()
    for handler in registry.all_formats():
        console.print(f"{handler.key:10} {handler.doc.title:32} {', '.join(handler.extensions):12} {handler.status}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    handler = registry.detect(args.file, args.format)
    report = handler.info(args.file)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    console = _console()
    console.print(f"[bold]{args.file}[/bold]: {handler.doc.title}")
    for key, value in report.items():
        if key == "findings":
            continue
        console.print(f"  {key}: {value}")
    findings = report.get("findings") or []
    console.print("  findings: " + ("none" if not findings else ""))
    for finding in findings:
        console.print(f"    - {finding}")
    return 0


def cmd_probe(args: argparse.Namespace) -> int:
    handler = registry.detect(args.book, args.format)
    if handler.probe is None:
        raise FormatError(f"{handler.doc.title} files cannot be probed", file=args.book)
    board = _board(args.fen, args.moves)
    moves = handler.probe(args.book, board)
    if args.json:
        print(json.dumps(moves, indent=2))
        return 0
    console = _console()
    console.print(f"[bold]{board.fen()}[/bold]")
    if not moves:
        console.print("  not in book")
        return 1
    for move in moves:
        extra = "".join(f"  {k}={v}" for k, v in move.items() if k not in ("uci", "san", "weight", "share"))
        console.print(f"  {move['san']:8} {move['uci']:6} weight {move['weight']:6}  {100 * move['share']:5.1f}%"
                      f"[dim]{extra}[/dim]")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    handler = registry.detect(args.file, args.format)
    options = {name: getattr(args, name) for name in registry.INSPECT_OPTIONS if getattr(args, name) is not None}
    if args.fen or args.moves:
        options["fen"] = _board(args.fen, args.moves).fen()
    unsupported = sorted(set(options) - set(handler.inspect_options))
    if unsupported:
        raise FormatError(f"{handler.doc.title}: inspect does not take {', '.join('--' + o for o in unsupported)}"
                          f" (it takes {', '.join('--' + o for o in handler.inspect_options)})", file=args.file)
    _show(_console(), args.file, handler.inspect(args.file, **options))
    return 0


def _show(console: Console, path: str, targets: Sequence[registry.InspectTarget]) -> None:
    """Trace each target's bytes with its declaration and print the annotated hex."""
    with open(path, "rb") as handle:
        for target in targets:
            handle.seek(target.offset)
            data = handle.read(target.size)
            _, fields = trace(target.declaration, data, offset=target.offset, path=target.path, file=path)
            for line in render(fields, data, base=target.offset, annotations=target.annotations):
                console.print(line)


def cmd_docs(args: argparse.Namespace) -> int:
    docs = [h.doc for h in registry.all_formats()]
    written = write_docs(args.out, docs)
    for path in written:
        print(path)
    return 0


def cmd_tour(args: argparse.Namespace) -> int:
    """Build a small book from the bundled games, probe it, show its bytes, generate the docs."""
    from .formats import polyglot
    from .formats.bookstats import BookStats, read_pgn_games

    console = _console()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="chessformats-tour-"))
    out.mkdir(parents=True, exist_ok=True)
    with resources.as_file(resources.files("chessformats.data") / EXAMPLE_GAMES) as games_path:
        stats = BookStats()
        stats.add_games(read_pgn_games(str(games_path)), max_ply=args.max_ply)
    book_path = out / "example.bin"
    count = polyglot.write_book(book_path, polyglot.weights_from_stats(stats))
    console.rule("1. build")
    console.print(f"{stats.games} bundled games, first {args.max_ply} plies -> {len(stats)} positions, "
                  f"{count} entries -> [bold]{book_path}[/bold] ({book_path.stat().st_size} bytes)")

    console.rule("2. probe")
    board = chess.Board()
    for line in ([], ["e4"], ["e4", "e5"]):
        board = _board(None, line)
        with polyglot.open_book(book_path) as book:
            entries = book.probe(board)
        moves = ", ".join(f"{board.san(e.move)} ({e.weight})" for e in entries) or "not in book"
        console.print(f"after {' '.join(line) or 'the start'}: {moves}")

    console.rule("3. inspect: the annotated bytes of the start position's entries")
    handler = registry.get("polyglot")
    _show(console, str(book_path), handler.inspect(str(book_path), fen=chess.STARTING_FEN))

    console.rule("4. info")
    for key, value in handler.info(str(book_path)).items():
        console.print(f"{key}: {value}")

    console.rule("5. docs")
    for path in write_docs(out / "docs", [h.doc for h in registry.all_formats()]):
        console.print(f"generated {path}")
    console.print(f"\nEverything is in {out}. Next: chessformats inspect {book_path} --record 0 --count 3")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chessformats", description=__doc__)
    parser.add_argument("--version", action="version", version=f"chessformats {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def add_format(p: argparse.ArgumentParser) -> None:
        p.add_argument("--format", help="force the format instead of sniffing it (see `chessformats formats`)")

    def add_position(p: argparse.ArgumentParser) -> None:
        p.add_argument("--fen", help="a position as FEN ('startpos' for the start position)")
        p.add_argument("--moves", nargs="+", metavar="MOVE", help="moves (SAN or UCI) played from --fen")

    p = sub.add_parser("tour", help="build, probe, inspect and document a small book from bundled games")
    p.add_argument("--out", help="folder for what the tour writes (default: a new temporary folder)")
    p.add_argument("--max-ply", type=int, default=12, help="plies of each game to put in the book (default 12)")
    p.set_defaults(func=cmd_tour)

    p = sub.add_parser("info", help="format, counts and sanity findings of a file")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_format(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("probe", help="the book moves of a position")
    p.add_argument("book")
    add_position(p)
    p.add_argument("--json", action="store_true", help="print a JSON list (uci, san, weight, share, learn...)")
    add_format(p)
    p.set_defaults(func=cmd_probe)

    p = sub.add_parser("inspect", help="annotated hex dump: every field with its path, value and meaning")
    p.add_argument("file")
    p.add_argument("--record", type=int, help="record number (0-based)")
    p.add_argument("--count", type=int, help="how many records from --record (default 1)")
    p.add_argument("--offset", type=lambda s: int(s, 0), help="byte offset (records overlapping it)")
    p.add_argument("--length", type=lambda s: int(s, 0), help="bytes from --offset")
    p.add_argument("--page", type=int, help="page number, for formats made of pages")
    p.add_argument("--game", type=int, help="game number, for formats made of games")
    p.add_argument("--ply", type=int, help="ply of --game")
    add_position(p)
    add_format(p)
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("docs", help="generate the Markdown format reference from the schemas")
    p.add_argument("--out", required=True, help="folder to write one page per format into")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("formats", help="list the supported formats and their status")
    p.set_defaults(func=cmd_formats)
    return parser


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    print(f"chessformats: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    warnings.showwarning = _show_warning
    try:
        result: Any = args.func(args)
        return int(result or 0)
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except FormatError as exc:
        print(f"chessformats: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, KeyError, IndexError, ValueError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"chessformats: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
