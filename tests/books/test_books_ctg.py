"""CTG books and the format-neutral model (``chessformats.books.ctg``): books written from a BookStats, the
build options, a book read back as a BookStats.

Oracles: the games themselves (read with python-chess), the independent counter ``tests/reference_counter.py``,
the spec's lookup loop and encoding (``tests/ctg_oracles.py``) and the corpus book.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from chessformats import ctg
from chessformats.books.ctg import to_bookstats
from chessformats.books.stats import BookStats, MoveStats, PositionStats, read_pgn_games
from chessformats.schemas import ctg as schema
from conftest import find_corpus
from ctg_oracles import BOOK, EXAMPLE_GAMES, spec_encode, spec_lookup
from left_out_examples import left_out_positions
from reference_counter import count_games


@pytest.fixture(scope="module")
def book_path() -> Path:
    return find_corpus(*BOOK)


def _example_stats(max_ply: int = 12) -> BookStats:
    return count_games(read_pgn_games(str(EXAMPLE_GAMES)), max_ply=max_ply)


def test_write_from_bookstats(tmp_path: Path) -> None:
    stats = _example_stats()
    with open(EXAMPLE_GAMES, encoding="utf-8") as handle:
        games = []
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    out = tmp_path / "games.ctg"
    count = ctg.write_book(out, stats)
    with ctg.open_book(out) as book:
        assert len(book) == count.written and book.header_games == len(games) == 7
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


def test_left_out_moves_are_counted_by_reason(tmp_path: Path) -> None:
    """The warning names each reason with its count: not "third pieces, underpromotions" for every move."""
    positions, castling = left_out_positions()  # CTG numbers two knights: the third one's move is left out
    stats = BookStats(positions=positions)
    left_out = castling + 2 + 1 + 2
    with pytest.warns(UserWarning) as caught:
        report = ctg.write_book(tmp_path / "left.ctg", stats)
    assert report.counts["moves left out"] == left_out
    message = str(caught[0].message)
    assert message.startswith(f"{left_out} moves left out: CTG cannot store them (")
    assert message.endswith(f"(Chess960 castling: {castling}, illegal move: 1, null move: 1, "
                            "third piece of a kind: 1, underpromotion: 2)")


def test_empty_book(tmp_path: Path) -> None:
    assert ctg.write_book(tmp_path / "empty.ctg", []).written == 0
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


def test_to_bookstats(book_path: Path) -> None:
    with ctg.open_book(book_path) as book:
        stats = to_bookstats(book)
    start = stats.positions[chess.Board().fen().rsplit(" ", 2)[0]]
    # 1.e4: the position after it has 489 games, black won 195 and lost 173: white's 1.e4 won 173, lost 195
    # its weight is CTG's Polyglot rule: 2 * wins + draws + games of unknown result (489 - 173 - 116 - 195 = 5)
    assert start.moves == {chess.Move.from_uci("e2e4"): MoveStats(489, 173, 116, 195, weight=2 * 173 + 116 + 5)}
    assert stats.games == 499 and len(stats) > 1000


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
