"""engine.layout: static layout (describe), the numpy dtype and bit-field masks derived from a declaration.

The reference for every value is construct itself (``parse``/``build``) or hand arithmetic on the toy
layouts declared here.
"""

from __future__ import annotations

from typing import Any

import construct as cs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.engine import (
    BitField,
    MeaningEnum,
    bit_fields,
    describe,
    numpy_dtype,
    pack_bits,
    record_array,
    unpack_bits,
)

KIND = MeaningEnum(cs.BitsInteger(3), {"none": (0, "no kind"), "big": (6, "a big one")})

# stream bits: high 0-4, mid 5, kind 6-8, low 9-15  ->  run bits (11,15), (10,10), (7,9), (0,6)
FLAGS = cs.BitStruct(
    "high" / cs.BitsInteger(5) * "five high bits",
    "mid" / cs.Flag * "a flag",
    "kind" / KIND * "an enumerated kind",
    "low" / cs.BitsInteger(7) * "seven low bits",
)
FLAG_WIDTHS = {"high": 5, "mid": 1, "kind": 3, "low": 7}

RECORD = cs.Struct(
    "a" / cs.Int16ub * "big-endian u16",
    "b" / cs.Int32ul * "little-endian u32",
    "c" / cs.BytesInteger(3) * "big-endian u24",
    "d" / cs.Bytes(5) * "five raw bytes",
    "e" / FLAGS * "packed flags",
)  # 2 + 4 + 3 + 5 + 2 = 16 bytes


def test_describe_fixed_record() -> None:
    rows = {f.path: f for f in describe(RECORD)}
    assert list(rows) == ["a", "b", "c", "d", "e", "e.high", "e.mid", "e.kind", "e.low"]
    assert [(rows[p].offset, rows[p].size) for p in "abcde"] == [(0, 2), (2, 4), (6, 3), (9, 5), (14, 2)]
    assert rows["a"].type == "u16 BE" and rows["b"].type == "u32 LE" and rows["c"].type == "u24 BE"
    assert rows["d"].type == "bytes[5]"
    assert rows["e.high"].bits == (11, 15)
    assert rows["e.mid"].bits == (10, 10)
    assert rows["e.kind"].bits == (7, 9)
    assert rows["e.low"].bits == (0, 6)
    assert rows["e"].bits == (0, 15) and not rows["e"].leaf
    assert all(rows[p].offset == 14 and rows[p].size == 2 for p in ("e.high", "e.mid", "e.kind", "e.low"))
    assert rows["e.kind"].enum == {0: ("none", "no kind"), 6: ("big", "a big one")}
    assert rows["e.low"].meaning == "seven low bits" and rows["e"].meaning == "packed flags"
    assert rows["e.low"].depth == 1 and rows["e"].depth == 0


def test_describe_nested_struct_and_array() -> None:
    rec = cs.Struct(
        "tag" / cs.Const(b"RC") * "signature",
        "hdr" / cs.Struct("x" / cs.Int8ub * "x", "y" / cs.Int16ul * "y") * "header",
        "items" / cs.Array(3, cs.Struct("id" / cs.Int16ub * "id", "f" / FLAGS * "flags")) * "items",
        "n" / cs.Int8ub * "count",
        "rest" / cs.Array(cs.this.n, cs.Int8ub) * "variable part",
        "after" / cs.Int8ub * "after the variable part",
    )
    rows = {f.path: f for f in describe(rec)}
    assert (rows["tag"].offset, rows["tag"].size) == (0, 2)
    assert (rows["hdr"].offset, rows["hdr"].size, rows["hdr"].leaf) == (2, 3, False)
    assert (rows["hdr.y"].offset, rows["hdr.y"].size, rows["hdr.y"].depth) == (3, 2, 1)
    assert (rows["items"].offset, rows["items"].size) == (5, 12)      # 3 * (2 + 2)
    assert (rows["items[]"].offset, rows["items[]"].size) == (5, 4)
    assert (rows["items[].f"].offset, rows["items[].f.low"].bits) == (7, (0, 6))
    assert (rows["n"].offset, rows["n"].size) == (17, 1)
    assert rows["rest"].size is None
    assert rows["after"].offset is None  # after a variable-size field


