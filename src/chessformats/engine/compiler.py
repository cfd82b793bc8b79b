"""Python source generated from a declaration's :class:`~.plan.Plan`: specialised decode/encode functions.

For a fixed-size record the whole record is one :func:`struct.unpack_from` call (its format derived slot by
slot), then each field is an expression over the slots: a shift and a mask for a bit field, a table lookup
for an enum, ``int.from_bytes`` for a 3-byte integer. The source is compiled once per declaration
(:func:`compile_functions`) and kept in :mod:`linecache`, so tracebacks show it.

Generated functions (all raise the project's errors, never ``struct.error``):

``decode(data, offset=0, file=None)``
    the record as nested named tuples, as construct parses it (enums as names, flags as bools);
    a short buffer is a :class:`~.errors.TruncatedError` naming the first field cut off.
``unpack(data, offset=0, file=None)``
    the leaf values as one flat tuple, numbers only (enum values as integers): the hot-loop form.
``encode(value)``
    bytes from a named tuple, any tuple in field order, or a mapping (a dict, a construct ``Container``);
    enums from names or integers. A value out of range is an :class:`~.errors.InvalidValueError` with
    its field path.
``pack(*leaves)``
    the inverse of ``unpack``.
"""

from __future__ import annotations

import collections
import itertools
import linecache
import struct
from collections.abc import Callable
from typing import Any, NamedTuple

import construct as cs

from .errors import FormatError, InvalidValueError
from .plan import Leaf, Node, Plan, Slot

__all__ = ["Functions", "compile_functions", "record_types"]


class Functions(NamedTuple):
    decode: Callable[..., Any]
    unpack: Callable[..., tuple[Any, ...]]
    encode: Callable[[Any], bytes]
    pack: Callable[..., bytes]
    source: str
    format: str
    """The :mod:`struct` format of the whole record."""
    types: dict[str, type]
    """The named-tuple type of every struct, by path (``""``: the record)."""


class _Bad(Exception):
    """Raised inside generated encoders; the caller explains it with a located error."""


class _EnumMap(dict[int, Any]):
    """value -> name (construct's ``EnumIntegerString``); an unknown value decodes to itself, as in construct."""

    def __missing__(self, key: int) -> Any:
        return cs.EnumInteger(key)


_counter = itertools.count()


def record_types(root: Node) -> dict[str, type]:
    """A named tuple per struct node, fields = its named children."""
    types: dict[str, type] = {}

    def visit(node: Node) -> None:
        if node.kind == "struct":
            names = [child.name for child in node.children if child.name]
            title = "".join(part.capitalize() for part in (node.name or "record").split("_")) or "Record"
            types[node.path] = collections.namedtuple(title, names, rename=True)
        for child in node.children:
            visit(child)

    visit(root)
    return types


def _token(slot: Slot, little: bool) -> str:
    """The struct code reading ``slot`` within a record of byte order ``little``."""
    if slot.code and (slot.size == 1 or slot.little == little):
        return slot.code
    return f"{slot.size}s"


def _record_order(slots: list[Slot]) -> bool:
    """Little-endian when the first multi-byte number is."""
    return next((s.little for s in slots if s.size > 1 and s.kind != "bytes" and s.code), False)


