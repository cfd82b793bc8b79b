"""Polyglot books: Zobrist keys, reading, probing, writing.

References: the format specification (specs/polyglot.ru.txt: test keys, random numbers, bit layout),
python-chess's ``chess.polyglot`` (an independent reader and hasher), hand arithmetic, and the
``polyglot`` program itself (Debian package) as an oracle when it is installed.
"""

from __future__ import annotations

import random
import re
import struct
import subprocess
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import chess
import chess.polyglot
import pytest

from chessformats import FormatError, InvalidValueError, TruncatedError
from chessformats.polyglot import (
    Entry,
    UnsortedBookWarning,
    decode_move,
    encode_move,
    open_book,
    write_book,
    zobrist_hash,
)
from chessformats.schemas import polyglot as schema

BOOKS = [
    "gm2001.bin", "lasker-trap.bin", "performance.bin", "performance_pre2019.bin", "picochess_fun.bin",
    "rodent3_cat.bin", "rodent3_cs.bin", "rodent3_empty.bin", "rodent3_grandpa.bin", "rodent3_guide.bin",
    "rodent3_micro.bin", "rodent3_reti.bin",
]
SMALL_BOOK = 5000  # books with at most this many entries are checked entry by entry
SAMPLE = 2500      # entries sampled from larger books

ENTRY = struct.Struct(">QHHI")  # the spec: key 8 bytes, move 2, weight 2, learn 4, all big-endian
PROMOTION_CODE = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}  # the spec


# --- the specification ------------------------------------------------------------------------------------

@cache
def _spec(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def spec(spec_path: Callable[..., Path]) -> str:
    return _spec(spec_path("polyglot.ru.txt"))


def spec_test_keys(text: str) -> list[tuple[str, int]]:
    """The spec's examples: ``FEN = ...`` followed by ``key = 463b96181691fc9c``."""
    return [(fen.strip(), int(key, 16))
            for fen, key in re.findall(r"FEN = (.+)\n\s*key = ([0-9a-f]{16})", text)]


def spec_randoms(text: str) -> list[int]:
    start = text.index("Random64[781]")
    return [int(v, 16) for v in re.findall(r"U64\(0x([0-9A-Fa-f]{16})\)", text[start:text.index("};", start)])]


def spec_key(randoms: list[int], board: chess.Board, castling: str, ep_file: int | None) -> int:
    """The key by the spec's formula, with the castling rights and en-passant file given explicitly.

    piece: Random64[64 * kind + 8 * row + column], kind = black pawn 0, white pawn 1, ... white king 11;
    castle: 768 + (K 0, Q 1, k 2, q 3); enpassant: 772 + file; turn: 780 when white is to move.
    """
    key = 0
    for square, piece in board.piece_map().items():
        kind = 2 * (piece.piece_type - 1) + (1 if piece.color == chess.WHITE else 0)
        key ^= randoms[64 * kind + 8 * chess.square_rank(square) + chess.square_file(square)]
    for flag in castling:
        key ^= randoms[768 + "KQkq".index(flag)]
    if ep_file is not None:
        key ^= randoms[772 + ep_file]
    if board.turn == chess.WHITE:
        key ^= randoms[780]
    return key


# --- Zobrist keys -----------------------------------------------------------------------------------------

def test_spec_test_keys(spec: str) -> None:
    keys = spec_test_keys(spec)
    assert len(keys) == 9
    assert keys[0] == ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0x463B96181691FC9C)
    for fen, key in keys:
        assert zobrist_hash(chess.Board(fen)) == key, fen


def test_spec_test_keys_by_playing_the_moves(spec: str) -> None:
    """The spec names the moves leading to each example position; played out they give the same keys."""
    lines = [["e4"], ["e4", "d5"], ["e4", "d5", "e5"], ["e4", "d5", "e5", "f5"], ["e4", "d5", "e5", "f5", "Ke2"],
             ["e4", "d5", "e5", "f5", "Ke2", "Kf7"], ["a4", "b5", "h4", "b4", "c4"],
             ["a4", "b5", "h4", "b4", "c4", "bxc3", "Ra3"]]
    keys = [key for _, key in spec_test_keys(spec)]
    assert zobrist_hash(chess.Board()) == keys[0]
    for line, key in zip(lines, keys[1:], strict=True):
        board = chess.Board()
        for san in line:
            board.push_san(san)
        assert zobrist_hash(board) == key, line


