"""``chessformats probe`` as a table (issue 25, item 11): moves sorted by share with percentages, results and
scores where the book stores them, the meaning of each annotation symbol; internals only with ``--verbose``.

Oracles: python-chess's Polyglot reader (weights), the corpus's ``expected-probes.json`` (an independent CTG
reader: results and annotations)."""

from __future__ import annotations

import re

import chess
import chess.polyglot
import pytest

from chessformats.cli import main
from conftest import find_corpus
from ctg_oracles import BOOK, expected_probes


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_polyglot_moves_by_share_with_percentages(capsys: pytest.CaptureFixture[str]) -> None:
    book = find_corpus("polyglot", "gm2001.bin")
    board = chess.Board()
    for san in ("e4", "c5"):
        board.push_san(san)
    with chess.polyglot.open_reader(book) as reader:
        entries = list(reader.find_all(board, minimum_weight=0))
    total = sum(e.weight for e in entries)
    expected = sorted(((board.san(e.move), e.weight) for e in entries), key=lambda pair: -pair[1])
    code, out = run(capsys, "probe", str(book), "--moves", "e4", "c5")
    rows = re.findall(r"^  (\S+)\s+(\d+\.\d)%\s+(\d+)$", out, flags=re.MULTILINE)
    assert code == 0 and [(san, int(weight)) for san, _, weight in rows] == expected
    assert all(abs(float(share) - 100 * w / total) <= 0.051 for (_, share, _), (_, w) in zip(rows, expected,
                                                                                             strict=True))
    assert "raw_move" not in out and "learn" not in out
    code, out = run(capsys, "probe", str(book), "--moves", "e4", "c5", "--verbose")
    assert code == 0 and "raw_move=" in out and "learn=" in out


def test_ctg_results_scores_and_symbols(capsys: pytest.CaptureFixture[str]) -> None:
    found = next(f for f in expected_probes()["found"]
                 if any(m["annotation"] == 5 for m in f["probe"]["moves"]) and f["probe"]["games"])
    board, probe = chess.Board(found["fen"]), found["probe"]
    code, out = run(capsys, "probe", str(find_corpus(*BOOK)), "--fen", found["fen"])
    side = "white" if board.turn else "black"
    assert code == 0
    assert f"{probe['games']:,} games; {side} (to move) won {probe['wins']:,}, drew {probe['draws']:,}, lost " \
           f"{probe['losses']:,}" in out
    interesting = next(m for m in probe["moves"] if m["annotation"] == 5)
    san = board.san(chess.Move.from_uci(interesting["uci"]))
    assert re.search(rf"^  {re.escape(san)}!\?\s+\d+\.\d%", out, flags=re.MULTILINE)
    assert "!? interesting" in out
    shares = [float(s) for s in re.findall(r"^  \S+\s+(\d+\.\d)%", out, flags=re.MULTILINE)]
    assert shares == sorted(shares, reverse=True) and len(shares) == len(probe["moves"])
    assert "rating1" not in out and "unknown1" not in out and len(max(out.splitlines(), key=len)) < 130
    code, out = run(capsys, "probe", str(find_corpus(*BOOK)), "--fen", found["fen"], "-v")
    assert "rating1=" in out and "unknown1=" in out
