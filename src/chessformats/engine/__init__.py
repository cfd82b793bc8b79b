"""Format-agnostic machinery: errors, tracing, layouts, bulk paths, round-trip helpers.

The names below are imported on first use (PEP 562): importing ``chessformats.engine.errors`` (which every
reader does) must not pull the codec compiler and numpy into a quick command's start-up.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from .lazy import lazy_exports

if TYPE_CHECKING:
    from .codec import Codec, Field, codec
    from .errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
    from .layout import BitField, LayoutField, bit_fields, describe, numpy_dtype, pack_bits, unpack_bits
    from .records import record_array
    from .schema import EnumView, MeaningEnum, enum_meanings, enum_view, type_name
    from .trace import Span, TracedField, parse, trace

__all__ = [
    "BitField",
    "Codec",
    "EnumView",
    "Field",
    "FormatError",
    "InvalidValueError",
    "LayoutField",
    "MeaningEnum",
    "Span",
    "TracedField",
    "TruncatedError",
    "UnsupportedError",
    "bit_fields",
    "codec",
    "describe",
    "enum_meanings",
    "enum_view",
    "numpy_dtype",
    "pack_bits",
    "parse",
    "record_array",
    "trace",
    "type_name",
    "unpack_bits",
]

_WHERE = {
    "codec": ("Codec", "Field", "codec"),
    "errors": ("FormatError", "InvalidValueError", "TruncatedError", "UnsupportedError"),
    "layout": ("BitField", "LayoutField", "bit_fields", "describe", "numpy_dtype", "pack_bits", "unpack_bits"),
    "records": ("record_array",),
    "schema": ("EnumView", "MeaningEnum", "enum_meanings", "enum_view", "type_name"),
    "trace": ("Span", "TracedField", "parse", "trace"),
}
_SHADOWED = frozenset(_WHERE) & frozenset(name for names in _WHERE.values() for name in names)
"""Names that are both a submodule and a function of it (``codec``, ``trace``): the package attribute is the
function, as it was when this package imported everything eagerly."""

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        # importing a submodule binds it on its package: keep the function of the same name instead
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
