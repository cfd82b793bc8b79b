"""File helpers: read-only memory maps and atomic writes."""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
from collections.abc import Iterator
from typing import IO

__all__ = ["atomic_write", "map_file"]


def map_file(path: str | os.PathLike[str]) -> mmap.mmap | bytes:
    """Map a file read-only (``b""`` for an empty file, which cannot be mapped)."""
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return b""
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Write a file through a temporary file in the same folder, renamed over ``path`` on success.

    If the block raises, the temporary file is removed and ``path`` is left as it was.
    """
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write {target}: no folder {folder}")
    fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
