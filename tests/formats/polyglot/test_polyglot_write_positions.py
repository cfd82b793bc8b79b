"""Writing Polyglot books from positions: boards, FENs and keys, Chess960, castling stored king-takes-rook, legal
moves only, integer weights.

Oracles: python-chess's ``chess.polyglot`` reader (its keys, and its moves read on a Chess960 board: king takes rook
as stored), the ``polyglot`` program (Debian package) for standard castling, and raw moves computed by hand from the
specification (``to | from << 6 | promotion << 12``, squares a1 = 0 ... h8 = 63).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import chess
import chess.polyglot
import numpy as np
import pytest

from chessformats.kernel.newboard import fen_board
from chessformats.polyglot import write_book
from polyglot_cases import ENTRY


def _rows(path: Path) -> list[tuple[int, int, int, int]]:
    data = path.read_bytes()
    return [ENTRY.unpack_from(data, offset) for offset in range(0, len(data), 16)]


def _castling_board(number: int, turn: chess.Color) -> chess.Board:
    """Chess960 start position ``number`` with only kings, rooks and pawns: castling is legal (one way at least)."""
    board = chess.Board.from_chess960_pos(number)
    for square in chess.SquareSet(board.occupied & ~(board.kings | board.rooks | board.pawns)):
        board.remove_piece_at(square)
    board.turn = turn
    return board


# king and rooks: b1 a1 c1 (959), g1 f1 h1 (0), e1 d1 f1 (300: on e1, rooks off the corners), the standard (518)
NUMBERS = (959, 0, 300, 518)


def _expected(board: chess.Board) -> dict[chess.Move, int]:
    return {move: weight for weight, move in enumerate(board.legal_moves, start=1)}


@pytest.mark.parametrize("turn", [chess.WHITE, chess.BLACK])
@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("given", ["x-fen", "shredder-fen", "chess960 board", "board"])
def test_chess960_positions_read_back_by_python_chess(tmp_path: Path, number: int, turn: chess.Color,
                                                      given: str) -> None:
    board = _castling_board(number, turn)  # chess960=True: its castling moves are king takes rook
    expected = _expected(board)
    assert any(board.is_castling(move) for move in expected)
    fen = board.fen(shredder=given == "shredder-fen")
    position: Any = {"x-fen": fen, "shredder-fen": fen, "chess960 board": board, "board": chess.Board(fen)}[given]
    path = tmp_path / "960.bin"
    write_book(path, [(position, {move.uci(): weight for move, weight in expected.items()})])
    assert {key for key, *_ in _rows(path)} == {chess.polyglot.zobrist_hash(board)}
    with chess.polyglot.open_reader(path) as reader:
        assert {entry.move: entry.weight for entry in reader.find_all(board, minimum_weight=0)} == expected


def test_chess960_long_castling_is_king_takes_rook(tmp_path: Path) -> None:
    """The trial's case: ``g1b1`` in a Shredder-FEN position is stored as g1b1, not g1a1, under the Chess960 key."""
    fen = "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBhb - 0 1"
    path = tmp_path / "960.bin"
    write_book(path, {fen: {"g1b1": 2, "g1h1": 1}})
    g1b1, g1h1 = 1 | 6 << 6, 7 | 6 << 6
    key = chess.polyglot.zobrist_hash(chess.Board(fen, chess960=True))
    assert key != chess.polyglot.zobrist_hash(chess.Board(fen))  # the standard reading drops the b-file rights
    assert _rows(path) == [(key, g1b1, 2, 0), (key, g1h1, 1, 0)]


