"""The annotated hex view: every field's bytes beside its path, decoded value and meaning.

It renders the output of :func:`chessformats.engine.trace.trace` and knows nothing about any format.
Lines are :class:`rich.text.Text`: coloured on a terminal, plain when piped or written to Markdown.
A format layer may add chess meaning to a field (``entries[3].move`` -> ``e2e4``) through
``annotations``, a mapping from field path to a short text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum

import construct as cs
from rich.text import Text

from ..engine.trace import TracedField

__all__ = ["field_meaning", "format_value", "plain", "render"]

_PALETTE = ("cyan", "green", "magenta", "yellow", "blue", "red", "bright_cyan", "bright_green")
_HEX_WIDTH = 8  # bytes per hex line
_WIDE_RUN = 4  # bit runs wider than this many bytes show each field's own bytes, not the whole run
_LONG_LIST = 8  # lists with more items are shown by their length


def format_value(field: TracedField) -> str:
    """A field's value as the hex view shows it: enums by name and number, big integers also in hex."""
    value = field.value
    if field.enum is not None and isinstance(value, (int, cs.EnumIntegerString)):
        number = int(value)
        name, _ = field.enum.get(number, (None, None))
        return f"{name} ({number})" if name else f"{number} (not defined)"
    if isinstance(value, IntEnum):
        return f"{value.name} ({int(value)})"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        if field.end - field.start >= 4 and field.bits is None and value > 0xFFFF:
            return f"{value:#0{2 * (field.end - field.start) + 2}x} ({value})"
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        shown = bytes(value[:16]).hex(" ")
        return shown + (" ..." if len(value) > 16 else "")
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and len(value) > _LONG_LIST:
        return f"[{len(value)} items]"
    return repr(value)


def field_meaning(field: TracedField) -> str:
    """A field's declared meaning, with the meaning of its enum value when it has one."""
    meaning = field.meaning
    if field.enum is not None and isinstance(field.value, (int, cs.EnumIntegerString)):
        number = int(field.value)
        _, value_meaning = field.enum.get(number, (None, None))
        if value_meaning:
            meaning = f"{meaning}; {value_meaning}" if meaning else value_meaning
    return meaning


def _bit_picture(field: TracedField, run_start: int, run_bytes: bytes) -> str:
    """The run's bits with this field's shown as 0/1 and the others as dots, grouped by 4.

    The run is read as one integer in its byte order and drawn most significant bit first.
    """
    assert field.bit_start is not None and field.bit_end is not None
    width = 8 * len(run_bytes)
    value = int.from_bytes(run_bytes, "little" if field.little_endian else "big")
    first = 8 * run_start
    chars = [
        str(value >> (width - 1 - i) & 1) if field.bit_start <= first + i < field.bit_end else "."
        for i in range(width)
    ]
    return " ".join("".join(chars[i:i + 4]) for i in range(0, width, 4))


