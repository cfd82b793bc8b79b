"""The LZ/RLE stage of a ChessBase archive block, decoded at numpy speed.

The coded bytes are groups: a 16-bit little-endian control word, then 16 items, one per control bit, most
significant bit first. A 0 bit is a literal byte. A 1 bit is a coded item whose first byte ``b0`` says what it
is by its high nibble ``h`` (``l`` is its low nibble, ``b1``, ``b2`` the bytes after it):

====  ==========  =====================================================
h     item bytes  output
====  ==========  =====================================================
0     2           ``l + 3`` copies of ``b1`` (a run)
1     3           ``l + 16 * b1 + 19`` copies of ``b2`` (a long run)
2     3           ``b2 + 16`` bytes copied from ``16 * b1 + l + 3`` back
3-15  2           ``h`` bytes copied from ``16 * b1 + l + 3`` back
====  ==========  =====================================================

The coded bytes end after any item (the last group may have fewer than 16). A copy reads the block's own
output, byte by byte (a copy longer than its distance repeats what it copies, as in LZ77). Facts from uncbv
(``src/cbv.rs``, ``decompress_block``), which rejects such overlapping copies; none occurs in the corpus.

How it is fast: the item that follows a group's start is known for *every* byte position at once (16 numpy
steps), so walking the groups costs one step per group; the output is then laid out from the items' lengths,
and each copied byte follows its source back (pointer doubling) until it reaches a literal or a run.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LzError", "decode", "store"]


class LzError(ValueError):
    """Coded bytes that break the rules: ``at`` is the offset (in the coded bytes) of the bad item."""

    def __init__(self, reason: str, *, at: int) -> None:
        self.at = at
        super().__init__(reason)


def decode(data: bytes | memoryview, limit: int) -> bytes:
    """The bytes ``data`` codes; :class:`LzError` when an item is cut short, a copy reaches before the start,
    or the output would pass ``limit`` bytes (checked before the output is made)."""
    coded = np.frombuffer(data, np.uint8)
    size = len(coded)
    if size == 0:
        return b""
    padded = np.zeros(size + 4, np.int64)
    padded[:size] = coded
    high = padded >> 4
    coded_length = np.where((high == 1) | (high == 2), 3, 2)
    starts = np.arange(size, dtype=np.int64)
    control = padded[:size] | (padded[1:size + 1] << 8)
    position = np.minimum(starts + 2, size)
    items = np.empty((16, size), np.int64)
    flags = np.empty((16, size), np.int64)
    for bit in range(16):
        items[bit] = position
        flags[bit] = (control >> (15 - bit)) & 1
        position = np.minimum(position + np.where(flags[bit] == 1, coded_length[position], 1), size)
    following = position.tolist()
    groups = []
    group = 0
    while group < size:
        if group + 2 > size:
            raise LzError("a control word cut short", at=group)
        groups.append(group)
        group = following[group]
    chosen = np.array(groups, np.int64)
    where = items[:, chosen].T.ravel()
    coded_flag = flags[:, chosen].T.ravel()
    keep = where < size
    where, coded_flag = where[keep], coded_flag[keep]
    need = np.where(coded_flag == 1, coded_length[where], 1)
    cut = where + need > size
    if cut.any():
        raise LzError("an item cut short", at=int(where[int(np.argmax(cut))]))
    first, second, third = padded[where], padded[where + 1], padded[where + 2]
    nibble_high, nibble_low = first >> 4, first & 15
    is_copy = (coded_flag == 1) & (nibble_high >= 2)
    lengths = np.select(
        [coded_flag == 0, nibble_high == 0, nibble_high == 1, nibble_high == 2],
        [np.ones_like(first), nibble_low + 3, nibble_low + (second << 4) + 19, third + 16],
        nibble_high)
    values = np.select([coded_flag == 0, nibble_high == 0], [first, second], third)
    distance = (second << 4) + nibble_low + 3
    ends = np.cumsum(lengths)
    total = int(ends[-1])
    if total > limit:
        over = int(np.argmax(ends > limit))
        raise LzError(f"the output passes the {limit} bytes it may have", at=int(where[over]))
    item_of = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    output_at = np.arange(total, dtype=np.int64)
    copies = is_copy[item_of]
    source = np.where(copies, output_at - distance[item_of], output_at)
    if (source < 0).any():
        bad = int(item_of[int(np.argmax(source < 0))])
        raise LzError("a copy from before the start of the block", at=int(where[bad]))
    base = np.where(copies, 0, values[item_of]).astype(np.uint8)
    while True:
        further = source[source]
        if np.array_equal(further, source):
            break
        source = further
    return base[source].tobytes()


def store(data: bytes) -> bytes:
    """``data`` coded with literals only (what a writer that does not compress gives)."""
    out = bytearray()
    for start in range(0, len(data), 16):
        out += b"\0\0" + data[start:start + 16]
    return bytes(out)
