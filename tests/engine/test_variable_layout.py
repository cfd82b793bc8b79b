"""Variable-size declarations in the engine: FixedSized regions, bit runs whose layout the data decides,
optional fields, zero-width bit fields; their tracing, description, documentation and hex view.

The toy record below is worked out by hand; values are also compared with construct's own parse.
"""

from __future__ import annotations

from typing import Any

import construct as cs
import pytest

from chessformats.codegen.hexview import plain, render
from chessformats.codegen.markdown import format_page
from chessformats.engine import FormatError, InvalidValueError, TruncatedError, describe, trace
from chessformats.engine.prefixcode import PrefixCode, PrefixCoded
from chessformats.engine.schema import BitsUnsigned, FormatDoc, Structure, bitwise_rest, type_name
from roundtrip import assert_roundtrip

CODE = PrefixCode({"zero": ("0", "nothing"), "one": ("10", "one thing"), "two": ("11", "two things")})


def _padding(ctx: Any) -> int:
    return int(8 * (ctx._.length - 1) - CODE.bit_length(ctx.things) - (3 if ctx._.flag else 0))


BODY = cs.Struct(
    "things" / PrefixCoded(CODE, 4, ["p", "q", "r", "s"]) * "four coded items",
    "padding" / BitsUnsigned(_padding) * "zero bits up to the tail",
    "tail" / cs.If(cs.this._.flag, cs.BitsInteger(3)) * "three tail bits when flag is set",
)
RECORD = cs.Struct(
    "length" / cs.Int8ub * "bytes of length and body",
    "flag" / cs.Flag * "a tail follows",
    "body" / cs.FixedSized(cs.this.length - 1, bitwise_rest(BODY)) * "the coded body",
    "after" / cs.Int16ub * "a field after the body",
)

# length 3 (2 body bytes), flag 1, body: items two zero one zero = 11 0 10 0 (6 bits), padding 16 - 6 - 3 = 7
# bits, tail 101: 1101 0000 | 0000 0101 = d0 05; after = 0x1234
DATA = bytes.fromhex("03" "01" "d005" "1234")


def test_parse_build_by_hand() -> None:
    parsed = assert_roundtrip(RECORD, DATA, {"length": 3, "flag": True, "body": {
        "things": ["two", "zero", "one", "zero"], "padding": 0, "tail": 0b101}, "after": 0x1234}, size=cs.SizeofError)
    assert parsed.body.things == ["two", "zero", "one", "zero"]
    assert parsed.body.padding == 0 and parsed.body.tail == 0b101 and parsed.after == 0x1234
    # without the flag there is no tail: items 0 0 0 0 (4 bits) + 12 padding bits
    other = bytes.fromhex("03" "00" "0000" "0001")
    parsed = assert_roundtrip(RECORD, other, {"length": 3, "flag": False, "body": {
        "things": ["zero"] * 4, "padding": 0, "tail": None}, "after": 1}, size=cs.SizeofError)
    assert parsed.body.tail is None and parsed.body.padding == 0


def test_bits_unsigned() -> None:
    con = cs.Bitwise(cs.Struct("a" / BitsUnsigned(0), "b" / BitsUnsigned(8)))
    assert assert_roundtrip(con, b"\x7f", {"a": 0, "b": 127}, size=1).b == 127
    assert type_name(BitsUnsigned(3)) == "u3 (bits)" and "from the data" in type_name(BitsUnsigned(lambda c: 1))
    with pytest.raises(cs.ConstructError):
        cs.Bitwise(cs.Struct("a" / BitsUnsigned(8))).build({"a": 256})
    with pytest.raises(cs.ConstructError):
        cs.Bitwise(cs.Struct("a" / BitsUnsigned(lambda c: -1), "b" / cs.BitsInteger(8))).parse(b"\x00")


def test_trace_spans_and_offsets() -> None:
    value, fields = trace(RECORD, DATA, offset=0x40, path="rec")
    assert value.body.things == RECORD.parse(DATA).body.things
    by_path = {f.path: f for f in fields}
    body = by_path["rec.body"]
    assert (body.start, body.end, body.bit_start, body.bit_end) == (0x42, 0x44, 8 * 0x42, 8 * 0x44)
    items = [by_path[f"rec.body.things.{label}"] for label in "pqrs"]
    assert [(f.bit_start - 8 * 0x42, f.bit_end - 8 * 0x42) for f in items  # type: ignore[operator]
            ] == [(0, 2), (2, 3), (3, 5), (5, 6)]
    assert by_path["rec.body.padding"].bit_start == 8 * 0x42 + 6 and by_path["rec.body.padding"].value == 0
    tail = by_path["rec.body.tail"]
    assert (tail.bit_start, tail.bit_end, tail.value) == (8 * 0x44 - 3, 8 * 0x44, 5)
    after = by_path["rec.after"]
    assert (after.start, after.end, after.value) == (0x44, 0x46, 0x1234)


def test_trace_without_the_optional_field() -> None:
    _, fields = trace(RECORD, bytes.fromhex("03000000ffff"))
    assert "body.tail" not in {f.path for f in fields}


def test_errors_in_variable_parts_are_located() -> None:
    with pytest.raises(InvalidValueError) as caught:  # length 0: the body would be -1 bytes
        trace(RECORD, bytes.fromhex("0000"), offset=10, path="rec")
    assert caught.value.path == "rec.body" and caught.value.offset == 12
    with pytest.raises(TruncatedError):  # the body says 4 bytes, 2 are there
        trace(RECORD, bytes.fromhex("05010000"))
    with pytest.raises(FormatError) as located:  # items take 8 bits of a 1-byte body with a 3-bit tail
        trace(RECORD, bytes.fromhex("0201ff0000"), path="rec")
    assert located.value.path == "rec.body.padding"


