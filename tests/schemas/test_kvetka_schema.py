"""The Kvetka declarations checked against the format specification (specs/kvetka.ru.txt).

No Kvetka implementation or book is public, so the spec is the oracle: expected values are parsed from
its text or worked out by hand from its rules (the arithmetic is in the comments), never taken from the
code under test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import chess
import construct as cs
import pytest

from chessformats.engine import describe, trace
from chessformats.engine.errors import FormatError, InvalidValueError, TruncatedError
from chessformats.engine.trace import parse
from chessformats.formats import kvetka
from chessformats.schemas import kvetka as schema
from roundtrip import assert_rebuilds, assert_roundtrip

SPEC = ("kvetka.ru.txt",)


@cache
def _spec_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def spec(spec_path: Callable[..., Path]) -> str:
    return _spec_text(spec_path(*SPEC))


# --- the move table ---------------------------------------------------------------------------------------

_PIECES = {"пешка": "pawn", "конь": "knight", "слон": "bishop", "ладья": "rook", "ферзь": "queen", "король": "king"}


def spec_move_table(text: str) -> dict[int, tuple[str, int, int, int]]:
    """``code -> (piece, number, dx, dy)`` from the spec's lines ``• 0x20: 1-й конь, x+1, y+2``."""
    table = {}
    for code, number, piece, steps in re.findall(
            r"0x([0-9A-F]{2}):\s*(?:(\d)-[йя]\s+)?(пешка|конь|слон|ладья|ферзь|король),\s*([^\n•]*?)\.?\s*$",
            text, re.MULTILINE):
        dx = dy = 0
        if "O-O-O" in steps:
            dx = 6
        elif "O-O" in steps:
            dx = 2
        else:
            for axis, value in re.findall(r"([xy])\+(\d)", steps):
                dx, dy = (int(value), dy) if axis == "x" else (dx, int(value))
        table[int(code, 16)] = (_PIECES[piece], int(number) if number else 1, dx, dy)
    return table


def test_move_table_is_the_specs(spec: str) -> None:
    expected = spec_move_table(spec)
    assert len(expected) == 193  # 0x00-0xC5 without 0x3A, 0x48, 0x80, 0x9C, 0xB8
    assert set(range(0xC6)) - set(expected) == {0x3A, 0x48, 0x80, 0x9C, 0xB8}
    declared = {m.code: (m.piece, m.number, m.dx, m.dy) for m in schema.MOVE_CODES}
    assert declared == expected


def test_move_codes_have_meanings() -> None:
    meanings = schema.MOVE_CODE.meanings
    assert meanings[0x11] == ("pawn5_y2", "0x11: 5th pawn, y+2")
    assert meanings[0xC4][0] == "king_O-O" and "O-O" in meanings[0xC4][1]
    assert len({name for name, _ in meanings.values()}) == len(meanings)


# one move code per piece kind, worked out from the table: pieces are counted in coding order
# (a1, a2, ..., a8, b1, ...) on the normalised board, steps are (right, up) modulo 8
@pytest.mark.parametrize(("fen", "uci", "code"), [
    (chess.STARTING_FEN, "e2e4", 0x11),  # e2 is the 5th pawn (a2 b2 c2 d2 e2); y+2: 0x10 + 1
    (chess.STARTING_FEN, "g1f3", 0x29),  # g1 is the 2nd knight (b1 g1); x+7 (one left), y+2: 0x28 + 1
    ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "f1c4", 0x47),  # 2nd bishop, x+5 y+3
    ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "d1h5", 0x79),  # 1st queen, x+4 y+4
    ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "a1a5", 0x4F),  # 1st rook (a1), y+4: 0x4C + 3
    ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "h1h3", 0x5B),  # 2nd rook (h1), y+2: 0x5A + 1
    ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1e2", 0xBC),  # king y+1
    ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1", 0xC4),  # O-O
    ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1", 0xC5),  # O-O-O
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "e7e5", 0x11),  # black: colours flipped first
    ("5k2/8/8/8/8/8/8/3K4 w - - 0 1", "d1c1", 0xBF),  # no castling, king on d: files mirrored, so x+1
    ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", 0x00),  # the only pawn, y+1, promotes to a queen
])
def test_move_code_per_piece_kind(fen: str, uci: str, code: int) -> None:
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert kvetka.encode_move(board, move) == code
    assert kvetka.decode_move(board, code) == move


