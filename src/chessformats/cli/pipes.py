"""Inputs that are not files on disk: ``-`` (standard input), ``/dev/stdin``, a named pipe, a device.

A format is recognised from a file's first bytes and read from the whole file (mapped, or read again), which a
pipe gives only once. So such an input is copied once to a temporary file, deleted when the command ends, named as
its content shows (``stdin.bin`` for a Polyglot book, ``stdin.pgn.gz`` for gzip-compressed PGN, ...: the readers
know some things by the name), and the command reads that. A ChessBase base is several files (``.cbh``, ``.cbg``,
...), which a pipe cannot bring: it is refused (a ``.cbv`` archive, one file, is read).
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING

from ..engine.errors import FormatError

if TYPE_CHECKING:
    import argparse

__all__ = ["INPUTS", "STDIN_HELP", "local", "local_inputs"]

INPUTS = ("file", "book", "source", "games", "first", "second", "archive")
"""The arguments of the commands that name an input (a list for ``build``'s ``games``)."""

STDIN_HELP = ("'-' (or /dev/stdin, a pipe) reads standard input: it is copied once to a temporary file, deleted at "
              "the end (a ChessBase base, several files, cannot come through a pipe; a .cbv archive can)")
"""What the command line's help says of standard input."""

_COPIES: dict[tuple[int, int], str] = {}
"""The temporary copy of each stream the command has read, by its (device, inode): ``-`` and ``/dev/stdin`` are
one (``merge - /dev/stdin`` reads standard input once)."""

_COMPRESSED_NAMES = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}


def local_inputs(args: argparse.Namespace) -> None:
    """Replace, in the parsed arguments, each input by the file every command then reads: a stream (:func:`local`)
    by its temporary copy, a book's name by its first file (:func:`.registry.existing`: ``NAME`` -> ``NAME_0.kob``
    or ``NAME.ctg``). An input that names no file stays as given: the command says so when it reads it (after
    refusing its options: ``build``), in :func:`.registry.existing`'s words."""
    _COPIES.clear()  # (one command's streams: a pipe's inode may be another pipe's in the next command)
    for name in INPUTS:
        value = getattr(args, name, None)
        if isinstance(value, list):
            setattr(args, name, [_named(local(item)) if isinstance(item, str) else item for item in value])
        elif isinstance(value, str):
            setattr(args, name, _named(local(value)))


def _named(path: str) -> str:
    """The file ``path`` names (:func:`.registry.existing`); ``path`` itself when it names none."""
    from .registry import existing

    try:
        return existing(path)
    except FileNotFoundError:
        return path


def local(path: str) -> str:
    """``path`` if it is a file (or a folder, or names none: the command says so); for ``-`` and any other stream,
    the temporary file it was copied to."""
    try:
        status = os.fstat(sys.stdin.fileno()) if path == "-" else os.stat(path)
    except (OSError, ValueError):
        return path
    if path != "-" and (stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode)):
        return path  # ('-' is copied even when a file is redirected into it: its name is not known)
    key = (status.st_dev, status.st_ino)
    if key not in _COPIES:
        _COPIES[key] = _copy(path)
    return _COPIES[key]


def _copy(path: str) -> str:
    import atexit
    import shutil
    import tempfile  # (only for a stream: the command line's start-up imports none of these)

    shown = "standard input" if path == "-" else path
    if path == "-" and sys.stdin.isatty():
        raise FormatError("standard input is a terminal: give a file, or pipe one in (cat FILE | chessformats ...)",
                          file=shown)
    folder = tempfile.mkdtemp(prefix="chessformats-stdin-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copy = os.path.join(folder, "stdin")
    with (open(path, "rb") if path != "-" else os.fdopen(os.dup(sys.stdin.fileno()), "rb")) as source, \
            open(copy, "wb") as target:
        shutil.copyfileobj(source, target, 1 << 20)
    try:
        named = os.path.join(folder, "stdin" + _name(copy, shown))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)  # (refused: gone now, not at exit)
        raise
    os.replace(copy, named)
    return named


def _name(copy: str, shown: str) -> str:
    """The end of the copy's name the readers need: a compression's suffix, a format's extension."""
    from . import registry
    from .content import compression, looks_like_pgn, misnamed_archive

    with open(copy, "rb") as handle:
        head = handle.read(4096)
    packed = compression(head)
    if packed is not None:  # (the only compressed inputs are PGN files)
        return ".pgn" + _COMPRESSED_NAMES[packed]
    if looks_like_pgn(head):
        return ".pgn"
    if misnamed_archive(head):
        return ".cbv"
    found = registry.recognise(copy)
    if found.handler is None:
        return ""
    if found.handler.key == "chessbase":
        raise FormatError("a ChessBase base's .cbh, whose games are in the files beside it (.cbg, ...), which a "
                          "pipe cannot bring: give the .cbh's path (or pipe a .cbv archive)", file=shown)
    if found.handler.key == "kvetka":
        return "_0.kob"  # (the name a Kvetka book is read by)
    return registry.FORMATS[found.handler.key].names[0]
