"""The batch decoder's SAN (checks, mates, rivals: worked out on the chess kernel) against python-chess's
``Board.san`` on every move of corpus games, variations included, and on random games full of checks, mates,
pins and promotions."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from chessbase_corpus import cbh_path
from chessformats import chessbase
from chessformats.formats.chessbase.batch_pgn import san_strings
from chessformats.formats.chessbase.moves import POP, PUSH, DecodedMove


def _compare_with_python_chess(cbh: Path) -> Counter[str]:
    """Every move of every game the batch decodes with ``san=True``, against python-chess's SAN of the same move
    in the same position; how many moves were compared, and how many of them were checks, mates and moves named
    with their origin's file, rank or square."""
    compared: Counter[str] = Counter()
    with chessbase.open_database(cbh) as db:
        batch = db.decode_batch(np.arange(1, db.record_count + 1), san=True)
        sans = san_strings(batch)
        for index in np.flatnonzero(~batch.fallback).tolist():
            game = batch.game(index)
            board = chess.Board(game.start.fen())
            stack: list[chess.Board] = []
            slot = int(batch.first[index])
            for token in game.tokens:
                if token is PUSH:
                    stack.append(board.copy(stack=False))
                elif token is POP:
                    if stack:
                        board = stack.pop()
                elif isinstance(token, DecodedMove):
                    move = token.move()
                    assert token.null or board.is_legal(move), (cbh.name, index, slot)
                    assert sans[slot] == board.san(move), (cbh.name, index, slot, board.fen(), move.uci())
                    board.push(move)
                    compared["moves"] += 1
                    text = sans[slot]
                    compared["checks"] += text.endswith("+")
                    compared["mates"] += text.endswith("#")
                    compared["named"] += len(text.rstrip("+#").replace("x", "")) > 3 and text[0] in "NBRQ"
                slot += 1
    return compared


@pytest.mark.parametrize("name", ["libcbh_NormalGames", "libcbh_WithVariations"])
def test_batch_san_equals_python_chess_on_corpus_games(name: str) -> None:
    found = _compare_with_python_chess(cbh_path(name))
    assert found["moves"] > 1000 and found["checks"] > 50 and found["named"] > 20


def _random_games(seed: int, count: int) -> list[chess.pgn.Game]:
    """Random legal games that prefer checks, captures and promotions (so mates, pins and rivals are common),
    with a few variations; knights and rooks are kept on the board long enough to have rivals."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        game = chess.pgn.Game()
        node: chess.pgn.GameNode = game
        for _ in range(rng.randrange(20, 160)):
            board = node.board()
            moves = list(board.legal_moves)
            if not moves:
                break
            if rng.random() < 0.04 and node.parent is not None:
                options = [m for m in node.parent.board().legal_moves if not node.parent.has_variation(m)]
                if options:
                    node.parent.add_variation(rng.choice(options))
            forcing = [m for m in moves if board.gives_check(m) or m.promotion or board.is_en_passant(m)]
            node = node.add_variation(rng.choice(forcing if forcing and rng.random() < 0.6 else moves))
        games.append(game)
    return games


def test_batch_san_equals_python_chess_on_random_games(tmp_path: Path) -> None:
    cbh = tmp_path / "random.cbh"
    report = chessbase.write_database(cbh, _random_games(0, 40))
    assert len(report.skipped) < 10
    found = _compare_with_python_chess(cbh)
    assert found["moves"] > 2000 and found["mates"] > 3 and found["checks"] > 300 and found["named"] > 5