def render(
    fields: Sequence[TracedField],
    data: bytes | memoryview,
    *,
    base: int = 0,
    annotations: Mapping[str, str] | None = None,
    title: str | None = None,
) -> list[Text]:
    """Render traced fields as annotated hex lines.

    ``data`` holds the bytes the fields were traced from, ``data[0]`` being at absolute offset
    ``base``. Container fields become headings; each leaf shows its bytes (one colour per field);
    fields inside a bit run show the run's bits with theirs picked out and their bit numbers.
    """
    annotations = annotations or {}
    lines: list[Text] = []
    if title:
        lines.append(Text(title, style="bold"))
    leaves = [f for f in fields if f.leaf]
    path_width = min(max((2 * f.depth + len(f.path) for f in leaves), default=0), 48)
    runs = [f for f in fields if not f.leaf and f.bit_start is not None]
    # a wide run (a coded board, say) is pictured field by field, over at most _WIDE_RUN bytes each
    widest_run = max((min(r.end - r.start, _WIDE_RUN) for r in runs), default=0)
    # the bit label ("bits 104-108") and a space: as wide as the widest label the runs can give
    wide_bits = max((8 * (r.end - r.start) for r in runs if r.end - r.start > _WIDE_RUN), default=0)
    label_width = max(12, len(f"bits {wide_bits}-{wide_bits}") + 1) if wide_bits else 11
    # hex column: 8 bytes of hex, or a bit label plus the picture of the widest bit run
    column = max(3 * _HEX_WIDTH - 1, label_width + 10 * widest_run - 1 if widest_run else 0)
    colour = 0
    shown_runs: set[tuple[int, int]] = set()
    for field in fields:
        indent = "  " * field.depth
        if not field.leaf:
            if field.bit_start is not None:
                continue  # a bit run: its bytes are shown once, with its first field
            heading = (Text(f"{field.start:08x}  {indent}{field.path or '(record)'}", style="bold dim")
                       .append(f"  {field.end - field.start} bytes", style="dim")
                       .append(f"  {field.meaning}" if field.meaning else "", style="dim italic"))
            if field.path in annotations:
                heading.append(f"  => {annotations[field.path]}", style="bold")
            lines.append(heading)
            continue
        style = _PALETTE[colour % len(_PALETTE)]
        colour += 1
        raw = bytes(data[field.start - base:field.end - base])
        line = Text()
        if field.bit_start is None:
            chunks = [raw[i:i + _HEX_WIDTH] for i in range(0, max(len(raw), 1), _HEX_WIDTH)] or [b""]
            line.append(f"{field.start:08x}  ")
            line.append(chunks[0].hex(" ").ljust(column), style=style)
        else:
            bit_start, bit_end = field.bit_start, field.bit_end or field.bit_start
            run = next((r for r in runs if r.bit_start is not None and r.bit_end is not None
                        and r.bit_start <= bit_start and bit_end <= r.bit_end), None)
            span = (run.start, run.end) if run else (field.start, field.end)
            wide = span[1] - span[0] > _WIDE_RUN
            if span not in shown_runs:
                shown_runs.add(span)
                run_bytes = bytes(data[span[0] - base:span[1] - base])
                head = Text(f"{span[0]:08x}  ")
                head.append((run_bytes[:_HEX_WIDTH] if wide else run_bytes).hex(" ").ljust(column), style="bold")
                head.append(f"  {indent[2:]}{run.path if run else field.path}", style="bold")
                if run is not None and run.meaning:
                    head.append(f"  {run.meaning}", style="dim italic")
                if wide:
                    head.append("  (bits counted from the run's first bit)", style="dim")
                if run is not None and run.path in annotations:
                    head.append(f"  => {annotations[run.path]}", style="bold")
                lines.append(head)
                if wide:
                    lines += _more_chunks(run_bytes, "bold")
            chunks = []
            if wide:  # bits numbered in stream order from the run's start; the picture covers the field's bytes
                first_bit = bit_start - 8 * span[0]
                last_bit = first_bit + max(bit_end - bit_start, 1) - 1
                label = f"bit {first_bit}" if first_bit == last_bit else f"bits {first_bit}-{last_bit}"
                own = bytes(data[field.start - base:field.end - base])
                if field.end - field.start > _WIDE_RUN:
                    chunks = [own[i:i + _HEX_WIDTH] for i in range(0, len(own), _HEX_WIDTH)]
                    line.append(f"{field.start:08x}  ")
                    line.append(f"{label:<{label_width}}{chunks[0].hex(' ')}".ljust(column), style=style)
                else:
                    line.append(f"{field.start:08x}  ")
                    line.append(f"{label:<{label_width}}{_bit_picture(field, field.start, own)}".ljust(column),
                                style=style)
            else:
                low, high = field.bits or (0, 0)
                label = f"bit {low}" if low == high else f"bits {low}-{high}"
                picture = _bit_picture(field, span[0], bytes(data[span[0] - base:span[1] - base]))
                line.append(f"{'':8}  ")
                line.append(f"{label:<{label_width}}{picture}".ljust(column), style=style)
        line.append(f"  {(indent + field.path).ljust(path_width)}", style=style)
        line.append(f" = {format_value(field)}")
        if field.path in annotations:
            line.append(f" => {annotations[field.path]}", style="bold")
        meaning = field_meaning(field)
        if meaning:
            line.append(f"  {meaning}", style="dim italic")
        lines.append(line)
        if chunks:
            lines += _more_chunks(b"".join(chunks), style)
    return lines


def _more_chunks(raw: bytes, style: str) -> list[Text]:
    """Hex lines for the bytes of a field after its first line; a run of equal lines is shown once and ``*``."""
    lines = []
    previous = raw[:_HEX_WIDTH]
    starred = False
    for start in range(_HEX_WIDTH, len(raw), _HEX_WIDTH):
        chunk = raw[start:start + _HEX_WIDTH]
        if chunk == previous and len(chunk) == _HEX_WIDTH:
            if not starred:
                lines.append(Text(f"{'':8}  *", style=style))
                starred = True
            continue
        lines.append(Text(f"{'':8}  ").append(chunk.hex(" "), style=style))
        previous, starred = chunk, False
    return lines


def plain(lines: Sequence[Text]) -> str:
    """The lines as plain text (for files and Markdown)."""
    return "\n".join(line.plain.rstrip() for line in lines)
