"""Generated decode/encode functions for declarations whose layout the data decides.

The fixed-layout generator (:mod:`.compiler`) reads a whole record with one ``struct`` call. A variable
layout is read field after field: this module writes, from the declaration, one Python function per
``Struct`` that keeps a read position ``pos``, reads each field where the previous one ended and keeps its
value in a local variable that later fields' counts, lengths, conditions and tags read (:mod:`.varexpr`).
Runs of consecutive fixed-size fields still go through the fixed generator: one ``struct`` call per run.

Handled: ``Struct``, ``Array`` counted by an expression, ``GreedyRange``, ``GreedyBytes``, ``Bytes`` of a
length from the data, ``FixedSized``, ``IfThenElse``/``If``, ``Switch``, the engine's :class:`~.tagged.TaggedUnion`,
``Default``, adapters (their ``_decode``/``_encode``), ``Pass``. Anything else raises
:class:`~.plan.NoPlan` with the path and the construct, and the codec stays construct's (``reason``).

Values are those construct parses (structs as named tuples, arrays as lists; a tagged union's case is the
type of its named tuple, construct's private ``_case`` key is not kept); ``encode`` builds what construct
builds from the same value (counts, lengths and tags are the value's own, checked, not derived).
"""

from __future__ import annotations

import collections
import functools
import itertools
import linecache
import re
import struct
from collections.abc import Callable
from typing import Any, NamedTuple

import construct as cs

from .compiler import _EnumMap
from .errors import join_path
from .plan import NoPlan, plan
from .schema import strip_renamed
from .tagged import TaggedUnion, _plain_key
from .varbits import NAMES as BIT_NAMES
from .varbits import BitRuns, is_bit_run
from .varencode import Writer
from .varexpr import Expressions, Scope, never_record
from .varoptions import Options, check_kept, enum_parts, inline_number, stored_form
from .varparts import attempt, byte_values, emit_at, is_bit_level, is_focused, number_format, runs
from .varruntime import NAMES as RUNTIME_NAMES
from .varruntime import root_context

__all__ = ["VariableFunctions", "compile_variable"]

_counter = itertools.count()
_NO_OPTIONS = Options()


class VariableFunctions(NamedTuple):
    decode: Callable[..., Any]
    encode: Callable[[Any], bytes]
    source: str
    types: dict[str, type]
    delegated: tuple[str, ...]
    """``"path: Construct"`` of each part construct's own parse and build read and write."""
    read: Callable[..., tuple[Any, int]]
    """``read(data, offset=0, end=None, params=None, file=None)``: the value and the offset after it."""


class _Fixed(NamedTuple):
    decode: Callable[..., Any]
    encode: Callable[[Any], bytes]
    size: int
    names: tuple[str, ...] | None
    """For a run of struct fields: their names, in order (the decoded named tuple's fields)."""
    plain: tuple[str, ...] = ()
    """The fields of a run that decode to a number, bytes or a flag (never a named tuple)."""
    number: str = ""
    """For a plain integer (no enum, constant or bit field): its struct format (``">H"``)."""
    single: bool = False
    """``decode`` gives a tuple of one value (an enum read as a number: :mod:`.varoptions`)."""
    checks: tuple[tuple[int, int, frozenset[int]], ...] = ()
    """Enum leaves whose values are checked: (index in the tuple, byte offset, the values)."""
    names_of: Any = None
    """A one-byte enum leaf read as its name: the byte -> name table (arrays of them read by lookups)."""


Needs = tuple[bool, frozenset[str] | None]
"""What a struct function reads of ``up``: its parent's context (True), parse parameters (the fields of
enclosing records that may give them; None: none)."""


