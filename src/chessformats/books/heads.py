"""The heads of a batch's movetext for :mod:`~chessformats.books.pgnscan`, with what adds no main-line move blanked.

Book building reads the first moves of each game. :func:`heads` gives the first characters of each game's
movetext; where they hold a brace comment, a NAG or a variation -- lichess's ``{ [%eval 0.17] [%clk 0:04:31] }``
after every move -- it looks further (a window :data:`WINDOW` times as long) and replaces each comment, NAG and
whole variation by one blank, for the whole batch at once: the windows are one byte array, the braces,
dollars and parentheses are found with numpy, and what is left is gathered in one indexing. Polyglot's lexer (and
:func:`~chessformats.books.pgnread.parse_game`) reads a comment or a NAG as one token that separates the
symbols around it and adds no move, and skips the moves of a variation, so the blanked text reads the same.

A game whose window holds what reads otherwise is given the per-game head (:func:`game_head`: comments and NAGs
replaced with regular expressions, a variation left for the scan to refuse): a ``;`` comment or a ``%`` escape
line (which may hide a brace or a parenthesis), braces that do not alternate ``{``, ``}``, a ``$`` without a
number, a ``)`` that closes nothing, a comment or variation still open where the game ends, something like a
result in a variation (the tokenizer reports it), a character outside ASCII.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["NUMBERED_HEAD", "WINDOW", "game_head", "heads"]

WINDOW = 6
"""Characters of movetext looked at per character of head: a lichess game (``1. e4 { [%eval 0.17] [%clk
0:04:31] } 1... e5 ...``, ~47 characters a ply) has ~34 plies in the window of a head for 30."""
NUMBERED_HEAD = 1.5
"""The limit of a commented head whose black moves are numbered too (``1... e5``, as lichess writes them after
a comment), in plain heads' limits: its moves are further apart once its comments are blanks (~10 characters a
ply), and a head without max_ply + 1 moves is read again."""

_COMMENT = re.compile(r"\{[^}]*\}")
_NAG = re.compile(r"\$\d+")
_RESULT_LIKE = re.compile(r"1-0|0-1|1/2|\*")
"""What may be a result token (the tokenizer reports a result in a variation), or part of a comment."""
# the characters looked for in the windows, each given its own code (0: any other)
_OPEN, _CLOSE, _DOLLAR, _PAREN, _UNPAREN, _SEMICOLON = b"{}$();"
_BLANKS = bytes.maketrans(b"{$(", b"   ")
"""What starts a blanked piece becomes its blank (nothing else of those is left in the kept text)."""


def heads(text: str, spans: list[tuple[int, int]], positions: list[int], limit: int) -> tuple[list[str], list[bool]]:
    """Per game at ``spans`` of ``text`` (its movetext from ``positions``): its head and whether its movetext
    goes on after it (maybe within a token). The head is the first ``limit`` characters of the movetext or,
    where they hold a ``{``, ``$`` or ``(``, the first ``limit`` of the movetext with its comments, NAGs and
    variations blanked out (:data:`NUMBERED_HEAD` times as many where black's moves are numbered), ending
    before a comment or variation the window cuts."""
    ends = [end for _, end in spans]
    found = [text[position:min(position + limit, end)] for position, end in zip(positions, ends, strict=True)]
    truncated = [position + limit < end for position, end in zip(positions, ends, strict=True)]
    odd = [game for game, head in enumerate(found) if "{" in head or "$" in head or "(" in head]
    if odd:
        blanked = _blanked([positions[game] for game in odd], [ends[game] for game in odd], text, limit)
        for game, (head, cut) in zip(odd, blanked, strict=True):
            found[game], truncated[game] = head, cut
    return found, truncated


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


def _blanked(positions: list[int], ends: list[int], text: str, limit: int) -> list[tuple[str, bool]]:
    """The heads of the games whose movetext starts at ``positions`` (and ends at ``ends``), blanked together
    (:func:`game_head` for those that may read otherwise)."""
    count = len(positions)
    stops = [min(position + WINDOW * limit, end) for position, end in zip(positions, ends, strict=True)]
    windows = [text[position:stop] for position, stop in zip(positions, stops, strict=True)]
    good = np.ones(count, dtype=bool)
    joined = "".join(windows)
    if not joined.isascii() or ";" in joined or "\n%" in joined:
        for game, window in enumerate(windows):
            if not window.isascii() or ";" in window or "\n%" in window:
                good[game], windows[game] = False, ""
        joined = "".join(windows)
    cut = np.array(stops, dtype=np.int64) < np.array(ends, dtype=np.int64)
    pieces = _Window(joined, windows, cut, good)
    pieces.comments()
    if "(" in joined or ")" in joined:
        pieces.variations()
    if "$" in joined:
        pieces.nags()
    out, sizes = pieces.kept()
    # the head's limit, longer where black's moves are numbered ("..." within the first ``limit`` characters)
    data = np.frombuffer(out, dtype=np.uint8)
    dots = np.append(np.flatnonzero((data[:-2] == 46) & (data[1:-1] == 46) & (data[2:] == 46)), len(data))
    starts = np.zeros(count, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    numbered = dots[np.searchsorted(dots, starts)] + 3 <= starts + np.minimum(sizes, limit)
    size = np.where(numbered, int(NUMBERED_HEAD * limit), limit)
    truncated = (pieces.cut | (sizes > size)).tolist()
    kept = out.decode("ascii")
    result = [(kept[start:start + length], more) for start, length, more in
              zip(starts.tolist(), np.minimum(sizes, size).tolist(), truncated, strict=True)]
    for game in np.flatnonzero(~pieces.good).tolist():
        result[game] = game_head(text, positions[game], ends[game], limit)
    return result


class _Window:
    """The windows of a batch's games as one byte array, and the pieces to blank in them (a game not ``good``
    gets the per-game head)."""

    def __init__(self, joined: str, windows: list[str], cut: np.ndarray[Any, Any],
                 good: np.ndarray[Any, Any]) -> None:
        self.joined = joined
        self.data = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        self.bounds = np.zeros(len(windows) + 1, dtype=np.int64)  # game i: data[bounds[i]:bounds[i + 1]]
        np.cumsum(np.fromiter(map(len, windows), dtype=np.int64, count=len(windows)), out=self.bounds[1:])
        self.cut, self.good = cut, good
        self.end = self.bounds[1:].copy()
        """Where each game's kept text ends: its window's end, or a comment or variation the window cuts."""
        # pieces to blank: [start, last] (both in data), each becomes one blank
        self.first: list[np.ndarray[Any, Any]] = []
        self.last: list[np.ndarray[Any, Any]] = []
        self.braces = np.zeros(0, dtype=np.int64)
        self.first_brace = np.zeros(len(windows), dtype=np.int64)  # of each game, in braces
        self.parens = np.zeros(0, dtype=np.int64)
        self.depth = np.zeros(0, dtype=np.int64)  # after each of parens
        self.first_paren = np.zeros(len(windows), dtype=np.int64)

    def game_of(self, places: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.searchsorted(self.bounds, places, side="right") - 1

    def comments(self) -> None:
        """Brace comments: each game's braces must alternate from a ``{`` (a last ``{`` unclosed when the window
        is cut: the kept text ends before it)."""
        data = self.data
        braces = np.flatnonzero((data | 6) == 127)  # '{', '}', 'y' and DEL
        found = data[braces]
        braces = braces[(found == _OPEN) | (found == _CLOSE)]
        opening = data[braces] == _OPEN
        games = self.game_of(braces)
        counts = np.bincount(games, minlength=len(self.good))
        self.first_brace[1:] = np.cumsum(counts[:-1])
        rank = np.arange(len(braces), dtype=np.int64) - self.first_brace[games]
        self.good[games[opening != (rank % 2 == 0)]] = False
        unclosed = np.flatnonzero(counts % 2 == 1)
        self.good[unclosed[~self.cut[unclosed]]] = False
        self.end[unclosed] = braces[self.first_brace[unclosed] + counts[unclosed] - 1]
        self.braces = braces
        pairs = np.flatnonzero(opening[:-1] & ~opening[1:] & (games[:-1] == games[1:]))
        self.first.append(braces[pairs])
        self.last.append(braces[pairs + 1])

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
        self.first.append(starts)
        self.last.append(ends)
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
        """NAGs outside comments and variations: a ``$`` and its digits (a ``$`` without one: :func:`game_head`)."""
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
        self.good[games[last == dollars]] = False
        self.first.append(dollars)
        self.last.append(last)

    def kept(self) -> tuple[bytes, np.ndarray[Any, Any]]:
        """The games' kept text, one after the other, each piece blanked as one blank, and each game's length
        (0 for a game not good)."""
        first, last = np.concatenate(self.first), np.concatenate(self.last)
        if len(self.parens):  # comments and NAGs in a variation are part of it
            inner = self.depth_at(first) > 0
            first, last = first[~inner], last[~inner]
        games = self.game_of(first)
        chosen = self.good[games] & (first < self.end[games])
        order = np.argsort(first[chosen], kind="stable")  # (the pieces do not overlap: their last in order too)
        first, last, games = first[chosen][order], last[chosen][order], games[chosen][order]
        starts = self.bounds[:-1][self.good]
        ends = self.end[self.good]
        sizes = np.zeros(len(self.good), dtype=np.int64)
        sizes[self.good] = ends - starts
        sizes -= np.bincount(games, weights=last - first, minlength=len(self.good)).astype(np.int64)
        # the pieces of text kept: from a game's start or after a blanked piece to the next blanked piece's first
        # character (made its blank) or the game's end
        piece_starts = np.sort(np.concatenate((starts, last + 1)), kind="stable")
        piece_ends = np.sort(np.concatenate((first + 1, ends)), kind="stable")
        lengths = piece_ends - piece_starts
        total = int(lengths.sum())
        shift = np.repeat(piece_starts - (np.cumsum(lengths) - lengths), lengths)
        shift += np.arange(total, dtype=np.int64)
        return self.data[shift].tobytes().translate(_BLANKS), sizes
