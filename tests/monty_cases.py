"""Helpers for the Monty tests: the order of the legal moves by the spec alone, and SAN of a line."""

from __future__ import annotations

import chess


def oracle_order(board: chess.Board) -> list[chess.Move]:
    """Legal moves in the order of their u16 codes, by the spec alone: source, then destination (the king's
    g/c-file square when castling), then flag; a castling move comes after a plain king move to the same
    square (flag 2/3 > 0) and promotions go knight, bishop, rook, queen (flags 8-11)."""
    def key(move: chess.Move) -> tuple[int, int, int, int]:
        if board.is_castling(move):
            rank = chess.square_rank(move.from_square)
            target = chess.square(6 if board.is_kingside_castling(move) else 2, rank)
            return (move.from_square, target, 1, 0)
        return (move.from_square, move.to_square, 0, move.promotion or 0)

    return sorted(board.legal_moves, key=key)


def sans(board: chess.Board, moves: list[chess.Move]) -> list[str]:
    board = board.copy()
    out = []
    for move in moves:
        out.append(board.san(move))
        board.push(move)
    return out
