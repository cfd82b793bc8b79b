"""ChessBase ``.cbj`` (extended game header): teams, rating types, final material, timestamps; robustness.

Expected values come from the bases' source PGNs (``WhiteTeam``/``BlackTeam`` tags), from python-chess playing
the decoded main line, from facts outside the files (TWIC 1134 was published on 2016-08-01) and from hand
arithmetic, never from our own output.
"""

from __future__ import annotations

import mmap
import random
import struct
from datetime import datetime, timezone
from pathlib import Path

import chess
import chess.pgn
import pytest

from chessbase_corpus import cbh_path, copy_base
from chessformats import chessbase
from chessformats.cli.chessbase import HANDLER
from chessformats.engine.errors import FormatError, InvalidValueError, TruncatedError
from chessformats.engine.layout import describe
from chessformats.formats.chessbase import export_pgn
from chessformats.schemas import chessbase as schema
from conftest import find_corpus

# bases whose source PGN has WhiteTeam/BlackTeam tags, and that PGN; games in the same order as the .cbh
TEAM_SOURCES = {"libcbh_NormalGames": "BielMTO.pgn", "libcbh_Chess960Biel": "Chess960.pgn",
                "libcbh_UnusualStart": "UnusualStart.pgn"}


def _source_teams(name: str) -> list[tuple[str | None, str | None]]:
    teams = []
    with find_corpus("chessbase", name, TEAM_SOURCES[name]).open(encoding="utf-8", errors="replace") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            teams.append((headers.get("WhiteTeam"), headers.get("BlackTeam")))
    return teams


@pytest.mark.parametrize("name", sorted(TEAM_SOURCES))
def test_teams_equal_the_source_pgn(name: str) -> None:
    expected = _source_teams(name)
    assert any(white for white, _ in expected)
    with chessbase.open_database(cbh_path(name)) as db:
        assert len(db) == len(expected)
        for number, (white, black) in enumerate(expected, 1):
            game = db.record(number)
            assert isinstance(game, chessbase.GameHeader)
            assert (game.white_team, game.black_team) == (white, black), f"game {number}"
            assert (game.headers.get("WhiteTeam"), game.headers.get("BlackTeam")) == (white, black)
            # the names come from the fast read of the team fields: it agrees with the parsed record
            extended = game.extended
            assert extended is not None
            assert db.team_numbers(number) == (extended.white_team, extended.black_team)


def test_team_number_is_shown_in_roman_numerals() -> None:
    # UnusualStart.pgn (ChessBase's export) names game 9's black team "Eppingen II"; the .cbe record's title is
    # "Eppingen" and its team number (bytes 54-55, little-endian) is 2
    cbe = cbh_path("libcbh_UnusualStart").with_suffix(".cbe").read_bytes()
    record = cbe[32 + 72:32 + 144]
    assert record[9:18] == b"Eppingen\0" and struct.unpack("<H", record[54:56]) == (2,)
    assert _source_teams("libcbh_UnusualStart")[8] == ("Zaehringen", "Eppingen II")


def test_exported_pgn_carries_the_team_tags(tmp_path: Path) -> None:
    target = tmp_path / "out.pgn"
    written, failed = export_pgn(cbh_path("libcbh_Chess960Biel"), target, annotations=False)
    assert written == 188 and not failed
    ours = []
    with target.open(encoding="utf-8") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            ours.append((headers.get("WhiteTeam"), headers.get("BlackTeam")))
    assert ours == _source_teams("libcbh_Chess960Biel")


def test_a_base_without_cbj_opens() -> None:
    cbh = cbh_path("morphy_mate2_veryold")
    assert not cbh.with_suffix(".cbj").exists()
    with chessbase.open_database(cbh) as db:
        assert len(db.extended) == 0
        for game in db:
            assert isinstance(game, chessbase.GameHeader)
            assert game.extended is None and game.white_team is None and game.black_team is None
            assert "WhiteTeam" not in game.headers


def test_the_cbj_is_mapped_not_read() -> None:
    with chessbase.open_database(cbh_path("uncbv_twic1134")) as db:
        assert db._extended is None  # opened lazily
        assert db[1].extended is not None
        assert isinstance(db.extended._data, mmap.mmap)


