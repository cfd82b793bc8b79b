"""Kvetka books and the format-neutral model (``chessformats.books.kvetka``): a book read back as the model,
``.ksf`` sources for PGN files, and a book built from real games probing back like the Polyglot and CTG books
built from the same games.
"""

from __future__ import annotations

import io
import warnings
from collections import defaultdict
from pathlib import Path

import chess
import chess.pgn
import pytest

from chessformats import ctg, kvetka, polyglot
from chessformats.books.build import BookBuilder
from chessformats.books.kvetka import to_bookstats
from chessformats.books.stats import BookStats, MoveStats, PositionStats
from conftest import find_corpus
from kvetka_examples import board_after, games_stats, write_small_book
from left_out_examples import left_out_positions, one_move_a_piece
from reference_counter import count_games


def test_write_read_same_model(tmp_path: Path) -> None:
    stats = games_stats()
    with kvetka.open_book(write_small_book(tmp_path)) as book:
        back = to_bookstats(book)
    # the games form a tree (no transpositions), so every move's results come back from its child element
    assert {p: {m: (s.games, s.wins, s.draws, s.losses) for m, s in v.moves.items()}
            for p, v in back.positions.items()} == \
           {p: {m: (s.games, s.wins, s.draws, s.losses) for m, s in v.moves.items()}
            for p, v in stats.positions.items()}


def test_pgn_sources_describe_games_python_chess_cannot_read(tmp_path: Path) -> None:
    # an illegal move, then ')' with no variation open, then a NAG: python-chess's read_game raises IndexError
    damaged = b'[Event "A"]\n[White "Tal, M"]\n[Black "Smyslov, V"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 ) $1 1-0\n\n'
    pgn = tmp_path / "games.pgn"
    pgn.write_bytes(damaged + b'[Event "B"]\n[White "Petrosian"]\n[Black "Spassky"]\n[Result "1/2-1/2"]\n\n'
                    b"1. d4 d5 1/2-1/2\n")
    with pytest.raises(IndexError):
        chess.pgn.read_game(io.StringIO(damaged.decode()))
    sources, references = kvetka.pgn_sources([pgn], max_ply=2)
    second = len(damaged)
    assert sources == [kvetka.KvetkaSource(1, str(pgn.resolve()), (
        kvetka.KvetkaGame(0, second, "Tal, M", "Smyslov, V", 0, 0, 1),
        kvetka.KvetkaGame(second, pgn.stat().st_size - second, "Petrosian", "Spassky", 0, 0, 2)))]
    # only the readable game gives references
    assert set(references.values()) == {(0, 1)}


