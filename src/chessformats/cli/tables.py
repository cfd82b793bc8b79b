"""The command line's ``convert ... -o FILE.parquet``: a ChessBase base (or the base a ``.cbv``/``.cbz`` archive
holds), a PGN file, an opening book (Polyglot, CTG, Kvetka) or Monty training data as a Parquet table, written one
record batch at a time (memory does not grow with the input).

A base gives one row per game (:mod:`chessformats.formats.chessbase.tables`); PGN is first written as a
temporary base in the system's temporary folder (``write_database_from_pgn``, removed afterwards), then read as
one, so its table has a base's columns (tags a base has no field for, such as ``TimeControl``, are not kept); a
book gives one row per position and move (:mod:`chessformats.formats.booktable`); Monty data one row per ply.
Needs ``chessformats[arrow]``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from ..engine.contract import WriteReport, WriteWarning
from ..engine.errors import UnsupportedError
from .consoles import progress_bar

__all__ = ["TABLE_SOURCES", "cmd_parquet", "convert_to_parquet", "require_arrow"]

TABLE_SOURCES = ("chessbase", "ctg", "kvetka", "monty", "polyglot")
"""The formats a Parquet table is written from (and PGN)."""
_UNITS = {"chessbase": "games", "pgn": "games", "monty": "plies", "ctg": "rows", "kvetka": "rows",
          "polyglot": "rows"}


def require_arrow(target: str) -> None:
    """pyarrow is installed, else the error that names the extra (before anything is read or written)."""
    from ..engine.tables import arrow

    try:
        arrow()
    except ImportError as error:
        raise UnsupportedError(str(error), file=target) from None


def convert_to_parquet(source: str, target: str, *, kind: str, encoding: str | None, password: str | None,
                       console: Any) -> WriteReport:
    """Write ``source`` (of the format ``kind``: ``pgn`` or one of :data:`TABLE_SOURCES`) as the Parquet table
    ``target`` (``encoding``: a base's code page, or PGN text's: ``None`` for UTF-8, a game that is not UTF-8 as
    Windows-1252); the report counts rows (games, plies, or positions and moves) and lists the games whose moves
    could not be read (their rows are written, with the reason in ``error``)."""
    from ..engine.tables import write_parquet

    require_arrow(target)
    report = WriteReport(target, unit=_UNITS[kind], files=[target])
    with _opened(source, kind, encoding, password, report) as (reader, total), \
            progress_bar(console, f"converting {os.path.basename(source)}", "{task.completed:,} rows", total) \
            as progress:
        report.written = write_parquet(_checked(reader.iter_batches(), report), target, schema=reader.table_schema(),
                                       progress=progress)
    return report


@contextlib.contextmanager
def _opened(source: str, kind: str, encoding: str | None, password: str | None,
             report: WriteReport) -> Iterator[tuple[Any, int | None]]:
    """The source open as a reader of record batches (and how many rows to expect, when known)."""
    if kind == "pgn":
        from ..books.chessbase_import import write_database_from_pgn
        from ..formats.chessbase import open_database

        folder = tempfile.mkdtemp(prefix="chessformats-table-")
        try:
            cbh = os.path.join(folder, "games.cbh")
            written = write_database_from_pgn(cbh, source, pgn_encoding=encoding)  # (the base: every name kept)
            report.skipped.extend(written.skipped)
            with open_database(cbh) as db:
                yield db, len(db)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    if kind == "chessbase":
        from ..formats.chessbase import open_database

        with open_database(source, encoding=encoding, password=password) as db:
            yield db, len(db)
        return
    opened = _open(source, kind)
    with opened as reader:
        yield reader, None


def _open(source: str, kind: str) -> Any:
    if kind == "polyglot":
        from ..formats.polyglot import open_book

        return open_book(source)
    if kind == "ctg":
        from ..formats.ctg import open_book as open_ctg

        return open_ctg(source)
    if kind == "kvetka":
        from ..formats.kvetka import open_book as open_kvetka

        return open_kvetka(source)
    if kind == "monty":
        from ..formats.monty import open_games

        return open_games(source)
    raise UnsupportedError(f"convert does not write a table of {kind}", file=source)


def _checked(batches: Iterator[Any], report: WriteReport) -> Iterator[Any]:
    """The batches, the games whose moves could not be read (an ``error`` column) noted in the report."""
    for batch in batches:
        names = batch.schema.names
        if "error" in names:
            errors = batch.column(names.index("error"))
            if errors.null_count < len(errors):
                numbers = batch.column(names.index("number")).to_pylist()
                for number, error in zip(numbers, errors.to_pylist(), strict=True):
                    if error is not None:
                        report.warnings.append(WriteWarning(f"game {number}: moves not read ({error})",
                                                            item=number))
        yield batch


def cmd_parquet(source: str, target: str, kind: str, args: Any, console: Any) -> int:
    """``convert SOURCE -o TARGET.parquet``: the table written, a summary and the games not read on stderr; exit 1
    when no row was written."""
    from .archive import password_for

    started = time.perf_counter()
    encoding = args.pgn_encoding if kind == "pgn" else args.encoding
    report = convert_to_parquet(source, target, kind=kind, encoding=encoding, password=password_for(source),
                                console=console)
    elapsed = time.perf_counter() - started
    console.print(f"{report.summary()} in {elapsed:.2f} s")
    if kind == "monty" and report.written:  # the command line's games count from 1, the table's as the file's
        console.print("  the table's game column counts from 0, as the file and the library do: game 0 is "
                      "inspect --game 1")
    problems = [f"game {left.item}" + (f" (from line {left.line})" if left.line is not None else "") +
                f": {left.reason}" for left in report.skipped] + [warning.message for warning in report.warnings]
    for problem in problems[:20]:
        console.print(f"  {problem}")
    if len(problems) > 20:
        console.print(f"  ... and {len(problems) - 20} more")
    if not report.written:
        console.print("nothing written: the source has no row to write")
        return 1
    return 0