def _random_games(seed: int, games: int, *, chess960: bool = False, max_plies: int = 120) -> Iterator[chess.Board]:
    """Positions of seeded random games (double pawn pushes and captures favoured, for en passant)."""
    rng = random.Random(seed)
    for _ in range(games):
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        for _ in range(rng.randrange(10, max_plies)):
            yield board
            moves = list(board.legal_moves)
            if not moves:
                break
            special = [m for m in moves if board.is_capture(m) or board.is_castling(m) or m.promotion
                       or (board.piece_type_at(m.from_square) == chess.PAWN
                           and abs(m.to_square - m.from_square) == 16)]
            board.push(rng.choice(special) if special and rng.random() < 0.4 else rng.choice(moves))


def test_zobrist_equals_python_chess_on_random_games() -> None:
    count = with_ep = castles = 0
    for board in _random_games(20240521, 260):
        assert zobrist_hash(board) == chess.polyglot.zobrist_hash(board), board.fen()
        count += 1
        with_ep += board.has_pseudo_legal_en_passant()  # the en-passant part of the key applies
        castles += bool(board.castling_rights) and board.castling_rights != chess.BB_CORNERS
        if count % 7 == 0:  # the same position from its FEN (no move stack)
            copy = chess.Board(board.fen())
            assert zobrist_hash(copy) == chess.polyglot.zobrist_hash(copy), board.fen()
    assert count >= 10_000
    assert with_ep >= 150 and castles >= 1000  # the sample does exercise en passant and partial rights


def _corner_rook_960_positions() -> list[int]:
    return [n for n in range(960)
            if chess.Board.from_chess960_pos(n).rooks == chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8]


def test_zobrist_chess960_with_rooks_in_the_corners() -> None:
    numbers = _corner_rook_960_positions()
    # rooks on a and h leave b-g: bishops on opposite colours 3 * 3, then king 4 * queen 3 (knights fill)
    assert len(numbers) == 9 * 4 * 3
    rng = random.Random(960)
    count = 0
    for number in rng.sample(numbers, 12):
        for _ in range(30):
            board = chess.Board.from_chess960_pos(number)
            for _ in range(rng.randrange(5, 60)):
                assert zobrist_hash(board) == chess.polyglot.zobrist_hash(board), board.fen()
                count += 1
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
    assert count >= 5000


def test_zobrist_equals_python_chess_on_random_chess960_games() -> None:
    count = 0
    for board in _random_games(9600, 150, chess960=True):
        assert zobrist_hash(board) == chess.polyglot.zobrist_hash(board), board.fen()
        count += 1
    assert count >= 5000


