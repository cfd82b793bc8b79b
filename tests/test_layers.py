"""The package's layers, checked from the source with ``ast``: imports go downwards only, no import circle,
no format package imports another, no module over 600 lines; and the picture of the layers in
``docs/architecture.md`` is the one the source gives.

Layers, lowest first: engine < schemas < kernel < formats < books < codegen < cli < the public facades
(``chessformats/polyglot.py``, ``ctg.py``, ... and the package's ``__init__``). Every import counts, at module
level or inside a function (a lazy import is still a dependency), ``TYPE_CHECKING`` blocks included.

Run ``python tests/test_layers.py`` to rewrite the picture in ``docs/architecture.md``.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "chessformats"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
LAYERS = ("engine", "schemas", "kernel", "formats", "books", "codegen", "cli", "api")
FORMAT_PACKAGES = ("chessbase", "ctg", "kvetka", "monty", "polyglot")
MAX_LINES = 600
BEGIN, END = "<!-- import graph: begin (python tests/test_layers.py) -->", "<!-- import graph: end -->"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports (``from x import y`` counts ``x.y`` when it is a module)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from package import module`` depends on the module; ``from module import name`` on the module
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                       for alias in node.names]
        for target in targets:
            # the deepest known module the target names (``chessformats.formats.ctg.read`` or its package)
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith("chessformats"):
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def layer(name: str) -> str:
    if name == "chessformats._version":  # imports nothing; every layer may read the version
        return "engine"
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return parts[1]
    return "api"  # chessformats, chessformats.polyglot (facades), chessformats._moved, chessformats.data


def format_package(name: str) -> str | None:
    parts = name.split(".")
    if len(parts) >= 3 and parts[1] == "formats" and parts[2] in FORMAT_PACKAGES:
        return parts[2]
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


# --- the checks ---------------------------------------------------------------------------------------------

EDGES = graph()


def test_the_walk_sees_real_imports() -> None:
    """The checker itself: it finds imports that are known to exist (a walk that saw nothing would pass)."""
    assert "chessformats.engine.errors" in EDGES["chessformats.cli.main"]
    assert any(target.startswith("chessformats.schemas") for target in EDGES["chessformats.formats.zobrist"])
    assert layer("chessformats.formats.zobrist") == "formats" and layer("chessformats.ctg") == "api"
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_go_downwards_only() -> None:
    upward = sorted(
        f"{name} ({layer(name)}) imports {target} ({layer(target)})"
        for name, targets in EDGES.items() for target in targets
        if LAYERS.index(layer(target)) > LAYERS.index(layer(name))
    )
    assert upward == []


def test_no_format_imports_another_format() -> None:
    crossing = sorted(
        f"{name} imports {target}"
        for name, targets in EDGES.items() for target in targets
        if format_package(name) and format_package(target) and format_package(name) != format_package(target)
    )
    assert crossing == []


def test_no_import_circle() -> None:
    # a package's __init__ re-exporting its own submodules is not a circle of the design: a package and its
    # modules form one unit, so edges from a package to its own submodules are left out
    edges = {name: {t for t in targets if not t.startswith(name + ".")} for name, targets in EDGES.items()}
    assert cycles(edges) == []


def test_the_kernel_stands_on_the_engine_numpy_and_python_chess_only() -> None:
    """The chess kernel (one board model for every format) imports no schema, no format: only the engine, and of
    the outside world numpy and python-chess."""
    inside = sorted(f"{name} imports {target}" for name, targets in EDGES.items() if layer(name) == "kernel"
                    for target in targets if layer(target) not in ("engine", "kernel"))
    assert inside == []
    outside = set()
    for name, path in modules().items():
        if layer(name) != "kernel":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                outside |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                outside.add(node.module.split(".")[0])
    assert outside - {"chess", "numpy", "__future__", "collections", "functools", "typing"} == set()


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_over_600_lines(name: str) -> None:
    lines = modules()[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name}: {lines} lines"


# --- the picture ----------------------------------------------------------------------------------------------

def unit(name: str) -> str:
    """What the picture shows a module as: its layer, or for formats its package or shared module."""
    parts = name.split(".")
    if layer(name) == "formats" and len(parts) >= 3:
        return f"formats.{parts[2]}"
    return layer(name)


def mermaid() -> str:
    edges: dict[str, set[str]] = defaultdict(set)
    for name, targets in EDGES.items():
        for target in targets:
            if unit(name) != unit(target):
                edges[unit(name)].add(unit(target))
    units = sorted({unit(name) for name in EDGES}, key=lambda u: (LAYERS.index(u.split(".")[0]), u))
    lines = ["```mermaid", "flowchart BT"]
    for layer_name in LAYERS:
        members = [u for u in units if u.split(".")[0] == layer_name]
        if not members:
            continue
        title = "api: chessformats.polyglot, .ctg, ... (facades)" if layer_name == "api" else layer_name
        lines.append(f'  subgraph {layer_name}_layer["{title}"]')
        lines.extend(f'    {u.replace(".", "_")}["{u}"]' for u in members)
        lines.append("  end")
    for source in units:
        for target in sorted(edges[source], key=units.index):
            lines.append(f"  {source.replace('.', '_')} --> {target.replace('.', '_')}")
    lines.append("```")
    return "\n".join(lines)


def current_picture() -> str | None:
    text = ARCHITECTURE.read_text(encoding="utf-8") if ARCHITECTURE.exists() else ""
    if BEGIN not in text or END not in text:
        return None
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def test_architecture_picture_is_current() -> None:
    assert current_picture() == mermaid(), "run: python tests/test_layers.py"


if __name__ == "__main__":
    text = ARCHITECTURE.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    ARCHITECTURE.write_text(f"{head}{BEGIN}\n{mermaid()}\n{END}{tail}", encoding="utf-8")
    print(f"wrote the import graph into {ARCHITECTURE}")
