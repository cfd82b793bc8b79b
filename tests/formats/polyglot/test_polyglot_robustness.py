"""Bad input never escapes as anything but a FormatError; writing edge cases."""

from __future__ import annotations

import warnings
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import FormatError
from chessformats.polyglot import UnsortedBookWarning, open_book, write_book
from polyglot_cases import entries


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_random_bytes_open_or_raise_format_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(data)
    try:
        with open_book(path) as book:
            for entry in book:
                assert 0 <= entry.raw_move < 1 << 16
            entries(book, chess.Board())
            entries(book, 0x463B96181691FC9C)
    except FormatError as exc:
        assert exc.file == str(path) and exc.offset is not None and 0 <= exc.offset <= len(data)
        assert str(exc).startswith("random.bin: offset ")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(st.tuples(st.sampled_from([0x463B96181691FC9C, 1, 2]), st.integers(0, 0xFFFF),
                                  st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF)), max_size=12))
def test_lenient_open_keeps_but_never_probes_invalid_moves(tmp_path: Path,
                                                           entries: list[tuple[int, int, int, int]]) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(b"".join(k.to_bytes(8, "big") + m.to_bytes(2, "big") + w.to_bytes(2, "big") + lr.to_bytes(4, "big")
                              for k, m, w, lr in entries))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedBookWarning)
        book = open_book(path, strict=False)
    with book:
        assert [(e.key, e.raw_move, e.weight, e.learn) for e in book] == entries  # nothing lost
        for key in (0x463B96181691FC9C, 1, 2):
            for entry in book.find_all(key, minimum_weight=0, legal_only=False):
                raw = entry.raw_move
                # a valid Polyglot move: bit 15 clear, promotion 0..4, origin != destination,
                # promotions only from the 7th to the 8th rank or from the 2nd to the 1st
                assert raw >> 15 == 0 and (raw >> 12) & 7 <= 4 and raw & 63 != (raw >> 6) & 63
                if (raw >> 12) & 7:
                    assert ((raw >> 9) & 7, (raw >> 3) & 7) in ((6, 7), (1, 0))
        if any(book.invalid_entries):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnsortedBookWarning)
                with pytest.raises(FormatError):
                    open_book(path)


def test_merged_entries_keep_the_first_non_zero_learn(tmp_path: Path) -> None:
    path = tmp_path / "merged.bin"
    e2e4 = 0x031C  # to e4 (4 | 3 << 3), from e2 (4 << 6 | 1 << 9)
    rows = [(5, e2e4, 10, 0), (5, e2e4, 20, 7), (5, e2e4, 30, 9)]
    for merge, weight in (("sum", 60), ("max", 30), ("first", 10)):
        assert write_book(path, rows, merge=merge).written == 1
        with open_book(path) as book:
            assert [(e.weight, e.learn) for e in book] == [(weight, 7)]


def test_a_board_as_position_key_is_a_clear_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="FEN string or a Zobrist key"):
        write_book(tmp_path / "x.bin", {(1, 2): {"e2e4": 1}})  # type: ignore[dict-item]


def test_describe_lists_the_fields_of_a_whole_book() -> None:
    from chessformats.engine.layout import describe
    from chessformats.schemas.polyglot import BOOK

    paths = [field.path for field in describe(BOOK)]
    assert paths[:4] == ["", "[]", "[].key", "[].move"] and "[].move.to_file" in paths
