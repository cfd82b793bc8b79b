"""A game's annotations as its ``.cba`` record: the inverse of :class:`.annotations.Annotator`.

The ``TimeControl`` tag (a time control item on the game), comments (after a move, before a variation's first
move, on the game), NAGs (a symbols item: the move's symbol, the position's evaluation, a prefix), and the PGN
commands ``[%csl]``/``[%cal]`` (coloured squares and arrows), ``[%clk]`` (a clock item of the side that moved),
``[%emt]`` (time spent), ``[%eval]`` (a computer evaluation). Each item's position is its node's place in the
stored move stream (:class:`.encoder.EncodedGame` ``nodes``; -1 is the game). Items are ordered by position, as
in every corpus record. The commands of the game's comment are items on the game (the reader gives them back
there), but a clock (a clock on the game is its final clock); a variation's starting comment holds only text.
What cannot be kept is left out and reported (``problems``), never the game.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

import chess

from ...engine.codec import codec
from ...engine.schema import enum_view
from ...schemas import chessbase as schema
from .encoder import EncodedGame
from .tags import unencodable

if TYPE_CHECKING:
    import chess.pgn

__all__ = ["CLOCK_LIMIT", "DEPTH_LIMIT", "EVAL_LIMIT", "ITEM_TYPES", "EncodedAnnotations", "LineAnnotations",
           "clock_centiseconds", "encode_annotations", "encode_line_annotations", "encode_text"]

_HEAD = codec(schema.ANNOTATION_RECORD_HEAD)
_HEAD_SIZE: int = _HEAD.size or 0
_ITEM_HEAD = codec(schema.ANNOTATION_ITEM_HEAD)
ITEM_HEAD_SIZE: int = _ITEM_HEAD.size or 0
"""Bytes of an item's head (position, type, size)."""
_TYPES = ITEM_TYPES = {name: value for value, name in enum_view(schema.ANNOTATION_TYPE).names.items()}
_SYMBOL_FIELDS = (("move_symbol", frozenset(enum_view(schema.MOVE_SYMBOL).names)),
                  ("evaluation", frozenset(enum_view(schema.LINE_EVALUATION).names)),
                  ("prefix", frozenset(enum_view(schema.PREFIX_SYMBOL).names)))
"""The symbols item's fields, each with the NAG numbers it holds (its values are NAG numbers)."""
_COLOURS = {name: value for value, name in enum_view(schema.COLOUR).names.items()}
_COMMAND = re.compile(r"\[%(csl|cal|clk|emt|eval)\s[^\]]*\]")
_ORDER = {_TYPES[name]: rank for rank, name in enumerate(
    ("text_before", "symbols", "squares", "arrows", "text_after", "white_clock", "black_clock", "time_spent",
     "engine_evaluation", "time_control"))}
"""The order of a position's items (the corpus has no fixed order; this is its most frequent one)."""
_EVALUATION = codec(schema.ANNOTATION_CASES[_TYPES["engine_evaluation"]].declaration)
EVAL_LIMIT = 1 << (8 * (_EVALUATION.field("value").size or 0) - 1)
"""Evaluations are signed: -limit <= value < limit (depths likewise: :data:`DEPTH_LIMIT`)."""
DEPTH_LIMIT = 1 << (8 * (_EVALUATION.field("depth").size or 0) - 1)
CLOCK_LIMIT = 1 << 8 * (codec(schema.ANNOTATION_CASES[_TYPES["white_clock"]].declaration).field("centiseconds").size
                        or 0)
"""Clocks are unsigned: 0 <= centiseconds < limit."""
_PERIOD = re.compile(r"(?:(?P<moves>[1-9]\d{0,2})/)?(?P<seconds>[1-9]\d{0,6})(?:\+(?P<increment>\d{1,7}))?")
_CENTI = 100
"""Time fields are in hundredths of a second (``TIME_PERIOD``)."""
_REST_MOVES = 1000
"""``TIME_PERIOD.moves`` of a period that lasts the rest of the game."""
_PERIODS = 3
"""Periods of a time control item (33 bytes, morphy's TimeControlAnnotation; the reader's test record)."""
_MAX_SIZE = (1 << (8 * (_ITEM_HEAD.field("size").size or 0))) - 1


@functools.cache
def _body(type_: int) -> Any:
    """Item type ``type_``'s body codec (generated functions for the fixed bodies: clocks, evaluations, symbols
    ...), made when first needed (a file uses few of the types; making them all costs a start-up)."""
    return codec(schema.ANNOTATION_CASES[type_].declaration)


