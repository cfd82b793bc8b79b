"""The plan of a fixed-size declaration: its fields as a tree, its bytes as typed slots.

:func:`plan` walks a construct declaration once and gives what the generated codecs (:mod:`.codec`) are made
from: a tree of :class:`Node`\\ s (structs, fixed arrays, adapters, leaves, in declaration order, with their
paths) and the record's bytes cut into :class:`Slot`\\ s, each read by one :mod:`struct` code. A leaf is a
whole slot (an integer, bytes, a flag, a constant) or a bit field of one (a bit run read as one integer,
big- or little-endian). Offsets, widths, shifts and masks all come from the declaration here, nowhere else.

Only fixed-size layouts have a plan; anything else raises :class:`NoPlan`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import construct as cs

from .bitruns import bit_run
from .errors import join_path
from .schema import BitsUnsigned, strip_renamed

__all__ = ["Leaf", "NoPlan", "Node", "Plan", "Slot", "plan"]


class NoPlan(TypeError):
    """The declaration has no fixed layout the generated codec handles (variable size, custom construct)."""


@dataclass
class Slot:
    """``size`` bytes at ``offset``: an integer (``kind`` ``"int"``/``"float"``) or raw bytes (``"bytes"``)."""

    offset: int
    size: int
    kind: str
    little: bool = False
    signed: bool = False
    code: str = ""
    """The struct code of a number (``"H"``, ``"q"``, ``"f"``); empty for sizes struct has no code for."""


@dataclass
class Node:
    """One field of the tree. ``kind``: ``"struct"``, ``"array"``, ``"adapter"`` or ``"leaf"``."""

    kind: str
    path: str
    name: str
    con: cs.Construct
    children: list[Node] = field(default_factory=list)
    count: int = 0
    """For arrays: the number of elements (``children`` holds one node per element)."""
    leaf: Leaf | None = None


@dataclass
class Leaf:
    """A value: a whole slot or, with ``width`` set, bits ``shift .. shift + width - 1`` of the slot's integer."""

    path: str
    slot: int
    value: str
    """``"int"``, ``"float"``, ``"bytes"``, ``"flag"`` (a byte or a bit: True when not zero)."""
    shift: int = 0
    width: int = 0
    signed: bool = False
    enum: cs.Enum | None = None
    const: Any = None
    has_const: bool = False

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass
class Plan:
    root: Node
    slots: list[Slot]
    leaves: list[Leaf]
    size: int


_FLOAT_CODES = {"e": 2, "f": 4, "d": 8}
_FLAG = type(cs.Flag)  # construct's Flag is an instance of a class of the same name
_INT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}


def plan(con: cs.Construct) -> Plan:
    """The plan of a fixed-size declaration; raises :class:`NoPlan` for anything else."""
    builder = _Builder()
    root = builder.node(con, "", "")
    return Plan(root, builder.slots, builder.leaves, builder.offset)


