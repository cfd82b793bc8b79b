"""One attack implementation in ``src`` (issue 22): a scan of every module's source (``ast``) for what computes
attacks, each allowed only where the kernel keeps it, and an identity check of what the other modules import.

- A *step table* -- a literal of a few small numbers (at most 16, none above 17) holding the shift amounts of a
  knight's jumps (6, 10, 15, 17) or of the eight directions (1, 7, 8, 9): the leapers' shifts and the sliders'
  fills are written in :mod:`chessformats.kernel.attacks` alone; its tables and its side-wide attack map are those
  functions, evaluated.
- python-chess's attack tables and attack methods (``BB_*_ATTACKS``, ``BB_*_MASKS``, ``BB_RAYS``,
  ``attacks_mask``, ``attackers_mask``, ...): read by :mod:`chessformats.kernel.tables` alone, the integer
  tables of the one-position code (:mod:`chessformats.kernel.scalar`, which must not import numpy: a Polyglot
  probe stays quick).
- A function whose name says it computes attacks or pawn pushes (``...attack...``, ``pawn_push...``, ``slides``,
  ``rays``): in those two kernel
  modules, or one of :data:`WRAPPERS`, which pick a side's pieces and call the kernel's.
- Every name of the kernel's attack API imported from a kernel module is :mod:`chessformats.kernel.attacks`'s
  object (the re-exports of :mod:`~chessformats.kernel.batch` and :mod:`~chessformats.kernel.lookup` too).

The scan is checked on the copies this issue removed (it must find them).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import chessformats.kernel.attacks as attacks

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "chessformats"
STEPS = (frozenset({6, 10, 15, 17}), frozenset({1, 7, 8, 9}))
"""The shift amounts of a knight's jumps; of a step in each of the eight directions."""
CHESS_ATTACKS = frozenset({
    "BB_KNIGHT_ATTACKS", "BB_KING_ATTACKS", "BB_PAWN_ATTACKS", "BB_DIAG_ATTACKS", "BB_FILE_ATTACKS",
    "BB_RANK_ATTACKS", "BB_DIAG_MASKS", "BB_FILE_MASKS", "BB_RANK_MASKS", "BB_RAYS", "attacks_mask",
    "attackers_mask", "_attackers_mask", "is_attacked_by", "_slider_blockers", "_attacked_for_king", "pin_mask",
})
NAMED = re.compile(r"attack|pawn_push|^_?slides?$|(^|_)rays?$")
OWNERS = {"step table": {"kernel/attacks.py"}, "python-chess attacks": {"kernel/tables.py"},
          "attack function": {"kernel/attacks.py", "kernel/scalar.py"}}
WRAPPERS = {("formats/chessbase/batch_san.py", "_attackers"), ("books/batchstep.py", "_attackers_of")}
"""Functions that pick a side's pieces and ask the kernel's :func:`~chessformats.kernel.attacks.attacked`."""
API = frozenset(attacks.__all__) - {"SQUARE_BB", "single_square"}


def _numbers(node: ast.AST) -> list[int]:
    """The integers of a literal, signs dropped (``U64(7)``, ``-9`` included)."""
    return [abs(sub.value) for sub in ast.walk(node)
            if isinstance(sub, ast.Constant) and isinstance(sub.value, int) and not isinstance(sub.value, bool)]


def findings(source: str, where: str) -> list[tuple[str, str]]:
    """(rule, what) for each thing in ``source`` (a module at ``where``, relative to the package) that computes
    attacks outside the module that owns it."""
    found = []
    tree = ast.parse(source)
    in_literal = {id(child) for node in ast.walk(tree) if isinstance(node, ast.Tuple | ast.List)
                  for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List) and id(node) not in in_literal:
            numbers = _numbers(node)
            if len(numbers) <= 16 and max(numbers, default=0) <= 17 and any(steps <= set(numbers) for steps in STEPS):
                found.append(("step table", f"line {node.lineno}"))
    for node in ast.walk(tree):
        names = [node.attr] if isinstance(node, ast.Attribute) else [alias.name for alias in node.names] \
            if isinstance(node, ast.ImportFrom) and node.module == "chess" else []
        found += [("python-chess attacks", name) for name in names if name in CHESS_ATTACKS]
        if isinstance(node, ast.FunctionDef) and NAMED.search(node.name) and (where, node.name) not in WRAPPERS:
            found.append(("attack function", node.name))
    return [(rule, what) for rule, what in found if where not in OWNERS[rule]]


def test_attacks_are_computed_in_the_kernel_only() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if hits := findings(path.read_text(encoding="utf-8"), where):
            found[where] = hits
    assert found == {}


def test_the_scan_finds_a_second_copy() -> None:
    """The copies issue 22 removed, as they were written: each is found outside its owner, and not inside."""
    fills = """
_DIRECTIONS = ((8, _ALL), (-8, _ALL), (1, NOT_A), (-1, NOT_H), (9, NOT_A), (7, NOT_H), (-7, NOT_A), (-9, NOT_H))
def _slides(sliders, empty, amount, mask):
    return sliders
"""
    knights = "KNIGHT = [((bb << U64(17)) & NOT_A, (bb << U64(15)) & NOT_H, bb << U64(10), bb << U64(6))]"
    python_chess = "def legal(board, square):\n    return board.attackers_mask(not board.turn, square)\n"
    assert findings(fills, "kernel/batch.py") == [("step table", "line 2"), ("attack function", "_slides")]
    assert findings(knights, "formats/monty/movegen.py") == [("step table", "line 1")]
    assert findings(python_chess, "formats/polyglot/legality.py") == [("python-chess attacks", "attackers_mask")]
    assert findings(fills + knights, "kernel/attacks.py") == []
    pushes = "def pawn_pushes(pawns, empty):\n    return pawns << U64(8) & empty\n"  # (once in batch.py too)
    assert findings(pushes, "kernel/batch.py") == [("attack function", "pawn_pushes")]
    assert findings(pushes, "kernel/attacks.py") == []


def test_every_import_of_the_attack_api_is_the_kernels_object() -> None:
    checked = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        package = ["chessformats", *path.relative_to(PACKAGE).parent.parts]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            module = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            if not module.startswith("chessformats.kernel.") or module == "chessformats.kernel.scalar":
                continue
            for alias in node.names:
                if alias.name in API:
                    assert getattr(importlib.import_module(module), alias.name) is getattr(attacks, alias.name), (
                        path, alias.name)
                    checked.add((module, alias.name))
    assert ("chessformats.kernel.batch", "attacked") in checked  # (the scan sees the users)
