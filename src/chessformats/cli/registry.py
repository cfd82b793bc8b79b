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
    "clamped",
    "detect",
    "existing",
    "for_output",
    "forced",
    "get",
    "recognise",
    "require",
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


def clamped(first: int, count: int, last: int, what: str) -> range:
    """``count`` numbers from ``first`` when the last there is is ``last``: fewer past the end, with a warning
    saying so (every format's ``inspect --count``: ``what`` names the numbered things, ``game``, ``entry``...)."""
    if first <= last < first + count - 1:
        import warnings

        warnings.warn(f"--count {count} from {what} {first}: the last is {last} ({last - first + 1} shown)",
                      stacklevel=3)
    return range(first, min(first + count, last + 1))


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
    """Add to each probed move its ``share``: its weight over the position's total weight (4 decimals); when every
    weight is 0 (moves that only lost, in a book of results), its games over the games of all."""
    key = "weight" if any(row["weight"] for row in rows) or not any(row.get("games") for row in rows) else "games"
    total = sum(row.get(key) or 0 for row in rows) or 1
    for row in rows:
        row["share"] = round((row.get(key) or 0) / total, 4)
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


def for_output(path: str | os.PathLike[str], override: str | None = None, *,
               writers: tuple[str, ...] | None = None, command: str = "build") -> FormatHandler:
    """The handler for a file to be written: ``override``, else by the file's extension; ``writers``: the formats
    the command writes (an extension of another format, or of none, is refused, naming the ones it writes)."""
    allowed = tuple(FORMATS) if writers is None else writers
    if override:
        if override not in allowed:
            raise UnsupportedError(f"{command} does not write {override} (it writes {', '.join(allowed)})",
                                   file=os.fspath(path))
        return get(override)
    name = os.fspath(path).lower()
    for key in allowed:
        if name.endswith(FORMATS[key].names):
            return get(key)
    raise UnsupportedError(f"{command} does not write files named like this: it writes "
                           f"{', '.join(output_names(allowed))}", file=os.fspath(path))


def output_names(keys: tuple[str, ...]) -> list[str]:
    """The extensions a book or base of each format is written under (its first, main file)."""
    return [FORMATS[key].names[0] for key in keys]


class Found(NamedTuple):
    """What a file was recognised as: its handler (``None``: no format) and a few words saying what it holds."""

    handler: FormatHandler | None
    what: str
    path: str
    """The file read (a Kvetka book named ``NAME.kob`` is ``NAME_0.kob``)."""
    misnamed: bool = False
    """Whether ``what`` says the file is of a known kind under a name its reader cannot take (and its new name)."""


def existing(path: str | os.PathLike[str]) -> str:
    """``path``, or the file a format's own naming gives it, as the readers take a book's name: ``NAME`` or
    ``NAME.kob`` -> ``NAME_0.kob`` (a Kvetka book's first file), ``NAME`` -> ``NAME.ctg``. A path that names no file
    either way (a link to no file neither) is a :class:`FileNotFoundError` naming what was looked for: the command
    line's one "no such file" (:func:`.pipes.local_inputs` resolves every input with it, and every command checks
    its inputs with it before it opens one)."""
    name = os.fspath(path)
    if os.path.exists(name):
        return name
    stem, extension = os.path.splitext(name)
    kob = f"{stem}_0{extension}" if extension.lower() == ".kob" else f"{name}_0.kob"
    tried = [kob] if extension.lower() == ".kob" else [kob, f"{name}.ctg"]
    for candidate in tried:
        for spelling in (candidate, candidate[:-4] + candidate[-4:].upper()):  # (NAME_0.KOB, as DOS wrote them)
            if os.path.exists(spelling):
                return spelling
    if extension and extension.lower() != ".kob":  # a file's name, not a book's: as every command says it
        raise FileNotFoundError(f"{name}: no such file")
    raise FileNotFoundError(f"{name}: no such file (nor {' or '.join(os.path.basename(t) for t in tried)})")


_GENERIC = (".bin",)
"""Extensions too common to claim binary data the content does not confirm (a ``.bin`` is any binary file)."""


