"""ChessBase declarations: every record of every corpus file parses and rebuilds byte for byte.

Expected values come from the spec (``specs/chessbase.ru.txt``), the notes and hand arithmetic on the
corpus bytes, never from our own output.
"""

from __future__ import annotations

import struct
from pathlib import Path

import construct as cs
import pytest

from chessformats.engine.tagged import TaggedUnion
from chessformats.engine.trace import trace
from chessformats.schemas import chessbase as schema
from conftest import find_corpus
from roundtrip import assert_rebuilds

SETS = ("libcbh_Annotation", "libcbh_Chess960Biel", "libcbh_Chess960Corrupt", "libcbh_Chess960NonStandard",
        "libcbh_ManyPromotions", "libcbh_NonStandard", "libcbh_NormalGames", "libcbh_NormalNoPop",
        "libcbh_UnusualStart", "libcbh_WithVariations", "morphy_hedgehog", "morphy_linares_old",
        "morphy_mate2_veryold", "morphy_test_annotations", "morphy_text", "uncbv_small", "uncbv_twic1134")


def _base(name: str) -> Path:
    folder = find_corpus("chessbase", name)
    (cbh,) = sorted(folder.glob("*.cbh"))
    return cbh.with_suffix("")


def test_sizes_match_the_spec() -> None:
    # spec: 46-byte header and records; entity records 67/99/62/68/72 bytes
    assert (schema.CBH_HEADER_SIZE, schema.CBH_RECORD_SIZE) == (46, 46)
    sizes = {ext: con.sizeof() for ext, con in schema.ENTITY_RECORDS.items()}
    assert sizes == {".cbp": 67, ".cbt": 99, ".cbc": 62, ".cbs": 68, ".cbe": 72}
    assert len(schema.NATIONS) == 247 and schema.NATIONS[0] == "AFG" and schema.NATIONS[-1] == "LIB"


@pytest.mark.parametrize("name", SETS)
def test_every_record_round_trips(name: str) -> None:
    base = _base(name)
    cbh = base.with_suffix(".cbh").read_bytes()
    header = assert_rebuilds(schema.CBH_HEADER, cbh[:46], size=46)
    count = len(cbh) // 46 - 1
    assert header.next_game_id == count + 1  # spec: number of games + 1
    cbg = base.with_suffix(".cbg").read_bytes()
    cba = base.with_suffix(".cba").read_bytes()
    for data in (cbg, cba):
        store = schema.STORE_HEADER.parse(data)
        assert store.file_size == len(data)
        assert_rebuilds(schema.STORE_HEADER, data[:int(store.header_size)], size=cs.SizeofError)
    for number in range(1, count + 1):
        raw = cbh[46 * number:46 * number + 46]
        record = assert_rebuilds(schema.CBH_RECORD, raw, size=46)
        assert record.kind.present and not record.kind.deleted
        start = record.cbg_offset
        size = struct.unpack(">I", cbg[start:start + 4])[0] & 0xFFFFFF
        if record.kind.guiding_text:
            data = assert_rebuilds(schema.TEXT_DATA, cbg[start:start + size], size=cs.SizeofError)
            assert data.word.not_encoded
            continue
        assert_rebuilds(schema.GAME_RECORD, raw, size=46)
        game = assert_rebuilds(schema.GAME_DATA, cbg[start:start + size], size=cs.SizeofError)
        assert not game.word.not_encoded and game.word.mode in (0, 1, 4, 5, 10)
        if record.body.cba_offset:
            start = record.body.cba_offset
            size = struct.unpack(">I", cba[start + 10:start + 14])[0]
            annotations = assert_rebuilds(schema.ANNOTATION_RECORD, cba[start:start + size], size=cs.SizeofError)
            # the game number, except in morphy_test_annotations (written by another program): 0 there
            assert annotations.game == (0 if name == "morphy_test_annotations" else number)
            assert annotations.count == len(annotations.entries) + 1
    for extension, declaration in schema.ENTITY_RECORDS.items():
        data = base.with_suffix(extension).read_bytes() if base.with_suffix(extension).exists() else None
        if data is None:
            assert extension == ".cbe" and name == "morphy_mate2_veryold"  # the very old base has no teams
            continue
        head = schema.ENTITY_HEADER.parse(data)
        assert head.extra_space in (0, 4)
        header_size = 28 + head.extra_space
        assert_rebuilds(schema.ENTITY_HEADER, data[:header_size], size=cs.SizeofError)
        assert head.record_data_size + 9 == declaration.sizeof()
        assert len(data) == header_size + head.records * declaration.sizeof()
        for index in range(head.records):
            start = header_size + index * declaration.sizeof()
            assert_rebuilds(declaration, data[start:start + declaration.sizeof()],
                            size=head.record_data_size + 9)