def _pieces(board: chess.Board, colour: chess.Color) -> str:
    counts = [len(board.pieces(piece, colour)) for piece in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)]
    pawns = len(board.pieces(chess.PAWN, colour))
    pieces = "".join(letter * count for letter, count in zip("QRBN", counts, strict=True))
    return pieces + (f"{pawns}P" if pawns else "")


def _order(board: chess.Board, colour: chess.Color) -> tuple[int, ...]:
    return tuple(len(board.pieces(piece, colour)) for piece in (chess.PAWN, chess.QUEEN, chess.KNIGHT,
                                                                 chess.BISHOP, chess.ROOK))


# morphy_hedgehog is a base of edited opening fragments: 14 of its games keep the material of another version of
# the game (their main line now ends elsewhere); every other stored final material matches the board
STALE_MATERIAL = {"morphy_hedgehog": 14}


@pytest.mark.parametrize("name", ["libcbh_Annotation", "libcbh_Chess960NonStandard", "libcbh_ManyPromotions",
                                  "libcbh_NonStandard", "libcbh_NormalNoPop", "libcbh_UnusualStart",
                                  "morphy_hedgehog", "morphy_linares_old", "morphy_text"])
def test_final_material_is_the_end_of_the_main_line(name: str) -> None:
    checked = stale = 0
    with chessbase.open_database(cbh_path(name)) as db:
        for game in db:
            if game.extended is None:
                continue
            if game.extended.final_material is None:
                continue
            board = game.to_pgn(annotations=False).end().board()
            sides = sorted((chess.WHITE, chess.BLACK), key=lambda colour: _order(board, colour), reverse=True)
            expected = (_pieces(board, sides[0]), _pieces(board, sides[1]))
            checked += 1
            if game.extended.final_material != expected:
                stale += 1
    assert checked
    assert stale <= STALE_MATERIAL.get(name, 0)


def test_twic_games_were_created_on_the_issue_date() -> None:
    # TWIC issue 1134 appeared on 2016-08-01; ChessBase stamps each game when it is imported
    with chessbase.open_database(cbh_path("uncbv_twic1134")) as db:
        for number in random.Random(1134).sample(range(1, db.record_count + 1), 200):
            extended = db.extended[number]
            assert extended is not None and extended.created is not None
            assert extended.created.date() in (datetime(2016, 8, 1).date(), datetime(2016, 8, 2).date())
            assert extended.modified is None and extended.game_version == 1
            assert extended.white_rating_type in ("FIDE", None)


def test_modified_games_were_changed_after_creation() -> None:
    with chessbase.open_database(cbh_path("libcbh_Annotation")) as db:
        changed = [db.extended[n] for n in range(1, db.record_count + 1)]
        changed = [e for e in changed if e is not None and e.modified is not None]
        assert changed
        for extended in changed:
            assert extended.created is not None and extended.created < extended.modified
            assert extended.modified < datetime(2100, 1, 1, tzinfo=timezone.utc)


def test_other_writers_times_are_not_taken_for_dates() -> None:
    # ManyPromotions was written by another program: its creation values are far beyond ChessBase's range
    data = cbh_path("libcbh_ManyPromotions").with_suffix(".cbj").read_bytes()
    assert struct.unpack(">q", data[32 + 80:32 + 88])[0] > 1 << 48
    with chessbase.open_database(cbh_path("libcbh_ManyPromotions")) as db:
        extended = db.extended[1]
        assert extended is not None and extended.created is None and extended.white_rating_type is None


_CBJ_FIELDS = {f.path: f for f in describe(schema.CBJ_RECORD)}
_TIMEDELTA_DAYS = 999_999_999  # the largest timedelta: 999,999,999 days and a day's fraction (Python's docs)


def _cbj_with_times(path: Path, created: int, modified: int) -> Path:
    """A ``.cbj`` file of one version-11 record, built here: no teams, the two timestamps set."""
    record = bytearray(schema.CBJ_RECORD.sizeof())
    for name in ("white_team", "black_team"):
        field = _CBJ_FIELDS[name]
        record[field.offset:field.offset + field.size] = struct.pack(">i", -1)
    for name, value, fmt in (("created", created, ">q"), ("modified", modified, ">Q")):
        field = _CBJ_FIELDS[name]
        record[field.offset:field.offset + field.size] = struct.pack(fmt, value)
    header = schema.CBJ_HEADER.build({"version": 11, "record_size": len(record), "records": 1,
                                      "reserved_12": bytes(20)})
    path.write_bytes(header + bytes(record))
    return path


