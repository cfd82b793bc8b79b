"""The command line's ``convert``: a book to another book format (CTG, Kvetka, Polyglot), a ChessBase base to PGN,
PGN or a base to a ChessBase base. The source's format is recognised from its content, the target's from its
extension (or ``--to``); an output the command does not write is refused, listing the ones it does."""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..engine.errors import FormatError, UnsupportedError
from . import registry
from .consoles import progress_bar, terminal
from .outputs import files_of, planned, writing

__all__ = ["BOOKS", "GAMES_READ", "TARGETS", "cmd_convert", "source_kind", "writes_base"]

BOOKS = ("ctg", "kvetka", "polyglot")
"""The book formats ``convert`` reads and writes."""

TARGETS = {".bin": "polyglot", ".ctg": "ctg", ".kob": "kvetka", ".cbh": "chessbase", ".pgn": "pgn",
           ".cbv": "archive", ".cbz": "archive", ".parquet": "parquet"}
"""What ``convert`` writes, by the target's extension (``.pgn``: from a ChessBase base; ``.cbv``/``.cbz``: a
ChessBase archive, from a base or PGN; ``.parquet``: a table, from a base, PGN, a book or Monty data)."""


def _target_format(target: str, given: str | None) -> str:
    if given is not None:
        if given not in TARGETS.values():
            kinds = ", ".join(dict.fromkeys(TARGETS.values()))
            raise UnsupportedError(f"convert does not write {given} (it writes {kinds})", file=target)
        return given
    lower = target.lower()
    for extension, key in TARGETS.items():
        if lower.endswith(extension):
            return key
    if lower.endswith((".cto", ".ctb", ".kin", ".ksf")):
        return "ctg" if lower.endswith((".cto", ".ctb")) else "kvetka"
    raise UnsupportedError("convert does not write files named like this: it writes .bin (Polyglot), .ctg (CTG), "
                           ".kob (Kvetka) from a book; .pgn from a ChessBase base; .cbh (a ChessBase base) and "
                           ".cbv/.cbz (a ChessBase archive) from PGN or a base; .parquet (a table) from a base, PGN, "
                           "a book or Monty data", file=target)


def writes_base(args: argparse.Namespace) -> bool:
    """Whether ``convert`` with these arguments writes a ChessBase base (whose writer has closed every file it
    wrote when it returns)."""
    target = args.target if args.target is not None else args.output
    try:
        return target is not None and _target_format(target, args.target_format) == "chessbase"
    except FormatError:
        return False


GAMES_READ = "PGN files (.pgn, .pgn.gz/.pgn.bz2/.pgn.xz/.pgn.zst) and ChessBase bases"
"""What ``build`` (and ``convert``) read games from, as a refusal says it: a compressed file by its full name (the
compression is known by the name, and a PGN file's by ``.pgn`` before it)."""

_WRITES = {"pgn": ("chessbase", "archive", "parquet"), "chessbase": ("pgn", "chessbase", "archive", "parquet"),
           **{book: (*BOOKS, "parquet") for book in BOOKS}, "monty": ("parquet",)}
"""What ``convert`` writes from each source it reads."""
_WRITTEN = {"polyglot": ".bin (Polyglot)", "ctg": ".ctg (CTG)", "kvetka": ".kob (Kvetka)",
          "chessbase": ".cbh (a ChessBase base)", "pgn": ".pgn", "archive": ".cbv/.cbz (a ChessBase archive)",
          "parquet": ".parquet (a table)"}
"""How a message names what ``convert`` writes."""


def source_kind(path: str, given: str | None, target: str) -> str:
    """What the source of ``convert`` is (``given``: ``--from``; else from its content: ``pgn``, ``chessbase``, a
    book's format, ``monty``); refused, saying what the command does with it, when it cannot become ``target``."""
    registry.existing(path)  # (no such file: said first, whatever --from says)
    if given is not None:
        if given not in _WRITES:
            raise UnsupportedError(f"convert reads no {given} (--from takes {', '.join(_WRITES)})", file=path)
        if given == "chessbase":
            registry.forced(path, given)  # (a renamed archive: said)
        kind, what = given, "PGN text (games)" if given == "pgn" else registry.FORMATS_TITLES[given]
    else:
        try:
            kind = games_source(path, "convert")
        except FormatError:
            found = registry.recognise(path)
            if found.handler is None or found.handler.key not in _WRITES:
                raise FormatError(f"{found.what}: convert reads PGN files, ChessBase bases, Polyglot, CTG and Kvetka "
                                  "books, and Monty data (to a table)", file=path) from None
            kind = found.handler.key
        what = "PGN text (games)" if kind == "pgn" else registry.FORMATS_TITLES[kind]
    if target in _WRITES[kind]:
        return kind
    writes = [_WRITTEN[key] for key in _WRITES[kind]]
    text = f"{what}: convert writes it to {', '.join(writes[:-1]) + ' or ' if len(writes) > 1 else ''}{writes[-1]}"
    text += f", not to {_WRITTEN[target]}"
    if kind in ("pgn", "chessbase") and target in BOOKS:
        text += f"; to build a book of its games: chessformats build {path} -o BOOK"
    elif kind in BOOKS and target in ("pgn", "chessbase", "archive"):
        text += ": a book holds positions and moves, no games"
    raise UnsupportedError(text, file=path)


