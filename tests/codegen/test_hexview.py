"""The annotated hex view, on Polyglot entries whose bytes are worked out by hand."""

from __future__ import annotations

import io

from rich.console import Console

from chessformats.codegen.hexview import plain, render
from chessformats.engine.trace import trace
from chessformats.schemas import polyglot as schema

# 1.e4 from the start position: key 463b96181691fc9c (the spec's start key), move e2e4 =
# to_file 4 | to_rank 3 << 3 | from_file 4 << 6 | from_rank 1 << 9 = 4 + 24 + 256 + 512 = 0x031c,
# weight 0x28c7 = 10439, learn 0.
E2E4 = bytes.fromhex("463b96181691fc9c" "031c" "28c7" "00000000")


def _lines(annotations: dict[str, str] | None = None) -> list[str]:
    _, fields = trace(schema.ENTRY, E2E4, offset=0x20B80, path="entries[8376]")
    return plain(render(fields, E2E4, base=0x20B80, annotations=annotations)).splitlines()


def test_every_field_once_with_offset_value_and_meaning() -> None:
    lines = _lines()
    by_path = {}
    for line in lines:
        for path in ("key", "move.reserved", "move.promotion", "move.from_rank", "move.from_file", "move.to_rank",
                     "move.to_file", "weight", "learn"):
            if f"entries[8376].{path} " in line:
                by_path.setdefault(path, []).append(line)
    assert all(len(found) == 1 for found in by_path.values()) and len(by_path) == 9
    assert by_path["key"][0].startswith("00020b80  46 3b 96 18 16 91 fc 9c")
    assert "= 0x463b96181691fc9c" in by_path["key"][0]
    assert by_path["weight"][0].startswith("00020b8a  28 c7") and "= 10439" in by_path["weight"][0]
    assert by_path["learn"][0].startswith("00020b8c  00 00 00 00")
    assert "Zobrist hash of the position" in by_path["key"][0]


def test_bit_fields_show_their_bits() -> None:
    text = "\n".join(_lines())
    # 0x031c = 0000 0011 0001 1100: to_file = bits 0-2 = 100, to_rank = bits 3-5 = 011,
    # from_file = bits 6-8 = 100, from_rank = bits 9-11 = 001, promotion = bits 12-14 = 000
    assert "bits 0-2   .... .... .... .100" in text
    assert "bits 3-5   .... .... ..01 1..." in text
    assert "bits 6-8   .... ...1 00.. ...." in text
    assert "bits 9-11  .... 001. .... ...." in text
    assert "bits 12-14 .000 .... .... ...." in text
    assert "bit 15     0... .... .... ...." in text
    assert "move.promotion = none (0)" in text and "not a promotion" in text
    assert "00020b88  03 1c" in text


def test_annotations_are_shown() -> None:
    text = "\n".join(_lines({"entries[8376].move": "e2e4"}))
    assert "=> e2e4" in text


def test_colour_on_a_terminal_plain_when_piped() -> None:
    _, fields = trace(schema.ENTRY, E2E4)
    lines = render(fields, E2E4)
    piped = io.StringIO()
    Console(file=piped, soft_wrap=True).print(*lines, sep="\n")
    assert "\x1b[" not in piped.getvalue() and "46 3b 96 18" in piped.getvalue()
    terminal = io.StringIO()
    Console(file=terminal, force_terminal=True, soft_wrap=True).print(*lines, sep="\n")
    assert "\x1b[" in terminal.getvalue()