# (FEN, castling rights that really count, en-passant file or None): expected keys from the spec's formula
EDGE_CASES = [
    # ep square set, no capturing pawn beside the pushed pawn (the spec's own 1.e4 example)
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "KQkq", None),
    # the capturing pawn is pinned (d5xc6 e.p. would expose the king on a5 to the rook on h5): still counts
    ("8/8/8/K1pP3r/8/8/8/4k3 w - c6 0 2", "", 2),
    # pinned along a diagonal by the bishop on b8 (king on g3): e5xf6 e.p. is illegal, key still includes it
    ("1b2k3/8/8/4Pp2/8/6K1/8/8 w - f6 0 2", "", 5),
    # a pawn beside the pushed pawn, but of the colour that just moved
    ("rnbqkbnr/pp2pppp/8/2pp4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 3", "KQkq", None),
    ("rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 2", "KQkq", None),
    # a-file and h-file, both colours to move
    ("rnbqkbnr/1ppppppp/8/pP6/8/8/P1PPPPPP/RNBQKBNR w KQkq a6 0 3", "KQkq", 0),
    ("rnbqkbnr/ppppppp1/8/6Pp/8/8/PPPPPP1P/RNBQKBNR w KQkq h6 0 3", "KQkq", 7),
    ("rnbqkbnr/p1pppppp/8/8/Pp6/8/1PPPPPPP/RNBQKBNR b KQkq a3 0 3", "KQkq", 0),
    ("rnbqkbnr/pppppp1p/8/8/6pP/8/PPPPPPP1/RNBQKBNR b KQkq h3 0 3", "KQkq", 7),
    # no wrap-around between the a- and h-files
    ("rnbqkbnr/ppppppp1/8/P6p/8/8/1PPPPPPP/RNBQKBNR w KQkq h6 0 3", "KQkq", None),
    ("rnbqkbnr/1ppppppp/8/p6P/8/8/PPPPPPP1/RNBQKBNR w KQkq a6 0 3", "KQkq", None),
    # two capturers, one on each side
    ("4k3/8/8/3PpP2/8/8/8/4K3 w - e6 0 2", "", 4),
    # castling rights the position does not have: rooks missing, a rook moved, the king moved
    ("r3k2r/8/8/8/8/8/8/4K3 w KQkq - 0 1", "kq", None),
    ("r3k1r1/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "KQq", None),
    ("r3k2r/8/8/8/8/8/8/R2K3R w KQkq - 0 1", "kq", None),
    ("r2k3r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "KQ", None),
    ("r3k2r/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1", "kq", None),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "KQkq", None),
    ("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", "Kq", None),
    # another piece of the right colour on the rook's corner
    ("r3k2r/8/8/8/8/8/8/R3K2N w KQkq - 0 1", "Qkq", None),
    ("b3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "KQk", None),
    # a rook of the other colour on the corner
    ("r3k2R/8/8/8/8/8/8/r3K3 w KQkq - 0 1", "q", None),
]


@pytest.mark.parametrize(("fen", "rights", "ep_file"), EDGE_CASES, ids=[fen for fen, _, _ in EDGE_CASES])
def test_zobrist_edge_cases(spec: str, fen: str, rights: str, ep_file: int | None) -> None:
    board = chess.Board(fen)
    expected = spec_key(spec_randoms(spec), board, rights, ep_file)
    assert zobrist_hash(board) == expected
    assert chess.polyglot.zobrist_hash(board) == expected


def test_pinned_capturer_is_really_illegal() -> None:
    for fen in ("8/8/8/K1pP3r/8/8/8/4k3 w - c6 0 2", "1b2k3/8/8/4Pp2/8/6K1/8/8 w - f6 0 2"):
        board = chess.Board(fen)
        assert board.ep_square is not None and not board.has_legal_en_passant()
        assert board.has_pseudo_legal_en_passant()


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
    assert write_book(out, entries, merge=None) == len(entries)
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


def _ours(entries: list[Entry]) -> list[tuple[str, int, int, int]]:
    return [(e.move.uci(), e.weight, e.learn, e.raw_move) for e in entries]


def _theirs(entries: Any) -> list[tuple[str, int, int, int]]:
    return [(e.move.uci(), e.weight, e.learn, e.raw_move) for e in entries]


@pytest.mark.parametrize(("name", "lines"), [("gm2001.bin", 400), ("performance.bin", 400),
                                             ("rodent3_reti.bin", 100), ("picochess_fun.bin", 100)])
def test_probe_by_board_equals_python_chess(corpus_path: Callable[..., Path], name: str, lines: int) -> None:
    path = book_path(corpus_path, name)
    probed = in_book = 0
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        for board in _walk_book_lines(reader, zlib.crc32(name.encode()), lines):
            expected = _theirs(reader.find_all(board, minimum_weight=0))
            assert _ours(book.probe(board, minimum_weight=0)) == expected, board.fen()
            assert _ours(book.probe(board, minimum_weight=2)) == \
                _theirs(reader.find_all(board, minimum_weight=2)), board.fen()
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
            assert _ours(book.probe(key)) == _theirs(expected), hex(key)
        assert book.probe(0x0123456789ABCDEF) == []


def test_castling_is_returned_as_castling(corpus_path: Callable[..., Path]) -> None:
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"):
        board.push_san(san)
    with open_book(book_path(corpus_path, "gm2001.bin")) as book:
        entries = {e.move: e for e in book.probe(board)}
        by_key = {e.move: e for e in book.probe(zobrist_hash(board))}
    castle = chess.Move.from_uci("e1g1")
    assert castle in entries and board.is_castling(castle)
    # stored as e1h1 = to_file 7 | to_rank 0 | from_file 4 << 6 | from_rank 0 = 7 + 256 = 263
    assert entries[castle].raw_move == 263
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
                assert book.probe(entry.key, minimum_weight=0) == []
                assert entry.key not in book
            found[name] = len(zero)
    assert found == {name: (1 if name in ("rodent3_cat.bin", "rodent3_cs.bin", "rodent3_empty.bin",
                                          "rodent3_micro.bin") else 0) for name in BOOKS}


def test_empty_rodent_book(corpus_path: Callable[..., Path]) -> None:
    with open_book(book_path(corpus_path, "rodent3_empty.bin")) as book:
        assert len(book) == 1
        assert book.probe(chess.Board()) == []
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
            ours = _ours(book.probe(board, minimum_weight=minimum))
            assert ours == _theirs(reader.find_all(board, minimum_weight=minimum)), minimum
        assert [e.move.uci() for e in book.probe(board)] == ["e2e4", "c2c4", "d2d4", "g1f3"]
        assert [e.move.uci() for e in book.probe(board, minimum_weight=1)] == ["e2e4", "d2d4", "g1f3"]
        # by key: no legality filter, but a1a1 still left out
        assert [e.move.uci() for e in book.probe(zobrist_hash(board))] == ["e2e4", "c2c4", "d2d4", "g1f3"]
        assert book.probe(board, exclude_moves={chess.Move.from_uci("d2d4")})[2].move.uci() == "g1f3"


def test_probe_drops_illegal_moves(tmp_path: Path) -> None:
    path = _start_position_book(tmp_path, {"e2e4": 1, "e2e5": 1, "e1g1": 1, "d1d3": 1, "g1f3": 1})
    with open_book(path) as book:
        assert [e.move.uci() for e in book.probe(chess.Board())] == ["e2e4", "g1f3"]
        assert len(book.probe(chess.Board(), legal_only=False)) == 5


def _candidate_moves(board: chess.Board, rng: random.Random) -> list[int]:
    """Raw moves for a book of ``board``: every pseudo-legal move and some that are not even that."""
    raws = [_expected_raw(board, move) for move in board.pseudo_legal_moves]
    # pawn moves onto the last rank stored without their promotion piece
    raws += [raw & 0x0FFF for raw in raws if raw >> 12]
    own = list(chess.SquareSet(board.occupied_co[board.turn]))
    for _ in range(12):
        origin, target = rng.choice(own), rng.randrange(64)
        if origin == target:
            continue
        rank_from, rank_to = chess.square_rank(origin), chess.square_rank(target)
        promotion = rng.randrange(1, 5) if (rank_from, rank_to) in ((6, 7), (1, 0)) and rng.random() < 0.5 else 0
        raws.append(target | origin << 6 | promotion << 12)
    return raws


def test_probe_legality_filter_equals_python_chess(tmp_path: Path) -> None:
    """Books holding illegal moves (pins, checks, blocked paths, castling through check...): the probe
    keeps exactly the moves python-chess's reader keeps."""
    rng = random.Random(4242)
    boards = [chess.Board(fen) for fen in EXTRA_POSITIONS]
    boards += [b.copy() for b in _random_games(4243, 100, max_plies=90) if rng.random() < 0.15]
    boards += [chess.Board(fen) for fen, _, _ in EDGE_CASES]
    rows = {}
    for board in boards:
        key = chess.polyglot.zobrist_hash(board)
        rows[key] = [(key, raw, rng.randrange(0, 5), 0) for raw in _candidate_moves(board, rng)]
    path = tmp_path / "candidates.bin"
    write_book(path, [row for key_rows in rows.values() for row in key_rows], merge=None)
    checked = checks = dropped = 0
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        for board in boards:
            expected = _theirs(reader.find_all(board, minimum_weight=0))
            assert _ours(book.probe(board, minimum_weight=0)) == expected, board.fen()
            assert _ours(book.probe(board, minimum_weight=3)) == \
                _theirs(reader.find_all(board, minimum_weight=3)), board.fen()
            checked += 1
            checks += board.is_check()
            dropped += len(rows[chess.polyglot.zobrist_hash(board)]) - len(expected)
    assert checked >= 500 and checks >= 20 and dropped >= 5000


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


def test_unsorted_book_probes_like_the_sorted_one(unsorted_gm2001: Path, corpus_path: Callable[..., Path]) -> None:
    original = corpus_path("polyglot", "gm2001.bin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedBookWarning)
        book = open_book(unsorted_gm2001)
    with book, open_book(original) as sorted_book, chess.polyglot.open_reader(original) as reader:
        assert sorted_book.sorted
        # every position of the book, by key
        for key in sorted({e.key for e in reader}):
            expected = sorted(_theirs(reader.find_all(key, minimum_weight=0)))
            assert sorted(_ours(book.probe(key))) == expected, hex(key)
            assert sorted(_ours(sorted_book.probe(key))) == expected, hex(key)
        # and by board along random book lines
        count = 0
        for board in _walk_book_lines(reader, 127, 300):
            expected = sorted(_theirs(reader.find_all(board, minimum_weight=0)))
            assert sorted(_ours(book.probe(board))) == expected, board.fen()
            assert sorted(_ours(book.probe(board, minimum_weight=5))) == \
                sorted(_ours(sorted_book.probe(board, minimum_weight=5))), board.fen()
            count += 1
        assert count >= 1000
        # entries come back with their index in this file
        for entry in book.probe(chess.Board()):
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
        assert book.probe(chess.Board()) == []
        assert chess.Board() not in book
        with pytest.raises(IndexError):
            book.choice(chess.Board())


# --- writing ---------------------------------------------------------------------------------------------------

def _read_rows(path: Path) -> list[tuple[int, int, int, int]]:
    data = path.read_bytes()
    assert len(data) % 16 == 0
    return [ENTRY.unpack_from(data, offset) for offset in range(0, len(data), 16)]


START = chess.STARTING_FEN
ITALIAN = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"  # white can castle short
BLACK_LONG = "r3kbnr/pppqpppp/2n5/3p1b2/3P1B2/2N5/PPPQPPPP/R3KBNR b KQkq - 7 5"
PROMOTION = "8/P6k/8/8/8/8/6p1/K7 w - - 0 1"
PROMOTION_BLACK = "8/P6k/8/8/8/8/6p1/K4N2 b - - 0 1"


def _sample_mapping() -> dict[Any, dict[Any, Any]]:
    return {
        START: {chess.Move.from_uci("d2d4"): 5, chess.Move.from_uci("e2e4"): 10, "g1f3": (3, 77)},
        ITALIAN: {chess.Move.from_uci("e1g1"): 7, chess.Move.from_uci("c2c3"): 2},
        BLACK_LONG: {chess.Move.from_uci("e8c8"): 4},
        PROMOTION: {chess.Move.from_uci(f"a7a8{p}"): w for p, w in zip("qrbn", (40, 30, 20, 10), strict=True)},
        PROMOTION_BLACK: {"g2g1q": 2, "g2f1n": 1},
    }


def test_write_mapping(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    assert write_book(path, _sample_mapping()) == 3 + 2 + 1 + 4 + 2
    rows = _read_rows(path)
    keys = [row[0] for row in rows]
    assert keys == sorted(keys)
    by_key: dict[int, list[tuple[int, int, int]]] = {}
    for key, raw, weight, learn in rows:
        by_key.setdefault(key, []).append((raw, weight, learn))
    # hand-computed raw moves (to | from << 6 | promotion << 12):
    # e2e4 = 28 | 12 << 6 = 796; d2d4 = 27 | 11 << 6 = 731; g1f3 = 21 | 6 << 6 = 405
    assert by_key[0x463B96181691FC9C] == [(796, 10, 0), (731, 5, 0), (405, 3, 77)]  # by descending weight
    # O-O stored as e1h1 = 7 | 4 << 6 = 263, c2c3 = 18 | 10 << 6 = 658
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(ITALIAN))] == [(263, 7, 0), (658, 2, 0)]
    # O-O-O of black stored as e8a8 = 56 | 60 << 6 = 3896
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(BLACK_LONG))] == [(3896, 4, 0)]
    # a7a8 = 56 | 48 << 6 = 3128; + 4 << 12 (Q) = 19512, 3 << 12 (R) = 15416, 2 << 12 (B) = 11320, N = 7224
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(PROMOTION))] == \
        [(19512, 40, 0), (15416, 30, 0), (11320, 20, 0), (7224, 10, 0)]
    # g2g1=Q = 6 | 14 << 6 | 4 << 12 = 6 + 896 + 16384 = 17286; g2f1=N = 5 | 896 | 4096 = 4997
    assert by_key[chess.polyglot.zobrist_hash(chess.Board(PROMOTION_BLACK))] == [(17286, 2, 0), (4997, 1, 0)]