class _Generator:
    def __init__(self, name: str, fixed_codec: Callable[[cs.Construct, bool], Any], options: Options) -> None:
        self.name = name
        self.options = options
        self.fixed_codec = fixed_codec
        self.names: dict[str, Any] = {"_C": cs.Container, "_L": cs.ListContainer, "_tn": tuple.__new__,
                                      "_ifb": int.from_bytes, "_iter_unpack": struct.iter_unpack, "_pk": _plain_key,
                                      "_repeat": itertools.repeat,
                                      **RUNTIME_NAMES, **BIT_NAMES}
        self.functions: list[str] = []
        self.fresh = itertools.count()
        self.types: dict[str, type] = {}
        self.decoders: dict[tuple[int, bool, frozenset[str] | None], tuple[str, Needs]] = {}
        self.imported: dict[str, tuple[str, ...]] = {}
        """A struct function -> the fields of the enclosing struct it takes as arguments (:attr:`Scope.imports`)."""
        self.fixed_parts: dict[int, _Fixed | None] = {}
        self.kept: set[str] = set()  # the ``stored`` paths met (:func:`.varoptions.check_kept`)
        self.delegated: list[str] = []
        self.bit_runs = BitRuns(self)
        self.writer = Writer(self)
        self.guard = False
        """The lines written are inside an alternative (``Select``, ``GreedyRange``) of this function: a fixed part
        that the bytes cannot hold fails it at once (:class:`~.varruntime.Short`), not through the full error."""
        self.bodies: dict[str, tuple[list[str], str]] = {}
        """A struct function's lines and value (the declaration's own is written into ``read``)."""
        self.lead_sizes: dict[int, int] = {}
        """Struct id -> size of the fixed run its decoder reads first."""

    def bind(self, prefix: str, value: Any) -> str:
        name = f"_{prefix}{next(self.fresh)}"
        self.names[name] = value
        return name

    def var(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self.fresh)}"

    # --- fixed-size parts: the fixed generator -----------------------------------------------------------

    def fixed(self, con: cs.Construct, names: tuple[str, ...] | None = None) -> _Fixed | None:
        """The fixed generator's functions for ``con`` (None: not a fixed layout). ``names``: ``con`` is a run
        of struct fields made here (not cached by the codec cache)."""
        if id(con) in self.fixed_parts:
            return self.fixed_parts[id(con)]
        found: _Fixed | None = None
        try:
            plan(con)
            derived = self.fixed_codec(con, names is not None)
            if derived.plan is not None and derived.size is not None:
                plain = tuple(child.name for child in derived.plan.root.children if child.kind == "leaf")
                found = _Fixed(derived.decode, derived.encode, derived.size, names, plain,
                               number_format(derived.plan, names is not None))
                leaf = derived.plan.root.leaf
                if derived.plan.root.kind == "leaf" and leaf.enum is not None and derived.size == 1 \
                        and not leaf.width and not leaf.has_const and leaf.value == "int":
                    found = found._replace(names_of=_EnumMap(leaf.enum.decmapping))
                numbers = enum_parts(derived.plan, derived.unpack, names is not None, self.options)
                if numbers is not None:
                    found = found._replace(decode=numbers.decode, number=numbers.number or found.number,
                                           single=numbers.single, checks=numbers.checks)
        except (NoPlan, TypeError):
            pass
        self.fixed_parts[id(con)] = found
        self.names[f"_keep{id(con)}"] = con  # ids stay unique while the generator lives
        return found

    # --- decoding ----------------------------------------------------------------------------------------

    def decode(self, con: cs.Construct, path: str, target: str, scope: Scope, lines: list[str], indent: str,
               container: bool = False) -> None:
        """Lines reading ``con`` at ``data[pos]`` into ``target`` and moving ``pos`` past it."""
        con, _, _ = strip_renamed(con) if isinstance(con, cs.Renamed) else (con, None, None)
        expressions = Expressions(self.bind, building=False)
        if path in self.options.stored:
            self.decode_stored(con, path, target, scope, lines, indent)
            return
        fixed = None if isinstance(con, cs.Struct) and container else self.fixed(con)
        if fixed is not None:
            decoder = self.fixed_room(fixed, path, lines, indent)
            number = inline_number(fixed.number, fixed.size)
            value = number or self.read_fixed(fixed, decoder)
            lines.append(f"{indent}{'(' + target + ',)' if fixed.single and not number else target} = {value}")
            for _, offset, valid in fixed.checks:
                lines += [f"{indent}if {target} not in {self.bind('v', valid)}:",
                          f"{indent}    raise _bad_value({path!r}, pos + {offset}, {target}, {self.bind('v', valid)})"]
            lines.append(f"{indent}pos += {fixed.size}")
            return
        if isinstance(con, cs.Struct) or is_focused(con):
            function, needs = self.struct_decoder(con, path, container, scope)
            up = self.up_for(needs, scope, expressions)
            lines.append(f"{indent}{target}, pos = {function}(data, pos, end, {up}{self.arguments(function, scope)})")
            return
        if isinstance(con, cs.Peek):  # read, then back to where it started
            save = self.var("p")
            lines.append(f"{indent}{save} = pos")
            self.decode(con.subcon, path, target, scope, lines, indent, container)
            lines.append(f"{indent}pos = {save}")
            return
        if isinstance(con, cs.Check):
            lines.append(f"{indent}if not {expressions.source(con.func, scope)}:")
            lines.append(f"{indent}    raise _inv({path!r}, 'check failed')")
            lines.append(f"{indent}{target} = None")
            return
        if isinstance(con, (cs.Array, cs.GreedyRange)):
            self.decode_array(con, path, target, scope, lines, indent, container)
            return
        if con is cs.GreedyBytes:
            lines += [f"{indent}{target} = data[pos:end]", *_as_bytes(target, indent)]
            lines.append(f"{indent}pos = end")
            return
        if isinstance(con, cs.Bytes):
            length = self.var("n")
            lines.append(f"{indent}{length} = {expressions.source(con.length, scope)}")
            self.check_room(length, path, lines, indent)
            lines += [f"{indent}{target} = data[pos:pos + {length}]", *_as_bytes(target, indent)]
            lines.append(f"{indent}pos += {length}")
            return
        if isinstance(con, cs.FixedSized):
            self.decode_fixed_sized(con, path, target, scope, lines, indent, container)
            return
        if self.alternatives(con, path, scope, lines, indent, False, lambda sub, inner, _: self.decode(
                sub, path, target, scope, lines, inner, container)):
            return
        if con is cs.Pass:
            lines.append(f"{indent}{target} = None")
            return
        if isinstance(con, cs.Default):
            self.decode(con.subcon, path, target, scope, lines, indent, container)
            return
        if callable(getattr(con, "codec_read", None)):  # a construct of the project's that reads itself
            slow = f"{target}, pos = _read_own({self.bind('a', con)}, data, pos, end, {path!r})"
            inline = getattr(con, "codec_read_lines", None)
            lines += [indent + line for line in (inline(target, slow, path, self.bind) if callable(inline) else [slow])]
            return
        if isinstance(con, cs.Adapter) and not isinstance(con, (cs.Enum, cs.Const)):
            inner = self.var()
            self.decode(con.subcon, path, inner, scope, lines, indent, container=True)
            lines.append(f"{indent}{target} = {self.bind('a', con)}._decode({inner}, _C(), {path!r})")
            return
        self.delegate(con, path)
        context = expressions.context(scope)
        lines.append(f"{indent}{target}, pos = _parse_part({self.bind('a', con)}, data, pos, end, {context}, "
                     f"{path!r})")

    def read_fixed(self, fixed: _Fixed, decoder: str) -> str:
        """The expression of a fixed part's value at ``data[pos]``: a one-byte part from a table of its values
        (:func:`~.varparts.byte_values`), else its decoder's call."""
        values = byte_values(fixed.decode) if fixed.size == 1 else None
        return f"{self.bind('tab', values)}[data[pos]]" if values is not None else f"{decoder}(data, pos)"

    def fixed_room(self, fixed: _Fixed, path: str, lines: list[str], indent: str) -> str:
        """Lines refusing a fixed part the bytes up to ``end`` cannot hold (its decoder's own error, or the
        alternative's quick failure); the decoder's name."""
        decoder = self.bind("d", fixed.decode)
        lines.append(f"{indent}if pos + {fixed.size} > end:")
        short = f"_trunc({path!r}, {fixed.size}, end - pos, pos)"
        lines += [f"{indent}    raise _Short"] if self.guard else [f"{indent}    {decoder}(data[:end], pos)",
                                                                   f"{indent}    raise {short}"]
        return decoder

    def stored_part(self, con: cs.Construct) -> cs.Construct:
        """The part whose stored form a field kept as stored has: alternatives stored alike (same size and kind)
        are their second one."""
        if isinstance(con, cs.IfThenElse):
            then, other = (strip_renamed(sub)[0] for sub in (con.thensubcon, con.elsesubcon))
            if self.fixed(then) and self.fixed(other) and stored_form(self.fixed_codec(then, False), "") \
                    == stored_form(self.fixed_codec(other, False), ""):
                return other
        return con

    def up_for(self, needs: tuple[bool, frozenset[str] | None], scope: Scope, expressions: Expressions) -> str:
        """The ``up`` a struct function is called with: this struct's context when it reads it (or parameters
        that a field read here may give), else this function's own ``up`` when it reads parameters only."""
        needs_up, params = needs
        if needs_up or (params and params & set(scope.names)):
            return expressions.context(scope)
        if params is None:
            return "None"
        if not scope.root:
            scope.params = (scope.params or set()) | params
        return "up"

    def decode_stored(self, con: cs.Construct, path: str, target: str, scope: Scope, lines: list[str], indent: str
                      ) -> None:
        """Lines reading a field kept as stored (:mod:`.varoptions`): its integer or its bytes."""
        self.kept.add(path)
        con = self.stored_part(con)
        fixed = self.fixed(con)
        if fixed is None and isinstance(con, cs.FixedSized):
            length = self.length(con.length, scope, lines, indent)
            self.check_room(length, path, lines, indent)
            lines += [f"{indent}{target} = bytes(data[pos:pos + {length}])", f"{indent}pos += {length}"]
            return
        if fixed is None:
            raise NoPlan(f"{path}: kept as stored, but of no fixed size")
        size, order = stored_form(self.fixed_codec(con, False), path)
        self.fixed_room(fixed, path, lines, indent)
        value = ("data[pos]" if size == 1 else f"_ifb(data[pos:pos + {size}], {order!r})") if order \
            else f"bytes(data[pos:pos + {size}])"
        lines += [f"{indent}{target} = {value}", f"{indent}pos += {size}"]

    def guarded(self, write: Callable[[], None]) -> None:
        """``write()`` the lines of an alternative: fixed parts in them guarded (:attr:`guard`)."""
        guard, self.guard = self.guard, True
        try:
            write()
        finally:
            self.guard = guard

    def length(self, expression: Any, scope: Scope, lines: list[str], indent: str) -> str:
        """A local holding the value of a length ``expression`` (a number: the number itself)."""
        source = Expressions(self.bind, building=False).source(expression, scope)
        if source.isdigit():
            return source
        length = self.var("n")
        lines.append(f"{indent}{length} = {source}")
        return length

    def check_room(self, length: str, path: str, lines: list[str], indent: str, unit: int = 1) -> None:
        """Lines refusing a negative ``length`` (a count of ``unit``-byte items) and one beyond the data."""
        size = f"{length} * {unit}" if unit != 1 else length
        if not length.isdigit():
            lines.append(f"{indent}if {length} < 0:")
            lines.append(f"{indent}    raise _inv({path!r}, 'negative {'count' if unit != 1 else 'length'}', {length})")
        lines.append(f"{indent}if pos + {size} > end:")
        lines.append(f"{indent}    raise _trunc({path!r}, {size}, end - pos, pos)")

    def decode_array(self, con: cs.Construct, path: str, target: str, scope: Scope, lines: list[str],
                     indent: str, container: bool) -> None:
        if getattr(con, "discard", False):
            raise NoPlan(f"{path}: an array that discards its elements")
        expressions = Expressions(self.bind, building=False)
        item = self.var()
        fixed = self.fixed(con.subcon)
        make = "_L" if container else ""
        if isinstance(con, cs.Array):
            count = self.var("n")
            lines.append(f"{indent}{count} = {expressions.source(con.count, scope)}")
            if fixed is not None:
                decoder = self.bind("d", fixed.decode)
                self.check_room(count, path, lines, indent, fixed.size or 1)
                if fixed.number:  # plain integers: one call for the whole array
                    stop = f"pos + {count} * {fixed.size}"
                    numbers = f"list(data[pos:{stop}])" if fixed.number[1:] == "B" else \
                        f"[x for (x,) in _iter_unpack({fixed.number!r}, data[pos:{stop}])]"
                    lines.append(f"{indent}{target} = {make}({numbers})")
                    for _, _, valid in fixed.checks[:1]:  # items of one byte (checked enums)
                        name = self.bind("v", valid)
                        lines += [f"{indent}if not {name}.issuperset({target}):",
                                  f"{indent}    raise _bad_items({path!r}, pos, {target}, {name})"]
                    lines.append(f"{indent}pos += {count} * {fixed.size}")
                    return
                if fixed.checks:
                    raise NoPlan(f"{path}: checked enums in an array of items of several bytes")
                if fixed.names_of is not None:  # one-byte enum names: a lookup per byte
                    table = self.bind("g", fixed.names_of.__getitem__)
                    lines += [f"{indent}{target} = {make}(list(map({table}, data[pos:pos + {count}])))",
                              f"{indent}pos += {count}"]
                    return
                offsets = f"range(pos, pos + {count} * {fixed.size}, {fixed.size})"
                items = f"[{decoder}(data, p)[0] for p in {offsets}]" if fixed.single else \
                    f"list(map({decoder}, _repeat(data, {count}), {offsets}))"
                lines.append(f"{indent}{target} = {make}({items})")
                lines.append(f"{indent}pos += {count} * {fixed.size}")
                return
            lines.append(f"{indent}if {count} < 0:")
            lines.append(f"{indent}    raise _inv({path!r}, 'negative count', {count})")
            lines.append(f"{indent}{target} = {make}()" if container else f"{indent}{target} = []")
            lines.append(f"{indent}for _ in range({count}):")
            self.decode(con.subcon, f"{path}[]", item, scope, lines, indent + "    ", container)
            lines.append(f"{indent}    {target}.append({item})")
            return
        save = self.var("p")
        lines.append(f"{indent}{target} = {make}()" if container else f"{indent}{target} = []")
        lines.append(f"{indent}while True:")
        lines.append(f"{indent}    {save} = pos")
        sub = strip_renamed(con.subcon)[0]
        if isinstance(sub, cs.Struct) and self.fixed(sub) is None:  # its first fixed run ends the range at once
            self.struct_decoder(sub, f"{path}[]", container, scope)
            if id(sub) in self.lead_sizes:
                lines += [f"{indent}    if pos + {self.lead_sizes[id(sub)]} > end:", f"{indent}        break"]
        self.guarded(lambda: attempt(lines, indent + "    ", lambda inner: self.decode(
            con.subcon, f"{path}[]", item, scope, lines, inner, container), [f"pos = {save}", "break"]))
        lines.append(f"{indent}    {target}.append({item})")

    def decode_fixed_sized(self, con: cs.FixedSized, path: str, target: str, scope: Scope, lines: list[str],
                           indent: str, container: bool) -> None:
        length = self.length(con.length, scope, lines, indent)
        self.check_room(length, path, lines, indent)
        if con.subcon is cs.GreedyBytes:
            lines.append(f"{indent}{target} = bytes(data[pos:pos + {length}])")
            lines.append(f"{indent}pos += {length}")
            return
        if is_bit_run(con.subcon):  # the region's bits as one integer, read by a cursor
            bit_lines: list[str] = []
            try:
                self.bit_runs.decode(con.subcon.subcon, path, target, scope, bit_lines, indent)
            except NoPlan:
                pass  # construct reads it (delegated below)
            else:
                lines += [f"{indent}v, nb, b = _ifb(data[pos:pos + {length}], 'big'), 8 * {length}, 0", *bit_lines,
                          f"{indent}pos += {length}"]
                return
        saved = self.var("s")  # the region's end bounds what is read in it
        lines.append(f"{indent}{saved} = end, pos + {length}")
        lines.append(f"{indent}end = pos + {length}")
        if self.guard:  # an alternative that fails goes on with the outer end
            lines.append(f"{indent}try:")
            self.decode(con.subcon, path, target, scope, lines, indent + "    ", container)
            lines += [f"{indent}finally:", f"{indent}    end, pos = {saved}"]
        else:
            self.decode(con.subcon, path, target, scope, lines, indent, container)
            lines.append(f"{indent}end, pos = {saved}")

    def alternatives(self, con: cs.Construct, path: str, scope: Scope, lines: list[str], indent: str, building: bool,
                     emit: Callable[[cs.Construct, str, str | None], None], out: str = "") -> bool:
        """Lines choosing the alternative of an ``IfThenElse``, ``Switch``, ``TaggedUnion`` or ``Select``
        (``emit(sub, indent, into)`` writes one; ``into``: the list an encoder writes to, None: ``out``); False
        when ``con`` is none of them."""
        expressions = Expressions(self.bind, building=building)
        if isinstance(con, cs.IfThenElse):
            lines.append(f"{indent}if {expressions.source(con.condfunc, scope)}:")
            emit(con.thensubcon, indent + "    ", None)
            lines.append(f"{indent}else:")
            emit(con.elsesubcon, indent + "    ", None)
            return True
        if isinstance(con, cs.Select):  # the first alternative that reads (builds) without an error
            save, inner = self.var("p"), indent
            lines.append(f"{indent}{save} = pos" if not building else f"{indent}{save} = []")
            into = save if building else None
            for sub in con.subcons:
                self.guarded(functools.partial(attempt, lines, inner, functools.partial(
                    emit_at, emit, sub, into=into), [f"{save} = []" if building else f"pos = {save}"]))
                inner += "    "
            lines.append(f"{inner}raise _inv({path!r}, 'no alternative matched')")
            if building:
                lines.append(f"{indent}{out}.extend({save})")
            return True
        if not isinstance(con, (TaggedUnion, cs.Switch)):
            return False
        tag = self.var("k")
        if isinstance(con, TaggedUnion):
            cases = {key: case.declaration for key, case in con.cases.items()}
            lines.append(f"{indent}try:")
            lines.append(f"{indent}    {tag} = _pk({expressions.source(con.tag, scope)})")
            lines.append(f"{indent}except (KeyError, AttributeError, TypeError) as exc:")
            lines.append(f"{indent}    raise _NoCase(f'cannot evaluate the tag of the union: {{exc}}', "
                         f"path={path or None!r}) from exc")
        else:
            cases = dict(con.cases)
            lines.append(f"{indent}{tag} = {expressions.source(con.keyfunc, scope)}")
        keyword = "if"
        for value, declaration in cases.items():
            lines.append(f"{indent}{keyword} {tag} == {self.bind('c', value)}:")
            emit(declaration, indent + "    ", None)
            keyword = "elif"
        lines.append(f"{indent}else:" if cases else f"{indent}if True:")
        if con.default is None:
            lines.append(f"{indent}    raise _NoCase('no layout for the tag', actual={tag}, path={path or None!r})")
        else:
            emit(con.default, indent + "    ", None)
        return True

    def arguments(self, function: str, scope: Scope) -> str:
        """The arguments of a call of struct function ``function`` from ``scope``: the fields it imports."""
        return "".join(f", {scope.names[name]}" for name in self.imported.get(function, ()))

    def struct_decoder(self, con: cs.Struct, path: str, container: bool, parent: Scope | None = None
                       ) -> tuple[str, Needs]:
        """The name of the function reading struct ``con`` (``(data, pos, end, up, *imports) -> (value, pos)``,
        read where ``parent`` is the enclosing struct's scope) and what it reads of ``up``: its parent's context;
        parse parameters (the fields that may give them) or None."""
        key = (id(con), container, frozenset(parent.names) if parent is not None else None)
        known = self.decoders.get(key)
        if known is not None:
            return known
        function = f"_s{next(self.fresh)}"
        scope = Scope(incremental=True, parent=parent)
        lines: list[str] = []
        names: list[str] = []
        guard, self.guard = self.guard, False  # a function of its own, called from anywhere
        for index, group in enumerate(runs(con.subcons, self, path)):
            if isinstance(group, _Fixed):
                if index == 0:
                    self.lead_sizes[id(con)] = group.size
                assert group.names is not None
                local = [f"f_{name}" for name in group.names]
                decoder = self.fixed_room(group, path, lines, "    ")
                number = inline_number(group.number, group.size) if len(local) == 1 else ""
                lines.append(f"    {local[0]} = {number}" if number else
                             f"    ({''.join(v + ', ' for v in local)}) = {self.read_fixed(group, decoder)}"
                             if local else f"    {decoder}(data, pos)")
                for leaf, offset, valid in group.checks:
                    var, values = local[leaf], self.bind("v", valid)
                    lines += [f"    if {var} not in {values}:", f"        raise _bad_value("
                              f"{join_path(path, group.names[leaf])!r}, pos + {offset}, {var}, {values})"]
                lines.append(f"    pos += {group.size}")
                scope.plain.update(group.plain)
                for name, var in zip(group.names, local, strict=True):
                    scope.add(name, var, lines)
                names.extend(group.names)
                continue
            sub, sub_name, _ = strip_renamed(group) if isinstance(group, cs.Renamed) else (group, None, None)
            target = f"f_{sub_name}" if sub_name else self.var()
            self.decode(sub, join_path(path, sub_name or ""), target, scope, lines, "    ")
            if sub_name:
                stored = join_path(path, sub_name) in self.options.stored
                if stored and self.fixed(sub) is not None:
                    scope.stored[sub_name] = self.fixed_codec(sub, False)
                if never_record(sub) or stored:
                    scope.plain.add(sub_name)
                scope.add(sub_name, target, lines)
                names.append(sub_name)
        value = f"f_{con.parsebuildfrom}" if is_focused(con) else self.record_value(path, names, container)
        lines = scope.finish(lines, building=False)
        self.guard = guard
        self.functions.append("\n".join([f"def {function}(data, pos, end, up{scope.parameters()}):", *lines,
                                         f"    return {value}, pos", ""]))
        self.bodies[function] = lines, value
        self.imported[function] = tuple(scope.imports)
        needs = scope.needs_up, frozenset(scope.params) if scope.params is not None else None
        self.decoders[key] = function, needs
        return function, needs

    def record_value(self, path: str, names: list[str], container: bool) -> str:
        """The expression of a struct's value from its locals ``f_<name>``: a named tuple (a ``Container`` under
        an adapter)."""
        if container:
            return "_C(" + ", ".join(f"{name}=f_{name}" for name in names) + ")"
        if self.options.records == "tuples":
            return f"({''.join(f'f_{name}, ' for name in names)})"
        title = "".join(part.capitalize() for part in (path.rsplit(".", 1)[-1] or "record").split("_"))
        record = collections.namedtuple(title.replace("[]", "") or "Record", names, rename=True)  # type: ignore[misc]
        self.types.setdefault(path, record)
        return f"_tn({self.bind('T', record)}, ({''.join(f'f_{name}, ' for name in names)}))"

    # --- encoding ----------------------------------------------------------------------------------------

    def encode(self, con: cs.Construct, path: str, value: str, scope: Scope, lines: list[str], indent: str,
               out: str = "o") -> None:
        """Lines appending the bytes of ``value`` (source of an expression) as ``con`` to the list ``out``."""
        self.writer.encode(con, path, value, scope, lines, indent, out)

    def delegate(self, con: cs.Construct, path: str) -> None:
        """``con`` is read and written by construct's own parse and build (a construct this generator does not
        know, inside a declaration it otherwise generates); the declaration itself must be known."""
        if is_bit_level(con):
            raise NoPlan(f"{path or 'the declaration'}: {type(con).__name__} is a bit field: the declaration is read "
                         "bit by bit, inside a bit run")
        if not path:
            what = "a bit run whose layout the data decides" if isinstance(con, (cs.Transformed, cs.Restreamed)) \
                else "not a construct the compiler knows"
            raise NoPlan(f"the declaration: {type(con).__name__}, {what}")
        label = f"{path}: {type(con).__name__}"
        if label not in self.delegated:
            self.delegated.append(label)


