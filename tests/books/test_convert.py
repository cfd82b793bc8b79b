"""Conversions between book formats (``chessformats.books.convert``): CTG <-> Polyglot, Kvetka <-> Polyglot,
CTG -> Kvetka (the command line's ``convert`` in every direction: ``tests/cli/test_kvetka_cli.py``).

Oracles: the corpus's ``expected-probes.json`` (an independent CTG reader), python-chess's Polyglot reader,
hand arithmetic on the example games in comments.
"""

from __future__ import annotations

from pathlib import Path

import chess
import chess.polyglot
import pytest

from chessformats import ctg, kvetka, polyglot
from chessformats.books import ctg as ctg_books
from chessformats.books import polyglot as polyglot_books
from chessformats.books.convert import convert_book
from chessformats.books.tree import fen_key
from chessformats.contract import WriteReport
from conftest import find_corpus
from ctg_oracles import BOOK, expected_probes
from kvetka_examples import board_after, write_small_book


def polyglot_tree(path: Path) -> dict[tuple[int, str], int]:
    """Every (position key, move) -> weight of a Polyglot book reached from the start, read by python-chess."""
    with chess.polyglot.open_reader(path) as reader:
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


def test_ctg_to_polyglot(tmp_path: Path) -> None:
    book_path, expected = find_corpus(*BOOK), expected_probes()
    out = tmp_path / "book.bin"
    report = ctg.convert_book(book_path, out)
    assert isinstance(report, WriteReport) and report.unit == "entries" and report.files == [str(out)]
    with polyglot.open_book(out) as written, ctg.open_book(book_path) as book:
        assert report.written == len(written) > 0
        # every stored position is either reached from the start (converted) or counted as not reached
        assert report.counts["positions"] + report.counts.get("not reached", 0) >= len(book) // 2
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
    report = ctg.convert_book(source, tmp_path / "lasker.ctg")
    assert report.unit == "records" and report.files[0] == str(tmp_path / "lasker.ctg")
    back = convert_book(tmp_path / "lasker.ctg", tmp_path / "back.bin")
    assert polyglot_tree(tmp_path / "back.bin") == polyglot_tree(source)
    with polyglot.open_book(source) as book:
        assert back.written == len(book) - report.counts.get("not reached", 0)


def _line(*moves: str) -> dict[str, dict[chess.Move, int]]:
    """A Polyglot book of the moves of a line, each position's move weighted 10 (``|``: two moves there)."""
    board, book = chess.Board(), {}
    for played in moves:
        book[board.fen()] = {board.parse_san(san): 10 for san in played.split("|")}
        board.push_san(played.split("|")[0])
    return book


@pytest.mark.parametrize(("suffix", "written"), [(".ctg", "twin.ctg"), (".kob", "twin_0.kob")])
def test_a_position_whose_twin_was_reached_is_still_found(tmp_path: Path, suffix: str, written: str) -> None:
    # CTG and Kvetka store a position and its colour-reversed twin as one. The book's lines 1.h4 h5 2.Rh2 Rh7
    # 3.Rh1 Rh8 4.a4 and 3.Rh3 Rh8 (a leaf) lead to a symmetric position with white to move (P) and one square
    # from its twin, black to move (T: 4.Rh1, a move outside the book, then 4...a5). The walk of the converted
    # book reaches the record with P by book moves; T must still be looked for, with black to move
    book = _line("h4", "h5", "Rh2", "Rh7", "Rh1|Rh3", "Rh8", "a4")
    twin = chess.Board()
    for san in ("h4", "h5", "Rh2", "Rh7", "Rh3"):
        twin.push_san(san)
    book[twin.fen()] = {twin.parse_san("Rh8"): 10}
    for san in ("Rh8", "Rh1"):
        twin.push_san(san)
    book[twin.fen()] = {twin.parse_san("a5"): 10}
    polyglot.write_book(tmp_path / "twin.bin", book)
    convert_book(tmp_path / "twin.bin", tmp_path / f"twin{suffix}")
    convert_book(tmp_path / written, tmp_path / "back.bin")
    with chess.polyglot.open_reader(tmp_path / "back.bin") as reader:
        assert [entry.move.uci() for entry in reader.find_all(twin, minimum_weight=0)] == ["a7a5"]
    if suffix == ".ctg":  # the model's walk finds it too, and writes the same bytes
        with ctg.open_book(tmp_path / written) as converted:
            stats = ctg_books.to_bookstats(converted)
        assert fen_key(twin) in stats.positions
        polyglot_books.from_bookstats(tmp_path / "model.bin", stats)
        assert (tmp_path / "model.bin").read_bytes() == (tmp_path / "back.bin").read_bytes()


