"""engine.codec: the functions generated from a declaration, its field accessors and its errors.

Expected values are hand arithmetic on the toy layouts below, or construct itself (``parse``/``build``).
"""

from __future__ import annotations

import random
import struct

import construct as cs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessformats.engine import FormatError, InvalidValueError, TruncatedError, codec
from chessformats.engine.bitruns import BitStructLE
from chessformats.engine.schema import FormatDoc, MeaningEnum, enum_view, extension_map
from chessformats.schemas import ctg, kvetka, monty, polyglot, squares
from roundtrip import plain

# every kind of fixed field: both byte orders, 3-byte and signed integers, floats, bytes, a constant,
# a byte flag, an array, a nested struct, runs of both byte orders, an adapter
MIXED = cs.Struct(
    "magic" / cs.Const(b"MX") * "signature",
    "be" / cs.Int32ub * "big-endian",
    "le" / cs.Int16sl * "little-endian, signed",
    "u24" / cs.Int24ub * "three bytes",
    "i24" / cs.BytesInteger(3, signed=True, swapped=True) * "three bytes, signed, little-endian",
    "half" / cs.Float32l * "a float",
    "flag" / cs.Flag * "a byte flag",
    "raw" / cs.Bytes(3) * "raw bytes",
    "pair" / cs.Array(2, cs.Int8sb) * "two signed bytes",
    "inner" / cs.Struct("x" / cs.Int8ub * "x",
                        "run" / BitStructLE("hi" / cs.BitsInteger(4), "lo" / cs.BitsInteger(12))),
    "date" / cs.BitStruct("y" / cs.BitsInteger(12), "m" / cs.BitsInteger(4), "d" / cs.BitsInteger(8)),
    "hex" / cs.Hex(cs.Int16ub) * "an adapter",
)
# 4d58 | 01020304 | feff (-2) | 0a0b0c | feffff (-2) | 0000c03f (1.5) | 02 (True) | 616263 | ff 7f | 09 | 3412
# (run 0x1234: hi 1, lo 0x234) | 7e3 5 0f -> 0x7e350f (2019-05-15) | beef
MIXED_BYTES = bytes.fromhex("4d58" "01020304" "feff" "0a0b0c" "feffff" "0000c03f" "02" "616263" "ff7f" "09" "3412"
                            "7e350f" "beef")


def test_mixed_record_decodes_by_hand() -> None:
    mixed = codec(MIXED)
    assert mixed.generated and mixed.size == len(MIXED_BYTES) == MIXED.sizeof()
    record = mixed.decode(MIXED_BYTES)
    assert (record.magic, record.be, record.le, record.u24, record.i24) == (b"MX", 0x01020304, -2, 0x0A0B0C, -2)
    assert (record.half, record.flag, record.raw, record.pair) == (1.5, True, b"abc", [-1, 127])
    assert (record.inner.x, record.inner.run.hi, record.inner.run.lo) == (9, 1, 0x234)
    assert (record.date.y, record.date.m, record.date.d, record.hex) == (2019, 5, 15, 0xBEEF)
    assert plain(record) == plain(MIXED.parse(MIXED_BYTES))
    # a flag byte of 2 reads True and is written 1, as construct does
    rebuilt = MIXED_BYTES[:18] + b"\x01" + MIXED_BYTES[19:]
    assert mixed.encode(record) == MIXED.build(MIXED.parse(MIXED_BYTES)) == rebuilt


def test_struct_format_is_one_call() -> None:
    # a big-endian record (its first multi-byte number is): little-endian and 3-byte fields are read as bytes
    assert codec(MIXED).struct_format == ">2sL2s3s3s4sB3sbbB2s3sH"
    assert codec(polyglot.ENTRY).struct_format == ">QHHL"
    assert struct.calcsize(codec(MIXED).struct_format) == MIXED.sizeof()


def test_constants_are_checked() -> None:
    mixed = codec(MIXED)
    with pytest.raises(InvalidValueError) as caught:
        mixed.decode(b"XX" + MIXED_BYTES[2:], file="f.bin")
    assert (caught.value.path, caught.value.offset, caught.value.file) == ("magic", 0, "f.bin")
    obj = MIXED.parse(MIXED_BYTES)
    obj.magic = b"NO"
    with pytest.raises(InvalidValueError) as invalid:
        mixed.encode(obj)
    assert invalid.value.path == "magic"
    del obj["magic"]  # a constant may be left out, as construct allows
    assert mixed.encode(obj)[:2] == b"MX"


