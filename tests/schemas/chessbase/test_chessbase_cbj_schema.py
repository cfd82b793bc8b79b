""".cbj declarations (ChessBase extended game header): every record of every corpus base rebuilds byte for byte.

Expected values come from the layout morphy reads (Yarin78/morphy, ExtendedGameHeaderStorage: field order and
sizes), from hand arithmetic on the corpus bytes (``struct`` on the raw files) and from the ``.cbh`` records,
never from our own output.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from chessformats.engine.layout import describe
from chessformats.schemas import chessbase as schema
from conftest import find_corpus
from roundtrip import assert_rebuilds

WITH_CBJ = ("libcbh_Annotation", "libcbh_Chess960Biel", "libcbh_Chess960Corrupt", "libcbh_Chess960NonStandard",
            "libcbh_ManyPromotions", "libcbh_NonStandard", "libcbh_NormalGames", "libcbh_NormalNoPop",
            "libcbh_UnusualStart", "libcbh_WithVariations", "morphy_hedgehog", "morphy_linares_old",
            "morphy_test_annotations", "morphy_text", "uncbv_small", "uncbv_twic1134")
WRITTEN_BY_MORPHY = {"morphy_test_annotations"}  # morphy writes 0xFFFE where ChessBase writes its word sum


def _base(name: str) -> Path:
    folder = find_corpus("chessbase", name)
    (cbh,) = sorted(folder.glob("*.cbh"))
    return cbh.with_suffix("")


def test_sizes_and_offsets_follow_morphy() -> None:
    # morphy: 32-byte prolog; version 11 = 120 bytes, version 8 ends at 78 ("End of version 8 (78 bytes)")
    assert schema.CBJ_HEADER_SIZE == 32
    assert (schema.CBJ_RECORD.sizeof(), schema.CBJ_RECORD_V8.sizeof()) == (120, 78)
    offsets = {field.path: field.offset for field in describe(schema.CBJ_RECORD)}
    expected = {"white_team": 0, "black_team": 4, "media_offset": 8, "cba_offset": 12, "material_1": 22,
                "material_2": 26, "check_sum": 28, "cbg_offset": 30, "white_rating": 38, "black_rating": 54,
                "reserved_70": 70, "reserved_74": 74, "game_version": 78, "created": 80, "endgame": 88,
                "modified": 108, "game_tag": 116}
    assert {path: offsets[path] for path in expected} == expected
    assert schema.RATING_TYPE.sizeof() == 16 and schema.ENDGAME.sizeof() == 20 and schema.MATERIAL.sizeof() == 2


@pytest.mark.parametrize("size", [4, 8, 12, 20, 30, 38, 74, 78, 100, 120, 200])
def test_any_record_size_keeps_every_byte(size: int) -> None:
    data = bytes(range(size))
    con = schema.cbj_record(size)
    assert con.sizeof() == size
    record = assert_rebuilds(con, data, size=size)
    assert ("white_team" in record) == (size >= 4) and ("black_team" in record) == (size >= 8)
    assert ("extra" in record) == (size not in (4, 8, 12, 20, 30, 38, 54, 70, 74, 78, 120))


def test_hand_decoded_record() -> None:
    # libcbh_Annotation/TestBase.cbj, record 1 (bytes 32-151), decoded by hand from the hex
    raw = bytes.fromhex(
        "ffffffff" "ffffffff" "ffffffff" "000000000000001a" "0000" "8292" "0000" "8292" "053c" "000000000000001a"
        "0001000100" "4649444500000000000000" "0001000100" "4649444500000000000000" "00000000" "00000000"
        "0004" "00000081bec532dc" + "00" * 20 + "01f114a007f15992" "00000000")
    record = assert_rebuilds(schema.CBJ_RECORD, raw, size=120)
    assert (record.white_team, record.black_team, record.media_offset) == (-1, -1, -1)
    assert (record.cba_offset, record.cbg_offset) == (26, 26)
    # 0x8292 = 1000 001 010 010 010: 8 pawns, 1 queen, 2 knights, 2 bishops, 2 rooks (the starting material)
    material = record.material_1
    assert (material.pawns, material.queens, material.knights, material.bishops, material.rooks) == (8, 1, 2, 2, 2)
    assert str(record.white_rating.kind) == "international" and record.white_rating.name.rstrip(b"\0") == b"FIDE"
    assert str(record.white_rating.international_control) == "normal"
    assert (record.game_version, record.created, record.modified) == (4, 0x81BEC532DC, 0x01F114A007F15992)
    assert record.check_sum == (0xFFFF + 0xFFFF + 0x1A + 0x8292 + 0x8292) & 0xFFFF


def _cbj(name: str) -> tuple[bytes, bytes] | None:
    base = _base(name)
    path = base.with_suffix(".cbj")
    if not path.exists():
        return None
    return path.read_bytes(), base.with_suffix(".cbh").read_bytes()


@pytest.mark.parametrize("name", WITH_CBJ)
def test_every_record_round_trips(name: str) -> None:
    found = _cbj(name)
    assert found is not None
    data, cbh = found
    version, size, count = struct.unpack("<3I", data[:12])
    header = assert_rebuilds(schema.CBJ_HEADER, data[:32], size=32)
    assert (header.version, header.record_size, header.records) == (version, size, count)
    assert {11: 120, 8: 78}[version] == size
    assert len(data) == 32 + count * size  # the file holds exactly the records the header counts
    assert count == len(cbh) // 46 - 1  # one record per .cbh record
    con = schema.cbj_record(size)
    for number in range(1, count + 1):
        raw = data[32 + (number - 1) * size:32 + number * size]
        record = assert_rebuilds(con, raw, size=size)
        assert "extra" not in record
        cbh_record = cbh[46 * number:46 * number + 46]
        guiding_text = bool(cbh_record[0] & 2)
        # the offsets repeat the .cbh record's (bytes 1-4: .cbg offset; 5-8: .cba offset of a game)
        assert record.cbg_offset == struct.unpack(">I", cbh_record[1:5])[0]
        assert record.cba_offset == (0 if guiding_text else struct.unpack(">I", cbh_record[5:9])[0])
        assert record.reserved_20 == record.reserved_24 == 0
        words = sum(struct.unpack(">10H", raw[8:28])) & 0xFFFF
        if name in WRITTEN_BY_MORPHY:
            assert record.check_sum == 0xFFFE
        else:
            assert record.check_sum == words, f"record {number}"
        assert record.white_team >= -1 and record.black_team >= -1


@pytest.mark.parametrize("name", WITH_CBJ)
def test_team_numbers_index_the_cbe_file(name: str) -> None:
    found = _cbj(name)
    assert found is not None
    data, _ = found
    _, size, count = struct.unpack("<3I", data[:12])
    cbe = _base(name).with_suffix(".cbe")
    teams = struct.unpack("<I", cbe.read_bytes()[:4])[0] if cbe.exists() and cbe.stat().st_size else 0
    for number in range(count):
        white, black = struct.unpack(">2i", data[32 + number * size:40 + number * size])
        assert -1 <= white < teams and -1 <= black < teams


def test_a_base_without_cbj_exists_in_the_corpus() -> None:
    assert not _base("morphy_mate2_veryold").with_suffix(".cbj").exists()
