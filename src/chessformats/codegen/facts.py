"""Writes the generated fact modules (see :mod:`chessformats.engine.facts`): ``python -m chessformats.codegen.facts``
(``--check``: exit 1 when one is stale, writing nothing)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..engine.facts import bit_facts, enum_facts, render_facts, struct_facts

__all__ = ["GENERATED", "main", "render"]

PACKAGE = Path(__file__).resolve().parent.parent


def _polyglot() -> dict[str, Any]:
    from ..engine.layout import numpy_dtype
    from ..schemas import polyglot as schema

    entry = struct_facts(schema.ENTRY)
    return {"ENTRY_FORMAT": entry["format"], "ENTRY_SIZE": entry["size"], "ENTRY_OFFSETS": entry["offsets"],
            "ENTRY_DTYPE": numpy_dtype(schema.ENTRY).descr,
            "MOVE_BITS": bit_facts(schema.MOVE), "PROMOTION_NAMES": enum_facts(schema.PROMOTION)}


GENERATED: dict[str, tuple[str, str, Callable[[], dict[str, Any]]]] = {
    "schemas/polyglot_facts.py": (
        "Polyglot layout facts for the quick probe (``open_book(..., scan=False)``) and the book builder, which\n"
        "import no declaration.",
        "chessformats.schemas.polyglot", _polyglot),
}
"""Path in the package -> (module doc line, declaration module, the facts)."""


def render(path: str) -> str:
    doc, source, facts = GENERATED[path]
    return render_facts(doc, source, facts())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 when a generated module is stale")
    args = parser.parse_args(argv)
    stale = []
    for path in GENERATED:
        target = PACKAGE / path
        text = render(path)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target}")
    if args.check and stale:
        print(f"stale: {', '.join(stale)} (run python -m chessformats.codegen.facts)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
