"""The Kaitai Struct export, checked by Kaitai itself.

Every exported ``.ksy`` is compiled to Python by the Kaitai compiler (the npm package, run with Node; `.ci/run`
installs both), every real file of its type is parsed by the generated parser, and every field value is
compared with what chessformats' own declaration parses from the same bytes: zero differences. Kvetka has no
real book: books written by chessformats (with comments, game references and sources) stand in for it.

Environment: ``CHESSFORMATS_KAITAI`` the ``node_modules`` folder holding ``kaitai-struct-compiler`` (default
``.ci/cache/kaitai/node_modules``); a missing Node or compiler skips, or fails with
``CHESSFORMATS_REQUIRE_ORACLE=1`` (CI).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from enum import IntEnum
from pathlib import Path
from types import ModuleType
from typing import Any

import chess
import construct as cs
import pytest
import yaml

from chessformats.codegen.binmodel import Model
from chessformats.codegen.filetypes import FORMATS, FileType, build_model, file_types
from chessformats.codegen.kaitai import ksy, ksy_text, write_kaitai
from chessformats.engine.bitruns import bit_run
from chessformats.engine.errors import FormatError
from chessformats.engine.trace import TracedField, trace
from conftest import REPO_ROOT, SHARED_ROOT, find_tool

FILE_TYPES = [file_type for key in FORMATS for file_type in file_types(key)]
KSY_DIR = REPO_ROOT / "docs" / "kaitai"
BIG = 1 << 20  # files larger than this are checked in the slow run (CI)


def _missing(message: str) -> None:
    if os.environ.get("CHESSFORMATS_REQUIRE_ORACLE") == "1":
        pytest.fail(f"{message} (and CHESSFORMATS_REQUIRE_ORACLE=1)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def kaitai_compile(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], ModuleType]:
    """``compile(ksy_text)``: the Python module the Kaitai compiler makes of a specification."""
    node = find_tool("node", env="CHESSFORMATS_NODE")
    modules = Path(os.environ.get("CHESSFORMATS_KAITAI") or REPO_ROOT / ".ci" / "cache" / "kaitai" / "node_modules")
    if not (modules / "kaitai-struct-compiler").is_dir():
        _missing(f"the Kaitai compiler is not in {modules} (run .ci/run or set CHESSFORMATS_KAITAI)")
    pytest.importorskip("kaitaistruct")
    folder = tmp_path_factory.mktemp("kaitai")
    cache: dict[str, ModuleType] = {}

    def compile_ksy(text: str) -> ModuleType:
        spec = yaml.safe_load(text)
        name = spec["meta"]["id"]
        if name in cache:
            return cache[name]
        result = subprocess.run([str(node), str(REPO_ROOT / ".ci" / "kaitai" / "compile.js"), str(modules)],
                                input=json.dumps(spec), capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == 0, f"the Kaitai compiler refused {name}.ksy:\n{result.stderr[-3000:]}"
        files = json.loads(result.stdout)
        for filename, source in files.items():
            (folder / filename).write_text(source, encoding="utf-8")
        module_spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
        cache[name] = module
        return module

    return compile_ksy


def kaitai_parse(module: ModuleType, file_type: FileType, data: bytes) -> Any:
    from kaitaistruct import KaitaiStream

    parsed = getattr(module, _class_name(file_type.id))(KaitaiStream(io.BytesIO(data)))
    parsed._read()  # debug mode: reading is explicit
    return parsed


# --- comparison ----------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _items(value: Any) -> Any:
    """A Kaitai array, seen through the region type that gives it its size (``items``)."""
    if value is None:
        return []
    return value if isinstance(value, list) else value.items


def navigate(obj: Any, path: str) -> Any:
    for name, index in _TOKEN.findall(path):
        obj = _items(obj)[int(index)] if index else getattr(obj, name)
    return obj


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


class Comparison:
    def __init__(self, model: Model) -> None:
        self.compared = 0
        self.differences: list[str] = []
        self.enums = {_class_name(name): enum for name, enum in model.enums.items()}

    def value(self, path: str, ours: Any, theirs: Any) -> None:
        self.compared += 1
        if isinstance(ours, dict):
            for key, item in ours.items():
                if not key.startswith("_"):
                    self.value(f"{path}.{key}", item, getattr(theirs, key, "<missing>"))
            return
        if isinstance(ours, list):
            theirs = _items(theirs)
            if len(ours) != len(theirs):
                self.differences.append(f"{path}: {len(ours)} items, Kaitai {len(theirs)}")
                return
            for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
                self.value(f"{path}[{index}]", mine, other)
            return
        if hasattr(theirs, "value") and not isinstance(theirs, IntEnum):  # a custom type: its decoded value
            theirs = theirs.value
        if isinstance(ours, cs.EnumIntegerString):
            same = isinstance(theirs, IntEnum) and int(theirs) == int(ours) \
                and theirs.name == self.enums[type(theirs).__name__].exported(str(ours))
        elif isinstance(ours, bool):
            same = isinstance(theirs, bool) and theirs == ours
        elif isinstance(ours, int):  # Kaitai reads a 1-bit field (b1) as a boolean
            same = isinstance(theirs, int) and int(theirs) == ours and (ours in (0, 1) or not isinstance(theirs, bool))
        else:
            same = ours == theirs
        if not same:
            self.differences.append(f"{path}: ours {ours!r}, Kaitai {theirs!r}")


def compare(file_type: FileType, data: bytes, parsed: Any) -> Comparison:
    """Every traced field of ``data`` against the Kaitai object ``parsed``.

    The tracer reads a greedy range strictly (every byte must form whole items), so it refuses ranges that end
    at a terminator (Monty's plies): those files are compared through construct's parse instead.
    """
    result = Comparison(build_model(file_type))
    try:
        _, fields = trace(file_type.declaration, data)
    except FormatError:
        walk(result, file_type.declaration, file_type.declaration.parse(data), parsed, "")
        return result
    raw: list[str] = []  # the field Kaitai keeps as bytes: its sub-fields (traced right after it) are not compared
    for field in fields:
        if not field.path or (raw and field.path.startswith(tuple(raw))):
            continue
        try:
            theirs = navigate(parsed, field.path)
        except (AttributeError, IndexError) as exc:
            result.differences.append(f"{field.path}: not in the Kaitai parse ({exc})")
            continue
        _compare_field(result, field, theirs, data, raw)
    return result


def walk(result: Comparison, con: cs.Construct, ours: Any, theirs: Any, path: str) -> None:
    """Compare a parsed value with the Kaitai object along the declaration (decoded values encoded back)."""
    while isinstance(con, cs.Renamed):
        con = con.subcon
    if isinstance(con, cs.Enum) or not isinstance(con, (cs.Struct, cs.Subconstruct, cs.FocusedSeq)):
        result.value(path, ours, theirs)
    elif isinstance(con, cs.Struct):
        for sub in con.subcons:
            if sub.name is not None and not sub.name.startswith("_"):
                walk(result, sub, ours[sub.name], getattr(theirs, sub.name), f"{path}.{sub.name}".lstrip("."))
    elif isinstance(con, cs.FocusedSeq):
        walk(result, next(s for s in con.subcons if s.name == con.parsebuildfrom), ours, theirs, path)
    elif isinstance(con, (cs.Array, cs.GreedyRange)):
        items = _items(theirs)
        if len(items) != len(ours):
            result.differences.append(f"{path}: {len(ours)} items, Kaitai {len(items)}")
            return
        for index, (mine, other) in enumerate(zip(ours, items, strict=True)):
            walk(result, con.subcon, mine, other, f"{path}[{index}]")
    elif isinstance(con, cs.Adapter):
        walk(result, con.subcon, con._encode(ours, cs.Container(), path), theirs, path)
    elif bit_run(con) is not None:
        walk(result, bit_run(con).fields, ours, theirs, path)  # type: ignore[union-attr]
    else:
        walk(result, con.subcon, ours, theirs, path)


def _compare_field(result: Comparison, field: TracedField, theirs: Any, data: bytes, raw: list[str]) -> None:
    if isinstance(theirs, bytes) and not isinstance(field.value, bytes):
        raw[:] = [field.path + ".", field.path + "["]
        result.value(field.path, data[field.start:field.end], theirs)
    elif field.leaf:
        result.value(field.path, field.value, theirs)
    elif isinstance(field.value, list):
        count = len(_items(theirs))
        result.compared += 1
        if count != len(field.value):
            result.differences.append(f"{field.path}: {len(field.value)} items, Kaitai {count}")


# --- the files -----------------------------------------------------------------------------------------------

def _corpus_files(file_type: FileType) -> list[Path]:
    root = Path(os.environ.get("CHESSFORMATS_CORPUS") or SHARED_ROOT / "corpus") / file_type.format
    if not root.is_dir():
        return []
    return sorted(path for path in root.rglob("*") if path.suffix.lower() in file_type.extensions)


def _kvetka_books(folder: Path) -> list[Path]:
    """Books chessformats writes: with sources, game references and comments, and a plain one."""
    from importlib import resources

    from chessformats import kvetka
    from chessformats.books.build import BookBuilder

    builder = BookBuilder(max_ply=16)
    with resources.as_file(resources.files("chessformats.data") / "example_games.pgn") as games:
        builder.add_pgn(games)
    stats = builder.to_stats()
    after_e4 = chess.Board()
    after_e4.push_san("e4")
    sources = [
        kvetka.KvetkaSource(1, "%currentdirpgn\\games.pgn", (
            kvetka.KvetkaGame(0, 120, "Карпов, А", "Kasparov, G", 2710, 2800, 2),
            kvetka.KvetkaGame(120, 90, "White", "Black", 0, 0, 1))),
        kvetka.KvetkaSource(2, "https://example.org/live", (kvetka.KvetkaGame((2 << 26) | 5, 0, "A", "B", 0, 0, 3),),
                            is_bad=1),
    ]
    kvetka.write_book(folder / "full.kob", stats, caption="example games", sources=sources,
                      references={chess.STARTING_FEN: (0, 1), after_e4.fen(): (1, 0)},
                      openings={chess.STARTING_FEN: "A00|Start", after_e4.fen(): "B00|King's Pawn"})
    kvetka.write_book(folder / "plain.kob", stats, caption="no sources")
    return sorted(folder.glob("*.k*"))


def cases() -> Iterator[Any]:
    for file_type in FILE_TYPES:
        if file_type.format == "kvetka":
            yield pytest.param(file_type, None, id=f"{file_type.id}-written")
            continue
        files = _corpus_files(file_type)
        for path in files:
            marks = [pytest.mark.slow] if path.stat().st_size > BIG else []
            yield pytest.param(file_type, path, id=f"{file_type.id}-{path.name}", marks=marks)
        if not files:
            yield pytest.param(file_type, None, id=f"{file_type.id}-no-corpus")


@pytest.mark.parametrize(("file_type", "path"), list(cases()))
def test_kaitai_parses_like_chessformats(file_type: FileType, path: Path | None,
                                         kaitai_compile: Callable[[str], ModuleType],
                                         tmp_path: Path) -> None:
    if path is None and file_type.format != "kvetka":
        _missing_corpus(file_type)
    module = kaitai_compile(ksy_text(build_model(file_type)))
    paths = [path] if path is not None else [p for p in _kvetka_books(tmp_path)
                                             if p.suffix in file_type.extensions]
    assert paths
    compared = 0
    for one in paths:
        data = one.read_bytes()
        if file_type.id == "kvetka_kob" and not one.stem.endswith("_0"):
            continue  # later .kob files are blocks only
        result = compare(file_type, data, kaitai_parse(module, file_type, data))
        assert result.differences == [], f"{one.name}: {len(result.differences)} differences, first: " \
                                         f"{result.differences[:5]}"
        compared += result.compared
    assert compared > 0


def _missing_corpus(file_type: FileType) -> None:
    message = f"no corpus file for {file_type.id}"
    if os.environ.get("CHESSFORMATS_REQUIRE_CORPUS") == "1":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


# --- the committed files -------------------------------------------------------------------------------------

@pytest.mark.parametrize("file_type", FILE_TYPES, ids=lambda t: t.id)
def test_committed_ksy_is_current(file_type: FileType) -> None:
    committed = KSY_DIR / f"{file_type.id}.ksy"
    assert committed.exists(), f"{committed} missing: run `chessformats export --to kaitai all -o docs/kaitai`"
    assert committed.read_text(encoding="utf-8") == ksy_text(build_model(file_type)), (
        f"{committed} is stale: run `chessformats export --to kaitai all -o docs/kaitai` and commit the result")


def test_no_other_ksy_files() -> None:
    assert sorted(path.stem for path in KSY_DIR.glob("*.ksy")) == sorted(t.id for t in FILE_TYPES)


@pytest.mark.parametrize("file_type", FILE_TYPES, ids=lambda t: t.id)
def test_ksy_text_is_the_specification(file_type: FileType) -> None:
    """The hand-written YAML printer gives what a YAML library reads as the specification."""
    model = build_model(file_type)
    assert yaml.safe_load(ksy_text(model)) == json.loads(json.dumps(ksy(model)), object_hook=_int_keys)


def _int_keys(mapping: dict[str, Any]) -> dict[Any, Any]:
    return {int(key) if key.lstrip("-").isdigit() else {"true": True, "false": False}.get(key, key): value
            for key, value in mapping.items()}


def test_write_kaitai(tmp_path: Path) -> None:
    written = write_kaitai(tmp_path, ["polyglot"])
    assert [path.name for path in written] == ["polyglot_book.ksy"]
    assert written[0].read_text(encoding="utf-8") == (KSY_DIR / "polyglot_book.ksy").read_text(encoding="utf-8")


def test_format_pages_link_their_exports() -> None:
    from chessformats.cli import registry
    from chessformats.codegen.markdown import format_page

    for key in FORMATS:
        page = format_page(registry.get(key).doc)
        for file_type in file_types(key):
            for folder, extension in (("kaitai", "ksy"), ("imhex", "hexpat")):
                assert f"(../{folder}/{file_type.id}.{extension})" in page
                assert (REPO_ROOT / "docs" / folder / f"{file_type.id}.{extension}").is_file()
