"""CTG books, writing records: the corpus book rewritten, the ``.cto`` directory rule, random books probed back.

Oracles: the spec's lookup loop and encoding (``tests/ctg_oracles.py``), the corpus's ``expected-probes.json``
and the corpus book itself.
"""

from __future__ import annotations

import random
import struct
import tempfile
from pathlib import Path
from typing import Any

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats import ctg
from conftest import find_corpus
from ctg_oracles import BOOK, expected_probes, positions, spec_encode, spec_hash_table, spec_lookup


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return expected_probes()


@pytest.fixture(scope="module")
def book_path() -> Path:
    return find_corpus(*BOOK)


@pytest.fixture(scope="module")
def table() -> tuple[int, ...]:
    return spec_hash_table()


def test_rewrite_the_corpus_book(tmp_path: Path, book_path: Path, expected: dict[str, Any]) -> None:
    with ctg.open_book(book_path) as book:
        records = list(book.records())
        games = book.header_games
    out = tmp_path / "copy.ctg"
    assert ctg.write_book(out, records, games=games).written == 13305
    with ctg.open_book(out) as copy:
        assert copy.header_games == 499 and not copy.findings()
        assert {r.signature: r.to_bytes() for r in copy.records()} == {r.signature: r.to_bytes() for r in records}
        with ctg.open_book(book_path) as book:
            for found in expected["found"] + [{"fen": fen} for fen in expected["not_in_book"]]:
                board = chess.Board(found["fen"])
                original, written = book.probe(board), copy.probe(board)
                assert (original is None) == (written is None)
                if original is not None and written is not None:
                    assert written.moves == original.moves and written.to_bytes() == original.to_bytes()
    stem = str(out)[:-4]
    for record in random.Random(2).sample(records, 1000):
        assert spec_lookup(stem, record.signature) is not None
    # every page within its limits; together about as full as the dbm scheme allows
    data = out.read_bytes()
    used = [struct.unpack(">H", data[4096 * p + 2:4096 * p + 4])[0] for p in range(1, len(data) // 4096)]
    assert max(used) <= 4096 and sum(len(r.to_bytes()) for r in records) == sum(u - 4 for u in used)
    assert len(used) <= 257  # no more pages than ChessBase's own layout of the same records


def test_directory_rule(tmp_path: Path, book_path: Path) -> None:
    with ctg.open_book(book_path) as book:
        ctg.write_book(tmp_path / "copy.ctg", book.records())
    ctb = (tmp_path / "copy.ctb").read_bytes()
    cto = (tmp_path / "copy.cto").read_bytes()
    lower, upper = struct.unpack(">II", ctb[4:12])
    entries = struct.unpack(">I", cto[4:8])[0]
    table = struct.unpack(f">{entries}i", cto[16:16 + 4 * entries])
    assert len(cto) == 16 + 4 * entries and len(ctb) == 60
    levels = {(c + 1).bit_length() - 1 for c, page in enumerate(table) if page >= 0}
    assert lower == 2 ** min(levels) - 1
    deepest = max(levels)
    # every hash (its low `deepest + 1` bits decide the loop): every entry read lies in the table, and at
    # most one entry on the way is a page (a trie: one leaf per path)
    for h in range(2 ** (deepest + 1)):
        read = ctg.lookup_entries(h, lower, upper)
        assert read and max(read) < entries
        assert sum(1 for c in read if table[c] >= 0) <= 1
    assert max(max(ctg.lookup_entries(h, lower, upper)) for h in range(2 ** (deepest + 1))) == entries - 1


def test_empty_book(tmp_path: Path) -> None:
    assert ctg.write_book(tmp_path / "empty.ctg", []).written == 0
    with ctg.open_book(tmp_path / "empty.ctg") as book:
        assert len(book) == 0 and book.probe(chess.Board()) is None


@given(st.lists(positions(), min_size=1, max_size=12), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_written_books_probe_back(table: tuple[int, ...], boards: list[chess.Board], seed: int) -> None:
    rng = random.Random(seed)
    records = {}
    for board in boards:
        moves = [m for m in board.legal_moves if ctg.encode_move(board, m) is not None]
        chosen = rng.sample(moves, min(len(moves), rng.randint(0, 4)))
        games = rng.randint(0, 1000)
        wins = rng.randint(0, games)
        record = ctg.make_record(board, [(m, rng.choice([0, 1, 2, 5])) for m in chosen], games=games, wins=wins,
                                 draws=games - wins, rating1=ctg.Rating(rng.randint(0, 9), rng.randint(0, 10**6)))
        records.setdefault(record.signature, (board, record))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "random.ctg"
        ctg.write_book(out, [r for _, r in records.values()])
        with ctg.open_book(out) as book:
            for board, record in records.values():
                found = book.probe(board)
                assert found is not None and found.to_bytes() == record.to_bytes()
                assert [m.move for m in found.moves] == [m.move for m in record.moves]
                assert spec_lookup(str(out)[:-4], spec_encode(board)) is not None
