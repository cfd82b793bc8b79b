"""``chessformats convert`` into a ChessBase base: PGN (compressed or not) and bases as sources, --append,
unreadable games reported with their number and line."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from chessbase_corpus import cbh_path
from chessformats.cli import main
from chessformats.formats.chessbase import open_database
from chessformats.formats.chessbase.pgn import tree_of
from conftest import find_corpus

_PGN = """[Event "One"]
[Site "?"]
[Date "2020.01.02"]
[Round "1"]
[White "A, B"]
[Black "C"]
[Result "1-0"]

1. e4 { good } e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "Broken"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "X"]
[Black "Y"]
[Result "*"]

1. e4 e5 2. Ke3 *

[Event "Three"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "X"]
[Black "Y"]
[Result "0-1"]

1. d4 (1. c4) 1... d5 0-1
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    _, err = capsys.readouterr()
    return code, err


def test_a_broken_game_is_reported_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        caplog: pytest.LogCaptureFixture) -> None:
    # in our words (its number and line), not again on python-chess's logger, which prints "illegal san: ...
    # while parsing <Game at 0x...>" to standard error when no logging is set up (formats/pgngames.py)
    (tmp_path / "games.pgn").write_text(_PGN, encoding="utf-8")
    code, err = _run(capsys, "convert", str(tmp_path / "games.pgn"), "-o", str(tmp_path / "base.cbh"))
    assert code == 0 and "game 2 (from line 11)" in err
    assert [record.getMessage() for record in caplog.records if record.name.startswith("chess")] == []


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
def test_pgn_to_base(tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    source = tmp_path / f"games.pgn{suffix}"
    opener = {"": open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix]
    with opener(source, "wt", encoding="utf-8") as handle:
        handle.write(_PGN)
    code, err = _run(capsys, "convert", str(source), "-o", str(tmp_path / "base.cbh"))
    assert code == 0
    assert "2 games written" in err
    assert "game 2 (from line 11)" in err  # the broken game: its number and the line its tags start on
    with open_database(tmp_path / "base.cbh") as db:
        assert len(db) == 2
        assert db[1].headers["White"] == "A, B" and db[2].headers["Event"] == "Three"
        assert tree_of(db[2].to_pgn()) == ["d2d4", "(", "c2c4", ")", "d7d5"]  # type: ignore[union-attr]
        assert db[1].to_pgn().variations[0].comment == "good"  # type: ignore[union-attr]


def test_append_and_base_to_base(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = cbh_path("libcbh_WithVariations")
    code, err = _run(capsys, "convert", str(source), str(tmp_path / "copy.cbh"))
    assert code == 0 and "28 records copied" in err
    (tmp_path / "more.pgn").write_text(_PGN, encoding="utf-8")
    code, err = _run(capsys, "convert", str(tmp_path / "more.pgn"), "-o", str(tmp_path / "copy.cbh"), "--append")
    assert code == 0 and "2 games added" in err
    with open_database(source) as original, open_database(tmp_path / "copy.cbh") as copy:
        assert len(copy) == 30
        for number in range(1, 29):
            ours, theirs = copy.record(number).to_pgn(), original.record(number).to_pgn()  # type: ignore[union-attr]
            assert tree_of(ours) == tree_of(theirs)
            assert str(ours) == str(theirs)  # the whole PGN: tags, moves, comments, NAGs
        for entities in (copy.players, copy.tournaments, copy.annotators, copy.sources, copy.teams):
            assert entities.check() == []


def test_append_needs_a_chessbase_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = find_corpus("polyglot", "performance.bin")
    code, err = _run(capsys, "convert", str(book), str(tmp_path / "x.bin"), "--append")
    assert code != 0 and "--append" in err


_CYRILLIC = ("Карпов, Анатолий", "Каспаров, Гарри")


def _cp1251_games(folder: Path) -> Path:
    games = folder / "ru.pgn"
    games.write_bytes((f'[Event "Ч"]\n[White "{_CYRILLIC[0]}"]\n[Black "{_CYRILLIC[1]}"]\n[Result "1-0"]\n\n'
                       '1. e4 e5 2. Nf3 1-0\n').encode("cp1251"))
    return games


def _names(base: Path) -> tuple[str, str]:
    with open_database(base) as db:
        headers = db.record(1).to_pgn().headers
        return headers["White"], headers["Black"]


def test_pgn_encoding_reads_the_pgn_in_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--pgn-encoding cp1251: the Cyrillic names in the base (written UTF-8: no Western code page holds them);
    without it, auto: the bytes that are not UTF-8 read as Windows-1252, as Python's codec reads them."""
    games = _cp1251_games(tmp_path)
    assert main(["convert", str(games), "-o", str(tmp_path / "ru.cbh"), "--pgn-encoding", "cp1251"]) == 0
    assert _names(tmp_path / "ru.cbh") == _CYRILLIC
    assert main(["convert", str(games), "-o", str(tmp_path / "auto.cbh")]) == 0
    assert _names(tmp_path / "auto.cbh") == tuple(name.encode("cp1251").decode("cp1252") for name in _CYRILLIC)
    assert main(["convert", str(games), "-o", str(tmp_path / "ru.cbv"), "--pgn-encoding", "cp1251"]) == 0
    assert _names(tmp_path / "ru.cbv") == _CYRILLIC
    capsys.readouterr()


@pytest.mark.parametrize(("argv", "message"), [
    (("ru.cbh", "-o", "x.pgn", "--pgn-encoding", "cp1251"), "ru.cbh: --pgn-encoding is the encoding of PGN text read: "
     "the source is a ChessBase base (--encoding: a ChessBase base's code page)"),
    (("ru.pgn", "-o", "x.cbh", "--pgn-encoding", "nope"), "argument --pgn-encoding: no such encoding: nope"),
])
def test_pgn_encoding_refused_where_it_reads_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    argv: tuple[str, ...], message: str) -> None:
    assert main(["convert", str(_cp1251_games(tmp_path)), "-o", str(tmp_path / "ru.cbh")]) == 0
    capsys.readouterr()
    try:
        code = main(["convert", *(str(tmp_path / a) if "." in a else a for a in argv)])
    except SystemExit as refused:  # (argparse's refusal of a value)
        code = int(str(refused.code))
    _, err = capsys.readouterr()
    assert code == 2 and message in err
    assert not (tmp_path / "x.pgn").exists() and not (tmp_path / "x.cbh").exists()