def cmd_convert(args: argparse.Namespace, console: Any) -> int:
    """Convert a book to another format (CTG, Kvetka, Polyglot; a ChessBase database to PGN; PGN or a base to a
    ChessBase base); the source's format from its content, the target's from its extension."""
    if args.target is not None and args.output is not None and \
            os.path.abspath(args.target) != os.path.abspath(args.output):
        raise FormatError(f"two files to write: TARGET {args.target} and -o {args.output} (give one)",
                          file=args.source)
    if args.target is None:
        args.target = args.output
    if args.target is None:
        raise FormatError("convert needs a file to write (TARGET or -o)", file=args.source)
    target_key = _target_format(args.target, args.target_format)
    kind = source_kind(args.source, args.source_format, target_key)
    if args.append and target_key != "chessbase":
        raise FormatError("--append is for ChessBase bases (TARGET .cbh)", file=args.target)
    _check_encodings(args, kind, target_key)
    if target_key == "parquet":
        return _convert_to_table(args, console, kind)
    if kind == "chessbase":
        check_companions(args.source)
        _measure_encoding(args, console)
    if target_key == "archive":
        from .archive import convert_to_archive

        if kind == "pgn":  # the base made first takes the archive's name
            from ..formats.chessbase.archive_write import stored_name

            stored_name(os.path.splitext(os.path.basename(args.target))[0] + ".cbh", args.target)
        planned(args.target, None, force=args.force)
        with writing(args.target):
            return convert_to_archive(args.source, args.target, encoding=args.encoding, console=console,
                                      source_is_pgn=kind == "pgn", pgn_encoding=args.pgn_encoding)
    if target_key == "chessbase":
        from .chessbase_write import convert_to_chessbase

        planned(args.target, "chessbase", force=args.force, append=args.append)
        with writing(args.target):
            return convert_to_chessbase(args.source, args.target, append=args.append, encoding=args.encoding,
                                        console=console, from_base=kind == "chessbase", pgn_encoding=args.pgn_encoding)
    if target_key == "pgn":
        planned(args.target, None, force=args.force)
        with writing(args.target):
            return _convert_chessbase(args, console)
    from ..books.convert import convert_book

    planned(args.target, target_key, force=args.force)
    with writing(args.target), _book_progress(console, args.source) as progress:
        report = convert_book(args.source, args.target, source_format=kind,
                              target_format=target_key, progress=progress)
    print(report.summary())
    unreached = report.counts.get("not reached", 0)
    if unreached:
        stored = {"polyglot": "entries", "ctg": "records", "kvetka": "elements"}[kind]
        console.print(f"warning: {unreached:,} {stored} of {args.source} are not reached from the start position, "
                      "even through a move outside the book between book moves: they are left out")
    if not report.written:
        console.print("nothing written: no position of the source is reached from the start position")
        return 1
    return 0


def _check_encodings(args: argparse.Namespace, kind: str, target_key: str) -> None:
    """``--pgn-encoding`` is for a PGN source; ``--encoding`` for a base read or written (a PGN file's table goes
    through a temporary base, whose code page is no concern of the user's)."""
    if args.pgn_encoding is not None and kind != "pgn":
        raise FormatError("--pgn-encoding is the encoding of PGN text read: the source is "
                          f"{registry.FORMATS_TITLES.get(kind, kind)} (--encoding: a ChessBase base's code page)",
                          file=args.source)
    if args.encoding is not None and kind == "pgn" and target_key == "parquet":
        raise FormatError("--encoding is a ChessBase base's code page: for the PGN file's, --pgn-encoding",
                          file=args.source)