@pytest.mark.parametrize(("path", "value"), [
    ("be", -1), ("le", 40000), ("u24", 1 << 24), ("i24", -(1 << 23) - 1), ("raw", b"ab"), ("pair", [1]),
    ("half", "x"), ("inner.run.hi", 16), ("date.d", 256), ("hex", 1 << 16)])
def test_encode_errors_name_the_field(path: str, value: object) -> None:
    obj = MIXED.parse(MIXED_BYTES)
    *parents, name = path.split(".")
    target = obj
    for parent in parents:
        target = target[parent]
    target[name] = value
    with pytest.raises(InvalidValueError) as caught:
        codec(MIXED).encode(obj)
    assert caught.value.path is not None and caught.value.path.startswith(path.split(".")[0])
    assert caught.value.path in (path, "pair", "hex")


def test_missing_field_and_wrong_shape() -> None:
    entry = codec(polyglot.ENTRY)
    with pytest.raises(InvalidValueError) as caught:
        entry.encode({"key": 1, "weight": 2, "learn": 3})
    assert caught.value.path == "move"
    with pytest.raises(InvalidValueError):
        entry.encode((1, 2))
    with pytest.raises(InvalidValueError) as caught:
        entry.pack(1, 0, 0, 0, 0, 0, 9, 0, 0)
    assert caught.value.path == "move.to_file"


def test_truncation_is_located() -> None:
    entry = codec(polyglot.ENTRY)
    data = bytes(16 * 3 + 9)
    with pytest.raises(TruncatedError) as caught:
        entry.decode(data, 48, file="book.bin")
    error = caught.value
    # 9 bytes left at 48: the key fits, the move's run (bytes 8-9) is the first field cut off
    located = (error.file, error.offset, error.path, error.needed, error.available)
    assert located == ("book.bin", 48, "move.reserved", 16, 9)
    with pytest.raises(TruncatedError):
        entry.unpack(data, 48)
    with pytest.raises(TruncatedError):
        entry.field("weight").get(data, 48)
    with pytest.raises(FormatError):
        entry.decode(data, 100)


def test_adapters_are_called() -> None:
    header = codec(monty.HEADER)
    assert header.generated
    data = bytes(range(43))
    assert plain(header.decode(data)) == plain(monty.HEADER.parse(data))
    assert header.encode(header.decode(data)) == monty.HEADER.build(monty.HEADER.parse(data))


def test_variable_declarations_are_generated() -> None:
    record = codec(ctg.RECORD)
    # the prefix-coded board: a bit run read by a cursor over the region's bits (engine/varbits.py)
    assert record.generated and record.size is None and record.plan is None and "def _s" in record.source
    assert record.delegated == () and "_prefix_error(" in record.source
    assert codec(kvetka.ELEMENT).delegated == ()  # CompactInt reads itself (codec_read/codec_write)
    assert codec(monty.POLICY_GAME).delegated == ()  # FocusedSeq, Peek, Check
    example = ctg.FORMAT.examples[0].data
    assert plain(record.decode(example)) == plain(ctg.RECORD.parse(example))
    assert record.encode(ctg.RECORD.parse(example)) == example
    with pytest.raises(FormatError):
        record.decode(example[:10], file="x.ctg")
    with pytest.raises(InvalidValueError):
        record.encode({"position": None})
    assert record.prefix_codes == {"position.board.squares": squares.SQUARE_CODE}
    with pytest.raises(TypeError):
        record.columns(example)


def test_a_part_the_generator_does_not_know_is_read_by_construct() -> None:
    declaration = cs.Struct("a" / cs.Int8ub, "name" / cs.CString("ascii"), "sizes" / cs.Array(cs.this.a, cs.Int16ub))
    derived = codec(declaration)
    assert derived.generated and derived.delegated == ("name: NullTerminated",)
    data = bytes.fromhex("02" "6869" "00" "0001" "0203")
    assert plain(derived.decode(data)) == {"a": 2, "name": "hi", "sizes": [1, 0x203]} == plain(declaration.parse(data))
    assert derived.encode(derived.decode(data)) == data
    with pytest.raises(FormatError):  # construct's error, as the project's
        derived.decode(bytes.fromhex("02" "6869"))
    with pytest.raises(InvalidValueError):
        derived.encode({"a": 0, "name": 5, "sizes": []})


