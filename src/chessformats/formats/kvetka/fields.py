"""Kvetka's variable-length records (elements, ``.ksf`` sources and games) read and written field by field, in
the order and with the layout of their declarations in :mod:`chessformats.schemas.kvetka`.

:class:`Record` walks a declaration's fields once and generates a reader and a writer as Python source
(compiled once, as the engine's codecs are; see :attr:`Record.source`). What each field becomes:

- a fixed-size field stored as one integer (an integer, an enumeration's value, a bit structure's whole word,
  alternatives of one size): a number, its size and byte order from the engine's plan of it;
- a fixed-size structure of several numbers (``SOURCE_REF``): a tuple, through its codec's ``unpack``/``pack``;
- a fixed-size field without a plan (the prefix-coded ``KEY``): its bytes as they are;
- a ``CompactInt``; a string (:class:`~chessformats.schemas.kvetka.Text`: its length field, width and
  encoding); ``GreedyBytes``: the bytes up to the end of the record;
- an array of one-byte items counted by an earlier field (the move codes): a tuple of numbers, each checked
  against the item's enumeration; the count field is written from the array's length;
- an optional part (``If`` with a :class:`~chessformats.schemas.kvetka.PartPresent` condition): read when its
  flag bit is set (and, for game parts, ``params`` is true: the book keeps game links); written when present,
  its flag bit set from its presence.

Values are numbers, bytes, strings and tuples, in declaration order. A field that cannot be read raises
:class:`FieldError` with the field's name and offset (the caller adds the file and the path); a value that
cannot be written raises :class:`ValueError`.
"""

from __future__ import annotations

import itertools
import linecache
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import construct as cs

from ...engine.codec import codec
from ...engine.schema import strip_renamed, unwrap
from ...schemas import kvetka as schema

__all__ = ["FieldError", "Record", "member"]


class FieldError(Exception):
    """A field that cannot be read: ``truncated`` (the bytes end inside it) or a bad value."""

    def __init__(self, name: str, at: int, reason: str, truncated: bool = True, **extra: Any) -> None:
        super().__init__(reason)
        self.name = name
        self.at = at
        self.reason = reason
        self.truncated = truncated
        self.extra = extra
        """``expected``/``actual`` of a bad value."""


def member(struct: cs.Construct, name: str) -> cs.Construct:
    """The declaration of field ``name`` of a struct (its name and meaning stripped)."""
    for sub in unwrap(struct).subcons:
        inner, found, _ = strip_renamed(sub)
        if found == name:
            return inner
    raise KeyError(f"no field {name!r}")


def _count_name(expression: Any) -> str:
    """The field an array count such as ``this.move_number`` reads (found by evaluating it on a probe)."""
    seen: list[str] = []

    class Probe(dict[str, Any]):
        def __getitem__(self, key: str) -> int:
            seen.append(key)
            return 0

        __getattr__ = __getitem__

    expression(Probe())
    if len(seen) != 1:
        raise TypeError(f"{expression!r}: not a count read from one field")
    return seen[0]


def _word(con: cs.Construct) -> tuple[int, str] | None:
    """(size, byte order) of a fixed-size field stored as one integer, else ``None``."""
    found = codec(con)
    if found.plan is None or len(found.plan.slots) != 1 or found.plan.slots[0].kind != "int":
        return None
    slot = found.plan.slots[0]
    return slot.size, "little" if slot.little else "big"


@dataclass
class _Field:
    name: str
    kind: str
    """number, numbers, raw, compact, text, rest, counted"""
    size: int = 0
    order: str = "big"
    value: Any = None
    """numbers: the codec; text: the Text; counted: the valid items"""
    count: int = -1
    """counted: the index of the count field"""
    part: tuple[int, int, bool] | None = None
    """optional: (index of the flags field, its bit, counts only when params is true)"""


_counter = itertools.count()
_MORE = schema.COMPACT_INT_MORE
"""A CompactInt byte below this is its last (and a value below it is one byte)."""
_SHORTEST_COMPACT = len(schema.compact_int_bytes(0))


