"""Reading Polyglot books: iterating, probing, unsorted books, files that are not books, weighted choice.

References: python-chess's ``chess.polyglot`` (an independent reader), the format specification
(specs/polyglot.ru.txt: the bit layout) and hand arithmetic.
"""

from __future__ import annotations

import random
import re
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import chess
import chess.polyglot
import pytest

from chessformats import FormatError, InvalidValueError, TruncatedError
from chessformats.polyglot import (
    Entry,
    UnsortedBookWarning,
    open_book,
    write_book,
    zobrist_hash,
)
from chessformats.schemas import polyglot as schema
from polyglot_cases import ENTRY, PROMOTION_CODE, entries, our_rows, their_rows

BOOKS = [
    "gm2001.bin", "lasker-trap.bin", "performance.bin", "performance_pre2019.bin", "picochess_fun.bin",
    "rodent3_cat.bin", "rodent3_cs.bin", "rodent3_empty.bin", "rodent3_grandpa.bin", "rodent3_guide.bin",
    "rodent3_micro.bin", "rodent3_reti.bin",
]
SMALL_BOOK = 5000  # books with at most this many entries are checked entry by entry
SAMPLE = 2500      # entries sampled from larger books


# --- the corpus -------------------------------------------------------------------------------------------

def book_path(corpus_path: Callable[..., Path], name: str) -> Path:
    return corpus_path("polyglot", name)


def test_every_corpus_book_is_covered(corpus_path: Callable[..., Path]) -> None:
    folder = corpus_path("polyglot")
    assert sorted(p.name for p in folder.glob("*.bin")) == sorted(BOOKS)


@cache
def _python_chess_entries(path: Path) -> list[chess.polyglot.Entry]:
    with chess.polyglot.open_reader(path) as reader:
        return list(reader)


