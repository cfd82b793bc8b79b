"""Kvetka books: reading, probing, writing, round trips, multi-file books, sources, conversions.

There is no Kvetka book or program to compare with: the byte-level vectors are in
tests/schemas/test_kvetka_schema.py (worked out by hand from the spec); here the reader and the writer are
checked against each other, against construct's parse of the declarations, and against the Polyglot and
CTG books built from the same games.
"""

from __future__ import annotations

import io
import os
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import kvetka
from chessformats.books.stats import BookStats, MoveStats, PositionStats
from chessformats.engine.errors import FormatError, TruncatedError, UnsupportedError
from chessformats.engine.trace import parse
from chessformats.schemas import kvetka as schema

GAMES = """
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 3. Nxe5 d6 1/2-1/2

[Result "0-1"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 0-1

[Result "1-0"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 1-0
"""


def games_stats(text: str = GAMES) -> BookStats:
    stats = BookStats()
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        stats.add_game(game)
    return stats


def board_after(*sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


@pytest.fixture
def small_book(tmp_path: Path) -> Path:
    kvetka.write_book(tmp_path / "small.kob", games_stats(), caption="four games",
                      openings={chess.STARTING_FEN: "A00|Start", board_after("e4", "e5").fen():
                                kvetka.Opening("C20", "King's Pawn Game"),
                                board_after("e4", "c5").fen(): "B50|Sicilian Defence|Main Line"})
    return tmp_path / "small"


# --- probing -----------------------------------------------------------------------------------------------

def test_probe_start_and_replies(small_book: Path) -> None:
    with kvetka.open_book(small_book) as book:
        assert book.caption == "four games" and book.blocks == 1
        start = book.probe(chess.Board())
        assert start is not None
        # the start position: white won 2, drew 1, lost 1; e4 (3 games) before d4 (1 game)
        assert (start.wins, start.draws, start.losses) == (2, 1, 1)
        assert start.moves == (chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4"))
        assert start.opening == kvetka.Opening("A00", "Start", None)
        after_e4 = book.probe(board_after("e4"))
        assert after_e4 is not None and after_e4.flipped and not after_e4.mirrored
        # black to move after 1. e4: three games, black lost 2, drew 1
        assert (after_e4.wins, after_e4.draws, after_e4.losses) == (0, 1, 2)
        assert set(after_e4.moves) == {chess.Move.from_uci("e7e5"), chess.Move.from_uci("c7c5")}
        sicilian = book.probe(board_after("e4", "c5"))
        assert sicilian is not None
        assert sicilian.opening == kvetka.Opening("B50", "Sicilian Defence", "Main Line")
        assert book.probe(board_after("a4")) is None
        assert board_after("e4", "e5", "Nf3") in book
        # the last stored positions have no moves but their results
        leaf = book.probe(board_after("e4", "e5", "Nf3", "Nc6", "Bb5", "a6"))
        assert leaf is not None and leaf.moves == () and (leaf.wins, leaf.losses) == (1, 0)  # white won


def test_iteration_is_in_key_order(small_book: Path) -> None:
    with kvetka.open_book(small_book) as book:
        keys = [element.key for element in book]
        assert keys == sorted(keys) and len(keys) == len(set(keys)) == len(book)
        for element in book:  # the fast reader agrees with construct's parse of the stored bytes
            stored = book._read(element.offset or 0, len(element.to_bytes()))
            parsed = parse(schema.ELEMENT, stored)
            assert stored == element.to_bytes()
            assert (parsed.body.wins, parsed.body.draws, parsed.body.losses) == (element.wins, element.draws,
                                                                                 element.losses)
            assert schema.KEY.build(parsed.body.key) == element.key
            assert [schema.MOVE_CODE.build(code)[0] for code in parsed.body.moves] == list(element.codes)
            assert parsed.body.comment == element.comment and parsed.body.extra == element.extra


def test_open_by_any_file(small_book: Path) -> None:
    for name in ("small", "small_0.kob", "small.kin"):
        with kvetka.open_book(small_book.parent / name) as book:
            assert book.kob_paths == [str(small_book.parent / "small_0.kob")]
    with pytest.raises(FormatError):
        kvetka.open_book(small_book.parent / "missing")


def test_opening_comments_of_the_spec(spec_path: Callable[..., Path]) -> None:
    text = spec_path("kvetka.ru.txt").read_text(encoding="utf-8")
    examples = re.findall(r"^\s*([A-E]\d\d\|[^\n]+?)\s*$", text, re.MULTILINE)
    assert examples == ["E98|<основное название>|<название варианта>", "A41|Queen's Pawn",
                        "B33|Sicilian Defence|Pelikan, Bird Variation"]
    assert kvetka.parse_opening(examples[1]) == kvetka.Opening("A41", "Queen's Pawn", None)
    assert kvetka.parse_opening(examples[2]) == kvetka.Opening("B33", "Sicilian Defence", "Pelikan, Bird Variation")
    assert kvetka.parse_opening("just a note") is None and kvetka.parse_opening("Z99|x") is None
    assert kvetka.Opening("B33", "Sicilian Defence", "Pelikan").comment() == "B33|Sicilian Defence|Pelikan"


def test_kin_with_the_wrong_count_is_replaced_by_a_scan(small_book: Path) -> None:
    kin = Path(str(small_book) + ".kin")
    kin.write_bytes(kin.read_bytes() * 2)
    with kvetka.open_book(small_book) as book:
        assert any("2 keys for 1 blocks" in f for f in book.findings())
        assert book.probe(chess.Board()) is not None
    kin.write_bytes(kin.read_bytes()[:-1])
    with pytest.raises(TruncatedError):
        kvetka.open_book(small_book)


def test_without_kin_the_blocks_are_scanned(small_book: Path) -> None:
    os.unlink(str(small_book) + ".kin")
    with kvetka.open_book(small_book) as book:
        assert book.kin_path is None and any("no .kin" in f for f in book.findings())
        assert book.probe(board_after("d4", "d5")) is not None


def test_symmetric_positions_share_an_element(tmp_path: Path) -> None:
    # no castling, white king on d1: stored mirrored; the mirror image with the king on e1 is the same key
    left = chess.Board("3k4/8/8/8/8/8/3P4/3K4 w - - 0 1")
    right = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    stats = BookStats(positions={"x": PositionStats(left.fen(), {chess.Move.from_uci("d2d4"): MoveStats(1, 1)})})
    kvetka.write_book(tmp_path / "sym", stats)
    with kvetka.open_book(tmp_path / "sym") as book:
        probed = book.probe(right)
        assert probed is not None and probed.moves == (chess.Move.from_uci("e2e4"),)
        found = book.probe(left)
        assert found is not None and found.mirrored and found.moves == (chess.Move.from_uci("d2d4"),)


# --- writing -----------------------------------------------------------------------------------------------

def test_write_read_same_model(small_book: Path) -> None:
    stats = games_stats()
    with kvetka.open_book(small_book) as book:
        back = book.to_bookstats()
    # the games form a tree (no transpositions), so every move's results come back from its child element
    assert {p: {m: (s.games, s.wins, s.draws, s.losses) for m, s in v.moves.items()}
            for p, v in back.positions.items()} == \
           {p: {m: (s.games, s.wins, s.draws, s.losses) for m, s in v.moves.items()}
            for p, v in stats.positions.items()}


def test_read_write_same_bytes(small_book: Path, tmp_path: Path) -> None:
    with kvetka.open_book(small_book) as book:
        kvetka.write_book(tmp_path / "copy", book)
    for suffix in ("_0.kob", ".kin"):
        assert (tmp_path / f"copy{suffix}").read_bytes() == Path(str(small_book) + suffix).read_bytes()


def many_games(count: int, seed: int, plies: int = 16) -> BookStats:
    rng = random.Random(seed)
    stats = BookStats()
    for _ in range(count):
        game = chess.pgn.Game()
        game.headers["Result"] = rng.choice(["1-0", "0-1", "1/2-1/2"])
        node: chess.pgn.GameNode = game
        board = chess.Board()
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            node = node.add_variation(move)
            board.push(move)
        stats.add_game(game)
    return stats


def test_blocks_and_files_split(tmp_path: Path) -> None:
    stats = many_games(300, 1)
    one = kvetka.write_book(tmp_path / "one", stats)
    assert one.blocks > 8 and len(one.kob_paths) == 1
    limit = 5 * schema.BLOCK_SIZE
    split = kvetka.write_book(tmp_path / "split.kob", stats, file_limit=limit)
    assert len(split.kob_paths) > 2 and split.blocks == one.blocks
    sizes = [os.path.getsize(p) for p in split.kob_paths]
    assert all(size <= limit for size in sizes)
    header = len(schema.HEADER.build(schema.HEADER.parse(Path(split.kob_paths[0]).read_bytes())))
    assert (sizes[0] - header) % schema.BLOCK_SIZE == 0  # the header in _0.kob only, files end on blocks
    assert all(size % schema.BLOCK_SIZE == 0 for size in sizes[1:])
    # together the files are byte for byte the single-file book
    joined = b"".join(Path(p).read_bytes() for p in split.kob_paths)
    assert joined == Path(one.kob_paths[0]).read_bytes()
    assert (tmp_path / "split.kin").read_bytes() == (tmp_path / "one.kin").read_bytes()
    # every block is full up to the next element (greedy fill) and no element passes 682 bytes
    with kvetka.open_book(tmp_path / "split") as book:
        assert book.blocks == one.blocks and len(book) == one.elements
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
    paths = [Path(p) for p in result.kob_paths]
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
    assert len(big.kob_paths) > 1 and (tmp_path / "b.ksf").exists()
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
    assert result.blocks == 0
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
    assert result.ksf_path == str(tmp_path / "s.ksf")
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


# --- robustness ------------------------------------------------------------------------------------------------

def test_unsupported_type(small_book: Path) -> None:
    path = Path(str(small_book) + "_0.kob")
    data = bytearray(path.read_bytes())
    data[0] = 2
    path.write_bytes(bytes(data))
    with pytest.raises(UnsupportedError) as error:
        kvetka.open_book(small_book)
    assert error.value.path == "header.type" and error.value.offset == 0


def test_truncated_and_huge_lengths(small_book: Path) -> None:
    path = Path(str(small_book) + "_0.kob")
    good = path.read_bytes()
    path.write_bytes(good[:-1])
    with pytest.raises(TruncatedError) as error:
        kvetka.open_book(small_book)
    assert "block 0" in str(error.value)
    path.write_bytes(good[:1] + b"\xff\xff\xff\xff" + good[5:])  # a caption of 4 billion characters
    with pytest.raises(TruncatedError):
        kvetka.open_book(small_book)


def corrupt(data: bytes, seed: int, count: int) -> bytes:
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(count):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), count=st.integers(1, 8), target=st.sampled_from(["_0.kob", ".kin", ".ksf"]))
def test_corrupted_books_raise_format_errors_only(tmp_path_factory: pytest.TempPathFactory, seed: int, count: int,
                                                   target: str) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    kvetka.write_book(folder / "f", games_stats(), openings={chess.STARTING_FEN: "A00|Start"},
                      sources=[kvetka.KvetkaSource(1, "a.pgn", (kvetka.KvetkaGame(0, 1, "a", "b"),))],
                      references={chess.STARTING_FEN: (0, 0)})
    path = folder / f"f{target}"
    path.write_bytes(corrupt(path.read_bytes(), seed, count))
    try:
        with kvetka.open_book(folder / "f") as book:
            for element in book:
                book.element_board(element)
            for board in (chess.Board(), board_after("e4"), board_after("d4", "d5")):
                book.probe(board)
            book.findings()
    except FormatError:
        pass