def test_plain_bitwise_of_a_variable_struct_takes_whole_bytes() -> None:
    # construct's Bitwise(...) of a struct without a fixed size (Restreamed): here 4 items = 1 + 1 + 2 + 2 bits,
    # then 2 pad bits: one byte, then the u8 after it
    con = cs.Struct("run" / cs.BitStruct("things" / PrefixCoded(CODE, 4) * "items",
                                         "pad" / cs.BitsInteger(2) * "pad") * "a run",
                    "next" / cs.Int8ub * "the next byte")
    data = bytes((0b00101000, 7))
    _, fields = trace(con, data)
    by_path = {f.path: f for f in fields}
    assert by_path["next"].start == 1 and by_path["next"].value == 7
    assert con.parse(data).run.things == ["zero", "zero", "one", "one"]


def test_describe_variable_layout() -> None:
    rows = {f.path: f for f in describe(RECORD)}
    assert rows["body"].offset == 2 and rows["body"].size is None and rows["body"].varbits
    assert rows["body.things"].codes == (("0", "zero", "nothing"), ("10", "one", "one thing"),
                                        ("11", "two", "two things"))
    assert rows["body.tail"].bit_width == 3 and rows["body.tail"].type == "u3 (bits), optional"
    assert rows["body.things"].bits is None and rows["body.things"].offset is None
    assert rows["after"].offset is None and rows["after"].size == 2


def test_markdown_of_a_variable_layout() -> None:
    doc = FormatDoc("toy", "Toy", (".toy",), "A toy.", (Structure("Record", RECORD, "One record."),))
    page = format_page(doc)
    assert "| 2 | var | bits | `body` | the coded body |" in page
    assert "|  | 3 bits | u3 (bits), optional | &nbsp;&nbsp;`body.tail` | three tail bits when flag is set |" in page
    assert "#### Code words of `body.things`" in page and "| `10` | `one` | one thing |" in page
    assert "### Record (variable size)" in page


def test_hex_view_of_a_wide_run_pictures_each_field_over_its_own_bytes() -> None:
    wide = cs.Struct("run" / cs.FixedSized(6, bitwise_rest(cs.Struct(
        "things" / PrefixCoded(CODE, 20) * "twenty items",
        "rest" / BitsUnsigned(lambda ctx: 48 - CODE.bit_length(ctx.things)) * "the rest",
    ))) * "a six-byte run")
    data = bytes.fromhex("ffffffffff00")  # 20 times "11" = 40 bits of ones, then 8 zero bits
    _, fields = trace(wide, data)
    text = plain(render(fields, data))
    # the tenth item: stream bits 18-19 of the run, in its third byte
    assert "00000002  bits 18-19  ..11 ...." in text
    assert "run.things.9" in text and "two things (code 11)" in text
    assert any("run.things " in line and "= [20 items]" in line for line in text.splitlines())


def test_hex_view_shows_repeated_lines_once() -> None:
    con = cs.Struct("blob" / cs.Bytes(40) * "forty bytes")
    data = bytes(8) + bytes(24) + b"\x01" * 8
    lines = plain(render(trace(con, data)[1], data)).splitlines()
    assert lines[1].strip() == "*" and lines[2].strip() == "01 01 01 01 01 01 01 01" and len(lines) == 3


def test_generated_codec_reads_the_coded_body() -> None:
    """The engine's generated codec: the coded body read by a bit cursor, no part left to construct."""
    from chessformats.engine import codec
    from roundtrip import plain

    derived = codec(RECORD)
    assert derived.generated and derived.delegated == ()
    for data in (DATA, bytes.fromhex("03" "00" "0000" "0001")):
        assert plain(derived.decode(data)) == plain(RECORD.parse(data))
        assert derived.encode(derived.decode(data)) == data == derived.encode(RECORD.parse(data))
    with pytest.raises(FormatError):  # a body of 1 byte cannot hold four items and the tail
        derived.decode(bytes.fromhex("02" "01" "ff" "0000"))
    with pytest.raises(InvalidValueError):  # a fifth item
        derived.encode({"length": 3, "flag": False, "body": {"things": ["zero"] * 5, "padding": 0, "tail": None},
                        "after": 1})


ENTRIES = cs.Struct(
    "count" / cs.Int8ub * "entries",
    "entries" / cs.GreedyRange(cs.Struct(
        "kind" / cs.Int8ub * "a kind",
        "size" / cs.Int16ub * "a size",
        "note" / cs.Optional(cs.Int16ub) * "a note when two bytes are left",
        "rest" / cs.Bytes(cs.this.size) * "size bytes",
    )) * "entries to the end",
)


def test_generated_alternatives_stop_where_construct_stops() -> None:
    """Optional fields and a greedy range over bytes cut anywhere (the generated code skips an alternative the
    bytes cannot hold without building its error): the values are construct's, built back the same."""
    from chessformats.engine import codec
    from roundtrip import plain

    derived = codec(ENTRIES)
    assert derived.generated
    data = bytes.fromhex("02" "01" "0000" "0102" "05" "0001" "abcd" "ee")
    for end in range(1, len(data) + 1):
        expected = ENTRIES.parse(data[:end])
        assert plain(derived.decode(data[:end])) == plain(expected)
        assert derived.encode(derived.decode(data[:end])) == ENTRIES.build(expected)
