"""Games that follow each other without a blank line (a result line, then the next game's tags): one game each,
as ``polyglot make-book`` (whose lexer ends a game at its result) and python-chess read them, in every reader
that cuts a PGN text into games (the builder in one process and in pieces, the per-game decoding)."""

from __future__ import annotations

import io
import random
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

from chessformats.books import build as bookbuild
from chessformats.books import pgnread
from chessformats.books.build import BookBuilder
from chessformats.books.pgnread import decode_pgn, game_spans, parse_game, split_games
from chessformats.books.pieces import plan_pieces
from chessformats.polyglot import make_book
from conftest import find_polyglot

# the reviewer's example: the second game's tags right after the first game's result line
EXAMPLE = '[Event "a"]\n\n1. e4 e5 1-0\n[Event "b"]\n\n1. d4 d5 0-1\n'


def _games(count: int, seed: int) -> list[tuple[str, list[str], str]]:
    """Random legal games: (tags text, SAN moves, result)."""
    rng = random.Random(seed)
    games = []
    for number in range(count):
        board, sans = chess.Board(), []
        for _ in range(rng.randrange(2, 24)):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(sorted(moves, key=chess.Move.uci)[:4])  # few openings: moves reach min-game
            sans.append(board.san(move))
            board.push(move)
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
        games.append((f'[Event "game {number}"]\n[White "W{number}"]\n[Result "{result}"]\n', sans, result))
    return games


def _movetext(sans: list[str], result: str) -> str:
    words = [f"{ply // 2 + 1}. {san}" if ply % 2 == 0 else san for ply, san in enumerate(sans)]
    return " ".join([*words, result])


# what ends a game's last line before the next game's tags: no blank line (with blanks after the result, or none)
_ENDS = ["\n", " \n", "  \n", "\t\n"]


def _file(games: list[tuple[str, list[str], str]], newline: str = "\n") -> str:
    text = "".join(f"{tags}\n{_movetext(sans, result)}{_ENDS[number % len(_ENDS)]}"
                   for number, (tags, sans, result) in enumerate(games))
    return text.replace("\n", newline)


def _chess_games(text: str) -> list[list[str]]:
    """The main lines python-chess reads (SAN), game by game."""
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors
        board, sans = game.board(), []
        for move in game.mainline_moves():
            sans.append(board.san(move).rstrip("+#"))
            board.push(move)
        games.append(sans)
    return games


def test_the_example_reads_two_games_as_python_chess_does() -> None:
    assert [text for _, text in split_games(EXAMPLE)] == ['[Event "a"]\n\n1. e4 e5 1-0',
                                                         '[Event "b"]\n\n1. d4 d5 0-1\n']
    assert [parse_game(text, 100)[1] for _, text in split_games(EXAMPLE)] == _chess_games(EXAMPLE)
    builder = BookBuilder()
    builder.add_pgn_text(EXAMPLE)
    assert builder.games == 2 and not builder.skipped


@pytest.mark.parametrize("text", [
    '[Event "a"]\n[Result "1-0"]\n[Site "b"]\n\n1. d4 d5 0-1\n',  # a tag line before: not a result line
    '[Event "a"]\n\n1. e4 e5\n[Event "b"]\n\n1. d4 d5 0-1\n',  # no result (polyglot: "malformed move")
    '[Event "a"]\n\n1. e4 {1-0\n[Event "b"]} e5 1-0\n',  # in a comment
    '[Event "a"]\n\n1. e4 e5 1-0    \n[Event "b"]\n\n1. d4 d5 0-1\n',  # four blanks after the result
    '[Event "a"]\n\n1. e4 e5 1-0 [Event "b"]\n\n1. d4 d5 0-1\n',  # the tags on the result's line
    '[Event "a"]\n\n1. e4 e5 1-0\n[%evp 1]\n',  # not a tag
])
def test_what_is_not_a_break(text: str) -> None:
    assert len(list(game_spans(text))) == 1


