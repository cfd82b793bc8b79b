"""Polyglot's halving replayed a halving at a time (``books/halving.py``) against the rule played event by event."""

from __future__ import annotations

import bisect

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.books.halving import group_offsets, grouped, halve


def _one_by_one(start: dict[tuple[int, int], list[int]], events: list[tuple[int, int, int]],
                limit: int) -> dict[tuple[int, int], list[int]]:
    """polyglot make-book's loop: add the game to the move, halve the whole position when the move reaches ``limit``."""
    counters = {pair: list(value) for pair, value in start.items()}
    for key, raw, points in events:
        entry = counters.setdefault((key, raw), [0, 0])
        entry[0] += 1
        entry[1] += points
        if entry[0] >= limit:
            for (other, _), sibling in counters.items():
                if other == key:
                    sibling[0], sibling[1] = (sibling[0] + 1) // 2, (sibling[1] + 1) // 2
    return counters


def _table(counters: dict[tuple[int, int], list[int]]) -> dict[str, np.ndarray]:
    pairs = sorted(counters)
    return {"key": np.array([k for k, _ in pairs], dtype=np.uint64),
            "raw": np.array([r for _, r in pairs], dtype=np.int64),
            "polyglot_n": np.array([counters[p][0] for p in pairs], dtype=np.int64),
            "polyglot_sum": np.array([counters[p][1] for p in pairs], dtype=np.int64)}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), limit=st.integers(2, 12), positions=st.integers(1, 3))
def test_halving_a_step_at_a_time_equals_the_rule(data: st.DataObject, limit: int, positions: int) -> None:
    keys = [(1 << 63) + 17 * k for k in range(positions)]
    moves = st.tuples(st.sampled_from(keys), st.integers(0, 4), st.integers(0, 2))
    start = {(k, r): [n, s] for (k, r), (n, s) in data.draw(st.dictionaries(
        st.tuples(st.sampled_from(keys), st.integers(0, 4)), st.tuples(st.integers(0, limit - 1), st.integers(0, 30)),
        max_size=6)).items()}
    events = data.draw(st.lists(moves, min_size=1, max_size=300))
    old = _table(start)
    everything = {**{pair: [0, 0] for pair in start}, **{(k, r): [0, 0] for k, r, _ in events}}
    table = _table(everything)  # the rows after the batch (counters filled in by halve)
    order = np.array(data.draw(st.permutations(range(len(events)))), dtype=np.int64)  # the batch in any order
    key = np.array([events[i][0] for i in order], dtype=np.uint64)
    raw = np.array([events[i][1] for i in order], dtype=np.int64)
    points = np.array([events[i][2] for i in order], dtype=np.int64)
    halve(old, table, np.array(keys, dtype=np.uint64), key, raw, points, order, limit)  # seq: the game order
    expected = _table(_one_by_one(start, events, limit))
    assert expected["polyglot_n"].tolist() == table["polyglot_n"].tolist()
    assert expected["polyglot_sum"].tolist() == table["polyglot_sum"].tolist()


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(st.integers(0, 70_000), max_size=200), spare=st.integers(0, 3), wide=st.booleans())
def test_grouped_is_a_stable_sort_by_label_and_its_offsets(labels: list[int], spare: int, wide: bool) -> None:
    """Against Python's stable sort and a count per label: small labels (the 16-bit radix sort) and wide ones."""
    label = np.array(labels if wide else [value % 300 for value in labels], dtype=np.int64)
    count = int(label.max(initial=-1)) + 1 + spare  # (labels no item has: empty groups)
    order, offsets = grouped(label, count)
    assert order.tolist() == sorted(range(len(label)), key=lambda index: int(label[index]))
    ascending = sorted(label.tolist())
    expected = [bisect.bisect_left(ascending, group) for group in range(count + 1)]  # items of smaller labels
    assert offsets.tolist() == expected == group_offsets(np.sort(label), count).tolist()
