"""tests/roundtrip.py (construct's ``common()`` check) and engine.fileio (memory maps, atomic writes)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import construct as cs
import pytest

from chessformats.engine import MeaningEnum
from chessformats.engine.fileio import atomic_write, map_file
from roundtrip import assert_rebuilds, assert_roundtrip

COLOR = MeaningEnum(cs.Int8ub, {"white": (0, "the white side"), "black": (1, "the black side")})
PAIR = cs.Struct(
    "count" / cs.Int8ub,
    "values" / cs.Array(cs.this.count, cs.Int16ub),
    "color" / COLOR,
    "bits" / cs.BitStruct("a" / cs.BitsInteger(3), "b" / cs.Flag, "c" / cs.BitsInteger(4)),
)


def test_roundtrip_struct_with_hand_values() -> None:
    # count 2, values 0x0102 and 0xFFFE, color black (1), bits a=0b101 b=1 c=0b0011 -> 0b1011_0011 = 0xB3
    data = bytes.fromhex("02" "0102" "FFFE" "01" "B3")
    parsed = assert_roundtrip(PAIR, data, {"count": 2, "values": [0x0102, 0xFFFE], "color": "black",
                                           "bits": {"a": 5, "b": True, "c": 3}}, size=cs.SizeofError)
    assert parsed["values"] == [0x0102, 0xFFFE]


def test_roundtrip_fixed_size() -> None:
    con = cs.Struct("x" / cs.Int32ul, "y" / cs.Int16sb)
    # x = 0x04030201 little-endian, y = -2 big-endian = 0xFFFE
    assert_roundtrip(con, bytes.fromhex("01020304" "FFFE"), {"x": 0x04030201, "y": -2}, size=6)


def test_roundtrip_greedy_range() -> None:
    assert_roundtrip(cs.GreedyRange(cs.Int16ub), bytes.fromhex("00010002"), [1, 2], size=cs.SizeofError)


def test_roundtrip_context_keywords() -> None:
    con = cs.Array(cs.this.n, cs.Int8ub)
    assert_roundtrip(con, b"\x07\x08", [7, 8], size=2, n=2)


def test_roundtrip_detects_wrong_object() -> None:
    with pytest.raises(AssertionError):
        assert_roundtrip(cs.Int16ub, b"\x01\x02", 0x0201, size=2)


def test_roundtrip_detects_lossy_build() -> None:
    # construct's Flag parses any non-zero byte as True but builds True as 0x01
    with pytest.raises(AssertionError):
        assert_roundtrip(cs.Flag, b"\x02", True, size=1)
    with pytest.raises(AssertionError):
        assert_rebuilds(cs.Flag, b"\x02", size=1)


def test_roundtrip_detects_wrong_size() -> None:
    with pytest.raises(AssertionError):
        assert_roundtrip(cs.Int16ub, b"\x01\x02", 0x0102, size=3)


def test_roundtrip_detects_size_that_should_not_be_static() -> None:
    with pytest.raises(AssertionError):
        assert_roundtrip(cs.Int16ub, b"\x01\x02", 0x0102, size=cs.SizeofError)


def test_roundtrip_builds_from_the_expected_object() -> None:
    # parse gives 0x0102 either way; the build starts from obj, so an obj that parses equal but builds
    # differently is caught: an enum given by its value builds the same bytes, a wrong one does not
    color = MeaningEnum(cs.Int8ub, {"white": (0, "the white side"), "black": (1, "the black side")})
    assert_roundtrip(color, b"\x01", "black", size=1)
    with pytest.raises(AssertionError):
        assert_roundtrip(color, b"\x01", "white", size=1)


def test_rebuilds_real_bytes() -> None:
    parsed = assert_rebuilds(PAIR, bytes.fromhex("01" "0102" "00" "B3"), size=cs.SizeofError)
    assert parsed["values"] == [0x0102] and parsed.color == "white"
    with pytest.raises(AssertionError):
        assert_rebuilds(cs.Int16ub, b"\x01\x02", size=3)


def test_roundtrip_checks_the_generated_codec() -> None:
    # a fixed-size record: the helper also decodes and encodes it through engine.codec
    con = cs.Struct("x" / cs.Int32ul, "y" / cs.Int16sb, "bits" / cs.BitStruct("a" / cs.BitsInteger(3),
                                                                               "b" / cs.BitsInteger(5)))
    assert_roundtrip(con, bytes.fromhex("01020304" "FFFE" "A3"), {"x": 0x04030201, "y": -2, "bits": {"a": 5, "b": 3}},
                     size=7)


# --- memory maps ----------------------------------------------------------------------------------------

def test_map_file(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(b"\x00\x01\x02")
    mapped = map_file(path)
    try:
        assert bytes(mapped[:]) == b"\x00\x01\x02"
    finally:
        if hasattr(mapped, "close"):
            mapped.close()
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert map_file(empty) == b""


# --- atomic writes ----------------------------------------------------------------------------------------

def _folder_names(folder: Path) -> set[str]:
    return {entry.name for entry in folder.iterdir()}


def test_atomic_write_replaces_file(tmp_path: Path) -> None:
    target = tmp_path / "book.bin"
    target.write_bytes(b"old contents")
    with atomic_write(target) as handle:
        handle.write(b"new ")
        handle.write(b"contents")
        assert target.read_bytes() == b"old contents"  # not visible before the block ends
    assert target.read_bytes() == b"new contents"
    assert _folder_names(tmp_path) == {"book.bin"}


def test_atomic_write_creates_file(tmp_path: Path) -> None:
    target = tmp_path / "fresh.bin"
    with atomic_write(str(target)) as handle:
        handle.write(b"x")
    assert target.read_bytes() == b"x"
    assert _folder_names(tmp_path) == {"fresh.bin"}


class Boom(Exception):
    pass


def test_atomic_write_failure_keeps_old_file(tmp_path: Path) -> None:
    target = tmp_path / "book.bin"
    target.write_bytes(b"old contents")
    with pytest.raises(Boom), atomic_write(target) as handle:
        handle.write(b"half of the new ")
        raise Boom
    assert target.read_bytes() == b"old contents"
    assert _folder_names(tmp_path) == {"book.bin"}


def test_atomic_write_failure_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "never.bin"
    with pytest.raises(KeyboardInterrupt), atomic_write(target) as handle:
        handle.write(b"data")
        raise KeyboardInterrupt  # BaseException too
    assert _folder_names(tmp_path) == set()


def test_atomic_write_failure_while_flushing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "book.bin"
    target.write_bytes(b"old")

    def failing_fsync(fd: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="disk full"), atomic_write(target) as handle:
        handle.write(b"new")
    assert target.read_bytes() == b"old"
    assert _folder_names(tmp_path) == {"book.bin"}
