"""construct's context expressions as Python source, for the variable-layout generator (:mod:`.varcodec`).

A path (``this.count``, ``this.header.used``, ``this._.flag``) becomes a local variable of the generated
function, or an attribute of the parent's context; arithmetic over paths (``this.used - 2``) stays
arithmetic. Anything else (a ``lambda``, a project's callable such as Kvetka's ``PartPresent``) is called
with a construct ``Container`` built from the fields read so far, as construct itself would call it.
"""

from __future__ import annotations

import operator
import re
from abc import ABCMeta
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import construct as cs
from construct import expr as cs_expr

from .formula import Formula
from .prefixcode import PrefixCoded
from .schema import BitsUnsigned, strip_renamed
from .varoptions import condition_source

__all__ = ["Scope", "context_view", "never_record", "path_fields", "take_fields"]

_CTX = re.compile(r"\bctx\b")
_INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.floordiv: "//", operator.mod: "%",
          operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=", operator.gt: ">",
          operator.ge: ">="}
"""construct's arithmetic and comparisons, written as operators (same values for numbers)."""
_VIEW_TYPES: dict[type, type[RecordView]] = {}


@dataclass
class Scope:
    """The fields of one ``Struct`` read (decoding) or given (encoding) so far, by name -> local variable."""

    names: dict[str, str] = field(default_factory=dict)
    needs_up: bool = False
    """The struct's code reads its parent's context (``this._``, or a callable that may)."""
    plain: set[str] = field(default_factory=set)
    """Fields whose decoded value is never a named tuple (no ``Container`` view needed)."""
    incremental: bool = False
    """The scope of a struct's function: its context is one ``Container`` (``ctx``), made at the start when
    the code reads it and given each field once read, as construct's ``Struct`` keeps its context."""
    uses_ctx: bool = False
    """The struct's code reads ``ctx``."""
    stored: dict[str, Any] = field(default_factory=dict)
    """Fields kept as their stored integer (a codec option): their codecs (a flag's bits in the word)."""
    params: set[str] | None = None
    """The code reads parse parameters from its parent's context (None: it does not); the fields of enclosing
    records that may give them (the parent passes on its own parent's context when it has none of them)."""
    root: bool = False
    """The scope of the declaration itself: its context is the root context, ``up``."""
    parent: Scope | None = None
    """The scope of the enclosing struct at the place this one is read (or written): its fields are passed as
    arguments where this struct's code reads them (``this._.header.length``), instead of a context."""
    imports: dict[str, str] = field(default_factory=dict)
    """Fields of :attr:`parent` this struct's code reads -> the parameter they are passed as."""

    def parameters(self) -> str:
        return "".join(f", {var}" for var in self.imports.values())

    def add(self, name: str, var: str, lines: list[str]) -> None:
        """Field ``name`` is read (or given) into ``var``: the later code sees it (and so does ``ctx``)."""
        self.names[name] = var
        if self.incremental:
            lines.append(f"\0{name}\0{var}")

    def finish(self, lines: list[str], building: bool) -> list[str]:
        """The lines of the struct's function with its ``ctx`` made and filled when the code reads it."""
        if not self.incremental:
            return lines
        last = max((index for index, line in enumerate(lines) if _CTX.search(line) and not line.startswith("\0")),
                   default=-1)  # the last line reading the context (none: lines tried and left read it)
        if not self.uses_ctx or last < 0:
            return [line for line in lines if not line.startswith("\0")]
        flags = f"'_parsing': {not building}, '_building': {building}, '_sizing': False"
        out = [f"    ctx = _C({{'_': up, '_params': up['_params'], {flags}}})"]
        for index, line in enumerate(lines):
            if line.startswith("\0"):
                if index > last:  # no code reads the context after this field
                    continue
                _, name, var = line.split("\0")
                view = var if name in self.plain and not building else f"_view({var})"
                out.append(f"    ctx[{name!r}] = {view}")
            else:
                out.append(line)
        return out


