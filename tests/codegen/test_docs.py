"""The generated format reference: committed pages are current and cover every declared field."""

from __future__ import annotations

from pathlib import Path

import pytest

from chessformats.cli import main, registry
from chessformats.codegen.markdown import format_page
from chessformats.engine.layout import describe
from conftest import REPO_ROOT

HANDLERS = registry.all_formats()


@pytest.mark.parametrize("handler", HANDLERS, ids=lambda h: h.key)
def test_committed_page_is_current(handler: registry.FormatHandler) -> None:
    committed = REPO_ROOT / "docs" / "formats" / f"{handler.key}.md"
    assert committed.exists(), f"{committed} missing: run `chessformats docs --out docs/formats`"
    assert committed.read_text(encoding="utf-8") == format_page(handler.doc), (
        f"{committed} is stale: run `chessformats docs --out docs/formats` and commit the result"
    )


@pytest.mark.parametrize("handler", HANDLERS, ids=lambda h: h.key)
def test_page_names_every_field_meaning_and_enum_value(handler: registry.FormatHandler) -> None:
    page = format_page(handler.doc)
    for structure in handler.doc.structures:
        for field in describe(structure.declaration):
            assert f"`{field.path}`" in page, field.path
            assert field.meaning and field.meaning in page.replace("\\|", "|"), field.path
            for value, (name, meaning) in (field.enum or {}).items():
                assert f"| {value} | `{name}` | {meaning} |" in page


def test_docs_command_writes_the_committed_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "--out", str(tmp_path)]) == 0
    for handler in HANDLERS:
        generated = (tmp_path / f"{handler.key}.md").read_text(encoding="utf-8")
        assert generated == (REPO_ROOT / "docs" / "formats" / f"{handler.key}.md").read_text(encoding="utf-8")


def test_polyglot_page_layout() -> None:
    page = format_page(registry.get("polyglot").doc)
    # offsets and sizes from the spec: key 0/8, move 8/2, weight 10/2, learn 12/4
    for row in ("| 0 | 8 | u64 BE | `key` |", "| 8 | 2 | bits | `move` |", "| 10 | 2 | u16 BE | `weight` |",
                "| 12 | 4 | u32 BE | `learn` |"):
        assert row in page
    # the spec's bit numbering: to file 0-2, to rank 3-5, from file 6-8, from rank 9-11, promotion 12-14
    for row in ("| 0-2 | 3 | `move.to_file` |", "| 3-5 | 3 | `move.to_rank` |", "| 6-8 | 3 | `move.from_file` |",
                "| 9-11 | 3 | `move.from_rank` |", "| 12-14 | 3 | `move.promotion` |"):
        assert row in page
    # the worked example shows the real bytes of 1.e4 in gm2001.bin: weight 0x28c7 = 10439
    assert "46 3b 96 18 16 91 fc 9c" in page and "= 10439" in page