def test_games_without_blank_lines_read_as_python_chess_reads_them() -> None:
    games = _games(16, 1)
    text = _file(games)
    assert "\n\n[" not in text
    spans = list(game_spans(text))
    assert len(spans) == len(_chess_games(text)) == 16
    assert [parse_game(text[start:end], 1024)[1] for start, end in spans] == _chess_games(text) == [
        [san.rstrip("+#") for san in sans] for _, sans, _ in games]
    builder = BookBuilder()
    builder.add_pgn_text(text)
    assert builder.games == 16 and not builder.skipped


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_books_equal_polyglots_in_one_process_and_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          newline: str) -> None:
    polyglot = find_polyglot()
    games = _games(400, 2)
    path = tmp_path / "games.pgn"
    path.write_bytes(_file(games, newline).encode())
    result = subprocess.run([str(polyglot), "make-book", "-pgn", str(path), "-bin", str(tmp_path / "p.bin"),
                             "-min-game", "1"], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0 and "all done" in result.stdout, result.stdout + result.stderr
    assert "401 games" in result.stdout  # (polyglot counts one game more than it reads)
    expected = (tmp_path / "p.bin").read_bytes()
    monkeypatch.setattr(bookbuild, "PARALLEL_BYTES", 0)  # the small file in two pieces, cut at a break
    calls: list[int] = []
    original = bookbuild.read_forked
    monkeypatch.setattr(bookbuild, "read_forked", lambda *args: (calls.append(1), original(*args))[1])
    for jobs in (1, 2):
        builder = BookBuilder()
        builder.add_pgn(path, jobs=jobs)
        assert builder.games == 400 and not builder.skipped
        make_book(tmp_path / f"ours{jobs}.bin", builder, min_games=1)
        assert (tmp_path / f"ours{jobs}.bin").read_bytes() == expected
    assert calls == [1]
    assert len(list(plan_pieces([path], piece_bytes=path.stat().st_size // 3))) >= 3  # cut where no blank line is


def test_a_utf8_game_and_a_windows_1252_game_without_a_blank_line() -> None:
    first = '[Event "Москва"]\n[White "Ding, Liren 丁立人"]\n\n1. e4 e5 1-0\n'
    second = '[Event "Schloß Open"]\n[White "Müller, Jürgen"]\n\n1. d4 d5 *\r\n'
    third = '[Event "Café"]\n\n1. c4 0-1 \n'
    data = first.encode() + second.encode("cp1252") + first.encode() + third.encode("cp1252")
    expected = first + second + first + third
    assert decode_pgn(data) == expected
    cuts = [0, *(match.end() for match in pgnread.BYTE_BREAK.finditer(data)), len(data)]
    assert len(cuts) == 5
    for size in (1, 7, 64):
        stream = io.TextIOWrapper(io.BytesIO(data), encoding=pgnread._CODEC, newline="")
        stream._CHUNK_SIZE = size  # type: ignore[attr-defined]
        assert "".join(iter(lambda stream=stream: stream.read(5), "")) == expected  # type: ignore[misc]


@pytest.mark.parametrize("text", [EXAMPLE, EXAMPLE.replace("1-0\n", "1-0 \r\n"), EXAMPLE.replace("1-0", "*")])
def test_the_break_is_found_wherever_the_text_is_cut_in_chunks(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # game_spans reads numpy chunks; the line before the break may end in the chunk before
    expected = list(game_spans(text))
    assert len(expected) == 2
    for chunk in range(1, len(text) + 1):
        monkeypatch.setattr(pgnread, "_CHUNK", chunk)
        assert list(game_spans(text)) == expected


def test_pieces_are_cut_at_the_first_break_from_their_nominal_end(tmp_path: Path) -> None:
    # wherever the nominal end falls (on the newline after a result too): the first break that starts there or
    # later, as found in the whole file
    data = (EXAMPLE + EXAMPLE.replace("1-0", "1/2-1/2  \r")).encode()
    path = tmp_path / "games.pgn"
    path.write_bytes(data)
    breaks = list(pgnread.BYTE_BREAK.finditer(data))
    assert len(breaks) == 3
    for size in range(1, len(data)):
        ends = [match.end() for match in breaks if match.start() >= size - 1]
        pieces = list(plan_pieces([path], piece_bytes=size))
        assert pieces[0].end == (ends[0] if ends else len(data))  # type: ignore[union-attr]
