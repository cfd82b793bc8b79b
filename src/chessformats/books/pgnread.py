"""Reading PGN text for the book builder: opening plain or compressed files, cutting the text into games,
reading their headers for what the builder needs (:func:`read_headers`; the tags themselves only when asked
for: :class:`HeaderTags`), and reading one game's tags and main-line SAN tokens the way ``polyglot
make-book``'s lexer does.

The whole-batch fast path over plain movetext is :mod:`chessformats.books.pgnscan`; this module is the
per-game reader it falls back to (``;`` comments, escapes, odd tokens; brace comments, NAGs and variations are
blanked out for the scan by :mod:`~chessformats.books.heads`).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator, Sequence
from typing import IO, Any, cast, overload

import numpy as np

from ..engine.streams import open_binary
from .pgnscan import FIRST_BYTES, every_lane

__all__ = ["GAME_BREAK", "HEADER", "TAG", "HeaderTags", "game_spans", "open_text", "parse_game", "read_headers",
           "split_games"]

GAME_BREAK = re.compile(r"\n[ \t\r]*\n(?=[ \t\r]*\[)")
_NOT_BLANK = re.compile(r"\S")
_VALUE = r'[^"\\]*(?:\\.[^"\\]*)*'  # a tag's value: any character but '"' and '\', or '\' and one (unrolled)
TAG = re.compile(rf'\[\s*([A-Za-z0-9_]+)\s+"({_VALUE})"\s*\]')
HEADER = re.compile(rf'(?:\s*\[\s*[A-Za-z0-9_]+\s+"{_VALUE}"\s*\])*')
# HEADER, and in passing: group 1 the value of the last Result tag, group 2 the name of the last FEN, SetUp or
# Variant tag (a repeated group keeps its last match; each alternative is TAG's pattern for its names)
_HEADER_FIELDS = re.compile(
    rf'(?:\s*\[\s*(?:Result\s+"({_VALUE})"|(FEN|SetUp|Variant)\s+"{_VALUE}"|[A-Za-z0-9_]+\s+"{_VALUE}")\s*\])*')
# the same for plain headers, faster: tags one a line, one blank before the value, no '"', '\' or newline in it
# (each such tag is a TAG match of the same extent); it fails where HEADER might go on (a '[' after blanks),
# and then HEADER's own pattern is used
_PLAIN = r'[^"\\\n]*'
_PLAIN_FIELDS = re.compile(
    rf'(?:\n?\[(?:Result "({_PLAIN})"|(FEN|SetUp|Variant) "{_PLAIN}"|[A-Za-z0-9_]+ "{_PLAIN}")\])+(?!\s*\[)')
# movetext tokens as polyglot's lexer sees them; comments, NAGs and move numbers are told apart by group
_TOKEN = re.compile(
    r"(\{[^}]*\}?|;[^\n]*|^%[^\n]*)"  # 1: comments
    r"|(\()|(\))"  # 2, 3: variations
    r"|(\$\d+|[!?]+|\.+)"  # 4: NAGs and the dots after move numbers
    r"|([A-Za-z0-9][A-Za-z0-9_+#=:/-]*|\*)",  # 5: symbols: moves, move numbers (all digits), results
    re.M,
)
_NO_MARKS = str.maketrans("", "", "+#!?")
# comments, variations, NAGs, escapes and brackets send movetext to the full tokenizer
_COMPLEX = re.compile(r"[{}();%$\[\]<>]")
_ENDINGS = frozenset(("1-0", "0-1", "1/2-1/2", "*"))
# movetext without comments, variations or NAGs: single blanks, move numbers and moves (a move ends at a blank
# or at the end: no backtracking into it), then the result; written so that matching stays linear
_SIMPLE = re.compile(r"(?:\s|\d+\.+|[A-Za-z][A-Za-z0-9_=:/-]*(?![A-Za-z0-9_=:/-]))*(?:(?:1-0|0-1|1/2-1/2|\*)\s*)?")
_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9_=:/-]*")


def open_text(path: str | os.PathLike[str]) -> IO[str]:
    """Open a PGN file for reading text, decompressing ``.gz``, ``.bz2``, ``.xz`` and ``.zst``.

    A damaged compressed stream (bad CRC, cut short, not the format its name says) raises a ``FormatError``
    (:class:`~chessformats.engine.errors.InvalidValueError`, or ``TruncatedError`` for a file cut short) with
    the file's name and the compressed offset (see :mod:`chessformats.engine.streams`).
    """
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace", newline=None)


def split_games(text: str, base_offset: int = 0) -> Iterator[tuple[int, str]]:
    """``(offset, game text)`` of every game: games are separated by a blank line before a tag.

    A break inside a brace comment (unbalanced ``{``) is not a game boundary.
    """
    for start, end in game_spans(text):
        yield base_offset + start, text[start:end]


def game_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` in ``text`` of every game (see :func:`split_games`).

    A game break (:data:`GAME_BREAK`) is one when the text since the last one holds no more ``{`` than ``}``.
    Both are found with numpy, :data:`_CHUNK` characters at a time: a break starts at a newline, and is one
    where a newline and a ``[`` follow it (the pattern tells where blanks do); the braces before each break are
    a sum over the chunk."""
    start = 0
    balance = 0  # '{' less '}' before the last game break taken
    before = 0  # '{' less '}' before the chunk
    for chunk in range(0, len(text), _CHUNK):
        size = min(_CHUNK, len(text) - chunk)
        # its characters a byte each, then at least two more, to a multiple of 8 (zeros past the text's end)
        length = (size + 9) & ~7
        data = np.frombuffer(text[chunk:chunk + length].encode("latin-1", "replace"), dtype=np.uint8)
        if len(data) < length:  # (the end of the text)
            data = np.concatenate((data, np.zeros(length - len(data), dtype=np.uint8)))
        breaks = _breaks(text, chunk, data, size)
        balances, total = _brace_balances(data, size, [at - chunk for at, _ in breaks])
        for (at, end), at_break in zip(breaks, (before + balances).tolist(), strict=True):
            if at_break > balance:
                continue  # the blank line is inside a comment: keep going
            if _NOT_BLANK.search(text, start, at):
                yield start, at
            start, balance = end, at_break  # (a break holds no brace)
        before += total
    if _NOT_BLANK.search(text, start):
        yield start, len(text)


def _breaks(text: str, chunk: int, data: np.ndarray[Any, Any], size: int) -> list[tuple[int, int]]:
    """The :data:`GAME_BREAK` matches starting in ``text[chunk:chunk + size]`` (``data``: its characters, a
    byte each, and two more bytes), as ``(start, end)``. A match starts at a newline and ends at the next
    newline with blanks alone between them (so no two overlap, and each is one that ``finditer`` finds)."""
    newlines = np.flatnonzero(data[:size] == _NEWLINE)
    following, then = data[newlines + 1], data[newlines + 2]
    near_end = newlines >= size - 2
    blank = (following == _SPACE) | (following == _TAB) | (following == _RETURN)
    double = following == _NEWLINE
    sure = double & (then == _BRACKET) & ~near_end  # "\n\n["
    unsure = blank | (double & ((then == _SPACE) | (then == _TAB) | (then == _RETURN))) | near_end
    found = []
    for newline, certain in zip(newlines[sure | unsure].tolist(), sure[sure | unsure].tolist(), strict=True):
        at = chunk + newline
        if certain:
            found.append((at, at + 2))
        elif match := GAME_BREAK.match(text, at):
            found.append((at, match.end()))
    return found


def _brace_balances(data: np.ndarray[Any, Any], size: int, places: list[int]) -> tuple[np.ndarray[Any, Any], int]:
    """``{`` less ``}`` in ``data[:size]`` (characters, a byte each; ``len(data)`` a multiple of 8) before each of
    ``places`` (increasing, each before ``size``), and in all of it.

    Each byte counts 1 - (``{``) + (``}``): 0, 1 or 2, so the balance before a place is the place less their sum.
    Eight bytes are one 64-bit number, their counts summed by one multiplication (each byte's sum of the bytes
    up to it, 16 at most, carries nothing into the next): the top byte of the product. The sums of the
    numbers between places are then one ``reduceat`` over an eighth of the bytes."""
    lanes = (data != _OPEN).view(np.uint8)
    np.add(lanes, (data == _CLOSE).view(np.uint8), out=lanes)
    counts = lanes.view("<u8") * _ONES
    counts >>= _FIFTY_SIX
    at = np.array([*places, size], dtype=np.int64)  # (the balance before ``size``: all of it)
    edges = np.concatenate(([0], at >> 3))
    sums = np.add.reduceat(counts.view(np.int64), edges)
    sums[:-1][edges[:-1] == edges[1:]] = 0  # (reduceat gives the first item of an empty range)
    # each place's balance: the place less the counts of the numbers before its number, and of its number's
    # bytes before it
    within = ((lanes.view("<u8")[edges[1:]] & FIRST_BYTES[at & 7]) * _ONES) >> _FIFTY_SIX
    balances: np.ndarray[Any, Any] = at - np.cumsum(sums)[:-1] - within.view(np.int64)
    return balances[:-1], int(balances[-1])


_ONES, _FIFTY_SIX = every_lane(1), np.uint64(56)
_CHUNK = 1 << 20
_OPEN, _CLOSE, _NEWLINE, _SPACE, _TAB, _RETURN, _BRACKET = b"{}\n \t\r["


def read_headers(text: str, spans: list[tuple[int, int]]) -> tuple[list[int], list[str | None], list[bool]]:
    """Per game at ``spans`` of ``text``: where its tags end (:data:`HEADER`), the value of its ``Result`` tag
    (``None``: none), and whether it has a ``FEN``, ``SetUp`` or ``Variant`` tag; one match a game, no tags
    dictionary (see :class:`HeaderTags`)."""
    plain, match = _PLAIN_FIELDS.match, _HEADER_FIELDS.match
    # the second pattern matches every text (its tags, maybe none, are a repetition)
    headers = cast("list[re.Match[str]]", [plain(text, start, end) or match(text, start, end) for start, end in spans])
    return ([header.end() for header in headers], [header.group(1) for header in headers],
            [header.group(2) is not None for header in headers])


class HeaderTags(Sequence[dict[str, str]]):
    """The tags of games whose headers are ``text[starts[i]:ends[i]]``, each read when asked for:
    ``dict(TAG.findall(...))``, what :func:`parse_game` gives."""

    def __init__(self, text: str, starts: list[int], ends: list[int]) -> None:
        self._text, self._starts, self._ends = text, starts, ends

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> dict[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> HeaderTags: ...

    def __getitem__(self, index: int | slice) -> dict[str, str] | HeaderTags:
        if isinstance(index, slice):
            return HeaderTags(self._text, self._starts[index], self._ends[index])
        return dict(TAG.findall(self._text, self._starts[index], self._ends[index]))

    def __iter__(self) -> Iterator[dict[str, str]]:
        text = self._text
        return (dict(TAG.findall(text, start, end)) for start, end in zip(self._starts, self._ends, strict=True))

    def take(self, indices: list[int]) -> HeaderTags:
        """The tags of the games at ``indices``."""
        return HeaderTags(self._text, [self._starts[i] for i in indices], [self._ends[i] for i in indices])


def parse_game(text: str, max_ply: int) -> tuple[dict[str, str], list[str], str | None]:
    """Tags, the first ``max_ply`` main-line SAN tokens (``+``/``#`` stripped), and an error if any."""
    header = HEADER.match(text)
    position = header.end() if header else 0
    tags = dict(TAG.findall(text, 0, position))
    # Most movetext has no comments or variations: then the symbols are all there is to read.
    head = text[position:position + 16 * max_ply + 64]
    truncated = len(head) < len(text) - position
    if truncated:
        head = head[:max(head.rfind(" "), head.rfind("\n"), 0)]
    if not _COMPLEX.search(head):
        # Check marks and !? off, the movetext must be moves, "12." / "12..." move numbers and at its end the
        # result; then the words that start with a letter are the moves.
        head = head.translate(_NO_MARKS)
        if _SIMPLE.fullmatch(head):
            symbols = _SYMBOL.findall(head)
            if len(symbols) >= max_ply or not truncated:
                return tags, symbols[:max_ply], None
    moves: list[str] = []
    depth = 0
    for match in _TOKEN.finditer(text, position):
        symbol = match.group(5)
        if symbol is not None:
            if symbol.isdigit():
                continue  # a move number
            if symbol in _ENDINGS:
                if depth:
                    return tags, moves, "result inside a variation"
                return tags, moves, None
            if depth == 0:
                if len(moves) >= max_ply:
                    return tags, moves, None  # polyglot reads no further moves (it checks no more either)
                moves.append(symbol.rstrip("+#"))
        elif match.group(2) is not None:
            depth += 1
        elif match.group(3) is not None:
            if depth == 0:
                return tags, moves, "unbalanced ')'"
            depth -= 1
    if depth:
        return tags, moves, "unterminated variation"
    return tags, moves, None
