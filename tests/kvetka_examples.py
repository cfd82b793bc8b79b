"""Example games and books for the Kvetka tests: four short games, random games, the small book written from
them, random positions with some of their legal moves. The model of the games is counted by the independent
reference counter (``tests/reference_counter.py``).
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import chess
import chess.pgn
from hypothesis import strategies as st

from chessformats import kvetka
from chessformats.books.stats import BookStats
from reference_counter import count_games

GAMES = """
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 3. Nxe5 d6 1/2-1/2

[Result "0-1"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 0-1

[Result "1-0"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 1-0
"""


def games_stats(text: str = GAMES) -> BookStats:
    """The model of the four games (counted by the independent reference counter)."""
    handle = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return count_games(games)


def board_after(*sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def write_small_book(folder: Path) -> Path:
    """The four games as a Kvetka book with three ECO comments: ``folder/small`` (returned)."""
    kvetka.write_book(folder / "small.kob", games_stats(), caption="four games",
                      openings={chess.STARTING_FEN: "A00|Start", board_after("e4", "e5").fen():
                                kvetka.Opening("C20", "King's Pawn Game"),
                                board_after("e4", "c5").fen(): "B50|Sicilian Defence|Main Line"})
    return folder / "small"


def many_games(count: int, seed: int, plies: int = 16) -> BookStats:
    """The model of ``count`` random games of ``plies`` plies with random results."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        game = chess.pgn.Game()
        game.headers["Result"] = rng.choice(["1-0", "0-1", "1/2-1/2"])
        node: chess.pgn.GameNode = game
        board = chess.Board()
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            node = node.add_variation(move)
            board.push(move)
        games.append(game)
    return count_games(games)


@st.composite
def positions(draw: st.DrawFn) -> tuple[chess.Board, list[chess.Move]]:
    board = chess.Board()
    for _ in range(draw(st.integers(0, 40))):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    legal = list(board.legal_moves)
    chosen = draw(st.lists(st.sampled_from(legal), unique=True, max_size=12)) if legal else []
    return board, chosen
