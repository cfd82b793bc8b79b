"""A writer killed (SIGKILL) in the middle of writing a book over an existing one.

Each writable format writes through ``engine.fileio.atomic_write``. A child process writes a big book over a
small one; its file writes are slowed down (each ``write`` goes out in 16 kB pieces with a pause) so that the
parent sees the temporary file appear and grow and kills the child while it is being written: the kill lands
mid-write every time, whatever the machine's speed. Then:

- every file of the book holds either its old bytes or its new bytes, never a mix or a part (per file);
- for the books made of several files (CTG ``.ctg``/``.cto``/``.ctb``, Kvetka ``_N.kob``/``.kin``,
  ChessBase ``.cbh``/``.cbg``/``.cba``/entity files/``.cbj``), the set is
  still the old book as a whole, not new files beside old ones;
- the temporary file the killed writer left is removed by the next write of the same book (a temporary file
  is locked while its writer lives, so only a dead writer's file is removed), and that write succeeds.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import find_corpus

# The child: slows down every write to a file in the folder, then runs one writer.
_CHILD = textwrap.dedent('''
    import builtins, os, sys, time
    folder, fmt, stem = sys.argv[1], sys.argv[2], sys.argv[3]

    class Slow:
        def __init__(self, handle):
            self._handle = handle
        def write(self, data):
            view = memoryview(data).cast("B")
            for start in range(0, len(view), 16384):
                self._handle.write(view[start:start + 16384])
                self._handle.flush()
                time.sleep(0.005)
            return len(view)
        def __getattr__(self, name):
            return getattr(self._handle, name)
        def __enter__(self):
            self._handle.__enter__()
            return self
        def __exit__(self, *exc):
            return self._handle.__exit__(*exc)

    real_fdopen, real_open = os.fdopen, builtins.open
    def fdopen(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return Slow(handle) if "w" in mode else handle
    def open_(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        inside = isinstance(file, (str, os.PathLike)) and os.path.abspath(file).startswith(folder)
        return Slow(handle) if inside and "w" in mode else handle
    os.fdopen, builtins.open = fdopen, open_

    sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[4])))
    import interrupted_writers
    interrupted_writers.write(fmt, os.path.join(folder, stem), big=True)
''')


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _kill_when_growing(process: subprocess.Popen[bytes], folder: Path, known: set[str], ready: Callable[[Path], bool],
                       timeout: float = 120.0) -> Path:
    """SIGKILL the child once a new file in ``folder`` (its temporary file) satisfies ``ready``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the writer finished before it could be killed (status {process.returncode})")
        for path in folder.iterdir():
            try:
                grown = path.name not in known and ready(path)
            except FileNotFoundError:
                continue
            if grown:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
                return path
        time.sleep(0.002)
    process.kill()
    raise AssertionError("no temporary file grew in time")


def _bigger_than(size: int) -> Callable[[Path], bool]:
    return lambda path: path.stat().st_size >= size


def _nth_kob(number: int) -> Callable[[Path], bool]:
    """Kvetka: the temporary file of ``book_<number>.kob`` has data (earlier .kob files are already renamed)."""
    return lambda path: path.name.startswith(f".book_{number}.kob.") and path.stat().st_size >= 4096


# format -> (book name, when to kill, is the book several files)
FORMATS = {
    "polyglot": ("book.bin", _bigger_than(256 * 1024), False),
    "monty": ("games.montyformat", _bigger_than(64 * 1024), False),
    "ctg": ("book.ctg", _bigger_than(64 * 1024), True),
    "kvetka": ("book", _nth_kob(2), True),
    "chessbase": ("base", _bigger_than(8 * 1024), True),
}

_SET_XFAIL = {
}


@functools.cache
def _new_book(name: str, folder: str) -> dict[str, bytes]:
    """The new book's bytes, written once per format without a kill."""
    import interrupted_writers

    stem, _, _ = FORMATS[name]
    reference = Path(folder) / name
    reference.mkdir()
    interrupted_writers.write(name, str(reference / stem), big=True)
    return _files(reference)


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> str:
    sys.path.insert(0, str(Path(__file__).parent))
    return str(tmp_path_factory.mktemp("references"))


