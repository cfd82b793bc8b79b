"""The ``.cba`` records of many games at once when every comment is an evaluation and a clock, the way lichess
writes one after every move (``[%eval 0.39] [%clk 0:02:57]``, either or both).

:func:`.annotation_writer.encode_line_annotations` reads a game's comments one by one in Python: a few µs a
move, more than the rest of a PGN import. Here the brace comments of a batch of games are read as one array of
bytes: each comment's text (python-chess's: a blank after "{" and one before "}" dropped) is checked to be of
:data:`.annotation_writer.SHAPE` (where its brackets are, what is between them) with numpy, its evaluation and
clock are numbered by their characters (a clock ``H:MM:SS`` by its digits, an evaluation by its sign and up to
five more characters, any other command by its text). Each distinct command is read once, by this module's own
patterns of what python-chess's ``GameNode.clock``, ``eval`` and ``eval_depth`` read (the item the writer makes
of them: :meth:`.annotation_writer._Items.commands`), the bodies made together by the schema's codec, and kept
from batch to batch; the items (head and body) of every move of every game are laid out with numpy (the clocks
of a game that has them on its last two moves only go on the game, where ChessBase keeps its final clocks). A
game with any other comment (text, arrows, an ``[%emt]``, a command python-chess does not read whole, a command
whose item cannot be written, a character outside ASCII) is left to
:func:`.annotation_writer.encode_line_annotations`. The tests compare both (random comments, every shape), and
the commands read here with python-chess's readings.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from ...engine.codec import codec
from ...schemas import chessbase as schema
from .annotation_writer import (
    DEPTH_LIMIT,
    EVAL_LIMIT,
    ITEM_HEAD_SIZE,
    ITEM_TYPES,
    ItemRecord,
    clock_centiseconds,
    item_head,
    time_control_items,
)

__all__ = ["encode_comment_lines"]

Array = np.ndarray[Any, Any]

_SPACE = np.array([chr(code).isspace() for code in range(256)], dtype=bool)
"""The ASCII characters ``\\s`` matches in a pattern of text (str.isspace: also 0x1C-0x1F); bytes >= 128 are
never looked at (a comment with one is left to the writer)."""
_SPACE[128:] = False
_EVAL, _CLOCK = b"[%eval", b"[%clk"
_WINDOW = 16
"""Bytes looked at from a command's "[" at most (a clock ``[%clk H:MM:SS]``): the text is padded with twice as
many."""
_CLOCK_FORM = b"[%clk 0:00:00]"
_CLOCK_DIGITS = [at for at, char in enumerate(_CLOCK_FORM) if char == ord("0")]
_SYMBOLS = b"0123456789.-#+,"
"""The characters of an evaluation's value numbered (from 1; 0: past its end) in its key."""
_CODE = np.zeros(256, dtype=np.int64)
_CODE[list(_SYMBOLS)] = np.arange(1, len(_SYMBOLS) + 1)
_SIGNS = ("", "-", "#", "#-")
"""What an evaluation's value may start with (a mate, a minus), the key's top bits."""
_VALUE_CHARS = 5
"""Characters of an evaluation's value after its sign, at most, in its key (4 bits each)."""
_VALUE_AT = len(_EVAL) + 1
"""Where an evaluation's value starts (after ``[%eval `` with its blank)."""


_CLOCK_COMMAND = re.compile(r"\[%clk\s(\d+):(\d+):(\d+(?:\.\d*)?)\]")
"""A clock as python-chess's ``GameNode.clock`` reads one (its ``CLOCK_REGEX``: hours, minutes, seconds with
any decimals)."""
_EVAL_COMMAND = re.compile(r"\[%eval\s(?:#([+-]?\d+)|([+-]?(?:\d{0,10}\.\d{1,2}|\d{1,10}\.?)))(?:,(\d+))?\]")
"""An evaluation as python-chess's ``GameNode.eval`` and ``eval_depth`` read one (its ``EVAL_REGEX``: a mate
``#n`` or pawns with at most two decimals, then a depth)."""
_CACHED = 1 << 17
"""Commands of a group kept at most (then forgotten, and met again)."""


def _clock_body(match: re.Match[str]) -> tuple[int, ...] | None:
    """The clock item's fields (centiseconds) of a clock command, as :meth:`.annotation_writer._Items.clock`
    makes them from python-chess's reading; None where that item cannot be written."""
    hours, minutes, seconds = match.groups()
    centiseconds = clock_centiseconds(int(hours) * 3600 + int(minutes) * 60 + float(seconds))
    return None if centiseconds is None else (centiseconds,)


