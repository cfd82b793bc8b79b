"""engine.errors and the truncation errors of engine.records: what the user reads when a file is bad."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import construct as cs
import numpy as np
import pytest

from chessformats import FormatError as PublicFormatError
from chessformats.engine import (
    FormatError,
    InvalidValueError,
    TruncatedError,
    UnsupportedError,
    record_array,
)
from chessformats.engine.errors import join_path

# A 16-byte record laid out like a Polyglot entry (declared here: the engine is format-agnostic).
RECORD = cs.Struct("key" / cs.Int64ub, "move" / cs.Int16ub, "weight" / cs.Int16ub, "learn" / cs.Int32ub)


def test_hierarchy() -> None:
    for cls in (TruncatedError, InvalidValueError, UnsupportedError):
        assert issubclass(cls, FormatError)
    assert issubclass(FormatError, ValueError)
    assert PublicFormatError is FormatError


def test_str_with_file_offset_and_path() -> None:
    error = FormatError("bad value", file="/some/dir/book.bin", offset=24, path="entries[1].move")
    assert str(error) == "book.bin: offset 24: entries[1].move: bad value"
    assert (error.reason, error.file, error.offset, error.path) == ("bad value", "/some/dir/book.bin", 24,
                                                                   "entries[1].move")


def test_str_without_location() -> None:
    assert str(FormatError("bad value")) == "bad value"
    assert str(FormatError("bad value", offset=0)) == "offset 0: bad value"
    assert str(FormatError("bad value", path="header")) == "header: bad value"


def test_str_without_path_when_asked() -> None:
    error = FormatError("truncated entry 3", offset=48, path="entries[3]", show_path=False)
    assert str(error) == "offset 48: truncated entry 3"
    assert error.path == "entries[3]"


def test_truncated_error_fields_and_text() -> None:
    error = TruncatedError("truncated header", needed=16, available=7, file="x.bin", offset=32, path="header")
    assert (error.needed, error.available) == (16, 7)
    assert str(error) == "x.bin: offset 32: header: truncated header (16 bytes needed, 7 available)"
    error = TruncatedError("truncated entry 2", needed=16, available=7, offset=32, path="entries[2]",
                           show_path=False)
    assert str(error) == "offset 32: truncated entry 2 (16 bytes needed, 7 available)"
    assert str(TruncatedError("truncated", offset=3)) == "offset 3: truncated"


def test_invalid_value_error_fields_and_text() -> None:
    error = InvalidValueError("bad promotion", expected="0..4", actual=6, offset=8, path="entries[0].move")
    assert (error.expected, error.actual) == ("0..4", 6)
    assert str(error) == "offset 8: entries[0].move: bad promotion (expected 0..4, found 6)"
    assert str(InvalidValueError("bad")) == "bad"


def test_invalid_value_error_with_actual_only() -> None:
    assert str(InvalidValueError("invalid element count", actual=-1)) == "invalid element count (found -1)"
    assert str(InvalidValueError("bad", expected="0..4")) == "bad (expected 0..4)"


def test_str_names_a_short_path() -> None:
    assert str(FormatError("invalid count", offset=1, path="n")) == "offset 1: n: invalid count"


def test_located_fills_location() -> None:
    error = FormatError("bad", offset=4, path="move")
    assert error.located(file="book.bin", base_offset=160, path_prefix="entries[10]") is error
    assert (error.file, error.offset, error.path) == ("book.bin", 164, "entries[10].move")
    assert str(error) == "book.bin: offset 164: entries[10].move: bad"


def test_located_keeps_a_known_file_and_sets_missing_offset() -> None:
    error = FormatError("bad", file="first.bin")
    error.located(file="second.bin", base_offset=48)
    assert (error.file, error.offset, error.path) == ("first.bin", 48, None)
    untouched = FormatError("bad").located()
    assert (untouched.file, untouched.offset, untouched.path) == (None, None, None)


def test_located_index_prefix() -> None:
    error = FormatError("bad", path="[2].x").located(path_prefix="items")
    assert error.path == "items[2].x"


@pytest.mark.parametrize(("prefix", "path", "joined"), [
    ("", "move", "move"),
    ("entries[3]", "", "entries[3]"),
    ("entries[3]", "move", "entries[3].move"),
    ("entries", "[3]", "entries[3]"),
    ("a.b", "c.d", "a.b.c.d"),
])
def test_join_path(prefix: str, path: str, joined: str) -> None:
    assert join_path(prefix, path) == joined


# --- record_array: a partial record at the end --------------------------------------------------------

def test_record_array_views_whole_records() -> None:
    data = bytes.fromhex("0102030405060708" "0102" "0304" "0A0B0C0D") * 3
    array = record_array(data, RECORD)
    assert len(array) == 3
    assert int(array["key"][2]) == 0x0102030405060708
    assert (int(array["move"][0]), int(array["weight"][1])) == (0x0102, 0x0304)
    assert int(array["learn"][2]) == 0x0A0B0C0D
    assert not array.flags.owndata  # a view of the input, not a copy


def test_record_array_offset() -> None:
    data = b"HDR" + bytes(16 * 2)
    assert len(record_array(data, RECORD, offset=3)) == 2


def test_record_array_truncated_in_memory() -> None:
    data = bytes(16 * 2 + 5)
    with pytest.raises(TruncatedError) as info:
        record_array(data, RECORD, label="entry", path="entries")
    error = info.value
    # two whole records (32 bytes), then 5 bytes of the third (index 2)
    assert (error.offset, error.needed, error.available, error.path) == (32, 16, 5, "entries[2]")
    assert error.file is None
    assert "truncated entry 2 (16 bytes needed, 5 available)" in str(error)


def test_record_array_truncated_with_header_offset() -> None:
    with pytest.raises(TruncatedError) as info:
        record_array(bytes(10 + 16 + 1), RECORD, offset=10, file="f.dat")
    assert (info.value.offset, info.value.available, info.value.path) == (26, 1, "records[1]")


def _gm2001_copy(corpus_path: Callable[..., Path], tmp_path: Path, tail: bytes | None, cut: int = 0) -> Path:
    data = corpus_path("polyglot", "gm2001.bin").read_bytes()
    assert len(data) == 486656  # 30416 entries of 16 bytes
    if cut:
        data = data[:-cut]
    if tail:
        data += tail
    path = tmp_path / "gm2001.bin"
    path.write_bytes(data)
    return path


def _open_records(path: Path) -> np.ndarray[Any, Any]:
    return record_array(path.read_bytes(), RECORD, file=path, label="entry", path="entries")


def test_record_array_gm2001_with_7_extra_bytes(corpus_path: Callable[..., Path], tmp_path: Path) -> None:
    path = _gm2001_copy(corpus_path, tmp_path, b"\x00" * 7)
    with pytest.raises(TruncatedError) as info:
        _open_records(path)
    error = info.value
    # 486656 + 7 bytes: 30416 whole entries (486656 = 30416 * 16), then 7 bytes of entry 30416
    assert (error.offset, error.needed, error.available) == (486656, 16, 7)
    assert error.path == "entries[30416]"
    assert error.file == str(path)
    assert str(error).startswith("gm2001.bin: offset 486656: ")
    assert str(error).endswith("truncated entry 30416 (16 bytes needed, 7 available)")


def test_record_array_gm2001_last_entry_cut_to_7_bytes(
        corpus_path: Callable[..., Path], tmp_path: Path) -> None:
    path = _gm2001_copy(corpus_path, tmp_path, None, cut=9)
    with pytest.raises(TruncatedError) as info:
        _open_records(path)
    # 486656 - 9 = 486647 = 30415 * 16 + 7: entry 30415 starts at 486640 and has 7 of its 16 bytes
    assert (info.value.offset, info.value.needed, info.value.available) == (486640, 16, 7)
    assert info.value.path == "entries[30415]"


def test_record_array_gm2001_message_from_the_issue(corpus_path: Callable[..., Path], tmp_path: Path) -> None:
    path = _gm2001_copy(corpus_path, tmp_path, None, cut=9)
    with pytest.raises(TruncatedError) as info:
        _open_records(path)
    # the exact message of the issue
    expected = "gm2001.bin: offset 486640: truncated entry 30415 (16 bytes needed, 7 available)"
    assert str(info.value) == expected


def test_record_array_gm2001_plus_7_bytes_message(corpus_path: Callable[..., Path], tmp_path: Path) -> None:
    path = _gm2001_copy(corpus_path, tmp_path, b"\x00" * 7)
    with pytest.raises(TruncatedError) as info:
        _open_records(path)
    expected = "gm2001.bin: offset 486656: truncated entry 30416 (16 bytes needed, 7 available)"
    assert str(info.value) == expected