def test_pgn_sources(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_bytes(b'[Event "A"]\n[White "Tal, M"]\n[Black "Smyslov, V"]\n[WhiteElo "2700"]\n[Result "1-0"]\n\n'
                    b"1. e4 e5 2. Nf3 1-0\n\n"
                    b'[Event "B"]\n[White "Petrosian"]\n[Black "Spassky"]\n[Result "1/2-1/2"]\n\n'
                    b"1. d4 d5 1/2-1/2\n")
    sources, references = kvetka.pgn_sources([pgn], max_ply=2)
    data = pgn.read_bytes()
    second = data.index(b'[Event "B"]')
    assert sources == [kvetka.KvetkaSource(1, str(pgn.resolve()), (
        kvetka.KvetkaGame(0, second, "Tal, M", "Smyslov, V", 2700, 0, 1),
        kvetka.KvetkaGame(second, len(data) - second, "Petrosian", "Spassky", 0, 0, 2)))]
    handle = io.StringIO(data.decode())
    games = []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    stats = count_games(games, max_ply=2)
    kvetka.write_book(tmp_path / "g", stats, sources=sources, references=references)
    with kvetka.open_book(tmp_path / "g") as book:
        for sans, game in (([], 0), (["e4"], 0), (["e4", "e5"], 0), (["d4", "d5"], 1)):
            found = book.probe(board_after(*sans))
            assert found is not None and found.source is not None
            assert found.source.game_in_source == game
            start = found.source.position
            assert data[start:start + found.source.game.length].startswith(b"[Event")  # the address is the game


def test_pgn_sources_of_windows_1252_games(tmp_path: Path) -> None:
    # a Windows-1252 game between UTF-8 ones: its names as written (a game not UTF-8 is read as Windows-1252);
    # a code page named by ``encoding``
    utf8 = '[Event "A"]\n[White "Ding 丁"]\n[Black "Weiß"]\n[Result "*"]\n\n1. d4 *\n\n'.encode()
    windows = '[Event "B"]\n[White "Müller, Jürgen"]\n[Black "Nuñez, José €"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
    pgn = tmp_path / "games.pgn"
    pgn.write_bytes(utf8 + windows.encode("cp1252") + utf8)
    sources, _ = kvetka.pgn_sources([pgn], max_ply=2)
    assert [(game.white, game.black) for game in sources[0].games] == [
        ("Ding 丁", "Weiß"), ("Müller, Jürgen", "Nuñez, José €"), ("Ding 丁", "Weiß")]
    pgn.write_bytes(windows.replace("Müller, Jürgen", "Карпов").replace("Nuñez, José", "Таль").encode("cp1251"))
    sources, _ = kvetka.pgn_sources([pgn], max_ply=2, encoding="cp1251")
    assert sources[0].games[0].white == "Карпов"



_QUEENS = "k7/8/8/8/8/8/8/KQQQQ3 w - - 0 1"  # four white queens: Kvetka numbers three (CTG two)
_CROWDED = "QQQQQQQQ/QQQQQQQQ/8/8/8/8/qqqqqqqq/qqqqqqkK w - - 0 1"  # 232 bits of squares: a key has 176


def test_left_out_moves_are_said_by_reason(tmp_path: Path) -> None:
    """The report counts the moves Kvetka cannot store and a warning says why, as CTG's does (its table numbers
    other pieces)."""
    positions, castling = left_out_positions()  # Kvetka numbers two knights: the third one's move is left out
    queens = one_move_a_piece(_QUEENS, chess.QUEEN)
    assert len(queens) == 4
    stats = BookStats(positions=positions | {
        "queens": PositionStats(_QUEENS, queens),
        "crowded": PositionStats(_CROWDED, {chess.Move.from_uci("h1g2"): MoveStats(1, 1, 0, 0)})})
    left_out = castling + 2 + 1 + 1 + 2 + 1
    with pytest.warns(UserWarning) as caught:
        report = kvetka.write_book(tmp_path / "left", stats)
    assert report.counts["moves left out"] == left_out
    message = (f"{left_out} moves left out: a Kvetka book cannot store them (Chess960 castling: {castling}, "
               "illegal move: 1, null move: 1, position the key cannot hold: 1, "
               "third knight/bishop/rook or fourth queen: 2, underpromotion: 2)")
    assert [str(warning.message) for warning in caught] == [message]
    assert [warning.message for warning in report.warnings] == [message]
    with kvetka.open_book(tmp_path / "left") as book:  # the moves stored: the first three queens' among them
        found = book.probe(chess.Board(_QUEENS))
        assert found is not None and len(found.moves) == 3


@pytest.mark.slow
def test_twic_book_probes_like_polyglot_and_ctg(tmp_path: Path) -> None:
    builder = BookBuilder(max_ply=20)
    builder.add_pgn(str(find_corpus("pgn", "twic1134-mainlines.pgn")), jobs=1)
    stats = builder.to_stats()
    written = kvetka.write_book(tmp_path / "twic", stats, max_move=20)
    assert written.skipped == [] and "moves left out" not in written.counts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctg.write_book(tmp_path / "twic.ctg", stats)
    polyglot.write_book(tmp_path / "twic.bin", {position.fen: {move: move_stats.polyglot_weight for move, move_stats
                                                           in position.moves.items()} for position in stats})
    # the model's move codes per key: a position and its colour-flipped or mirrored twin share one element
    # (the spec: "they are identical from the point of view of the result"), so their moves are merged
    expected: dict[bytes, set[int]] = defaultdict(set)
    owners: dict[bytes, int] = defaultdict(int)
    boards = [(position, position.board()) for position in stats]  # (made once: 53,645 FENs read)
    for position, board in boards:
        key = kvetka.position_key(board)
        owners[key] += 1
        for move in position.moves:
            code = kvetka.encode_move(board, move)
            if code is not None:
                expected[key].add(code)
    shared = 0
    with kvetka.open_book(tmp_path / "twic") as kvetka_book, ctg.open_book(tmp_path / "twic.ctg") as ctg_book, \
            polyglot.open_book(tmp_path / "twic.bin") as polyglot_book:
        assert kvetka_book.header.max_move == 20 and kvetka_book.findings() == []
        for position, board in boards:  # (the boards as made: position_key and encode_move only read them)
            found = kvetka_book.probe(board)
            record = ctg_book.probe(board)
            assert found is not None and record is not None, position.fen
            moves = {move.move for move in found.moves}
            assert moves == {move.move for move in record.moves}, position.fen
            assert (found.wins, found.draws, found.losses) == (record.wins, record.draws, record.losses)
            key = kvetka.position_key(board)
            assert {kvetka.encode_move(board, move) for move in moves} == expected[key], position.fen
            from_polyglot = {entry.move for entry in polyglot_book.find_all(board, minimum_weight=0)}
            storable = {move for move in from_polyglot if kvetka.encode_move(board, move) is not None}
            assert storable <= moves
            if owners[key] == 1:
                assert storable == moves == set(position.moves), position.fen
            else:
                shared += 1
        # the start position: the games with a result, from white's point of view
        start = kvetka_book.probe(chess.Board())
        first = stats.positions[chess.Board().fen().rsplit(" ", 2)[0]].moves.values()
        assert start is not None and (start.wins, start.draws, start.losses) == (
            sum(m.wins for m in first), sum(m.draws for m in first), sum(m.losses for m in first))
    assert shared < len(stats) // 100  # twins are rare