@pytest.mark.parametrize(("created", "modified"), [
    ((1 << 63) - 1, (1 << 64) - 1),  # the largest values the fields hold
    (-(1 << 63), 0),  # the most negative creation time
    ((_TIMEDELTA_DAYS + 1) * 86_400 * 1024, 0),  # just beyond what a timedelta holds (issue 16: OverflowError)
    (-(_TIMEDELTA_DAYS + 1) * 86_400 * 1024, 0),
    (1 << 50, 0),  # a timedelta, but no datetime: about 35,000 years after 2008
    (-(1 << 50), 0),  # and as many before it
])
def test_timestamps_out_of_range_are_not_given(tmp_path: Path, created: int, modified: int) -> None:
    cbj = _cbj_with_times(tmp_path / "times.cbj", created, modified)
    with chessbase.ExtendedHeaders(cbj) as headers:
        extended = headers[1]
        assert extended is not None and extended.created is None and extended.modified is None
        assert extended.game_version == 0 and extended.white_team is None  # the rest of the record still reads


def test_timestamps_in_range_are_dates(tmp_path: Path) -> None:
    # hand arithmetic: 86,400 s * 1024 after the epoch (2008-12-01 00:00 in Berlin) is 2008-12-02 00:00 there;
    # 10^7 ticks of 100 ns after 1582-10-15 00:00 UTC is one second later
    cbj = _cbj_with_times(tmp_path / "times.cbj", 86_400 * 1024, 10**7)
    with chessbase.ExtendedHeaders(cbj) as headers:
        extended = headers[1]
        assert extended is not None
        assert extended.created == datetime(2008, 12, 1, 23, 0, tzinfo=timezone.utc)
        assert extended.modified == datetime(1582, 10, 15, 0, 0, 1, tzinfo=timezone.utc)


def test_old_records_have_no_timestamps() -> None:
    with chessbase.open_database(cbh_path("morphy_linares_old")) as db:
        assert db.extended.record_size == 78
        extended = db.extended[1]
        assert extended is not None and extended.game_version is None and extended.created is None


def test_inspect_shows_the_cbj_record() -> None:
    cbh = cbh_path("libcbh_NormalGames")
    targets = HANDLER.inspect(str(cbh), game=2)
    (target,) = [t for t in targets if t.path == "cbj[2]"]
    assert (target.offset, target.size) == (32 + 120, 120)
    assert target.file == str(cbh.with_suffix(".cbj"))
    # BielMTO.pgn, game 2: WhiteTeam "SUI", BlackTeam "NED"
    assert (target.annotations["cbj[2].white_team"], target.annotations["cbj[2].black_team"]) == ("SUI", "NED")


# --- robustness ---------------------------------------------------------------------------------------

def test_missing_or_empty_cbj_means_no_teams(tmp_path: Path) -> None:
    cbh = copy_base("libcbh_NormalGames", tmp_path)
    cbj = cbh.with_suffix(".cbj")
    cbj.unlink()
    with chessbase.open_database(cbh) as db:
        game = db[2]
        assert isinstance(game, chessbase.GameHeader) and game.white_team is None and game.extended is None
    cbj.write_bytes(b"")
    with chessbase.open_database(cbh) as db:
        game = db[2]
        assert isinstance(game, chessbase.GameHeader) and game.white_team is None


def test_short_cbj_gives_teams_only_to_the_games_it_holds(tmp_path: Path) -> None:
    cbh = copy_base("libcbh_NormalGames", tmp_path)
    cbj = cbh.with_suffix(".cbj")
    data = bytearray(cbj.read_bytes()[:32 + 2 * 120])  # an older .cbj: 2 records for 548 games
    data[8:12] = struct.pack("<I", 2)
    cbj.write_bytes(bytes(data))
    with chessbase.open_database(cbh) as db:
        assert [db.record(n).white_team for n in (1, 2, 3)] == ["IND", "SUI", None]  # type: ignore[union-attr]


