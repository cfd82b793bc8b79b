"""Huffman-coded bit streams decoded and encoded at numpy speed: the first stage of a ChessBase archive block.

A code is given as two 256-entry lists, ``lengths`` (bits of each byte's code word, 0: the byte has none) and
``codes`` (the code word, as an integer of that many bits). Bits are read most significant first.

Decoding is a chain: where a code word starts depends on every word before it. :func:`decode_many` breaks the
chain the way parallel Huffman decoders do. Each stream is cut into lanes of about :data:`LANE_WORDS` words, and
every lane of every stream is walked at once, one numpy step per word for all lanes together, from the lane's
first bit as if a word started there (each step looks the next 16 bits up in the stream's 65,536-entry table:
the word's byte and length). That guess is wrong at first, but a prefix code falls back into step after a few
words. Then, from each lane's true start (where the lane before it left), the true walk is followed, again all
lanes at once and only those still walking, until it meets a position the lane's guess visited: from there the
guess is the truth. A lane that the true walk leaves without meeting its guess moves the next lane's start, and
that lane is walked again; after :data:`_ROUNDS` such rounds the rest of a stream is walked word by word. The
result is what reading the words one by one gives; only the order of the work differs. The blocks of an archive
are decoded together, so that the numpy calls are shared.

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

LANE_WORDS = 384
"""About how many words a lane holds: a stream's lanes are this many times its mean word length wide (a multiple
of 8, so that a code of 8-bit words is in step at once; at least 64 bits, at most :data:`LANE_BITS`), so that
the lanes of every stream end after about as many steps."""

LANE_BITS = 8192
"""The widest lane."""

_WINDOW = 16
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
    """The lookup table: for each 16-bit window, ``length << 8 | byte`` of the word it starts with; a window that
    starts no word holds ``NO_WORD << 8`` (a length that leads past the end of any stream)."""
    length = np.asarray(lengths, np.int64)
    if length.max(initial=0) > MAX_LENGTH:
        worst = int(np.argmax(length))
        raise ValueError(f"code word of byte {worst} has {length[worst]} bits (at most {MAX_LENGTH})")
    byte = np.flatnonzero(length)
    width = 1 << (_WINDOW - length[byte])
    start = (np.asarray(codes, np.int64)[byte] & (1 << length[byte]) - 1) * width
    order = np.argsort(start, kind="stable")
    start, width, value = start[order], width[order], (length[byte] << 8 | byte)[order]
    end = start + width
    if len(start) and (end[:-1] > start[1:]).any():
        return _overlapping_table(lengths, codes)
    gaps = start - np.concatenate(([0], end[:-1]))  # windows that start no word, before each word's windows
    sizes = np.stack((gaps, width), axis=1).ravel()
    values = np.stack((np.full(len(value), _NO_WORD << 8), value), axis=1).ravel()
    tail = (1 << _WINDOW) - (int(end[-1]) if len(end) else 0)
    return np.repeat(np.append(values, _NO_WORD << 8), np.append(sizes, tail)).astype(np.int32)


def _overlapping_table(lengths: Sequence[int], codes: Sequence[int]) -> np.ndarray[Any, Any]:
    """:func:`decode_table` when a word is a prefix of another (or two are equal): filled word by word."""
    table = np.full(1 << _WINDOW, _NO_WORD << 8, np.int32)
    order = sorted((-length, byte) for byte, length in enumerate(lengths) if length)
    for negative, byte in order:  # longest first: a shorter word that is a prefix of a longer one wins
        length = -negative
        low = (codes[byte] & ((1 << length) - 1)) << (_WINDOW - length)
        table[low:low + (1 << (_WINDOW - length))] = (length << 8) | byte
    return table


_NO_WORD = 1 << 12
"""The length given to a window that starts no word: longer than any word, so that its table entry tells it (the
walk goes on from there: a lane of at most ``LANE_BITS`` words plus the steps past its bound stays within 32
bits)."""

_GAP = 4
"""Zero bytes after each stream when several are decoded together."""


def _triples(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """For every byte of ``data``, it and the two after it as one 24-bit integer (zeros past the end)."""
    padded = np.zeros(len(data) + 2, np.int32)
    padded[:len(data)] = data
    return (padded[:-2] << 16) | (padded[1:-1] << 8) | padded[2:]


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


class _Joined(NamedTuple):
    """Several streams side by side: one bit numbering, one table per stream."""

    triples: np.ndarray[Any, Any]
    table: np.ndarray[Any, Any]
    """The streams' tables, 65,536 entries each, one after the other."""
    limit: int
    """The last bit."""

    def word(self, position: np.ndarray[Any, Any], table: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The table entry of the word at each position (``table``: its stream's table offset)."""
        at = np.minimum(position, self.limit)
        found: np.ndarray[Any, Any] = self.table[table + ((self.triples[at >> 3] >> (8 - (at & 7))) & 0xFFFF)]
        return found


class _Lanes(NamedTuple):
    starts: np.ndarray[Any, Any]
    bounds: np.ndarray[Any, Any]
    table: np.ndarray[Any, Any]
    """The lane's stream's table offset."""
    chain: np.ndarray[Any, Any]
    """Where the lane's stream's first word starts."""
    first: np.ndarray[Any, Any]
    """Whether the lane is its stream's first."""
    stream: np.ndarray[Any, Any]


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
    tables = np.concatenate([item.table for item in streams]) if streams else np.zeros(0, np.int32)
    source = _Joined(_triples(joined), tables, len(joined) * 8 - 1)
    ends = [8 * (base + size) for base, size in zip(bases, sizes, strict=False)]
    parts = []
    for index, item in enumerate(streams):
        first = 8 * bases[index] + item.start_bit
        if item.size and first >= ends[index]:
            raise _error(index, "no bits left for the coded bytes", item.start_bit, True)
        if item.size:
            mean = (ends[index] - first) / item.size
            width = min(LANE_BITS, max(64, 8 * round(LANE_WORDS * mean / 8)))
            starts = np.arange(first, ends[index], width, dtype=np.int32)
            parts.append((starts, np.minimum(starts + width, ends[index]), index, first))
    if not parts:
        return [b""] * len(streams)
    lanes = _Lanes(
        np.concatenate([part[0] for part in parts]),
        np.concatenate([part[1] for part in parts]).astype(np.int32),
        np.concatenate([np.full(len(part[0]), part[2] << _WINDOW, np.int32) for part in parts]),
        np.concatenate([np.full(len(part[0]), part[3], np.int32) for part in parts]),
        np.concatenate([np.arange(len(part[0])) == 0 for part in parts]),
        np.concatenate([np.full(len(part[0]), part[2], np.int32) for part in parts]),
    )
    positions, words, slow = _walk(source, lanes)
    cuts = np.searchsorted(positions, np.array(bases) * 8).tolist()
    results = []
    for index, item in enumerate(streams):
        if not item.size:
            results.append(b"")
            continue
        if index in slow:
            found = _sequential(source, index << _WINDOW, 8 * bases[index] + item.start_bit, ends[index],
                                item.size)
            entries = source.word(found, np.full(len(found), index << _WINDOW, np.int32))
        else:
            stop = min(cuts[index + 1], cuts[index] + item.size)
            found, entries = positions[cuts[index]:stop], words[cuts[index]:stop]
        origin = 8 * bases[index]
        invalid = entries >= _NO_WORD << 8
        if invalid.any():
            at = int(np.argmax(invalid))
            raise _error(index, "bits that start no code word", int(found[at]) - origin, False)
        if len(found) and int(found[-1]) + (int(entries[-1]) >> 8) > ends[index]:
            raise _error(index, "the bits end inside a code word", int(found[-1]) - origin, True)
        if len(found) < item.size:
            raise _error(index, f"the bits end after {len(found)} of {item.size} code words", ends[index] - origin,
                         True)
        results.append(entries.astype(np.uint8).tobytes())
    return results


def _error(stream: int, reason: str, bit: int, truncated: bool) -> BitStreamError:
    error = BitStreamError(reason, bit=bit, truncated=truncated)
    error.stream = stream
    return error


def _walk(source: _Joined, lanes: _Lanes) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], set[int]]:
    """Every stream's chain of word positions and their table entries, lane after lane (each stream's words in
    order; a stream's chain goes on past its count, to the end of its lanes or where it breaks), and the streams
    left to walk one word at a time (their lanes did not fall into step)."""
    guessed, guessed_words, guessed_exits = _guess(source, lanes)
    inside = guessed < lanes.bounds[:, None]
    seen = np.zeros(source.limit + 2, bool)
    seen[guessed[inside]] = True
    count = len(lanes.starts)
    version = np.zeros(count, np.int32)  # which catch-up round's walk holds for each lane
    walks: list[tuple[np.ndarray[Any, Any], ...]] = []
    meet = np.full(count, -1, np.int32)  # where the true walk meets the lane's guess (-1: it leaves the lane first)
    exits = guessed_exits.copy()
    pending = np.arange(count)
    slow: set[int] = set()
    rounds = 0
    while pending.size:
        rounds += 1
        if rounds > _ROUNDS:
            slow = set(lanes.stream[pending].tolist())
            break
        entries = np.where(lanes.first[pending], lanes.chain[pending], exits[np.maximum(pending - 1, 0)])
        which, where, what, final, met = _catch_up(source, entries, lanes.bounds[pending], lanes.table[pending],
                                                   seen)
        version[pending] = rounds
        walks.append((pending[which], where, what, np.full(len(which), rounds, np.int32)))
        meet[pending] = np.where(met, final, -1)
        leaving = np.where(met, guessed_exits[pending], final)
        changed = pending[leaving != exits[pending]] + 1
        exits[pending] = leaving
        changed = changed[changed < count]
        pending = changed[~lanes.first[changed]]
    # each lane's guess from where the true walk meets it, lane after lane (positions rise along a lane)
    first = np.where(meet >= 0, (guessed < meet[:, None]).sum(axis=1), guessed.shape[1])
    keep = (np.arange(guessed.shape[1])[None, :] >= first[:, None]) & inside
    chain, words = guessed[keep], guessed_words[keep]
    if not walks:
        return chain, words, slow
    # and in front of each lane's part, the lane's own walk before it met the guess
    lane, where, what, current = (np.concatenate([walk[part] for walk in walks]) for part in range(4))
    valid = current == version[lane]
    order = np.argsort(lane[valid], kind="stable")
    lane, where, what = lane[valid][order], where[valid][order], what[valid][order]
    lane_start = np.concatenate(([0], np.cumsum(keep.sum(axis=1))[:-1]))[lane]
    return np.insert(chain, lane_start, where), np.insert(words, lane_start, what), slow


