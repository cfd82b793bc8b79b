"""What the command line writes, checked before anything is read or written: the files a command will make,
whether one of them exists (replaced only with ``--force``, or added to with ``--append``), whether the name is a
folder or the folder cannot be written; and the lock a writer holds on them.

Every command that writes files goes through :func:`planned` before it starts and :func:`writing` around its
write, so that a refused output leaves every file as it was and no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

from ..engine.errors import FormatError
from ..engine.fileio import locked

__all__ = ["EXIT_CODES", "NUMBERING", "OutputError", "files_of", "planned", "planned_in", "say_built", "writing"]

EXIT_CODES = """exit status:
  0  done (probe: the position is in the book, with moves)
  1  nothing found or nothing produced (probe: the position is not in the book or has no book moves;
     convert/build: no game, position or entry written)
  2  error: a wrong command line, an input of the wrong format, damaged or missing, an output refused (exists:
     use --force; a folder; a folder that cannot be written)"""
"""The exit statuses of every command (``grep``'s convention), as the ``--help`` epilogue lists them."""

NUMBERING = """numbering: games count from 1 in every format (--game 1 is the first game: ChessBase's own numbers,
  guiding texts and deleted games included); records, entries, pages, blocks and plies count from 0 (--record 0
  is the first record, as offsets count)."""
"""The one numbering convention of the command line's options, as the ``--help`` epilogue states it."""

_COMPANIONS = {"chessbase": (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj")}
"""The files a ChessBase write makes beside its ``.cbh``."""


class OutputError(FormatError):
    """An output the command refuses to write (it exists, it is a folder, its folder cannot be written)."""


def files_of(path: str | os.PathLike[str], key: str | None) -> list[str]:
    """The files written for ``path`` in the format ``key``, named as each writer names them (a book's companions;
    ``None``: ``path`` alone)."""
    name = os.fspath(path)
    stem, extension = os.path.splitext(name)
    extension = extension.lower()
    if key == "ctg":  # the .ctg as named, its index beside it
        return [name, stem + ".cto", stem + ".ctb"]
    if key == "kvetka":  # NAME, NAME.kob or NAME_0.kob: NAME_0.kob, NAME.kin, NAME.ksf
        if extension in (".kob", ".kin", ".ksf"):
            name = stem[:-2] if extension == ".kob" and stem.endswith("_0") else stem
        # and the NAME_1.kob, NAME_2.kob, ... of an earlier book: the writer makes or removes them
        more = 1
        while os.path.exists(f"{name}_{more}.kob"):
            more += 1
        return [name + "_0.kob", *(f"{name}_{number}.kob" for number in range(1, more)), name + ".kin",
                name + ".ksf"]
    if key == "chessbase":  # NAME, NAME.cbh (or another of its files): NAME.cbh and its companions
        base = stem if extension in _COMPANIONS["chessbase"] else name
        return [base + suffix for suffix in _COMPANIONS["chessbase"]]
    return [name]


def planned(path: str | os.PathLike[str], key: str | None = None, *, force: bool = False,
            append: bool = False) -> list[str]:
    """Check that the command may write ``path`` (in the format ``key``: with its companion files) and return the
    files it will write. Refused, with :class:`OutputError`: a folder, a missing folder, a folder that cannot be
    written, an existing file without ``force`` or ``append``."""
    name = os.fspath(path)
    if os.path.isdir(name):
        raise OutputError("is a folder: give the name of a file to write", file=name)
    folder = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write it: no folder {folder}", file=name)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write it: the folder {folder} is not writable", file=name)
    files = files_of(name, key)
    for file in files:
        if os.path.isdir(file):
            raise OutputError(f"{file} is a folder: give another name", file=name)
    there = [file for file in files if os.path.exists(file)]
    if there and not (force or append):
        shown = ", ".join(os.path.basename(file) for file in there)
        raise OutputError(f"exists ({shown}): --force replaces it" + (", --append adds to it" if key == "chessbase"
                                                                      else ""), file=name)
    return files


def planned_in(folder: str | os.PathLike[str], names: Sequence[str], *, force: bool = False) -> list[str]:
    """Check that the command may write the files ``names`` into ``folder`` (made if missing) and return their
    paths. Refused, with :class:`OutputError`: ``folder`` a file, a file of ``names`` that exists without
    ``force``."""
    name = os.fspath(folder)
    if os.path.exists(name) and not os.path.isdir(name):
        raise OutputError("is a file: give the name of a folder to write into", file=name)
    paths = [os.path.join(name, file) for file in names]
    for path in paths:
        if os.path.isdir(path):
            raise OutputError(f"{os.path.relpath(path, name)} is a folder: give another folder", file=name)
    there = [os.path.relpath(path, name) for path in paths if os.path.exists(path)]
    if there and not force:
        shown = ", ".join(there[:5]) + (f" and {len(there) - 5} more" if len(there) > 5 else "")
        raise OutputError(f"holds files this writes ({shown}): --force replaces them", file=name)
    return paths


@contextlib.contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the output's lock (:func:`~chessformats.engine.fileio.locked`) while the command writes it, so that
    two commands writing the same file run one after the other."""
    with locked(path):
        yield


def say_built(say: Any, games: int, filtered: int, skipped: Sequence[Any], written: int, line: str) -> int:
    """What ``build`` says at the end (``line``: games, rows, what was written where), and its exit code: 1 when
    nothing was written."""
    if filtered:
        say(f"{filtered:,} of the {games:,} games filtered out")
    say(line)
    if skipped:
        say(f"skipped {len(skipped)} games:")
        for game in skipped[:20]:
            say(f"  game {game.number} (offset {game.offset}): {game.reason}")
        if len(skipped) > 20:
            say(f"  ... and {len(skipped) - 20} more")
    if not written:
        say("nothing written: no move reached --min-games (or no game was read)")
        return 1
    return 0