SHAPE = re.compile(r"(?:(\[%eval\s[^\]\[]*\])\s*)?(\[%clk\s[^\]\[]*\])?")
"""The comment lichess writes after every move: an evaluation, a clock or both, nothing else."""
_CACHED = 1 << 16
"""Commands (by their text and the mover) whose items are kept, for comments of :data:`SHAPE`."""
_by_position = itemgetter(0, 1)
_TEXT_NAMES = {"text_after": "comment", "text_before": "comment before a variation"}
"""What a text item is, in a warning."""


@dataclass
class EncodedAnnotations:
    """A game's ``.cba`` record (``None``: no annotation) and what its ``.cbh`` record says about it."""

    data: bytes | None
    kinds: dict[str, int] = field(default_factory=dict)
    """Items per type name (``symbols``, ``text_after`` ...)."""
    problems: list[str] = field(default_factory=list)
    text_bytes: int = 0
    """Bytes of the comments' texts (both kinds, every language): the record's ``many_comments`` bit."""


def encode_text(text: str, encoding: str | None) -> tuple[bytes, str]:
    """A comment's bytes: in ``encoding``, else cp1252 when it holds the text (and the text has no 'ž', whose
    cp1252 byte 0x9E is ChessBase's diagram mark), else UTF-8 -- as :func:`.annotations.decode_text` reads;
    and the characters ``encoding`` cannot hold (written as "?": :func:`.tags.unencodable`)."""
    if encoding:
        try:
            return text.encode(encoding), ""
        except UnicodeEncodeError:
            return text.encode(encoding, errors="replace"), unencodable(text, encoding)
    if "\u017e" not in text:
        try:
            return text.encode("cp1252"), ""
        except UnicodeEncodeError:
            pass
    return text.encode("utf-8"), ""


def _cba_square(square: int) -> int:
    """A python-chess square as a .cba square number (from 1, file-major)."""
    return chess.square_file(square) * 8 + chess.square_rank(square) + 1


