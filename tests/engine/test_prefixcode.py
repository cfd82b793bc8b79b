"""engine.prefixcode: prefix-code tables, the integer fast paths and the bit-level construct.

Expected bits are written out by hand for a toy code; the property tests check encode/decode and
build/parse against each other on random codes (random binary trees) and random symbol sequences.
"""

from __future__ import annotations

import itertools
from typing import Any

import construct as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.engine import FormatError, InvalidValueError, TruncatedError, trace
from chessformats.engine.prefixcode import PrefixCode, PrefixCoded, PrefixCodeError
from roundtrip import assert_roundtrip

# a complete toy code: a = 0, b = 10, c = 110, d = 111
TOY = PrefixCode({"a": ("0", "letter a"), "b": ("10", "letter b"), "c": ("110", "letter c"),
                  "d": ("111", "letter d")})
# an incomplete one: 11 starts no word
PARTIAL = PrefixCode({"x": ("0", "x"), "y": ("10", "y")})


def test_table_and_lengths() -> None:
    assert TOY.codes == {"a": (0, 1), "b": (2, 2), "c": (6, 3), "d": (7, 3)}
    assert TOY.max_length == 3 and TOY.complete and not PARTIAL.complete
    assert TOY.bits("c") == "110" and TOY.meaning("d") == "letter d"
    assert TOY.table()[1] == ("10", "b", "letter b")
    assert TOY.bit_length("abcd") == 1 + 2 + 3 + 3


def test_encode_by_hand() -> None:
    # b a d c = 10 0 111 110 = 0b100111110 (9 bits)
    assert TOY.encode(["b", "a", "d", "c"]) == (0b100111110, 9)
    assert TOY.encode([]) == (0, 0)


def test_decode_by_hand() -> None:
    assert TOY.decode(0b100111110, 9, 4) == (["b", "a", "d", "c"], 9)
    # from bit 3 on: 111 110 -> d c
    assert TOY.decode(0b100111110, 9, 2, start=3) == (["d", "c"], 9)


