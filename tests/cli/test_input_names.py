"""Every command reads a book by its name as ``probe`` and ``info`` do (a Kvetka book ``NAME`` or ``NAME.kob`` is
``NAME_0.kob``, a CTG book ``NAME`` is ``NAME.ctg``), and says an input that names no file in one line, the same
for every command.

The books are made here: a Polyglot book packed with ``struct`` from python-chess's keys, converted by the library
to Kvetka and CTG (python-chess's reader is the oracle of the moves the converted books hold).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import chess
import chess.polyglot
import pytest
from test_open_inputs import LINE, rows_of, run, write_book


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ``line.bin`` (Polyglot), the Kvetka book ``k`` (``k_0.kob``...) and the CTG book ``c``
    (``c.ctg``...), of the same line."""
    from chessformats.books.convert import convert_book

    folder = tmp_path_factory.mktemp("names")
    polyglot = write_book(folder / "line.bin", sorted(rows_of(LINE)))
    convert_book(polyglot, folder / "k.kob")
    convert_book(polyglot, folder / "c.ctg")
    assert (folder / "k_0.kob").is_file() and not (folder / "k.kob").exists() and (folder / "c.ctg").is_file()
    return folder


def _copy(books: Path, tmp_path: Path) -> Path:
    for item in books.iterdir():
        shutil.copy(item, tmp_path / item.name)
    return tmp_path


@pytest.mark.parametrize(("name", "options"), [("k", ["--record", "0"]), ("k.kob", []), ("c", []),
                                               ("c", ["--page", "0", "--record", "0"])])
def test_inspect_reads_a_book_by_its_name(books: Path, capsys: pytest.CaptureFixture[str], name: str,
                                          options: list[str]) -> None:
    code, out, err = run(capsys, "inspect", books / name, *options)
    assert code == 0 and err == "" and out, err


def test_inspect_html_of_a_book_by_its_name(books: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "inspect", books / "k", "--html", tmp_path / "k.html")
    assert code == 0 and "<html" in (tmp_path / "k.html").read_text(encoding="utf-8").lower(), err


@pytest.mark.parametrize(("name", "target"), [("k", "kk.bin"), ("c", "cc.bin"), ("k.kob", "kk2.ctg")])
def test_convert_reads_a_book_by_its_name(books: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          name: str, target: str) -> None:
    code, _, err = run(capsys, "convert", books / name, tmp_path / target)
    assert code == 0, err
    if target.endswith(".bin"):  # python-chess reads the Polyglot book written: the line's first moves
        with chess.polyglot.open_reader(tmp_path / target) as reader:
            assert [chess.Board().san(entry.move) for entry in reader.find_all(chess.Board())] == ["e4"]
    else:
        code, out, err = run(capsys, "probe", tmp_path / target, "--json")
        assert code == 0 and '"san": "e4"' in out, err


def test_convert_to_a_table_reads_a_book_by_its_name(books: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyarrow")
    code, _, err = run(capsys, "convert", books / "c", tmp_path / "x.parquet")
    assert code == 0 and (tmp_path / "x.parquet").stat().st_size > 0, err


@pytest.mark.parametrize("argv", [
    ("list", "{}/nosuch.cbv"),
    ("extract", "{}/nosuch.cbv", "-o", "{}/d"),
    ("convert", "{}/nosuch.pgn", "--from", "pgn", "-o", "{}/y.cbh"),
    ("convert", "{}/nosuch.cbh", "--from", "chessbase", "-o", "{}/y.pgn"),
    ("convert", "{}/nosuch.cbh", "-o", "{}/y.pgn"),
    ("inspect", "{}/nosuch.bin"),
    ("inspect", "{}/nosuch.bin", "--format", "polyglot"),
    ("info", "{}/nosuch.ctg", "--format", "ctg"),
    ("build", "{}/nosuch.pgn", "-o", "{}/y.bin"),
    ("merge", "{}/line.bin", "{}/nosuch.bin", "-o", "{}/y.bin"),
])
def test_a_missing_input_is_said_alike_by_every_command(books: Path, tmp_path: Path, argv: tuple[str, ...],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(books, tmp_path)
    code, out, err = run(capsys, *(part.format(folder) for part in argv))
    missing = next(part.format(folder) for part in argv if "nosuch" in part)
    assert (code, out, err) == (2, "", f"chessformats: error: {missing}: no such file\n")


def test_a_dangling_link_is_no_such_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "link.pgn").symlink_to(tmp_path / "gone.pgn")
    for argv in (("convert", tmp_path / "link.pgn", "-o", tmp_path / "y.cbh"),
                 ("build", tmp_path / "link.pgn", "-o", tmp_path / "y.bin")):
        code, _, err = run(capsys, *argv)
        assert (code, err) == (2, f"chessformats: error: {tmp_path / 'link.pgn'}: no such file\n")


def test_a_compressed_pgn_file_misnamed_is_told_its_name_once(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # (was: "rename it x.pgn.gz, not games: build reads PGN files (plain, .gz, ...)": a .gz refused as read)
    import gzip

    (tmp_path / "x.gz").write_bytes(gzip.compress(b'[Event "A"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'))
    code, _, err = run(capsys, "build", tmp_path / "x.gz", "-o", tmp_path / "b.bin")
    assert code == 2 and err.count("\n") == 1 and "rename it x.pgn.gz:" in err, err
    assert "not games" not in err and "plain" not in err and ".gz," not in err
    assert err.rstrip().endswith("build reads PGN files (.pgn, .pgn.gz/.pgn.bz2/.pgn.xz/.pgn.zst) and ChessBase bases")
    (tmp_path / "x.pgn.gz").write_bytes((tmp_path / "x.gz").read_bytes())  # renamed so: read
    code, _, err = run(capsys, "build", tmp_path / "x.pgn.gz", "-o", tmp_path / "b.bin", "--min-games", "1")
    assert code == 0, err
    with chess.polyglot.open_reader(tmp_path / "b.bin") as reader:  # python-chess reads the game's first move
        assert [entry.move for entry in reader.find_all(chess.Board())] == [chess.Move.from_uci("e2e4")]


def test_pgn_to_an_archive_names_the_archive_not_its_temporary_base(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import chess.pgn

    from chessformats.formats.chessbase import open_database

    game = chess.pgn.Game()
    game.add_line([chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5")])
    (tmp_path / "g.pgn").write_text(f"{game}\n\n{game}\n\n", encoding="utf-8")
    code, out, err = run(capsys, "convert", tmp_path / "g.pgn", "-o", tmp_path / "g.cbv")
    assert code == 0, err
    said = out + err
    assert f"2 games written to {tmp_path / 'g.cbv'} in " in said and "chessformats-cbv" not in said
    with open_database(tmp_path / "g.cbv") as base:  # (the archive holds the two games said)
        assert len(base) == 2