class _Items:
    def __init__(self, encoding: str | None) -> None:
        self.encoding = encoding
        self.items: list[tuple[int, int, bytes]] = []
        """(position, rank in :data:`_ORDER`, the item's bytes)"""
        self.kinds: dict[str, int] = {}
        self.text_bytes = 0
        self.problems: list[str] = []

    def add(self, position: int, kind: str, body: dict[str, Any]) -> None:
        type_ = _TYPES[kind]
        data = _body(type_).encode(body)
        if ITEM_HEAD_SIZE + len(data) > _MAX_SIZE:
            self.problems.append(f"a {kind} item of {len(data)} bytes at position {position}: too long, left out")
            return
        self.items.append((position, _ORDER.get(type_, len(_ORDER)),
                           item_head(position, type_, ITEM_HEAD_SIZE + len(data)) + data))
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def comment(self, position: int, comment: str, mover: chess.Color, *, clock: bool = True) -> None:
        """The items of a move's comment (after it): its PGN commands and its text. A comment of :data:`SHAPE`
        takes each command's item from a cache (the item :meth:`commands` finds in it)."""
        shape = SHAPE.fullmatch(comment)
        if shape is not None:
            evaluation, clock_text = shape.groups()
            found = [] if clock_text is None or not clock else [command_item(clock_text, mover)]
            if evaluation is not None:
                found.append(command_item(evaluation, mover))
            if None not in found:
                for kind, type_, rank, body in found:  # type: ignore[misc]
                    if type_ >= 0:
                        self.items.append((position, rank, item_head(position, type_, ITEM_HEAD_SIZE + len(body))
                                           + body))
                        self.kinds[kind] = self.kinds.get(kind, 0) + 1
                return
        self.commands(position, comment, mover, clock=clock)
        self.text(position, "text_after", comment)

    def game_comment(self, comment: str, mover: chess.Color) -> None:
        """The game's comment (before the first move; ``mover``: the side that moved into the start position): its
        text and its PGN commands on the game (position -1, where the reader gives them back), but a clock: one
        there is the game's final clock (:func:`_finals`), so it is reported and left out."""
        if "[%" in comment:
            self.commands(-1, comment, mover, clock=False)
            if _clock(comment) is not None:
                self.problems.append("[%clk] in the game's comment: ChessBase has no place for a clock before the "
                                     "first move, left out")
        self.text(-1, "text_after", comment)

    def starting_comment(self, position: int, comment: str) -> None:
        """A variation's starting comment (before its first move, at ``position``): its text; its PGN commands
        have no place there (an item at that position is the move's, after it), so they are reported."""
        if "[%" in comment:
            names = dict.fromkeys(match[1] for match in _COMMAND.finditer(comment))
            if names:
                self.problems.append(f"{', '.join(f'[%{name}]' for name in names)} before a variation's first move at "
                                     f"position {position}: ChessBase has no place for them there, left out")
        self.text(position, "text_before", comment)

    def text(self, position: int, kind: str, text: str) -> None:
        text = _COMMAND.sub("", text).strip()
        if text:
            raw, lost = encode_text(text, self.encoding)
            if lost:
                where = "the game's comment" if position < 0 else f"{_TEXT_NAMES[kind]} at position {position}"
                self.problems.append(f"{where}: {lost!r} not in {self.encoding}, written as '?'")
            before = len(self.items)
            self.add(position, kind, {"reserved": 0, "language": "all", "text": raw})
            if len(self.items) > before:
                self.text_bytes += len(raw)

    def nags(self, position: int, nags: set[int]) -> None:
        key = frozenset(nags)
        cached = _SYMBOLS.get(key)
        if cached is None:  # the symbols item of these NAGs (kept: few sets come back)
            probe = _Items(None)
            probe._nags(nags)
            cached = probe.items[0][2][ITEM_HEAD_SIZE:] if probe.items else b"", probe.problems
            if len(_SYMBOLS) < _CACHED:
                _SYMBOLS[key] = cached
        body, problems = cached
        self.problems += [problem.format(position=position) for problem in problems]
        if body:
            type_ = _TYPES["symbols"]
            head = item_head(position, type_, ITEM_HEAD_SIZE + len(body))
            self.items.append((position, _ORDER[type_], head + body))
            self.kinds["symbols"] = self.kinds.get("symbols", 0) + 1

    def _nags(self, nags: set[int]) -> None:
        """The symbols item of ``nags`` at position 0 (its problems with ``{position}`` for the position)."""
        position = 0
        values = [0, 0, 0]
        for nag in sorted(nags):
            slot = next((i for i, (_, known) in enumerate(_SYMBOL_FIELDS) if nag in known and not values[i]), None)
            if slot is None:
                self.problems.append(f"NAG ${nag} at position {{position}}: the symbols item has no place for it")
                continue
            values[slot] = nag
        used = max((i + 1 for i, value in enumerate(values) if value), default=0)
        if used:
            self.add(position, "symbols", {name: values[i] if i < used else None
                                           for i, (name, _) in enumerate(_SYMBOL_FIELDS)})

    def clock(self, position: int, mover: chess.Color, clock: float) -> None:
        centiseconds = clock_centiseconds(clock)
        if centiseconds is None:  # the game is written, without this clock
            self.problems.append(f"[%clk] of {clock} s at position {position}: out of range, left out")
            return
        self.add(position, "white_clock" if mover == chess.WHITE else "black_clock", {"centiseconds": centiseconds})

    def commands(self, position: int, comment: str, mover: chess.Color, *, clock: bool = True) -> None:
        """The items of the PGN commands of a move's comment, read by python-chess's own ``GameNode`` methods."""
        node = _Turned(comment, not mover)
        game_node = _game_node()
        squares, arrows = [], []
        for arrow in game_node.arrows(node):  # type: ignore[arg-type]
            colour = _COLOURS.get(arrow.color)
            if colour is None:
                self.problems.append(f"{arrow.color} arrow at position {position}: ChessBase has no such colour")
                continue
            if arrow.tail == arrow.head:
                squares.append({"colour": colour, "square": _cba_square(arrow.tail)})
            else:
                arrows.append({"colour": colour, "source": _cba_square(arrow.tail), "target": _cba_square(arrow.head)})
        if squares:
            self.add(position, "squares", {"squares": squares})
        if arrows:
            self.add(position, "arrows", {"arrows": arrows})
        seconds = game_node.clock(node) if clock else None  # type: ignore[arg-type]
        if seconds is not None:
            self.clock(position, mover, seconds)
        emt = game_node.emt(node)  # type: ignore[arg-type]
        if emt is not None:
            hours, rest = divmod(round(emt), 3600)
            if hours > 255:
                self.problems.append(f"[%emt] of {emt} s at position {position}: too long, left out")
            else:
                self.add(position, "time_spent", {"hours": hours, "minutes": rest // 60, "seconds": rest % 60,
                                                  "unknown": 0})
        score = game_node.eval(node)  # type: ignore[arg-type]
        if score is not None:
            white = score.white()
            mate = white.mate()
            value = mate if mate is not None else white.score()
            if value is None or not -EVAL_LIMIT <= value < EVAL_LIMIT:
                self.problems.append(f"[%eval] {white} at position {position}: out of range, left out")
            else:
                depth = game_node.eval_depth(node) or 0  # type: ignore[arg-type]
                if depth >= DEPTH_LIMIT:  # the evaluation is kept, without its depth
                    self.problems.append(f"[%eval] depth {depth} at position {position}: out of range, left out")
                    depth = 0
                self.add(position, "engine_evaluation", {"value": value, "kind": "mate" if mate is not None else
                                                         "centipawns", "depth": depth})

    def time_control(self, tag: str) -> None:
        """The ``TimeControl`` tag as a time control item on the game (the reader's ``time_control_tag``
        inverted): ``[moves/]seconds[+increment]`` periods joined by ``:``. Kept by tag: a file has few."""
        items, problems, kinds = _time_control_entries(tag)
        self.items += items
        self.problems += problems
        for kind, count in kinds.items():
            self.kinds[kind] = self.kinds.get(kind, 0) + count

    def _time_control(self, tag: str) -> None:
        tag = tag.strip()
        if tag in ("", "?", "-"):
            return
        periods = []
        for part in tag.split(":"):
            match = _PERIOD.fullmatch(part)
            if match is None:
                self.problems.append(f"TimeControl {tag!r}: no ChessBase form, left out")
                return
            moves, seconds, increment = match["moves"], int(match["seconds"]), int(match["increment"] or 0)
            kind = "stage" if moves else "rest_increment" if match["increment"] is not None else "rest"
            periods.append({"start": seconds * _CENTI, "increment": increment * _CENTI,
                            "moves": int(moves) if moves else _REST_MOVES, "kind": kind})
        if len(periods) > _PERIODS:
            self.problems.append(f"TimeControl {tag!r}: more than {_PERIODS} periods, left out")
            return
        unused = {"start": 0, "increment": 0, "moves": 0, "kind": 0}
        self.add(-1, "time_control", {"periods": periods + [unused] * (_PERIODS - len(periods))})

    def record(self, game: int) -> bytes | None:
        if not self.items:
            return None
        self.items.sort(key=_by_position)
        return _record(game, len(self.items), b"".join([item[2] for item in self.items]))


