"""CTG books, reading: the reader against the corpus, the position and move codecs' properties, the hash and
the ``.cto`` lookup, records' polyglot weights.

Oracles: ``corpus/ctg/expected-probes.json`` (an independent reader), the spec (its hash code, ported
here literally with C's integer semantics, and its lookup loop, written here from the spec's text:
``tests/ctg_oracles.py``), python-chess (legality, ``Board.mirror()`` for the colour flip), construct's own
parse of every record, and hand arithmetic in comments. Nothing expected is copied from chessformats's own
output.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats import ctg
from chessformats.schemas import ctg as schema
from conftest import find_corpus
from ctg_oracles import (
    BOOK,
    c_gen_hash,
    corpus_records,
    expected_probes,
    positions,
    spec_encode,
    spec_entries,
    spec_hash_table,
    spec_lookup,
)


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return expected_probes()


@pytest.fixture(scope="module")
def book_path() -> Path:
    return find_corpus(*BOOK)


@pytest.fixture(scope="module")
def table() -> tuple[int, ...]:
    return spec_hash_table()


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
            assert book.record_offset(spec_encode(chess.Board(fen))) is None


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


@pytest.mark.slow
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
    # the bulk readers' look-up: the offset the notes' walk finds, through the .cto and in the pages given
    offset_of = {raw[:raw[0] & 0x1F]: offset for _, offset, raw in corpus_records(book_path)}
    with ctg.open_book(book_path) as book:
        for encoded in sample[:100]:
            page = pages_found[encoded]
            other = (page + 1) % book.data_pages
            assert book.record_offset(encoded) == book.record_offset(encoded, [other, page]) == offset_of[encoded]
            assert book.record_offset(encoded, [other]) is None


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


def _spec_reach(lower: int, upper: int) -> int:
    """The largest entry the spec's loop reads over every hash, by running it: below level ``k`` only the hash's
    low ``k`` bits matter, and no path goes past the level where ``n`` exceeds both bounds."""
    deepest = max(lower, upper, 1).bit_length() + 1
    return max((max(spec_entries(h, lower, upper), default=-1) for h in range(2 ** min(deepest, 31))), default=-1)


@given(st.integers(0, 700), st.integers(0, 700))
@settings(max_examples=150, deadline=None)
def test_highest_entry_read_is_the_spec_loops_reach(lower: int, upper: int) -> None:
    from chessformats.formats.ctg.position import highest_entry_read

    assert highest_entry_read(lower, upper) == _spec_reach(lower, upper)


def test_highest_entry_read_of_hostile_bounds_answers_at_once() -> None:
    from chessformats.formats.ctg.position import highest_entry_read

    # the corpus book: level 8's nodes 255..383 go on (below 384); the highest of their children on level 9 is
    # 511 + 384 (a hash with h & 511 = 384 = 256 + 128: its level-8 node 255 + 128 = 383 goes on)
    assert highest_entry_read(248, 384) == 895
    # nothing stops the loop: it reads every node down to level 30 (n = 2**30 - 1), the last one 2 * n
    assert highest_entry_read(0, 0xFFFFFFFF) == 2 * (2 ** 30 - 1)
    assert highest_entry_read(0xFFFFFFFF, 0xFFFFFFFF) == -1  # every node below the lower bound: none read
    assert highest_entry_read(0, 0) == 0  # the root is read, and stops the loop


@given(st.binary(max_size=40))
@settings(max_examples=300, deadline=None)
def test_hash_equals_the_c_code(table: tuple[int, ...], data: bytes) -> None:
    assert ctg.ctg_hash(data) == c_gen_hash(data)


def test_hash_by_hand(table: tuple[int, ...]) -> None:
    # one byte 0x00: tmp = ((15 - 0) << 2) + 1 = 61 -> tbl[61]; tmp = 61 + ((0xf0 - 0) >> 2) + 1 = 122 -> tbl[58]
    assert ctg.ctg_hash(b"\x00") == (table[61] + table[58]) & 0xFFFFFFFF == 0x3D08F9E4


# --- codec properties on random positions -----------------------------------------------------------

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

# --- records ------------------------------------------------------------------------------------------------

def test_polyglot_weight_rule() -> None:
    child = ctg.make_record(chess.Board(), [], games=10, wins=3, losses=5, draws=1)  # 1 without a result
    assert ctg.polyglot_weight(child) == 2 * 5 + 1 + 1
    assert ctg.polyglot_weight(child, 1) == 24 and ctg.polyglot_weight(child, 3) == 48
    assert ctg.polyglot_weight(child, 6) == 6 and ctg.polyglot_weight(child, 2) == 0
    assert ctg.polyglot_weight(None) == 1 and ctg.polyglot_weight(None, 4) == 0
    red = ctg.make_record(chess.Board(), [], games=10, losses=10, recommendation=0x40)
    assert ctg.polyglot_weight(red) == 0
