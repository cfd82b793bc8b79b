"""The error family of chessformats.

Every public reader turns bad input into a :class:`FormatError` (a ``ValueError``) that says *where*:
the file, the byte offset and the field path (``entries[3].move.promotion``). Subclasses say *what*:
the input ends too early, a value is not allowed, or the file uses something this library does not
support. The design follows the Kaitai Struct runtime's errors (path + position + expected/actual).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = [
    "FormatError",
    "InvalidValueError",
    "TruncatedError",
    "UnsupportedError",
]


class FormatError(ValueError):
    """Bytes that do not follow the format.

    :ivar reason: what is wrong, without the location.
    :ivar file: the file's path (``None`` when reading from memory).
    :ivar offset: absolute byte offset in the file of the field that failed.
    :ivar path: the field path inside the schema, e.g. ``entries[3].move``.

    ``str()`` gives ``file: offset N: path: reason``; ``show_path=False`` leaves the path out of the
    message when the reason already names the place (``truncated entry 30415``).
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | os.PathLike[str] | None = None,
        offset: int | None = None,
        path: str | None = None,
        show_path: bool = True,
    ) -> None:
        self.reason = reason
        self.file = os.fspath(file) if file is not None else None
        self.offset = offset
        self.path = path
        self.show_path = show_path
        super().__init__(reason)

    def located(
        self,
        *,
        file: str | os.PathLike[str] | None = None,
        base_offset: int = 0,
        path_prefix: str = "",
    ) -> FormatError:
        """Fill in the location this error was raised without (in place); returns ``self``.

        ``base_offset`` is added to the offset (a record parsed from a slice reports the file offset);
        ``path_prefix`` is put in front of the path.
        """
        if self.file is None and file is not None:
            self.file = os.fspath(file)
        if self.offset is not None:
            self.offset += base_offset
        elif base_offset:
            self.offset = base_offset
        if path_prefix:
            self.path = join_path(path_prefix, self.path or "")
        return self

    def __str__(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(os.path.basename(self.file))
        if self.offset is not None:
            parts.append(f"offset {self.offset}")
        text = self.reason
        if self.path and self.show_path:
            text = f"{self.path}: {text}"
        parts.append(text)
        return ": ".join(parts)


class TruncatedError(FormatError):
    """The input ends before a field does."""

    def __init__(
        self,
        reason: str,
        *,
        needed: int | None = None,
        available: int | None = None,
        **location: Any,
    ) -> None:
        self.needed = needed
        self.available = available
        if needed is not None and available is not None:
            reason = f"{reason} ({needed} bytes needed, {available} available)"
        super().__init__(reason, **location)


class InvalidValueError(FormatError):
    """A field holds a value the format does not allow."""

    def __init__(self, reason: str, *, expected: Any = None, actual: Any = None, **location: Any) -> None:
        self.expected = expected
        self.actual = actual
        details = [f"expected {expected}"] if expected is not None else []
        if actual is not None:
            details.append(f"found {actual!r}")
        if details:
            reason = f"{reason} ({', '.join(details)})"
        super().__init__(reason, **location)


class UnsupportedError(FormatError):
    """Valid input that uses a feature or version this library does not (yet) support."""


def join_path(prefix: str, path: str) -> str:
    """Join two field paths: ``join_path("entries[3]", "move") == "entries[3].move"``."""
    if not prefix:
        return path
    if not path:
        return prefix
    if path.startswith("["):
        return prefix + path
    return f"{prefix}.{path}"
