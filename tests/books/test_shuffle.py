"""The reduce by key range (``books/shuffle.py`` through ``distributed.write_book``) run in this process, where the
halving threshold can be lowered: the book equals the one-process build's bytes and polyglot's rule game by game,
for 1 to 8 key ranges, many pieces and reducers that spill."""

from __future__ import annotations

import itertools
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_build_spill import _polyglot_counts, random_games

from chessformats.books import build as bookbuild
from chessformats.books import shuffle, spill
from chessformats.books.build import BookBuilder
from chessformats.books.distributed import write_book
from chessformats.books.shuffle import range_bounds
from chessformats.polyglot import make_book
from chessformats.schemas import polyglot_facts


class _Done:
    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value

    def release(self) -> None:
        pass


class InProcess:
    """The calls of a Dask client ``write_book`` makes, run at once in this process (monkeypatches hold)."""

    def nthreads(self) -> dict[str, int]:
        return {"here": 1}

    def scatter(self, items: list[Any], hash: bool = False) -> list[Any]:
        return items

    def submit(self, function: Callable[..., Any], *args: Any, pure: bool = False) -> _Done:
        return _Done(function(*args))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), games=st.integers(1, 300), reducers=st.integers(1, 8),
       piece_bytes=st.sampled_from([64, 300, 2000, 1 << 20]), table_rows=st.sampled_from([None, 3, 40]),
       count_max=st.sampled_from([4, 10, 16, 40]), batch=st.sampled_from([7, 1 << 20]),
       sub_ranges=st.sampled_from([2, 4096]))
def test_reduce_by_key_range_equals_one_process_and_polyglot_rule(seed: int, games: int, reducers: int,
                                                                  piece_bytes: int, table_rows: int | None,
                                                                  count_max: int, batch: int,
                                                                  sub_ranges: int) -> None:
    played = random_games(random.Random(seed), games)
    text = "\n".join(f'[Result "{result}"]\n\n{" ".join(sans)} {result}\n' for sans, result in played)
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr(bookbuild, "COUNT_MAX", count_max)
        patch.setattr(bookbuild, "SPILL_LIMIT", count_max // 2)
        patch.setattr(spill, "SPILL_LIMIT", count_max // 2)
        patch.setattr(shuffle, "REDUCE_EVENTS", batch)  # a reducer's events read (and counted) this many at a time
        patch.setattr(shuffle, "SUB_RANGES", sub_ranges)  # (at most: sub-ranges larger than the budget)
        pgn = Path(folder) / "games.pgn"
        pgn.write_text(text)
        local = BookBuilder(table_rows=None)
        local.add_pgn(pgn)
        make_book(Path(folder) / "one.bin", local, min_games=1)
        done = write_book([pgn], Path(folder) / "reduced.bin", scheduler=InProcess(), reducers=reducers,
                          min_games=1, table_rows=table_rows, shuffle_dir=folder, piece_bytes=piece_bytes)
        book = (Path(folder) / "reduced.bin").read_bytes()
        assert book == (Path(folder) / "one.bin").read_bytes()
        assert done.games == games and done.rows == len(local) and done.reducers == reducers
        assert sorted(path.name for path in Path(folder).iterdir()) == ["games.pgn", "one.bin", "reduced.bin"]
    # the entries against polyglot's rule played game by game (weight: the halved sum; entries with a sum of 0 out)
    records = np.frombuffer(book, dtype=np.dtype(polyglot_facts.ENTRY_DTYPE))
    expected = {pair: total for pair, (_, total) in _polyglot_counts(played, count_max).items() if total}
    assert {(int(r["key"]), int(r["move"])): int(r["weight"]) for r in records} == expected
    assert len(records) == len(expected) and bool(np.all(records["key"][1:] >= records["key"][:-1]))


@pytest.mark.parametrize("reducers", [1, 2, 3, 7, 64])
def test_the_ranges_cut_the_key_space_evenly(reducers: int) -> None:
    edges = range_bounds(reducers)
    widths = {b - a for a, b in itertools.pairwise(edges)}
    assert len(edges) == reducers + 1 and edges[0] == 0 and edges[-1] == 1 << 64 and max(widths) - min(widths) <= 1


def test_reducers_must_be_positive() -> None:
    with pytest.raises(ValueError):
        range_bounds(0)


def test_cli_reducers_need_a_reduced_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chessformats.cli import main

    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 1-0\n')
    assert main(["build", str(pgn), "-o", str(tmp_path / "book.bin"), "--reducers", "2"]) == 2
    assert "--reducers needs --dask" in capsys.readouterr().err
    pytest.importorskip("dask.distributed")
    assert main(["build", str(pgn), "-o", str(tmp_path / "book.bin"), "--dask", "--reducers", "0"]) == 2
    assert "--reducers must be >= 1" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games.pgn"]


def test_a_shuffle_folder_a_worker_does_not_see_is_refused(tmp_path: Path) -> None:
    class Elsewhere(InProcess):  # a worker on another machine: the client's folder is not there
        def run(self, function: Callable[..., Any], *args: Any) -> dict[str, Any]:
            return {"tcp://here:1": function(*args), "tcp://elsewhere:1": function(str(tmp_path / "absent"))}

    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 1-0\n')
    with pytest.raises(ValueError, match="tcp://elsewhere:1"):
        write_book([pgn], tmp_path / "book.bin", scheduler=Elsewhere(), shuffle_dir=tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games.pgn"]


def test_a_shuffle_folder_that_does_not_exist_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `build --dask --shuffle-dir new/folder` made nothing and failed on the temporary folder inside it
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result "0-1"]\n\n1. d4 d5 0-1\n')
    local = BookBuilder(table_rows=None)
    local.add_pgn(pgn)
    make_book(tmp_path / "one.bin", local, min_games=1)
    monkeypatch.chdir(tmp_path)
    done = write_book([pgn], tmp_path / "reduced.bin", scheduler=InProcess(), reducers=2, min_games=1,
                      shuffle_dir=Path("new") / "shuffle")
    assert done.games == 2
    assert (tmp_path / "reduced.bin").read_bytes() == (tmp_path / "one.bin").read_bytes()
    assert (tmp_path / "new" / "shuffle").is_dir() and list((tmp_path / "new" / "shuffle").iterdir()) == []
