"""A language-neutral model of a declaration, for the exporters to other tools (Kaitai Struct, ImHex).

:class:`~.builder.Builder` walks a construct declaration (the same one the readers parse with) and turns it into
named types, fields and enums: integers with their width, sign and byte order, bit fields of a run with its
bit order, byte strings, sub-structures, arrays (counted, to the end, or up to a terminator), optional
fields and tagged unions, with the one-line meaning of every field and value. Sizes, counts and conditions
that construct holds as ``this`` expressions become :class:`Expr` trees; context functions (Python
lambdas, which no other tool can run) are looked up in the exporter's table of equivalent expressions.
What no such tool can express (a prefix code, bit fields whose widths depend on the data) is kept at the
byte level and the field's :attr:`Field.note` says so. The emitters (:mod:`.kaitai`, :mod:`.imhex`) only
print the model.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Bin",
    "Cond",
    "EnumConst",
    "EnumDef",
    "Expr",
    "Field",
    "Io",
    "Model",
    "NotExpressible",
    "Num",
    "Path",
    "Ref",
    "Spec",
    "TypeDef",
    "identifier",
]


class NotExpressible(ValueError):
    """A declaration (or a context function) the exporters cannot translate."""


# --- expressions ----------------------------------------------------------------------------------------

class Expr:
    """An expression over the fields parsed so far; arithmetic operators build :class:`Bin` nodes."""

    def _bin(self, op: str, other: Any, *, right: bool = False) -> Bin:
        other = lift(other)
        return Bin(op, other, self) if right else Bin(op, self, other)

    def __add__(self, other: Any) -> Bin:
        return self._bin("+", other)

    def __radd__(self, other: Any) -> Bin:
        return self._bin("+", other, right=True)

    def __sub__(self, other: Any) -> Bin:
        return self._bin("-", other)

    def __rsub__(self, other: Any) -> Bin:
        return self._bin("-", other, right=True)

    def __mul__(self, other: Any) -> Bin:
        return self._bin("*", other)

    def __rmul__(self, other: Any) -> Bin:
        return self._bin("*", other, right=True)

    def __floordiv__(self, other: Any) -> Bin:
        return self._bin("/", other)

    def __mod__(self, other: Any) -> Bin:
        return self._bin("%", other)


@dataclass(frozen=True, eq=False)
class Num(Expr):
    value: int | bool


@dataclass(frozen=True, eq=False)
class Ref(Expr):
    """A field named by construct's context: ``up`` enclosing structures out (``this._``), or from the root."""

    names: tuple[str, ...]
    up: int = 0
    root: bool = False


@dataclass(frozen=True, eq=False)
class Path(Expr):
    """A resolved reference: ``parents`` levels up in the exported types (``root``: from the top type)."""

    names: tuple[str, ...]
    parents: int = 0
    root: bool = False
    scopes: int = 0
    """Declared structures up to the one holding the field, the top one for ``root`` (tools where the types
    that give an array its size do not exist, and tools without a root keyword, count these)."""
    value: bool = False
    """The field is a custom leaf type (a variable-length integer): its decoded ``value`` is meant."""
    enum: bool = False
    """The field is an enum: arithmetic and comparisons with numbers need its integer."""


@dataclass(frozen=True, eq=False)
class Bin(Expr):
    """``lhs op rhs``; ``op`` is one of ``+ - * / % == != < <= > >= and or`` (``/`` divides integers)."""

    op: str
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True, eq=False)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True, eq=False)
class Cond(Expr):
    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, eq=False)
class EnumConst(Expr):
    """A member of an enum; ``member`` is the declaration's name until resolved, then the exported one."""

    enum: str
    member: str


@dataclass(frozen=True, eq=False)
class Str(Expr):
    """A string operand of a comparison; it must compare with an enum field (it names a member)."""

    text: str


@dataclass(frozen=True, eq=False)
class Io(Expr):
    """A property of the stream of the current type: ``eof``, ``pos`` or ``size``."""

    what: str


def lift(value: Any) -> Expr:
    if isinstance(value, Expr):
        return value
    if isinstance(value, (bool, int)):
        return Num(value)
    if isinstance(value, str):
        return Str(value)
    raise NotExpressible(f"not an expression: {value!r}")


