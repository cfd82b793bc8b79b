"""The reduce by key range (``books/shuffle.py`` through ``distributed.write_book``) run in this process, where the
halving threshold can be lowered: the book equals the one-process build's bytes and polyglot's rule game by game,
for 1 to 8 key ranges, many pieces and reducers that spill."""

from __future__ import annotations

import itertools
import pickle
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
from chessformats.books import hotkeys, shuffle, spill
from chessformats.books.build import BookBuilder
from chessformats.books.distributed import write_book
from chessformats.books.shuffle import range_bounds
from chessformats.polyglot import make_book
from chessformats.schemas import polyglot_facts

TRANSPOSED = [["Nf3", "Nf6", "Ng1", "Ng8", "e4", "e5"], ["e3", "e6", "e4", "e5", "Nf3"],
              ["Nc3", "Nc6", "Nb1", "Nb8", "d4"]]
"""Openings that meet a position of the first plies again deeper."""


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

    def scatter(self, items: Any, hash: bool = False, broadcast: bool = False) -> Any:
        return items

    def submit(self, function: Callable[..., Any], *args: Any, pure: bool = False) -> _Done:
        return _Done(function(*args))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), games=st.integers(1, 300), reducers=st.integers(1, 8),
       piece_bytes=st.sampled_from([64, 300, 2000, 1 << 20]), table_rows=st.sampled_from([None, 3, 40]),
       count_max=st.sampled_from([4, 10, 16, 40]), batch=st.sampled_from([7, 1 << 20]),
       sub_ranges=st.sampled_from([2, 4096]), hot_plies=st.sampled_from([-1, 0, 1, 3]))
