"""Field tracing: parse bytes with a declaration and report where every field lies.

:func:`trace` walks a construct declaration the way construct parses it (structs, arrays, greedy
ranges, bit runs, adapters, enums) and calls construct itself for every leaf, so the values are exactly
the ones ``parse`` gives. For each field it records the path (``entries[3].move.to_file``), the byte
span, the bit span for fields inside a bit run, the decoded value and the field's one-line meaning.

A custom adapter can report sub-spans (one per square of a coded board, say) by defining
``trace_spans(raw, value) -> list[Span]`` with bit offsets relative to the adapter's first bit.

Errors raised while tracing are :class:`~chessformats.engine.errors.FormatError`\\ s that name the field
that failed and its absolute offset; :func:`parse` uses this to locate construct's errors.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import construct as cs

from .bitruns import bit_run, run_bits
from .errors import FormatError, InvalidValueError, TruncatedError, join_path
from .schema import enum_meanings, strip_renamed, type_name, unwrap

__all__ = ["Span", "TracedField", "parse", "trace", "use_decoders"]


class Span(NamedTuple):
    """A sub-span reported by an adapter: bits ``[bit_start, bit_end)`` relative to the adapter's start."""

    path: str
    bit_start: int
    bit_end: int
    value: Any
    meaning: str = ""


@dataclass(frozen=True)
class TracedField:
    """One parsed field and where it lies.

    ``start``/``end`` are absolute byte offsets (end exclusive). For fields inside a bit run,
    ``bit_start``/``bit_end`` are absolute bit offsets (``8 * byte + bit``, bit 0 = most significant
    bit of the byte, end exclusive) and ``bits`` the ``(low, high)`` bit numbers within the run read
    as one big-endian integer. In a run stored as a little-endian integer (``little_endian``), bit
    offsets count from ``8 * the run's first byte`` along the integer, most significant bit first, and
    ``bits`` are the integer's bit numbers; ``start``/``end`` are still the bytes that hold the field.
    """

    path: str
    name: str
    start: int
    end: int
    value: Any
    meaning: str
    type: str
    depth: int
    leaf: bool
    bit_start: int | None = None
    bit_end: int | None = None
    bits: tuple[int, int] | None = None
    enum: dict[int, tuple[str, str]] | None = None
    little_endian: bool = False


_CONTAINERS = (cs.Struct, cs.Sequence, cs.Array, cs.GreedyRange)


def trace(
    con: cs.Construct,
    data: bytes,
    *,
    offset: int = 0,
    path: str = "",
    file: str | os.PathLike[str] | None = None,
    **contextkw: Any,
) -> tuple[Any, list[TracedField]]:
    """Parse ``data`` with ``con``; return the parsed object and the traced fields (pre-order).

    ``offset`` is the absolute offset of ``data[0]`` in its file (for the reported spans),
    ``path`` a prefix for every field path (``entries[7]``).
    """
    tracer = _Tracer(offset, file, len(data))
    context = cs.Container(**contextkw)
    context._parsing = True
    context._building = False
    context._sizing = False
    context._params = context
    value = tracer.walk(con, io.BytesIO(data), context, path, "", "", 0, None)
    return value, tracer.out


def parse(
    con: cs.Construct,
    data: bytes,
    *,
    offset: int = 0,
    path: str = "",
    file: str | os.PathLike[str] | None = None,
    **contextkw: Any,
) -> Any:
    """``con.parse(data)``, with any failure turned into a located :class:`FormatError`.

    The fast path is construct's own parse; only when it fails is the input traced to find the field.
    """
    try:
        return con.parse(data, **contextkw)
    except cs.ConstructError as exc:
        try:
            trace(con, data, offset=offset, path=path, file=file, **contextkw)
        except FormatError as located:
            raise located from exc
        raise FormatError(_construct_message(exc), file=file, offset=offset, path=path or None) from exc