@pytest.mark.parametrize("name", BOOKS)
def test_book_iteration_equals_python_chess(corpus_path: Callable[..., Path], name: str) -> None:
    path = book_path(corpus_path, name)
    reference = _python_chess_entries(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsortedBookWarning)
        book = open_book(path)
    with book:
        assert len(book) == path.stat().st_size // 16 == len(reference)
        assert book.sorted
        entries = list(book)
        for index, (ours, theirs) in enumerate(zip(entries, reference, strict=True)):
            assert isinstance(ours, Entry)
            assert (ours.key, ours.raw_move, ours.weight, ours.learn) == \
                (theirs.key, theirs.raw_move, theirs.weight, theirs.learn), index
            assert ours.number == index
            if ours.raw_move == 0:
                assert ours.move == chess.Move.null()
            else:
                assert ours.move == theirs.move, index
        for index in (0, len(book) // 2, len(book) - 1):
            assert book[index] == entries[index]
        assert book[-1] == entries[-1]
        columns = book.columns()  # the bulk view: python-chess's entries as columns
        assert columns.order is None and columns.sorted_keys.tolist() == [e.key for e in reference]
        assert (columns.moves.tolist(), columns.weights.tolist()) == (
            [e.raw_move for e in reference], [e.weight for e in reference])
        with pytest.raises(IndexError):
            book[len(book)]


def test_learn_fields_are_kept(corpus_path: Callable[..., Path]) -> None:
    with open_book(book_path(corpus_path, "performance.bin")) as new, \
            open_book(book_path(corpus_path, "performance_pre2019.bin")) as old:
        new_entries, old_entries = list(new), list(old)
    # corpus README: 88,848 entries of performance.bin carry non-zero learn fields; the 2019 file
    # differs from the older one in those fields only
    assert sum(1 for e in new_entries if e.learn) == 88_848
    assert sum(1 for e in old_entries if e.learn) == 0
    assert [(e.key, e.raw_move, e.weight) for e in new_entries] == [(e.key, e.raw_move, e.weight) for e in old_entries]


def _sample(count: int, name: str) -> list[int]:
    if count <= SMALL_BOOK:
        return list(range(count))
    return [*sorted(random.Random(name).sample(range(count), SAMPLE)), 0, count - 1]


@pytest.mark.parametrize("name", BOOKS)
def test_entries_rebuild_through_the_schema(corpus_path: Callable[..., Path], name: str) -> None:
    path = book_path(corpus_path, name)
    data = path.read_bytes()
    with open_book(path) as book:
        indices = _sample(len(book), name)
        assert len(indices) >= min(len(book), 2000)
        for index in indices:
            chunk = data[16 * index:16 * index + 16]
            parsed = schema.ENTRY.parse(chunk)
            assert schema.ENTRY.build(parsed) == chunk
            # the same bytes from our decoded entry, through the declaration
            entry = book[index]
            move = entry.move
            fields = {
                "reserved": entry.raw_move >> 15,
                "promotion": PROMOTION_CODE[move.promotion],
                "from_rank": chess.square_rank(move.from_square), "from_file": chess.square_file(move.from_square),
                "to_rank": chess.square_rank(move.to_square), "to_file": chess.square_file(move.to_square),
            }
            built = schema.ENTRY.build({"key": entry.key, "move": fields, "weight": entry.weight,
                                        "learn": entry.learn})
            assert built == chunk, index


@pytest.mark.parametrize("name", BOOKS)
def test_write_book_reproduces_the_file(corpus_path: Callable[..., Path], tmp_path: Path, name: str) -> None:
    path = book_path(corpus_path, name)
    with open_book(path) as book:
        entries = list(book)
    out = tmp_path / name
    assert write_book(out, entries, merge=None).written == len(entries)
    assert out.read_bytes() == path.read_bytes()
    # the same from plain (key, raw_move, weight, learn) tuples
    out2 = tmp_path / ("tuples-" + name)
    write_book(out2, [(e.key, e.raw_move, e.weight, e.learn) for e in entries], merge=None)
    assert out2.read_bytes() == path.read_bytes()


# --- probing ----------------------------------------------------------------------------------------------

def _walk_book_lines(reader: chess.polyglot.MemoryMappedReader, seed: int, lines: int) -> Iterator[chess.Board]:
    """Random lines through the book from the start position (python-chess picks the moves)."""
    rng = random.Random(seed)
    for _ in range(lines):
        board = chess.Board()
        while True:
            yield board
            moves = [e.move for e in reader.find_all(board, minimum_weight=0)]
            if not moves or board.ply() > 60:
                # one more position just out of book
                legal = list(board.legal_moves)
                if legal:
                    board.push(rng.choice(legal))
                    yield board
                break
            board.push(rng.choice(moves))


@pytest.mark.parametrize(("name", "lines"), [("gm2001.bin", 400), ("performance.bin", 400),
                                             ("rodent3_reti.bin", 100), ("picochess_fun.bin", 100)])
def test_probe_by_board_equals_python_chess(corpus_path: Callable[..., Path], name: str, lines: int) -> None:
    path = book_path(corpus_path, name)
    probed = in_book = 0
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        for board in _walk_book_lines(reader, zlib.crc32(name.encode()), lines):
            expected = their_rows(reader.find_all(board, minimum_weight=0))
            assert our_rows(entries(book, board, minimum_weight=0)) == expected, board.fen()
            assert our_rows(entries(book, board, minimum_weight=2)) == \
                their_rows(reader.find_all(board, minimum_weight=2)), board.fen()
            assert (board in book) == bool(expected)
            probed += 1
            in_book += bool(expected)
    assert probed >= 4 * lines and in_book >= 3 * lines


@pytest.mark.parametrize("name", ["gm2001.bin", "performance.bin", "rodent3_micro.bin"])
def test_probe_by_key_equals_python_chess(corpus_path: Callable[..., Path], name: str) -> None:
    path = book_path(corpus_path, name)
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        keys = sorted({e.key for e in reader})
        for key in keys:
            expected = [e for e in reader.find_all(key, minimum_weight=0) if e.raw_move != 0]  # a1a1 ignored
            assert our_rows(entries(book, key)) == their_rows(expected), hex(key)
        assert entries(book, 0x0123456789ABCDEF) == []


def test_castling_is_returned_as_castling(corpus_path: Callable[..., Path]) -> None:
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"):
        board.push_san(san)
    with open_book(book_path(corpus_path, "gm2001.bin")) as book:
        found = {e.move: e for e in entries(book, board)}
        by_key = {e.move: e for e in entries(book, zobrist_hash(board))}
    castle = chess.Move.from_uci("e1g1")
    assert castle in found and board.is_castling(castle)
    # stored as e1h1 = to_file 7 | to_rank 0 | from_file 4 << 6 | from_rank 0 = 7 + 256 = 263
    assert found[castle].raw_move == 263
    assert chess.Move.from_uci("e1h1") in by_key  # by key, without a board: as stored


def test_weight_zero_sentinels_of_rodent_books(corpus_path: Callable[..., Path]) -> None:
    found = {}
    for name in BOOKS:
        with open_book(book_path(corpus_path, name)) as book:
            zero = [e for e in book if e.weight == 0]
            for entry in zero:
                # what they are: a last entry with key 0xFFFF..., move a1a1 (0), weight 0, learn 0
                assert (entry.key, entry.raw_move, entry.learn) == (2**64 - 1, 0, 0)
                assert entry.move == chess.Move.null()
                assert entry.number == len(book) - 1
                # a1a1 is never returned by a probe, whatever the minimum weight
                assert entries(book, entry.key, minimum_weight=0) == []
                assert entry.key not in book
            found[name] = len(zero)
    assert found == {name: (1 if name in ("rodent3_cat.bin", "rodent3_cs.bin", "rodent3_empty.bin",
                                          "rodent3_micro.bin") else 0) for name in BOOKS}


def test_empty_rodent_book(corpus_path: Callable[..., Path]) -> None:
    with open_book(book_path(corpus_path, "rodent3_empty.bin")) as book:
        assert len(book) == 1
        assert entries(book, chess.Board()) == []
        with pytest.raises(IndexError):
            book.choice(chess.Board(), random=1)


def _start_position_book(tmp_path: Path, moves: dict[str, int], name: str = "small.bin") -> Path:
    """A book with the start position's moves, written independently with struct (spec layout)."""
    key = 0x463B96181691FC9C  # the spec's start-position key
    path = tmp_path / name
    rows = []
    for uci, weight in moves.items():
        move = chess.Move.from_uci("0000" if uci == "a1a1" else uci)  # a1a1: the empty move, raw 0
        rows.append(ENTRY.pack(key, move.to_square | move.from_square << 6, weight, 0))
    path.write_bytes(b"".join(rows))
    return path


def test_weight_zero_entries_and_minimum_weight(tmp_path: Path) -> None:
    path = _start_position_book(tmp_path, {"e2e4": 3, "c2c4": 0, "d2d4": 1, "a1a1": 9, "g1f3": 6})
    board = chess.Board()
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        assert [e.move.uci() for e in book] == ["e2e4", "c2c4", "d2d4", "0000", "g1f3"]  # iteration keeps all
        for minimum in (0, 1, 2, 4, 7):
            ours = our_rows(entries(book, board, minimum_weight=minimum))
            assert ours == their_rows(reader.find_all(board, minimum_weight=minimum)), minimum
        assert [e.move.uci() for e in entries(book, board)] == ["e2e4", "c2c4", "d2d4", "g1f3"]
        assert [e.move.uci() for e in entries(book, board, minimum_weight=1)] == ["e2e4", "d2d4", "g1f3"]
        # by key: no legality filter, but a1a1 still left out
        assert [e.move.uci() for e in entries(book, zobrist_hash(board))] == ["e2e4", "c2c4", "d2d4", "g1f3"]
        assert entries(book, board, exclude_moves={chess.Move.from_uci("d2d4")})[2].move.uci() == "g1f3"


def test_probe_drops_illegal_moves(tmp_path: Path) -> None:
    path = _start_position_book(tmp_path, {"e2e4": 1, "e2e5": 1, "e1g1": 1, "d1d3": 1, "g1f3": 1})
    with open_book(path) as book:
        assert [e.move.uci() for e in entries(book, chess.Board())] == ["e2e4", "g1f3"]
        assert len(entries(book, chess.Board(), legal_only=False)) == 5


# --- unsorted books -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def unsorted_gm2001(corpus_path: Callable[..., Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = corpus_path("polyglot", "gm2001.bin").read_bytes()
    tail = 127 * 16
    path = tmp_path_factory.mktemp("unsorted") / "gm2001-unsorted.bin"
    path.write_bytes(data[-tail:] + data[:-tail])  # the last 127 entries moved to the front
    return path


def test_unsorted_book_warns_once(unsorted_gm2001: Path, corpus_path: Callable[..., Path]) -> None:
    original = corpus_path("polyglot", "gm2001.bin").read_bytes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        book = open_book(unsorted_gm2001)
    with book:
        assert [w.category for w in caught] == [UnsortedBookWarning]
        assert book.sorted is False
        assert len(book) == 30416
        # file order is kept: entry 0 is the original entry 30416 - 127 = 30289, entry 127 the original 0
        for index, original_index in ((0, 30289), (126, 30415), (127, 0), (30415, 30288)):
            assert book[index][:4] == ENTRY.unpack_from(original, 16 * original_index), index
        assert any("unsorted" in finding for finding in book.findings())
        columns = book.columns()  # the bulk view: keys sorted through the order, the rest in file order
        keys = [ENTRY.unpack_from(original, 16 * ((index + 30289) % 30416))[0] for index in range(30416)]
        assert columns.order is not None and columns.sorted_keys.tolist() == sorted(keys)
        assert [keys[index] for index in columns.order.tolist()] == sorted(keys)
        assert columns.moves[127] == ENTRY.unpack_from(original, 0)[1]


def test_unsorted_book_probes_like_the_sorted_one(unsorted_gm2001: Path, corpus_path: Callable[..., Path]) -> None:
    original = corpus_path("polyglot", "gm2001.bin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedBookWarning)
        book = open_book(unsorted_gm2001)
    with book, open_book(original) as sorted_book, chess.polyglot.open_reader(original) as reader:
        assert sorted_book.sorted
        # every position of the book, by key
        for key in sorted({e.key for e in reader}):
            expected = sorted(their_rows(reader.find_all(key, minimum_weight=0)))
            assert sorted(our_rows(entries(book, key))) == expected, hex(key)
            assert sorted(our_rows(entries(sorted_book, key))) == expected, hex(key)
        # and by board along random book lines
        count = 0
        for board in _walk_book_lines(reader, 127, 300):
            expected = sorted(their_rows(reader.find_all(board, minimum_weight=0)))
            assert sorted(our_rows(entries(book, board))) == expected, board.fen()
            assert sorted(our_rows(entries(book, board, minimum_weight=5))) == \
                sorted(our_rows(entries(sorted_book, board, minimum_weight=5))), board.fen()
            count += 1
        assert count >= 1000
        # entries come back with their index in this file
        for entry in entries(book, chess.Board()):
            assert book[entry.number][:4] == entry[:4]


# --- files that are not books ------------------------------------------------------------------------------------

def test_html_page_is_not_a_book(tmp_path: Path) -> None:
    html = b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>Not found</body></html>"
    html += b" " * (-len(html) % 16)
    assert len(html) % 16 == 0
    path = tmp_path / "page.bin"
    path.write_bytes(html)
    with pytest.raises(InvalidValueError) as info:
        open_book(path)
    error = info.value
    assert isinstance(error, FormatError) and isinstance(error, ValueError)
    text = str(error)
    match = re.match(r"page\.bin: offset (\d+): .*entries\[(\d+)\]", text)
    assert match, text
    assert error.path is not None and error.path.startswith(f"entries[{match.group(2)}]")
    # the move field of entry i lies at 16 * i + 8 (after the 8-byte key)
    assert int(match.group(1)) == error.offset == 16 * int(match.group(2)) + 8


def test_html_page_is_not_a_book_first_invalid_entry(tmp_path: Path) -> None:
    # entry 0: "<!DOCTYPE" + "E " -> move 0x4520: promotion (0x4520 >> 12) & 7 = 4 from e3 (20) to a5 (32),
    # a promotion that does not end on the last rank: entry 0 is already invalid
    html = b"<!DOCTYPE html><html><body>x</body></html>"
    html += b" " * (-len(html) % 16)
    path = tmp_path / "page.bin"
    path.write_bytes(html)
    with pytest.raises(InvalidValueError) as info:
        open_book(path)
    assert info.value.offset == 8 and info.value.path is not None and info.value.path.startswith("entries[0]")


@pytest.mark.parametrize("extra", [1, 7, 15])
def test_size_not_a_multiple_of_16(corpus_path: Callable[..., Path], tmp_path: Path, extra: int) -> None:
    data = corpus_path("polyglot", "lasker-trap.bin").read_bytes()  # 7 entries, 112 bytes
    path = tmp_path / "lasker-trap.bin"
    path.write_bytes(data + b"\x00" * extra)
    with pytest.raises(TruncatedError) as info:
        open_book(path)
    assert (info.value.offset, info.value.needed, info.value.available) == (112, 16, extra)
    assert str(info.value) == f"lasker-trap.bin: offset 112: truncated entry 7 (16 bytes needed, {extra} available)"


def test_empty_file_is_an_empty_book(tmp_path: Path) -> None:
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    with open_book(path) as book:
        assert len(book) == 0
        assert list(book) == []
        assert book.sorted
        assert entries(book, chess.Board()) == []
        assert chess.Board() not in book
        with pytest.raises(IndexError):
            book.choice(chess.Board())


# --- choice ------------------------------------------------------------------------------------------------------

@pytest.fixture
def weighted_book(tmp_path: Path) -> Path:
    return _start_position_book(tmp_path, {"e2e4": 3, "d2d4": 1, "c2c4": 0, "g1f3": 6})


def test_weighted_choice_is_seeded(weighted_book: Path) -> None:
    board = chess.Board()
    with open_book(weighted_book) as book:
        first = [book.weighted_choice(board, random=random.Random(42)).move for _ in range(5)]
        assert len(set(first)) == 1  # a fresh generator with the same seed: the same draw
        rng_a, rng_b = random.Random(7), random.Random(7)
        a = [book.weighted_choice(board, random=rng_a).move for _ in range(200)]
        b = [book.weighted_choice(board, random=rng_b).move for _ in range(200)]
        assert a == b
        assert book.weighted_choice(board, random=123) == book.weighted_choice(board, random=123)
        assert len({book.weighted_choice(board, random=seed).move for seed in range(100)}) == 3


def test_weighted_choice_distribution(weighted_book: Path) -> None:
    board = chess.Board()
    rng = random.Random(20000)
    draws = 20_000
    with open_book(weighted_book) as book:
        counts = Counter(book.weighted_choice(board, random=rng).move.uci() for _ in range(draws))
    assert counts["c2c4"] == 0  # weight 0: never
    assert set(counts) == {"e2e4", "d2d4", "g1f3"}
    # expected shares 3/10, 1/10, 6/10; a standard deviation is at most sqrt(.25/20000) = 0.0036
    for move, share in (("e2e4", 0.3), ("d2d4", 0.1), ("g1f3", 0.6)):
        assert abs(counts[move] / draws - share) < 0.02, (move, counts)


def test_weighted_choice_errors(weighted_book: Path, tmp_path: Path) -> None:
    with open_book(weighted_book) as book:
        with pytest.raises(IndexError):
            book.weighted_choice(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1"), random=1)
        entry = book.weighted_choice(chess.Board(), random=1,
                            exclude_moves={chess.Move.from_uci("g1f3"), chess.Move.from_uci("e2e4")})
        assert entry.move.uci() == "d2d4"
    zero = _start_position_book(tmp_path, {"e2e4": 0, "d2d4": 0}, name="zero.bin")
    with open_book(zero) as book, pytest.raises(IndexError):
        book.weighted_choice(chess.Board(), random=1)


def test_choice_is_uniform_as_in_python_chess(weighted_book: Path) -> None:
    """``choice`` draws uniformly among the moves of weight >= ``minimum_weight`` (python-chess's meaning), with
    python-chess's own draw: the same seed gives the same move."""
    board = chess.Board()
    rng = random.Random(3)
    draws = 9_000
    with open_book(weighted_book) as book, chess.polyglot.open_reader(weighted_book) as reader:
        counts = Counter(book.choice(board, random=rng).move.uci() for _ in range(draws))
        assert set(counts) == {"e2e4", "d2d4", "g1f3"}  # weight 0 (c2c4) left out by minimum_weight=1
        for move in counts:
            assert abs(counts[move] / draws - 1 / 3) < 0.03, counts
        assert "c2c4" in {book.choice(board, minimum_weight=0, random=seed).move.uci() for seed in range(60)}
        for seed in range(50):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert book.choice(board, random=ours).move == reader.choice(board, random=theirs).move
            assert book.weighted_choice(board, random=ours).move == reader.weighted_choice(board, random=theirs).move


def test_looks_sorted_samples_the_keys_in_constant_time(tmp_path: Path) -> None:
    # sorted: passes; reversed, or a sorted book with an unsorted tail (books concatenated): fails, as .sorted does
    import random as _random
    import struct as _struct

    from chessformats.formats.polyglot.read import open_book

    rng = _random.Random(7)
    keys = sorted(rng.getrandbits(64) for _ in range(3000))
    tail = [rng.getrandbits(64) for _ in range(5)]
    for name, order in (("sorted", keys), ("reversed", keys[::-1]), ("tail", keys + tail)):
        path = tmp_path / f"{name}.bin"
        path.write_bytes(b"".join(_struct.pack(">QHHI", key, 0x031C, 1, 0) for key in order))  # e2e4... as raw
        with open_book(path, scan=False, strict=False) as book:
            looks = book.looks_sorted()
        with open_book(path, strict=False) as book:
            assert looks == book.sorted == (name == "sorted"), name
