"""The chessformats command, end to end (in-process)."""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path

import chess
import chess.polyglot
import pytest

from chessformats.cli import main
from conftest import find_corpus


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tour(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tour", "--out", str(tmp_path))
    assert code == 0
    book = tmp_path / "example.bin"
    assert (tmp_path / "docs" / "polyglot.md").exists()
    # the bundled games open with 1.e4 in six of seven games (five won, one drawn) and 1.f3 once (lost): the
    # tour's book is polyglot make-book's with -min-game 1, so 1.f3, with no point, is left out, and 1.e4
    # weighs 2 * 5 + 1; python-chess reads our book
    with chess.polyglot.open_reader(book) as reader:
        moves = {e.move.uci(): e.weight for e in reader.find_all(chess.Board(), minimum_weight=0)}
    assert moves == {"e2e4": 11}
    assert "entries[" in out and ".move.to_file" in out and "=> e2e4" in out


def test_probe_json_matches_python_chess(capsys: pytest.CaptureFixture[str]) -> None:
    book = find_corpus("polyglot", "gm2001.bin")
    code, out, _ = run(capsys, "probe", str(book), "--moves", "e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6", "--json")
    assert code == 0
    result = json.loads(out)
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"):
        board.push_san(san)
    with chess.polyglot.open_reader(book) as reader:
        expected = [(e.move.uci(), e.weight) for e in reader.find_all(board, minimum_weight=0)]
    assert [(m["uci"], m["weight"]) for m in result] == expected
    assert result[0]["uci"] == "e1g1"


def test_probe_text_and_not_in_book(capsys: pytest.CaptureFixture[str]) -> None:
    book = find_corpus("polyglot", "lasker-trap.bin")
    code, out, _ = run(capsys, "probe", str(book), "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1")
    assert code == 1 and "not in book" in out


def test_info_reports_findings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "info", str(find_corpus("polyglot", "performance.bin")), "--json")
    report = json.loads(out)
    assert code == 0 and report["format"] == "polyglot" and report["entries"] == 92954
    assert "88848 entries with a non-zero learn field" in report["findings"]


def test_info_on_a_truncated_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "gm2001.bin"
    damaged.write_bytes(find_corpus("polyglot", "gm2001.bin").read_bytes()[:486647])
    code, _, err = run(capsys, "info", str(damaged))
    assert code == 2
    assert "gm2001.bin: offset 486640: truncated entry 30415 (16 bytes needed, 7 available)" in err


def test_unknown_file_and_format_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a chess file at all!\n")
    code, _, err = run(capsys, "info", str(text))
    assert code == 2 and "not a file of any known format" in err
    code, _, err = run(capsys, "info", str(text), "--format", "polyglot")
    assert code == 2 and "truncated entry 2" in err
    code, _, err = run(capsys, "info", str(text), "--format", "nosuch")
    assert code == 2 and "unknown format" in err


def test_sniffing_by_content_not_only_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    renamed = tmp_path / "book.dat"
    shutil.copy(find_corpus("polyglot", "rodent3_guide.bin"), renamed)
    code, out, _ = run(capsys, "info", str(renamed))
    assert code == 0 and "Polyglot" in out


def test_inspect_record_offset_and_fen(capsys: pytest.CaptureFixture[str]) -> None:
    book = str(find_corpus("polyglot", "gm2001.bin"))
    code, out, _ = run(capsys, "inspect", book, "--record", "8376")
    assert code == 0 and "entries[8376].move.to_file" in out and "=> e2e4" in out
    code, out, _ = run(capsys, "inspect", book, "--offset", "0x20b88", "--length", "20")
    assert code == 0 and "entries[8376].key" in out and "entries[8377].key" in out and "entries[8378]" not in out
    code, out, _ = run(capsys, "inspect", book, "--fen", "startpos")
    assert code == 0 and out.count(".move.to_file") == len(
        list(chess.polyglot.open_reader(book).find_all(chess.Board(), minimum_weight=0)))
    code, _, err = run(capsys, "inspect", book, "--record", "999999")
    assert code == 2 and "no such entry" in err


