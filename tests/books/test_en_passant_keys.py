"""Polyglot keys of positions that come from CTG and Kvetka books carry the en-passant file by Polyglot's rule
(issue 25, item 1): the file is hashed whenever a pawn of the side to move stands beside the pawn that just made
a double step, whether or not the capture is legal (a pinned pawn still counts).

Oracle: python-chess (``chess.polyglot.zobrist_hash`` and its reader ``chess.polyglot.open_reader``). The inputs
are written by hand (a Polyglot book packed with ``struct`` from python-chess's keys) or are the corpus's books.
"""

from __future__ import annotations

import struct
from pathlib import Path

import chess
import chess.polyglot
import pytest

from chessformats import ctg, kvetka
from chessformats.books.convert import convert_book
from chessformats.books.ctg import records_from_stats
from chessformats.books.stats import BookStats, MoveStats, PositionStats
from chessformats.books.tree import fen_key
from conftest import SHARED_ROOT, find_corpus

# a line whose 17th move, 9.f4, is a double step beside black's e4 pawn, pinned against the king by the queen
# on e2: exf3 e.p. is not legal, yet Polyglot (and python-chess) hash the f file (the example, from the
# gnuchess book); the book moves after it are 9...Qxf4
PINNED_LINE = "e4 e5 Nf3 Nc6 Bb5 f5 Nc3 fxe4 Nxe4 d5 Nxe5 dxe4 Nxc6 Qg5 Qe2 Nf6 f4 Qxf4".split()
TARGETS = ("ctg", "kob")


def _raw(move: chess.Move) -> int:
    """A move as Polyglot packs it (to file, to row, from file, from row: 3 bits each; no promotions here)."""
    to, start = move.to_square, move.from_square
    return (to & 7) | (to >> 3) << 3 | (start & 7) << 6 | (start >> 3) << 9


def _line_book(path: Path, line: list[str]) -> list[chess.Board]:
    """A Polyglot book of one line, every entry under python-chess's key; returns the boards of the line."""
    board, rows, boards = chess.Board(), [], []
    for san in line:
        move = board.parse_san(san)
        rows.append((chess.polyglot.zobrist_hash(board), _raw(move), 10, 0))
        boards.append(board.copy())
        board.push(move)
    path.write_bytes(b"".join(struct.pack(">QHHI", *row) for row in sorted(rows)))
    return boards


def _moves_by_python_chess(path: Path, board: chess.Board) -> set[str]:
    with chess.polyglot.open_reader(path) as reader:
        return {entry.move.uci() for entry in reader.find_all(board, minimum_weight=0)}


def test_the_position_after_the_pinned_double_step_is_hashed_with_its_file() -> None:
    """The premise, checked on python-chess: the capture is not legal, the key is not the key without the file."""
    board = chess.Board()
    for san in PINNED_LINE[:-1]:
        board.push_san(san)
    assert board.ep_square == chess.F3 and board.has_pseudo_legal_en_passant() and not board.has_legal_en_passant()
    without = board.copy()
    without.ep_square = None
    assert chess.polyglot.zobrist_hash(board) != chess.polyglot.zobrist_hash(without)


@pytest.mark.parametrize("target", TARGETS)
def test_pinned_en_passant_line_survives_polyglot_to_book_and_back(tmp_path: Path, target: str) -> None:
    source = tmp_path / "line.bin"
    boards = _line_book(source, PINNED_LINE)
    convert_book(source, tmp_path / f"line.{target}")
    written = tmp_path / f"line.{target}" if target == "ctg" else tmp_path / "line_0.kob"
    back = tmp_path / "back.bin"
    convert_book(written, back)
    for board, san in zip(boards, PINNED_LINE, strict=True):
        assert _moves_by_python_chess(back, board) == {board.parse_san(san).uci()}, board.fen()


@pytest.mark.parametrize("target", TARGETS)
def test_book_probed_after_the_pinned_double_step(tmp_path: Path, target: str) -> None:
    """The converted book answers for the board python-chess reaches (its own key of that position)."""
    source = tmp_path / "line.bin"
    boards = _line_book(source, PINNED_LINE)
    convert_book(source, tmp_path / f"line.{target}")
    opener = ctg.open_book if target == "ctg" else kvetka.open_book
    written = tmp_path / f"line.{target}" if target == "ctg" else tmp_path / "line_0.kob"
    with opener(written) as book:
        found = book.probe(boards[-1])
        assert found is not None and [m.move.uci() for m in found.moves] == ["g5f4"]


