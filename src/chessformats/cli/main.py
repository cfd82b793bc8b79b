"""The ``chessformats`` command: tour, info, probe, inspect, build, merge, convert, docs, export, formats."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import time
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..engine.errors import FormatError
from . import registry
from .archive import PASSWORD_HELP, add_archive_parsers, set_password
from .arguments import PGN_ENCODING_HELP, Deprecated, at_least, code_page, end_moves, pgn_encoding
from .building import BUILT, check_build, reduced
from .consoles import console as _console  # (the tests replace it to draw on a terminal)
from .consoles import plain, terminal
from .distributed import add_dask_options, build_reduced
from .failures import INTERNAL_ERROR
from .inspecting import PATHS
from .inspecting import show as _show
from .outputs import EXIT_CODES, NUMBERING, planned, planned_in, say_built, writing
from .pipes import STDIN_HELP, local_inputs

__all__ = ["DESCRIPTION", "EPILOG", "build_parser", "main"]

DESCRIPTION = ("Read, write, probe, inspect and convert the binary files of the chess world: Polyglot, CTG and "
               "Kvetka opening books, ChessBase bases, Monty training data. Each input's format is recognised "
               "from its content (the extension is a hint; --format/--from force one); an output's format "
               "follows its extension (or --to). An existing output is replaced only with --force. An input "
               f"{STDIN_HELP}.")
EPILOG = f"{EXIT_CODES}\n{INTERNAL_ERROR}\n\n{NUMBERING}\n{PATHS}"
"""The ``--help`` epilogue of every command: exit statuses and the numbering convention."""

EXAMPLE_GAMES = "example_games.pgn"


if TYPE_CHECKING:
    import chess
    from rich.console import Console

    from ..books.filters import GameFilter
    from .consoles import PlainConsole


def _board(fen: str | None, moves: Sequence[str] | None) -> chess.Board:
    from .positions import board_of  # (python-chess is not imported by commands that need no board)

    return board_of(fen, moves)


def cmd_formats(args: argparse.Namespace) -> int:
    """Each format: its files, what the library does with it, and the commands that read it (from what each command
    takes, not from the handler's words)."""
    console = _console()
    for handler in registry.all_formats():
        console.print(f"{handler.key:10} {handler.doc.title:32} {', '.join(handler.extensions):12} {handler.status}")
        console.print(f"{'':10} commands: {_commands_of(handler)}")
    return 0


def _commands_of(handler: registry.FormatHandler) -> str:
    from .convert import BOOKS
    from .tables import TABLE_SOURCES

    key = handler.key
    targets = [book for book in BOOKS if book != key] if key in BOOKS else \
        ["pgn", "chessbase", ".cbv/.cbz"] if key == "chessbase" else []
    targets += ["parquet"] if key in TABLE_SOURCES else []
    commands = ["info", "inspect", *(["probe"] if handler.probe is not None else [])]
    commands += ["build (writes it)" if key in BUILT else "build (reads its games)" if key == "chessbase" else ""]
    commands += [f"convert (to {', '.join(targets)})"] if targets else []
    commands += ["merge"] if key == "polyglot" else []
    commands += ["list, extract (.cbv, .cbz)"] if key == "chessbase" else []
    return ", ".join(command for command in commands if command)


def cmd_info(args: argparse.Namespace) -> int:
    from .inspecting import detect

    handler = detect(args.file, args.format, "info")
    waiting = terminal(_console(stderr=True))
    if waiting is not None:  # info reads every record (a big CTG: seconds): a spinner says it is working
        from rich.text import Text

        with waiting.status(Text(f"reading {os.path.basename(args.file)}")):
            report = handler.info(args.file)
    else:
        report = handler.info(args.file)
    if args.json:
        import json

        print(json.dumps(report, indent=2))
        return 0
    console = _console()
    console.print(f"[bold]{plain(args.file)}[/bold]: {handler.doc.title}")
    for key, value in report.items():
        if key == "findings":
            continue
        console.print(f"  {key}: {value}", markup=False)
    findings = report.get("findings") or []
    console.print("  findings: " + ("none" if not findings else ""))
    for finding in findings:
        console.print(f"    - {finding}", markup=False)
    return 0


def cmd_probe(args: argparse.Namespace) -> int:
    handler = registry.detect(args.book, args.format)
    if handler.probe is None:
        raise FormatError(f"{handler.doc.title} files cannot be probed", file=args.book)
    board = _board(args.fen, args.moves)
    moves = handler.probe(args.book, board)  # (a book's name is its first file already: pipes.local_inputs)
    position = handler.position(args.book, board) if handler.position is not None else None
    if args.json:
        shown: Any = moves if handler.position is None else {"fen": board.fen(), "position": position, "moves": moves}
        import json

        print(json.dumps(shown, indent=2))
        return 0 if moves else 1  # the exit status does not depend on the output's form
    from .probeview import show_probe

    show_probe(_console(), board.fen(), position, moves, verbose=args.verbose)
    if not moves:  # exit status 1 for every format (grep's "nothing found")
        _console().print("  no book moves" if position is not None else "  not in book")
        return 1
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from .inspecting import inspect_command

    return inspect_command(args, _board(args.fen, args.moves).fen() if args.fen or args.moves else None, _console())


def cmd_docs(args: argparse.Namespace) -> int:
    docs = [h.doc for h in registry.all_formats()]
    from ..codegen.markdown import write_docs

    planned_in(args.output, [f"{doc.key}.md" for doc in docs], force=args.force)
    written = write_docs(args.output, docs)
    for path in written:
        print(path)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write the declarations of a format (or ``all``) for another tool: Kaitai Struct ``.ksy`` or ImHex ``.hexpat``."""
    from ..codegen.filetypes import FORMATS

    formats = list(FORMATS) if args.format_key == "all" else [args.format_key]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        raise FormatError(f"unknown format {unknown[0]!r} (known: {', '.join(FORMATS)}, all)")
    from ..codegen.filetypes import file_types

    suffix = ".hexpat" if args.tool == "imhex" else ".ksy"
    planned_in(args.output, [kind.id + suffix for key in formats for kind in file_types(key)], force=args.force)
    if args.tool == "imhex":
        from ..codegen.imhex import write_imhex as write
    else:
        from ..codegen.kaitai import write_kaitai as write
    for path in write(args.output, formats):
        print(path)
    return 0


def cmd_tour(args: argparse.Namespace) -> int:
    """Build a small book from the bundled games, probe it, show its bytes, generate the docs."""
    import tempfile
    from importlib import resources
    from pathlib import Path

    import chess

    from ..books.build import BookBuilder
    from ..books.polyglot import make_book
    from ..formats import polyglot

    console = _console()
    if args.output:  # the book and the docs
        planned_in(args.output, ["example.bin", *(os.path.join("docs", f"{handler.key}.md")
                                                   for handler in registry.all_formats())], force=args.force)
    out = Path(args.output) if args.output else Path(tempfile.mkdtemp(prefix="chessformats-tour-"))
    out.mkdir(parents=True, exist_ok=True)
    builder = BookBuilder(max_ply=args.max_ply)
    with resources.as_file(resources.files("chessformats.data") / EXAMPLE_GAMES) as games_path:
        builder.add_pgn(games_path)
    book_path = out / "example.bin"
    # polyglot make-book -min-game 1: every move with a point
    count = make_book(book_path, builder, min_games=1).written
    console.rule("1. build")
    console.print(f"{builder.games} bundled games, first {args.max_ply} plies -> {len(builder.to_stats())} positions, "
                  f"{count} entries -> [bold]{plain(book_path)}[/bold] ({book_path.stat().st_size} bytes)")

    console.rule("2. probe")
    for line in ([], ["e4"], ["e4", "e5"]):
        board = _board(None, line)
        with polyglot.open_book(book_path) as book:
            entries = list(book.find_all(board, minimum_weight=0))
        moves = ", ".join(f"{board.san(e.move)} ({e.weight})" for e in entries) or "not in book"
        console.print(f"after {' '.join(line) or 'the start'}: {moves}")

    console.rule("3. inspect: the annotated bytes of the start position's entries")
    handler = registry.get("polyglot")
    _show(console, str(book_path), handler.inspect(str(book_path), fen=chess.STARTING_FEN))

    console.rule("4. info")
    for key, value in handler.info(str(book_path)).items():
        console.print(f"{key}: {value}", markup=False)

    console.rule("5. docs")
    from ..codegen.markdown import write_docs

    for path in write_docs(out / "docs", [h.doc for h in registry.all_formats()]):
        console.print(f"generated {path}", markup=False)
    console.print(f"\nEverything is in {out}. Next: chessformats inspect {book_path} --record 0 --count 3",
                  markup=False)
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    """Build an opening book from PGN games (the output format follows the extension of -o, or --to)."""
    handler = registry.for_output(args.output, args.to, writers=BUILT, command="build")
    assert handler.build is not None
    check_build(args, handler.key)
    planned(args.output, handler.key, force=args.force)
    console = _console(stderr=True)
    say: Any = console.print
    # the build keeps millions of small objects alive to the end and makes no reference cycles: the
    # cyclic garbage collector would only rescan them (a full pass costs more than writing the book).
    # It is switched on again afterwards: `main` also runs inside other programs (and the tests), where a
    # collector left off keeps every reference cycle made later (the test suite grew to 10 GB)
    collecting = gc.isenabled()
    gc.disable()
    try:
        with writing(args.output):
            return _build(args, handler, console, say)
    finally:
        if collecting:
            gc.enable()


def _build(args: argparse.Namespace, handler: registry.FormatHandler, console: Console | PlainConsole,
           say: Any) -> int:
    """The build of ``cmd_build``, with the cyclic garbage collector off."""
    from ..books.build import BookBuilder, table_rows

    assert handler.build is not None

    builder = BookBuilder(max_ply=args.max_ply, game_filter=_game_filter(args), boards=handler.build_needs_boards,
                          table_rows=None if args.memory == 0 else table_rows(args.memory),
                          spill_dir=args.spill_dir)
    started = time.perf_counter()
    jobs = 1 if args.no_parallel else max(1, args.jobs)
    bar = None
    screen = terminal(console)
    if screen is not None:
        from .buildbar import BuildBar

        bar = BuildBar(screen, args.games)
    if reduced(args, handler.key):
        return build_reduced(args, say, started, bar, _game_filter(args))
    with bar.shown() if bar is not None else contextlib.nullcontext():
        if args.dask is not None:
            from ..books.distributed import build_book

            build_book(args.games, scheduler=None if args.dask == "local" else args.dask, workers=args.dask_workers,
                       builder=builder, progress=bar.update if bar is not None else None)
        else:
            from .archive import password_for

            for index, source in enumerate(args.games):
                builder.add_file(source, jobs=jobs, password=password_for(source),
                                 progress=bar.for_file(index, source, builder) if bar is not None else None)
    only = True if args.only_white else False if args.only_black else None
    options: dict[str, Any] = {"sources": args.games} if args.sources else {}
    if args.pgn_encoding is not None:  # (check_build: with --sources, a .kob book)
        options["pgn_encoding"] = args.pgn_encoding
    report = handler.build(args.output, builder, min_games=args.min_games, min_score=args.min_score / 100.0,
                           only=only, uniform=args.uniform, **options)
    elapsed = time.perf_counter() - started
    rows = len(builder)  # (counted while the book was written)
    builder.close()  # the spilled counts, if any
    games = builder.games - builder.not_games
    if builder.not_games:
        say(f"{builder.not_games:,} records of the bases are not games (guiding texts, deleted games): left out")
    return say_built(say, games, builder.filtered, builder.skipped, report.written,
                     f"{games:,} games, {rows:,} positions x moves, {report.written:,} {report.unit} written to "
                     f"{report.path} in {elapsed:.2f} s")


def _game_filter(args: argparse.Namespace) -> GameFilter:
    from ..books.filters import GameFilter

    return GameFilter.of(min_rating=args.min_rating, time_controls=args.time_control, variants=args.variant)


def cmd_merge(args: argparse.Namespace) -> int:
    """Merge two Polyglot books as ``polyglot merge-book`` does."""
    from ..formats.polyglot import merge_books

    for book in (args.first, args.second):
        registry.require(book, ("polyglot",), "merge")
    registry.for_output(args.output, writers=("polyglot",), command="merge")
    planned(args.output, "polyglot", force=args.force)
    with writing(args.output):
        report = merge_books(args.first, args.second, args.output)
    print(report.summary())
    return 0 if report.written else 1


def cmd_convert(args: argparse.Namespace) -> int:
    """Convert a book or a base (see :mod:`.convert`)."""
    from .convert import cmd_convert as convert
    from .convert import writes_base

    args.writes_base = writes_base(args)  # (writing a base ends the process: see _ends_process)
    return convert(args, _console(stderr=True))


class _Skipped:
    """Stands for the parser of a command that is not the one run: making all of them costs start-up time."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        return None

    def add_mutually_exclusive_group(self, *args: Any, **kwargs: Any) -> _Skipped:
        return self

    def set_defaults(self, **kwargs: Any) -> None:
        return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only``, the arguments of that command alone (the others are not made)."""
    parser = argparse.ArgumentParser(prog="chessformats", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"chessformats {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)

    made: list[str] = []

    class _Commands:
        @staticmethod
        def add_parser(name: str, **kwargs: Any) -> Any:
            if only is not None and name != only:
                return _Skipped()
            made.append(name)
            kwargs.setdefault("description", kwargs.get("help"))
            return subparsers.add_parser(name, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                                         **kwargs)

    sub = _Commands()

    def add_format(p: argparse.ArgumentParser) -> None:
        p.add_argument("--format", help="read the input as this format instead of recognising it from its content "
                       "(see `chessformats formats`)")

    def add_position(p: argparse.ArgumentParser) -> None:
        p.add_argument("--fen", help="a position as FEN ('startpos' for the start position)")
        p.add_argument("--moves", nargs="+", metavar="MOVE", action="extend",
                       help="moves (SAN or UCI) played from --fen; they end at the first word that is not a move "
                            "(a file name after them is the input)")

    def add_output(p: argparse.ArgumentParser, what: str, *, required: bool = True, old: str | None = None) -> None:
        # with an old spelling, argparse cannot require one of the two: main() says it is missing
        p.add_argument("-o", "--output", required=required and old is None, help=what)
        if old is not None:  # the spelling before -o/--output: kept working, not shown
            p.add_argument(old, dest="output", action=Deprecated, help=argparse.SUPPRESS)
            p.set_defaults(output_required=required)
        p.add_argument("--force", action="store_true", help="replace the output if it exists")

    p = sub.add_parser("tour", help="build, probe, inspect and document a small book from bundled games")
    add_output(p, "folder for what the tour writes (default: a new temporary folder)", required=False, old="--out")
    p.add_argument("--max-ply", type=int, default=12, help="plies of each game to put in the book (default 12)")
    p.set_defaults(func=cmd_tour)

    p = sub.add_parser("info", help="format, counts and sanity findings of a file")
    p.add_argument("file", help="the file (a base or a book: any of its files)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--password", help=PASSWORD_HELP)
    add_format(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("probe", help="the book moves of a position")
    p.add_argument("book", help="the book (Polyglot, CTG, Kvetka)")
    add_position(p)
    p.add_argument("--json", action="store_true", help="print JSON: the moves (uci, san, weight, share, and what the "
                   "format stores: learn, codes, results...), with the position's facts for CTG and Kvetka")
    p.add_argument("--verbose", "-v", action="store_true", help="also show how the format stores the answer (raw "
                   "codes, entry numbers, rating sums, offsets)")
    add_format(p)
    p.set_defaults(func=cmd_probe)

    p = sub.add_parser("inspect", help="annotated hex dump: every field with its path, value and meaning")
    p.add_argument("file", help="the file (any format: see `chessformats formats`)")
    p.add_argument("--record", type=int, help="record or entry number, from 0 (.cto: page entry number; a "
                   "ChessBase .cbh: record 0 is its header, record N game N; .cbp, .cbt, ...: their own records; "
                   ".cbv: its file table)")
    p.add_argument("--count", type=int, help="how many records from --record (default 1)")
    p.add_argument("--offset", type=lambda s: int(s, 0), help="byte offset (records overlapping it)")
    p.add_argument("--length", type=lambda s: int(s, 0), help="bytes from --offset")
    p.add_argument("--page", type=int, help="page number, from 0, for formats made of pages (CTG)")
    p.add_argument("--game", type=int, help="game number, from 1, for formats made of games (ChessBase: the "
                   "base's own numbers; Monty: the file's games[N-1], as its API and table count from 0)")
    p.add_argument("--ply", type=int, help="ply of --game, from 0")
    p.add_argument("--player", help="a player's name (Last, First), for databases with a player index")
    p.add_argument("--block", type=int, help="block number, from 0, for formats made of blocks (Kvetka)")
    p.add_argument("--html", metavar="OUT.html", help="write one self-contained HTML page (hex coloured by field, "
                   "the tree of fields, boards) instead of printing")
    p.add_argument("--force", action="store_true", help="replace the --html page if it exists")
    p.add_argument("--password", help=PASSWORD_HELP)
    add_position(p)
    add_format(p)
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("build", help="build an opening book from games (like polyglot make-book)")
    p.add_argument("games", nargs="+",
                   help="PGN files (.pgn, .pgn.gz, .pgn.bz2, .pgn.xz or .pgn.zst) or ChessBase databases (.cbh or "
                        "another of their files)")
    add_output(p, "the book to write: .bin (Polyglot), .ctg (CTG), .kob (Kvetka); its extension picks the format")
    p.add_argument("--to", choices=BUILT, help="the book's format, whatever the extension of -o")
    p.add_argument("--format", dest="to", action=Deprecated, help=argparse.SUPPRESS)
    p.add_argument("--max-ply", type=int, default=1024, help="plies of each game to use (default 1024)")
    p.add_argument("--min-games", type=at_least(0), default=3, help="games a move needs to enter the book (default 3)")
    p.add_argument("--min-score", type=float, default=0.0,
                   help="score in percent a move needs for the side that plays it (default 0)")
    side = p.add_mutually_exclusive_group()
    side.add_argument("--only-white", action="store_true", help="only moves of white")
    side.add_argument("--only-black", action="store_true", help="only moves of black")
    p.add_argument("--uniform", action="store_true", help="every move weight 1 (a .bin book only)")
    p.add_argument("--sources", action="store_true",
                   help="record the PGN files as the book's sources (a .kob book only: writes NAME.ksf)")
    p.add_argument("--pgn-encoding", type=pgn_encoding, metavar="NAME", help=PGN_ENCODING_HELP + " (for the "
                   "players' names --sources records: the moves read the same whatever the encoding)")
    p.add_argument("--jobs", type=at_least(1), default=2, help="processes reading games (default 2)")
    p.add_argument("--no-parallel", action="store_true", help="read with one process (same as --jobs 1)")
    add_dask_options(p)
    p.add_argument("--password", help=PASSWORD_HELP)
    p.add_argument("--memory", type=int, default=16, metavar="MIB",
                   help="memory for new counts of positions and moves (default 16: peak about 140 MiB with --jobs 2); "
                        "beyond it the counts of positions with fewer than 8,192 games go to a temporary folder, "
                        "merged back as the book is written (the same book); with --dask, a reducer's key range of "
                        "more events is cut into sub-ranges counted one at a time; 0: keep all in memory")
    p.add_argument("--spill-dir", metavar="DIR", help="where counts beyond --memory go, and a reducer's sub-ranges "
                   "(default: the system's temporary folder)")
    p.add_argument("--min-rating", type=int, metavar="N",
                   help="only games where WhiteElo and BlackElo are both >= N (games missing one are left out)")
    p.add_argument("--time-control", metavar="LIST",
                   help="only games of these lichess categories (ultraBullet, bullet, blitz, rapid, classical, "
                        "correspondence; by base + 40 x increment) or exact TimeControl tags, comma-separated: "
                        "blitz,rapid,180+2")
    p.add_argument("--variant", default="standard,chess960,fromposition", metavar="LIST",
                   help="Variant tags to keep, comma-separated, or 'any' (default: the games played by the rules "
                        "of chess: standard, chess960, fromposition)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("merge", help="merge two Polyglot books (like polyglot merge-book)")
    p.add_argument("first", help="the first book (its learn values win for shared moves)")
    p.add_argument("second", help="the second book")
    add_output(p, "the merged book (.bin)")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("convert", help="convert a book between CTG, Kvetka and Polyglot (every direction), a "
                       "ChessBase base to PGN, PGN (.pgn, .pgn.gz/.bz2/.xz/.zst) or a base to a ChessBase base; "
                       "a base, PGN, a book or Monty data to a Parquet table")
    p.add_argument("source", help="the book or database to read (its format recognised from its content)")
    p.add_argument("target", nargs="?", help="the file to write (or -o; not both)")
    add_output(p, "the file to write, its format from its extension: .bin (Polyglot), .ctg (CTG), .kob (Kvetka) "
               "from a book; .pgn from a ChessBase base; .cbh (a ChessBase base) from PGN or a base; .parquet (a "
               "table: one row per game, position and move, or ply; needs chessformats[arrow]) from a base, PGN, a "
               "book or Monty data", required=False)
    p.add_argument("--no-annotations", action="store_true", help="ChessBase -> PGN: moves and variations only")
    p.add_argument("--append", action="store_true", help="-> ChessBase: add the games to the base TARGET")
    p.add_argument("--encoding", type=code_page, metavar="NAME", help="the code page of a ChessBase base's names and "
                   "texts (one byte a character, ASCII as ASCII; or utf-8): of the base read (default: measured; else "
                   "UTF-8, else cp1252), of the base written (default: cp1252 where it holds the text, else UTF-8); "
                   "not the PGN's (--pgn-encoding)")
    p.add_argument("--pgn-encoding", type=pgn_encoding, metavar="NAME", help=PGN_ENCODING_HELP + " (PGN -> ChessBase, "
                   "archive, table)")
    p.add_argument("--from", dest="source_format", help="read SOURCE as this format (ctg, kvetka, polyglot, "
                   "chessbase, pgn; monty for a table) instead of recognising it")
    p.add_argument("--to", dest="target_format", help="write this format (ctg, kvetka, polyglot, chessbase, pgn, "
                   "parquet) whatever the extension")
    p.add_argument("--password", help=PASSWORD_HELP)
    p.set_defaults(func=cmd_convert)

    add_archive_parsers(sub)

    p = sub.add_parser("docs", help="generate the Markdown format reference from the schemas")
    add_output(p, "folder to write one page per format into", old="--out")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("export", help="write a format's declarations for other tools (Kaitai Struct .ksy, ImHex "
                       ".hexpat)")
    p.add_argument("format_key", metavar="FORMAT", help="a format (see `chessformats formats`) or 'all'")
    p.add_argument("--to", dest="tool", choices=("kaitai", "imhex"), required=True, help="the tool to write for")
    add_output(p, "folder to write the files into", old="--out")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("formats", help="list the supported formats and their status")
    p.set_defaults(func=cmd_formats)
    if not made:  # ``only`` is no command: the whole parser, which says so and lists them
        return build_parser()
    return parser


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    print(f"chessformats: warning: {message}", file=sys.stderr)


def _ends_process(args: argparse.Namespace) -> bool:
    """Whether the command has closed every file it wrote when it returns (:func:`_end_process` may end the
    program): ``build``, and ``convert`` to a ChessBase base."""
    return args.func is cmd_build or (args.func is cmd_convert and getattr(args, "writes_base", False))


def _end_process(code: int) -> None:
    """End the program now: exit handlers run and output is flushed, but the interpreter's teardown (freeing every
    module and the build's millions of objects, ~20 ms: a tenth of a small build; numpy, python-chess and the
    ChessBase writer's modules, ~40 ms of a conversion's CPU time) is skipped. Only when ``main`` is the program
    (no ``argv`` given) and its command has closed every file it wrote (:func:`_ends_process`)."""
    import atexit

    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = end_moves(list(sys.argv[1:] if argv is None else argv))
    command = arguments[0] if arguments and not arguments[0].startswith("-") else None
    parser = build_parser(command)
    args = parser.parse_args(arguments)
    if getattr(args, "output_required", False) and args.output is None:
        parser.error(f"{args.command}: the following arguments are required: -o/--output")
    warnings.showwarning = _show_warning
    set_password(getattr(args, "password", None))  # every command that opens a .cbz takes --password
    try:
        local_inputs(args)  # '-', /dev/stdin, a pipe: copied to a temporary file (cli/pipes.py)
        result: Any = args.func(args)
        if argv is None and _ends_process(args):
            _end_process(int(result or 0))
        return int(result or 0)
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # one line for a user's error (2), a traceback for a bug (3): see .failures
        from .failures import report

        return report(exc)


if __name__ == "__main__":
    sys.exit(main())