def test_written_book_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    mapping = _sample_mapping()
    write_book(path, mapping)
    with open_book(path) as book, chess.polyglot.open_reader(path) as reader:
        for fen, moves in mapping.items():
            board = chess.Board(fen)
            expected = {chess.Move.from_uci(m) if isinstance(m, str) else m:
                        (w if isinstance(w, int) else w[0]) for m, w in moves.items()}
            theirs = {e.move: e.weight for e in reader.find_all(board, minimum_weight=0)}
            ours = {e.move: e.weight for e in book.probe(board)}
            assert theirs == expected, fen
            assert ours == expected, fen
        castle = book.probe(chess.Board(ITALIAN))[0]
        assert castle.move == chess.Move.from_uci("e1g1") and castle.raw_move == 263


def test_write_by_key_and_raw_move(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    write_book(path, {0x463B96181691FC9C: {796: 9, "d2d4": 2}, 5: {263: 1}})
    assert _read_rows(path) == [(5, 263, 1, 0), (0x463B96181691FC9C, 796, 9, 0), (0x463B96181691FC9C, 731, 2, 0)]


# FENs of one position that differ only in the move counters: the same key, so (key, move) repeats
SAME_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 7"


@pytest.mark.parametrize(("merge", "expected"), [
    ("sum", [(796, 10 + 30 + 4, 0)]),
    ("max", [(796, 30, 0)]),
    ("first", [(796, 10, 0)]),
    (None, [(796, 10, 0), (796, 30, 0), (796, 4, 0)]),
])
def test_write_merges_duplicates(tmp_path: Path, merge: str | None, expected: list[tuple[int, int, int]]) -> None:
    path = tmp_path / "out.bin"
    mapping = {START: {"e2e4": 10}, SAME_START: {chess.Move.from_uci("e2e4"): 30}, 0x463B96181691FC9C: {796: 4}}
    write_book(path, mapping, merge=merge)
    assert [(raw, weight, learn) for _, raw, weight, learn in _read_rows(path)] == expected


def test_write_merges_within_a_position(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    write_book(path, {START: {"e2e4": 10, chess.Move.from_uci("e2e4"): 3, "d2d4": 1}}, merge="sum")
    assert [(raw, weight) for _, raw, weight, _ in _read_rows(path)] == [(796, 13), (731, 1)]


def test_write_sum_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    write_book(path, [(1, 796, 40000, 0), (1, 796, 30000, 0)], merge="sum")
    assert _read_rows(path) == [(1, 796, 65535, 0)]


def test_write_entries_sorted_and_stable(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    rows = [(9, 1, 1, 0), (3, 2, 1, 0), (9, 3, 1, 0), (2**64 - 1, 4, 1, 0), (0, 5, 1, 0), (3, 6, 1, 0)]
    write_book(path, rows, merge=None)
    assert _read_rows(path) == [(0, 5, 1, 0), (3, 2, 1, 0), (3, 6, 1, 0), (9, 1, 1, 0), (9, 3, 1, 0),
                                (2**64 - 1, 4, 1, 0)]


def test_write_rejects_out_of_range(tmp_path: Path) -> None:
    for row in ((2**64, 1, 1, 0), (1, 2**16, 1, 0), (1, 1, 2**16, 0), (1, 1, 1, 2**32), (-1, 1, 1, 0)):
        with pytest.raises(ValueError):
            write_book(tmp_path / "bad.bin", [row])
    assert not (tmp_path / "bad.bin").exists()


class _Exploding(dict):  # type: ignore[type-arg]
    """A mapping whose iteration fails after the first position."""

    def items(self) -> Iterator[tuple[Any, Any]]:  # type: ignore[override]
        for number, item in enumerate(super().items()):
            if number == 1:
                raise RuntimeError("source failed midway")
            yield item


def test_write_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "book.bin"
    write_book(path, {START: {"e2e4": 1}})
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="midway"):
        write_book(path, _Exploding({START: {"d2d4": 1}, ITALIAN: {"e1g1": 1}}))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.bin"]


def test_write_is_atomic_when_the_entries_fail(tmp_path: Path) -> None:
    path = tmp_path / "book.bin"
    path.write_bytes(b"previous")

    def entries() -> Iterator[tuple[int, int, int, int]]:
        yield (1, 796, 1, 0)
        raise OSError("disk went away")

    with pytest.raises(OSError, match="went away"):
        write_book(path, entries())
    assert path.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.bin"]


# --- choice ------------------------------------------------------------------------------------------------------

@pytest.fixture
def weighted_book(tmp_path: Path) -> Path:
    return _start_position_book(tmp_path, {"e2e4": 3, "d2d4": 1, "c2c4": 0, "g1f3": 6})


def test_choice_is_seeded(weighted_book: Path) -> None:
    board = chess.Board()
    with open_book(weighted_book) as book:
        first = [book.choice(board, random=random.Random(42)).move for _ in range(5)]
        assert len(set(first)) == 1  # a fresh generator with the same seed: the same draw
        rng_a, rng_b = random.Random(7), random.Random(7)
        a = [book.choice(board, random=rng_a).move for _ in range(200)]
        b = [book.choice(board, random=rng_b).move for _ in range(200)]
        assert a == b
        assert book.choice(board, random=123) == book.choice(board, random=123)
        assert len({book.choice(board, random=seed).move for seed in range(100)}) == 3


def test_choice_distribution(weighted_book: Path) -> None:
    board = chess.Board()
    rng = random.Random(20000)
    draws = 20_000
    with open_book(weighted_book) as book:
        counts = Counter(book.choice(board, random=rng).move.uci() for _ in range(draws))
    assert counts["c2c4"] == 0  # weight 0: never
    assert set(counts) == {"e2e4", "d2d4", "g1f3"}
    # expected shares 3/10, 1/10, 6/10; a standard deviation is at most sqrt(.25/20000) = 0.0036
    for move, share in (("e2e4", 0.3), ("d2d4", 0.1), ("g1f3", 0.6)):
        assert abs(counts[move] / draws - share) < 0.02, (move, counts)


def test_choice_errors(weighted_book: Path, tmp_path: Path) -> None:
    with open_book(weighted_book) as book:
        with pytest.raises(IndexError):
            book.choice(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1"), random=1)
        entry = book.choice(chess.Board(), random=1,
                            exclude_moves={chess.Move.from_uci("g1f3"), chess.Move.from_uci("e2e4")})
        assert entry.move.uci() == "d2d4"
    zero = _start_position_book(tmp_path, {"e2e4": 0, "d2d4": 0}, name="zero.bin")
    with open_book(zero) as book, pytest.raises(IndexError):
        book.choice(chess.Board(), random=1)


# --- moves ---------------------------------------------------------------------------------------------------

def _expected_raw(board: chess.Board, move: chess.Move) -> int:
    """The spec's encoding: to | from << 6 | promotion << 12; castling as king takes rook."""
    to_square = move.to_square
    if board.is_castling(move) and not board.chess960:
        rook_file = 7 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 0
        to_square = chess.square(rook_file, chess.square_rank(move.from_square))
    return to_square | move.from_square << 6 | PROMOTION_CODE[move.promotion] << 12


EXTRA_POSITIONS = [
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1",
    "r1b1k2r/1P4P1/8/8/8/8/1p4p1/R1B1K2R w KQkq - 0 1",
    "r1b1k2r/1P4P1/8/8/8/8/1p4p1/R1B1K2R b KQkq - 0 1",
    "8/8/8/K1pP3r/8/8/8/4k3 w - c6 0 2",
]


def test_encode_decode_are_inverse() -> None:
    boards = [chess.Board(fen) for fen in EXTRA_POSITIONS]
    boards += [board.copy() for board in _random_games(77, 40) if random.Random(board.ply()).random() < 0.2]
    boards += [board.copy() for board in _random_games(78, 20, chess960=True)]
    moves = castles = promotions = 0
    for board in boards:
        for move in board.legal_moves:
            raw = encode_move(move, board)
            assert raw == _expected_raw(board, move), (board.fen(), move.uci())
            assert decode_move(raw, board) == move, (board.fen(), move.uci())
            stored = decode_move(raw)  # without a board: exactly as stored
            assert (stored.from_square, stored.to_square) == (raw >> 6 & 63, raw & 63)
            moves += 1
            castles += board.is_castling(move)
            promotions += bool(move.promotion)
    assert moves >= 10_000 and castles >= 20 and promotions >= 16


def test_castling_conversion_only_with_a_king_on_e1_e8() -> None:
    # e1h1 = to h1 (7) | from e1 (4) << 6 = 263; e1a1 = 0 | 4 << 6 = 256; e8a8 = a8 (56) | e8 (60) << 6 = 3896
    e1h1, e1a1, e8a8 = 263, 256, 3896
    rook_on_e1 = chess.Board("4k3/8/8/8/8/8/8/3KR3 w - - 0 1")
    assert decode_move(e1h1, rook_on_e1) == chess.Move(chess.E1, chess.H1)
    assert encode_move(chess.Move(chess.E1, chess.H1), rook_on_e1) == e1h1
    rook_on_e8 = chess.Board("4r1k1/8/8/8/8/8/8/4K3 b - - 0 1")
    assert decode_move(e8a8, rook_on_e8) == chess.Move(chess.E8, chess.A8)
    king_on_e1 = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert decode_move(e1h1, king_on_e1) == chess.Move(chess.E1, chess.G1)
    assert decode_move(e1a1, king_on_e1) == chess.Move(chess.E1, chess.C1)
    assert decode_move(e8a8, king_on_e1) == chess.Move(chess.E8, chess.C8)
    assert decode_move(e1h1) == chess.Move(chess.E1, chess.H1)  # no board: as stored
    assert decode_move(0) == chess.Move.null()
    assert encode_move(chess.Move.null()) == 0


def test_encode_rejects_unstorable_moves() -> None:
    with pytest.raises(ValueError):
        encode_move(chess.Move(chess.E4, chess.E4, drop=chess.KNIGHT))


# --- the polyglot program as oracle ------------------------------------------------------------------------

ORACLE_BOOKS = ["gm2001.bin", "lasker-trap.bin", "performance.bin", "picochess_fun.bin", "rodent3_cat.bin",
                "rodent3_micro.bin", "rodent3_reti.bin"]


def _run(binary: Path, args: list[str], cwd: Path) -> list[str]:
    result = subprocess.run([str(binary), *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                            check=True)
    return result.stdout.splitlines()


@pytest.mark.parametrize("name", ORACLE_BOOKS)
def test_polyglot_oracle_info_and_dump(polyglot_binary: Path, corpus_path: Callable[..., Path], tmp_path: Path,
                                       name: str) -> None:
    original = corpus_path("polyglot", name)
    with open_book(original) as book:
        entries = list(book)
    copy = tmp_path / "copy.bin"
    write_book(copy, entries, merge=None)

    def info(path: Path) -> list[str]:
        return [line.replace(str(path), "BOOK") for line in _run(polyglot_binary, ["info-book", "-bin", str(path)],
                                                                 tmp_path)]

    assert info(copy) == info(original)
    assert any("Lines for white" in line for line in info(original))
    for color in ("white", "black"):
        dumps = []
        for label, path in (("a", original), ("b", copy)):
            out = tmp_path / f"dump-{label}-{color}.txt"
            _run(polyglot_binary, ["dump-book", "-bin", str(path), "-color", color, "-out", str(out)], tmp_path)
            dumps.append(out.read_text(errors="replace").replace(str(path), "BOOK").splitlines())
        assert dumps[0] == dumps[1]
        assert dumps[0][0] == f'Dump of "BOOK" for {color}.'


def test_polyglot_oracle_reads_a_written_mapping(polyglot_binary: Path, tmp_path: Path) -> None:
    """A book written from a mapping: polyglot's dump shows the lines and the shares the weights give."""
    board = chess.Board()
    mapping: dict[Any, dict[Any, Any]] = {board.fen(): {"e2e4": 3, "d2d4": 1}}
    board.push_san("e4")
    mapping[board.fen()] = {"e7e5": 1}
    board.push_san("e5")
    mapping[board.fen()] = {"g1f3": 1}
    path = tmp_path / "mine.bin"
    write_book(path, mapping)
    out = tmp_path / "dump.txt"
    _run(polyglot_binary, ["dump-book", "-bin", str(path), "-color", "white", "-out", str(out)], tmp_path)
    lines = out.read_text().splitlines()
    # e4 has 3 of the 4 weight units (75%), then 1...e5 2.Nf3 (the only move, 100%)
    assert any(line.startswith("1: 1. e4{75%} e5 2. Nf3{100%}") for line in lines), lines
    assert any(line.startswith("2: 1. d4{25%}") for line in lines), lines
