"""What the variable-layout generator writes as direct code: :class:`Formula` counts and lengths, the enclosing
record's fields passed as arguments (no construct context), small bit structures and one-byte parts read from a
table of their values. Each is compared with construct's own parse and build (the oracle), on every byte value
where a table stands in for the reading.
"""

from __future__ import annotations

import re
from typing import Any

import construct as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.engine.codec import codec
from chessformats.engine.errors import FormatError
from chessformats.engine.formula import Formula
from chessformats.engine.schema import MeaningEnum, bitwise_rest
from chessformats.schemas import ctg, kvetka
from roundtrip import plain


def _agrees(con: cs.Construct, raw: bytes) -> Any:
    """The codec decodes what construct parses, or fails (FormatError) where construct fails; a value it
    decodes encodes to what construct builds."""
    derived = codec(con)
    try:
        expected = con.parse(raw)
    except cs.ConstructError:
        with pytest.raises(FormatError):
            derived.decode(raw)
        return None
    decoded = derived.decode(raw)
    assert plain(decoded) == plain(expected)
    assert derived.encode(decoded) == con.build(expected)
    return decoded


@pytest.mark.parametrize("text, fields, expected", [
    ("max(length - 1, 0) // 2", {"length": 0}, 0),
    ("max(length - 1, 0) // 2", {"length": 9}, 4),
    ("header.length * 2 if flag else 1", {"header": cs.Container(length=3), "flag": True}, 6),
    ("not (a == 1 or b < 0)", {"a": 2, "b": 1}, True),
    ("_.used - 2", {"_": cs.Container(used=7)}, 5),
])
def test_formula_evaluates_as_python(text: str, fields: dict[str, Any], expected: Any) -> None:
    formula = Formula(text)
    assert formula(cs.Container(fields)) == expected
    assert set(formula.names) <= set(fields)


@pytest.mark.parametrize("text", ["open('x')", "a[0]", "lambda: 1", "[a]", "a.__class__", "max(a, key=b)"])
def test_formula_refuses_what_it_cannot_write(text: str) -> None:
    with pytest.raises(ValueError, match="formula"):
        Formula(text)


COUNTED = cs.Struct(
    "length" / cs.Int8ub * "2 * items + 1",
    "items" / cs.Array(Formula("max(length - 1, 0) // 2"), cs.Int16ub) * "the items",
    "rest" / cs.Bytes(Formula("length % 3")) * "a length from the same field",
)


@given(st.binary(max_size=24))
@settings(max_examples=150, deadline=None)
def test_a_formula_reads_as_construct_reads_it(raw: bytes) -> None:
    _agrees(COUNTED, raw)


def test_a_formula_is_written_into_the_code() -> None:
    source = codec(COUNTED).source
    assert "(max((f_length) - 1, 0) // 2)" in source and "_C(" not in source


INNER = cs.Struct(
    "data" / cs.Bytes(cs.this._.size) * "size bytes, the size from the enclosing record",
    "more" / cs.If(cs.this._.flags.more, cs.Int8ub) * "when the enclosing record's flag is set",
)
OUTER = cs.Struct(
    "flags" / cs.BitStruct("more" / cs.Flag * "a byte follows", "rest" / cs.BitsInteger(7) * "other bits"),
    "size" / cs.Int8ub * "bytes of data",
    "inner" / INNER * "the inner record",
)


@given(st.binary(max_size=12))
@settings(max_examples=150, deadline=None)
def test_fields_of_the_enclosing_record_are_passed_as_arguments(raw: bytes) -> None:
    _agrees(OUTER, raw)


def test_no_construct_context_is_made_where_no_callable_needs_one() -> None:
    for con in (OUTER, ctg.RECORD, ctg.POSITION, ctg.MOVES, kvetka.ELEMENT):
        assert "_C(" not in codec(con).source, con


SIDE = MeaningEnum(cs.BitsInteger(2), {"white": (0, "white"), "black": (1, "black")})  # 2, 3: unknown values
SMALL = cs.Struct("side" / SIDE * "the side", "a" / cs.Flag * "a flag", "b" / cs.BitsInteger(3) * "three bits")
TABLED = cs.Struct(
    "n" / cs.Int8ub * "bytes of the bit run",
    "bits" / cs.FixedSized(cs.this.n, bitwise_rest(cs.Struct("lead" / cs.Flag * "a flag", "small" / SMALL * "6 bits",
                                                              "tail" / cs.BitsInteger(1) * "1 bit")))
    * "a bit run the data sizes: the whole struct (8 bits) and its small struct (6 bits) from tables",
    "flags" / cs.BitStruct("x" / cs.Flag * "x", "side" / SIDE * "a side", "y" / cs.BitsInteger(5) * "y")
    * "one byte: read from a table",
    "data" / cs.Bytes(cs.this.flags.y % 3) * "0-2 bytes",
    "magic" / cs.Const(b"\x05") * "one byte the others of which are refused: read by its decoder",
)


def test_tables_give_what_construct_reads_for_every_byte() -> None:
    for byte in range(256):
        for raw in (bytes([1, byte, byte, 5, 5, 5]), bytes([1, byte, 5, 5, 5, byte]), bytes([1, byte, byte, byte]),
                    bytes([1, byte]), bytes([0, byte, 5]), bytes([2, byte, byte, 0, 5])):
            _agrees(TABLED, raw)


def test_the_small_structures_are_tabled() -> None:
    source = codec(TABLED).source
    assert len(set(re.findall(r" = (_tab\d+)\[", source))) == 3  # the small struct, the bit run's, the flags
    assert "(f_flags, ) = _tab" in source and "_C(" not in source
