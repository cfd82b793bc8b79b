"""Null moves in PGN movetext for the book builder: python-chess's spellings ``--``, ``@@@@`` and ``Z0`` read as
python-chess reads them (a ply that passes the turn), by every path that reads PGN for a book, and ``0000`` as
polyglot reads it (a move number: polyglot reads such games, python-chess does not; the book stays polyglot's)."""

from __future__ import annotations

import io
import subprocess
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from chessformats.books import build as bookbuild
from chessformats.books.build import BookBuilder
from chessformats.books.chessbase_import import write_database_from_pgn
from chessformats.books.pgnread import parse_game
from chessformats.polyglot import make_book
from conftest import find_polyglot

_SPELLINGS = ("--", "@@@@", "Z0")

# movetext with a null move (NULL) where it can be: after a move number, glued to one, after a comment, with a
# check mark or a move mark, twice in a row, first, in a variation (not read), after a ';' comment (the tokenizer)
_MOVETEXTS = [
    "1. e4 NULL 2. d4 e5 1-0",
    "1.e4 e5 2.NULL Nc6 0-1",
    "1. e4 {a comment} NULL 2. d4 Nf6 1/2-1/2",
    "1. e4 NULL+ 2. d4 NULL! 3. c4 *",
    "1. e4 NULL 2. NULL e5 3. Nf3 *",
    "1. NULL e5 2. e4 Nc6 1-0",
    "1. e4 e5 (1... NULL 2. d4) 2. NULL Nf6 3. Nc3 0-1",
    "1. e4 ; a comment line\nNULL 2. d4 d5 1-0",
    "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 NULL 7. Rc1 h6 1/2-1/2",
]


def _games(spelling: str) -> str:
    return "\n".join(f'[Event "{number}"]\n[Result "{body.rsplit(" ", 1)[-1]}"]\n\n{body.replace("NULL", spelling)}\n'
                     for number, body in enumerate(_MOVETEXTS))


@pytest.mark.parametrize("spelling", _SPELLINGS)
@pytest.mark.parametrize("max_ply", [2, 1024])
def test_the_tokenizer_reads_the_moves_python_chess_reads(spelling: str, max_ply: int) -> None:
    # (a move number glued after "Z0" is part of its symbol, as polyglot's lexer reads it: not after "--", "@@@@")
    for body in _MOVETEXTS + ["1. e4 NULL2. d4 e5 *"] * (spelling != "Z0"):
        text = f'[Result "*"]\n\n{body.replace("NULL", spelling)}\n'
        _, sans, error = parse_game(text, max_ply)
        assert error is None
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None and not game.errors
        board = chess.Board()
        played = []
        for san in sans:
            played.append(board.parse_san(san))
            board.push(played[-1])
        assert played == list(game.mainline_moves())[:max_ply], body
        assert chess.Move.null() in played or max_ply < 3


def _expected_book(text: str) -> dict[tuple[int, chess.Move], int]:
    """python-chess's reading of ``text`` counted as polyglot counts (no counter near the halving): per position
    (chess.polyglot's key) and move, 2 points a win, 1 a draw or an unknown result, 0 a loss for the side that
    plays it; a move with 0 points is not written, nor a null move (a Polyglot book stores none: left out,
    counted in the report)."""
    points: Counter[tuple[int, chess.Move]] = Counter()
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(game.headers["Result"])
        board = game.board()
        for played in game.mainline_moves():
            move = played
            key = chess.polyglot.zobrist_hash(board)
            if board.is_castling(move):  # (a book's castling: the king takes its rook)
                rook_file = 7 if board.is_kingside_castling(move) else 0
                move = chess.Move(move.from_square, chess.square(rook_file, chess.square_rank(move.from_square)))
            points[(key, move)] += 1 if winner is None else 2 * (board.turn == winner)
            board.push(played)
    return {entry: total for entry, total in points.items() if total and entry[1]}


def _null_entries(text: str) -> int:
    """The null moves of ``text`` that would be entries (positions and null moves with points)."""
    handle = io.StringIO(text)
    points: Counter[int] = Counter()
    while (game := chess.pgn.read_game(handle)) is not None:
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(game.headers["Result"])
        board = game.board()
        for played in game.mainline_moves():
            if not played:
                points[chess.polyglot.zobrist_hash(board)] += 1 if winner is None else 2 * (board.turn == winner)
            board.push(played)
    return sum(1 for total in points.values() if total)


