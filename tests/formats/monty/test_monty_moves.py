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


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chess960=st.booleans())
def test_encode_move_is_the_legal_code_read_as_the_move(seed: int, chess960: bool) -> None:
    # encode_move works the code out from the move; the oracle is the generator's code list, read back by
    # decode_move (and python-chess's other spellings of a move are refused as before)
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    for _ in range(rng.randrange(20, 160)):
        codes = monty.legal_codes(board)
        if not codes:
            break
        for code in codes:
            assert monty.encode_move(board, monty.decode_move(board, code)) == code, board.fen()
        king = board.king(board.turn)
        for rook in chess.scan_forward(board.castling_rights & board.occupied_co[board.turn] if not chess960 else 0):
            taking = chess.Move(king, rook) if king is not None else chess.Move.null()
            if board.is_legal(taking):  # python-chess's other spelling of castling: not how Monty reads a code
                with pytest.raises(ValueError, match="not a legal move"):
                    monty.encode_move(board, taking)
        board.push(monty.decode_move(board, rng.choice(codes)))


def test_encode_move_refuses_a_king_taking_its_rook_in_standard_chess() -> None:
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert board.is_legal(chess.Move.from_uci("e1h1"))  # python-chess's other spelling of O-O
    assert monty.encode_move(board, chess.Move.from_uci("e1g1")) == 4 << 10 | 6 << 4 | 2
    with pytest.raises(ValueError, match="not a legal move"):
        monty.encode_move(board, chess.Move.from_uci("e1h1"))


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


def expected_flag(board: chess.Board, move: chess.Move) -> str:
    """The FLAG name a legal move's code must carry, from python-chess's predicates."""
    if board.is_castling(move):
        return "king_castle" if board.is_kingside_castling(move) else "queen_castle"
    capture = board.is_capture(move)
    if move.promotion:
        return f"{chess.piece_name(move.promotion)}_promotion" + ("_capture" if capture else "")
    if board.is_en_passant(move):
        return "en_passant"
    double = board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16
    return "capture" if capture else "double_push" if double else "quiet"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chess960=st.booleans())
def test_one_position_codes_equal_python_chess(seed: int, chess960: bool) -> None:
    """``legal_codes`` (the kernel on a batch of one) against python-chess: sorted, one code per legal move with
    the flag python-chess's predicates give, ``encode_move`` its inverse, one castling rook per castling move."""
    from chessformats.schemas import monty as schema

    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    boards = [chess.Board(fen) for fen in SPECIAL]
    for _ in range(rng.randrange(20, 160)):
        boards.append(board.copy(stack=False))
        if board.is_game_over():
            break
        board.push(rng.choice(list(board.legal_moves)))
    for position in boards:
        rooks: dict[int, int] = {}
        codes = monty.legal_codes(position, rooks)
        assert codes == sorted(codes), position.fen()
        flags = {monty.decode_move(position, code): str(schema.MOVE.parse(code.to_bytes(2, "little")).flag)
                 for code in codes}
        assert flags == {move: expected_flag(position, move) for move in position.legal_moves}, position.fen()
        if codes:  # (a call of encode_move lists the position's codes: one code per position)
            code = rng.choice(codes)
            assert monty.encode_move(position, monty.decode_move(position, code)) == code, position.fen()
        castles = [move for move in position.legal_moves if position.is_castling(move)]
        assert len(rooks) == len(castles)
