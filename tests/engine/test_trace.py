"""engine.trace: paths, byte and bit spans, values and meanings of every field, on toy declarations.

Expected spans and values are hand-computed from the toy layouts below; values are also compared with
construct's own ``parse`` (the reference for what a field's value is).
"""

from __future__ import annotations

import re
from typing import Any

import construct as cs
import pytest

from chessformats.engine import FormatError, InvalidValueError, MeaningEnum, Span, TruncatedError, trace
from chessformats.engine import parse as located_parse

KIND = MeaningEnum(cs.BitsInteger(3), {
    "empty": (0, "nothing on the square"),
    "pawn": (1, "a pawn"),
    "rook": (5, "a rook"),
})


class Nibbles(cs.Adapter):  # type: ignore[misc]
    """A byte read as (high nibble, low nibble); reports one span per nibble."""

    def _decode(self, obj: int, context: Any, path: str) -> tuple[int, int]:
        return (obj >> 4, obj & 0xF)

    def _encode(self, obj: tuple[int, int], context: Any, path: str) -> int:
        return obj[0] << 4 | obj[1]

    def trace_spans(self, raw: bytes | None, value: tuple[int, int]) -> list[Span]:
        return [Span("high", 0, 4, value[0], "high nibble"), Span("low", 4, 8, value[1], "low nibble")]


class Split(cs.Adapter):  # type: ignore[misc]
    """Five bits read as (2 high bits, 3 low bits); used inside a bit run."""

    def _decode(self, obj: int, context: Any, path: str) -> tuple[int, int]:
        return (obj >> 3, obj & 7)

    def _encode(self, obj: tuple[int, int], context: Any, path: str) -> int:
        return obj[0] << 3 | obj[1]

    def trace_spans(self, raw: bytes | None, value: tuple[int, int]) -> list[Span]:
        return [Span("top", 0, 2, value[0], "two bits"), Span("rest", 2, 5, value[1], "three bits")]


# 16-bit run, bit 0 of the stream = most significant bit of the first byte:
#   high: stream bits 0-4   -> bits (11, 15) of the run read as one big-endian integer
#   mid:  stream bit  5     -> bits (10, 10)
#   kind: stream bits 6-8   -> bits (7, 9)   (crosses the byte boundary)
#   low:  stream bits 9-15  -> bits (0, 6)
FLAGS = cs.BitStruct(
    "high" / cs.BitsInteger(5) * "five high bits",
    "mid" / cs.Flag * "a flag",
    "kind" / KIND * "what stands there",
    "low" / cs.BitsInteger(7) * "seven low bits",
)
ITEM = cs.Struct(
    "id" / cs.Int16ub * "item id",
    "flags" / FLAGS * "packed flags",
    "nib" / Nibbles(cs.Int8ub) * "two nibbles",
)  # 5 bytes
TOY = cs.Struct(
    "magic" / cs.Const(b"TOY1") * "file signature",
    "count" / cs.Int8ub * "number of items",
    "items" / cs.Array(cs.this.count, ITEM) * "the items",
    "tail" / cs.GreedyRange(cs.Int16ub) * "trailing words",
)

# items[2].flags: high=0b10110 (22), mid=1, kind=5 (rook), low=0b1010011 (83)
#   = 22<<11 | 1<<10 | 5<<7 | 83 = 45056 + 1024 + 640 + 83 = 46803 = 0xB6D3
ITEMS = [
    bytes.fromhex("0001" "0000" "12"),   # id 1, all flags 0, nibbles (1, 2)
    bytes.fromhex("0102" "FFFF" "A5"),   # id 258, all flag bits set (kind 7: not in the table)
    bytes.fromhex("BEEF" "B6D3" "3C"),   # id 0xBEEF, the flags above, nibbles (3, 12)
]
DATA = b"TOY1" + b"\x03" + b"".join(ITEMS) + bytes.fromhex("0007" "0008")
BASE = 1000  # pretend the record starts at file offset 1000


