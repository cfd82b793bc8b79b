"""Parallel book building: a small file read by forked processes (one piece each), a larger one by the pool, the
merge of sorted runs, errors in a child process, and the halving of counters across pieces."""

from __future__ import annotations

import os
from pathlib import Path

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_build import polyglot_make

from chessformats.books import build as bookbuild
from chessformats.books import pieces
from chessformats.books.build import COUNT_MAX, BookBuilder
from chessformats.books.runs import sort_order, union_order
from chessformats.polyglot import encode_move, make_book
from conftest import find_corpus, find_tool


def _sorted_run(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    pairs = sorted(draw(st.lists(st.tuples(st.sampled_from([0, 1, 5, 2**63, 2**64 - 1]) | st.integers(0, 2**64 - 1),
                                           st.integers(0, 0xFFFF)), max_size=40)))
    return (np.array([k for k, _ in pairs], dtype=np.uint64).reshape(-1),
            np.array([r for _, r in pairs], dtype=np.int64).reshape(-1))


@st.composite
def _two_runs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return (*_sorted_run(draw), *_sorted_run(draw))


@settings(max_examples=300, deadline=None)
@given(_two_runs())
def test_union_order_is_the_stable_lexsort_of_two_sorted_runs(runs: tuple[np.ndarray, ...]) -> None:
    key, raw, new_key, new_raw = runs
    expected = np.lexsort((np.concatenate((raw, new_raw)), np.concatenate((key, new_key))))
    assert np.array_equal(union_order(key, raw, new_key, new_raw), expected)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 7, 2**64 - 1]) | st.integers(0, 2**64 - 1), st.integers(0, 0xFFFF)),
                max_size=60))
def test_sort_order_is_lexsort(pairs: list[tuple[int, int]]) -> None:
    key = np.array([k for k, _ in pairs], dtype=np.uint64).reshape(-1)
    raw = np.array([r for _, r in pairs], dtype=np.int64).reshape(-1)
    assert np.array_equal(sort_order(key, raw), np.lexsort((raw, key)))


def test_sort_order_with_keys_sharing_their_top_bits() -> None:
    # keys equal in their top 32 bits are ordered by a second sort: many such keys, moves and repeated rows
    rng = np.random.default_rng(3)
    key = rng.integers(0, 3, 5000).astype(np.uint64) << np.uint64(32) | rng.integers(0, 4, 5000).astype(np.uint64)
    key[::7] |= np.uint64(0xFFFF_0000_0000_0000)
    raw = rng.integers(0, 4, 5000)
    raw[::5] = 0xFFFF
    assert np.array_equal(sort_order(key, raw), np.lexsort((raw, key)))


def test_union_order_with_shared_keys_and_moves() -> None:
    key = np.array([1, 1, 1, 4, 9], dtype=np.uint64)
    raw = np.array([3, 5, 7, 0, 2], dtype=np.int64)
    new_key = np.array([0, 1, 1, 4, 4, 10], dtype=np.uint64)
    new_raw = np.array([1, 5, 6, 0, 1, 0], dtype=np.int64)
    # rows of the first run (0-4) before equal rows of the second (5-10)
    assert union_order(key, raw, new_key, new_raw).tolist() == [5, 0, 1, 6, 7, 2, 3, 8, 9, 4, 10]


@pytest.fixture(scope="module")
def polyglot_bin() -> Path:
    return find_tool("polyglot", env="CHESSFORMATS_POLYGLOT",
                     candidates=("/usr/games/polyglot", ".ci/cache/polyglot/usr/games/polyglot"))


@pytest.mark.parametrize("way", ["forked", "pool"])
def test_both_parallel_ways_give_the_book_of_one_process(polyglot_bin: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, way: str) -> None:
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    size = pgn.stat().st_size
    assert bookbuild.PARALLEL_BYTES < size <= 2 * pieces.LOCAL_PIECE_BYTES  # two processes, one piece each
    calls: list[str] = []
    for name in ("read_forked", "merge_pieces"):
        original = getattr(bookbuild, name)
        monkeypatch.setattr(bookbuild, name, lambda *args, _f=original, _n=name: (calls.append(_n), _f(*args))[1])
    if way == "pool":  # a file of more than two pieces goes to the pool (pieces of 1 MiB here)
        monkeypatch.setattr(bookbuild, "LOCAL_PIECE_BYTES", 1 << 20)
    one, two = BookBuilder(max_ply=30), BookBuilder(max_ply=30)
    one.add_pgn(pgn, jobs=1)
    two.add_pgn(pgn, jobs=2)
    assert calls == ["read_forked" if way == "forked" else "merge_pieces"]
    assert (one.games, len(one.skipped)) == (two.games, len(two.skipped)) == (6097, 0)
    ours, theirs = one.columns(), two.columns()
    assert all(np.array_equal(ours[name], theirs[name]) for name in ours)
    make_book(tmp_path / "two.bin", two)
    assert (tmp_path / "two.bin").read_bytes() == polyglot_make(polyglot_bin, pgn, tmp_path / "p.bin", "-max-ply", "30")


def test_an_error_in_a_forked_reader_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    original = pieces.read_piece
    parent = os.getpid()

    def failing(piece: pieces.Piece, *args: object) -> object:
        if os.getpid() != parent:
            raise ValueError(f"cannot read the piece at {piece.start}")
        return original(piece, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(pieces, "read_piece", failing)
    builder = BookBuilder(max_ply=30)
    with pytest.raises(ValueError, match=r"cannot read the piece at [1-9]"):
        builder.add_pgn(pgn, jobs=2)


def test_counters_halved_across_pieces_like_polyglot(polyglot_bin: Path, tmp_path: Path) -> None:
    # as test_build's halving test, but over 1 MiB (long tags): two processes each count part of the 1.e4 games,
    # the halving at 16,384 games happens in the merge, in game order
    tag = '[Annotator "' + "x" * 40 + '"]\n'
    games = [tag + '[Result "1/2-1/2"]\n\n1. d4 1/2-1/2\n'] * 3 + [tag + '[Result "1-0"]\n\n1. e4 e5 1-0\n'] * 16400
    pgn = tmp_path / "many.pgn"
    pgn.write_text("\n".join(games))
    assert pgn.stat().st_size > bookbuild.PARALLEL_BYTES
    expected = polyglot_make(polyglot_bin, pgn, tmp_path / "polyglot.bin", "-min-game", "1")
    builder = BookBuilder()
    builder.add_pgn(pgn, jobs=2)
    e4 = next(e for e in builder.entries() if e.raw_move == encode_move(None, chess.Move.from_uci("e2e4")))
    assert e4.games == 16400 and e4.polyglot_n < COUNT_MAX
    make_book(tmp_path / "ours.bin", builder, min_games=1)
    assert (tmp_path / "ours.bin").read_bytes() == expected
