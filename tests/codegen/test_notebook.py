"""Pictures of records in notebooks (``_repr_html_``, ``_repr_svg_``: :mod:`chessformats.codegen.notebook`).

The books are built from the games the package bundles (``chessformats tour``'s), so no corpus is needed. The
oracles: the moves a table shows are the probe's, replies those games play as python-chess reads them (and for
Polyglot python-chess's own book reader, weights included); the bytes a record's hex shows are the file's bytes
at the record's offset; file text (a comment, a player's name) comes out escaped. ``docs/notebooks/tour.ipynb``
is executed headlessly (nbclient) and one of its pictures is opened in Chromium.
"""

from __future__ import annotations

import html
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import chess.polyglot
import pytest

from chessformats import chessbase, ctg, kvetka, polyglot
from chessformats.books.build import BookBuilder
from chessformats.engine import display
from conftest import REPO_ROOT, screenshot

NOTEBOOK = REPO_ROOT / "docs" / "notebooks" / "tour.ipynb"


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("books")
    builder = BookBuilder(max_ply=12)
    with resources.as_file(resources.files("chessformats.data") / "example_games.pgn") as games:
        builder.add_pgn(games)
    polyglot.make_book(folder / "example.bin", builder, min_games=1)
    ctg.make_book(folder / "example.ctg", builder, min_games=1)
    kvetka.make_book(folder / "example.kob", builder, min_games=1)
    return folder


def _games() -> list[chess.pgn.Game]:
    text = (resources.files("chessformats.data") / "example_games.pgn").read_text(encoding="utf-8")
    handle = io.StringIO(text)
    found = []
    while (game := chess.pgn.read_game(handle)) is not None:
        found.append(game)
    return found


def _replies_to_e4() -> set[str]:
    """Black's answers to 1. e4 in the bundled games, as python-chess reads them."""
    replies = set()
    for game in _games():
        first = game.next()
        if first is not None and first.move == chess.Move.from_uci("e2e4") and first.next() is not None:
            replies.add(first.next().move.uci())  # type: ignore[union-attr]
    assert len(replies) > 1
    return replies


def _after_e4() -> chess.Board:
    board = chess.Board()
    board.push_san("e4")
    return board


def _shown_moves(text: str) -> set[str]:
    """The uci column of the moves table."""
    table = text.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return {cells[1] for cells in (re.findall(r"<td[^>]*>(.*?)</td>", row) for row in table.split("</tr>")) if cells}


def _shown_bytes(text: str) -> list[bytes]:
    """The bytes of each hex grid of a picture, as shown (tags and addresses removed)."""
    grids = re.findall(r'<div class="chessformats-hex".*?<pre[^>]*>(.*?)</pre>', text, re.DOTALL)
    result = []
    for grid in grids:
        rows = [re.sub(r"<[^>]+>", "", row).split("  ", 1)[1] for row in grid.split("\n")]
        result.append(bytes.fromhex("".join(rows).replace(" ", "")))
    return result


@pytest.mark.parametrize("name", ["polyglot", "ctg", "kvetka"])
def test_probe_picture_shows_board_and_every_book_move(books: Path, name: str) -> None:
    opened = {"polyglot": lambda: polyglot.open_book(books / "example.bin"),
              "ctg": lambda: ctg.open_book(books / "example.ctg"),
              "kvetka": lambda: kvetka.open_book(books / "example_0.kob")}[name]
    board = _after_e4()
    with opened() as book:
        found: Any = book.probe(board)
    text = found._repr_html_()
    shown = _shown_moves(text)
    assert shown == {move.move.uci() for move in found.moves}
    assert shown and shown <= _replies_to_e4()  # replies of the bundled games (a lost one may be left out)
    if name == "polyglot":  # python-chess's reader agrees on the moves and their weights
        with chess.polyglot.open_reader(books / "example.bin") as reader:
            weights = {entry.move.uci(): entry.weight for entry in reader.find_all(board, minimum_weight=0)}
        rows = re.findall(r"<td[^>]*>([a-h][1-8][a-h][1-8][qrbn]?)</td><td[^>]*>(\d+)</td>", text)
        assert dict((uci, int(weight)) for uci, weight in rows) == weights
    svg = found._repr_svg_()
    assert svg.startswith("<svg") and svg in text  # the same board, arrows and all, beside the table
    assert svg.count('class="arrow"') == 2 * len(shown)  # each arrow: a line and its head


