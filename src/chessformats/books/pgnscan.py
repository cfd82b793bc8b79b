"""Reading the first moves of many PGN games at once: numpy over the characters of their movetext.

Book building needs, per game, the first N main-line SAN tokens. Splitting each game's text into words
in Python costs ~20 µs a game; here the movetext of a whole batch is one byte array and the tokens are
found with a handful of array operations, the way ``polyglot``'s PGN lexer reads them: a symbol is a
run of ``[A-Za-z0-9_+#=:/-]`` starting with a letter or digit, dots and ``!``/``?`` marks separate
symbols, all-digit symbols are move numbers, ``1-0``/``0-1``/``1/2-1/2``/``*`` end the game, and the
trailing ``+``/``#`` of a move is dropped. Each move token (at most 8 characters) is packed into a
64-bit number; the distinct tokens of the batch are found with a hash table of those numbers (a few
passes over the tokens, no sort of them all), and numbered in their sorted order.

Only plain movetext is read here. A game whose movetext (within the part read) holds anything else --
comments, variations, NAGs, escapes, non-ASCII text, an unknown character, a token too long to pack, a
result with a check mark, python-chess's null moves ``--`` and ``@@@@`` (a run not starting with a letter or
digit; an unknown character) -- or whose text was cut before its moves are known for sure, is reported as not
read, and the caller reads it with the full tokenizer. A cut text (``truncated``) may end inside a token:
its last symbol is not read unless something follows it, and its moves are known once the text read holds
N + 1 moves (then the tokenizer stops at move N + 1 whatever comes after) or the game's result. The tests
compare both readers on every corpus PGN.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, overload

import numpy as np

__all__ = ["Packed", "Scan", "scan"]

# the symbol characters (digits, letters, other symbol characters, check marks) are the classes from _DIGIT up
_SPACE, _DOT, _MARK, _STAR, _OTHER, _DIGIT, _LETTER, _SYMBOL, _CHECK = range(9)
_CLASSES = np.full(256, _OTHER, dtype=np.uint8)
for _chars, _class in ((" \t\n\r\f\v", _SPACE), (".", _DOT), ("0123456789", _DIGIT),
                       ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", _LETTER), ("_=:/-", _SYMBOL),
                       ("+#", _CHECK), ("!?", _MARK), ("*", _STAR)):
    _CLASSES[np.frombuffer(_chars.encode(), dtype=np.uint8)] = _class
# the same as a bytes.translate table: the text becomes its classes without an index array per character
_BYTE_CLASSES = _CLASSES.tobytes()
_PACKED = 8  # characters of a token that fit in 64 bits
PADDING = "\n" * _PACKED


def every_lane(byte: int) -> np.uint64:
    """``byte`` in each of the eight byte lanes of a 64-bit word (for tests of eight characters at once)."""
    word: np.uint64 = np.uint64(int.from_bytes(bytes([byte]) * 8, "little"))
    return word


FIRST_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(_PACKED + 1)], dtype=np.uint64)
"""By ``n``: the mask of a word's first (lowest) ``n`` bytes."""
ZEROS, SEVENTY_SIX, HIGH_BITS = (every_lane(byte) for byte in (0x30, 0x76, 0x80))
"""The digit test: a byte is a digit when ``((byte ^ 0x30) + 0x76) & 0x80`` is set (per lane)."""
# the hash table numbering the tokens: 2**_HASH_BITS slots, a slot is the top bits of token × an odd constant
_HASH_BITS = 16
_HASH_MULTIPLIER, _HASH_SHIFT = np.uint64(0x9E3779B97F4A7C15), np.uint64(64 - _HASH_BITS)


def _pack(text: str) -> int:
    return int.from_bytes(text.encode("ascii"), "little")


_RESULTS = [np.uint64(_pack(result)) for result in ("1-0", "0-1", "1/2-1/2")]


class Scan(NamedTuple):
    """The moves of the games read: game ``i`` is ``vocabulary[tokens[starts[i] + j]]`` for j < lengths[i]."""

    read: np.ndarray[Any, Any]
    """Per game: True when read here; False: the caller must read it with the full tokenizer."""
    tokens: np.ndarray[Any, Any]
    starts: np.ndarray[Any, Any]
    lengths: np.ndarray[Any, Any]
    vocabulary: list[str]
    short: np.ndarray[Any, Any]
    """Per game: not read only because its text was cut too soon (a longer text may be read)."""


