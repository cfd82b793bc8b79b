"""TaggedUnion: parse/build by tag, unknown tags raw, traced field by field, documented case by case."""

from __future__ import annotations

import construct as cs
import pytest

from chessformats.codegen.markdown import format_page
from chessformats.engine.schema import FormatDoc, MeaningEnum, Structure
from chessformats.engine.tagged import Case, TaggedUnion
from chessformats.engine.trace import trace
from roundtrip import assert_roundtrip

KIND = MeaningEnum(cs.Int8ub, {"point": (1, "a point"), "label": (2, "a label")})
UNION = TaggedUnion(cs.this.kind, {
    1: Case("Point", cs.Struct("x" / cs.Int8ub * "x coordinate", "y" / cs.Int8ub * "y coordinate"), "two bytes"),
    2: Case("Label", cs.Struct("text" / cs.GreedyBytes * "the label"), "the rest"),
})
ITEM = cs.Struct("kind" / KIND * "what follows", "size" / cs.Int8ub * "body bytes",
                 "body" / cs.FixedSized(cs.this.size, UNION) * "the body")


def test_parse_and_build_each_case() -> None:
    # the expected objects give the tag by its number: the union picks its case by the number when building
    point = assert_roundtrip(ITEM, b"\x01\x02\x07\x09", {"kind": 1, "size": 2, "body": {"x": 7, "y": 9}},
                             size=cs.SizeofError)
    assert (point.body.x, point.body.y) == (7, 9)
    label = assert_roundtrip(ITEM, b"\x02\x03abc", {"kind": 2, "size": 3, "body": {"text": b"abc"}},
                             size=cs.SizeofError)
    assert label.body.text == b"abc"


def test_unknown_tag_is_raw() -> None:
    other = assert_roundtrip(ITEM, b"\x09\x02\xff\xee", {"kind": 9, "size": 2, "body": {"data": b"\xff\xee"}},
                             size=cs.SizeofError)
    assert other.body.data == b"\xff\xee"


def test_trace_reports_the_case_fields() -> None:
    _, fields = trace(ITEM, b"\x01\x02\x07\x09", offset=100)
    by_path = {f.path: f for f in fields}
    assert by_path["body.x"].start == 102 and by_path["body.x"].value == 7
    assert by_path["body.y"].start == 103 and by_path["body.y"].meaning == "y coordinate"


def test_sizeof_only_when_all_cases_agree() -> None:
    fixed = TaggedUnion(cs.this.tag, {0: cs.Struct("a" / cs.Int16ub), 1: cs.Struct("b" / cs.Int16ub)}, default=None)
    assert cs.Struct("tag" / cs.Int8ub, "body" / fixed).sizeof() == 3
    with pytest.raises(cs.SizeofError):
        UNION.sizeof()


def test_structures_document_every_case() -> None:
    doc = FormatDoc("t", "T", (".t",), "test", (Structure("Item", ITEM, "an item"), *UNION.structures("Body: ")))
    page = format_page(doc)
    assert "### Body: Point (2 bytes)" in page and "`text`" in page and "y coordinate" in page
