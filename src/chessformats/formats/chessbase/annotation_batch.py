"""The ``.cba`` records of many games at once when every comment is an evaluation and a clock, the way lichess
writes one after every move (``[%eval 0.39] [%clk 0:02:57]``, either or both).

:func:`.annotation_writer.encode_line_annotations` reads a game's comments one by one in Python: a few µs a
move, more than the rest of a PGN import. Here the comments of a batch of games are matched by one regular
expression over their joined text, each distinct command (``[%clk 0:02:57]`` for White, for Black ...) is
read once by the writer's own code (:func:`.annotation_writer.command_item`: the items python-chess's
readings of it give), and the items (head and body) of every move of every game are laid out with numpy. A
game with any other comment (text, arrows, an ``[%emt]``, a command python-chess does not read whole, a
command with a problem), or whose only clocks are on its last two moves (ChessBase keeps those on the game), is
left to :func:`.annotation_writer.encode_line_annotations`. The tests compare both on random comments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

import numpy as np

from .annotation_writer import ITEM_HEAD_SIZE, ItemRecord, command_item, item_head, time_control_items

__all__ = ["encode_comment_lines"]

_LINE = re.compile(r"^(?:(\[%eval\s[^\]\[\n]*\])[^\S\n]*)?(\[%clk\s[^\]\[\n]*\])?(.*)$", re.M)
"""A comment (one a line) as :data:`.annotation_writer.SHAPE` reads it; group 3: what is left (nothing: the
comment is of that shape)."""


class _Commands:
    """The distinct commands of one group of the batch (evaluations or clocks): per command and mover (0:
    Black, 1: White) the item's type (-1: none) and body; ``bad``: a command the batch path cannot take."""

    def __init__(self, texts: Sequence[str]) -> None:
        distinct = list(dict.fromkeys(texts))
        index = {text: number for number, text in enumerate(distinct)}
        self.ids = np.fromiter(map(index.__getitem__, texts), dtype=np.int64, count=len(texts))
        self.types = np.full((len(distinct), 2), -1, dtype=np.int64)
        self.bad = np.zeros((len(distinct), 2), dtype=bool)
        self.kinds: dict[int, str] = {}
        bodies: list[list[bytes]] = [[b"", b""] for _ in distinct]
        for number, text in enumerate(distinct):
            for mover in (0, 1):
                found = command_item(text, bool(mover))
                if found is None:
                    self.bad[number, mover] = True
                    continue
                kind, type_, _, body = found
                if type_ >= 0:
                    self.types[number, mover] = type_
                    self.kinds[type_] = kind
                    bodies[number][mover] = body
        sizes = {len(body) for pair in bodies for body in pair if body}
        self.size = sizes.pop() if len(sizes) == 1 else 0
        if sizes:  # bodies of different sizes: not for the batch path (not met: the bodies are fixed)
            self.bad[:] = True
        self.bodies = np.zeros((len(distinct), 2, self.size), dtype=np.uint8)
        for number, pair in enumerate(bodies):
            for mover, body in enumerate(pair):
                if body:
                    self.bodies[number, mover] = np.frombuffer(body, dtype=np.uint8)


def _heads(types: np.ndarray[Any, Any], size: int, positions: int) -> np.ndarray[Any, Any]:
    """Per distinct type of ``types`` (the first axis: by ``np.unique`` order) and position: the item head."""
    rows = np.zeros((len(types), positions, ITEM_HEAD_SIZE), dtype=np.uint8)
    for slot, type_ in enumerate(types.tolist()):
        rows[slot] = np.frombuffer(b"".join(item_head(position, type_, ITEM_HEAD_SIZE + size)
                                            for position in range(positions)), dtype=np.uint8).reshape(-1, 6)
    return rows


