"""The HTML inspector (`chessformats inspect FILE --html OUT.html`), checked in a real browser.

Headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by selenium; `.ci/run` installs them)
opens the page from disk, a field is clicked in the tree, and the bytes (and bits) the page highlights must be
the field's span as chessformats traces it. A missing browser skips, or fails with
``CHESSFORMATS_REQUIRE_ORACLE=1`` (CI). With ``CHESSFORMATS_UPDATE_SCREENSHOTS=1`` the screenshots are
written to ``docs/images/`` (the README shows them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import chess
import pytest

from chessformats.cli import main, registry
from chessformats.codegen.html import page, read_targets
from conftest import find_corpus, screenshot


def _inspected(path: Path, **options: Any) -> tuple[list[Any], str]:
    handler = registry.detect(str(path))
    stretches = read_targets(str(path), handler.inspect(str(path), **options))
    return stretches, page(f"{path.name}: {handler.doc.title}", stretches)


def _book_moves() -> int:
    """Entries of the start position in gm2001.bin, as python-chess's own Polyglot reader finds them."""
    import chess.polyglot

    with chess.polyglot.open_reader(find_corpus("polyglot", "gm2001.bin")) as reader:
        return len(list(reader.find_all(chess.Board(), minimum_weight=0)))


def _payload(text: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.DOTALL)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1).replace("<\\/", "</"))
    return data


# --- without a browser ----------------------------------------------------------------------------------------

def test_page_is_self_contained_and_holds_every_traced_field() -> None:
    stretches, text = _inspected(find_corpus("polyglot", "gm2001.bin"), fen=chess.STARTING_FEN)
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", text)
    assert not re.search(r"url\(|@import|https?://(?!www\.w3\.org/)", text)  # SVG namespaces are names, not fetched
    data = _payload(text)
    assert len(data["stretches"]) == len(stretches) == _book_moves()
    for shown, traced in zip(data["stretches"], stretches, strict=True):
        assert bytes.fromhex(shown["hex"]) == traced.data and shown["offset"] == traced.offset
        assert [(f["path"], f["start"], f["end"]) for f in shown["fields"]] == \
               [(f.path, f.start, f.end) for f in traced.fields]
    assert text.count('<figure class="board">') == 1 and text.count("<svg") >= 1
    assert "e2e4" in text and "10439" in text  # the annotation of entry 8376's move and its weight


def test_html_option_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = find_corpus("ctg", "PowerPlay17-Sicilienne.ctg")
    out = tmp_path / "ctg.html"
    assert main(["inspect", str(book), "--fen", "startpos", "--html", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    data = _payload(out.read_text(encoding="utf-8"))
    assert [s["path"] for s in data["stretches"]] == ["pages[237].records[54]"]
    assert any(f["path"].endswith("position.board.squares.e2") and f["value"] == "white_pawn"
               for f in data["stretches"][0]["fields"])


# --- in the browser -----------------------------------------------------------------------------------------

def _click(browser: Any, path: str) -> tuple[list[int], list[int]]:
    """Click the tree node of ``path``; the highlighted byte offsets and bit numbers."""
    from selenium.webdriver.common.by import By

    node = browser.find_element(By.CSS_SELECTOR, f'.node[data-path="{path}"]')
    node.click()
    assert "sel" in (node.get_attribute("class") or "")
    offsets = [int(e.get_attribute("data-offset")) for e in browser.find_elements(By.CSS_SELECTOR, ".byte.sel")]
    bits = [int(e.get_attribute("data-bit")) for e in browser.find_elements(By.CSS_SELECTOR, "#details .bit.on")]
    return offsets, bits


def _check_every_kind(browser: Any, stretches: list[Any], paths: list[str]) -> None:
    fields = {f.path: f for s in stretches for f in s.fields}
    for path in paths:
        field = fields[path]
        offsets, bits = _click(browser, path)
        assert offsets == list(range(field.start, field.end)), path
        expected_bits = list(range(field.bit_start, field.bit_end)) if field.bit_start is not None \
            and not field.little_endian else []
        assert bits == expected_bits, path
        details = browser.find_element("id", "details").text
        assert path in details and (field.meaning.split(";")[0] in details if field.meaning else True)


def test_polyglot_record_in_the_browser(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    stretches, text = _inspected(find_corpus("polyglot", "gm2001.bin"), fen=chess.STARTING_FEN)
    out = tmp_path / "polyglot.html"
    out.write_text(text, encoding="utf-8")
    browser.get(out.as_uri())
    assert browser.find_elements(By.CSS_SELECTOR, "figure.board svg")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".byte[data-offset]")) == 16 * _book_moves()
    _check_every_kind(browser, stretches, ["entries[8376]", "entries[8376].key", "entries[8376].move",
                                           "entries[8376].move.promotion", "entries[8377].weight"])
    _check_every_kind(browser, stretches, ["entries[8376].move.to_rank"])  # selected for the screenshot
    # hovering a byte shows the innermost field holding it
    from selenium.webdriver.common.action_chains import ActionChains

    byte = browser.find_element(By.CSS_SELECTOR, f'.byte[data-offset="{8376 * 16 + 10}"]')
    ActionChains(browser).move_to_element(byte).perform()
    assert browser.find_element("id", "details").text.startswith("entries[8376].weight")
    _click(browser, "entries[8376].move.to_rank")
    screenshot(browser, tmp_path, "inspect-polyglot.png")


def test_ctg_position_in_the_browser(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    stretches, text = _inspected(find_corpus("ctg", "PowerPlay17-Sicilienne.ctg"), fen=chess.STARTING_FEN)
    out = tmp_path / "ctg.html"
    out.write_text(text, encoding="utf-8")
    browser.get(out.as_uri())
    boards = browser.find_elements(By.CSS_SELECTOR, "figure.board")
    assert len(boards) == 1 and chess.STARTING_BOARD_FEN in boards[0].text
    prefix = "pages[237].records[54]"
    _check_every_kind(browser, stretches, [f"{prefix}.position.header.length", f"{prefix}.position.board.squares.a1",
                                           f"{prefix}.moves.moves[0].code", f"{prefix}.stats.games"])
    _click(browser, f"{prefix}.position.board.squares.e2")
    screenshot(browser, tmp_path, "inspect-ctg.png")
