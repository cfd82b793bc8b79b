"""Links that point back: a ChessBase entity tree whose AVL links form a cycle, CTG and Kvetka indexes that point
at themselves or never stop, and books whose moves come back to a position already seen. Every reader must
answer (a result or a ``FormatError``) without looping; each call runs under an alarm.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import signal
import struct
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import chess
import pytest

from chessformats import FormatError, chessbase, ctg, kvetka, polyglot
from chessformats.engine.layout import describe
from chessformats.schemas import chessbase as chessbase_schema
from conftest import find_corpus

T = TypeVar("T")
LIMIT = 20


@contextlib.contextmanager
def limit(seconds: int = LIMIT) -> Iterator[None]:
    def stop(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer in {seconds} s: a loop")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def answer(call: Callable[[], T]) -> T | FormatError:
    """``call()`` under the alarm; a FormatError is returned (an answer), a loop fails the test."""
    with limit():
        try:
            return call()
        except FormatError as exc:
            return exc


def cli(*argv: str) -> int:
    from chessformats.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), limit():
        return main(list(argv))


# --- ChessBase entity trees --------------------------------------------------------------------------------

_NODE = {f.name: f.offset or 0 for f in describe(chessbase_schema.ENTITY_NODE)}


def _players_with_cycle(tmp_path: Path, kind: str) -> tuple[Path, list[str]]:
    """A copy of a database whose players' tree has a cycle: ``self`` (the root is its own left child) or
    ``back`` (the root's left child has the root as its right child)."""
    source = find_corpus("chessbase", "libcbh_ManyPromotions")
    folder = tmp_path / "base"
    shutil.copytree(source, folder)
    for path in folder.iterdir():
        path.chmod(0o644)
    cbh = folder / "ManyPromotions.cbh"
    with chessbase.open_database(cbh) as db:
        players = db.players
        names = [entity.name for entity in players.sorted()]
        root, size, start = players.root, players.record_size, players.header_size
        left = int(players[root].record.left)
        path = Path(players.path)
    data = bytearray(path.read_bytes())
    if kind == "self":
        struct.pack_into("<i", data, start + root * size + _NODE["left"], root)
    else:
        struct.pack_into("<i", data, start + left * size + _NODE["right"], root)
    path.write_bytes(bytes(data))
    return cbh, names


@pytest.mark.parametrize("kind", ["self", "back"])
def test_entity_tree_cycle_is_reported_not_looped(tmp_path: Path, kind: str) -> None:
    cbh, names = _players_with_cycle(tmp_path, kind)
    with chessbase.open_database(cbh) as db:
        findings = answer(db.players.check)
        assert not isinstance(findings, FormatError)
        assert any("tree" in finding or "order" in finding for finding in findings), findings
        for name in names:
            answer(lambda name=name: db.players.find(name))
        answer(lambda: [db.record(n) for n in range(1, db.record_count + 1)])
    assert cli("info", str(cbh)) in (0, 2)
    assert cli("inspect", str(cbh), "--player", names[0]) in (0, 2)


@pytest.mark.parametrize("kind", ["self", "back"])
def test_entity_tree_cycle_is_a_format_error(tmp_path: Path, kind: str) -> None:
    cbh, _ = _players_with_cycle(tmp_path, kind)
    with chessbase.open_database(cbh) as db:
        assert isinstance(answer(lambda: list(db.players.sorted())), FormatError)


# --- CTG: a directory that points at one page, bounds that never stop the walk ------------------------------

def _ctg_copy(tmp_path: Path) -> Path:
    source = find_corpus("ctg", "PowerPlay17-Sicilienne.ctg")
    for extension in (".ctg", ".cto", ".ctb"):
        target = tmp_path / f"book{extension}"
        shutil.copyfile(source.with_suffix(extension), target)
        target.chmod(0o644)
    return tmp_path / "book.ctg"


def _boards() -> list[chess.Board]:
    boards = [chess.Board()]
    for line in (["e4"], ["e4", "c5"], ["e4", "c5", "Nf3"], ["d4"]):
        board = chess.Board()
        for san in line:
            board.push_san(san)
        boards.append(board)
    return boards


def test_ctg_directory_pointing_at_one_page(tmp_path: Path) -> None:
    path = _ctg_copy(tmp_path)
    cto = path.with_suffix(".cto")
    data = bytearray(cto.read_bytes())
    entries = struct.unpack_from(">I", data, 4)[0]
    first = next(p for p in struct.unpack_from(f">{entries}i", data, 16) if p >= 0)
    struct.pack_into(f">{entries}i", data, 16, *([first] * entries))  # every node: the same page
    cto.write_bytes(bytes(data))
    with ctg.open_book(path) as book:
        for board in _boards():
            answer(lambda board=board: book.probe(board))
        answer(book.findings)
    assert cli("info", str(path)) in (0, 2)


def test_ctg_bounds_that_never_stop_the_walk(tmp_path: Path) -> None:
    path = _ctg_copy(tmp_path)
    ctb = path.with_suffix(".ctb")
    data = bytearray(ctb.read_bytes())
    struct.pack_into(">I", data, 8, 0xFFFFFFFF)  # the .ctb's upper bound (bytes 8-11)
    ctb.write_bytes(bytes(data))
    with ctg.open_book(path) as book:
        for board in _boards():
            answer(lambda board=board: book.probe(board))
        answer(book.findings)


# --- Kvetka: an index whose keys all point at the first block ----------------------------------------------

def _kvetka_book(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    from chessformats.books.build import BookBuilder

    find_corpus("pgn", "twic1134-mainlines.pgn")
    builder = BookBuilder(max_ply=12)
    text = find_corpus("pgn", "twic1134-mainlines.pgn").read_text(errors="replace")
    builder.add_pgn_text(text[:text.index("[Event ", 200_000)])
    stem = tmp_path / "book"
    kvetka.write_book(stem, builder.to_stats())
    expected = {}
    with kvetka.open_book(stem) as book:
        assert book.blocks > 2
        for board in _boards():
            found = book.probe(board)
            expected[board.fen()] = None if found is None else (found.moves, found.wins, found.draws, found.losses)
    return stem, expected


def _kin_all_first(stem: Path) -> None:
    kin = stem.with_suffix(".kin")
    data = kin.read_bytes()
    key = data[:kvetka.KEY_SIZE]
    kin.write_bytes(key * (len(data) // kvetka.KEY_SIZE))


def test_kvetka_index_pointing_back_terminates(tmp_path: Path) -> None:
    stem, _ = _kvetka_book(tmp_path)
    _kin_all_first(stem)
    with kvetka.open_book(stem) as book:
        for board in _boards():
            answer(lambda board=board: book.probe(board))
        answer(lambda: kvetka.to_bookstats(book))
        answer(book.findings)
    assert cli("info", str(stem) + "_0.kob") in (0, 2)


def test_kvetka_index_pointing_back_is_detected(tmp_path: Path) -> None:
    stem, expected = _kvetka_book(tmp_path)
    _kin_all_first(stem)
    with kvetka.open_book(stem) as book:
        for board in _boards():
            found = answer(lambda board=board: book.probe(board))
            if isinstance(found, FormatError):
                return
            got = None if found is None else (found.moves, found.wins, found.draws, found.losses)
            assert got == expected[board.fen()], board.fen()


# --- moves that come back: Nf3 Nf6 Ng1 Ng8 --------------------------------------------------------------------

DANCE = """[Event "dance"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 e5 1/2-1/2
"""


def test_books_whose_moves_come_back(tmp_path: Path) -> None:
    from chessformats.books.build import BookBuilder

    builder = BookBuilder(max_ply=20)
    for _ in range(3):
        builder.add_pgn_text(DANCE)
    stats = builder.to_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        polyglot.make_book(tmp_path / "dance.bin", builder, min_games=1)
        ctg.make_book(tmp_path / "dance.ctg", builder, min_games=1)
        kvetka.write_book(tmp_path / "dance", stats)
        with polyglot.open_book(tmp_path / "dance.bin") as book:
            reached = answer(lambda: list(polyglot.reachable_positions(book)))
            assert not isinstance(reached, FormatError)
            assert len(reached) == 5  # start, Nf3, Nf3 Nf6, Nf3 Nf6 Ng1, e4: each once (Ng8 comes back to the start)
        leaf = {"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"}  # after 5. e4 e5 (CTG keeps it)
        with ctg.open_book(tmp_path / "dance.ctg") as book:
            walked = answer(lambda: ctg.to_bookstats(book))
            assert not isinstance(walked, FormatError)
            assert set(stats.positions) <= set(walked.positions) <= set(stats.positions) | leaf
        with kvetka.open_book(tmp_path / "dance") as book:
            walked = answer(lambda: kvetka.to_bookstats(book))
            assert not isinstance(walked, FormatError)
            assert set(walked.positions) == set(stats.positions)
        answer(lambda: ctg.to_polyglot(tmp_path / "dance.ctg", tmp_path / "back.bin"))
        answer(lambda: kvetka.convert(str(tmp_path / "dance"), "kvetka", str(tmp_path / "back2.bin"), "polyglot"))
