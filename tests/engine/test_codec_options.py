"""The generated variable-layout codecs' reading interface and options (engine.varoptions, engine.conditions):
``read(data, offset, end, params) -> (value, end)``, parse parameters, an end bound, errors at offsets of the
data given, fields kept as stored, enum leaves as (checked) numbers, plain tuples, ``BitsLeft``.

The record below is worked out by hand; every decoded value is also compared with construct's own parse of
the same bytes and parameters (the oracle), every encoding with construct's build.
"""

from __future__ import annotations

from typing import Any

import construct as cs
import pytest

from chessformats.engine import InvalidValueError, TruncatedError
from chessformats.engine.codec import codec
from chessformats.engine.compactint import CompactInt
from chessformats.engine.conditions import FlagSet, Parameter
from chessformats.engine.prefixcode import PrefixCode, PrefixCoded
from chessformats.engine.schema import BitsLeft, BitsUnsigned, bitwise_rest

COLOUR = cs.Enum(cs.Int8ub, red=1, green=2, blue=3)
FLAGS = cs.BitStruct("unused" / cs.BitsInteger(6), "extra" / cs.Flag, "note" / cs.Flag)
KEEPS = Parameter("keeps", True, source=("head", "keeps"))
BODY = cs.Struct(
    "count" / CompactInt(),
    "colours" / cs.Array(cs.this.count, COLOUR),
    "flags" / FLAGS,
    "note" / cs.If(FlagSet("note"), cs.Int16ub),
    "extra" / cs.If(FlagSet("extra", parameter=KEEPS), cs.Int8ub),
    "rest" / cs.GreedyBytes,
)
RECORD = cs.Struct("size" / cs.Int8ub, "body" / cs.FixedSized(cs.this.size, BODY))
FILE = cs.Struct("head" / cs.Struct("keeps" / cs.Flag), "records" / cs.GreedyRange(RECORD))

# size 8: count 2, colours red blue, flags 0b11 (extra and note), note 0x0102, extra 9, rest "z"
DATA = bytes.fromhex("08" "02" "0103" "03" "0102" "09" "7a")


def test_read_gives_the_end_and_stops_at_the_bound() -> None:
    plain = codec(RECORD)
    data = b"\xff" + DATA + b"tail"
    value, end = plain.read(data, 1, len(data))
    assert end == 1 + len(DATA) and value.body.rest == b"z"
    assert value == plain.decode(data, 1) and value.body.colours == ["red", "blue"]
    assert (value.size, value.body.note, value.body.extra) == (8, 0x0102, 9)
    parsed = RECORD.parse(DATA)
    assert (parsed.body.colours, parsed.body.note, parsed.body.extra) == (["red", "blue"], 0x0102, 9)
    with pytest.raises(TruncatedError) as cut:  # the bound cuts the body: an error at its offset in ``data``
        plain.read(data, 1, 5)
    assert cut.value.offset == 2 and cut.value.path == "body"
    short = DATA[:1] + b"\x02\x01"  # the body says 7 bytes; an error in a region is at its offset in ``data``
    with pytest.raises(TruncatedError):
        plain.decode(bytes.fromhex("07") + b"\x05\x01\x02", end=4)
    with pytest.raises(TruncatedError):
        plain.decode(short)


def test_parameters_as_construct_takes_them() -> None:
    plain = codec(RECORD)
    for keeps in (False, True):
        parsed = RECORD.parse(DATA, keeps=keeps)
        for params in ({"keeps": keeps}, plain.parameters(keeps=keeps)):
            value = plain.decode(DATA, params=params)
            assert (value.body.extra, value.body.rest) == (parsed.body.extra, parsed.body.rest)
            assert plain.encode(value, {"keeps": keeps}) == RECORD.build(parsed, keeps=keeps) == DATA
    assert plain.decode(DATA).body.extra == 9  # the parameter's default


def test_a_field_of_an_enclosing_record_gives_the_parameter() -> None:
    data = b"\x00" + DATA + DATA
    parsed = FILE.parse(data, keeps=True)
    value = codec(FILE).decode(data, params={"keeps": True})
    assert parsed.records[0].body.extra is None and parsed.records[0].body.rest == b"\x09z"  # head.keeps wins
    assert [(r.body.extra, r.body.rest) for r in value.records] == [(None, b"\x09z")] * 2
    assert codec(FILE).encode(value) == FILE.build(parsed) == data


