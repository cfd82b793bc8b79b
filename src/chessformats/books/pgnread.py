"""Reading PGN text for the book builder: opening plain or compressed files, cutting the text into games,
reading their headers for what the builder needs (:func:`read_headers`; the tags themselves only when asked
for: :class:`HeaderTags`), and reading one game's tags and main-line SAN tokens the way ``polyglot
make-book``'s lexer does.

The whole-batch fast path over plain movetext is :mod:`chessformats.books.pgnscan`; this module is the
per-game reader it falls back to (``;`` comments, escapes, odd tokens; brace comments, NAGs and variations are
blanked out for the scan by :mod:`~chessformats.books.heads`).

Text encoding (:func:`decode_pgn`, :func:`open_text`): UTF-8, and a game whose bytes are not UTF-8 as Windows-1252.
The PGN standard (section 4.1) says ISO 8859-1; older files are often Windows-1252, which is ISO 8859-1 with
printable characters where ISO 8859-1 has C1 control codes (0x80-0x9F: "€", "„", "“" ...); lichess and most new
files are UTF-8. A file may hold both (files joined together), so the choice is made per game: the text between
two game breaks (:data:`GAME_BREAK`), read as UTF-8 when all of it is UTF-8. A Windows-1252 text is seldom valid
UTF-8 (an accented capital or "ß" would have to be followed by one of 0x80-0xBF: "ß“" is), and a game holding
such a pair almost always holds another non-ASCII byte that is not UTF-8, which decides for the whole game.
"""

from __future__ import annotations

import codecs
import io
import os
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO, cast, overload

import numpy as np

from ..engine.streams import open_binary
from .pgnscan import FIRST_BYTES, every_lane

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["BYTE_BREAK", "GAME_BREAK", "HEADER", "TAG", "HeaderTags", "decode_pgn", "game_spans", "open_text",
           "parse_game", "read_headers", "split_games"]

_BLANK = r"[ \t\r]"
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_LINE_END = "".join(sorted({result[-1] for result in _RESULTS})) + " \t\r"
"""The last characters of a line a game break after a result may follow: a result's, or a blank (the pattern's
look behind and the numpy scan's table, :data:`_ENDS_RESULT`)."""
_AFTER_RESULT = "|".join(rf"(?<={re.escape(result)}{_BLANK * blanks}\n)" for result in _RESULTS
                         for blanks in range(4))
GAME_BREAK = re.compile(
    rf"\n(?:{_BLANK}*\n(?={_BLANK}*\[)"  # a blank line before a '['
    # or a line ending in a game's result (and at most three blanks) before a tag line; the first look behind
    # fails fast at the end of a tag line
    rf'|(?<=[{re.escape(_LINE_END)}]\n)(?={_BLANK}*\[[ \t]*[A-Za-z0-9_]+[ \t]+")(?:{_AFTER_RESULT}))')
