"""Writing Kvetka books: elements sorted by key into blocks, the ``.kob`` files split as Kvetka splits them, the
``.kin`` index and the ``.ksf`` sources.

Elements come from a book (:class:`~.read.KvetkaBook`) or are made by hand (:class:`~.model.Element`); a book
from the format-neutral statistics model is :func:`chessformats.books.kvetka.write_book`.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Sequence

from ...engine.codec import codec
from ...engine.contract import WriteReport, WriteWarning, collect_warnings
from ...engine.fileio import atomic_write_set
from ...schemas import kvetka as schema
from .model import Element, fit
from .read import BLOCK_SIZE, SUPPORTED_TYPE, USED, USED_SIZE, KvetkaBook
from .sources import KvetkaSource, ksf_bytes

__all__ = ["ALL_PLIES", "DEFAULT_FILE_LIMIT", "WriteResult", "write_book"]

ALL_PLIES: int = codec(schema.HEADER_END).field("max_move").mask
"""``max_move`` meaning every ply of a game (the field's largest value)."""

DEFAULT_FILE_LIMIT = 20 * 1024 * 1024
"""The spec's ".kob files are split once one passes 20 MB" (read as 20 MiB)."""

_BLOCK_ROOM = BLOCK_SIZE - USED_SIZE


class WriteResult(WriteReport):
    """What :func:`write_book` wrote: the contract's :class:`~chessformats.contract.WriteReport` (``written``: the
    elements; ``counts["blocks"]``; ``files``: the ``.kob`` files, the ``.kin``, the ``.ksf``), with the names it
    had before the contract kept for a deprecation period."""

    def _old(self, name: str, new: str) -> None:
        warnings.warn(f"WriteResult.{name} is deprecated: use {new}", DeprecationWarning, stacklevel=3)

    @property
    def elements(self) -> int:
        self._old("elements", "written")
        return self.written

    @property
    def blocks(self) -> int:
        self._old("blocks", "counts['blocks']")
        return self.counts["blocks"]

    @property
    def kob_paths(self) -> list[str]:
        self._old("kob_paths", "files")
        return [name for name in self.files if name.lower().endswith(".kob")]

    @property
    def kin_path(self) -> str:
        self._old("kin_path", "files")
        return next(name for name in self.files if name.lower().endswith(".kin"))

    @property
    def ksf_path(self) -> str | None:
        self._old("ksf_path", "files")
        return next((name for name in self.files if name.lower().endswith(".ksf")), None)


def _blocks(encoded: Sequence[bytes]) -> list[list[int]]:
    """Element indices per block: each block filled in key order until the next element does not fit."""
    blocks: list[list[int]] = []
    room = 0
    for index, data in enumerate(encoded):
        if not blocks or len(data) > room:
            blocks.append([])
            room = _BLOCK_ROOM
        blocks[-1].append(index)
        room -= len(data)
    return blocks


def _split_files(header_size: int, blocks: int, limit: int) -> list[int]:
    """Blocks per ``.kob`` file, as Kvetka's rule makes them: blocks are added to the last file; once a file
    passes ``limit`` bytes it is split at a block boundary into two files of about equal size."""
    files = [0]
    for _ in range(blocks):
        files[-1] += 1
        base = header_size if len(files) == 1 else 0
        count = files[-1]
        if base + BLOCK_SIZE * count > limit and count >= 2:
            best = min(range(1, count), key=lambda k: abs(base + BLOCK_SIZE * k - BLOCK_SIZE * (count - k)))
            files[-1:] = [best, count - best]
    return files


def write_book(path: str | os.PathLike[str], book: KvetkaBook | Iterable[Element], *, caption: str = "",
               sources: Sequence[KvetkaSource] | None = None, max_move: int = ALL_PLIES,
               elo_filters: tuple[int, int, int, int] = (0, 0, 0, 0), links: int = 0,
               file_limit: int = DEFAULT_FILE_LIMIT) -> WriteResult:
    """Write a Kvetka book ``NAME_0.kob`` (``_1``, ... past ``file_limit`` bytes), ``NAME.kin`` and, with
    ``sources``, ``NAME.ksf``, as one: every file goes to a temporary file, all are flushed, then all renamed
    (a writer killed before that leaves the old book whole). ``path`` is ``NAME``, ``NAME.kob`` or ``NAME_0.kob``.

    ``book`` is an open :class:`KvetkaBook` (rewritten: header, elements and sources as read) or elements.
    Elements are sorted by key (the first of equal keys wins), truncated to the spec's limits (comment 300
    characters, element 682 bytes) and packed into blocks in order; stale ``NAME_k.kob`` files of a
    previous, longer book and a stale ``.ksf`` are removed.
    """
    keeps_games = sources is not None
    if isinstance(book, KvetkaBook):
        elements = list(book.elements())
        caption = caption or book.caption
        header = book.header
        max_move, links = header.max_move, header.links
        elo_filters = (header.least_white_elo, header.least_black_elo, header.least_strong_elo,
                       header.least_weak_elo)
        keeps_games = book.keeps_games
        if sources is None and book.sources is not None:
            sources = book.source_games()
    else:
        elements = list(book)
    if sources is not None or any(e.source is not None or e.game_links is not None for e in elements):
        keeps_games = True  # element_type bit 0: references are kept (a .ksf is optional, the spec says)
    unique: dict[bytes, Element] = {}
    for element in elements:
        unique.setdefault(element.key, element)
    encoded = [fit(unique[key], keeps_games)[1] for key in sorted(unique)]
    keys = sorted(unique)
    layout = _blocks(encoded)
    header_bytes = schema.HEADER.build({
        "type": SUPPORTED_TYPE, "caption": caption, "least_white_elo": elo_filters[0],
        "least_black_elo": elo_filters[1], "least_strong_elo": elo_filters[2], "least_weak_elo": elo_filters[3],
        "max_move": min(max_move, ALL_PLIES), "element_type": {"unused": 0, "game_links": keeps_games}, "links": links,
        "block_number": len(layout)})
    block_data = []
    for members in layout:
        body = b"".join(encoded[index] for index in members)
        used = USED_SIZE + len(body)
        block_data.append(USED.encode(used) + body + bytes(BLOCK_SIZE - used))
    stem = _output_stem(path)
    files = _split_files(len(header_bytes), len(block_data), file_limit)
    kob_paths = [f"{stem}_{number}.kob" for number in range(len(files))]
    kin_path = stem + ".kin"
    ksf_path = stem + ".ksf" if sources is not None else None
    said: list[WriteWarning] = []
    with collect_warnings(said):  # names written with '?'
        ksf = ksf_bytes(sources) if sources is not None else None
    with atomic_write_set() as open_file:  # every file flushed first, then all renamed: a kill keeps the old book
        first = 0
        for number, count in enumerate(files):
            handle = open_file(kob_paths[number])
            if number == 0:
                handle.write(header_bytes)
            for data in block_data[first:first + count]:
                handle.write(data)
            first += count
        handle = open_file(kin_path)
        for members in layout:
            handle.write(keys[members[0]])
        if ksf_path is not None and ksf is not None:
            open_file(ksf_path).write(ksf)
    stale = len(files)
    while os.path.exists(f"{stem}_{stale}.kob"):
        os.unlink(f"{stem}_{stale}.kob")
        stale += 1
    if ksf_path is None and os.path.exists(stem + ".ksf"):
        os.unlink(stem + ".ksf")
    return WriteResult(kob_paths[0], len(encoded), "elements",
                       [*kob_paths, kin_path, *([ksf_path] if ksf_path is not None else [])],
                       counts={"blocks": len(block_data)}, warnings=said)


def _output_stem(path: str | os.PathLike[str]) -> str:
    name = os.fspath(path)
    stem, extension = os.path.splitext(name)
    if extension.lower() in (".kob", ".kin", ".ksf"):
        found = re.fullmatch(r"(.*)_0", stem, re.DOTALL) if extension.lower() == ".kob" else None
        return found.group(1) if found is not None else stem
    return name
