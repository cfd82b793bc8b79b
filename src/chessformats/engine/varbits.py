"""Generated code for bit runs whose layout the data decides (``FixedSized(n, bitwise_rest(STRUCT))``).

The region's bytes are read as one integer ``v`` of ``nb`` bits; a cursor ``b`` counts the bits read from
the top. Fields: the engine's prefix codes (:class:`~.prefixcode.PrefixCoded`, decoded by the code's own
table), ``BitsInteger``, the engine's ``BitsUnsigned`` (a width from the data), ``Flag``, enums over them,
nested structs and ``If``/``IfThenElse``. Encoding shifts each field into an accumulator. Values and errors
are construct's: a word that is no code word is construct's explicit error (:class:`~.varcodec.NoCase`),
bits that end inside a field a :class:`~.errors.TruncatedError`.
"""

from __future__ import annotations

from typing import Any

import construct as cs

from .compiler import _EnumMap
from .errors import InvalidValueError, TruncatedError
from .plan import NoPlan
from .prefixcode import PrefixCode, PrefixCoded, PrefixCodeError
from .schema import BitsLeft, BitsUnsigned, strip_renamed
from .varexpr import Expressions, Scope, never_record, take_fields
from .varruntime import NoCase

__all__ = ["BitRuns", "is_bit_run"]

_FLAG = type(cs.Flag)


def is_bit_run(con: cs.Construct) -> bool:
    """``bitwise_rest(...)``: the bits of all the bytes left (in a ``FixedSized`` region)."""
    return isinstance(con, cs.Transformed) and con.decodefunc is cs.bytes2bits and con.decodeamount is None \
        and con.encodefunc is cs.bits2bytes


def bits(v: int, nb: int, b: int, width: int, path: str) -> int:
    """``width`` bits of ``v`` (``nb`` bits long) from bit ``b``."""
    if b + width > nb:
        raise TruncatedError("the bits end inside a field", needed=width, available=nb - b, path=path or None)
    return (v >> (nb - b - width)) & ((1 << width) - 1)


def prefix_error(code: PrefixCode, error: PrefixCodeError, nb: int, path: str) -> Exception:
    """The error construct's ``PrefixCoded`` raises where :meth:`PrefixCode.decode` raised ``error``."""
    if "no code word" in str(error) and nb - error.bit >= code.max_length:  # construct's explicit error
        return NoCase(f"symbol: no code word starts at bit {error.bit}", path=path or None)
    return TruncatedError("the bits end inside a code word", path=path or None)


_TABLE_BITS = 8
"""Bit structs of at most this many bits of fixed-width fields are decoded by a table of their values."""


def table_width(con: cs.Construct) -> int:
    """The bits of a bit struct made only of fields of a fixed width (flags, bit integers, enums of them, such
    structs), when at most :data:`_TABLE_BITS`; else 0."""
    def width(con: cs.Construct) -> int | None:
        con = strip_renamed(con)[0] if isinstance(con, cs.Renamed) else con
        if isinstance(con, _FLAG):
            return 1
        if isinstance(con, cs.BitsInteger) and isinstance(con.length, int) and con.swapped is False:
            return int(con.length)
        if isinstance(con, cs.Enum) and not isinstance(con, cs.FlagsEnum):
            return width(con.subcon)
        if isinstance(con, cs.Struct):
            widths = [width(sub) for sub in con.subcons]
            return None if None in widths else sum(w for w in widths if w is not None)
        return None

    found = width(con)
    return found if found is not None and 0 < found <= _TABLE_BITS else 0


def width_of(value: Any, path: str) -> int:
    if not isinstance(value, int) or value < 0:
        raise NoCase(f"invalid bit width {value!r}", path=path or None)
    return value


def put(acc: int, nbits: int, value: Any, width: int, signed: bool, path: str) -> tuple[int, int]:
    """The accumulator with ``value`` in ``width`` more bits (range checked as construct checks it)."""
    low, high = (-(1 << (width - 1)), 1 << (width - 1)) if signed and width else (0, 1 << width)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < high:
        raise InvalidValueError(f"does not fit in {width} bits", actual=value, path=path or None)
    return (acc << width) | (value & ((1 << width) - 1)), nbits + width


def put_words(code: PrefixCode, acc: int, nbits: int, symbols: Any, count: int, path: str) -> tuple[int, int]:
    symbols = list(symbols)
    if len(symbols) != count:
        raise InvalidValueError(f"expected {count} symbols, got {len(symbols)}", path=path or None)
    try:
        value, length = code.encode(symbols)
    except (KeyError, TypeError) as exc:
        raise InvalidValueError(f"not a symbol of the code: {exc}", path=path or None) from exc
    return (acc << length) | value, nbits + length


NAMES = {"_bits": bits, "_prefix_error": prefix_error, "_PrefixCodeError": PrefixCodeError,
         "_width": width_of, "_put": put, "_put_words": put_words}
"""The helpers generated bit-run code calls, by the names it calls them."""


