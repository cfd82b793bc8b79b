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

import zlib
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
    is_run = (coded_flag == 1) & (nibble_high < 2)
    value = np.select([literal, nibble_high == 0], [first, second], third)
    run = np.where(literal, 1, np.where(is_run, np.where(lengths == 3, 3, 1), 0))
    match = np.where(is_copy, lengths, np.where(is_run & (lengths > 3), lengths - 1, 0))
    return _inflate(value, run, match, np.where(is_copy, distance, 1), total)


def _reversed(code: int, bits: int) -> int:
    return int(format(code, f"0{bits}b")[::-1], 2) if bits else 0


def _deflate_tables() -> tuple[np.ndarray[Any, Any], ...]:
    """DEFLATE's fixed code (RFC 1951, 3.2.6), as (value, bits) to put in the stream, least significant bit
    first: for each literal byte; for each match length (3-258: its symbol and extra bits); for each distance
    (1-4098, the farthest an LZ/RLE copy reaches: its code and extra bits)."""
    literal_value = [_reversed(0x30 + byte, 8) if byte < 144 else _reversed(0x190 + byte - 144, 9)
                     for byte in range(256)]
    literal_bits = [8 if byte < 144 else 9 for byte in range(256)]
    length_value, length_bits = [0] * 259, [0] * 259
    base, symbol = 3, 257
    for extra in [0] * 8 + sorted([1, 2, 3, 4, 5] * 4):
        for offset in range(1 << extra):
            code = symbol - 256 if symbol < 280 else 0xC0 + symbol - 280
            size = 7 if symbol < 280 else 8
            length_value[base + offset] = _reversed(code, size) | offset << size
            length_bits[base + offset] = size + extra
        base, symbol = base + (1 << extra), symbol + 1
    length_value[258], length_bits[258] = _reversed(0xC0 + 285 - 280, 8), 8  # 258 has its own symbol
    distance_value, distance_bits = [0] * (_FARTHEST + 1), [0] * (_FARTHEST + 1)
    base = 1
    for code in range(30):
        extra = max(0, code // 2 - 1)
        for offset in range(1 << extra):
            if base + offset <= _FARTHEST:
                distance_value[base + offset] = _reversed(code, 5) | offset << 5
                distance_bits[base + offset] = 5 + extra
        base += 1 << extra
    return tuple(np.array(values, np.uint64) for values in (literal_value, literal_bits, length_value, length_bits,
                                                            distance_value, distance_bits))


_FARTHEST = (255 << 4) + 15 + 3
_LONGEST = 258
"""DEFLATE's longest match."""
_TABLES: tuple[np.ndarray[Any, Any], ...] = ()


def _inflate(value: np.ndarray[Any, Any], run: np.ndarray[Any, Any], match: np.ndarray[Any, Any],
             distance: np.ndarray[Any, Any], total: int) -> bytes:
    """The output of the items, through a raw DEFLATE stream (fixed code) that ``zlib`` inflates. Each item is
    ``run`` literal bytes ``value`` (0, 1 or 3) then a match of ``match`` bytes (0 or at least 3) from
    ``distance`` back, cut into pieces of at most 258 bytes."""
    global _TABLES
    if not _TABLES:
        _TABLES = _deflate_tables()
    literal_value, literal_bits, length_value, length_bits, distance_value, distance_bits = _TABLES
    pieces = -(-match // _LONGEST)
    tokens = run + pieces
    count = int(tokens.sum())
    item = np.repeat(np.arange(len(tokens)), tokens)
    rank = np.arange(count) - np.repeat(np.cumsum(tokens) - tokens, tokens)
    piece = rank - run[item]
    is_match = piece >= 0
    pieces_of = pieces[item]
    matched = match[item]
    # pieces as even as can be: each at least 3 when the match is
    size = matched // np.maximum(pieces_of, 1) + (np.where(is_match, piece, 0) < matched % np.maximum(pieces_of, 1))
    size = np.where(is_match, size, 0)
    far = np.where(is_match, distance[item], 0)
    bits = np.where(is_match, length_bits[size] + distance_bits[far], literal_bits[value[item]])
    code = np.where(is_match, length_value[size] | distance_value[far] << length_bits[size],
                    literal_value[value[item]])
    code = np.concatenate((np.array([3], np.uint64), code))  # the head: last block, fixed code
    bits = np.concatenate((np.array([3], np.uint64), bits))
    ends = np.cumsum(bits)
    start = ends - bits
    word = start >> np.uint64(6)
    shift = start & np.uint64(63)
    low = code << shift
    high = (code >> np.uint64(1)) >> (np.uint64(63) - shift)
    first = np.flatnonzero(np.diff(word, prepend=np.uint64(1 << 63)))
    words = np.zeros(len(first) + 2, np.uint64)
    words[:len(first)] = np.bitwise_or.reduceat(low, first)
    words[1:len(first) + 1] |= np.bitwise_or.reduceat(high, first)
    stream = words.astype("<u8").tobytes()[:(int(ends[-1]) + 7 + 7) // 8]  # + the end-of-block word (7 zero bits)
    return zlib.decompress(stream, -15, total)


def store(data: bytes) -> bytes:
    """``data`` coded with literals only (what a writer that does not compress gives)."""
    out = bytearray()
    for start in range(0, len(data), 16):
        out += b"\0\0" + data[start:start + 16]
    return bytes(out)
