"""The walk of a book (:func:`chessformats.books.tree.walk`) on a book made here, one rule at a time."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from chessformats.books.tree import walk


@dataclass
class _Move:
    move: chess.Move


@dataclass
class _Found:
    moves: list[_Move]


class _Book:
    """An opening book by FEN: the moves (SAN) stored for each position; ``[]`` for a leaf."""

    def __init__(self, lines: dict[tuple[str, ...], list[str]]) -> None:
        self.positions: dict[str, _Found] = {}
        for line, moves in lines.items():
            board = chess.Board()
            for san in line:
                board.push_san(san)
            self.positions[board.epd()] = _Found([_Move(board.parse_san(san)) for san in moves])

    def probe(self, board: chess.Board) -> _Found | None:
        return self.positions.get(board.epd())

    def __contains__(self, board: object) -> bool:
        return isinstance(board, chess.Board) and board.epd() in self.positions


def _walked(book: _Book, free_plies: int) -> list[str]:
    return [board.epd() for board, _, _ in walk(book, free_plies=free_plies)]


def _epd(*line: str) -> str:
    board = chess.Board()
    for san in line:
        board.push_san(san)
    return board.epd()


def test_a_leaf_found_through_a_free_ply_is_searched_from_too() -> None:
    # 1.e4 leads to a position the book does not know; one free ply on, 1...e5 is stored as a leaf (no move,
    # as CTG stores the positions its moves lead to), and one free ply beyond the leaf, 2.Nf3 is known with a
    # move. The leaf is a dead end like an unknown position: the search goes on from it and finds 2.Nf3
    book = _Book({(): ["e4"], ("e4", "e5"): [], ("e4", "e5", "Nf3"): ["Nc6"], ("e4", "e5", "Nf3", "Nc6"): []})
    assert _walked(book, 1) == [_epd(), _epd("e4", "e5"), _epd("e4", "e5", "Nf3"), _epd("e4", "e5", "Nf3", "Nc6")]


def test_a_leaf_reached_by_a_book_move_is_searched_from() -> None:
    # the same rule where the leaf is reached by a book move, not through a free ply
    book = _Book({(): ["e4"], ("e4",): [], ("e4", "c5"): ["Nf3"]})
    assert _walked(book, 1) == [_epd(), _epd("e4"), _epd("e4", "c5")]


def test_without_free_plies_the_walk_stops_at_leaves_and_unknown_positions() -> None:
    book = _Book({(): ["e4"], ("e4", "e5"): [], ("e4", "e5", "Nf3"): ["Nc6"]})
    assert _walked(book, 0) == [_epd()]
    book = _Book({(): ["e4"], ("e4",): [], ("e4", "c5"): ["Nf3"]})
    assert _walked(book, 0) == [_epd(), _epd("e4")]


def test_a_search_does_not_reach_further_than_its_free_plies() -> None:
    # 2.Nf3 is two free plies from the dead end after 1.e4: one free ply does not reach it, two do
    book = _Book({(): ["e4"], ("e4", "e5", "Nf3"): ["Nc6"]})
    assert _walked(book, 1) == [_epd()]
    assert _walked(book, 2) == [_epd(), _epd("e4", "e5", "Nf3")]