def test_describe_names_a_record() -> None:
    rows = describe(cs.Struct("x" / cs.Int8ub), name="header")
    assert [r.path for r in rows] == ["header", "header.x"]


# --- numpy dtype --------------------------------------------------------------------------------------

def test_numpy_dtype_of_record() -> None:
    dtype = numpy_dtype(RECORD)
    assert dtype.names == ("a", "b", "c", "d", "e")
    assert [dtype.fields[n][0].str for n in dtype.names] == [">u2", "<u4", "|V3", "|V5", ">u2"]
    assert [dtype.fields[n][1] for n in dtype.names] == [0, 2, 6, 9, 14]
    assert dtype.itemsize == RECORD.sizeof() == 16


def test_numpy_values_equal_construct() -> None:
    values = [
        {"a": 0xBEEF, "b": 0x01020304, "c": 0xABCDEF, "d": b"hello",
         "e": {"high": 22, "mid": True, "kind": "big", "low": 83}},
        {"a": 1, "b": 0xFFFFFFFF, "c": 7, "d": b"\x00\x01\x02\x03\x04",
         "e": {"high": 0, "mid": False, "kind": 1, "low": 127}},
    ]
    data = b"".join(RECORD.build(v) for v in values)
    array = record_array(data, RECORD)
    flags = unpack_bits(array["e"], FLAGS)
    for index, built in enumerate(values):
        parsed = RECORD.parse(data[16 * index:16 * index + 16])
        assert int(array["a"][index]) == parsed.a == built["a"]
        assert int(array["b"][index]) == parsed.b == built["b"]
        assert int.from_bytes(bytes(array["c"][index]), "big") == parsed.c == built["c"]
        assert bytes(array["d"][index]) == parsed.d == built["d"]
        for name in FLAG_WIDTHS:
            assert int(flags[name][index]) == int(parsed.e[name]), name
    # hand check of the first record's flag word: 22<<11 | 1<<10 | 6<<7 | 83 = 45056+1024+768+83 = 46931
    assert int(array["e"][0]) == 46931


def test_numpy_dtype_nested_struct_and_array() -> None:
    rec = cs.Struct("h" / cs.Struct("x" / cs.Int8ub, "y" / cs.Int16sl), "v" / cs.Array(3, cs.Int16ub))
    dtype = numpy_dtype(rec)
    assert dtype.itemsize == rec.sizeof() == 9
    data = rec.build({"h": {"x": 5, "y": -2}, "v": [1, 2, 65535]})
    array = np.frombuffer(data, dtype=dtype)
    assert int(array["h"]["y"][0]) == -2
    assert array["v"][0].tolist() == [1, 2, 65535]


def test_numpy_dtype_size_check() -> None:
    with pytest.raises(TypeError):
        numpy_dtype(cs.Struct("n" / cs.Int8ub, "v" / cs.Array(cs.this.n, cs.Int8ub)))  # no fixed size
    with pytest.raises(TypeError):
        numpy_dtype(cs.Int32ub)  # not a struct
    with pytest.raises(TypeError):
        numpy_dtype(cs.Struct("s" / cs.PascalString(cs.Int8ub, "ascii")))


# Random flat records of explicitly ordered fields: the dtype view must agree with construct's parse.
FIELD_TYPES: list[tuple[cs.Construct, Any]] = [
    (cs.Int8ub, st.integers(0, 2**8 - 1)), (cs.Int8sb, st.integers(-(2**7), 2**7 - 1)),
    (cs.Int16ub, st.integers(0, 2**16 - 1)), (cs.Int16ul, st.integers(0, 2**16 - 1)),
    (cs.Int16sb, st.integers(-(2**15), 2**15 - 1)), (cs.Int32ub, st.integers(0, 2**32 - 1)),
    (cs.Int32sl, st.integers(-(2**31), 2**31 - 1)), (cs.Int64ub, st.integers(0, 2**64 - 1)),
    (cs.Int64sl, st.integers(-(2**63), 2**63 - 1)), (cs.BytesInteger(2), st.integers(0, 2**16 - 1)),
    (cs.BytesInteger(4, swapped=True), st.integers(0, 2**32 - 1)),
    (cs.Bytes(3), st.binary(min_size=3, max_size=3)),
]