_RENAMED, _STRUCT, _ARRAY, _LEAF, _OTHER = "renamed", "struct", "array", "leaf", "other"

Decoder = Callable[[bytes], Any]
_decoders: list[Callable[[cs.Construct], Decoder | None]] = []


def use_decoders(find: Callable[[cs.Construct], Decoder | None]) -> None:
    """``find(declaration)`` answers a faster decoder of one record (bytes -> values, named tuples for structs) or
    ``None``; arrays of fixed-size records use it for the elements after the first (:class:`_Template` checks
    that its values are the walk's). The codec compiler registers its generated decoders here (it imports this
    module, so this module cannot import it)."""
    _decoders.append(find)


def _decoder(con: cs.Construct) -> Decoder | None:
    for find in _decoders:
        found = find(con)
        if found is not None:
            return found
    return None


def _kind(con: cs.Construct) -> str:
    """How :meth:`_Tracer.walk` takes ``con``: ``_LEAF`` for a node that none of its other cases takes."""
    if isinstance(con, cs.Renamed):
        return _RENAMED
    if isinstance(con, cs.Struct):
        return _STRUCT
    if isinstance(con, (cs.Array, cs.GreedyRange)):
        return _ARRAY
    if bit_run(con) is not None or isinstance(con, (cs.FixedSized, cs.IfThenElse)) or (
            isinstance(con, cs.Adapter) and isinstance(unwrap(con.subcon), _CONTAINERS)):
        return _OTHER
    return _LEAF


def _type_and_enum(con: cs.Construct) -> tuple[str, dict[int, tuple[str, str]] | None]:
    return type_name(con), enum_meanings(con)


def _trace_spans(con: cs.Construct) -> Any:
    return getattr(unwrap(con, keep_enum=True), "trace_spans", None)


_CONSTANT = re.compile(r"^(?:parsing|building) expected (.*) but (?:parsed|got) (.*)$", re.S)
"""construct's words for a constant field's wrong value (``ConstError``), said as our messages say it."""


def _construct_message(exc: BaseException) -> str:
    text = str(exc)
    # construct prefixes messages with its own path, e.g. "Error in path (parsing) -> key\n..."
    text = text.split("\n", 1)[-1].strip() or type(exc).__name__
    return _CONSTANT.sub(r"expected \1, found \2", text)