def _record(game: int, count: int, items: bytes) -> bytes:
    """A record of ``count`` items (``items``: their bytes, in order) for game number ``game``."""
    head = _HEAD.encode({"game": game, "fixed": schema.ANNOTATION_FIXED, "count": count + 1,
                         "size": _HEAD_SIZE + len(items)})
    return bytes(head) + items


class ItemRecord(NamedTuple):
    """A game's annotation record without its head (which holds the game's number in the base), made before
    the game is written (:func:`.annotation_batch.encode_comment_lines`)."""

    items: bytes
    entries: int
    """The number of items."""
    kinds: dict[str, int]
    problems: list[str]

    def encoded(self, number: int) -> EncodedAnnotations:
        """The record as game ``number``'s."""
        data = _record(number, self.entries, self.items) if self.entries else None
        return EncodedAnnotations(data, dict(self.kinds), list(self.problems), 0)


def _time_control_entries(tag: str) -> tuple[list[tuple[int, int, bytes]], list[str], dict[str, int]]:
    cached = _TIME_CONTROLS.get(tag)
    if cached is None:
        probe = _Items(None)
        probe._time_control(tag)
        cached = (probe.items, probe.problems, probe.kinds)
        if len(_TIME_CONTROLS) < _CACHED:
            _TIME_CONTROLS[tag] = cached
    return cached


def time_control_items(tag: str) -> tuple[list[bytes], list[str], dict[str, int]]:
    """The items (bytes, in order), problems and kinds of a ``TimeControl`` tag (kept by tag)."""
    items, problems, kinds = _time_control_entries(tag)
    return [item[2] for item in items], problems, kinds


