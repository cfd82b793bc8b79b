"""Huffman-coded bit streams decoded and encoded at numpy speed: the first stage of a ChessBase archive block.

A code is given as two 256-entry lists, ``lengths`` (bits of each byte's code word, 0: the byte has none) and
``codes`` (the code word, as an integer of that many bits). Bits are read most significant first.

Decoding is a chain: where a code word starts depends on every word before it. :func:`decode_many` breaks the
chain the way parallel Huffman decoders do. Each stream is cut into lanes of about :data:`LANE_WORDS` words, and
every lane of every stream is walked at once, one numpy step per word for all lanes together (each step looks
the next ``W`` bits up in the stream's table of ``2 ** W`` entries, ``W`` its longest word: the word's byte and
length). A lane's walk starts :data:`_OVERLAP_WORDS` words before the lane, at a bit where no word need start:
that guess is wrong at first, but a prefix code falls back into step after a few words (ChessBase's codes of
nearly 8-bit words take longest: a median of 15 words, 99 % within 130), so when the walk reaches its
lane it is most often on the true chain. Whether it is, one comparison tells: the first position the walk
visits in its lane must be where the lane before it left (a stream's first lane starts where its first word
does). A lane that fails is walked again from that true entry, only those lanes, until the walk meets a
position its guess visited (from there the guess is the truth) or leaves the lane (then the next lane is
checked against the new exit); after :data:`_ROUNDS` such rounds the rest of a stream is walked word by word.
The result is what reading the words one by one gives; only the order of the work differs. The blocks of an
archive are decoded together, so that the numpy calls are shared.

When several code words are declared for one prefix, the shortest wins, and of equal words the later byte
(as a tree built word after word decodes).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "LANE_BITS",
    "LANE_WORDS",
    "MAX_LENGTH",
    "BitStreamError",
    "Stream",
    "build_code",
    "decode",
    "decode_many",
    "decode_table",
    "encode",
]

MAX_LENGTH = 15
"""The longest code word (its length is a 4-bit field in ChessBase's code table)."""

LANE_WORDS = 256
"""About how many words a lane holds: a stream's lanes are this many times its mean word length wide (a multiple
of 8, so that a code of 8-bit words is in step at once; at least 64 bits, at most :data:`LANE_BITS`), so that
the lanes of every stream end after about as many steps."""

LANE_BITS = 8192
"""The widest lane."""

_ROUNDS = 4
"""Rounds of walking again the lanes that did not meet the true walk, before the rest is walked word by word."""


class BitStreamError(ValueError):
    """Bits that are not a sequence of code words: ``bit`` is where the bad or unfinished word starts (from the
    first bit of the buffer given to :func:`decode`); ``truncated`` when the bits end inside a word or before
    ``count`` words."""

    def __init__(self, reason: str, *, bit: int, truncated: bool) -> None:
        self.bit = bit
        self.truncated = truncated
        self.stream = 0
        """Which stream of :func:`decode_many` (0 for :func:`decode`)."""
        super().__init__(reason)


def decode_table(lengths: Sequence[int], codes: Sequence[int]) -> np.ndarray[Any, Any]:
    """The lookup table: for each window of ``W`` bits (``W`` the longest word, at least 1: the table has
    ``2 ** W`` entries), ``length << 8 | byte`` of the word it starts with; a window that starts no word holds
    ``NO_WORD << 8``."""
    length = np.asarray(lengths, np.int64)
    if length.max(initial=0) > MAX_LENGTH:
        worst = int(np.argmax(length))
        raise ValueError(f"code word of byte {worst} has {length[worst]} bits (at most {MAX_LENGTH})")
    window = max(1, int(length.max(initial=0)))
    byte = np.flatnonzero(length)
    width = 1 << (window - length[byte])
    start = (np.asarray(codes, np.int64)[byte] & (1 << length[byte]) - 1) * width
    order = np.argsort(start, kind="stable")
    start, width, value = start[order], width[order], (length[byte] << 8 | byte)[order]
    end = start + width
    if len(start) and (end[:-1] > start[1:]).any():
        return _overlapping_table(lengths, codes, window)
    gaps = start - np.concatenate(([0], end[:-1]))  # windows that start no word, before each word's windows
    sizes = np.stack((gaps, width), axis=1).ravel()
    values = np.stack((np.full(len(value), _NO_WORD << 8), value), axis=1).ravel()
    tail = (1 << window) - (int(end[-1]) if len(end) else 0)
    return np.repeat(np.append(values, _NO_WORD << 8), np.append(sizes, tail)).astype(np.int32)


def _overlapping_table(lengths: Sequence[int], codes: Sequence[int], window: int) -> np.ndarray[Any, Any]:
    """:func:`decode_table` when a word is a prefix of another (or two are equal): filled word by word."""
    table = np.full(1 << window, _NO_WORD << 8, np.int32)
    order = sorted((-length, byte) for byte, length in enumerate(lengths) if length)
    for negative, byte in order:  # longest first: a shorter word that is a prefix of a longer one wins
        length = -negative
        low = (codes[byte] & ((1 << length) - 1)) << (window - length)
        table[low:low + (1 << (window - length))] = (length << 8) | byte
    return table


_NO_WORD = 1 << 12
"""The length given to a window that starts no word: longer than any word, so that its table entry tells it."""

_GAP = 4
"""Zero bytes after each stream when several are decoded together."""

_OVERLAP_WORDS = 80
"""How many words (of the stream's mean length) before its own first bit a lane's walk starts, so that it is in
step when it reaches its lane."""


def _quads(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """For every byte of ``data``, it and the three after it as one big-endian 32-bit integer (zeros past the
    end; int32: the bits above a window are masked off after the shift, so the sign does not matter)."""
    padded = np.zeros(len(data) + 3, np.uint8)
    padded[:len(data)] = data
    quads: np.ndarray[Any, Any] = np.ndarray((len(data),), ">i4", padded, 0, (1,)).astype(np.int32)
    return quads


class Stream(NamedTuple):
    """One coded stream for :func:`decode_many`."""

    data: bytes | memoryview
    start_bit: int
    """Where the first code word starts."""
    table: np.ndarray[Any, Any]
    """:func:`decode_table`'s table."""
    size: int
    """Bytes to decode."""


def decode(data: bytes | memoryview, start_bit: int, table: np.ndarray[Any, Any], count: int) -> bytes:
    """``count`` bytes decoded from the code words of ``data`` starting at bit ``start_bit``, with the table of
    :func:`decode_table`. Bits after the last word are ignored. Raises :class:`BitStreamError`."""
    return decode_many([Stream(data, start_bit, table, count)])[0]


class _Source(NamedTuple):
    """Several streams side by side: one bit numbering, one table per stream."""

    quads: np.ndarray[Any, Any]
    """:func:`_quads` of the joined streams."""
    table: np.ndarray[Any, Any]
    """The streams' tables, one after the other."""
    lengths: np.ndarray[Any, Any]
    """``table``'s word lengths."""


class _Lanes(NamedTuple):
    """The lanes of every stream, in the order of their bits: a lane's words are those that start in
    ``[starts, bounds)``; its walk starts at ``origins`` (before ``starts`` unless it is its stream's first)."""

    starts: np.ndarray[Any, Any]
    bounds: np.ndarray[Any, Any]
    origins: np.ndarray[Any, Any]
    offset: np.ndarray[Any, Any]
    """Where the lane's stream's table starts in the joined tables."""
    shift: np.ndarray[Any, Any]
    """32 minus the bits of the lane's stream's windows."""
    mask: np.ndarray[Any, Any]
    first: np.ndarray[Any, Any]
    """Whether the lane is its stream's first."""
    stream: np.ndarray[Any, Any]

    def table_index(self, source: _Source, position: np.ndarray[Any, Any], which: Any = slice(None),
                    out: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        """The index in the joined tables of the word at each position (of the lanes ``which``)."""
        quad = np.take(source.quads, position >> 3, mode="clip")
        window: np.ndarray[Any, Any] = quad >> (self.shift[which] - (position & 7))
        window &= self.mask[which]
        found: np.ndarray[Any, Any] = np.add(window, self.offset[which], out=out)
        return found


def decode_many(streams: list[Stream]) -> list[bytes]:
    """:func:`decode` of several streams at once (one walk for all: the numpy steps are shared). Raises
    :class:`BitStreamError` for the first stream that fails, its index as ``stream`` and ``bit`` counted from
    that stream's first bit."""
    sizes = [len(item.data) for item in streams]
    bases = [0]
    for size in sizes:
        bases.append(bases[-1] + size + _GAP)
    joined = np.zeros(bases[-1], np.uint8)
    for item, base, size in zip(streams, bases, sizes, strict=False):
        joined[base:base + size] = np.frombuffer(item.data, np.uint8)
    offsets = np.cumsum([0] + [len(item.table) for item in streams])
    tables = np.concatenate([item.table for item in streams]) if streams else np.zeros(0, np.int32)
    source = _Source(_quads(joined), tables, (tables >> 8).astype(np.int64))
    ends = [8 * (base + size) for base, size in zip(bases, sizes, strict=False)]
    parts = []
    windows = [len(item.table).bit_length() - 1 for item in streams]
    for index, item in enumerate(streams):
        first = 8 * bases[index] + item.start_bit
        if item.size and first >= ends[index]:
            raise _error(index, "no bits left for the coded bytes", item.start_bit, True)
        if item.size:
            # the words wanted lie within ``size`` of the longest words: the bits after them are not walked
            stop = min(ends[index], first + (item.size + 1) * windows[index])
            mean = (stop - first) / item.size
            width = min(LANE_BITS, max(64, 8 * round(LANE_WORDS * mean / 8)))
            starts = np.arange(first, stop, width, dtype=np.int64)
            origins = np.maximum(starts - 8 * round(_OVERLAP_WORDS * mean / 8), first)
            parts.append((starts, np.minimum(starts + width, stop), origins, index))
    if not parts:
        return [b""] * len(streams)

    def per_lane(values: Sequence[int]) -> np.ndarray[Any, Any]:
        return np.concatenate([np.full(len(part[0]), values[part[3]], np.int64) for part in parts])

    lanes = _Lanes(
        np.concatenate([part[0] for part in parts]),
        np.concatenate([part[1] for part in parts]),
        np.concatenate([part[2] for part in parts]),
        per_lane(offsets.tolist()),
        per_lane([32 - bits for bits in windows]),
        per_lane([(1 << bits) - 1 for bits in windows]),
        np.concatenate([np.arange(len(part[0])) == 0 for part in parts]),
        per_lane(range(len(streams))),
    )
    found, counts, slow = _walk(source, lanes, len(streams))
    cuts = np.concatenate(([0], np.cumsum(counts))).tolist()
    results = []
    for index, item in enumerate(streams):
        if not item.size:
            results.append(b"")
            continue
        first = 8 * bases[index] + item.start_bit
        if index in slow:
            walked = _sequential(source, lanes, index, first, ends[index], item.size)
            which = np.full(len(walked), int(np.flatnonzero(lanes.stream == index)[0]))
            indices = lanes.table_index(source, walked, which)
        else:
            indices = found[cuts[index]:min(cuts[index + 1], cuts[index] + item.size)]
        entries = source.table[indices]
        invalid = entries >= _NO_WORD << 8
        if invalid.any():
            at = int(np.argmax(invalid))
            raise _error(index, "bits that start no code word", first + _bits(entries[:at]) - 8 * bases[index], False)
        used = _bits(entries)
        if len(entries) and first + used > ends[index]:
            last = first + used - (int(entries[-1]) >> 8) - 8 * bases[index]
            raise _error(index, "the bits end inside a code word", last, True)
        if len(entries) < item.size:
            raise _error(index, f"the bits end after {len(entries)} of {item.size} code words",
                         ends[index] - 8 * bases[index], True)
        results.append(entries.astype(np.uint8).tobytes())
    return results


def _bits(entries: np.ndarray[Any, Any]) -> int:
    """The bits of the words of these table entries."""
    return int((entries >> 8).sum(dtype=np.int64))


def _error(stream: int, reason: str, bit: int, truncated: bool) -> BitStreamError:
    error = BitStreamError(reason, bit=bit, truncated=truncated)
    error.stream = stream
    return error


def _walk(source: _Source, lanes: _Lanes, streams: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], set[int]]:
    """The table indices of every stream's chain of words, lane after lane (each stream's words in order, to the
    end of its lanes); how many of them each stream has; and the streams left to walk one word at a time."""
    positions, indices = _guess(source, lanes)
    count = len(lanes.starts)
    every = np.arange(count)
    entered = (positions < lanes.starts).sum(axis=0)  # the row of each lane's first word in its lane
    left = (positions < lanes.bounds).sum(axis=0)  # and of the first past it
    entry, guessed_exits = positions[entered, every], positions[left, every]
    exits = guessed_exits.copy()  # where each lane's true walk leaves it, as far as known
    # a lane's guess is its truth when it passes where the lane before it truly left (the first lanes are true)
    pending = np.flatnonzero(~lanes.first & (entry != np.roll(exits, 1)))
    walks: dict[int, np.ndarray[Any, Any]] = {}
    slow: set[int] = set()
    rounds = 0
    while pending.size:
        rounds += 1
        if rounds > _ROUNDS:
            slow = set(lanes.stream[pending].tolist())
            break
        which, what, final, met = _catch_up(source, lanes, pending, exits[pending - 1], positions)
        order = np.argsort(which, kind="stable")
        cut = np.cumsum(np.bincount(which, minlength=len(pending)))[:-1]
        for lane, part in zip(pending.tolist(), np.split(what[order], cut), strict=True):
            walks[lane] = part
        # from where the walk met the guess, the guess; a lane that was left without meeting it has no guess part
        entered[pending] = np.where(met, (positions[:, pending] < final).sum(axis=0), left[pending])
        leaving = np.where(met, guessed_exits[pending], final)
        changed = pending[leaving != exits[pending]] + 1
        exits[pending] = leaving
        changed = changed[changed < count]
        pending = changed[~lanes.first[changed]]
    late: list[int] = []
    for lane, part in walks.items():  # a lane's own walk goes in the rows before its guess part (when they exist)
        start = int(entered[lane]) - len(part)
        if start >= 0:
            indices[start:start + len(part), lane] = part
            entered[lane] = start
        else:
            late.append(lane)
    rows = np.arange(len(indices))[:, None]
    keep = ((rows >= entered) & (rows < left)).T
    found = indices.T[keep]
    sizes = np.bincount(lanes.stream, weights=left - entered, minlength=streams).astype(np.int64)
    if late:
        late.sort()
        at = np.concatenate(([0], np.cumsum(left - entered)[:-1]))[late]
        found = np.insert(found, np.repeat(at, [len(walks[lane]) for lane in late]),
                          np.concatenate([walks[lane] for lane in late]))
        np.add.at(sizes, lanes.stream[late], [len(walks[lane]) for lane in late])
    return found, sizes, slow


def _guess(source: _Source, lanes: _Lanes) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Walk every lane at once from its origin until all have left their lanes: the positions, one row a step
    and one column a lane (a lane that left goes on walking; the last row is past every lane), and the table
    index of the word at each (one row fewer)."""
    count = len(lanes.starts)
    rows = int((lanes.bounds - lanes.origins).max()) // 4 + 64  # words of 4 bits at the least (grown if not)
    positions = np.empty((rows, count), np.int64)
    indices = np.empty((rows, count), np.int64)
    positions[0] = lanes.origins
    step = 0
    while True:
        if step + 1 == rows:
            positions = np.concatenate((positions, np.empty_like(positions)))
            indices = np.concatenate((indices, np.empty_like(indices)))
            rows *= 2
        position = positions[step]
        index = lanes.table_index(source, position, out=indices[step])
        np.add(position, np.take(source.lengths, index), out=positions[step + 1])
        step += 1
        if step % 4 == 0 and (positions[step] >= lanes.bounds).all():  # every 4 steps: fewer calls
            return positions[:step + 1], indices[:step]


def _catch_up(source: _Source, lanes: _Lanes, pending: np.ndarray[Any, Any], entries: np.ndarray[Any, Any],
              positions: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], ...]:
    """Walk the lanes ``pending`` from their true entries until each meets a position its guess visited or
    leaves its lane; only the lanes still walking are stepped. (Which of ``pending``, position and table index
    of every step, step after step; where each stopped; whether it met the guess.)"""
    origins, bounds = lanes.origins[pending], lanes.bounds[pending]
    span = int((bounds - origins).max()) + 1
    seen = np.zeros((len(pending), span), bool)
    guessed = positions[:, pending]
    inside = (guessed < bounds) & (guessed >= origins)
    seen[np.nonzero(inside)[1], (guessed - origins)[inside]] = True
    flat = seen.ravel()
    base = np.arange(len(pending)) * span - origins

    def met_guess(which: np.ndarray[Any, Any], position: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        inside = position < bounds[which]
        found: np.ndarray[Any, Any] = inside & flat[np.where(inside, base[which] + position, 0)]
        return found

    position = entries.astype(np.int64)
    final = position.copy()
    walking = np.flatnonzero((position < bounds) & ~met_guess(np.arange(len(pending)), position))
    position = position[walking]
    steps: list[tuple[np.ndarray[Any, Any], ...]] = []
    while walking.size:
        index = lanes.table_index(source, position, pending[walking])
        steps.append((walking, position, index))
        position = position + source.lengths[index]
        final[walking] = position
        going = (position < bounds[walking]) & ~met_guess(walking, position)
        walking, position = walking[going], position[going]
    met = met_guess(np.arange(len(pending)), final)
    which, what = (np.concatenate([step[part] for step in steps]) if steps else np.zeros(0, np.int64)
                   for part in (0, 2))
    return which, what, final, met


def _sequential(source: _Source, lanes: _Lanes, stream: int, position: int, end: int,
                count: int) -> np.ndarray[Any, Any]:
    """Up to ``count`` positions from ``position`` on, one word at a time (when lanes do not fall into step)."""
    lane = int(np.flatnonzero(lanes.stream == stream)[0])
    shift, mask, offset = (int(value[lane]) for value in (lanes.shift, lanes.mask, lanes.offset))
    quads = source.quads.tolist()
    lengths = source.lengths[offset:offset + mask + 1].tolist()
    found: list[int] = []
    while position < end and len(found) < count:
        found.append(position)
        position += lengths[(quads[position >> 3] >> (shift - (position & 7))) & mask]
    return np.array(found, np.int64)


def build_code(data: bytes) -> tuple[list[int], list[int]]:
    """A Huffman code for ``data``'s bytes, no word longer than :data:`MAX_LENGTH`: (lengths, codes) as
    :func:`decode_table` takes them, the words canonical (shorter words first, then by byte)."""
    counts = np.bincount(np.frombuffer(data, np.uint8), minlength=256)
    present = [byte for byte in range(256) if counts[byte]]
    lengths = [0] * 256
    if len(present) == 1:
        lengths[present[0]] = 1
    elif present:
        scale = 1
        while True:  # flatten the counts until no word is too long
            weights = {byte: max(1, int(counts[byte]) // scale) for byte in present}
            found = _lengths(weights)
            if max(found.values()) <= MAX_LENGTH:
                break
            scale *= 2
        for byte, length in found.items():
            lengths[byte] = length
    codes = [0] * 256
    code, previous = 0, 0
    for length, byte in sorted((length, byte) for byte, length in enumerate(lengths) if length):
        code <<= length - previous
        codes[byte] = code
        code += 1
        previous = length
    return lengths, codes


def _lengths(weights: dict[int, int]) -> dict[int, int]:
    """Huffman word lengths for the weights (two or more bytes)."""
    heap: list[tuple[int, int, list[int]]] = [(weight, byte, [byte]) for byte, weight in weights.items()]
    heapq.heapify(heap)
    depth = dict.fromkeys(weights, 0)
    while len(heap) > 1:
        first_weight, first_key, first = heapq.heappop(heap)
        second_weight, _, second = heapq.heappop(heap)
        for byte in (*first, *second):
            depth[byte] += 1
        heapq.heappush(heap, (first_weight + second_weight, first_key, first + second))
    return depth


def encode(data: bytes, lengths: Sequence[int], codes: Sequence[int]) -> tuple[bytes, int]:
    """``data`` as code words, most significant bit first: (the bytes, the bits used of them). Every byte of
    ``data`` needs a code word."""
    symbols = np.frombuffer(data, np.uint8)
    word_lengths = np.asarray(lengths, np.int64)[symbols]
    if len(symbols) and word_lengths.min() == 0:
        raise ValueError("a byte of the data has no code word")
    words = np.asarray(codes, np.int64)[symbols]
    ends = np.cumsum(word_lengths)
    bits = int(ends[-1]) if len(ends) else 0
    out = np.zeros(bits + 8, np.uint8)
    for bit in range(MAX_LENGTH):  # bit `bit` of each word, counted from its most significant
        has = word_lengths > bit
        where = (ends - word_lengths + bit)[has]
        out[where] = (words[has] >> (word_lengths[has] - 1 - bit)) & 1
    return np.packbits(out[:bits]).tobytes(), bits
