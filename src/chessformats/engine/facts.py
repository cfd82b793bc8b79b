"""Layout facts of declarations, frozen into generated Python modules for commands that must start fast.

A one-position probe cannot afford to import ``construct`` and build the declarations (15-20 ms of a ~60 ms
budget); it reads a module generated from them instead: plain literals (struct formats, offsets, bit fields,
enumeration names), written by ``python -m chessformats.codegen.facts`` and compared with a fresh derivation
by the test suite (``tests/codegen/test_facts.py``), like the generated documentation. Nothing is typed by
hand: every value comes from :mod:`chessformats.engine.layout` and :mod:`chessformats.engine.schema`.
"""

from __future__ import annotations

import pprint
from collections.abc import Mapping
from typing import Any

import construct as cs

from .layout import bit_fields, describe, struct_format
from .schema import enum_view

__all__ = ["bit_facts", "enum_facts", "render_facts", "struct_facts"]


def struct_facts(con: cs.Construct) -> dict[str, Any]:
    """``format`` (for :mod:`struct`), ``size`` and the byte ``offsets`` of the top-level fields of a flat struct."""
    return {
        "format": struct_format(con),
        "size": int(con.sizeof()),
        "offsets": {field.path: field.offset for field in describe(con) if field.path and "." not in field.path},
    }


def bit_facts(con: cs.Construct) -> dict[str, tuple[int, int]]:
    """``name -> (shift, width)`` of every field of a bit run (the run read as one integer)."""
    return {name: (field.shift, field.width) for name, field in bit_fields(con).items()}


def enum_facts(con: cs.Construct) -> dict[int, str]:
    """``value -> name`` of an enumeration."""
    return dict(enum_view(con).names)


def render_facts(doc: str, source: str, facts: Mapping[str, Any]) -> str:
    """The text of a generated module holding ``facts`` (name -> literal) derived from module ``source``."""
    lines = [f'"""{doc}', "",
             f"Generated from :mod:`{source}` by ``python -m chessformats.codegen.facts``: do not edit",
             '(``tests/codegen/test_facts.py`` fails when it is stale)."""', "",
             "from __future__ import annotations", "", f"__all__ = {sorted(facts)!r}".replace("'", '"'), ""]
    for name, value in facts.items():
        lines.append(f"{name} = {pprint.pformat(value, width=100, sort_dicts=False)}".replace("'", '"'))
    return "\n".join(lines) + "\n"
