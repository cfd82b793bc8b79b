"""Bad input never escapes as anything but a located FormatError, and never hangs."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import FormatError, monty

CORPUS = {"policy": ("monty", "reference_generated_policy.montyformat"),
          "value": ("monty", "reference_generated_value.montyvalue")}


def read_or_fail(data: bytes, format: str, name: str = "random.montyformat") -> int:
    """Plies read, or a FormatError that says where (the only exception allowed)."""
    source = io.BytesIO(data)
    source.name = name  # type: ignore[misc]
    try:
        return sum(len(game.plies) for game in monty.read_games(source, format=format))
    except FormatError as exc:
        assert exc.file == name and exc.offset is not None and 0 <= exc.offset <= len(data), exc
        assert exc.path is not None and exc.path.startswith("games["), exc
        assert str(exc).startswith(f"{name}: offset {exc.offset}: ")
        return -1


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=600), format=st.sampled_from(["policy", "value"]))
def test_random_bytes(data: bytes, format: str) -> None:
    read_or_fail(data, format)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(min_size=43, max_size=43), tail=st.binary(max_size=300),
       format=st.sampled_from(["policy", "value"]))
def test_random_after_the_corpus_header(corpus_path: Callable[..., Path], data: bytes, tail: bytes,
                                        format: str) -> None:
    header = corpus_path(*CORPUS[format]).read_bytes()[:43]
    read_or_fail(header + tail, format)
    read_or_fail(data + tail, format)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(format=st.sampled_from(["policy", "value"]), edits=st.lists(st.tuples(st.integers(0, 10**6),
                                                                             st.integers(0, 255)), min_size=1,
                                                                   max_size=3))
def test_corrupted_corpus_files(corpus_path: Callable[..., Path], format: str,
                                edits: list[tuple[int, int]]) -> None:
    data = bytearray(corpus_path(*CORPUS[format]).read_bytes())
    for position, byte in edits:
        data[position % len(data)] = byte
    read_or_fail(bytes(data), format)


@pytest.mark.parametrize("format", ["policy", "value"])
def test_wrong_format_is_a_format_error(corpus_path: Callable[..., Path], format: str) -> None:
    other = "value" if format == "policy" else "policy"
    assert read_or_fail(corpus_path(*CORPUS[format]).read_bytes(), other) == -1
