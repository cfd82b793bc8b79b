"""The chess kernel's batch move generator and move player against independent oracles: published perft
counts (chessprogramming.org's perft results, which python-chess's own tests use too), python-chess's
``Board.legal_moves`` (in the order the spec gives codes, ``monty_cases.oracle_order``) and ``Board.push`` on
every position (standard chess and Chess960), and each code's flag worked out from python-chess's predicates."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.kernel import Boards, from_boards, legal_moves, move_of_code, play, to_board
from chessformats.kernel.batch import attacked, bishop_attacks, rook_attacks
from chessformats.kernel.lookup import EMPTY_ATTACKS_BB
from monty_cases import oracle_order

PERFT = [  # FEN, leaf counts at depth 1, 2, ... (chessprogramming.org "Perft Results")
    (chess.STARTING_FEN, [20, 400, 8902, 197281]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379]),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2079, 89890]),
]


def flag_of(board: chess.Board, move: chess.Move) -> int:
    """What the flag of a move must be, from python-chess's predicates (quiet 0, double push 1, castling with
    the h-side rook 2, a-side 3, capture 4, en passant 5, promotions 8 + piece - 2, +4 for a capture)."""
    if board.is_castling(move):
        return 2 if board.is_kingside_castling(move) else 3
    capture = 4 if board.is_capture(move) else 0
    if move.promotion:
        return 8 + move.promotion - chess.KNIGHT + capture
    if board.is_en_passant(move):
        return 5
    double = board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16
    return capture or (1 if double else 0)


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
    """For every board: the legal moves, in the order of their codes (``oracle_order``: by the spec alone), each
    code's fields, and the position after each move."""
    batch = from_boards(boards)
    offsets, codes = legal_moves(batch)
    assert codes.dtype == np.uint16
    keys = (np.repeat(np.arange(len(boards)), np.diff(offsets)) << 16) | codes
    assert np.all(np.diff(keys) > 0)  # sorted by position, then code, without repeats
    played, rows = [], []
    for i, board in enumerate(boards):
        mine = codes[offsets[i]:offsets[i + 1]].tolist()
        moves = [move_of_code(code, board) for code in mine]
        assert moves == oracle_order(board), board.fen()
        for code, move in zip(mine, moves, strict=True):
            target = code >> 4 & 63
            assert code >> 10 == move.from_square and code & 15 == flag_of(board, move), (board.fen(), move.uci())
            assert target == move.to_square or board.is_castling(move)  # castling: the king's c/g-file square
        played += mine
        rows += [i] * len(mine)
    if not played:
        return
    after = play(batch.take(np.array(rows)), np.array(played))
    for row, (i, code) in enumerate(zip(rows, played, strict=True)):
        board = boards[i].copy(stack=False)
        board.push(move_of_code(code, board))
        again = to_board(after, row, chess960=board.chess960)
        assert (again.fen(en_passant="fen"), again.castling_rights) == (
            board.fen(en_passant="fen"), board.clean_castling_rights()), (boards[i].fen(), code)


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


def test_contains() -> None:
    """Every position asked about every code any of them has (and the same codes with another flag)."""
    from chessformats.kernel.batch import contains

    boards = [chess.Board(fen) for fen, _ in PERFT]
    offsets, codes = legal_moves(from_boards(boards))
    asked = sorted(set(codes.tolist()) | {code ^ 4 for code in codes.tolist()})
    for code in asked:
        wanted = [any(move_of_code(code, board) == move and (code & 15) == flag_of(board, move)
                      for move in board.legal_moves) for board in boards]
        assert contains(offsets, codes, np.full(len(boards), code)).tolist() == wanted
    assert any(contains(offsets, codes, np.full(len(boards), code)).any() for code in asked)


def test_checkers() -> None:
    """The pieces giving check, against python-chess's ``Board.checkers()`` on positions of random games (many in
    check); with another occupancy (a piece of the side to move taken off, every third position: the king may be
    exposed) against python-chess on the board without that piece."""
    from chessformats.kernel.batch import checkers

    boards = [board for index, board in enumerate(chess960_boards(5, 1500)) if board.is_check() or index % 5 == 0]
    boards += [chess.Board(fen) for fen in ("4k3/8/8/8/8/8/8/4K2r w - - 0 1", "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1")]
    batch = from_boards(boards)
    assert [int(found) for found in checkers(batch)] == [int(board.checkers()) for board in boards]
    assert sum(board.is_check() for board in boards) > 50
    occupied = batch.white | batch.black
    expected = []
    for index, board in enumerate(boards):
        board = board.copy(stack=False)
        ours = [square for square in board.pieces(chess.KNIGHT, board.turn) | board.pieces(chess.BISHOP, board.turn)
                | board.pieces(chess.ROOK, board.turn) | board.pieces(chess.PAWN, board.turn)]
        if ours and index % 3 == 0:
            square = ours[index % len(ours)]
            occupied[index] ^= np.uint64(1 << square)
            board.remove_piece_at(square)
        expected.append(int(board.checkers()))
    assert [int(found) for found in checkers(batch, occupied)] == expected
    assert expected != [int(found) for found in checkers(batch)]