def test_deprecated_conversion_names_warn_and_agree(tmp_path: Path) -> None:
    """``ctg.to_polyglot``, ``ctg.from_polyglot`` and ``kvetka.convert`` (a summary string) keep working for a
    deprecation period: the same files as ``convert_book``."""
    source = find_corpus("polyglot", "lasker-trap.bin")
    with pytest.warns(DeprecationWarning, match="convert_book"):
        summary = ctg.from_polyglot(source, tmp_path / "old.ctg")
    new = convert_book(source, tmp_path / "new.ctg")
    assert summary == new.summary().replace("new.ctg", "old.ctg")
    assert (tmp_path / "old.ctg").read_bytes() == (tmp_path / "new.ctg").read_bytes()
    with pytest.warns(DeprecationWarning):
        ctg.to_polyglot(tmp_path / "old.ctg", tmp_path / "old.bin")
    with pytest.warns(DeprecationWarning):
        kvetka.convert(str(tmp_path / "old.ctg"), "ctg", str(tmp_path / "old.kob"), "kvetka")
    convert_book(tmp_path / "new.ctg", tmp_path / "new.bin")
    convert_book(tmp_path / "new.ctg", tmp_path / "new.kob")
    assert (tmp_path / "old.bin").read_bytes() == (tmp_path / "new.bin").read_bytes()
    assert (tmp_path / "old_0.kob").read_bytes() == (tmp_path / "new_0.kob").read_bytes()


def test_polyglot_to_kvetka_and_back(tmp_path: Path) -> None:
    # a Polyglot weight travels as the draws of the position the move leads to, and comes back as 2 * 0 + draws
    source = find_corpus("polyglot", "lasker-trap.bin")
    report = kvetka.convert_book(source, tmp_path / "lasker.kob")
    assert report.unit == "elements" and report.files[0] == str(tmp_path / "lasker_0.kob")
    convert_book(tmp_path / "lasker_0.kob", tmp_path / "back.bin")
    assert polyglot_tree(tmp_path / "back.bin") == polyglot_tree(source)


def test_kvetka_to_polyglot_weights(tmp_path: Path) -> None:
    book = write_small_book(tmp_path)
    report = convert_book(str(book) + "_0.kob", tmp_path / "small.bin")
    assert report.unit == "entries" and report.written == (tmp_path / "small.bin").stat().st_size // 16
    with chess.polyglot.open_reader(tmp_path / "small.bin") as reader:
        start = {e.move.uci(): e.weight for e in reader.find_all(chess.Board(), minimum_weight=0)}
        after_e4 = {e.move.uci(): e.weight for e in reader.find_all(board_after("e4"), minimum_weight=0)}
    # the four games: 1.e4 won twice and drawn once by white (2 * 2 + 1 = 5), 1.d4 lost (0); after 1.e4, black's
    # 1...e5 drew once and lost once (2 * 0 + 1 = 1), 1...c5 lost once (0): the weights the book's own find_all
    # gives (one rule)
    assert start == {"e2e4": 5, "d2d4": 0}
    assert after_e4 == {"e7e5": 1, "c7c5": 0}
    with kvetka.open_book(book) as source:
        assert {m.move.uci(): m.weight for m in source.find_all(chess.Board(), minimum_weight=0)} == start
        assert {m.move.uci(): m.weight for m in source.find_all(board_after("e4"), minimum_weight=0)} == after_e4
        assert source.find(chess.Board()).move.uci() == "e2e4"


def test_ctg_to_kvetka(tmp_path: Path) -> None:
    book_path, expected = find_corpus(*BOOK), expected_probes()
    report = convert_book(book_path, tmp_path / "pp.kob")
    assert report.unit == "elements" and report.counts["positions"] >= len(expected["found"])
    with kvetka.open_book(tmp_path / "pp") as book:
        # the 400 positions were found by following book moves from the start (notes/ctg.md): all converted,
        # each with the legal moves the independent reader found
        for found in expected["found"]:
            element = book.probe(chess.Board(found["fen"]))
            assert element is not None, found["fen"]
            assert {m.move.uci() for m in element.moves} == {m["uci"] for m in found["probe"]["moves"] if m["legal"]}


def test_unsupported_pairs() -> None:
    with pytest.raises(ValueError, match="cannot convert polyglot to polyglot"):
        convert_book("a.bin", "b.bin")
    with pytest.raises(ValueError, match="'monty' is not a book format"):
        convert_book("a.montyformat", "b.kob", source_format="monty")
    with pytest.raises(ValueError, match="cannot tell the book format"):
        convert_book("a.montyformat", "b.kob")