@pytest.mark.parametrize("members, message", [
    ({}, "at least one"),
    ({"a": ("", "empty")}, "non-empty"),
    ({"a": ("012", "not binary")}, "non-empty string of 0 and 1"),
    ({"a": ("01", "x"), "b": ("01", "y")}, "same code word"),
    ({"a": ("0", "x"), "b": ("01", "y")}, "is a prefix of"),
    ({"a": ("10", "x"), "b": ("0", "y"), "c": ("101", "z")}, "is a prefix of"),
])
def test_invalid_tables(members: dict[str, tuple[str, str]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PrefixCode(members)


def test_decode_errors_name_the_bit() -> None:
    with pytest.raises(PrefixCodeError) as caught:
        TOY.decode(0b1011, 4, 3)  # 10 then 11 + end of bits: c or d needs a third bit
    assert caught.value.bit == 2
    with pytest.raises(PrefixCodeError) as caught:
        PARTIAL.decode(0b011, 3, 2)  # 0 then 11: no word
    assert caught.value.bit == 1 and "no code word" in str(caught.value)


@st.composite
def codes(draw: Any) -> PrefixCode:
    """A random prefix code: the leaves of a random binary tree of up to 12 leaves (some possibly missing)."""
    leaves = [""]
    target = draw(st.integers(1, 12))
    while len(leaves) < target:
        word = leaves.pop(draw(st.integers(0, len(leaves) - 1)))
        leaves += [word + "0", word + "1"]
    if len(leaves) > 1 and draw(st.booleans()):
        leaves.pop(draw(st.integers(0, len(leaves) - 1)))  # an incomplete code
    if leaves == [""]:
        leaves = ["0"]
    return PrefixCode({f"s{i}": (word, f"symbol {i}") for i, word in enumerate(leaves)})


@given(codes(), st.data())
@settings(max_examples=200, deadline=None)
def test_encode_decode_round_trip(code: PrefixCode, data: Any) -> None:
    symbols = data.draw(st.lists(st.sampled_from(sorted(code.codes)), max_size=40))
    value, length = code.encode(symbols)
    assert length == code.bit_length(symbols) == sum(len(code.bits(s)) for s in symbols)
    assert format(value, f"0{length}b") if length else "" == "".join(code.bits(s) for s in symbols)
    assert code.decode(value, length, len(symbols)) == (symbols, length)


@given(codes(), st.data())
@settings(max_examples=100, deadline=None)
def test_decoding_a_cut_stream_fails_cleanly(code: PrefixCode, data: Any) -> None:
    symbols = data.draw(st.lists(st.sampled_from(sorted(code.codes)), min_size=1, max_size=20))
    value, length = code.encode(symbols)
    cut = data.draw(st.integers(0, length - 1))
    try:
        _, end = code.decode(value >> (length - cut), cut, len(symbols))
    except PrefixCodeError as exc:
        assert 0 <= exc.bit <= cut
    else:  # fewer bits can still hold the symbols only if they form a shorter valid stream
        assert end <= cut


def _reference_decode(code: PrefixCode, bits: str, count: int, start: int) -> tuple[list[str], int] | tuple[str, int]:
    """Decoding as the declaration reads: at each position the one word the bits (read on as zeros past their
    end) start with; no such word, or one that ends past the bits, is an error at that position."""
    words = {word: name for name, (word, _) in code.members.items()}
    padded = bits + "0" * code.max_length
    out, position = [], start
    for _ in range(count):
        word = next((word for word in words if padded.startswith(word, position)), None)
        if word is None:
            return "none", position
        if position + len(word) > len(bits):
            return "end", position
        out.append(words[word])
        position += len(word)
    return out, position


# words longer than the decoder's window of whole words
LONG = PrefixCode({"z": ("1", "z"), **{f"w{i}": (format(i, "014b"), f"w{i}") for i in range(5)}})


@given(st.one_of(codes(), st.just(LONG)), st.data())
@settings(max_examples=300, deadline=None)
def test_decode_agrees_with_reading_the_bit_string(code: PrefixCode, data: Any) -> None:
    """Any bits, any start and count (symbols, end, or the error and its bit) as a word-by-word reading."""
    bits = data.draw(st.text("01", max_size=90))
    start = data.draw(st.integers(0, len(bits)))
    count = data.draw(st.integers(0, 70))
    expected = _reference_decode(code, bits, count, start)
    try:
        found: Any = code.decode(int(bits, 2) if bits else 0, len(bits), count, start)
    except PrefixCodeError as exc:
        found = ("end" if "end inside" in str(exc) else "none"), exc.bit
    assert found == expected


FIELD = cs.BitStruct(
    "head" / cs.BitsInteger(2) * "two bits",
    "letters" / PrefixCoded(TOY, 4, ["w", "x", "y", "z"]) * "four letters",
    "rest" / cs.BitsInteger(5) * "five bits",
)  # 2 + 9 + 5 = 16 bits for b a d c


def test_construct_parse_build_by_hand() -> None:
    # head 01 | letters 10 0 111 110 | rest 10101 = 0110 0111 1101 0101 = 0x67d5
    data = bytes.fromhex("67d5")
    parsed = assert_roundtrip(FIELD, data, {"head": 1, "letters": ["b", "a", "d", "c"], "rest": 0b10101},
                              size=cs.SizeofError)
    assert parsed.head == 1 and parsed.letters == ["b", "a", "d", "c"] and parsed.rest == 0b10101
    assert FIELD.build({"head": 1, "letters": ["b", "a", "d", "c"], "rest": 21}) == data


def test_construct_errors() -> None:
    with pytest.raises(cs.ConstructError):
        FIELD.build({"head": 0, "letters": ["a"], "rest": 0})  # wrong count
    with pytest.raises(cs.ConstructError):
        FIELD.build({"head": 0, "letters": ["a", "a", "a", "q"], "rest": 0})  # not a symbol
    with pytest.raises(cs.SizeofError):
        PrefixCoded(TOY, 4).sizeof()
    partial = cs.Bitwise(cs.Struct("v" / PrefixCoded(PARTIAL, 3) * "values", "pad" / cs.BitsInteger(3)))
    with pytest.raises(cs.ConstructError, match="no code word starts with the bits 11"):
        partial.parse(b"\x60")  # 0 11...: x, then no word


def test_trace_spans_one_per_symbol() -> None:
    _, fields = trace(FIELD, bytes.fromhex("67d5"), offset=0x100, path="rec")
    spans = [f for f in fields if f.path.startswith("rec.letters.")]
    assert [f.name for f in spans] == ["w", "x", "y", "z"]
    # absolute bits: the run starts at bit 8 * 0x100; letters start after the 2 head bits
    base = 8 * 0x100 + 2
    assert [(f.bit_start, f.bit_end) for f in spans] == [(base, base + 2), (base + 2, base + 3), (base + 3, base + 6),
                                                         (base + 6, base + 9)]
    assert [f.value for f in spans] == ["b", "a", "d", "c"]
    assert spans[2].meaning == "letter d (code 111)"
    letters = next(f for f in fields if f.path == "rec.letters")
    assert letters.type == "prefix code words ×4" and letters.bit_end == base + 9


def test_trace_locates_bad_words() -> None:
    partial = cs.BitStruct("v" / PrefixCoded(PARTIAL, 3) * "values", "pad" / cs.BitsInteger(3) * "pad")
    with pytest.raises(InvalidValueError) as caught:
        trace(partial, b"\x60", offset=40, path="p")
    assert caught.value.offset == 40 and caught.value.path == "p.v"
    with pytest.raises(TruncatedError):
        trace(cs.BitStruct("v" / PrefixCoded(TOY, 9) * "values"), b"\xff")  # 8 bits hold two d's and 2 bits
    with pytest.raises(FormatError):
        trace(cs.BitStruct("v" / PrefixCoded(TOY, 9) * "values"), b"\xff")


@given(codes(), st.data())
@settings(max_examples=100, deadline=None)
def test_construct_round_trip_random(code: PrefixCode, data: Any) -> None:
    symbols = data.draw(st.lists(st.sampled_from(sorted(code.codes)), min_size=1, max_size=30))
    length = code.bit_length(symbols)
    pad = -length % 8
    con = cs.Bitwise(cs.Struct("s" / PrefixCoded(code, len(symbols)), "pad" / cs.BitsInteger(pad))) if pad else \
        cs.Bitwise(cs.Struct("s" / PrefixCoded(code, len(symbols))))
    value, _ = code.encode(symbols)
    raw = (value << pad).to_bytes((length + pad) // 8, "big")
    parsed = con.parse(raw)
    assert list(parsed.s) == symbols
    assert con.build(parsed) == raw
    _, fields = trace(con, raw)
    spans = [f for f in fields if f.path.startswith("s.")]
    assert [f.value for f in spans] == symbols
    assert all(a.bit_end == b.bit_start for a, b in itertools.pairwise(spans))
