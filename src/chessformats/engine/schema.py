"""Declaration helpers shared by every schema module.

A schema field is written the construct way, with its one-line meaning as the docstring::

    "weight" / Int16ub * "how often the move should be played, relative to the other moves"

Enumerations carry a meaning per value with :func:`MeaningEnum`. :func:`type_name` names a construct's
wire type for documentation and the hex view; :func:`unwrap` sees through the construct wrappers that do
not change the bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import construct as cs

__all__ = [
    "BitsLeft",
    "BitsUnsigned",
    "EnumView",
    "Example",
    "FormatDoc",
    "MeaningEnum",
    "Structure",
    "bitwise_rest",
    "enum_meanings",
    "enum_view",
    "extension_map",
    "is_bitwise",
    "member",
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


class EnumView(NamedTuple):
    """An enumeration seen three ways, derived from its declaration (so format code never re-types it)."""

    names: dict[int, str]
    """value -> name"""
    values: dict[str, int]
    """name -> value"""
    meanings: dict[int, str]
    """value -> one-line meaning (empty strings for a plain construct ``Enum``)"""


def enum_view(con: cs.Construct) -> EnumView:
    """The :class:`EnumView` of a (possibly renamed) ``Enum`` or :class:`MeaningEnum` declaration."""
    enum = unwrap(con, keep_enum=True)
    if not isinstance(enum, cs.Enum):
        raise TypeError(f"{con!r} is not an enumeration")
    meanings = enum.meanings if isinstance(enum, MeaningEnum) else {}
    names = {int(value): str(name) for value, name in enum.decmapping.items()}
    return EnumView(names, {name: value for value, name in names.items()},
                    {value: meanings.get(value, (name, ""))[1] for value, name in names.items()})


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


def member(struct: cs.Construct, name: str) -> cs.Construct:
    """The declaration of field ``name`` of a struct (its name and meaning stripped)."""
    for sub in unwrap(struct).subcons:
        inner, found, _ = strip_renamed(sub)
        if found == name:
            return inner
    raise KeyError(f"no field {name!r}")


def is_bitwise(con: cs.Construct) -> bool:
    """True for ``Bitwise(...)``/``BitStruct(...)``/:func:`bitwise_rest`: bytes parsed as a bit stream."""
    if isinstance(con, cs.Restreamed):  # construct's Bitwise over a subcon without a fixed size
        return getattr(con, "decoder", None) is cs.bytes2bits
    return isinstance(con, cs.Transformed) and getattr(con, "decodefunc", None) is cs.bytes2bits


def bitwise_rest(subcon: cs.Construct) -> cs.Construct:
    """``Bitwise(subcon)`` over all the bytes left in the stream: a bit run whose width the data decides.

    Wrap it in ``FixedSized(length, ...)`` to give the run its length in bytes (``subcon`` must use
    every bit of it: build writes ``8 * length`` bits).
    """
    return cs.Transformed(subcon, cs.bytes2bits, None, cs.bits2bytes, None)


class BitsUnsigned(cs.Construct):  # type: ignore[misc]
    """An unsigned integer of ``length`` bits in a bit stream, where ``length`` may be 0 or come from the context.

    (construct's ``BitsInteger`` refuses width 0, which padding of a variable width needs.) Parses to 0
    for width 0; a negative width is an error.
    """

    def __init__(self, length: int | Any) -> None:
        super().__init__()
        self.length = length
        self.type_label = f"u{length} (bits)" if isinstance(length, int) else "uN (bits, N from the data)"

    def _width(self, context: Any, path: str) -> int:
        width = cs.evaluate(self.length, context)
        if not isinstance(width, int) or width < 0:
            raise cs.ExplicitError(f"invalid bit width {width!r}", path=path)
        return width

    def _parse(self, stream: Any, context: Any, path: str) -> int:
        width = self._width(context, path)
        return cs.bits2integer(cs.stream_read(stream, width, path)) if width else 0

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        width = self._width(context, path)
        if not isinstance(obj, int) or not 0 <= obj < 1 << width:
            raise cs.ExplicitError(f"{obj!r} does not fit in {width} bits", path=path)
        if width:
            cs.stream_write(stream, cs.integer2bits(obj, width), width, path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        return self._width(context, path)


class BitsLeft:
    """The width of a :class:`BitsUnsigned` that takes every bit left in its region (the padding in a
    ``FixedSized(n, bitwise_rest(...))``), but ``reserve`` (a construct expression: the bits of the fields after
    it): construct computes it with ``width(ctx)``, the declaration's own function; the generated codecs read
    it as the bits the run has left less the reserve."""

    def __init__(self, width: Any, reserve: Any = None) -> None:
        self.width = width
        self.reserve = reserve

    def __call__(self, ctx: Any) -> int:
        return int(self.width(ctx))


_FORMAT_NAMES = {"B": "u8", "H": "u16", "L": "u32", "Q": "u64", "b": "i8", "h": "i16", "l": "i32", "q": "i64",
                 "e": "f16", "f": "f32", "d": "f64", "I": "u32", "i": "i32"}


def type_name(con: cs.Construct) -> str:
    """A short wire-type name: ``u64 BE``, ``u24 LE``, ``u3``, ``bytes[16]``, ``struct``..."""
    inner = unwrap(con)
    label = getattr(inner, "type_label", None)
    if label and not isinstance(inner, (cs.Adapter, cs.Subconstruct)):
        return str(label)
    if isinstance(inner, cs.IfThenElse):
        if inner.elsesubcon is cs.Pass:
            return f"{type_name(inner.thensubcon)}, optional"
        return f"{type_name(inner.thensubcon)} or {type_name(inner.elsesubcon)}"
    if isinstance(inner, cs.FixedSized):
        size = inner.length if isinstance(inner.length, int) else "n"
        return f"{type_name(inner.subcon)} in bytes[{size}]" if not is_bitwise(inner.subcon) else "bits"
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


def extension_map(docs: Iterable[FormatDoc]) -> dict[str, str]:
    """File extension -> format key, from the formats' :class:`FormatDoc` declarations (first one wins)."""
    result: dict[str, str] = {}
    for doc in docs:
        for extension in doc.extensions:
            result.setdefault(extension.lower(), doc.key)
    return result


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