def _guess(source: _Joined, lanes: _Lanes) -> tuple[np.ndarray[Any, Any], ...]:
    """Walk every lane at once from its first bit until it leaves the lane: (the positions, one row a lane; a
    lane that left goes on walking, its positions past its bound are not its; their table entries; where each
    lane left)."""
    positions, words = [], []
    position = lanes.starts
    bounds = lanes.bounds
    step = 0
    while True:
        word = source.word(position, lanes.table)
        positions.append(position)
        words.append(word)
        step += 1
        if step % 4 == 0 and not (position < bounds).any():  # checked every 4 steps: a few steps more, fewer calls
            break
        position = position + (word >> 8)
    visited = np.stack(positions, axis=1)
    leaving = visited[np.arange(len(bounds)), (visited < bounds[:, None]).sum(axis=1)]
    return visited, np.stack(words, axis=1), leaving


def _catch_up(source: _Joined, entries: np.ndarray[Any, Any], bounds: np.ndarray[Any, Any], table: np.ndarray[Any, Any],
              seen: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], ...]:
    """Walk each lane from its true entry until the walk meets a position its guess visited, or leaves the lane;
    only the lanes still walking are stepped. (Lane, position and table entry of every step, step after step;
    where each stopped; whether it met the guess.)"""
    limit = source.limit
    position = entries.astype(np.int32)
    final = position.copy()
    walking = np.flatnonzero((position < bounds) & ~seen[np.minimum(position, limit)])
    position = position[walking]
    lanes, steps, words = [], [], []
    while walking.size:
        word = source.word(position, table[walking])
        lanes.append(walking)
        steps.append(position)
        words.append(word)
        position = position + (word >> 8)
        final[walking] = position
        going = (position < bounds[walking]) & ~seen[np.minimum(position, limit)]
        walking, position = walking[going], position[going]
    met = (final < bounds) & seen[np.minimum(final, limit)]
    empty = np.empty(0, np.int32)
    return (*(np.concatenate(found) if found else empty for found in (lanes, steps, words)), final, met)


def _sequential(source: _Joined, table: int, position: int, end: int, count: int) -> np.ndarray[Any, Any]:
    """Up to ``count`` positions from ``position`` on, one word at a time (when lanes do not fall into step)."""
    triples = source.triples.tolist()
    lengths = (source.table[table:table + (1 << _WINDOW)] >> 8).tolist()
    found: list[int] = []
    while position < end and len(found) < count:
        found.append(position)
        position += lengths[(triples[position >> 3] >> (8 - (position & 7))) & 0xFFFF]
    return np.array(found, np.int32)


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
