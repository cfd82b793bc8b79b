"""Polyglot books from games (``chessformats.polyglot.make_book`` over a ``BookBuilder``): results counted for
the side that moved, the weights ``polyglot make-book`` gives, and every weight within 16 bits.

The counts are checked against the independent reference counter (``tests/reference_counter.py``); byte
identity with the ``polyglot`` program itself is checked in ``test_build.py``.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot

from chessformats.books.build import COUNT_MAX, BookBuilder
from chessformats.books.stats import BookStats
from chessformats.polyglot import make_book
from reference_counter import count_games

GAMES = """
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

[Result "0-1"]

1. e4 c5 2. Nf3 0-1

[Result "1/2-1/2"]

1. e4 e5 2. Nc3 1/2-1/2

[Result "*"]

1. d4 *
"""


def _games(text: str) -> Iterator[chess.pgn.Game]:
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        yield game


def _counts(stats: BookStats) -> dict[str, dict[str, tuple[int, int, int, int]]]:
    """Position (FEN without counters) -> move -> (games, wins, draws, losses)."""
    return {" ".join(position.fen.split(" ")[:4]): {move.uci(): (s.games, s.wins, s.draws, s.losses)
                                                     for move, s in position.moves.items()}
            for position in stats}


def _weights(path: Path, board: chess.Board) -> dict[str, int]:
    with chess.polyglot.open_reader(path) as reader:
        return {entry.move.uci(): entry.weight for entry in reader.find_all(board, minimum_weight=0)}


def test_results_are_counted_for_the_side_that_moved(tmp_path: Path) -> None:
    builder = BookBuilder()
    builder.add_pgn_text(GAMES)
    stats = builder.to_stats()
    assert _counts(stats) == _counts(count_games(_games(GAMES)))
    start = stats.positions[chess.Board().fen().rsplit(" ", 2)[0]]
    e4 = start.moves[chess.Move.from_uci("e2e4")]
    # 1.e4 was played in three games: white won one, lost one, drew one
    assert (e4.games, e4.wins, e4.losses, e4.draws) == (3, 1, 1, 1)
    assert e4.polyglot_weight == 2 * 1 + 1
    d4 = start.moves[chess.Move.from_uci("d2d4")]
    assert (d4.games, d4.wins, d4.losses, d4.draws) == (1, 0, 0, 0)
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    e5 = stats.positions[after_e4.fen().rsplit(" ", 2)[0]].moves[chess.Move.from_uci("e7e5")]
    # 1...e5: black lost one game and drew one
    assert (e5.games, e5.wins, e5.losses, e5.draws) == (2, 0, 1, 1)

    path = tmp_path / "small.bin"
    make_book(path, builder, min_games=1)
    # polyglot's weight: the sum of result + 1 for the side to move (win 2, draw 1, loss 0); polyglot counts an
    # unfinished game (*) as a draw
    assert _weights(path, chess.Board()) == {"e2e4": 3, "d2d4": 1}
    # black's moves weighted by black's results: 1...e5 lost one and drew one, 1...c5 won
    assert _weights(path, after_e4) == {"e7e5": 1, "c7c5": 2}


def test_weights_stay_within_16_bits(tmp_path: Path) -> None:
    # 40,000 won games 1.e4: 2 * 40000 = 80000 does not fit in a weight
    builder = BookBuilder()
    builder.add_pgn_text('[Result "1-0"]\n\n1. e4 1-0\n\n' * 40000 + '[Result "1/2-1/2"]\n\n1. d4 1/2-1/2\n')
    path = tmp_path / "many.bin"
    make_book(path, builder, min_games=1)
    # polyglot's rule: when a move reaches COUNT_MAX games, the counters (games n, points sum) of every move of
    # the position are halved, rounding up
    n = points = 0
    for _ in range(40000):
        n, points = n + 1, points + 2
        if n >= COUNT_MAX:
            n, points = (n + 1) // 2, (points + 1) // 2
    weights = _weights(path, chess.Board())
    assert weights == {"e2e4": points, "d2d4": 1}
    assert 0 < weights["e2e4"] <= 0xFFFF and COUNT_MAX == 16384
