"""The same book three ways -- in process, ``--jobs 2``, on a Dask LocalCluster of 2 workers (the CLI: the reduce
by key range) -- from plain, .gz and .zst files, equal to ``polyglot make-book`` on the concatenated games; halving
and filters across pieces; the reduce by key range in 1, 3, 8 ranges."""

from __future__ import annotations

import gzip
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chessformats import FormatError, TruncatedError
from chessformats.books.build import COUNT_MAX, BookBuilder
from chessformats.books.filters import GameFilter
from chessformats.books.pgnread import split_games
from chessformats.cli import main
from chessformats.polyglot import make_book
from conftest import find_corpus, find_tool

distributed = pytest.importorskip("dask.distributed")
zstandard = pytest.importorskip("zstandard")

from chessformats.books.distributed import build_book, plan_pieces, write_book  # noqa: E402


@pytest.fixture(scope="module")
def polyglot_bin() -> Path:
    return find_tool("polyglot", env="CHESSFORMATS_POLYGLOT",
                     candidates=("/usr/games/polyglot", ".ci/cache/polyglot/usr/games/polyglot"))


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as dask_client:
        yield dask_client


def polyglot_make(binary: Path, pgn: Path, out: Path, *options: str) -> bytes:
    result = subprocess.run([str(binary), "make-book", "-pgn", str(pgn), "-bin", str(out), *options],
                            capture_output=True, text=True, cwd=out.parent)
    assert result.returncode == 0 and "all done" in result.stdout, result.stdout + result.stderr
    return out.read_bytes()


def three_files(tmp_path: Path) -> tuple[list[Path], str]:
    """twic1134's games in three parts: plain, .gz, .zst (each over 1 MB of text: --jobs 2 forks), and the whole."""
    games = [text for _, text in split_games(find_corpus("pgn", "twic1134-mainlines.pgn").read_text())]
    third = len(games) // 3
    parts = ["\n\n".join(games[i * third:(i + 1) * third if i < 2 else None]).rstrip() + "\n" for i in range(3)]
    plain, gz, zst = tmp_path / "a.pgn", tmp_path / "b.pgn.gz", tmp_path / "c.pgn.zst"
    plain.write_text(parts[0])
    gz.write_bytes(gzip.compress(parts[1].encode()))
    zst.write_bytes(zstandard.ZstdCompressor().compress(parts[2].encode()))
    return [plain, gz, zst], "\n".join(parts)


def test_three_ways_equal_polyglot(polyglot_bin: Path, tmp_path: Path, client: Any) -> None:
    paths, whole = three_files(tmp_path)
    (tmp_path / "whole.pgn").write_text(whole)
    expected = polyglot_make(polyglot_bin, tmp_path / "whole.pgn", tmp_path / "polyglot.bin", "-max-ply", "20",
                             "-min-game", "2")
    inputs = [str(path) for path in paths]
    options = ["--max-ply", "20", "--min-games", "2"]
    books = {}
    for name, extra in {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "dask-cli": ["--dask"]}.items():
        assert main(["build", *inputs, "-o", str(tmp_path / f"{name}.bin"), *options, *extra]) == 0
        books[name] = (tmp_path / f"{name}.bin").read_bytes()
    # the library entry point on the shared cluster, in small pieces: several per file, compressed ones too
    pieces = [p for p in plan_pieces(paths, piece_bytes=1 << 18) if not isinstance(p, str)]
    assert {Path(p.path).name for p in pieces if p.text is not None} == {"b.pgn.gz", "c.pgn.zst"}
    assert all(sum(p.path == str(path) for p in pieces) >= 4 for path in paths)
    # ... into a builder whose counts spill to disk (the client's memory bounded)
    builder = build_book(paths, scheduler=client, piece_bytes=1 << 18,
                         builder=BookBuilder(max_ply=20, table_rows=2000, spill_dir=tmp_path))
    assert builder._store is not None and builder._store.spilled > 0
    make_book(tmp_path / "dask-lib.bin", builder, min_games=2)
    books["dask-lib"] = (tmp_path / "dask-lib.bin").read_bytes()
    local = BookBuilder(max_ply=20)
    for path in paths:
        local.add_pgn(path)
    assert builder.games == local.games == whole.count("[Event ")
    assert builder.skipped == local.skipped
    assert list(builder.entries()) == list(local.entries())
    assert {name: book == expected for name, book in books.items()} == dict.fromkeys(books, True)