def _convert_to_table(args: argparse.Namespace, console: Any, kind: str) -> int:
    """``convert SOURCE -o TABLE.parquet`` (:mod:`.tables`) of a source of ``kind``."""
    from .tables import cmd_parquet, require_arrow

    require_arrow(args.target)
    if kind == "chessbase":
        check_companions(args.source)
        _measure_encoding(args, console)
    planned(args.target, None, force=args.force)
    with writing(args.target):
        return cmd_parquet(args.source, args.target, kind, args, console)


@contextlib.contextmanager
def _book_progress(console: Any, source: str) -> Iterator[Callable[[str, int], None] | None]:
    """A progress line for a book conversion on a terminal (positions walked, then writing); none elsewhere."""
    screen = terminal(console)
    if screen is None:
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), TimeElapsedColumn(), console=screen,
                  transient=True) as bar:
        task = bar.add_task(f"reading {os.path.basename(source)}")
        last = [""]  # the stage drawn last

        def update(stage: str, count: int) -> None:
            # a new stage is drawn at once (a fast walk can end between two of the bar's own refreshes)
            first, last[0] = last[0] != stage, stage
            if stage == "reading":
                bar.update(task, description=f"reading {os.path.basename(source)}: {count:,} positions",
                           refresh=first)
            else:
                bar.update(task, description=f"writing {count:,} positions", refresh=first)

        yield update


def games_source(path: str, command: str) -> str:
    """``"pgn"`` or ``"chessbase"``: what a file of games is, by its content (PGN text, perhaps compressed, or a
    ChessBase base); anything else is refused, saying what it is. PGN is told from its first bytes alone (a
    build imports no format's reader)."""
    from .content import compression, is_pgn, looks_like_pgn

    registry.existing(path)  # (no such file)
    if not os.path.isdir(path):
        with open(path, "rb") as handle:
            head = handle.read(4096)
        if looks_like_pgn(head) or (compression(head) is not None and is_pgn(path)):
            return "pgn"
    found = registry.recognise(path)
    if found.handler is not None and found.handler.key == "chessbase":
        return "chessbase"
    said = f"{found.what}:" if found.misnamed else f"{found.what}, not games:"  # (misnamed: what to rename it)
    raise FormatError(f"{said} {command} reads {GAMES_READ}", file=path)


def check_companions(path: str) -> None:
    """A base whose ``.cbg`` (the games' moves) is missing is refused, naming the file; the other missing
    companions are said (what is lost without them) and the command goes on. An archive (``.cbv``, ``.cbz``) holds
    its files: they are checked when it is opened."""
    from .archive import is_archive_name

    if is_archive_name(path):
        return
    from .chessbase import missing_companions

    missing = missing_companions(path)
    for extension, lost in missing:
        if extension == ".cbg":
            raise FormatError(f"no {os.path.basename(files_of(path, 'chessbase')[1])} beside it: {lost}", file=path)
    for extension, lost in missing:
        import warnings

        warnings.warn(f"{path}: no {extension}: {lost}", stacklevel=2)


def _measure_encoding(args: argparse.Namespace, console: Any) -> None:
    """Without ``--encoding``, the base's texts are read in the code page they measure as (a Russian base's comments
    in cp1251, not cp1252), and the command says so."""
    if args.encoding is not None:
        return
    from ..formats.chessbase import open_database
    from ..formats.chessbase.codepage import base_code_page
    from .archive import password_for

    with open_database(args.source, password=password_for(args.source)) as db:
        measured = base_code_page(db)
    if measured is not None and measured != "cp1252":  # (cp1252 is how texts that are not UTF-8 are read anyway)
        args.encoding = measured
        console.print(f"texts read as {measured}: their bytes measure as {_NAMES.get(measured, measured)} "
                      "(--encoding overrides)")


_NAMES = {"cp1251": "Cyrillic (Windows-1251)"}


def _convert_chessbase(args: argparse.Namespace, console: Any) -> int:
    """A ChessBase database to PGN, with a progress bar on a terminal; games that cannot be read are reported."""
    from ..formats.chessbase import export_pgn
    from .archive import password_for

    password = password_for(args.source)

    started = time.perf_counter()
    with progress_bar(console, f"converting {os.path.basename(args.source)}", "{task.completed}/{task.total}") \
            as report:
        written, failed = export_pgn(args.source, args.target, annotations=not args.no_annotations,
                                     encoding=args.encoding, progress=report, password=password)
    console.print(f"{written:,} games written to {args.target} in {time.perf_counter() - started:.2f} s")
    for error in failed[:20]:
        console.print(f"  skipped: {error}")
    if len(failed) > 20:
        console.print(f"  ... and {len(failed) - 20} more")
    if not written:
        console.print("nothing written: the base has no game that could be read")
        return 1
    return 0