def path_fields(expression: Any) -> list[Any] | None:
    """The fields of a ``this`` path, from the root (``this._.a.b`` -> ``["_", "a", "b"]``); None otherwise."""
    if not isinstance(expression, cs_expr.Path):
        return None
    names: list[Any] = []
    node: Any = expression
    while True:
        parent = node._Path__parent
        if parent is None:
            return names[::-1] if node._Path__name == "this" else None
        names.append(node._Path__field)
        node = parent


def context_view(value: Any) -> Any:
    """A decoded value as construct would hand it to a callable: a named tuple seen as a mapping of its fields
    (:class:`RecordView`, made in constant time; its fields are viewed when read)."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        view = _VIEW_TYPES.get(type(value))
        return (view or _view_type(type(value)))(value)
    return value


def _view_type(record: type) -> type[RecordView]:
    """:class:`RecordView` with a property per field of ``record`` (read without ``__getattr__``, which runs
    only after a failed lookup; a field named as a method of the view stays the method's, as in ``Container``)."""
    fields = {name: property(_field_reader(name)) for name in getattr(record, "_fields", ())
              if isinstance(name, str) and not name.startswith("__") and not hasattr(RecordView, name)}
    view = cast("type[RecordView]", ABCMeta(f"{record.__name__}View", (RecordView,), {"__slots__": (), **fields}))
    _VIEW_TYPES[record] = view
    return view


def _field_reader(name: str) -> Callable[[RecordView], Any]:
    get = operator.attrgetter(name)

    def read(view: RecordView) -> Any:
        return context_view(get(view._record))
    return read


class RecordView(Mapping[str, Any]):
    """A named tuple as construct's ``Container`` is read: ``view.name``, ``view["name"]``, ``get``, ``in``,
    ``keys``/``items``; nested named tuples are viewed the same way."""

    __slots__ = ("_record",)

    def __init__(self, record: Any) -> None:
        self._record = record

    def __getitem__(self, name: str) -> Any:
        try:
            return context_view(getattr(self._record, name))
        except (AttributeError, TypeError):
            raise KeyError(name) from None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return context_view(getattr(self._record, name))

    def __iter__(self) -> Iterator[str]:
        return iter(self._record._fields)

    def __len__(self) -> int:
        return len(self._record._fields)

    def __repr__(self) -> str:
        return f"RecordView({self._record!r})"


class Expressions:
    """Source of expressions in one generated module; ``bind(prefix, value)`` names a constant of the module."""

    def __init__(self, bind: Any, building: bool) -> None:
        self.bind = bind
        self.building = building

    def attribute(self, base: str, name: Any) -> str:
        if self.building:  # a value given to encode may be a dict, a Container or a named tuple
            return f"_get({base}, {name!r})"
        if isinstance(name, str) and name.isidentifier():
            return f"{base}.{name}"
        return f"_get({base}, {name!r})"

    def context(self, scope: Scope) -> str:
        """A construct context of ``scope``: its fields read so far, ``_`` = the parent's context; decoded named
        tuples shown as construct's ``Container`` s (construct's code and the schemas' callables index them)."""
        if scope.root:
            return "up"
        scope.needs_up = True
        if scope.incremental:
            scope.uses_ctx = True
            return "ctx"
        items = "".join(f"{name!r}: {var}, " if name in scope.plain and not self.building
                        else f"{name!r}: _view({var}), " for name, var in scope.names.items())
        flags = f"'_parsing': {not self.building}, '_building': {self.building}, '_sizing': False"
        return f"_C({{{items}'_': up, '_params': up['_params'], {flags}}})"

    def source(self, expression: Any, scope: Scope) -> str:
        """Python source evaluating ``expression`` (construct's ``evaluate``) in ``scope``."""
        if not callable(expression):
            return repr(expression) if isinstance(expression, (int, bool, str, type(None))) \
                else self.bind("k", expression)
        if hasattr(type(expression), "flag_test"):  # a condition the generated code tests itself
            test = condition_source(expression, scope.names, scope.stored, self.building, self.bind,
                                    self.parameter_context(expression, scope))
            if test is not None:
                return test
        if isinstance(expression, Formula):
            written = expression.source(lambda names: self.path(names, scope))
            if written is not None:
                return written
        names = path_fields(expression)
        if names is not None:
            return self.path(names, scope) or f"{self.bind('x', expression)}({self.context(scope)})"
        if isinstance(expression, cs_expr.BinExpr):
            lhs, rhs = self.source(expression.lhs, scope), self.source(expression.rhs, scope)
            infix = _INFIX.get(expression.op)
            return f"({lhs} {infix} {rhs})" if infix else f"{self.bind('o', expression.op)}({lhs}, {rhs})"
        if isinstance(expression, cs_expr.UniExpr):
            return f"{self.bind('o', expression.op)}({self.source(expression.operand, scope)})"
        return f"{self.bind('x', expression)}({self.context(scope)})"

    def parameter_context(self, condition: Any, scope: Scope) -> str:
        """The context a condition's parameter is looked up from: the parent's (``up``) unless a field read here
        may give it."""
        parameter = getattr(condition, "parameter", None)
        if parameter is None:
            return "None"
        sources = set(parameter.source[:1])
        if sources & set(scope.names):
            return self.context(scope)
        if not scope.root:
            scope.params = (scope.params or set()) | sources
        return "up"

    def path(self, names: list[Any], scope: Scope) -> str | None:
        if not names:
            return None
        if names[0] == "_":  # the parent's context: a Container the parent built
            if len(names) == 1:
                return None
            parent = scope.parent
            if parent is not None and isinstance(names[1], str) and names[1] in parent.names \
                    and names[1] not in parent.stored:  # the parent's local, passed as an argument
                base = scope.imports.setdefault(names[1], f"u_{names[1]}")
                for name in names[2:]:
                    base = self.attribute(base, name)
                return base
            scope.needs_up = True
            base = "up"
            for name in names[1:]:
                base = self.attribute(base, name) if base != "up" else f"up[{name!r}]"
            return base
        first = scope.names.get(names[0]) if isinstance(names[0], str) else None
        if first is None:
            return None
        base = first
        for name in names[1:]:
            base = self.attribute(base, name)
        return base


def never_record(con: Any) -> bool:
    """``con`` decodes to a list, bytes, a number, an enum's value, a flag or None, never a named tuple: its value
    needs no context view."""
    con = strip_renamed(con)[0]
    if isinstance(con, cs.IfThenElse):
        return never_record(con.thensubcon) and never_record(con.elsesubcon)
    if isinstance(con, cs.Default):
        return never_record(con.subcon)
    return con is cs.Pass or con is cs.GreedyBytes or isinstance(con, (
        cs.Array, cs.GreedyRange, cs.Bytes, cs.BitsInteger, cs.FormatField, cs.Enum, type(cs.Flag), PrefixCoded,
        BitsUnsigned))


def take_fields(con: cs.Struct) -> tuple[list[str | None], list[str]]:
    """The names of a struct's fields (None: unnamed) and the lines of an encoder binding each named one to
    ``f_<name>`` from ``obj``: a tuple in field order (the decoder's named tuple) or a mapping."""
    named: list[str | None] = [strip_renamed(sub)[1] for sub in con.subcons]
    fields = [name for name in named if name]
    lines = [f"    if isinstance(obj, tuple) and len(obj) == {len(fields)}:",
             f"        ({''.join(f'f_{name}, ' for name in fields)}) = obj" if fields else "        pass",
             "    else:"]
    for sub, name in zip(con.subcons, named, strict=True):
        if name:
            access = f"obj.get({name!r})" if sub.flagbuildnone else f"obj[{name!r}]"
            lines.append(f"        f_{name} = {access}")
    if not fields:
        lines.append("        pass")
    return named, lines
