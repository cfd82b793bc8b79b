"""atomic_write and atomic_write_set: all files or none, no temporary file left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chessformats.engine.fileio import atomic_write, atomic_write_set


def test_atomic_write_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "book.bin"
    target.write_bytes(b"old")
    with atomic_write(target) as handle:
        handle.write(b"new")
        assert target.read_bytes() == b"old"
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.bin"]


def test_set_renames_only_when_every_file_is_written(tmp_path: Path) -> None:
    names = ["book.ctg", "book.cto", "book.ctb"]
    for name in names:
        (tmp_path / name).write_bytes(b"old " + name.encode())
    with atomic_write_set() as open_file:
        for name in names:
            open_file(tmp_path / name).write(b"new " + name.encode())
            # nothing is replaced while the set is being written
            assert all((tmp_path / n).read_bytes() == b"old " + n.encode() for n in names)
    assert [(tmp_path / n).read_bytes() for n in names] == [b"new " + n.encode() for n in names]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def test_set_that_raises_replaces_nothing(tmp_path: Path) -> None:
    names = ["book.kob", "book.kin"]
    for name in names:
        (tmp_path / name).write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_write_set() as open_file:
        open_file(tmp_path / names[0]).write(b"new")
        open_file(tmp_path / names[1]).write(b"new")
        raise RuntimeError("interrupted")
    assert [(tmp_path / n).read_bytes() for n in names] == [b"old", b"old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def test_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no folder"), atomic_write(tmp_path / "none" / "x.bin"):
        pass


def test_new_files_get_the_umask_mode_and_replaced_files_keep_theirs(tmp_path: Path) -> None:
    """``mkstemp`` makes 0600 files: a written file has the mode ``open`` would give it (issue 25, item 5)."""
    import stat

    old = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "new.bin") as handle:
            handle.write(b"x")
        assert stat.S_IMODE((tmp_path / "new.bin").stat().st_mode) == 0o644
        os.umask(0o077)
        with atomic_write(tmp_path / "new.bin") as handle:  # replaced: its mode stays
            handle.write(b"y")
        assert stat.S_IMODE((tmp_path / "new.bin").stat().st_mode) == 0o644
        with atomic_write(tmp_path / "other.bin") as handle:
            handle.write(b"z")
        assert stat.S_IMODE((tmp_path / "other.bin").stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_a_folder_as_target_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "book.bin").mkdir()
    with pytest.raises(IsADirectoryError, match="it is a folder"), atomic_write(tmp_path / "book.bin") as handle:
        handle.write(b"x")
    assert [p.name for p in tmp_path.iterdir()] == ["book.bin"]


def test_a_rename_that_fails_leaves_no_temporary_file(tmp_path: Path) -> None:
    """The target becomes a folder while the set is written: the rename fails, every temporary file goes."""
    with pytest.raises(OSError), atomic_write_set() as open_file:
        open_file(tmp_path / "a.ctg").write(b"a")
        open_file(tmp_path / "a.cto").write(b"b")
        (tmp_path / "a.ctg").mkdir()
        (tmp_path / "a.ctg" / "inside").write_bytes(b"")  # (a non-empty folder: rename cannot replace it)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.ctg"]


def test_locked_makes_writers_wait_and_leaves_nothing(tmp_path: Path) -> None:
    import threading
    import time

    from chessformats.engine.fileio import lock_path, locked

    target = tmp_path / "base.cbh"
    order: list[str] = []
    inside = threading.Event()

    def first() -> None:
        with locked(target):
            inside.set()
            time.sleep(0.3)
            order.append("first out")

    thread = threading.Thread(target=first)
    thread.start()
    inside.wait()
    with pytest.raises(BlockingIOError, match="being written by another process"), locked(target, wait=0.05):
        pass
    with locked(target):  # waits for the first holder
        order.append("second in")
        with locked(target):  # re-entrant in one thread
            pass
    thread.join()
    assert order == ["first out", "second in"]
    assert not os.path.exists(lock_path(target)) and list(tmp_path.iterdir()) == []
