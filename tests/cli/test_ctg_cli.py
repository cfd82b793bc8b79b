"""The chessformats command with CTG books: probe, inspect (--fen, --page, .cto), info, convert, build.

Oracles: the corpus's ``expected-probes.json`` figures (an independent reader), the games themselves counted by
``tests/reference_counter.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import chess
import pytest

from chessformats import ctg
from chessformats.books.stats import BookStats, read_pgn_games
from chessformats.cli import main
from conftest import find_corpus
from ctg_oracles import BOOK, EXAMPLE_GAMES
from reference_counter import count_games


@pytest.fixture(scope="module")
def book_path() -> Path:
    return find_corpus(*BOOK)


def _example_stats(max_ply: int = 12) -> BookStats:
    return count_games(read_pgn_games(str(EXAMPLE_GAMES)), max_ply=max_ply)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_probe(capsys: pytest.CaptureFixture[str], book_path: Path) -> None:
    code, out, _ = run(capsys, "probe", str(book_path), "--json")
    assert code == 0
    result = json.loads(out)
    assert result["position"]["games"] == 499 and result["position"]["wins"] == 176
    assert [(m["uci"], m["san"], m["weight"], m["games"]) for m in result["moves"]] == [("e2e4", "e4", 467, 489)]
    code, out, _ = run(capsys, "probe", str(book_path), "--moves", "e4", "c5", "Nc3")
    assert code == 0 and "g6" in out and "Nc6" in out and "440 games; black (to move) won 167" in out
    code, out, _ = run(capsys, "probe", str(book_path), "--moves", "d4")
    assert code == 1 and "not in book" in out


def test_cli_inspect_record_by_fen(capsys: pytest.CaptureFixture[str], book_path: Path) -> None:
    code, out, _ = run(capsys, "inspect", str(book_path), "--fen", "startpos")
    assert code == 0
    prefix = "pages[237].records[54]"
    for square in ("a1", "e1", "h8"):
        assert f"{prefix}.position.board.squares.{square} " in out
    assert "a white rook (code 10110)" in out and "a black king (code 100001)" in out
    assert f"{prefix}.position.header.length" in out and f"{prefix}.stats.games" in out
    assert "=> e2e4 (e4)" in out and "= 499" in out
    code, out, _ = run(capsys, "inspect", str(book_path), "--moves", "e4", "--fen", "startpos")
    assert code == 0 and "colours flipped" in out and "=> c7c5 (c5)" in out


def test_cli_inspect_page_header_and_index(capsys: pytest.CaptureFixture[str], book_path: Path) -> None:
    code, out, _ = run(capsys, "inspect", str(book_path), "--page", "237", "--record", "54")
    assert code == 0 and "pages[237].records[54].position.board.squares.a1" in out
    code, out, _ = run(capsys, "inspect", str(book_path), "--page", "0")
    assert code == 0 and "pages[0].header.positions" in out and "pages[0].junk" in out
    assert out.count(".position.board.squares.h8 ") == 66  # page 0 of the corpus book holds 66 records
    code, out, _ = run(capsys, "inspect", str(book_path))
    assert code == 0 and "header.games" in out and "= 499" in out
    code, out, _ = run(capsys, "inspect", str(book_path)[:-4] + ".cto", "--record", "255", "--count", "2")
    assert code == 0 and "pages[255]" in out and "pages[256]" in out
    code, _, err = run(capsys, "inspect", str(book_path), "--page", "999")
    assert code == 2 and "page number out of range" in err


def test_cli_info_and_convert(capsys: pytest.CaptureFixture[str], tmp_path: Path, book_path: Path) -> None:
    code, out, _ = run(capsys, "info", str(book_path), "--json")
    report = json.loads(out)
    assert code == 0 and report["format"] == "ctg" and report["records"] == 13305 and report["games"] == 499
    code, out, _ = run(capsys, "convert", str(book_path), str(tmp_path / "out.bin"))
    assert code == 0 and (tmp_path / "out.bin").exists()
    code, out, _ = run(capsys, "convert", str(tmp_path / "out.bin"), str(tmp_path / "again.ctg"))
    assert code == 0 and (tmp_path / "again.cto").exists() and (tmp_path / "again.ctb").exists()
    code, out, _ = run(capsys, "probe", str(tmp_path / "again.ctg"), "--json")
    assert code == 0 and [m["uci"] for m in json.loads(out)["moves"]] == ["e2e4"]
    code, _, err = run(capsys, "convert", str(tmp_path / "out.bin"), str(tmp_path / "x.bin"))
    assert code == 2 and "cannot convert polyglot to polyglot" in err


def test_cli_formats_lists_ctg(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats")
    assert code == 0 and "ctg" in out


def test_cli_build_a_ctg_book(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "games.ctg"
    code, _, err = run(capsys, "build", str(EXAMPLE_GAMES), "-o", str(out), "--max-ply", "12", "--min-games", "1",
                       "--jobs", "1")
    assert code == 0 and "written" in err and (tmp_path / "games.cto").exists()
    stats = _example_stats(12)
    with ctg.open_book(out) as book:
        start = book.probe(chess.Board())
        assert start is not None and {m.move for m in start.moves} == set(stats.positions[
            chess.Board().fen().rsplit(" ", 2)[0]].moves)
        # 1.e4 e5 is reached 7 times: five games play 1...e5, and the drawn game (2.Nf3 Nc6 3.Ng1 Nb8 4.Nf3 Nc6
        # 5.Ng1 Nb8) comes back to it twice
        after = chess.Board()
        for san in ("e4", "e5"):
            after.push_san(san)
        record = book.probe(after)
        assert record is not None and record.games == 7 and record.draws == 3


@pytest.fixture(scope="module")
def small_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CTG book of the example games' first 6 plies, built by the command."""
    out = tmp_path_factory.mktemp("ctg") / "small.ctg"
    assert main(["build", str(EXAMPLE_GAMES), "-o", str(out), "--max-ply", "6", "--min-games", "1", "--jobs",
                 "1"]) == 0
    return out