def _book(builder: BookBuilder, path: Path) -> bytes:
    assert not builder.skipped
    make_book(path, builder, min_games=1)
    return path.read_bytes()


@pytest.mark.parametrize("spelling", _SPELLINGS)
def test_every_spelling_builds_python_chesss_book(tmp_path: Path, spelling: str) -> None:
    text = _games(spelling)
    builder = BookBuilder()
    builder.add_pgn_text(text)
    assert builder.games == len(_MOVETEXTS)
    with pytest.warns(UserWarning, match="moves left out: a Polyglot book cannot store them \\(null move: "):
        report = make_book(tmp_path / "book.bin", builder, min_games=1)
    book = (tmp_path / "book.bin").read_bytes()
    with chess.polyglot.open_reader(tmp_path / "book.bin") as reader:
        found = {(entry.key, entry.move): entry.weight for entry in reader}
    expected = _expected_book(text)
    assert found == expected
    assert report.counts["moves left out"] == _null_entries(text) > 0
    # the same book from the text in any spelling (the Z0 one as read before "--" and "@@@@" were)
    other = BookBuilder()
    other.add_pgn_text(_games("Z0"))
    assert _book(other, tmp_path / "z0.bin") == book


def test_every_path_builds_the_same_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join([_games("--")] * 3), encoding="utf-8")
    whole = BookBuilder()
    whole.add_pgn_text(pgn.read_text(encoding="utf-8"))
    expected = _book(whole, tmp_path / "whole.bin")
    assert expected == _book(_added(pgn, jobs=1), tmp_path / "blocks.bin")
    monkeypatch.setattr(bookbuild, "PARALLEL_BYTES", 0)  # two processes, each a half of the file
    assert expected == _book(_added(pgn, jobs=2), tmp_path / "forked.bin")
    # pieces of a few games read by a pool, merged in file order (what the Dask build's tasks read too)
    monkeypatch.setattr(bookbuild, "LOCAL_PIECE_BYTES", 256)
    monkeypatch.setattr(bookbuild, "piece_size", lambda *_, **__: 300)
    assert expected == _book(_added(pgn, jobs=2), tmp_path / "pieces.bin")
    # the ChessBase base imported from the PGN (python-chess's null moves in its move streams)
    write_database_from_pgn(tmp_path / "games.cbh", pgn)
    base = BookBuilder()
    base.add_file(tmp_path / "games.cbh")
    assert expected == _book(base, tmp_path / "base.bin")


def _added(pgn: Path, *, jobs: int) -> BookBuilder:
    builder = BookBuilder()
    builder.add_pgn(pgn, jobs=jobs)
    assert builder.games == 3 * len(_MOVETEXTS)
    return builder


def _polyglot(pgn: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(find_polyglot()), "make-book", "-pgn", str(pgn), "-bin", str(out), "-min-game", "1"],
                          capture_output=True, text=True, cwd=out.parent)


def test_polyglot_reads_0000_as_a_move_number_and_no_other_null_move(tmp_path: Path) -> None:
    # "0000" is all digits: polyglot reads a move number and goes on (python-chess reads a null move, and the next
    # move illegal): the book is polyglot's
    pgn = tmp_path / "zeros.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 0000 e5 2. Nf3 0000 Nc6 3. Bb5 1-0\n', encoding="utf-8")
    result = _polyglot(pgn, tmp_path / "polyglot.bin")
    assert "all done" in result.stdout, result.stdout + result.stderr
    builder = BookBuilder()
    builder.add_pgn(pgn)
    assert _book(builder, tmp_path / "ours.bin") == (tmp_path / "polyglot.bin").read_bytes()
    # polyglot's lexer stops at "--" and "@@@@" and writes no book: no polyglot book is changed by reading them
    for spelling in ("--", "@@@@"):
        pgn.write_text(_games(spelling), encoding="utf-8")
        out = tmp_path / f"{len(spelling)}.bin"
        result = _polyglot(pgn, out)
        assert "lexical error" in result.stdout + result.stderr and not (out.exists() and out.stat().st_size)
