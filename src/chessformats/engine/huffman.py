"""Huffman-coded bit streams decoded and encoded at numpy speed: the first stage of a ChessBase archive block.

A code is given as two 256-entry lists, ``lengths`` (bits of each byte's code word, 0: the byte has none) and
``codes`` (the code word, as an integer of that many bits). Bits are read most significant first.

Decoding is a chain: where a code word starts depends on every word before it. :func:`decode` breaks the chain
the way parallel Huffman decoders do. First, for *every* bit position, the word that would start there is
looked up in one 65,536-entry table indexed by the next 16 bits (one numpy gather over the whole stream), which
gives the position of the following word. Then the stream is cut into lanes of :data:`LANE_BITS` bits, and
every lane is walked at once (one numpy step per word, all lanes together) from the lane's first bit, as if a
word started there. A lane whose guess was wrong falls into step with the true word boundaries after a few
words (a prefix code resynchronises): the true walk, coming from the lane before, meets a position the lane
visited, and from there the lane's positions are the true ones. Lanes that never meet the true walk are walked
again from the true position, and past a few such rounds the rest is walked one word at a time. The result is
the same as reading the words one by one; only the order of the work differs.

When several code words are declared for one prefix, the shortest wins, and of equal words the later byte
(as a tree built word after word decodes).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = ["LANE_BITS", "MAX_LENGTH", "BitStreamError", "build_code", "decode", "decode_table", "encode"]

MAX_LENGTH = 15
"""The longest code word (its length is a 4-bit field in ChessBase's code table)."""

LANE_BITS = 512
"""Bits per lane of the parallel walk (a multiple of 8, so that a code of 8-bit words is in step at once)."""

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
        super().__init__(reason)


def decode_table(lengths: Sequence[int], codes: Sequence[int]) -> np.ndarray[Any, Any]:
    """The lookup table: for each 16-bit window, ``length << 8 | byte`` of the word it starts with (0: none)."""
    table = np.zeros(1 << _WINDOW, np.uint16)
    order = sorted((-length, byte) for byte, length in enumerate(lengths) if length)
    for negative, byte in order:  # longest first: a shorter word that is a prefix of a longer one wins
        length = -negative
        if length > MAX_LENGTH:
            raise ValueError(f"code word of byte {byte} has {length} bits (at most {MAX_LENGTH})")
        low = (codes[byte] & ((1 << length) - 1)) << (_WINDOW - length)
        table[low:low + (1 << (_WINDOW - length))] = (length << 8) | byte
    return table


def _triples(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """For every byte of ``data``, it and the two after it as one 24-bit integer (zeros past the end; a few
    more entries than bytes, so that a position just past the end can still be looked up)."""
    padded = np.zeros(len(data) + 4, np.int32)
    padded[:len(data)] = data
    return (padded[:-2] << 16) | (padded[1:-1] << 8) | padded[2:]


_NO_WORD = 1 << 24
"""The length given to a window that starts no word: any position it leads to is past the end."""


def decode(data: bytes | memoryview | np.ndarray[Any, Any], start_bit: int, table: np.ndarray[Any, Any],
           count: int) -> bytes:
    """``count`` bytes decoded from the code words of ``data`` starting at bit ``start_bit``, with the table of
    :func:`decode_table`. Bits after the last word are ignored. Raises :class:`BitStreamError`."""
    buffer = np.frombuffer(data, np.uint8) if not isinstance(data, np.ndarray) else data
    total = len(buffer) * 8
    if count == 0:
        return b""
    if start_bit >= total:
        raise BitStreamError("no bits left for the coded bytes", bit=start_bit, truncated=True)
    triples = _triples(buffer)
    lengths = (table >> 8).astype(np.int32)
    lengths[lengths == 0] = _NO_WORD
    positions = _walk(_Stream(triples, lengths, total), start_bit, count)
    words = table[(triples[positions >> 3] >> (8 - (positions & 7))) & 0xFFFF]
    after = positions + (words >> 8)
    broken = (after > total) | (words == 0)
    if broken.any():
        first = int(np.argmax(broken))
        at, truncated = int(positions[first]), bool(words[first] != 0)
        raise BitStreamError("the bits end inside a code word" if truncated else "bits that start no code word",
                             bit=at, truncated=truncated)
    if len(positions) < count:
        raise BitStreamError(f"the bits end after {len(positions)} of {count} code words", bit=total,
                             truncated=True)
    return (words & 0xFF).astype(np.uint8).tobytes()


class _Stream(NamedTuple):
    triples: np.ndarray[Any, Any]
    lengths: np.ndarray[Any, Any]
    total: int

    def following(self, position: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """Where the word after the one at each position starts (past ``total`` when there is none)."""
        at = np.minimum(position, self.total)
        return position + self.lengths[(self.triples[at >> 3] >> (8 - (at & 7))) & 0xFFFF]


def _walk(stream: _Stream, start: int, count: int) -> np.ndarray[Any, Any]:
    """The positions of the first ``count`` words of the chain from ``start`` (fewer when it ends or breaks)."""
    total = stream.total
    starts = np.arange(start, total, LANE_BITS, dtype=np.int32)
    bounds = np.minimum(starts + LANE_BITS, total).astype(np.int32)
    guessed, guessed_exits = _lanes(stream, starts, bounds)
    seen = np.zeros(total + 1, bool)
    seen[guessed[guessed >= 0]] = True
    lanes = len(starts)
    prefix = np.full((1, lanes), -1, np.int32)  # the true walk in each lane until it meets the lane's guess
    meet = np.full(lanes, -1, np.int32)  # where it meets it (-1: it leaves the lane first)
    exits = guessed_exits.copy()
    pending = np.arange(lanes)
    rounds = 0
    while pending.size:
        rounds += 1
        if rounds > _ROUNDS:
            first = int(pending[0])
            done = _gather(prefix[:, :first], guessed[:, :first], meet[:first], count)
            entry = start if first == 0 else int(exits[first - 1])
            return np.concatenate((done, _sequential(stream, entry, count - len(done))))
        entries = np.where(pending == 0, start, exits[pending - 1]).astype(np.int32)
        rows, final, met = _catch_up(stream, entries, bounds[pending], seen)
        if len(rows) > len(prefix):
            prefix = np.vstack((prefix, np.full((len(rows) - len(prefix), lanes), -1, np.int32)))
        prefix[:, pending] = -1
        prefix[:len(rows), pending] = rows
        meet[pending] = np.where(met, final, -1)
        leaving = np.where(met, guessed_exits[pending], final)
        changed = pending[leaving != exits[pending]]
        exits[pending] = leaving
        pending = changed[changed + 1 < lanes] + 1
    return _gather(prefix, guessed, meet, count)


def _lanes(stream: _Stream, starts: np.ndarray[Any, Any],
           bounds: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Walk every lane at once from its start until it passes its bound: (positions visited, one row a step,
    -1 where a lane had already passed its bound; where each lane left)."""
    rows = []
    position = starts.copy()
    inside = position < bounds
    while inside.any():
        rows.append(np.where(inside, position, -1))
        position = np.where(inside, stream.following(position), position)
        inside = position < bounds
    visited = np.array(rows, np.int32) if rows else np.full((1, len(starts)), -1, np.int32)
    return visited, position


def _catch_up(stream: _Stream, entries: np.ndarray[Any, Any], bounds: np.ndarray[Any, Any],
              seen: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Walk each lane from its true entry until the walk meets a position the lane's guess visited, or leaves
    the lane: (positions before that, one row a step; where each walk stopped; whether it met the guess)."""
    rows = []
    position = entries.copy()
    limit = stream.total
    active = (position < bounds) & ~seen[np.minimum(position, limit)]
    while active.any():
        rows.append(np.where(active, position, -1))
        position = np.where(active, stream.following(position), position)
        active = (position < bounds) & ~seen[np.minimum(position, limit)]
    met = (position < bounds) & seen[np.minimum(position, limit)]
    found = np.array(rows, np.int32) if rows else np.empty((0, len(entries)), np.int32)
    return found, position, met


def _gather(prefix: np.ndarray[Any, Any], guessed: np.ndarray[Any, Any], meet: np.ndarray[Any, Any],
            count: int) -> np.ndarray[Any, Any]:
    """The true positions, lane after lane: each lane's own walk, then its guess from where the two meet."""
    found = guessed == meet[None, :]
    first = np.where(meet >= 0, found.argmax(axis=0), len(guessed))
    keep_guess = (np.arange(len(guessed))[:, None] >= first[None, :]) & (guessed >= 0)
    combined = np.vstack((prefix, guessed))
    keep = np.vstack((prefix >= 0, keep_guess))
    return combined.T[keep.T][:count]


def _sequential(stream: _Stream, position: int, count: int) -> np.ndarray[Any, Any]:
    """Up to ``count`` positions from ``position`` on, one word at a time (when lanes do not fall into step)."""
    triples = stream.triples.tolist()
    lengths = stream.lengths.tolist()
    total = stream.total
    found: list[int] = []
    while position < total and len(found) < count:
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