def test_moves_without_a_code() -> None:
    board = chess.Board("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    assert kvetka.encode_move(board, chess.Move.from_uci("b7b8n")) is None  # only queen promotions
    three = chess.Board("4k3/8/8/8/8/8/8/NN2K1N1 w - - 0 1")
    assert kvetka.encode_move(three, chess.Move.from_uci("g1f3")) is None  # a third knight


# --- CompactInt ----------------------------------------------------------------------------------------------

def spec_read_compact_int(data: bytes) -> int:
    """The spec's loop: ``repeat i := ReadNextByte; result := (result shl 7) + (i and 127) until i < 128``."""
    result = 0
    for i in data:
        result = (result << 7) + (i & 127)
        if i < 128:
            break
    return result


@pytest.mark.parametrize(("value", "encoded"), [
    (0, "00"),
    (5, "05"),
    (127, "7f"),  # the largest one-digit number
    (128, "8100"),  # 1 * 128 + 0: first digit 1 with bit 7 set (0x81), last digit 0
    (300, "822c"),  # 300 = 2 * 128 + 44: 0x80 | 2, 44 = 0x2c
    (16383, "ff7f"),  # 127 * 128 + 127
    (16384, "818000"),  # 1 * 128^2 + 0 + 0
    (2097152, "81808000"),  # 2^21 = 1 * 128^3
])
def test_compact_int_vectors(value: int, encoded: str) -> None:
    data = bytes.fromhex(encoded)
    assert spec_read_compact_int(data) == value  # the vector follows the spec's own algorithm
    assert schema.compact_int_bytes(value) == data
    assert schema.read_compact_int(data, 0, len(data)) == (value, len(data))
    assert_roundtrip(schema.CompactInt(), data, value, size=cs.SizeofError)


def test_compact_int_errors() -> None:
    with pytest.raises(TruncatedError) as truncated:
        parse(schema.ELEMENT, bytes.fromhex("81"), file="x.kob", offset=100)
    assert truncated.value.offset == 100 and truncated.value.path == "length"
    with pytest.raises(InvalidValueError) as long:
        parse(schema.ELEMENT, b"\x80" * 11 + b"\x01", file="x.kob")
    assert long.value.path == "length"
    with pytest.raises(ValueError):
        schema.read_compact_int(b"\x80" * 11, 0, 11)
    with pytest.raises(IndexError):
        schema.read_compact_int(b"\x81", 0, 1)
    with pytest.raises(ValueError):
        schema.compact_int_bytes(-1)


# --- strings -------------------------------------------------------------------------------------------------

def test_strings() -> None:
    # Unicode: length in characters, UTF-16 big-endian (our choice); "A41" = 3 characters, 6 bytes
    assert_roundtrip(schema.UNICODE_STRING, bytes.fromhex("00000003 0041 0034 0031".replace(" ", "")), "A41",
                     size=cs.SizeofError)
    # ANSI: length in bytes, Windows-1251: "Ян" = 0xdf 0xed
    assert_roundtrip(schema.ANSI_STRING, bytes.fromhex("00000002dfed"), "Ян", size=cs.SizeofError)
    # bytes Windows-1251 does not define (0x98) and lone UTF-16 surrogates survive a round trip
    assert_roundtrip(schema.ANSI_STRING, bytes.fromhex("0000000198"), "\udc98", size=cs.SizeofError)
    assert_roundtrip(schema.UNICODE_STRING, bytes.fromhex("00000001d800"), "\ud800", size=cs.SizeofError)
    assert schema.ANSI_STRING.build("李") == bytes.fromhex("000000013f")  # not in Windows-1251: "?"
    with pytest.raises(TruncatedError):
        parse(schema.UNICODE_STRING, bytes.fromhex("7fffffff0041"))  # a huge length is not allocated


# --- the key ---------------------------------------------------------------------------------------------------

# Square codes (spec): 0 empty, 11c pawn, 1011c rook, 1010c bishop, 1001c knight, 10001c queen, 10000c king;
# c = 1 for black. Squares a1, a2, ..., a8, b1, ..., h8; then 4 bits en passant, 4 bits castling
# (black O-O, black O-O-O, white O-O, white O-O-O), zeros to 176 bits.
R, N, B, Q, K, P = "10110", "10010", "10100", "100010", "100000", "110"
r, n, b, q, k, p = "10111", "10011", "10101", "100011", "100001", "111"


def _key(files: list[str], ep: str, castling: str) -> bytes:
    bits = "".join(files) + ep + castling
    assert len(bits) <= 176
    return int(bits.ljust(176, "0"), 2).to_bytes(22, "big")


START_FILES = [
    R + P + "0000" + p + r,  # a1 R, a2 P, a3-a6 empty, a7 p, a8 r: 20 bits
    N + P + "0000" + p + n,  # b
    B + P + "0000" + p + b,  # c
    Q + P + "0000" + p + q,  # d: 22 bits
    K + P + "0000" + p + k,  # e: 22 bits
    B + P + "0000" + p + b,  # f
    N + P + "0000" + p + n,  # g
    R + P + "0000" + p + r,  # h; 6 * 20 + 2 * 22 = 164 bits
]


def test_start_position_key() -> None:
    key = _key(START_FILES, "0000", "1111")  # 164 + 8 = 172 bits, 4 zero bits of padding
    assert key.hex() == "b60f7960f3a60f58b078e0c1e1a60f5960f3b60f70f0"
    assert kvetka.position_key(chess.Board()) == key
    board, padding = kvetka.decode_key(key)
    assert board.board_fen() == chess.Board().board_fen() and padding == 0
    assert board.castling_rights == chess.BB_CORNERS


def test_key_en_passant_and_castling() -> None:
    # 1. e4 d5 2. e5 f5: f5 has just advanced two squares beside the e5 pawn: ep = file f = 6 = 0110
    board = chess.Board()
    for san in ("e4", "d5", "e5", "f5"):
        board.push_san(san)
    files = list(START_FILES)
    files[3] = Q + P + "0" + "0" + p + "0" + "0" + q  # d: d5 black pawn, d7 empty
    files[4] = K + "0" + "0" + "0" + P + "0" + p + k  # e: e2 empty, e5 white pawn, e7 black pawn
    files[5] = B + P + "0" + "0" + p + "0" + "0" + b  # f: f5 black pawn, f7 empty
    assert kvetka.position_key(board) == _key(files, "0110", "1111")
    # without an enemy pawn beside it, a double step leaves the ep bits 0000 (1. e4: no black pawn on d4/f4)
    board = chess.Board()
    board.push_san("e4")
    # black to move: colours swapped and ranks mirrored, so black's pieces are coded as white ones on
    # ranks 1-2 and white's e4 pawn becomes a black pawn on e5
    files = list(START_FILES)
    files[4] = K + P + "0" + "0" + p + "0" + "0" + k  # e1 K, e2 P, e5 p, e7 empty, e8 k
    assert kvetka.position_key(board) == _key(files, "0000", "1111")


def test_key_pseudo_legal_en_passant_counts() -> None:
    # the spec: "it does not matter whether the capture is legal": the e5 pawn is pinned against the king
    # on e1 by the rook on e8... here a pinned capturer: white king a5, black rook h5, pawns e5 and d5 (d7-d5)
    board = chess.Board("8/8/8/K2pP2r/8/8/8/7k w - d6 0 2")
    assert not board.has_legal_en_passant()
    key = kvetka.position_key(board)
    norm = kvetka.decode_key(key)[0]
    assert norm.ep_square is not None  # ep nibble set (the files are mirrored: king on a)


def test_key_colour_flip_and_mirror() -> None:
    kings = ["0" * 8] * 4 + [K + "000000" + k] + ["0" * 8] * 3  # e1 K, e8 k: 74 bits
    expected = _key(kings, "0000", "0000")
    assert expected.hex() == "00000000800840" + "00" * 15  # 32 zeros, then 100000 000000 100001, zeros
    assert kvetka.position_key(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == expected
    # no castling and the king on d1 (files 1-4): mirrored left to right, d1 -> e1, d8 -> e8
    assert kvetka.position_key(chess.Board("3k4/8/8/8/8/8/8/3K4 w - - 0 1")) == expected
    # black to move: colours and ranks swapped, then the same
    assert kvetka.position_key(chess.Board("4k3/8/8/8/8/8/8/4K3 b - - 0 1")) == expected
    # with a pawn: black pawn on e7 and white to move == white pawn on e2 and black to move
    with_pawn = _key(["0" * 8] * 4 + [K + "00000" + p + k] + ["0" * 8] * 3, "0000", "0000")
    assert kvetka.position_key(chess.Board("4k3/4p3/8/8/8/8/8/4K3 w - - 0 1")) == with_pawn
    assert kvetka.position_key(chess.Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")) == with_pawn


def test_key_declaration_round_trip() -> None:
    key = kvetka.position_key(chess.Board())
    parsed = assert_rebuilds(schema.KEY, key, size=22)
    assert parsed.squares[:8] == ["white_rook", "white_pawn", "empty", "empty", "empty", "empty", "black_pawn",
                                  "black_rook"]
    assert parsed.en_passant == "none" and parsed.padding == 0
    assert parsed.castling.black_short and parsed.castling.white_long
    # a reader accepts padding bits that are not zero
    odd = key[:-1] + bytes((key[-1] | 0x0F,))
    assert schema.KEY.parse(odd).padding == 15
    assert kvetka.decode_key(odd)[1] == 15


def test_key_that_does_not_fit() -> None:
    crowded = chess.Board("QQQQQQQQ/QQQQQQQQ/8/8/8/8/qqqqqqqq/qqqqkqqK w - - 0 1")
    with pytest.raises(kvetka.KeyOverflowError):
        kvetka.position_key(crowded)


# --- an element and a block, by hand ---------------------------------------------------------------------------

START_KEY = "b60f7960f3a60f58b078e0c1e1a60f5960f3b60f70f0"
AFTER_E4_KEY = "b60f7960f3a60f58b078e0c721a60f5960f3b60f70f0"  # e-file 100000 110 0 0 111 0 0 100001

HAND_ELEMENT = bytes.fromhex(
    "28"  # length: 22 + 2 + 1 + 1 + 1 + 2 + 1 + 4 + 6 = 40 = 0x28 (the length field itself not counted)
    + START_KEY  # key (22 bytes)
    + "822c"  # wins = 300 = 2 * 128 + 44
    + "01"  # draws = 1
    + "00"  # losses = 0
    + "02"  # move_number = 2
    + "11" + "0d"  # e2e4 = 5th pawn y+2 (0x11), d2d4 = 4th pawn y+2 (0x0d)
    + "01"  # flags: bit 0, a comment follows
    + "00000003" + "004100300030"  # comment "A00": 3 characters, UTF-16 big-endian
)
HAND_LEAF = bytes.fromhex(
    "1b"  # length: 22 + 1 + 1 + 1 + 1 + 1 = 27 = 0x1b
    + AFTER_E4_KEY + "00" + "01" + "05"  # wins 0, draws 1, losses 5 (black to move, after 1. e4)
    + "00"  # no moves
    + "00"  # no flags
)
HAND_BLOCK = (bytes.fromhex("0047")  # used: 2 + 41 + 28 = 71 = 0x47 (the spec: block size minus junk)
              + HAND_ELEMENT + HAND_LEAF + bytes(2048 - 71))


def test_element_by_hand() -> None:
    parsed = assert_rebuilds(schema.ELEMENT, HAND_ELEMENT, size=cs.SizeofError)
    assert parsed.length == 40 and len(HAND_ELEMENT) == 41
    body = parsed.body
    assert (body.wins, body.draws, body.losses) == (300, 1, 0)
    assert list(body.moves) == ["pawn5_y2", "pawn4_y2"]
    assert body.flags.comment and not body.flags.game_reference
    assert body.comment == "A00" and body.some_source is None and body.extra == b""
    element = kvetka.Element(bytes.fromhex(START_KEY), 300, 1, 0, (0x11, 0x0D), 0, None, "A00")
    assert element.to_bytes() == HAND_ELEMENT
    assert element.moves() == [chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")]


def test_block_by_hand() -> None:
    parsed = assert_rebuilds(schema.BLOCK, HAND_BLOCK, size=cs.SizeofError)
    assert parsed.used == 71 and len(parsed.elements) == 2 and parsed.junk == bytes(2048 - 71)
    assert START_KEY < AFTER_E4_KEY  # sorted by key: c1 < c7 in byte 12


def test_element_with_source_and_links() -> None:
    # flags 0x06: a source reference (bit 2) and game links (bit 1), honoured when element_type bit 0 is set
    # length: 22 + 3 (three CompactInt zeros) + 1 + 1 + 6 + 2 = 35 = 0x23
    data = bytes.fromhex("23" + START_KEY + "000000" + "00" + "06" + "0001" + "00000007" + "abcd")
    body = assert_rebuilds(schema.ELEMENT, data, size=cs.SizeofError, keeps_games=True).body
    assert body.some_source == {"source_number": 1, "game_in_source": 7} and body.game_links == b"\xab\xcd"
    # without element_type bit 0, flags bits 1 and 2 are ignored: what follows is extra data
    body = assert_rebuilds(schema.ELEMENT, data, size=cs.SizeofError, keeps_games=False).body
    assert body.some_source is None and body.game_links is None and len(body.extra) == 8


def test_element_errors_are_located() -> None:
    with pytest.raises(TruncatedError):
        parse(schema.ELEMENT, HAND_ELEMENT[:30], file="x.kob", offset=2)
    bad = bytearray(HAND_ELEMENT)
    bad[0] = 0x7F  # length past the end
    with pytest.raises(FormatError):
        parse(schema.ELEMENT, bytes(bad))


# --- header, files ---------------------------------------------------------------------------------------------

HEADER = bytes.fromhex(
    "01"  # type 1
    + "00000002" + "004b0042"  # caption "KB": 2 characters
    + "0000" + "0000" + "0960" + "0000"  # ELO filters: strongest player >= 2400 = 0x0960
    + "14"  # max_move 20 plies
    + "00"  # element_type: no game references
    + "00"  # links: no
    + "00000001"  # one block
)


def test_header() -> None:
    parsed = assert_roundtrip(schema.HEADER, HEADER, {
        "type": "book", "caption": "KB", "least_white_elo": 0, "least_black_elo": 0, "least_strong_elo": 2400,
        "least_weak_elo": 0, "max_move": 20, "element_type": {"unused": 0, "game_links": False}, "links": 0,
        "block_number": 1}, size=cs.SizeofError)
    assert parsed.type == "book" and parsed.caption == "KB" and parsed.least_strong_elo == 2400
    assert parsed.max_move == 20 and not parsed.element_type.game_links and parsed.block_number == 1
    kob = assert_rebuilds(schema.KOB, HEADER + HAND_BLOCK, size=cs.SizeofError)
    assert len(kob.blocks) == 1 and kob.blocks[0].elements[1].body.losses == 5


def test_kin() -> None:
    data = bytes.fromhex(START_KEY + AFTER_E4_KEY)
    parsed = assert_rebuilds(schema.KIN, data, size=cs.SizeofError)
    assert len(parsed) == 2


# two sources: the table of contents (4 + 2 * 4 bytes) padded to 512; the first source is
# 2 + 10 + 4 + 23 = 39 bytes, so the second starts at 512 + 39 = 551 = 0x227
KSF = (bytes.fromhex("00000002" + "00000200" + "00000227") + bytes(512 - 12)
       + bytes.fromhex(
           "01" + "00"  # a PGN file, not bad
           + "00000003" + "0061002e0070"  # address "a.p" (3 characters)
           + "00000001"  # one game
           + "00000000" + "00000064"  # at offset 0, 100 bytes long
           + "00000001" + "41" + "00000001" + "42"  # white "A", black "B"
           + "0960" + "0000" + "01"  # white 2400, black unknown, 1-0 (the game: 4 + 4 + 5 + 5 + 2 + 2 + 1 = 23)
       ))


def test_ksf() -> None:
    # the table of contents is padded to 512 bytes; the second source follows the first (39 bytes)
    second = bytes.fromhex(
        "02" + "01"  # a web page, known to be bad
        + "00000000"  # empty address
        + "00000001"
        + "0800002a"  # bits 26-31 = 2 (crestbook.com): 0x08 = 000010 00; bits 0-25 = game number 42
        + "00000000" + "00000000" + "00000000" + "0000" + "0000" + "03")
    parsed = assert_rebuilds(schema.KSF, KSF + second, size=cs.SizeofError)
    assert parsed.toc.addresses == [512, 551]
    assert parsed.sources[0].address == "a.p" and parsed.sources[0].games[0].white_elo == 2400
    game = parsed.sources[1].games[0]
    assert game.game_address.kind == "crestbook" and game.game_address.position == 42
    assert game.game_result == "unknown" and parsed.sources[1].is_bad == 1


def test_source_reference() -> None:
    assert_roundtrip(schema.SOURCE_REF, bytes.fromhex("000300000009"), {"source_number": 3, "game_in_source": 9},
                     size=6)


def test_every_field_has_a_meaning() -> None:
    for structure in schema.FORMAT.structures:
        for field in describe(structure.declaration):
            assert field.meaning, (structure.title, field.path)


def test_trace_reports_every_square() -> None:
    _, fields = trace(schema.ELEMENT, HAND_ELEMENT, offset=2)
    paths = [f.path for f in fields]
    assert "body.key.squares.a1" in paths and "body.key.squares.h8" in paths
    square = next(f for f in fields if f.path == "body.key.squares.a1")
    assert square.value == "white_rook" and square.start == 2 + 1  # after the length byte
    comment = next(f for f in fields if f.path == "body.comment")
    assert comment.value == "A00"


def test_writer_makes_the_hand_block(tmp_path: Path) -> None:
    # the writer's own output for the two hand elements (given out of order: it sorts them by key)
    leaf = kvetka.Element(bytes.fromhex(AFTER_E4_KEY), 0, 1, 5)
    start = kvetka.Element(bytes.fromhex(START_KEY), 300, 1, 0, (0x11, 0x0D), 0, None, "A00")
    result = kvetka.write_book(tmp_path / "hand.kob", [leaf, start], caption="KB", max_move=20,
                               elo_filters=(0, 0, 2400, 0))
    assert result.files == [str(tmp_path / "hand_0.kob"), str(tmp_path / "hand.kin")]
    assert (tmp_path / "hand_0.kob").read_bytes() == HEADER + HAND_BLOCK
    assert (tmp_path / "hand.kin").read_bytes() == bytes.fromhex(START_KEY)  # the first key of the one block
    assert not (tmp_path / "hand.ksf").exists()


# --- the element, game and source codecs Kvetka's reader and writer use (formats/kvetka) against construct ------

_KEYS = [kvetka.position_key(chess.Board(fen)) for fen in (
    chess.STARTING_FEN, "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    "8/8/8/4k3/8/8/4K3/8 w - - 0 1")]


def _element_values() -> Any:
    from hypothesis import strategies as st

    counts = st.integers(0, 2**40)
    return st.fixed_dictionaries({
        "key": st.sampled_from(_KEYS), "wins": counts, "draws": counts, "losses": counts,
        "codes": st.lists(st.sampled_from([m.code for m in schema.MOVE_CODES]), max_size=12).map(tuple),
        "flags": st.sampled_from([0, 0x08, 0x80]),
        "source": st.none() | st.tuples(st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF)),
        "comment": st.none() | st.text(max_size=20), "game_links": st.none() | st.binary(max_size=8),
        "extra": st.binary(max_size=4)})


def _agree(element: kvetka.Element, keeps_games: bool) -> None:
    from chessformats.formats.kvetka.model import ELEMENT

    data = element.to_bytes(keeps_games)
    parsed = schema.ELEMENT.parse(data, keeps_games=keeps_games)
    assert schema.ELEMENT.build(parsed, keeps_games=keeps_games) == data  # construct's build of its parse
    (length, values), end = ELEMENT.read(data, 0, len(data), {"keeps_games": keeps_games})
    assert length == parsed.length and end == len(data)
    body = parsed.body
    flags = schema.ELEMENT_FLAGS.build(body.flags)[0]
    assert values == (schema.KEY.build(body.key), body.wins, body.draws, body.losses, body.move_number,
                                 [schema.MOVE_CODE.build(code)[0] for code in body.moves], flags,
                                 None if body.some_source is None else (body.some_source.source_number,
                                                                        body.some_source.game_in_source),
                                 body.comment, body.game_links, body.extra)
    assert ELEMENT.encode((length, values), {"keeps_games": keeps_games}) == data


def test_element_record_agrees_with_construct() -> None:
    from hypothesis import given, settings

    @settings(max_examples=300, deadline=None)
    @given(_element_values(), st_booleans())
    def check(values: dict[str, Any], keeps_games: bool) -> None:
        element = kvetka.Element(**values)
        if not keeps_games:  # a book without game links stores game bits of flags as they are, no parts
            element = kvetka.Element(**{**values, "source": None, "game_links": None})
        _agree(element, keeps_games)

    check()


def st_booleans() -> Any:
    from hypothesis import strategies as st

    return st.booleans()


def test_element_record_agrees_on_a_corpus_built_book(tmp_path: Path) -> None:
    from chessformats.books.build import BookBuilder
    from chessformats.books.kvetka import pgn_sources, write_book
    from chessformats.engine.schema import enum_view
    from conftest import find_corpus

    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    text = pgn.read_text(errors="replace")
    part = tmp_path / "part.pgn"
    part.write_text(text[:text.index("[Event ", 100_000)])
    builder = BookBuilder(max_ply=10)
    builder.add_pgn_text(part.read_text())
    sources, references = pgn_sources([part], max_ply=10)
    write_book(tmp_path / "book", builder.to_stats(), sources=sources, references=references)
    with kvetka.open_book(tmp_path / "book") as book:
        elements = list(book.elements())
        assert len(elements) > 500 and book.keeps_games
        for element in elements:
            _agree(element, True)
            assert book.read(element.offset or 0, len(element.to_bytes())) == element.to_bytes()
        assert book.sources is not None
        for number in range(len(book.sources)):  # the .ksf's sources as read == construct's parse
            source, _ = book.sources.source(number)
            data = (tmp_path / "book.ksf").read_bytes()
            parsed = schema.SOURCE.parse(data[book.sources.addresses[number]:])
            assert (source.source_type, source.is_bad, source.address) == (
                enum_view(schema.SOURCE_TYPE).values[parsed.source_type], parsed.is_bad, parsed.address)
            results = enum_view(schema.GAME_RESULT).values
            assert [(g.white, g.black, g.white_elo, g.black_elo, g.length, g.address, g.result)
                    for g in source.games] == [(g.white, g.black, g.white_elo, g.black_elo, g.game_length,
                                                g.game_address, results[g.game_result]) for g in parsed.games]