def lookup(obj: Any, path: str) -> Any:
    """The value at ``items[2].flags.low`` in a parsed construct object."""
    for name, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", path):
        obj = obj[name] if name else obj[int(index)]
    return obj


@pytest.fixture(scope="module")
def traced() -> tuple[Any, dict[str, Any]]:
    value, fields = trace(TOY, DATA, offset=BASE)
    by_path = {field.path: field for field in fields}
    assert len(by_path) == len(fields), "paths must be unique"
    return value, by_path


def test_parsed_value_equals_construct(traced: tuple[Any, dict[str, Any]]) -> None:
    value, _ = traced
    assert value == TOY.parse(DATA)


def test_every_leaf_value_equals_construct_parse(traced: tuple[Any, dict[str, Any]]) -> None:
    _, fields = traced
    parsed = TOY.parse(DATA)
    leaves = [f for f in fields.values() if f.leaf and ".nib." not in f.path]  # .nib.* are adapter spans
    assert len(leaves) == 2 + 3 * 6 + 2
    for field in leaves:
        assert field.value == lookup(parsed, field.path), field.path


def test_paths_in_preorder() -> None:
    _, fields = trace(TOY, DATA)
    paths = [f.path for f in fields]
    assert paths[:5] == ["magic", "count", "items", "items[0]", "items[0].id"]
    flags = [paths.index(f"items[2].flags{suffix}") for suffix in ("", ".high", ".low")]
    assert flags == sorted(flags)
    assert paths[-3:] == ["tail", "tail[0]", "tail[1]"]


def test_byte_spans(traced: tuple[Any, dict[str, Any]]) -> None:
    _, f = traced
    # magic 0-4, count 4-5, items from 5, 5 bytes each: items[2] = 15..20, tail 20..24
    assert (f["magic"].start, f["magic"].end) == (BASE, BASE + 4)
    assert (f["count"].start, f["count"].end) == (BASE + 4, BASE + 5)
    assert (f["items"].start, f["items"].end) == (BASE + 5, BASE + 20)
    assert (f["items[2]"].start, f["items[2]"].end) == (BASE + 15, BASE + 20)
    assert (f["items[2].id"].start, f["items[2].id"].end) == (BASE + 15, BASE + 17)
    assert (f["items[2].flags"].start, f["items[2].flags"].end) == (BASE + 17, BASE + 19)
    assert (f["items[2].nib"].start, f["items[2].nib"].end) == (BASE + 19, BASE + 20)
    assert (f["tail"].start, f["tail"].end) == (BASE + 20, BASE + 24)
    assert (f["tail[1]"].start, f["tail[1]"].end) == (BASE + 22, BASE + 24)


def test_bit_fields_spans_and_numbers(traced: tuple[Any, dict[str, Any]]) -> None:
    _, f = traced
    run = 8 * (BASE + 17)  # absolute bit offset of items[2].flags
    expected = {
        # path: (byte span, absolute bit span, (low, high) bit numbers with LSB = 0, value)
        "items[2].flags.high": ((BASE + 17, BASE + 18), (run + 0, run + 5), (11, 15), 22),
        "items[2].flags.mid": ((BASE + 17, BASE + 18), (run + 5, run + 6), (10, 10), True),
        "items[2].flags.kind": ((BASE + 17, BASE + 19), (run + 6, run + 9), (7, 9), "rook"),
        "items[2].flags.low": ((BASE + 18, BASE + 19), (run + 9, run + 16), (0, 6), 83),
    }
    for path, (span, bit_span, bits, value) in expected.items():
        field = f[path]
        assert (field.start, field.end) == span, path
        assert (field.bit_start, field.bit_end) == bit_span, path
        assert field.bits == bits, path
        assert field.value == value, path
        assert field.leaf
    assert f["items[2].flags"].bits == (0, 15)
    assert f["items[2].id"].bits is None and f["items[2].id"].bit_start is None


