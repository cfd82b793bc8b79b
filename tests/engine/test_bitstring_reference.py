"""bitstring as the independent reference for every bit-level path of the engine.

bitstring (pinned ``>=5,<6``: version 5's ``Bits.from_bytes``/``pack``/``unpack`` API) packs and unpacks bits
with its own format strings (``"u1, u3, bool, i4"``), written here from the declarations' field lists alone,
not from the engine's shifts and masks. Against it, with hypothesis:

- every fixed bit run declared in ``chessformats.schemas`` (``BitStruct`` big-endian runs and ``BitStructLE``
  little-endian ones) and toy runs with signed fields: the generated codec's ``unpack``/``pack``, construct's
  ``parse``/``build`` and ``engine.layout.bit_fields`` shifts;
- ``engine.bitruns.run_bits`` (the byte-swapped bit stream of a little-endian run);
- ``engine.prefixcode``: ``PrefixCode.encode``/``decode`` and the ``PrefixCoded`` construct, on the square code
  of CTG/Kvetka and a toy code;
- ``engine.schema.BitsUnsigned``, widths 0 and from the context included.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import construct as cs
import pytest
from bitstring import Bits, pack
from hypothesis import given, settings
from hypothesis import strategies as st

import chessformats.schemas
from chessformats.engine.bitruns import BitStructLE, bit_run, run_bits
from chessformats.engine.codec import codec
from chessformats.engine.layout import bit_fields
from chessformats.engine.prefixcode import PrefixCode, PrefixCoded
from chessformats.engine.schema import BitsUnsigned
from chessformats.schemas.squares import SQUARE_CODE

# --- bit runs -------------------------------------------------------------------------------------------------


def _children(con: Any) -> list[Any]:
    out = [getattr(con, attr) for attr in ("subcon", "thensubcon", "elsesubcon")
           if isinstance(getattr(con, attr, None), cs.Construct)]
    out += list(getattr(con, "subcons", ()) or ())
    out += [case.declaration for case in getattr(con, "cases", {}).values() if hasattr(case, "declaration")]
    return out


def _schema_runs() -> dict[str, cs.Construct]:
    """Every fixed-size bit run reachable from a public declaration of the schemas, once."""
    runs: dict[str, cs.Construct] = {}
    seen: set[int] = set()

    def visit(con: Any, label: str) -> None:
        if id(con) in seen:
            return
        seen.add(id(con))
        run = bit_run(con)
        if run is not None and run.size is not None and codec(con).generated:
            runs.setdefault(label, con)
            return  # its fields are bits, and its inner BitStruct is the same run
        for child in _children(con):
            named = isinstance(child, cs.Renamed) and not isinstance(con, cs.Renamed) and child.name
            visit(child, f"{label}.{child.name}" if named else label)

    package = chessformats.schemas
    declarations = {}
    for info in sorted(pkgutil.walk_packages(package.__path__, package.__name__ + "."), key=lambda i: i.name):
        module = importlib.import_module(info.name)
        for name, value in sorted(vars(module).items()):
            if isinstance(value, cs.Construct) and not name.startswith("_"):
                declarations.setdefault(id(value), (f"{info.name.rsplit('.', 1)[1]}.{name}", value))
    for label, value in declarations.values():  # runs declared on their own keep their own name
        run = bit_run(value)
        if run is not None and run.size is not None and codec(value).generated:
            runs.setdefault(label, value)
            seen.add(id(value))
    for label, value in declarations.values():
        visit(value, label)
    return runs


SIGN = cs.Enum(cs.BitsInteger(2), minus=3, plus=1)
TOY_RUNS = {
    "toy.signed_le": BitStructLE("a" / cs.BitsInteger(5, signed=True), "b" / cs.Flag, "c" / cs.BitsInteger(10)),
    "toy.nested_be": cs.BitStruct("x" / cs.BitsInteger(3), "inner" / cs.Struct("s" / SIGN, "t" / cs.Flag),
                                  "y" / cs.BitsInteger(10, signed=True), "z" / BitsUnsigned(8)),
}
RUNS = {**_schema_runs(), **TOY_RUNS}


def test_the_schemas_have_runs_of_both_byte_orders() -> None:
    little = [label for label, con in RUNS.items() if bit_run(con).little_endian]  # type: ignore[union-attr]
    assert "monty.MOVE" in little and "polyglot.MOVE" in RUNS and "chessbase.SIMPLE_MOVE" in RUNS
    assert len(RUNS) >= 25


def _tokens(con: Any) -> list[str]:
    """bitstring tokens of a run's fields, in stream order, from the construct field list only."""
    if isinstance(con, cs.Renamed):
        return _tokens(con.subcon)
    if isinstance(con, cs.Struct):
        return [token for sub in con.subcons for token in _tokens(sub)]
    if isinstance(con, cs.Enum):
        return _tokens(con.subcon)
    if isinstance(con, cs.BitsInteger):
        return [f"{'i' if con.signed else 'u'}{con.length}"]
    if isinstance(con, BitsUnsigned):
        return [f"u{con.length}"]
    if isinstance(con, type(cs.Flag)):
        return ["bool"]
    raise AssertionError(f"no bitstring token for {con!r}")


def _reference(con: cs.Construct) -> tuple[str, int, bool]:
    run = bit_run(con)
    assert run is not None and run.size is not None
    return ", ".join(_tokens(run.fields)), 8 * run.size, run.little_endian


def _token_values(token: str) -> st.SearchStrategy[Any]:
    if token == "bool":
        return st.booleans()
    width = int(token[1:])
    if token[0] == "i":
        return st.integers(-(1 << (width - 1)), (1 << (width - 1)) - 1)
    return st.integers(0, (1 << width) - 1)