def _prepare(tmp_path: Path, name: str, references: str) -> tuple[Path, Path, dict[str, bytes], dict[str, bytes]]:
    """The folder with the old book, and the old and new books' bytes."""
    import interrupted_writers

    find_corpus("ctg", "PowerPlay17-Sicilienne.ctg")
    stem, _, _ = FORMATS[name]
    new = _new_book(name, references)
    folder = tmp_path / "book"
    folder.mkdir()
    interrupted_writers.write(name, str(folder / stem), big=False)
    return folder, Path(interrupted_writers.__file__), _files(folder), new


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_killed_writer_leaves_every_file_whole(tmp_path: Path, name: str, references: str) -> None:
    folder, helper, old, new = _prepare(tmp_path, name, references)
    stem, ready, _ = FORMATS[name]
    process = subprocess.Popen([sys.executable, "-c", _CHILD, str(folder), name, stem, str(helper)])
    temporary = _kill_when_growing(process, folder, set(old), ready)
    after = _files(folder)
    for file, content in after.items():
        if file == temporary.name or (file not in old and file not in new):
            continue  # temporary files: see the clean-up test
        assert content in (old.get(file), new.get(file)), f"{file} is neither the old nor the new file"
    for file in old:
        assert file in after, f"{file} of the old book is gone"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_SET_XFAIL[n]))
                                  if n in _SET_XFAIL else n for n in sorted(FORMATS)])
def test_killed_writer_leaves_the_old_book(tmp_path: Path, name: str, references: str) -> None:
    folder, helper, old, _ = _prepare(tmp_path, name, references)
    stem, ready, _ = FORMATS[name]
    process = subprocess.Popen([sys.executable, "-c", _CHILD, str(folder), name, stem, str(helper)])
    _kill_when_growing(process, folder, set(old), ready)
    after = {file: content for file, content in _files(folder).items() if file in old}
    assert after == old, f"changed: {sorted(f for f in old if after.get(f) != old[f])}"


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_next_write_removes_the_killed_writers_temporary_file(tmp_path: Path, name: str, references: str) -> None:
    folder, helper, old, new = _prepare(tmp_path, name, references)
    stem, ready, _ = FORMATS[name]
    process = subprocess.Popen([sys.executable, "-c", _CHILD, str(folder), name, stem, str(helper)])
    temporary = _kill_when_growing(process, folder, set(old), ready)
    assert temporary.exists()  # SIGKILL leaves it: nothing runs in the killed process
    import interrupted_writers

    interrupted_writers.write(name, str(folder / stem), big=True)
    after = _files(folder)
    assert sorted(after) == sorted(new), "the next write must leave exactly the new book's files"
    assert all(after[file] == new[file] for file in new)


def test_a_live_writers_temporary_file_is_kept(tmp_path: Path) -> None:
    """The clean-up removes only what nobody holds: a write that is still going on keeps its temporary file."""
    from chessformats.engine.fileio import atomic_write

    target = tmp_path / "book.bin"
    with atomic_write(target) as first:
        first.write(b"first")
        with atomic_write(target) as second:
            second.write(b"second")
        assert target.read_bytes() == b"second"
        assert len(list(tmp_path.glob(".book.bin.*.tmp"))) == 1  # the first writer's, still being written
    assert target.read_bytes() == b"first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.bin"]


def test_an_abandoned_temporary_file_is_removed_unless_it_may_be_just_created(tmp_path: Path) -> None:
    from chessformats.engine.fileio import atomic_write

    target = tmp_path / "book.bin"
    fresh = tmp_path / ".book.bin.fresh.tmp"
    fresh.write_bytes(b"")  # empty and new: maybe a writer between creating and locking it
    written = tmp_path / ".book.bin.killed.tmp"
    written.write_bytes(b"half a book")
    other = tmp_path / ".other.bin.killed.tmp"
    other.write_bytes(b"another file's")
    with atomic_write(target) as handle:
        handle.write(b"book")
    assert fresh.exists() and not written.exists() and other.exists()
    old = time.time() - 60
    os.utime(fresh, (old, old))
    with atomic_write(target) as handle:
        handle.write(b"book")
    assert not fresh.exists()