STANDARD_CASTLING = [  # the king's step, as Polyglot stores it (hand-computed), and a position where it is legal
    ("e1g1", 7 | 4 << 6, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"),
    ("e1c1", 0 | 4 << 6, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"),
    ("e8g8", 63 | 60 << 6, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1"),
    ("e8c8", 56 | 60 << 6, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1"),
]


@pytest.mark.parametrize(("uci", "raw", "fen"), STANDARD_CASTLING)
@pytest.mark.parametrize("given", ["key", "fen", "board"])
@pytest.mark.parametrize("as_move", [True, False])
def test_standard_castling_is_king_takes_rook(tmp_path: Path, uci: str, raw: int, fen: str, given: str,
                                              as_move: bool) -> None:
    board = chess.Board(fen)
    key = chess.polyglot.zobrist_hash(board)
    position: Any = {"key": key, "fen": fen, "board": board}[given]
    path = tmp_path / "castle.bin"
    write_book(path, [(position, {chess.Move.from_uci(uci) if as_move else uci: 1})])
    assert _rows(path) == [(key, raw, 1, 0)]
    with chess.polyglot.open_reader(path) as reader:
        assert [entry.move for entry in reader.find_all(board)] == [chess.Move.from_uci(uci)]


def test_a_raw_move_with_a_key_is_kept(tmp_path: Path) -> None:
    """With a key a raw move is stored as given (even e1g1's raw value: nothing says a king stands on e1)."""
    path = tmp_path / "raw.bin"
    e1g1 = 6 | 4 << 6
    write_book(path, {5: {e1g1: 1}})
    assert _rows(path) == [(5, e1g1, 1, 0)]


def test_the_polyglot_program_plays_castling_written_by_key(polyglot_binary: Path, tmp_path: Path) -> None:
    """Each position given by its key, O-O as ``e1g1``: polyglot's dump plays the line through 4. O-O."""
    board = chess.Board()
    mapping: dict[Any, dict[Any, Any]] = {}
    for san in ("e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"):
        move = board.parse_san(san)
        mapping[chess.polyglot.zobrist_hash(board)] = {move.uci(): 1}
        board.push(move)
    path, out = tmp_path / "line.bin", tmp_path / "dump.txt"
    write_book(path, mapping)
    subprocess.run([str(polyglot_binary), "dump-book", "-bin", str(path), "-color", "white", "-out", str(out)],
                   cwd=tmp_path, capture_output=True, timeout=60, check=True)
    lines = out.read_text().splitlines()
    assert any(line.startswith("1: 1. e4{100%} e5 2. Nf3{100%} Nc6 3. Bc4{100%} Bc5 4. O-O{100%}")
               for line in lines), lines


# --- refused: illegal moves, the null move, weights that are no integers ---------------------------------------------

ITALIAN = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


@pytest.mark.parametrize(("move", "named"), [
    ("e2e5", "e2e5"), (chess.Move.from_uci("e1c1"), "e1c1"), ("e1a1", "e1a1"), ("a7a8q", "a7a8q"),
    (chess.Move(chess.E1, chess.G1, chess.KNIGHT), "e1g1n"),  # (python-chess's parse_uci drops the promotion)
    (36 | 12 << 6, "e2e5"),  # raw e2e5
    (1 << 15 | 796, str(1 << 15 | 796)),  # raw e2e4 with the reserved bit set
])
@pytest.mark.parametrize("given", ["fen", "board"])
def test_an_illegal_move_is_refused(tmp_path: Path, move: Any, named: str, given: str) -> None:
    """e2e5, O-O-O through pieces, ...: an error naming the move and the position; nothing is written."""
    position: Any = ITALIAN if given == "fen" else chess.Board(ITALIAN)
    with pytest.raises(ValueError, match=f"illegal move {named} .*in r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/"):
        write_book(tmp_path / "bad.bin", [(position, {"e1g1": 1, move: 1})])
    assert not (tmp_path / "bad.bin").exists()


@pytest.mark.parametrize("position", [ITALIAN, 0x463B96181691FC9C])
@pytest.mark.parametrize("move", ["0000", chess.Move.null()])
def test_the_null_move_is_refused(tmp_path: Path, position: Any, move: Any) -> None:
    with pytest.raises(ValueError, match="null move"):
        write_book(tmp_path / "bad.bin", {position: {move: 1}})
    assert not (tmp_path / "bad.bin").exists()


@pytest.mark.parametrize("book", [
    {chess.STARTING_FEN: {"e2e4": 1.5}},
    {chess.STARTING_FEN: {"e2e4": 2.0}},
    {chess.STARTING_FEN: {"e2e4": (2, 0.5)}},
    {chess.STARTING_FEN: {"e2e4": "2"}},
    [(1, 796, 2.0, 0)],
    [(1.0, 796, 2, 0)],
])
def test_a_weight_that_is_no_integer_is_a_type_error(tmp_path: Path, book: Any) -> None:
    """Polyglot stores integer weights (python-chess's entry layout ``>QHHI``): floats are refused, not rounded."""
    with pytest.raises(TypeError, match="integer"):
        write_book(tmp_path / "bad.bin", book)
    assert not (tmp_path / "bad.bin").exists()


def test_numpy_integers_are_integers(tmp_path: Path) -> None:
    path = tmp_path / "np.bin"
    write_book(path, [(np.uint64(5), np.int64(796), np.uint16(3), 0)])
    write_book(tmp_path / "np2.bin", {chess.STARTING_FEN: {"e2e4": np.int32(3)}, np.uint64(5): {796: (1, np.int8(2))}})
    assert _rows(path) == [(5, 796, 3, 0)]
    assert _rows(tmp_path / "np2.bin") == [(5, 796, 1, 2), (0x463B96181691FC9C, 796, 3, 0)]


# --- the kernel's rule: a FEN is Chess960 when its castling rights say so ---------------------------------------------

@pytest.mark.parametrize("number", NUMBERS)
def test_fen_board_is_chess960_when_its_rights_say_so(number: int) -> None:
    board = _castling_board(number, chess.WHITE)
    for fen in (board.fen(), board.fen(shredder=True)):
        read = fen_board(fen)
        assert read.chess960 == (number != 518)
        assert read.castling_rights == board.castling_rights
        if number != 518:  # (in standard chess python-chess writes castling as the king's step)
            assert set(read.legal_moves) == set(board.legal_moves)
    assert fen_board(chess.STARTING_FEN, chess960=True).chess960
