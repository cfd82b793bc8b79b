"""engine.bitruns: bit fields packed into a little-endian integer, through describe, dtype, trace, hex view, docs.

Expected values are hand arithmetic on the toy layout below, or construct itself (``parse``/``build``).
"""

from __future__ import annotations

from typing import Any

import construct as cs
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from chessformats.codegen.hexview import plain, render
from chessformats.codegen.markdown import format_page
from chessformats.engine import MeaningEnum, bit_fields, describe, numpy_dtype, trace
from chessformats.engine.bitruns import BitStructLE, bit_run, run_bits
from chessformats.engine.layout import struct_format
from chessformats.engine.schema import FormatDoc, Structure
from roundtrip import assert_roundtrip

KIND = MeaningEnum(cs.BitsInteger(4), {"plain": (0, "a plain one"), "odd": (9, "an odd one")})

# the integer, most significant bit first: high 6 bits, mid 6 bits, kind 4 bits -> high << 10 | mid << 4 | kind
PACKED = BitStructLE(
    "high" / cs.BitsInteger(6) * "six high bits",
    "mid" / cs.BitsInteger(6) * "six middle bits",
    "kind" / KIND * "four low bits",
)
RECORD = cs.Struct(
    "tag" / cs.Int8ul * "a tag byte",
    "packed" / PACKED * "the packed fields",
    "count" / cs.Int16ul * "a little-endian count",
)

# high 14, mid 30, kind 1: 14 << 10 | 30 << 4 | 1 = 14336 + 480 + 1 = 14817 = 0x39e1, stored e1 39
E1_39 = bytes.fromhex("e139")


def test_parse_and_build_by_hand() -> None:
    parsed = assert_roundtrip(PACKED, E1_39, {"high": 14, "mid": 30, "kind": 1}, size=2)
    assert parsed.kind == 1
    # big-endian reading of the same bytes would be 0xe139: high 56, mid 19, kind 9
    assert cs.BitStruct(*PACKED.subcon.subcon.subcons).parse(E1_39).high == 0xE139 >> 10


@given(st.integers(0, 63), st.integers(0, 63), st.integers(0, 15))
def test_fields_are_shifts_of_the_little_endian_integer(high: int, mid: int, kind: int) -> None:
    data = PACKED.build({"high": high, "mid": mid, "kind": kind})
    assert int.from_bytes(data, "little") == high << 10 | mid << 4 | kind
    parsed = PACKED.parse(data)
    assert (parsed.high, parsed.mid, int(parsed.kind)) == (high, mid, kind)


def test_bit_run_recognises_both_orders() -> None:
    little = bit_run(PACKED)
    assert little is not None and little.little_endian and little.size == 2
    big = bit_run(cs.BitStruct("a" / cs.BitsInteger(8)))
    assert big is not None and not big.little_endian and big.size == 1
    assert bit_run(cs.Int16ul) is None and bit_run(cs.ByteSwapped(cs.Int16ub)) is None
    assert run_bits(little, E1_39) == cs.bytes2bits(bytes.fromhex("39e1"))


def test_describe_and_bit_fields() -> None:
    rows = {row.path: row for row in describe(RECORD)}
    assert (rows["packed"].offset, rows["packed"].size, rows["packed"].type) == (1, 2, "bits")
    assert rows["packed.high"].bits == (10, 15) and rows["packed.mid"].bits == (4, 9)
    assert rows["packed.kind"].bits == (0, 3) and rows["packed.kind"].enum == KIND.meanings
    assert all(rows[p].little_endian for p in ("packed", "packed.high", "packed.mid", "packed.kind"))
    assert not rows["count"].little_endian and rows["count"].offset == 3
    assert {name: (f.shift, f.width) for name, f in bit_fields(PACKED).items()} == {
        "high": (10, 6), "mid": (4, 6), "kind": (0, 4)}


def test_numpy_dtype_and_struct_format_keep_the_byte_order() -> None:
    assert numpy_dtype(RECORD)["packed"] == np.dtype("<u2")
    assert struct_format(RECORD) == "<BHH"
    data = bytes([7]) + E1_39 + bytes.fromhex("0201")
    record = np.frombuffer(data, dtype=numpy_dtype(RECORD))[0]
    fields = bit_fields(PACKED)
    assert int(record["packed"]) >> fields["high"].shift & fields["high"].mask == 14
    assert int(record["count"]) == 0x0102


def test_trace_values_bits_and_bytes() -> None:
    data = bytes([7]) + E1_39 + bytes.fromhex("0201")
    value, fields = trace(RECORD, data, offset=100)
    assert value == RECORD.parse(data)
    by_path = {f.path: f for f in fields}
    high, mid, kind = by_path["packed.high"], by_path["packed.mid"], by_path["packed.kind"]
    assert (high.value, mid.value, int(kind.value)) == (14, 30, 1)
    assert (high.bits, mid.bits, kind.bits) == ((10, 15), (4, 9), (0, 3))
    # integer bits 10-15 are in the second byte (offset 102), bits 0-3 in the first (101), 4-9 in both
    assert (high.start, high.end) == (102, 103)
    assert (kind.start, kind.end) == (101, 102)
    assert (mid.start, mid.end) == (101, 103)
    assert all(f.little_endian for f in (high, mid, kind)) and not by_path["count"].little_endian


def test_hex_view_draws_the_integer() -> None:
    data = bytes([7]) + E1_39 + bytes.fromhex("0201")
    _, fields = trace(RECORD, data)
    text = plain(render(fields, data))
    # 0x39e1 = 0011 1001 1110 0001, most significant bit first; the bytes as stored
    assert "00000001  e1 39" in text
    assert "bits 10-15 0011 10.. .... ...." in text
    assert "bits 4-9   .... ..01 1110 ...." in text
    assert "bits 0-3   .... .... .... 0001" in text


def test_docs_say_little_endian() -> None:
    doc = FormatDoc("toy", "Toy", (".toy",), "A toy.", (Structure("Record", RECORD, "One record."),))
    page = format_page(doc)
    assert "#### Bit layout of `packed` (16 bits, bit 0 = least significant; bytes little-endian)" in page
    assert "| 10-15 | 6 | `packed.high` | six high bits |" in page


class Pair(cs.Adapter):  # type: ignore[misc]
    """Two bytes decoded to their sum and difference (a decoded view of plain fields)."""

    def _decode(self, obj: Any, context: Any, path: str) -> tuple[int, int]:
        return (obj.a + obj.b, obj.a - obj.b)

    def _encode(self, obj: tuple[int, int], context: Any, path: str) -> dict[str, int]:
        return {"a": (obj[0] + obj[1]) // 2, "b": (obj[0] - obj[1]) // 2}


def test_describe_lists_the_fields_under_an_adapter() -> None:
    con = cs.Struct("pair" / Pair(cs.Struct("a" / cs.Int8ul * "first", "b" / cs.Int8ul * "second")) * "a pair")
    rows = {row.path: row for row in describe(con)}
    assert list(rows) == ["pair", "pair.a", "pair.b"]
    assert (rows["pair.b"].offset, rows["pair.b"].size, rows["pair.b"].meaning) == (1, 1, "second")
    # tracing agrees: the container shows the decoded value, the fields their bytes
    value, fields = trace(con, bytes([5, 3]))
    assert value.pair == (8, 2) and [f.path for f in fields] == ["pair", "pair.a", "pair.b"]
