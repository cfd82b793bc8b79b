"""The code page of a base's texts, measured (issue 25, item 8): Cyrillic words are written wholly in high bytes,
Western words hold one accented letter among ASCII ones. Oracle: the code page each text was encoded with."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

from chessformats import chessbase
from chessformats.cli import main
from chessformats.formats.chessbase.codepage import guess_code_page

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
