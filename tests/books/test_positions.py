"""The model's fast paths (books/positions.py, the walk's sieves, zobrist.child_keys) against python-chess on
corpus books: the same FENs, boards and keys, and sieves that keep every move an ``in`` test keeps."""

from __future__ import annotations

import itertools
from pathlib import Path

import chess
import chess.polyglot
import pytest

from chessformats import ctg, polyglot
from chessformats.books import polyglot as polyglot_books
from chessformats.books.convert import convert_book
from chessformats.books.ctg import occupancy_sieve
from chessformats.books.polyglot import key_sieve
from chessformats.books.positions import pack, unpack, xfen
from chessformats.books.stats import BookStats, MoveStats, PositionStats
from chessformats.books.tree import walk
from chessformats.formats.ctg.position import occupied_squares
from chessformats.formats.zobrist import child_keys
from conftest import find_corpus

BOOK = "picochess_fun.bin"  # 4,046 entries: a few thousand positions and their children in about a second
_SPECIAL = ["rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant, two ways
            "4k3/8/8/8/3pP3/8/8/4K2q b - e3 0 1",  # the capture is pinned: X-FEN keeps the square, legal FEN not
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1",  # castling both ways, promotions onto corners
            "r3k2r/8/8/8/8/8/8/R3K2R b Qk - 7 40"]


def _boards() -> list[chess.Board]:
    """A few rare cases, the positions of a corpus book, and every position one legal move away from the first
    of them (about 9,000 boards)."""
    boards = [chess.Board(fen) for fen in _SPECIAL]
    with polyglot.open_book(find_corpus("polyglot", BOOK)) as book:
        for board, _, _ in walk(book):
            boards.append(board)
    for board in boards[:300]:
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            boards.append(child)
    return boards


@pytest.fixture(scope="module")
def boards() -> list[chess.Board]:
    return _boards()


def test_xfen_and_packed_boards_are_python_chess_s(boards: list[chess.Board]) -> None:
    assert len(boards) > 8_000
    for number, board in enumerate(boards):
        fen = board.fen(en_passant="xfen")
        assert xfen(board) == fen
        parsed, rebuilt = chess.Board(fen), unpack(pack(board))
        assert rebuilt == parsed
        assert (rebuilt.fen(en_passant="fen"), rebuilt.castling_rights, rebuilt.promoted, rebuilt.chess960) == (
            parsed.fen(en_passant="fen"), parsed.castling_rights, parsed.promoted, parsed.chess960)
        if number < 1_000:
            assert list(rebuilt.legal_moves) == list(parsed.legal_moves)


def test_child_keys_are_python_chess_s_keys(boards: list[chess.Board]) -> None:
    count = 0
    for board in boards[:3_000]:
        moves = list(board.legal_moves)
        for move, key in zip(moves, child_keys(board, moves), strict=True):
            board.push(move)
            assert key == chess.polyglot.zobrist_hash(board), (board.fen(), move)
            board.pop()
            count += 1
    assert count > 50_000


def test_polyglot_sieve_keeps_exactly_the_moves_to_unreached_keys(boards: list[chess.Board]) -> None:
    with polyglot.open_book(find_corpus("polyglot", BOOK)) as book:
        keys = {entry.key for entry in book}
        reached = set(list(keys)[::2])
        test = key_sieve(book, reached)
        for board in boards[:1_500]:
            moves = list(board.legal_moves)
            expected = []
            for move in moves:
                board.push(move)
                key = chess.polyglot.zobrist_hash(board)
                board.pop()
                if key in keys and key not in reached:
                    expected.append(move)
            assert test(board, moves) == expected