def test_bit_numbers_reassemble_the_run(traced: tuple[Any, dict[str, Any]]) -> None:
    """Placing every field's value at its ``bits`` gives the run's big-endian integer back."""
    _, f = traced
    for index, item in enumerate(ITEMS):
        run = int.from_bytes(item[2:4], "big")
        total = 0
        for name in ("high", "mid", "kind", "low"):
            field = f[f"items[{index}].flags.{name}"]
            low, high = field.bits
            assert field.bit_end - field.bit_start == high - low + 1
            total |= int(field.value) << low
        assert total == run


def test_enum_value_and_meanings(traced: tuple[Any, dict[str, Any]]) -> None:
    _, f = traced
    kind = f["items[2].flags.kind"]
    assert kind.value == "rook"  # construct's Enum parses to the name
    assert kind.enum == {0: ("empty", "nothing on the square"), 1: ("pawn", "a pawn"), 5: ("rook", "a rook")}
    assert f["items[1].flags.kind"].value == 7  # not in the table: a plain integer, as construct gives
    assert f["items[0].flags.kind"].value == "empty"


def test_meanings_and_names(traced: tuple[Any, dict[str, Any]]) -> None:
    _, f = traced
    assert f["magic"].meaning == "file signature"
    assert f["items[1].id"].meaning == "item id"
    assert f["items[1].id"].name == "id"
    assert f["items[2].flags.low"].meaning == "seven low bits"
    assert f["items[2].flags.low"].name == "low"
    assert f["items"].meaning == "the items"
    assert f["tail[0]"].meaning == "trailing words"


def test_depths_and_leaves(traced: tuple[Any, dict[str, Any]]) -> None:
    _, f = traced
    assert [f[p].depth for p in ("items", "items[2]", "items[2].flags", "items[2].flags.low")] == [0, 1, 2, 3]
    assert not f["items"].leaf and not f["items[2]"].leaf and not f["items[2].flags"].leaf
    assert f["count"].leaf and f["tail[1]"].leaf


def test_adapter_spans_absolute_bits(traced: tuple[Any, dict[str, Any]]) -> None:
    _, f = traced
    nib = f["items[2].nib"]
    assert nib.value == (3, 12)
    origin = 8 * (BASE + 19)
    high, low = f["items[2].nib.high"], f["items[2].nib.low"]
    assert (high.bit_start, high.bit_end, high.value, high.meaning) == (origin, origin + 4, 3, "high nibble")
    assert (low.bit_start, low.bit_end, low.value, low.meaning) == (origin + 4, origin + 8, 12, "low nibble")
    assert (high.start, high.end) == (BASE + 19, BASE + 20)
    assert high.depth == nib.depth + 1


def test_adapter_spans_inside_a_bit_run() -> None:
    # bits: a = stream bits 0-2, pair = stream bits 3-7, c = stream bits 8-15
    rec = cs.Struct(
        "pad" / cs.Int8ub,
        "run" / cs.BitStruct("a" / cs.BitsInteger(3), "pair" / Split(cs.BitsInteger(5)),
                             "c" / cs.BitsInteger(8)),
    )
    data = bytes([0xEE, 0b101_10_011, 0x42])  # a = 5, pair = (0b10, 0b011) = (2, 3), c = 0x42
    value, fields = trace(rec, data, offset=40)
    assert value == rec.parse(data)
    f = {x.path: x for x in fields}
    assert f["run.a"].value == 5 and f["run.pair"].value == (2, 3) and f["run.c"].value == 0x42
    run = 8 * 41
    assert (f["run.pair"].bit_start, f["run.pair"].bit_end, f["run.pair"].bits) == (run + 3, run + 8, (8, 12))
    top = f["run.pair.top"]
    assert (top.bit_start, top.bit_end, top.value) == (run + 3, run + 5, 2)
    assert (f["run.pair.rest"].bit_start, f["run.pair.rest"].bit_end) == (run + 5, run + 8)
    assert f["run.pair.rest"].value == 3
    assert (f["run.c"].start, f["run.c"].end, f["run.c"].bits) == (42, 43, (0, 7))


