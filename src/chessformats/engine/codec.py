"""From a declaration to its codec: everything a reader's or a writer's fast path needs, derived once.

``codec(DECLARATION)`` (cached per declaration) gives a :class:`Codec`:

- ``decode(data, offset=0, file=None)`` / ``encode(value)``: one record, through functions generated from
  the declaration as Python source (:mod:`.compiler`); same values as construct's ``parse``/``build``
  (enums as names, built from names or integers), 10-30 times faster. ``unpack``/``pack``: the leaves
  as one flat tuple of numbers, for hot loops.
- ``fields``: every field by path (``"move.to_file"``) as a :class:`Field`: offset, size, bit range,
  and ``get``/``put`` of that one field in a record's bytes, ``extract``/``insert`` in its bit run's integer.
- ``dtype``, ``array(data)``, ``columns(records)``, ``from_columns(columns)``: the numpy bulk path.
- ``prefix_codes``: the :class:`~.prefixcode.PrefixCode` tables the declaration uses, by path.

Declarations whose layout the data decides (tagged unions, counted arrays, conditional fields, greedy
ranges, ...) get generated ``decode``/``encode`` too (:mod:`.varcodec`: ``size`` is None, no ``plan``,
``unpack``/``pack`` or numpy path); a part of one that the generator does not know (a prefix-coded board)
is read by construct's own parse, and listed in ``delegated``. A declaration the generator cannot take at
all keeps construct's parse and build, with errors located (``generated`` is then False and ``reason``
says why).
"""

from __future__ import annotations

import functools
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import construct as cs

from .compiler import Functions, compile_functions
from .errors import FormatError, InvalidValueError, TruncatedError
from .layout import BitField, LayoutField, describe, numpy_dtype
from .leafvalues import (
    check_leaf,
    check_node,
    leaf_from_number,
    leaf_range,
    leaf_to_number,
    slot_bytes,
    slot_column,
    slot_number,
)
from .plan import Leaf, NoPlan, Plan, Slot, plan
from .prefixcode import PrefixCode, PrefixCoded
from .schema import strip_renamed, unwrap
from .trace import parse, use_decoders
from .varcodec import VariableFunctions, compile_variable
from .varoptions import ENUM_MODES, RECORD_MODES, Options
from .varruntime import parse_part, root_context

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Codec", "Field", "codec"]


@functools.cache
def codec(declaration: cs.Construct, *, stored: frozenset[str] | tuple[str, ...] = (), enums: str = "names",
          records: str = "named") -> Codec:
    """The codec of ``declaration``, built on first use and cached (declarations are module constants).

    ``stored`` and ``enums`` change what a variable layout's generated functions take and give
    (:mod:`.varoptions`): fields by path kept as their stored integer or bytes; enum leaves as construct's names,
    as ``"numbers"``, or as ``"checked"`` numbers (a value outside the enumeration is an error); structs as
    named tuples or (``records="tuples"``) plain tuples. A fixed layout takes ``enums`` and ``records`` (for its
    ``decode``), not ``stored``."""
    return Codec(declaration, stored=stored, enums=enums, records=records)