def test_formats_lists_polyglot(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats")
    assert code == 0 and "polyglot" in out


def test_inspect_rejects_options_of_other_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "inspect", str(find_corpus("polyglot", "lasker-trap.bin")), "--page", "3")
    assert code == 2 and "does not take --page" in err


def test_build_and_merge_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n\n'
                   '[Result "0-1"]\n\n1. e4 Ke7 Ke2 0-1\n')
    code, _, err = run(capsys, "build", str(pgn), "-o", str(tmp_path / "a.bin"), "--min-games", "1", "--no-parallel")
    assert code == 0
    assert "3 games" in err and "skipped 1 games" in err and "game 3" in err and "'Ke7'" in err
    with chess.polyglot.open_reader(tmp_path / "a.bin") as reader:
        # 1.e4 won once (2 points); 1.d4 drawn once (1 point); 1...e5 lost once (0 points: left out)
        assert {e.move.uci(): e.weight for e in reader.find_all(chess.Board(), minimum_weight=0)} == {
            "e2e4": 2, "d2d4": 1}
    code, _, _ = run(capsys, "build", str(pgn), "-o", str(tmp_path / "b.bin"), "--min-games", "1", "--only-black")
    assert code == 0
    code, out, _ = run(capsys, "merge", str(tmp_path / "a.bin"), str(tmp_path / "b.bin"), "-o",
                       str(tmp_path / "c.bin"))
    assert code == 0 and "entries written" in out
    with chess.polyglot.open_reader(tmp_path / "c.bin") as reader:
        # b.bin holds black's moves only: 1...d5 (drawn, 1 point), also in a.bin; merged weights add up
        merged = {e.move.uci(): e.weight for e in reader}
    assert merged == {"e2e4": 2, "d2d4": 1, "g1f3": 2, "d7d5": 2}
    code, _, err = run(capsys, "build", str(pgn), "-o", str(tmp_path / "x.txt"))
    assert code == 2 and "build does not write files named like this: it writes .bin, .ctg, .kob" in err
    assert not (tmp_path / "x.txt").exists()


def test_build_gives_the_garbage_collector_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``build`` turns the cyclic garbage collector off for the build and on again after it, also when the build
    fails: ``main`` left it off once, and every reference cycle the test suite made afterwards stayed (10 GB)."""
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 1-0\n')
    assert gc.isenabled()
    assert run(capsys, "build", str(pgn), "-o", str(tmp_path / "a.bin"), "--min-games", "1", "--no-parallel")[0] == 0
    assert gc.isenabled()
    assert run(capsys, "build", str(pgn), "-o", str(tmp_path / "missing" / "a.bin"))[0] == 2
    assert gc.isenabled()
    gc.disable()  # a caller that keeps it off gets it back off
    try:
        assert run(capsys, "build", str(pgn), "-o", str(tmp_path / "b.bin"), "--min-games", "1")[0] == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_build_kvetka_with_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Event "one"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n[Event "two"]\n[Result "0-1"]\n\n1. d4 d5 0-1\n')
    code, _, _ = run(capsys, "build", str(pgn), "-o", str(tmp_path / "BOOK.kob"), "--min-games", "1", "--sources")
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["BOOK.kin", "BOOK.ksf", "BOOK_0.kob", "games.pgn"]
    code, out, _ = run(capsys, "probe", str(tmp_path / "BOOK_0.kob"), "--fen", "startpos", "--json")
    assert code == 0 and str(pgn) in out
    code, _, err = run(capsys, "build", str(pgn), "-o", str(tmp_path / "missing" / "BOOK.bin"))
    assert code == 2 and "no folder" in err


def test_build_from_a_chessbase_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = find_corpus("chessbase", "libcbh_NormalGames")
    code, _, err = run(capsys, "build", str(folder / "BielMTO.cbh"), "-o", str(tmp_path / "cbh.bin"), "--max-ply",
                       "10", "--min-games", "1")
    assert code == 0 and "548 games" in err
    code, _, _ = run(capsys, "build", str(folder / "BielMTO.pgn"), "-o", str(tmp_path / "pgn.bin"), "--max-ply", "10",
                     "--min-games", "1")
    assert code == 0
    assert (tmp_path / "cbh.bin").read_bytes() == (tmp_path / "pgn.bin").read_bytes()
