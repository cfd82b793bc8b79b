"""Markdown documentation generated from the schema declarations.

One page per format: structure tables (offset, size, type, field, meaning), bit-field layouts, enum
tables, the format's notes, and worked examples (the annotated hex of real records). Nothing here is
written by hand per format: a page is a function of the format's :class:`FormatDoc`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..engine.layout import LayoutField, describe
from ..engine.schema import FormatDoc, Structure
from ..engine.trace import trace
from .hexview import plain, render

__all__ = ["format_page", "write_docs"]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _bits_label(bits: tuple[int, int]) -> str:
    low, high = bits
    return f"{low}" if low == high else f"{low}-{high}"


def _structure_section(structure: Structure) -> list[str]:
    fields = describe(structure.declaration)
    total = _total_size(structure)
    heading = f"### {structure.title}" + (f" ({total} bytes)" if total is not None else " (variable size)")
    lines = [heading, "", structure.description]
    rows = [f for f in fields if not (f.bits is not None and f.leaf)]  # bit fields: in the bit layout
    if rows:
        lines += ["", "| offset | size | type | field | meaning |", "|---:|---:|---|---|---|"]
    for field in rows:
        offset = "" if field.offset is None or (field.varbits and field.leaf) else str(field.offset)
        length = "var" if field.size is None else str(field.size)
        if field.varbits and field.leaf:  # a field of a bit run whose layout depends on the data
            width = field.bit_width
            length = "var bits" if width is None else f"{width} bit" + ("s" if width != 1 else "")
        name = ("&nbsp;&nbsp;" * field.depth) + f"`{field.path}`"
        lines.append(f"| {offset} | {length} | {_cell(field.type)} | {name} | {_cell(field.meaning)} |")
    for run in _bit_runs(fields):
        lines += ["", *_bit_layout(run, fields)]
    for field in fields:
        if field.enum:
            lines += ["", f"#### Values of `{field.path}`", "", "| value | name | meaning |", "|---:|---|---|"]
            for value, (name, meaning) in sorted(field.enum.items()):
                lines.append(f"| {value} | `{name}` | {_cell(meaning)} |")
        if field.codes:
            lines += ["", f"#### Code words of `{field.path}` (bits in stream order, first bit first)", "",
                      "| code word | name | meaning |", "|---|---|---|"]
            lines += [f"| `{bits}` | `{name}` | {_cell(meaning)} |" for bits, name, meaning in field.codes]
    return lines


def _total_size(structure: Structure) -> int | None:
    try:
        return int(structure.declaration.sizeof())
    except Exception:
        return None


def _bit_runs(fields: list[LayoutField]) -> Iterable[LayoutField]:
    """Containers whose children are bit fields (and top-level declarations that are bit runs)."""
    for index, field in enumerate(fields):
        children = fields[index + 1:]
        if not field.leaf and children and children[0].bits is not None and field.type.startswith("bits"):
            yield field
    if fields and fields[0].bits is not None and fields[0].depth == 0 and fields[0].leaf:
        yield LayoutField("", "", 0, fields[0].size, "bits", "", -1, False, None)


def _bit_layout(run: LayoutField, fields: list[LayoutField]) -> list[str]:
    members = [f for f in fields if f.leaf and f.bits is not None and f.depth == run.depth + 1
               and (not run.path or f.path.startswith(run.path + "."))]
    width = 8 * (run.size or 0)
    title = f"`{run.path}`" if run.path else "the structure"
    order = "little" if any(f.little_endian for f in members) else "big"
    lines = [f"#### Bit layout of {title} ({width} bits, bit 0 = least significant; bytes {order}-endian)", ""]
    # a one-line diagram, most significant bit first
    cells = []
    for f in sorted(members, key=lambda m: -(m.bits or (0, 0))[1]):
        assert f.bits is not None
        cells.append(f"{f.name} [{_bits_label(f.bits)}]")
    lines += ["```", " | ".join(cells), "```", ""]
    lines += ["| bits | width | field | meaning |", "|---|---:|---|---|"]
    for f in members:
        assert f.bits is not None
        lines.append(f"| {_bits_label(f.bits)} | {f.bits[1] - f.bits[0] + 1} | `{f.path}` | {_cell(f.meaning)} |")
    return lines


def _tool_links(key: str) -> list[str]:
    """Links to the format's exports for other tools (Kaitai Struct, ImHex), from this page's folder."""
    from .filetypes import FORMATS, file_types

    if key not in FORMATS:
        return []
    kaitai = ", ".join(f"[`{t.id}.ksy`](../kaitai/{t.id}.ksy)" for t in file_types(key))
    imhex = ", ".join(f"[`{t.id}.hexpat`](../imhex/{t.id}.hexpat)" for t in file_types(key))
    return [f"In other tools: Kaitai Struct {kaitai}; ImHex {imhex} (generated from the same declarations).", ""]


def format_page(doc: FormatDoc) -> str:
    """The Markdown page of one format."""
    lines = [
        f"# {doc.title}",
        "",
        "<!-- Generated from chessformats/schemas by `chessformats docs`; do not edit by hand. -->",
        "",
        doc.summary,
        "",
        f"File extensions: {', '.join(f'`{e}`' for e in doc.extensions)}.",
        "",
        *_tool_links(doc.key),
        "## Structures",
        "",
    ]
    for structure in doc.structures:
        lines += _structure_section(structure)
        lines.append("")
    if doc.notes:
        lines += ["## Notes", ""]
        lines += [f"- {note}" for note in doc.notes]
        lines.append("")
    if doc.examples:
        lines += ["## Worked examples", ""]
        for example in doc.examples:
            _, fields = trace(example.structure, example.data)
            lines += [f"{example.source}:", "", "```", plain(render(fields, example.data)), "```", ""]
    if doc.references:
        lines += ["## References", ""]
        lines += [f"- {reference}" for reference in doc.references]
        lines.append("")
    return "\n".join(line.rstrip() for line in lines).rstrip() + "\n"


def write_docs(out: str | os.PathLike[str], docs: Iterable[FormatDoc]) -> list[Path]:
    """Write one page per format into ``out`` (created if needed); return the paths written."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for doc in docs:
        path = folder / f"{doc.key}.md"
        path.write_text(format_page(doc), encoding="utf-8")
        written.append(path)
    return written