class BitRuns:
    """Writes the functions of bit-level structs into the module of a variable-layout generator (``bind``,
    ``var``, ``fresh``, ``functions`` and ``record_value`` of :mod:`.varcodec`'s generator)."""

    def __init__(self, generator: Any) -> None:
        self.g = generator
        self.decoders: dict[tuple[int, frozenset[str]], tuple[str, bool]] = {}
        self.tables: dict[str, tuple[str, int]] = {}
        """A table's name -> the struct function and bit width whose every value it holds (:meth:`fill`)."""
        self.encoders: dict[tuple[int, frozenset[str]], tuple[str, bool]] = {}

    # decoding: locals v (the bits), nb (their number), b (the cursor); encoding: acc (the bits so far), nbits

    def decode(self, con: cs.Construct, path: str, target: str, scope: Scope, lines: list[str], indent: str) -> None:
        """Lines reading ``con`` from the bit cursor into ``target``."""
        self.part(con, path, target, scope, lines, indent, False)

    def encode(self, con: cs.Construct, path: str, value: str, scope: Scope, lines: list[str], indent: str) -> None:
        """Lines shifting ``value`` (source of an expression) as ``con`` into the accumulator."""
        self.part(con, path, value, scope, lines, indent, True)

    def part(self, con: cs.Construct, path: str, name: str, scope: Scope, lines: list[str], indent: str,
             building: bool) -> None:
        con = strip_renamed(con)[0] if isinstance(con, cs.Renamed) else con
        expressions = Expressions(self.g.bind, building=building)
        if isinstance(con, cs.Struct):
            function, needs_up = self.struct_encoder(con, path, scope) if building \
                else self.struct_decoder(con, path, scope)
            up = expressions.context(scope) if needs_up else "None"
            up += self.g.arguments(function, scope)
            bits = table_width(con)
            if bits and not building:  # a few fixed bits: the value from a table of every one (made once)
                table = self.g.bind("tab", None)
                self.tables[table] = function, bits
                lines += [f"{indent}if b + {bits} <= nb:",
                          f"{indent}    {name} = {table}[(v >> (nb - b - {bits})) & {(1 << bits) - 1}]",
                          f"{indent}    b += {bits}", f"{indent}else:",
                          f"{indent}    {name}, b = {function}(v, nb, b, {up})"]
                return
            lines.append(f"{indent}acc, nbits = {function}({name}, acc, nbits, nbr, {up})" if building
                         else f"{indent}{name}, b = {function}(v, nb, b, {up})")
        elif isinstance(con, PrefixCoded):
            count, code = expressions.source(con.count, scope), self.g.bind("q", con.code)
            if building:
                lines.append(f"{indent}acc, nbits = _put_words({code}, acc, nbits, {name}, {count}, {path!r})")
            else:  # the code's own decoder, its error turned into construct's
                decode = self.g.bind("q", con.code.decode)
                lines += [f"{indent}try:", f"{indent}    {name}, b = {decode}(v, nb, {count}, b)",
                          f"{indent}except _PrefixCodeError as error:",
                          f"{indent}    raise _prefix_error({code}, error, nb, {path!r}) from error"]
        elif isinstance(con, (BitsUnsigned, cs.BitsInteger, _FLAG)):
            width = self.width(con, scope, expressions)
            if building:
                self.put_number(con, width, name, path, lines, indent)
            else:
                self.read_number(con, width, name, path, lines, indent)
        elif isinstance(con, cs.Enum) and building:
            number = self.g.var()
            lines.append(f"{indent}{number} = {self.g.bind('d', con.encmapping)}.get({name}, {name})")
            self.part(con.subcon, path, number, scope, lines, indent, building)
        elif isinstance(con, cs.Enum):
            self.part(con.subcon, path, name, scope, lines, indent, building)
            lines.append(f"{indent}{name} = {self.g.bind('e', _EnumMap(con.decmapping))}[{name}]")
        elif isinstance(con, cs.IfThenElse):
            lines.append(f"{indent}if {expressions.source(con.condfunc, scope)}:")
            self.part(con.thensubcon, path, name, scope, lines, indent + "    ", building)
            lines.append(f"{indent}else:")
            self.part(con.elsesubcon, path, name, scope, lines, indent + "    ", building)
        elif con is cs.Pass:
            lines.append(f"{indent}pass" if building else f"{indent}{name} = None")
        else:
            raise NoPlan(f"{path}: {type(con).__name__} in a bit run the data lays out")

    def fill(self, namespace: dict[str, Any]) -> None:
        """Fill the tables of the module ``namespace`` (its struct functions defined)."""
        for table, (function, width) in self.tables.items():
            namespace[table] = tuple(namespace[function](number, width, 0, None)[0] for number in range(1 << width))

    def read_number(self, con: cs.Construct, width: str, target: str, path: str, lines: list[str],
                    indent: str) -> None:
        if width == "0":
            lines.append(f"{indent}{target} = 0")
            return
        if width.isdigit():  # a fixed width: the bits at once (the call only to raise when they end first)
            number = width
            lines.append(f"{indent}{target} = (v >> (nb - b - {width})) & {(1 << int(width)) - 1} "
                         f"if b + {width} <= nb else _bits(v, nb, b, {width}, {path!r})")
        elif width == "(nb - b)" and not (isinstance(con, cs.BitsInteger) and con.signed):  # the bits left
            lines += [f"{indent}{target} = v & ((1 << (nb - b)) - 1)", f"{indent}b = nb"]
            return
        else:  # a width from the data: checked (the calls raise the errors)
            number = self.g.var("w")
            lines += [f"{indent}{number} = {width}",
                      f"{indent}if {number}.__class__ is int and 0 <= {number} and b + {number} <= nb:",
                      f"{indent}    {target} = (v >> (nb - b - {number})) & ((1 << {number}) - 1)",
                      f"{indent}else:",
                      f"{indent}    {number} = _width({number}, {path!r})",
                      f"{indent}    {target} = _bits(v, nb, b, {number}, {path!r})"]
        lines.append(f"{indent}b += {number}")
        if isinstance(con, _FLAG):
            lines.append(f"{indent}{target} = {target} != 0")
        elif isinstance(con, cs.BitsInteger) and con.signed:
            lines.append(f"{indent}if {target} >> ({number} - 1):")
            lines.append(f"{indent}    {target} -= 1 << {number}")

    def put_number(self, con: cs.Construct, width: str, value: str, path: str, lines: list[str], indent: str) -> None:
        if isinstance(con, _FLAG):
            lines.append(f"{indent}acc, nbits = (acc << 1) | (1 if {value} else 0), nbits + 1")
            return
        signed = isinstance(con, cs.BitsInteger) and bool(con.signed)
        if width.isdigit() and not signed:  # a fixed width: shifted in at once (the call checks what does not fit)
            lines.append(f"{indent}acc, nbits = ((acc << {width}) | {value}, nbits + {width}) if {value}.__class__ is "
                         f"int and 0 <= {value} < {1 << int(width)} else _put(acc, nbits, {value}, {width}, False, "
                         f"{path!r})")
            return
        if not width.isdigit():
            width = f"_width({width}, {path!r})"
        lines.append(f"{indent}acc, nbits = _put(acc, nbits, {value}, {width}, {signed}, {path!r})")

    def width(self, con: cs.Construct, scope: Scope, expressions: Expressions) -> str:
        if isinstance(con, _FLAG):
            return "1"
        if isinstance(con, cs.BitsInteger) and (con.swapped is not False or not isinstance(con.length, int)):
            raise NoPlan("a swapped bit integer or one of a width from the data")
        if isinstance(con.length, BitsLeft):  # every bit left in the run (its region's bits when building)
            left = "nbr - nbits" if expressions.building else "nb - b"
            reserve = con.length.reserve
            return f"({left})" if reserve is None else f"({left} - {expressions.source(reserve, scope)})"
        return str(con.length) if isinstance(con.length, int) else expressions.source(con.length, scope)

    def struct_decoder(self, con: cs.Struct, path: str, parent: Scope) -> tuple[str, bool]:
        key = id(con), frozenset(parent.names)
        known = self.decoders.get(key)
        if known is not None:
            return known
        function, scope = f"_r{next(self.g.fresh)}", Scope(incremental=True, parent=parent)
        lines: list[str] = []
        names: list[str] = []
        for sub in con.subcons:
            name = strip_renamed(sub)[1] if isinstance(sub, cs.Renamed) else None
            target = f"f_{name}" if name else self.g.var()
            self.decode(sub, f"{path}.{name}" if path and name else name or path, target, scope, lines, "    ")
            if name:
                if never_record(sub):
                    scope.plain.add(name)
                scope.add(name, target, lines)
                names.append(name)
        value = self.g.record_value(path, names, False)
        lines = scope.finish(lines, building=False)
        self.g.functions.append("\n".join([f"def {function}(v, nb, b, up{scope.parameters()}):", *lines,
                                           f"    return {value}, b", ""]))
        self.g.imported[function] = tuple(scope.imports)
        self.decoders[key] = function, scope.needs_up
        return function, scope.needs_up

    def struct_encoder(self, con: cs.Struct, path: str, parent: Scope) -> tuple[str, bool]:
        key = id(con), frozenset(parent.names)
        known = self.encoders.get(key)
        if known is not None:
            return known
        function, scope = f"_c{next(self.g.fresh)}", Scope(incremental=True, parent=parent)
        named, lines = take_fields(con)
        for sub, name in zip(con.subcons, named, strict=True):
            self.encode(sub, f"{path}.{name}" if path and name else name or path, f"f_{name}" if name else "None",
                        scope, lines, "    ")
            if name:
                scope.add(name, f"f_{name}", lines)
        lines = scope.finish(lines, building=True)
        self.g.functions.append("\n".join([f"def {function}(obj, acc, nbits, nbr, up{scope.parameters()}):", *lines,
                                           "    return acc, nbits", ""]))
        self.g.imported[function] = tuple(scope.imports)
        self.encoders[key] = function, scope.needs_up
        return function, scope.needs_up
