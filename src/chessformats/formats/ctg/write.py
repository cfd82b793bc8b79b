"""Writing CTG books: records into pages, and the ``.cto`` directory and ``.ctb`` bounds that find them.

Records come from a book (:meth:`~.read.CtgBook.records`) or :func:`~.model.make_record`; a book from the
format-neutral statistics model is :func:`chessformats.books.ctg.write_book`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ...engine.bitorder import REVERSED_BYTES
from ...engine.codec import codec
from ...engine.contract import WriteReport
from ...engine.derived import derivation
from ...engine.fileio import atomic_write_set
from ...schemas import ctg as schema
from .model import PAGE_CAPACITY, PAGE_HEADER, PAGE_HEADER_SIZE, PositionRecord
from .position import MAX_LEVEL, ctg_hash, highest_entry_read

__all__ = ["write_book", "write_hashed"]

_ENCODE_CTO = derivation(schema.CTO).encoder(codec(schema.CTO).encode)
"""The ``.cto`` file from (header, pages, trailing): its entry count derived from the pages, the fields left
``None`` their declared defaults (:mod:`~chessformats.engine.derived`)."""


class _Layout(NamedTuple):
    pages: list[list[bytes]]
    directory: list[int]
    lower_bound: int
    upper_bound: int


def _layout(items: Sequence[tuple[int, bytes]]) -> _Layout:
    """Pages and ``.cto`` table for records ``(hash of the encoded position, record bytes)``: the dbm scheme.

    The directory is dbm's binary trie over the hash bits, lowest bit first: node ``c = (hash & n) + n``
    at level ``k`` (``n = 2**k - 1``). A node whose records fill more than a page is split by the next
    bit; the root is always split, so that readers that start at ``n = 1`` find every position. Leaves
    are packed into pages in trie order, several small leaves sharing a page. See the format notes.
    """
    import numpy as np

    # the records in trie order: by the hash's bits read from the lowest (a node's records are then a run; a
    # leaf's are taken in their own order)
    records = [record for _, record in items]
    hashes = np.array([value for value, _ in items], dtype=np.int64) & 0xFFFFFFFF
    reverse_byte = np.frombuffer(REVERSED_BYTES, dtype=np.uint8).astype(np.int64)
    reversed_hashes = sum(reverse_byte[hashes >> (8 * k) & 255] << (24 - 8 * k) for k in range(4))
    order = np.argsort(reversed_hashes, kind="stable")
    ranked = reversed_hashes[order]
    ends = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(np.array([len(record) for record in records], dtype=np.int64)[order], out=ends[1:])
    leaves: list[tuple[int, int, list[bytes], int]] = []  # (level, node, records, bytes)
    interior: list[int] = []
    stack = [(0, 0, 0, len(items))]  # level, bits, first and end of the node's run
    while stack:
        level, bits, first, end = stack.pop()
        node = bits + (1 << level) - 1
        size = int(ends[end] - ends[first])
        if level >= 1 and size <= PAGE_CAPACITY:
            leaves.append((level, node, [records[i] for i in np.sort(order[first:end]).tolist()], size))
            continue
        if level >= MAX_LEVEL or (end - first and ranked[first] == ranked[end - 1] and level >= 1):
            raise ValueError("too many positions share one hash to fit in a page")
        interior.append(node)
        split = first + int(np.searchsorted(ranked[first:end], (int(ranked[first]) if end > first else 0)
                                            >> (32 - level) << (32 - level) | 1 << (31 - level)))
        stack.append((level + 1, bits | 1 << level, split, end))
        stack.append((level + 1, bits, first, split))
    used = [leaf for leaf in leaves if leaf[2]]
    lower = (1 << min((leaf[0] for leaf in used), default=1)) - 1
    upper = max(interior) + 1
    pages: list[list[bytes]] = []
    room = 0
    page_of: dict[int, int] = {}
    for _, node, leaf_records, size in used:  # trie order (zero before one): next fit
        if not pages or size > room:
            pages.append([])
            room = PAGE_CAPACITY
        pages[-1].extend(leaf_records)
        room -= size
        page_of[node] = len(pages) - 1
    directory = [-1] * (highest_entry_read(lower, upper) + 1)
    for node, page in page_of.items():
        directory[node] = page
    return _Layout(pages, directory, lower, upper)


def write_book(path: str | os.PathLike[str], records: Iterable[PositionRecord], *,
               games: int | None = None) -> WriteReport:
    """Write a CTG book: ``path`` (``.ctg``) and its ``.cto`` and ``.ctb``, as one; return the
    :class:`~chessformats.contract.WriteReport` (``written``: the records; ``counts["pages"]``).

    ``records``: from a book's :meth:`~.read.CtgBook.records`, :func:`~.model.make_record`, ... Records of
    the same position are merged (the first one wins). ``games`` goes into the header (default: the
    largest game count of a record).
    """
    records = list(records)
    unique: dict[bytes, bytes] = {}
    for record in records:
        if not record.signature:
            raise ValueError("a record needs its encoded position (use make_record)")
        unique.setdefault(record.signature, record.to_bytes())
    if games is None:
        games = max((r.games for r in records), default=0)
    return write_hashed(path, [(ctg_hash(encoded), record) for encoded, record in unique.items()], games=games)


def write_hashed(path: str | os.PathLike[str], items: Sequence[tuple[int, bytes]], *, games: int) -> WriteReport:
    """Write a CTG book of records given as ``(hash of the encoded position, record bytes)``, one per position
    (:func:`write_book` once the records are encoded and merged; a bulk writer that hashes in batch)."""
    layout = _layout(items)
    stem = os.path.splitext(os.fspath(path))[0]
    with atomic_write_set() as open_file:  # the three files replaced together, once all are on the disk
        cto, ctb, ctg = open_file(stem + ".cto"), open_file(stem + ".ctb"), open_file(path)
        # fields whose meaning is unknown: the declarations' defaults (what the known books hold)
        cto.write(_ENCODE_CTO(((None, None, None, layout.lower_bound), layout.directory, None)))  # (header, pages)
        ctb.write(schema.CTB.build({"lower_bound": layout.lower_bound, "upper_bound": layout.upper_bound}))
        ctg.write(schema.HEADER_PAGE.build({"data_pages": len(layout.pages), "positions": len(items),
                                            "games": games}))
        for page in layout.pages:
            body = b"".join(page)
            ctg.write(PAGE_HEADER.pack(len(page), PAGE_HEADER_SIZE + len(body)) + body
                      + bytes(PAGE_CAPACITY - len(body)))
    return WriteReport(os.fspath(path), len(items), "records", [os.fspath(path), stem + ".cto", stem + ".ctb"],
                       counts={"pages": len(layout.pages)})
