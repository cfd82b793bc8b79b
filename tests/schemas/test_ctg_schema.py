"""The CTG declarations checked against the specification (specs/ctg.ru.txt), the notes and real files.

Expected values come from the spec text (parsed here, not copied from the code under test), from the
corpus (expected-probes.json, the files themselves) or from hand arithmetic written out in comments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import construct as cs
import pytest

from chessformats.engine import FormatError, describe, trace
from chessformats.schemas import ctg as schema
from chessformats.schemas.squares import SQUARE_CODE, SQUARE_NAMES
from conftest import REPO_ROOT
from roundtrip import assert_rebuilds

# The start position's record of PowerPlay17-Sicilienne.ctg (data page 237, record 54, offset 977919).
START_RECORD = bytes.fromhex(
    "56b60f7960f3a60f58b078e0c1e1a60f5960f3b60f7f035f000001f30000b00000c900007400000942000187000d6400000184000d"
    "849d14fd00")
START_OFFSET = 977919


@cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def spec(spec_path: Callable[..., Path]) -> str:
    return _text(spec_path("ctg.ru.txt"))


@pytest.fixture(scope="module")
def expected(corpus_path: Callable[..., Path]) -> dict[str, object]:
    data: dict[str, object] = json.loads(_text(corpus_path("ctg", "expected-probes.json")))
    return data


# --- tables against the spec --------------------------------------------------------------------------

PIECES = {"пешка": "pawn", "конь": "knight", "слон": "bishop", "ладья": "rook", "ферзь": "queen", "король": "king"}


def spec_move_table(text: str) -> dict[int, tuple[str, int, int, int, str | None]]:
    """``- 0xEC: 1-я пешка, y+1`` ... ``- 0xF6: король, O-O-O.``: code -> (piece, number, dx, dy, castling)."""
    rows = re.findall(r"^- 0x([0-9A-F]{2}): (?:(\d)-(?:я|й) )?(пешка|конь|слон|ладья|ферзь|король),? ?(.*?)\.?$",
                      text, re.MULTILINE)
    table: dict[int, tuple[str, int, int, int, str | None]] = {}
    for code, number, piece, rest in rows:
        dx = dy = 0
        castling = None
        for part in rest.split(" (")[0].split(","):
            part = part.strip()
            if part.startswith("x+"):
                dx = int(part[2:])
            elif part.startswith("y+"):
                dy = int(part[2:])
            elif part in ("O-O", "O-O-O"):
                castling = part
        table[int(code, 16)] = (PIECES[piece], int(number or 1), dx, dy, castling)
    return table


def test_move_codes_are_the_spec_table(spec: str) -> None:
    table = spec_move_table(spec)
    assert len(table) == 166
    declared = {m.code: m for m in schema.MOVE_CODES}
    assert set(declared) == set(table)
    for code, (piece, number, dx, dy, castling) in table.items():
        move = declared[code]
        assert (move.piece, move.number) == (piece, number), hex(code)
        if castling:  # the king's two-file step: e1g1 is x+2, e1c1 is x+6 (two files left, modulo 8)
            assert (move.dx, move.dy) == ((2, 0) if castling == "O-O" else (6, 0)), hex(code)
        else:
            assert (move.dx, move.dy) == (dx, dy), hex(code)
    # no two codes share a move, so a writer has exactly one code per move
    assert len({(m.piece, m.number, m.dx, m.dy) for m in schema.MOVE_CODES}) == 166


def test_the_doubtful_queen_codes_follow_the_spec_reading(spec: str) -> None:
    # "0x1A: 2-й ферзь, y+6 (возможно, его надо поменять на 0xF9...)" and "0xF9: 2-й ферзь, x+6 (...)"
    assert "0x1A: 2-й ферзь, y+6" in spec and "0xF9: 2-й ферзь, x+6" in spec
    declared = {m.code: m for m in schema.MOVE_CODES}
    assert (declared[0x1A].dx, declared[0x1A].dy) == (0, 6)
    assert (declared[0xF9].dx, declared[0xF9].dy) == (6, 0)


def test_square_codes_are_the_spec_codes(spec: str) -> None:
    # "- 0 - Пустая клетка", "- 11c - пешка (c = 1 означает чёрную пешку...)", "- 1011c - ладья." ...
    listed = dict(re.findall(r"^- ([01]+c?) - (Пустая клетка|пешка|ладья|слон|конь|ферзь|король)", spec, re.MULTILINE))
    assert len(listed) == 7
    for word, piece in listed.items():
        if piece == "Пустая клетка":
            assert SQUARE_CODE.bits("empty") == word
            continue
        name = PIECES[piece]
        assert SQUARE_CODE.bits(f"white_{name}") == word[:-1] + "0"
        assert SQUARE_CODE.bits(f"black_{name}") == word[:-1] + "1"
    assert len(SQUARE_CODE.codes) == 13 and SQUARE_CODE.complete  # every bit string decodes


def test_square_order_is_file_by_file(spec: str) -> None:
    assert "a1, a2, ..., a8, b1, ..., b8, ..., h8" in spec
    assert SQUARE_NAMES[:9] == ("a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "b1") and SQUARE_NAMES[-1] == "h8"


def test_hash_table_is_the_spec_table(spec: str) -> None:
    start = spec.index("unsigned int tbl[]")
    values = [int(v, 16) for v in re.findall(r"0x([0-9a-f]{8})", spec[start:spec.index("};", start)])]
    assert tuple(values) == schema.HASH_TABLE and len(values) == 64


def test_annotation_and_comment_values_of_the_spec(spec: str) -> None:
    section = spec[spec.index("Возможные значения для байта аннотации"):spec.index("Статистика")]
    annotations = {int(v, 16) for v in re.findall(r"^- 0x([0-9A-F]{2}):", section, re.MULTILINE)}
    assert annotations == {a.value for a in schema.ANNOTATIONS}
    section = spec[spec.index("Комментарий к позиции"):spec.index("Файл CTB")]
    comments = {int(v, 16) for v in re.findall(r"^- 0x([0-9A-F]{2}):", section, re.MULTILINE)}
    # the declared table adds 0x0a (found in the corpus) and 0x12 (the NAG the spec's list skips)
    assert {c.value for c in schema.COMMENTS} == comments | {0x0A, 0x12}


def test_annotations_found_in_the_corpus_are_declared(expected: dict[str, list[dict[str, object]]]) -> None:
    values = set()
    comments = set()
    for found in expected["found"]:
        probe: dict[str, object] = found["probe"]  # type: ignore[assignment]
        values |= {move["annotation"] for move in probe["moves"]}  # type: ignore[attr-defined]
        comments.add(probe["comment"])
    assert values <= {a.value for a in schema.ANNOTATIONS}
    assert comments <= {c.value for c in schema.COMMENTS} and 10 in comments


# --- layouts --------------------------------------------------------------------------------------------

def test_statistics_layout_matches_the_notes(spec: str) -> None:
    # notes/ctg.md: games(3) wins(3) losses(3) draws(3) unknown(4) rating1 games(3) rating1 sum(4) rating2
    # games(3) rating2 sum(4) recommendation(1) unknown(1) comment(1) = 33 bytes
    rows = {row.path: (row.offset, row.size) for row in describe(schema.STATS)}
    assert rows["games"] == (0, 3) and rows["wins"] == (3, 3) and rows["losses"] == (6, 3)
    assert rows["draws"] == (9, 3) and rows["unknown1"] == (12, 4)
    assert rows["rating1.games"] == (16, 3) and rows["rating1.total"] == (19, 4)
    assert rows["rating2.games"] == (23, 3) and rows["rating2.total"] == (26, 4)
    assert rows["recommendation"] == (30, 1) and rows["unknown2"] == (31, 1) and rows["comment"] == (32, 1)
    assert schema.STATS.sizeof() == 33
    # the spec: "1-й бит (& 0x80) --- ... зелёным", "2-й бит (& 0x40) --- ... красным"
    assert "(& 0x80)" in spec and "(& 0x40)" in spec
    assert schema.RECOMMENDATION.parse(b"\x80").green and schema.RECOMMENDATION.parse(b"\x40").red


def test_page_header_and_header_page_layout(spec: str) -> None:
    assert "Смещение 28, длина 4 б --- общее число партий" in spec
    rows = {row.path: (row.offset, row.size) for row in describe(schema.HEADER_PAGE)}
    assert rows["games"] == (28, 4) and rows["unknown_1024"] == (1024, 32) and rows["unknown_2048"] == (2048, 32)
    assert schema.HEADER_PAGE.sizeof() == schema.PAGE_SIZE == 4096
    assert schema.PAGE_HEADER.sizeof() == 4
    ctb = {row.path: (row.offset, row.size) for row in describe(schema.CTB)}
    assert ctb["lower_bound"] == (4, 4) and ctb["upper_bound"] == (8, 4)  # "Смещение 4 ... Смещение 8"
    assert schema.CTO_HEADER.sizeof() == 16


def test_header_byte_bits_match_the_notes() -> None:
    # bits 0-4 length, 0x20 en passant, 0x40 castling: 0x56 = 0101 0110 = castling, no ep, length 22
    header = schema.POSITION_HEADER.parse(b"\x56")
    assert (header.length, header.has_en_passant, header.has_castling, header.unused) == (22, False, True, 0)
    header = schema.POSITION_HEADER.parse(b"\x36")  # 0011 0110 = ep, no castling, length 22
    assert (header.length, header.has_en_passant, header.has_castling) == (22, True, False)


# --- the start position record, by hand ------------------------------------------------------------------

def test_start_record_parses_to_the_expected_probe(expected: dict[str, list[dict[str, object]]]) -> None:
    record = assert_rebuilds(schema.RECORD, START_RECORD, size=cs.SizeofError)
    probe: dict[str, object] = expected["found"][0]["probe"]  # type: ignore[assignment]
    assert expected["found"][0]["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    stats = record.stats
    assert [stats.games, stats.wins, stats.losses, stats.draws, stats.unknown1] == [
        probe["games"], probe["wins"], probe["losses"], probe["draws"], probe["unknown1"]]
    assert [stats.rating1.games, stats.rating1.total] == probe["rating1"]
    assert [stats.rating2.games, stats.rating2.total] == probe["rating2"]
    assert stats.unknown2 == probe["unknown2"] and int(stats.comment) == probe["comment"]
    byte = schema.RECOMMENDATION.build(stats.recommendation)[0]
    assert byte == probe["recommendation"]
    moves = [(int(m.code), int(m.annotation)) for m in record.moves.moves]
    assert moves == [(m["code"], m["annotation"]) for m in probe["moves"]]  # type: ignore[attr-defined]
    # 0x5f = 95: "5-я пешка, y+2" (the e-pawn is the 5th in file order): e2e4
    assert record.moves.moves[0].code == "pawn5_y2" and record.moves.length == 3


def test_start_record_board_by_hand() -> None:
    record = schema.RECORD.parse(START_RECORD)
    board = record.position.board
    # file a from a1: rook, pawn, 4 empty, pawn, rook: 10110 110 0000 111 10111; the whole start position
    # takes 4 rooks * 5 + 4 knights * 5 + 4 bishops * 5 + 2 queens * 6 + 2 kings * 6 + 16 pawns * 3 + 32 = 164
    # bits; 8 + 164 = 172; with the 4 castling bits the position ends at byte ceil(176 / 8) = 22: padding 0
    assert board.squares[:8] == ["white_rook", "white_pawn", "empty", "empty", "empty", "empty", "black_pawn",
                                 "black_rook"]
    assert board.squares[32] == "white_king" and board.squares[31] == "black_queen"  # e1, d8
    assert SQUARE_CODE.bit_length(board.squares) == 164 and board.padding == 0
    assert board.en_passant_file is None
    assert {name: board.castling[name] for name in ("black_short", "black_long", "white_short", "white_long")} \
        == {"black_short": True, "black_long": True, "white_short": True, "white_long": True}


def test_trace_reports_every_square() -> None:
    _, fields = trace(schema.RECORD, START_RECORD, offset=START_OFFSET, path="pages[237].records[54]")
    squares = [f for f in fields if f.path.startswith("pages[237].records[54].position.board.squares.")]
    assert [f.name for f in squares] == list(SQUARE_NAMES)
    # a1 is the first 5 bits after the header byte: byte 977920 bits 0-4 (0xb6 = 1011 0110 -> 10110)
    assert (squares[0].bit_start, squares[0].bit_end) == (8 * 977920, 8 * 977920 + 5)
    assert squares[0].value == "white_rook" and "code 10110" in squares[0].meaning
    assert sum(f.bit_end - f.bit_start for f in squares if f.bit_end and f.bit_start) == 164  # type: ignore[operator]
    paths = {f.path for f in fields}
    for path in ("position.header.length", "position.board.padding", "position.board.castling.white_long",
                 "moves.moves[0].code", "stats.rating2.total", "stats.recommendation.green", "stats.comment"):
        assert f"pages[237].records[54].{path}" in paths, path


def test_record_with_en_passant_by_hand() -> None:
    example = schema.FORMAT.examples[1].data
    record = assert_rebuilds(schema.RECORD, example, size=cs.SizeofError)
    # header 0x36: ep, no castling, 22 bytes; the ep file is the last 3 bits of byte 21: 0xe2 & 7 = 2 (file c)
    assert example[21] == 0xE2 and record.position.board.en_passant_file == 2
    assert record.position.board.castling is None
    assert [int(m.code) for m in record.moves.moves] == [0x96, 0x06]


# --- malformed records through the tracer ---------------------------------------------------------------

def test_truncated_board_is_located() -> None:
    # length 10 leaves 72 bits for 64 squares of the start position (164 bits): the squares run out
    data = bytes((0x40 | 10,)) + START_RECORD[1:10]
    with pytest.raises(FormatError) as caught:
        trace(schema.POSITION, data, offset=100, path="pages[0].records[0].position")
    assert caught.value.path is not None and "squares" in caught.value.path
    assert caught.value.offset is not None and 100 <= caught.value.offset < 110


def test_zero_length_position_is_located() -> None:
    with pytest.raises(FormatError) as caught:
        trace(schema.POSITION, b"\x00", offset=7, path="p")
    assert caught.value.offset is not None and caught.value.path == "p.board"


# --- every page of the corpus ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["PowerPlay17-Sicilienne.ctg", "simple.ctg"])
def test_every_page_parses_and_builds_back(corpus_path: Callable[..., Path], name: str) -> None:
    data = corpus_path("ctg", name).read_bytes()
    header = assert_rebuilds(schema.HEADER_PAGE, data[:4096], size=4096)
    pages = len(data) // 4096 - 1
    assert header.data_pages == pages
    records = 0
    for page in range(pages):
        raw = data[4096 * (page + 1):4096 * (page + 2)]
        parsed = schema.PAGE.parse(raw)
        assert schema.PAGE.build(parsed) == raw, page
        assert len(parsed.records) == parsed.header.positions
        records += len(parsed.records)
    # corpus README: 13,305 records in PowerPlay17; SOURCES.md: 4 positions in simple.ctg
    assert records == {"PowerPlay17-Sicilienne.ctg": 13305, "simple.ctg": 4}[name]


def test_ctb_and_cto_of_the_corpus_round_trip(corpus_path: Callable[..., Path]) -> None:
    ctb = corpus_path("ctg", "PowerPlay17-Sicilienne.ctb").read_bytes()
    parsed = assert_rebuilds(schema.CTB, ctb, size=cs.SizeofError)
    assert (parsed.lower_bound, parsed.upper_bound) == (0xF8, 0x180)  # 00 00 00 f8, 00 00 01 80 in the file
    cto = corpus_path("ctg", "PowerPlay17-Sicilienne.cto").read_bytes()
    table = assert_rebuilds(schema.CTO, cto, size=cs.SizeofError)
    assert table.header.entries == (len(cto) - 16) // 4 == 892 and table.trailing == b""
    used = [page for page in table.pages if page != -1]
    assert sorted(used) == list(range(257))  # every data page once; the rest empty


def test_example_bytes_are_corpus_bytes(corpus_path: Callable[..., Path]) -> None:
    data = corpus_path("ctg", "PowerPlay17-Sicilienne.ctg").read_bytes()
    assert data[START_OFFSET:START_OFFSET + len(START_RECORD)] == START_RECORD
    assert schema.FORMAT.examples[0].data == START_RECORD
    example = schema.FORMAT.examples[1].data
    assert data[46636:46636 + len(example)] == example
    assert schema.FORMAT.examples[2].data == corpus_path("ctg", "PowerPlay17-Sicilienne.ctb").read_bytes()


def _defaults(declaration: cs.Construct) -> dict[str, object]:
    """The declared defaults (construct's ``Default``) of a struct's fields, by name."""
    found = {}
    for sub in declaration.subcons:
        inner = sub
        while isinstance(inner, cs.Renamed):
            inner = inner.subcon
        if isinstance(inner, cs.Default):
            found[sub.name] = inner.value
    return found


def test_header_page_defaults_are_what_both_books_share(corpus_path: Callable[..., Path]) -> None:
    first = schema.HEADER_PAGE.parse(corpus_path("ctg", "PowerPlay17-Sicilienne.ctg").read_bytes()[:4096])
    second = schema.HEADER_PAGE.parse(corpus_path("ctg", "simple.ctg").read_bytes()[:4096])
    defaults = _defaults(schema.HEADER_PAGE)
    # every field but the three counts has a default
    assert sorted(defaults) == sorted(set(first) - {"_io", "data_pages", "positions", "games"})
    for name, value in defaults.items():
        if name != "unknown_2048":  # differs between the two books; written as zeros like simple.ctg's
            assert first[name] == second[name] == value, name
    assert second["unknown_2048"] == defaults["unknown_2048"] == bytes(32)
    ctb = schema.CTB.parse(corpus_path("ctg", "PowerPlay17-Sicilienne.ctb").read_bytes())
    assert ctb.unknown_0 == _defaults(schema.CTB_HEAD)["unknown_0"] == _defaults(schema.CTB)["unknown_0"]
    assert _defaults(schema.CTB)["rest"] == bytes(48) and len(ctb.rest) == 48
    cto = schema.CTO_HEADER.parse(corpus_path("ctg", "PowerPlay17-Sicilienne.cto").read_bytes()[:16])
    assert _defaults(schema.CTO_HEADER) == {"unknown_0": cto.unknown_0, "unknown_8": 0} and cto.unknown_8 == 0
    assert cto.unknown_12 == ctb.lower_bound


def test_defaults_fill_what_a_writer_leaves_out() -> None:
    header = schema.HEADER_PAGE.build({"data_pages": 1, "positions": 2, "games": 3})
    assert len(header) == schema.PAGE_SIZE and header[:16].hex() == "00201000000100010000" "1000" "7fff" "7fff"
    assert header[16:32] == bytes.fromhex("00000001" "ffffffff" "00000002" "00000003")
    ctb = schema.CTB.build({"lower_bound": 248, "upper_bound": 384})
    assert ctb == bytes.fromhex("000c0001" "000000f8" "00000180") + bytes(48)
    assert schema.CTB_HEAD.parse(ctb) == schema.CTB_HEAD.parse(schema.FORMAT.examples[2].data)
    cto = schema.CTO.build({"header": {"entries": 2, "unknown_12": 248}, "pages": [7, -1]})
    assert cto == bytes.fromhex("00100001" "00000002" "00000000" "000000f8" "00000007" "ffffffff")


def test_every_declaration_round_trips(corpus_path: Callable[..., Path]) -> None:
    """assert_rebuilds on each declaration, with bytes of the corpus book."""
    data = corpus_path("ctg", "PowerPlay17-Sicilienne.ctg").read_bytes()
    page = data[4096 * 238:4096 * 239]  # data page 237, which holds the start position
    assert_rebuilds(schema.PAGE, page, size=cs.SizeofError)
    assert_rebuilds(schema.PAGE_HEADER, page[:4], size=4)
    position = START_RECORD[:22]
    assert_rebuilds(schema.POSITION, position, size=cs.SizeofError)
    assert_rebuilds(schema.POSITION_HEADER, position[:1], size=1)
    assert_rebuilds(schema.MOVES, START_RECORD[22:25], size=cs.SizeofError)
    assert_rebuilds(schema.MOVE, START_RECORD[23:25], size=2)
    stats = START_RECORD[25:]
    assert_rebuilds(schema.STATS, stats, size=33)
    assert_rebuilds(schema.RATING, stats[16:23], size=7)
    assert_rebuilds(schema.RECOMMENDATION, stats[30:31], size=1)
    cto = corpus_path("ctg", "PowerPlay17-Sicilienne.cto").read_bytes()
    assert_rebuilds(schema.CTO_HEADER, cto[:16], size=16)
    assert_rebuilds(schema.CTO_ENTRY, cto[16:20], size=4)


def test_docs_page_has_the_lookup_and_the_worked_example() -> None:
    page = (REPO_ROOT / "docs" / "formats" / "ctg.md").read_text(encoding="utf-8")
    assert "**Lookup.**" in page and "**Writing**" in page and "## Worked examples" in page
    assert "position.board.squares.e1" in page and "| `100000` | `white_king` | a white king |" in page
