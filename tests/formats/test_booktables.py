"""Books as tables (one row per position and move) equal what the books answer to probes, and what independent
readers find: python-chess's Polyglot reader and the raw 16-byte entries, the CTG probes another reader decoded
(``corpus/ctg/expected-probes.json``), the games a Kvetka book was written from."""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

import chess
import chess.polyglot
import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

from chessformats import ctg, kvetka, polyglot
from conftest import find_corpus
from kvetka_examples import board_after, write_small_book
from polyglot_cases import ENTRY

SHARED = ["key", "fen", "move", "weight", "games", "wins", "draws", "losses"]


def _records(frame: Any) -> list[dict[str, Any]]:
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def _by_fen(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row["fen"]].append(row)
    return grouped


@pytest.mark.parametrize("name", ["rodent3_reti.bin", "lasker-trap.bin", "rodent3_empty.bin"])
def test_polyglot_table(name: str) -> None:
    path = find_corpus("polyglot", name)
    with polyglot.open_book(path) as book:
        frame = book.to_pandas()
    assert list(frame.columns[:len(SHARED)]) == SHARED
    data = path.read_bytes()
    stored = [ENTRY.unpack_from(data, at) for at in range(0, len(data), ENTRY.size)]
    assert list(zip(frame["key"], frame["raw_move"], frame["weight"], frame["learn"], strict=True)) == stored
    assert frame["games"].isna().all()
    rows = _records(frame)
    positioned = _by_fen([row for row in rows if row["fen"] is not None])
    with chess.polyglot.open_reader(path) as oracle:
        for fen, group in positioned.items():
            board = chess.Board(fen)
            assert {row["key"] for row in group} == {chess.polyglot.zobrist_hash(board)}
            theirs = [(entry.move.uci(), entry.weight, entry.learn) for entry in oracle.find_all(board,
                                                                                                minimum_weight=0)]
            ours = [(row["move"], row["weight"], row["learn"]) for row in group if row["move"] is not None]
            assert ours == theirs
    if name == "rodent3_reti.bin":
        assert len(positioned) > 300  # positions reached from the start: the comparison above is not empty


def test_polyglot_table_without_positions() -> None:
    with polyglot.open_book(find_corpus("polyglot", "lasker-trap.bin")) as book:
        table = book.to_arrow(fen=False)
        assert table.column("fen").null_count == table.num_rows == len(book)
        assert table.column("move").to_pylist() == [entry.move.uci() for entry in book]


def test_polars_frame_holds_the_arrow_rows() -> None:
    polars = pytest.importorskip("polars")  # in the test extra (not in the arrow extra): CI runs this
    path = find_corpus("polyglot", "lasker-trap.bin")
    with polyglot.open_book(path) as book:
        frame = book.to_polars()
        table = book.to_arrow()
    assert isinstance(frame, polars.DataFrame)
    assert frame.columns == table.column_names and frame.height == table.num_rows == path.stat().st_size // 16
    assert frame.to_dicts() == table.to_pylist()
    with chess.polyglot.open_reader(path) as oracle:
        assert frame["move"].to_list() == [oracle[index].move.uci() for index in range(len(oracle))]


def test_ctg_table_as_probed_and_as_another_reader_found() -> None:
    path = find_corpus("ctg", "PowerPlay17-Sicilienne.ctg")
    expected = json.loads(find_corpus("ctg", "expected-probes.json").read_text())["found"]
    with ctg.open_book(path) as book:
        rows = book.to_arrow().to_pylist()
        assert len({row["key"] for row in rows}) == len(book)
        by_key: dict[bytes, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            by_key[row["key"]].append(row)
        for found in expected:  # the other reader: statistics and stored moves of 400 positions
            group = by_key[book.key(chess.Board(found["fen"]))]
            probe = found["probe"]
            assert {(row["games"], row["wins"], row["draws"], row["losses"]) for row in group} == {
                (probe["games"], probe["wins"], probe["draws"], probe["losses"])}
            assert sorted((row["code"], row["nag"]) for row in group if row["move"] is not None) == sorted(
                (move["code"], move["annotation"]) for move in probe["moves"])
        for index, (fen, group) in enumerate(_by_fen(rows).items()):  # the book's own probes, every 20th position
            if index % 20:
                continue
            board = chess.Board(fen)
            record = book.probe(board, legal_only=False)
            assert record is not None
            assert [(row["move"], row["weight"]) for row in group if row["move"] is not None] == [
                (move.move.uci(), move.weight) for move in book.find_all(board, minimum_weight=0, legal_only=False)]
            assert {(row["games"], row["wins"], row["draws"], row["losses"]) for row in group} == {
                (record.games, record.wins, record.draws, record.losses)}


def test_ctg_table_of_a_book_without_index() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ctg.MissingIndexWarning)
        with ctg.open_book(find_corpus("ctg", "simple.ctg")) as book:
            rows = book.to_arrow().to_pylist()
            records = list(book.records())
    assert {row["key"] for row in rows} == {record.key for record in records}
    assert sum(max(len(record.moves), 1) for record in records) == len(rows)


def test_kvetka_table(tmp_path: Path) -> None:
    with kvetka.open_book(write_small_book(tmp_path)) as book:
        rows = book.to_pandas()
        rows = _records(rows)
        for fen, group in _by_fen(rows).items():
            board = chess.Board(fen)
            found = book.probe(board)
            assert found is not None
            assert [(row["move"], row["weight"]) for row in group if row["move"]] == [
                (move.move.uci(), move.weight) for move in book.find_all(board, minimum_weight=0)]
            assert {(row["games"], row["wins"], row["draws"], row["losses"], row["comment"]) for row in group} == {
                (found.games, found.wins, found.draws, found.losses, found.comment)}
        # the four games the book was written from (tests/kvetka_examples.py): 2 won by white, 1 drawn, 1 lost
        start = [row for row in rows if row["fen"] == chess.STARTING_FEN]
        assert {(row["games"], row["wins"], row["draws"], row["losses"]) for row in start} == {(4, 2, 1, 1)}
        assert sorted(row["move"] for row in start) == ["d2d4", "e2e4"]
        assert {row["comment"] for row in start} == {"A00|Start"}
        after = book.key(board_after("e4", "e5"))
        assert {row["comment"] for row in rows if row["key"] == after} == {"C20|King's Pawn Game"}
