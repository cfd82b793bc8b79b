"""Kvetka books, writing: the same bytes back, blocks and files split as Kvetka splits them, stale files,
the spec's limits, atomic writes, the ``.ksf`` sources, random books round-tripped, the docs' examples.

There is no Kvetka book or program to compare with: the byte-level vectors are in
tests/schemas/test_kvetka_schema.py (worked out by hand from the spec); here the writer is checked against the
reader, against construct's parse of the declarations and against the spec's rules.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path
from typing import Any

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import kvetka
from chessformats.books.stats import BookStats
from chessformats.contract import WriteReport
from chessformats.schemas import kvetka as schema
from kvetka_examples import board_after, games_stats, many_games, positions, write_small_book


@pytest.fixture
def small_book(tmp_path: Path) -> Path:
    return write_small_book(tmp_path)


def _kobs(report: Any) -> list[str]:
    """The ``.kob`` files a write produced (the report's files, in order)."""
    return [name for name in report.files if name.endswith(".kob")]


def test_read_write_same_bytes(small_book: Path, tmp_path: Path) -> None:
    with kvetka.open_book(small_book) as book:
        kvetka.write_book(tmp_path / "copy", book)
    for suffix in ("_0.kob", ".kin"):
        assert (tmp_path / f"copy{suffix}").read_bytes() == Path(str(small_book) + suffix).read_bytes()


def test_blocks_and_files_split(tmp_path: Path) -> None:
    stats = many_games(300, 1)
    one = kvetka.write_book(tmp_path / "one", stats)
    assert one.counts['blocks'] > 8 and len(_kobs(one)) == 1
    limit = 5 * schema.BLOCK_SIZE
    split = kvetka.write_book(tmp_path / "split.kob", stats, file_limit=limit)
    assert len(_kobs(split)) > 2 and split.counts['blocks'] == one.counts['blocks']
    sizes = [os.path.getsize(p) for p in _kobs(split)]
    assert all(size <= limit for size in sizes)
    header = len(schema.HEADER.build(schema.HEADER.parse(Path(_kobs(split)[0]).read_bytes())))
    assert (sizes[0] - header) % schema.BLOCK_SIZE == 0  # the header in _0.kob only, files end on blocks
    assert all(size % schema.BLOCK_SIZE == 0 for size in sizes[1:])
    # together the files are byte for byte the single-file book
    joined = b"".join(Path(p).read_bytes() for p in _kobs(split))
    assert joined == Path(_kobs(one)[0]).read_bytes()
    assert (tmp_path / "split.kin").read_bytes() == (tmp_path / "one.kin").read_bytes()
    # every block is full up to the next element (greedy fill) and no element passes 682 bytes
    with kvetka.open_book(tmp_path / "split") as book:
        assert book.blocks == one.counts['blocks'] and len(book) == one.written
        for block in range(book.blocks):
            data = book.block_bytes(block)
            used = int.from_bytes(data[:2], "big")
            elements = book.block_elements(block)
            assert used == 2 + sum(len(e.to_bytes()) for e in elements)
            if block + 1 < book.blocks:
                assert used + len(book.block_elements(block + 1)[0].to_bytes()) > schema.BLOCK_SIZE
        for position in stats:
            assert book.probe(position.board()) is not None


def test_concatenating_consecutive_kob_files_keeps_the_book(tmp_path: Path) -> None:
    stats = many_games(200, 2)
    result = kvetka.write_book(tmp_path / "cat", stats, file_limit=4 * schema.BLOCK_SIZE)
    paths = [Path(p) for p in _kobs(result)]
    assert len(paths) >= 3
    with kvetka.open_book(tmp_path / "cat") as book:
        before = [(e.key, e.codes, e.wins, e.draws, e.losses) for e in book]
    for first in (0, 1):  # join files first and first + 1 and renumber the rest (the spec's promise)
        folder = tmp_path / f"joined{first}"
        folder.mkdir()
        datas = [p.read_bytes() for p in paths]
        datas[first:first + 2] = [datas[first] + datas[first + 1]]
        for number, data in enumerate(datas):
            (folder / f"cat_{number}.kob").write_bytes(data)
        shutil.copy(tmp_path / "cat.kin", folder / "cat.kin")
        with kvetka.open_book(folder / "cat") as book:
            assert [(e.key, e.codes, e.wins, e.draws, e.losses) for e in book] == before
            assert book.findings() == []
            for position in list(stats)[:50]:
                assert book.probe(position.board()) is not None


def test_stale_files_are_removed(tmp_path: Path) -> None:
    stats = many_games(200, 3)
    big = kvetka.write_book(tmp_path / "b", stats, file_limit=4 * schema.BLOCK_SIZE,
                            sources=[kvetka.KvetkaSource(1, "x.pgn")])
    assert len(_kobs(big)) > 1 and (tmp_path / "b.ksf").exists()
    kvetka.write_book(tmp_path / "b", stats)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.kin", "b_0.kob"]


def test_truncation_to_the_spec_limits(tmp_path: Path) -> None:
    board = chess.Board()
    key = kvetka.position_key(board)
    codes = tuple(sorted(filter(None, (kvetka.encode_move(board, m) for m in board.legal_moves))))
    long_comment = "щ" * 1000
    kvetka.write_book(tmp_path / "t", [kvetka.Element(key, 1, 2, 3, codes, 0, None, long_comment)])
    with kvetka.open_book(tmp_path / "t") as book:
        element = next(iter(book))
        assert element.comment == "щ" * schema.MAX_COMMENT  # "at most 300 characters"
        assert len(element.to_bytes()) <= schema.MAX_ELEMENT
    # a queen-heavy position with many moves: the comment is shortened further to fit 682 bytes
    crowded = chess.Board("k7/8/8/3QQ3/3QQ3/8/8/K7 w - - 0 1")
    codes = tuple(filter(None, (kvetka.encode_move(crowded, m) for m in crowded.legal_moves)))
    big = kvetka.Element(kvetka.position_key(crowded), 10**9, 10**9, 10**9, codes[:255], 0, (1, 2), "ж" * 300,
                         b"\x00" * 50)
    kvetka.write_book(tmp_path / "c", [big], sources=[])
    with kvetka.open_book(tmp_path / "c") as book:
        element = next(iter(book))
        assert len(element.to_bytes()) <= schema.MAX_ELEMENT and element.game_links is None
        assert element.comment is not None and 0 < len(element.comment) < 300


def test_writing_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kvetka.write_book(tmp_path / "a", games_stats())
    before = (tmp_path / "a_0.kob").read_bytes()

    def broken(*args: object, **kwargs: object) -> bytes:
        raise RuntimeError("disk full")

    monkeypatch.setattr(kvetka.Element, "to_bytes", broken)
    with pytest.raises(RuntimeError):
        kvetka.write_book(tmp_path / "a", many_games(10, 4))
    assert (tmp_path / "a_0.kob").read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_empty_book(tmp_path: Path) -> None:
    result = kvetka.write_book(tmp_path / "e", BookStats())
    assert result.counts['blocks'] == 0
    with kvetka.open_book(tmp_path / "e") as book:
        assert len(book) == 0 and book.probe(chess.Board()) is None


# --- sources ------------------------------------------------------------------------------------------------

def test_sources_resolved_through_ksf(tmp_path: Path) -> None:
    sources = [
        kvetka.KvetkaSource(1, "%currentdirpgn\\games.pgn", (
            kvetka.KvetkaGame(0, 120, "Карпов, А", "Kasparov, G", 2710, 2800, 2),
            kvetka.KvetkaGame(120, 90, "White", "Black", 0, 0, 1))),
        kvetka.KvetkaSource(2, "https://example.org/live", (
            kvetka.KvetkaGame((2 << 26) | 5, 0, "A", "B", 0, 0, 3),), is_bad=1),
    ]
    references = {chess.STARTING_FEN: (0, 1), board_after("e4").fen(): (1, 0)}
    result = kvetka.write_book(tmp_path / "s", games_stats(), sources=sources, references=references)
    assert result.files[-1] == str(tmp_path / "s.ksf")
    data = (tmp_path / "s.ksf").read_bytes()
    parsed = schema.KSF.parse(data)
    assert parsed.toc.addresses[0] == 512 and parsed.sources[0].games[0].white == "Карпов, А"
    with kvetka.open_book(tmp_path / "s.ksf") as book:
        assert book.keeps_games and book.source_games() == sources
        start = book.probe(chess.Board())
        assert start is not None and start.source is not None
        assert (start.source.source_type, start.source.address, start.source.game.white) == (
            "pgn", "%currentdirpgn\\games.pgn", "White")
        assert start.source.position == 120 and start.source.game.result_name == "white_won"
        web = book.probe(board_after("e4"))
        assert web is not None and web.source is not None and web.source.is_bad
        assert web.source.internet_kind == "crestbook" and web.source.position == 5
        # %currentdir: expanded only on request, inside the folder given (default: the book's)
        expanded = book.resolve_address(start.source.address)
        assert expanded == os.path.realpath(tmp_path / "pgn" / "games.pgn")
        with pytest.raises(ValueError):
            book.resolve_address("%currentdir..\\..\\etc\\passwd")
        assert book.resolve_address("https://example.org/live") == "https://example.org/live"
        # rewriting keeps the sources and the references byte for byte
        kvetka.write_book(tmp_path / "copy", book)
    for suffix in ("_0.kob", ".kin", ".ksf"):
        assert (tmp_path / f"copy{suffix}").read_bytes() == (tmp_path / f"s{suffix}").read_bytes()



def _lacking(name: str) -> int:
    """The characters of ``name`` Windows-1251 has no byte for (Python's codec says)."""
    lacking = 0
    for char in name:
        try:
            char.encode("cp1251")
        except UnicodeEncodeError:
            lacking += 1
    return lacking


def test_names_the_code_page_lacks_are_written_as_question_marks_and_said(tmp_path: Path) -> None:
    # a game's names are ANSI strings (Windows-1251: Cyrillic, no umlaut): a character it lacks becomes '?', and
    # the report says where, counted (one warning a source, not one line a character)
    games = (kvetka.KvetkaGame(0, 10, "Müller", "Иванов, И"), kvetka.KvetkaGame(10, 10, "Carlsen", "Dvořák, Łukasz"),
             kvetka.KvetkaGame(20, 10, "Anand", "Gelfand"))
    fine = kvetka.KvetkaSource(1, "/games/fine.pgn", (kvetka.KvetkaGame(0, 10, "Карпов, А", "Kasparov"),))
    sources = [fine, kvetka.KvetkaSource(1, "/games/names.pgn", games)]
    lacking = sum(_lacking(name) for game in games for name in (game.white, game.black))
    assert lacking == 4 and _lacking("Иванов, И") == _lacking(fine.games[0].white) == 0
    with pytest.warns(UserWarning, match="cp1251") as caught:
        report = kvetka.write_book(tmp_path / "n", [], sources=sources)
    said = [str(warning.message) for warning in caught]
    assert said == [warning.message for warning in report.warnings]
    assert len(said) == 1 and "/games/names.pgn" in said[0] and "fine.pgn" not in said[0]
    assert f"{lacking} characters cp1251 lacks written as '?' in 2 names" in said[0]
    assert "sources[1].games[0].white 'Müller'" in said[0] and "sources[1].games[1].black 'Dvořák, Łukasz'" in said[0]
    assert "Иванов" not in said[0] and "Anand" not in said[0]
    with kvetka.open_book(tmp_path / "n") as book:
        written = book.source_games()
    assert [(game.white, game.black) for game in written[1].games] == [
        ("M?ller", "Иванов, И"), ("Carlsen", "Dvo??k, ?ukasz"), ("Anand", "Gelfand")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # names it can store: nothing said
        assert kvetka.write_book(tmp_path / "f", [], sources=[fine, *written[1:]]).warnings == []



@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(st.tuples(positions(), st.integers(0, 10**7), st.integers(0, 10**7), st.integers(0, 10**7),
                                st.none() | st.text(max_size=40)), min_size=1, max_size=12),
       caption=st.text(max_size=30))
def test_write_read_round_trip(tmp_path_factory: pytest.TempPathFactory, items: list, caption: str) -> None:
    folder = tmp_path_factory.mktemp("prop")
    elements = {}
    for (board, moves), wins, draws, losses, comment in items:
        codes = tuple(c for c in (kvetka.encode_move(board, m) for m in moves) if c is not None)
        key = kvetka.position_key(board)
        elements.setdefault(key, (board, kvetka.Element(key, wins, draws, losses, codes, 0, None, comment)))
    kvetka.write_book(folder / "p", [element for _, element in elements.values()], caption=caption,
                      file_limit=3 * schema.BLOCK_SIZE)
    with kvetka.open_book(folder / "p") as book:
        assert book.caption == caption
        assert [e.key for e in book] == sorted(elements)
        for board, element in elements.values():
            found = book.probe(board, legal_only=False)
            assert found is not None and found.element == element
            assert [kvetka.encode_move(board, m.move) for m in found.moves] == list(element.codes)
            assert [m.code for m in found.moves] == list(element.codes)
            assert (found.wins, found.draws, found.losses) == (element.wins, element.draws, element.losses)
        kvetka.write_book(folder / "again", book, file_limit=3 * schema.BLOCK_SIZE)
    for name in os.listdir(folder):
        if name.startswith("p"):
            assert (folder / name).read_bytes() == (folder / ("again" + name[1:])).read_bytes()


def test_docs_examples_are_bytes_we_write(tmp_path: Path) -> None:
    sicilian = board_after("e4", "c5")
    kvetka.write_book(tmp_path / "ex", games_stats(), caption="four games",
                      openings={sicilian.fen(): "B50|Sicilian Defence|Main Line"},
                      sources=[kvetka.KvetkaSource(1, "%currentdirpgn\\four.pgn",
                                                   (kvetka.KvetkaGame(0, 80, "White", "Black", 2400, 0, 1),))],
                      references={sicilian.fen(): (0, 0)})
    header, element, source = (example.data for example in schema.FORMAT.examples)
    assert (tmp_path / "ex_0.kob").read_bytes().startswith(header)
    with kvetka.open_book(tmp_path / "ex") as book:
        found = book.probe(sicilian)
        assert found is not None and found.element.to_bytes() == element
        assert found.source is not None and found.source.game.white == "White"
    assert (tmp_path / "ex.ksf").read_bytes()[512:] == source


def test_old_result_names_warn_and_agree(tmp_path: Path) -> None:
    """``WriteResult``'s names from before the contract keep working for a deprecation period."""
    report = kvetka.write_book(tmp_path / "old", many_games(10, 4))
    assert isinstance(report, WriteReport) and report.unit == "elements"
    with pytest.warns(DeprecationWarning, match="elements is deprecated"):
        assert report.elements == report.written > 0
    with pytest.warns(DeprecationWarning):
        assert report.blocks == report.counts["blocks"] >= 1
    with pytest.warns(DeprecationWarning):
        assert report.kob_paths == _kobs(report) == [str(tmp_path / "old_0.kob")]
    with pytest.warns(DeprecationWarning):
        assert report.kin_path == str(tmp_path / "old.kin")
    with pytest.warns(DeprecationWarning):
        assert report.ksf_path is None