@dataclass(frozen=True)
class Field:
    """One field of a declaration: its layout (from :func:`~.layout.describe`) and one-field accessors.

    ``offset``/``size`` are bytes (of the whole bit run for a bit field); ``shift``/``width`` place a bit
    field in its run read as one integer (``(run >> shift) & mask``). The accessors need a fixed layout.
    """

    layout: LayoutField
    leaf: Leaf | None
    slot: Slot | None

    @property
    def path(self) -> str:
        return self.layout.path

    @property
    def offset(self) -> int | None:
        return self.layout.offset

    @property
    def size(self) -> int | None:
        return self.layout.size

    @property
    def bits(self) -> tuple[int, int] | None:
        return self.layout.bits

    @property
    def shift(self) -> int:
        return int(self.leaf.shift) if self.leaf is not None else 0

    @property
    def width(self) -> int:
        if self.leaf is not None and self.leaf.width:
            return int(self.leaf.width)
        return 8 * int(self.size or 0)

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    @property
    def bit_field(self) -> BitField:
        return BitField(self.shift, self.width)

    def _parts(self) -> tuple[Leaf, Slot]:
        if self.leaf is None or self.slot is None:
            raise TypeError(f"{self.path}: not a value of a fixed-size record")
        return self.leaf, self.slot

    def extract(self, word: int) -> Any:
        """This field's value from its run's integer (a whole field: from its integer value)."""
        leaf, _ = self._parts()
        return leaf_from_number(leaf, word)

    def insert(self, word: Any, value: Any) -> Any:
        """``word`` with this field's bits replaced by ``value`` (enum names accepted).

        For a whole (byte-aligned) field the result is the stored form: its number, bytes or float.
        """
        leaf, slot = self._parts()
        number = leaf_to_number(leaf, slot, value)
        if not leaf.width:
            return number
        return (word & ~(leaf.mask << leaf.shift)) | (number << leaf.shift)

    def get(self, data: Any, offset: int = 0, *, file: str | os.PathLike[str] | None = None) -> Any:
        """The field's value in the record that starts at ``data[offset]``."""
        leaf, slot = self._parts()
        start = offset + slot.offset
        if len(data) - start < slot.size:
            raise TruncatedError(f"truncated {leaf.path}", needed=slot.size, available=max(len(data) - start, 0),
                                 file=file, offset=start, path=leaf.path, show_path=False)
        raw = bytes(data[start:start + slot.size])
        return leaf_from_number(leaf, slot_number(slot, raw))

    def put(self, buffer: bytearray | memoryview, value: Any, offset: int = 0) -> None:
        """Write ``value`` into the record at ``buffer[offset]`` (other bits of a run are kept)."""
        leaf, slot = self._parts()
        start = offset + slot.offset
        if len(buffer) - start < slot.size:
            raise TruncatedError(f"no room for {leaf.path}", needed=slot.size,
                                 available=max(len(buffer) - start, 0), offset=start, path=leaf.path)
        word = slot_number(slot, bytes(buffer[start:start + slot.size])) if leaf.width else 0
        buffer[start:start + slot.size] = slot_bytes(slot, self.insert(word, value))


