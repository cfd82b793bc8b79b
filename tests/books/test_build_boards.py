"""A builder without boards (what a Polyglot build uses) counts exactly what a builder with boards counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.conftest import find_corpus

from chessformats.books.build import BookBuilder
from chessformats.books.polyglot import make_book


def test_a_builder_without_boards_writes_the_same_book(tmp_path: Path) -> None:
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    with_boards, without = BookBuilder(max_ply=20), BookBuilder(max_ply=20, boards=False)
    with_boards.add_pgn(pgn, jobs=1)
    without.add_pgn(pgn, jobs=2)
    ours, theirs = with_boards.columns(), without.columns()
    assert len(ours["key"]) > 50_000
    assert all(np.array_equal(ours[name], theirs[name]) for name in ours)
    make_book(tmp_path / "a.bin", with_boards)
    make_book(tmp_path / "b.bin", without)
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    with pytest.raises(ValueError, match="boards=False"):
        without.board(int(theirs["key"][0]))
    assert len(without._positions["key"]) == 1  # the start position it began with, nothing more kept


def _build_in_worker(path: str) -> int:
    builder = BookBuilder(max_ply=8, boards=False)
    builder.add_pgn(path, jobs=2)  # a daemonic process may not fork workers: read by itself
    return len(builder)


def test_jobs_in_a_daemonic_process_read_alone() -> None:
    import multiprocessing

    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    assert pgn.stat().st_size > (1 << 20)  # big enough for workers in a normal process
    expected = BookBuilder(max_ply=8)
    expected.add_pgn(pgn, jobs=1)
    with multiprocessing.get_context("fork").Pool(1) as pool:  # pool workers are daemonic
        assert pool.apply(_build_in_worker, (str(pgn),)) == len(expected)