def _eval_body(match: re.Match[str]) -> tuple[int, ...] | None:
    """The evaluation item's fields (value, kind, depth) of an evaluation command, as
    :meth:`.annotation_writer._Items.commands` makes them from python-chess's reading (White's point of view, as
    written; kind 1 a mate, 0 centipawns); None where that item cannot be written (out of range)."""
    mate, pawns, depth = match.groups()
    value = int(mate) if mate is not None else round(float(pawns) * 100)
    steps = int(depth) if depth else 0
    return (value, 0 if mate is None else 1, steps) if -EVAL_LIMIT <= value < EVAL_LIMIT and steps < DEPTH_LIMIT \
        else None


class _Group(NamedTuple):
    """How one group's commands (clocks, evaluations) are read: the command's pattern, the item's fields from
    its match (None: the batch path cannot take it), the item types for Black and for White and their body."""

    pattern: re.Pattern[str]
    fields: Callable[[re.Match[str]], tuple[int, ...] | None]
    types: tuple[str, str]
    declaration: Any


class _Commands:
    """The commands of one group (evaluations or clocks) met so far, kept from batch to batch (lichess's clocks
    and evaluations take a few thousand values): ``rows`` by key (-1: not met), ``named`` by their text. Per
    command (row 0: none) and mover (0: Black, 1: White): ``types``, the item's type (-1: none), and ``bad``: a
    command the batch path cannot take; per command, ``bodies``: the item's body (the same for both movers).
    ``ids``: the batch's command of each comment. Each is read by the writer's rules (python-chess's readings,
    :meth:`.annotation_writer._Items.commands`), with this module's own patterns: the tests compare them."""

    def __init__(self, keys: int, text: Callable[[int], str], group: _Group) -> None:
        self.keys = keys
        self.text = text
        self.group = group
        self.found = [ITEM_TYPES[name] for name in group.types]
        self.kinds = dict(zip(self.found, group.types, strict=True))
        self.body = codec(group.declaration)
        self.size: int = self.body.size or 0
        self.clear()

    def clear(self) -> None:
        """Forget every command met (the tables made again at the next batch)."""
        self.rows = np.zeros(0, dtype=np.int32)  # made at the first batch (16 MiB for the evaluations)
        self.named: dict[str, int] = {}
        self.types = np.zeros((0, 2), dtype=np.int64)
        self.bad = np.zeros((0, 2), dtype=bool)
        self.bodies = np.zeros((0, self.size), dtype=np.uint8)
        self.ids = np.zeros(0, dtype=np.int64)
        self._add([""])

    def _add(self, texts: list[str]) -> None:
        """Rows for the commands ``texts`` (after the others)."""
        group = self.group
        fields, types, bad = [], [], []
        for text in texts:
            match = group.pattern.fullmatch(text)  # (the command alone: as python-chess's search of it)
            found = None if match is None else group.fields(match)
            types.append(self.found if found is not None else (-1, -1))
            bad.append(match is not None and found is None)
            fields.append(found or (0,) * len(self.body.leaves))
        columns = dict(zip(self.body.leaves, np.array(fields, dtype=np.int64).T, strict=True))
        self.types = np.concatenate((self.types, np.array(types, dtype=np.int64)))
        self.bad = np.concatenate((self.bad, np.repeat(np.array(bad, dtype=bool), 2).reshape(-1, 2)))
        self.bodies = np.concatenate((self.bodies, np.frombuffer(self.body.from_columns(columns), dtype=np.uint8)
                                      .reshape(-1, self.size)))

    def read(self, keys: Array, known: Array, starts: Array, stops: Array, data: bytes) -> None:
        """Set ``ids``: ``known`` comments by their ``keys`` (``text(key)``: the command), the others by their
        text (``data[starts:stops]``); ``keys`` is -1 where a comment has no command."""
        if len(self.types) > _CACHED:
            self.clear()
        if not len(self.rows):
            self.rows = np.full(self.keys, -1, dtype=np.int32)
        ids = np.zeros(len(keys), dtype=np.int64)
        chosen = np.flatnonzero(known)
        rows = self.rows[keys[chosen]]
        # the keys not met yet, once each: of a repeated key, the one whose number numpy kept (whichever write to a
        # repeated index it keeps; no sort, no np.unique)
        new = keys[chosen[rows < 0]]
        self.rows[new] = np.arange(-len(new) - 1, -1, dtype=np.int32)
        new = new[self.rows[new] == np.arange(-len(new) - 1, -1, dtype=np.int32)]
        if len(new):
            self.rows[new] = np.arange(len(new)) + len(self.types)
            self._add([self.text(key) for key in new.tolist()])
            rows = self.rows[keys[chosen]]
        ids[chosen] = rows
        others = np.flatnonzero(~known & (keys >= 0))
        if len(others):
            texts = [data[start:stop].decode("utf-8", errors="replace")  # (a game with a byte >= 128 is refused)
                     for start, stop in zip(starts[others].tolist(), stops[others].tolist(), strict=True)]
            added = [text for text in dict.fromkeys(texts) if text not in self.named]
            self.named.update((text, number + len(self.types)) for number, text in enumerate(added))
            if added:
                self._add(added)
            ids[others] = [self.named[text] for text in texts]
        self.ids = ids


