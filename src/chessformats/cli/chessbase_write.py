"""The command line's ``convert`` into a ChessBase base: PGN (.pgn, .pgn.gz/.bz2/.xz/.zst) or another base to
``.cbh``, streamed, with a progress bar on a terminal; ``--append`` adds to an existing base. PGN goes through
:func:`~chessformats.books.chessbase_import.write_database_from_pgn` (plain main lines read in batches, the rest
by python-chess); a base is copied record by record (:func:`~chessformats.formats.chessbase.compact.copy_database`);
appended, its games go through PGN."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from chessformats.books.chessbase_import import write_database_from_pgn
from chessformats.engine.errors import FormatError
from chessformats.formats.chessbase.write import WriteReport, append_games

from .consoles import progress_bar
from .content import is_pgn

if TYPE_CHECKING:
    import chess.pgn

__all__ = ["convert_to_chessbase", "is_pgn"]


def _base_games(path: str, skipped: list[str], encoding: str | None) -> Iterator[chess.pgn.Game]:
    from chessformats.formats.chessbase.database import open_database
    from chessformats.formats.chessbase.games import GameHeader

    with open_database(path, encoding=encoding) as db:
        deleted = db.header_arrays()["deleted"]
        for number in range(1, db.record_count + 1):
            if deleted[number - 1]:
                continue
            try:
                record = db.record(number)
                if not isinstance(record, GameHeader):
                    skipped.append(f"record {number}: a guiding text (not copied yet)")
                    continue
                yield record.to_pgn()
            except FormatError as error:  # a damaged game is reported, the others copied
                skipped.append(f"game {number}: {error}")


def convert_to_chessbase(source: str, target: str, *, append: bool, encoding: str | None, console: Any,
                         from_base: bool, pgn_encoding: str | None = None, shown: str | None = None) -> int:
    """Write the games of ``source`` (PGN or a ChessBase base) into the base ``target`` (``encoding``: the base's
    code page; ``pgn_encoding``: the PGN's, ``None`` for UTF-8 and a game that is not UTF-8 as Windows-1252);
    ``shown``: the name the messages give the base (an archive's, for a base made in a temporary folder)."""
    skipped: list[str] = []
    started = time.perf_counter()
    if from_base and not append:  # record by record: guiding texts, every annotation and entity detail kept
        from chessformats.formats.chessbase.compact import copy_database

        copied = copy_database(source, target)
        console.print(f"{copied.written:,} records copied to {target} in {time.perf_counter() - started:.2f} s")
        for left in copied.skipped[:20]:
            console.print(f"  record {left.item} left out: {left.reason}")
        return _nothing(console, copied.written)
    size = os.path.getsize(source)

    def run(progress: Callable[[int], None] | None) -> WriteReport:
        # what start-up made (modules, tables: a few hundred thousand objects that live to the end) is left out
        # of the cyclic collector's passes while the games are written, then given back
        gc.freeze()
        try:
            if not from_base:
                return write_database_from_pgn(target, source, encoding=encoding, pgn_encoding=pgn_encoding,
                                               append=append, progress=progress)
            games = _base_games(source, skipped, encoding)
            if progress is not None:
                games = _counted(games, progress)
            return append_games(target, games, encoding=encoding)
        finally:
            gc.unfreeze()

    with progress_bar(console, f"converting {os.path.basename(source)}", "{task.completed:,} games") as progress:
        report = run(progress)
    elapsed = time.perf_counter() - started
    console.print(f"{report.written:,} games {'added to' if append else 'written to'} {shown or target} in "
                  f"{elapsed:.2f} s ({report.written / elapsed if elapsed else 0:,.0f} games/s, {size:,} bytes read)")
    problems = skipped + [f"game {left.item}" + (f" (from line {left.line})" if left.line is not None else "")
                          + f": {left.reason}" for left in report.skipped]
    problems += [warning.message for warning in report.warnings]
    for problem in problems[:20]:
        console.print(f"  {problem}")
    if len(problems) > 20:
        console.print(f"  ... and {len(problems) - 20} more")
    return _nothing(console, report.written)


def _nothing(console: Any, written: int) -> int:
    """The exit status of a conversion that wrote ``written`` games or records: 1, said, when it wrote none."""
    if written:
        return 0
    console.print("nothing written: no game of the source could be read")
    return 1


def _counted(games: Iterator[chess.pgn.Game], progress: Callable[[int], None]) -> Iterator[chess.pgn.Game]:
    for count, game in enumerate(games, 1):
        if count % 256 == 0:
            progress(count)
        yield game