class Packed(Sequence[str]):
    """Movetexts as :func:`scan` reads them, already one ASCII byte string: ``"\\n"`` before each, one after the
    last, then :data:`PADDING` (what :mod:`~chessformats.books.heads` gathers; no copy of them made again)."""

    def __init__(self, data: bytes, sizes: np.ndarray[Any, Any]) -> None:
        self.data, self.sizes = data, sizes

    @classmethod
    def join(cls, parts: Sequence[Packed]) -> Packed:
        """The movetexts of ``parts``, one after the other."""
        if len(parts) == 1:
            return parts[0]
        data = b"".join([b"\n", *(memoryview(part.data)[1:-len(PADDING)] for part in parts), PADDING.encode()])
        return cls(data, np.concatenate([part.sizes for part in parts]))

    def __len__(self) -> int:
        return len(self.sizes)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        index = range(len(self))[index]
        start = int(np.sum(self.sizes[:index], dtype=np.int64)) + index + 1
        return self.data[start:start + int(self.sizes[index])].decode("ascii")

    def __iter__(self) -> Iterator[str]:
        text, start = self.data.decode("ascii"), 1
        for size in self.sizes.tolist():
            yield text[start:start + size]
            start += size + 1


def _first_of_each(games: np.ndarray[Any, Any], count: int) -> np.ndarray[Any, Any]:
    """Index of the first item of each game in ``games`` (sorted game numbers); -1 for a game without one."""
    first = np.full(count, -1, dtype=np.int64)
    if len(games):
        new = np.ones(len(games), dtype=bool)
        np.not_equal(games[1:], games[:-1], out=new[1:])
        where = np.flatnonzero(new)
        first[games[where]] = where
    return first