def recognise(path: str | os.PathLike[str]) -> Found:
    """Recognise a file by its content (each format's sniff), its extension breaking ties; a file no format
    recognises gets ``handler=None`` and a description (:func:`.content.describe`)."""
    from .content import BINARY, describe, misnamed

    name = existing(path)
    if os.path.isdir(name):
        return Found(None, "a folder", name)
    with open(name, "rb") as handle:
        head = handle.read(_SNIFF_BYTES)
        size = os.fstat(handle.fileno()).st_size
    # the formats whose extension the name has are asked first (only their handlers are imported); when the
    # content confirms one (a score of 2 or more), the others are not asked
    named = [key for key, entry in FORMATS.items() if name.lower().endswith(entry.names)]
    scored = sorted(((get(key).sniff(name, head, size), True, key) for key in named), reverse=True)
    if not scored or scored[0][0] < 2:
        scored = sorted(((h.sniff(name, head, size), h.key in named, h.key) for h in all_formats()), reverse=True)
    if not scored or scored[0][0] <= 0:
        advice = misnamed(name, head)
        if advice is not None:
            return Found(None, advice, name, misnamed=True)
        what = describe(name, head, size)
        if len(named) == 1 and what == BINARY and not name.lower().endswith(_GENERIC):
            # binary data that only a name of one format claims (a damaged Monty file, say): its reader says what is
            # wrong, and inspect shows its bytes
            return Found(get(named[0]), FORMATS_TITLES[named[0]] + " (damaged?)", name)
        return Found(None, what, name)
    key = scored[0][2]
    damaged = " (damaged?)" if scored[0][0] == 1 else ""
    return Found(get(key), FORMATS_TITLES[key] + damaged, name)


def detect(path: str | os.PathLike[str], override: str | None = None) -> FormatHandler:
    """The handler for a file: ``override`` if given (:func:`forced`), else the format its content shows
    (:func:`recognise`)."""
    if override:
        return forced(path, override)
    found = recognise(path)
    if found.handler is None:
        from .content import EMPTY

        empty = next((key for key in _EMPTY_BOOKS if found.what == EMPTY and found.path.lower().endswith(
            FORMATS[key].names)), None)
        if empty is not None:  # (as `polyglot make-book`, and build, write a book of no entries)
            return get(empty)
        if found.misnamed:
            raise FormatError(found.what, file=os.fspath(path))
        raise FormatError(f"not a file of any known format ({found.what}; --format forces one)",
                          file=os.fspath(path))
    return found.handler


def forced(path: str | os.PathLike[str], key: str) -> FormatHandler:
    """The handler of the format ``key`` a command was told to read ``path`` as (``--format``, ``--from``). A
    ChessBase archive named otherwise than ``.cbv`` is refused for ``chessbase``, saying what to rename it: the
    archive's reader knows it by its name (a base's reader would look for a ``.cbh`` beside it)."""
    handler = get(key)
    name = existing(path)
    if key == "chessbase" and os.path.isfile(name):
        from .content import misnamed, misnamed_archive

        with open(name, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
        said = misnamed(name, head) if misnamed_archive(head) else None
        if said is not None:
            raise FormatError(said, file=name)
    return handler


_EMPTY_BOOKS = ("polyglot",)
"""The formats an empty file is a valid book of (no entries): read as one when named like one, by the commands
that read a book (info, probe, inspect; merge and convert refuse it: an empty input is more often a mistake)."""


def require(path: str | os.PathLike[str], keys: tuple[str, ...], command: str,
            override: str | None = None) -> FormatHandler:
    """The handler for an input of ``command``, which reads the formats ``keys``: a file of another format, or of
    none, is refused in one line that says what it is."""
    if override:
        return get(override)
    found = recognise(path)
    if found.handler is not None and found.handler.key in keys:
        return found.handler
    wanted = " or ".join(FORMATS_TITLES.get(key, key) for key in keys)
    reads = ", ".join(_PLURALS.get(key, key) for key in keys)
    raise FormatError(f"{found.what}, not {wanted}: {command} reads {reads}", file=os.fspath(path))


FORMATS_TITLES = {"chessbase": "a ChessBase base", "ctg": "a CTG book", "kvetka": "a Kvetka book",
                  "monty": "Monty training data", "polyglot": "a Polyglot book"}
"""How a message names a format it found or wanted (without importing its declarations)."""
_PLURALS = {"chessbase": "ChessBase bases", "ctg": "CTG books", "kvetka": "Kvetka books", "monty": "Monty files",
            "polyglot": "Polyglot books"}
