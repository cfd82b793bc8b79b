"""The options of a generated variable-layout codec (:mod:`.varcodec`) and the code they change.

- ``stored``: paths of fields decoded as they are stored, and encoded from that form: the integer of a
  fixed-size field stored as one integer (a bit structure's whole word: ``flags``), else the field's bytes
  (a prefix-coded board kept as its 22 bytes). A reader that needs the bytes (a key compared as bytes) or the
  word skips decoding them.
- ``enums``: ``"names"`` (construct's values), ``"numbers"`` (the stored integers: an enum that is a field, an
  array's items, a leaf of a run of plain fields, or anywhere inside a fixed part read whole), ``"checked"``
  (numbers, each a value of its enumeration, else :class:`~.errors.InvalidValueError` at its offset, as when
  decoding, so when encoding). A layout the engine cannot generate refuses options (construct knows none).
- ``stored`` names fields the layout reads on their own; a path inside a fixed part read whole, or of no field,
  is a ``ValueError`` when the codec is made.
- ``records``: ``"named"`` (a struct decodes to a named tuple, the codec's ``types``) or ``"tuples"`` (plain
  tuples in field order: cheaper to make, for a reader that unpacks them at once). A fixed part read whole stays a
  named tuple (the layout's expressions read its fields by name); a fixed layout's own ``decode`` takes the option.

Also here: the test of a :class:`~.conditions.FlagSet` condition as a direct expression.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .plan import NoPlan, Plan

__all__ = ["ENUM_MODES", "RECORD_MODES", "EnumParts", "Options", "check_kept", "condition_source", "enum_parts",
           "inline_number", "stored_form"]

ENUM_MODES = ("names", "numbers", "checked")
RECORD_MODES = ("named", "tuples")


class Options(NamedTuple):
    stored: frozenset[str] = frozenset()
    enums: str = "names"
    records: str = "named"


class EnumParts(NamedTuple):
    """How a fixed part with enum leaves is read when enums are numbers."""

    decode: Callable[..., Any]
    """The fixed codec's ``unpack``: the leaves as numbers, in a tuple."""
    single: bool
    """The part is one enum leaf: the tuple's one item is the value."""
    number: str
    """A single leaf's struct format (an array of them is read in one call)."""
    checks: tuple[tuple[int, int, frozenset[int]], ...]
    """``(index in the tuple, byte offset in the part, the enumeration's values)`` of each enum leaf (checked)."""


def enum_parts(plan_: Plan, unpack: Callable[..., Any], run: bool, options: Options) -> EnumParts | None:
    """The reading of a fixed part by its codec's ``unpack`` (``run``: a run of struct fields, read into locals):
    enum leaves as numbers, or (``records="tuples"``) a struct of plain numbers as a tuple. None when the
    options leave the part to its ``decode``, or it is not one leaf or a struct of whole plain leaves."""
    leaves = plan_.leaves
    enums = any(leaf.enum is not None for leaf in leaves)
    if enums and options.enums == "names":
        return None
    root = plan_.root
    single = root.kind == "leaf"
    if not (enums or (options.records == "tuples" and not single and not run)):
        return None
    if not single and not all(child.kind == "leaf" for child in root.children):
        return None
    if any(leaf.width or leaf.value != "int" or leaf.has_const for leaf in leaves):
        return None
    checks = tuple((index, plan_.slots[leaf.slot].offset, frozenset(leaf.enum.decmapping))
                   for index, leaf in enumerate(leaves) if leaf.enum is not None and options.enums == "checked")
    number = ""
    if single:
        slot = plan_.slots[leaves[0].slot]
        number = f"{'<' if slot.little else '>'}{slot.code}" if slot.code else ""
    return EnumParts(unpack, single, number, checks)


def check_kept(name: str, options: Options, kept: set[str]) -> None:
    """A ``ValueError`` unless every ``stored`` path was met as a field read on its own (``kept``)."""
    if options.stored - kept:  # a path inside a part read whole, or no field's
        missing = ", ".join(sorted(options.stored - kept))
        raise ValueError(f"{name}: stored: no field kept as stored at {missing} (a field of a fixed part is read "
                         "with its part: name the part)")


def inline_number(number: str, size: int) -> str:
    """An expression reading the unsigned integer of struct format ``number`` at ``data[pos]`` ("": none)."""
    if len(number) != 2 or number[1] not in "BHILQ":
        return ""
    if number[1] == "B":
        return "data[pos]"
    return f"_ifb(data[pos:pos + {size}], {'little' if number[0] == '<' else 'big'!r})"


def stored_form(derived: Any, path: str) -> tuple[int, str]:
    """``(size, byte order)`` of a fixed part kept as its stored integer; ``(size, "")``: kept as its bytes."""
    plan_ = derived.plan
    if plan_ is None or derived.size is None:
        raise NoPlan(f"{path}: kept as stored, but not of a fixed size")
    if len(plan_.slots) == 1 and plan_.slots[0].kind == "int" and not plan_.slots[0].signed:
        return int(derived.size), "little" if plan_.slots[0].little else "big"
    return int(derived.size), ""


def flag_mask(derived: Any, flag: str) -> int:
    """The bits of ``flag`` in the stored integer of a bit structure (its codec ``derived``)."""
    field = derived.field(flag)
    return int(field.mask << field.shift)


def condition_source(condition: Any, names: dict[str, str], stored: dict[str, Any], building: bool,
                     bind: Callable[[str, Any], str], parent: str) -> str | None:
    """A :class:`~.conditions.FlagSet` as an expression over the locals ``names`` (field -> variable; ``stored``:
    field -> codec of the fields kept as their integer); ``parent``: the context its parameter is looked up
    from. None: not such a condition, or its field is not read yet."""
    test = getattr(type(condition), "flag_test", None) and condition.flag_test
    if not isinstance(test, tuple):
        return None
    field, flag = test
    var = names.get(field)
    if var is None:
        return None
    if field in stored:
        source = f"({var} & {flag_mask(stored[field], flag)})"
    elif building:
        source = f"_get({var}, {flag!r})"
    else:
        source = f"{var}.{flag}"
    parameter = getattr(condition, "parameter", None)
    if parameter is not None:  # the root context of a read (the common case) has no enclosing records to walk
        value = f"{parent}.get({parameter.name!r}, {bind('k', parameter.default)})"
        source = f"({source} and ({value} if {parent}.__class__ is _Root else {bind('m', parameter)}({parent})))"
    return source