def test_reduce_by_key_range_equals_one_process_and_polyglot_rule(seed: int, games: int, reducers: int,
                                                                  piece_bytes: int, table_rows: int | None,
                                                                  count_max: int, batch: int, sub_ranges: int,
                                                                  hot_plies: int) -> None:
    # the hot keys (the positions within ``hot_plies`` of the start, counted by the map) halved many times over; some
    # games meet them again by transposition deeper (the start position at ply 4, 1. e4 e5 at ply 4)
    rng = random.Random(seed)
    played = random_games(rng, games)
    for index in range(0, games, 7):
        played.insert(index, (rng.choice(TRANSPOSED), rng.choice(["1-0", "0-1", "1/2-1/2", "*"])))
    text = "\n".join(f'[Result "{result}"]\n\n{" ".join(sans)} {result}\n' for sans, result in played)
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr(bookbuild, "COUNT_MAX", count_max)
        patch.setattr(bookbuild, "SPILL_LIMIT", count_max // 2)
        patch.setattr(spill, "SPILL_LIMIT", count_max // 2)
        patch.setattr(shuffle, "REDUCE_EVENTS", batch)  # a reducer's events read (and counted) this many at a time
        patch.setattr(shuffle, "SUB_RANGES", sub_ranges)  # (at most: sub-ranges larger than the budget)
        patch.setattr(hotkeys, "HOT_PLIES", hot_plies)
        pgn = Path(folder) / "games.pgn"
        pgn.write_text(text)
        local = BookBuilder(table_rows=None)
        local.add_pgn(pgn)
        make_book(Path(folder) / "one.bin", local, min_games=1)
        done = write_book([pgn], Path(folder) / "reduced.bin", scheduler=InProcess(), reducers=reducers,
                          min_games=1, table_rows=table_rows, shuffle_dir=folder, piece_bytes=piece_bytes)
        book = (Path(folder) / "reduced.bin").read_bytes()
        assert book == (Path(folder) / "one.bin").read_bytes()
        assert done.games == len(played) and done.rows == len(local) and done.reducers == reducers
        assert (done.stages["hot_events"] > 0) == (hot_plies >= 0)
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


def test_reducers_must_be_positive_and_below_two_to_the_31() -> None:
    for wrong in (0, 1 << 31):
        with pytest.raises(ValueError, match="reducers must be from 1"):
            range_bounds(wrong)


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


def test_the_client_holds_no_offsets_per_range(tmp_path: Path) -> None:
    # what a map task sends the client, and the client each reducer, is the same size at 8 and 4,096 ranges (each
    # reducer reads its range's offsets from the files); the ranges' events are all the piece's, in range order
    from chessformats.books.pieces import Piece

    pgn = tmp_path / "games.pgn"
    pgn.write_text("".join(f'[Result "1-0"]\n\n1. {first} e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 1-0\n\n'
                           for first in ("e4", "e3", "d3", "c4")))
    piece = Piece(str(pgn), 0, pgn.stat().st_size, None, pgn.stat().st_size)
    sizes = []
    for reducers in (8, 4096):
        folder = tmp_path / f"r{reducers:04d}"
        folder.mkdir()
        mapped = shuffle.map_piece(piece, 0, 30, None, str(folder), reducers, hotkeys.hot_keys(1))
        sizes.append(len(pickle.dumps(mapped._replace(seconds=0.0))))
        segments = [shuffle.segments_of([mapped], reducer) for reducer in range(reducers)]
        read = [segment.stop - segment.start for per_range in segments for segment in per_range]
        assert sum(read) == mapped.events > 0 and mapped.hot_rows > 0
        starts = [segment.start for per_range in segments for segment in per_range]
        assert starts == sorted(starts) and starts[0] == 0  # the ranges follow each other in the file
    assert abs(sizes[1] - sizes[0]) <= 2  # (the number of ranges itself); 3 x 4,097 offsets would be ~36 kB


@settings(max_examples=50, deadline=None)
@given(reducers=st.integers(1, 5000), keys=st.lists(st.integers(0, 2**64 - 1), max_size=20))
def test_a_keys_range_is_the_one_its_bounds_say(reducers: int, keys: list[int]) -> None:
    bounds = range_bounds(reducers)
    near = [bound + step for bound in bounds[1:-1] for step in (-1, 0, 1)] + [0, 2**64 - 1]
    every = np.array(keys + near[:300], dtype=np.uint64)
    expected = np.searchsorted(np.array(bounds[1:-1], dtype=np.uint64), every, side="right")
    assert shuffle.key_ranges(every, reducers).tolist() == expected.tolist() == [
        key * reducers >> 64 for key in every.tolist()]  # the definition, in Python's integers


@settings(max_examples=40, deadline=None)
@given(data=st.data(), limit=st.integers(2, 30), pieces=st.integers(1, 5), batch=st.integers(1, 4))
def test_hot_rows_and_codes_count_as_the_one_process_builder(data: st.DataObject, limit: int, pieces: int,
                                                            batch: int) -> None:
    # events of a few keys with up to 80 moves (codes of 16 bits past 63), cut into pieces, counted by the map's
    # tables and the reducer's HotCounts, against a BookBuilder given the same events in game order
    keys = [(1 << 63) + 17 * k for k in range(3)]
    event = st.tuples(st.sampled_from(keys), st.integers(0, data.draw(st.sampled_from([5, 80]))), st.integers(0, 3))
    games = [data.draw(st.lists(event, min_size=1, max_size=4)) for _ in range(data.draw(st.integers(1, 60)))]
    if data.draw(st.booleans()):  # a key with 70 moves in one game
        games.insert(data.draw(st.integers(0, len(games))), [(keys[1], raw, raw % 4) for raw in range(70)])
    stride = 128
    cuts = sorted(data.draw(st.lists(st.integers(0, len(games)), min_size=pieces - 1, max_size=pieces - 1)))
    parts = []
    for start, stop in itertools.pairwise([0, *cuts, len(games)]):
        piece = [(key, raw, outcome, (number + 1) * stride + ply) for number, game in enumerate(games[start:stop])
                 for ply, (key, raw, outcome) in enumerate(game)]
        piece.sort(key=lambda item: item[3])
        columns = list(zip(*piece, strict=True)) if piece else [(), (), (), ()]
        key, raw, outcome, seq = (np.array(column, dtype=dtype) for column, dtype in
                                  zip(columns, (np.uint64, np.int64, np.int8, np.int64), strict=True))
        rows, codes = hotkeys.hot_tables(key, raw, key == keys[0], seq, outcome)
        if len(rows):
            parts.append(hotkeys.HotPart(rows, codes, start * stride))
    counts = hotkeys.HotCounts()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bookbuild, "COUNT_MAX", limit)
        for index in range(0, len(parts), batch):
            counts.add(parts[index:index + batch])
        builder = BookBuilder(boards=False, table_rows=None)
        flat = [(key, raw, outcome, (number + 1) * stride + ply) for number, game in enumerate(games)
                for ply, (key, raw, outcome) in enumerate(game)]
        key, raw, outcome, seq = (np.array(column, dtype=dtype) for column, dtype in
                                  zip(zip(*flat, strict=True), (np.uint64, np.int64, np.int8, np.int64), strict=True))
        builder._add_events(*(column[np.lexsort((raw, key))] for column in (key, raw, key == keys[0], seq, outcome)))
    expected = builder.columns(ordered=False)
    for name, column in expected.items():
        assert counts.table[name].tolist() == column.tolist(), name


def test_hot_keys_are_found_also_where_two_share_their_top_bits() -> None:
    rng = np.random.default_rng(5)
    hot = np.unique(np.concatenate((hotkeys.hot_keys(2), np.array([7 << 44, (7 << 44) + 3], dtype=np.uint64))))
    keys = np.concatenate((hot, hot + np.uint64(1), hot - np.uint64(1), rng.integers(0, 2**63, 2000, dtype=np.uint64)))
    assert hotkeys.is_hot(keys, hot).tolist() == np.isin(keys, hot).tolist()
    assert not hotkeys.is_hot(keys, hot[:0]).any()