class _Generator:
    def __init__(self, plan: Plan, types: dict[str, type], enums: str = "names", records: str = "named") -> None:
        self.plan = plan
        self.types = types
        self.enums = enums
        self.records = records
        self.little = _record_order(plan.slots)
        self.tokens = [_token(slot, self.little) for slot in plan.slots]
        self.format = ("<" if self.little else ">") + "".join(self.tokens)
        self.split = {index for index, slot in enumerate(plan.slots)
                      if slot.kind == "int" and slot.size == 3 and slot.little == self.little}
        """3-byte integers in the record's byte order: read as a byte and a 16-bit word (no int.from_bytes)."""
        pieces = "BH" if not self.little else "HB"
        decode_format = ("<" if self.little else ">") + "".join(
            pieces if index in self.split else token for index, token in enumerate(self.tokens))
        self.names: dict[str, Any] = {
            "_unpack_from": struct.Struct(decode_format).unpack_from, "_pack": struct.Struct(self.format).pack,
            "_ifb": int.from_bytes, "_tn": tuple.__new__, "_Bad": _Bad, "_CTX": cs.Container(), "_C": cs.Container,
            "_L": cs.ListContainer,
        }
        self.leaf_index = {id(leaf): index for index, leaf in enumerate(plan.leaves)}
        self.fresh = itertools.count()

    def bind(self, prefix: str, value: Any) -> str:
        name = f"_{prefix}{next(self.fresh)}"
        self.names[name] = value
        return name

    # --- decoding -------------------------------------------------------------------------------------

    def slot_value(self, index: int) -> str:
        """The slot as a number (or bytes), from the unpacked ``s<index>``."""
        slot, token = self.plan.slots[index], self.tokens[index]
        var = f"s{index}"
        if slot.kind == "bytes" or token == slot.code:
            return var
        if index in self.split:
            number = f"({var}h << 16 | {var}l)"
            return f"({number} - ({number} >> 23 << 24))" if slot.signed else number
        order = "'little'" if slot.little else "'big'"
        if slot.kind == "float":
            reader = self.bind("f", struct.Struct(("<" if slot.little else ">") + slot.code).unpack)
            return f"{reader}({var})[0]"
        return f"_ifb({var}, {order}, signed={slot.signed})"

    def slot_var(self, index: int) -> str:
        """The local holding slot ``index`` as a number: the unpacked value itself when no conversion is needed."""
        slot = self.plan.slots[index]
        return f"s{index}" if slot.kind == "bytes" or self.tokens[index] == slot.code else f"r{index}"

    def leaf_number(self, leaf: Leaf) -> str:
        slot = self.plan.slots[leaf.slot]
        var = self.slot_var(leaf.slot)
        if leaf.width:
            shifted = f"{var} >> {leaf.shift}" if leaf.shift else var
            expr = f"({shifted})" if leaf.shift + leaf.width == 8 * slot.size else f"({shifted} & {leaf.mask})"
            if leaf.value == "flag":
                return f"({expr} != 0)"
            if leaf.signed:
                return f"({expr} - ({expr} >> {leaf.width - 1} << {leaf.width}))"
            return expr
        if leaf.value == "flag":
            return f"({var} != 0)"
        return var

    def leaf_value(self, leaf: Leaf) -> str:
        number = self.leaf_number(leaf)
        if leaf.enum is None:
            return number
        if self.enums == "names":
            return f"{self.bind('e', _EnumMap(leaf.enum.decmapping))}[{number}]"
        if self.enums == "checked":
            valid = self.bind("v", frozenset(leaf.enum.decmapping))
            return f"({number} if {number} in {valid} else _bad_enum({self.leaf_index[id(leaf)]}, {number}, offset, " \
                   "file))"
        return number

    def node_value(self, node: Node, container: bool = False) -> str:
        if node.kind == "leaf":
            assert node.leaf is not None
            return self.leaf_value(node.leaf)
        if node.kind == "struct":
            named = [child for child in node.children if child.name]
            if container:
                items = ", ".join(f"{child.name}={self.node_value(child, True)}" for child in named)
                return f"_C({items})"
            items = "".join(self.node_value(child) + ", " for child in named)
            if self.records == "tuples":
                return f"({items})"
            record = self.bind("T", self.types[node.path])  # tuple.__new__: no Python frame of the named tuple's own
            return f"_tn({record}, ({items}))"
        if node.kind == "array":
            items = ", ".join(self.node_value(child, container) for child in node.children)
            return f"_L([{items}])" if container else f"[{items}]"
        adapter = self.bind("a", node.con)
        return f"{adapter}._decode({self.node_value(node.children[0], True)}, _CTX, {node.path!r})"

    def decode_prologue(self) -> list[str]:
        slots = ", ".join((f"s{i}h, s{i}l" if not self.little else f"s{i}l, s{i}h") if i in self.split else f"s{i}"
                          for i in range(len(self.plan.slots)))
        lines = ["    try:", f"        ({slots},) = _unpack_from(data, offset)", "    except _StructError:",
                 "        raise _truncated(data, offset, file) from None"]
        for index in range(len(self.plan.slots)):
            if self.slot_var(index) != f"s{index}":
                lines.append(f"    r{index} = {self.slot_value(index)}")
        for index, leaf in enumerate(self.plan.leaves):
            if leaf.has_const:
                lines.append(f"    if {self.leaf_number(leaf)} != {self.bind('k', leaf.const)}:")
                lines.append(f"        raise _bad_const({index}, {self.leaf_number(leaf)}, offset, file)")
        return lines

    # --- encoding -------------------------------------------------------------------------------------

    def destructure(self, node: Node, var: str, lines: list[str], indent: str) -> None:
        """Statements that bind every leaf under ``node`` (held in ``var``) to ``x<leaf index>``."""
        if node.kind == "leaf":
            assert node.leaf is not None
            lines.append(f"{indent}x{self.leaf_index[id(node.leaf)]} = {var}")
            return
        if node.kind == "adapter":
            adapter = self.bind("a", node.con)
            inner = f"v{next(self.fresh)}"
            lines.append(f"{indent}{inner} = {adapter}._encode({var}, _CTX, {node.path!r})")
            self.destructure(node.children[0], inner, lines, indent)
            return
        children = [(child, f"v{next(self.fresh)}") for child in node.children]
        if node.kind == "array":
            lines.append(f"{indent}if len({var}) != {node.count}:")
            lines.append(f"{indent}    raise _Bad")
            lines.append(f"{indent}{', '.join(name for _, name in children)}, = {var}")
        else:
            for child, _ in children:
                if not child.name and not (child.leaf is not None and child.leaf.has_const):
                    raise TypeError(f"{node.path or 'the record'}: an unnamed field that is not a constant")
            named = [(child, name) for child, name in children if child.name]
            lines.append(f"{indent}if isinstance({var}, tuple):")
            lines.append(f"{indent}    {', '.join(name for _, name in named)}, = {var}" if named
                         else f"{indent}    pass")
            lines.append(f"{indent}else:")
            for child, name in named:
                has_const = child.leaf is not None and child.leaf.has_const
                access = f"{var}.get({child.name!r})" if has_const else f"{var}[{child.name!r}]"
                lines.append(f"{indent}    {name} = {access}")
            for child, name in children:
                if not child.name:
                    lines.append(f"{indent}{name} = None")
        for child, name in children:
            self.destructure(child, name, lines, indent)

    def encode_body(self, indent: str) -> list[str]:
        """Statements from the leaf variables ``x<i>`` to ``return _pack(...)``."""
        lines: list[str] = []
        checks: list[str] = []
        for index, leaf in enumerate(self.plan.leaves):
            var = f"x{index}"
            if leaf.enum is not None:
                lines.append(f"{indent}{var} = {self.bind('d', leaf.enum.encmapping)}.get({var}, {var})")
                if self.enums == "checked":  # a number must be a value of the enumeration, as when decoding
                    lines.append(f"{indent}if {var} not in {self.bind('v', frozenset(leaf.enum.decmapping))}:")
                    lines.append(f"{indent}    raise _Bad")
            if leaf.has_const:
                constant = self.bind("k", leaf.const)
                lines.append(f"{indent}if {var} is not None and {var} != {constant}:")
                lines.append(f"{indent}    raise _Bad")
                lines.append(f"{indent}{var} = {constant}")
            if leaf.value == "flag":
                lines.append(f"{indent}{var} = 1 if {var} else 0")
            elif leaf.width and leaf.signed:  # checked before it is masked to its two's complement bits
                half = 1 << (leaf.width - 1)
                lines.append(f"{indent}if not {-half} <= {var} < {half}:")
                lines.append(f"{indent}    raise _Bad")
                lines.append(f"{indent}{var} = {var} & {leaf.mask}")
            elif leaf.width:
                checks.append(f"{var} >> {leaf.width}")
            elif leaf.value == "bytes":
                checks.append(f"len({var}) != {self.plan.slots[leaf.slot].size}")
        for start in range(0, len(checks), 8):
            lines.append(f"{indent}if {' or '.join(checks[start:start + 8])}:")
            lines.append(f"{indent}    raise _Bad")
        by_slot: dict[int, list[int]] = {}
        for index, leaf in enumerate(self.plan.leaves):
            by_slot.setdefault(leaf.slot, []).append(index)
        values = [self.slot_encoding(index, by_slot.get(index, [])) for index in range(len(self.plan.slots))]
        lines.append(f"{indent}return _pack({', '.join(values)})")
        return lines

    def slot_encoding(self, index: int, leaves: list[int]) -> str:
        slot, token = self.plan.slots[index], self.tokens[index]
        parts = []
        for leaf_index in leaves:
            leaf = self.plan.leaves[leaf_index]
            parts.append(f"x{leaf_index} << {leaf.shift}" if leaf.shift else f"x{leaf_index}")
        number = parts[0] if len(parts) == 1 else f"({' | '.join(parts) or '0'})"
        if slot.kind == "bytes" or token == slot.code:
            return number
        if slot.kind == "float":
            writer = self.bind("p", struct.Struct(("<" if slot.little else ">") + slot.code).pack)
            return f"{writer}({number})"
        order = "'little'" if slot.little else "'big'"
        return f"{number}.to_bytes({slot.size}, {order}, signed={slot.signed})"

    # --- the module ------------------------------------------------------------------------------------

    def source(self) -> str:
        root = self.plan.root
        leaves = [f"x{i}" for i in range(len(self.plan.leaves))]
        lines = ["def decode(data, offset=0, file=None):", *self.decode_prologue(),
                 f"    return {self.node_value(root)}", "",
                 "def unpack(data, offset=0, file=None):", *self.decode_prologue(),
                 f"    return ({''.join(self.leaf_number(leaf) + ', ' for leaf in self.plan.leaves)})", "",
                 "def encode(value):", "    try:"]
        self.destructure(root, "value", lines, "        ")
        lines += self.encode_body("        ")
        lines += ["    except _ENCODE_ERRORS:", "        pass", "    raise _explain(value)", "",
                  f"def pack({', '.join(leaves)}):", "    try:"]
        lines += self.encode_body("        ")
        packed = "".join(f"{leaf}, " for leaf in leaves)
        lines += ["    except _ENCODE_ERRORS:", "        pass", f"    raise _explain_leaves(({packed}))", ""]
        return "\n".join(lines)


