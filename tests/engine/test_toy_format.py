"""The proof that the engine is a framework: a new format declared here, and nothing else written for it.

A 3-field record (a little-endian count, a bit-packed square with an enum inside, an enum byte) is declared
with the ``engine.schema`` helpers and described by a ``FormatDoc``. From the declaration alone the engine
gives a reader and a writer (``engine.codec``), a numpy bulk path, the Markdown page
(``codegen.markdown.format_page``) and the annotated hex view (``engine.trace`` + ``codegen.hexview``). The
tests check them against hand-worked bytes and against each other.
"""

from __future__ import annotations

import re

import construct as cs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessformats.codegen.hexview import plain as plain_text
from chessformats.codegen.hexview import render
from chessformats.codegen.markdown import format_page
from chessformats.engine import InvalidValueError, TruncatedError, codec, describe, trace
from chessformats.engine.schema import Example, FormatDoc, MeaningEnum, Structure, enum_view
from chessformats.engine.tagged import Case, TaggedUnion
from roundtrip import assert_roundtrip, plain

# --- the whole declaration of the toy format ---------------------------------------------------------------

COLOUR = MeaningEnum(cs.BitsInteger(1), {"white": (0, "a white piece"), "black": (1, "a black piece")})
KIND = MeaningEnum(cs.Int8ub, {"pawn": (1, "a pawn"), "knight": (2, "a knight"), "bishop": (3, "a bishop")})
SQUARE = cs.BitStruct(
    "file" / cs.BitsInteger(3) * "file, 0 = a",
    "rank" / cs.BitsInteger(3) * "rank, 0 = rank 1",
    "colour" / COLOUR * "colour of the piece",
    "moved" / cs.Flag * "the piece has moved",
)
RECORD = cs.Struct(
    "count" / cs.Int16ul * "how many times the piece stood there",
    "square" / SQUARE * "where the piece stands",
    "kind" / KIND * "what the piece is",
)
TOY = FormatDoc(
    key="toy", title="Toy piece list", extensions=(".toy",),
    summary="A flat file of 4-byte records: a count, a packed square and a piece kind.",
    structures=(Structure("Record", RECORD, "One record; the file is these back to back."),
                Structure("Square", SQUARE, "The packed square, bit 0 = least significant.")),
    examples=(Example(RECORD, bytes.fromhex("01028602"), "by hand: 513 times a black knight on e2"),),
)

# --- hand-worked bytes ---------------------------------------------------------------------------------------
# count 513 = 0x0201 -> 01 02 (little-endian); square e2 black, not moved: file 4 = 100, rank 1 = 001,
# colour 1, moved 0 -> 1000 0110 = 0x86; kind knight = 2
E2_KNIGHT = bytes.fromhex("01028602")
# count 7 -> 07 00; square h8 white, moved: 111 111 0 1 = 0xfd; kind pawn = 1
H8_PAWN = bytes.fromhex("0700fd01")
FILE = E2_KNIGHT + H8_PAWN
OBJECTS = [
    {"count": 513, "square": {"file": 4, "rank": 1, "colour": "black", "moved": False}, "kind": "knight"},
    {"count": 7, "square": {"file": 7, "rank": 7, "colour": "white", "moved": True}, "kind": "pawn"},
]


def test_construct_reads_the_hand_bytes() -> None:
    assert_roundtrip(RECORD, E2_KNIGHT, OBJECTS[0], size=4)
    assert_roundtrip(RECORD, H8_PAWN, OBJECTS[1], size=4)


def test_reader_and_writer() -> None:
    toy = codec(RECORD)
    assert toy.generated and toy.size == 4
    records = [toy.decode(FILE, offset) for offset in range(0, len(FILE), toy.size)]
    assert [plain(record) for record in records] == OBJECTS
    assert records[0].square.colour == "black" and records[1].kind == "pawn"  # enums by name
    assert b"".join(toy.encode(obj) for obj in OBJECTS) == FILE  # from mappings, names
    assert b"".join(toy.encode(record) for record in records) == FILE  # from the decoded records
    assert toy.encode({"count": 513, "square": {"file": 4, "rank": 1, "colour": 1, "moved": 0}, "kind": 2}) \
        == E2_KNIGHT  # enums from numbers
    assert toy.unpack(E2_KNIGHT) == (513, 4, 1, 1, False, 2)
    assert toy.pack(513, 4, 1, "black", False, "knight") == E2_KNIGHT