def test_castling_with_the_rook_given() -> None:
    """Playing castling codes with their rook given beforehand (as a Monty header's rook files give it) is
    playing them with the rook found from the position; the rook is python-chess's (king takes rook)."""
    from chessformats.kernel.playing import play_rows, prepare, stack, unstack

    boards = [board for board in chess960_boards(11, 300) if any(board.is_castling(m) for m in board.legal_moves)]
    rows, codes, rooks = [], [], []
    for board in boards:
        batch = from_boards([board])
        for code in legal_moves(batch)[1].tolist():
            move = move_of_code(code, board)
            if board.is_castling(move):
                rows.append(board)
                codes.append(code)
                rooks.append(move.to_square)  # (Chess960 boards: the king takes the rook)
    assert len(codes) > 20
    batch, played = from_boards(rows), np.array(codes)
    given = unstack(play_rows(stack(batch), prepare(played, np.array(rooks))))
    found = play(batch, played)
    assert all(np.array_equal(a, b) for a, b in zip(given, found, strict=True))
    for row, board in enumerate(rows):
        after = board.copy(stack=False)
        after.push(move_of_code(codes[row], board))
        assert to_board(given, row, chess960=True).fen(en_passant="fen") == after.fen(en_passant="fen")


@pytest.mark.parametrize("seed", range(2))
def test_attacks_against_python_chess(seed: int) -> None:
    # the attack look-ups every batch user shares (sliders through occupancy, attackers of a square, empty-board
    # attacks by piece) against python-chess on positions of random games
    rng = random.Random(seed)
    boards = []
    board = chess.Board()
    while len(boards) < 300:
        moves = list(board.legal_moves)
        if not moves or board.ply() > 120:
            board = chess.Board()
            continue
        board.push(rng.choice(moves))
        boards.append(board.copy(stack=False))
    squares = np.array([rng.randrange(64) for _ in boards])
    occupied = np.array([b.occupied for b in boards], dtype=np.uint64)
    diagonal = bishop_attacks(squares, occupied)
    straight = rook_attacks(squares, occupied)
    for by in (chess.WHITE, chess.BLACK):
        def mine(kind: int, b: chess.Board, colour: bool = by) -> int:
            return int(b.pieces_mask(kind, colour))

        found = attacked(squares, occupied, *(np.array([mine(kind, b) for b in boards], dtype=np.uint64)
                                              for kind in (chess.KNIGHT, chess.KING, chess.PAWN)),
                         np.full(len(boards), int(not by)),
                         np.array([mine(chess.BISHOP, b) | mine(chess.QUEEN, b) for b in boards], dtype=np.uint64),
                         np.array([mine(chess.ROOK, b) | mine(chess.QUEEN, b) for b in boards], dtype=np.uint64))
        for i, b in enumerate(boards):
            square = int(squares[i])
            assert int(found[i]) == int(b.attackers_mask(by, square)), (b.fen(), square, by)
    for i, b in enumerate(boards):
        square = int(squares[i])
        empty = chess.BaseBoard(None)
        empty.set_piece_at(square, chess.Piece(chess.QUEEN, chess.WHITE))
        blocked = chess.BaseBoard(None)
        for other in chess.scan_forward(b.occupied):
            blocked.set_piece_at(other, chess.Piece(chess.PAWN, chess.BLACK))
        blocked.set_piece_at(square, chess.Piece(chess.BISHOP, chess.WHITE))
        assert int(diagonal[i]) == int(blocked.attacks_mask(square))
        blocked.set_piece_at(square, chess.Piece(chess.ROOK, chess.WHITE))
        assert int(straight[i]) == int(blocked.attacks_mask(square))
    for kind in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING):
        for square in chess.SQUARES:
            alone = chess.BaseBoard(None)
            alone.set_piece_at(square, chess.Piece(kind, chess.WHITE))
            assert int(EMPTY_ATTACKS_BB[kind, square]) == int(alone.attacks_mask(square))
