"""One leaf value at a time, for :mod:`.codec`'s ``Field`` accessors and the explanations of its encoders'
errors: a slot's bytes as a number and back, a leaf's value from its number and back, range and type checks,
a slot as a numpy column."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

import construct as cs

from .errors import InvalidValueError
from .plan import Leaf, Node, Plan, Slot

if TYPE_CHECKING:
    import numpy as np

__all__ = ["check_leaf", "check_node", "leaf_from_number", "leaf_range", "leaf_to_number", "slot_bytes",
           "slot_column", "slot_number"]


def slot_number(slot: Slot, raw: bytes) -> Any:
    if slot.kind == "bytes":
        return raw
    if slot.kind == "float":
        return struct.unpack(("<" if slot.little else ">") + slot.code, raw)[0]
    return int.from_bytes(raw, "little" if slot.little else "big", signed=slot.signed)


def slot_bytes(slot: Slot, number: Any) -> bytes:
    if slot.kind == "bytes":
        return bytes(number)
    if slot.kind == "float":
        return struct.pack(("<" if slot.little else ">") + slot.code, number)
    return int(number).to_bytes(slot.size, "little" if slot.little else "big", signed=slot.signed)


def leaf_from_number(leaf: Leaf, word: Any) -> Any:
    value = word
    if leaf.width:
        value = (word >> leaf.shift) & leaf.mask
        if leaf.signed and value >> (leaf.width - 1):
            value -= 1 << leaf.width
    if leaf.value == "flag":
        return value != 0
    if leaf.enum is not None:
        return leaf.enum._decode(value, None, leaf.path)
    return value


def leaf_range(leaf: Leaf, slot: Slot) -> tuple[int, int]:
    bits = leaf.width or 8 * slot.size
    if leaf.signed or (not leaf.width and slot.signed):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def leaf_to_number(leaf: Leaf, slot: Slot, value: Any) -> Any:
    """The number (bytes, float) ``value`` is stored as; InvalidValueError when it cannot be."""
    check_leaf(leaf, slot, value)
    if leaf.has_const and value is None:
        value = leaf.const
    if leaf.value == "flag":
        return 1 if value else 0
    if leaf.enum is not None and not isinstance(value, int):
        value = leaf.enum.encmapping[value]
    if leaf.value in ("bytes", "float"):
        return value
    return value & leaf.mask if leaf.width and leaf.signed else value


def check_leaf(leaf: Leaf, slot: Slot, value: Any) -> None:
    def bad(reason: str, expected: Any = None) -> InvalidValueError:
        return InvalidValueError(reason, expected=expected, actual=value, path=leaf.path)

    if leaf.has_const:
        if value is not None and value != leaf.const:
            raise bad("wrong constant", repr(leaf.const))
        return
    if leaf.value == "flag":
        return
    if leaf.value == "bytes":
        if not isinstance(value, (bytes, bytearray, memoryview)) or len(value) != slot.size:
            raise bad("wrong bytes", f"{slot.size} bytes")
        return
    if leaf.value == "float":
        if not isinstance(value, (int, float)):
            raise bad("not a number")
        return
    if leaf.enum is not None and not isinstance(value, int):
        if not isinstance(value, str) or value not in leaf.enum.encmapping:
            raise bad("not a name of the enumeration", ", ".join(sorted(map(str, leaf.enum.encmapping))))
        return
    if not isinstance(value, int):
        raise bad("not an integer")
    low, high = leaf_range(leaf, slot)
    if not low <= value <= high:
        raise bad("out of range", f"{low}..{high}")


def check_node(plan_: Plan, node: Node, value: Any) -> None:
    if node.kind == "leaf":
        assert node.leaf is not None
        check_leaf(node.leaf, plan_.slots[node.leaf.slot], value)
        return
    if node.kind == "adapter":
        try:
            inner = node.con._encode(value, cs.Container(), node.path)
        except Exception as exc:
            raise InvalidValueError(f"cannot encode: {exc}", actual=value, path=node.path or None) from exc
        check_node(plan_, node.children[0], inner)
        return
    if node.kind == "array":
        if not hasattr(value, "__len__") or len(value) != node.count:
            raise InvalidValueError("wrong number of elements", expected=node.count, actual=value,
                                    path=node.path or None)
        for child, item in zip(node.children, value, strict=True):
            check_node(plan_, child, item)
        return
    named = [child for child in node.children if child.name]
    if isinstance(value, tuple):
        if len(value) != len(named):
            raise InvalidValueError("wrong number of fields", expected=len(named), actual=value,
                                    path=node.path or None)
        items = list(zip(named, value, strict=True))
    elif hasattr(value, "get") and hasattr(value, "__contains__"):
        for child in named:
            if child.name not in value and not (child.leaf is not None and child.leaf.has_const):
                raise InvalidValueError("missing field", path=child.path)
        items = [(child, value.get(child.name)) for child in named]
    else:
        raise InvalidValueError("not a tuple or a mapping", actual=value, path=node.path or None)
    for child, item in items:
        check_node(plan_, child, item)


def slot_column(slot: Slot, matrix: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    import numpy as np

    part = matrix[:, slot.offset:slot.offset + slot.size]
    if slot.kind == "bytes":
        return part
    if slot.kind == "float":
        return np.ascontiguousarray(part).view(f"{'<' if slot.little else '>'}f{slot.size}").ravel()
    word = np.zeros(len(matrix), dtype=np.uint64)
    order = range(slot.size - 1, -1, -1) if slot.little else range(slot.size)
    for index in order:
        word = (word << np.uint64(8)) | part[:, index].astype(np.uint64)
    if slot.signed:
        bits = 8 * slot.size
        signed = word.astype(np.int64)
        return signed - ((signed >> (bits - 1)) & 1) * (1 << bits) if bits < 64 else word.view(np.int64)
    return word