def _clock_text(key: int) -> str:
    digits = f"{key:0{len(_CLOCK_DIGITS)}d}"
    form = bytearray(_CLOCK_FORM)
    for at, digit in zip(_CLOCK_DIGITS, digits, strict=True):
        form[at] = ord(digit)
    return form.decode("ascii")


def _eval_text(key: int) -> str:
    value = bytes(_SYMBOLS[(key >> shift & 15) - 1] for shift in range(4 * _VALUE_CHARS - 4, -4, -4)
                  if key >> shift & 15)
    return f"{_EVAL.decode()} {_SIGNS[key >> 4 * _VALUE_CHARS]}{value.decode('ascii')}]"


def _commands(comments: str, count: int) -> tuple[Array, _Commands, _Commands] | None:
    """Per comment of ``comments`` (``count`` brace comments one after another): whether the batch path cannot
    take it, and the clock and evaluation groups; None when ``comments`` is not ``count`` comments."""
    data = comments.encode("utf-8")
    raw = np.frombuffer(data + bytes(2 * _WINDOW), dtype=np.uint8)
    text = raw[:len(data)]
    closes = np.flatnonzero(text == ord("}"))
    if len(closes) != count or not count:
        return None
    opens = np.concatenate(([0], closes[:-1] + 1))
    if not (text[opens] == ord("{")).all():
        return None

    # python-chess's text of each comment: [start, stop)
    start, stop = opens + 1, closes.copy()
    start += (text[start] == ord(" ")) & (start < stop)
    stop -= (stop > start) & (text[stop - 1] == ord(" "))
    # each comment's "[" and "]": how many, the first two of each (past the text's end where it has none); the
    # dropped blanks and braces hold none
    lefts, rights = (np.concatenate((np.flatnonzero(text == ord(char)), [len(data)] * 2)) for char in "[]")
    left, right = np.searchsorted(lefts, opens), np.searchsorted(rights, opens)
    brackets = np.diff(left, append=len(lefts) - 2)
    bad = (brackets != np.diff(right, append=len(rights) - 2)) | (brackets > 2)
    first_close, second_open, second_close = rights[right], lefts[left + 1], rights[right + 1]
    braces = np.flatnonzero(text == ord("{"))
    if len(braces) != count:  # a "{" inside a comment
        bad |= np.bincount(np.searchsorted(closes, braces), minlength=count) != 1
    if not comments.isascii():
        bad[np.searchsorted(closes, np.flatnonzero(text >= 128))] = True
    # the eight bytes from each offset, as a little-endian number
    words = np.ndarray((len(data) + _WINDOW,), dtype="<u8", buffer=raw, strides=(1,))
    evaluation = _starts(words[start], _EVAL) & _SPACE[raw[start + len(_EVAL)]]
    # the clock's "[": the comment's first (one command) or its second (after the evaluation and blanks)
    clock_at = np.where(brackets == 2, second_open, start)
    clock = _starts(words[clock_at], _CLOCK) & _SPACE[raw[clock_at + len(_CLOCK)]]
    one = (brackets == 1) & (first_close == stop - 1)
    two = (brackets == 2) & evaluation & clock & (first_close < second_open) & (second_close == stop - 1)
    gap = np.where(two, second_open - first_close - 1, 0)  # blanks only
    for at in range(int(gap.max(initial=0))):
        two &= (gap <= at) | _SPACE[raw[np.minimum(first_close + 1 + at, len(data))]]
    shaped = ((brackets == 0) & (stop == start)) | (one & (evaluation | clock)) | two
    bad |= ~shaped
    has_eval = shaped & evaluation
    has_clock = shaped & clock & ~(one & evaluation)
    # an evaluation "[%eval V]", V a sign (_SIGNS) and at most five characters of _SYMBOLS: keyed by them
    value = start + _VALUE_AT
    mate = raw[value] == ord("#")
    negative = raw[value + mate] == ord("-")
    value += mate.astype(np.int64) + negative
    length = first_close - value
    eval_known = has_eval & (raw[start + len(_EVAL)] == ord(" ")) & (length >= 1) & (length <= _VALUE_CHARS)
    eval_keys = (2 * mate + negative).astype(np.int64)
    for at in range(_VALUE_CHARS):
        code = np.where(at < length, _CODE[raw[value + at]], 0)
        eval_known &= (code > 0) | (at >= length)
        eval_keys = eval_keys << 4 | code
    eval_keys = np.where(eval_known, eval_keys, np.where(has_eval, 0, -1))
    # a clock "[%clk H:MM:SS]": keyed by its digits
    clock_known = has_clock & (stop - clock_at == len(_CLOCK_FORM))
    clock_keys = np.zeros(count, dtype=np.int64)
    for at, char in enumerate(_CLOCK_FORM[len(_CLOCK):-1], len(_CLOCK)):
        found = raw[clock_at + at]
        if char == ord("0"):
            digit = found.astype(np.int64) - ord("0")
            clock_known &= (digit >= 0) & (digit <= 9)
            clock_keys = clock_keys * 10 + digit
        else:
            clock_known &= found == char
    clock_keys = np.where(clock_known, clock_keys, np.where(has_clock, 0, -1))
    clocks, evaluations = _groups()
    clocks.read(clock_keys, clock_known, clock_at, stop, data)
    evaluations.read(eval_keys, eval_known, start, first_close + 1, data)
    return bad, clocks, evaluations