def test_reader_and_writer_errors_are_located() -> None:
    toy = codec(RECORD)
    with pytest.raises(TruncatedError) as caught:
        toy.decode(FILE[:7], 4, file="pieces.toy")
    assert (caught.value.file, caught.value.offset, caught.value.path) == ("pieces.toy", 4, "kind")
    with pytest.raises(InvalidValueError) as invalid:
        toy.encode({**OBJECTS[0], "square": {**OBJECTS[0]["square"], "rank": 8}})  # type: ignore[dict-item]
    assert invalid.value.path == "square.rank"
    with pytest.raises(InvalidValueError) as invalid:
        toy.encode({**OBJECTS[0], "kind": "queen"})
    assert invalid.value.path == "kind"
    with pytest.raises(InvalidValueError) as invalid:
        toy.encode({**OBJECTS[0], "count": -1})
    assert invalid.value.path == "count"


def test_field_accessors() -> None:
    toy = codec(RECORD)
    rank = toy.field("square.rank")
    assert (rank.offset, rank.size, rank.bits, rank.shift, rank.width) == (2, 1, (2, 4), 2, 3)
    assert rank.get(FILE, 4) == 7 and toy.field("kind").get(FILE) == "knight"
    buffer = bytearray(E2_KNIGHT)
    rank.put(buffer, 3)
    toy.field("kind").put(buffer, "bishop")
    assert plain(toy.decode(buffer)) == {**OBJECTS[0], "square": {**OBJECTS[0]["square"], "rank": 3},
                                         "kind": "bishop"}
    assert rank.insert(0x86, 3) == 0x8E and rank.extract(0x8E) == 3
    assert enum_view(KIND).values == {"pawn": 1, "knight": 2, "bishop": 3}


def test_numpy_bulk_path() -> None:
    toy = codec(RECORD)
    array = toy.array(FILE)
    assert array.dtype.itemsize == 4 and list(array["count"]) == [513, 7]
    columns = toy.columns(FILE)
    assert list(columns["square.file"]) == [4, 7] and list(columns["square.colour"]) == [1, 0]
    assert list(columns["square.moved"]) == [False, True] and list(columns["kind"]) == [2, 1]
    assert toy.from_columns(columns) == FILE
    with pytest.raises(InvalidValueError):
        toy.from_columns({**columns, "square.file": np.array([4, 8])})


@given(st.lists(st.tuples(st.integers(0, 0xFFFF), st.integers(0, 7), st.integers(0, 7), st.integers(0, 1),
                          st.booleans(), st.sampled_from(["pawn", "knight", "bishop"])), min_size=1, max_size=20))
def test_every_path_reads_the_same_values(rows: list[tuple[int, int, int, int, bool, str]]) -> None:
    toy = codec(RECORD)
    data = b"".join(toy.pack(*row) for row in rows)
    columns = toy.columns(data)
    kinds = enum_view(KIND).values
    for index, row in enumerate(rows):
        offset = 4 * index
        parsed = RECORD.parse(data[offset:offset + 4])
        decoded = toy.decode(data, offset)
        assert plain(decoded) == plain(parsed)
        count, file, rank, colour, moved, kind = row
        assert (decoded.count, decoded.square.file, decoded.square.rank, decoded.square.moved) == \
            (count, file, rank, moved)
        assert [int(columns[path][index]) for path in toy.leaves] == [count, file, rank, colour, moved, kinds[kind]]
        _, traced = trace(RECORD, data[offset:offset + 4], offset=offset)
        values = {field.path: field.value for field in traced if field.leaf}
        assert values == {path: _leaf(parsed, path) for path in toy.leaves}
    assert RECORD.build(RECORD.parse(data[:4])) == data[:4]


def _leaf(parsed: cs.Container, path: str) -> object:
    value = parsed
    for part in path.split("."):
        value = value[part]
    return value


def test_hex_view_spans_are_the_codec_offsets() -> None:
    toy = codec(RECORD)
    _, traced = trace(RECORD, FILE[4:], offset=4)
    for field in traced:
        if not field.leaf:
            continue
        derived = toy.field(field.path)
        assert derived.offset is not None and derived.size is not None
        # a byte field spans its bytes; a bit field the bytes of its run (one byte here) and its bits
        assert (field.start, field.end) == (4 + derived.offset, 4 + derived.offset + derived.size)
        assert field.bits == derived.bits
    text = plain_text(render(traced, FILE[4:], base=4))
    assert "square.rank" in text and "= 7" in text and "white (0)" in text and "pawn (1)" in text


def test_docs_list_every_field_with_its_layout() -> None:
    page = format_page(TOY)
    assert page.startswith("# Toy piece list") and "`.toy`" in page
    for field in describe(RECORD):
        if field.bits is None:  # a byte field: its row gives offset and size
            assert re.search(rf"\| {field.offset} \| {field.size} \| [^|]+ \| [^|]*`{re.escape(field.path)}`", page), \
                field.path
        elif field.leaf:  # a bit field: its row of the bit layout gives its bits
            low, high = field.bits
            bits = f"{low}" if low == high else f"{low}-{high}"
            assert f"| {bits} | {high - low + 1} | `{field.path}` |" in page, field.path
    for name in ("knight", "black"):
        assert f"`{name}`" in page  # the enum tables
    assert "by hand: 513 times a black knight on e2" in page and "knight (2)" in page  # the worked example


