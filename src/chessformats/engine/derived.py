"""What an encoder derives from the value itself, as construct's ``build`` does, so that writers stop filling it.

A record's value (a tuple in field order, as a codec with ``records="tuples"`` takes it, or a named tuple) holds
some fields that other fields decide. :func:`derivation` finds them in the declaration, and
:meth:`Derivation.fill` puts them in before the codec encodes:

- a **count**: a plain integer field that an ``Array`` of the same struct is counted by (``Array(this.n, ...)``)
  is the array's length;
- a **flag bit**: the bit of a :class:`~.conditions.FlagSet` condition (``If(FlagSet("comment"), ...)``) is set
  when its part is present (not ``None``) and cleared when it is absent. When the condition's
  :class:`~.conditions.Parameter` is false (a file whose parts of that kind do not exist) the part is not
  written and its bit is kept as given, as the decoder gives it back. The flags field may be kept as its stored
  integer (a codec's ``stored=``) or be the bit structure's (named) tuple.

The other bits of a flags field, and every field that nothing derives, are written as given.
"""

from __future__ import annotations

import functools
import itertools
import linecache
from collections.abc import Callable
from typing import Any, NamedTuple

import construct as cs

from .conditions import FlagSet, Parameter
from .schema import strip_renamed
from .varexpr import path_fields
from .varruntime import Root, root_context

__all__ = ["Derivation", "derivation"]

_counter = itertools.count()


class _Bit(NamedTuple):
    flags: int
    """Index of the flags field."""
    part: int
    """Index of the optional part."""
    name: str
    """The flag's name in the bit structure."""
    mask: int
    """The flag's bit in the stored integer of the flags field."""
    parameter: Parameter | None
    position: int
    """The flag's place among the bit structure's fields (a decoded flags field is a tuple of them)."""