def encode_comment_lines(headers: Sequence[Mapping[str, str]], comments: Sequence[str],
                         plies: Sequence[int]) -> list[ItemRecord | None]:
    """Per game: its record without the head (:class:`.annotation_writer.ItemRecord`), or None when it is
    left to :func:`.annotation_writer.encode_line_annotations`.

    Game ``i`` (tags ``headers[i]``) is a main line of ``plies[i]`` moves from the standard position without
    NAGs, comments before its first move or variations; its comments are the next ``plies[i]`` of ``comments``
    (python-chess's texts, one per move, "" for none; none holds a line break)."""
    count = len(plies)
    result: list[ItemRecord | None] = [None] * count
    total = len(comments)
    joined = "\n".join(comments)
    if not total or joined.count("\n") != total - 1 or 0 in plies:
        return result
    rows = _LINE.findall(joined)
    if len(rows) != total:
        return result
    evaluations, clocks, rests = (list(map(itemgetter(group), rows)) for group in range(3))
    lengths = np.asarray(plies, dtype=np.int64)
    game = np.repeat(np.arange(count), lengths)
    firsts = np.cumsum(lengths) - lengths
    position = np.arange(total) - np.repeat(firsts, lengths)
    mover = 1 - (position & 1)  # White makes the even plies
    groups = [_Commands(clocks), _Commands(evaluations)]  # a position's clock item comes before its evaluation
    bad = np.fromiter(map(bool, rests), dtype=bool, count=total)
    offsets = np.zeros(total, dtype=np.int64)
    present = []
    for group in groups:
        bad |= group.bad[group.ids, mover]
        has = group.types[group.ids, mover] >= 0
        present.append(has)
        offsets += has * (ITEM_HEAD_SIZE + group.size)
    # a game whose clocks are all on its last two moves (and has one): its final clocks go on the game
    clocked = np.flatnonzero(present[0])
    first_clock = np.searchsorted(clocked, firsts)  # the game's first clocked comment, if it has one
    has_clock = first_clock < len(clocked)
    has_clock[has_clock] = game[clocked[first_clock[has_clock]]] == np.flatnonzero(has_clock)
    earliest = np.where(has_clock, position[clocked[np.minimum(first_clock, len(clocked) - 1)]]
                        if len(clocked) else 0, 0)
    refused = (has_clock & (earliest >= lengths - 2)) | (np.bincount(game, weights=bad, minlength=count) > 0)
    ends = np.cumsum(offsets)
    # each comment's items in a row of the table (a clock's, then an evaluation's), the bytes of the items it has kept
    widths = [ITEM_HEAD_SIZE + group.size for group in groups]
    table = np.zeros((total, sum(widths)), dtype=np.uint8)
    keep = np.zeros(table.shape, dtype=bool)
    counts = np.zeros(count, dtype=np.int64)
    kinds: list[tuple[str, np.ndarray[Any, Any]]] = []
    limit = int(position.max(initial=0)) + 1
    column = 0
    for group, has, width in zip(groups, present, widths, strict=True):
        chosen = np.flatnonzero(has)
        types = group.types[group.ids[chosen], mover[chosen]]
        distinct = np.flatnonzero(np.bincount(types, minlength=1))
        which = np.zeros(int(distinct.max(initial=0)) + 1, dtype=np.int64)
        which[distinct] = np.arange(len(distinct))
        which = which[types]
        part = table[chosen, column:column + width]
        part[:, :ITEM_HEAD_SIZE] = _heads(distinct, group.size, limit)[which, position[chosen]]
        part[:, ITEM_HEAD_SIZE:] = group.bodies[group.ids[chosen], mover[chosen]]
        table[chosen, column:column + width] = part
        keep[:, column:column + width] = has[:, None]
        column += width
        counts += np.bincount(game[chosen], minlength=count)
        for slot, type_ in enumerate(distinct.tolist()):
            kinds.append((group.kinds[type_], np.bincount(game[chosen[which == slot]], minlength=count)))
    out = table[keep]
    starts = (ends - offsets)[firsts].tolist()
    stops = [*starts[1:], len(out)]
    totals = counts.tolist()
    columns = [(name, values.tolist()) for name, values in kinds]
    for number in np.flatnonzero(~refused).tolist():
        controls, problems, control_kinds = time_control_items(headers[number].get("TimeControl", ""))
        game_kinds = dict(control_kinds)
        for name, values in columns:
            if values[number]:
                game_kinds[name] = game_kinds.get(name, 0) + values[number]
        result[number] = ItemRecord(b"".join(controls) + out[starts[number]:stops[number]].tobytes(),
                                    totals[number] + len(controls), game_kinds, list(problems))
    return result
