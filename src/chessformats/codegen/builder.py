"""Building a :class:`~.binmodel.Model`'s types, fields and enums from construct declarations."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import construct as cs
from construct import expr as csexpr

from ..engine.bitruns import bit_run
from ..engine.prefixcode import PrefixCoded
from ..engine.schema import BitsUnsigned, MeaningEnum, strip_renamed
from ..engine.tagged import TaggedUnion
from .binmodel import (
    Bin,
    Cond,
    EnumConst,
    EnumDef,
    Expr,
    Field,
    Io,
    Not,
    NotExpressible,
    Num,
    Path,
    Ref,
    Spec,
    Str,
    TypeDef,
    both,
    identifier,
)

__all__ = ["Builder", "FieldsThatFit", "unwrap_struct"]


@dataclass
class _Scope:
    struct: cs.Construct | None
    """The construct structure whose fields ``this`` names (None for a wrapper type)."""
    fields: list[Field]


_FLAG = type(cs.Flag)  # construct binds the name Flag to its one instance

_FORMAT_WIDTHS = {"B": 1, "H": 2, "L": 4, "I": 4, "Q": 8, "b": 1, "h": 2, "l": 4, "i": 4, "q": 8, "e": 2, "f": 4,
                  "d": 8}


class Builder:
    """Turns declarations into a :class:`Model`'s types and enums.

    ``names`` maps ``id(declaration)`` to a preferred type or enum name (the schema's constant names);
    ``functions`` maps a context function of the declarations to an equivalent :class:`Expr` (or to a
    callable returning the repeat rule of a ``GreedyRange`` it guards, see :meth:`_greedy`); ``custom`` maps
    construct classes (a variable-length integer) to the name of a custom type the emitters define.
    """

    def __init__(self, names: Mapping[int, str], functions: Mapping[Any, Any],
                 custom: Mapping[type, str] | None = None, docs: Mapping[int, str] | None = None) -> None:
        self.names = names
        self.docs = docs or {}
        self.functions = functions
        self.custom = dict(custom or {})
        self.types: dict[str, TypeDef] = {}
        self.enums: dict[str, EnumDef] = {}
        self._type_ids: dict[int, str] = {}
        self._enum_ids: dict[int, str] = {}
        self._scopes: list[_Scope] = []
        self.used_custom: set[str] = set()

    @property
    def sources(self) -> dict[int, str]:
        """``id(declaration)`` of every construct structure exported so far -> its type's name."""
        return dict(self._type_ids)

    # -- types

    def top(self, name: str, doc: str, declaration: cs.Construct) -> TypeDef:
        inner, _, _ = strip_renamed(declaration)
        if not isinstance(inner, cs.Struct):
            raise NotExpressible("the top declaration must be a Struct")
        self._type_ids[id(inner)] = name
        typedef = TypeDef(name, doc)
        self._fill(typedef, inner, bit_endian=None)
        return typedef

    def _type_name(self, con: cs.Construct, hint: str) -> str:
        preferred = self.names.get(id(con)) or hint
        taken = set(self.types) | set(self._type_ids.values())
        return identifier(preferred, taken)

    def struct_type(self, con: cs.Construct, hint: str, doc: str = "") -> str:
        """The exported type of the ``Struct`` (or bit run) ``con``, made on first use."""
        known = self._type_ids.get(id(con))
        if known is not None:
            return known
        name = self._type_name(con, hint)
        self._type_ids[id(con)] = name
        typedef = TypeDef(name, self.docs.get(id(con)) or doc)
        self.types[name] = typedef
        run = bit_run(con)
        if run is not None:
            if run.size is None or not _plain_bits(run.fields):
                raise NotExpressible(f"bit run {hint} with data-dependent fields")
            self._fill(typedef, unwrap_struct(run.fields), bit_endian="le" if run.little_endian else "be")
            typedef.size = run.size
        else:
            self._fill(typedef, unwrap_struct(con), bit_endian=None)
        return name

    def _fill(self, typedef: TypeDef, struct: cs.Struct, *, bit_endian: str | None) -> None:
        typedef.bit_endian = bit_endian
        self._scopes.append(_Scope(struct, typedef.fields))
        try:
            subcons = list(struct.subcons)
            if bit_endian == "le":  # fields are declared from the integer's top bit; read from its bottom bit
                subcons.reverse()
            for sub in subcons:
                typedef.fields.append(self.field(sub, bits=bit_endian is not None))
        finally:
            self._scopes.pop()
        if bit_endian is None:
            try:
                typedef.size = int(struct.sizeof())
            except Exception:
                typedef.size = None

    def wrapper(self, hint: str, item: cs.Construct, doc: str) -> str:
        """A type holding one array (``items``), so that the array can be given a size in bytes."""
        name = identifier(f"{hint}_region", set(self.types) | set(self._type_ids.values()))
        typedef = TypeDef(name, f"`{hint}` in a region of the size the field gives: the items, one after the other",
                          wrapper=True)
        self.types[name] = typedef
        self._scopes.append(_Scope(None, typedef.fields))
        try:
            typedef.fields.append(self._translate(item, "items", doc, bits=False))
        finally:
            self._scopes.pop()
        return name

    # -- fields

    def field(self, con: cs.Construct, *, bits: bool = False) -> Field:
        inner, name, meaning = strip_renamed(con)
        if not name:
            raise NotExpressible(f"unnamed field {con!r}")
        return self._translate(inner, name, meaning, bits=bits)

    def _translate(self, con: cs.Construct, name: str, doc: str, *, bits: bool) -> Field:
        while isinstance(con, (cs.Renamed, cs.Default)):  # a Default is a value for writers: read as its field
            con = con.subcon
        if isinstance(con, MeaningEnum):
            result = self._translate(con.subcon, name, doc, bits=bits)
            result.spec.enum = self.enum(con, name)
            return result
        custom = self.custom.get(type(con))
        if custom is not None:
            self.used_custom.add(custom)
            return Field(name, doc, Spec("custom", type=custom))
        if bits:
            return Field(name, doc, self._bit_spec(con, name))
        if isinstance(con, cs.FormatField):
            code = con.fmtstr[1:]
            return Field(name, doc, Spec("int", _FORMAT_WIDTHS[code], code.islower() and code not in "efd",
                                         "le" if con.fmtstr[0] == "<" else "be", float=code in "efd"))
        if isinstance(con, cs.BytesInteger) and isinstance(con.length, int):
            endian = "le" if con.swapped else "be"
            if con.length in (1, 2, 4, 8):
                return Field(name, doc, Spec("int", con.length, con.signed, endian))
            if con.signed:
                raise NotExpressible(f"{name}: a signed {8 * con.length}-bit integer")
            return Field(name, doc, Spec("bits", 8 * con.length, endian=endian))
        if isinstance(con, cs.Bytes):
            return Field(name, doc, Spec("bytes"), size=self.expr(con.length))
        if con is cs.GreedyBytes:
            return Field(name, doc, Spec("bytes"), size_eos=True)
        if isinstance(con, cs.Const):
            result = self._translate(con.subcon, name, doc, bits=bits)
            if result.spec.kind == "bytes":
                result.contents = bytes(con.value)
            else:
                result.valid = int(con.value)
            return result
        if isinstance(con, TaggedUnion):
            return self._union(con, name, doc)
        if isinstance(con, cs.FixedSized):
            return self._fixed(con, name, doc)
        if isinstance(con, cs.IfThenElse):
            return self._optional(con, name, doc)
        if isinstance(con, cs.Array):
            result = self._translate(con.subcon, name, doc, bits=False)
            if result.repeat is not None:
                raise NotExpressible(f"{name}: an array of arrays")
            result.repeat, result.count = "expr", self.expr(con.count)
            return result
        if isinstance(con, cs.GreedyRange):
            return self._greedy(con, name, doc)
        if bit_run(con) is not None or isinstance(con, cs.Struct):
            return Field(name, doc, Spec("struct", type=self.struct_type(con, name)))
        if isinstance(con, (cs.Adapter, cs.Transformed)) and isinstance(con.subcon, cs.Construct):
            return self._translate(con.subcon, name, doc, bits=bits)
        if isinstance(con, FieldsThatFit):
            return Field(name, doc, Spec("struct", type=self._fits(con, name)))
        raise NotExpressible(f"{name}: {type(con).__name__} has no equivalent")

    def _fits(self, con: FieldsThatFit, name: str) -> str:
        """The full record's fields, each present when the region reaches its end, then the rest as bytes."""
        full = con.make(None)
        typename = self.struct_type(full, name)
        typedef = self.types[typename]
        end = 0
        for item, sub in zip(typedef.fields, full.subcons, strict=True):
            end += int(sub.sizeof())
            item.condition = Bin(">=", Io("size"), Num(end))
        _, extra_name, extra_doc = strip_renamed(con.make(end + 1).subcons[-1])
        typedef.fields.append(Field(extra_name, extra_doc, Spec("bytes"), size_eos=True, condition=Not(Io("eof"))))
        typedef.size = None
        return typename

    def _bit_spec(self, con: cs.Construct, name: str) -> Spec:
        if isinstance(con, _FLAG):
            return Spec("flag", 1)
        if isinstance(con, cs.BitsInteger) and isinstance(con.length, int) and not con.signed:
            return Spec("bits", con.length)
        if isinstance(con, BitsUnsigned) and isinstance(con.length, int):
            return Spec("bits", con.length)
        if isinstance(con, cs.Struct):
            raise NotExpressible(f"{name}: a structure nested in a bit run")
        raise NotExpressible(f"{name}: {type(con).__name__} in a bit run")

    def _fixed(self, con: cs.FixedSized, name: str, doc: str) -> Field:
        size = self.expr(con.length)
        sub = con.subcon
        while isinstance(sub, cs.Renamed):
            sub = sub.subcon
        run = bit_run(sub)
        if run is not None and (run.size is None or not _plain_bits(run.fields)):
            reason = "a prefix code" if _has(run.fields, PrefixCoded) else "bit fields whose widths depend on the data"
            return Field(name, doc, Spec("bytes"), size=size,
                         note=f"kept as bytes: {reason} cannot be expressed here (see the format's documentation)")
        if isinstance(sub, (cs.Array, cs.GreedyRange)):
            return Field(name, doc, Spec("struct", type=self.wrapper(name, sub, doc)), size=size)
        result = self._translate(sub, name, doc, bits=False)
        if result.spec.kind == "bytes" and result.size_eos:
            result.size_eos = False
        elif result.size is not None or result.repeat is not None:
            raise NotExpressible(f"{name}: a sized field inside a sized region")
        result.size = size
        return result

    def _optional(self, con: cs.IfThenElse, name: str, doc: str) -> Field:
        condition = self.expr(con.condfunc)
        if con.elsesubcon is cs.Pass:
            result = self._translate(con.thensubcon, name, doc, bits=False)
            result.condition = condition if result.condition is None else both(condition, result.condition)
            return result
        then = self._translate(con.thensubcon, name, doc, bits=False)
        otherwise = self._translate(con.elsesubcon, name, doc, bits=False)
        for branch in (then, otherwise):
            if branch.size is not None or branch.repeat is not None or branch.condition is not None:
                raise NotExpressible(f"{name}: a branch with its own size, count or condition")
        return Field(name, doc, Spec("switch", on=condition, cases={True: then.spec, False: otherwise.spec}))

    def _union(self, con: TaggedUnion, name: str, doc: str) -> Field:
        tag = self.expr(con.tag)
        if isinstance(tag, Path) and self._is_flag(tag):
            tag = Cond(tag, Num(1), Num(0))
        cases: dict[int | bool, Spec] = {}
        for key, case in con.cases.items():
            cases[int(key)] = Spec("struct", type=self.struct_type(case.declaration, f"{name}_{key}",
                                                                   case.description or case.title))
        if con.default is not None:
            raise NotExpressible(f"{name}: a union with a default layout")
        return Field(name, doc, Spec("switch", on=tag, cases=cases))

    def _greedy(self, con: cs.GreedyRange, name: str, doc: str) -> Field:
        sub = con.subcon
        if isinstance(sub, cs.FocusedSeq):  # items guarded by a look-ahead: GreedyRange(FocusedSeq(Peek, Check, item))
            peeked = [s for s in sub.subcons if isinstance(strip_renamed(s)[0], cs.Peek)]
            checks = [s for s in sub.subcons if isinstance(s, cs.Check)]
            items = [s for s in sub.subcons if s.name == sub.parsebuildfrom]
            if len(peeked) != 1 or len(checks) != 1 or len(items) != 1:
                raise NotExpressible(f"{name}: a look-ahead this exporter does not know")
            rule = self.functions.get(checks[0].func)
            if rule != "until_zero":
                raise NotExpressible(f"{name}: look-ahead condition {checks[0].func!r} not translated")
            width = int(strip_renamed(peeked[0])[0].subcon.sizeof())
            result = self._translate(strip_renamed(items[0])[0], name, doc, bits=False)
            result.repeat, result.until_bytes = "until_zero", width
            return result
        result = self._translate(sub, name, doc, bits=False)
        if result.repeat is not None:
            raise NotExpressible(f"{name}: an array of arrays")
        result.repeat = "eos"
        return result

    # -- enums

    def enum(self, con: MeaningEnum, hint: str) -> str:
        known = self._enum_ids.get(id(con))
        if known is not None:
            return known
        name = identifier(self.names.get(id(con)) or hint, set(self.enums))
        self._enum_ids[id(con)] = name
        taken: set[str] = set()
        members = [(value, identifier(member, taken), member, meaning)
                   for value, (member, meaning) in sorted(con.meanings.items())]
        wire = con.subcon
        width = int(wire.length) if isinstance(wire, cs.BitsInteger) else int(wire.sizeof())
        self.enums[name] = EnumDef(name, -width if isinstance(wire, cs.BitsInteger) else width, members)
        return name

    # -- expressions

    def expr(self, value: Any) -> Expr:
        """The :class:`Expr` of a construct count, length, condition or tag (resolved in the current scope)."""
        if isinstance(value, (bool, int)):
            return Num(value)
        if isinstance(value, Expr):
            return self._resolve(value)
        if isinstance(value, csexpr.Path):
            return self._resolve(_path_ref(value))
        if isinstance(value, csexpr.BinExpr):
            op = csexpr.opnames[value.op]
            lhs, rhs = self.expr(value.lhs), self.expr(value.rhs)
            op = {"//": "/", "&": "and", "|": "or"}.get(op, op)
            return self._resolve(Bin(op, lhs, rhs))
        if isinstance(value, csexpr.UniExpr) and csexpr.opnames[value.op] == "not":
            return Not(self.expr(value.operand))
        translated = self.functions.get(value)
        if isinstance(translated, Expr):
            return self._resolve(translated)
        name = getattr(value, "__qualname__", repr(value))
        raise NotExpressible(f"context function {name} has no translation")

    def _resolve(self, node: Expr) -> Expr:
        if isinstance(node, Ref):
            return self._path(node)
        if isinstance(node, Bin):
            lhs, rhs = self._resolve(node.lhs), self._resolve(node.rhs)
            if isinstance(rhs, Str) and isinstance(lhs, Path):
                rhs = self._member(lhs, rhs.text)
            elif isinstance(lhs, Str) and isinstance(rhs, Path):
                lhs = self._member(rhs, lhs.text)
            return Bin(node.op, lhs, rhs)
        if isinstance(node, Not):
            return Not(self._resolve(node.operand))
        if isinstance(node, Cond):
            return Cond(self._resolve(node.condition), self._resolve(node.then), self._resolve(node.otherwise))
        return node

    def _path(self, node: Ref) -> Path:
        """Find the construct scope ``node`` names and count the exported levels up to it."""
        construct_scopes = [i for i, scope in enumerate(self._scopes) if scope.struct is not None]
        if not construct_scopes:
            raise NotExpressible("a reference outside any structure")
        if node.up >= len(construct_scopes):
            raise NotExpressible(f"reference {node.names} goes above the top structure")
        scopes = len(construct_scopes) - 1 if node.root else node.up
        index = construct_scopes[-1 - scopes]
        parents = 0 if node.root else len(self._scopes) - 1 - index
        target = _lookup(self._scopes[index].struct, node.names)
        return Path(node.names, parents, node.root, scopes, value=type(target) in self.custom,
                    enum=isinstance(target, MeaningEnum))

    def _target(self, path: Path) -> cs.Construct | None:
        construct_scopes = [i for i, scope in enumerate(self._scopes) if scope.struct is not None]
        index = construct_scopes[0] if path.root else len(self._scopes) - 1 - path.parents
        return _lookup(self._scopes[index].struct, path.names)

    def _member(self, path: Path, member: str) -> EnumConst:
        target = self._target(path)
        if not isinstance(target, MeaningEnum):
            raise NotExpressible(f"{'.'.join(path.names)} is compared with {member!r} but is not an enum")
        name = self.enum(target, path.names[-1])
        return EnumConst(name, self.enums[name].exported(member))

    def _is_flag(self, path: Path) -> bool:
        target = self._target(path)
        return isinstance(target, _FLAG)


def _path_ref(path: csexpr.Path) -> Ref:
    names: list[str] = []
    node: Any = path
    while getattr(node, "_Path__parent", None) is not None:
        names.append(node._Path__field)
        node = node._Path__parent
    names.reverse()
    up = 0
    while names and names[0] == "_":
        names.pop(0)
        up += 1
    if names and names[0] == "_root":
        return Ref(tuple(names[1:]), 0, True)
    return Ref(tuple(names), up)


def _lookup(struct: cs.Construct | None, names: tuple[str, ...]) -> cs.Construct | None:
    """The construct of the field ``names`` within ``struct`` (through renames, adapters, optional fields)."""
    con = struct
    for name in names:
        con = unwrap_struct(con) if con is not None else None
        if not isinstance(con, cs.Struct):
            return None
        found = [sub for sub in con.subcons if sub.name == name]
        if not found:
            return None
        con = found[0]
        while isinstance(con, cs.Renamed):
            con = con.subcon
    return con


def unwrap_struct(con: Any) -> Any:
    """See through renames, adapters, sized regions, optional fields and bit runs to a ``Struct`` if any."""
    while True:
        if isinstance(con, cs.Struct):
            return con
        run = bit_run(con)
        if run is not None:
            con = run.fields
        elif isinstance(con, cs.IfThenElse):
            con = con.thensubcon
        elif isinstance(con, (cs.Renamed, cs.Adapter, cs.FixedSized, cs.Transformed, cs.Subconstruct)):
            con = con.subcon
        else:
            return con


def _plain_bits(con: cs.Construct) -> bool:
    """A bit run made only of fixed-width unsigned fields and flags (what bit-field syntaxes express)."""
    inner = con
    while isinstance(inner, cs.Renamed):
        inner = inner.subcon
    if isinstance(inner, cs.Struct):
        return all(_plain_bit_field(strip_renamed(sub)[0]) for sub in inner.subcons)
    return False


def _plain_bit_field(con: cs.Construct) -> bool:
    if isinstance(con, MeaningEnum):
        con = con.subcon
    if isinstance(con, _FLAG):
        return True
    if isinstance(con, (cs.BitsInteger, BitsUnsigned)):
        return isinstance(con.length, int) and not getattr(con, "signed", False)
    return False


def _has(con: Any, kind: type, depth: int = 0) -> bool:
    if isinstance(con, kind):
        return True
    if depth > 20:
        return False
    children = [getattr(con, attr) for attr in ("subcon", "thensubcon", "elsesubcon") if hasattr(con, attr)]
    children += list(getattr(con, "subcons", []))
    return any(_has(child, kind, depth + 1) for child in children if isinstance(child, cs.Construct))


class FieldsThatFit(cs.Subconstruct):  # type: ignore[misc]
    """A record whose size the file gives: the fields of the full record that fit, the rest kept raw.

    ``make(size)`` is the declaration of a record of ``size`` bytes (``make(None)``: the full record), the
    way a reader picks it; parsing reads the whole region and parses it with ``make(len(region))``.
    """

    def __init__(self, make: Callable[[int | None], cs.Construct]) -> None:
        super().__init__(make(None))
        self.make = make

    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        data = cs.stream_read_entire(stream, path)
        return self.make(len(data)).parse(data)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        raise cs.ExplicitError("FieldsThatFit is for reading", path=path)

    def _sizeof(self, context: Any, path: str) -> int:
        raise cs.SizeofError("the region decides the size", path=path)