def test_nested_structs_and_counts_from_parent_context() -> None:
    rec = cs.Struct(
        "n" / cs.Int8ub,
        "groups" / cs.Array(2, cs.Struct(
            "vals" / cs.Array(cs.this._.n, cs.Int8ub),
            "inner" / cs.Struct("a" / cs.Int8ub, "b" / cs.Int16ul),
        )),
    )
    data = bytes([2, 1, 2, 3, 4, 0, 5, 6, 7, 8, 0])
    value, fields = trace(rec, data)
    assert value == rec.parse(data)
    f = {x.path: x for x in fields}
    assert [f[f"groups[1].vals[{i}]"].value for i in range(2)] == [5, 6]
    b = f["groups[1].inner.b"]
    assert (b.start, b.end, b.value) == (9, 11, 8)
    assert (f["groups[0].inner"].start, f["groups[0].inner"].end) == (3, 6)


def test_greedy_range_of_structs() -> None:
    rec = cs.GreedyRange(cs.Struct("k" / cs.Int8ub, "v" / cs.Int16ub))
    data = bytes([1, 0, 2, 3, 0, 4])
    value, fields = trace(rec, data, path="entries")
    assert value == rec.parse(data)
    f = {x.path: x for x in fields}
    assert (f["entries[1].v"].start, f["entries[1].v"].end, f["entries[1].v"].value) == (4, 6, 4)


def test_adapter_over_container_returns_decoded_value() -> None:
    class Total(cs.Adapter):  # type: ignore[misc]
        def _decode(self, obj: Any, context: Any, path: str) -> int:
            return int(obj.a + obj.b)

        def _encode(self, obj: int, context: Any, path: str) -> Any:
            return {"a": obj, "b": 0}

    rec = cs.Struct("x" / cs.Int8ub, "sum" / Total(cs.Struct("a" / cs.Int8ub, "b" / cs.Int8ub)))
    data = bytes([9, 3, 4])
    value, fields = trace(rec, data)
    assert value == rec.parse(data) == {"x": 9, "sum": 7}
    f = {x.path: x for x in fields}
    assert (f["sum.a"].start, f["sum.b"].value) == (1, 4)


def test_adapter_over_container_traced_field_holds_decoded_value() -> None:
    class Total(cs.Adapter):  # type: ignore[misc]
        def _decode(self, obj: Any, context: Any, path: str) -> int:
            return int(obj.a + obj.b)

        def _encode(self, obj: int, context: Any, path: str) -> Any:
            return {"a": obj, "b": 0}

    rec = cs.Struct("x" / cs.Int8ub, "sum" / Total(cs.Struct("a" / cs.Int8ub, "b" / cs.Int8ub)))
    _, fields = trace(rec, bytes([9, 3, 4]))
    assert {x.path: x for x in fields}["sum"].value == 7


# --- errors found while tracing ---------------------------------------------------------------------

@pytest.mark.parametrize(("cut", "path", "offset", "needed", "available"), [
    (3, "magic", 0, 4, 3),                   # 3 of the 4 signature bytes
    (6, "items[0].id", 5, 2, 1),             # items[0] starts at 5
    (11, "items[1].id", 10, 2, 1),           # items[1] starts at 5 + 5 = 10
    (13, "items[1].flags", 12, 2, 1),        # the 2-byte bit run at 10 + 2
    (14, "items[1].nib", 14, 1, 0),
    (21, "tail[0]", 20, 2, 1),               # tail starts after 3 items: 5 + 15 = 20
])
def test_truncated_input(cut: int, path: str, offset: int, needed: int, available: int) -> None:
    with pytest.raises(TruncatedError) as info:
        trace(TOY, DATA[:cut], offset=BASE, file="toy.bin")
    error = info.value
    assert (error.path, error.offset) == (path, BASE + offset)
    assert (error.needed, error.available) == (needed, available)
    assert error.file == "toy.bin"
    assert isinstance(error, FormatError) and isinstance(error, ValueError)
    text = str(error)
    assert text.startswith(f"toy.bin: offset {BASE + offset}: ")
    assert path in text and f"({needed} bytes needed, {available} available)" in text


