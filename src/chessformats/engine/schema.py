"""Declaration helpers shared by every schema module.

A schema field is written the construct way, with its one-line meaning as the docstring::

    "weight" / Int16ub * "how often the move should be played, relative to the other moves"

Enumerations carry a meaning per value with :func:`MeaningEnum`. :func:`type_name` names a construct's
wire type for documentation and the hex view; :func:`unwrap` sees through the construct wrappers that do
not change the bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import construct as cs

__all__ = [
    "Example",
    "FormatDoc",
    "MeaningEnum",
    "Structure",
    "enum_meanings",
    "is_bitwise",
    "strip_renamed",
    "type_name",
    "unwrap",
]


class MeaningEnum(cs.Enum):  # type: ignore[misc]
    """An ``Enum`` whose every value has a name and a one-line meaning.

    ``members`` maps ``name -> (value, meaning)``. Parsing gives the name (as construct's ``Enum``
    does); values outside the table parse as plain integers and are for the format layer to judge.
    """

    def __init__(self, subcon: cs.Construct, members: Mapping[str, tuple[int, str]]) -> None:
        super().__init__(subcon, **{name: value for name, (value, _) in members.items()})
        self.meanings: dict[int, tuple[str, str]] = {
            value: (name, meaning) for name, (value, meaning) in members.items()
        }


def enum_meanings(con: cs.Construct) -> dict[int, tuple[str, str]] | None:
    """The ``value -> (name, meaning)`` table of a (possibly renamed) :class:`MeaningEnum`."""
    con = unwrap(con, keep_enum=True)
    return con.meanings if isinstance(con, MeaningEnum) else None


def unwrap(con: cs.Construct, *, keep_enum: bool = False) -> cs.Construct:
    """Strip ``Renamed`` (and, unless ``keep_enum``, enum adapters) to reach the wire construct."""
    while True:
        if isinstance(con, cs.Renamed):
            con = con.subcon
        elif not keep_enum and isinstance(con, cs.Enum):
            con = con.subcon
        else:
            return con


def strip_renamed(con: cs.Construct) -> tuple[cs.Construct, str, str]:
    """See through a chain of ``Renamed`` (``"name" / X * "meaning"`` makes two): (inner, name, meaning).

    The outermost non-empty name and meaning win.
    """
    name, meaning = "", ""
    while isinstance(con, cs.Renamed):
        name = name or (con.name or "")
        meaning = meaning or field_meaning(con)
        con = con.subcon
    return con, name, meaning


def is_bitwise(con: cs.Construct) -> bool:
    """True for ``Bitwise(...)``/``BitStruct(...)``: a byte-aligned run parsed as a bit stream."""
    return isinstance(con, (cs.Transformed, cs.Restreamed)) and getattr(con, "decodefunc", None) is cs.bytes2bits


_FORMAT_NAMES = {"B": "u8", "H": "u16", "L": "u32", "Q": "u64", "b": "i8", "h": "i16", "l": "i32", "q": "i64",
                 "e": "f16", "f": "f32", "d": "f64", "I": "u32", "i": "i32"}


def type_name(con: cs.Construct) -> str:
    """A short wire-type name: ``u64 BE``, ``u24 LE``, ``u3``, ``bytes[16]``, ``struct``..."""
    inner = unwrap(con)
    if isinstance(inner, cs.FormatField):
        order, code = str(inner.fmtstr[0]), str(inner.fmtstr[1:])
        base = _FORMAT_NAMES.get(code, code)
        if base.endswith("8"):
            return base
        return f"{base} {'LE' if order == '<' else 'BE'}"
    if isinstance(inner, cs.BytesInteger):
        size = inner.length if isinstance(inner.length, int) else "?"
        sign = "i" if inner.signed else "u"
        return f"{sign}{8 * size if isinstance(size, int) else size} {'LE' if inner.swapped else 'BE'}"
    if isinstance(inner, cs.BitsInteger):
        length = inner.length if isinstance(inner.length, int) else "?"
        return f"{'i' if inner.signed else 'u'}{length} (bits)"
    if isinstance(inner, cs.Bytes):
        return f"bytes[{inner.length if isinstance(inner.length, int) else 'n'}]"
    if isinstance(inner, cs.Const):
        return type_name(inner.subcon)
    if is_bitwise(inner):
        return "bits"
    if isinstance(inner, cs.Struct):
        return "struct"
    if isinstance(inner, cs.Array):
        count = inner.count if isinstance(inner.count, int) else "n"
        return f"{type_name(inner.subcon)}[{count}]"
    if isinstance(inner, cs.GreedyRange):
        return f"{type_name(inner.subcon)}[] (to the end)"
    if isinstance(inner, (cs.Adapter, cs.Subconstruct)) and hasattr(inner, "subcon"):
        described = getattr(inner, "type_label", None)
        return str(described) if described else type_name(inner.subcon)
    return type(inner).__name__


def field_meaning(con: cs.Construct) -> str:
    """The one-line meaning given as the field's docstring (empty when none)."""
    docs: Any = getattr(con, "docs", "")
    return str(docs or "").strip()


class Structure(NamedTuple):
    """A structure of a format, for the generated documentation."""

    title: str
    declaration: cs.Construct
    description: str


class Example(NamedTuple):
    """Real bytes of one record with their source, for the worked example in the documentation."""

    structure: cs.Construct
    data: bytes
    source: str


class FormatDoc(NamedTuple):
    """What the documentation generator needs to know about a format beyond its declarations."""

    key: str
    title: str
    extensions: tuple[str, ...]
    summary: str
    structures: tuple[Structure, ...]
    notes: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()
    references: tuple[str, ...] = ()
