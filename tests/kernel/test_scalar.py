"""The kernel's one-position functions (:mod:`chessformats.kernel.scalar`) against ``chess.Board``: attacks,
attacked squares, a pawn's moves, king safety after every pseudo-legal move, on the positions of random games
(standard chess and Chess960) and on positions chosen for their edge cases."""

from __future__ import annotations

import random

import chess
import pytest

from chessformats.kernel.scalar import (
    attacked,
    attacks,
    king_safe_after,
    of_board,
    pawn_moves,
)

EDGE = [
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",  # fool's mate: no legal move
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",  # the en-passant capture would expose the king
    "8/8/3k4/8/2pP4/8/8/3KB3 b - d3 0 1",  # the en-passant capture resolves a check
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1",  # only the king's capture or steps
    "k7/8/8/8/8/8/1r6/K1r5 w - - 0 1",  # mate by rooks
]


def positions(seed: int, count: int) -> list[chess.Board]:
    rng = random.Random(seed)
    found = [chess.Board(fen) for fen in EDGE]
    while len(found) < count:
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if rng.random() < 0.3 else chess.Board()
        for _ in range(rng.randrange(10, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if rng.random() < 0.2:
                found.append(board.copy(stack=False))
    return found


@pytest.mark.parametrize("seed", [1, 2])
def test_attacks_and_attacked_squares(seed: int) -> None:
    for board in positions(seed, 120):
        pieces, colour = of_board(board)
        occupied = board.occupied
        for square in chess.SQUARES:
            for by in chess.COLORS:
                assert attacked(pieces, colour[by], square, by, occupied) == board.is_attacked_by(by, square)
            piece = board.piece_type_at(square)
            if piece is not None and piece != chess.PAWN:
                assert attacks(piece, square, occupied) == board.attacks_mask(square), (board.fen(), square)
        them = colour[not board.turn] | (chess.BB_SQUARES[board.ep_square] if board.ep_square is not None else 0)
        for square in chess.scan_forward(board.pawns & colour[board.turn]):
            expected = 0
            for move in board.generate_pseudo_legal_moves(chess.BB_SQUARES[square]):
                expected |= chess.BB_SQUARES[move.to_square]
            assert pawn_moves(board.turn, square, occupied, them) == expected, (board.fen(), square)


@pytest.mark.parametrize("seed", [3, 4])
def test_king_safety(seed: int) -> None:
    for board in positions(seed, 200):
        pieces, colour = of_board(board)
        for move in board.generate_pseudo_legal_moves():
            if board.is_castling(move):
                continue
            piece = board.piece_type_at(move.from_square)
            assert piece is not None
            assert king_safe_after(pieces, colour, board.ep_square, move.from_square, move.to_square, piece,
                                   board.turn) == board.is_legal(move), (board.fen(), move.uci())
