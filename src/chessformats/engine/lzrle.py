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

How it is fast: the group that follows a group's start is known for *every* byte position at once (8 numpy
steps of two items, from a table of what two items take for each pair of control bits), so walking the groups
costs one Python step per group; the items of the groups are then read all at once (16 steps), and what each
item is (its output length, its copy distance) comes from 512-entry tables keyed by its first byte and its
control bit. The output is not made by numpy: each item becomes one token of a raw DEFLATE stream with the fixed
code (RFC 1951: a literal is a literal, a run a literal and a match from 1 back, a copy a match, matches longer
than 258 bytes cut into pieces), the tokens' bits are packed 64 at a time, and ``zlib`` (C, in the standard
library) inflates the stream. DEFLATE's matches copy byte by byte as these copies do; the checks (limit, copies
before the start, items cut short) are made before, on the items.
"""

from __future__ import annotations

import zlib
from typing import Any, NamedTuple

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
    reach = size + 64  # room for the positions a group's walk can reach past the end
    padded = np.zeros(reach + 4, np.int64)
    padded[:size] = coded
    high = padded >> 4
    extra = 1 + ((high == 1) | (high == 2))  # a coded item's bytes after its first
    # the group that would start at every position, two items a step: ``pairs`` is what two items starting at a
    # position take, for each pair of control bits (first item's bit high), one row of ``reach`` a pair
    pairs = np.empty(4 * reach, np.int64)
    pairs[:reach] = 2
    pairs[reach:2 * reach] = 2 + extra[1:reach + 1]
    pairs[2 * reach:3 * reach] = 2 + extra[:reach]
    pairs[3 * reach:] = 2 + extra[:reach] + extra[np.arange(1, reach + 1) + extra[:reach]]
    # the control word's bits, most significant first: those of the byte after the group's start, then its own
    position = np.arange(2, size + 2, dtype=np.int64)
    rows = {shift: _PAIR_ROWS[shift] * reach for shift in (6, 4, 2, 0)}
    for control in (padded[1:size + 1], padded[:size]):
        for shift in (6, 4, 2, 0):
            position += np.take(pairs, position + np.take(rows[shift], control))
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
    item = chosen + 2
    for bit in range(16):
        where[:, bit] = item
        item = item + 1 + group_flags[:, bit] * extra[item]
    flat, flat_flags = where.ravel(), group_flags.ravel()
    keep = flat < size
    where, coded_flag = flat[keep], flat_flags[keep]
    if not len(where):  # a control word and no item
        return b""
    last = int(where[-1])
    if last + (int(extra[last]) if coded_flag[-1] else 0) >= size:  # only the last item can be cut short
        raise LzError("an item cut short", at=last)
    key = padded[where] | coded_flag << 8  # what an item is: its first byte, and whether it is coded
    second, third = padded[where + 1], padded[where + 2]
    items = _ITEMS
    lengths = items.base[key] + items.second[key] * second + items.third[key] * third
    ends = np.cumsum(lengths)
    total = int(ends[-1])
    if total > limit:
        over = int(np.argmax(ends > limit))
        raise LzError(f"the output passes the {limit} bytes it may have", at=int(where[over]))
    distance = items.near[key] + items.far[key] * second
    too_far = ends - lengths < distance
    if too_far.any():
        raise LzError("a copy from before the start of the block", at=int(where[int(np.argmax(too_far))]))
    literal = items.literal[key] + items.literal_second[key] * second + items.literal_third[key] * third
    match = lengths - items.unmatched[key]
    return _inflate(literal, match, distance + items.run[key], total)


_PAIR_ROWS = {shift: (np.arange(256) >> shift) & 3 for shift in (6, 4, 2, 0)}
"""For each control byte, the row of ``pairs`` of the two items of its bits ``shift + 1`` and ``shift``."""


class _Items(NamedTuple):
    """For each item (its first byte, plus 256 when its control bit is set), how its output length, copy
    distance and DEFLATE parts are made from its bytes: ``length = base + second * b1 + third * b2``, ``distance =
    near + far * b1`` (0: not a copy), the literal index of :data:`_DEFLATE` ``literal + literal_second * b1 +
    literal_third * b2``, the match length ``length - unmatched``, its distance ``distance + run``."""

    base: np.ndarray[Any, Any]
    second: np.ndarray[Any, Any]
    third: np.ndarray[Any, Any]
    near: np.ndarray[Any, Any]
    far: np.ndarray[Any, Any]
    literal: np.ndarray[Any, Any]
    literal_second: np.ndarray[Any, Any]
    literal_third: np.ndarray[Any, Any]
    unmatched: np.ndarray[Any, Any]
    run: np.ndarray[Any, Any]


def _items() -> _Items:
    columns = [[0] * 512 for _ in range(10)]
    base, second, third, near, far, literal, literal_second, literal_third, unmatched, run = columns
    for byte in range(256):  # a literal: one literal byte, no match
        base[byte], literal[byte], unmatched[byte] = 1, byte, 1
    for byte in range(256):
        key, high, low = 256 + byte, byte >> 4, byte & 15
        if high == 0:  # a run of low + 3: a literal, then a match of the rest from 1 back (3 literals for 3)
            base[key], literal_second[key] = low + 3, 1
            if low == 0:
                literal[key], unmatched[key] = 256, 3
            else:
                unmatched[key], run[key] = 1, 1
        elif high == 1:  # a run of low + 16 * b1 + 19
            base[key], second[key], literal_third[key], unmatched[key], run[key] = low + 19, 16, 1, 1, 1
        else:  # a copy of high bytes (or b2 + 16) from 16 * b1 + low + 3 back
            base[key], third[key] = (16, 1) if high == 2 else (high, 0)
            near[key], far[key], literal[key] = low + 3, 16, 512
    return _Items(*(np.array(column, np.int64) for column in columns))


_ITEMS = _items()


def _reversed(codes: np.ndarray[Any, Any], bits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The codes with their ``bits`` low bits in the reverse order (DEFLATE puts Huffman codes most
    significant bit first into a stream read least significant bit first)."""
    out = np.zeros_like(codes)
    for bit in range(int(bits.max(initial=0))):
        inside = bit < bits
        out |= np.where(inside, ((codes >> bit) & 1) << np.where(inside, bits - 1 - bit, 0), 0)
    return out


