"""Kvetka books, reading: probing, iteration against construct's parse, the ``.kin`` index, robustness against
damaged files, keys and move codes on random positions, flag bits a book does not use.

There is no Kvetka book or program to compare with: the byte-level vectors are in
tests/schemas/test_kvetka_schema.py (worked out by hand from the spec); here the reader is checked against the
writer, against construct's parse of the declarations and against python-chess's mirrors.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import kvetka
from chessformats.books.stats import BookStats, MoveStats, PositionStats
from chessformats.engine.errors import FormatError, TruncatedError, UnsupportedError
from chessformats.engine.trace import parse
from chessformats.schemas import kvetka as schema
from kvetka_examples import board_after, games_stats, positions, write_small_book


@pytest.fixture
def small_book(tmp_path: Path) -> Path:
    return write_small_book(tmp_path)


# --- probing -----------------------------------------------------------------------------------------------

def test_probe_start_and_replies(small_book: Path) -> None:
    with kvetka.open_book(small_book) as book:
        assert book.caption == "four games" and book.blocks == 1
        start = book.probe(chess.Board())
        assert start is not None
        # the start position: white won 2, drew 1, lost 1; e4 (3 games) before d4 (1 game)
        assert (start.wins, start.draws, start.losses) == (2, 1, 1)
        assert _moves(start) == (chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4"))
        assert start.opening == kvetka.Opening("A00", "Start", None)
        after_e4 = book.probe(board_after("e4"))
        assert after_e4 is not None and after_e4.flipped and not after_e4.mirrored
        # black to move after 1. e4: three games, black lost 2, drew 1
        assert (after_e4.wins, after_e4.draws, after_e4.losses) == (0, 1, 2)
        assert set(_moves(after_e4)) == {chess.Move.from_uci("e7e5"), chess.Move.from_uci("c7c5")}
        sicilian = book.probe(board_after("e4", "c5"))
        assert sicilian is not None
        assert sicilian.opening == kvetka.Opening("B50", "Sicilian Defence", "Main Line")
        assert book.probe(board_after("a4")) is None
        assert board_after("e4", "e5", "Nf3") in book
        # the last stored positions have no moves but their results
        leaf = book.probe(board_after("e4", "e5", "Nf3", "Nc6", "Bb5", "a6"))
        assert leaf is not None and leaf.moves == () and (leaf.wins, leaf.losses) == (1, 0)  # white won


def _moves(found: kvetka.ProbeResult) -> tuple[chess.Move, ...]:
    return tuple(move.move for move in found.moves)


def test_iteration_is_in_key_order(small_book: Path) -> None:
    with kvetka.open_book(small_book) as book:
        keys = [element.key for element in book]
        assert keys == sorted(keys) and len(keys) == len(set(keys)) == len(book)
        for element in book:  # the fast reader agrees with construct's parse of the stored bytes
            stored = book.read(element.offset or 0, len(element.to_bytes()))
            parsed = parse(schema.ELEMENT, stored)
            assert stored == element.to_bytes()
            assert (parsed.body.wins, parsed.body.draws, parsed.body.losses) == (element.wins, element.draws,
                                                                                 element.losses)
            assert schema.KEY.build(parsed.body.key) == element.key
            assert [schema.MOVE_CODE.build(code)[0] for code in parsed.body.moves] == list(element.codes)
            assert parsed.body.comment == element.comment and parsed.body.extra == element.extra


def test_open_by_any_file(small_book: Path) -> None:
    for name in ("small", "small_0.kob", "small.kin"):
        with kvetka.open_book(small_book.parent / name) as book:
            assert book.kob_paths == [str(small_book.parent / "small_0.kob")]
    with pytest.raises(FormatError):
        kvetka.open_book(small_book.parent / "missing")


def test_opening_comments_of_the_spec(spec_path: Callable[..., Path]) -> None:
    text = spec_path("kvetka.ru.txt").read_text(encoding="utf-8")
    examples = re.findall(r"^\s*([A-E]\d\d\|[^\n]+?)\s*$", text, re.MULTILINE)
    assert examples == ["E98|<основное название>|<название варианта>", "A41|Queen's Pawn",
                        "B33|Sicilian Defence|Pelikan, Bird Variation"]
    assert kvetka.parse_opening(examples[1]) == kvetka.Opening("A41", "Queen's Pawn", None)
    assert kvetka.parse_opening(examples[2]) == kvetka.Opening("B33", "Sicilian Defence", "Pelikan, Bird Variation")
    assert kvetka.parse_opening("just a note") is None and kvetka.parse_opening("Z99|x") is None
    assert kvetka.Opening("B33", "Sicilian Defence", "Pelikan").comment() == "B33|Sicilian Defence|Pelikan"


def test_kin_with_the_wrong_count_is_replaced_by_a_scan(small_book: Path) -> None:
    kin = Path(str(small_book) + ".kin")
    kin.write_bytes(kin.read_bytes() * 2)
    with kvetka.open_book(small_book) as book:
        assert any("2 keys for 1 blocks" in f for f in book.findings())
        assert book.probe(chess.Board()) is not None
    kin.write_bytes(kin.read_bytes()[:-1])
    with pytest.raises(TruncatedError):
        kvetka.open_book(small_book)


def test_without_kin_the_blocks_are_scanned(small_book: Path) -> None:
    os.unlink(str(small_book) + ".kin")
    with kvetka.open_book(small_book) as book:
        assert book.kin_path is None and any("no .kin" in f for f in book.findings())
        assert book.probe(board_after("d4", "d5")) is not None


def test_symmetric_positions_share_an_element(tmp_path: Path) -> None:
    # no castling, white king on d1: stored mirrored; the mirror image with the king on e1 is the same key
    left = chess.Board("3k4/8/8/8/8/8/3P4/3K4 w - - 0 1")
    right = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    stats = BookStats(positions={"x": PositionStats(left.fen(), {chess.Move.from_uci("d2d4"): MoveStats(1, 1)})})
    kvetka.write_book(tmp_path / "sym", stats)
    with kvetka.open_book(tmp_path / "sym") as book:
        probed = book.probe(right)
        assert probed is not None and _moves(probed) == (chess.Move.from_uci("e2e4"),)
        found = book.probe(left)
        assert found is not None and found.mirrored and _moves(found) == (chess.Move.from_uci("d2d4"),)


# --- robustness ------------------------------------------------------------------------------------------------

def test_unsupported_type(small_book: Path) -> None:
    path = Path(str(small_book) + "_0.kob")
    data = bytearray(path.read_bytes())
    data[0] = 2
    path.write_bytes(bytes(data))
    with pytest.raises(UnsupportedError) as error:
        kvetka.open_book(small_book)
    assert error.value.path == "header.type" and error.value.offset == 0


def test_truncated_and_huge_lengths(small_book: Path) -> None:
    path = Path(str(small_book) + "_0.kob")
    good = path.read_bytes()
    path.write_bytes(good[:-1])
    with pytest.raises(TruncatedError) as error:
        kvetka.open_book(small_book)
    assert "block 0" in str(error.value)
    path.write_bytes(good[:1] + b"\xff\xff\xff\xff" + good[5:])  # a caption of 4 billion characters
    with pytest.raises(TruncatedError):
        kvetka.open_book(small_book)


def corrupt(data: bytes, seed: int, count: int) -> bytes:
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(count):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), count=st.integers(1, 8), target=st.sampled_from(["_0.kob", ".kin", ".ksf"]))
def test_corrupted_books_raise_format_errors_only(tmp_path_factory: pytest.TempPathFactory, seed: int, count: int,
                                                   target: str) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    kvetka.write_book(folder / "f", games_stats(), openings={chess.STARTING_FEN: "A00|Start"},
                      sources=[kvetka.KvetkaSource(1, "a.pgn", (kvetka.KvetkaGame(0, 1, "a", "b"),))],
                      references={chess.STARTING_FEN: (0, 0)})
    path = folder / f"f{target}"
    path.write_bytes(corrupt(path.read_bytes(), seed, count))
    try:
        with kvetka.open_book(folder / "f") as book:
            for element in book:
                book.element_board(element)
            for board in (chess.Board(), board_after("e4"), board_after("d4", "d5")):
                book.probe(board)
            book.findings()
    except FormatError:
        pass


@settings(max_examples=200, deadline=None)
@given(position=positions())
def test_keys_decode_to_the_normalised_board(position: tuple[chess.Board, list[chess.Move]]) -> None:
    board, moves = position
    key = kvetka.position_key(board)
    norm, padding = kvetka.decode_key(key)
    assert padding == 0
    expected = board.mirror() if board.turn == chess.BLACK else board.copy()
    king = expected.king(chess.WHITE)  # a1 is square 0: not "or 4"
    if not expected.clean_castling_rights() and chess.square_file(4 if king is None else king) < 4:
        expected = expected.transform(chess.flip_horizontal)
    assert norm.board_fen() == expected.board_fen()
    assert norm.castling_rights == expected.clean_castling_rights()
    assert kvetka.position_key(norm) == key  # the normalised board is its own normal form
    for move in moves:
        code = kvetka.encode_move(board, move)
        if code is not None:
            assert kvetka.decode_move(board, code) == move


def test_flags_ignored_without_game_references(tmp_path: Path) -> None:
    # element_type bit 0 clear: flags bits 1 and 2 are ignored, what follows the flags is extra data
    key = kvetka.position_key(chess.Board())
    element = kvetka.Element(key, 1, 0, 0, (0x11,), 0x04, None, None, None, bytes(range(6)))
    kvetka.write_book(tmp_path / "n", [element])
    with kvetka.open_book(tmp_path / "n") as book:
        assert not book.keeps_games
        read = next(iter(book))
        assert read == element and read.source is None and read.extra == bytes(range(6))
        kvetka.write_book(tmp_path / "again", book)
    assert (tmp_path / "again_0.kob").read_bytes() == (tmp_path / "n_0.kob").read_bytes()
    # the same bytes in a book that keeps game references: bit 2 announces a 6-byte reference
    data = bytearray((tmp_path / "n_0.kob").read_bytes())
    caption_end = 1 + 4
    data[caption_end + 8 + 1] = 0x01  # element_type: bit 0 set (after the ELO filters and max_move)
    (tmp_path / "n_0.kob").write_bytes(bytes(data))
    with kvetka.open_book(tmp_path / "n") as book:
        assert book.keeps_games and next(iter(book)).source == (0x0001, 0x02030405)


def test_kin_keys_are_checked_against_the_blocks(tmp_path: Path) -> None:
    # 12 positions with long comments: three elements a block, four blocks
    boards = [chess.Board()]
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1"):
        boards.append(boards[-1].copy(stack=False))
        boards[-1].push_uci(uci)
    elements = [kvetka.Element(kvetka.position_key(board), wins=1, comment="x" * 300) for board in boards]
    stem = tmp_path / "long"
    kvetka.write_book(stem, elements)
    kin = Path(str(stem) + ".kin")
    keys = kin.read_bytes()
    size = kvetka.KEY_SIZE
    with kvetka.open_book(stem) as book:
        assert book.blocks == 4 and not book.findings_list
        second = book.block_elements(0)[1].key
        assert all(book.probe(board) is not None for board in boards)
    # keys out of order: the .kin is not used (a finding), every position is still found
    kin.write_bytes(keys[:size] * 4)
    with kvetka.open_book(stem) as book:
        assert any("not in ascending order" in f for f in book.findings())
        assert all(book.probe(board) is not None for board in boards)
    # ascending but wrong (block 1's key is an element of block 0): reading block 1 through it is an error
    kin.write_bytes(keys[:size] + second + keys[2 * size:])
    with kvetka.open_book(stem) as book:
        with pytest.raises(FormatError) as error:
            for board in boards:
                book.probe(board)
        assert error.value.file == str(kin) and error.value.offset == size and error.value.path == "[1]"


def _ksf(tmp_path: Path, sources: list[kvetka.KvetkaSource], name: str = "s.ksf") -> Path:
    path = tmp_path / name
    path.write_bytes(kvetka.ksf_bytes(sources))
    return path


def test_ksf_errors_are_located(tmp_path: Path) -> None:
    games = (kvetka.KvetkaGame(0, 80, "White", "Black", 2400, 0, 1), kvetka.KvetkaGame(80, 90, "W2", "B2", 0, 0, 2))
    data = kvetka.ksf_bytes([kvetka.KvetkaSource(1, "a.pgn", games)])
    # source at 512: type, is_bad, address (4 + 2 * 5), games_number (4); game 0 at 528: address, length, white
    game0 = 512 + 1 + 1 + 4 + 2 * 5 + 4
    white_length = game0 + 4 + 4
    game1 = white_length + 4 + 5 + 4 + 5 + 2 + 2 + 1
    cases = {
        "toc count cut": (data[:3], "toc.source_number", 0),
        "count past the file": (b"\x7f\xff\xff\xff" + data[4:], "toc.source_number", 0),
        "game cut inside white": (data[:game1 + 8 + 4 + 1], "sources[0].games[1].white.length", game1 + 8),
        "hostile white length": (data[:white_length] + b"\x7f\xff\xff\xff" + data[white_length + 4:],
                                 "sources[0].games[0].white.length", white_length),
        "hostile games_number": (data[:game0 - 4] + b"\x7f\xff\xff\xff" + data[game0:], "sources[0].games_number",
                                 game0 - 4),
        "address past the end": (data[:4] + (len(data) + 10).to_bytes(4, "big") + data[8:], "toc.addresses[0]", 4),
    }
    for label, (damaged, path, offset) in cases.items():
        file = tmp_path / "d.ksf"
        file.write_bytes(damaged)
        with pytest.raises(TruncatedError) as caught:
            with kvetka.KsfFile(file) as reader:
                reader.source(0)
        assert (caught.value.path, caught.value.offset, caught.value.file) == (path, offset, str(file)), label


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, 3]), st.integers(0, 1), st.text(max_size=6),
                          st.lists(st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1),
                                             st.text(st.characters(max_codepoint=0x44F), max_size=5),
                                             st.text(max_size=3), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF),
                                             st.integers(0, 3)), max_size=3)), max_size=3))
@pytest.mark.filterwarnings("ignore:.*lacks written as '\\?':UserWarning")  # names of any characters, said
def test_ksf_agrees_with_construct(tmp_path: Path, items: list[Any]) -> None:
    """ksf_bytes == construct's KSF build; KsfFile's reading == construct's parse (web-page words included)."""
    from chessformats.engine.schema import enum_view

    sources = [kvetka.KvetkaSource(kind, address, tuple(kvetka.KvetkaGame(*game) for game in games), bad)
               for kind, bad, address, games in items]
    data = kvetka.ksf_bytes(sources)
    bodies = [schema.SOURCE.build({
        "source_type": s.source_type, "is_bad": s.is_bad, "address": s.address, "games_number": len(s.games),
        "games": [{"game_address": {"kind": g.address >> 26, "position": g.address & (1 << 26) - 1}  # spec: bits 26-31
                                   if s.source_type == 2 else g.address,
                   "game_length": g.length, "white": g.white, "black": g.black, "white_elo": g.white_elo,
                   "black_elo": g.black_elo, "game_result": g.result} for g in s.games]}) for s in sources]
    listed = 4 + 4 * len(sources)  # the spec: count, addresses, zeros up to a multiple of 512
    at = listed + (-listed % 512)
    addresses = []
    for body in bodies:
        addresses.append(at)
        at += len(body)
    built = schema.TOC.build({"source_number": len(sources), "addresses": addresses,
                              "unused": bytes(-listed % 512)}) + b"".join(bodies)
    assert data == built
    path = tmp_path / "h.ksf"
    path.write_bytes(data)
    parsed = schema.KSF.parse(data)
    with kvetka.KsfFile(path) as reader:
        assert reader.addresses == list(parsed.toc.addresses)
        for number, expected in enumerate(parsed.sources):
            source, offsets = reader.source(number)
            assert (source.source_type, source.is_bad, source.address) == (
                enum_view(schema.SOURCE_TYPE).values[expected.source_type], expected.is_bad,
                expected.address)
            results = enum_view(schema.GAME_RESULT).values
            assert [(g.white, g.black, g.white_elo, g.black_elo, g.length, g.result, g.address)
                    for g in source.games] == [
                (g.white, g.black, g.white_elo, g.black_elo, g.game_length, results[g.game_result],
                 int.from_bytes(schema.INTERNET_ADDRESS.build(g.game_address), "big")
                 if expected.source_type == "internet" else g.game_address) for g in expected.games]
            assert len(offsets) == len(expected.games)