"""Where one game ends and the next starts: the game's text ends at the newline the break starts with, the next
game's starts where the break ends. A break is a blank line before a ``[`` (the PGN standard's export format),
or a newline between a line ending in a game termination (``1-0``, ``0-1``, ``1/2-1/2``, ``*``, then at most
three blanks) and a line starting with a tag (``[Name "``): the games of many files follow each other without
a blank line, and ``polyglot make-book`` (whose lexer ends a game at its result) reads them as games. Every
reader splits a text into games with it (:func:`game_spans` skips the breaks inside a brace comment)."""
BYTE_BREAK = re.compile(GAME_BREAK.pattern.encode("ascii"))
"""A game break in bytes: :data:`GAME_BREAK` on the undecoded file (it is ASCII, so no break cuts a character of
an ASCII-compatible encoding in two)."""
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
# movetext tokens as polyglot's lexer sees them; comments, NAGs and move numbers are told apart by group. The
# symbols also hold python-chess's null moves "--" and "@@@@" (NULL_MOVES), read as its "Z0" is: a move token
# (python-chess plays it). Polyglot's lexer refuses them (make-book stops: no book), so no book of polyglot's
# changes; its "0000" stays a move number, all digits, as polyglot reads it (python-chess reads a null move)
_TOKEN = re.compile(
    r"(\{[^}]*\}?|;[^\n]*|^%[^\n]*)"  # 1: comments
    r"|(\()|(\))"  # 2, 3: variations
    r"|(\$\d+|[!?]+|\.+)"  # 4: NAGs and the dots after move numbers
    r"|([A-Za-z0-9][A-Za-z0-9_+#=:/-]*|\*|--|@@@@)",  # 5: symbols: moves, move numbers (all digits), results
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


def open_text(path: str | os.PathLike[str], *, encoding: str | None = None) -> TextIO:
    """Open a PGN file for reading text, decompressing ``.gz``, ``.bz2``, ``.xz`` and ``.zst``.

    ``encoding``: the file's encoding, what it cannot decode read as U+FFFD; ``None``: UTF-8, and a game that is
    not UTF-8 as Windows-1252 (:func:`decode_pgn`). Newlines are read as ``open`` reads them (universal newlines);
    a UTF-8 byte order mark is kept (as "\\ufeff").

    A damaged compressed stream (bad CRC, cut short, not the format its name says) raises a ``FormatError``
    (:class:`~chessformats.engine.errors.InvalidValueError`, or ``TruncatedError`` for a file cut short) with
    the file's name and the compressed offset (see :mod:`chessformats.engine.streams`).
    """
    if encoding is None:
        return io.TextIOWrapper(open_binary(path), encoding=_CODEC, newline=None)
    return io.TextIOWrapper(open_binary(path), encoding=encoding, errors="replace", newline=None)


def decode_pgn(data: bytes | memoryview, encoding: str | None = None) -> str:
    """PGN bytes as text: in ``encoding``, what it cannot decode as U+FFFD; ``None``: UTF-8, each game that is not
    UTF-8 (its bytes from one game break, :data:`BYTE_BREAK`, to the next) as Windows-1252 (the bytes it leaves
    undefined, 0x81, 0x8D, 0x8F, 0x90 and 0x9D, as ISO 8859-1's C1 controls, as the WHATWG encoding standard has it).

    Bytes cut at game breaks decode to the text of the whole cut at the same places: a game is decided on its own.
    """
    if encoding is not None:
        return str(data, encoding, "replace")
    try:
        return str(data, "utf-8")
    except UnicodeDecodeError as error:
        return _mixed(memoryview(data), error.start)


def _mixed(data: memoryview, bad: int) -> str:
    """:func:`decode_pgn` of ``data``, valid UTF-8 up to ``bad``: each game holding a byte that is not UTF-8 (from
    the break before it to the break after it) as Windows-1252, the text between them as UTF-8, tried a part at a
    time from :data:`_PART` bytes on, doubled while it decodes (a part that does not costs a copy of it, in the
    error: a file of such games is not copied whole once a game)."""
    parts = []
    position = 0  # the text before it is decoded; a game starts there
    while True:
        start = position  # the game holding ``bad`` starts at the last break before it (none is in a character)
        for match in BYTE_BREAK.finditer(data, position, bad):
            start = match.end()
        after = BYTE_BREAK.search(data, bad)
        end = after.end() if after is not None else len(data)
        parts.append(str(data[position:start], "utf-8"))
        parts.append(codecs.charmap_decode(data[start:end], "strict", _WINDOWS_1252)[0])
        position, size = end, _PART
        while position < len(data):
            after = BYTE_BREAK.search(data, position + size)
            stop = after.end() if after is not None else len(data)
            try:
                parts.append(str(data[position:stop], "utf-8"))
            except UnicodeDecodeError as error:
                bad = position + error.start
                break
            position, size = stop, 2 * size
        else:
            return "".join(parts)


_PART = 1 << 12
def _windows_1252() -> str:
    """The 256 characters of Windows-1252's bytes (the undefined ones as ISO 8859-1's)."""
    characters = []
    for code in range(256):
        try:
            characters.append(bytes((code,)).decode("cp1252"))
        except UnicodeDecodeError:
            characters.append(chr(code))
    return "".join(characters)


_WINDOWS_1252 = _windows_1252()
_NOT_ASCII = bytes(range(128, 256))
_LONG_BREAK = 1 << 12
"""Bytes a game break is searched for in at the end of a stream's bytes first (a longer break, all blanks, is
still one, found later or not at all: then the game is decided with the next)."""
_HOLD = 1 << 22
"""Bytes a stream holds back at most waiting for a game break (then it decides on what it holds up to its last
line end as one game): a file of games not parted by game breaks is not held whole."""


class _Decoder(codecs.IncrementalDecoder):
    """:func:`decode_pgn` on a stream: the bytes up to the last game break of what has come, the rest held until
    the next break (or the end), so each game is decided whole; the rest is not held when it is ASCII (read the
    same either way: the rest of its game is decided alone, as its whole would be)."""

    def __init__(self, errors: str = "strict") -> None:
        super().__init__(errors)
        self.pending = b""

    def decode(self, input: Buffer, final: bool = False) -> str:
        held = len(self.pending)
        data = self.pending + input if held else bytes(input)
        if final or data.isascii():
            self.pending = b""
            return decode_pgn(data)
        # (the bytes held have no break: one that ends in the new bytes starts near their end, if it is not long)
        cut = _last_break(data, max(0, held - _LONG_BREAK))
        self.pending = data[cut:]
        if self.pending.isascii():
            self.pending, cut = b"", len(data)
        return decode_pgn(memoryview(data)[:cut]) if cut else ""

    def reset(self) -> None:
        self.pending = b""

    def getstate(self) -> tuple[bytes, int]:
        return self.pending, 0

    def setstate(self, state: tuple[bytes, int]) -> None:
        self.pending = state[0]


def _last_break(data: bytes, floor: int) -> int:
    """Where the last game break in ``data`` that starts after ``floor`` ends (0: none; after the last newline
    when there is none and ``data`` is longer than :data:`_HOLD`), searched for from the end, a window at a time."""
    window = _LONG_BREAK
    while True:
        low = max(floor, len(data) - window)
        end = 0
        for match in BYTE_BREAK.finditer(data, low):
            end = match.end()
        if end or low == floor:
            break
        window *= 4
    if not end and len(data) > _HOLD:
        end = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1 or len(data.rstrip(_NOT_ASCII))
    return end


_CODEC = "chessformats_pgn"


def _find_codec(name: str) -> codecs.CodecInfo | None:
    if name != _CODEC:
        return None
    utf8 = codecs.lookup("utf-8")  # (what it writes: UTF-8)
    return codecs.CodecInfo(utf8.encode, lambda data, errors="strict": (decode_pgn(data), len(data)),
                            incrementalencoder=utf8.incrementalencoder, incrementaldecoder=_Decoder, name=_CODEC)


codecs.register(_find_codec)  # the text streams of :func:`open_text` decode by name


def split_games(text: str, base_offset: int = 0) -> Iterator[tuple[int, str]]:
    """``(offset, game text)`` of every game: games are separated by game breaks (:data:`GAME_BREAK`).

    A break inside a brace comment (unbalanced ``{``) is not a game boundary.
    """
    for start, end in game_spans(text):
        yield base_offset + start, text[start:end]


def game_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` in ``text`` of every game (see :func:`split_games`).

    A game break (:data:`GAME_BREAK`) is one when the text since the last one holds no more ``{`` than ``}``.
    Both are found with numpy, :data:`_CHUNK` characters at a time: a break starts at a newline, and is one
    where a newline and a ``[`` follow it (the pattern tells where blanks do, and where a ``[`` follows a line
    that may end in a result); the braces before each break are a sum over the chunk."""
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
    byte each, and two more bytes), as ``(start, end)``. A match starts at a newline and ends after it or at the
    next newline with blanks alone between them (so no two overlap, and each is one that ``finditer`` finds):
    one is looked for at a newline before a blank line and a ``[`` (sure), or before a blank, or before a ``[``
    after a line that may end in a result (its last character a result's, or a blank)."""
    newlines = np.flatnonzero(data[:size] == _NEWLINE)
    following, then = data[newlines + 1], data[newlines + 2]
    near_end = newlines >= size - 2
    blank = (following == _SPACE) | (following == _TAB) | (following == _RETURN)
    double = following == _NEWLINE
    sure = double & (then == _BRACKET) & ~near_end  # "\n\n["
    unsure = blank | (double & ((then == _SPACE) | (then == _TAB) | (then == _RETURN))) | near_end
    tagged = np.flatnonzero(following == _BRACKET)  # (a line before a tag line mostly ends in ']')
    if len(tagged):
        before = data[newlines[tagged] - 1]  # (the first newline of the chunk: its last byte, read again below)
        unsure[tagged[_ENDS_RESULT[before] | (newlines[tagged] == 0)]] = True
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
_ENDS_RESULT = np.zeros(256, dtype=bool)
_ENDS_RESULT[list(_LINE_END.encode("ascii"))] = True
"""The last characters of a line a :data:`GAME_BREAK` after a result may follow."""


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
    """Tags, the first ``max_ply`` main-line SAN tokens (``+``/``#`` stripped), and an error if any.

    A null move is a token as python-chess spells it (``Z0``, ``--``, ``@@@@``: python-chess plays it; polyglot's
    lexer stops at the last two), but ``0000``, all digits, a move number as polyglot reads it."""
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
