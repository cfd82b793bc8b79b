"""The contract every format keeps (``chessformats.contract``), checked on every format and every corpus file.

Books (Polyglot, CTG, Kvetka): a context manager; ``list``, ``len``, ``[i]`` and iteration agree; ``probe`` of a
board or of the book's key answers a :class:`~chessformats.contract.BookPosition` (or ``None``) whose moves are
:class:`~chessformats.contract.BookMove`\\ s, statistics in the order wins, draws, losses; python-chess's
``find_all``/``find``/``get``/``choice``/``weighted_choice`` keep python-chess's meanings (checked against
``chess.polyglot`` itself on the Polyglot corpus); a closed book refuses use with ``ClosedError``. Every writer
returns the :class:`~chessformats.contract.WriteReport`.

Game collections (ChessBase bases, Monty files): ``list`` and ``len`` agree, ``[n]`` (ChessBase's game numbers
from 1, Monty's from 0) gives the game iteration gives, a closed collection refuses use.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import chess.polyglot
import pytest

from chessbase_corpus import cbh_path
from chessformats import chessbase, ctg, kvetka, monty, polyglot
from chessformats.books.convert import convert_book
from chessformats.contract import BookMove, BookPosition, ClosedError, GameCollection, OpeningBook, WriteReport
from conftest import find_corpus
from ctg_oracles import BOOK
from kvetka_examples import games_stats, many_games, write_small_book

POLYGLOT_BOOKS = ["gm2001.bin", "lasker-trap.bin", "performance.bin", "performance_pre2019.bin", "picochess_fun.bin",
                  "rodent3_cat.bin", "rodent3_cs.bin", "rodent3_empty.bin", "rodent3_grandpa.bin", "rodent3_guide.bin",
                  "rodent3_micro.bin", "rodent3_reti.bin"]
CTG_BOOKS = [BOOK[-1], "simple.ctg"]
KVETKA_BOOKS = ["small", "many", "from-ctg"]
"""No real Kvetka book exists (notes/kvetka.md): books written from hand-checked games, and the corpus CTG book
converted."""


def _open_polyglot(name: str, tmp_path: Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unsorted books warn
        return polyglot.open_book(find_corpus("polyglot", name), strict=False)


def _open_ctg(name: str, tmp_path: Path) -> Any:
    return ctg.open_book(find_corpus("ctg", name))


def _open_kvetka(name: str, tmp_path: Path) -> Any:
    if name == "small":
        return kvetka.open_book(write_small_book(tmp_path))
    if name == "many":
        kvetka.write_book(tmp_path / "many", many_games(60, 7))
        return kvetka.open_book(tmp_path / "many")
    convert_book(find_corpus(*BOOK), tmp_path / "from-ctg.kob")
    return kvetka.open_book(tmp_path / "from-ctg")


BOOKS = ([pytest.param(_open_polyglot, name, id=f"polyglot-{name}") for name in POLYGLOT_BOOKS]
         + [pytest.param(_open_ctg, name, id=f"ctg-{name}") for name in CTG_BOOKS]
         + [pytest.param(_open_kvetka, name, id=f"kvetka-{name}") for name in KVETKA_BOOKS])


def _positions(book: Any, limit: int = 60) -> Iterator[chess.Board]:
    """Boards reached from the start along the book's moves (breadth first), and one board never in a book."""
    queue, seen = [chess.Board()], set()
    while queue and len(seen) < limit:
        board = queue.pop(0)
        if board.fen() in seen:
            continue
        seen.add(board.fen())
        yield board
        found = book.probe(board)
        for move in found.moves if found is not None else ():
            child = board.copy(stack=False)
            child.push(move.move)
            queue.append(child)
    yield chess.Board("8/8/8/4k3/8/8/8/K1Q5 w - - 0 1")


def _same_moves(position: Any) -> list[chess.Move]:
    return [move.move for move in position.moves]