@st.composite
def records(draw: Any) -> tuple[cs.Construct, list[dict[str, Any]]]:
    kinds = draw(st.lists(st.integers(0, len(FIELD_TYPES) - 1), min_size=1, max_size=8))
    con = cs.Struct(*[f"f{i}" / FIELD_TYPES[k][0] for i, k in enumerate(kinds)])
    rows = draw(st.lists(st.fixed_dictionaries({f"f{i}": FIELD_TYPES[k][1] for i, k in enumerate(kinds)}),
                         min_size=1, max_size=4))
    return con, rows


@settings(max_examples=150, deadline=None)
@given(records())
def test_numpy_dtype_agrees_with_construct(case: tuple[cs.Construct, list[dict[str, Any]]]) -> None:
    con, rows = case
    dtype = numpy_dtype(con)
    assert dtype.itemsize == con.sizeof()
    data = b"".join(con.build(row) for row in rows)
    array = np.frombuffer(data, dtype=dtype)
    for index, row in enumerate(rows):
        parsed = con.parse(data[index * dtype.itemsize:(index + 1) * dtype.itemsize])
        for name in row:
            got = array[name][index]
            got = bytes(got) if isinstance(parsed[name], bytes) else int(got)
            assert got == parsed[name] == row[name], name


def test_numpy_dtype_native_order_fields() -> None:
    con = cs.Struct("a" / cs.Int16un, "b" / cs.Int32sn)
    data = con.build({"a": 0x0102, "b": -5})
    array = np.frombuffer(data, dtype=numpy_dtype(con))
    assert (int(array["a"][0]), int(array["b"][0])) == (0x0102, -5)


# --- bit fields -----------------------------------------------------------------------------------------

def test_bit_fields_shifts_and_masks() -> None:
    # hand: low at bit 0 (7 wide), kind at 7 (3), mid at 10 (1), high at 11 (5)
    assert bit_fields(FLAGS) == {"high": BitField(11, 5), "mid": BitField(10, 1), "kind": BitField(7, 3),
                                 "low": BitField(0, 7)}
    assert BitField(7, 3).mask == 0b111
    with pytest.raises(TypeError):
        bit_fields(cs.Struct("x" / cs.Int8ub))


flag_values = st.fixed_dictionaries({name: st.integers(0, 2**w - 1) for name, w in FLAG_WIDTHS.items()})


@settings(max_examples=200, deadline=None)
@given(st.lists(flag_values, min_size=1, max_size=20))
def test_pack_bits_equals_construct_build(rows: list[dict[str, int]]) -> None:
    columns = {name: np.array([row[name] for row in rows]) for name in FLAG_WIDTHS}
    packed = pack_bits(FLAGS, np.uint16, **columns)
    assert packed.dtype == np.uint16
    for index, row in enumerate(rows):
        built = FLAGS.build({"high": row["high"], "mid": bool(row["mid"]), "kind": row["kind"], "low": row["low"]})
        assert int(packed[index]) == int.from_bytes(built, "big")
    unpacked = unpack_bits(packed, FLAGS)
    assert set(unpacked) == set(FLAG_WIDTHS)
    for name in FLAG_WIDTHS:
        assert unpacked[name].tolist() == columns[name].tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**16 - 1), min_size=1, max_size=50))
def test_unpack_then_pack_is_identity(words: list[int]) -> None:
    values = np.array(words, dtype=np.uint16)
    fields = unpack_bits(values, FLAGS)
    for index, word in enumerate(words):
        parsed = FLAGS.parse(word.to_bytes(2, "big"))
        assert int(fields["high"][index]) == parsed.high and int(fields["low"][index]) == parsed.low
        assert int(fields["kind"][index]) == int(parsed.kind) and bool(fields["mid"][index]) == parsed.mid
    assert pack_bits(FLAGS, np.uint16, **fields).tolist() == words


def test_pack_bits_errors() -> None:
    with pytest.raises(KeyError):
        pack_bits(FLAGS, np.uint16, nope=np.array([1]))
    with pytest.raises(ValueError):
        pack_bits(FLAGS, np.uint16)


def test_pack_bits_masks_out_of_range_values() -> None:
    # 0b1000_0001 into the 7-bit field keeps only its low 7 bits
    assert pack_bits(FLAGS, np.uint16, low=np.array([0x81])).tolist() == [1]