def _flat(value: Any) -> list[Any]:
    """construct's parsed run as a flat list of numbers (enum names as their values)."""
    if isinstance(value, dict):
        return [item for key, sub in value.items() if not str(key).startswith("_") for item in _flat(sub)]
    if isinstance(value, cs.EnumIntegerString):
        return [int(value)]
    return [value]


@pytest.mark.parametrize("label", sorted(RUNS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_bit_runs_agree_with_bitstring(label: str, data: st.DataObject) -> None:
    con = RUNS[label]
    fmt, width, little = _reference(con)
    derived = codec(con)
    # unpack: any stored bytes, read by bitstring (a little-endian run as bitstring's 'ule' integer)
    raw = data.draw(st.binary(min_size=width // 8, max_size=width // 8), label="bytes")
    stream = pack(f"u{width}", Bits.from_bytes(raw).unpack(f"ule{width}")[0]) if little else Bits.from_bytes(raw)
    expected = stream.unpack(fmt)
    assert list(derived.unpack(raw)) == expected
    assert _flat(con.parse(raw)) == expected
    # pack: values for every field, packed by bitstring
    values = [data.draw(_token_values(token), label=token) for token in fmt.split(", ")]
    packed = pack(fmt, *values)
    stored = pack(f"ule{width}", packed.unpack(f"u{width}")[0]).to_bytes() if little else packed.to_bytes()
    assert derived.pack(*values) == stored
    assert con.build(con.parse(stored)) == stored == derived.encode(derived.decode(stored))


def test_bit_field_shifts_agree_with_bitstring() -> None:
    # each field alone set to all ones: bitstring puts it where bit_fields says (shift from the low end)
    for label in ("polyglot.MOVE", "monty.MOVE", "chessbase.TWO_BYTE_MOVE", "chessbase.DATE_LE"):
        con = RUNS[label]
        fmt, width, _ = _reference(con)
        tokens = fmt.split(", ")
        names = list(bit_fields(con))
        assert len(names) == len(tokens)
        for index, (name, token) in enumerate(zip(names, tokens, strict=True)):
            ones = [(1 << int(t[1:])) - 1 if i == index else 0 for i, t in enumerate(tokens)]
            word = pack(fmt, *ones).unpack(f"u{width}")[0]
            field = bit_fields(con)[name]
            assert word == field.mask << field.shift, (label, name, token)


@given(st.binary(min_size=2, max_size=2))
def test_run_bits_is_the_little_endian_integer(raw: bytes) -> None:
    run = bit_run(RUNS["monty.MOVE"])
    assert run is not None
    reference = pack("u16", Bits.from_bytes(raw).unpack("ule16")[0])
    assert run_bits(run, raw) == bytes(int(bit) for bit in reference.bin)


# --- prefix codes --------------------------------------------------------------------------------------------

TOY_CODE = PrefixCode({"a": ("0", "one bit"), "b": ("10", "two"), "c": ("110", "three"), "d": ("111", "three")})


def _bitstring_decode(bits: Bits, code: PrefixCode, count: int) -> tuple[list[str], int]:
    """Decode with bitstring alone: at each position the one code word the bits start with."""
    words = [(name, Bits.from_string("0b" + code.bits(name))) for name in code.members]
    out, position = [], 0
    for _ in range(count):
        (name, word), = [(n, w) for n, w in words if bits.startswith(w, position)]
        out.append(name)
        position += len(word)
    return out, position


@pytest.mark.parametrize("code", [SQUARE_CODE, TOY_CODE], ids=["squares", "toy"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_prefix_codes_agree_with_bitstring(code: PrefixCode, data: st.DataObject) -> None:
    symbols = data.draw(st.lists(st.sampled_from(sorted(code.members)), min_size=1, max_size=64), label="symbols")
    reference = Bits.from_joined([Bits.from_string("0b" + code.bits(symbol)) for symbol in symbols])
    value, length = code.encode(symbols)
    assert length == len(reference) and format(value, f"0{length}b") == reference.bin
    assert code.decode(value, length, len(symbols)) == (symbols, length)
    assert _bitstring_decode(reference, code, len(symbols)) == (symbols, length)
    # the construct: the code words, then zero bits up to a whole byte
    padding = -length % 8
    field = cs.Bitwise(cs.Struct("symbols" / PrefixCoded(code, len(symbols)), "padding" / BitsUnsigned(padding)))
    stored = (reference + Bits.from_zeros(padding)).to_bytes()
    assert field.build({"symbols": symbols, "padding": 0}) == stored
    assert field.parse(stored).symbols == symbols


# --- BitsUnsigned --------------------------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=6).flatmap(
    lambda widths: st.tuples(st.just(widths), st.tuples(*(st.integers(0, (1 << w) - 1) for w in widths)))))
def test_bits_unsigned_agrees_with_bitstring(case: tuple[list[int], tuple[int, ...]]) -> None:
    widths, values = case
    padding = -sum(widths) % 8
    con = cs.Bitwise(cs.Struct(*[f"f{i}" / BitsUnsigned(w) for i, w in enumerate(widths)],
                               "width" / BitsUnsigned(lambda ctx: padding)))
    tokens = [(f"u{w}", v) for w, v in zip(widths, values, strict=True) if w]  # bitstring has no 0-bit integers
    reference = (pack(", ".join(t for t, _ in tokens), *(v for _, v in tokens)) if tokens else Bits())
    stored = (reference + Bits.from_zeros(padding)).to_bytes()
    obj = {**{f"f{i}": v for i, v in enumerate(values)}, "width": 0}
    assert con.build(obj) == stored
    parsed = con.parse(stored)
    assert [parsed[f"f{i}"] for i in range(len(widths))] == list(values)