# --- property tests: random positions, moves, results, strings -------------------------------------------------

@st.composite
def positions(draw: st.DrawFn) -> tuple[chess.Board, list[chess.Move]]:
    board = chess.Board()
    for _ in range(draw(st.integers(0, 40))):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    legal = list(board.legal_moves)
    chosen = draw(st.lists(st.sampled_from(legal), unique=True, max_size=12)) if legal else []
    return board, chosen


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
            assert [kvetka.encode_move(board, m) for m in found.moves] == list(element.codes)
            assert (found.wins, found.draws, found.losses) == (element.wins, element.draws, element.losses)
        kvetka.write_book(folder / "again", book, file_limit=3 * schema.BLOCK_SIZE)
    for name in os.listdir(folder):
        if name.startswith("p"):
            assert (folder / name).read_bytes() == (folder / ("again" + name[1:])).read_bytes()


@settings(max_examples=200, deadline=None)
@given(position=positions())
def test_keys_decode_to_the_normalised_board(position: tuple[chess.Board, list[chess.Move]]) -> None:
    board, moves = position
    key = kvetka.position_key(board)
    norm, padding = kvetka.decode_key(key)
    assert padding == 0
    expected = board.mirror() if board.turn == chess.BLACK else board.copy()
    if not expected.clean_castling_rights() and chess.square_file(expected.king(chess.WHITE) or 4) < 4:
        expected = expected.transform(chess.flip_horizontal)
    assert norm.board_fen() == expected.board_fen()
    assert norm.castling_rights == expected.clean_castling_rights()
    assert kvetka.position_key(norm) == key  # the normalised board is its own normal form
    for move in moves:
        code = kvetka.encode_move(board, move)
        if code is not None:
            assert kvetka.decode_move(board, code) == move


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
    stats = BookStats()
    handle = io.StringIO(data.decode())
    while (game := chess.pgn.read_game(handle)) is not None:
        stats.add_game(game, max_ply=2)
    kvetka.write_book(tmp_path / "g", stats, sources=sources, references=references)
    with kvetka.open_book(tmp_path / "g") as book:
        for sans, game in (([], 0), (["e4"], 0), (["e4", "e5"], 0), (["d4", "d5"], 1)):
            found = book.probe(board_after(*sans))
            assert found is not None and found.source is not None
            assert found.source.game_in_source == game
            start = found.source.position
            assert data[start:start + found.source.game.length].startswith(b"[Event")  # the address is the game