class Derivation:
    """The derived fields of one struct declaration (see the module's documentation)."""

    def __init__(self, declaration: cs.Construct) -> None:
        from .codec import codec

        inner = strip_renamed(declaration)[0]
        if not isinstance(inner, cs.Struct):
            raise TypeError(f"{type(inner).__name__}: only a Struct's fields are derived")
        fields = [strip_renamed(sub) for sub in inner.subcons]
        index = {name: number for number, (_, name, _) in enumerate(fields) if name}
        self.names: tuple[str | None, ...] = tuple(name for _, name, _ in fields)
        counts: list[tuple[int, int]] = []
        nested: list[tuple[int, int, int]] = []
        bits: list[_Bit] = []
        defaults: dict[int, Any] = {}
        parts: dict[int, Derivation] = {}
        for number, (con, _, _) in enumerate(fields):
            if isinstance(con, cs.Default) and not callable(con.value):
                defaults[number] = con.value
                con = con.subcon
            if isinstance(strip_renamed(con)[0], cs.Struct):
                part: Derivation = derivation(con)
                if part.derives:
                    parts[number] = part
            if isinstance(con, cs.Array):
                names = path_fields(con.count)
                if names is not None and len(names) == 1 and names[0] in index:
                    counts.append((index[names[0]], number))
                elif names is not None and len(names) == 2 and names[0] in index:
                    holder = strip_renamed(fields[index[names[0]]][0])[0]
                    members = [strip_renamed(sub)[1] for sub in getattr(holder, "subcons", ())]
                    if isinstance(holder, cs.Struct) and names[1] in members:
                        nested.append((index[names[0]], members.index(names[1]), number))
            elif isinstance(con, cs.IfThenElse) and con.elsesubcon is cs.Pass:  # If(condition, part)
                condition = con.condfunc
                if isinstance(condition, FlagSet) and condition.field in index:
                    flags = index[condition.field]
                    structure = codec(fields[flags][0])
                    mask = int(structure.field(condition.flag).insert(0, True))
                    bits.append(_Bit(flags, number, condition.flag, mask, condition.parameter,
                                     structure.leaves.index(condition.flag)))
        self.counts: tuple[tuple[int, int], ...] = tuple(counts)
        """(count field, array field) by index."""
        self.nested: tuple[tuple[int, int, int], ...] = tuple(nested)
        """(struct field, its count field, array field) by index: a count in a record beside the array."""
        self.defaults = defaults
        """The value of each ``Default`` field (a constant, not a function of the context), by index: given as
        ``None``, it is the default."""
        self.parts = parts
        """The derivation of each struct field that has one, by index (applied to a tuple value)."""
        self.derives: bool = bool(counts or nested or bits or defaults or parts)
        self.bits: tuple[_Bit, ...] = tuple(bits)
        self.parameters: tuple[Parameter, ...] = tuple({id(bit.parameter): bit.parameter for bit in bits
                                                        if bit.parameter is not None}.values())

        self.source = self._source()
        last: list[list[Any]] = [[_NOTHING, False] for _ in self.parameters]
        givens = [_given(parameter, seen) for parameter, seen in zip(self.parameters, last, strict=True)]
        namespace: dict[str, Any] = {"_given": givens, "_last": last, "_tuple": tuple}
        namespace.update({f"_d{number}": value for number, value in defaults.items()})
        namespace.update({f"_p{number}": part.fill for number, part in parts.items()})
        for holder, _, _ in nested:  # the record a count is in, remade as its named tuple (encoders read it by name)
            record: Any = codec(fields[holder][0]).types.get("")
            namespace[f"_N{holder}"] = record._make if record is not None else tuple
        namespace.update({f"_Tv{bit.flags}": codec(fields[bit.flags][0]).types[""] for bit in bits})
        filename = f"<derived {strip_renamed(declaration)[1] or type(inner).__name__} #{next(_counter)}>"
        linecache.cache[filename] = (len(self.source), None, self.source.splitlines(True), filename)
        exec(compile(self.source, filename, "exec"), namespace)
        self._fill: Callable[[Any, Any], tuple[Any, ...]] = namespace["fill"]
        self._make: Callable[[Callable[..., bytes]], Callable[..., bytes]] = namespace["make"]

    def _source(self) -> str:
        """``fill(value, params)`` and ``make(encode)`` (the encoder that fills first) as Python source: the fields
        as locals, each derived one computed from the others, no loop over the derivations at run time."""
        names = [f"v{number}" for number in range(len(self.names))]
        unpack = f"    ({''.join(name + ', ' for name in names)}) = value"
        body = []
        for number in self.defaults:
            body += [f"    if v{number} is None:", f"        v{number} = _d{number}"]
        for number in self.parts:
            body += [f"    if isinstance(v{number}, _tuple):", f"        v{number} = _p{number}(v{number}, params)"]
        body += [f"    v{count} = len(v{array})" for count, array in self.counts]
        body += [f"    v{holder} = _N{holder}((*v{holder}[:{at}], len(v{array}), *v{holder}[{at + 1}:]))"
                 for holder, at, array in self.nested]
        parameter_of = {id(parameter): number for number, parameter in enumerate(self.parameters)}
        for number in range(len(self.parameters)):  # the last params seen first: a writer gives the same each time
            body += [f"    p{number} = _l{number}[1] if params is _l{number}[0] else _g{number}(params)"]
        for flags in sorted({bit.flags for bit in self.bits}):
            body += self._flag_lines(f"v{flags}", [bit for bit in self.bits if bit.flags == flags], parameter_of)
        values = f"({''.join(name + ', ' for name in names)})"
        bound = "".join(f", _g{number}=_given[{number}], _l{number}=_last[{number}]"
                        for number in range(len(self.parameters)))
        return "\n".join([f"def fill(value, params=None{bound}):", unpack, *body, f"    return {values}", "",
                          "def make(encode):", f"    def derived(value, params=None{bound}):", "    " + unpack,
                          *("    " + line for line in body), f"        return encode({values}, params)",
                          "    return derived", ""])

    @staticmethod
    def _flag_lines(flags: str, bits: list[_Bit], parameter_of: dict[int, int]) -> list[str]:
        """The lines deriving the bits of one flags field: a stored integer has the parts' bits cleared (those of a
        false parameter kept) and set by presence, in one expression; a bit structure's (named) tuple is made again
        as its named tuple."""
        def given(bit: _Bit) -> str:
            return f"p{parameter_of[id(bit.parameter)]} and " if bit.parameter is not None else ""

        always = sum(bit.mask for bit in bits if bit.parameter is None)
        cleared = " | ".join([str(always)] + [f"({bit.mask} if p{parameter_of[id(bit.parameter)]} else 0)"
                                              for bit in bits if bit.parameter is not None])
        present = " | ".join(f"({bit.mask} if {given(bit)}v{bit.part} is not None else 0)" for bit in bits)
        lines = [f"    if {flags}.__class__ is int:", f"        {flags} = {flags} & ~({cleared}) | {present}",
                 "    else:"]
        for bit in bits:
            condition = given(bit).removesuffix(" and ")
            replace = (f"{flags} = _T{flags}._make((*{flags}[:{bit.position}], v{bit.part} is not None, "
                       f"*{flags}[{bit.position + 1}:]))")
            lines += [f"        if {condition}:", f"            {replace}"] if condition else [f"        {replace}"]
        return lines

    def fill(self, value: Any, params: Any = None) -> tuple[Any, ...]:
        """``value`` (every field, in order) with its counts and flag bits derived; ``params`` as the codec's
        ``encode`` takes them (a mapping, or a root context made by ``Codec.parameters``)."""
        return self._fill(value, params)

    def encoder(self, encode: Callable[..., bytes]) -> Callable[..., bytes]:
        """``encode(value, params=None)`` of a codec, with the derived fields filled first (one generated function:
        no call of :meth:`fill`)."""
        return self._make(encode)


_NOTHING = object()


def _given(parameter: Parameter, last: list[Any]) -> Callable[[Any], bool]:
    """Whether ``parameter`` is true for encode ``params``; a root context (made once, then given each time) is
    remembered, the last one in ``last`` (``[params, value]``: the generated code looks there first)."""
    known: dict[int, tuple[Any, bool]] = {}

    def given(params: Any) -> bool:
        found = known.get(id(params))
        if found is not None and found[0] is params:
            last[:] = found
            return found[1]
        value = bool(parameter(root_context(params or {}, True)))
        if params is None or isinstance(params, Root):
            if len(known) > 64:
                known.clear()
            known[id(params)] = (params, value)
            last[:] = params, value
        return value

    return given


@functools.cache
def derivation(declaration: cs.Construct) -> Derivation:
    """The :class:`Derivation` of a struct declaration (cached: declarations are module constants)."""
    return Derivation(declaration)