def _game_node() -> type[chess.pgn.GameNode]:
    """python-chess's ``GameNode``, whose methods read the PGN commands (its PGN module imported when a comment
    is first read: a base of games without comments is written without it)."""
    import chess.pgn

    return chess.pgn.GameNode


class _Turned:
    """A node's comment and the side to move after it, for python-chess's own ``GameNode.eval`` (whose
    ``self.turn()`` walks up to the game from the node)."""

    __slots__ = ("_turn", "comment")

    def __init__(self, comment: str, turn: chess.Color) -> None:
        self.comment = comment
        self._turn = turn

    def turn(self) -> chess.Color:
        return self._turn


def clock_centiseconds(seconds: float) -> int | None:
    """A clock item's centiseconds of a clock of ``seconds`` (python-chess's reading); None where ChessBase cannot
    hold it (:data:`CLOCK_LIMIT`)."""
    centiseconds = round(seconds * 100)
    return centiseconds if 0 <= centiseconds < CLOCK_LIMIT else None


def _clock(comment: str) -> float | None:
    """python-chess's ``GameNode.clock`` of a comment."""
    return _game_node().clock(_Turned(comment, chess.WHITE))  # type: ignore[arg-type]


def _finals(clocked: Sequence[Any], last: Mapping[bool, Any]) -> list[Any]:
    """Of the moves ``clocked`` (those with a clock), those whose clocks are the game's final clocks: when only
    the last main-line move of each side (``last``, by mover) has a clock, ChessBase stores them on the game
    (position -1, white's first; BielMTO, Chess960Biel), and the reader puts them back on those moves. Empty
    otherwise. (:mod:`.annotation_batch` applies it to the main lines of many games at once.)"""
    finals = [last[side] for side in (chess.WHITE, chess.BLACK) if side in last]
    return [move for move in finals if move in clocked] if all(move in finals for move in clocked) else []


def _final_clocks(game: chess.pgn.Game, nodes: list[chess.pgn.ChildNode],
                  movers: dict[int, chess.Color]) -> list[chess.pgn.ChildNode]:
    """The nodes whose clocks are the game's final clocks (:func:`_finals`)."""
    clocked = [node for node in nodes if "[%clk" in node.comment and _clock(node.comment) is not None]
    if not clocked:
        return []
    last: dict[bool, chess.pgn.ChildNode] = {}
    node: chess.pgn.GameNode = game
    while node.variations:
        node = node.variations[0]
        assert isinstance(node, chess.pgn.ChildNode)
        last[movers[id(node)]] = node
    return _finals(clocked, last)


def _movers(game: chess.pgn.Game, nodes: list[chess.pgn.ChildNode]) -> dict[int, chess.Color]:
    """By ``id``: the side that made each node's move (``node.parent.turn()``, which walks up to the game from
    every node: quadratic in the game's length), in one pass over the nodes, parents first (stream order)."""
    movers: dict[int, chess.Color] = {id(game): not game.turn()}
    for node in nodes:
        movers[id(node)] = not movers[id(node.parent)]
    return movers


def encode_annotations(game: chess.pgn.Game, encoded: EncodedGame, *, number: int,
                       encoding: str | None = None) -> EncodedAnnotations:
    """Game ``number``'s ``.cba`` record from its comments, NAGs and PGN commands."""
    items = _Items(encoding)
    movers = _movers(game, encoded.nodes)
    items.game_comment(game.comment, movers[id(game)])
    items.time_control(game.headers.get("TimeControl", ""))
    finals = _final_clocks(game, encoded.nodes, movers)
    for node in finals:
        seconds = _clock(node.comment)
        assert seconds is not None
        items.clock(-1, movers[id(node)], seconds)
    for position, node in enumerate(encoded.nodes):
        if node.starting_comment:
            items.starting_comment(position, node.starting_comment)
        if node.nags:
            items.nags(position, set(node.nags))
        if node.comment:
            items.comment(position, node.comment, movers[id(node)], clock=node not in finals)
    return EncodedAnnotations(items.record(number), items.kinds, items.problems, items.text_bytes)


class LineAnnotations(NamedTuple):
    """The annotations of a main line from the standard position without variations, as a PGN reader finds
    them (python-chess's ``GameBuilder`` puts the same on the nodes of the game)."""

    comment: str
    """The game's comment (the comments before the first move)."""
    comments: Sequence[str]
    """Per ply (from 0): the comment after that move ("": none)."""
    nags: Mapping[int, set[int]]
    """By ply: the NAGs of that move."""