def test_flags_ignored_without_game_references(tmp_path: Path) -> None:
    # element_type bit 0 clear: flags bits 1 and 2 are ignored, what follows the flags is extra data
    key = kvetka.position_key(chess.Board())
    element = kvetka.Element(key, 1, 0, 0, (0x11,), 0x04, None, None, None, bytes(range(6)))
    kvetka.write_book(tmp_path / "n", [element])
    with kvetka.open_book(tmp_path / "n") as book:
        assert not book.keeps_games
        read = next(iter(book))
        assert read == element and read.source is None and read.extra == bytes(range(6))
        kvetka.write_book(tmp_path / "again", book)
    assert (tmp_path / "again_0.kob").read_bytes() == (tmp_path / "n_0.kob").read_bytes()
    # the same bytes in a book that keeps game references: bit 2 announces a 6-byte reference
    data = bytearray((tmp_path / "n_0.kob").read_bytes())
    caption_end = 1 + 4
    data[caption_end + 8 + 1] = 0x01  # element_type: bit 0 set (after the ELO filters and max_move)
    (tmp_path / "n_0.kob").write_bytes(bytes(data))
    with kvetka.open_book(tmp_path / "n") as book:
        assert book.keeps_games and next(iter(book)).source == (0x0001, 0x02030405)
