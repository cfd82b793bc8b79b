"""``chessformats convert SOURCE -o TABLE.parquet``: one small case per kind of source (a base, an archive, PGN, each
book format, Monty data), the output refused without --force, unreadable games reported, other files refused."""

from __future__ import annotations

import warnings
from pathlib import Path

import chess.pgn
import pytest

pq = pytest.importorskip("pyarrow.parquet")

from chessbase_corpus import cbh_path  # noqa: E402
from chessformats.cli import main  # noqa: E402
from conftest import find_corpus  # noqa: E402
from kvetka_examples import GAMES, write_small_book  # noqa: E402


def _convert(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["convert", *argv])
    _, err = capsys.readouterr()
    return code, err


def test_base_to_parquet_and_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "games.parquet"
    code, err = _convert(capsys, str(cbh_path("libcbh_WithVariations")), "-o", str(target))
    assert code == 0, err
    assert "28 games written" in err
    assert pq.read_table(target).num_rows == 28
    before = target.read_bytes()
    code, err = _convert(capsys, str(cbh_path("libcbh_UnusualStart")), "-o", str(target))
    assert code == 2 and "--force" in err
    assert target.read_bytes() == before
    code, err = _convert(capsys, str(cbh_path("libcbh_UnusualStart")), "-o", str(target), "--force")
    assert code == 0, err
    assert pq.read_table(target).num_rows == 9


def test_archive_to_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "games.parquet"
    code, err = _convert(capsys, str(find_corpus("chessbase", "uncbv_archives", "twic1134.cbv")), str(target))
    assert code == 0, err
    table = pq.read_table(target, columns=["number", "white", "uci"])
    assert table.num_rows == 6117
    assert table.column("uci")[0].as_py().startswith("e2e4 e7e5 g1f3")


def test_pgn_to_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "games.pgn"
    source.write_text(GAMES + '\n[White "Illegal"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n')
    code, err = _convert(capsys, str(source), "-o", str(tmp_path / "games.parquet"))
    assert code == 0, err
    assert "4 games written" in err and "game 5" in err  # the illegal game is said, and left out
    rows = pq.read_table(tmp_path / "games.parquet").to_pylist()
    games = []
    with source.open() as handle:
        while (game := chess.pgn.read_game(handle)) is not None and not game.errors:
            games.append(game)
    assert [row["uci"] for row in rows] == [" ".join(move.uci() for move in game.mainline_moves()) for game in games]
    assert [row["result"] for row in rows] == [game.headers["Result"] for game in games]


def test_pgn_to_parquet_in_its_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--pgn-encoding: the names as the PGN file's code page has them (auto: its bytes read as Windows-1252);
    --encoding, a base's code page, is refused for a PGN file's table (it goes through a base of its own)."""
    names = ("Карпов, Анатолий", "Таль")
    source = tmp_path / "ru.pgn"
    source.write_bytes(f'[White "{names[0]}"]\n[Black "{names[1]}"]\n[Result "1-0"]\n\n1. e4 1-0\n'.encode("cp1251"))
    for given, expected in ((("--pgn-encoding", "cp1251"), names),
                            ((), tuple(name.encode("cp1251").decode("cp1252") for name in names))):
        code, err = _convert(capsys, str(source), "-o", str(tmp_path / "ru.parquet"), "--force", *given)
        assert code == 0, err
        rows = pq.read_table(tmp_path / "ru.parquet").to_pylist()
        assert [(row["white"], row["black"]) for row in rows] == [expected]
    code, err = _convert(capsys, str(source), "-o", str(tmp_path / "x.parquet"), "--encoding", "cp1251")
    assert code == 2 and "--encoding is a ChessBase base's code page: for the PGN file's, --pgn-encoding" in err


@pytest.mark.parametrize("kind", ["polyglot", "ctg", "kvetka", "monty"])
def test_books_and_monty_to_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    source = {"polyglot": lambda: find_corpus("polyglot", "lasker-trap.bin"),
              "ctg": lambda: find_corpus("ctg", "simple.ctg"),
              "kvetka": lambda: write_small_book(tmp_path).with_name("small_0.kob"),
              "monty": lambda: find_corpus("monty", "reference_generated_value.montyvalue")}[kind]()
    target = tmp_path / "table.parquet"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # simple.ctg has no index
        code, err = _convert(capsys, str(source), "-o", str(target))
    assert code == 0, err
    table = pq.read_table(target)
    expected = {"polyglot": 7, "ctg": 5, "monty": 132}.get(kind)
    if expected is not None:
        assert table.num_rows == expected
    assert table.schema.names[:3] == (["game", "ply", "fen"] if kind == "monty" else ["key", "fen", "move"])
    assert table.num_rows > 0


def test_unreadable_games_are_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _convert(capsys, str(cbh_path("libcbh_Chess960Corrupt")), "-o", str(tmp_path / "t.parquet"))
    assert code == 0
    assert "4 warnings" in err and "game 1: moves not read" in err


def test_not_a_source_of_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("hello\n")
    code, err = _convert(capsys, str(source), "-o", str(tmp_path / "t.parquet"))
    assert code == 2 and "notes.txt: text: convert reads PGN files, ChessBase bases" in err and "Monty data" in err
    assert not (tmp_path / "t.parquet").exists()
