"""Bad input never escapes as anything but a FormatError, and the small book model counts results right."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import FormatError
from chessformats.books.stats import BookStats
from chessformats.polyglot import UnsortedBookWarning, open_book, weights_from_stats, write_book


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_random_bytes_open_or_raise_format_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(data)
    try:
        with open_book(path) as book:
            for entry in book:
                assert 0 <= entry.raw_move < 1 << 16
            book.probe(chess.Board())
            book.probe(0x463B96181691FC9C)
    except FormatError as exc:
        assert exc.file == str(path) and exc.offset is not None and 0 <= exc.offset <= len(data)
        assert str(exc).startswith("random.bin: offset ")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(st.tuples(st.sampled_from([0x463B96181691FC9C, 1, 2]), st.integers(0, 0xFFFF),
                                  st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF)), max_size=12))
def test_lenient_open_keeps_but_never_probes_invalid_moves(tmp_path: Path,
                                                           entries: list[tuple[int, int, int, int]]) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(b"".join(k.to_bytes(8, "big") + m.to_bytes(2, "big") + w.to_bytes(2, "big") + lr.to_bytes(4, "big")
                              for k, m, w, lr in entries))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedBookWarning)
        book = open_book(path, strict=False)
    with book:
        assert [(e.key, e.raw_move, e.weight, e.learn) for e in book] == entries  # nothing lost
        for key in (0x463B96181691FC9C, 1, 2):
            for entry in book.probe(key, legal_only=False):
                raw = entry.raw_move
                # a valid Polyglot move: bit 15 clear, promotion 0..4, origin != destination,
                # promotions only from the 7th to the 8th rank or from the 2nd to the 1st
                assert raw >> 15 == 0 and (raw >> 12) & 7 <= 4 and raw & 63 != (raw >> 6) & 63
                if (raw >> 12) & 7:
                    assert ((raw >> 9) & 7, (raw >> 3) & 7) in ((6, 7), (1, 0))
        if any(book.invalid_entries):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnsortedBookWarning)
                with pytest.raises(FormatError):
                    open_book(path)


GAMES = """
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

[Result "0-1"]

1. e4 c5 2. Nf3 0-1

[Result "1/2-1/2"]

1. e4 e5 2. Nc3 1/2-1/2

[Result "*"]

1. d4 *
"""


def test_book_stats_count_results_for_the_side_that_moved(tmp_path: Path) -> None:
    stats = BookStats()
    handle = io.StringIO(GAMES)
    while (game := chess.pgn.read_game(handle)) is not None:
        stats.add_game(game)
    start = stats.positions[chess.Board().fen().rsplit(" ", 2)[0]]
    e4 = start.moves[chess.Move.from_uci("e2e4")]
    # 1.e4 was played in three games: white won one, lost one, drew one
    assert (e4.games, e4.wins, e4.losses, e4.draws) == (3, 1, 1, 1)
    assert e4.polyglot_weight == 2 * 1 + 1
    d4 = start.moves[chess.Move.from_uci("d2d4")]
    assert (d4.games, d4.wins, d4.losses, d4.draws) == (1, 0, 0, 0)
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    e5 = stats.positions[after_e4.fen().rsplit(" ", 2)[0]].moves[chess.Move.from_uci("e7e5")]
    # 1...e5: black lost one game and drew one
    assert (e5.games, e5.wins, e5.losses, e5.draws) == (2, 0, 1, 1)

    path = tmp_path / "small.bin"
    write_book(path, weights_from_stats(stats))
    with chess.polyglot.open_reader(path) as reader:
        weights = {e.move.uci(): e.weight for e in reader.find_all(chess.Board(), minimum_weight=0)}
    assert weights == {"e2e4": 3, "d2d4": 0}


def test_weights_are_scaled_into_16_bits(tmp_path: Path) -> None:
    stats = BookStats()
    game = chess.pgn.read_game(io.StringIO('[Result "1-0"]\n\n1. e4 1-0\n'))
    assert game is not None
    for _ in range(40000):  # 2 * 40000 = 80000 > 65535
        stats.add_game(game)
    stats.add_game(chess.pgn.read_game(io.StringIO('[Result "1/2-1/2"]\n\n1. d4 1/2-1/2\n')))  # type: ignore[arg-type]
    weights = weights_from_stats(stats)[chess.STARTING_FEN]
    assert weights[chess.Move.from_uci("e2e4")] == 65535
    assert weights[chess.Move.from_uci("d2d4")] == 1 * 65535 // 80000


def test_merged_entries_keep_the_first_non_zero_learn(tmp_path: Path) -> None:
    path = tmp_path / "merged.bin"
    e2e4 = 0x031C  # to e4 (4 | 3 << 3), from e2 (4 << 6 | 1 << 9)
    rows = [(5, e2e4, 10, 0), (5, e2e4, 20, 7), (5, e2e4, 30, 9)]
    for merge, weight in (("sum", 60), ("max", 30), ("first", 10)):
        assert write_book(path, rows, merge=merge) == 1
        with open_book(path) as book:
            assert [(e.weight, e.learn) for e in book] == [(weight, 7)]


def test_a_board_as_position_key_is_a_clear_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="FEN string or a Zobrist key"):
        write_book(tmp_path / "x.bin", {(1, 2): {"e2e4": 1}})  # type: ignore[dict-item]


def test_describe_lists_the_fields_of_a_whole_book() -> None:
    from chessformats.engine.layout import describe
    from chessformats.schemas.polyglot import BOOK

    paths = [field.path for field in describe(BOOK)]
    assert paths[:4] == ["", "[]", "[].key", "[].move"] and "[].move.to_file" in paths


def test_probe_legality_test_equals_python_chess_on_every_square_pair() -> None:
    """The bitboard legality test used by probes against ``board.is_legal`` for every from/to pair."""
    import random

    from chessformats.formats.polyglot import _legality_checker

    rng = random.Random(11)
    candidates = [chess.Move(a, b) for a in chess.SQUARES for b in chess.SQUARES if a != b]
    candidates += [chess.Move(a, b, piece) for a in chess.SQUARES for b in chess.SQUARES
                   if a != b and chess.square_rank(b) in (0, 7) for piece in (2, 3, 4, 5)]
    positions = 0
    for _ in range(12):
        board = chess.Board()
        for _ply in range(rng.randrange(10, 90)):
            legal = list(board.legal_moves)
            if not legal:
                break
            if rng.random() < 0.25:
                check = _legality_checker(board)
                assert [bool(check(m)) for m in candidates] == [board.is_legal(m) for m in candidates], board.fen()
                positions += 1
            board.push(rng.choice(legal))
    assert positions > 50
