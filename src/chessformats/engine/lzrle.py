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

from typing import Any

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
    padded = np.zeros(size + 64, np.int32)  # room for the positions a group's walk can reach past the end
    padded[:size] = coded
    high = padded >> 4
    extra = np.where((high == 1) | (high == 2), 2, 1).astype(np.int32)  # a coded item's bytes after its first
    bits = np.unpackbits(np.concatenate((coded, np.zeros(2, np.uint8)))).reshape(-1, 8)
    # the group that would start at every position: its control word's bit k is bit k of the byte after (k < 8)
    # or of the byte itself (k >= 8), most significant first; ``position`` is one past each item's first byte
    flags = np.empty((16, size), np.int32)
    flags[:8] = bits[1:size + 1].T
    flags[8:] = bits[:size].T
    after = np.concatenate(([0], extra))  # extra, one position later
    position = np.arange(3, size + 3, dtype=np.int32)
    step = np.empty(size, np.int32)
    for bit in range(16):
        np.take(after, position, out=step)
        step *= flags[bit]
        position += step
        position += 1
    position -= 1
    following = position.item  # a group's successor, one at a time (cheaper than a list of every position)
    groups = []
    group = 0
    while group < size:
        if group + 2 > size:
            raise LzError("a control word cut short", at=group)
        groups.append(group)
        group = following(group)
    chosen = np.array(groups, np.int32)
    group_flags = np.unpackbits(np.stack((coded[chosen + 1] if size > 1 else coded[chosen], coded[chosen]),
                                         axis=1), axis=1).astype(np.int32)
    where: np.ndarray[Any, Any] = np.empty((len(chosen), 16), np.int32)
    position = chosen + 2
    for bit in range(16):
        where[:, bit] = position
        position = position + 1 + group_flags[:, bit] * extra[position]
    flat, flat_flags = where.ravel(), group_flags.ravel()
    keep = flat < size
    where, coded_flag = flat[keep], flat_flags[keep]
    cut = where + np.where(coded_flag == 1, extra[where], 0) >= size
    if cut.any():
        raise LzError("an item cut short", at=int(where[int(np.argmax(cut))]))
    first, second, third = padded[where], padded[where + 1], padded[where + 2]
    nibble_high, nibble_low = first >> 4, first & 15
    is_copy = (coded_flag == 1) & (nibble_high >= 2)
    literal = coded_flag == 0
    lengths = np.select(
        [literal, nibble_high == 0, nibble_high == 1, nibble_high == 2],
        [np.ones_like(first), nibble_low + 3, nibble_low + (second << 4) + 19, third + 16],
        nibble_high)
    ends = np.cumsum(lengths, dtype=np.int64)
    total = int(ends[-1])
    if total > limit:
        over = int(np.argmax(ends > limit))
        raise LzError(f"the output passes the {limit} bytes it may have", at=int(where[over]))
    distance = np.where(is_copy, (second << 4) + nibble_low + 3, 0)
    too_far = is_copy & (ends - lengths < distance)
    if too_far.any():
        raise LzError("a copy from before the start of the block", at=int(where[int(np.argmax(too_far))]))
    values = np.select([literal, nibble_high == 0], [first, second], third)
    base = np.repeat(np.where(is_copy, 0, values).astype(np.uint8), lengths)
    source = np.arange(total, dtype=np.int32) - np.repeat(distance, lengths)
    copied = np.repeat(is_copy, lengths)
    pending = np.flatnonzero(copied)
    while pending.size:  # each copied byte follows its source back until a literal or a run
        further = source[source[pending]]
        source[pending] = further
        pending = pending[copied[further]]
    return bytes(base[source].tobytes())


def store(data: bytes) -> bytes:
    """``data`` coded with literals only (what a writer that does not compress gives)."""
    out = bytearray()
    for start in range(0, len(data), 16):
        out += b"\0\0" + data[start:start + 16]
    return bytes(out)
