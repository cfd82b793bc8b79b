"""Moves a book with a move table (CTG, Kvetka) cannot store, some of each reason, in the model's positions: for
the tests of the warnings of their writers (tests/books/test_books_ctg.py, tests/books/test_books_kvetka.py).
python-chess says which moves are castling moves and which are a piece's."""

from __future__ import annotations

import chess

from chessformats.books.stats import MoveStats, PositionStats

CHESS960 = "qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/QNBNRKRB w KQkq - 0 1"  # king f1, rooks e1 and g1 (X-FEN)
KNIGHTS = "k7/8/8/8/8/8/8/KNNN4 w - - 0 1"  # three white knights
PROMOTION = "8/1P6/8/8/8/8/k7/7K w - - 0 1"


def one_move_a_piece(fen: str, piece_type: chess.PieceType) -> dict[chess.Move, MoveStats]:
    """A legal move of each piece of ``piece_type`` of the side to move."""
    board = chess.Board(fen)
    moves = {move.from_square: move for move in board.legal_moves
             if board.piece_type_at(move.from_square) == piece_type}
    return {move: MoveStats(1, 1, 0, 0) for move in moves.values()}


def left_out_positions() -> tuple[dict[str, PositionStats], int]:
    """Positions of the model with moves left out: "960" (its Chess960 castling moves, and b2b3, stored), "start" (a
    null move, an illegal move, and e2e4, stored), "promotion" (two underpromotions, and b7b8q, stored), "knights"
    (a move of each of three knights); and the number of Chess960 castling moves."""
    chess960 = chess.Board(CHESS960, chess960=True)
    castling = [move for move in chess960.legal_moves if chess960.is_castling(move)]
    assert castling
    knights = one_move_a_piece(KNIGHTS, chess.KNIGHT)
    assert len(knights) == 3
    return {
        "960": PositionStats(CHESS960, {move: MoveStats(1, 1, 0, 0) for move in castling}
                             | {chess.Move.from_uci("b2b3"): MoveStats(1, 1, 0, 0)}),
        "start": PositionStats(chess.STARTING_FEN, {chess.Move.null(): MoveStats(1, 1, 0, 0),
                                                    chess.Move.from_uci("e2e5"): MoveStats(1, 0, 1, 0),
                                                    chess.Move.from_uci("e2e4"): MoveStats(2, 1, 1, 0)}),
        "knights": PositionStats(KNIGHTS, knights),
        "promotion": PositionStats(PROMOTION, {chess.Move.from_uci(uci): MoveStats(1, 1, 0, 0)
                                               for uci in ("b7b8r", "b7b8n", "b7b8q")}),
    }, len(castling)