def test_invalid_const() -> None:
    with pytest.raises(InvalidValueError) as info:
        trace(TOY, b"TOY2" + DATA[4:], offset=BASE, file="toy.bin")
    error = info.value
    assert (error.path, error.offset, error.file) == ("magic", BASE, "toy.bin")
    assert isinstance(error, FormatError) and isinstance(error, ValueError)
    assert str(error).startswith(f"toy.bin: offset {BASE}: ")
    assert "magic" in str(error)


def test_invalid_count() -> None:
    rec = cs.Struct("n" / cs.Int8sb, "values" / cs.Array(cs.this.n, cs.Int8ub))
    with pytest.raises(InvalidValueError) as info:
        trace(rec, b"\xff")
    assert (info.value.path, info.value.offset, info.value.actual) == ("values", 1, -1)


# --- engine.trace.parse: construct's fast path, located errors on failure ---------------------------

def test_parse_fast_path_equals_construct() -> None:
    assert located_parse(TOY, DATA) == TOY.parse(DATA)


def test_parse_locates_truncation() -> None:
    with pytest.raises(TruncatedError) as info:
        located_parse(TOY, DATA[:11], offset=BASE, file="toy.bin")
    assert (info.value.path, info.value.offset, info.value.needed, info.value.available) == \
        ("items[1].id", BASE + 10, 2, 1)
    assert isinstance(info.value.__cause__, cs.ConstructError)


def test_parse_locates_invalid_const() -> None:
    with pytest.raises(InvalidValueError) as info:
        located_parse(TOY, b"XOY1" + DATA[4:], file="toy.bin", path="header")
    assert info.value.path == "header.magic"
    assert info.value.offset == 0
    assert str(info.value).startswith("toy.bin: offset 0: ")


def test_parse_path_prefix_in_trace() -> None:
    _, fields = trace(ITEM, ITEMS[2], offset=16 * 7, path="entries[7]")
    f = {x.path: x for x in fields}
    assert f["entries[7].flags.kind"].value == "rook"
    assert f["entries[7].id"].start == 112


def test_a_size_read_from_the_data_is_checked_before_reading() -> None:
    # hypothesis found it (test_agreement, kvetka.ELEMENT): a compact integer of 2**63 as the body's size made
    # the tracer ask BytesIO.read for it (OverflowError), where construct says the stream is too short
    from chessformats.engine.codec import codec
    from chessformats.schemas import kvetka

    raw = b"\x81\x80\x80\x80\x80\x80\x80\x80\x80\x00"
    with pytest.raises(cs.ConstructError):
        kvetka.ELEMENT.parse(raw)
    with pytest.raises(TruncatedError) as raised:
        codec(kvetka.ELEMENT).decode(raw)
    assert raised.value.offset == len(raw) and raised.value.path == "body"
    sized = cs.Struct("n" / cs.Int8sb, "body" / cs.FixedSized(cs.this.n, cs.GreedyBytes))
    with pytest.raises(FormatError) as negative:
        trace(sized, b"\xff")
    assert isinstance(negative.value, InvalidValueError) and "found -1" in str(negative.value)


# --- arrays of fixed-size records: the first element's fields as a template for the rest ---------------------

def _walked(monkeypatch: pytest.MonkeyPatch, con: cs.Construct, data: bytes, **kwargs: Any) -> Any:
    """The trace without templates: every element walked field by field."""
    with monkeypatch.context() as patch:
        patch.setattr(_module()._Template, "made", classmethod(lambda cls, *args: None))
        return trace(con, data, **kwargs)


def _module() -> Any:
    import importlib

    return importlib.import_module("chessformats.engine.trace")


def _templated(monkeypatch: pytest.MonkeyPatch, con: cs.Construct, data: bytes, **kwargs: Any) -> Any:
    """The trace, and how many elements the template gave."""
    followed = []
    follow = _module()._Template.follow

    def counted(self: Any, *args: Any) -> bool:
        done: bool = follow(self, *args)
        followed.append(done)
        return done

    with monkeypatch.context() as patch:
        patch.setattr(_module()._Template, "follow", counted)
        return trace(con, data, **kwargs), sum(followed)


