"""The round-trip check of construct's own tests (``common()``), for our declarations."""

from __future__ import annotations

from typing import Any

import construct as cs

__all__ = ["assert_roundtrip"]

_UNSET: Any = object()


def assert_roundtrip(con: cs.Construct, data: bytes, obj: Any = _UNSET, size: Any = _UNSET,
                     **contextkw: Any) -> Any:
    """Assert ``parse(data) == obj``, ``build(parsed) == data`` and ``sizeof() == size``.

    ``obj`` and ``size`` are optional (pass ``size=cs.SizeofError`` when the size is not static).
    Returns the parsed object.
    """
    parsed = con.parse(data, **contextkw)
    if obj is not _UNSET:
        assert _plain(parsed) == _plain(obj), f"parsed {parsed!r}, expected {obj!r}"
    rebuilt = con.build(parsed, **contextkw)
    assert rebuilt == data, f"build gave {rebuilt.hex()}, expected {data.hex()}"
    if isinstance(size, type) and issubclass(size, Exception):
        try:
            con.sizeof(**contextkw)
        except size:
            pass
        else:
            raise AssertionError(f"sizeof() did not raise {size.__name__}")
    elif size is not _UNSET:
        assert con.sizeof(**contextkw) == size, f"sizeof() is {con.sizeof(**contextkw)}, expected {size}"
    return parsed


def _plain(value: Any) -> Any:
    """Containers without construct's private ``_io`` entries, for comparison."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("_"))}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