def test_ctg_sieve_keeps_every_move_to_an_unreached_record(tmp_path: Path, boards: list[chess.Board]) -> None:
    target = tmp_path / "fun.ctg"
    convert_book(find_corpus("polyglot", BOOK), target)
    with ctg.open_book(target) as book:
        signatures = list(book.signatures())
        assert len(signatures) == len(book)
        for record in itertools.islice(book.records(), 500):  # the squares read from the bits, not decoded
            assert occupied_squares(record.signature) == record.board.occupied
        # a record stands for a position and its colour-reversed twin: reached with one side to move only, it is
        # still to be looked for with the other
        reached = {(signature, chess.WHITE) for signature in signatures[::2]} | {
            (signature, chess.BLACK) for signature in signatures[::3]}
        test = occupancy_sieve(book, reached)
        assert test is not None
        kept = tried = 0
        for board in boards[:1_500]:
            moves = list(board.legal_moves)
            hopeful = test(board, moves)
            for move in moves:
                board.push(move)
                wanted = board in book and (book.key(board), board.turn) not in reached
                board.pop()
                assert move in hopeful or not wanted, (board.fen(), move)
            kept, tried = kept + len(hopeful), tried + len(moves)
        assert kept < tried / 4  # a sieve: it spares most of the tests


@pytest.mark.parametrize("name", [BOOK])
def test_walks_with_and_without_the_polyglot_sieve_find_the_same_positions(name: str) -> None:
    def walked(book: polyglot.PolyglotBook, sieved: bool) -> set[str]:
        reached: set[int] = set()
        positions = set()
        for board, found, _ in walk(book, free_plies=1, sieve=(lambda: key_sieve(book, reached)) if sieved else None):
            reached.add(found.key)
            positions.add(board.fen(en_passant="xfen").rsplit(" ", 2)[0])
        return positions

    with polyglot.open_book(find_corpus("polyglot", name)) as book:
        assert walked(book, True) == walked(book, False)


# Chess960 starting positions whose castling rights python-chess keeps only in Chess960 mode: the king off e1/e8
# (rooks on the corners: the rights are the same squares as the standard ones), rooks off the corners
_CHESS960 = ["rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1",  # king d1, rooks a1 h1 (X-FEN)
             "qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/QNBNRKRB w KQkq - 0 1",  # king f1, rooks e1 g1 (X-FEN)
             "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w FDfd - 0 1"]  # king e1, rooks d1 f1 (Shredder-FEN)


def _same_chess960_board(found: chess.Board, fen: str) -> None:
    """``found`` is python-chess's Chess960 board of ``fen``: the flag, the castling rights it keeps, the moves
    (castling as king takes rook) and the Polyglot key."""
    expected = chess.Board(fen, chess960=True)
    assert found.chess960
    assert found.clean_castling_rights() == expected.clean_castling_rights() != 0
    assert set(found.legal_moves) == set(expected.legal_moves)
    assert chess.polyglot.zobrist_hash(found) == chess.polyglot.zobrist_hash(expected)
    assert found.fen() == expected.fen()


@pytest.mark.parametrize("fen", _CHESS960)
def test_the_model_s_boards_of_a_chess960_position_are_chess960_boards(fen: str) -> None:
    chess960 = chess.Board(fen, chess960=True)
    _same_chess960_board(PositionStats(fen).board(), fen)  # from the FEN
    _same_chess960_board(unpack(pack(chess960)), fen)  # packed
    _same_chess960_board(PositionStats(xfen(chess960), packed=pack(chess960)).board(), fen)
    standard = chess.Board(fen.replace(fen.split()[2], "-"))  # without castling rights: no Chess960 needed
    assert not PositionStats(standard.fen()).board().chess960 and not unpack(pack(standard)).chess960


def test_a_polyglot_book_from_the_model_keys_a_chess960_position_as_python_chess(tmp_path: Path) -> None:
    fen = _CHESS960[0]  # the rights drop the key's castling bits outside Chess960 mode (king off e1)
    board = chess.Board(fen, chess960=True)
    move = chess.Move.from_uci("e2e4")
    stats = BookStats(positions={fen: PositionStats(fen, {move: MoveStats(1, 1, 0, 0)})})
    polyglot_books.from_bookstats(tmp_path / "960.bin", stats)
    with chess.polyglot.open_reader(tmp_path / "960.bin") as reader:
        assert [entry.move for entry in reader.find_all(board)] == [move]
