"""formats.squares must number everything as python-chess does (it stands in for it where start-up counts)."""

from __future__ import annotations

import chess

from chessformats.books import batchplay
from chessformats.formats import squares
from chessformats.formats.zobrist import zobrist_hash


def test_every_name_equals_python_chess() -> None:
    for name in squares.__all__:
        if name == "START":
            continue
        ours, theirs = getattr(squares, name), getattr(chess, name)
        if callable(ours):
            for square in chess.SQUARES:
                if name == "square":
                    assert ours(square & 7, square >> 3) == theirs(square & 7, square >> 3) == square
                else:
                    assert ours(square) == theirs(square), (name, square)
        elif isinstance(ours, range | tuple):
            assert list(ours) == list(theirs), name
        else:
            assert ours == theirs, name


def test_start_position_is_python_chess_start() -> None:
    board = chess.Board()
    expected = {"white": board.occupied_co[chess.WHITE], "black": board.occupied_co[chess.BLACK],
                "pawns": board.pawns, "knights": board.knights, "bishops": board.bishops, "rooks": board.rooks,
                "queens": board.queens, "kings": board.kings, "castling": board.castling_rights}
    assert squares.START == expected
    columns = batchplay.start_columns()
    assert columns["key"] == zobrist_hash(board) == 0x463B96181691FC9C  # the key Polyglot's documentation gives
    assert {name: columns[name] for name in expected} == expected
    assert (columns["ep"], columns["turn"]) == (64, 1)