def test_template_gives_the_walks_fields_on_a_polyglot_book(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from chessformats.schemas import polyglot

    rng = random.Random(7)
    data = b"".join(rng.randbytes(8) + bytes([0, rng.randrange(64), 0, rng.randrange(9)]) + rng.randbytes(4)
                    for _ in range(300))
    (value, fields), templated = _templated(monkeypatch, polyglot.BOOK, data, offset=32, path="book")
    assert templated == 299  # the generated decoder's values, as construct's containers
    walked_value, walked = _walked(monkeypatch, polyglot.BOOK, data, offset=32, path="book")
    assert value == walked_value and fields == walked
    assert len(fields) == 1 + 300 * len([f for f in walked if f.path.startswith("book[0]")])


def test_template_bit_fields_and_nested_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    record = cs.Struct(
        "tag" / cs.Const(b"R"),
        "bits" / cs.BitStruct("high" / cs.BitsInteger(3), "low" / cs.BitsInteger(5)),
        "pair" / cs.Array(2, cs.Int16ul),
        "kind" / cs.Enum(cs.Int8ub, one=1, two=2),
    )
    con = cs.Struct("items" / cs.GreedyRange(record))
    data = b"".join(b"R" + bytes([n, n, 0, 7, 1, 1 + n % 2]) for n in range(50))
    traced, templated = _templated(monkeypatch, con, data)
    assert templated == 49 + 1 and traced == _walked(monkeypatch, con, data)  # (+1: the first record's pair)


def test_template_element_that_fails_is_located_as_by_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    con = cs.Array(40, cs.Struct("tag" / cs.Const(b"AB"), "n" / cs.Int16ub))
    data = bytearray(b"AB\x00\x01" * 40)
    data[4 * 23] = ord("X")
    with pytest.raises(InvalidValueError) as templated:
        trace(con, bytes(data), offset=100)
    with pytest.raises(InvalidValueError) as walked:
        _walked(monkeypatch, con, bytes(data), offset=100)
    assert (templated.value.path, templated.value.offset) == (walked.value.path, walked.value.offset) == \
        ("[23].tag", 100 + 4 * 23)
    with pytest.raises(TruncatedError) as cut:
        trace(con, bytes(data[:4 * 30 + 3]).replace(b"X", b"A"))
    assert cut.value.path == "[30].n"


def test_no_template_for_fixed_size_elements_whose_fields_vary(monkeypatch: pytest.MonkeyPatch) -> None:
    # 6 bytes each, but how many items a record holds is in its first byte: only a generated (fixed) layout may be
    # traced from a template
    record = cs.FixedSized(6, cs.Struct("n" / cs.Int8ub, "items" / cs.Array(cs.this.n, cs.Int8ub),
                                        "rest" / cs.GreedyBytes))
    con = cs.Array(4, record)
    data = bytes([1, 9, 0, 0, 0, 0, 3, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5])
    import chessformats.engine.codec  # noqa: F401 - registers the generated decoders with trace

    (value, fields), templated = _templated(monkeypatch, con, data)
    assert templated == 2 + 4  # the items after the first of records 1 and 3 (one byte each), not the records
    assert (value, fields) == _walked(monkeypatch, con, data)
    assert [field.path for field in fields if field.path.startswith("[1].items[")] == ["[1].items[0]", "[1].items[1]",
                                                                                     "[1].items[2]"]


def test_a_wrong_constant_is_said_in_our_words_not_constructs() -> None:
    # construct's ConstError reads "parsing expected X but parsed Y": said as "expected X, found Y", located
    import construct as cs

    from chessformats.engine.errors import FormatError
    from chessformats.engine.trace import parse

    declaration = cs.Struct("size" / cs.Int8ub, "magic" / cs.Const(1234567890, cs.Int32ul))
    with pytest.raises(FormatError) as caught:
        parse(declaration, b"\x07" + (1234567872).to_bytes(4, "little"), file="x.bin")
    message = str(caught.value)
    assert "expected 1234567890, found 1234567872" in message and "parsing" not in message
    assert caught.value.offset == 1 and caught.value.path == "magic"
