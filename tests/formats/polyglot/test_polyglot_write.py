"""Writing Polyglot books: mappings and entries, merging, atomic writes; the ``polyglot`` program as oracle.

References: the format specification (specs/polyglot.ru.txt: the entry layout, read back with ``struct``),
python-chess's ``chess.polyglot`` and the ``polyglot`` program itself (Debian package) when it is installed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import chess.polyglot
import pytest

from chessformats.polyglot import (
    open_book,
    write_book,
)
from polyglot_cases import ENTRY, entries

# --- writing ---------------------------------------------------------------------------------------------------

def _read_rows(path: Path) -> list[tuple[int, int, int, int]]:
    data = path.read_bytes()
    assert len(data) % 16 == 0
    return [ENTRY.unpack_from(data, offset) for offset in range(0, len(data), 16)]


START = chess.STARTING_FEN
ITALIAN = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"  # white can castle short
BLACK_LONG = "r3kbnr/pppqpppp/2n5/3p1b2/3P1B2/2N5/PPPQPPPP/R3KBNR b KQkq - 7 5"
PROMOTION = "8/P6k/8/8/8/8/6p1/K7 w - - 0 1"
PROMOTION_BLACK = "8/P6k/8/8/8/8/6p1/K4N2 b - - 0 1"


def _sample_mapping() -> dict[Any, dict[Any, Any]]:
    return {
        START: {chess.Move.from_uci("d2d4"): 5, chess.Move.from_uci("e2e4"): 10, "g1f3": (3, 77)},
        ITALIAN: {chess.Move.from_uci("e1g1"): 7, chess.Move.from_uci("c2c3"): 2},
        BLACK_LONG: {chess.Move.from_uci("e8c8"): 4},
        PROMOTION: {chess.Move.from_uci(f"a7a8{p}"): w for p, w in zip("qrbn", (40, 30, 20, 10), strict=True)},
        PROMOTION_BLACK: {"g2g1q": 2, "g2f1n": 1},
    }


def test_write_mapping(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    assert write_book(path, _sample_mapping()).written == 3 + 2 + 1 + 4 + 2
    rows = _read_rows(path)
    keys = [row[0] for row in rows]
    assert keys == sorted(keys)
    by_key: dict[int, list[tuple[int, int, int]]] = {}
    for key, raw, weight, learn in rows:
        by_key.setdefault(key, []).append((raw, weight, learn))
    # hand-computed raw moves (to | from << 6 | promotion << 12):
    # e2e4 = 28 | 12 << 6 = 796; d2d4 = 27 | 11 << 6 = 731; g1f3 = 21 | 6 << 6 = 405
    assert by_key[0x463B96181691FC9C] == [(796, 10, 0), (731, 5, 0), (405, 3, 77)]  # by descending weight
    # O-O stored as e1h1 = 7 | 4 << 6 = 263, c2c3 = 18 | 10 << 6 = 658
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(ITALIAN))] == [(263, 7, 0), (658, 2, 0)]
    # O-O-O of black stored as e8a8 = 56 | 60 << 6 = 3896
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(BLACK_LONG))] == [(3896, 4, 0)]
    # a7a8 = 56 | 48 << 6 = 3128; + 4 << 12 (Q) = 19512, 3 << 12 (R) = 15416, 2 << 12 (B) = 11320, N = 7224
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(PROMOTION))] == \
        [(19512, 40, 0), (15416, 30, 0), (11320, 20, 0), (7224, 10, 0)]
    # g2g1=Q = 6 | 14 << 6 | 4 << 12 = 6 + 896 + 16384 = 17286; g2f1=N = 5 | 896 | 4096 = 4997
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(PROMOTION_BLACK))] == [(17286, 2, 0), (4997, 1, 0)]


def test_written_book_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    mapping = _sample_mapping()
    write_book(path, mapping)
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        for fen, moves in mapping.items():
            board = chess.Board(fen)
            expected = {chess.Move.from_uci(m) if isinstance(m, str) else m:
                        (w if isinstance(w, int) else w[0]) for m, w in moves.items()}
            theirs = {e.move: e.weight for e in reader.find_all(board, minimum_weight=0)}
            ours = {e.move: e.weight for e in entries(book, board)}
            assert theirs == expected, fen
            assert ours == expected, fen
        castle = entries(book, chess.Board(ITALIAN))[0]
        assert castle.move == chess.Move.from_uci("e1g1") and castle.raw_move == 263


def test_write_by_key_and_raw_move(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    write_book(path, {0x463B96181691FC9C: {796: 9, "d2d4": 2}, 5: {263: 1}})
    assert _read_rows(path) == [(5, 263, 1, 0), (0x463B96181691FC9C, 796, 9, 0), (0x463B96181691FC9C, 731, 2, 0)]


# FENs of one position that differ only in the move counters: the same key, so (key, move) repeats
SAME_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 7"


@pytest.mark.parametrize(("merge", "expected"), [
    ("sum", [(796, 10 + 30 + 4, 0)]),
    ("max", [(796, 30, 0)]),
    ("first", [(796, 10, 0)]),
    (None, [(796, 10, 0), (796, 30, 0), (796, 4, 0)]),
])
def test_write_merges_duplicates(tmp_path: Path, merge: str | None, expected: list[tuple[int, int, int]]) -> None:
    path = tmp_path / "out.bin"
    mapping = {START: {"e2e4": 10}, SAME_START: {chess.Move.from_uci("e2e4"): 30}, 0x463B96181691FC9C: {796: 4}}
    write_book(path, mapping, merge=merge)
    assert [(raw, weight, learn) for _, raw, weight, learn in _read_rows(path)] == expected


def test_write_merges_within_a_position(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    write_book(path, {START: {"e2e4": 10, chess.Move.from_uci("e2e4"): 3, "d2d4": 1}}, merge="sum")
    assert [(raw, weight) for _, raw, weight, _ in _read_rows(path)] == [(796, 13), (731, 1)]


def test_write_sum_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    write_book(path, [(1, 796, 40000, 0), (1, 796, 30000, 0)], merge="sum")
    assert _read_rows(path) == [(1, 796, 65535, 0)]


def test_write_entries_sorted_and_stable(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    rows = [(9, 1, 1, 0), (3, 2, 1, 0), (9, 3, 1, 0), (2**64 - 1, 4, 1, 0), (0, 5, 1, 0), (3, 6, 1, 0)]
    write_book(path, rows, merge=None)
    assert _read_rows(path) == [(0, 5, 1, 0), (3, 2, 1, 0), (3, 6, 1, 0), (9, 1, 1, 0), (9, 3, 1, 0),
                                (2**64 - 1, 4, 1, 0)]


def test_write_rejects_out_of_range(tmp_path: Path) -> None:
    for row in ((2**64, 1, 1, 0), (1, 2**16, 1, 0), (1, 1, 2**16, 0), (1, 1, 1, 2**32), (-1, 1, 1, 0)):
        with pytest.raises(ValueError):
            write_book(tmp_path / "bad.bin", [row])
    assert not (tmp_path / "bad.bin").exists()


class _Exploding(dict):  # type: ignore[type-arg]
    """A mapping whose iteration fails after the first position."""

    def items(self) -> Iterator[tuple[Any, Any]]:  # type: ignore[override]
        for number, item in enumerate(super().items()):
            if number == 1:
                raise RuntimeError("source failed midway")
            yield item


def test_write_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "book.bin"
    write_book(path, {START: {"e2e4": 1}})
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="midway"):
        write_book(path, _Exploding({START: {"d2d4": 1}, ITALIAN: {"e1g1": 1}}))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.bin"]


def test_write_is_atomic_when_the_entries_fail(tmp_path: Path) -> None:
    path = tmp_path / "book.bin"
    path.write_bytes(b"previous")

    def entries() -> Iterator[tuple[int, int, int, int]]:
        yield (1, 796, 1, 0)
        raise OSError("disk went away")

    with pytest.raises(OSError, match="went away"):
        write_book(path, entries())
    assert path.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.bin"]


# --- the polyglot program as oracle ------------------------------------------------------------------------

ORACLE_BOOKS = ["gm2001.bin", "lasker-trap.bin", "performance.bin", "picochess_fun.bin", "rodent3_cat.bin",
                "rodent3_micro.bin", "rodent3_reti.bin"]


def _run(binary: Path, args: list[str], cwd: Path) -> list[str]:
    result = subprocess.run([str(binary), *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                            check=True)
    return result.stdout.splitlines()


@pytest.mark.parametrize("name", ORACLE_BOOKS)
def test_polyglot_oracle_info_and_dump(polyglot_binary: Path, corpus_path: Callable[..., Path], tmp_path: Path,
                                       name: str) -> None:
    original = corpus_path("polyglot", name)
    with open_book(original) as book:
        entries = list(book)
    copy = tmp_path / "copy.bin"
    write_book(copy, entries, merge=None)

    def info(path: Path) -> list[str]:
        return [line.replace(str(path), "BOOK") for line in _run(polyglot_binary, ["info-book", "-bin", str(path)],
                                                                 tmp_path)]

    assert info(copy) == info(original)
    assert any("Lines for white" in line for line in info(original))
    for color in ("white", "black"):
        dumps = []
        for label, path in (("a", original), ("b", copy)):
            out = tmp_path / f"dump-{label}-{color}.txt"
            _run(polyglot_binary, ["dump-book", "-bin", str(path), "-color", color, "-out", str(out)], tmp_path)
            dumps.append(out.read_text(errors="replace").replace(str(path), "BOOK").splitlines())
        assert dumps[0] == dumps[1]
        assert dumps[0][0] == f'Dump of "BOOK" for {color}.'


def test_polyglot_oracle_reads_a_written_mapping(polyglot_binary: Path, tmp_path: Path) -> None:
    """A book written from a mapping: polyglot's dump shows the lines and the shares the weights give."""
    board = chess.Board()
    mapping: dict[Any, dict[Any, Any]] = {board.fen(): {"e2e4": 3, "d2d4": 1}}
    board.push_san("e4")
    mapping[board.fen()] = {"e7e5": 1}
    board.push_san("e5")
    mapping[board.fen()] = {"g1f3": 1}
    path = tmp_path / "mine.bin"
    write_book(path, mapping)
    out = tmp_path / "dump.txt"
    _run(polyglot_binary, ["dump-book", "-bin", str(path), "-color", "white", "-out", str(out)], tmp_path)
    lines = out.read_text().splitlines()
    # e4 has 3 of the 4 weight units (75%), then 1...e5 2.Nf3 (the only move, 100%)
    assert any(line.startswith("1: 1. e4{75%} e5 2. Nf3{100%}") for line in lines), lines
    assert any(line.startswith("2: 1. d4{25%}") for line in lines), lines
