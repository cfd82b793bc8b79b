"""Polyglot's halving of a position's counters, replayed in game order a halving at a time (not an event at a time).

``polyglot make-book`` adds each game to the counter ``n`` (and ``sum``) of the move played and, as soon as one move
of the position reaches :data:`~.build.COUNT_MAX` (16,384) games, halves ``n`` and ``sum`` of every move of the
position (rounding up). Between two halvings the counters are plain sums, so the events of a position need not be
played one by one: the next halving is at the first event where a move has had ``COUNT_MAX - n`` more events (a
look-up in that move's events in game order), the counters up to it are counts and prefix sums, and there are
about ``events / 8,192`` halvings. The position that every game starts from (and the first plies') costs a few
numpy calls per halving, not a Python step per game.

The events are put together move by move by :func:`grouped` (a radix sort of small numbers and a count of each),
which the shuffle of a distributed build uses too, for its key ranges.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["group_offsets", "grouped", "halve", "replay"]


def group_offsets(label: np.ndarray[Any, Any], count: int) -> np.ndarray[Any, Any]:
    """Where each group of items starts once they are grouped by their label (``0 <= label < count``, in any order):
    ``count + 1`` offsets, group ``g`` from ``offsets[g]`` to ``offsets[g + 1]`` (a count of each label)."""
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(label, minlength=count), out=offsets[1:])
    return offsets


def grouped(label: np.ndarray[Any, Any], count: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The order that groups items by their label (``0 <= label < count``), each group's items in their given
    order, and where each group starts in it (:func:`group_offsets`): a radix sort (numpy's stable sort of 16-bit
    numbers, when the labels fit), no sort by key."""
    return np.argsort(label.astype(np.uint16) if count <= 1 << 16 else label, kind="stable"), \
        group_offsets(label, count)


def halve(old: dict[str, np.ndarray[Any, Any]], table: dict[str, np.ndarray[Any, Any]], hot_keys: np.ndarray[Any, Any],
          key: np.ndarray[Any, Any], raw: np.ndarray[Any, Any], points: np.ndarray[Any, Any],
          seq: np.ndarray[Any, Any], limit: int) -> None:
    """Set ``polyglot_n`` and ``polyglot_sum`` of ``table``'s rows of the positions ``hot_keys`` (sorted, unique) as
    polyglot counts them: ``old`` holds the counters before the batch of events (``key``, ``raw``, ``points``,
    ``seq``: its order), ``table`` every row after it (both sorted by (key, raw)); ``limit``: the count that halves."""
    rows = np.flatnonzero(np.isin(table["key"], hot_keys))
    position = np.searchsorted(hot_keys, table["key"][rows])
    pair = position << 16 | table["raw"][rows]  # sorted: the rows' (position, move) as one number
    n, total = np.zeros(len(rows), dtype=np.int64), np.zeros(len(rows), dtype=np.int64)
    before = np.flatnonzero(np.isin(old["key"], hot_keys))
    if len(before):
        found = np.searchsorted(pair, np.searchsorted(hot_keys, old["key"][before]) << 16 | old["raw"][before])
        n[found], total[found] = old["polyglot_n"][before], old["polyglot_sum"][before]
    events = np.flatnonzero(np.isin(key, hot_keys))
    row = np.searchsorted(pair, np.searchsorted(hot_keys, key[events]) << 16 | raw[events])
    by_row, group_start = grouped(row, len(rows))
    orders = seq[events][by_row]  # each row's events, in the order given
    inside = np.ones(len(orders) + 1, dtype=bool)
    inside[group_start] = False  # (where a row starts, the order may go back)
    if ((orders[1:] < orders[:-1]) & inside[1:-1]).any():  # not in game order within a row
        by_row = np.lexsort((seq[events], row))
        orders = seq[events][by_row]
    sums = np.concatenate(([0], np.cumsum(points[events][by_row])))
    position_rows = group_offsets(position, len(hot_keys))
    for index in range(len(hot_keys)):
        first, last = int(position_rows[index]), int(position_rows[index + 1])
        replay(n[first:last], total[first:last], orders, group_start[first:last + 1], sums, limit)
    table["polyglot_n"][rows], table["polyglot_sum"][rows] = n, total


def replay(n: np.ndarray[Any, Any], total: np.ndarray[Any, Any], orders: np.ndarray[Any, Any],
            group_start: np.ndarray[Any, Any], sums: np.ndarray[Any, Any], limit: int) -> None:
    """One position's counters (``n``, ``total``: one per move, updated in place) through its events: move ``m``'s
    events are ``orders[group_start[m]:group_start[m + 1]]`` (their order numbers, ascending), their points'
    prefix sums ``sums[group_start[m]:group_start[m + 1] + 1]``."""
    start, end = group_start[:-1], group_start[1:]
    done = start.copy()  # the first event of each move not yet counted
    moves = len(n)
    while True:
        reach = done + (limit - n) - 1  # the event at which each move reaches ``limit``, if it has one
        can = reach < end
        if not can.any():
            break
        at = orders[reach[can]].min()  # the first such event in game order: the halving
        upto = done + np.array([np.searchsorted(orders[done[m]:end[m]], at, side="right") for m in range(moves)])
        n += upto - done
        total += sums[upto] - sums[done]
        done = upto
        n[:] = (n + 1) // 2
        total[:] = (total + 1) // 2
    n += end - done
    total += sums[end] - sums[done]