def test_old_base_variants() -> None:
    # notes: old bases have header bytes-used 36 and 28-byte entity headers; .cbg/.cba headers 10 bytes
    base = _base("morphy_linares_old")
    header = schema.CBH_HEADER.parse(base.with_suffix(".cbh").read_bytes()[:46])
    assert header.header_variant == "old" and header.next_game_id_2 == 0
    assert schema.STORE_HEADER.parse(base.with_suffix(".cbg").read_bytes()).header_size == "old"
    assert schema.ENTITY_HEADER.parse(base.with_suffix(".cbp").read_bytes()).extra_space == 0


def test_game_record_fields_by_hand() -> None:
    # BielMTO game 1 (bytes in the docs example): 0x0fd2ee = year 0x0fd2ee >> 9 = 2025? no: 2025 = 0x7e9
    raw = bytes.fromhex("010000001a0000001a0000000000010000000000000000000fd2ee020001010a5a085f0000000000c00000000018")
    record = schema.CBH_RECORD.parse(raw)
    assert record.cbg_offset == 26 and record.body.cba_offset == 26
    assert record.body.white == 0 and record.body.black == 1
    assert (record.body.date.year, record.body.date.month, record.body.date.day) == (
        0x0FD2EE >> 9, (0x0FD2EE >> 5) & 15, 0x0FD2EE & 31)
    assert record.body.result == "white_wins"
    assert (record.body.white_elo, record.body.black_elo) == (0x0A5A, 0x085F)
    assert record.body.moves == 0x18
    assert record.body.flags.variations is False


def test_setup_and_chess960_head() -> None:
    # Chess960NonStandard game 1: mode 10, setup, kings e1/e8, rooks g1 a1 g8 a8, start position 253
    data = find_corpus("chessbase", "libcbh_Chess960NonStandard", "Chess960NonStandard.cbg").read_bytes()
    head = schema.GAME_DATA_HEAD.parse(data[26:])
    assert head.word.mode == 10 and head.word.setup and head.word.size == 0x3D
    assert head.setup.castling.white_short and head.setup.first_move == 1
    c960 = head.chess960
    assert (c960.white_king, c960.black_king) == (4 * 8, 4 * 8 + 7)
    assert (c960.white_rook_short, c960.white_rook_long, c960.black_rook_short, c960.black_rook_long) == (
        6 * 8, 0, 6 * 8 + 7, 7)
    assert c960.start_position == 253  # the source PGN's comment: "Schach 960-Stellung 253"


def test_annotation_items_by_hand() -> None:
    # libcbh_Annotation game 4: text before (English), text after, German text after (language 0x35)
    data = find_corpus("chessbase", "libcbh_Annotation", "TestBase.cba").read_bytes()
    record = schema.ANNOTATION_RECORD.parse(data[0x12A:])
    assert record.game == 4 and len(record.entries) == 3
    before, after, german = record.entries
    assert before.type == "text_before" and before.body.text == b"This is a text before move comment"
    assert after.type == "text_after" and after.body.text == b"This is a text after move comment"
    assert german.body.language == "german" and german.body.text.startswith(b"Dieser Text")


def test_unknown_annotation_type_is_kept_raw() -> None:
    item = bytes.fromhex("ffffff") + bytes([0x7E]) + (9).to_bytes(2, "big") + b"\x01\x02\x03"
    parsed = assert_rebuilds(schema.ANNOTATION_ITEM, item, size=cs.SizeofError)
    assert parsed.position == -1 and parsed.type == 0x7E and parsed.body.data == b"\x01\x02\x03"


def test_union_is_traced_field_by_field() -> None:
    raw = bytes.fromhex("010000001a0000001a0000000000010000000000000000000fd2ee020001010a5a085f0000000000c00000000018")
    _, fields = trace(schema.CBH_RECORD, raw)
    paths = {f.path: f for f in fields}
    assert paths["body.white_elo"].start == 31 and paths["body.white_elo"].value == 0x0A5A  # spec: offset 31
    assert paths["body.moves"].start == 45


def test_tagged_union_without_default_rejects_unknown_tag() -> None:
    union = cs.Struct("tag" / cs.Int8ub, "body" / TaggedUnion(cs.this.tag, {1: cs.Struct("x" / cs.Int8ub)},
                                                              default=None))
    assert union.parse(b"\x01\x05").body.x == 5
    with pytest.raises(cs.ConstructError):
        union.parse(b"\x02\x05")
