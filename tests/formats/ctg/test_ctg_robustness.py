"""Malformed CTG books: every defect is a FormatError naming the file, page, offset and field.

Each damaged book is made here by hand (byte offsets worked out in the comments) from a small book
written by chessformats, from hand-built records, or from the corpus; a fuzz test checks that random damage
never escapes as anything but a FormatError.
"""

from __future__ import annotations

import random
import re
import shutil
import struct
import warnings
from pathlib import Path
from typing import Any

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import ctg
from chessformats.cli import main
from chessformats.engine import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from chessformats.schemas import ctg as schema
from chessformats.schemas.squares import SQUARE_CODE
from conftest import find_corpus

START = chess.Board()


def small_book(folder: Path) -> Path:
    """A book of the start position (1.e4 1.d4) and the two positions after them: one data page."""
    records = [ctg.make_record(START, [chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")], games=2, wins=1,
                               draws=1)]
    for uci in ("e2e4", "d2d4"):
        board = START.copy()
        board.push_uci(uci)
        records.append(ctg.make_record(board, [], games=1, losses=1))
    path = folder / "small.ctg"
    ctg.write_book(path, records)
    return path


def damage(path: Path, offset: int, data: bytes) -> None:
    raw = bytearray(path.read_bytes())
    raw[offset:offset + len(data)] = data
    path.write_bytes(bytes(raw))


def page_of(path: Path) -> tuple[int, int, list[int]]:
    """(record count, bytes used, record offsets) of data page 0, walked with the notes' lengths."""
    data = path.read_bytes()
    count, used = struct.unpack(">HH", data[4096:4100])
    offsets = []
    position = 4100
    for _ in range(count):
        offsets.append(position)
        length = data[position] & 0x1F
        position += length + data[position + length] + 33
    return count, used, offsets


def read_everything(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ctg.MissingIndexWarning)
        book = ctg.open_book(path)
    with book:
        list(book.records())
        book.probe(START)


def test_the_small_book_is_valid(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    count, _, _ = page_of(path)
    assert count == 3 and len(path.read_bytes()) == 8192
    read_everything(path)


def test_truncated_file(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    path.write_bytes(path.read_bytes()[:8000])
    with pytest.raises(TruncatedError) as caught:
        ctg.open_book(path)
    # 8000 = one whole page (4096) + 3904 bytes of page 1 (data page 0)
    assert caught.value.offset == 4096 and "truncated page 0 (4096 bytes needed, 3904 available)" in str(caught.value)
    assert caught.value.file == str(path)


def test_bytes_used_out_of_range(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    damage(path, 4098, struct.pack(">H", 5000))
    with pytest.raises(InvalidValueError) as caught:
        read_everything(path)
    assert caught.value.offset == 4098 and caught.value.path == "pages[0].header.used"
    assert "small.ctg: offset 4098: pages[0].header.used: bytes used out of range (expected 4..4096, found 5000)" \
        == str(caught.value)


def test_records_do_not_fill_the_bytes_used(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    _, used, _ = page_of(path)
    damage(path, 4098, struct.pack(">H", used + 1))
    with pytest.raises(InvalidValueError) as caught:
        read_everything(path)
    assert caught.value.path == "pages[0].header.used" and f"expected {used}" in str(caught.value)
    damage(path, 4098, struct.pack(">H", used - 1))  # the last record now runs past the used bytes
    with pytest.raises(TruncatedError, match=r"truncated pages\[0\]\.records\[2\]"):
        read_everything(path)


def test_more_records_announced_than_there_are(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    damage(path, 4096, struct.pack(">H", 4))
    with pytest.raises(TruncatedError, match="the page header says 4 records") as caught:
        read_everything(path)
    assert caught.value.path == "pages[0].header.positions"


def test_even_moves_length(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    _, _, offsets = page_of(path)
    data = path.read_bytes()
    first = offsets[0]
    at = first + (data[first] & 0x1F)  # the moves block's length byte of record 0
    damage(path, at, b"\x04")
    with pytest.raises(InvalidValueError) as caught:
        read_everything(path)
    assert caught.value.offset == at and caught.value.path == "pages[0].records[0].moves.length"


def test_move_code_not_in_the_table(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    _, _, offsets = page_of(path)
    data = path.read_bytes()
    record = next(o for o in offsets if data[o + (data[o] & 0x1F)] == 5)  # the record with two moves
    index = offsets.index(record)
    at = record + (data[record] & 0x1F) + 1  # its first move code
    damage(path, at, b"\x02")  # 0x02 is none of the 166 codes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ctg.MissingIndexWarning)
        book = ctg.open_book(path)
    with book, pytest.raises(InvalidValueError) as caught:
        list(book.records())
    assert caught.value.offset == at and caught.value.path == f"pages[0].records[{index}].moves.moves[0].code"
    assert "found '0x02'" in str(caught.value)
    with ctg.open_book(path) as book, pytest.raises(InvalidValueError) as probed:
        book.probe(START)
    assert probed.value.offset == at


def hand_book(folder: Path, records: list[bytes], name: str = "hand.ctg") -> Path:
    """A one-page book (no .cto/.ctb) of the given record bytes."""
    body = b"".join(records)
    header = schema.HEADER_PAGE.build({"data_pages": 1, "positions": len(records), "games": 0})
    page = struct.pack(">HH", len(records), 4 + len(body)) + body
    path = folder / name
    path.write_bytes(header + page + bytes(4096 - len(page)))
    return path


def position_bytes(squares: list[str], castling: bool = False) -> bytes:
    """An encoded position built with the schema (the header's length follows the padding rule)."""
    bits = 8 + SQUARE_CODE.bit_length(squares)
    flags = 4 if castling else 0
    total = (bits + flags + 7) // 8 * 8 if flags else (bits // 8 + 1) * 8
    return bytes(schema.POSITION.build({
        "header": {"unused": 0, "has_castling": castling, "has_en_passant": False, "length": total // 8},
        "board": {"squares": squares, "padding": 0, "en_passant_file": None,
                  "castling": {"black_short": 0, "black_long": 0, "white_short": 1, "white_long": 1} if castling
                  else None}}))


def record_bytes(position: bytes, moves: bytes = b"") -> bytes:
    return position + bytes((1 + len(moves),)) + moves + bytes(33)


def test_a_board_with_nine_kings(tmp_path: Path) -> None:
    squares = ["white_king"] * 9 + ["empty"] * 54 + ["black_king"]
    path = hand_book(tmp_path, [record_bytes(position_bytes(squares))])
    with pytest.raises(InvalidValueError) as caught:
        read_everything(path)
    assert caught.value.path == "pages[0].records[0].position.board.squares" and caught.value.offset == 4101
    assert "9 white and 1 black kings" in str(caught.value)


def test_position_lengths(tmp_path: Path) -> None:
    kings = ["white_king"] + ["empty"] * 62 + ["black_king"]  # 6 + 62 + 6 = 74 bits: 8 + 74 -> 11 bytes
    good = position_bytes(kings)
    assert len(good) == 11
    read_everything(hand_book(tmp_path, [record_bytes(good)]))
    # a header length of 5 cannot hold 64 squares (at least 1 + 8 bytes)
    path = hand_book(tmp_path, [record_bytes(bytes((5,)) + good[1:5])], "short.ctg")
    with pytest.raises(InvalidValueError) as caught:
        read_everything(path)
    assert caught.value.path == "pages[0].records[0].position.header.length" and caught.value.offset == 4100
    # one byte more than the padding rule allows (a whole zero byte of extra padding)
    path = hand_book(tmp_path, [record_bytes(bytes((12,)) + good[1:] + b"\x00")], "long.ctg")
    with pytest.raises(InvalidValueError, match="padding rule"):
        read_everything(path)
    # squares that run into the castling flags: 74 bits + 4 flags need 11 bytes; claim castling in 10
    cut = bytes((0x40 | 10,)) + good[1:10]
    path = hand_book(tmp_path, [record_bytes(cut)], "cut.ctg")
    with pytest.raises(InvalidValueError) as caught:
        read_everything(path)
    assert caught.value.path is not None and caught.value.path.startswith("pages[0].records[0].position")


def test_move_of_a_missing_piece(tmp_path: Path) -> None:
    kings = ["white_king"] + ["empty"] * 62 + ["black_king"]
    path = hand_book(tmp_path, [record_bytes(position_bytes(kings), b"\x34\x00")])  # 0x34: 1st knight x+1 y+2
    with pytest.raises(InvalidValueError, match="which the position does not have") as caught:
        read_everything(path)
    assert caught.value.offset == 4100 + 11 + 1


def test_index_files(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    cto = tmp_path / "small.cto"
    ctb = tmp_path / "small.ctb"
    original = cto.read_bytes()
    cto.write_bytes(original[:4] + struct.pack(">I", 10**9) + original[8:])  # a billion entries in a small file
    with pytest.raises(TruncatedError, match=r"the \.cto header says 1000000000 entries") as caught:
        ctg.open_book(path)
    assert caught.value.file == str(cto) and caught.value.offset == 4
    entries = (len(original) - 16) // 4
    table = list(struct.unpack(f">{entries}i", original[16:]))
    cto.write_bytes(original[:16] + struct.pack(f">{entries}i", *[7 if page >= 0 else page for page in table]))
    first = next(n for n, page in enumerate(table) if page >= 0)
    proof = f"small.cto entry {first} names data page 7, the .ctg has 1"
    # a .cto naming a page the .ctg does not have is not this book's: said at open, probes scan the pages
    with pytest.warns(ctg.MissingIndexWarning, match=proof), ctg.open_book(path) as book:
        found = book.probe(START)
        assert found is not None and found.games == 2 and book.directory is not None
        assert any(note.startswith(proof) for note in book.findings())
        walk = book.lookup_pages(ctg.ctg_hash(book.key(START)))  # the .cto's own walk is lazy: the bad page raises
        with pytest.raises(InvalidValueError, match="page number out of range"):
            list(walk)
    cto.write_bytes(original)
    with ctg.open_book(path) as book:
        assert list(book.lookup_pages(ctg.ctg_hash(book.key(START)))) == [0]
    cto.unlink()
    with pytest.warns(ctg.MissingIndexWarning), ctg.open_book(path) as book, \
            pytest.raises(UnsupportedError, match=r"no \.cto lookup table") as refused:
        book.lookup_pages(0).__next__()
    assert refused.value.file == str(path)
    cto.write_bytes(original)
    ctb.write_bytes(ctb.read_bytes()[:10])
    with pytest.raises(TruncatedError, match=r"truncated \.ctb header"):
        ctg.open_book(path)


def three_page_book(folder: Path) -> tuple[Path, list[ctg.PositionRecord]]:
    """A book of 150 positions of random games (no moves): three data pages; and its records."""
    rng = random.Random(1)
    boards: dict[bytes, chess.Board] = {}
    while len(boards) < 150:
        board = START.copy()
        for _ in range(rng.randrange(1, 12)):
            board.push(rng.choice(list(board.legal_moves)))
        boards.setdefault(ctg.signature(board), board)
    records = [ctg.make_record(board, [], games=1 + n % 5) for n, board in enumerate(boards.values())]
    path = folder / "three.ctg"
    ctg.write_book(path, records)
    return path, records


def found_everything(book: ctg.CtgBook, records: list[ctg.PositionRecord]) -> bool:
    """Whether each record is what a probe of its board answers."""
    for record in records:
        found = book.probe(record.board)
        if found is None or found.to_bytes() != record.to_bytes():
            return False
    return True


def test_index_of_another_book(tmp_path: Path) -> None:
    # the .cto/.ctb of a three-page book beside a one-page book: its table names pages 1 and 2, which the .ctg
    # does not have: not this book's index, said at open (and by findings); probes scan the pages
    path = small_book(tmp_path)
    other, _ = three_page_book(tmp_path)
    with ctg.open_book(other) as book:
        assert book.data_pages == 3
        entry = book.directory.index(2) if book.directory else -1
    for extension in (".cto", ".ctb"):
        shutil.copyfile(other.with_suffix(extension), path.with_suffix(extension))
    proof = f"small.cto entry {entry} names data page 2, the .ctg has 1"
    with pytest.warns(ctg.MissingIndexWarning, match=proof):
        book = ctg.open_book(path)
    with book:
        assert book.index_problem is not None and book.index_problem.startswith(proof)
        assert found_everything(book, list(book.records())) and len(book) == 3
        assert f"{book.index_problem}: probes scan every page" in book.findings()
        key = book.key(START)
        at = next(offset for offset in page_of(path)[2] if path.read_bytes()[offset:offset + len(key)] == key)
        assert book.record_offset(key, []) == book.record_offset(key) == at  # the pages a bulk reader hashed to


def test_bounds_that_read_no_page(tmp_path: Path) -> None:
    # .ctb bounds past the end of the .cto table: the lookup can read no entry that names a page
    path = small_book(tmp_path)
    ctb = path.with_suffix(".ctb")
    data = bytearray(ctb.read_bytes())
    struct.pack_into(">II", data, 4, 1000, 1000)  # lower and upper bound (bytes 4-11)
    ctb.write_bytes(bytes(data))
    with pytest.warns(ctg.MissingIndexWarning, match=r"the lookup reads \.cto entries 1000\.\.\d+ \(\.ctb bounds\)"):
        book = ctg.open_book(path)
    with book:
        assert list(book.lookup_pages(ctg.ctg_hash(book.key(START)))) == []  # what the .cto alone would find
        found = book.probe(START)
        assert found is not None and found.games == 2


def test_index_that_leads_to_the_wrong_pages(tmp_path: Path) -> None:
    # the book's own .cto with data pages 0 and 2 swapped: every page it names exists, so nothing proves it
    # wrong at open, but findings sees that the lookup misses the first records of pages 0 and 2
    path, records = three_page_book(tmp_path)
    cto = path.with_suffix(".cto")
    data = cto.read_bytes()
    table = struct.unpack(f">{(len(data) - 16) // 4}i", data[16:])
    assert {0, 1, 2} <= set(table)
    cto.write_bytes(data[:16] + struct.pack(f">{len(table)}i", *[{0: 2, 2: 0}.get(page, page) for page in table]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        book = ctg.open_book(path)
    with book:
        assert book.index_problem is None and not found_everything(book, records)
        assert ("the .cto lookup does not lead to the first record of 2 of the 3 data pages (page 0 first): the "
                ".cto/.ctb do not describe this .ctg; probes through them miss positions") in book.findings()
    cto.write_bytes(data)
    with ctg.open_book(path) as book:
        assert found_everything(book, records) and not book.findings()


@pytest.mark.parametrize("missing", [".cto", ".ctb"])
def test_which_index_file_is_missing(tmp_path: Path, missing: str) -> None:
    path = small_book(tmp_path)
    path.with_suffix(missing).unlink()
    there = ".ctb" if missing == ".cto" else ".cto"
    said = f"no {missing} beside the .ctg (its {there} is not used without it)"
    with pytest.warns(ctg.MissingIndexWarning, match=re.escape(f"small.ctg: {said}: probes scan every page")):
        book = ctg.open_book(path)
    with book:
        assert book.directory is None and f"{said}: probes scan every page" in book.findings()


def test_book_named_without_extension_and_files_that_are_not_files(tmp_path: Path) -> None:
    path = small_book(tmp_path)
    with ctg.open_book(tmp_path / "small") as book:  # the book's name, as Kvetka and ChessBase take it
        assert book.path == str(path) and book.probe(START) is not None
        assert repr(book) == f"<CtgBook {str(path)!r} (1 data pages)>"
    assert repr(book) == f"<CtgBook {str(path)!r} (closed)>"
    (tmp_path / "folder.ctg").mkdir()
    with pytest.raises(FormatError, match="a folder, not a file of a CTG book") as caught:
        ctg.open_book(tmp_path / "folder.ctg")
    assert caught.value.file == str(tmp_path / "folder.ctg")
    path.with_suffix(".cto").unlink()
    path.with_suffix(".cto").mkdir()
    with pytest.raises(FormatError, match="a folder, not a file of a CTG book") as caught:
        ctg.open_book(path)
    assert caught.value.file == str(path.with_suffix(".cto"))


def test_cli_reports_the_defect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = small_book(tmp_path)
    damage(path, 4098, struct.pack(">H", 5000))
    assert main(["info", str(path)]) == 2
    assert "small.ctg: offset 4098: pages[0].header.used: bytes used out of range" in capsys.readouterr().err


@pytest.fixture(scope="module")
def corpus_page() -> bytes:
    data = find_corpus("ctg", "PowerPlay17-Sicilienne.ctg").read_bytes()
    return data[:4096] + data[4096 * 238:4096 * 239]  # the header page and data page 237 (the start position)


@given(st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)), min_size=1, max_size=8))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_random_damage_is_a_format_error(tmp_path_factory: Any, corpus_page: bytes,
                                         changes: list[tuple[int, int]]) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    raw = bytearray(corpus_page)
    for offset, value in changes:
        raw[4096 + offset] = value
    path = folder / "fuzz.ctg"
    path.write_bytes(bytes(raw))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ctg.MissingIndexWarning)
            book = ctg.open_book(path)
        with book:
            for record in book.records():
                record.to_bytes()
            book.probe(START)
            len(book)
            book.findings()
    except FormatError:
        pass
    shutil.rmtree(folder)
