"""Polyglot Zobrist keys (:mod:`chessformats.formats.zobrist`).

References: the format specification (specs/polyglot.ru.txt: test keys, random numbers, the key formula) and
python-chess's ``chess.polyglot.zobrist_hash`` (an independent hasher).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import chess
import chess.polyglot
import pytest

from chessformats.polyglot import (
    zobrist_hash,
)
from polyglot_cases import EDGE_CASES, random_games

# --- the specification ------------------------------------------------------------------------------------

@cache
def _spec(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def spec(spec_path: Callable[..., Path]) -> str:
    return _spec(spec_path("polyglot.ru.txt"))


def spec_test_keys(text: str) -> list[tuple[str, int]]:
    """The spec's examples: ``FEN = ...`` followed by ``key = 463b96181691fc9c``."""
    return [(fen.strip(), int(key, 16))
            for fen, key in re.findall(r"FEN = (.+)\n\s*key = ([0-9a-f]{16})", text)]


def spec_randoms(text: str) -> list[int]:
    start = text.index("Random64[781]")
    return [int(v, 16) for v in re.findall(r"U64\(0x([0-9A-Fa-f]{16})\)", text[start:text.index("};", start)])]


def spec_key(randoms: list[int], board: chess.Board, castling: str, ep_file: int | None) -> int:
    """The key by the spec's formula, with the castling rights and en-passant file given explicitly.

    piece: Random64[64 * kind + 8 * row + column], kind = black pawn 0, white pawn 1, ... white king 11;
    castle: 768 + (K 0, Q 1, k 2, q 3); enpassant: 772 + file; turn: 780 when white is to move.
    """
    key = 0
    for square, piece in board.piece_map().items():
        kind = 2 * (piece.piece_type - 1) + (1 if piece.color == chess.WHITE else 0)
        key ^= randoms[64 * kind + 8 * chess.square_rank(square) + chess.square_file(square)]
    for flag in castling:
        key ^= randoms[768 + "KQkq".index(flag)]
    if ep_file is not None:
        key ^= randoms[772 + ep_file]
    if board.turn == chess.WHITE:
        key ^= randoms[780]
    return key


# --- Zobrist keys -----------------------------------------------------------------------------------------

def test_spec_test_keys(spec: str) -> None:
    keys = spec_test_keys(spec)
    assert len(keys) == 9
    assert keys[0] == ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0x463B96181691FC9C)
    for fen, key in keys:
        assert zobrist_hash(chess.Board(fen)) == key, fen


def test_spec_test_keys_by_playing_the_moves(spec: str) -> None:
    """The spec names the moves leading to each example position; played out they give the same keys."""
    lines = [["e4"], ["e4", "d5"], ["e4", "d5", "e5"], ["e4", "d5", "e5", "f5"], ["e4", "d5", "e5", "f5", "Ke2"],
             ["e4", "d5", "e5", "f5", "Ke2", "Kf7"], ["a4", "b5", "h4", "b4", "c4"],
             ["a4", "b5", "h4", "b4", "c4", "bxc3", "Ra3"]]
    keys = [key for _, key in spec_test_keys(spec)]
    assert zobrist_hash(chess.Board()) == keys[0]
    for line, key in zip(lines, keys[1:], strict=True):
        board = chess.Board()
        for san in line:
            board.push_san(san)
        assert zobrist_hash(board) == key, line


def test_zobrist_equals_python_chess_on_random_games() -> None:
    count = with_ep = castles = 0
    for board in random_games(20240521, 260):
        assert zobrist_hash(board) == chess.polyglot.zobrist_hash(board), board.fen()
        count += 1
        with_ep += board.has_pseudo_legal_en_passant()  # the en-passant part of the key applies
        castles += bool(board.castling_rights) and board.castling_rights != chess.BB_CORNERS
        if count % 7 == 0:  # the same position from its FEN (no move stack)
            copy = chess.Board(board.fen())
            assert zobrist_hash(copy) == chess.polyglot.zobrist_hash(copy), board.fen()
    assert count >= 10_000
    assert with_ep >= 150 and castles >= 1000  # the sample does exercise en passant and partial rights


def _corner_rook_960_positions() -> list[int]:
    return [n for n in range(960)
            if chess.Board.from_chess960_pos(n).rooks == chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8]


def test_zobrist_chess960_with_rooks_in_the_corners() -> None:
    numbers = _corner_rook_960_positions()
    # rooks on a and h leave b-g: bishops on opposite colours 3 * 3, then king 4 * queen 3 (knights fill)
    assert len(numbers) == 9 * 4 * 3
    rng = random.Random(960)
    count = 0
    for number in rng.sample(numbers, 12):
        for _ in range(30):
            board = chess.Board.from_chess960_pos(number)
            for _ in range(rng.randrange(5, 60)):
                assert zobrist_hash(board) == chess.polyglot.zobrist_hash(board), board.fen()
                count += 1
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
    assert count >= 5000


def test_zobrist_equals_python_chess_on_random_chess960_games() -> None:
    count = 0
    for board in random_games(9600, 150, chess960=True):
        assert zobrist_hash(board) == chess.polyglot.zobrist_hash(board), board.fen()
        count += 1
    assert count >= 5000


# (FEN, castling rights that really count, en-passant file or None): expected keys from the spec's formula
@pytest.mark.parametrize(("fen", "rights", "ep_file"), EDGE_CASES, ids=[fen for fen, _, _ in EDGE_CASES])
def test_zobrist_edge_cases(spec: str, fen: str, rights: str, ep_file: int | None) -> None:
    board = chess.Board(fen)
    expected = spec_key(spec_randoms(spec), board, rights, ep_file)
    assert zobrist_hash(board) == expected
    assert chess.polyglot.zobrist_hash(board) == expected


def test_pinned_capturer_is_really_illegal() -> None:
    for fen in ("8/8/8/K1pP3r/8/8/8/4k3 w - c6 0 2", "1b2k3/8/8/4Pp2/8/6K1/8/8 w - f6 0 2"):
        board = chess.Board(fen)
        assert board.ep_square is not None and not board.has_legal_en_passant()
        assert board.has_pseudo_legal_en_passant()