# --- a variable-length record: a counted array and a tagged union ------------------------------------------

MOVE = cs.Struct("count" / cs.Int16ul * "times played", "square" / SQUARE * "the destination")
NOTE = TaggedUnion(cs.this.tag, {
    1: Case("Text note", cs.Struct("length" / cs.Int8ub * "bytes of text", "text" / cs.Bytes(cs.this.length)
                                   * "the text"), "a text"),
    2: Case("Score note", cs.Struct("score" / cs.Int16sb * "a score in centipawns"), "a score"),
}, label="by tag (others: raw)")
VARIABLE = cs.Struct(
    "kind" / KIND * "what the piece is",
    "moves_count" / cs.Int8ub * "how many moves follow",
    "moves" / cs.Array(cs.this.moves_count, MOVE) * "the moves",
    "tag" / cs.Int8ub * "what the note is",
    "note" / cs.FixedSized(3, NOTE) * "the note, 3 bytes",
    "rest" / cs.GreedyBytes * "anything after",
)
# knight; 2 moves: 513 times to e2 black (01 02 86), 7 times to h8 white moved (07 00 fd); tag 1: text "hi"
# (02 68 69); rest ff
VARIABLE_BYTES = bytes.fromhex("02" "02" "010286" "0700fd" "01" "026869" "ff")
VARIABLE_VALUE = {"kind": "knight", "moves_count": 2, "moves": [
    {"count": 513, "square": OBJECTS[0]["square"]}, {"count": 7, "square": OBJECTS[1]["square"]}],
    "tag": 1, "note": {"length": 2, "text": b"hi"}, "rest": b"\xff"}
# pawn, no moves, tag 2: score -2 (ff fe) and a padding byte of the 3-byte note; tag 9 would be kept raw
SCORE_BYTES = bytes.fromhex("01" "00" "02" "fffe00")


def test_variable_record_reader_and_writer() -> None:
    assert_roundtrip(VARIABLE, VARIABLE_BYTES, VARIABLE_VALUE, size=cs.SizeofError)
    toy = codec(VARIABLE)
    assert toy.generated and toy.size is None and toy.delegated == ()
    decoded = toy.decode(VARIABLE_BYTES)
    assert plain(decoded) == VARIABLE_VALUE
    assert decoded.moves[1].square.moved is True and decoded.note.text == b"hi"
    assert toy.encode(decoded) == toy.encode(VARIABLE_VALUE) == VARIABLE_BYTES
    score = toy.decode(SCORE_BYTES)
    assert plain(score) == {"kind": "pawn", "moves_count": 0, "moves": [], "tag": 2, "note": {"score": -2},
                            "rest": b""}
    assert toy.encode(score) == SCORE_BYTES  # the note padded to its 3 bytes, as construct builds it
    raw = toy.decode(bytes.fromhex("0100" "09" "abcdef"))
    assert plain(raw.note) == {"data": bytes.fromhex("abcdef")}  # a tag without a case: raw bytes


def test_variable_record_errors() -> None:
    toy = codec(VARIABLE)
    with pytest.raises(TruncatedError) as caught:  # 2 moves announced, one given
        toy.decode(VARIABLE_BYTES[:5], file="v.toy")
    assert caught.value.file == "v.toy" and caught.value.path == "moves"
    with pytest.raises(InvalidValueError) as invalid:  # a count that disagrees with the moves
        toy.encode({**VARIABLE_VALUE, "moves_count": 3})
    assert invalid.value.path == "moves"
    with pytest.raises(InvalidValueError):  # a text longer than its length says
        toy.encode({**VARIABLE_VALUE, "note": {"length": 1, "text": b"hi"}})


@given(st.lists(st.tuples(st.integers(0, 0xFFFF), st.integers(0, 255)), max_size=6),
       st.one_of(st.binary(max_size=2).map(lambda text: (1, {"length": len(text), "text": text})),
                 st.integers(-0x8000, 0x7FFF).map(lambda score: (2, {"score": score}))),
       st.binary(max_size=4))
def test_variable_record_agrees_with_construct(moves: list[tuple[int, int]], note: tuple[int, dict[str, object]],
                                               rest: bytes) -> None:
    toy = codec(VARIABLE)
    squares = [SQUARE.parse(bytes([byte])) for _, byte in moves]
    value = {"kind": 3, "moves_count": len(moves), "tag": note[0], "note": note[1], "rest": rest,
             "moves": [{"count": count, "square": square} for (count, _), square in zip(moves, squares, strict=True)]}
    data = VARIABLE.build(value)
    assert toy.encode(value) == data
    decoded = toy.decode(data)
    assert plain(decoded) == plain(VARIABLE.parse(data))
    assert toy.encode(decoded) == data