@pytest.mark.parametrize(("opener", "name"), BOOKS)
def test_book_keeps_the_contract(opener: Callable[[str, Path], Any], name: str, tmp_path: Path) -> None:
    with opener(name, tmp_path) as book:
        assert isinstance(book, OpeningBook)
        # the container: list, len, [i] and iteration agree
        items = list(book)
        assert len(items) == len(book)
        for index in {0, len(items) // 2, len(items) - 1} if items else ():
            assert book[index] == items[index]
            assert book[index - len(items)] == items[index]
        with pytest.raises(IndexError):
            book[len(items)]
        # probes: by board and by key, one answer shape
        stats_none = None
        for board in _positions(book):
            found = book.probe(board)
            if found is None:
                assert board not in book and book.key(board) not in book
                assert list(book.find_all(board, minimum_weight=0)) == []
                with pytest.raises(IndexError):
                    book.find(board)
                assert book.get(board) is None and book.get(board, "none") == "none"
                with pytest.raises(IndexError):
                    book.choice(board, random=1)
                with pytest.raises(IndexError):
                    book.weighted_choice(board, random=1)
                continue
            assert isinstance(found, BookPosition) and board in book
            assert found.board == board and found.key == book.key(board)
            results = (found.wins, found.draws, found.losses)
            assert all(value is None for value in results) or all(isinstance(value, int) for value in results)
            if stats_none is None:
                stats_none = results[0] is None
            assert (results[0] is None) == stats_none  # one format, one kind of answer
            if not stats_none:
                assert found.games >= sum(results)  # type: ignore[arg-type]
            for move in found.moves:
                assert isinstance(move, BookMove) and isinstance(move.move, chess.Move)
                assert board.is_legal(move.move)
            by_key = book.probe(book.key(board))
            assert by_key is not None and by_key.key == found.key
            assert len(book.probe(book.key(board), legal_only=False).moves) >= len(found.moves)
            # python-chess's vocabulary, with the weights find_all gives
            weighted = list(book.find_all(board, minimum_weight=0))
            assert [move.move for move in weighted] == _same_moves(found)
            assert all(isinstance(move.weight, int) for move in weighted)
            assert list(book.find_all(board)) == [move for move in weighted if move.weight >= 1]
            positive = [move for move in weighted if move.weight > 0]
            if positive:
                best = max(positive, key=lambda move: move.weight)
                assert book.find(board) == best == book.get(board)
                assert book.choice(board, random=random.Random(5)) in positive
                assert book.weighted_choice(board, random=random.Random(5)) in positive
                excluded = {best.move}
                assert all(move.move != best.move for move in book.find_all(board, exclude_moves=excluded))
            else:
                with pytest.raises(IndexError):
                    book.weighted_choice(board, random=1)
    # closed: every use refuses, naming the file
    for use in (lambda: book.probe(chess.Board()), lambda: len(book), lambda: list(book), lambda: book[0],
                lambda: list(book.find_all(chess.Board()))):
        with pytest.raises(ClosedError, match="closed"):
            use()


@pytest.mark.parametrize("name", POLYGLOT_BOOKS)
def test_polyglot_answers_as_python_chess(name: str) -> None:
    """Code written for ``chess.polyglot.open_reader`` gives the same answers through chessformats: find_all, find,
    get, choice (uniform) and weighted_choice, the same draws for the same seeds."""
    path = find_corpus("polyglot", name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = polyglot.open_book(path, strict=False)
    with ours, chess.polyglot.open_reader(path) as theirs:
        assert ours.sorted  # python-chess's reader bisects: every corpus book is sorted, as Polyglot writes them
        for board in _positions(ours, limit=40):
            for minimum in (0, 1, 3):
                mine = [entry[:5] for entry in ours.find_all(board, minimum_weight=minimum)]
                assert mine == [tuple(entry) for entry in theirs.find_all(board, minimum_weight=minimum)]
            assert (ours.get(board) or (None,))[:5] == tuple(theirs.get(board) or (None,))
            for seed in range(5):
                a, b = random.Random(seed), random.Random(seed)
                for draw in ("choice", "weighted_choice"):  # the same generator, drawn from in the same order
                    try:
                        expected = getattr(theirs, draw)(board, random=b)
                    except IndexError:
                        with pytest.raises(IndexError):
                            getattr(ours, draw)(board, random=a)
                    else:
                        assert getattr(ours, draw)(board, random=a)[:5] == tuple(expected)


SNIPPET = """
import random
import chess
from {module} import open_reader

answers = []
with open_reader(PATH) as reader:
    board = chess.Board()
    for ply in range(12):
        entries = [(entry.move.uci(), entry.weight) for entry in reader.find_all(board)]
        main = reader.get(board)
        if main is None:
            break
        pick = reader.weighted_choice(board, random=random.Random(ply))
        uniform = reader.choice(board, random=random.Random(ply))
        answers.append((entries, main.move.uci(), pick.move.uci(), uniform.move.uci(), reader.find(board).weight))
        board.push(pick.move)
"""


@pytest.mark.parametrize("name", ["gm2001.bin", "performance.bin", "rodent3_cs.bin"])
def test_a_chess_polyglot_snippet_runs_unchanged(name: str) -> None:
    """A snippet written for ``chess.polyglot`` gives the same answers with only its import changed."""
    path = str(find_corpus("polyglot", name))
    answers = []
    for module in ("chess.polyglot", "chessformats.polyglot"):
        scope: dict[str, Any] = {"PATH": path}
        exec(SNIPPET.format(module=module), scope)
        answers.append(scope["answers"])
    assert answers[0] == answers[1] and len(answers[0]) >= 3


def test_every_book_writer_returns_the_report(tmp_path: Path) -> None:
    stats = games_stats()
    reports: dict[str, WriteReport] = {
        "polyglot.write_book": polyglot.write_book(tmp_path / "a.bin", {chess.STARTING_FEN: {"e2e4": 3, "d2d4": 1}}),
        "polyglot.from_bookstats": polyglot.from_bookstats(tmp_path / "b.bin", stats),
        "ctg.write_book": ctg.write_book(tmp_path / "c.ctg", stats),
        "ctg.from_bookstats": ctg.from_bookstats(tmp_path / "d.ctg", stats),
        "kvetka.write_book": kvetka.write_book(tmp_path / "e", stats),
        "kvetka.from_bookstats": kvetka.from_bookstats(tmp_path / "f", stats),
        "convert_book": convert_book(tmp_path / "d.ctg", tmp_path / "g.kob"),
    }
    reports["polyglot.merge_books"] = polyglot.merge_books(tmp_path / "a.bin", tmp_path / "b.bin", tmp_path / "h.bin")
    units = {"polyglot": "entries", "ctg": "records", "kvetka": "elements", "convert_book": "elements"}
    openers = {"entries": polyglot.open_book, "records": ctg.open_book, "elements": kvetka.open_book}
    for writer, report in reports.items():
        assert type(report) in (WriteReport, kvetka.WriteResult), writer
        assert report.unit == units[writer.split(".")[0]], writer
        assert report.files[0] == report.path and all(Path(name).exists() for name in report.files), writer
        with openers[report.unit](report.path) as written:
            assert len(written) == report.written > 0, writer
        assert str(report.written) in report.summary().replace(",", "")


CHESSBASE_BASES = ["libcbh_Annotation", "libcbh_Chess960Biel", "libcbh_Chess960Corrupt", "libcbh_Chess960NonStandard",
                   "libcbh_ManyPromotions", "libcbh_NonStandard", "libcbh_NormalGames", "libcbh_NormalNoPop",
                   "libcbh_UnusualStart", "libcbh_WithVariations", "morphy_hedgehog", "morphy_linares_old",
                   "morphy_mate2_veryold", "morphy_test_annotations", "morphy_text", "uncbv_small",
                   "uncbv_twic1134"]
MONTY_FILES = ["reference_generated_policy.montyformat", "reference_generated_value.montyvalue"]
COLLECTIONS = ([pytest.param(lambda name: chessbase.open_database(cbh_path(name)), name, id=f"chessbase-{name}")
                for name in CHESSBASE_BASES]
               + [pytest.param(lambda name: monty.open_games(find_corpus("monty", name)), name, id=f"monty-{name}")
                  for name in MONTY_FILES])


@pytest.mark.parametrize(("opener", "name"), COLLECTIONS)
def test_game_collection_keeps_the_contract(opener: Callable[[str], Any], name: str) -> None:
    with opener(name) as games:
        assert isinstance(games, GameCollection)
        items = list(games)
        assert len(items) == len(games)
        if name in CHESSBASE_BASES:  # the records hold the games, the guiding texts and deleted games
            assert len(items) + len(list(games.guiding_texts())) <= games.record_count
        else:
            assert items
        for index, game in enumerate(items):
            number = game.number if name in CHESSBASE_BASES else index  # ChessBase's numbers; Monty's from 0
            assert games[number] == game, number
        if name in MONTY_FILES:
            assert games[-1] == items[-1]
            with pytest.raises(IndexError):
                games[len(items)]
        else:
            assert [game.number for game in items] == sorted(game.number for game in items)
            with pytest.raises(IndexError):
                games[0]  # ChessBase numbers from 1
    first = 1 if name in CHESSBASE_BASES else 0
    for use in (lambda: len(games), lambda: list(games), lambda: games[first]):
        with pytest.raises(ClosedError, match="closed"):
            use()


def test_game_writers_return_the_report(tmp_path: Path) -> None:
    with chessbase.open_database(cbh_path("morphy_linares_old")) as db:
        games = [game.to_pgn() for game in db]
    reports = {
        "chessbase.write_database": chessbase.write_database(tmp_path / "a.cbh", games),
        "chessbase.copy_database": chessbase.copy_database(cbh_path("morphy_linares_old"), tmp_path / "b.cbh"),
    }
    with monty.open_games(find_corpus("monty", MONTY_FILES[0])) as source:
        plays = list(source)
    reports["monty.write_games"] = monty.write_games(tmp_path / "c.montyformat", plays)
    for writer, report in reports.items():
        assert isinstance(report, WriteReport) and report.files[0] == report.path, writer
        assert all(Path(name).exists() for name in report.files), writer
    assert reports["chessbase.write_database"].written == len(games) == reports["chessbase.copy_database"].written
    with chessbase.open_database(tmp_path / "a.cbh") as written:
        assert len(written) == len(games)
    assert reports["monty.write_games"].written == len(plays)
    assert (tmp_path / "c.montyformat").read_bytes() == find_corpus("monty", MONTY_FILES[0]).read_bytes()
