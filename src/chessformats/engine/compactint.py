"""A base-128 variable-length unsigned integer, most significant digit first, bit 7 set on every byte but the
last (Kvetka's CompactInt: the spec's loop ``result := (result shl 7) + (i and 127) until i < 128``).

:class:`CompactInt` reads and writes it in construct declarations and, through ``codec_read``/``codec_write``,
in the engine's generated codecs (:mod:`.varcodec`).
"""

from __future__ import annotations

from typing import Any

import construct as cs

__all__ = ["COMPACT_INT_MAX_BYTES", "COMPACT_INT_MORE", "CompactInt", "compact_int_bytes", "read_compact_int"]

COMPACT_INT_MAX_BYTES = 10
"""Longest CompactInt this library reads (70 bits); the spec sets no limit, a longer run is refused."""
COMPACT_INT_MORE = 0x80
"""Bit 7 of a CompactInt byte: set on every byte but the last (the other 7 bits are a base-128 digit)."""
_DIGIT = COMPACT_INT_MORE - 1
_DIGIT_BITS = _DIGIT.bit_length()


def compact_int_bytes(value: int) -> bytes:
    """The CompactInt of ``value``: base-128 digits, most significant first, bit 7 set on all but the last."""
    if value < 0:
        raise ValueError(f"a CompactInt cannot hold {value}")
    digits = [value & _DIGIT]
    value >>= _DIGIT_BITS
    while value:
        digits.append(COMPACT_INT_MORE | (value & _DIGIT))
        value >>= _DIGIT_BITS
    if len(digits) > COMPACT_INT_MAX_BYTES:
        raise ValueError(f"a CompactInt of more than {COMPACT_INT_MAX_BYTES} bytes")
    return bytes(reversed(digits))


def read_compact_int(data: Any, offset: int, end: int) -> tuple[int, int]:
    """The spec's loop ``result := (result shl 7) + (i and 127) until i < 128`` over ``data[offset:end]``.

    Returns ``(value, offset after it)``. Raises :class:`IndexError` when the bytes end inside the number
    and :class:`ValueError` when it runs past :data:`COMPACT_INT_MAX_BYTES` (the caller locates both).
    """
    result = 0
    limit = min(end, offset + COMPACT_INT_MAX_BYTES)
    while offset < limit:
        byte = data[offset]
        offset += 1
        result = (result << _DIGIT_BITS) | (byte & _DIGIT)
        if byte < COMPACT_INT_MORE:
            return result, offset
    if limit < end:
        raise ValueError(f"CompactInt longer than {COMPACT_INT_MAX_BYTES} bytes")
    raise IndexError("the bytes end inside a CompactInt")


class CompactInt(cs.Construct):  # type: ignore[misc]
    """The spec's variable-length unsigned integer (1 byte for 0-127, 2 for 128-16383, ...)."""

    def __init__(self) -> None:
        super().__init__()
        self.type_label = "CompactInt"

    def _parse(self, stream: Any, context: Any, path: str) -> int:
        result = 0
        for _ in range(COMPACT_INT_MAX_BYTES):
            byte: int = cs.stream_read(stream, 1, path)[0]
            result = (result << _DIGIT_BITS) | (byte & _DIGIT)
            if byte < COMPACT_INT_MORE:
                return result
        raise cs.ExplicitError(f"CompactInt longer than {COMPACT_INT_MAX_BYTES} bytes", path=path)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if not isinstance(obj, int):
            raise cs.ExplicitError(f"{obj!r} is not an integer", path=path)
        try:
            data = compact_int_bytes(obj)
        except ValueError as exc:
            raise cs.ExplicitError(str(exc), path=path) from exc
        cs.stream_write(stream, data, len(data), path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        raise cs.SizeofError("a CompactInt has no fixed size", path=path)

    def codec_read(self, data: Any, offset: int, end: int | None = None) -> tuple[int, int]:
        """For the engine's generated codecs: (value, end), the bytes ending at ``end`` (default: ``len(data)``);
        IndexError, ValueError where ``_parse`` fails."""
        stop = len(data) if end is None else end
        if stop - offset >= COMPACT_INT_MAX_BYTES:  # all the limit's bytes there: never IndexError
            return read_compact_int(data, offset, offset + COMPACT_INT_MAX_BYTES + 1)
        return read_compact_int(data, offset, stop)

    def codec_write(self, value: Any) -> bytes:
        """For the engine's generated codecs (TypeError, ValueError where ``_build`` fails)."""
        if not isinstance(value, int):
            raise TypeError(f"{value!r} is not an integer")
        return compact_int_bytes(value)

    def codec_read_lines(self, target: str, slow: str, path: str = "", bind: Any = None) -> list[str]:
        """Generated lines (over ``data``, ``pos``, ``end``) reading the number into ``target``: a one-byte
        number inline, a longer one by the line ``slow`` (a call of :meth:`codec_read`). ``bind(prefix, value)``
        names a constant of the generated module (not needed here)."""
        return [f"if pos < end and data[pos] < {COMPACT_INT_MORE}:", f"    {target} = data[pos]", "    pos += 1",
                "else:", f"    {slow}"]

    def codec_write_source(self, value: str, slow: str, bind: Any) -> str:
        """A generated expression of the bytes of ``value``: a one-byte number from a table, else ``slow``."""
        table = bind("b", tuple(bytes((number,)) for number in range(COMPACT_INT_MORE)))
        return f"({table}[{value}] if {value}.__class__ is int and 0 <= {value} < {COMPACT_INT_MORE} else {slow})"
