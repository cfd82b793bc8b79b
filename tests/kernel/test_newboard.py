""":func:`chessformats.kernel.newboard.new_board` against ``chess.Board``: the same position and fields (FEN,
Chess960 flag, equality, the moves python-chess finds and plays on it), on random standard and Chess960 games."""

from __future__ import annotations

import random

import chess

from chessformats.kernel.newboard import new_board


def test_new_board_is_the_board_of_its_bitboards() -> None:
    rng = random.Random(5)
    checked = 0
    for game in range(30):
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if game % 3 == 0 else chess.Board()
        for _ in range(rng.randrange(5, 120)):
            made = new_board(board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns,
                             board.knights, board.bishops, board.rooks, board.queens, board.kings, board.turn,
                             board.ep_square, board.castling_rights, board.halfmove_clock, board.fullmove_number,
                             board.chess960)
            assert type(made) is chess.Board and made.chess960 == board.chess960
            assert made.fen() == board.fen() and made == board and not made.move_stack
            legal = list(board.legal_moves)
            assert list(made.legal_moves) == legal
            if not legal:
                break
            move = rng.choice(legal)
            made.push(move)
            board.push(move)
            assert made.fen() == board.fen()
            made.pop()
            checked += 1
    assert checked > 500
    empty = new_board(0, 0, 0, 0, 0, 0, 0, 0, ep_square=0)
    assert empty.fen() == chess.Board(None).fen() and empty.ep_square is None
