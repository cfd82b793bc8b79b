"""The batch replay's parts against python-chess: the positions it keeps, and a replay without positions (the
kernel's attackers it plays with: tests/kernel/test_attacked.py)."""

from __future__ import annotations

import random

import chess
import numpy as np

from chessformats.books import batchplay
from chessformats.formats.polyglot.moves import encode_move
from chessformats.formats.zobrist import zobrist_hash


def _random_games(seed: int, count: int, longest: int) -> list[list[str]]:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board, sans = chess.Board(), []
        for _ply in range(rng.randint(0, longest)):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            sans.append(board.san(move).rstrip("+#"))
            board.push(move)
        games.append(sans)
    return games


def test_replay_without_positions_has_the_same_events() -> None:
    games = _random_games(13, 200, 90)
    # a failure, and a move that a pin decides (Nc3 pinned: Ne2 is Ng1-e2)
    games += [[*games[0][:7], "Ke4"], ["d4", "e5", "e3", "Bb4", "Nc3", "a6", "Ne2"]]
    with_positions = batchplay.replay(games, memo_depth=20)
    without = batchplay.replay(games, memo_depth=20, positions=False)
    assert with_positions.failed[-2] and not with_positions.failed[-1]
    board = chess.Board()
    for san in games[-1][:-1]:
        board.push_san(san)
    last = with_positions.game == len(games) - 1
    assert with_positions.raw[last][-1] == encode_move(board, chess.Move.from_uci("g1e2"))
    for name in ("failed", "game", "ply", "key", "raw"):
        assert np.array_equal(getattr(with_positions, name), getattr(without, name)), name
        assert getattr(with_positions, name).dtype == getattr(without, name).dtype, name
    assert len(with_positions.positions["key"]) > 1000 and len(with_positions.links[0]) > 1000
    assert set(without.positions) == set(batchplay.COLUMNS)
    assert all(len(column) == 0 for column in without.positions.values())
    assert all(len(column) == 0 for column in without.links)
    moves_only = batchplay.replay_tokens(*batchplay.number_tokens(games), positions=False, keys=False)
    for name in ("failed", "game", "ply", "raw"):
        assert np.array_equal(getattr(with_positions, name), getattr(moves_only, name)), name
    assert len(moves_only.key) == 0


def test_kept_positions_and_links_are_python_chess_positions() -> None:
    games = _random_games(17, 150, 60)
    memo_depth = 16
    result = batchplay.replay(games, memo_depth=memo_depth)
    assert not result.failed.any()
    boards: dict[int, set[tuple[int, ...]]] = {}  # key -> the positions met with it before memo_depth plies
    moves: dict[int, set[tuple[int, int]]] = {}  # key -> (parent key, raw move) met deeper
    for sans in games:
        board = chess.Board()
        for ply, san in enumerate(sans):
            key = zobrist_hash(board)
            if ply < memo_depth:
                boards.setdefault(key, set()).add((
                    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns, board.knights,
                    board.bishops, board.rooks, board.queens, board.kings, board.castling_rights,
                    64 if board.ep_square is None else board.ep_square, key, int(board.turn)))
            move = board.parse_san(san)
            parent, raw = key, encode_move(board, move)
            board.push(move)
            if ply + 1 >= memo_depth and ply + 1 < len(sans):
                moves.setdefault(zobrist_hash(board), set()).add((parent, raw))
    kept = list(zip(*(result.positions[name].tolist() for name in batchplay.COLUMNS), strict=True))
    assert {row[10] for row in kept} == set(boards)
    assert len(kept) >= len(boards)  # (a key once per ply)
    for row in kept:
        assert row in boards[row[10]], row
    links = list(zip(*(column.tolist() for column in result.links), strict=True))
    assert {key for key, _, _ in links} == set(moves)
    for key, parent, raw in links:
        assert (parent, raw) in moves[key]
