"""The Monty declarations checked against the specification (specs/monty.en.txt), the notes and the corpus.

Expected values come from the spec text (parsed here), from the oracle table the reference crate's driver
logged (``*.plies.tsv``), from python-chess, or from hand arithmetic; the whole corpus files go through the
declarations' own round trip (construct's ``common()`` check).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import chess
import construct as cs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessformats.engine import bit_fields, describe
from chessformats.engine.layout import struct_format
from chessformats.schemas import monty as schema
from roundtrip import assert_rebuilds, assert_roundtrip

POLICY = ("monty", "reference_generated_policy.montyformat")
VALUE = ("monty", "reference_generated_value.montyvalue")
TSV = ("monty", "reference_generated_policy.montyformat.plies.tsv")


@cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def spec(spec_path: Callable[..., Path]) -> str:
    return _text(spec_path("monty.en.txt"))


@pytest.fixture(scope="module")
def policy(corpus_path: Callable[..., Path]) -> bytes:
    return corpus_path(*POLICY).read_bytes()


@pytest.fixture(scope="module")
def value(corpus_path: Callable[..., Path]) -> bytes:
    return corpus_path(*VALUE).read_bytes()


@pytest.fixture(scope="module")
def oracle(corpus_path: Callable[..., Path]) -> list[dict[str, str]]:
    with corpus_path(*TSV).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


# --- moves ------------------------------------------------------------------------------------------------

def test_move_bits_are_the_spec_formula(spec: str) -> None:
    # "uint16_t move = flag | (destination << 4) | (source << 10);" and "4 bit flag, 6 bit destination, 6 bit source"
    assert "flag | (destination << 4) | (source << 10)" in spec
    fields = {name: (f.shift, f.width) for name, f in bit_fields(schema.MOVE).items()}
    assert fields == {"flag": (0, 4), "destination": (4, 6), "source": (10, 6)}
    rows = {row.path: row for row in describe(schema.MOVE)}
    assert all(row.little_endian for row in rows.values())  # "All values are written in little endian."


def test_spec_examples(spec: str) -> None:
    examples = re.findall(r"from (\w\d) to (\w\d)[^:]*:\s*Source: (\d+)\s*Destination: (\d+)\s*Flag: (\d+)\s*"
                          r"Final result: [^=]*= (\d+)", spec)
    assert len(examples) == 3
    for origin, target, source, destination, flag, result in examples:
        # the spec's own examples number squares rank-major (G1 = 6, F3 = 21), as python-chess does,
        # although its prose says "0=A1 1=A2" (notes/monty.md, point 1)
        assert chess.parse_square(origin.lower()) == int(source)
        assert chess.parse_square(target.lower()) == int(destination)
        data = schema.MOVE.build({"source": int(source), "destination": int(destination), "flag": int(flag)})
        assert data == int(result).to_bytes(2, "little")
        assert_roundtrip(schema.MOVE, data, {"source": int(source), "destination": int(destination),
                                             "flag": flag_name(int(flag))}, size=2)


# spec wording -> declared name; the spec lists the flags in value order, "(unused)" for 6 and 7
SPEC_FLAG_NAMES = {
    "Quiet move": "quiet", "Pawn double push": "double_push", "Kingside Castling": "king_castle",
    "Queenside Castling": "queen_castle", "Capture": "capture", "En Passant": "en_passant",
    "Knight Promotion": "knight_promotion", "Bishop Promotion": "bishop_promotion",
    "Rook Promotion": "rook_promotion", "Queen Promotion": "queen_promotion",
    "Knight Promotion Capture": "knight_promotion_capture", "Bishop Promotion Capture": "bishop_promotion_capture",
    "Rook Promotion Capture": "rook_promotion_capture", "Queen Promotion Capture": "queen_promotion_capture",
}


def test_flag_table_matches_spec(spec: str) -> None:
    section = spec[spec.index("The flags are as follows:"):spec.index("A few examples:")]
    listed = re.findall(r"^- (.+?)\s*$", section, flags=re.MULTILINE)
    assert len(listed) == 16
    for value, text in enumerate(listed):
        if text == "(unused)":
            assert value not in schema.FLAG.meanings
        else:
            assert schema.FLAG.meanings[value][0] == SPEC_FLAG_NAMES[text], value


@given(st.integers(0, 63), st.integers(0, 63), st.sampled_from(sorted(schema.FLAG.meanings)))
def test_move_round_trip(source: int, destination: int, flag: int) -> None:
    data = (flag | destination << 4 | source << 10).to_bytes(2, "little")
    assert_roundtrip(schema.MOVE, data, {"source": source, "destination": destination, "flag": flag_name(flag)},
                     size=2)


def flag_name(flag: int) -> str:
    return schema.FLAG.meanings[flag][0]


def expected_flag(board: chess.Board, move: chess.Move) -> int:
    """The spec's flag of a move, from python-chess's predicates."""
    if board.is_castling(move):
        return 2 if board.is_kingside_castling(move) else 3
    capture = board.is_capture(move)
    if move.promotion:  # Knight, Bishop, Rook, Queen promotions are 8-11, the capturing ones 12-15
        return 8 + move.promotion - chess.KNIGHT + (4 if capture else 0)
    if board.is_en_passant(move):
        return 5
    if capture:
        return 4
    piece = board.piece_type_at(move.from_square)
    return 1 if piece == chess.PAWN and abs(move.to_square - move.from_square) == 16 else 0


def oracle_board(row: dict[str, str]) -> chess.Board:
    """The position of an oracle row: its FEN (castling letters in Monty's order), with its ep byte."""
    placement, turn, _, _, halfmove, fullmove = row["fen_before(as_fen,no ep)"].split()
    board = chess.Board(f"{placement} {turn} - - {halfmove} {fullmove}")
    board.ep_square = int(row["enp_sq_byte_before"]) or None
    return board


def test_move_codes_of_the_oracle(oracle: list[dict[str, str]]) -> None:
    assert len(oracle) == 132
    for row in oracle:
        code = int(row["move_u16"])
        parsed = schema.MOVE.parse(code.to_bytes(2, "little"))
        move = chess.Move.from_uci(row["uci"])
        board = oracle_board(row)
        mover, target = board.piece_at(move.from_square), board.piece_at(move.to_square)
        if mover and target and mover.piece_type == chess.KING and target == chess.Piece(chess.ROOK, mover.color):
            # Chess960 castling, logged king-takes-own-rook (g8h8): stored as the king's move to the g-file,
            # here g8 itself, with flag 2 (notes, point 8)
            assert (row["game"], row["uci"]) == ("3", "g8h8")
            assert (parsed.source, parsed.destination, int(parsed.flag)) == (chess.G8, chess.G8, 2)
            continue
        assert (parsed.source, parsed.destination) == (move.from_square, move.to_square), row
        # the position's castling rights are not needed for the flag of a non-castling move
        if board.piece_type_at(move.from_square) == chess.KING and abs(move.to_square - move.from_square) == 2:
            assert int(parsed.flag) == (2 if move.to_square > move.from_square else 3), row
        else:
            assert int(parsed.flag) == expected_flag(board, move), row


# --- the header -------------------------------------------------------------------------------------------

def test_header_layout_matches_spec_and_notes(spec: str) -> None:
    # "struct CompressedBoard { uint64_t bitboards[4]; uint8_t side_to_move; ... uint16_t fullmove_clock; };"
    body = spec[spec.index("struct CompressedBoard {"):spec.index("};")]
    sizes = {"uint64_t": 8, "uint8_t": 1, "uint16_t": 2}
    declared = re.findall(r"(uint\d+_t) (\w+)(?:\[(\d+)\])?;", body)
    ours = ["board", "side_to_move", "ep_square", "castling_rights", "halfmove_clock", "fullmove_number"]
    rows = {row.path: row for row in describe(schema.HEADER)}
    offset = 0
    for (kind, _, count), name in zip(declared, ours, strict=True):
        size = sizes[kind] * int(count or 1)
        assert (rows[name].offset, rows[name].size) == (offset, size), name
        offset += size
    # notes/monty.md point 3: then 4 rook files (Q K q k) and the result byte: 43 bytes
    for name in ("white_queenside_rook", "white_kingside_rook", "black_queenside_rook", "black_kingside_rook",
                 "result"):
        assert (rows[name].offset, rows[name].size) == (offset, 1), name
        offset += 1
    assert schema.HEADER_SIZE == schema.HEADER.sizeof() == offset == 43
    assert struct_format(schema.HEADER) == "<32sBBBBHBBBBB"


def test_castling_bits_match_spec(spec: str) -> None:
    # "the layout is 0b0000'QKqk": Q is bit 3, K bit 2, q bit 1, k bit 0
    letters = re.search(r"0b0000'([QKqk]{4})", spec)
    assert letters is not None
    names = {"Q": "white_queenside", "K": "white_kingside", "q": "black_queenside", "k": "black_kingside"}
    fields = bit_fields(schema.CASTLING_RIGHTS)
    for position, letter in enumerate(letters.group(1)):
        assert (fields[names[letter]].shift, fields[names[letter]].width) == (3 - position, 1)
    for rights in range(16):
        expected = {"unused": 0, "white_queenside": bool(rights & 8), "white_kingside": bool(rights & 4),
                    "black_queenside": bool(rights & 2), "black_kingside": bool(rights & 1)}
        assert_roundtrip(schema.CASTLING_RIGHTS, bytes([rights]), expected, size=1)


def test_enums_match_spec(spec: str) -> None:
    # "A single uint8_t, with white=0 and black=1." and "0 for loss, 1 for draw, 2 for win (from the perspective
    # of white)"
    assert "white=0 and black=1" in spec and "0 for loss, 1 for draw, 2 for win" in spec
    assert {v: n for v, (n, _) in schema.SIDE.meanings.items()} == {0: "white", 1: "black"}
    assert {v: n for v, (n, _) in schema.RESULT.meanings.items()} == {0: "black_wins", 1: "draw", 2: "white_wins"}


# the spec's compression, as C: bitboards[0] = black; [1] = rooks | queens | kings; [2] = knights | bishops | kings;
# [3] = pawns | bishops | queens
def spec_compress(pieces: dict[str, int]) -> tuple[int, int, int, int]:
    return (pieces["black"], pieces["rooks"] | pieces["queens"] | pieces["kings"],
            pieces["knights"] | pieces["bishops"] | pieces["kings"],
            pieces["pawns"] | pieces["bishops"] | pieces["queens"])


PLACEMENTS = st.dictionaries(st.integers(0, 63), st.tuples(st.sampled_from(chess.PIECE_TYPES), st.booleans()))


@given(PLACEMENTS)
def test_board_adapter_expands_the_spec_compression(placement: dict[int, tuple[int, bool]]) -> None:
    pieces = {name: 0 for name in ("white", "black", "pawns", "knights", "bishops", "rooks", "queens", "kings")}
    for square, (piece_type, white) in placement.items():
        pieces["white" if white else "black"] |= 1 << square
        pieces[chess.PIECE_NAMES[piece_type] + "s"] |= 1 << square
    data = b"".join(bb.to_bytes(8, "little") for bb in spec_compress(pieces))
    parsed = assert_roundtrip(schema.BOARD, data, schema.PieceBitboards(**pieces), size=32)
    assert parsed._asdict() == pieces
    assert schema.BOARD.build(schema.PieceBitboards(**pieces)) == data


@given(st.binary(min_size=32, max_size=32))
def test_board_adapter_keeps_any_bytes(data: bytes) -> None:
    assert schema.BOARD.build(schema.BOARD.parse(data)) == data


def test_start_position_header(policy: bytes) -> None:
    header = assert_rebuilds(schema.HEADER, policy[:43], size=43)
    board = chess.Board()
    assert header.board == schema.PieceBitboards(
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns, board.knights, board.bishops,
        board.rooks, board.queens, board.kings)
    assert (header.side_to_move, header.ep_square, header.halfmove_clock, header.fullmove_number) == ("white", 0, 0, 1)
    assert all(header.castling_rights[name] for name in ("white_queenside", "white_kingside", "black_queenside",
                                                          "black_kingside"))
    # standard rook files: 00 07 00 07 (notes, point 2)
    assert (header.white_queenside_rook, header.white_kingside_rook, header.black_queenside_rook,
            header.black_kingside_rook) == (0, 7, 0, 7)


# --- records, games, files ---------------------------------------------------------------------------------

def test_record_sizes_and_fast_formats() -> None:
    assert schema.MOVE.sizeof() == 2 and schema.PLY_HEAD.sizeof() == 5 and schema.VALUE_PLY.sizeof() == 4
    assert schema.TERMINATOR.sizeof() == 2 and schema.VALUE_TERMINATOR.sizeof() == 4  # notes, point 6
    assert struct_format(schema.PLY_HEAD) == "<HHB" and struct_format(schema.VALUE_PLY) == "<Hh"
    with pytest.raises(cs.SizeofError):
        schema.PLY.sizeof()


def test_whole_files_round_trip(policy: bytes, value: bytes) -> None:
    games = assert_rebuilds(schema.POLICY_FILE, policy, size=cs.SizeofError)
    value_games = assert_rebuilds(schema.VALUE_FILE, value, size=cs.SizeofError)
    # corpus/README.md: 5 games; the oracle lists 40, 30, 20, 30 and 12 plies
    assert [len(game.plies) for game in games] == [40, 30, 20, 30, 12]
    assert [len(game.plies) for game in value_games] == [40, 30, 20, 30, 12]
    for game, value_game in zip(games, value_games, strict=True):
        assert game.header == value_game.header
        assert [ply.move for ply in game.plies] == [ply.move for ply in value_game.plies]


def test_every_record_round_trips(policy: bytes, value: bytes, oracle: list[dict[str, str]]) -> None:
    codes = [int(row["move_u16"]) for row in oracle]
    plies = []
    for game_bytes, game in _games(schema.POLICY_GAME, policy):
        assert_rebuilds(schema.POLICY_GAME, game_bytes, size=cs.SizeofError)
        assert_rebuilds(schema.HEADER, game_bytes[:43], size=43)
        assert_rebuilds(schema.BITBOARDS, game_bytes[:32], size=32)
        position = 43
        for ply in game.plies:
            size = 5 + ply.num_moves
            assert_rebuilds(schema.PLY, game_bytes[position:position + size], size=cs.SizeofError)
            assert_rebuilds(schema.PLY_HEAD, game_bytes[position:position + 5], size=5)
            plies.append(int.from_bytes(game_bytes[position:position + 2], "little"))
            position += size
        assert_roundtrip(schema.TERMINATOR, game_bytes[position:], {"null_move": b"\x00\x00"}, size=2)
    assert plies == codes
    value_codes = []
    for game_bytes, game in _games(schema.VALUE_GAME, value):
        assert_rebuilds(schema.VALUE_GAME, game_bytes, size=cs.SizeofError)
        for index in range(len(game.plies)):
            record = game_bytes[43 + 4 * index:47 + 4 * index]
            assert_rebuilds(schema.VALUE_PLY, record, size=4)
            value_codes.append(int.from_bytes(record[:2], "little"))
        assert_rebuilds(schema.VALUE_TERMINATOR, game_bytes[-4:], size=4)
    assert value_codes == codes


def _games(game: cs.Construct, data: bytes) -> list[tuple[bytes, Any]]:
    """Each game's bytes and parsed value, cut with the declaration itself."""
    out = []
    position = 0
    while position < len(data):
        parsed = game.parse(data[position:])
        size = len(game.build(parsed))
        out.append((data[position:position + size], parsed))
        position += size
    return out


def test_visit_bytes_follow_the_count(policy: bytes) -> None:
    # game 0, ply 0 at offset 43: e1 39 (g2g4) | ab a0 (score 0xa0ab = 41131) | 14 (20 moves) | 20 visit bytes
    ply = schema.PLY.parse(policy[43:43 + 25])
    assert (ply.move.source, ply.move.destination, int(ply.move.flag)) == (chess.G2, chess.G4, 1)
    assert (ply.score, ply.num_moves, len(ply.visits)) == (41131, 20, 20)
    assert max(ply.visits) == 255
