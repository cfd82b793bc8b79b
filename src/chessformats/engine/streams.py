"""Compressed input streams (``.gz``, ``.bz2``, ``.xz``, ``.zst``) whose damage is a ``FormatError``.

A decompressor's own exceptions (``zlib.error``, ``EOFError``, ``gzip.BadGzipFile``, ``lzma.LZMAError``,
``OSError('Invalid data stream')``, ``zstandard.ZstdError``) become an
:class:`~chessformats.engine.errors.InvalidValueError` or, for a stream cut short, a
:class:`~chessformats.engine.errors.TruncatedError`, naming the file and the compressed offset read so far.
``.zst`` (lichess's monthly databases) needs PyPI ``zstandard`` (``pip install 'chessformats[zst]'``); its
frames are read one after the other, and a file that ends inside a frame is an error, not a quiet end.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import zlib
from collections.abc import Callable
from typing import IO, Any

from .errors import InvalidValueError, TruncatedError, UnsupportedError

__all__ = ["COMPRESSED_SUFFIXES", "open_binary"]

_DAMAGE: tuple[type[BaseException], ...] = (zlib.error, EOFError, gzip.BadGzipFile, lzma.LZMAError, OSError)
"""What the standard decompressors raise on a damaged stream (bz2 raises ``OSError('Invalid data stream')``)."""

_ZSTD_CHUNK = 1 << 13
"""Compressed bytes given to the zstd decompressor at a time: a block expands at most 32,768-fold (an RLE
block), so one call never makes more than 256 MB whatever the input."""


class _Zstd(io.RawIOBase):
    """Every frame of a zstd file, decompressed as it is read."""

    def __init__(self, handle: IO[bytes], name: str) -> None:
        try:
            import zstandard
        except ImportError as exc:
            raise UnsupportedError("reading .zst needs the zstandard package (pip install 'chessformats[zst]')",
                                   file=name) from exc
        self.handle, self.name, self.module = handle, name, zstandard
        self.decompressor = zstandard.ZstdDecompressor()
        self.frame: Any = None
        self.pending = memoryview(b"")
        """Decompressed bytes not yet handed out (a view: handing out part of them copies nothing else)."""
        self.input = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            if not self.input:
                self.input = self.handle.read(_ZSTD_CHUNK)
                if not self.input:
                    if self.frame is not None:
                        size = self.handle.tell()
                        raise TruncatedError("the zstd stream ends inside a frame (the file was cut short)",
                                             file=self.name, offset=size, path="compressed stream")
                    return 0
            if self.frame is None:
                self.frame = self.decompressor.decompressobj()
            chunk, self.input = self.input, b""
            self.pending = memoryview(self.frame.decompress(chunk))
            if self.frame.eof:
                self.input, self.frame = self.frame.unused_data, None
        count = min(len(buffer), len(self.pending))
        buffer[:count] = self.pending[:count]
        self.pending = self.pending[count:]
        return count

    def close(self) -> None:
        self.handle.close()
        super().close()


class _Checked(io.RawIOBase):
    """A decompressed stream whose damage is a ``FormatError`` at the compressed offset read so far."""

    def __init__(self, inner: Any, handle: IO[bytes], name: str, kind: str) -> None:
        self.inner, self.handle, self.name, self.kind = inner, handle, name, kind
        self.damage: tuple[type[BaseException], ...] = _DAMAGE
        if kind == "zstd":
            self.damage += (inner.module.ZstdError,)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            return int(self.inner.readinto(buffer) or 0)
        except self.damage as exc:
            if isinstance(exc, OSError) and exc.errno is not None:
                raise  # the disk's error, not the stream's
            offset = self.handle.tell() if not self.handle.closed else None
            if isinstance(exc, EOFError):
                raise TruncatedError(f"the {self.kind} stream ends early (the file was cut short): {exc}",
                                     file=self.name, offset=offset, path="compressed stream") from exc
            raise InvalidValueError(f"damaged {self.kind} stream: {exc}", file=self.name, offset=offset,
                                    path="compressed stream") from exc

    def close(self) -> None:
        self.inner.close()
        self.handle.close()
        super().close()


_OPENERS: dict[str, tuple[str, Callable[[IO[bytes], str], Any]]] = {
    ".gz": ("gzip", lambda handle, name: gzip.GzipFile(fileobj=handle, mode="rb")),
    ".bz2": ("bzip2", lambda handle, name: bz2.BZ2File(handle, "rb")),
    ".xz": ("xz", lambda handle, name: lzma.LZMAFile(handle, "rb")),
    ".zst": ("zstd", _Zstd),
}
COMPRESSED_SUFFIXES = tuple(_OPENERS)
"""The file name endings read as compressed streams."""


def open_binary(path: str | os.PathLike[str], *, buffer_size: int = 1 << 16) -> IO[bytes]:
    """Open a file for reading bytes, decompressed when its name ends with one of :data:`COMPRESSED_SUFFIXES`."""
    name = os.fspath(path)
    opener = next((value for suffix, value in _OPENERS.items() if name.lower().endswith(suffix)), None)
    handle = open(name, "rb")
    if opener is None:
        return handle
    kind, make = opener
    try:
        inner = make(handle, name)
        return io.BufferedReader(_Checked(inner, handle, name, kind), buffer_size)
    except BaseException:
        handle.close()
        raise
