"""Polyglot layout facts for the quick probe (``open_book(..., scan=False)``) and the book builder, which
import no declaration.

Generated from :mod:`chessformats.schemas.polyglot` by ``python -m chessformats.codegen.facts``: do not edit
(``tests/codegen/test_facts.py`` fails when it is stale)."""

from __future__ import annotations

__all__ = ["ENTRY_DTYPE", "ENTRY_FORMAT", "ENTRY_OFFSETS", "ENTRY_SIZE", "MOVE_BITS", "PROMOTION_NAMES"]

ENTRY_FORMAT = ">QHHI"
ENTRY_SIZE = 16
ENTRY_OFFSETS = {"key": 0, "move": 8, "weight": 10, "learn": 12}
ENTRY_DTYPE = [("key", ">u8"), ("move", ">u2"), ("weight", ">u2"), ("learn", ">u4")]
MOVE_BITS = {"reserved": (15, 1),
 "promotion": (12, 3),
 "from_rank": (9, 3),
 "from_file": (6, 3),
 "to_rank": (3, 3),
 "to_file": (0, 3)}
PROMOTION_NAMES = {0: "none", 1: "knight", 2: "bishop", 3: "rook", 4: "queen"}
