"""File helpers: read-only memory maps and atomic writes."""

from __future__ import annotations

import contextlib
import mmap
import os
import stat
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import IO, Any, TypeVar

from .contract import ClosedError
from .errors import FormatError

__all__ = ["MappedFile", "atomic_write", "atomic_write_set", "lock_path", "locked", "map_file", "regular"]


def regular(path: str | os.PathLike[str], what: str, *, pipes: bool = False) -> str:
    """``path``, unless it names a folder, or a pipe or a device (whose ``open`` could block; ``pipes``: a pipe or
    a device is fine, for a reader that streams): those are a :class:`FormatError` saying it is not ``what``. A
    path that does not exist is left to ``open``."""
    name = os.fspath(path)
    if os.path.exists(name) and not os.path.isfile(name):
        if os.path.isdir(name):
            raise FormatError(f"a folder, not {what}", file=name)
        if not pipes:
            raise FormatError(f"a pipe or a device, not {what}", file=name)
    return name


def map_file(path: str | os.PathLike[str], what: str = "a file to read") -> mmap.mmap | bytes:
    """Map a file read-only (``b""`` for an empty file, which cannot be mapped); a folder, a pipe or a device is
    a :class:`FormatError` (:func:`regular`) saying it is not ``what``."""
    with open(regular(path, what), "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return b""
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: temporary files of killed writers stay
    fcntl = None  # type: ignore[assignment]

_FRESH = 5.0
"""Seconds during which an empty, unlocked temporary file may still be a live writer's (created, not yet locked)."""


class _Temp:
    """A temporary file beside ``target``, locked while its writer lives (see :func:`atomic_write`)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        import tempfile  # here, not at import: start-up time of read-only commands

        self.target = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(self.target))
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"cannot write {self.target}: no folder {folder}")
        if os.path.isdir(self.target):
            raise IsADirectoryError(f"cannot write {self.target}: it is a folder")
        prefix = f".{os.path.basename(self.target)}."
        _remove_abandoned(folder, prefix)
        fd, self.path = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
        self.lock = _lock(fd)  # a duplicate descriptor: the lock outlives the handle until the rename is done
        self.handle: IO[bytes] = os.fdopen(fd, "wb")

    def finish(self, durable: bool = True) -> None:
        """Flush the data to the disk (before any rename; ``durable=False``: to the operating system only), with the
        mode the file is to have: the mode of the file it replaces, else the one ``open`` gives a new file (``0o666``
        less the umask; ``mkstemp`` makes 0600)."""
        self.handle.flush()
        try:
            mode = stat.S_IMODE(os.stat(self.target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(self.handle.fileno(), mode)
        if durable:
            os.fsync(self.handle.fileno())
        self.handle.close()

    def release(self, *, keep: bool) -> None:
        """Rename over the target (``keep``) or remove; then let the lock go."""
        try:
            if keep:
                os.replace(self.path, self.target)
            else:
                self.handle.close()
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path)
        finally:
            if self.lock is not None:
                os.close(self.lock)
                self.lock = None


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Write a file through a temporary file in the same folder, renamed over ``path`` on success.

    If the block raises, the temporary file is removed and ``path`` is left as it was. A writer that is killed
    (SIGKILL, power loss) cannot remove its temporary file: the file is locked (``flock``) while its writer
    lives, and the next write of ``path`` removes the temporary files of ``path`` that nobody holds.
    """
    with atomic_write_set() as open_file:
        yield open_file(path)


@contextlib.contextmanager
def atomic_write_set(*, durable: bool = True) -> Iterator[Callable[[str | os.PathLike[str]], IO[bytes]]]:
    """Write several files (a book and its companions) as one: ``open_file(path)`` gives a handle on a
    temporary file beside ``path``; when the block ends without an error, every file is flushed to the disk
    first, and only then renamed over its target, one after the other.

    A writer killed while it writes leaves every old file as it was (and temporary files that the next write
    removes, as :func:`atomic_write`'s); only a kill between the renames, which take microseconds, can leave
    new files beside old ones. If the block raises, every temporary file is removed and nothing is replaced.
    ``durable=False`` leaves out the flush to the disk (``fsync``) for files that can be made again (extracted
    from an archive, or temporary): all or nothing still holds for errors, not for a power loss.
    """
    temps: list[_Temp] = []

    def open_file(path: str | os.PathLike[str]) -> IO[bytes]:
        temps.append(_Temp(path))
        return temps[-1].handle

    try:
        yield open_file
        for temp in temps:
            temp.finish(durable)
    except BaseException:
        for temp in temps:
            temp.release(keep=False)
        raise
    for number, temp in enumerate(temps):
        try:
            temp.release(keep=True)
        except BaseException:  # a rename failed (the target became a folder, ...): no temporary file stays
            for left in temps[number:]:
                left.release(keep=False)
            raise


def _umask() -> int:
    """The process's umask (read by setting it and putting it back: no other way but ``/proc``)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_held: dict[tuple[str, int], int] = {}
"""Lock files held (path, thread -> depth): :func:`locked` is re-entrant within a thread; other threads wait."""


def lock_path(path: str | os.PathLike[str]) -> str:
    """The lock file of the file (or file set) ``path``: ``.NAME.lock`` beside it."""
    target = os.path.abspath(os.fspath(path))
    return os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.lock")


@contextlib.contextmanager
def locked(path: str | os.PathLike[str], *, wait: float | None = None) -> Iterator[None]:
    """Hold an advisory lock (``flock``) on the file set named by ``path`` for the block: a read-modify-write
    (an append, a replacement) holds it from its first read to its last rename, so that writers of the same
    file set run one after the other instead of each renaming over the others' work.

    The lock is ``.NAME.lock`` beside ``path``, removed by its holder as it lets go (a writer that finds its
    locked file removed opens the new one: two writers never hold two files). Re-entrant within a thread.
    ``wait``: seconds to wait for another writer before raising :class:`BlockingIOError` (``None``: wait as
    long as it takes). Without ``fcntl`` (Windows), nothing is locked.
    """
    import threading

    name = lock_path(path)
    holder = (name, threading.get_ident())
    if fcntl is None or holder in _held:  # held by this thread already (or no locks: Windows)
        _held[holder] = _held.get(holder, 0) + 1
        try:
            yield
        finally:
            _held[holder] -= 1
            if not _held[holder]:
                del _held[holder]
        return
    deadline = None if wait is None else time.monotonic() + wait
    while True:
        fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            _take(fd, deadline, path, name)
            # the holder before us removes the lock file as it lets go: a lock on that removed file locks nothing
            with contextlib.suppress(FileNotFoundError):
                if os.stat(name).st_ino == os.fstat(fd).st_ino:
                    break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    _held[holder] = 1
    try:
        yield
    finally:
        del _held[holder]
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)  # before letting go: nothing is left beside the files (see the check above)
        os.close(fd)  # closing the descriptor lets the lock go


def _take(fd: int, deadline: float | None, path: str | os.PathLike[str], name: str) -> None:
    """``flock`` the descriptor: wait for it, or until ``deadline`` (``time.monotonic``), then raise."""
    assert fcntl is not None
    if deadline is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise BlockingIOError(f"{os.fspath(path)} is being written by another process (lock {name})") \
                    from None
            time.sleep(0.05)


def _lock(fd: int) -> int | None:
    if fcntl is None:  # pragma: no cover
        return None
    lock = os.dup(fd)
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def _remove_abandoned(folder: str, prefix: str) -> None:
    """Remove ``prefix*.tmp`` files in ``folder`` whose writer is gone (no process holds their lock)."""
    if fcntl is None:  # pragma: no cover
        return
    for entry in os.scandir(folder):
        if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
            continue
        try:
            fd = os.open(entry.path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            status = os.fstat(fd)
            if status.st_size == 0 and time.time() - status.st_mtime < _FRESH:
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
        except OSError:  # locked: its writer is alive
            continue
        finally:
            os.close(fd)


_Mapped = TypeVar("_Mapped", bound="MappedFile")


class MappedFile:
    """Base of the readers that keep a file mapped read-only: a context manager whose :meth:`close` releases
    the map.

    A subclass maps its file with :meth:`_map` (the map is kept in ``_data``) and names in ``_views`` the
    attributes that hold views of it (numpy arrays, memoryviews), which :meth:`close` drops first. Closing
    twice is harmless; a view a caller still holds keeps the map alive until it dies.
    """

    _data: Any = b""
    _views: tuple[str, ...] = ()
    closed: bool = False
    """``True`` once :meth:`close` ran: every use then raises :class:`~chessformats.contract.ClosedError`."""

    def _map(self, path: str | os.PathLike[str], what: str = "a file to read") -> mmap.mmap | bytes:
        data = self._data = map_file(path, what)
        return data

    def __enter__(self: _Mapped) -> _Mapped:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    @property
    def buffer(self) -> Any:
        """The mapped file's bytes, read-only (a bulk reader above ``formats/`` wraps them in numpy)."""
        self._check_open()
        return self._data

    def _check_open(self) -> None:
        """Raise :class:`~chessformats.contract.ClosedError` (naming the file) when the reader was closed."""
        if self.closed:
            raise ClosedError(f"{getattr(self, 'path', '?')}: {type(self).__name__} is closed (use it inside its "
                              "'with' block, before close())")

    def close(self) -> None:
        """Release the memory map (arrays taken from the file must not be used afterwards)."""
        self.closed = True
        for name in self._views:
            self.__dict__.pop(name, None)
        data, self._data = self._data, b""
        if hasattr(data, "close"):
            try:
                data.close()
            except BufferError:  # a view still exported by a caller; the map closes when it dies
                pass
