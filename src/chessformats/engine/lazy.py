"""Packages whose names are imported on first use (PEP 562), so that a quick command pays only for what it uses.

>>> __getattr__, __dir__ = lazy_exports(__name__, {"read": ("open_book",)})   # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: Mapping[str, tuple[str, ...]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package`` that import ``where[module]``'s names from
    ``package.module`` (or a relative name such as ``..zobrist``) when first asked for, then bind them on the
    package so that later lookups are plain."""
    module_of = {name: module for module, names in where.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module if module.startswith(".") else f".{module}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(module_of))

    return __getattr__, __dir__