def test_field_layout_and_bit_fields() -> None:
    entry = codec(polyglot.ENTRY)
    assert entry.leaves == ("key", "move.reserved", "move.promotion", "move.from_rank", "move.from_file",
                            "move.to_rank", "move.to_file", "weight", "learn")
    promotion = entry.field("move.promotion")
    layout = (promotion.offset, promotion.size, promotion.bits, promotion.shift, promotion.mask)
    assert layout == (8, 2, (12, 14), 12, 7)
    assert entry.bit_fields("move") == {"reserved": (15, 1), "promotion": (12, 3), "from_rank": (9, 3),
                                        "from_file": (6, 3), "to_rank": (3, 3), "to_file": (0, 3)}
    assert promotion.extract(0x431C) == "queen" and promotion.insert(0x031C, "queen") == 0x431C
    with pytest.raises(InvalidValueError):
        promotion.insert(0, 8)
    with pytest.raises(KeyError):
        entry.field("move.nothing")
    assert codec(monty.MOVE).bit_fields() == {"source": (10, 6), "destination": (4, 6), "flag": (0, 4)}


@given(st.binary(min_size=16 * 5, max_size=16 * 5))
def test_columns_are_the_decoded_values(data: bytes) -> None:
    entry = codec(polyglot.ENTRY)
    columns = entry.columns(data)
    for index in range(5):
        assert [int(columns[path][index]) for path in entry.leaves] == list(entry.unpack(data, 16 * index))
    assert entry.from_columns(columns) == data
    assert np.array_equal(columns["key"], entry.array(data)["key"])


@given(st.binary(min_size=len(MIXED_BYTES), max_size=len(MIXED_BYTES)))
def test_mixed_columns_agree_with_unpack(data: bytes) -> None:
    data = b"MX" + data[2:]
    mixed = codec(MIXED)
    columns = mixed.columns(data)
    for path, value in zip(mixed.leaves, mixed.unpack(data), strict=True):
        column = columns[path]
        got = bytes(column[0]) if column.ndim > 1 else column[0].item()
        assert got == value or (value != value and got != got), path  # NaN floats


def test_enum_views_and_extensions() -> None:
    view = enum_view(monty.RESULT)
    assert view.names == {0: "black_wins", 1: "draw", 2: "white_wins"}
    assert view.values["draw"] == 1 and view.meanings[2] == "white won (1-0)"
    plain_enum = enum_view(cs.Enum(cs.Int8ub, a=1))
    assert plain_enum.names == {1: "a"} and plain_enum.meanings == {1: ""}
    with pytest.raises(TypeError):
        enum_view(cs.Int8ub)
    docs = [FormatDoc("one", "One", (".a", ".B"), "", ()), FormatDoc("two", "Two", (".b", ".c"), "", ())]
    assert extension_map(docs) == {".a": "one", ".b": "one", ".c": "two"}


def test_codec_is_cached_and_shows_its_source() -> None:
    assert codec(polyglot.ENTRY) is codec(polyglot.ENTRY)
    source = codec(polyglot.ENTRY).source
    assert "def decode(" in source and "def encode(" in source and ">> 12 & 7" in source
    assert "16 bytes, generated" in repr(codec(polyglot.ENTRY)) and "variable, generated" in repr(codec(ctg.RECORD))
    bits = codec(kvetka.KEY_BITS)  # a bit-level structure on its own: construct's, with the reason
    assert not bits.generated and bits.source == "" and "PrefixCoded is a bit field" in repr(bits)
    kinds = MeaningEnum(cs.Int8ub, {"a": (1, "one")})
    assert codec(kinds).decode(b"\x01") == "a" and codec(kinds).decode(b"\x05") == 5
    assert codec(kinds).encode("a") == codec(kinds).encode(1) == b"\x01"


def test_picker_reads_what_field_get_reads() -> None:
    from chessformats.schemas import ctg as ctg_schema
    from chessformats.schemas import polyglot as polyglot_schema

    rng = random.Random(5)
    for declaration, paths in ((ctg_schema.HEADER_PAGE, ("games", "data_pages", "positions")),
                               (ctg_schema.CTB_HEAD, ("lower_bound", "upper_bound")),
                               (polyglot_schema.ENTRY, ("weight", "key", "move.to_file", "move.promotion"))):
        derived = codec(declaration)
        pick = derived.picker(*paths)
        for _ in range(50):
            data = bytes(rng.randrange(256) for _ in range(int(derived.size or 0) + 3))
            for offset in (0, 3):
                assert pick(data, offset) == tuple(derived.field(path).get(data, offset) for path in paths)
        end = max(int(derived.field(path).offset or 0) + int(derived.field(path).size or 0) for path in paths)
        with pytest.raises(TruncatedError) as caught:
            pick(bytes(end - 1), file="x.bin")
        assert caught.value.file == "x.bin"