_Code = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]
"""Values to put in a DEFLATE stream (least significant bit first) and their numbers of bits."""


class _Deflate(NamedTuple):
    """DEFLATE's fixed code (RFC 1951, 3.2.6)."""

    literal: _Code
    """For each literal index: a byte; 256 + a byte: that byte three times; 512: nothing."""
    length: _Code
    """For each match length: 0, no match; 3-258: its symbol and extra bits."""
    distance: _Code
    """For each distance: 0, none; 1-4098 (the farthest an LZ/RLE copy reaches): its code and extra bits."""


def _deflate() -> _Deflate:
    byte = np.arange(256, dtype=np.uint64)
    bits = np.where(byte < 144, 8, 9).astype(np.uint64)
    value = _reversed(np.where(byte < 144, 0x30 + byte, 0x190 + byte - 144).astype(np.uint64), bits)
    literal_value = np.concatenate((value, value | value << bits | value << 2 * bits, [0])).astype(np.uint64)
    literal_bits = np.concatenate((bits, 3 * bits, [0])).astype(np.uint64)
    extras = np.array([0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4, np.uint64)  # symbols 257-284
    starts = 3 + np.concatenate(([0], np.cumsum(1 << extras)[:-1])).astype(np.uint64)
    length = np.arange(259, dtype=np.uint64)
    symbol = np.maximum(np.searchsorted(starts, length, side="right"), 1) - 1  # 257 + symbol
    code = np.where(symbol < 23, symbol + 1, 0xC0 + symbol - 23).astype(np.uint64)
    size = np.where(symbol < 23, 7, 8).astype(np.uint64)
    length_value = _reversed(code, size) | (length - starts[symbol]) << size
    length_bits = size + extras[symbol]
    length_value[258], length_bits[258] = _reversed(np.array([0xC5], np.uint64), np.array([8], np.uint64))[0], 8
    length_value[:3] = length_bits[:3] = 0
    dextras = np.array([0, 0] + [bit // 2 - 1 for bit in range(2, 30)], np.uint64)
    dstarts = 1 + np.concatenate(([0], np.cumsum(1 << dextras)[:-1])).astype(np.uint64)
    distance = np.arange(_FARTHEST + 1, dtype=np.uint64)
    dcode = (np.maximum(np.searchsorted(dstarts, distance, side="right"), 1) - 1).astype(np.uint64)
    distance_value = _reversed(dcode, np.full(len(dcode), 5, np.uint64)) | (distance - dstarts[dcode]) << np.uint64(5)
    distance_bits = 5 + dextras[dcode]
    distance_value[0] = distance_bits[0] = 0
    return _Deflate((literal_value, literal_bits), (length_value, length_bits), (distance_value, distance_bits))


_FARTHEST = (255 << 4) + 15 + 3
_LONGEST = 258
"""DEFLATE's longest match."""
_DEFLATE = _deflate()


def _inflate(literal: np.ndarray[Any, Any], match: np.ndarray[Any, Any], distance: np.ndarray[Any, Any],
             total: int) -> bytes:
    """The output of the items, through a raw DEFLATE stream (fixed code) that ``zlib`` inflates. Each item is
    a literal index of :class:`_Deflate` then a match of ``match`` bytes (0 or at least 3) from ``distance``
    back (cut into pieces of at most 258 bytes)."""
    (literal_value, literal_bits), (length_value, length_bits), (distance_value, distance_bits) = _DEFLATE
    long = np.flatnonzero(match > _LONGEST)
    if long.size:  # the first piece in the item, the others after it (as even as can be: each at least 3)
        whole = match[long]
        pieces = -(-whole // _LONGEST)
        match = match.copy()
        match[long] = whole // pieces + (whole % pieces > 0)
    literal_size, length_size = literal_bits[literal], length_bits[match]
    code = literal_value[literal] | (length_value[match] | distance_value[distance] << length_size) << literal_size
    bits = literal_size + length_size + distance_bits[distance]
    if long.size:
        rest = pieces - 1
        at = np.repeat(long, rest)
        piece = np.arange(len(at)) - np.repeat(np.cumsum(rest) - rest, rest) + 1
        whole, pieces = np.repeat(whole, rest), np.repeat(pieces, rest)
        size = whole // pieces + (piece < whole % pieces)
        far = distance[at]
        code = np.insert(code, at + 1, length_value[size] | distance_value[far] << length_bits[size])
        bits = np.insert(bits, at + 1, length_bits[size] + distance_bits[far])
    ends = np.cumsum(bits) + np.uint64(3)  # after the head: the last block, the fixed code
    start = ends - bits
    word = start >> np.uint64(6)
    shift = start & np.uint64(63)
    low = code << shift
    high = code >> (np.uint64(64) - shift)  # numpy shifts by 64 to 0
    # every word has a token that starts in it (a token is at most 38 bits), so the words are those of the
    # tokens that start first in them, in order
    first = np.flatnonzero(np.diff(word, prepend=np.uint64(1 << 63)))
    words = np.zeros(len(first) + 2, np.uint64)
    words[:len(first)] = np.bitwise_or.reduceat(low, first)
    words[1:len(first) + 1] |= np.bitwise_or.reduceat(high, first)
    words[0] |= np.uint64(3)
    stream = words.astype("<u8").tobytes()[:(int(ends[-1]) + 7 + 7) // 8]  # + the end-of-block word (7 zero bits)
    return zlib.decompress(stream, -15, total)


def store(data: bytes) -> bytes:
    """``data`` coded with literals only (what a writer that does not compress gives)."""
    out = bytearray()
    for start in range(0, len(data), 16):
        out += b"\0\0" + data[start:start + 16]
    return bytes(out)
