"""Monty's move codes: the spec's example codes, and the legal-move generator against python-chess.
"""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats import monty


def test_spec_example_codes() -> None:
    board = chess.Board()
    # spec: Nf3 (g1 = 6, f3 = 21, flag 0) = 6480; e2e4 (12, 28, flag 1) = 12737
    assert monty.encode_move(board, chess.Move.from_uci("g1f3")) == 6480
    assert monty.encode_move(board, chess.Move.from_uci("e2e4")) == 12737
    # spec: "e2 to e1 capturing and promoting to a rook" (12, 4, flag 14) = 12366: arithmetic only (a pawn
    # cannot capture straight ahead); a real capture-promotion e2xd1=R is 14 | 3 << 4 | 12 << 10 = 12350
    assert monty.decode_move(None, 12366) == chess.Move.from_uci("e2e1r")
    promotion = chess.Board("k7/8/8/8/8/8/4p3/3Q2K1 b - - 0 1")
    assert monty.encode_move(promotion, chess.Move.from_uci("e2d1r")) == 12350
    assert monty.encode_move(promotion, chess.Move.from_uci("e2e1n")) == 8 | 4 << 4 | 12 << 10
    with pytest.raises(ValueError, match="not a legal move"):
        monty.encode_move(board, chess.Move.from_uci("e2e5"))

@given(st.integers(0, 0xFFFF))
@settings(max_examples=300, deadline=None)
def test_move_table_agrees_with_the_declaration(code: int) -> None:
    from chessformats.formats.monty.moves import MOVES, SHIFT_DESTINATION, SHIFT_SOURCE, flag_of
    from chessformats.schemas import monty as schema

    parsed = schema.MOVE.parse(code.to_bytes(2, "little"))
    assert flag_of(code) == int(parsed.flag)
    assert schema.MOVE.build(parsed) == code.to_bytes(2, "little")
    if int(parsed.flag) not in schema.FLAG.meanings:
        return
    move = MOVES[code]
    assert (move.from_square, move.to_square) == (parsed.source, parsed.destination)
    name = str(parsed.flag)
    assert move.promotion == (chess.PIECE_NAMES.index(name.split("_")[0]) if "promotion" in name else None)
    # the move generator's way of writing a code: origin << source shift | target << destination shift | flag
    built = schema.MOVE.build({"source": parsed.source, "destination": parsed.destination, "flag": name})
    assert parsed.source << SHIFT_SOURCE | parsed.destination << SHIFT_DESTINATION | int(parsed.flag) \
        == int.from_bytes(built, "little") == code


def test_legal_codes_read_back_through_the_declaration() -> None:
    from chessformats.schemas import monty as schema

    for fen in SPECIAL:
        board = chess.Board(fen)
        for code in monty.legal_codes(board):
            parsed = schema.MOVE.parse(code.to_bytes(2, "little"))
            move = monty.decode_move(board, code)
            assert move in board.legal_moves and move.from_square == parsed.source, (fen, code)
            name = str(parsed.flag)
            assert board.is_capture(move) == ("capture" in name or name == "en_passant"), (fen, move.uci(), name)
            assert board.is_castling(move) == name.endswith("_castle"), (fen, move.uci(), name)


# --- legal moves, in move codes ---------------------------------------------------------------------------------

SPECIAL = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",   # kiwipete
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",                            # ep pins along the rank
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",      # promotions, checks
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",                                      # ep capture exposes the king
    "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
    "8/8/3k4/8/2pP4/8/8/3KB3 b - d3 0 1",                                      # ep resolves a check
    "4k3/8/8/8/8/8/8/r3K2R w K - 0 1",                                          # castling path attacked
]


def codes_as_moves(board: chess.Board) -> list[chess.Move]:
    return [monty.decode_move(board, code) for code in monty.legal_codes(board)]


def test_legal_codes_on_special_positions() -> None:
    for fen in SPECIAL:
        board = chess.Board(fen)
        moves = codes_as_moves(board)
        assert sorted(moves, key=chess.Move.uci) == sorted(board.legal_moves, key=chess.Move.uci), fen


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chess960=st.booleans())
def test_legal_codes_equal_python_chess_on_random_games(seed: int, chess960: bool) -> None:
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    for _ in range(rng.randrange(20, 200)):
        moves = codes_as_moves(board)
        assert len(moves) == len(set(moves))
        assert set(moves) == set(board.legal_moves), board.fen()
        if not moves:
            break
        board.push(rng.choice(moves))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chess960=st.booleans())
def test_one_position_codes_equal_the_kernels(seed: int, chess960: bool) -> None:
    """``legal_codes`` (python-chess, one position) and the kernel's batch generator: the same codes, same order."""
    from chessformats.kernel import from_boards, legal_moves

    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    boards = [chess.Board(fen) for fen in SPECIAL]
    for _ in range(rng.randrange(20, 160)):
        boards.append(board.copy(stack=False))
        if board.is_game_over():
            break
        board.push(rng.choice(list(board.legal_moves)))
    offsets, kernel = legal_moves(from_boards(boards))
    for index, position in enumerate(boards):
        codes = monty.legal_codes(position)
        assert codes == kernel[offsets[index]:offsets[index + 1]].tolist(), position.fen()
        assert [monty.encode_move(position, monty.decode_move(position, code)) for code in codes] == codes
        rooks: dict[int, int] = {}
        monty.legal_codes(position, rooks)
        castles = [move for move in position.legal_moves if position.is_castling(move)]
        assert len(rooks) == len(castles)
