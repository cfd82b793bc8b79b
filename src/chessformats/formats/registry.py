"""The formats chessformats knows, and how a file's format is recognised.

Each format module registers a :class:`FormatHandler`: its documentation declaration, a sniffer that
scores a file from its content and name, and the functions the command line needs (``info``,
``inspect``, ``probe``). The CLI only talks to handlers, never to a format directly.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import chess
import construct as cs

from ..engine.errors import FormatError, UnsupportedError
from ..engine.schema import FormatDoc

__all__ = [
    "INSPECT_OPTIONS",
    "FormatHandler",
    "InspectTarget",
    "all_formats",
    "detect",
    "for_output",
    "get",
    "register",
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
    doc: FormatDoc
    status: str
    sniff: Callable[[str, bytes, int], int]
    """(path, first bytes, file size) -> 0 (not this format) .. 3 (certainly this format)."""
    info: Callable[[str], dict[str, Any]]
    inspect: Callable[..., list[InspectTarget]]
    probe: Callable[[str, chess.Board], list[dict[str, Any]]] | None = None
    extensions: tuple[str, ...] = field(default=())
    build: Callable[..., int] | None = None
    """``build(path, builder, *, min_games, min_score, only, uniform) -> entries``: write a book built from games."""
    inspect_options: tuple[str, ...] = ("record", "count", "offset", "length", "fen")
    """Which of :data:`INSPECT_OPTIONS` (and ``fen``) this format's ``inspect`` takes as keywords."""
    position: Callable[[str, chess.Board], dict[str, Any] | None] | None = None
    """For books that store facts about a position (statistics): ``(path, board) -> facts`` (``None``: not in
    the book); ``probe`` then prints them above the moves and ``--json`` gives ``{"position", "moves"}``."""


INSPECT_OPTIONS = ("record", "count", "offset", "length", "page", "game", "ply", "player", "block")
"""The ``chessformats inspect`` options passed to a handler's ``inspect`` (when given), besides ``fen``."""


_HANDLERS: dict[str, FormatHandler] = {}
_SNIFF_BYTES = 4096


def with_shares(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add to each probed move its ``share``: its weight over the position's total weight (4 decimals)."""
    total = sum(row["weight"] for row in rows) or 1
    for row in rows:
        row["share"] = round(row["weight"] / total, 4)
    return rows


def register(handler: FormatHandler) -> FormatHandler:
    _HANDLERS[handler.key] = handler
    return handler


_MODULES = ("chessbase", "ctg", "kvetka", "monty", "polyglot")
"""Format modules (``chessformats.formats.<name>``); importing one registers its handler."""


def _load(*names: str) -> None:
    for name in names or _MODULES:
        importlib.import_module(f"{__package__}.{name}")


def all_formats() -> list[FormatHandler]:
    _load()
    return list(_HANDLERS.values())


def get(key: str) -> FormatHandler:
    _load(key) if key in _MODULES else _load()
    try:
        return _HANDLERS[key]
    except KeyError:
        raise UnsupportedError(f"unknown format {key!r} (known: {', '.join(sorted(_HANDLERS))})") from None


def for_output(path: str | os.PathLike[str], override: str | None = None) -> FormatHandler:
    """The handler for a file to be written: ``override``, else by the file's extension."""
    if override:
        return get(override)
    name = os.fspath(path).lower()
    # the usual book extensions are known without importing every format (start-up time of `build`)
    for extension, key in ((".bin", "polyglot"), (".ctg", "ctg"), (".kob", "kvetka")):
        if name.endswith(extension):
            return get(key)
    for handler in all_formats():
        if any(name.endswith(extension) for extension in handler.extensions):
            return handler
    raise UnsupportedError("no format writes files with this extension (use --format)", file=os.fspath(path))


def detect(path: str | os.PathLike[str], override: str | None = None) -> FormatHandler:
    """The handler for a file: ``override`` if given, else the best sniffing score (content + name)."""
    if override:
        return get(override)
    _load()
    name = os.fspath(path)
    with open(name, "rb") as handle:
        head = handle.read(_SNIFF_BYTES)
        size = os.fstat(handle.fileno()).st_size
    scored = sorted(((h.sniff(name, head, size), h.key) for h in _HANDLERS.values()), reverse=True)
    if not scored or scored[0][0] <= 0:
        raise FormatError("not a file of any known format (use --format to force one)", file=name)
    return _HANDLERS[scored[0][1]]
