"""Positions for the tests of the batch book code (``formats/polyglot/batch.py``, ``formats/ctg/batch.py``): those
of random games (seeded) that favour pawn double steps (en passant, legal and pinned) and long games
(promotions), with castling rights and mirrored boards; about 3,000 positions."""

from __future__ import annotations

import random

import chess

from chessformats.kernel.batch import Boards
from chessformats.kernel.boards import from_boards


def batch_positions() -> tuple[list[chess.Board], Boards]:
    """The boards and their batch."""
    rng = random.Random(25)
    boards = []
    for _ in range(60):
        board = chess.Board()
        for _ in range(rng.randint(1, 110)):
            moves = list(board.legal_moves)
            if not moves:
                break
            doubles = [m for m in moves if board.piece_type_at(m.from_square) == chess.PAWN
                       and abs(m.to_square - m.from_square) == 16]
            board.push(rng.choice(doubles if doubles and rng.random() < 0.3 else moves))
            boards.append(board.copy(stack=False))
    pinned = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bb5 f5 Nc3 fxe4 Nxe4 d5 Nxe5 dxe4 Nxc6 Qg5 Qe2 Nf6 f4".split():
        pinned.push_san(san)  # exf3 e.p. is pinned: pseudo-legal, not legal
    boards.append(pinned)
    return boards, from_boards(boards)