def test_stored_enum_numbers_and_tuples() -> None:
    options = codec(RECORD, stored=("body.flags",), enums="checked", records="tuples")
    value, end = options.read(DATA)
    assert value == (8, (2, [1, 3], 0b11, 0x0102, 9, b"z")) and end == len(DATA)
    assert options.encode(value) == DATA
    numbers = codec(RECORD, enums="numbers")
    assert numbers.decode(DATA).body.colours == [1, 3]
    with pytest.raises(InvalidValueError) as bad:  # colour 4: not a value of the enumeration
        options.decode(DATA[:3] + b"\x04" + DATA[4:])
    assert (bad.value.offset, bad.value.path, bad.value.actual) == (3, "body.colours[1]", 4)
    assert numbers.decode(DATA[:3] + b"\x04" + DATA[4:]).body.colours == [1, 4]  # unchecked: as construct
    with pytest.raises(InvalidValueError):
        options.encode((8, (2, [1, 4], 0b11, 0x0102, 9, b"z")))
    with pytest.raises(InvalidValueError):
        options.encode((8, (2, [1, 3], 256, 0x0102, 9, b"z")))  # a stored byte out of range
    with pytest.raises(TypeError):
        codec(COLOUR, stored=("x",))  # a fixed layout keeps no field as stored


# a fixed part with an enum below its top level: read whole by the variable layout's generated code
PAIR = cs.Struct("head" / cs.Struct("colour" / COLOUR, "shade" / cs.Int8ub), "n" / cs.Int8ub,
                 "items" / cs.Array(cs.this.n, cs.Int8ub))


def test_options_reach_enums_inside_a_fixed_part() -> None:
    data, bad = bytes.fromhex("0307" "02" "0a0b"), bytes.fromhex("0907" "00")
    assert PAIR.parse(data).head.colour == "blue"  # the oracle: construct's names ...
    assert codec(PAIR).decode(data).head.colour == "blue"
    numbers = codec(PAIR, enums="numbers").decode(data)  # ... and the stored integers
    assert numbers.head == (3, 7) and numbers.head.colour.__class__ is int and numbers.items == [10, 11]
    assert codec(PAIR, enums="numbers").encode(numbers) == data
    assert codec(PAIR, enums="numbers").decode(bad).head.colour == 9
    with pytest.raises(InvalidValueError) as error:
        codec(PAIR, enums="checked").decode(b"\xff" + bad, 1)
    assert (error.value.offset, error.value.path, error.value.actual) == (1, "head.colour", 9)
    assert codec(COLOUR, enums="numbers").decode(b"\x02") == 2 and codec(COLOUR).decode(b"\x02") == "green"
    with pytest.raises(InvalidValueError):  # checked when encoding too, inside the part and in a fixed layout
        codec(PAIR, enums="checked").encode(((9, 7), 0, []))
    with pytest.raises(InvalidValueError):
        codec(COLOUR, enums="checked").encode(9)
    assert codec(PAIR, enums="checked").encode(((3, 7), 0, [])) == bytes.fromhex("030700")
    assert codec(COLOUR, enums="numbers").encode(9) == b"\x09" == COLOUR.build(9)  # unchecked: as construct


def test_a_stored_path_must_name_a_field_kept() -> None:
    assert codec(PAIR, stored=("head",)).decode(bytes.fromhex("0307" "00")).head == b"\x03\x07"
    for wrong in ("head.colour", "nothing"):  # inside a part read whole; no field at all
        with pytest.raises(ValueError, match=wrong.replace(".", r"\.")):
            codec(PAIR, stored=(wrong,))


CODE = PrefixCode({"zero": ("0", "nothing"), "one": ("10", "one thing"), "two": ("11", "two things")})


def _left(ctx: Any) -> int:
    return int(16 - CODE.bit_length(ctx.things))


BITS = cs.FixedSized(2, bitwise_rest(cs.Struct(
    "things" / PrefixCoded(CODE, 3, ["p", "q", "r"]) * "three coded items",
    "padding" / BitsUnsigned(BitsLeft(_left)) * "the bits left",
)))


def test_bits_left_agrees_with_construct() -> None:
    for data in (bytes.fromhex("d001"), bytes.fromhex("0000"), bytes.fromhex("ffff")):
        parsed = BITS.parse(data)
        value = codec(BITS).decode(data)
        assert (list(value.things), value.padding) == (list(parsed.things), parsed.padding)
        assert codec(BITS).encode(value) == BITS.build(parsed) == data