def encode_line_annotations(headers: Mapping[str, str], line: LineAnnotations, *, number: int,
                            encoding: str | None = None) -> EncodedAnnotations:
    """Game ``number``'s ``.cba`` record from its tags and the annotations of its main line: what
    :func:`encode_annotations` gives the python-chess game of the same tags, moves and annotations (the
    ``.cba`` position of ply ``i`` is ``i``; White makes the even plies)."""
    items = _Items(encoding)
    items.game_comment(line.comment, chess.BLACK)  # (the standard start: White moves first)
    items.time_control(headers.get("TimeControl", ""))
    comments = line.comments
    plies = len(comments)
    finals: list[int] = []
    if not any("[%clk" in comments[ply] and _clock(comments[ply]) is not None for ply in range(plies - 2)):
        last = {ply % 2 == 0: ply for ply in range(max(plies - 2, 0), plies)}
        finals = _finals([ply for ply in last.values() if "[%clk" in comments[ply] and
                          _clock(comments[ply]) is not None], last)
    for ply in finals:
        seconds = _clock(comments[ply])
        assert seconds is not None
        items.clock(-1, ply % 2 == 0, seconds)
    nags = line.nags
    shape = SHAPE.fullmatch
    cached = _COMMAND_ITEMS.get
    entries = items.items
    kinds = items.kinds
    for position, comment in enumerate(comments):
        if nags and position in nags:
            items.nags(position, nags[position])
        if not comment:
            continue
        white = not position & 1
        # a comment of SHAPE, inline (the loop runs once per move of every game): Items.comment's cache
        match = shape(comment)
        if match is None:
            items.comment(position, comment, white, clock=position not in finals)
            continue
        evaluation, clock_text = match.groups()
        found = []
        if clock_text is not None and position not in finals:
            found.append(cached((clock_text, white), _MISSING) or command_item(clock_text, white))
        if evaluation is not None:
            found.append(cached((evaluation, white), _MISSING) or command_item(evaluation, white))
        if None in found:
            items.comment(position, comment, white, clock=position not in finals)
            continue
        for kind, type_, rank, body in found:  # type: ignore[misc]
            if type_ >= 0:
                entries.append((position, rank, item_head(position, type_, ITEM_HEAD_SIZE + len(body)) + body))
                kinds[kind] = kinds.get(kind, 0) + 1
    return EncodedAnnotations(items.record(number), items.kinds, items.problems, items.text_bytes)


_HEADS: dict[tuple[int, int, int], bytes] = {}


def item_head(position: int, type_: int, size: int) -> bytes:
    """An item's head (kept: the same few positions, types and sizes come back in every game)."""
    head = _HEADS.get((position, type_, size))
    if head is None:
        head = bytes(_ITEM_HEAD.encode({"position": position, "type": type_, "size": size}))
        if len(_HEADS) < _CACHED:
            _HEADS[position, type_, size] = head
    return head


_SYMBOLS: dict[frozenset[int], tuple[bytes, list[str]]] = {}
_TIME_CONTROLS: dict[str, tuple[list[tuple[int, int, bytes]], list[str], dict[str, int]]] = {}
_MISSING: Any = ()
"""Not in :data:`_COMMAND_ITEMS` yet (false, as a value there is true or None)."""
_COMMAND_ITEMS: dict[tuple[str, bool], tuple[str, int, int, bytes] | None] = {}


def command_item(command: str, mover: chess.Color) -> tuple[str, int, int, bytes] | None:
    """The item of one PGN command as :meth:`_Items.commands` finds it in a comment: (kind, type, rank in
    :data:`_ORDER`, body); type -1: no item; None: not one item without a problem (the caller reads the whole
    comment). Kept: lichess's clocks and evaluations take a few thousand values."""
    key = (command, mover)
    if key in _COMMAND_ITEMS:
        return _COMMAND_ITEMS[key]
    items = _Items(None)
    items.commands(0, command, mover)
    found: tuple[str, int, int, bytes] | None = None
    if not items.problems and len(items.items) <= 1:
        found = ("", -1, 0, b"")
        if items.items:
            _, rank, data = items.items[0]
            kind = next(iter(items.kinds))
            found = kind, _TYPES[kind], rank, data[ITEM_HEAD_SIZE:]
    if len(_COMMAND_ITEMS) < _CACHED:
        _COMMAND_ITEMS[key] = found
    return found
