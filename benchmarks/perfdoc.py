"""The one writer of docs/performance.md sections, shared by every benchmark script.

Each benchmark owns the text between its own pair of markers (``<!-- NAME:start -->`` ...
``<!-- NAME:end -->``); rewriting a section keeps everything outside it.
"""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def replace_section(section: str, start_marker: str, end_marker: str, path: Path = DOCS) -> None:
    """Put ``section`` (which begins with ``start_marker`` and ends with ``end_marker``) in place of the
    previous one, or append it when the file has none; a missing file starts with a title."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Performance\n"
    start, end = text.find(start_marker), text.find(end_marker)
    if start != -1 and end > start:
        after = text[end + len(end_marker):]
        text = text[:start] + section.rstrip("\n") + (after if after.startswith("\n") else "\n" + after)
    else:
        text = text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
