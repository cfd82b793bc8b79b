"""CTG books: the reader against the corpus, the codecs' properties, the writer, conversions and the CLI.

Oracles: ``corpus/ctg/expected-probes.json`` (an independent reader), the spec (its hash code, ported
here literally with C's integer semantics, and its lookup loop, written here from the spec's text),
python-chess (legality, ``Board.mirror()`` for the colour flip), construct's own parse of every record,
and hand arithmetic in comments. Nothing expected is copied from chessformats's own output.
"""

from __future__ import annotations

import json
import random
import re
import struct
import warnings
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import chess.polyglot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats import ctg
from chessformats.books.stats import BookStats, MoveStats, PositionStats, read_pgn_games
from chessformats.cli import main
from chessformats.schemas import ctg as schema
from conftest import REPO_ROOT, find_corpus, find_spec

BOOK = ("ctg", "PowerPlay17-Sicilienne.ctg")
EXAMPLE_GAMES = REPO_ROOT / "src" / "chessformats" / "data" / "example_games.pgn"


@cache
def _expected(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return _expected(find_corpus("ctg", "expected-probes.json"))


@pytest.fixture(scope="module")
def book_path() -> Path:
    return find_corpus(*BOOK)


# --- independent implementations from the spec ---------------------------------------------------------

@cache
def spec_hash_table() -> tuple[int, ...]:
    """The ``tbl[]`` of the spec's hash code (skips, or fails in CI, without the specs folder)."""
    text = find_spec("ctg.ru.txt").read_text(encoding="utf-8")
    start = text.index("unsigned int tbl[]")
    return tuple(int(v, 16) for v in re.findall(r"0x([0-9a-f]{8})", text[start:text.index("};", start)]))


@pytest.fixture(scope="module")
def table() -> tuple[int, ...]:
    return spec_hash_table()


def c_gen_hash(data: bytes) -> int:
    """The spec's ``gen_hash``, with C's types: ``signed char ch``, ``short tmp``, ``signed hash`` (32 bits)."""
    table = spec_hash_table()

    def short(x: int) -> int:
        return (x + 0x8000) % 0x10000 - 0x8000

    def int32(x: int) -> int:
        return (x + 0x80000000) % 0x100000000 - 0x80000000

    hash_value = 0
    tmp = 0
    for byte in data:
        ch = byte - 256 if byte > 127 else byte
        tmp = short(tmp + ((0x0F - (ch & 0x0F)) << 2) + 1)
        hash_value = int32(hash_value + table[tmp & 0x3F])
        tmp = short(tmp + ((0xF0 - (ch & 0xF0)) >> 2) + 1)
        hash_value = int32(hash_value + table[tmp & 0x3F])
    return hash_value & 0xFFFFFFFF


# the spec's square codes (section "Кодирование"), c = 1 for black
SPEC_CODES = {chess.PAWN: "11", chess.ROOK: "1011", chess.BISHOP: "1010", chess.KNIGHT: "1001", chess.QUEEN: "10001",
              chess.KING: "10000"}


def spec_encode(board: chess.Board) -> bytes:
    """The encoded position, written from the spec and notes/ctg.md with python-chess doing the mirrors."""
    if board.turn == chess.BLACK:
        board = board.mirror()  # notes: "python-chess Board.mirror()"
    rights = board.clean_castling_rights()
    king = board.king(chess.WHITE)
    ep = chess.square_file(board.ep_square) if board.ep_square is not None and board.has_legal_en_passant() else None
    if not rights and king is not None and chess.square_file(king) < 4:
        board = board.transform(chess.flip_horizontal)
        ep = None if ep is None else 7 - ep
    bits = ""
    for file in range(8):
        for rank in range(8):
            piece = board.piece_at(chess.square(file, rank))
            bits += "0" if piece is None else SPEC_CODES[piece.piece_type] + ("0" if piece.color else "1")
    flags = ""
    if ep is not None:
        flags += format(ep, "03b")
    if rights:
        flags += "".join("1" if rights & chess.BB_SQUARES[s] else "0" for s in (chess.H8, chess.A8, chess.H1, chess.A1))
    used = 8 + len(bits)
    # the spec's "N = 8/4/3/7" rule: pad so that the flags end on a byte; no flags: at least one pad bit
    total = (used + len(flags) + 7) // 8 * 8 if flags else (used // 8 + 1) * 8
    bits += "0" * (total - used - len(flags)) + flags
    header = total // 8 | (0x20 if ep is not None else 0) | (0x40 if rights else 0)
    return bytes((header,)) + int(bits, 2).to_bytes(total // 8 - 1, "big")


def spec_lookup(stem: str, encoded: bytes) -> int | None:
    """The spec's loop over the .cto entries, the page search by record lengths; returns the page or None."""
    ctb = Path(stem + ".ctb").read_bytes()
    cto = Path(stem + ".cto").read_bytes()
    data = Path(stem + ".ctg").read_bytes()
    lower, upper = struct.unpack(">II", ctb[4:12])
    entries = struct.unpack(">I", cto[4:8])[0]
    h = c_gen_hash(encoded)
    n = 0
    while n < 0x7FFFFFFF:
        c = (h & n) + n
        n = 2 * n + 1
        if c < lower:
            continue
        page = struct.unpack(">i", cto[16 + 4 * c:20 + 4 * c])[0] if c < entries else -1
        if page >= 0:
            base = 4096 * (page + 1)
            position = base + 4
            for _ in range(struct.unpack(">H", data[base:base + 2])[0]):
                length = data[position] & 0x1F
                if data[position:position + length] == encoded:
                    return int(page)
                position += length + data[position + length] + 33
        if c >= upper:
            break
    return None


def corpus_records(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(page, offset, record bytes) of every record, walked with the notes' lengths."""
    data = path.read_bytes()
    for page in range(len(data) // 4096 - 1):
        base = 4096 * (page + 1)
        position = base + 4
        for _ in range(struct.unpack(">H", data[base:base + 2])[0]):
            length = data[position] & 0x1F
            size = length + data[position + length] + 33
            yield page, position, data[position:position + size]
            position += size


# --- the reader against the corpus -------------------------------------------------------------------

def test_expected_probes(book_path: Path, expected: dict[str, Any]) -> None:
    assert len(expected["found"]) == 400
    with ctg.open_book(book_path) as book:
        for found in expected["found"]:
            board = chess.Board(found["fen"])
            record = book.probe(board)
            assert record is not None, found["fen"]
            probe = found["probe"]
            assert [{"code": m.code, "uci": m.move.uci(), "legal": board.is_legal(m.move), "annotation": m.annotation}
                    for m in record.moves] == probe["moves"], found["fen"]
            assert (record.games, record.wins, record.losses, record.draws, record.unknown1) == (
                probe["games"], probe["wins"], probe["losses"], probe["draws"], probe["unknown1"])
            assert list(record.rating1) == probe["rating1"] and list(record.rating2) == probe["rating2"]
            assert (record.recommendation, record.unknown2, record.comment) == (
                probe["recommendation"], probe["unknown2"], probe["comment"])
        for fen in expected["not_in_book"]:
            assert book.probe(chess.Board(fen)) is None and chess.Board(fen) not in book


def test_annotations_flags_and_ratings(book_path: Path, expected: dict[str, Any]) -> None:
    with ctg.open_book(book_path) as book:
        start = book.probe(chess.Board())
        assert start is not None
        # rating1 (391, 877568): 877568 / 391 = 2244.42; rating2 (388, 885917): 2283.29; white scored 176 wins,
        # 201 losses, 116 draws: performance = 2283.29 + 400 * (176 - 201) / 493 = 2263.01
        assert start.average_rating == pytest.approx(2244.42, abs=0.01)
        assert start.performance == pytest.approx(2263.01, abs=0.01)
        # recommendation 20 = 0x14: neither green (0x80) nor red (0x40); 0x14 kept as other bits
        assert (start.green, start.red, start.other_flags) == (False, False, 0x14)
        annotated = next(f for f in expected["found"] if any(m["annotation"] == 5 for m in f["probe"]["moves"]))
        record = book.probe(chess.Board(annotated["fen"]))
        assert record is not None
        move = next(m for m in record.moves if m.annotation == 5)
        assert (move.nag, move.symbol) == (5, "!?")
        commented = next(f for f in expected["found"] if f["probe"]["comment"] == 10)
        record = book.probe(chess.Board(commented["fen"]))
        assert record is not None and (record.comment_nag, record.comment_symbol) == (10, "=")
        greens = [f for f in expected["found"] if f["probe"]["recommendation"] & 0x80]
        assert all(book.probe(chess.Board(f["fen"])).green for f in greens)  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["PowerPlay17-Sicilienne.ctg", "simple.ctg"])
def test_every_record_decodes_like_construct(name: str) -> None:
    path = find_corpus("ctg", name)
    data = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ctg.MissingIndexWarning)
        book = ctg.open_book(path)
    with book:
        for page in range(book.data_pages):
            parsed = schema.PAGE.parse(data[4096 * (page + 1):4096 * (page + 2)])
            records = book.page_records(page)
            assert len(records) == len(parsed.records)
            for record, raw in zip(records, parsed.records, strict=True):
                assert record.to_bytes() == schema.RECORD.build(raw)
                board = raw.position.board
                pieces = {chess.parse_square(square): symbol for square, symbol in
                          zip(["abcdefgh"[i // 8] + "12345678"[i % 8] for i in range(64)], board.squares, strict=True)}
                assert {sq: f"{'white' if p.color else 'black'}_{chess.piece_name(p.piece_type)}"
                        for sq, p in record.board.piece_map().items()} == {
                    sq: s for sq, s in pieces.items() if s != "empty"}
                assert record.padding == board.padding
                ep = record.board.ep_square
                assert (None if ep is None else chess.square_file(ep)) == board.en_passant_file
                castling = board.castling
                rights = record.board.castling_rights
                if castling is None:
                    assert rights == 0
                else:
                    assert [bool(rights & chess.BB_SQUARES[s]) for s in (chess.H8, chess.A8, chess.H1, chess.A1)] == [
                        castling.black_short, castling.black_long, castling.white_short, castling.white_long]
                assert [(m.code, m.annotation) for m in record.moves] == [
                    (int(m.code), int(m.annotation)) for m in raw.moves.moves]
                stats = raw.stats
                assert (record.games, record.wins, record.losses, record.draws, record.rating1, record.rating2,
                        record.comment) == (stats.games, stats.wins, stats.losses, stats.draws,
                                            (stats.rating1.games, stats.rating1.total),
                                            (stats.rating2.games, stats.rating2.total), int(stats.comment))


def test_every_record_re_encodes_and_is_found_by_the_spec_loop(book_path: Path) -> None:
    stem = str(book_path)[:-4]
    with ctg.open_book(book_path) as book:
        records = list(book.records())
    assert len(records) == 13305
    offsets = {offset: (page, raw) for page, offset, raw in corpus_records(book_path)}
    pages_found = {}
    for record in records:
        page, raw = offsets[record.offset or 0]
        assert record.page == page and record.to_bytes() == raw
        # notes: every record re-encodes byte for byte from its decoded board
        assert spec_encode(record.board) == record.signature == ctg.signature(record.board)
        assert ctg.ctg_hash(record.signature) == c_gen_hash(record.signature)
        pages_found[record.signature] = page
        for move in record.moves:  # all decoded moves are legal (notes, expected-probes.json)
            assert record.board.is_legal(move.move), (record.board.fen(), move)
    sample = random.Random(1).sample(sorted(pages_found), 500)
    for encoded in sample:
        assert spec_lookup(stem, encoded) == pages_found[encoded]


def test_simple_ctg_without_index() -> None:
    path = find_corpus("ctg", "simple.ctg")
    with pytest.warns(ctg.MissingIndexWarning, match="scan every page"):
        book = ctg.open_book(path)
    with book:
        records = list(book.records())
        assert len(records) == 4 and book.header_games == 1 and book.directory is None
        for record in records:
            found = book.probe(record.board)
            assert found is not None and found.to_bytes() == record.to_bytes()
            flipped = record.board.mirror()  # the same position with black to move
            assert book.probe(flipped) is not None
        assert book.probe(chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1")) is None
        assert "no .cto/.ctb beside the .ctg: probes scan every page" in book.findings()


def test_findings_of_the_corpus_book(book_path: Path) -> None:
    with ctg.open_book(book_path) as book:
        findings = book.findings()
        assert len(book) == 13305 and book.data_pages == 257 and book.header_games == 499
    assert "the header's position count is 13321, the pages hold 13305 records" in findings
    assert "141 pages have non-zero bytes after their used part (ignored, kept)" in findings
    assert "the lookup reads .cto entries up to 895, the table has 892 (entries past the end count as empty)" \
        in findings


def test_lookup_entries_follow_the_spec_loop() -> None:
    # bounds of the corpus book: 248 and 384. hash 124: n = 0..63 give c < 248; n = 127: c = 124 + 127 = 251;
    # n = 255: c = 124 + 255 = 379 (< 384, go on); n = 511: c = 124 + 511 = 635 (>= 384: stop)
    assert ctg.lookup_entries(124, 248, 384) == [251, 379, 635]
    # hash 200: 127 + (200 & 127 = 72) = 199 is skipped; 255 + 200 = 455 >= 384: stop
    assert ctg.lookup_entries(200, 248, 384) == [455]
    assert ctg.lookup_entries(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF) == []  # never hangs


@given(st.binary(max_size=40))
@settings(max_examples=300, deadline=None)
def test_hash_equals_the_c_code(table: tuple[int, ...], data: bytes) -> None:
    assert ctg.ctg_hash(data) == c_gen_hash(data)


def test_hash_by_hand(table: tuple[int, ...]) -> None:
    # one byte 0x00: tmp = ((15 - 0) << 2) + 1 = 61 -> tbl[61]; tmp = 61 + ((0xf0 - 0) >> 2) + 1 = 122 -> tbl[58]
    assert ctg.ctg_hash(b"\x00") == (table[61] + table[58]) & 0xFFFFFFFF == 0x3D08F9E4


# --- codec properties on random positions -----------------------------------------------------------

@st.composite
def positions(draw: Any) -> chess.Board:
    """A position of a random game (uniform random legal moves), sometimes without castling rights."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    board = chess.Board()
    for _ in range(draw(st.integers(0, 80))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    if draw(st.booleans()):
        board.castling_rights = 0
    return board.copy(stack=False)


@given(positions())
@settings(max_examples=300, deadline=None)
def test_encoding_follows_the_spec(board: chess.Board) -> None:
    encoded = ctg.signature(board)
    assert encoded == spec_encode(board)
    assert ctg.signature(board.mirror()) == encoded  # the colour flip
    if not board.clean_castling_rights():
        assert ctg.signature(board.transform(chess.flip_horizontal)) == encoded  # the left-right mirror
    parsed = schema.POSITION.parse(encoded)
    assert parsed.header.length == len(encoded) and parsed.board.padding == 0


@given(positions())
@settings(max_examples=300, deadline=None)
def test_move_codes_round_trip(board: chess.Board) -> None:
    counts = {t: 0 for t in chess.PIECE_TYPES}
    for move in board.legal_moves:
        code = ctg.encode_move(board, move)
        piece = board.piece_type_at(move.from_square)
        assert piece is not None
        number = 1 + sum(1 for s in board.pieces(piece, board.turn)
                         if _coding_index(board, s) < _coding_index(board, move.from_square))
        storable = (move.promotion in (None, chess.QUEEN)) and (piece in (chess.PAWN, chess.KING) or number <= 2)
        assert (code is not None) == storable, move
        if code is not None:
            assert ctg.decode_move(board, code) == move
            counts[piece] += 1
    record = ctg.make_record(board, [m for m in board.legal_moves if ctg.encode_move(board, m) is not None])
    parsed = schema.RECORD.parse(record.to_bytes())
    assert len(parsed.moves.moves) == len(record.moves)


def _coding_index(board: chess.Board, square: chess.Square) -> int:
    """Where a square of ``board`` falls in the coding order of its normalised board (for numbering pieces)."""
    if board.turn == chess.BLACK:
        square = chess.square_mirror(square)
    mirrored = not board.clean_castling_rights() and chess.square_file(board.king(board.turn) or 0) < 4
    if mirrored:
        square ^= 7
    return 8 * chess.square_file(square) + chess.square_rank(square)


def test_castling_and_promotion_codes() -> None:
    board = chess.Board("r3k2r/1P6/8/8/8/8/8/R3K2R b KQkq - 0 1")
    assert ctg.encode_move(board, chess.Move.from_uci("e8g8")) == 0x6B  # black O-O: normalised e1g1
    assert ctg.encode_move(board, chess.Move.from_uci("e8c8")) == 0xF6
    board.turn = chess.WHITE
    assert ctg.decode_move(board, 0x6B) == chess.Move.from_uci("e1g1")
    # b7xa8: the only white pawn (1st pawn) x+7 y+1 = 0x0c; it promotes to a queen
    assert ctg.decode_move(board, 0x0C) == chess.Move.from_uci("b7a8q")
    assert ctg.encode_move(board, chess.Move.from_uci("b7a8n")) is None
    assert ctg.decode_move(board, 0x4C) is None  # a 2nd knight that is not there


# --- writing ------------------------------------------------------------------------------------------

def test_rewrite_the_corpus_book(tmp_path: Path, book_path: Path, expected: dict[str, Any]) -> None:
    with ctg.open_book(book_path) as book:
        records = list(book.records())
        games = book.header_games
    out = tmp_path / "copy.ctg"
    assert ctg.write_book(out, records, games=games) == 13305
    with ctg.open_book(out) as copy:
        assert copy.header_games == 499 and not copy.findings()
        assert {r.signature: r.to_bytes() for r in copy.records()} == {r.signature: r.to_bytes() for r in records}
        with ctg.open_book(book_path) as book:
            for found in expected["found"] + [{"fen": fen} for fen in expected["not_in_book"]]:
                board = chess.Board(found["fen"])
                original, written = book.probe(board), copy.probe(board)
                assert (original is None) == (written is None)
                if original is not None and written is not None:
                    assert written.moves == original.moves and written.to_bytes() == original.to_bytes()
    stem = str(out)[:-4]
    for record in random.Random(2).sample(records, 1000):
        assert spec_lookup(stem, record.signature) is not None
    # every page within its limits; together about as full as the dbm scheme allows
    data = out.read_bytes()
    used = [struct.unpack(">H", data[4096 * p + 2:4096 * p + 4])[0] for p in range(1, len(data) // 4096)]
    assert max(used) <= 4096 and sum(len(r.to_bytes()) for r in records) == sum(u - 4 for u in used)
    assert len(used) <= 257  # no more pages than ChessBase's own layout of the same records


def test_directory_rule(tmp_path: Path, book_path: Path) -> None:
    with ctg.open_book(book_path) as book:
        ctg.write_book(tmp_path / "copy.ctg", book.records())
    ctb = (tmp_path / "copy.ctb").read_bytes()
    cto = (tmp_path / "copy.cto").read_bytes()
    lower, upper = struct.unpack(">II", ctb[4:12])
    entries = struct.unpack(">I", cto[4:8])[0]
    table = struct.unpack(f">{entries}i", cto[16:16 + 4 * entries])
    assert len(cto) == 16 + 4 * entries and len(ctb) == 60
    levels = {(c + 1).bit_length() - 1 for c, page in enumerate(table) if page >= 0}
    assert lower == 2 ** min(levels) - 1
    deepest = max(levels)
    # every hash (its low `deepest + 1` bits decide the loop): every entry read lies in the table, and at
    # most one entry on the way is a page (a trie: one leaf per path)
    for h in range(2 ** (deepest + 1)):
        read = ctg.lookup_entries(h, lower, upper)
        assert read and max(read) < entries
        assert sum(1 for c in read if table[c] >= 0) <= 1
    assert max(max(ctg.lookup_entries(h, lower, upper)) for h in range(2 ** (deepest + 1))) == entries - 1


def _example_stats(max_ply: int = 12) -> BookStats:
    stats = BookStats()
    stats.add_games(read_pgn_games(str(EXAMPLE_GAMES)), max_ply=max_ply)
    return stats


def test_write_from_bookstats(tmp_path: Path) -> None:
    stats = _example_stats()
    with open(EXAMPLE_GAMES, encoding="utf-8") as handle:
        games = []
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    out = tmp_path / "games.ctg"
    count = ctg.write_book(out, stats)
    with ctg.open_book(out) as book:
        assert len(book) == count and book.header_games == len(games) == 7
        start = book.probe(chess.Board())
        assert start is not None
        # the seven games: 1.e4 six times, 1.f3 once (see tests/test_cli.py); all seven reach the start
        assert {m.move.uci() for m in start.moves} == {"e2e4", "f2f3"} and start.games == 7
        results = [g.headers["Result"] for g in games]
        assert (start.wins, start.losses, start.draws) == (results.count("1-0"), results.count("0-1"),
                                                           results.count("1/2-1/2"))
        after_e4 = chess.Board()
        after_e4.push_san("e4")
        record = book.probe(after_e4)
        e4_games = [g for g in games if g.next() is not None and g.next().move == chess.Move.from_uci("e2e4")]  # type: ignore[union-attr]
        assert record is not None and record.games == len(e4_games) == 6
        assert record.wins == sum(1 for g in e4_games if g.headers["Result"] == "0-1")  # black to move
        # every position of the model is in the book with its moves, and every move leads to a stored position
        for position in stats:
            board = position.board()
            found = book.probe(board)
            assert found is not None
            assert {m.move for m in found.moves} == set(position.moves)
            for move in position.moves:
                child = board.copy()
                child.push(move)
                assert book.probe(child) is not None
        stem = str(out)[:-4]
        for position in stats:
            assert spec_lookup(stem, spec_encode(position.board())) is not None


def test_unstorable_moves_are_left_out(tmp_path: Path) -> None:
    board = chess.Board("8/1P6/8/8/8/8/k7/7K w - - 0 1")
    stats = BookStats(positions={"x": PositionStats(board.fen(), {
        chess.Move.from_uci("b7b8n"): MoveStats(1, 1, 0, 0), chess.Move.from_uci("b7b8q"): MoveStats(2, 0, 2, 0)})})
    with pytest.warns(UserWarning, match="1 moves left out"):
        ctg.write_book(tmp_path / "promo.ctg", stats)
    with ctg.open_book(tmp_path / "promo.ctg") as book:
        record = book.probe(board)
        assert record is not None and [m.move.uci() for m in record.moves] == ["b7b8q"]
    with pytest.raises(ValueError, match="cannot store"):
        ctg.make_record(board, [chess.Move.from_uci("b7b8r")])


def test_empty_book(tmp_path: Path) -> None:
    assert ctg.write_book(tmp_path / "empty.ctg", []) == 0
    with ctg.open_book(tmp_path / "empty.ctg") as book:
        assert len(book) == 0 and book.probe(chess.Board()) is None


def test_writing_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "book.ctg"
    ctg.write_book(out, _example_stats(4))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(schema.HEADER_PAGE, "build", fail)
    with pytest.raises(OSError, match="disk full"):
        ctg.write_book(out, _example_stats(8))
    assert (out).read_bytes() == before["book.ctg"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".tmp") == []


@given(st.lists(positions(), min_size=1, max_size=12), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_written_books_probe_back(table: tuple[int, ...], boards: list[chess.Board], seed: int) -> None:
    import tempfile

    rng = random.Random(seed)
    records = {}
    for board in boards:
        moves = [m for m in board.legal_moves if ctg.encode_move(board, m) is not None]
        chosen = rng.sample(moves, min(len(moves), rng.randint(0, 4)))
        games = rng.randint(0, 1000)
        wins = rng.randint(0, games)
        record = ctg.make_record(board, [(m, rng.choice([0, 1, 2, 5])) for m in chosen], games=games, wins=wins,
                                 draws=games - wins, rating1=ctg.Rating(rng.randint(0, 9), rng.randint(0, 10**6)))
        records.setdefault(record.signature, (board, record))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "random.ctg"
        ctg.write_book(out, [r for _, r in records.values()])
        with ctg.open_book(out) as book:
            for board, record in records.values():
                found = book.probe(board)
                assert found is not None and found.to_bytes() == record.to_bytes()
                assert [m.move for m in found.moves] == [m.move for m in record.moves]
                assert spec_lookup(str(out)[:-4], spec_encode(board)) is not None


# --- conversions ----------------------------------------------------------------------------------------

def test_ctg_to_polyglot(tmp_path: Path, book_path: Path, expected: dict[str, Any]) -> None:
    out = tmp_path / "book.bin"
    summary = ctg.to_polyglot(book_path, out)
    assert "written" in summary
    with chess.polyglot.open_reader(out) as reader:
        entries = {e.move.uci(): e.weight for e in reader.find_all(chess.Board(), minimum_weight=0)}
    # after 1.e4 (expected-probes): 489 games, black won 195, lost 173, drew 116, 5 without result; for
    # white's 1.e4: 2 * 173 + 116 + 5 = 467
    after = next(f["probe"] for f in expected["found"] if f["fen"].startswith("rnbqkbnr/pppppppp/8/8/4P3/"))
    assert (after["games"], after["wins"], after["losses"], after["draws"]) == (489, 195, 173, 116)
    assert entries == {"e2e4": 467}
    # a ?-annotated move is kept with weight 0
    mistake = next(f for f in expected["found"] if any(m["annotation"] == 2 for m in f["probe"]["moves"]))
    board = chess.Board(mistake["fen"])
    move = next(m["uci"] for m in mistake["probe"]["moves"] if m["annotation"] == 2)
    with chess.polyglot.open_reader(out) as reader:
        weights = {e.move.uci(): e.weight for e in reader.find_all(board, minimum_weight=0)}
    assert weights.get(move) == 0


def test_polyglot_weight_rule() -> None:
    child = ctg.make_record(chess.Board(), [], games=10, wins=3, losses=5, draws=1)  # 1 without a result
    assert ctg.polyglot_weight(child) == 2 * 5 + 1 + 1
    assert ctg.polyglot_weight(child, 1) == 24 and ctg.polyglot_weight(child, 3) == 48
    assert ctg.polyglot_weight(child, 6) == 6 and ctg.polyglot_weight(child, 2) == 0
    assert ctg.polyglot_weight(None) == 1 and ctg.polyglot_weight(None, 4) == 0
    red = ctg.make_record(chess.Board(), [], games=10, losses=10, recommendation=0x40)
    assert ctg.polyglot_weight(red) == 0


def test_polyglot_to_ctg_and_back(tmp_path: Path) -> None:
    source = find_corpus("polyglot", "lasker-trap.bin")
    summary = ctg.from_polyglot(source, tmp_path / "lasker.ctg")
    assert "records" in summary
    ctg.to_polyglot(tmp_path / "lasker.ctg", tmp_path / "back.bin")
    with chess.polyglot.open_reader(source) as original, chess.polyglot.open_reader(tmp_path / "back.bin") as back:
        def walk(reader: Any) -> dict[tuple[int, str], int]:
            out, queue, seen = {}, [chess.Board()], set()
            while queue:
                board = queue.pop()
                for entry in reader.find_all(board, minimum_weight=0):
                    out[(chess.polyglot.zobrist_hash(board), entry.move.uci())] = entry.weight
                    child = board.copy()
                    child.push(entry.move)
                    if chess.polyglot.zobrist_hash(child) not in seen:
                        seen.add(chess.polyglot.zobrist_hash(child))
                        queue.append(child)
            return out
        assert walk(back) == walk(original)


def test_to_bookstats(book_path: Path) -> None:
    with ctg.open_book(book_path) as book:
        stats = book.to_bookstats()
    start = stats.positions[chess.Board().fen().rsplit(" ", 2)[0]]
    # 1.e4: the position after it has 489 games, black won 195 and lost 173: white's 1.e4 won 173, lost 195
    assert start.moves == {chess.Move.from_uci("e2e4"): MoveStats(489, 173, 116, 195)}
    assert stats.games == 499 and len(stats) > 1000


# --- command line ---------------------------------------------------------------------------------------

def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_probe(capsys: pytest.CaptureFixture[str], book_path: Path) -> None:
    code, out, _ = run(capsys, "probe", str(book_path), "--json")
    assert code == 0
    result = json.loads(out)
    assert result["position"]["games"] == 499 and result["position"]["wins"] == 176
    assert [(m["uci"], m["san"], m["weight"], m["games"]) for m in result["moves"]] == [("e2e4", "e4", 467, 489)]
    code, out, _ = run(capsys, "probe", str(book_path), "--moves", "e4", "c5", "Nc3")
    assert code == 0 and "g6" in out and "Nc6" in out and "games=440" in out
    code, out, _ = run(capsys, "probe", str(book_path), "--moves", "d4")
    assert code == 1 and "not in book" in out


def test_cli_inspect_record_by_fen(capsys: pytest.CaptureFixture[str], book_path: Path) -> None:
    code, out, _ = run(capsys, "inspect", str(book_path), "--fen", "startpos")
    assert code == 0
    prefix = "pages[237].records[54]"
    for square in ("a1", "e1", "h8"):
        assert f"{prefix}.position.board.squares.{square} " in out
    assert "a white rook (code 10110)" in out and "a black king (code 100001)" in out
    assert f"{prefix}.position.header.length" in out and f"{prefix}.stats.games" in out
    assert "=> e2e4 (e4)" in out and "= 499" in out
    code, out, _ = run(capsys, "inspect", str(book_path), "--moves", "e4", "--fen", "startpos")
    assert code == 0 and "colours flipped" in out and "=> c7c5 (c5)" in out


def test_cli_inspect_page_header_and_index(capsys: pytest.CaptureFixture[str], book_path: Path) -> None:
    code, out, _ = run(capsys, "inspect", str(book_path), "--page", "237", "--record", "54")
    assert code == 0 and "pages[237].records[54].position.board.squares.a1" in out
    code, out, _ = run(capsys, "inspect", str(book_path), "--page", "0")
    assert code == 0 and "pages[0].header.positions" in out and "pages[0].junk" in out
    assert out.count(".position.board.squares.h8 ") == 66  # page 0 of the corpus book holds 66 records
    code, out, _ = run(capsys, "inspect", str(book_path))
    assert code == 0 and "header.games" in out and "= 499" in out
    code, out, _ = run(capsys, "inspect", str(book_path)[:-4] + ".cto", "--record", "255", "--count", "2")
    assert code == 0 and "pages[255]" in out and "pages[256]" in out
    code, _, err = run(capsys, "inspect", str(book_path), "--page", "999")
    assert code == 2 and "page number out of range" in err


def test_cli_info_and_convert(capsys: pytest.CaptureFixture[str], tmp_path: Path, book_path: Path) -> None:
    code, out, _ = run(capsys, "info", str(book_path), "--json")
    report = json.loads(out)
    assert code == 0 and report["format"] == "ctg" and report["records"] == 13305 and report["games"] == 499
    code, out, _ = run(capsys, "convert", str(book_path), str(tmp_path / "out.bin"))
    assert code == 0 and (tmp_path / "out.bin").exists()
    code, out, _ = run(capsys, "convert", str(tmp_path / "out.bin"), str(tmp_path / "again.ctg"))
    assert code == 0 and (tmp_path / "again.cto").exists() and (tmp_path / "again.ctb").exists()
    code, out, _ = run(capsys, "probe", str(tmp_path / "again.ctg"), "--json")
    assert code == 0 and [m["uci"] for m in json.loads(out)["moves"]] == ["e2e4"]
    code, _, err = run(capsys, "convert", str(tmp_path / "out.bin"), str(tmp_path / "x.bin"))
    assert code == 2 and "cannot convert polyglot to polyglot" in err


def test_cli_formats_lists_ctg(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats")
    assert code == 0 and "ctg" in out


def test_docs_page_has_the_lookup_and_the_worked_example() -> None:
    page = (REPO_ROOT / "docs" / "formats" / "ctg.md").read_text(encoding="utf-8")
    assert "**Lookup.**" in page and "**Writing**" in page and "## Worked examples" in page
    assert "position.board.squares.e1" in page and "| `100000` | `white_king` | a white king |" in page



class _Builder:
    """What ``make_book`` needs of the book builder: ``to_stats()`` (the format-neutral model)."""

    def __init__(self, stats: BookStats) -> None:
        self.stats = stats

    def to_stats(self) -> BookStats:
        return self.stats


def test_make_book_filters_like_the_build_options(tmp_path: Path) -> None:
    stats = _example_stats()
    out = tmp_path / "built.ctg"
    ctg.make_book(out, _Builder(stats), min_games=2)
    with ctg.open_book(out) as book:
        start = book.probe(chess.Board())
        assert start is not None and [m.move.uci() for m in start.moves] == ["e2e4"]  # 1.f3 was played once
        assert book.header_games == 7
        for position in stats:
            found = book.probe(position.board())
            kept = {move for move, move_stats in position.moves.items() if move_stats.games >= 2}
            assert {m.move for m in found.moves} == kept if found is not None else not kept
    ctg.make_book(out, _Builder(_example_stats()), min_games=1, only=chess.BLACK)
    with ctg.open_book(out) as book:
        assert book.probe(chess.Board()) is None  # no white moves kept, and no move leads to the start
        after = chess.Board()
        after.push_san("e4")
        found = book.probe(after)
        assert found is not None and {m.move for m in found.moves} == set(
            stats.positions[after.fen(en_passant="legal").rsplit(" ", 2)[0]].moves)
    with pytest.raises(ValueError, match="uniform"):
        ctg.make_book(out, _Builder(stats), uniform=True)


def test_cli_build_a_ctg_book(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "games.ctg"
    code, _, err = run(capsys, "build", str(EXAMPLE_GAMES), "-o", str(out), "--max-ply", "12", "--min-games", "1",
                       "--jobs", "1")
    assert code == 0 and "written" in err and (tmp_path / "games.cto").exists()
    stats = _example_stats(12)
    with ctg.open_book(out) as book:
        start = book.probe(chess.Board())
        assert start is not None and {m.move for m in start.moves} == set(stats.positions[
            chess.Board().fen().rsplit(" ", 2)[0]].moves)
        # 1.e4 e5 is reached 7 times: five games play 1...e5, and the drawn game (2.Nf3 Nc6 3.Ng1 Nb8 4.Nf3 Nc6
        # 5.Ng1 Nb8) comes back to it twice
        after = chess.Board()
        for san in ("e4", "e5"):
            after.push_san(san)
        record = book.probe(after)
        assert record is not None and record.games == 7 and record.draws == 3
