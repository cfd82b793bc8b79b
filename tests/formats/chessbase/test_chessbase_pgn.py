"""ChessBase -> PGN: annotations against the corpus's own PGN exports, and the convert command."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import pytest

from chessbase_corpus import cbh_path
from chessformats import chessbase
from chessformats.cli import main
from chessformats.formats.chessbase.annotations import decode_text
from chessformats.formats.chessbase.pgn import tree_of


def _with_source(name: str, pgn_name: str) -> Iterator[tuple[chessbase.GameHeader, chess.pgn.Game]]:
    """Each game of a corpus base with the same game of its source PGN."""
    cbh = cbh_path(name)
    source = io.StringIO(cbh.with_name(pgn_name).read_text(encoding="utf-8", errors="replace"))
    with chessbase.open_database(cbh) as db:
        for number in range(1, db.record_count + 1):
            expected = chess.pgn.read_game(source)
            assert expected is not None
            game = db.record(number)
            assert isinstance(game, chessbase.GameHeader)
            yield game, expected


def _nodes(game: chess.pgn.GameNode) -> list[chess.pgn.GameNode]:
    out: list[chess.pgn.GameNode] = []
    stack = [game]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.variations))
    return out


def test_symbols_and_texts_equal_the_chessbase_export() -> None:
    # TestBaseExport.pgn is ChessBase's own export of the four annotated games
    for game, expected in _with_source("libcbh_Annotation", "TestBaseExport.pgn"):
        ours = game.to_pgn()
        assert tree_of(ours) == tree_of(expected)
        for mine, theirs in zip(_nodes(ours), _nodes(expected), strict=True):
            assert mine.nags == theirs.nags
            assert " ".join(mine.comment.split()) == " ".join(theirs.comment.split())


def test_final_clocks_equal_the_source_pgn() -> None:
    # BielMTO: the two clock items at position -1 hold each side's clock after its last move, as in the source
    checked = 0
    for game, expected in _with_source("libcbh_NormalGames", "BielMTO.pgn"):
        ours = game.to_pgn()
        mine = [(n.turn(), n.clock()) for n in ours.mainline() if n.clock() is not None]
        theirs = {}
        for node in expected.mainline():
            if node.clock() is not None:
                theirs[node.turn()] = node.clock()  # the last clock of each side
        for turn, clock in mine:
            assert theirs.get(turn) == clock, game.number
            checked += 1
    assert checked > 1000


def test_squares_and_arrows() -> None:
    # morphy_test_annotations game 6: squares 02 04 / 04 0d and arrows 02 22 24 / 04 39 40 (numbered from 1,
    # file-major): a4 green, b5 red; e2-e4 green, h1-h8 red
    with chessbase.open_database(cbh_path("morphy_test_annotations")) as db:
        game = db[6]
        assert isinstance(game, chessbase.GameHeader)
        node = game.to_pgn().next()
        assert node is not None
        arrows = {(a.tail, a.head, a.color) for a in node.arrows()}
        assert arrows == {(chess.A4, chess.A4, "green"), (chess.B5, chess.B5, "red"),
                          (chess.E2, chess.E4, "green"), (chess.H1, chess.H8, "red")}


def test_variation_texts_and_no_annotations() -> None:
    with chessbase.open_database(cbh_path("morphy_test_annotations")) as db:
        game = db[5]
        assert isinstance(game, chessbase.GameHeader)
        text = str(game.to_pgn())
        assert "( 1... c5 $3 { Sicilian } )" in text
        plain = game.to_pgn(annotations=False)
        assert "Sicilian" not in str(plain) and tree_of(plain) == ["e2e4", "e7e5", "(", "c7c5", ")"]


def test_chess960_export_replays() -> None:
    with chessbase.open_database(cbh_path("libcbh_Chess960Biel")) as db:
        game = db[4]
        assert isinstance(game, chessbase.GameHeader)
        pgn = game.to_pgn()
        assert pgn.headers["Variant"] == "Chess960" and pgn.headers["SetUp"] == "1"
        assert pgn.headers["FEN"].startswith("rbbnnkrq/")  # the tsv's start position
        again = chess.pgn.read_game(io.StringIO(str(pgn)))
        assert again is not None and not again.errors and tree_of(again) == tree_of(pgn)


def test_diagram_marker() -> None:
    assert decode_text(b"\x9e Schach") == "[#] Schach"
    assert decode_text("Lékó".encode()) == "Lékó"


def test_convert_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "biel.pgn"
    assert main(["convert", str(cbh_path("libcbh_WithVariations")), "-o", str(out)]) == 0
    source = io.StringIO(cbh_path("libcbh_WithVariations").with_name("GamesWithVariations.pgn")
                         .read_text(encoding="utf-8", errors="replace"))
    written = io.StringIO(out.read_text(encoding="utf-8"))
    count = 0
    while (expected := chess.pgn.read_game(source)) is not None:
        ours = chess.pgn.read_game(written)
        assert ours is not None and not ours.errors
        assert tree_of(ours) == tree_of(expected)
        count += 1
    assert count == 28 and chess.pgn.read_game(written) is None
    assert "28 games written" in capsys.readouterr().err


def test_convert_reports_corrupt_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "corrupt.pgn"
    # nothing written: exit status 1 (issue 25: a command that produced nothing says so and fails)
    assert main(["convert", str(cbh_path("libcbh_Chess960Corrupt")), "-o", str(out), "--no-annotations"]) == 1
    err = capsys.readouterr().err
    assert "0 games written" in err and err.count("skipped:") == 4 and "game 4" in err and "nothing written" in err


SETS = ("libcbh_Annotation", "libcbh_Chess960Biel", "libcbh_Chess960NonStandard", "libcbh_ManyPromotions",
        "libcbh_NonStandard", "libcbh_NormalNoPop", "libcbh_UnusualStart", "libcbh_WithVariations",
        "morphy_hedgehog", "morphy_mate2_veryold", "morphy_test_annotations", "uncbv_twic1134")


@pytest.mark.parametrize("name", SETS)
def test_fast_writers_write_what_python_chess_writes(name: str) -> None:
    # the PGN text of pgn_text / stream_pgn_text (own SAN) against python-chess's exporter (its own SAN)
    from chessformats.formats.chessbase.pgn import pgn_text, stream_pgn_text

    def words(text: str) -> list[str]:
        return text.split()

    with chessbase.open_database(cbh_path(name)) as db:
        for number in range(1, min(db.record_count, 400) + 1):
            game = db.record(number)
            if not isinstance(game, chessbase.GameHeader):
                continue
            annotated = game.to_pgn()
            assert words(pgn_text(annotated)) == words(annotated.accept(chess.pgn.StringExporter())), number
            plain = game.to_pgn(annotations=False)
            assert words(stream_pgn_text(game.decode(), game.headers)) == \
                words(plain.accept(chess.pgn.StringExporter())), number


@pytest.mark.parametrize("name", ("libcbh_WithVariations", "libcbh_UnusualStart", "libcbh_Chess960Biel",
                                  "morphy_hedgehog"))
@pytest.mark.parametrize("max_ply", (7, 1024))
def test_main_lines_for_a_book_are_python_chess_san(name: str, max_ply: int) -> None:
    # what a book build reads of a base: the batch's SAN main lines (batch_mainline_sans), the games it leaves
    # through mainline_sans, against python-chess's SAN of the game's main line (check marks dropped)
    import numpy as np

    from chessformats.formats.chessbase.pgn import batch_mainline_sans, mainline_sans

    with chessbase.open_database(cbh_path(name)) as db:
        numbers = np.arange(1, db.record_count + 1)
        lines = batch_mainline_sans(db.decode_batch(numbers, san=True), max_ply)
        from_batch = 0
        for number, line in zip(numbers.tolist(), lines, strict=True):
            game = db.record(number)
            if not isinstance(game, chessbase.GameHeader):
                continue
            expected = game.to_pgn(annotations=False)
            board = expected.board()
            sans = []
            for move in list(expected.mainline_moves())[:max_ply]:
                sans.append(board.san(move).rstrip("+#"))
                board.push(move)
            tags = {tag: expected.headers[tag] for tag in ("FEN", "SetUp", "Variant") if tag in expected.headers}
            if line is None:
                assert mainline_sans(game.decode(), max_ply) == (tags, sans), number
            else:
                from_batch += 1
                assert (tags, line) == ({}, sans), number
        assert from_batch > 0 or name == "libcbh_Chess960Biel"
