"""Book building with the counts spilled to disk (``BookBuilder(table_rows=...)``): the same counts, the same
book as a build that keeps everything in memory and as ``polyglot make-book``, polyglot's halving exact across
spills, the runs' files removed."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import chess
import chess.polyglot
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_build import polyglot_make

from chessformats.books import batches, spill
from chessformats.books import build as bookbuild
from chessformats.books.build import COUNT_MAX, MERGE_EVENTS, BookBuilder
from chessformats.polyglot import encode_move, make_book
from conftest import find_corpus, find_tool


@pytest.fixture(scope="module")
def polyglot_bin() -> Path:
    return find_tool("polyglot", env="CHESSFORMATS_POLYGLOT",
                     candidates=("/usr/games/polyglot", ".ci/cache/polyglot/usr/games/polyglot"))


def _same_counts(one: BookBuilder, two: BookBuilder) -> None:
    ours, theirs = one.columns(), two.columns()
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert np.array_equal(ours[name], theirs[name]), name
    assert len(one) == len(two)


@pytest.mark.parametrize("way", ["one process", "forked", "pool"])
def test_spilled_build_gives_the_book_of_polyglot(polyglot_bin: Path, tmp_path: Path, way: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    jobs = 1 if way == "one process" else 2
    monkeypatch.setattr(batches, "CHUNK_GAMES", 1000)  # one process: a merge every 1,000 games
    if way == "pool":  # a merge per piece of 1 MiB (forked: one merge of the two halves)
        monkeypatch.setattr(bookbuild, "LOCAL_PIECE_BYTES", 1 << 20)
    whole = BookBuilder(max_ply=30, boards=False, table_rows=None)
    whole.add_pgn(pgn, jobs=jobs)
    spilled = BookBuilder(max_ply=30, boards=False, table_rows=5000, spill_dir=tmp_path)
    spilled.add_pgn(pgn, jobs=jobs)
    store = spilled._store
    assert store is not None and len(store) >= (1 if way == "forked" else 2)
    assert len(spilled._table["key"]) < len(whole._table["key"]) // 2  # most rows are on disk
    folder = Path(store.path)
    assert folder.parent == tmp_path and any(folder.iterdir())
    blocks = list(spilled.column_blocks())
    assert len(blocks) > 1 and all(np.all(b["key"][:-1] <= b["key"][1:]) for b in blocks)
    keys = [b["key"] for b in blocks if len(b["key"])]
    assert all(int(a[-1]) < int(b[0]) for a, b in itertools.pairwise(keys))
    _same_counts(spilled, whole)
    make_book(tmp_path / "spilled.bin", spilled)
    make_book(tmp_path / "whole.bin", whole)
    expected = polyglot_make(polyglot_bin, pgn, tmp_path / "p.bin", "-max-ply", "30")
    assert (tmp_path / "spilled.bin").read_bytes() == (tmp_path / "whole.bin").read_bytes() == expected
    spilled.close()
    assert not folder.exists()


def test_halving_exact_when_the_position_was_spilled_before(polyglot_bin: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # 16,400 games of 1.e4 e5 among other games: the start position's rows go to disk while it has few games,
    # are brought back when its moves near 16,384 games with them, and polyglot's halving happens in game order
    others = find_corpus("pgn", "twic1134-mainlines.pgn").read_text(encoding="utf-8").split("\n\n[Event ")
    texts = []
    for index in range(16400):
        texts.append('[Result "1-0"]\n\n1. e4 e5 1-0\n' if index % 7 else '[Result "0-1"]\n\n1. e4 e5 2. Nf3 0-1\n')
        if index % 8 == 0:
            texts.append("[Event " + others[1 + index // 8].strip() + "\n")
    texts.insert(5, '[Result "1/2-1/2"]\n\n1. d4 1/2-1/2\n')
    text = "\n".join(texts) + "\n"
    pgn = tmp_path / "mixed.pgn"
    pgn.write_text(text, encoding="utf-8")
    expected = polyglot_make(polyglot_bin, pgn, tmp_path / "polyglot.bin", "-min-game", "1", "-max-ply", "20")
    whole = BookBuilder(max_ply=20, table_rows=None)
    spilled = BookBuilder(max_ply=20, table_rows=3000, spill_dir=tmp_path)
    monkeypatch.setattr(spill, "FAN_IN", 3)  # runs merged three by three
    monkeypatch.setattr(bookbuild, "MERGE_EVENTS", 5000)  # batches added key range by key range
    for start in range(0, len(texts), 900):  # merges of 900 games: many spills before 1.e4 gets hot
        piece = "\n".join(texts[start:start + 900]) + "\n"
        whole.add_pgn_text(piece)
        spilled.add_pgn_text(piece)
    assert spilled._store is not None and spilled._store._written > 2 * len(spilled._store)  # (runs merged)
    start_key = chess.polyglot.zobrist_hash(chess.Board())
    assert start_key in spilled._pinned.tolist()
    e4 = next(e for e in spilled.entries() if e.key == start_key and
              e.raw_move == encode_move(None, chess.Move.from_uci("e2e4")))
    assert e4.games > 16400 and e4.polyglot_n < COUNT_MAX  # (and the 1.e4 games of twic)
    _same_counts(spilled, whole)
    make_book(tmp_path / "ours.bin", spilled, min_games=1)
    assert (tmp_path / "ours.bin").read_bytes() == expected


def _polyglot_counts(games: list[tuple[list[str], str]], count_max: int) -> dict[tuple[int, int], tuple[int, int]]:
    """polyglot make-book's counters, the obvious way: game by game, ply by ply, halving a position's moves when
    one of them reaches ``count_max`` games."""
    counters: dict[int, dict[int, list[int]]] = {}
    for sans, result in games:
        board = chess.Board()
        for san in sans:
            move = board.parse_san(san)
            points = {"1-0": 2, "0-1": 0}.get(result, 1) if board.turn == chess.WHITE else \
                {"1-0": 0, "0-1": 2}.get(result, 1)
            moves = counters.setdefault(chess.polyglot.zobrist_hash(board), {})
            entry = moves.setdefault(encode_move(board, move), [0, 0])
            entry[0] += 1
            entry[1] += points
            if entry[0] >= count_max:
                for sibling in moves.values():
                    sibling[0], sibling[1] = (sibling[0] + 1) // 2, (sibling[1] + 1) // 2
            board.push(move)
    return {(key, raw): (n, total) for key, moves in counters.items() for raw, (n, total) in moves.items()}


_LINES = [["e4", "e5", "Nf3", "Nc6", "Bb5"], ["e4", "c5", "Nf3", "d6"], ["d4", "d5", "c4", "e6"],
          ["d4", "Nf6", "c4", "g6"], ["Nf3", "d5", "g3"], ["c4", "e5", "Nc3"], ["e4", "e6", "d4", "d5"]]


def random_games(rng: random.Random, count: int) -> list[tuple[list[str], str]]:
    """Games of a few common opening plies and a random tail, with random results (SAN moves, result tag)."""
    played = []
    for _ in range(count):
        line = rng.choice(_LINES)[: rng.randint(1, 5)]
        board = chess.Board()
        for san in line:
            board.push_san(san)
        for _ in range(rng.randint(0, 3)):  # a distinct tail: rows that spill and never come back
            move = rng.choice(list(board.legal_moves))
            line = [*line, board.san(move)]
            board.push(move)
        played.append((line, rng.choice(["1-0", "0-1", "1/2-1/2", "*"])))
    return played


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), games=st.integers(1, 400), table_rows=st.integers(1, 40),
       step=st.integers(1, 60), count_max=st.sampled_from([4, 10, 16, 40]), merge_events=st.integers(1, 300))
def test_spilled_counts_equal_polyglot_rule_with_small_thresholds(seed: int, games: int, table_rows: int, step: int,
                                                                 count_max: int, merge_events: int) -> None:
    # the halving threshold lowered so that positions are spilled, brought back and halved many times over; the
    # spilling builder adds each batch key range by key range (merge_events events at a time)
    played = random_games(random.Random(seed), games)
    texts = [f'[Result "{result}"]\n\n{" ".join(sans)} {result}\n' for sans, result in played]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bookbuild, "COUNT_MAX", count_max)
        patch.setattr(bookbuild, "SPILL_LIMIT", count_max // 2)
        patch.setattr(spill, "SPILL_LIMIT", count_max // 2)
        patch.setattr(spill, "FAN_IN", 2)
        whole, spilled = BookBuilder(table_rows=None), BookBuilder(table_rows=table_rows)
        for start in range(0, len(texts), step):
            whole.add_pgn_text("\n".join(texts[start:start + step]))
            patch.setattr(bookbuild, "MERGE_EVENTS", merge_events)
            spilled.add_pgn_text("\n".join(texts[start:start + step]))
            patch.setattr(bookbuild, "MERGE_EVENTS", MERGE_EVENTS)
        expected = _polyglot_counts(played, count_max)
        got = {(e.key, e.raw_move): (e.polyglot_n, e.polyglot_sum) for e in spilled.entries()}
        assert got == expected
        _same_counts(spilled, whole)
        if spilled._store is not None:
            _check_bound(spilled._store)
        spilled.close()


def _check_bound(store: spill.SpillStore) -> None:
    """The bound's counters sum to the games on disk (taken positions left out), and bound every (key, move)."""
    records = np.concatenate([run.read(0, run.rows) for run in store._runs] or [np.zeros(0, spill.RUN_DTYPE)])
    records = records[~np.isin(records["key"], store._taken)]
    assert int(store._bound.sum()) == store._games == int(records["games"].sum())
    pairs: dict[tuple[int, int], int] = {}
    for key, raw, games in zip(records["key"].tolist(), records["raw"].tolist(), records["games"].tolist(),
                               strict=True):
        pairs[(key, raw)] = pairs.get((key, raw), 0) + games
    if pairs:
        keys = np.array([k for k, _ in pairs], dtype=np.uint64)
        raws = np.array([r for _, r in pairs], dtype=np.int64)
        assert np.all(store.bound(keys, raws) >= np.array(list(pairs.values())))


