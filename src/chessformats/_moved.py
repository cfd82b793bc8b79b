"""Old import paths of modules that moved, kept working (with a :class:`DeprecationWarning`).

The layout of the package changed (book building moved from ``formats/`` to ``books/``, the format registry
to ``cli/``); code written against the old paths keeps importing them. The alias is made by an import hook
installed by ``chessformats/__init__.py``: the old name is bound to the new module, nothing is copied.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

MOVED = {
    "chessformats.formats.bookbuild": "chessformats.books.build",
    "chessformats.formats.bookstats": "chessformats.books.stats",
    "chessformats.formats.batchplay": "chessformats.books.batchplay",
    "chessformats.formats.pgnscan": "chessformats.books.pgnscan",
    "chessformats.formats.registry": "chessformats.cli.registry",
}
"""Old module name -> new module name."""


class _Alias:
    """A meta path finder and loader (duck-typed: ``importlib.abc`` costs start-up time)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", self))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} moved to {MOVED[spec.name]}", DeprecationWarning, stacklevel=2)
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, already executed."""


def install() -> None:
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