class _Builder:
    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self.leaves: list[Leaf] = []
        self.offset = 0

    def slot(self, size: int, kind: str, *, little: bool = False, signed: bool = False, code: str = "") -> int:
        self.slots.append(Slot(self.offset, size, kind, little, signed, code))
        self.offset += size
        return len(self.slots) - 1

    def add_leaf(self, con: cs.Construct, path: str, name: str, leaf: Leaf) -> Node:
        self.leaves.append(leaf)
        return Node("leaf", path, name, con, leaf=leaf)

    def node(self, con: cs.Construct, path: str, name: str) -> Node:
        if isinstance(con, cs.Renamed):
            inner, sub_name, _ = strip_renamed(con)
            return self.node(inner, join_path(path, sub_name), sub_name or name)
        run = bit_run(con)
        if run is not None:
            if run.size is None or run.size <= 0:
                raise NoPlan(f"{path or 'the declaration'}: a bit run of no fixed size")
            index = self.slot(run.size, "int", little=run.little_endian,
                              code=_INT_CODES.get(run.size, ""))
            bits = _BitWalker(self, index, 8 * run.size)
            node = bits.node(run.fields, path, name)
            if bits.position != 8 * run.size:
                raise NoPlan(f"{path or 'the declaration'}: the bit fields fill {bits.position} of "
                             f"{8 * run.size} bits")
            return node
        if isinstance(con, cs.Struct):
            node = Node("struct", path, name, con)
            for sub in con.subcons:
                node.children.append(self.node(sub, path, name))
            return node
        if isinstance(con, cs.Array):
            if not isinstance(con.count, int) or con.discard:
                raise NoPlan(f"{path}: an array whose length depends on the data")
            node = Node("array", path, name, con, count=con.count)
            node.children = [self.node(con.subcon, f"{path}[{i}]", name) for i in range(con.count)]
            return node
        if isinstance(con, cs.Enum):
            node = self.node(con.subcon, path, name)
            if node.leaf is None or node.leaf.value != "int":
                raise NoPlan(f"{path}: an enum over something other than an integer")
            node.leaf.enum = con
            node.con = con
            return node
        if isinstance(con, cs.Default):  # a value for construct's build to fill in; the layout is the field's
            return self.node(con.subcon, path, name)
        if isinstance(con, cs.Const):
            node = self.node(con.subcon, path, name)
            if node.leaf is None:
                raise NoPlan(f"{path}: a constant over a structure")
            node.leaf.const, node.leaf.has_const = con.value, True
            node.con = con
            return node
        if isinstance(con, cs.Adapter) and not isinstance(con, cs.Enum):
            inner = self.node(con.subcon, path, name)
            return Node("adapter", path, name, con, children=[inner])
        return self.byte_leaf(con, path, name)

    def byte_leaf(self, con: cs.Construct, path: str, name: str) -> Node:
        if isinstance(con, cs.FormatField):
            order, code = con.fmtstr[0], con.fmtstr[1:]
            if order not in "<>!" or len(code) != 1:
                raise NoPlan(f"{path}: a native-order or compound struct format {con.fmtstr!r}")
            size = con.length
            if code in _FLOAT_CODES:
                index = self.slot(size, "float", little=order == "<", code=code)
                return self.add_leaf(con, path, name, Leaf(path, index, "float"))
            if code == "?":
                index = self.slot(1, "int", code="B")
                return self.add_leaf(con, path, name, Leaf(path, index, "flag"))
            index = self.slot(size, "int", little=order == "<", signed=code.islower(), code=code)
            return self.add_leaf(con, path, name, Leaf(path, index, "int"))
        if isinstance(con, cs.BytesInteger) and isinstance(con.length, int) and isinstance(con.swapped, bool):
            signed = bool(con.signed)
            code = _INT_CODES.get(con.length, "")
            index = self.slot(con.length, "int", little=con.swapped, signed=signed,
                              code=code.lower() if signed else code)
            return self.add_leaf(con, path, name, Leaf(path, index, "int"))
        if isinstance(con, cs.Bytes) and isinstance(con.length, int):
            index = self.slot(con.length, "bytes")
            return self.add_leaf(con, path, name, Leaf(path, index, "bytes"))
        if isinstance(con, _FLAG):
            index = self.slot(1, "int", code="B")
            return self.add_leaf(con, path, name, Leaf(path, index, "flag"))
        raise NoPlan(f"{path or 'the declaration'}: {type(con).__name__} is not a fixed-size field the codec knows")


class _BitWalker:
    """Fields of one bit run, from its most significant bit down."""

    def __init__(self, builder: _Builder, slot: int, width: int) -> None:
        self.builder = builder
        self.slot = slot
        self.width = width
        self.position = 0

    def take(self, bits: int, path: str) -> int:
        """The shift of the next ``bits`` bits."""
        if bits <= 0 or self.position + bits > self.width:
            raise NoPlan(f"{path}: {bits} bits do not fit in the run")
        self.position += bits
        return self.width - self.position

    def node(self, con: cs.Construct, path: str, name: str) -> Node:
        if isinstance(con, cs.Renamed):
            inner, sub_name, _ = strip_renamed(con)
            return self.node(inner, join_path(path, sub_name), sub_name or name)
        if isinstance(con, cs.Struct):
            node = Node("struct", path, name, con)
            node.children = [self.node(sub, path, name) for sub in con.subcons]
            return node
        if isinstance(con, cs.Enum):
            node = self.node(con.subcon, path, name)
            if node.leaf is None or node.leaf.value != "int":
                raise NoPlan(f"{path}: an enum over something other than an integer")
            node.leaf.enum = con
            node.con = con
            return node
        if isinstance(con, cs.BitsInteger) and isinstance(con.length, int) and con.swapped is False:
            shift = self.take(con.length, path)
            leaf = Leaf(path, self.slot, "int", shift, con.length, bool(con.signed))
            return self.builder.add_leaf(con, path, name, leaf)
        if isinstance(con, BitsUnsigned) and isinstance(con.length, int):
            if con.length == 0:
                raise NoPlan(f"{path}: a field of 0 bits")
            shift = self.take(con.length, path)
            return self.builder.add_leaf(con, path, name, Leaf(path, self.slot, "int", shift, con.length))
        if isinstance(con, _FLAG):
            shift = self.take(1, path)
            return self.builder.add_leaf(con, path, name, Leaf(path, self.slot, "flag", shift, 1))
        raise NoPlan(f"{path or 'the declaration'}: {type(con).__name__} in a bit run is not a field the codec knows")
