"""The chessformats command with Kvetka books: build, info, probe, inspect (--block, --fen), convert, formats."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import pytest

from chessformats import kvetka
from chessformats.cli import main, registry

PGN = """
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 1/2-1/2

[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1

[Result "1-0"]

1. d4 d5 2. c4 e6 1-0
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    games = tmp_path / "games.pgn"
    games.write_text(PGN, encoding="utf-8")
    code, _, err = run(capsys, "build", str(games), "-o", str(tmp_path / "book.kob"), "--max-ply", "4",
                       "--min-games", "1", "--no-parallel")
    assert code == 0, err
    return tmp_path / "book"


def test_build_names_the_files_as_the_spec(built: Path) -> None:
    folder = built.parent
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("book")) == ["book.kin", "book_0.kob"]
    with kvetka.open_book(built) as book:
        assert book.header.max_move == 4
        start = book.probe(chess.Board())
        assert start is not None
        assert {move.move for move in start.moves} == {chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")}
        assert (start.wins, start.draws, start.losses) == (2, 1, 1)


def test_build_min_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games.pgn"
    games.write_text(PGN, encoding="utf-8")
    assert run(capsys, "build", str(games), "-o", str(tmp_path / "b.kob"), "--min-games", "2", "--no-parallel")[0] == 0
    with kvetka.open_book(tmp_path / "b") as book:
        start = book.probe(chess.Board())
        assert start is not None  # d4: one game only
        assert tuple(move.move for move in start.moves) == (chess.Move.from_uci("e2e4"),)


def test_info_probe_inspect(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kob = str(built) + "_0.kob"
    code, out, _ = run(capsys, "info", kob, "--json")
    report = json.loads(out)
    assert code == 0 and report["format"] == "kvetka" and report["blocks"] == 1 and report["findings"] == []
    code, out, _ = run(capsys, "probe", str(built) + ".kin", "--moves", "e4", "--json")
    result = json.loads(out)
    assert code == 0 and (result["position"]["wins"], result["position"]["losses"]) == (1, 1)  # black: 1 of 3 each
    assert {m["uci"] for m in result["moves"]} == {"e7e5", "c7c5"}
    code, out, _ = run(capsys, "inspect", kob)
    assert code == 0 and "header.block_number" in out
    code, out, _ = run(capsys, "inspect", kob, "--block", "0")
    assert code == 0 and "blocks[0].used" in out and "blocks[0].elements[0].body.key.squares.a1" in out
    code, out, _ = run(capsys, "inspect", kob, "--fen", "startpos", "--moves", "e4")
    assert code == 0 and "colours flipped" in out and "e2e4 (e4)" in out  # e7e5 on the normalised board
    code, out, _ = run(capsys, "inspect", str(built) + ".kin", "--record", "0")
    assert code == 0 and "[0].squares.a1" in out
    code, _, err = run(capsys, "inspect", kob, "--page", "1")
    assert code == 2 and "--block" in err


def test_convert_both_ways(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = built.parent
    assert run(capsys, "convert", str(built) + "_0.kob", str(folder / "book.bin"))[0] == 0
    assert run(capsys, "convert", str(folder / "book.bin"), str(folder / "back.kob"))[0] == 0
    assert run(capsys, "convert", str(built) + "_0.kob", str(folder / "book.ctg"))[0] == 0
    assert run(capsys, "convert", str(folder / "book.ctg"), str(folder / "fromctg.kob"))[0] == 0
    with kvetka.open_book(built) as original, kvetka.open_book(folder / "back") as back, \
            kvetka.open_book(folder / "fromctg") as from_ctg:
        for sans in ([], ["e4"], ["e4", "e5"], ["d4"]):
            board = chess.Board()
            for san in sans:
                board.push_san(san)
            first, second, third = original.probe(board), back.probe(board), from_ctg.probe(board)
            assert first is not None and second is not None and third is not None
            assert set(first.moves) == set(second.moves) == set(third.moves)
            assert (first.wins, first.draws, first.losses) == (third.wins, third.draws, third.losses)


def test_formats_lists_kvetka(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats")
    assert code == 0 and "kvetka" in out and ".kob" in out
    assert registry.for_output("x.kob").key == "kvetka"


def test_count_past_the_end_is_clamped_with_a_warning(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As ChessBase's games and Polyglot's entries: what there is, and a warning saying how many."""
    kin = Path(str(built) + ".kin")
    keys = kin.stat().st_size // 22  # (a .kin is 22-byte keys: docs/formats/kvetka.md)
    code, out, err = run(capsys, "inspect", str(kin), "--record", "0", "--count", str(keys + 5))
    assert code == 0 and f"[{keys - 1}].squares.a1" in out and f"[{keys}]" not in out
    assert f"warning: --count {keys + 5} from key 0: the last is {keys - 1} ({keys} shown)" in err
    with kvetka.open_book(str(built) + "_0.kob") as book:
        elements = len(book.block_elements(0))
    code, out, err = run(capsys, "inspect", str(built) + "_0.kob", "--block", "0", "--record", "2", "--count", "99")
    assert code == 0 and f"blocks[0].elements[{elements - 1}]" in out and f"elements[{elements}]" not in out
    assert f"warning: --count 99 from element 2: the last is {elements - 1} ({elements - 2} shown)" in err


def test_pgn_encoding_reads_the_names_sources_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """build --sources --pgn-encoding cp1251: the .ksf's players as the PGN file names them; refused where no
    book stores them (a .bin book; a .kob book without --sources)."""
    games = tmp_path / "ru.pgn"
    text = '[Event "?"]\n[White "Карпов, Анатолий"]\n[Black "Таль"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n'
    games.write_bytes(text.encode("cp1251"))
    code, _, err = run(capsys, "build", str(games), "-o", str(tmp_path / "ru.kob"), "--sources", "--pgn-encoding",
                       "cp1251", "--min-games", "1", "--no-parallel")
    assert code == 0, err
    with kvetka.open_book(str(tmp_path / "ru.kob")) as book:
        assert book.sources is not None
        source, _ = book.sources.source(0)
        assert [(game.white, game.black) for game in source.games] == [("Карпов, Анатолий", "Таль")]
    for refused in (("-o", str(tmp_path / "x.bin")), ("-o", str(tmp_path / "x.kob"))):
        code, _, err = run(capsys, "build", str(games), *refused, "--pgn-encoding", "cp1251")
        assert code == 2 and "--pgn-encoding reads the players' names a Kvetka book's --sources records" in err
