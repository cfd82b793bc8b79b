"""Reading the first moves of many PGN games at once: numpy over the characters of their movetext.

Book building needs, per game, the first N main-line SAN tokens. Splitting each game's text into words
in Python costs ~20 µs a game; here the movetext of a whole batch is one byte array and the tokens are
found with a handful of array operations, the way ``polyglot``'s PGN lexer reads them: a symbol is a
run of ``[A-Za-z0-9_+#=:/-]`` starting with a letter or digit, dots and ``!``/``?`` marks separate
symbols, all-digit symbols are move numbers, ``1-0``/``0-1``/``1/2-1/2``/``*`` end the game, and the
trailing ``+``/``#`` of a move is dropped. Each move token (at most 8 characters) is packed into a
64-bit number, so the distinct tokens of the batch are found with one ``np.unique``.

Only plain movetext is read here. A game whose movetext (within the part read) holds anything else --
comments, variations, NAGs, escapes, non-ASCII text, an unknown character, a token too long to pack --
or that may hold fewer than N moves because its text was cut, is reported as not read, and the caller
reads it with the full tokenizer. The tests compare both on every corpus PGN.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["Scan", "scan"]

_SPACE, _DOT, _DIGIT, _LETTER, _SYMBOL, _CHECK, _MARK, _STAR, _OTHER = range(9)
_CLASSES = np.full(256, _OTHER, dtype=np.uint8)
for _chars, _class in ((" \t\n\r\f\v", _SPACE), (".", _DOT), ("0123456789", _DIGIT),
                       ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", _LETTER), ("_=:/-", _SYMBOL),
                       ("+#", _CHECK), ("!?", _MARK), ("*", _STAR)):
    _CLASSES[np.frombuffer(_chars.encode(), dtype=np.uint8)] = _class
# the same as a str.translate table: the text becomes its classes without an index array per character
_TO_CLASS = {code: _class for code, _class in enumerate(_CLASSES.tolist())}
_PACKED = 8  # characters of a token that fit in 64 bits
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(_PACKED + 1)], dtype=np.uint64)  # the first n bytes
_ZEROS, _SEVENTY_SIX, _HIGH_BITS = (np.uint64(int.from_bytes(bytes([b]) * 8, "little")) for b in (0x30, 0x76, 0x80))


def _pack(text: str) -> int:
    return int.from_bytes(text.encode("ascii"), "little")


_RESULTS = np.array([_pack("1-0"), _pack("0-1"), _pack("1/2-1/2")], dtype=np.uint64)


class Scan(NamedTuple):
    """The moves of the games read: game ``i`` is ``vocabulary[tokens[starts[i] + j]]`` for j < lengths[i]."""

    read: np.ndarray[Any, Any]
    """Per game: True when read here; False: the caller must read it with the full tokenizer."""
    tokens: np.ndarray[Any, Any]
    starts: np.ndarray[Any, Any]
    lengths: np.ndarray[Any, Any]
    vocabulary: list[str]


def scan(heads: list[str], truncated: list[bool], max_ply: int) -> Scan:
    """The first ``max_ply`` moves of each movetext ``heads[i]``; ``truncated[i]``: the text goes on after it."""
    count = len(heads)
    read = np.ones(count, dtype=bool)
    if not all(head.isascii() for head in heads):
        for number, head in enumerate(heads):
            if not head.isascii():
                read[number] = False
        heads = [head if head.isascii() else "" for head in heads]
    sizes = np.fromiter((len(head) + 1 for head in heads), dtype=np.int64, count=count)
    head_starts = np.zeros(count, dtype=np.int64)
    np.cumsum(sizes[:-1], out=head_starts[1:])
    joined = "\n".join(heads) + "\n"
    data = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    classes = np.frombuffer(joined.translate(_TO_CLASS).encode("ascii"), dtype=np.uint8)
    del joined

    def game_of(positions: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.searchsorted(head_starts, positions, side="right") - 1

    others = np.flatnonzero(classes == _OTHER)
    if len(others):
        read[game_of(others)] = False
    symbol = (classes - np.uint8(_DIGIT)) <= np.uint8(_CHECK - _DIGIT)  # digit, letter, symbol or check mark
    run_starts = np.flatnonzero(symbol[1:] & ~symbol[:-1]) + 1  # the text starts with a game's movetext: see below
    if symbol[0]:
        run_starts = np.concatenate(([0], run_starts))
    run_ends = np.flatnonzero(symbol[:-1] & ~symbol[1:])  # the text ends with a newline: every run ends
    # a token ends before its trailing check marks (a run starts with a letter or digit, so one is left)
    while True:
        checks = classes[run_ends] == _CHECK
        if not checks.any():
            break
        run_ends[checks] -= 1
    starts, ends = run_starts, run_ends
    length = ends - starts + 1
    # the 8 bytes from each token's start as one number (an unaligned view of the text), cut to its length
    padded = np.concatenate((data, np.zeros(_PACKED, dtype=np.uint8)))
    words = np.ndarray((len(data),), dtype="<u8", buffer=padded, strides=(1,))
    value = words[starts] & _MASKS[np.minimum(length, _PACKED)]
    # all digits? XOR '0' leaves 0-9 for a digit and more for every other symbol character; the lanes past
    # the token read as '0'
    lanes = (value | (_ZEROS & ~_MASKS[np.minimum(length, _PACKED)])) ^ _ZEROS
    digits_only = ((lanes + _SEVENTY_SIX) & _HIGH_BITS) == 0
    first = classes[starts]
    bad = ((first != _DIGIT) & (first != _LETTER)) | (length > _PACKED)
    if bad.any():
        read[game_of(starts[bad])] = False
    tokens_kept = ~digits_only  # move numbers are skipped
    starts, value, first = starts[tokens_kept], value[tokens_kept], first[tokens_kept]
    games = game_of(starts)
    result = np.isin(value, _RESULTS) & (first == _DIGIT)
    # the first result (or *) of a game ends its moves
    stars = np.flatnonzero(classes == _STAR)
    end_of_game = np.full(count, len(data), dtype=np.int64)
    np.minimum.at(end_of_game, np.concatenate((games[result], game_of(stars))),
                  np.concatenate((starts[result], stars)))
    moves = ~result & (starts < end_of_game[games])
    starts, games, value = starts[moves], games[moves], value[moves]
    rank = np.arange(len(games)) - np.searchsorted(games, games, side="left")
    within = rank < max_ply
    games, value = games[within], value[within]
    lengths = np.bincount(games, minlength=count)
    short = np.asarray(truncated, dtype=bool) & (lengths < max_ply)
    read &= ~short
    lengths[~read] = 0
    keep = read[games]
    games, value = games[keep], value[keep]
    unique, tokens = np.unique(value, return_inverse=True)
    vocabulary = [int(v).to_bytes(_PACKED, "little").rstrip(b"\0").decode("ascii") for v in unique.tolist()]
    starts_of = np.searchsorted(games, np.arange(count), side="left")
    return Scan(read, tokens.astype(np.int64).reshape(-1), starts_of.astype(np.int64), lengths.astype(np.int64),
                vocabulary)