def test_old_cbj_without_team_fields(tmp_path: Path) -> None:
    cbh = copy_base("libcbh_Annotation", tmp_path)
    cbh.with_suffix(".cbj").write_bytes(struct.pack("<3I", 1, 4, 4) + bytes(20) + b"\xff" * 16)
    with chessbase.open_database(cbh) as db:
        game = db[1]
        assert isinstance(game, chessbase.GameHeader) and game.extended is not None
        assert game.white_team is None and game.extended.white_team is None and game.extended.game_version is None


@pytest.mark.parametrize(("change", "error", "offset", "path"), [
    ("record_size_0", InvalidValueError, 4, "record_size"),
    ("count_beyond_file", TruncatedError, 32 + 3 * 120, "cbj[4]"),
    ("team_beyond_cbe", InvalidValueError, 32 + 120 + 4, "cbj[2].black_team"),
    ("negative_team", InvalidValueError, 32 + 120, "cbj[2].white_team"),
    ("short_header", TruncatedError, 0, None),
])
def test_corrupt_cbj_raises_located_format_errors(tmp_path: Path, change: str, error: type[FormatError],
                                                  offset: int, path: str | None) -> None:
    cbh = copy_base("libcbh_Annotation", tmp_path)
    cbj = cbh.with_suffix(".cbj")
    data = bytearray(cbj.read_bytes())
    number = 2
    if change == "record_size_0":
        data[4:8] = struct.pack("<I", 0)
    elif change == "count_beyond_file":
        data = data[:32 + 3 * 120]  # the header still counts 4 records
        number = 4
    elif change == "team_beyond_cbe":
        data[32 + 120 + 4:32 + 120 + 8] = struct.pack(">i", 10**6)
    elif change == "negative_team":
        data[32 + 120:32 + 120 + 4] = struct.pack(">i", -5)
    else:
        data = data[:20]
    cbj.write_bytes(bytes(data))
    with chessbase.open_database(cbh) as db:  # the .cbj is read only when a game needs it
        with pytest.raises(error) as raised:
            db.record(number)
    assert raised.value.file == str(cbj) and raised.value.offset == offset and raised.value.path == path


def test_a_huge_creation_time_leaves_the_game_readable(tmp_path: Path) -> None:
    # issue 16: game.extended raised OverflowError for such a record; the game, its PGN and inspect still work
    cbh = copy_base("libcbh_Annotation", tmp_path)
    cbj = cbh.with_suffix(".cbj")
    data = bytearray(cbj.read_bytes())
    created = _CBJ_FIELDS["created"]
    start = schema.CBJ_HEADER_SIZE + created.offset
    data[start:start + created.size] = struct.pack(">q", (1 << 63) - 1)
    cbj.write_bytes(bytes(data))
    with chessbase.open_database(cbh) as db:
        game = db[1]
        assert isinstance(game, chessbase.GameHeader)
        assert game.extended is not None and game.extended.created is None
        assert str(game.to_pgn())
    targets = HANDLER.inspect(str(cbh), game=1)
    (target,) = [t for t in targets if t.path == "cbj[1]"]
    assert "cbj[1].created" not in target.annotations


def test_written_cbj_records_hold_their_values_and_check_sum() -> None:
    """The writer's records (made from a template per teams and ratings): the declaration reads back every value
    given, and the check sum is the 16-bit sum of the big-endian words at offsets 8-27 (hand arithmetic)."""
    from chessformats.engine.codec import codec
    from chessformats.formats.chessbase.extended_writer import cbj_record

    record_codec = codec(schema.CBJ_RECORD)
    cases = [(-1, -1, 26, 0, False, False), (3, -1, 1 << 33, 7, True, False), (-1, 70000, 123456, 1 << 40, True, True),
             (3, -1, 999, 0, True, False), (3, -1, 26, 0, True, False)]
    for white, black, cbg, cba, white_rated, black_rated in cases * 2:  # twice: from the kept templates too
        data = cbj_record(white, black, cbg, cba, white_rated=white_rated, black_rated=black_rated)
        value = record_codec.decode(data)
        assert (value.white_team, value.black_team, value.cbg_offset, value.cba_offset) == (white, black, cbg, cba)
        assert (value.white_rating.kind != "none", value.black_rating.kind != "none") == (white_rated, black_rated)
        words = struct.unpack(">10H", data[8:28])
        assert value.check_sum == sum(words) % 65536