def _starts(words: Array, prefix: bytes) -> Array:
    """Whether the eight bytes ``words`` (little-endian numbers) start with ``prefix``."""
    mask = (1 << (8 * len(prefix))) - 1
    found: Array = (words & np.uint64(mask)) == np.uint64(int.from_bytes(prefix, "little"))
    return found


_LOCK = threading.Lock()
"""Held while a batch uses the commands met so far (:func:`_groups`)."""
_GROUPS: list[_Commands] = []


def _groups() -> list[_Commands]:
    """The clocks and the evaluations met so far (made at the first batch)."""
    if not _GROUPS:
        clock, evaluation = (schema.ANNOTATION_CASES[ITEM_TYPES[name]].declaration
                             for name in ("white_clock", "engine_evaluation"))  # (the two clocks' bodies are alike)
        _GROUPS.append(_Commands(10 ** len(_CLOCK_DIGITS), _clock_text, _Group(
            _CLOCK_COMMAND, _clock_body, ("black_clock", "white_clock"), clock)))
        _GROUPS.append(_Commands(len(_SIGNS) << (4 * _VALUE_CHARS), _eval_text, _Group(
            _EVAL_COMMAND, _eval_body, ("engine_evaluation",) * 2, evaluation)))
    return _GROUPS


def _heads(types: Array, size: int, positions: int) -> Array:
    """Per distinct type of ``types`` (the first axis: in order of the types) and position: the item head."""
    rows = np.zeros((len(types), positions, ITEM_HEAD_SIZE), dtype=np.uint8)
    for slot, type_ in enumerate(types.tolist()):
        rows[slot] = np.frombuffer(b"".join(item_head(position, type_, ITEM_HEAD_SIZE + size)
                                            for position in range(positions)),
                                   dtype=np.uint8).reshape(-1, ITEM_HEAD_SIZE)
    return rows


def encode_comment_lines(headers: Sequence[Mapping[str, str]], comments: str,
                         plies: Sequence[int]) -> list[ItemRecord | None]:
    """Per game: its record without the head (:class:`.annotation_writer.ItemRecord`), or None when it is
    left to :func:`.annotation_writer.encode_line_annotations`.

    Game ``i`` (tags ``headers[i]``) is a main line of ``plies[i]`` moves from the standard position without
    NAGs, comments before its first move or variations, with a brace comment after every move: ``comments``
    holds them all, one after another (each ``{...}`` on one line, with no other "}" inside)."""
    with _LOCK:
        return _encode(headers, comments, plies)