def test_the_bound_widens_as_games_pile_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a narrow bound whose sums would near 16,384 pins positions that are nowhere near polyglot's halving (and keeps
    # them in memory for good); it is made wider instead, and pins nothing on twic1134 (no position gets near)
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    monkeypatch.setattr(spill, "BOUND_BITS", 2)
    monkeypatch.setattr(spill, "BOUND_LOAD", 16)
    monkeypatch.setattr(batches, "CHUNK_GAMES", 500)
    whole = BookBuilder(max_ply=80, boards=False, table_rows=None)
    whole.add_pgn(pgn)
    spilled = BookBuilder(max_ply=80, boards=False, table_rows=2000, spill_dir=tmp_path)
    spilled.add_pgn(pgn)
    store = spilled._store
    assert store is not None and store._bits >= 14 and store._games <= 16 << store._bits
    assert len(spilled._pinned) == 0 and len(spilled._table["key"]) < 3 * 2000
    _check_bound(store)
    _same_counts(spilled, whole)


def test_spill_runs_removed_with_the_builder(tmp_path: Path) -> None:
    builder = BookBuilder(table_rows=1, spill_dir=tmp_path)
    builder.add_pgn_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result "0-1"]\n\n1. d4 d5 0-1\n')
    assert builder._store is not None and len(os.listdir(tmp_path)) == 1
    del builder
    assert os.listdir(tmp_path) == []


