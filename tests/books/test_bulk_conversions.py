"""The bulk conversions (``books/layers.py``, ``books/ctg_bulk.py``, ``books/ctg_walk.py``; issue 25, item 10)
write the bytes of the conversions through the model (``to_bookstats`` then ``from_bookstats``, python-chess
per position), and report the same counts: compared file by file on corpus books, and position by position for
the layered walk against ``tree.walk``. Skipped without the corpus.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import chess
import numpy as np
import pytest

from chessformats import ctg, polyglot
from chessformats.books import ctg as ctg_books
from chessformats.books import polyglot as polyglot_books
from chessformats.books.convert import convert_book
from chessformats.books.layers import walk_polyglot
from chessformats.books.tree import fen_key
from chessformats.kernel.boards import move_of_code, to_board
from conftest import find_corpus


def _files(path: Path) -> list[bytes]:
    return [p.read_bytes() for p in (path, path.with_suffix(".cto"), path.with_suffix(".ctb")) if p.exists()]


def test_the_layered_walk_is_the_walk_of_the_model() -> None:
    _same_walks(find_corpus("polyglot", "rodent3_grandpa.bin"), unreached=True)


def test_an_unsorted_book_is_walked_and_converted_as_the_model_does(tmp_path: Path) -> None:
    # a book's entries shuffled (the entries of a key keep their order among themselves, which is the order
    # of its moves): probes go through a sorted index, and the bulk walk must give each key's entries back in
    # file order, as the model does
    entries = np.frombuffer(find_corpus("polyglot", "picochess_fun.bin").read_bytes(), dtype=">u8").reshape(-1, 2)
    order = np.random.default_rng(7).permutation(len(entries))
    shuffled = entries[order]
    keys = shuffled[:, 0]
    first = {key: index for index, key in reversed(list(enumerate(keys.tolist())))}
    rank = np.array([first[key] for key in keys.tolist()])
    shuffled = shuffled[np.lexsort((order, rank))]  # each key's entries in their former order
    (tmp_path / "unsorted.bin").write_bytes(shuffled.tobytes())
    assert not bool(np.all(shuffled[1:, 0] >= shuffled[:-1, 0]))
    with pytest.warns(polyglot.UnsortedBookWarning):
        _same_walks(tmp_path / "unsorted.bin", unreached=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", polyglot.UnsortedBookWarning)
        with polyglot.open_book(tmp_path / "unsorted.bin") as book:
            stats = polyglot_books.to_bookstats(book)
        ctg_books.from_bookstats(tmp_path / "model.ctg", stats)
        convert_book(tmp_path / "unsorted.bin", tmp_path / "bulk.ctg")
    assert _files(tmp_path / "bulk.ctg") == _files(tmp_path / "model.ctg")


def _same_walks(source: Path, *, unreached: bool) -> None:
    with polyglot.open_book(source) as book:
        stats = polyglot_books.to_bookstats(book)
        walked = walk_polyglot(book)
        assert len(book) - walked.entries == stats.unreached
    assert (stats.unreached > 0) == unreached
    assert len(walked.keys) == len(stats)
    for index, position in enumerate(stats):  # the same positions in the same order, the same moves and weights
        board = to_board(walked.boards, index)
        assert fen_key(board) == fen_key(position.board())
        moves = walked.codes[walked.offsets[index]:walked.offsets[index + 1]].tolist()
        weights = walked.weights[walked.offsets[index]:walked.offsets[index + 1]].tolist()
        assert [(move_of_code(code, board), weight) for code, weight in zip(moves, weights, strict=True)] == [
            (move, move_stats.weight) for move, move_stats in position.moves.items()]


@pytest.mark.parametrize("name", ["picochess_fun.bin", "rodent3_reti.bin"])
def test_polyglot_to_ctg_writes_the_model_s_bytes(tmp_path: Path, name: str) -> None:
    source = find_corpus("polyglot", name)
    with polyglot.open_book(source) as book:
        stats = polyglot_books.to_bookstats(book)
    ctg_books.from_bookstats(tmp_path / "model.ctg", stats)
    report = convert_book(source, tmp_path / "bulk.ctg")
    assert _files(tmp_path / "bulk.ctg") == _files(tmp_path / "model.ctg")
    assert report.counts["positions"] == len(stats)
    assert report.counts.get("not reached", 0) == stats.unreached


def test_ctg_to_polyglot_writes_the_model_s_bytes(tmp_path: Path) -> None:
    source = find_corpus("ctg", "PowerPlay17-Sicilienne.ctg")
    with ctg.open_book(source) as book:
        stats = ctg_books.to_bookstats(book)
    polyglot_books.from_bookstats(tmp_path / "model.bin", stats)
    report = convert_book(source, tmp_path / "bulk.bin")
    assert (tmp_path / "bulk.bin").read_bytes() == (tmp_path / "model.bin").read_bytes()
    assert report.counts["positions"] == len(stats)
    assert report.counts["not reached"] == stats.unreached > 0


# A line from the start position to a pawn on b7 that can take on a8, each move a book move (the walk follows
# book moves only): 5.bxa8 promotes (to a knight: white's third one), then the third knight's moves
_PROMOTING_LINE = ["e2e4", "d7d5", "e4d5", "c7c6", "d5c6", "g8f6", "c6b7", "b8d7"]


def test_polyglot_to_ctg_says_the_moves_left_out_by_reason_as_the_model_does(tmp_path: Path) -> None:
    board = chess.Board()
    book: list[tuple[chess.Board, dict[str, int]]] = []
    for uci in _PROMOTING_LINE:
        book.append((board.copy(), {uci: 1}))
        board.push_uci(uci)
    promotions = {"b7a8q": 3, "b7a8n": 2, "b7a8r": 1}  # the queen is stored, the knight and rook are not
    book.append((board.copy(), promotions))
    board.push_uci("b7a8n")
    book.append((board.copy(), {"e7e6": 1}))
    board.push_uci("e7e6")
    knight_moves = {move.uci(): 1 for move in board.legal_moves
                    if board.piece_type_at(move.from_square) == chess.KNIGHT}
    book.append((board.copy(), knight_moves))
    polyglot.write_book(tmp_path / "line.bin", book)
    underpromotions = sum(1 for uci in promotions if uci[-1] not in "q")  # python-chess's moves, counted here
    with polyglot.open_book(tmp_path / "line.bin") as source:
        stats = polyglot_books.to_bookstats(source)
    with pytest.warns(UserWarning, match="left out") as model_said:
        model = ctg_books.from_bookstats(tmp_path / "model.ctg", stats)
    with pytest.warns(UserWarning, match="left out") as bulk_said:
        bulk = convert_book(tmp_path / "line.bin", tmp_path / "bulk.ctg")
    assert _files(tmp_path / "bulk.ctg") == _files(tmp_path / "model.ctg")
    left_out = bulk.counts["moves left out"]
    third = left_out - underpromotions
    assert 0 < third < len(knight_moves)  # some knight's moves are stored, the third knight's are not
    message = f"{left_out} moves left out: CTG cannot store them (third piece of a kind: {third}, underpromotion: 2)"
    assert [str(w.message) for w in bulk_said] == [message] == [str(w.message) for w in model_said]
    assert [w.message for w in bulk.warnings] == [message] == [w.message for w in model.warnings]
    assert model.counts["moves left out"] == left_out
