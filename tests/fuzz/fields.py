"""The count, length and pointer fields of a seed, found by tracing the declarations over its files.

Nothing here knows an offset: each format's declarations (``chessformats.schemas.*``) are traced with
:func:`chessformats.engine.trace.trace` over the places where their instances lie (a CTG book's header page
and a few data pages, a ChessBase database's headers, its first games' ``.cbh`` records, game data and
annotation records, a Kvetka book's header, blocks and ``.ksf``), and every integer leaf whose name says
it counts, measures or points (``count``, ``length``, ``size``, ``entries``, ``records``, ``pages``,
``offset``, ``root``, ...) becomes a :class:`Field` the fuzzer can set to a hostile value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SIZE_NAME = re.compile(r"count|length|size|entries|records|pages|games|number|existing|total|units", re.IGNORECASE)
POINTER_NAME = re.compile(r"offset|address|root|left|right|first_deleted|^pages\[|white$|black$|tournament$"
                          r"|annotator$|source$|team$|block", re.IGNORECASE)
_INTEGER = re.compile(r"^[ui](\d+)(?: (BE|LE))?$")
_SAMPLES = 6
"""Instances traced per repeated structure (pages, games): enough to reach every field, cheap to find."""


@dataclass(frozen=True)
class Field:
    """A traced integer field: where it lies, how wide it is, its value in the seed, and what it is."""

    file: str
    path: str
    kind: str
    """``size`` (a count or length) or ``pointer`` (an offset, a record or page number, a link)."""
    start: int
    size: int
    order: str
    """``big``/``little`` for byte-aligned fields; ``bits`` for a field inside a big-endian bit run."""
    bit_start: int
    bit_end: int
    value: int

    @property
    def width(self) -> int:
        return self.bit_end - self.bit_start if self.order == "bits" else 8 * self.size

    def mutation(self, value: int) -> list[Any]:
        if self.order == "bits":
            return ["bits", self.file, self.bit_start, self.bit_end, value]
        return ["int", self.file, self.start, self.size, self.order, value]


def _fields(file: str, declaration: Any, data: bytes, offset: int, **context: Any) -> list[Field]:
    from chessformats.engine.trace import trace

    try:
        _, traced = trace(declaration, data, offset=offset, **context)
    except Exception:  # a seed that does not trace (an unknown variant): no fields from it
        return []
    found = []
    for item in traced:
        if not item.leaf or not isinstance(item.value, int) or isinstance(item.value, bool):
            continue
        kind = "size" if SIZE_NAME.search(item.name) else "pointer" if POINTER_NAME.search(item.path) else None
        if kind is None:
            continue
        if item.bit_start is not None and item.bit_end is not None:
            if item.little_endian:
                continue
            found.append(Field(file, item.path, kind, item.start, item.end - item.start, "bits", item.bit_start,
                               item.bit_end, int(item.value)))
            continue
        match = _INTEGER.match(item.type)
        if match is None or int(match.group(1)) != 8 * (item.end - item.start):
            continue
        order = "little" if match.group(2) == "LE" else "big"
        found.append(Field(file, item.path, kind, item.start, item.end - item.start, order, 8 * item.start,
                           8 * item.end, int(item.value)))
    return found


def _ending(files: dict[str, bytes], *extensions: str) -> list[str]:
    return sorted(name for name in files if name.lower().endswith(extensions))


def locate(reader: str, files: dict[str, bytes]) -> list[Field]:
    """Every count, length and pointer field the declarations find in ``files`` (a seed's original bytes)."""
    finder = {"ctg": _ctg, "kvetka": _kvetka, "chessbase": _chessbase, "archive": _archive}.get(reader)
    return list(finder(files)) if finder is not None else []


def _ctg(files: dict[str, bytes]) -> Iterable[Field]:
    from chessformats.schemas import ctg as schema

    page = schema.PAGE_SIZE
    for name in _ending(files, ".ctg"):
        data = files[name]
        yield from _fields(name, schema.HEADER_PAGE, data[:page], 0)
        pages = len(data) // page - 1
        for number in sorted({*range(min(pages, _SAMPLES)), pages - 1} - {-1}):
            start = page * (number + 1)
            yield from _fields(name, schema.PAGE, data[start:start + page], start)
    for name in _ending(files, ".cto"):
        yield from _fields(name, schema.CTO, files[name], 0)
    for name in _ending(files, ".ctb"):
        yield from _fields(name, schema.CTB, files[name], 0)


def _kvetka(files: dict[str, bytes]) -> Iterable[Field]:
    from chessformats.schemas import kvetka as schema

    for name in _ending(files, "_0.kob"):
        data = files[name]
        traced = _fields(name, schema.HEADER, data, 0)
        yield from traced
        header = max((f.start + f.size for f in traced), default=0)
        header = len(data) % schema.BLOCK_SIZE or header
        for number in range(min(_SAMPLES, (len(data) - header) // schema.BLOCK_SIZE)):
            start = header + number * schema.BLOCK_SIZE
            yield from _fields(name, schema.BLOCK, data[start:start + schema.BLOCK_SIZE], start, keeps_games=True)
    for name in _ending(files, ".ksf"):
        yield from _fields(name, schema.KSF, files[name], 0)


def _chessbase(files: dict[str, bytes]) -> Iterable[Field]:
    from chessformats.schemas import chessbase as schema

    for extension in schema.ENTITY_RECORDS:
        for name in _ending(files, extension):
            yield from _fields(name, schema.ENTITY_HEADER, files[name][:64], 0)
    for name in _ending(files, ".cbj"):
        yield from _fields(name, schema.CBJ_HEADER, files[name][:schema.CBJ_HEADER_SIZE], 0)
    for name in _ending(files, ".cbh"):
        cbh = files[name]
        stem = name[:-4]
        cbg, cba = files.get(stem + ".cbg", b""), files.get(stem + ".cba", b"")
        yield from _fields(name, schema.CBH_HEADER, cbh[:schema.CBH_HEADER_SIZE], 0)
        records = len(cbh) // schema.CBH_RECORD_SIZE - 1
        for number in sorted({*range(1, min(records, _SAMPLES) + 1), records} - {0}):
            start = schema.CBH_RECORD_SIZE * number
            traced = _fields(name, schema.CBH_RECORD, cbh[start:start + schema.CBH_RECORD_SIZE], start)
            yield from traced
            offsets = {f.path: f.value for f in traced}
            text = bool(cbh[start] & 0x02)
            at = offsets.get("cbg_offset")
            if at is not None and at + 4 <= len(cbg):
                size = int.from_bytes(cbg[at:at + 4], "big") & 0xFFFFFF
                declaration = schema.TEXT_DATA if text else schema.GAME_DATA_HEAD
                yield from _fields(stem + ".cbg", declaration, cbg[at:at + size], at)
            at = offsets.get("body.cba_offset")
            if at and at + 14 <= len(cba):
                size = int.from_bytes(cba[at + 10:at + 14], "big")
                yield from _fields(stem + ".cba", schema.ANNOTATION_RECORD, cba[at:at + size], at)


def _archive(files: dict[str, bytes]) -> Iterable[Field]:
    """A ``.cbv``'s header, file table and each file's first block head (a ``.cbz`` is enciphered: none)."""
    from chessformats.schemas.chessbase import cbv

    for name in _ending(files, ".cbv"):
        data = files[name]
        yield from _fields(name, cbv.ARCHIVE_HEADER, data[:cbv.ARCHIVE_HEADER_SIZE], 0)
        count = int.from_bytes(data[2:4], "little")
        position = cbv.ARCHIVE_HEADER_SIZE + count * cbv.ARCHIVE_ENTRY_SIZE
        for number in range(count):
            start = cbv.ARCHIVE_HEADER_SIZE + number * cbv.ARCHIVE_ENTRY_SIZE
            traced = _fields(name, cbv.ARCHIVE_ENTRY, data[start:start + cbv.ARCHIVE_ENTRY_SIZE], start)
            yield from traced
            if position + cbv.BLOCK_HEAD_SIZE <= len(data):
                yield from _fields(name, cbv.BLOCK_HEAD, data[position:position + cbv.BLOCK_HEAD_SIZE], position)
            position += next((f.value for f in traced if f.path == "compressed_size"), 0)