def _number(values: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``np.unique(values, return_inverse=True)`` for many values with few distinct ones (a hash table)."""
    slots = (values * _HASH_MULTIPLIER) >> _HASH_SHIFT
    table = np.zeros(1 << _HASH_BITS, dtype=np.uint64)
    table[slots] = values  # one of the values of each slot wins
    hit = table[slots] == values
    used = np.zeros(1 << _HASH_BITS, dtype=bool)
    used[slots[hit]] = True
    occupied = np.flatnonzero(used)
    lost = values[~hit]  # the values that lost their slot to another one
    if len(lost):  # (np.unique would import numpy.ma: 15 ms at its first call)
        lost_sorted = np.sort(lost)
        different = np.ones(len(lost_sorted), dtype=bool)
        np.not_equal(lost_sorted[1:], lost_sorted[:-1], out=different[1:])
        distinct = np.concatenate((table[occupied], lost_sorted[different]))
    else:
        distinct = table[occupied]
    order = np.argsort(distinct, kind="stable")
    unique = distinct[order]
    rank = np.empty(len(unique), dtype=np.int64)
    rank[order] = np.arange(len(unique), dtype=np.int64)
    of_slot = np.zeros(1 << _HASH_BITS, dtype=np.int64)
    of_slot[occupied] = rank[:len(occupied)]
    inverse = of_slot[slots]
    if len(lost):
        inverse[~hit] = np.searchsorted(unique, lost)
    return unique, inverse


def scan(heads: Sequence[str], truncated: list[bool], max_ply: int) -> Scan:
    """The first ``max_ply`` moves of each movetext ``heads[i]``; ``truncated[i]``: the text goes on after it
    (possibly within a token)."""
    count = len(heads)
    read = np.ones(count, dtype=bool)
    if isinstance(heads, Packed):
        data = heads.data
    else:
        if not "".join(heads).isascii():
            for number, head in enumerate(heads):
                if not head.isascii():
                    read[number] = False
            heads = [head if head.isascii() else "" for head in heads]
        # "\n" + head 0 + "\n" + head 1 ... + "\n": every symbol run has a blank before and after it; the padding
        # lets 8 bytes be read from any character
        data = "\n".join(["", *heads, PADDING]).encode("ascii")
    classes = np.frombuffer(data.translate(_BYTE_CLASSES), dtype=np.uint8)
    # positions in 32 bits when they fit: the arrays of the runs are most of the memory (and its first touch
    # most of the time)
    index = np.int32 if len(data) <= np.iinfo(np.int32).max else np.int64
    sizes = heads.sizes.astype(index) if isinstance(heads, Packed) else np.fromiter(map(len, heads), dtype=index,
                                                                                     count=count)
    head_starts = np.empty(count, dtype=index)
    head_starts[:1] = 1
    np.cumsum(sizes[:-1] + 1, out=head_starts[1:])
    head_starts[1:] += 1

    def game_of(positions: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.searchsorted(head_starts, positions, side="right") - 1

    others = np.flatnonzero(classes == _OTHER)
    if len(others):
        read[game_of(others)] = False
    symbol = classes >= _DIGIT
    starts = np.flatnonzero(symbol[1:] > symbol[:-1]).astype(index)
    starts += 1
    ends = np.flatnonzero(symbol[:-1] > symbol[1:]).astype(index)  # the last character of each run
    del symbol
    # the runs of each game (in order); the last run of a cut text may be part of a token: it is left out
    first_run = np.searchsorted(starts, head_starts)
    runs = np.diff(first_run, append=len(starts))
    games = np.repeat(np.arange(count, dtype=index), runs)
    tail = np.zeros(len(starts), dtype=bool)
    cut = np.asarray(truncated, dtype=bool) & (runs > 0)
    last = first_run[cut] + runs[cut] - 1
    tail[last[ends[last] == head_starts[cut] + sizes[cut] - 1]] = True
    # a token ends before its trailing check marks (a run starts with a letter or digit, so one is left)
    checked = classes[ends] == _CHECK
    np.subtract(ends, checked, out=ends, casting="unsafe")
    more = np.flatnonzero(checked)
    while len(more):
        more = more[classes[ends[more]] == _CHECK]
        ends[more] -= 1
    length = ends - starts
    length += 1
    bad = length > _PACKED
    np.minimum(length, _PACKED, out=length)
    mask = FIRST_BYTES[length]
    del length
    # the 8 bytes from each token's start as one number (an unaligned view of the text), cut to its length
    words = np.ndarray((len(data) - _PACKED,), dtype="<u8", buffer=data, strides=(1,))
    value = words[starts]
    value &= mask
    first = classes[starts]
    bad |= (first - np.uint8(_DIGIT)) > 1  # neither a digit nor a letter first
    # a move number is all digits: XOR '0' leaves 0-9 for a digit and more for any other symbol character (then
    # adding 0x76 sets the lane's high bit), 0 past the token (in place: the mask is not needed any more)
    mask &= ZEROS
    mask ^= value
    mask += SEVENTY_SIX
    mask &= HIGH_BITS
    number = mask == 0
    del mask
    result = (first == _DIGIT) & ((value == _RESULTS[0]) | (value == _RESULTS[1]) | (value == _RESULTS[2]))
    result &= ~tail
    # a result with a check mark is a move token of the tokenizer unless it ends plain movetext: not read here
    bad |= result & checked
    bad &= ~tail
    if bad.any():
        read[games[bad]] = False
    # the first result (or *) of a game ends its moves
    end_of_game = np.full(count, len(data), dtype=index)
    ending = np.flatnonzero(result)
    first_result = _first_of_each(games[ending], count)
    has_result = first_result >= 0
    end_of_game[has_result] = starts[ending[first_result[has_result]]]
    stars = np.flatnonzero(classes == _STAR)
    if len(stars):
        star_games = game_of(stars)
        first_star = _first_of_each(star_games, count)
        has_star = first_star >= 0
        end_of_game[has_star] = np.minimum(end_of_game[has_star], stars[first_star[has_star]])
    number |= result
    number |= tail
    picked = np.flatnonzero(np.less(starts, end_of_game[games]) > number)  # before the end, and a move
    games = games[picked]
    moves = np.diff(np.searchsorted(games, np.arange(count + 1, dtype=index)))  # games is sorted
    # a cut text is read when it holds the game's end or a move past the last one wanted
    short = np.asarray(truncated, dtype=bool) & (end_of_game == len(data)) & (moves <= max_ply)
    short &= read
    read &= ~short
    lengths = np.minimum(moves, max_ply)
    lengths[~read] = 0
    move_ends = np.cumsum(moves, dtype=np.int64)  # the moves of game i are moves[move_ends[i] - moves[i]:...]
    wanted = np.minimum(move_ends - moves + max_ply, move_ends).astype(index)  # (wanted: before wanted[i])
    keep = np.arange(len(games), dtype=index) < wanted[games]
    keep &= read[games]
    value = value[picked[keep]]
    unique, tokens = _number(value) if len(value) else (value, np.zeros(0, dtype=np.int64))
    vocabulary = [int(v).to_bytes(_PACKED, "little").rstrip(b"\0").decode("ascii") for v in unique.tolist()]
    starts_of = np.zeros(count, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts_of[1:])
    return Scan(read, tokens.astype(np.int64).reshape(-1), starts_of, lengths.astype(np.int64), vocabulary, short)
