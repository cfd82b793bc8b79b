"""engine.derived: counts and flag bits an encoder derives, checked against construct's own derivation
(``Rebuild``) of the same layout."""

from __future__ import annotations

from typing import Any

import construct as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.engine.codec import codec
from chessformats.engine.conditions import FlagSet, Parameter
from chessformats.engine.derived import derivation

LONG = Parameter("long", True)
FLAGS = cs.BitStruct("unused" / cs.BitsInteger(5), "tail" / cs.Flag, "extra" / cs.Flag, "note" / cs.Flag)
TOY = cs.Struct(
    "count" / cs.Int8ub,
    "items" / cs.Array(cs.this.count, cs.Int16ub),
    "flags" / FLAGS,
    "note" / cs.If(FlagSet("note"), cs.Int8ub),
    "extra" / cs.If(FlagSet("extra", parameter=LONG), cs.Int16ub),
    "tail" / cs.If(FlagSet("tail", parameter=LONG), cs.Bytes(2)),
)
"""A toy record: a counted array, a flags byte, a part every file has and two only "long" files have."""


def _rebuilt(long: bool) -> cs.Construct:
    """The same layout, its count and flag bits derived by construct (``Rebuild``): the oracle."""
    def bit(name: str, needs_long: bool) -> Any:
        return lambda ctx: ctx._[name] is not None if (long or not needs_long) else ctx._params.given[name]

    return cs.Struct(
        "count" / cs.Rebuild(cs.Int8ub, cs.len_(cs.this.items)),
        "items" / cs.Array(cs.this.count, cs.Int16ub),
        "flags" / cs.BitStruct("unused" / cs.BitsInteger(5), "tail" / cs.Rebuild(cs.Flag, bit("tail", True)),
                               "extra" / cs.Rebuild(cs.Flag, bit("extra", True)),
                               "note" / cs.Rebuild(cs.Flag, bit("note", False))),
        "note" / cs.If(cs.this.flags.note, cs.Int8ub),
        "extra" / cs.If(lambda ctx: long and ctx.flags.extra, cs.Int16ub),
        "tail" / cs.If(lambda ctx: long and ctx.flags.tail, cs.Bytes(2)),
    )


def test_what_is_derived() -> None:
    found = derivation(TOY)
    assert found.counts == ((0, 1),)
    assert [(bit.name, bit.mask, bit.parameter) for bit in found.bits] == [
        ("note", 1, None), ("extra", 2, LONG), ("tail", 4, LONG)]


@settings(max_examples=60, deadline=None)
@given(items=st.lists(st.integers(0, 0xFFFF), max_size=5), note=st.none() | st.integers(0, 255),
       extra=st.none() | st.integers(0, 0xFFFF), tail=st.none() | st.binary(min_size=2, max_size=2),
       given_bits=st.tuples(st.booleans(), st.booleans(), st.booleans()), long=st.booleans(),
       unused=st.integers(0, 31))
def test_encoding_derives_what_rebuild_derives(items: list[int], note: int | None, extra: int | None,
                                               tail: bytes | None, given_bits: tuple[bool, bool, bool], long: bool,
                                               unused: int) -> None:
    if not long:  # parts of long files only are absent from the others
        extra = tail = None
    flags = (unused, *given_bits)
    value = (None, items, flags, note, extra, tail)
    ours = derivation(TOY).encoder(codec(TOY).encode)(value, {"long": long})
    expected = _rebuilt(long).build({"count": None, "items": items, "flags": {"unused": unused}, "note": note,
                                     "extra": extra, "tail": tail},
                                    given=dict(zip(("tail", "extra", "note"), given_bits, strict=True)))
    assert ours == expected
    assert TOY.parse(ours, long=long).count == len(items)


def test_flags_kept_as_their_stored_integer() -> None:
    stored = codec(TOY, stored=("flags",), records="tuples")
    encode = derivation(TOY).encoder(stored.encode)
    short, long = stored.parameters(building=True, long=False), stored.parameters(building=True, long=True)
    assert encode((9, [7], 0b11111110, 5, None, None), short) == bytes([1, 0, 7, 0b11111111, 5])  # given 2, 4 kept
    assert encode((9, [], 0b11111111, None, None, b"ab"), long) == bytes([0, 0b11111100]) + b"ab"
    assert derivation(TOY).fill((0, [1, 2], 0, None, 3, None), long) == (2, [1, 2], 2, None, 3, None)


def test_only_a_struct_is_derived() -> None:
    with pytest.raises(TypeError):
        derivation(cs.Array(3, cs.Byte))


NESTED = cs.Struct(
    "header" / cs.Struct("magic" / cs.Default(cs.Bytes(2), b"CF"), "count" / cs.Int16ub, "flags" / FLAGS),
    "items" / cs.Array(cs.this.header.count, cs.Int8ub),
    "note" / cs.If(cs.this.header.flags.note, cs.Int8ub),
    "tail" / cs.Default(cs.GreedyBytes, b"!"),
)
"""Defaults, and a count in a record beside the array it counts."""


def test_defaults_and_a_count_in_a_record_beside_the_array() -> None:
    encode = derivation(NESTED).encoder(codec(NESTED).encode)
    flags = {"unused": 0, "tail": False, "extra": False, "note": True}  # read by name by the condition
    value = ((None, None, flags), [1, 2, 3], 9, None)
    expected = NESTED.build({"header": {"count": 3, "flags": flags}, "items": [1, 2, 3], "note": 9})
    assert encode(value) == expected == b"CF\x00\x03\x01\x01\x02\x03\x09!"
    assert encode(((b"XY", 7, flags), [], 4, b"")) == b"XY\x00\x00\x01\x04"  # given values kept, the count derived