@pytest.mark.parametrize(("option", "message"), [
    ("--record", "--record of a .ctg numbers a page's records: give --page P too"),
    ("--count", "--count of a .ctg counts a page's records: give --page P too"),
])
def test_record_of_a_ctg_without_a_page_is_refused(capsys: pytest.CaptureFixture[str], small_book: Path,
                                                   option: str, message: str) -> None:
    """Not the header page shown as if the option had been read."""
    code, out, err = run(capsys, "inspect", str(small_book), option, "1")
    assert code == 2 and out == "" and err == f"chessformats: error: {small_book.name}: {message}\n"
    code, out, _ = run(capsys, "inspect", str(small_book), "--page", "0", "--record", "1")
    assert code == 0 and "pages[0].records[1]" in out and "pages[0].records[0]" not in out


def test_count_past_the_end_is_clamped_with_a_warning(capsys: pytest.CaptureFixture[str], small_book: Path) -> None:
    """As ChessBase's games and Polyglot's entries: what there is, and a warning saying how many."""
    with ctg.open_book(small_book) as book:
        records = len(book.page_records(0))
    code, out, err = run(capsys, "inspect", str(small_book), "--page", "0", "--record", "1", "--count", "999")
    assert code == 0 and f"pages[0].records[{records - 1}]" in out and f"records[{records}]" not in out
    assert f"warning: --count 999 from record 1: the last is {records - 1} ({records - 1} shown)" in err
    cto = small_book.with_suffix(".cto")
    entries = (cto.stat().st_size - 16) // 4  # (a .cto: a 16-byte header, then 4 bytes a page)
    code, out, err = run(capsys, "inspect", str(cto), "--record", "0", "--count", str(entries + 1))
    assert code == 0 and f"pages[{entries - 1}]" in out and f"pages[{entries}]" not in out
    assert f"warning: --count {entries + 1} from entry 0: the last is {entries - 1} ({entries} shown)" in err