def compile_functions(plan: Plan, name: str, *, truncated: Callable[..., FormatError],
                      bad_const: Callable[..., FormatError], explain: Callable[[Any], InvalidValueError],
                      explain_leaves: Callable[[tuple[Any, ...]], InvalidValueError],
                      bad_enum: Callable[..., FormatError] | None = None, enums: str = "names",
                      records: str = "named") -> Functions:
    """Generate, compile and return the functions of ``plan`` (``name`` labels the source in tracebacks).
    ``enums``/``records``: what ``decode`` gives (:mod:`.varoptions`: a fixed part of a variable layout decoded
    with the layout's options); ``bad_enum(index, value, offset, file)``: the error of a checked enum leaf."""
    types = record_types(plan.root)
    generator = _Generator(plan, types, enums, records)

    def raise_enum(index: int, value: int, offset: int, file: Any) -> Any:
        assert bad_enum is not None
        raise bad_enum(index, value, offset, file)

    source = generator.source()
    namespace = dict(generator.names)
    namespace.update(_StructError=struct.error, _truncated=truncated, _bad_const=bad_const, _bad_enum=raise_enum,
                     _explain=explain,
                     _explain_leaves=explain_leaves,
                     _ENCODE_ERRORS=(struct.error, TypeError, ValueError, KeyError, IndexError, AttributeError,
                                     OverflowError, _Bad, cs.ConstructError))
    filename = f"<codec {name} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return Functions(namespace["decode"], namespace["unpack"], namespace["encode"], namespace["pack"], source,
                     generator.format, types)
