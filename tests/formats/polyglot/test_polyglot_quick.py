"""The quick open (``open_book(path, scan=False)``): same answers as the scanning reader, checks of what it returns,
the whole-book state made on demand; and the single-move rule check equal to the array one."""

from __future__ import annotations

import struct
import warnings
from pathlib import Path

import chess
import chess.polyglot
import numpy as np
import pytest
from tests.conftest import find_corpus
from tests.polyglot_cases import random_games

from chessformats import InvalidValueError, TruncatedError
from chessformats.formats.polyglot import UnsortedBookWarning, open_book, reachable_positions
from chessformats.formats.polyglot.moves import move_problem, move_problems
from polyglot_cases import entries

BOOKS = ("gm2001.bin", "lasker-trap.bin", "performance.bin", "performance_pre2019.bin", "picochess_fun.bin",
         "rodent3_cat.bin", "rodent3_cs.bin", "rodent3_empty.bin", "rodent3_grandpa.bin", "rodent3_guide.bin",
         "rodent3_micro.bin", "rodent3_reti.bin")


def _positions(book_path: Path) -> list[chess.Board]:
    with open_book(book_path, strict=False) as book:
        boards = [board for board, _ in zip(range(300), (b for b, _ in reachable_positions(book)), strict=False)]
    boards += [board.copy() for board in random_games(20261125, 200, max_plies=30)]
    return boards


@pytest.mark.parametrize("name", BOOKS)
def test_quick_probes_equal_scanned_probes(name: str) -> None:
    path = find_corpus("polyglot", name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedBookWarning)
        full = open_book(path, strict=False)
    quick = open_book(path, strict=False, scan=False)
    with full, quick:
        assert full.sorted  # (the quick open takes a book as sorted, as Polyglot writes them: documented)
        boards = _positions(path)
        assert len(boards) > 200
        met = 0
        for board in boards:
            expected = entries(full, board)
            assert entries(quick, board) == expected
            assert entries(quick, board, legal_only=False) == entries(full, board, legal_only=False)
            if expected:  # by key too
                assert entries(quick, expected[0].key) == entries(full, expected[0].key)
            met += bool(expected)
        assert met >= min(10, full.positions() - 1)  # the probes did find book moves
        assert "_key_view" not in vars(quick)  # answered without reading the whole book
        assert len(quick) == len(full)


def test_quick_open_is_lazy_then_complete(tmp_path: Path) -> None:
    path = find_corpus("polyglot", "gm2001.bin")
    with open_book(path, scan=False) as quick, open_book(path) as full:
        assert "records" not in vars(quick)
        assert quick.sorted is True  # asking for whole-book state scans the book once
        assert "records" in vars(quick)
        assert quick.findings() == full.findings()
        assert all(np.array_equal(a, b) for a, b in zip(quick.arrays().values(), full.arrays().values(), strict=True))
        assert list(quick)[:50] == list(full)[:50]


def _book_with_bad_move(tmp_path: Path) -> tuple[Path, chess.Board, int]:
    """A sorted book whose start position has one entry with an undefined promotion value (7)."""
    board = chess.Board()
    key = chess.polyglot.zobrist_hash(board)
    e2e4 = (4 << 6 | 1 << 9) | (4 | 3 << 3)  # from e2, to e4 (files/ranks at the declared shifts)
    entries = sorted([(key, e2e4, 10, 0), (key, e2e4 | 7 << 12, 5, 0), (key + 1, e2e4, 1, 0)])
    path = tmp_path / "bad.bin"
    path.write_bytes(b"".join(struct.pack(">QHHI", *entry) for entry in entries))
    bad = next(index for index, entry in enumerate(entries) if entry[1] >> 12 == 7)
    return path, board, bad


def test_quick_probe_checks_the_entries_it_reads(tmp_path: Path) -> None:
    path, board, bad = _book_with_bad_move(tmp_path)
    with pytest.raises(InvalidValueError) as scanned:
        open_book(path)
    with open_book(path, scan=False) as quick, pytest.raises(InvalidValueError) as probed:
        entries(quick, board)
    assert str(probed.value) == str(scanned.value)  # same file, offset, field path and values
    assert probed.value.offset == bad * 16 + 8
    with open_book(path, strict=False, scan=False) as lenient, open_book(path, strict=False) as full:
        assert entries(lenient, board) == entries(full, board)
        assert [entry.weight for entry in entries(lenient, board)] == [10]


def test_quick_open_rejects_a_partial_entry(tmp_path: Path) -> None:
    path = tmp_path / "cut.bin"
    path.write_bytes(find_corpus("polyglot", "gm2001.bin").read_bytes()[:16 * 10 + 5])
    with pytest.raises(TruncatedError) as quick:
        open_book(path, scan=False)
    with pytest.raises(TruncatedError) as full:
        open_book(path)
    assert str(quick.value) == str(full.value)


def test_single_move_rule_equals_array_rules() -> None:
    raws = np.arange(1 << 16, dtype=np.int64)
    problems, fields = move_problems(raws)
    for raw in range(1 << 16):
        first = next(((path, expected, int(raw if path == "move" else fields[path.split(".")[1]][raw]))
                      for path, (bad, expected) in problems.items() if bad[raw]), None)
        assert move_problem(raw) == first