def _corpus_polyglot_books() -> list[Path]:
    folder = SHARED_ROOT / "corpus" / "polyglot"
    return sorted(folder.glob("*.bin")) if folder.is_dir() else []


def _python_chess_tree(path: Path) -> dict[int, tuple[chess.Board, set[str]]]:
    """Every position of a Polyglot book reached from the start along its moves, by python-chess's key: the
    board and the moves python-chess's reader finds for it."""
    out: dict[int, tuple[chess.Board, set[str]]] = {}
    with chess.polyglot.open_reader(path) as reader:
        queue = [chess.Board()]
        while queue:
            board = queue.pop()
            key = chess.polyglot.zobrist_hash(board)
            if key in out:
                continue
            moves = {e.move.uci() for e in reader.find_all(board, minimum_weight=0)}
            if not moves:
                continue
            out[key] = (board, moves)
            for uci in moves:
                child = board.copy(stack=False)
                child.push(chess.Move.from_uci(uci))
                queue.append(child)
    return out


def _storable(board: chess.Board, uci: str) -> bool:
    """Whether CTG and Kvetka can store the move: no underpromotion (their move tables have none)."""
    move = chess.Move.from_uci(uci)
    return board.is_legal(move) and move.promotion in (None, chess.QUEEN)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", [pytest.param(p.name, marks=[pytest.mark.slow] if p.stat().st_size > 100_000 else [])
                                  for p in _corpus_polyglot_books() if p.stat().st_size <= 500_000]
                         or ["gm2001.bin"])
def test_every_corpus_polyglot_book_round_trips_with_python_chess_keys(tmp_path: Path, name: str,
                                                                       target: str) -> None:
    """Polyglot -> CTG/Kvetka -> Polyglot: every position python-chess reaches in the source (and every move of it
    the target can store) is found by python-chess's reader under python-chess's key in the book written back."""
    source = find_corpus("polyglot", name)
    convert_book(source, tmp_path / f"book.{target}")
    written = tmp_path / f"book.{target}" if target == "ctg" else tmp_path / "book_0.kob"
    if not written.exists():  # nothing reached from the start (an empty book): nothing to compare
        assert not _python_chess_tree(source)
        return
    back = tmp_path / "back.bin"
    convert_book(written, back)
    with chess.polyglot.open_reader(back) as reader:
        for board, moves in _python_chess_tree(source).values():
            found = {e.move.uci() for e in reader.find_all(board, minimum_weight=0)}
            assert {m for m in moves if _storable(board, m)} <= found, board.fen()


def _ctg_tree(book: ctg.CtgBook) -> list[tuple[chess.Board, set[str]]]:
    """Every position of a CTG book reached from the start along its legal moves (by python-chess's key, so that
    positions the key tells apart are each visited), with the moves the book gives."""
    out: list[tuple[chess.Board, set[str]]] = []
    seen: set[int] = set()
    queue = [chess.Board()]
    while queue:
        board = queue.pop()
        key = chess.polyglot.zobrist_hash(board)
        if key in seen:
            continue
        seen.add(key)
        record = book.probe(board)
        if record is None or not record.moves:
            continue
        moves = {m.move.uci() for m in record.moves}
        out.append((board, moves))
        for uci in moves:
            child = board.copy(stack=False)
            child.push(chess.Move.from_uci(uci))
            queue.append(child)
    return out


@pytest.mark.filterwarnings("ignore::chessformats.ctg.MissingIndexWarning")  # simple.ctg has no .cto
@pytest.mark.parametrize("name", ["PowerPlay17-Sicilienne.ctg", "simple.ctg"])
def test_every_corpus_ctg_book_to_polyglot_with_python_chess_keys(tmp_path: Path, name: str) -> None:
    """CTG -> Polyglot: every position reached in the CTG book has its moves under python-chess's key."""
    source = find_corpus("ctg", name)
    out = tmp_path / "book.bin"
    convert_book(source, out)
    with ctg.open_book(source) as book:
        tree = _ctg_tree(book)
    assert tree
    with chess.polyglot.open_reader(out) as reader:
        for board, moves in tree:
            assert {e.move.uci() for e in reader.find_all(board, minimum_weight=0)} == moves, board.fen()


