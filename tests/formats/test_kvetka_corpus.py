"""A Kvetka book built from real games probes back like the Polyglot and CTG books built from the same games."""

from __future__ import annotations

import warnings
from collections import defaultdict
from pathlib import Path

import chess

from chessformats import kvetka
from chessformats.books.build import BookBuilder
from chessformats.formats import ctg, polyglot
from conftest import find_corpus


def test_twic_book_probes_like_polyglot_and_ctg(tmp_path: Path) -> None:
    builder = BookBuilder(max_ply=20)
    builder.add_pgn(str(find_corpus("pgn", "twic1134-mainlines.pgn")), jobs=1)
    stats = builder.to_stats()
    written = kvetka.write_book(tmp_path / "twic", stats, max_move=20)
    assert written.skipped == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctg.write_book(tmp_path / "twic.ctg", stats)
    polyglot.write_book(tmp_path / "twic.bin", polyglot.weights_from_stats(stats))
    # the model's move codes per key: a position and its colour-flipped or mirrored twin share one element
    # (the spec: "they are identical from the point of view of the result"), so their moves are merged
    expected: dict[bytes, set[int]] = defaultdict(set)
    owners: dict[bytes, int] = defaultdict(int)
    for position in stats:
        board = position.board()
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
        for position in stats:
            board = position.board()
            found = kvetka_book.probe(board)
            record = ctg_book.probe(board)
            assert found is not None and record is not None, position.fen
            moves = set(found.moves)
            assert moves == {move.move for move in record.moves}, position.fen
            assert (found.wins, found.draws, found.losses) == (record.wins, record.draws, record.losses)
            key = kvetka.position_key(board)
            assert {kvetka.encode_move(board, move) for move in moves} == expected[key], position.fen
            from_polyglot = {entry.move for entry in polyglot_book.probe(board)}
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
