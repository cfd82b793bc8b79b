"""Quick calls stay quick: what a probe imports (no numpy, no construct, no rich, no other format), the name index
of the registry, and the lazy package exports. Time is measured by ``benchmarks/bench_startup.py``, not here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO_ROOT, find_corpus
from tests.polyglot_cases import entries

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
        expected = [(entry.move.uci(), entry.weight, entry.number) for entry in entries(opened, chess.Board())]
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


def _games(tmp_path: Path) -> Path:
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Event "a"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n', encoding="utf-8")
    return pgn


def test_a_pgn_build_imports_neither_python_chess_nor_construct(tmp_path: Path) -> None:
    """Start-up time: python-chess only for games the batch replay leaves, construct only for declarations."""
    book = tmp_path / "book.bin"
    modules = _modules_after(
        "from chessformats.cli import main\n"
        f"assert main(['build', {str(_games(tmp_path))!r}, '-o', {str(book)!r}, '--min-games', '1']) == 0")
    assert book.stat().st_size == 3 * 16  # the winner's three moves (a loss scores 0)
    assert [name for name in modules if name.split(".")[0] in ("chess", "construct", "multiprocessing", "rich")] == []


def _as_the_program(arguments: list[str]) -> subprocess.CompletedProcess[str]:
    """``main()`` run as the program with ``arguments``, an exit handler registered: checked to have ended the
    process (main never returned) after the handler ran, with exit code 0."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('exit handler ran'))\n"
            f"sys.argv = {['chessformats', *arguments]!r}\n"
            "from chessformats.cli import main\n"
            "code = main()\n"
            "print('main returned')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["exit handler ran"]
    return done


def test_build_as_the_program_ends_the_process_after_exit_handlers(tmp_path: Path) -> None:
    """``main()`` as the program skips the interpreter's teardown after a build: exit handlers still run, the
    output is flushed, the book is whole, the exit code is main's."""
    book, library = tmp_path / "book.bin", tmp_path / "library.bin"
    done = _as_the_program(["build", str(_games(tmp_path)), "-o", str(book), "--min-games", "1"])
    assert "3 entries written" in done.stderr
    from chessformats.books.build import BookBuilder
    from chessformats.polyglot import make_book

    builder = BookBuilder()
    builder.add_pgn(_games(tmp_path))
    make_book(library, builder, min_games=1)
    assert book.read_bytes() == library.read_bytes()


def test_a_pgn_to_base_conversion_imports_neither_the_reader_nor_rich(tmp_path: Path) -> None:
    """Start-up time of ``convert games.pgn -o base.cbh``: games without comments are written without python-chess's
    PGN module (and its engine module's asyncio), the base reader, the archives and rich (stderr is no terminal)."""
    base = tmp_path / "base.cbh"
    modules = _modules_after(
        "from chessformats.cli import main\n"
        f"assert main(['convert', {str(_games(tmp_path))!r}, '-o', {str(base)!r}]) == 0")
    from chessformats.formats.chessbase import open_database

    with open_database(base) as db:
        assert [move.uci() for move in db[1].to_pgn().mainline_moves()] == \
            ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
    assert "chessformats.formats.chessbase.write" in modules  # (it did write)
    heavy = ("chess.pgn", "chess.engine", "asyncio", "rich", "chessformats.formats.chessbase.database",
             "chessformats.formats.chessbase.games", "chessformats.formats.chessbase.archive")
    assert [name for name in modules if name.startswith(heavy)] == []


def test_chessbase_exports_are_lazy_and_complete() -> None:
    import types

    import chessformats.formats.chessbase as chessbase
    import chessformats.formats.chessbase.annotations as annotations  # the submodule, not __future__'s name

    assert isinstance(annotations, types.ModuleType) and callable(annotations.decode_text)
    for name in chessbase.__all__:
        assert getattr(chessbase, name) is not None, name
    assert sorted(chessbase.__all__) == sorted(set(dir(chessbase)) & set(chessbase.__all__))


def test_convert_to_a_base_as_the_program_ends_the_process_after_exit_handlers(tmp_path: Path) -> None:
    """As for ``build``: the interpreter's teardown is skipped, exit handlers run, the base is whole (the
    library's), the exit code is main's."""
    base, library = tmp_path / "base.cbh", tmp_path / "library.cbh"
    done = _as_the_program(["convert", str(_games(tmp_path)), "-o", str(base)])
    assert "1 games written to" in done.stderr
    from chessformats.books.chessbase_import import write_database_from_pgn

    write_database_from_pgn(library, _games(tmp_path))
    for extension in (".cbh", ".cbg", ".cba", ".cbj", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe"):
        assert base.with_suffix(extension).read_bytes() == library.with_suffix(extension).read_bytes(), extension