def _as_bytes(target: str, indent: str) -> list[str]:
    """Lines making a slice of the data bytes (the data may be a memoryview, a bytearray; bytes: kept)."""
    return [f"{indent}if {target}.__class__ is not bytes:", f"{indent}    {target} = bytes({target})"]


def compile_variable(declaration: cs.Construct, name: str, fixed_codec: Callable[[cs.Construct, bool], Any],
                     options: Options = _NO_OPTIONS) -> VariableFunctions:
    """The generated ``read``/``decode``/``encode`` of a variable-layout declaration; :class:`NoPlan` when it
    cannot be. ``fixed_codec(con, run)`` gives the codec of a fixed-size part (``run``: a struct of fields made
    here, not to be cached); its ``plan``, ``size``, ``decode``, ``unpack`` and ``encode`` are used.
    ``options``: see :mod:`.varoptions` (a ``stored`` path met nowhere is a ``ValueError``)."""
    generator = _Generator(name, fixed_codec, options)
    decode_lines: list[str] = []
    encode_lines: list[str] = []
    generator.decode(declaration, "", "value", Scope(root=True), decode_lines, "        ")
    check_kept(name, options, generator.kept)
    generator.encode(declaration, "", "value", Scope(root=True), encode_lines, "        ")
    called = re.fullmatch(r" +value, pos = (_s\d+)\(data, pos, end, (?:up|None)\)", decode_lines[0]) \
        if len(decode_lines) == 1 else None
    if called is not None and called.group(1) in generator.bodies:  # the declaration's struct read in place
        lines, value = generator.bodies[called.group(1)]
        decode_lines = [f"    {line}" for line in lines] + [f"        value = {value}"]
    called = re.fullmatch(r" +(_w\d+)\(value, o, (?:up|None)\)", encode_lines[0]) if len(encode_lines) == 1 else None
    if called is not None and called.group(1) in generator.writer.bodies:
        encode_lines = ["        obj = value", *(f"    {line}" for line in generator.writer.bodies[called.group(1)])]
    uses_up = any(re.search(r"\bup\b", line) for line in decode_lines)
    prologue = ["    pos = offset", "    if end is None:", "        end = len(data)",
                *(["    up = _ROOT if params is None else params if params.__class__ is _Root and not "
                   "params['_building'] else _root(params, False)"] if uses_up else []), "    try:", *decode_lines,
                "    except _FormatError as error:", "        raise error.located(file=file)"]
    source = "\n".join([
        *generator.functions,
        "def read(data, offset=0, end=None, params=None, file=None):", *prologue, "    return value, pos", "",
        "def decode(data, offset=0, file=None, *, end=None, params=None):", *prologue, "    return value", "",
        "def encode(value, params=None):",
        "    o = []",
        *(["    up = _ROOT_BUILD if params is None else params if params.__class__ is _Root and params['_building'] "
           "else _root(params, True)"] if any(re.search(r"\bup\b", line) for line in encode_lines) else []),
        "    try:",
        *encode_lines,
        "    except _FormatError:",
        "        raise",
        "    except _ENCODE_ERRORS as exc:",
        "        raise _inv('', f'cannot encode: {type(exc).__name__}: {exc}', value) from exc",
        "    return b''.join(o)",
        "",
    ])
    namespace = dict(generator.names)
    namespace.update(_ROOT=root_context({}, False), _ROOT_BUILD=root_context({}, True),
                     _ENCODE_ERRORS=(TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError,
                                     cs.ConstructError))
    filename = f"<variable codec {name} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    generator.bit_runs.fill(namespace)
    return VariableFunctions(namespace["decode"], namespace["encode"], source, generator.types,
                             tuple(generator.delegated), namespace["read"])