class _Tracer:
    def __init__(self, base: int, file: str | os.PathLike[str] | None, length: int) -> None:
        self.base = base
        self.file = file
        self.length = length
        self.out: list[TracedField] = []
        # what a declaration node says of itself (names, type, enum, bit run), worked out once per node and trace
        # rather than once per record; by id, the node kept beside its answer (an id is not reused while it lives)
        self._known: dict[tuple[int, str], tuple[cs.Construct, Any]] = {}
        self._spans = 0  # leaves that reported sub-spans (whose fields depend on the value: no template)

    def _once(self, kind: str, con: cs.Construct, derive: Callable[[cs.Construct], Any]) -> Any:
        known = self._known.get((id(con), kind))
        if known is None:
            known = self._known[id(con), kind] = (con, derive(con))
        return known[1]

    # bitrun: (absolute byte offset of the run, run width in bits, little-endian) when the stream is a bit stream
    def walk(
        self,
        con: cs.Construct,
        stream: io.BytesIO,
        context: Any,
        path: str,
        name: str,
        meaning: str,
        depth: int,
        bitrun: tuple[int, int, bool] | None,
    ) -> Any:
        kind = self._once("kind", con, _kind)
        if kind is _RENAMED:
            inner, sub_name, sub_meaning = self._once("renamed", con, strip_renamed)
            return self.walk(inner, stream, context, join_path(path, sub_name), sub_name or name,
                             sub_meaning or meaning, depth, bitrun)
        if kind is _STRUCT:
            return self._struct(con, stream, context, path, name, meaning, depth, bitrun)
        if kind is _ARRAY:
            return self._array(con, stream, context, path, name, meaning, depth, bitrun)
        if kind is _LEAF:
            return self._leaf(con, stream, context, path, name, meaning, depth, bitrun)
        run = self._once("run", con, bit_run) if bitrun is None else None
        if run is not None and run.size is None and not run.little_endian:
            return self._variable_run(con, run.fields, stream, context, path, name, meaning, depth)
        if run is not None and run.size is not None:
            start = stream.tell()
            raw = self._read(stream, run.size, path, con)
            return self.walk(run.fields, io.BytesIO(run_bits(run, raw)), context, path, name, meaning, depth,
                             (self.base + start, 8 * run.size, run.little_endian))
        if isinstance(con, cs.FixedSized) and bitrun is None:
            return self._fixed(con, stream, context, path, name, meaning, depth)
        if isinstance(con, cs.IfThenElse):
            branch = con.thensubcon if self._evaluate(con.condfunc, context, stream, path, bitrun) \
                else con.elsesubcon
            if branch is cs.Pass:
                return None
            return self.walk(branch, stream, context, path, name, meaning, depth, bitrun)
        if isinstance(con, cs.Adapter) and isinstance(unwrap(con.subcon), _CONTAINERS):
            slot = len(self.out)
            raw = self.walk(con.subcon, stream, context, path, name, meaning, depth, bitrun)
            value = con._decode(raw, context, path)
            if slot < len(self.out) and self.out[slot].path == path:  # the container's record: show the decoded value
                self.out[slot] = dataclasses.replace(self.out[slot], value=value)
            return value
        return self._leaf(con, stream, context, path, name, meaning, depth, bitrun)

    def _record(
        self,
        con: cs.Construct,
        start: int,
        end: int,
        value: Any,
        path: str,
        name: str,
        meaning: str,
        depth: int,
        leaf: bool,
        bitrun: tuple[int, int, bool] | None,
    ) -> TracedField:
        if bitrun is None:
            type_, enum = self._once("type", con, _type_and_enum)
            field = TracedField(path, name, self.base + start, self.base + end, value, meaning, type_, depth, leaf,
                                enum=enum)
        else:
            run_start, width, little = bitrun
            high = width - 1 - start
            if little:  # integer bit k is in byte k // 8 of the run
                first, last = run_start + (width - end) // 8, run_start + high // 8 + 1
            else:
                first, last = run_start + start // 8, run_start + (end + 7) // 8
            type_, enum = self._once("type", con, _type_and_enum)
            field = TracedField(path, name, first, last, value, meaning, type_, depth, leaf, 8 * run_start + start,
                                8 * run_start + end, (width - end, high), enum, little)
        return field

    def _struct(self, con: cs.Struct, stream: io.BytesIO, context: Any, path: str, name: str, meaning: str,
                depth: int, bitrun: tuple[int, int, bool] | None) -> Any:
        start = stream.tell()
        slot = len(self.out)
        if path:
            self.out.append(self._record(con, start, start, None, path, name, meaning, depth, False, bitrun))
        obj = cs.Container()
        context = cs.Container(_=context, _params=context._params, _root=None, _parsing=True, _building=False,
                               _sizing=False, _subcons=con._subcons, _io=stream, _index=context.get("_index"))
        context._root = context._.get("_root", context)
        child_depth = depth + 1 if path else depth
        for sub in con.subcons:
            try:
                value = self.walk(sub, stream, context, path, "", "", child_depth, bitrun)
            except cs.StopFieldError:
                break
            if sub.name:
                obj[sub.name] = value
                context[sub.name] = value
        if path:
            self.out[slot] = self._record(con, start, stream.tell(), obj, path, name, meaning, depth, False,
                                          bitrun)
        return obj

    def _array(self, con: cs.Construct, stream: io.BytesIO, context: Any, path: str, name: str, meaning: str,
               depth: int, bitrun: tuple[int, int, bool] | None) -> Any:
        start = stream.tell()
        slot = len(self.out)
        self.out.append(self._record(con, start, start, None, path, name, meaning, depth, False, bitrun))
        items = cs.ListContainer()
        if isinstance(con, cs.Array):
            count = self._evaluate(con.count, context, stream, path, bitrun)
            if not isinstance(count, int) or count < 0:
                raise InvalidValueError("invalid element count", actual=count, file=self.file,
                                        offset=self.base + start, path=path)
            indices: Any = range(count)
        else:  # GreedyRange, traced strictly: every byte up to the end must form whole elements
            indices = _count_until_end(stream)
        template: _Template | None = None
        size = _size_or_none(con.subcon, context) if bitrun is None else None
        paused = False
        try:
            for index in indices:
                context._index = index
                element = f"{path}[{index}]"
                if template is not None and template.follow(self, stream, element, items):
                    continue
                first, spans = len(self.out), self._spans
                items.append(self.walk(con.subcon, stream, context, element, name, meaning, depth + 1, bitrun))
                if index == 0 and size and self._spans == spans and stream.tell() - start == size:
                    stream.seek(start)
                    raw = stream.read(size)
                    template = _Template.made(con.subcon, self.out[first:], element, raw, self.base + start)
                    # the template makes millions of small objects and no cycle: the cyclic collector, which would
                    # walk them all again and again (60 % of the time), waits until the array is done
                    paused = template is not None and gc.isenabled()
                    if paused:
                        gc.disable()
        finally:
            if paused:
                gc.enable()
        self.out[slot] = self._record(con, start, stream.tell(), items, path, name, meaning, depth, False, bitrun)
        return items

    def _leaf(self, con: cs.Construct, stream: io.BytesIO, context: Any, path: str, name: str, meaning: str,
              depth: int, bitrun: tuple[int, int, bool] | None) -> Any:
        start = stream.tell()
        try:
            value = con._parsereport(stream, context, path)
        except cs.StreamError as exc:
            size = _size_or_none(con, context)
            available = _remaining(stream, start)
            unit = 8 if bitrun is not None else 1
            raise TruncatedError(
                f"truncated {path or 'data'}",
                needed=size // unit if size is not None and unit == 1 else None,
                available=available if unit == 1 else None,
                file=self.file, offset=self._abs(start, bitrun), path=path or None, show_path=False,
            ) from exc
        except cs.ConstructError as exc:
            raise InvalidValueError(_construct_message(exc), file=self.file, offset=self._abs(start, bitrun),
                                    path=path or None) from exc
        end = stream.tell()
        field = self._record(con, start, end, value, path, name, meaning, depth, True, bitrun)
        self.out.append(field)
        spans = self._once("spans", con, _trace_spans)
        if spans is not None:
            self._spans += 1
            origin = 8 * field.start if bitrun is None else (field.bit_start or 0)
            raw = None
            if bitrun is None:
                stream.seek(start)
                raw = stream.read(end - start)
            for span in spans(raw, value):
                bit_start, bit_end = origin + span.bit_start, origin + span.bit_end
                self.out.append(TracedField(join_path(path, span.path), span.path, bit_start // 8,
                                            (bit_end + 7) // 8, span.value, span.meaning, "bits", depth + 1,
                                            True, bit_start, bit_end))
        return value

    def _variable_run(self, con: cs.Construct, fields: cs.Construct, stream: io.BytesIO, context: Any, path: str,
                      name: str, meaning: str, depth: int) -> Any:
        """A bit run whose size the data decides: ``Bitwise`` of a variable struct, or ``schema.bitwise_rest``.

        The run is traced over the rest of the stream; it then takes the whole bytes its fields used
        (``bitwise_rest``: all of them).
        """
        start = stream.tell()
        raw = stream.read()
        bits = io.BytesIO(cs.bytes2bits(raw))
        value = self.walk(fields, bits, context, path, name, meaning, depth, (self.base + start, 8 * len(raw), False))
        used = len(raw) if isinstance(con, cs.Transformed) else (bits.tell() + 7) // 8
        stream.seek(start + used)
        return value

    def _fixed(self, con: cs.FixedSized, stream: io.BytesIO, context: Any, path: str, name: str, meaning: str,
               depth: int) -> Any:
        """A ``FixedSized`` region: its bytes are traced as a stream of their own, at their file offset."""
        start = stream.tell()
        length = self._evaluate(con.length, context, stream, path, None)
        if not isinstance(length, int) or length < 0:
            raise InvalidValueError("invalid length", actual=length, file=self.file, offset=self.base + start,
                                    path=path or None)
        raw = self._read(stream, length, path, con)
        saved = self.base
        self.base = saved + start
        try:
            return self.walk(con.subcon, io.BytesIO(raw), context, path, name, meaning, depth, None)
        finally:
            self.base = saved

    def _evaluate(self, expression: Any, context: Any, stream: io.BytesIO, path: str,
                  bitrun: tuple[int, int, bool] | None) -> Any:
        """A context expression (a count, a length, a condition), its failure located."""
        try:
            return cs.evaluate(expression, context)
        except Exception as exc:  # a context lambda can raise anything (KeyError, TypeError, ...)
            raise InvalidValueError(f"cannot evaluate {path or 'the field'}: {exc}", file=self.file,
                                    offset=self._abs(stream.tell(), bitrun), path=path or None) from exc

    def _read(self, stream: io.BytesIO, size: int, path: str, con: cs.Construct) -> bytes:
        start = stream.tell()
        if size < 0:
            raise InvalidValueError(f"negative size of {path or 'data'}", actual=size, file=self.file,
                                    offset=self.base + start, path=path or None)
        # the size (read from the data: up to 2**63 here) checked against the bytes there before reading
        data = stream.read(min(size, _remaining(stream, start)))
        if len(data) != size:
            raise TruncatedError(f"truncated {path or 'data'}", needed=size, available=len(data),
                                 file=self.file, offset=self.base + start, path=path or None, show_path=False)
        return data

    def _abs(self, position: int, bitrun: tuple[int, int, bool] | None) -> int:
        if bitrun is None:
            return self.base + position
        run_start, width, little = bitrun
        return run_start + (max(width - 1 - position, 0) // 8 if little else position // 8)


class _Template:
    """The fields of an array's first element, reused for the elements after it when their layout is fixed.

    Tracing walks the declaration for every element; an array of records that the codec compiler generates a
    decoder for (a fixed layout: every element has the same fields at the same places) and without sub-spans lays
    out every element as the first, so only the values differ. Each later element is decoded by the generated
    decoder in one call (its values checked against the walk's on the first element) and its fields are the first
    element's, moved by the element's offset, each value looked up in the decoded element by the field's path. An
    element the decoder refuses is walked instead (so that the error is located as without the template).
    """

    def __init__(self, decode: Callable[[bytes], Any], size: int, base: int,
                 fields: list[tuple[str, tuple[str | int, ...], dict[str, Any]]]) -> None:
        self.decode = decode
        self.size = size
        self.base = base
        self.fields = fields

    @classmethod
    def made(cls, con: cs.Construct, traced: list[TracedField], element: str, raw: bytes, start: int
             ) -> _Template | None:
        """The template of the first element (its fields ``traced``, its bytes ``raw``), or ``None`` when the
        element decoder does not give every traced value (same type, equal) at the field's path."""
        found = _decoder(con)
        if found is None:  # only a generated decoder (a fixed layout) promises every element the same fields
            return None

        def decode(data: bytes) -> Any:
            return _containers(found(data))

        try:
            value = decode(raw)
        except Exception:  # a decoder can raise anything
            return None
        fields = []
        for field in traced:
            if not field.path.startswith(element):
                return None
            suffix = field.path[len(element):]
            keys = _keys(suffix)
            if keys is None or not _same(_lookup(value, keys), field.value):
                return None
            fields.append((suffix, keys, dict(vars(field))))
        return cls(decode, len(raw), start, fields)

    def follow(self, tracer: _Tracer, stream: io.BytesIO, element: str, items: list[Any]) -> bool:
        """Trace the element at the stream's position from the template; ``False`` (nothing read): walk it."""
        at = stream.tell()
        raw = stream.read(self.size)
        try:
            if len(raw) != self.size:
                raise EOFError
            value = self.decode(raw)
        except Exception:  # a decoder can raise anything; the walk locates it
            stream.seek(at)
            return False
        shift = tracer.base + at - self.base
        bit_shift = 8 * shift
        out = tracer.out
        append, before = out.append, len(out)
        new, set_dict = object.__new__, object.__setattr__
        for suffix, keys, attributes in self.fields:
            found = _lookup(value, keys)
            if found is _MISSING:  # not the first element's shape after all: walk it
                del out[before:]
                stream.seek(at)
                return False
            moved = attributes.copy()  # a frozen dataclass's __init__ sets its 14 fields one by one: slow here
            moved["path"], moved["value"] = element + suffix, found
            moved["start"] += shift
            moved["end"] += shift
            if moved["bit_start"] is not None:
                moved["bit_start"] += bit_shift
                moved["bit_end"] += bit_shift
            field = new(TracedField)
            set_dict(field, "__dict__", moved)
            append(field)
        items.append(value)
        return True


def _containers(value: Any) -> Any:
    """A generated decoder's named tuples (and lists of them) as construct's containers."""
    if isinstance(value, list):
        return cs.ListContainer(map(_containers, value))
    if not (isinstance(value, tuple) and hasattr(value, "_fields")):
        return value
    kind = type(value)
    nested = _NESTED.get(kind)
    if nested is None:
        nested = _NESTED[kind] = tuple((index, name) for index, (name, item)
                                       in enumerate(zip(value._fields, value, strict=True))
                                       if isinstance(item, (list, tuple)))
    container = cs.Container(zip(value._fields, value, strict=True))
    for index, name in nested:
        container[name] = _containers(value[index])
    return container


_NESTED: dict[type, tuple[tuple[int, str], ...]] = {}


def _keys(suffix: str) -> tuple[str | int, ...] | None:
    """``.move.to_file`` -> ``("move", "to_file")``, ``[2].x`` -> ``(2, "x")``; ``None`` if not a plain path."""
    keys: list[str | int] = []
    for part in suffix.replace("[", ".[").split(".")[1:]:
        if part.startswith("["):
            if not part.endswith("]") or not part[1:-1].isdigit():
                return None
            keys.append(int(part[1:-1]))
        elif part:
            keys.append(part)
        else:
            return None
    return tuple(keys)


def _lookup(value: Any, keys: tuple[str | int, ...]) -> Any:
    try:
        for key in keys:
            value = value[key]
    except (KeyError, IndexError, TypeError):
        return _MISSING
    return value


_MISSING = object()


def _same(found: Any, value: Any) -> bool:
    try:
        return found is value or (type(found) is type(value) and bool(found == value))
    except Exception:  # a value's __eq__ may raise
        return False


def _count_until_end(stream: io.BytesIO) -> Any:
    index = 0
    end = _end(stream)
    while stream.tell() < end:
        yield index
        index += 1


def _end(stream: io.BytesIO) -> int:
    """The stream's size (``getbuffer`` would copy a buffer shared with the bytes it was made from, every call)."""
    here = stream.tell()
    end = stream.seek(0, io.SEEK_END)
    stream.seek(here)
    return end


def _remaining(stream: io.BytesIO, position: int) -> int:
    return _end(stream) - position


def _size_or_none(con: cs.Construct, context: Any) -> int | None:
    try:
        return int(con._sizeof(context, ""))
    except (cs.SizeofError, KeyError, AttributeError, TypeError):
        return None
