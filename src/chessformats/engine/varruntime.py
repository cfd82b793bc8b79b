"""What the generated code of variable layouts (:mod:`.varcodec`, :mod:`.varbits`) calls at run time: its
errors, value access, and the reading and writing of parts that construct (or a construct of the project's,
through ``codec_read``/``codec_write``) reads and writes itself.
"""

from __future__ import annotations

import io
from typing import Any

import construct as cs

from .errors import FormatError, InvalidValueError, TruncatedError
from .varexpr import context_view

__all__ = ["NAMES", "NoCase", "Root", "Short", "parse_part", "root_context"]


class NoCase(InvalidValueError):
    """A tag without a case in a union without a default (construct's ``ExplicitError``: ends a GreedyRange)."""


class Short(Exception):
    """The bytes cannot hold a fixed part of an alternative (``Select``, ``GreedyRange``): the alternative fails
    as it would with the fixed decoder's own truncation error, which is not built."""


def _get(value: Any, name: Any) -> Any:
    if isinstance(value, tuple):
        return getattr(value, name)
    return value[name]


def _truncated(path: str, needed: int, available: int, offset: int) -> TruncatedError:
    return TruncatedError("truncated field", needed=needed, available=max(available, 0), offset=offset,
                          path=path or None)


def _invalid(path: str, reason: str, actual: Any = None) -> InvalidValueError:
    return InvalidValueError(reason, actual=actual, path=path or None)


def parse_part(con: cs.Construct, data: Any, pos: int, end: int, context: Any, path: str) -> tuple[Any, int]:
    """``con`` parsed by construct at ``data[pos:end]`` (a part the generator delegates): its value and end."""
    base = 0
    if not isinstance(data, bytes) or end != len(data):  # a mapped file, or bytes up to a bound: only those
        data, base, pos = bytes(data[pos:end]), pos, 0
    stream = io.BytesIO(data)
    stream.seek(pos)
    try:
        value = con._parsereport(stream, context, path)
    except cs.ExplicitError as exc:
        raise NoCase(_message(exc), path=path or None, offset=base + pos) from exc
    except cs.ConstructError as exc:
        raise InvalidValueError(_message(exc), path=path or None, offset=base + pos) from exc
    return value, base + stream.tell()


def _build_part(con: cs.Construct, value: Any, context: Any, path: str) -> bytes:
    stream = io.BytesIO()
    try:
        con._build(value, stream, context, path)
    except cs.ExplicitError as exc:
        raise NoCase(_message(exc), actual=value, path=path or None) from exc
    except cs.ConstructError as exc:
        raise InvalidValueError(_message(exc), actual=value, path=path or None) from exc
    return stream.getvalue()


def _read_own(con: Any, data: Any, pos: int, stop: int, path: str) -> tuple[Any, int]:
    """A construct's own ``codec_read(data, pos, stop)``: IndexError is bytes that end (at ``stop``), ValueError
    construct's explicit error (the protocol of the project's constructs, such as Kvetka's CompactInt)."""
    try:
        value, end = con.codec_read(data, pos, stop)
    except IndexError as exc:
        raise TruncatedError(str(exc), offset=pos, path=path or None) from exc
    except ValueError as exc:
        raise NoCase(str(exc), offset=pos, path=path or None) from exc
    return value, end


def _write_own(con: Any, value: Any, path: str) -> bytes:
    try:
        return bytes(con.codec_write(value))
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidValueError(str(exc), actual=value, path=path or None) from exc


def _bad_items(path: str, pos: int, items: Any, valid: frozenset[int]) -> InvalidValueError:
    """The first of ``items`` (numbers read from ``pos``, one byte each) that is not a value of the enumeration."""
    number = next(n for n, item in enumerate(items) if item not in valid)
    return InvalidValueError("not a value of the enumeration", expected=f"one of its {len(valid)} values",
                             actual=items[number], offset=pos + number, path=f"{path}[{number}]")


def _bad_value(path: str, pos: int | None, value: Any, valid: frozenset[int]) -> InvalidValueError:
    return InvalidValueError("not a value of the enumeration", expected=f"one of its {len(valid)} values",
                             actual=value, offset=pos, path=path or None)


def _checked_value(encode: Any, value: Any, valid: frozenset[int], path: str) -> bytes:
    """The bytes of an enum leaf (checked: a number must be a value of the enumeration; a name is encoded)."""
    if isinstance(value, int):
        raise _bad_value(path, None, value, valid)
    return bytes(encode(value))


def _bad_stored(path: str, value: Any, size: int) -> InvalidValueError:
    """A field kept as stored (:mod:`.varoptions`) given a value that is not its ``size`` bytes or a number that
    fits in them."""
    return InvalidValueError(f"not {size} bytes or a number of {size} bytes", actual=value, path=path or None)


class Root(cs.Container):  # type: ignore[misc]
    """The root context of a parse or build with parameters (construct's ``parse(data, **params)``), made once."""


def root_context(params: Any, building: bool) -> Root:
    """The root context of ``params`` (a mapping, or a :class:`Root` made before: used as it is)."""
    if isinstance(params, Root):
        if params["_building"] is building:
            return params
        params = {key: value for key, value in params.items() if not key.startswith("_")}
    root = Root(params)
    root.update({"_parsing": not building, "_building": building, "_sizing": False})
    root["_params"] = root
    return root


def _message(error: cs.ConstructError) -> str:
    return str(error).split("\n", 1)[-1].strip()


NAMES = {"_get": _get, "_view": context_view, "_trunc": _truncated, "_inv": _invalid, "_NoCase": NoCase,
         "_FormatError": FormatError, "_parse_part": parse_part, "_build_part": _build_part, "_read_own": _read_own,
         "_write_own": _write_own, "_Short": Short, "_bad_items": _bad_items, "_bad_value": _bad_value,
         "_bad_stored": _bad_stored, "_checked_value": _checked_value, "_root": root_context, "_Root": Root}
"""The helpers by the names generated code calls them."""