class Codec:
    """What the engine derives from one declaration (see the module's documentation)."""

    def __init__(self, declaration: cs.Construct, *, stored: frozenset[str] | tuple[str, ...] = (),
                 enums: str = "names", records: str = "named") -> None:
        if enums not in ENUM_MODES or records not in RECORD_MODES:
            raise ValueError(f"enums: one of {', '.join(ENUM_MODES)}, not {enums!r}; records: one of "
                             f"{', '.join(RECORD_MODES)}, not {records!r}")
        self.options = Options(frozenset(stored), enums, records)
        self.declaration = declaration
        self.name = strip_renamed(declaration)[1] or type(unwrap(declaration)).__name__
        self.plan: Plan | None = None
        self.reason = ""
        try:
            self.plan = plan(declaration)
        except NoPlan as exc:
            self.reason = str(exc)
        self.generated = self.plan is not None
        self.delegated: tuple[str, ...] = ()
        """Parts of a generated variable layout that construct's own parse and build read (``"path: Class"``)."""
        self.size: int | None = self.plan.size if self.plan is not None else None
        leaves = {leaf.path: leaf for leaf in self.plan.leaves} if self.plan is not None else {}
        self.fields: dict[str, Field] = {}
        for layout in describe(declaration):
            leaf = leaves.get(layout.path) if layout.leaf else None
            slot = self.plan.slots[leaf.slot] if leaf is not None and self.plan is not None else None
            self.fields.setdefault(layout.path, Field(layout, leaf, slot))
        self.leaves: tuple[str, ...] = tuple(leaves)
        self.prefix_codes: dict[str, PrefixCode] = _prefix_codes(declaration)
        self._functions: Functions | None = None
        self._variable: VariableFunctions | None = None
        self.decode: Callable[..., Any]
        """``decode(data, offset=0, file=None)`` (a layout the data decides: also ``end=``, ``params=``)."""
        self.encode: Callable[..., bytes]
        """``encode(value)`` (a layout the data decides: also ``params``)."""
        self.read: Callable[..., tuple[Any, int]]
        """``read(data, offset=0, end=None, params=None, file=None)``: the value and the offset after it; errors
        at offsets of ``data`` (and ``file`` when given)."""
        if self.plan is not None:
            if self.options.stored:
                raise TypeError(f"{self.name}: stored fields are kept in layouts the data decides; this one is fixed")
            self._functions = compile_functions(
                self.plan, self.name, truncated=self._truncated, bad_const=self._bad_const,
                explain=self._explain, explain_leaves=self._explain_leaves, bad_enum=self._bad_enum,
                enums=enums, records=records)
            self.decode = self._functions.decode
            self.unpack = self._functions.unpack
            self.encode = self._functions.encode
            self.pack = self._functions.pack
            self.read = self._read_fixed
        else:
            self._variable_functions()

    def _variable_functions(self) -> None:
        """A layout the data decides: generated by :mod:`.varcodec`, else construct's parse and build."""
        self.decode, self.encode, self.read = self._parse, self._build, self._read_parsed
        try:
            self._variable = compile_variable(self.declaration, self.name,
                                              self._part_codec, self.options)
        except NoPlan as exc:
            self.reason = str(exc)
            if self.options != Options():  # construct's parse and build know none of the options
                raise TypeError(f"{self.name}: the options need a generated codec; none: {exc}") from None
            return
        self.generated, self.reason = True, ""
        self.delegated = self._variable.delegated
        self.decode, self.encode, self.read = self._variable.decode, self._variable.encode, self._variable.read

    def _part_codec(self, con: cs.Construct, run: bool) -> Codec:
        """The codec of a fixed part (``run``: a struct of fields made by the generator, not cached), decoding
        enums as this codec's options say (its records stay named: the layout's expressions read their fields)."""
        enums = self.options.enums
        return Codec(con, enums=enums) if run else codec(con, enums=enums)

    @staticmethod
    def parameters(*, building: bool = False, **values: Any) -> Any:
        """The root context of parse parameters ``values`` (construct's ``parse(data, **values)``), made once: give
        it as ``params`` to ``read``/``decode`` (``building``: to ``encode``) in a loop."""
        return root_context(values, building)

    def _read_fixed(self, data: Any, offset: int = 0, end: int | None = None, params: Any = None,
                    file: str | os.PathLike[str] | None = None) -> tuple[Any, int]:
        size = int(self.size or 0)
        if end is not None and offset + size > end:
            return self.decode(data[:end], offset, file), offset + size  # raises the located TruncatedError
        return self.decode(data, offset, file), offset + size

    def _read_parsed(self, data: Any, offset: int = 0, end: int | None = None, params: Any = None,
                     file: str | os.PathLike[str] | None = None) -> tuple[Any, int]:
        stop = len(data) if end is None else end
        try:
            return parse_part(self.declaration, data, offset, stop, root_context(params or {}, False), "")
        except FormatError as error:
            raise error.located(file=file) from None

    def __repr__(self) -> str:
        kind = f"construct ({self.reason})" if not self.generated else "variable, generated" if self.size is None \
            else f"{self.size} bytes, generated"
        return f"<Codec {self.name}: {kind}>"

    @property
    def source(self) -> str:
        """The generated Python source (empty when the codec is construct's own)."""
        if self._functions is not None:
            return self._functions.source
        return self._variable.source if self._variable is not None else ""

    @property
    def struct_format(self) -> str:
        if self._functions is None:
            raise TypeError(f"{self.name} has no fixed layout: {self.reason}")
        return self._functions.format

    @property
    def types(self) -> dict[str, type]:
        """The named tuple of every struct, by path (``""``: the record)."""
        if self._functions is not None:
            return self._functions.types
        return self._variable.types if self._variable is not None else {}

    def field(self, path: str) -> Field:
        try:
            return self.fields[path]
        except KeyError:
            raise KeyError(f"{self.name} has no field {path!r} (fields: {', '.join(self.fields)})") from None

    def picker(self, *paths: str) -> Callable[..., tuple[Any, ...]]:
        """``pick(data, offset=0, file=None)``: the values of the fields ``paths`` (in that order) of the record
        at ``data[offset]``, read by one ``struct.unpack_from`` over the slots that hold them (for the few
        numbers of a big header, without decoding the rest). A short buffer is a ``TruncatedError``."""
        fields = [self.field(path) for path in paths]
        parts = [field._parts() for field in fields]
        slots = sorted({slot.offset: slot for _, slot in parts}.values(), key=lambda slot: slot.offset)
        if any(not slot.code or slot.kind != "int" or slot.little != slots[0].little for slot in slots):
            return lambda data, offset=0, file=None: tuple(field.get(data, offset, file=file) for field in fields)
        layout, position = "<" if slots[0].little else ">", 0
        for slot in slots:
            layout += f"{slot.offset - position}x{slot.code}" if slot.offset > position else slot.code
            position = slot.offset + slot.size
        unpack = struct.Struct(layout).unpack_from
        index = {slot.offset: n for n, slot in enumerate(slots)}
        plain = all(not leaf.width and leaf.enum is None and leaf.value == "int" for leaf, _ in parts)
        order = [(leaf, index[slot.offset]) for leaf, slot in parts]

        def short(data: Any, offset: int, file: str | os.PathLike[str] | None) -> FormatError:
            for field in fields:
                field.get(data, offset, file=file)  # raises the TruncatedError of the first field cut off
            return TruncatedError(f"truncated {self.name}", file=file, offset=offset)

        if plain and [n for _, n in order] == list(range(len(slots))):
            def pick(data: Any, offset: int = 0, file: str | os.PathLike[str] | None = None) -> tuple[Any, ...]:
                try:
                    return tuple(unpack(data, offset))
                except struct.error:
                    raise short(data, offset, file) from None
        else:
            def pick(data: Any, offset: int = 0, file: str | os.PathLike[str] | None = None) -> tuple[Any, ...]:
                try:
                    numbers = unpack(data, offset)
                except struct.error:
                    raise short(data, offset, file) from None
                return tuple(leaf_from_number(leaf, numbers[n]) for leaf, n in order)
        return pick

    def bit_fields(self, run: str = "") -> dict[str, BitField]:
        """Shift and width of the bit fields directly under ``run`` (``""``: the record is a run), by name."""
        prefix = f"{run}." if run else ""
        result = {path[len(prefix):]: f.bit_field for path, f in self.fields.items()
                  if f.leaf is not None and f.leaf.width and path.startswith(prefix) and "." not in path[len(prefix):]}
        if not result:
            raise TypeError(f"{self.name}: no bit fields under {run!r}")
        return result

    # --- construct's own parse and build, for declarations without a fixed layout ------------------------

    def _parse(self, data: Any, offset: int = 0, file: str | os.PathLike[str] | None = None) -> Any:
        return parse(self.declaration, bytes(data[offset:]), offset=offset, file=file)

    def _build(self, value: Any, params: Any = None) -> bytes:
        try:
            return bytes(self.declaration.build(value, **{key: item for key, item in (params or {}).items()
                                                          if not key.startswith("_")}))
        except cs.ConstructError as exc:
            text = str(exc).split("\n", 1)[-1].strip()
            path = getattr(exc, "path", None) or ""
            path = path.replace("(building) -> ", "").replace(" -> ", ".").strip()
            raise InvalidValueError(f"cannot build: {text}", path=path or None) from exc
        except (KeyError, AttributeError, TypeError, ValueError, IndexError, OverflowError) as exc:
            # construct lets these through for a missing field or a value of the wrong type
            raise InvalidValueError(f"cannot build: {type(exc).__name__}: {exc}", actual=value) from exc

    # --- the numpy bulk path --------------------------------------------------------------------------

    @functools.cached_property
    def dtype(self) -> np.dtype[Any]:
        return numpy_dtype(self.declaration)

    def array(self, data: Any, *, file: str | os.PathLike[str] | None = None, offset: int = 0,
              label: str = "record", path: str = "records") -> np.ndarray[Any, Any]:
        """``data`` as an array of records (no copy); a partial last record is a located TruncatedError."""
        from .records import record_array

        return record_array(data, self.declaration, file=file, label=label, path=path, offset=offset)

    def _matrix(self, records: Any) -> np.ndarray[Any, Any]:
        import numpy as np

        plan_ = self._need_plan()
        if isinstance(records, np.ndarray) and records.dtype.names is not None:
            records = np.ascontiguousarray(records).tobytes()
        raw = np.frombuffer(records, dtype=np.uint8)
        if raw.size % plan_.size:
            raise TruncatedError(f"truncated {self.name} {raw.size // plan_.size}", needed=plan_.size,
                                 available=raw.size % plan_.size, offset=raw.size - raw.size % plan_.size)
        return raw.reshape(-1, plan_.size)

    def columns(self, records: Any) -> dict[str, np.ndarray[Any, Any]]:
        """Every leaf as a numpy column (bit fields split, integers as numbers, bytes as ``(n, size)`` uint8)."""
        import numpy as np

        plan_ = self._need_plan()
        matrix = self._matrix(records)
        slots = [slot_column(slot, matrix) for slot in plan_.slots]
        out: dict[str, np.ndarray[Any, Any]] = {}
        for leaf in plan_.leaves:
            column = slots[leaf.slot]
            if leaf.width:
                column = (column >> np.uint64(leaf.shift)) & np.uint64(leaf.mask)
                if leaf.signed:
                    column = column.astype(np.int64) - ((column >> np.uint64(leaf.width - 1)).astype(np.int64)
                                                        << leaf.width)
                elif leaf.value == "flag":
                    column = column.astype(bool)
            elif leaf.value == "flag":
                column = column != 0
            out[leaf.path] = column
        return out

    def from_columns(self, columns: dict[str, Any]) -> bytes:
        """The records made of ``columns`` (one array per leaf path, as :meth:`columns` gives them)."""
        import numpy as np

        plan_ = self._need_plan()
        missing = [leaf.path for leaf in plan_.leaves if leaf.path not in columns and not leaf.has_const]
        if missing:
            raise KeyError(f"{self.name}: no column for {', '.join(missing)}")
        count = len(next(iter(columns.values()))) if columns else 0
        matrix = np.zeros((count, plan_.size), dtype=np.uint8)
        words: dict[int, np.ndarray[Any, Any]] = {}
        for leaf in plan_.leaves:
            slot = plan_.slots[leaf.slot]
            values = np.asarray(columns[leaf.path]) if leaf.path in columns else None
            if slot.kind == "bytes":
                if values is None:
                    values = np.frombuffer(leaf.const, dtype=np.uint8)
                matrix[:, slot.offset:slot.offset + slot.size] = np.asarray(values, dtype=np.uint8).reshape(
                    -1, slot.size) if values.ndim > 1 else np.frombuffer(b"".join(values), np.uint8).reshape(
                    -1, slot.size)
                continue
            if values is None:
                values = np.full(count, leaf.const)
            if slot.kind == "float":
                matrix[:, slot.offset:slot.offset + slot.size] = np.asarray(
                    values, dtype=f"{'<' if slot.little else '>'}f{slot.size}").view(np.uint8).reshape(-1, slot.size)
                continue
            number = self._checked(leaf, slot, values)
            words[leaf.slot] = words.get(leaf.slot, np.zeros(count, np.uint64)) | (number << np.uint64(leaf.shift))
        for index, word in words.items():
            slot = plan_.slots[index]
            stored = word.astype(f"{'<' if slot.little else '>'}u8").view(np.uint8).reshape(-1, 8)
            matrix[:, slot.offset:slot.offset + slot.size] = stored[:, 8 - slot.size:] if not slot.little \
                else stored[:, :slot.size]
        return matrix.tobytes()

    def _checked(self, leaf: Leaf, slot: Slot, values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        import numpy as np

        low, high = leaf_range(leaf, slot)
        numbers = values.astype(np.int64) if values.dtype.kind in "biu" and values.dtype != np.uint64 else values
        if numbers.size and (numbers.min() < low or numbers.max() > high):
            bad = int(np.flatnonzero((numbers < low) | (numbers > high))[0])
            raise InvalidValueError(f"record {bad}: out of range", expected=f"{low}..{high}",
                                    actual=int(numbers[bad]), path=leaf.path)
        if leaf.signed or (not leaf.width and slot.signed):
            bits = leaf.width or 8 * slot.size
            return (numbers.astype(np.int64) & ((1 << bits) - 1)).astype(np.uint64)
        return numbers.astype(np.uint64)

    def _need_plan(self) -> Plan:
        if self.plan is None:
            raise TypeError(f"{self.name} has no fixed layout: {self.reason}")
        return self.plan

    # --- errors of the generated functions ------------------------------------------------------------

    def _truncated(self, data: Any, offset: int, file: str | os.PathLike[str] | None) -> FormatError:
        plan_ = self._need_plan()
        available = len(data) - offset
        if offset < 0 or available < 0:
            return FormatError(f"offset {offset} is outside the data ({len(data)} bytes)", file=file)
        for leaf in plan_.leaves:
            slot = plan_.slots[leaf.slot]
            if slot.offset + slot.size > available:  # the first field cut off
                return TruncatedError("truncated record", needed=plan_.size, available=available, file=file,
                                      offset=offset, path=leaf.path)
        return TruncatedError("truncated record", needed=plan_.size, available=available, file=file, offset=offset)

    def _bad_const(self, index: int, actual: Any, offset: int, file: str | os.PathLike[str] | None) -> FormatError:
        plan_ = self._need_plan()
        leaf = plan_.leaves[index]
        return InvalidValueError("wrong constant", expected=repr(leaf.const), actual=actual, file=file,
                                 offset=offset + plan_.slots[leaf.slot].offset, path=leaf.path)

    def _bad_enum(self, index: int, actual: Any, offset: int, file: str | os.PathLike[str] | None) -> FormatError:
        plan_ = self._need_plan()
        leaf = plan_.leaves[index]
        assert leaf.enum is not None
        return InvalidValueError("not a value of the enumeration", expected=f"one of its {len(leaf.enum.decmapping)} "
                                 "values", actual=actual, file=file, offset=offset + plan_.slots[leaf.slot].offset,
                                 path=leaf.path)

    def _explain(self, value: Any) -> InvalidValueError:
        try:
            check_node(self._need_plan(), self._need_plan().root, value)
        except InvalidValueError as error:
            return error
        return InvalidValueError(f"cannot encode {self.name}", actual=value)

    def _explain_leaves(self, values: tuple[Any, ...]) -> InvalidValueError:
        plan_ = self._need_plan()
        for leaf, value in zip(plan_.leaves, values, strict=True):
            check_leaf(leaf, plan_.slots[leaf.slot], value)
        return InvalidValueError(f"cannot pack {self.name}", actual=values)



def _prefix_codes(declaration: cs.Construct) -> dict[str, PrefixCode]:
    """The prefix codes used in a declaration, by the path of the field that uses them."""
    found: dict[str, PrefixCode] = {}
    seen: set[int] = set()

    def visit(con: cs.Construct, path: str) -> None:
        if id(con) in seen:
            return
        seen.add(id(con))
        if isinstance(con, cs.Renamed):
            inner, name, _ = strip_renamed(con)
            visit(inner, f"{path}.{name}" if path and name else name or path)
            return
        if isinstance(con, PrefixCoded):
            found[path] = con.code
            return
        for attr in ("subcon", "thensubcon", "elsesubcon"):
            sub = getattr(con, attr, None)
            if isinstance(sub, cs.Construct):
                visit(sub, path)
        for sub in getattr(con, "subcons", ()) or ():
            visit(sub, path)

    visit(declaration, "")
    return found


def _generated_decoder(declaration: cs.Construct) -> Callable[[bytes], Any] | None:
    """The generated ``decode`` of a declaration with a fixed layout (for :func:`~.trace.trace`'s arrays)."""
    try:
        found = codec(declaration)
    except Exception:  # a declaration the planner cannot read: trace walks it
        return None
    return found.decode if found.plan is not None else None


use_decoders(_generated_decoder)