class Record:
    """A declaration's fields up to (not including) ``stop_at``, read and written by generated functions."""

    def __init__(self, declaration: cs.Construct, *, stop_at: str | None = None) -> None:
        self.names: list[str] = []
        self.fields: list[_Field] = []
        self.declarations: dict[str, cs.Construct] = {}
        for sub in unwrap(declaration).subcons:
            con, name, _ = strip_renamed(sub)
            if name == stop_at:
                break
            self.fields.append(self._field(con, name))
            self.names.append(name)
            self.declarations[name] = con
        self.index = {name: number for number, name in enumerate(self.names)}
        self.parts = {f.name: f.part for f in self.fields if f.part is not None}
        """Optional part -> (index of the flags field, its bit, counts only when ``params`` is true)."""
        self.min_size = sum(_least(f) for f in self.fields if f.part is None)
        """Bytes of the shortest record (optional parts absent, strings and arrays empty)."""
        self.names_bound: dict[str, Any] = {"_FE": FieldError, "_ci": schema.read_compact_int,
                                            "_cb": schema.compact_int_bytes, "_ifb": int.from_bytes}
        self.source = self._source()
        filename = f"<kvetka record {'/'.join(self.names[:2])}... #{next(_counter)}>"
        linecache.cache[filename] = (len(self.source), None, self.source.splitlines(True), filename)
        namespace = dict(self.names_bound)
        exec(compile(self.source, filename, "exec"), namespace)
        self.read: Callable[..., tuple[list[Any], int]] = namespace["read"]
        """``read(data, at, stop, params=None)``: the values in declaration order and the offset after them."""
        self.pack: Callable[..., bytes] = namespace["pack"]
        """``pack(values, params=None)``: the bytes of the values in declaration order (counts and the flag bits of
        parts are derived, whatever their given values)."""

    def write(self, values: dict[str, Any], params: Any = None) -> bytes:
        """The bytes of ``values`` given by field name (missing fields: ``None``)."""
        return self.pack([values.get(name) for name in self.names], params)

    # --- the fields ----------------------------------------------------------------------------------------

    def _field(self, con: cs.Construct, name: str) -> _Field:
        if isinstance(con, cs.IfThenElse) and isinstance(con.condfunc, schema.PartPresent):
            condition: schema.PartPresent = con.condfunc
            flags = self.names.index(condition.field)
            bit = int(codec(self.declarations[condition.field]).field(condition.flag).insert(0, True))
            inner = self._field(unwrap(con.thensubcon), name)
            inner.part = (flags, bit, condition.needs_game_links)
            return inner
        if isinstance(con, cs.Array) and not isinstance(con.count, int):
            item = unwrap(con.subcon, keep_enum=True)
            if _word(item) != (1, "big"):
                raise TypeError(f"{name}: an array of {item!r}; only arrays of one-byte items are read here")
            valid = frozenset(item.decmapping) if isinstance(item, cs.Enum) else frozenset(range(256))
            return _Field(name, "counted", value=valid, count=self.names.index(_count_name(con.count)))
        if isinstance(con, schema.CompactInt):
            return _Field(name, "compact")
        if isinstance(con, schema.Text):
            size, order = _word(member(con.subcon, "length")) or (0, "big")
            return _Field(name, "text", size, order, con)
        if con is cs.GreedyBytes:
            return _Field(name, "rest")
        if isinstance(con, cs.IfThenElse):  # alternatives of one size: the stored word (the caller splits it)
            if unwrap(con.thensubcon).sizeof() != unwrap(con.elsesubcon).sizeof():
                raise TypeError(f"{name}: alternatives of different sizes")
            con = unwrap(con.elsesubcon)
        word = _word(con)
        if word is not None:
            return _Field(name, "number", *word)
        found = codec(con)
        if found.plan is not None:
            return _Field(name, "numbers", int(found.size or 0), value=found)
        return _Field(name, "raw", con.sizeof())

    # --- the generated source --------------------------------------------------------------------------------

    def bind(self, value: Any) -> str:
        name = f"_b{len(self.names_bound)}"
        self.names_bound[name] = value
        return name

    def _source(self) -> str:
        count = len(self.fields)
        values = ", ".join(f"v{i}" for i in range(count))
        lines = ["def read(data, at, stop, params=None):"]
        for number, field in enumerate(self.fields):
            lines += self._read(field, f"v{number}")
        lines += [f"    return [{values}], at", "", "def pack(values, params=None):",
                  f"    {values}, = values"]
        counts = {f.count: i for i, f in enumerate(self.fields) if f.kind == "counted"}
        for index, array in counts.items():
            lines.append(f"    v{index} = len(v{array} or ())")
        for index in sorted({f.part[0] for f in self.fields if f.part is not None}):
            for number, field in enumerate(self.fields):
                if field.part is not None and field.part[0] == index:
                    _, bit, needs = field.part
                    update = f"v{index} = (v{index} & ~{bit}) | ({bit} if v{number} is not None else 0)"
                    lines += ["    if params:", f"        {update}"] if needs else [f"    {update}"]
        lines.append("    out = []")
        for number, field in enumerate(self.fields):
            lines += self._write(field, f"v{number}")
        lines += ["    return b''.join(out)", ""]
        return "\n".join(lines)

    def _read(self, field: _Field, var: str) -> list[str]:
        name = field.name
        truncated = f"raise _FE({name!r}, at, 'truncated {name}')"
        body: list[str]
        if field.kind == "number":
            value = "data[at]" if field.size == 1 else f"_ifb(data[at:at + {field.size}], {field.order!r})"
            body = [f"if at + {field.size} > stop:", f"    {truncated}", f"{var} = {value}", f"at += {field.size}"]
        elif field.kind == "numbers":
            unpack = self.bind(field.value.unpack)
            body = [f"if at + {field.size} > stop:", f"    {truncated}", f"{var} = {unpack}(data, at)",
                    f"at += {field.size}"]
        elif field.kind == "raw":
            body = [f"if at + {field.size} > stop:", f"    {truncated}", f"{var} = bytes(data[at:at + {field.size}])",
                    f"at += {field.size}"]
        elif field.kind == "compact":  # one byte below 128 (the common case) inline, else the declaration's loop
            body = [f"if at < stop and data[at] < {_MORE}:", f"    {var} = data[at]", "    at += 1", "else:",
                    "    try:", f"        {var}, at = _ci(data, at, stop)", "    except IndexError:",
                    f"        {truncated} from None", "    except ValueError as exc:",
                    f"        raise _FE({name!r}, at, str(exc), False) from None"]
        elif field.kind == "text":
            text: schema.Text = field.value
            length = "data[at]" if field.size == 1 else f"_ifb(data[at:at + {field.size}], {field.order!r})"
            end = f"at + {field.size} + {text.width} * units"
            body = [f"if at + {field.size} > stop:", f"    raise _FE('{name}.length', at, 'truncated {name}.length')",
                    f"units = {length}", f"if {end} > stop:",
                    f"    raise _FE('{name}.length', at, f'{{units}} characters do not fit in the record')",
                    f"{var} = bytes(data[at + {field.size}:{end}]).decode({text.encoding!r}, {text.errors!r})",
                    f"at = {end}"]
        elif field.kind == "rest":
            body = [f"{var} = bytes(data[at:stop])", "at = stop"]
        else:  # counted
            valid = self.bind(field.value)
            bad = self.bind(_bad_item)
            body = [f"end = at + v{field.count}", "if end > stop:",
                    f"    raise _FE({name!r}, at, f'{{v{field.count}}} items run past the record')",
                    f"{var} = tuple(data[at:end])", f"if not {valid}.issuperset({var}):",
                    f"    raise {bad}({name!r}, at, {var}, {valid})", "at = end"]
        if field.part is None:
            return ["    " + line for line in body]
        flags, bit, needs = field.part
        test = f"v{flags} & {bit}" + (" and params" if needs else "")
        return [f"    if {test}:", *("        " + line for line in body), "    else:", f"        {var} = None"]

    def _write(self, field: _Field, var: str) -> list[str]:
        name = field.name
        if field.kind == "number":
            limit = 1 << (8 * field.size)
            check = self.bind(_out_of_range)
            body = [f"if not 0 <= {var} < {limit}:", f"    {check}({name!r}, {var}, {field.size})",
                    f"out.append({var}.to_bytes({field.size}, {field.order!r}))"]
        elif field.kind == "numbers":
            body = [f"out.append({self.bind(field.value.pack)}(*{var}))"]
        elif field.kind == "raw":
            check = self.bind(_wrong_size)
            body = [f"if len({var}) != {field.size}:", f"    {check}({name!r}, {var}, {field.size})",
                    f"out.append(bytes({var}))"]
        elif field.kind == "compact":
            body = [f"out.append(bytes(({var},)) if 0 <= {var} < {_MORE} else _cb({var}))"]
        elif field.kind == "text":
            text: schema.Text = field.value
            encode = self.bind(text.encode_text)
            body = [f"stored = {encode}({var})",
                    f"out.append((len(stored) // {text.width}).to_bytes({field.size}, {field.order!r}))",
                    "out.append(stored)"]
        elif field.kind == "rest":
            body = [f"out.append(bytes({var}))"]
        else:  # counted
            valid = self.bind(field.value)
            body = [f"{var} = tuple({var} or ())", f"if not {valid}.issuperset({var}):",
                    f"    raise ValueError(f'{{sorted(set({var}) - {valid})}} are not values of {name}')",
                    f"out.append(bytes({var}))"]
        if field.part is None:
            return ["    " + line for line in body]
        _, _, needs = field.part
        test = f"{var} is not None" + (" and params" if needs else "")
        return [f"    if {test}:", *("        " + line for line in body)]


def _least(field: _Field) -> int:
    return {"compact": _SHORTEST_COMPACT, "rest": 0, "counted": 0}.get(field.kind, field.size)


def _bad_item(name: str, at: int, items: tuple[int, ...], valid: frozenset[int]) -> FieldError:
    number = next(n for n, code in enumerate(items) if code not in valid)
    return FieldError(f"{name}[{number}]", at + number, f"not a value of {name}", False,
                      expected=f"one of the {len(valid)} values of the declaration", actual=f"0x{items[number]:02x}")


def _out_of_range(name: str, value: int, size: int) -> None:
    raise ValueError(f"{name} = {value} does not fit in {size} bytes")


def _wrong_size(name: str, value: bytes, size: int) -> None:
    raise ValueError(f"{name} is {size} bytes, not {len(value)}")
