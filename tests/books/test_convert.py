"""Conversions between book formats (``chessformats.books.convert``): CTG <-> Polyglot here, Kvetka <-> CTG and
Polyglot in ``tests/cli/test_kvetka_cli.py`` and ``tests/books/test_books_kvetka.py``.

Oracles: the corpus's ``expected-probes.json`` (an independent CTG reader), python-chess's Polyglot reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import chess.polyglot
import pytest

from chessformats import ctg
from conftest import find_corpus
from ctg_oracles import BOOK, expected_probes


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return expected_probes()


@pytest.fixture(scope="module")
def book_path() -> Path:
    return find_corpus(*BOOK)


def test_ctg_to_polyglot(tmp_path: Path, book_path: Path, expected: dict[str, Any]) -> None:
    out = tmp_path / "book.bin"
    summary = ctg.to_polyglot(book_path, out)
    assert "written" in summary
    with chess.polyglot.open_reader(out) as reader:
        entries = {e.move.uci(): e.weight for e in reader.find_all(chess.Board(), minimum_weight=0)}
    # after 1.e4 (expected-probes): 489 games, black won 195, lost 173, drew 116, 5 without result; for
    # white's 1.e4: 2 * 173 + 116 + 5 = 467
    after = next(f["probe"] for f in expected["found"] if f["fen"].startswith("rnbqkbnr/pppppppp/8/8/4P3/"))
    assert (after["games"], after["wins"], after["losses"], after["draws"]) == (489, 195, 173, 116)
    assert entries == {"e2e4": 467}
    # a ?-annotated move is kept with weight 0
    mistake = next(f for f in expected["found"] if any(m["annotation"] == 2 for m in f["probe"]["moves"]))
    board = chess.Board(mistake["fen"])
    move = next(m["uci"] for m in mistake["probe"]["moves"] if m["annotation"] == 2)
    with chess.polyglot.open_reader(out) as reader:
        weights = {e.move.uci(): e.weight for e in reader.find_all(board, minimum_weight=0)}
    assert weights.get(move) == 0


def test_polyglot_to_ctg_and_back(tmp_path: Path) -> None:
    source = find_corpus("polyglot", "lasker-trap.bin")
    summary = ctg.from_polyglot(source, tmp_path / "lasker.ctg")
    assert "records" in summary
    ctg.to_polyglot(tmp_path / "lasker.ctg", tmp_path / "back.bin")
    with chess.polyglot.open_reader(source) as original, chess.polyglot.open_reader(tmp_path / "back.bin") as back:
        def walk(reader: Any) -> dict[tuple[int, str], int]:
            out, queue, seen = {}, [chess.Board()], set()
            while queue:
                board = queue.pop()
                for entry in reader.find_all(board, minimum_weight=0):
                    out[(chess.polyglot.zobrist_hash(board), entry.move.uci())] = entry.weight
                    child = board.copy()
                    child.push(entry.move)
                    if chess.polyglot.zobrist_hash(child) not in seen:
                        seen.add(chess.polyglot.zobrist_hash(child))
                        queue.append(child)
            return out
        assert walk(back) == walk(original)