def _encode(headers: Sequence[Mapping[str, str]], comments: str, plies: Sequence[int]) -> list[ItemRecord | None]:
    count = len(plies)
    result: list[ItemRecord | None] = [None] * count
    total = sum(plies)
    found = _commands(comments, total) if total and 0 not in plies else None
    if found is None:
        return result
    bad, clocks, evaluations = found
    lengths = np.asarray(plies, dtype=np.int64)
    game = np.repeat(np.arange(count), lengths)
    firsts = np.cumsum(lengths) - lengths
    position = np.arange(total) - np.repeat(firsts, lengths)
    mover = 1 - (position & 1)  # White makes the even plies
    groups = [clocks, evaluations]  # a position's clock item comes before its evaluation
    present = []
    for group in groups:
        bad |= group.bad[group.ids, mover]
        present.append(group.types[group.ids, mover] >= 0)
    # a game whose clocks are all on its last two moves (and has one): its final clocks go on the game (White's
    # first), before its time control: :func:`.annotation_writer._finals`'s rule for a main line, over all games
    clocked = np.flatnonzero(present[0])
    first_clock = np.searchsorted(clocked, firsts)  # the game's first clocked comment, if it has one
    has_clock = first_clock < len(clocked)
    has_clock[has_clock] = game[clocked[first_clock[has_clock]]] == np.flatnonzero(has_clock)
    earliest = np.where(has_clock, position[clocked[np.minimum(first_clock, len(clocked) - 1)]]
                        if len(clocked) else 0, 0)
    final = (has_clock & (earliest >= lengths - 2))[game] & present[0]
    refused = np.bincount(game, weights=bad, minlength=count) > 0
    laid = [present[0] & ~final, present[1]]  # the items at their moves
    offsets = np.zeros(total, dtype=np.int64)
    for group, has in zip(groups, laid, strict=True):
        offsets += has * (ITEM_HEAD_SIZE + group.size)
    ends = np.cumsum(offsets)
    # each comment's items (a clock's, then an evaluation's) in a row of a table, the rows and items it has kept
    widths = [ITEM_HEAD_SIZE + group.size for group in groups]
    table = np.empty((total, sum(widths)), dtype=np.uint8)
    counts = np.zeros(count, dtype=np.int64)
    kinds: list[tuple[str, Array]] = []
    limit = int(position.max(initial=0)) + 1
    column = 0
    for group, has, width in zip(groups, present, widths, strict=True):
        every = bool(has.all())
        chosen = slice(None) if every else np.flatnonzero(has)
        command = group.ids[chosen] * 2 + mover[chosen]
        types = group.types.reshape(-1)[command]
        distinct = np.flatnonzero(np.bincount(types, minlength=1))
        slot = np.zeros(int(distinct.max(initial=0)) + 1, dtype=np.int64)
        slot[distinct] = np.arange(len(distinct))
        which = slot[types]
        heads = _heads(distinct, group.size, limit).reshape(-1, ITEM_HEAD_SIZE)[which * limit + position[chosen]]
        table[chosen, column:column + ITEM_HEAD_SIZE] = heads
        table[chosen, column + ITEM_HEAD_SIZE:column + width] = group.bodies[group.ids[chosen]]
        column += width
        per_type = np.bincount(which * count + game[chosen], minlength=len(distinct) * count).reshape(-1, count)
        counts += per_type.sum(axis=0)
        kinds += [(group.kinds[type_], per_type[number]) for number, type_ in enumerate(distinct.tolist())]
    if all(has.all() for has in laid):
        data = table.tobytes()
    else:
        data = table[np.repeat(np.stack(laid, axis=1), widths, axis=1)].tobytes()
    finals: dict[int, bytes] = {}
    rows = np.flatnonzero(final)
    for row in rows[np.lexsort((1 - mover[rows], game[rows]))].tolist():  # by game, White's first
        reading, owner = int(clocks.ids[row]), int(game[row])
        head = item_head(-1, int(clocks.types[reading, mover[row]]), ITEM_HEAD_SIZE + clocks.size)
        finals[owner] = finals.get(owner, b"") + head + clocks.bodies[reading].tobytes()
    starts = (ends - offsets)[firsts].tolist()
    stops = [*starts[1:], len(data)]
    totals = counts.tolist()
    columns = [(name, values.tolist()) for name, values in kinds]
    controlled: dict[str, tuple[list[bytes], list[str], dict[str, int]]] = {}
    for number in np.flatnonzero(~refused).tolist():
        tag = headers[number].get("TimeControl", "")
        control = controlled.get(tag)
        if control is None:
            control = controlled[tag] = time_control_items(tag)
        controls, problems, control_kinds = control
        game_kinds = dict(control_kinds)
        for name, values in columns:
            if values[number]:
                game_kinds[name] = game_kinds.get(name, 0) + values[number]
        record = b"".join([finals.get(number, b""), *controls, data[starts[number]:stops[number]]])
        result[number] = ItemRecord(record,
                                    totals[number] + len(controls), game_kinds, list(problems))
    return result