def test_record_pictures_show_the_stored_bytes(books: Path) -> None:
    raw = (books / "example.bin").read_bytes()
    with polyglot.open_book(books / "example.bin") as book:
        entries = [book[0], book[len(book) - 1]]
        found = book.probe(_after_e4())
    for entry in entries:
        assert _shown_bytes(entry._repr_html_()) == [raw[16 * entry.number:16 * entry.number + 16]]
    assert found is not None
    assert _shown_bytes(found._repr_html_()) == [raw[16 * e.number:16 * e.number + 16] for e in found.moves]

    raw = (books / "example.ctg").read_bytes()
    with ctg.open_book(books / "example.ctg") as book:
        record = book.probe(_after_e4())
    assert record is not None and record.offset is not None
    shown = _shown_bytes(record._repr_html_())
    assert shown == [raw[record.offset:record.offset + len(shown[0])]] and len(shown[0]) > 40

    raw = (books / "example_0.kob").read_bytes()
    with kvetka.open_book(books / "example_0.kob") as book:
        element = book[0]
    assert element.offset is not None
    shown = _shown_bytes(element._repr_html_())
    assert shown == [raw[element.offset:element.offset + len(shown[0])]] and len(shown[0]) > 22
    move = element.moves()[0]
    assert f">{move.uci()} (" in element._repr_html_()  # the chess meaning of a move code


def test_text_from_files_is_escaped(books: Path, tmp_path: Path) -> None:
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    with kvetka.open_book(books / "example_0.kob") as book:
        found = book.probe(chess.Board())
    assert found is not None
    shown = replace(found, comment=evil, element=replace(found.element, comment=evil))._repr_html_()
    assert "<script" not in shown and "<img" not in shown and html.escape(evil) in shown

    evil = "<script>alert(1)</script>"  # a ChessBase name holds 30 bytes; a PGN tag value no double quote
    pgn = tmp_path / "evil.pgn"
    pgn.write_text(f'[White "{evil}"]\n[Black "B"]\n[Event "E & F"]\n[Result "1-0"]\n\n1. e4 1-0\n', encoding="utf-8")
    chessbase.write_database_from_pgn(tmp_path / "evil.cbh", pgn)
    with chessbase.open_database(tmp_path / "evil.cbh") as base:
        text = base[1]._repr_html_()
    assert "<script" not in text and html.escape(evil) in text
    assert "E &amp; F" in text and text.index(">White<") < text.index(">Black<")


def test_a_class_without_a_renderer_shows_its_plain_repr() -> None:
    class Unknown:
        _repr_html_ = display.repr_html

    assert Unknown()._repr_html_() is None
    with pytest.raises(ValueError):
        display.register(Unknown, "png", repr)


def test_the_renderers_load_on_the_first_picture(books: Path) -> None:
    """formats/ does not import codegen: reading a book loads no renderer; the first picture loads them."""
    script = f"""
import sys
import chess
from chessformats import polyglot
with polyglot.open_book({str(books / "example.bin")!r}) as book:
    found = book.probe(chess.Board())
assert not any(name.startswith("chessformats.codegen") for name in sys.modules), "loaded before a picture"
assert "<svg" in found._repr_html_() and "chessformats.codegen.notebook" in sys.modules
"""
    subprocess.run([sys.executable, "-c", script], check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH", "")])})


# --- the notebook ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[test]'")
    nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[test]'")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    folder = tmp_path_factory.mktemp("notebook")  # the notebook runs elsewhere than the source tree
    nbclient.NotebookClient(notebook, timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    yield notebook


def _results(notebook: Any) -> list[dict[str, Any]]:
    return [output["data"] for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
            if output.output_type == "execute_result"]


def test_notebook_runs_and_shows_pictures(executed: Any) -> None:
    results = _results(executed)
    assert len(results) == 6
    probes, records, game = results[:3], results[3:5], results[5]
    for data in probes:
        assert data["image/svg+xml"].startswith("<svg") and data["image/svg+xml"] in data["text/html"]
        assert _shown_moves(data["text/html"]) <= _replies_to_e4() and _shown_moves(data["text/html"])
    for data in records:
        assert "image/svg+xml" not in data and _shown_bytes(data["text/html"])
    first = _games()[0].headers
    assert html.escape(first["White"]) in game["text/html"] and html.escape(first["Event"]) in game["text/html"]


def test_a_notebook_picture_in_chromium(executed: Any, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    picture = _results(executed)[1]["text/html"]  # the CTG probe
    page = tmp_path / "cell.html"
    page.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{picture}</body></html>",
                    encoding="utf-8")
    browser.get(page.as_uri())
    board = browser.find_element(By.CSS_SELECTOR, ".chessformats-position svg")
    assert board.size["width"] > 200 and board.size["height"] > 200
    moves_table = ".chessformats-position > div > div > table > tbody > tr > td:nth-child(2)"  # not the hex's
    cells = browser.find_elements(By.CSS_SELECTOR, moves_table)
    assert {cell.text for cell in cells} == _shown_moves(picture)
    hex_grid = browser.find_element(By.CSS_SELECTOR, ".chessformats-hex pre")
    assert not hex_grid.is_displayed()  # folded until asked for
    browser.find_element(By.CSS_SELECTOR, ".chessformats-position details summary").click()
    assert hex_grid.is_displayed() and hex_grid.size["height"] > 40
    coloured = browser.find_elements(By.CSS_SELECTOR, ".chessformats-hex pre span[title]")
    assert coloured and all(span.value_of_css_property("background-color") != "rgba(0, 0, 0, 0)"
                            for span in coloured)
    screenshot(browser, tmp_path, "notebook-ctg-probe.png")
