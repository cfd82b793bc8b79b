"""The code page of a base's texts, measured (issue 25, item 8): Cyrillic words are written wholly in high bytes,
Western words hold one accented letter among ASCII ones. Oracle: the code page each text was encoded with."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

from chessbase_corpus import cbh_path
from chessformats import chessbase
from chessformats.cli import main
from chessformats.formats.chessbase.codepage import base_code_page, guess_code_page

RUSSIAN = ["Не будем пока торопиться с выводами", "Спустя полвека здесь сыграли бы", "с идеей"]
WESTERN = ["Château-neuf: une idée très intéressante", "Schwarz hätte besser gespielt", "¡Qué jugada!"]


def test_cyrillic_western_utf8_ascii() -> None:
    assert guess_code_page([t.encode("cp1251") for t in RUSSIAN]) == "cp1251"
    assert guess_code_page([t.encode("cp1252") for t in WESTERN]) == "cp1252"
    assert guess_code_page([t.encode("utf-8") for t in RUSSIAN + WESTERN]) is None
    assert guess_code_page([b"1. e4 is best", b""]) is None


def test_convert_reads_a_russian_base_in_its_code_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "[Result \"*\"]\n\n1. e4 { " + RUSSIAN[0] + " } e5 { " + RUSSIAN[1] + " } *\n"
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    chessbase.write_database(tmp_path / "ru.cbh", [game], encoding="cp1251")
    assert RUSSIAN[0].encode("cp1251") in (tmp_path / "ru.cba").read_bytes()  # (the premise: cp1251 bytes)
    assert main(["convert", str(tmp_path / "ru.cbh"), "-o", str(tmp_path / "ru.pgn")]) == 0
    assert "texts read as cp1251" in capsys.readouterr().err
    written = (tmp_path / "ru.pgn").read_text(encoding="utf-8")
    assert RUSSIAN[0] in written and RUSSIAN[1] in written
    # --encoding overrides the measure
    assert main(["convert", str(tmp_path / "ru.cbh"), "-o", str(tmp_path / "w.pgn"), "--encoding", "cp1252"]) == 0
    assert "texts read as" not in capsys.readouterr().err
    assert RUSSIAN[0].encode("cp1251").decode("cp1252") in (tmp_path / "w.pgn").read_text(encoding="utf-8")


def _named_games(players: list[tuple[str, str]], event: str) -> list[chess.pgn.Game]:
    games = []
    for white, black in players:
        game = chess.pgn.read_game(io.StringIO(f'[Event "{event}"]\n[White "{white}"]\n[Black "{black}"]\n\n1. e4 *\n'))
        assert game is not None
        games.append(game)
    return games


RUSSIAN_PLAYERS = [("Иванов, Иван", "Петров, Пётр"), ("Смирнова, Ольга", "Кузнецов, Андрей")]
WESTERN_PLAYERS = [("Lékó, Péter", "Hübner, Robert"), ("Ødegård, Åse", "Mårdell, Jimmy"), ("Müller, Jörg", "Gómez")]


def test_a_base_without_comments_is_measured_by_its_names(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # issue: only comments were measured, so cp1251 player names came out as "Èâàíîâ, Èâàí"
    chessbase.write_database(tmp_path / "ru.cbh", _named_games(RUSSIAN_PLAYERS, "Москва"), encoding="cp1251")
    assert "Иванов".encode("cp1251") in (tmp_path / "ru.cbp").read_bytes()  # (the premise: cp1251 bytes)
    with chessbase.open_database(tmp_path / "ru.cbh") as db:
        assert not db.annotated().any()  # (no comments to measure)
        assert base_code_page(db) == "cp1251"
    assert main(["convert", str(tmp_path / "ru.cbh"), "-o", str(tmp_path / "ru.pgn")]) == 0
    assert "texts read as cp1251" in capsys.readouterr().err
    written = (tmp_path / "ru.pgn").read_text(encoding="utf-8")
    assert all(f'[White "{white}"]' in written and f'[Black "{black}"]' in written for white, black in RUSSIAN_PLAYERS)
    assert '[Event "Москва"]' in written
    # Western names in cp1252 (one accented letter among ASCII ones) are not taken for Cyrillic
    chessbase.write_database(tmp_path / "w.cbh", _named_games(WESTERN_PLAYERS, "Zürich"), encoding="cp1252")
    with chessbase.open_database(tmp_path / "w.cbh") as db:
        assert base_code_page(db) == "cp1252"


@pytest.mark.parametrize(("base", "name"), [("morphy_linares_old", "Lékó, Péter"), ("morphy_text", "Mårdell, Jimmy"),
                                             ("libcbh_NormalGames", None)])
def test_corpus_bases_measure_as_their_names_are_written(base: str, name: str | None) -> None:
    # the names of the corpus's Western bases read right in the code page measured (None: ASCII names only)
    with chessbase.open_database(cbh_path(base)) as db:
        measured = base_code_page(db)
        assert measured == ("cp1252" if name else None)
    if name is not None:
        with chessbase.open_database(cbh_path(base), encoding=measured) as db:
            assert name in [player.name for player in db.players]
