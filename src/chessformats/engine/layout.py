"""Static layout of a declaration, and the fast paths derived from it.

:func:`describe` walks a construct declaration without data and lists every field with its offset, size,
bit range, wire type and meaning; the documentation generator prints it. :func:`numpy_dtype` and
:func:`bit_fields` derive the bulk-read machinery (a numpy structured dtype; shifts and masks of packed
bit fields) from the same declaration, so no layout is ever written down twice.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

import construct as cs

from .bitruns import bit_run
from .errors import join_path
from .prefixcode import PrefixCoded
from .schema import enum_meanings, strip_renamed, type_name, unwrap

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "BitField",
    "LayoutField",
    "bit_fields",
    "describe",
    "numpy_dtype",
    "pack_bits",
    "struct_format",
    "unpack_bits",
]


@dataclass(frozen=True)
class LayoutField:
    """One field of a declaration, as documentation sees it.

    ``offset``/``size`` are in bytes (``None`` when they depend on the data). For a field inside a bit
    run, ``bits`` is its ``(low, high)`` bit numbers within the run read as one integer (bit 0 = least
    significant; big-endian unless ``little_endian``), and ``offset``/``size`` are those of the whole run.
    """

    path: str
    name: str
    offset: int | None
    size: int | None
    type: str
    meaning: str
    depth: int
    leaf: bool
    bits: tuple[int, int] | None = None
    enum: dict[int, tuple[str, str]] | None = None
    little_endian: bool = False
    """For fields of a bit run: the run is stored as a little-endian integer (see :mod:`.bitruns`)."""
    varbits: bool = False
    """The field lies in a bit run whose field positions depend on the data (``bits`` is then ``None``)."""
    bit_width: int | None = None
    """For a field of such a run: its width in bits, when fixed."""
    codes: tuple[tuple[str, str, str], ...] | None = None
    """For prefix code words (:class:`~.prefixcode.PrefixCoded`): ``(code word, symbol, meaning)`` rows."""


def _static_size(con: cs.Construct) -> int | None:
    try:
        return int(con.sizeof())
    except (cs.SizeofError, KeyError, AttributeError, TypeError):
        return None


def describe(con: cs.Construct, *, name: str = "") -> list[LayoutField]:
    """List the fields of ``con`` in order (containers before their children)."""
    out: list[LayoutField] = []
    _describe(con, name, "", "", 0, 0, out, None)
    return out


def _describe(
    con: cs.Construct,
    path: str,
    name: str,
    meaning: str,
    offset: int | None,
    depth: int,
    out: list[LayoutField],
    bitrun: tuple[int | None, int, int, bool] | None,
) -> None:
    """``bitrun`` = (byte offset of the run, run width in bits, this field's bit offset in the run, little-endian).

    An adapter over a struct or array (a decoded view of plain fields) is described by its fields.
    """
    if isinstance(con, cs.Renamed):
        inner_con, sub_name, sub_meaning = strip_renamed(con)
        _describe(inner_con, join_path(path, sub_name), sub_name or name, sub_meaning or meaning,
                  offset, depth, out, bitrun)
        return
    inner = unwrap(con)
    size = _static_size(con)
    enum = enum_meanings(con)

    if bitrun is not None:
        run_offset, run_bits, bit_offset, little = bitrun
        if isinstance(inner, cs.Struct):
            if path:
                out.append(LayoutField(path, name, run_offset, run_bits // 8, "bits", meaning, depth, False,
                                       _bit_numbers(run_bits, bit_offset, size or 0), little_endian=little))
            bit_position = bit_offset
            for sub in inner.subcons:
                _describe(sub, path, name, meaning, run_offset, depth + (1 if path else 0), out,
                          (run_offset, run_bits, bit_position, little))
                bit_position += _static_size(sub) or 0
            return
        out.append(LayoutField(path, name, run_offset, run_bits // 8, type_name(con), meaning, depth, True,
                               _bit_numbers(run_bits, bit_offset, size or 0), enum, little))
        return

    if isinstance(inner, cs.FixedSized):  # a region of a given length: described by what fills it
        first = len(out)
        _describe(inner.subcon, path, name, meaning, offset, depth, out, None)
        if size is not None and first < len(out) and out[first].path == path and out[first].size is None:
            out[first] = replace(out[first], size=size)  # the region's length, whatever fills it
        return
    if isinstance(inner, cs.IfThenElse):
        _describe_optional(inner, path, name, meaning, offset, depth, out, bitrun)
        return
    run = bit_run(inner)
    if run is not None and run.size is None:
        _describe_varbits(run.fields, path, name, meaning, offset, depth, out)
        return
    if run is not None:
        _describe(run.fields, path, name, meaning, offset, depth, out, (offset, 8 * (size or 0), 0, run.little_endian))
        return
    if isinstance(inner, cs.Adapter) and isinstance(unwrap(inner.subcon), (cs.Struct, cs.Array, cs.GreedyRange)):
        _describe(inner.subcon, path, name, meaning, offset, depth, out, None)
        return
    if isinstance(inner, cs.Struct):
        if path:
            out.append(LayoutField(path, name, offset, size, "struct", meaning, depth, False))
        position = offset
        for sub in inner.subcons:
            _describe(sub, path, name, meaning, position, depth + (1 if path else 0), out, None)
            sub_size = _static_size(sub)
            position = None if position is None or sub_size is None else position + sub_size
        return
    if isinstance(inner, (cs.Array, cs.GreedyRange)):
        out.append(LayoutField(path, name, offset, size, type_name(con), meaning, depth, False))
        _describe(inner.subcon, f"{path}[]", name, meaning, offset, depth + 1, out, None)
        return
    out.append(LayoutField(path, name, offset, size, type_name(con), meaning, depth, True, None, enum))


def _describe_optional(con: cs.IfThenElse, path: str, name: str, meaning: str, offset: int | None, depth: int,
                       out: list[LayoutField], bitrun: tuple[int | None, int, int, bool] | None) -> None:
    """``If(condition, X)``: described as ``X``, its type marked optional (the meaning says when)."""
    first = len(out)
    _describe(con.thensubcon, path, name, meaning, offset, depth, out, bitrun)
    if first < len(out):
        out[first] = replace(out[first], type=type_name(con))


def _describe_varbits(con: cs.Construct, path: str, name: str, meaning: str, offset: int | None, depth: int,
                      out: list[LayoutField]) -> None:
    """A bit run whose fields have data-dependent widths: fields in order, each with its width when fixed."""
    if isinstance(con, cs.Renamed):
        inner_con, sub_name, sub_meaning = strip_renamed(con)
        _describe_varbits(inner_con, join_path(path, sub_name), sub_name or name, sub_meaning or meaning, offset,
                          depth, out)
        return
    inner = unwrap(con)
    if isinstance(inner, cs.IfThenElse):
        first = len(out)
        _describe_varbits(inner.thensubcon, path, name, meaning, offset, depth, out)
        if first < len(out):
            out[first] = replace(out[first], type=type_name(inner))
        return
    if isinstance(inner, cs.Struct):  # only the run itself has a known byte offset
        if path:
            out.append(LayoutField(path, name, offset, None, "bits", meaning, depth, False, varbits=True))
        for sub in inner.subcons:
            _describe_varbits(sub, path, name, meaning, None, depth + (1 if path else 0), out)
        return
    code = inner.code if isinstance(inner, PrefixCoded) else None
    out.append(LayoutField(path, name, offset, None, type_name(con), meaning, depth, True, None, enum_meanings(con),
                           varbits=True, bit_width=_static_size(con),
                           codes=tuple(code.table()) if code is not None else None))


def _bit_numbers(run_bits: int, bit_offset: int, width: int) -> tuple[int, int]:
    high = run_bits - 1 - bit_offset
    return (high - width + 1, high)


class BitField(NamedTuple):
    """Where a packed field sits in its run read as one integer: ``(value >> shift) & mask``."""

    shift: int
    width: int

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


def bit_fields(con: cs.Construct) -> dict[str, BitField]:
    """Shift and width of every named field of a ``BitStruct``/``Bitwise(Struct)`` declaration."""
    result: dict[str, BitField] = {}
    for field in describe(con):
        if field.leaf and field.bits is not None:
            low, high = field.bits
            result[field.name] = BitField(low, high - low + 1)
    if not result:
        raise TypeError(f"{con!r} declares no bit fields")
    return result


def unpack_bits(values: np.ndarray[Any, Any], con: cs.Construct) -> dict[str, np.ndarray[Any, Any]]:
    """Split an integer array holding the bit run ``con`` into one array per field."""
    return {name: (values >> f.shift) & f.mask for name, f in bit_fields(con).items()}


def pack_bits(con: cs.Construct, dtype: Any, **fields: Any) -> np.ndarray[Any, Any]:
    """Inverse of :func:`unpack_bits`: combine per-field arrays into the run's integers."""
    import numpy as np

    layout = bit_fields(con)
    unknown = set(fields) - set(layout)
    if unknown:
        raise KeyError(f"not fields of the bit run: {sorted(unknown)}")
    result: np.ndarray[Any, Any] | None = None
    for name, value in fields.items():
        f = layout[name]
        part = (np.asarray(value).astype(np.uint64) & np.uint64(f.mask)) << np.uint64(f.shift)
        result = part if result is None else result | part
    if result is None:
        raise ValueError("no fields given")
    return result.astype(dtype)


def numpy_dtype(con: cs.Construct) -> np.dtype[Any]:
    """The numpy structured dtype of a fixed-size struct declaration, derived field by field.

    Integers keep their byte order; bit runs of 1, 2, 4 or 8 bytes become one unsigned integer in the
    run's byte order (split them with :func:`unpack_bits`); other byte strings become ``V<n>``.
    """
    import numpy as np

    dtype = np.dtype(_struct_spec(con))
    size = _static_size(con)
    if size != dtype.itemsize:
        raise TypeError(f"dtype size {dtype.itemsize} differs from the declaration's {size}")
    return dtype


def _struct_spec(con: cs.Construct) -> list[tuple[str, Any]]:
    """The numpy dtype specification of a struct declaration: ``[(name, spec), ...]``, where a spec is a type
    string (``">u8"``, ``"V3"``), a nested list, or ``(spec, (count,))``. Built without numpy, so that
    :func:`struct_format` costs no numpy import."""
    inner = unwrap(con)
    if not isinstance(inner, cs.Struct):
        raise TypeError("numpy_dtype needs a Struct")
    return [(sub.name or f"_unnamed{index}", _field_spec(sub)) for index, sub in enumerate(inner.subcons)]


# struct format codes (standard sizes) -> numpy type codes
_STRUCT_TO_NUMPY = {"B": "u1", "H": "u2", "I": "u4", "L": "u4", "Q": "u8", "b": "i1", "h": "i2", "i": "i4",
                    "l": "i4", "q": "i8", "e": "f2", "f": "f4", "d": "f8", "?": "b1"}
_MACHINE_ORDER = "<" if sys.byteorder == "little" else ">"


def _field_spec(con: cs.Construct) -> Any:
    inner = unwrap(con)
    size = _static_size(con)
    if size is None:
        raise TypeError(f"{con!r} has no fixed size")
    if isinstance(inner, cs.FormatField):
        order = {"<": "<", ">": ">", "!": ">"}.get(inner.fmtstr[0], _MACHINE_ORDER)  # "=" and "@": the machine's
        return order + _STRUCT_TO_NUMPY[inner.fmtstr[1:]]
    if isinstance(inner, cs.BytesInteger) and size in (1, 2, 4, 8):
        return f"{'<' if inner.swapped else '>'}{'i' if inner.signed else 'u'}{size}"
    run = bit_run(inner)
    if run is not None and size in (1, 2, 4, 8):
        return f"{'<' if run.little_endian else '>'}u{size}"
    if isinstance(inner, cs.Struct):
        return _struct_spec(inner)
    if isinstance(inner, cs.Array) and isinstance(inner.count, int):
        return (_field_spec(inner.subcon), (inner.count,))
    return f"V{size}"


_NUMPY_TO_STRUCT = {"u1": "B", "u2": "H", "u4": "I", "u8": "Q", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
                    "f2": "e", "f4": "f", "f8": "d", "b1": "?"}


def struct_format(con: cs.Construct) -> str:
    """The :mod:`struct` format of a flat fixed-size struct declaration (the fields of :func:`numpy_dtype`).

    For reading single records fast (``struct.unpack_from``) without writing the layout down again.
    All multi-byte fields must share one byte order; nested structs and arrays are not flattened.
    """
    orders = set()
    codes = []
    for name, spec in _struct_spec(con):
        if not isinstance(spec, str):
            raise TypeError(f"field {name!r} is not a scalar")
        if spec[0] == "V":
            codes.append(f"{spec[1:]}s")
            continue
        if int(spec[2:]) > 1:
            orders.add(spec[0])
        codes.append(_NUMPY_TO_STRUCT[spec[1:]])
    if len(orders) > 1:
        raise TypeError("fields of both byte orders: no single struct format")
    return (orders.pop() if orders else ">") + "".join(codes)
