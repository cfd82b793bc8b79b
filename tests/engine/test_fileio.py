"""atomic_write and atomic_write_set: all files or none, no temporary file left behind."""

from __future__ import annotations

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
