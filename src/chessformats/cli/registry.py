"""The formats chessformats knows, and how a file's format is recognised.

One static table (:data:`FORMATS`) names, for every format, its declaration module (``schemas/``, which
holds the format's :class:`~chessformats.engine.schema.FormatDoc` and so its file extensions) and its
command-line module (``cli/<format>.py``, which defines ``HANDLER``: a sniffer that scores a file from its
content and name, and the functions the command line needs: ``info``, ``inspect``, ``probe``, ``build``).
Modules are imported when a handler is first asked for; nothing registers itself on import. The CLI only
talks to handlers, never to a format directly.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ..engine.errors import FormatError, UnsupportedError

if TYPE_CHECKING:
    import chess
    import construct as cs

    from ..engine.contract import WriteReport
    from ..engine.schema import FormatDoc

__all__ = [
    "INSPECT_OPTIONS",
    "FormatHandler",
    "InspectTarget",
    "all_formats",
    "detect",
    "for_output",
    "get",
    "with_shares",
]


class InspectTarget(NamedTuple):
    """A stretch of a file for the hex view: what to trace it with, and chess meaning to show beside it."""

    declaration: cs.Construct
    offset: int
    size: int
    path: str
    annotations: dict[str, str]
    file: str | None = None
    """The file the offset refers to, when not the file given on the command line (a database's companion)."""


@dataclass(frozen=True)
class FormatHandler:
    """What the command line can do with one format."""

    key: str
    status: str
    sniff: Callable[[str, bytes, int], int]
    """(path, first bytes, file size) -> 0 (not this format) .. 3 (certainly this format)."""
    info: Callable[[str], dict[str, Any]]
    inspect: Callable[..., list[InspectTarget]]
    probe: Callable[[str, chess.Board], list[dict[str, Any]]] | None = None
    build: Callable[..., WriteReport] | None = None
    """``build(path, builder, *, min_games, min_score, only, uniform) -> report``: write a book built from games."""
    build_needs_boards: bool = True
    """Whether ``build`` needs the positions (boards) of the builder, or keys and counts only (Polyglot)."""
    inspect_options: tuple[str, ...] = ("record", "count", "offset", "length", "fen")
    """Which of :data:`INSPECT_OPTIONS` (and ``fen``) this format's ``inspect`` takes as keywords."""
    position: Callable[[str, chess.Board], dict[str, Any] | None] | None = None
    """For books that store facts about a position (statistics): ``(path, board) -> facts`` (``None``: not in
    the book); ``probe`` then prints them above the moves and ``--json`` gives ``{"position", "moves"}``."""

    @property
    def doc(self) -> FormatDoc:
        """The format's documentation, from its declaration module (imported now: it builds the declarations)."""
        doc: FormatDoc = importlib.import_module(FORMATS[self.key].schema).FORMAT
        return doc

    @property
    def extensions(self) -> tuple[str, ...]:
        """The format's file extensions, from its declaration."""
        return self.doc.extensions


INSPECT_OPTIONS = ("record", "count", "offset", "length", "page", "game", "ply", "player", "block")
"""The ``chessformats inspect`` options passed to a handler's ``inspect`` (when given), besides ``fen``."""


_SNIFF_BYTES = 4096


class _Entry(NamedTuple):
    schema: str
    """The declaration module (``chessformats.schemas.<name>``): its ``FORMAT`` gives title and extensions."""
    cli: str
    """The command-line module (``chessformats.cli.<name>``): its ``HANDLER`` is the format's handler."""
    names: tuple[str, ...]
    """The file extensions of the declaration's ``FORMAT`` (``tests/cli/test_quick_start.py`` keeps them equal):
    an index, so that recognising a file by its name imports no declaration (start-up time)."""


FORMATS: dict[str, _Entry] = {
    "chessbase": _Entry("chessformats.schemas.chessbase", "chessformats.cli.chessbase",
                        (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj", ".cbv", ".cbz")),
    "ctg": _Entry("chessformats.schemas.ctg", "chessformats.cli.ctg", (".ctg", ".cto", ".ctb")),
    "kvetka": _Entry("chessformats.schemas.kvetka", "chessformats.cli.kvetka", (".kob", ".kin", ".ksf")),
    "monty": _Entry("chessformats.schemas.monty", "chessformats.cli.monty", (".montyformat", ".montyvalue")),
    "polyglot": _Entry("chessformats.schemas.polyglot", "chessformats.cli.polyglot", (".bin",)),
}
"""Every format the command line knows: key -> (declaration module, command-line module, extensions)."""


def with_shares(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add to each probed move its ``share``: its weight over the position's total weight (4 decimals)."""
    total = sum(row["weight"] for row in rows) or 1
    for row in rows:
        row["share"] = round(row["weight"] / total, 4)
    return rows


def get(key: str) -> FormatHandler:
    """The handler of a format by its key (``polyglot``, ``ctg``, ...)."""
    try:
        entry = FORMATS[key]
    except KeyError:
        raise UnsupportedError(f"unknown format {key!r} (known: {', '.join(sorted(FORMATS))})") from None
    handler: FormatHandler = importlib.import_module(entry.cli).HANDLER
    return handler


def all_formats() -> list[FormatHandler]:
    return [get(key) for key in FORMATS]


def extensions(key: str) -> tuple[str, ...]:
    """A format's file extensions, as its declaration gives them (without importing its reader)."""
    doc: FormatDoc = importlib.import_module(FORMATS[key].schema).FORMAT
    return doc.extensions


def for_output(path: str | os.PathLike[str], override: str | None = None) -> FormatHandler:
    """The handler for a file to be written: ``override``, else by the file's extension."""
    if override:
        return get(override)
    name = os.fspath(path).lower()
    for key, entry in FORMATS.items():
        if name.endswith(entry.names):
            return get(key)
    raise UnsupportedError("no format writes files with this extension (use --format)", file=os.fspath(path))


def detect(path: str | os.PathLike[str], override: str | None = None) -> FormatHandler:
    """The handler for a file: ``override`` if given, else the best sniffing score (content + name)."""
    if override:
        return get(override)
    name = os.fspath(path)
    with open(name, "rb") as handle:
        head = handle.read(_SNIFF_BYTES)
        size = os.fstat(handle.fileno()).st_size
    # the formats whose extension the name has are asked first (only their handlers are imported); when the
    # content confirms one (a score of 2 or more), the others are not asked
    named = [key for key, entry in FORMATS.items() if name.lower().endswith(entry.names)]
    scored = sorted(((get(key).sniff(name, head, size), key) for key in named), reverse=True)
    if scored and scored[0][0] >= 2:
        return get(scored[0][1])
    scored = sorted(((h.sniff(name, head, size), h.key) for h in all_formats()), reverse=True)
    if not scored or scored[0][0] <= 0:
        raise FormatError("not a file of any known format (use --format to force one)", file=name)
    return get(scored[0][1])