def test_ctg_written_from_twin_positions_counts_their_moves_once() -> None:
    """The model tells apart the position after the pinned double step (the f file in its key) from the same
    position without it, as Polyglot does; CTG keeps the file only for a legal capture, so both are one record,
    whose moves (the same moves: a book read from CTG gives both the record's statistics) count once."""
    board = chess.Board()
    for san in PINNED_LINE[:-1]:
        board.push_san(san)
    twin = board.copy(stack=False)
    twin.ep_square = None
    reply = board.parse_san("Qxf4")
    stats = BookStats(positions={
        fen_key(position): PositionStats(position.fen(en_passant="xfen"), {reply: MoveStats(7, 3, 2, 2)})
        for position in (board, twin)})
    assert len(stats) == 2  # python-chess's keys of the two differ (the premise test above)
    records, skipped = records_from_stats(stats)
    assert not skipped
    (record,) = [r for r in records if r.moves]
    assert (record.games, record.wins, record.draws, record.losses) == (7, 3, 2, 2)


@pytest.mark.parametrize("target", TARGETS)
def test_books_built_from_games_keep_the_pinned_double_step_apart(tmp_path: Path, target: str) -> None:
    """A Kvetka (or CTG) book built from games: the position after 9.f4 is found for python-chess's board (the
    builder's model lost the square, and Kvetka's key keeps it)."""
    from chessformats.books.build import BookBuilder

    pgn = tmp_path / "pinned.pgn"
    board = chess.Board()
    sans = []
    for san in PINNED_LINE:
        sans.append((f"{board.fullmove_number}. " if board.turn else "") + san)
        board.push_san(san)
    pgn.write_text('[Result "0-1"]\n\n' + " ".join(sans) + " 0-1\n")
    builder = BookBuilder()
    builder.add_pgn(pgn)
    module = ctg if target == "ctg" else kvetka
    module.make_book(tmp_path / f"book.{target}", builder, min_games=1)
    written = tmp_path / f"book.{target}" if target == "ctg" else tmp_path / "book_0.kob"
    with module.open_book(written) as book:  # type: ignore[attr-defined]
        found = book.probe(board_before_last := _board_after(PINNED_LINE[:-1]))
        assert found is not None and [m.move for m in found.moves] == [board_before_last.parse_san("Qxf4")]


def _board_after(line: list[str]) -> chess.Board:
    board = chess.Board()
    for san in line:
        board.push_san(san)
    return board


# --- positions reached through a move outside the book (issue 25, item 6) ----------------------------------------

REPERTOIRE = {  # white's moves after each line (black's replies are not in the book: a one-sided repertoire)
    (): "e4",
    ("e4", "e5"): "Nf3",
    ("e4", "c5"): "Nc3",
    ("e4", "e5", "Nf3", "Nc6"): "Bb5",
    ("e4", "c5", "Nc3", "Nc6"): "g3",
}


def _repertoire_book(path: Path) -> dict[int, tuple[chess.Board, str]]:
    rows, boards = [], {}
    for line, san in REPERTOIRE.items():
        board = _board_after(list(line))
        move = board.parse_san(san)
        key = chess.polyglot.zobrist_hash(board)
        rows.append((key, _raw(move), 1, 0))
        boards[key] = (board, move.uci())
    path.write_bytes(b"".join(struct.pack(">QHHI", *row) for row in sorted(rows)))
    return boards


@pytest.mark.parametrize("target", TARGETS)
def test_a_one_sided_repertoire_is_converted_whole(tmp_path: Path, target: str) -> None:
    """Every position of a white repertoire (black's replies not in the book) is reached through one free ply,
    in both directions: Polyglot -> CTG/Kvetka -> Polyglot keeps every entry under python-chess's key."""
    source = tmp_path / "white.bin"
    boards = _repertoire_book(source)
    report = convert_book(source, tmp_path / f"white.{target}")
    assert report.counts["positions"] >= len(REPERTOIRE) and not report.counts.get("not reached")
    written = tmp_path / f"white.{target}" if target == "ctg" else tmp_path / "white_0.kob"
    back = tmp_path / "back.bin"
    report = convert_book(written, back)
    for board, uci in boards.values():
        assert _moves_by_python_chess(back, board) == {uci}, board.fen()


def test_the_search_through_free_plies_can_be_turned_off(tmp_path: Path) -> None:
    source = tmp_path / "white.bin"
    _repertoire_book(source)
    from chessformats import polyglot
    from chessformats.books.polyglot import to_bookstats

    with polyglot.open_book(source) as book:
        assert len(to_bookstats(book, free_plies=0)) == 1 and to_bookstats(book, free_plies=0).unreached == 4
        assert len(to_bookstats(book)) == len(REPERTOIRE) and to_bookstats(book).unreached == 0
