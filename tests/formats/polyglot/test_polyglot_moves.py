"""Polyglot's 16-bit moves: encoding and decoding against the specification's formula, castling, and the
legality test the probes use against ``board.is_legal``.
"""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.polyglot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.formats.polyglot.legality import legality_checker
from chessformats.polyglot import decode_move, encode_move, open_book, write_book
from polyglot_cases import EDGE_CASES, EXTRA_POSITIONS, entries, expected_raw, our_rows, random_games, their_rows

# --- moves ---------------------------------------------------------------------------------------------------

def test_encode_decode_are_inverse() -> None:
    boards = [chess.Board(fen) for fen in EXTRA_POSITIONS]
    boards += [board.copy() for board in random_games(77, 40) if random.Random(board.ply()).random() < 0.2]
    boards += [board.copy() for board in random_games(78, 20, chess960=True)]
    moves = castles = promotions = 0
    for board in boards:
        for move in board.legal_moves:
            raw = encode_move(board, move)
            assert raw == expected_raw(board, move), (board.fen(), move.uci())
            assert decode_move(board, raw) == move, (board.fen(), move.uci())
            stored = decode_move(None, raw)  # without a board: exactly as stored
            assert (stored.from_square, stored.to_square) == (raw >> 6 & 63, raw & 63)
            moves += 1
            castles += board.is_castling(move)
            promotions += bool(move.promotion)
    assert moves >= 10_000 and castles >= 20 and promotions >= 16


def test_castling_conversion_only_with_a_king_on_e1_e8() -> None:
    # e1h1 = to h1 (7) | from e1 (4) << 6 = 263; e1a1 = 0 | 4 << 6 = 256; e8a8 = a8 (56) | e8 (60) << 6 = 3896
    e1h1, e1a1, e8a8 = 263, 256, 3896
    rook_on_e1 = chess.Board("4k3/8/8/8/8/8/8/3KR3 w - - 0 1")
    assert decode_move(rook_on_e1, e1h1) == chess.Move(chess.E1, chess.H1)
    assert encode_move(rook_on_e1, chess.Move(chess.E1, chess.H1)) == e1h1
    rook_on_e8 = chess.Board("4r1k1/8/8/8/8/8/8/4K3 b - - 0 1")
    assert decode_move(rook_on_e8, e8a8) == chess.Move(chess.E8, chess.A8)
    king_on_e1 = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert decode_move(king_on_e1, e1h1) == chess.Move(chess.E1, chess.G1)
    assert decode_move(king_on_e1, e1a1) == chess.Move(chess.E1, chess.C1)
    assert decode_move(king_on_e1, e8a8) == chess.Move(chess.E8, chess.C8)
    assert decode_move(None, e1h1) == chess.Move(chess.E1, chess.H1)  # no board: as stored
    assert decode_move(None, 0) == chess.Move.null()
    assert encode_move(None, chess.Move.null()) == 0


@pytest.mark.parametrize("number", [959, 0, 300, 100])  # kings on b1, g1, e1 (rooks d1, f1), g1
def test_chess960_castling_without_the_flag(number: int) -> None:
    """A board with Chess960 castling rights but without python-chess's flag (as the model's boards come, and as
    ``chess.Board(fen)`` reads an X-FEN): castling king-takes-rook is stored as given, as on the flagged board."""
    board = chess.Board.from_chess960_pos(number)
    for square in chess.SquareSet(board.occupied & ~(board.kings | board.rooks | board.pawns)):
        board.remove_piece_at(square)
    unflagged = chess.Board(board.fen())
    assert not unflagged.chess960
    castling = [move for move in board.legal_moves if board.is_castling(move)]
    assert castling
    for move in castling:  # king takes rook: to | from << 6
        assert encode_move(unflagged, move) == encode_move(board, move) == move.to_square | move.from_square << 6


def test_encode_rejects_unstorable_moves() -> None:
    with pytest.raises(ValueError):
        encode_move(None, chess.Move(chess.E4, chess.E4, drop=chess.KNIGHT))


def _candidate_moves(board: chess.Board, rng: random.Random) -> list[int]:
    """Raw moves for a book of ``board``: every pseudo-legal move and some that are not even that."""
    raws = [expected_raw(board, move) for move in board.pseudo_legal_moves]
    # pawn moves onto the last rank stored without their promotion piece
    raws += [raw & 0x0FFF for raw in raws if raw >> 12]
    own = list(chess.SquareSet(board.occupied_co[board.turn]))
    for _ in range(12):
        origin, target = rng.choice(own), rng.randrange(64)
        if origin == target:
            continue
        rank_from, rank_to = chess.square_rank(origin), chess.square_rank(target)
        promotion = rng.randrange(1, 5) if (rank_from, rank_to) in ((6, 7), (1, 0)) and rng.random() < 0.5 else 0
        raws.append(target | origin << 6 | promotion << 12)
    return raws


