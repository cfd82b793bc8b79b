"""The chess kernel's batch move generator and move player against independent oracles: published perft
counts (chessprogramming.org's perft results, which python-chess's own tests use too), python-chess's
``Board.legal_moves`` and ``Board.push`` on every position (standard chess and Chess960), and the from-to-flag
code of each move worked out from python-chess's predicates."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.kernel import Boards, from_boards, legal_moves, move_of_code, play, to_board

PERFT = [  # FEN, leaf counts at depth 1, 2, ... (chessprogramming.org "Perft Results")
    (chess.STARTING_FEN, [20, 400, 8902, 197281]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379]),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2079, 89890]),
]


def spec_code(board: chess.Board, move: chess.Move) -> int:
    """A move's code from python-chess's predicates: flag | target << 4 | origin << 10, castling as the king's
    move to the c- or g-file (flags: quiet 0, double push 1, castling 2/3, capture 4, en passant 5,
    promotions 8-11, +4 with a capture)."""
    origin, target = move.from_square, move.to_square
    if board.is_castling(move):
        kingside = board.is_kingside_castling(move)
        target, flag = chess.square(6 if kingside else 2, chess.square_rank(origin)), 2 if kingside else 3
    elif move.promotion:
        flag = 8 + move.promotion - chess.KNIGHT + (4 if board.is_capture(move) else 0)
    elif board.is_en_passant(move):
        flag = 5
    elif board.is_capture(move):
        flag = 4
    elif board.piece_type_at(origin) == chess.PAWN and abs(target - origin) == 16:
        flag = 1
    else:
        flag = 0
    return flag | target << 4 | origin << 10


def expand(boards: Boards) -> tuple[Boards, np.ndarray]:
    """Every position after every legal move (and how many moves each position had)."""
    offsets, codes = legal_moves(boards)
    counts = np.diff(offsets)
    return play(boards.take(np.repeat(np.arange(len(counts)), counts)), codes), counts


@pytest.mark.parametrize(("fen", "counts"), PERFT)
def test_perft(fen: str, counts: list[int]) -> None:
    boards = from_boards([chess.Board(fen)])
    for expected in counts:
        boards, found = expand(boards)
        assert int(found.sum()) == expected


def check_against_python_chess(boards: list[chess.Board]) -> None:
    """Legal move codes (in order) and the position after each move, for every board."""
    batch = from_boards(boards)
    offsets, codes = legal_moves(batch)
    assert codes.dtype == np.uint16
    keys = (np.repeat(np.arange(len(boards)), np.diff(offsets)) << 16) | codes
    assert np.all(np.diff(keys) > 0)  # sorted by position, then code, without repeats
    moves = [(i, move) for i, board in enumerate(boards) for move in board.legal_moves]
    for i, board in enumerate(boards):
        assert codes[offsets[i]:offsets[i + 1]].tolist() == sorted(spec_code(board, m) for m in board.legal_moves), \
            board.fen()
    if not moves:
        return
    index = np.array([i for i, _ in moves])
    after = play(batch.take(index), np.array([spec_code(boards[i], move) for i, move in moves]))
    for row, (i, move) in enumerate(moves):
        board = boards[i].copy(stack=False)
        assert move_of_code(spec_code(board, move), board) == move
        board.push(move)
        again = to_board(after, row, chess960=board.chess960)
        assert (again.fen(en_passant="fen"), again.castling_rights) == (
            board.fen(en_passant="fen"), board.clean_castling_rights()), (boards[i].fen(), move.uci())


def test_special_positions() -> None:
    check_against_python_chess([chess.Board(fen) for fen, _ in PERFT] + [chess.Board(fen) for fen in (
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",          # en passant would expose the king
        "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",           # en passant along a pinned rank
        "8/8/3k4/8/2pP4/8/8/3KB3 b - d3 0 1",          # en passant answers a check
        "4k3/8/8/8/8/8/8/r3K2R w K - 0 1",             # castling path attacked
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",          # the rook's path may be attacked, the king's not
        "4k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",          # promotions on both sides
        "k7/8/8/8/8/8/8/K6R b - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "7k/5Q2/8/8/8/8/8/K7 b - - 0 1",               # stalemate: no moves
        "4k3/4r3/8/8/8/8/3PPP2/4K3 w - - 0 1",         # pinned pawns
        "4k3/8/8/8/8/5n2/8/4K2R w K - 0 1",            # castling out of check is not legal
    )])


def chess960_boards(seed: int, count: int) -> list[chess.Board]:
    """Positions of random games from random Chess960 starts, castling, captures and promotions preferred."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        for _ in range(rng.randrange(10, 120)):
            found.append(board.copy(stack=False))
            moves = list(board.legal_moves)
            if not moves:
                break
            special = [m for m in moves if board.is_castling(m) or board.is_capture(m) or m.promotion
                       or board.piece_type_at(m.from_square) == chess.PAWN]
            board.push(rng.choice(special if special and rng.random() < 0.6 else moves))
    return found


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_chess960_games(seed: int) -> None:
    check_against_python_chess(chess960_boards(seed, 100))


def test_castling_with_the_rooks_on_every_file() -> None:
    """Every Chess960 start's king and rooks, with the pieces between them cleared: castling to both sides."""
    boards = []
    for number in range(0, 960, 7):
        board = chess.Board.from_chess960_pos(number)
        for square in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8):
            if board.piece_type_at(square) not in (chess.KING, chess.ROOK):
                board.remove_piece_at(square)
        boards.append(board)
        boards.append(board.mirror())
    assert any(board.is_castling(move) and board.is_kingside_castling(move) and move.from_square == chess.G1
               for board in boards for move in board.legal_moves)  # the king that does not move, g1 to g1
    check_against_python_chess(boards)
