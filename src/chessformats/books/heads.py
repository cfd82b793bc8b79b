"""The heads of a batch's movetext for :mod:`~chessformats.books.pgnscan`, with what adds no main-line move blanked.

Book building reads the first moves of each game. :func:`heads` gives the first characters of each game's
movetext; where they hold a brace comment, a NAG or a variation -- lichess's ``{ [%eval 0.17] [%clk 0:04:31] }``
after every move -- it looks further (a window :data:`WINDOW` times as long) and replaces each comment, NAG and
whole variation by one blank, :data:`_TOGETHER` games at once: their windows are one byte array, the braces,
dollars and parentheses are found with numpy, and what is left is gathered in one indexing, straight into the
byte string the scan reads (:class:`~chessformats.books.pgnscan.Packed`: no string a game). Polyglot's lexer (and
:func:`~chessformats.books.pgnread.parse_game`) reads a comment or a NAG as one token that separates the
symbols around it and adds no move, and skips the moves of a variation, so the blanked text reads the same. A
move number right after a comment (``} 12...``: lichess numbers black's moves so) is blanked with it: all
digits, it is no move either. Where the windows hold braces alone (lichess's movetext), the braces of every game
are found with one search and checked to alternate with two comparisons for all of them.

A game whose window holds what reads otherwise is given the per-game head (:func:`game_head`: comments and NAGs
replaced with regular expressions, a variation left for the scan to refuse): a ``;`` comment or a ``%`` escape
line (which may hide a brace or a parenthesis), braces that do not alternate ``{``, ``}``, a ``$`` without a
number, a ``)`` that closes nothing, a comment or variation still open where the game ends, something like a
result in a variation (the tokenizer reports it), a character outside ASCII.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from .pgnscan import HIGH_BITS, PADDING, SEVENTY_SIX, ZEROS, Packed, every_lane

__all__ = ["NUMBERED_HEAD", "WINDOW", "game_head", "heads"]

WINDOW = 5
"""Characters of movetext looked at per character of head: a lichess game with an evaluation and a clock after
every move (``1. e4 { [%eval 0.17] [%clk 0:04:31] } 1... e5 ...``, ~41 characters a ply) has 32-33 plies in the
window of a head for 30 (twic1134 made lichess-like by ``benchmarks/lichess_pgn.py``, every game its window
cuts), the 31 the scan needs; a game with fewer is scanned again with a head twice as long. Most of the
blanking's work is per character of the windows (6 looked at ~20% more, ~1 µs a lichess game)."""
NUMBERED_HEAD = 1.5
"""The limit of a blanked head, in plain heads' limits (of a head blanked by :func:`game_head`: where black's
moves are numbered too, ``1... e5``): its moves are further apart once its comments are blanks (~8 characters a
ply for lichess's, 6 in plain movetext), and a head without max_ply + 1 moves is read again."""

_COMMENT = re.compile(r"\{[^}]*\}")
_NAG = re.compile(r"\$\d+")
_RESULT_LIKE = re.compile(r"1-0|0-1|1/2|\*")
"""What may be a result token (the tokenizer reports a result in a variation), or part of a comment."""
# the characters looked for in the windows, each given its own code (0: any other)
_OPEN, _CLOSE, _DOLLAR, _PAREN, _UNPAREN, _PERCENT, _NEWLINE = b"{}$()%\n"
_BLANKS = bytes.maketrans(b"{$(", b"   ")
_BYTE, _SEVEN, _EIGHT, _FIFTY_SIX = np.uint64(0xFF), np.uint64(7), np.uint64(8), np.uint64(56)
_GATHER = np.uint64(0x0102040810204080)
_TRAILING_ZEROS = np.array([8] + [(value & -value).bit_length() - 1 for value in range(1, 256)], dtype=np.int64)
_PADDING = "\n" + "\0" * 8
"""After the windows: a newline (each head's end in :meth:`_Window.packed`), then 8 bytes to read from anywhere."""
_DOTS, _LOW_SEVEN = every_lane(0x2E), every_lane(0x7F)


