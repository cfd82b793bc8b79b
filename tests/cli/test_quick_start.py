"""Quick calls stay quick: what a probe imports (no numpy, no construct, no rich, no other format), the name index
of the registry, and the lazy package exports. Time is measured by ``benchmarks/bench_startup.py``, not here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.conftest import REPO_ROOT, find_corpus

from chessformats.cli import registry

HEAVY = ("numpy", "construct", "rich", "chess.pgn", "chessformats.cli.ctg", "chessformats.cli.kvetka",
         "chessformats.cli.monty", "chessformats.cli.chessbase", "chessformats.books", "chessformats.engine.codec")


def _modules_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=REPO_ROOT)
    modules: list[str] = json.loads(done.stdout.splitlines()[-1])
    return modules


def test_a_probe_imports_only_what_it_uses() -> None:
    book = find_corpus("polyglot", "gm2001.bin")
    modules = _modules_after(
        "from chessformats.cli import main\n"
        f"assert main(['probe', {str(book)!r}, '--fen', 'startpos', '--json']) == 0")
    assert "chessformats.formats.polyglot.read" in modules  # (it did probe)
    heavy = [name for name in modules if name.startswith(HEAVY)]
    assert heavy == []


def test_a_probe_answers_the_same_as_the_library() -> None:
    import chess

    from chessformats.formats.polyglot import open_book

    book = find_corpus("polyglot", "gm2001.bin")
    done = subprocess.run([sys.executable, "-m", "chessformats.cli", "probe", str(book), "--fen", "startpos",
                           "--json"], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    with open_book(book) as opened:
        expected = [(entry.move.uci(), entry.weight, entry.number) for entry in opened.probe(chess.Board())]
    assert [(row["uci"], row["weight"], row["entry"]) for row in json.loads(done.stdout)] == expected


def test_importing_the_errors_imports_no_machinery() -> None:
    modules = _modules_after("import chessformats; from chessformats.engine import FormatError")
    assert [name for name in modules if name.startswith(("numpy", "construct", "chessformats.engine.codec"))] == []


@pytest.mark.parametrize("key", sorted(registry.FORMATS))
def test_the_name_index_equals_the_declarations(key: str) -> None:
    assert registry.FORMATS[key].names == registry.get(key).doc.extensions


def test_a_named_file_confirmed_by_its_content_is_not_shown_to_other_formats() -> None:
    book = find_corpus("polyglot", "gm2001.bin")
    modules = _modules_after(f"from chessformats.cli import registry\nregistry.detect({str(book)!r})")
    assert [name for name in modules if name.startswith(("chessformats.cli.ctg", "chessformats.cli.chessbase"))] == []


def test_engine_exports_are_lazy_and_complete() -> None:
    import types

    import chessformats.engine as engine
    import chessformats.engine.codec
    import chessformats.engine.trace  # noqa: F401  (binds the submodules: the functions must stay)

    assert sorted(engine.__all__) == sorted(name for names in engine._WHERE.values() for name in names)
    for name in engine.__all__:
        assert not isinstance(getattr(engine, name), types.ModuleType), name
    assert callable(engine.trace) and callable(engine.codec)
