"""The round-trip checks of the tests, shaped like construct's own ``common(format, data, obj, size)``.

``assert_roundtrip(con, data, obj, size)``: the expected object and size are required, ``parse(data)`` must
equal ``obj``, and the build starts from ``obj`` (not from the parsed value), so a lossy parse cannot hide.
``assert_rebuilds(con, data, size)`` is for real bytes (corpus records) whose object is not written out:
the parsed object must build back to the same bytes and parse again to an equal object.

Both also check the engine's fast path: when the declaration has a generated codec
(:func:`chessformats.engine.codec.codec`), its ``decode``/``encode`` must agree with construct's ``parse`` and
``build`` on the same bytes.
"""

from __future__ import annotations

from typing import Any

import construct as cs

from chessformats.engine.codec import codec

__all__ = ["assert_rebuilds", "assert_roundtrip", "plain"]


class _Enumerated:
    """A parsed enum value: equal to its name and to its number (construct builds from either)."""

    def __init__(self, value: cs.EnumIntegerString) -> None:
        self.number, self.name = int(value), str(value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Enumerated):
            return (self.number, self.name) == (other.number, other.name)
        return other == self.name or (isinstance(other, int) and other == self.number)

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"{self.name}({self.number})"


def plain(value: Any) -> Any:
    """A comparable form: construct containers and the codec's named tuples as dicts (without ``_io``),
    lists as lists, parsed enums equal to their name and to their number."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items() if not (isinstance(key, str) and key.startswith("_"))}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, cs.EnumIntegerString):
        return _Enumerated(value)
    return value


def _check_size(con: cs.Construct, size: Any, contextkw: dict[str, Any]) -> None:
    if isinstance(size, type) and issubclass(size, Exception):
        try:
            con.sizeof(**contextkw)
        except size:
            return
        raise AssertionError(f"sizeof() did not raise {size.__name__}")
    actual = con.sizeof(**contextkw)
    assert actual == size, f"sizeof() is {actual}, expected {size}"


def _check_fast_path(con: cs.Construct, data: bytes, parsed: Any, contextkw: dict[str, Any]) -> None:
    """The generated codec (when the declaration has one) decodes and encodes as construct does."""
    derived = codec(con)
    if not derived.generated or contextkw:
        return
    decoded = derived.decode(data)
    assert plain(decoded) == plain(parsed), f"codec decoded {decoded!r}, construct parsed {parsed!r}"
    assert derived.encode(decoded) == data, "codec.encode(codec.decode(data)) differs from data"
    assert derived.encode(parsed) == data, "codec.encode(construct's parse) differs from data"


def assert_roundtrip(con: cs.Construct, data: bytes, obj: Any, size: Any, **contextkw: Any) -> Any:
    """construct's ``common()``: ``parse(data) == obj``, ``build(obj) == data``, ``sizeof() == size``.

    ``size`` is an integer, or the exception ``sizeof()`` must raise (``cs.SizeofError`` for a variable
    size). Returns the parsed object.
    """
    parsed = con.parse(data, **contextkw)
    assert plain(parsed) == plain(obj), f"parsed {parsed!r}, expected {obj!r}"
    built = con.build(obj, **contextkw)
    assert built == data, f"build(obj) gave {built.hex()}, expected {data.hex()}"
    _check_size(con, size, contextkw)
    _check_fast_path(con, data, parsed, contextkw)
    return parsed


def assert_rebuilds(con: cs.Construct, data: bytes, size: Any, **contextkw: Any) -> Any:
    """Real bytes: ``build(parse(data)) == data``, the rebuilt bytes parse to an equal object, ``sizeof() == size``.

    For records whose expected object is not written out in the test (every record of a corpus file);
    returns the parsed object, on which the test asserts what it knows.
    """
    parsed = con.parse(data, **contextkw)
    built = con.build(parsed, **contextkw)
    assert built == data, f"build(parse(data)) gave {built.hex()}, expected {data.hex()}"
    assert plain(con.parse(built, **contextkw)) == plain(parsed), "the rebuilt bytes parse differently"
    _check_size(con, size, contextkw)
    _check_fast_path(con, data, parsed, contextkw)
    return parsed