def _lanes_before(marks: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per number of ``marks`` (only high bits of bytes set): how many bytes, from the low one, come before the
    first marked one (8: none is). The 8 bits are gathered into the top byte by a multiplication (lane i's bit
    to bit 56 + i, no two products overlapping), then looked up."""
    bits = ((marks >> _SEVEN) * _GATHER) >> _FIFTY_SIX
    lanes: np.ndarray[Any, Any] = _TRAILING_ZEROS[bits.astype(np.intp)]
    return lanes


def heads(text: str, spans: list[tuple[int, int]], positions: list[int], limit: int
          ) -> tuple[Sequence[str], list[bool]]:
    """Per game at ``spans`` of ``text`` (its movetext from ``positions``): its head and whether its movetext
    goes on after it (maybe within a token). The head is the first ``limit`` characters of the movetext or,
    where they hold a ``{``, ``$`` or ``(``, the first :data:`NUMBERED_HEAD` × ``limit`` characters of the
    movetext with its comments, NAGs and variations blanked out (and move numbers right after a comment),
    ending before a comment or variation the window cuts."""
    ends = [end for _, end in spans]
    # (where the first game has a comment, the others likely have too: their plain heads are not made first)
    if not spans or not _opens(text[positions[0]:min(positions[0] + limit, ends[0])]):
        found = [text[position:min(position + limit, end)] for position, end in zip(positions, ends, strict=True)]
        if not _opens("".join(found)):
            return found, [position + limit < end for position, end in zip(positions, ends, strict=True)]
    parts: list[Sequence[str]] = []
    truncated: list[bool] = []
    for start in range(0, len(spans), _TOGETHER):
        part = slice(start, start + _TOGETHER)
        more = _blanked(positions[part], ends[part], text, limit)
        parts.append(more[0])
        truncated += more[1]
    packed = [part for part in parts if isinstance(part, Packed)]
    if len(packed) == len(parts):  # (the heads of each part already as the scan reads them)
        return Packed.join(packed), truncated
    return [head for part in parts for head in part], truncated


def _braces(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Where ``data`` holds a ``{`` or a ``}``: one comparison finds them with ``y`` and DEL (a comment's text),
    which are dropped when there are any."""
    found = np.flatnonzero((data | 6) == 127)  # '{', '}', 'y' and DEL
    kinds = data[found]
    brace = (kinds == _OPEN) | (kinds == _CLOSE)
    return found if brace.all() else found[brace]


def _opens(text: str) -> bool:
    """Whether ``text`` holds a ``{``, ``$`` or ``(``."""
    return "{" in text or "$" in text or "(" in text


_TOGETHER = 1024
"""Games blanked together: their windows (~1.6 MB for lichess's games) and numpy's arrays over them stay in the
processor's cache."""


def game_head(text: str, position: int, end: int, limit: int) -> tuple[str, bool]:
    """One game's head (see :func:`heads`) with regular expressions: its comments and NAGs blanked out, its
    variations left as they are (the scan refuses them). Movetext with a ``;`` comment or a ``%`` escape line
    (which may hold braces) is left as it is: the scan refuses it."""
    stop = min(position + WINDOW * limit, end)
    raw = text[position:stop]
    if ";" in raw or "\n%" in raw:
        return raw[:limit], position + limit < end
    head = _COMMENT.sub(" ", raw) if "{" in raw else raw
    if "$" in head:
        head = _NAG.sub(" ", head)
    cut = stop < end
    if cut and "{" in head:
        head = head[:head.index("{")]
    size = int(NUMBERED_HEAD * limit) if head.find("...", 0, limit) >= 0 else limit
    truncated = cut or len(head) > size
    head = head[:size]
    if truncated and head.endswith("$"):
        head = head[:-1]
    return head, truncated


def _blanked(positions: list[int], ends: list[int], text: str, limit: int) -> tuple[Sequence[str], list[bool]]:
    """:func:`heads` blanked together (:func:`game_head` for the games that may read otherwise)."""
    last = np.array(ends, dtype=np.int64)
    first = np.array(positions, dtype=np.int64)
    stops = np.minimum(first + WINDOW * limit, last)
    windows = [text[position:stop] for position, stop in zip(positions, stops.tolist(), strict=True)]
    good = np.ones(len(windows), dtype=bool)
    joined = "".join([*windows, _PADDING])
    originals, lengths = windows, stops - first
    if not joined.isascii() or ";" in joined:  # (escape lines: :class:`_Window`)
        windows = list(windows)
        for game, window in enumerate(originals):
            if not window.isascii() or ";" in window:
                good[game], windows[game], lengths[game] = False, "", 0
        joined = "".join([*windows, _PADDING])
    cut = stops < last
    pieces = _Window(joined, lengths, cut, good)
    variations, nags = "(" in joined or ")" in joined, "$" in joined
    if variations or nags or not pieces.plain_comments():
        pieces.comments()
        if variations:
            pieces.variations()
        if nags:
            pieces.nags()
    size = int(NUMBERED_HEAD * limit)
    if good.all():  # (every window is in the data, none needs the per-game head)
        odd = pieces.opened(limit)
        packed, full = pieces.packed(odd, limit, size)
        return packed, np.where(odd, pieces.cut | (full > size), first + limit < last).tolist()
    out, sizes = pieces.kept()
    # the games whose first ``limit`` characters hold none of '{', '$', '(' keep them as their head
    odd = np.array([_opens(window[:limit]) for window in originals], dtype=bool)
    kept = out.decode("ascii")
    heads = [kept[start:start + length] if blanked else window[:limit] for start, length, blanked, window in
             zip((np.cumsum(sizes) - sizes).tolist(), np.minimum(sizes, size).tolist(), odd.tolist(), originals,
                 strict=True)]
    truncated = np.where(odd, pieces.cut | (sizes > size), first + limit < last).tolist()
    for game in np.flatnonzero(odd & ~pieces.good).tolist():
        heads[game], truncated[game] = game_head(text, positions[game], ends[game], limit)
    return heads, truncated


class _Window:
    """The windows of a batch's games as one byte array, and the pieces to blank in them (a game not ``good``
    gets the per-game head)."""

    def __init__(self, joined: str, lengths: np.ndarray[Any, Any], cut: np.ndarray[Any, Any],
                 good: np.ndarray[Any, Any]) -> None:
        self.joined = joined  # (the windows, then :data:`_PADDING`: 8 bytes can be read from anywhere)
        self.data = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        self.bounds = np.zeros(len(lengths) + 1, dtype=np.int64)  # game i: data[bounds[i]:bounds[i + 1]]
        np.cumsum(lengths, out=self.bounds[1:])
        self.cut, self.good = cut, good
        escapes = (self.data[:-1] == _NEWLINE) & (self.data[1:] == _PERCENT)  # an escape line: '%' after a newline
        if escapes.any():
            self.good[self.game_of(np.flatnonzero(escapes))] = False
        self.end = self.bounds[1:].copy()
        """Where each game's kept text ends: its window's end, or a comment or variation the window cuts."""
        # pieces to blank: [start, last] (both in data), each becomes one blank
        self.first: list[np.ndarray[Any, Any]] = []
        self.last: list[np.ndarray[Any, Any]] = []
        self.games: list[np.ndarray[Any, Any]] = []
        self.braces = np.zeros(0, dtype=np.int64)
        self.opening = np.zeros(0, dtype=np.int64)  # the braces '{' (each game's first at least: :meth:`opened`)
        self.first_brace = np.zeros(len(lengths), dtype=np.int64)  # of each game, in braces
        self.parens = np.zeros(0, dtype=np.int64)
        self.depth = np.zeros(0, dtype=np.int64)  # after each of parens
        self.first_paren = np.zeros(len(lengths), dtype=np.int64)
        self.plain = False
        """Whether the pieces are :meth:`plain_comments`' alone."""

    def opened(self, limit: int) -> np.ndarray[Any, Any]:
        """Per game: whether its first ``limit`` characters hold a ``{``, ``$`` or ``(``."""
        data, starts = self.data, self.bounds[:-1]
        within = np.minimum(starts + limit, self.bounds[1:])
        places = [self.opening]
        for kind in ("$", "("):
            if kind in self.joined:
                places.append(np.flatnonzero(data == ord(kind)))
        odd = np.zeros(len(starts), dtype=bool)
        for found in places:  # (each in order: the first of a game's at or after its start)
            first = np.append(found, len(data))[np.searchsorted(found, starts)]
            odd |= first < within
        return odd

    def game_of(self, places: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.searchsorted(self.bounds, places, side="right") - 1

    def plain_comments(self) -> bool:
        """:meth:`comments` where there is nothing else (no NAG, parenthesis or escape line) and the braces of
        every game alternate, checked for all games at once (lichess's movetext); False (nothing done) where
        they may not."""
        data, bounds = self.data, self.bounds
        if not self.good.all():
            return False
        braces = _braces(data)
        first = np.searchsorted(braces, bounds)  # each game's first brace (and the end)
        counts = np.diff(first)
        # a game with an odd number: its last one must be a '{' the window cuts (the kept text ends before it)
        unclosed = np.flatnonzero(counts & 1)
        last = first[1:][unclosed] - 1
        if len(unclosed) and not (self.cut[unclosed].all() and (data[braces[last]] == _OPEN).all()):
            return False
        paired = np.delete(braces, last) if len(last) else braces
        # the others, an even number a game, alternate '{', '}' in each game from its first one: then in all of
        # them, from the first (each game's first is an even one of all)
        found = data[paired]
        if not ((found[::2] == _OPEN).all() and (found[1::2] == _CLOSE).all()):
            return False
        self.opening, self.plain = braces[first[:-1][counts > 0]], True  # (each game's first: a '{')
        self.end[unclosed] = braces[last]
        games = np.repeat(np.arange(len(counts)), counts >> 1)
        self.add(paired[::2], self.number_after(paired[1::2], bounds[1:][games]), games)
        return True

    def comments(self) -> None:
        """Brace comments: each game's braces must alternate from a ``{`` (a last ``{`` unclosed when the window
        is cut: the kept text ends before it)."""
        data = self.data
        braces = _braces(data)
        opening = data[braces] == _OPEN
        first = np.searchsorted(braces, self.bounds)  # each game's first brace (and the end)
        counts = np.diff(first)
        games = np.repeat(np.arange(len(counts)), counts)
        # two braces alike in a row, a first '}', a last '{' where the window is not cut
        twice = np.flatnonzero(opening[1:] == opening[:-1])
        self.good[games[twice[games[twice] == games[twice + 1]]]] = False
        with_braces = np.flatnonzero(counts)
        self.good[with_braces[~opening[first[with_braces]]]] = False
        last = first[1:][with_braces] - 1
        unclosed = with_braces[opening[last]]
        self.good[unclosed[~self.cut[unclosed]]] = False
        self.end[unclosed] = braces[last[opening[last]]]
        self.braces, self.first_brace, self.opening = braces, first[:-1], braces[opening]
        pairs = np.flatnonzero(opening[:-1] > opening[1:])  # ('{' then '}': of the first one's game when it is good)
        games = games[pairs]
        self.add(braces[pairs], self.number_after(braces[pairs + 1], self.bounds[games + 1]), games)

    def number_after(self, places: np.ndarray[Any, Any], limits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """``places`` moved on to the end of a move number right after each (a blank, digits, dots, within 8
        characters and before ``limits``: ``} 12...``, as lichess numbers black's move after a comment). A move
        number is all digits, no move; the dots after it separate it from the next symbol, as a blank does. The
        8 characters are read as one number (little-endian: the first is its low byte), their kinds found
        for the 8 at once with arithmetic on it."""
        words = np.ndarray((len(self.data) - 7,), dtype="<u8", buffer=self.data, strides=(1,))[places + 1]
        blank = (words & _BYTE) == 32
        words[blank] >>= _EIGHT
        digits = _lanes_before(((words ^ ZEROS) + SEVENTY_SIX) & HIGH_BITS)  # (not a digit: its high bit)
        rest = words >> (digits * 8).astype(np.uint64)
        rest ^= _DOTS  # (a dot: 0; what was shifted out: not 0)
        dots = _lanes_before((((rest & _LOW_SEVEN) + _LOW_SEVEN) | rest) & HIGH_BITS)  # (not 0: its high bit)
        last = places + blank + digits + dots
        found: np.ndarray[Any, Any] = np.where((digits > 0) & (dots > 0) & (last < limits), last, places)
        return found

    def add(self, first: np.ndarray[Any, Any], last: np.ndarray[Any, Any], games: np.ndarray[Any, Any]) -> None:
        """Pieces to blank: ``[first, last]`` of ``games``."""
        self.first.append(first)
        self.last.append(last)
        self.games.append(games)

    def outside_comments(self, places: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """Those of ``places`` not in a comment (after an even number of their game's braces)."""
        before = np.searchsorted(self.braces, places) - self.first_brace[self.game_of(places)]
        outside: np.ndarray[Any, Any] = places[before % 2 == 0]
        return outside

    def variations(self) -> None:
        """Parentheses outside comments: a variation from each ``(`` at depth 0 to its ``)``; one still open
        where the window is cut ends the kept text; a ``)`` at depth 0, a variation open at the game's end or one
        that may hold a result (the tokenizer reports it) sends the game to :func:`game_head`."""
        data = self.data
        parens = self.outside_comments(np.flatnonzero((data == _PAREN) | (data == _UNPAREN)))
        games = self.game_of(parens)
        counts = np.bincount(games, minlength=len(self.good))
        self.first_paren[1:] = np.cumsum(counts[:-1])
        total = np.cumsum(np.where(data[parens] == _PAREN, 1, -1))
        before = np.concatenate((np.zeros(1, dtype=np.int64), total))[self.first_paren]  # at each game's start
        depth = total - before[games]
        self.good[games[depth < 0]] = False
        opening = (data[parens] == _PAREN) & (depth == 1)
        closing = (data[parens] == _UNPAREN) & (depth == 0)
        open_at_end = np.zeros(len(self.good), dtype=bool)
        with_parens = np.flatnonzero(counts)
        open_at_end[with_parens] = depth[self.first_paren[with_parens] + counts[with_parens] - 1] > 0
        self.good[open_at_end & ~self.cut] = False
        # the last variation opened of a game open at its end is cut: the kept text ends before it
        starts = np.flatnonzero(opening)
        last = np.ones(len(starts), dtype=bool)
        np.not_equal(games[starts[1:]], games[starts[:-1]], out=last[:-1])
        cut = last & open_at_end[games[starts]]
        self.end[games[starts[cut]]] = np.minimum(self.end[games[starts[cut]]], parens[starts[cut]])
        starts = starts[~cut]
        ends = np.flatnonzero(closing)
        keep = self.good[games[starts]]  # (a game not good may have its parentheses unpaired)
        starts, ends = parens[starts[keep]], parens[ends[self.good[games[ends]]]]
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            if _RESULT_LIKE.search(self.joined, start, end):
                self.good[self.game_of(np.array([start]))] = False
        self.add(starts, ends, self.game_of(starts))
        self.parens, self.depth = parens, depth

    def depth_at(self, places: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The variation depth at each of ``places`` (0 when there are no parentheses)."""
        if not len(self.parens):
            return np.zeros(len(places), dtype=np.int64)
        previous = np.searchsorted(self.parens, places) - 1
        inside = previous >= self.first_paren[self.game_of(places)]
        depth: np.ndarray[Any, Any] = np.where(inside, self.depth[np.maximum(previous, 0)], 0)
        return depth

    def nags(self) -> None:
        """NAGs outside comments and variations: a ``$`` and its digits (a ``$`` without one: :func:`game_head`,
        unless the window is cut after it: the kept text ends before it)."""
        data = self.data
        dollars = self.outside_comments(np.flatnonzero(data == _DOLLAR))
        dollars = dollars[self.depth_at(dollars) == 0]
        games = self.game_of(dollars)
        limit = self.bounds[games + 1]
        last = dollars.copy()
        going = np.arange(len(dollars))
        while len(going):
            following = last[going] + 1
            going = going[following < limit[going]]
            going = going[(data[last[going] + 1] - 48) < 10]  # (unsigned: a digit)
            last[going] += 1
        alone = last == dollars
        cut = alone & (dollars + 1 == limit) & self.cut[games]  # the window's last character: the kept text ends
        self.end[games[cut]] = np.minimum(self.end[games[cut]], dollars[cut])
        self.good[games[alone & ~cut]] = False
        self.add(dollars[~alone], last[~alone], games[~alone])

    def pieces(self, chosen: np.ndarray[Any, Any] | None = None
               ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The pieces to blank (``first``, ``last``, ``games``) in order: those of good games (and of ``chosen``
        ones) before their game's kept text ends, none inside a variation."""
        first, last, games = (parts[0] if len(parts) == 1 else np.concatenate(parts)
                              for parts in (self.first, self.last, self.games))
        if self.plain and self.good.all() and (chosen is None or chosen.all()):
            return first, last, games  # (:meth:`plain_comments`' pieces: in order, each before its game's end)
        if len(self.parens):  # comments and NAGs in a variation are part of it
            outer = self.depth_at(first) == 0
            first, last, games = first[outer], last[outer], games[outer]
        kept = self.good[games] & (first < self.end[games])
        if chosen is not None:
            kept &= chosen[games]
        if not kept.all():
            first, last, games = first[kept], last[kept], games[kept]
        if len(first) > 1 and (first[1:] < first[:-1]).any():  # (comments alone come in order)
            order = np.argsort(first, kind="stable")  # (the pieces do not overlap: their last in order too)
            first, last, games = first[order], last[order], games[order]
        return first, last, games

    def stretches(self, first: np.ndarray[Any, Any], last: np.ndarray[Any, Any], games: np.ndarray[Any, Any],
                  end: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], ...]:
        """The kept text of the good games as stretches of :attr:`data` (``starts``, ``lengths``), in order: from a
        game's start or after a piece to the next piece's first character (made its blank) or ``end`` (per
        game), each good game's, then each piece's; and where each good game's first stretch is."""
        good = np.flatnonzero(self.good)
        rank = np.cumsum(self.good) - 1  # of a good game among them
        pieces = np.bincount(games, minlength=len(self.good))
        before = np.cumsum(pieces) - pieces  # pieces of the games before
        firsts = before[good] + rank[good]  # each good game's first stretch
        count = len(first) + len(good)
        starts, ends = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
        starts[firsts] = self.bounds[good]
        ends[firsts + pieces[good]] = end[good]
        at = np.arange(len(first), dtype=np.int64) + rank[games]
        ends[at] = first + 1
        starts[at + 1] = last + 1
        return starts, ends - starts, firsts

    def gather(self, starts: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any],
               out: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        """The characters of the stretches ``starts``, ``lengths`` (none empty) one after the other (into
        ``out``): indices by a sum of steps, one within a stretch, a jump to the next one's start."""
        steps = np.ones(int(lengths.sum()), dtype=np.intp)  # (what ``take`` indexes with: no conversion)
        if len(steps):
            steps[0] = starts[0]
            steps[np.cumsum(lengths[:-1])] = starts[1:] - (starts[:-1] + lengths[:-1]) + 1
        gathered: np.ndarray[Any, Any] = np.take(self.data, np.cumsum(steps, out=steps), out=out)
        return gathered

    def kept(self) -> tuple[bytes, np.ndarray[Any, Any]]:
        """The games' kept text, one after the other, each piece blanked as one blank, and each game's length
        (0 for a game not good)."""
        starts, lengths, firsts = self.stretches(*self.pieces(), self.end)
        sizes = np.zeros(len(self.good), dtype=np.int64)
        if len(starts):
            sizes[self.good] = np.add.reduceat(lengths, firsts)
        nonempty = lengths > 0
        return self.gather(starts[nonempty], lengths[nonempty]).tobytes().translate(_BLANKS), sizes

    def packed(self, odd: np.ndarray[Any, Any], limit: int, size: int) -> tuple[Packed, np.ndarray[Any, Any]]:
        """Every game's head (all good) as :func:`~chessformats.books.pgnscan.scan` reads them: the first ``size``
        characters of the kept text of the ``odd`` games, the first ``limit`` of the others' windows; and the
        length of each game's kept text (``limit`` at most for the others)."""
        count = len(odd)
        first, last, games = self.pieces(odd)
        end = np.where(odd, self.end, np.minimum(self.bounds[:-1] + limit, self.bounds[1:]))
        # the stretches of :meth:`stretches`, with a "\n" (the one after the windows) before the first game's and
        # after each game's: game g's stretches from 1 + before[g] + 2g, its "\n" after them
        pieces = np.bincount(games, minlength=count)
        before = np.cumsum(pieces) - pieces + 2 * np.arange(count) + 1  # each game's first stretch
        items = len(first) + 2 * count + 1
        starts = np.full(items, self.bounds[-1], dtype=np.int64)
        ends = starts + 1
        starts[before] = self.bounds[:-1]
        ends[before + pieces] = end
        at = np.arange(len(first), dtype=np.int64) + 2 * games + 1
        ends[at] = first + 1
        starts[at + 1] = last + 1
        lengths = ends - starts
        full = np.add.reduceat(lengths, before) - 1  # (less the "\n")
        if (full > size).any():  # each game's stretches cut where its head reaches ``size`` characters
            game = np.repeat(np.arange(count), pieces + 2)
            reached = np.cumsum(lengths[1:])
            reached -= (reached[before - 1] - lengths[before])[game]  # (within its game, at each stretch's end)
            lengths[1:] -= np.clip(reached - size, 0, lengths[1:])
            lengths[before + pieces + 1] = 1
        nonempty = lengths > 0
        out = np.empty(int(lengths.sum()) + len(PADDING), dtype=np.uint8)
        self.gather(starts[nonempty], lengths[nonempty], out[:-len(PADDING)])
        out[-len(PADDING):] = _NEWLINE
        return Packed(out.tobytes().translate(_BLANKS), np.minimum(full, size)), full
