"""The generated fact modules equal a fresh derivation from the declarations (regenerate: python -m
chessformats.codegen.facts), and hold what the declarations say."""

from __future__ import annotations

import importlib
import struct

import pytest

from chessformats.codegen.facts import GENERATED, PACKAGE, main, render
from chessformats.engine.layout import bit_fields
from chessformats.schemas import polyglot as schema


@pytest.mark.parametrize("path", sorted(GENERATED))
def test_generated_module_is_current(path: str) -> None:
    assert (PACKAGE / path).read_text(encoding="utf-8") == render(path), "run python -m chessformats.codegen.facts"


def test_check_mode_finds_nothing_stale() -> None:
    assert main(["--check"]) == 0


def test_polyglot_facts_say_what_the_declarations_say() -> None:
    facts = importlib.import_module("chessformats.schemas.polyglot_facts")
    entry = schema.ENTRY.build({"key": 0x0102030405060708, "move": {"reserved": 0, "promotion": "queen",
                                "from_rank": 6, "from_file": 4, "to_rank": 7, "to_file": 3},
                                "weight": 513, "learn": 7})
    key, move, weight, learn = struct.unpack(facts.ENTRY_FORMAT, entry)
    assert (key, weight, learn) == (0x0102030405060708, 513, 7)
    assert struct.unpack_from(">H", entry, facts.ENTRY_OFFSETS["move"])[0] == move
    assert facts.ENTRY_SIZE == len(entry)
    fields = {name: move >> shift & ((1 << width) - 1) for name, (shift, width) in facts.MOVE_BITS.items()}
    assert fields == {"reserved": 0, "promotion": 4, "from_rank": 6, "from_file": 4, "to_rank": 7, "to_file": 3}
    assert set(facts.MOVE_BITS) == set(bit_fields(schema.MOVE))
    assert facts.PROMOTION_NAMES[4] == "queen"