def test_probe_legality_filter_equals_python_chess(tmp_path: Path) -> None:
    """Books holding illegal moves (pins, checks, blocked paths, castling through check...): the probe
    keeps exactly the moves python-chess's reader keeps."""
    rng = random.Random(4242)
    boards = [chess.Board(fen) for fen in EXTRA_POSITIONS]
    boards += [b.copy() for b in random_games(4243, 100, max_plies=90) if rng.random() < 0.15]
    boards += [chess.Board(fen) for fen, _, _ in EDGE_CASES]
    rows = {}
    for board in boards:
        key = chess.polyglot.zobrist_hash(board)
        rows[key] = [(key, raw, rng.randrange(0, 5), 0) for raw in _candidate_moves(board, rng)]
    path = tmp_path / "candidates.bin"
    write_book(path, [row for key_rows in rows.values() for row in key_rows], merge=None)
    checked = checks = dropped = 0
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        for board in boards:
            expected = their_rows(reader.find_all(board, minimum_weight=0))
            assert our_rows(entries(book, board, minimum_weight=0)) == expected, board.fen()
            assert our_rows(entries(book, board, minimum_weight=3)) == \
                their_rows(reader.find_all(board, minimum_weight=3)), board.fen()
            checked += 1
            checks += board.is_check()
            dropped += len(rows[chess.polyglot.zobrist_hash(board)]) - len(expected)
    assert checked >= 500 and checks >= 20 and dropped >= 5000


def test_probe_legality_test_equals_python_chess_on_every_square_pair() -> None:
    """The bitboard legality test used by probes against ``board.is_legal`` for every from/to pair."""
    rng = random.Random(11)
    candidates = [chess.Move(a, b) for a in chess.SQUARES for b in chess.SQUARES if a != b]
    candidates += [chess.Move(a, b, piece) for a in chess.SQUARES for b in chess.SQUARES
                   if a != b and chess.square_rank(b) in (0, 7) for piece in (2, 3, 4, 5)]
    positions = 0
    for _ in range(12):
        board = chess.Board()
        for _ply in range(rng.randrange(10, 90)):
            legal = list(board.legal_moves)
            if not legal:
                break
            if rng.random() < 0.25:
                check = legality_checker(board)
                assert [bool(check(m)) for m in candidates] == [board.is_legal(m) for m in candidates], board.fen()
                positions += 1
            board.push(rng.choice(legal))
    assert positions > 50


# --- the derived move tables against the declaration -------------------------------------------------------

_PROMOTION_NAMES = {0: "none", chess.KNIGHT: "knight", chess.BISHOP: "bishop", chess.ROOK: "rook", chess.QUEEN: "queen"}


def _built(origin: int, target: int, promotion: int) -> int:
    """The raw move construct builds from ``schema.MOVE`` (the independent path)."""
    from chessformats.schemas import polyglot as schema

    data = schema.MOVE.build({"reserved": 0, "promotion": _PROMOTION_NAMES[promotion],
                              "from_rank": origin >> 3, "from_file": origin & 7,
                              "to_rank": target >> 3, "to_file": target & 7})
    return int.from_bytes(data, "big")


@given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 63), st.sampled_from(sorted(_PROMOTION_NAMES))),
                min_size=1, max_size=50))
@settings(max_examples=100, deadline=None)
def test_pack_moves_and_move_table_agree_with_the_declaration(moves: list[tuple[int, int, int]]) -> None:
    import numpy as np

    from chessformats.formats.polyglot.moves import MOVES, pack_moves
    from chessformats.schemas import polyglot as schema

    origin, target, promotion = (np.array(column, dtype=np.int64) for column in zip(*moves, strict=True))
    packed = pack_moves(origin, target, promotion).tolist()
    assert packed == [_built(*move) for move in moves]
    for (from_square, to_square, piece), raw in zip(moves, packed, strict=True):
        assert int(pack_moves(from_square, to_square, piece)) == raw
        if raw == 0:
            continue
        parsed = schema.MOVE.parse(raw.to_bytes(2, "big"))
        decoded = MOVES[raw]
        assert decoded.from_square == chess.square(parsed.from_file, parsed.from_rank) == from_square
        assert decoded.to_square == chess.square(parsed.to_file, parsed.to_rank) == to_square
        assert (decoded.promotion or 0) == piece and str(parsed.promotion) == _PROMOTION_NAMES[piece]
        if from_square != to_square:
            assert encode_move(None, chess.Move(from_square, to_square, piece or None)) == raw


def test_unpack_moves_reads_every_raw_move_as_the_declaration_does() -> None:
    # every 16-bit value, against construct's parse of the declaration (promotions outside 0..4: none)
    import numpy as np

    from chessformats.formats.polyglot.packing import unpack_moves
    from chessformats.schemas import polyglot as schema

    raws = np.arange(1 << 16, dtype=np.int64)
    origin, target, promotion = (column.tolist() for column in unpack_moves(raws))
    pieces = {name: piece for piece, name in _PROMOTION_NAMES.items()}
    for raw in range(0, 1 << 16, 7):
        parsed = schema.MOVE.parse(raw.to_bytes(2, "big"))
        assert origin[raw] == chess.square(parsed.from_file, parsed.from_rank)
        assert target[raw] == chess.square(parsed.to_file, parsed.to_rank)
        assert promotion[raw] == pieces.get(str(parsed.promotion), 0)