def test_table_rows_must_be_positive() -> None:
    from chessformats.cli.main import main

    with pytest.raises(ValueError, match="table_rows"):
        BookBuilder(table_rows=0)
    assert main(["build", "x.pgn", "-o", "x.bin", "--memory", "-1"]) != 0


def test_a_relative_spill_folder_survives_a_change_of_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    builder = BookBuilder(table_rows=1, spill_dir=".")
    builder.add_pgn_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result "0-1"]\n\n1. d4 d5 0-1\n')
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert len(builder) == 5
    make_book(tmp_path / "book.bin", builder, min_games=1)
    builder.close()
    assert os.listdir(tmp_path / "here") == []


@settings(max_examples=60, deadline=None)
@given(keys=st.lists(st.sampled_from([0, 1, 7, 2**63, 2**64 - 1]) | st.integers(0, 2**64 - 1), min_size=1,
                     max_size=50),
       fence=st.integers(1, 5), probes=st.lists(st.integers(0, 2**64), max_size=20))
def test_a_run_finds_rows_by_its_fences(tmp_path_factory: pytest.TempPathFactory, keys: list[int], fence: int,
                                        probes: list[int]) -> None:
    keys.sort()
    records = np.zeros(len(keys), dtype=spill.RUN_DTYPE)
    records["key"], records["raw"], records["games"] = keys, np.arange(len(keys)), 1
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spill, "FENCE_ROWS", fence)
        store = spill.SpillStore(tmp_path_factory.mktemp("runs"))
        half = len(keys) // 2  # written in two parts: the fences continue across them
        store._add_run([records[:half], records[half:]], 0)
        run = store._runs[0]
        for probe in [*probes, *keys, 0, 2**64]:
            assert run.locate(probe) == (len(keys) if probe >= 2**64 else
                                         int(np.searchsorted(records["key"], np.uint64(probe))))
        assert run.read(0, len(keys))["key"].tolist() == keys
        store.close()


def test_the_memory_figures_agree() -> None:
    # TABLE_ROW_BYTES (the CLI's --memory in rows) is what a row of the table takes; the CLI's default is TABLE_MIB
    from chessformats.cli.main import build_parser

    builder = BookBuilder()
    builder.add_pgn_text('[Result "1-0"]\n\n1. e4 e5 1-0\n')
    assert sum(column.itemsize for column in builder._table.values()) == bookbuild.TABLE_ROW_BYTES
    args = build_parser().parse_args(["build", "x.pgn", "-o", "x.bin"])
    assert args.memory == bookbuild.TABLE_MIB and bookbuild.TABLE_ROWS == (args.memory << 20) // 73


def test_cli_build_spills_and_cleans_up(tmp_path: Path) -> None:
    from chessformats.cli.main import main

    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    spill_dir = tmp_path / "spill"
    spill_dir.mkdir()
    seen: list[int] = []
    original = spill.SpillStore.write

    def write(self: spill.SpillStore, table: dict[str, np.ndarray], kept: np.ndarray | None = None) -> None:
        seen.append(len(table["key"]))
        original(self, table, kept)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spill.SpillStore, "write", write)
        assert main(["build", str(pgn), "-o", str(tmp_path / "small.bin"), "--max-ply", "30", "--memory", "1",
                     "--spill-dir", str(spill_dir), "--jobs", "1"]) == 0
    assert seen and os.listdir(spill_dir) == []
    assert main(["build", str(pgn), "-o", str(tmp_path / "all.bin"), "--max-ply", "30", "--memory", "0"]) == 0
    assert (tmp_path / "small.bin").read_bytes() == (tmp_path / "all.bin").read_bytes()
