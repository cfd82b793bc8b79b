"""The command line's ChessBase archives: ``extract``, ``list``, ``convert`` into ``.cbv``/``.cbz``, and the
password of a ``.cbz`` (``--password``, else asked on the terminal)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from chessformats.engine.errors import FormatError

if TYPE_CHECKING:
    from chessformats.formats.chessbase.archive import Archive

__all__ = ["PASSWORD_HELP", "add_archive_parsers", "cmd_extract", "cmd_list", "convert_to_archive", "is_archive_name",
           "password_for", "set_password"]

PASSWORD_HELP = "the password of a .cbz archive (else asked on the terminal)"

_given: dict[str, str | None] = {"password": None}


def set_password(password: str | None) -> None:
    """The password given on the command line (``--password``), for every ``.cbz`` this run opens (``main`` sets
    it before each command runs)."""
    _given["password"] = password


def is_archive_name(path: str) -> bool:
    return path.lower().endswith((".cbv", ".cbz"))


def password_for(path: str) -> str | None:
    """The password to open ``path`` with: ``None`` for anything but a ``.cbz``; ``--password`` if given; else
    asked on the terminal (without echo); with no terminal, an error that says to give ``--password``."""
    if not path.lower().endswith(".cbz"):
        return None
    if _given["password"] is not None:
        return _given["password"]
    if sys.stdin.isatty():
        import getpass

        _given["password"] = getpass.getpass(f"password for {os.path.basename(path)}: ")
        return _given["password"]
    raise FormatError("an enciphered archive (.cbz): give its password with --password", file=path)


def _opened(path: str) -> Archive:
    """The archive ``path`` (``list``, ``extract``): one that is not there said as every command says it."""
    from chessformats.formats.chessbase.archive import open_archive

    from .registry import existing

    existing(path)
    return open_archive(path, password=password_for(path))


def cmd_list(args: argparse.Namespace) -> int:
    """The members of an archive: name and size, one a line (``--json``: a list of objects)."""
    with _opened(args.archive) as archive:
        rows = [{"name": member.path, "size": member.size, "compressed_size": member.compressed_size,
                 "date": member.date, "time": member.time} for member in archive.members]
    if args.json:
        import json

        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        print(f"{row['size']:>12,}  {row['name']}")
    return 0


def add_archive_parsers(sub: Any) -> None:
    """The ``extract`` and ``list`` subcommands."""
    p = sub.add_parser("extract", help="the files of a ChessBase archive (.cbv, .cbz) into a folder")
    p.add_argument("archive", help="the .cbv or .cbz file")
    p.add_argument("members", nargs="*", help="only these members (default: all)")
    p.add_argument("-o", "--output", help="the folder to write into (made if missing; default: .)")
    p.add_argument("--force", action="store_true", help="replace files of the folder that have a member's name")
    p.add_argument("--password", help=PASSWORD_HELP)
    p.set_defaults(func=cmd_extract)

    p = sub.add_parser("list", help="the files of a ChessBase archive (.cbv, .cbz) with their sizes")
    p.add_argument("archive", help="the .cbv or .cbz file")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.add_argument("--password", help=PASSWORD_HELP)
    p.set_defaults(func=cmd_list)


def cmd_extract(args: argparse.Namespace) -> int:
    """Write the members of an archive into a folder (``-o``; default: the current folder). A file of the folder
    that has a member's name is replaced only with ``--force``."""
    started = time.perf_counter()
    folder = args.output or "."
    with _opened(args.archive) as archive:
        try:
            chosen = [archive.member(name) for name in args.members] if args.members else archive.members
        except KeyError as missing:
            raise FormatError(str(missing.args[0]), file=args.archive) from None
        existing = [member.path for member in chosen
                    if os.path.lexists(os.path.join(folder, *member.path.split("/")))]
        if existing and not getattr(args, "force", False):
            raise FormatError(f"{len(existing)} of the files to extract exist in {folder} ({', '.join(existing[:3])}"
                              f"{', ...' if len(existing) > 3 else ''}): give --force to replace them",
                              file=args.archive)
        written = archive.extract(folder, chosen)
    size = sum(os.path.getsize(path) for path in written)
    print(f"{len(written)} files ({size:,} bytes) extracted to {folder} in {time.perf_counter() - started:.2f} s",
          file=sys.stderr)
    return 0


def convert_to_archive(source: str, target: str, *, encoding: str | None, console: Any,
                       source_is_pgn: bool, pgn_encoding: str | None = None) -> int:
    """A base (its ``.cbh`` or an archive) or a PGN file (in ``pgn_encoding``) into the archive ``target``
    (``.cbz``: enciphered with the password)."""
    import tempfile

    from chessformats.formats.chessbase.archive_write import base_files, write_archive

    from .chessbase_write import convert_to_chessbase

    password = password_for(target) if target.lower().endswith(".cbz") else None
    started = time.perf_counter()
    if not source_is_pgn and not is_archive_name(source):
        report = write_archive(target, base_files(source), password=password)
    else:
        with tempfile.TemporaryDirectory(prefix="chessformats-cbv-") as folder:
            stem = os.path.splitext(os.path.basename(target))[0]
            base = os.path.join(folder, stem + ".cbh")
            if source_is_pgn:
                code = convert_to_chessbase(source, base, append=False, encoding=encoding, console=console,
                                            from_base=False, pgn_encoding=pgn_encoding, shown=target)
                if code:  # no game written ('nothing written' said): no archive of an empty base either
                    return code
            else:
                from chessformats.formats.chessbase.archive import open_archive

                with open_archive(source, password=password_for(source)) as archive:
                    archive.extract(folder)
                base = next(os.path.join(folder, name) for name in sorted(os.listdir(folder))
                            if name.lower().endswith(".cbh"))
            report = write_archive(target, base_files(base), password=password)
    console.print(f"{report.summary()} in {time.perf_counter() - started:.2f} s")
    return 0