def ref(*names: str, up: int = 0) -> Ref:
    return Ref(tuple(names), up)


def root(*names: str) -> Ref:
    return Ref(tuple(names), 0, True)


def eq(lhs: Any, rhs: Any) -> Bin:
    return Bin("==", lift(lhs), lift(rhs))


def both(lhs: Any, rhs: Any) -> Bin:
    return Bin("and", lift(lhs), lift(rhs))


# --- the model --------------------------------------------------------------------------------------------

@dataclass
class Spec:
    """What a field is made of.

    ``kind``: ``int`` (``width`` bytes, ``signed``, ``endian``; ``float`` for IEEE numbers), ``bits`` (``width``
    bits of a bit run), ``flag`` (one bit), ``bytes``, ``struct``/``custom`` (the type ``type``), or ``switch``
    (``cases`` chosen by ``on``).
    """

    kind: str
    width: int = 0
    signed: bool = False
    endian: str = "be"
    float: bool = False
    type: str = ""
    enum: str | None = None
    on: Expr | None = None
    cases: dict[int | bool, Spec] = field(default_factory=dict)


@dataclass
class Field:
    name: str
    doc: str
    spec: Spec
    size: Expr | None = None
    """Bytes of the field (a byte string) or of the substream its type is read from."""
    size_eos: bool = False
    repeat: str | None = None
    """``expr`` (``count`` items), ``eos`` (to the end of the stream) or ``until_zero`` (see ``until_bytes``)."""
    count: Expr | None = None
    until_bytes: int = 0
    """For ``until_zero``: items are read while the next this-many bytes are not all zero."""
    condition: Expr | None = None
    valid: int | None = None
    contents: bytes | None = None
    note: str = ""
    """Why the field is exported at the byte level (empty when it is not)."""


@dataclass
class TypeDef:
    name: str
    doc: str
    fields: list[Field] = field(default_factory=list)
    bit_endian: str | None = None
    """For a bit run: ``be`` (fields from the first byte's most significant bit) or ``le``."""
    wrapper: bool = False
    """A type made only to give an array a total size in bytes (its one field is ``items``)."""
    size: int | None = None


@dataclass
class EnumDef:
    name: str
    width: int
    """Bytes (or, for bit fields, ``-bits``) of the integer it is read from."""
    members: list[tuple[int, str, str, str]]
    """``(value, exported id, declared name, meaning)``."""

    def exported(self, declared: str) -> str:
        for _, ident, name, _ in self.members:
            if name == declared:
                return ident
        raise NotExpressible(f"enum {self.name} has no member {declared!r}")


@dataclass
class Model:
    id: str
    title: str
    doc: str
    extensions: tuple[str, ...]
    endian: str
    top: TypeDef
    types: dict[str, TypeDef]
    enums: dict[str, EnumDef]
    doc_ref: str = ""
    sources: dict[int, str] = field(default_factory=dict)
    """``id(declaration)`` of each construct structure -> the exported type made of it."""


_IDENT = re.compile(r"[^a-z0-9_]+")

RESERVED = frozenset({
    "true", "false", "null", "this", "parent", "struct", "union", "enum", "bitfield", "fn", "if", "else", "match",
    "while", "for", "return", "break", "continue", "padding", "using", "import", "namespace", "be", "le", "ref",
    "auto", "const", "in", "out", "addressof", "sizeof", "typenameof", "str", "char", "char16", "bool", "float",
    "double", *(f"{sign}{bits}" for sign in "us" for bits in (8, 16, 24, 32, 48, 64, 96, 128)),
})
"""Words no exported identifier may be: keywords and built-in types of Kaitai Struct expressions and of the
ImHex pattern language (Python's keywords are refused too, for the Python code Kaitai generates)."""


def identifier(name: str, taken: set[str] | None = None) -> str:
    """A lower-case identifier for ``name`` (``king_O-O`` -> ``king_o_o``), not a keyword, not in ``taken``."""
    ident = _IDENT.sub("_", name.lower()).strip("_") or "value"
    if ident[0].isdigit():
        ident = f"v{ident}"
    if keyword.iskeyword(ident) or ident in RESERVED:
        ident += "_"
    if taken is not None:
        base, number = ident, 2
        while ident in taken:
            ident, number = f"{base}_{number}", number + 1
        taken.add(ident)
    return ident
