"""The Polyglot declarations checked against the format specification (specs/polyglot.ru.txt).

Expected values come from the spec text (parsed here, not copied from the code under test) or from
hand arithmetic on the spec's bit layout.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import chess
import chess.polyglot
import construct as cs
import numpy as np
import pytest

from chessformats.engine import bit_fields, describe, enum_meanings, numpy_dtype, trace
from chessformats.polyglot import ENTRY_DTYPE
from chessformats.schemas import polyglot as schema
from roundtrip import assert_rebuilds, assert_roundtrip

SPEC = ("polyglot.ru.txt",)


@cache
def _spec_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def spec(spec_path: Callable[..., Path]) -> str:
    return _spec_text(spec_path(*SPEC))


def spec_randoms(text: str) -> list[int]:
    """The Random64 array as the spec prints it: ``U64(0x9D39247E33776D41), ...`` up to ``};``."""
    start = text.index("Random64[781]")
    end = text.index("};", start)
    return [int(value, 16) for value in re.findall(r"U64\(0x([0-9A-Fa-f]{16})\)", text[start:end])]


# --- the entry ----------------------------------------------------------------------------------------

def test_entry_layout_matches_spec(spec: str) -> None:
    # "• key: (8 б) ...", "• move: (2 б)", "• weight: (2 б)", "• learn: (4 б)"
    sizes = re.findall(r"•\s*(\w+):\s*\((\d+)\s*б\)", spec)
    assert [name for name, _ in sizes] == ["key", "move", "weight", "learn"]
    rows = {row.path: row for row in describe(schema.ENTRY)}
    offset = 0
    for name, size in sizes:
        assert (rows[name].offset, rows[name].size) == (offset, int(size)), name
        offset += int(size)
    assert schema.ENTRY_SIZE == schema.ENTRY.sizeof() == offset == 16


def test_move_bits_match_spec(spec: str) -> None:
    # "Биты имеют следующие значения (бит 0 - самый младший):  • 0,1,2 - вертикальная координата конечной ..."
    section = spec[spec.index("Параметр move"):spec.index("Координаты клеток")]
    listed = re.findall(r"•\s*([\d,]+)\s*-\s*(.+?),?\s*$", section, flags=re.MULTILINE)
    # In Russian chess usage "вертикаль" is a file and "горизонталь" a rank.
    names = {
        "вертикальная координата конечной клетки": "to_file",
        "горизонтальная координата конечной клетки": "to_rank",
        "вертикальная координата начальной клетки": "from_file",
        "горизонтальная координата начальной клетки": "from_rank",
        "фигура, появившаяся после продвижения пешки (если такая есть).": "promotion",
    }
    assert len(listed) == 5
    fields = bit_fields(schema.MOVE)
    described = {row.path: row for row in describe(schema.ENTRY)}
    for bits, text in listed:
        numbers = [int(b) for b in bits.split(",")]
        name = names[text.strip()]
        assert (fields[name].shift, fields[name].width) == (numbers[0], len(numbers)), name
        assert numbers == list(range(numbers[0], numbers[-1] + 1))
        assert described[f"move.{name}"].bits == (numbers[0], numbers[-1]), name
    # the one bit the spec leaves out (15) is the reserved field
    assert (fields["reserved"].shift, fields["reserved"].width) == (15, 1)


def test_promotion_codes_match_spec(spec: str) -> None:
    section = spec[spec.index("Фигура кодируется следующим образом"):spec.index("Пустой ход")]
    listed = re.findall(r"•\s*([^-•]+?)\s*-\s*(\d)", section)
    pieces = {"Никакой фигуры": "none", "конь": "knight", "слон": "bishop", "ладья": "rook", "ферзь": "queen"}
    expected = {int(code): pieces[word] for word, code in listed}
    assert expected == {0: "none", 1: "knight", 2: "bishop", 3: "rook", 4: "queen"}
    assert {value: name for value, (name, _) in schema.PROMOTION.meanings.items()} == expected


def test_numpy_dtype() -> None:
    dtype = numpy_dtype(schema.ENTRY)
    assert dtype.names == ("key", "move", "weight", "learn")
    assert [dtype.fields[name][0].str for name in dtype.names] == [">u8", ">u2", ">u2", ">u4"]
    assert dtype.itemsize == 16
    assert np.dtype(">u8,>u2,>u2,>u4").itemsize == 16
    assert [t for t, *_ in np.dtype(">u8,>u2,>u2,>u4").fields.values()] == \
        [dtype.fields[name][0] for name in dtype.names]
    assert ENTRY_DTYPE == dtype


# --- construct round trips with hand-computed values ------------------------------------------------------
#
# move = to_file | to_rank << 3 | from_file << 6 | from_rank << 9 | promotion << 12  (spec: bit 0 = LSB)

MOVES = [
    # e2e4 = to_file 4 | to_rank 3<<3 | from_file 4<<6 | from_rank 1<<9 = 4 + 24 + 256 + 512 = 796 = 0x031C
    ("031C", dict(reserved=0, promotion="none", from_rank=1, from_file=4, to_rank=3, to_file=4)),
    # e7e8=Q = 4 | 7<<3 | 4<<6 | 6<<9 | 4<<12 = 4 + 56 + 256 + 3072 + 16384 = 19772 = 0x4D3C
    ("4D3C", dict(reserved=0, promotion="queen", from_rank=6, from_file=4, to_rank=7, to_file=4)),
    # a7b8=N = 1 | 7<<3 | 0<<6 | 6<<9 | 1<<12 = 1 + 56 + 3072 + 4096 = 7225 = 0x1C39
    ("1C39", dict(reserved=0, promotion="knight", from_rank=6, from_file=0, to_rank=7, to_file=1)),
    # h2h1=R (black) = 7 | 0<<3 | 7<<6 | 1<<9 | 3<<12 = 7 + 448 + 512 + 12288 = 13255 = 0x33C7
    ("33C7", dict(reserved=0, promotion="rook", from_rank=1, from_file=7, to_rank=0, to_file=7)),
    # g2f1=B (black) = 5 | 0 | 6<<6 | 1<<9 | 2<<12 = 5 + 384 + 512 + 8192 = 9093 = 0x2385
    ("2385", dict(reserved=0, promotion="bishop", from_rank=1, from_file=6, to_rank=0, to_file=5)),
    # white short castling, stored e1h1 = 7 | 0 | 4<<6 | 0 = 263 = 0x0107
    ("0107", dict(reserved=0, promotion="none", from_rank=0, from_file=4, to_rank=0, to_file=7)),
    # black long castling, stored e8a8 = 0 | 7<<3 | 4<<6 | 7<<9 = 56 + 256 + 3584 = 3896 = 0x0F38
    ("0F38", dict(reserved=0, promotion="none", from_rank=7, from_file=4, to_rank=7, to_file=0)),
    # a1a1: the empty move
    ("0000", dict(reserved=0, promotion="none", from_rank=0, from_file=0, to_rank=0, to_file=0)),
    # bit 15 set and the undefined promotion code 5: kept as numbers, rebuilt identically
    # 0x8000 | 5<<12 | e2e4 = 0x8000 + 0x5000 + 0x031C = 0xD31C
    ("D31C", dict(reserved=1, promotion=5, from_rank=1, from_file=4, to_rank=3, to_file=4)),
]


@pytest.mark.parametrize(("raw", "fields"), MOVES, ids=[raw for raw, _ in MOVES])
def test_move_roundtrip(raw: str, fields: dict[str, object]) -> None:
    assert_roundtrip(schema.MOVE, bytes.fromhex(raw), fields, size=2)


@pytest.mark.parametrize(("raw", "fields"), MOVES, ids=[raw for raw, _ in MOVES])
def test_move_agrees_with_python_chess_decoding(raw: str, fields: dict[str, object]) -> None:
    """python-chess decodes the same 16 bits (to = bits 0-5, from = bits 6-11, promotion = bits 12-14)."""
    value = int(raw, 16)
    parsed = schema.MOVE.parse(bytes.fromhex(raw))
    assert chess.square(parsed.to_file, parsed.to_rank) == value & 0x3F
    assert chess.square(parsed.from_file, parsed.from_rank) == (value >> 6) & 0x3F


# The spec's start-position key (463b96181691fc9c), e2e4, weight 0x1234, learn 0xDEADBEEF
ENTRY_HEX = "463b96181691fc9c" "031c" "1234" "deadbeef"


def test_entry_roundtrip() -> None:
    assert_roundtrip(schema.ENTRY, bytes.fromhex(ENTRY_HEX), {
        "key": 0x463B96181691FC9C,
        "move": dict(MOVES[0][1]),
        "weight": 0x1234,
        "learn": 0xDEADBEEF,
    }, size=16)


def test_entry_roundtrip_extremes() -> None:
    data = bytes.fromhex("ffffffffffffffff" "0000" "0000" "00000000")  # rodent3_empty.bin's only entry
    assert_roundtrip(schema.ENTRY, data, {"key": 2**64 - 1, "move": dict(MOVES[7][1]), "weight": 0, "learn": 0},
                     size=16)
    data = bytes.fromhex("0000000000000001" "ffff" "ffff" "ffffffff")
    every = {"reserved": 1, "promotion": 7, "from_rank": 7, "from_file": 7, "to_rank": 7, "to_file": 7}
    parsed = assert_roundtrip(schema.ENTRY, data, {"key": 1, "move": every, "weight": 0xFFFF, "learn": 0xFFFFFFFF},
                              size=16)
    assert (parsed.key, parsed.weight, parsed.learn) == (1, 0xFFFF, 0xFFFFFFFF)
    assert parsed.move.reserved == 1 and parsed.move.promotion == 7


def test_book_roundtrip() -> None:
    data = bytes.fromhex(ENTRY_HEX) * 3
    entry = {"key": 0x463B96181691FC9C, "move": dict(MOVES[0][1]), "weight": 0x1234, "learn": 0xDEADBEEF}
    parsed = assert_roundtrip(schema.BOOK, data, [entry] * 3, size=cs.SizeofError)
    assert len(parsed) == 3


def test_trace_entry_bits() -> None:
    _, fields = trace(schema.ENTRY, bytes.fromhex(ENTRY_HEX), offset=16 * 5, path="entries[5]")
    f = {row.path: row for row in fields}
    assert (f["entries[5].key"].start, f["entries[5].key"].end) == (80, 88)
    assert (f["entries[5].move"].start, f["entries[5].move"].end) == (88, 90)
    expect = {"to_file": ((0, 2), 4), "to_rank": ((3, 5), 3), "from_file": ((6, 8), 4),
              "from_rank": ((9, 11), 1), "promotion": ((12, 14), "none"), "reserved": ((15, 15), 0)}
    for name, (bits, value) in expect.items():
        row = f[f"entries[5].move.{name}"]
        assert (row.bits, row.value) == (bits, value), name
        # absolute bit span: bit k (LSB numbering) of the 16-bit word sits at stream bit 15 - k of offset 88
        assert (row.bit_start, row.bit_end) == (8 * 88 + 15 - bits[1], 8 * 88 + 16 - bits[0]), name
    assert (f["entries[5].weight"].value, f["entries[5].learn"].value) == (0x1234, 0xDEADBEEF)


# --- meanings -----------------------------------------------------------------------------------------------

def _declarations() -> list[tuple[str, cs.Construct]]:
    found = [(structure.title, structure.declaration) for structure in schema.FORMAT.structures]
    for name, value in vars(schema).items():
        if isinstance(value, cs.Construct) and name.isupper() and name != "PROMOTION":
            # a whole book is a GreedyRange of entries: check the element's fields
            found.append((name, value.subcon if isinstance(value, cs.GreedyRange) else value))
    return found


def test_declarations_found() -> None:
    names = {name for name, _ in _declarations()}
    assert {"ENTRY", "MOVE", "BOOK", "Entry", "Move"} <= names


@pytest.mark.parametrize(("name", "declaration"), _declarations(), ids=[n for n, _ in _declarations()])
def test_every_field_has_a_one_line_meaning(name: str, declaration: cs.Construct) -> None:
    rows = [row for row in describe(declaration) if row.path]
    assert rows, name
    for row in rows:
        assert row.meaning.strip(), f"{name}: {row.path} has no meaning"
        assert "\n" not in row.meaning, f"{name}: {row.path} meaning spans several lines"


def test_every_enum_value_has_a_meaning() -> None:
    tables = [row.enum for name, declaration in _declarations() for row in describe(declaration) if row.enum]
    assert tables, "the promotion field is an enum"
    tables.append(enum_meanings(schema.PROMOTION))
    for table in tables:
        assert table
        for value, (label, meaning) in table.items():
            assert label.strip() and meaning.strip() and "\n" not in meaning, value


def test_format_doc_is_complete() -> None:
    doc = schema.FORMAT
    assert doc.key == "polyglot" and ".bin" in doc.extensions
    assert doc.summary.strip() and doc.title.strip()
    for structure in doc.structures:
        assert structure.description.strip()


# --- the random numbers ----------------------------------------------------------------------------------------

def test_random64_matches_spec(spec: str) -> None:
    randoms = spec_randoms(spec)
    assert len(randoms) == 781
    # first and last values as printed in the spec
    assert randoms[0] == 0x9D39247E33776D41
    assert randoms[-1] == 0xF8D626AAAF278509
    assert len(schema.RANDOM64) == 781
    assert schema.RANDOM64[0] == randoms[0] and schema.RANDOM64[-1] == randoms[-1]
    assert list(schema.RANDOM64) == randoms


def test_random_slices_match_spec(spec: str) -> None:
    # "RandomPiece (смещение: 0, длина: 768)" ...
    slices = dict((name, (int(start), int(length))) for name, start, length in
                  re.findall(r"(Random\w+)\s*\(смещение:\s*(\d+),\s*длина:\s*(\d+)\)", spec))
    randoms = spec_randoms(spec)
    assert set(slices) == {"RandomPiece", "RandomCastle", "RandomEnPassant", "RandomTurn"}
    for name, value in (("RandomPiece", schema.RANDOM_PIECE), ("RandomCastle", schema.RANDOM_CASTLE),
                        ("RandomEnPassant", schema.RANDOM_EN_PASSANT)):
        start, length = slices[name]
        assert list(value) == randoms[start:start + length], name
    assert schema.RANDOM_TURN == randoms[slices["RandomTurn"][0]]


def test_random64_equals_python_chess() -> None:
    assert list(schema.RANDOM64) == list(chess.polyglot.POLYGLOT_RANDOM_ARRAY)


# --- the documentation's worked examples are real ---------------------------------------------------------------

def test_examples_are_real_entries(corpus_path: Callable[..., Path]) -> None:
    for example in schema.FORMAT.examples:
        match = re.match(r"([\w.-]+\.bin)(?:, entry (\d+))?", example.source)
        assert match, example.source
        data = corpus_path("polyglot", match.group(1)).read_bytes()
        if match.group(2):
            index = int(match.group(2))
            assert data[16 * index:16 * index + 16] == example.data
        else:
            offsets = [m.start() for m in re.finditer(re.escape(example.data), data)]
            assert any(offset % 16 == 0 for offset in offsets), example.source
        assert_rebuilds(example.structure, example.data, size=16)


def test_example_keys_are_the_positions_described() -> None:
    start, castle = schema.FORMAT.examples[:2]
    # the start position: the spec's first test key, move e2e4 (0x031C, above)
    assert start.data[:8] == bytes.fromhex("463b96181691fc9c") and start.data[8:10] == bytes.fromhex("031c")
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"):
        board.push_san(san)
    assert int.from_bytes(castle.data[:8], "big") == chess.polyglot.zobrist_hash(board)
    assert castle.data[8:10] == bytes.fromhex("0107")  # e1h1, computed above
