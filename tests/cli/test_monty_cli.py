"""The command line on Monty files: info, inspect (every byte of a game labelled), sniffing, the docs page.

Expected counts come from the corpus bytes parsed with the declarations and from the oracle table.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chessformats.cli import main, registry
from chessformats.codegen.markdown import format_page
from chessformats.schemas import monty as schema

POLICY = ("monty", "reference_generated_policy.montyformat")
VALUE = ("monty", "reference_generated_value.montyvalue")
RESULT_TEXT = {0: "0-1", 1: "1/2-1/2", 2: "1-0"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def policy(corpus_path: Callable[..., Path]) -> Path:
    return corpus_path(*POLICY)


@pytest.fixture(scope="module")
def value(corpus_path: Callable[..., Path]) -> Path:
    return corpus_path(*VALUE)


@pytest.fixture(scope="module")
def stored(policy: Path) -> list[Any]:
    return list(schema.POLICY_FILE.parse(policy.read_bytes()))


def test_info(capsys: pytest.CaptureFixture[str], policy: Path, value: Path, stored: list[Any]) -> None:
    results = {"1-0": 0, "1/2-1/2": 0, "0-1": 0}
    for game in stored:
        results[RESULT_TEXT[int(game.header.result)]] += 1
    code, out, _ = run(capsys, "info", str(policy), "--json")
    report = json.loads(out)
    assert code == 0 and report["format"] == "monty (policy)"
    # 132 plies: the oracle table's rows; 26 of them store num_moves 0
    assert (report["games"], report["plies"], report["results"]) == (5, 132, results)
    assert report["plies_with_visits"] == sum(1 for game in stored for ply in game.plies if ply.num_moves) == 106
    assert "26 plies store no visit distribution" in report["findings"]
    code, out, _ = run(capsys, "info", str(value))
    assert code == 0 and "monty (value)" in out and "plies: 132" in out and "games: 5" in out


def test_sniffing_by_content(capsys: pytest.CaptureFixture[str], policy: Path, value: Path, tmp_path: Path) -> None:
    for source, kind in ((policy, "policy"), (value, "value")):
        renamed = tmp_path / f"{kind}.dat"
        shutil.copy(source, renamed)
        assert registry.detect(renamed).key == "monty"
        code, out, _ = run(capsys, "info", str(renamed), "--json")
        assert code == 0 and json.loads(out)["format"] == f"monty ({kind})"
    code, out, _ = run(capsys, "formats")
    assert code == 0 and re.search(r"^monty\s", out, flags=re.MULTILINE)


def test_inspect_labels_every_byte_of_a_ply(capsys: pytest.CaptureFixture[str], policy: Path,
                                            stored: list[Any]) -> None:
    code, out, _ = run(capsys, "inspect", str(policy), "--game", "4", "--ply", "21")
    assert code == 0
    count = stored[3].plies[21].num_moves
    visit_lines = [line for line in out.splitlines() if re.search(r"games\[3\]\.plies\[21\]\.visits\[\d+\] ", line)]
    assert count == 39 and len(visit_lines) == count
    assert all(re.search(r"=> \S+ \([a-h][1-8][a-h][1-8][nbrq]?\): \d+\.\d%", line) for line in visit_lines)
    # the Chess960 castling move: king g8 (62) to g8, flag 2, shown as python-chess's g8h8
    assert "games[3].plies[21].move  the move played  => g8h8 (O-O)" in out
    assert re.search(r"move\.source\s+= 62 => g8", out) and re.search(r"move\.destination\s+= 62 => g8", out)
    assert "king_castle (2)" in out
    # the most visited move has byte 255
    assert any("= 255 =>" in line for line in visit_lines)


def test_inspect_a_whole_game(capsys: pytest.CaptureFixture[str], policy: Path, stored: list[Any]) -> None:
    code, out, _ = run(capsys, "inspect", str(policy), "--game", "5")
    assert code == 0
    for name in ("black", "rooks_queens_kings", "knights_bishops_kings", "pawns_bishops_queens"):
        assert re.search(rf"games\[4\]\.header\.board\.{name}\s+= .* => ", out), name
    # game 4 starts 8/P7/8/8/8/8/7p/K6k w - - 0 60 (the oracle's first row of game 4)
    assert "start position 8/P7/8/8/8/8/7p/K6k w - - 0 60" in out
    assert len(re.findall(r"games\[4\]\.plies\[\d+\]\.move  ", out)) == len(stored[4].plies) == 12
    assert "games[4].terminator.null_move" in out and "=> 1/2-1/2" in out
    code, out, _ = run(capsys, "inspect", str(policy))  # game 1 (games[0]) by default
    assert code == 0 and "games[0].header" in out and "games[1]" not in out


def test_inspect_value_file(capsys: pytest.CaptureFixture[str], value: Path) -> None:
    code, out, _ = run(capsys, "inspect", str(value), "--game", "1", "--ply", "1")
    # ply 1 of game 0: b8c6, stored 628 from white's side: black's score 0.1722
    assert code == 0 and "=> b8c6 (Nc6)" in out and "= 628 => 0.1722 for black" in out


def test_inspect_errors(capsys: pytest.CaptureFixture[str], policy: Path) -> None:
    code, _, err = run(capsys, "inspect", str(policy), "--game", "6")  # games count from 1: 6 is past the last
    assert code == 2 and "no such game: 6 (the file has 5)" in err
    code, _, err = run(capsys, "inspect", str(policy), "--game", "0")
    assert code == 2 and "no such game: 0 (games count from 1)" in err
    code, _, err = run(capsys, "inspect", str(policy), "--game", "5", "--ply", "12")
    assert code == 2 and "no such ply: 12 (game 5 has 12)" in err
    code, _, err = run(capsys, "inspect", str(policy), "--record", "3")
    assert code == 2 and "does not take --record" in err


def test_a_damaged_file(capsys: pytest.CaptureFixture[str], policy: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.montyformat"
    data = bytearray(policy.read_bytes())
    data[47] = 21  # game 0, ply 0: 21 legal moves stored, the start position has 20
    damaged.write_bytes(bytes(data))
    code, _, err = run(capsys, "info", str(damaged))
    # info reads every game with all checks: the first fault in the file is the one reported
    assert code == 2 and "damaged.montyformat: offset 47: games[0].plies[0].num_moves: game 0, ply 0" in err
    # inspect still shows the bytes, with the fault where it is
    code, out, _ = run(capsys, "inspect", str(damaged), "--game", "1", "--ply", "0")
    assert code == 0 and "games[0].plies[0].num_moves" in out and "ERROR: game 0, ply 0" in out
    # a record that does not read (game 0, ply 1 at 43 + 25 = 68, its flag set to 7): shown from its start
    data = bytearray(policy.read_bytes())
    data[68] = data[68] & 0xF0 | 7
    damaged.write_bytes(bytes(data))
    code, out, _ = run(capsys, "inspect", str(damaged), "--game", "1")
    assert code == 0 and "games[0].plies[0].visits[19]" in out
    assert re.search(r"00000044  .. e6 13 2c 14 .*games\[0\]\.plies\[1\] = .* => ERROR: .*offset 68: "
                     r"games\[0\]\.plies\[1\]\.move\.flag: move flag not defined", out)
    code, out, _ = run(capsys, "inspect", str(damaged), "--game", "1", "--ply", "1")
    assert code == 0 and "ERROR" in out
    truncated = tmp_path / "truncated.montyformat"
    truncated.write_bytes(policy.read_bytes()[:60])
    code, _, err = run(capsys, "info", str(truncated))
    assert code == 2 and "truncated.montyformat: offset 48: truncated games[0].plies[0].visits" in err


def test_docs_page() -> None:
    page = format_page(registry.get("monty").doc)
    # the spec's bit layout: flag bits 0-3, destination 4-9, source 10-15 of a little-endian u16
    assert "#### Bit layout of `move` (16 bits, bit 0 = least significant; bytes little-endian)" in page
    for row in ("| 10-15 | 6 | `move.source` |", "| 4-9 | 6 | `move.destination` |", "| 0-3 | 4 | `move.flag` |"):
        assert row in page
    # header offsets (notes, point 3): board 0/32, side 32, ep 33, rights 34, halfmove 35, fullmove 36/2, files 38-41
    for row in ("| 0 | 32 | struct | `board` |", "| 36 | 2 | u16 LE | `fullmove_number` |",
                "| 38 | 1 | u8 | `white_queenside_rook` |", "| 42 | 1 | u8 | `result` |"):
        assert row in page
    assert "round(visits * 255 / max_visits)" in page and "trunc(visits * 256 / max_visits)" in page
    assert "e1 39" in page and "e2 fb" in page  # worked examples: g2g4, and the Chess960 castling g8g8