def test_halving_across_pieces_equals_polyglot(polyglot_bin: Path, tmp_path: Path, client: Any) -> None:
    # 1.e4 reaches 16,384 games inside some piece: the halving is replayed in game order over the pieces
    games = ['[Result "1/2-1/2"]\n\n1. d4 1/2-1/2\n'] * 3 + [
        f'[Result "{("1-0", "0-1", "1/2-1/2")[i % 3]}"]\n\n1. e4 {("e5", "c5")[i % 2]} *\n' for i in range(16500)]
    pgn = tmp_path / "many.pgn"
    pgn.write_text("\n".join(games))
    expected = polyglot_make(polyglot_bin, pgn, tmp_path / "polyglot.bin", "-min-game", "1")
    builder = build_book([pgn], scheduler=client, piece_bytes=1 << 15)
    assert max(e.games for e in builder.entries()) > COUNT_MAX
    make_book(tmp_path / "dask.bin", builder, min_games=1)
    assert (tmp_path / "dask.bin").read_bytes() == expected
    # ... and by key range on the workers
    write_book([pgn], tmp_path / "reduced.bin", scheduler=client, reducers=3, min_games=1, piece_bytes=1 << 15)
    assert (tmp_path / "reduced.bin").read_bytes() == expected


def test_reduce_by_key_range_equals_one_process_and_polyglot(polyglot_bin: Path, tmp_path: Path, client: Any) -> None:
    # twic1134 in pieces of 512 kB, the reduce on the workers in 1, 3 and 8 key ranges (reducers that spill in one)
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    expected = polyglot_make(polyglot_bin, pgn, tmp_path / "polyglot.bin", "-max-ply", "30", "-min-game", "2")
    local = BookBuilder(max_ply=30)
    local.add_pgn(pgn)
    make_book(tmp_path / "one.bin", local, min_games=2)
    assert (tmp_path / "one.bin").read_bytes() == expected
    for reducers, table_rows in ((1, None), (3, 2000), (8, None)):
        done = write_book([pgn], tmp_path / f"r{reducers}.bin", scheduler=client, reducers=reducers, max_ply=30,
                          min_games=2, table_rows=table_rows, shuffle_dir=tmp_path, piece_bytes=1 << 19)
        assert (tmp_path / f"r{reducers}.bin").read_bytes() == expected, reducers
        assert (done.games, done.skipped, done.rows, done.pieces) == (local.games, local.skipped, len(local), 8)
        assert done.written == len(expected) // 16
    assert sorted(path.name for path in tmp_path.iterdir()) == ["one.bin", "polyglot.bin", "r1.bin", "r3.bin",
                                                                "r8.bin"]


def test_reduce_refuses_a_chessbase_database(tmp_path: Path, client: Any) -> None:
    with pytest.raises(ValueError, match="ChessBase"):
        write_book([tmp_path / "base.cbh"], tmp_path / "out.bin", scheduler=client)


def test_filters_on_the_cluster(tmp_path: Path, client: Any) -> None:
    from test_filters import ALL, pgn_of

    pgn = tmp_path / "all.pgn"
    pgn.write_text(pgn_of(ALL, 300))
    game_filter = GameFilter.of(min_rating=1800, time_controls="blitz")
    builder = build_book([pgn], scheduler=client, game_filter=game_filter, piece_bytes=1 << 16)
    local = BookBuilder(game_filter=game_filter)
    local.add_pgn(pgn)
    assert builder.filtered == local.filtered == (len(ALL) - 4) * 300 and builder.games == local.games
    make_book(tmp_path / "dask.bin", builder, min_games=1)
    make_book(tmp_path / "local.bin", local, min_games=1)
    assert (tmp_path / "dask.bin").read_bytes() == (tmp_path / "local.bin").read_bytes()


def test_chessbase_database_in_its_place(tmp_path: Path, client: Any) -> None:
    base = find_corpus("chessbase", "uncbv_twic1134", "twic1134.cbh")
    paths, _ = three_files(tmp_path)
    inputs = [paths[0], base, paths[2]]
    builder = build_book(inputs, scheduler=client, max_ply=12, piece_bytes=1 << 18)
    local = BookBuilder(max_ply=12)
    for path in inputs:
        local.add_file(path)
    assert builder.games == local.games and builder.skipped == local.skipped
    assert list(builder.entries()) == list(local.entries())


@pytest.mark.parametrize("damage", ["cut", "garbled"])
def test_damaged_zst_on_the_cluster_is_a_format_error(tmp_path: Path, client: Any, damage: str) -> None:
    whole = zstandard.ZstdCompressor().compress(('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n' * 30000).encode())
    data = {"cut": whole[:len(whole) // 2], "garbled": whole[:12] + bytes(40) + whole[52:]}[damage]
    path = tmp_path / "games.pgn.zst"
    path.write_bytes(data)
    with pytest.raises(FormatError) as caught:
        build_book([path], scheduler=client, piece_bytes=1 << 16)
    assert caught.value.file == str(path) and caught.value.offset is not None
    if damage == "cut":
        assert isinstance(caught.value, TruncatedError) and caught.value.offset == len(data)
