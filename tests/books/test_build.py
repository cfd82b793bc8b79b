"""Book building: byte-identical to `polyglot make-book` / `merge-book`, and right on small random game sets."""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import lzma
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import chess.polyglot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import FormatError, TruncatedError
from chessformats.books import batches, batchplay
from chessformats.books import build as bookbuild
from chessformats.books.batches import read_batch as _read_batch
from chessformats.books.build import COUNT_MAX, BookBuilder
from chessformats.books.pgnread import parse_game, split_games
from chessformats.polyglot import encode_move, make_book, merge_books, zobrist_hash
from conftest import find_corpus, find_tool


@pytest.fixture(scope="module")
def polyglot_bin() -> Path:
    return find_tool("polyglot", env="CHESSFORMATS_POLYGLOT",
                     candidates=("/usr/games/polyglot", ".ci/cache/polyglot/usr/games/polyglot"))


def polyglot_make(binary: Path, pgn: Path, out: Path, *options: str) -> bytes:
    result = subprocess.run([str(binary), "make-book", "-pgn", str(pgn), "-bin", str(out), *options],
                            capture_output=True, text=True, cwd=out.parent)
    assert result.returncode == 0 and "all done" in result.stdout, result.stdout + result.stderr
    return out.read_bytes()


OPTION_SETS = [
    ((), {}, 1024),
    (("-max-ply", "30"), {}, 30),
    (("-max-ply", "30", "-min-game", "1"), {"min_games": 1}, 30),
    (("-min-game", "5", "-min-score", "40"), {"min_games": 5, "min_score": 0.40}, 1024),
    (("-only-white", "-max-ply", "20"), {"only": chess.WHITE}, 20),
    (("-only-black", "-uniform", "-min-game", "2"), {"only": chess.BLACK, "uniform": True, "min_games": 2}, 1024),
    (("-max-ply", "8", "-min-game", "1", "-uniform"), {"min_games": 1, "uniform": True}, 8),
]


@pytest.mark.parametrize(("options", "keywords", "max_ply", "jobs"),
                         [(*o, 1) for o in OPTION_SETS] + [(*o, 2) for o in OPTION_SETS[:2]],
                         ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_twic_book_is_byte_identical_to_polyglot(polyglot_bin: Path, tmp_path: Path, options: tuple[str, ...],
                                                  keywords: dict[str, object], max_ply: int, jobs: int) -> None:
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    expected = polyglot_make(polyglot_bin, pgn, tmp_path / "polyglot.bin", *options)
    builder = BookBuilder(max_ply=max_ply)
    builder.add_pgn(pgn, jobs=jobs)
    assert builder.games == 6097 and not builder.skipped
    make_book(tmp_path / "ours.bin", builder, **keywords)  # type: ignore[arg-type]
    assert (tmp_path / "ours.bin").read_bytes() == expected


def test_biel_book_equals_polyglot_on_the_games_it_can_read(polyglot_bin: Path, tmp_path: Path) -> None:
    # BielMTO.pgn has five games whose movetext is only "1/2-0" (a forfeit marker, not a PGN result):
    # polyglot stops with "illegal move". We skip those games (they have no moves) and report them;
    # polyglot given the same file with that marker replaced by "*" must build the same book.
    pgn = find_corpus("chessbase", "libcbh_NormalGames", "BielMTO.pgn")
    text = pgn.read_text(encoding="utf-8")
    cleaned = tmp_path / "cleaned.pgn"
    cleaned.write_text(text.replace("\n 1/2-0\n", "\n *\n"), encoding="utf-8")
    expected = polyglot_make(polyglot_bin, cleaned, tmp_path / "polyglot.bin", "-min-game", "1")
    builder = BookBuilder()
    builder.add_pgn(pgn)
    assert builder.games == 548
    assert [(g.number, g.reason) for g in builder.skipped] == [
        (n, "illegal or unreadable move '1/2-0' at ply 1") for n in (57, 225, 281, 336, 337)]
    assert all(text[g.offset:].startswith("[Event") for g in builder.skipped)
    make_book(tmp_path / "ours.bin", builder, min_games=1)
    assert (tmp_path / "ours.bin").read_bytes() == expected


def test_chess960_games_polyglot_cannot_read(polyglot_bin: Path, tmp_path: Path) -> None:
    # polyglot ignores the FEN tag and fails on the first move of a Chess960 game
    pgn = find_corpus("chessbase", "libcbh_Chess960Biel", "Chess960.pgn")
    result = subprocess.run([str(polyglot_bin), "make-book", "-pgn", str(pgn), "-bin", str(tmp_path / "p.bin")],
                            capture_output=True, text=True, cwd=tmp_path)
    assert "illegal move" in result.stdout + result.stderr
    # we play each game from its FEN, castling as king-takes-rook: python-chess finds every move played
    builder = BookBuilder(max_ply=12)
    builder.add_pgn(pgn)
    assert builder.games == 188 and not builder.skipped
    make_book(tmp_path / "ours.bin", builder, min_games=1)
    with open(pgn, encoding="utf-8") as handle, chess.polyglot.open_reader(tmp_path / "ours.bin") as reader:
        checked = 0
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= 12:
                    break
                found = {e.move for e in reader.find_all(board, minimum_weight=0)}
                if _sum_for(builder, board, move) > 0:
                    assert move in found, (board.fen(), move)
                    checked += 1
                board.push(move)
    assert checked > 1000


def _sum_for(builder: BookBuilder, board: chess.Board, move: chess.Move) -> int:
    key, raw = zobrist_hash(board), encode_move(board, move)
    return next((e.polyglot_sum for e in builder.entries() if e.key == key and e.raw_move == raw), 0)


def test_bad_games_are_skipped_and_reported() -> None:
    text = """[Event "good"]
[Result "1-0"]

1. e4 e5 2. Nf3 1-0

[Event "illegal"]
[Result "0-1"]

1. e4 e5 2. Ke3 Nc6 0-1

[Event "garbage"]
[Result "*"]

1. e4 @@@ ) *

[Event "good again"]
[Result "1/2-1/2"]

1. d4 {a comment (with parentheses)} d5 (1... Nf6 2. c4) 2. c4 $1 e6!? 1/2-1/2
"""
    builder = BookBuilder()
    builder.add_pgn_text(text)
    assert builder.games == 4
    assert [(g.number, g.reason) for g in builder.skipped] == [
        (2, "illegal or unreadable move 'Ke3' at ply 3"), (3, "unbalanced ')'")]
    assert text[builder.skipped[0].offset:].startswith('[Event "illegal"]')
    moves = {(e.key, e.raw_move): e for e in builder.entries()}
    start = zobrist_hash(chess.Board())
    e4 = moves[(start, encode_move(None, chess.Move.from_uci("e2e4")))]
    d4 = moves[(start, encode_move(None, chess.Move.from_uci("d2d4")))]
    assert (e4.games, e4.wins, e4.polyglot_sum) == (1, 1, 2)
    assert (d4.games, d4.draws, d4.polyglot_sum) == (1, 1, 1)
    assert len(builder) == 3 + 4  # 1.e4 e5 2.Nf3 and 1.d4 d5 2.c4 e6 (the variation is not read)


def test_illegal_move_after_max_ply_is_not_checked() -> None:
    # polyglot reads no move past -max-ply, so it cannot see that one is illegal: neither do we
    builder = BookBuilder(max_ply=2)
    builder.add_pgn_text('[Result "1-0"]\n\n1. e4 e5 2. Ke3 1-0\n')
    assert not builder.skipped and len(builder) == 2


@pytest.mark.parametrize("opener", [gzip.open, bz2.open, lzma.open])
def test_compressed_pgn(tmp_path: Path, opener: object) -> None:
    suffix = {gzip.open: ".gz", bz2.open: ".bz2", lzma.open: ".xz"}[opener]  # type: ignore[index]
    path = tmp_path / f"games.pgn{suffix}"
    with opener(path, "wt", encoding="utf-8") as handle:  # type: ignore[operator]
        handle.write('[Result "1-0"]\n\n1. e4 e5 1-0\n\n[Result "0-1"]\n\n1. d4 d5 0-1\n')
    builder = BookBuilder()
    builder.add_pgn(path)
    assert builder.games == 2 and len(builder) == 4


@pytest.mark.parametrize("compress, suffix", [(gzip.compress, ".gz"), (bz2.compress, ".bz2"), (lzma.compress, ".xz")])
@pytest.mark.parametrize("damage", ["cut", "garbled", "not compressed"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_damaged_compressed_pgn_is_a_format_error(tmp_path: Path, compress: Any, suffix: str, damage: str,
                                                  jobs: int) -> None:
    whole = compress(('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n' * 3000).encode())
    data = {"cut": whole[:len(whole) // 2], "garbled": whole[:16] + bytes(64) + whole[80:],
            "not compressed": b"[Event"}[damage]
    path = tmp_path / f"games.pgn{suffix}"
    path.write_bytes(data)
    with pytest.raises(FormatError) as caught:
        BookBuilder().add_pgn(path, jobs=jobs)
    assert caught.value.file == str(path) and caught.value.offset is not None
    assert isinstance(caught.value, TruncatedError) == (damage == "cut")


def test_counters_are_halved_at_16384_games_like_polyglot(polyglot_bin: Path, tmp_path: Path) -> None:
    # 16,400 games 1.e4 e5 (white wins) and 3 games 1.d4 (drawn): when 1.e4 reaches 16,384 games polyglot
    # halves every counter of the start position, so the weights are not 2 * wins + draws any more
    games = ['[Result "1/2-1/2"]\n\n1. d4 1/2-1/2\n'] * 3 + ['[Result "1-0"]\n\n1. e4 e5 1-0\n'] * 16400
    pgn = tmp_path / "many.pgn"
    pgn.write_text("\n".join(games))
    expected = polyglot_make(polyglot_bin, pgn, tmp_path / "polyglot.bin", "-min-game", "1")
    for jobs in (1, 2):
        builder = BookBuilder()
        builder.add_pgn(pgn, jobs=jobs)
        e4 = next(e for e in builder.entries() if e.raw_move == encode_move(None, chess.Move.from_uci("e2e4")))
        assert e4.games == 16400 and e4.polyglot_n < COUNT_MAX
        make_book(tmp_path / "ours.bin", builder, min_games=1)
        assert (tmp_path / "ours.bin").read_bytes() == expected


GAME = st.lists(st.integers(0, 10_000), min_size=1, max_size=24)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seeds=st.lists(GAME, min_size=1, max_size=12), results=st.lists(st.sampled_from(["1-0", "0-1", "1/2-1/2", "*"]),
                                                                           min_size=12, max_size=12),
       max_ply=st.integers(1, 30))
def test_random_game_sets(tmp_path: Path, seeds: list[list[int]], results: list[str], max_ply: int) -> None:
    """The book probed with python-chess gives exactly the moves played (within max-ply), weighted by results."""
    played: dict[tuple[int, chess.Move], list[int]] = {}
    pgn = []
    for seeds_of_game, result in zip(seeds, results, strict=False):
        board = chess.Board()
        game = chess.pgn.Game()
        game.headers["Result"] = result
        node: chess.pgn.GameNode = game
        for ply, seed in enumerate(seeds_of_game):
            legal = sorted(board.legal_moves, key=lambda m: m.uci())
            if not legal:
                break
            move = legal[seed % len(legal)]
            if ply < max_ply:
                stats = played.setdefault((zobrist_hash(board), move), [0, 0])
                stats[0] += 1
                points = {"1-0": 2, "0-1": 0}.get(result, 1)
                stats[1] += points if board.turn == chess.WHITE else 2 - points
            node = node.add_variation(move)
            board.push(move)
        pgn.append(str(game))
    builder = BookBuilder(max_ply=max_ply)
    builder.add_pgn_text("\n\n".join(pgn) + "\n")
    assert not builder.skipped
    make_book(tmp_path / "book.bin", builder, min_games=1)
    found: dict[tuple[int, chess.Move], int] = {}
    with chess.polyglot.open_reader(tmp_path / "book.bin") as reader:
        for key in {key for key, _ in played}:
            for entry in reader.find_all(key, minimum_weight=0):
                found[(key, entry.move)] = entry.weight
    expected = {(key, _raw_move(move)): total for (key, move), (_, total) in played.items() if total > 0}
    assert {(key, _raw_move(move)): weight for (key, move), weight in found.items()} == expected


def _raw_move(move: chess.Move) -> tuple[int, int, int | None]:
    # python-chess reads castling from a key alone as king-takes-rook: compare squares as stored
    to_square = {(chess.E1, chess.G1): chess.H1, (chess.E1, chess.C1): chess.A1, (chess.E8, chess.G8): chess.H8,
                 (chess.E8, chess.C8): chess.A8}.get((move.from_square, move.to_square), move.to_square)
    return move.from_square, to_square, move.promotion


def test_batch_replay_agrees_with_python_chess() -> None:
    # random games (so every kind of move: castling both ways, en passant, promotions, pins, checks)
    rng = random.Random(7)
    games: list[list[str]] = []
    expected: list[list[tuple[int, int]]] = []
    for _ in range(300):
        board = chess.Board()
        sans, plies = [], []
        for _ply in range(rng.randint(0, 160)):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            plies.append((zobrist_hash(board), encode_move(board, move)))
            sans.append(board.san(move).rstrip("+#"))
            board.push(move)
        games.append(sans)
        expected.append(plies)
    result = batchplay.replay(games, memo_depth=12)
    assert not result.failed.any()  # pins that decide between two candidates included
    got: dict[int, list[tuple[int, int]]] = {}
    for game, ply, key, raw in zip(result.game.tolist(), result.ply.tolist(), result.key.tolist(),
                                   result.raw.tolist(), strict=True):
        got.setdefault(game, []).append((ply, key, raw))
    for number, plies in enumerate(expected):
        assert [(k, r) for _, k, r in sorted(got.get(number, []))] == plies, number
    assert sum(map(len, expected)) > 20_000
    # the positions kept are the boards python-chess had before each move (first of each key per ply)
    kept = dict(zip(result.positions["key"].tolist(), range(len(result.positions["key"])), strict=False))
    board = chess.Board()
    for ply, san in enumerate(games[0][:12]):
        row = kept[zobrist_hash(board)]
        assert result.positions["white"][row] == board.occupied_co[chess.WHITE]
        assert result.positions["castling"][row] == board.castling_rights and result.positions["turn"][row] == (
            ply % 2 == 0)
        board.push_san(san)


def test_batch_replay_refuses_what_python_chess_refuses() -> None:
    rng = random.Random(11)
    checked = 0
    for _ in range(60):
        board = chess.Board()
        sans: list[str] = []
        for _ply in range(rng.randint(0, 80)):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            sans.append(board.san(move).rstrip("+#"))
            board.push(move)
        tokens = _illegal_tokens(board, rng)
        result = batchplay.replay([[*sans, token] for token in tokens] + [sans])
        assert result.failed[:-1].all() and not result.failed[-1], (board.fen(), tokens)
        checked += len(tokens)
    assert checked > 1000


def _illegal_tokens(board: chess.Board, rng: random.Random) -> list[str]:
    """SAN-looking tokens python-chess refuses in this position (pinned pieces, wrong pieces, ...)."""
    tokens = []
    for piece, square in itertools.product("NBRQK", rng.sample(chess.SQUARE_NAMES, 4)):
        tokens.append(piece + square)
    tokens += [f"{f}{r}" for f, r in itertools.product("abcdefgh", "1845")] + ["O-O", "O-O-O", "exd5", "e8=Q"]
    refused = []
    for token in tokens:
        try:
            board.parse_san(token)
        except ValueError:
            refused.append(token)
    return refused


def test_merge_is_byte_identical_to_polyglot(polyglot_bin: Path, tmp_path: Path) -> None:
    names = ["rodent3_cat.bin", "rodent3_cs.bin", "gm2001.bin", "performance.bin", "lasker-trap.bin",
             "rodent3_empty.bin"]
    for first, second in itertools.permutations(names, 2):
        a, b = find_corpus("polyglot", first), find_corpus("polyglot", second)
        subprocess.run([str(polyglot_bin), "merge-book", "-in1", str(a), "-in2", str(b), "-out",
                        str(tmp_path / "p.bin")], capture_output=True, check=True)
        merge_books(a, b, tmp_path / "o.bin")
        assert (tmp_path / "o.bin").read_bytes() == (tmp_path / "p.bin").read_bytes(), (first, second)


def test_merge_of_unsorted_and_repeated_entries(polyglot_bin: Path, tmp_path: Path) -> None:
    gm = find_corpus("polyglot", "gm2001.bin").read_bytes()
    lasker = find_corpus("polyglot", "lasker-trap.bin").read_bytes()
    unsorted = tmp_path / "unsorted.bin"
    unsorted.write_bytes(gm[-127 * 16:] + gm[:-127 * 16])
    doubled = tmp_path / "doubled.bin"
    doubled.write_bytes(b"".join(lasker[i:i + 16] * 2 for i in range(0, len(lasker), 16)))
    for a, b in [(unsorted, find_corpus("polyglot", "lasker-trap.bin")), (doubled, doubled),
                 (find_corpus("polyglot", "rodent3_cat.bin"), doubled)]:
        subprocess.run([str(polyglot_bin), "merge-book", "-in1", str(a), "-in2", str(b), "-out",
                        str(tmp_path / "p.bin")], capture_output=True, check=True)
        merge_books(a, b, tmp_path / "o.bin")
        assert (tmp_path / "o.bin").read_bytes() == (tmp_path / "p.bin").read_bytes()


def test_to_stats_gives_the_neutral_model() -> None:
    builder = BookBuilder()
    builder.add_pgn_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result "*"]\n\n1. e4 c5 *\n')
    stats = builder.to_stats()
    start = stats.positions[chess.Board().fen().rsplit(" ", 2)[0]]
    e4 = start.moves[chess.Move.from_uci("e2e4")]
    assert (e4.games, e4.wins, e4.draws, e4.losses) == (2, 1, 0, 0)
    assert len(stats) == 3 and stats.games == 2


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_to_stats_finds_positions_deeper_than_the_memo(jobs: int) -> None:
    # positions past the first 40 plies are not kept; to_stats must still give every one of them
    builder = BookBuilder(max_ply=60)
    builder.add_pgn(find_corpus("pgn", "twic1134-mainlines.pgn"), jobs=jobs)
    stats = builder.to_stats()
    assert sum(len(position.moves) for position in stats) == len(builder)
    with open(find_corpus("pgn", "twic1134-mainlines.pgn"), encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None
    board = game.board()
    for ply, move in enumerate(game.mainline_moves()):
        if ply >= 60:
            break
        assert move in stats.positions[board.fen().rsplit(" ", 2)[0]].moves, ply
        board.push(move)


def test_to_stats_boards_are_the_builders_boards() -> None:
    # to_stats makes a deep position's board from its parent's: it must be board(key)'s, FEN counters included,
    # also in Chess960 games and in games from a FEN
    builder = BookBuilder(max_ply=60)
    for name in ("libcbh_NormalGames/BielMTO.pgn", "libcbh_Chess960Biel/Chess960.pgn",
                 "libcbh_UnusualStart/UnusualStart.pgn"):
        builder.add_pgn(find_corpus("chessbase", *name.split("/")))
    keys = list(dict.fromkeys(entry.key for entry in builder.entries()))
    # (the model's FENs keep the en-passant square by Polyglot's rule: books.tree.fen_key)
    assert [position.fen for position in builder.to_stats()] == [builder.board(key).fen(en_passant="xfen")
                                                                 for key in keys]
    assert len(builder._links[0]) > 5_000  # positions past the memo's depth, made from their parent's board


_SAN_WORD = re.compile(r"(?<![\w.])([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=[QRBN])?[+#]?|O-O(?:-O)?[+#]?)(?=\s)")


def test_lichess_comments_read_in_the_batch_and_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # every move of twic1134 followed by lichess's { [%eval ...] [%clk ...] } (and a NAG or a variation now and
    # then): the same book as the plain games, every game read by the batch scan (the tokenizer reads none)
    text = find_corpus("pgn", "twic1134-mainlines.pgn").read_text(encoding="utf-8")
    rng = random.Random(28)

    def comment(match: re.Match[str]) -> str:
        nag = " $6" if rng.random() < 0.05 else ""
        variation = " (Nf3 { (a } $2 (d4 d5) 1... e5 {b})" if rng.random() < 0.03 else ""
        return (f"{match.group(1)}{nag} {{ [%eval {rng.uniform(-3, 3):.2f}] "
                f"[%clk 0:{rng.randint(0, 9):02d}:{rng.randint(10, 59)}] }}{variation}")

    commented = "\n".join(line if line.startswith("[") else _SAN_WORD.sub(comment, line)
                          for line in text.split("\n"))
    assert commented.count("[%clk") > 400_000
    plain = BookBuilder(max_ply=30)
    plain.add_pgn_text(text)
    tokenized = []
    monkeypatch.setattr(batches, "parse_game", lambda *args: tokenized.append(args) or parse_game(*args))
    lichess = BookBuilder(max_ply=30)
    lichess.add_pgn_text(commented)
    assert not tokenized
    assert lichess.games == plain.games and list(lichess.entries()) == list(plain.entries())


def test_python_chess_games_count_like_their_pgn() -> None:
    text = ('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n\n[Result "1/2-1/2"]\n\n1. d4 d5 2. c4 1/2-1/2\n\n'
            '[Variant "Chess960"]\n[FEN "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"]\n'
            '[SetUp "1"]\n[Result "0-1"]\n\n9. g3 Ne8 10. Nf3 0-1\n')
    from_text = BookBuilder(max_ply=4)
    from_text.add_pgn_text(text)
    from_games = BookBuilder(max_ply=4)
    handle = io.StringIO(text)
    from_games.add_games(iter(lambda: chess.pgn.read_game(handle), None))
    assert from_games.games == from_text.games == 3 and not from_games.skipped and not from_text.skipped
    assert list(from_games.entries()) == list(from_text.entries())


def _pgn_files() -> list[Path]:
    return [find_corpus("pgn", "twic1134-mainlines.pgn"), find_corpus("chessbase", "libcbh_NormalGames", "BielMTO.pgn"),
            find_corpus("chessbase", "libcbh_Chess960Biel", "Chess960.pgn"),
            find_corpus("chessbase", "libcbh_WithVariations", "GamesWithVariations.pgn"),
            find_corpus("chessbase", "libcbh_UnusualStart", "UnusualStart.pgn"),
            find_corpus("chessbase", "libcbh_ManyPromotions", "Promotions.pgn")]


@pytest.mark.parametrize("max_ply", [1, 8, 30, 1024])
def test_batch_reading_equals_the_tokenizer(max_ply: int) -> None:
    # the numpy scan of plain movetext (and its hand-over to the full tokenizer) reads what the tokenizer reads
    rng = random.Random(max_ply)
    texts = [path.read_text(encoding="utf-8") for path in _pgn_files()]
    games = [game for text in texts for game in split_games(text)]
    # plus movetext the scan must hand over or read right: glued numbers, marks, odd tokens, cut results
    games += [(0, f'[Result "1-0"]\n\n{body}\n') for body in (
        "1.e4 e5 2.Nf3+ Nc6 1-0", "1. e4! e5?! 2. Nf3 1-0", "1. e4 e5 1-0 2. Nf3", "1. e4 12a 1-0", "1. 0-0 *",
        "1. e4 e5 2. Nf3 * Nc6", "1. e4 ~ e5 1-0", "1. e4 +e5 1-0", "1. Nf3xe5xd6xc7 1-0", "1. e4 e5 2. Nf3#+ 1-0",
        "", "1.", "1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. Ne2 1/2-1/2", "1. e4 Ç5 1-0", "1 e4 2 e5 *", "1. e4 1-0+ e5 *",
        "1. e4 e5+", "1. e4 -- 2. d4 1-0", "1. e4 @@@@ 2. d4 Z0 *", "1. e4 {c} --+ 2. d4 *", "1.e4 --2.d4 *",
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8")]
    # movetext spread out (more characters a ply than the scan reads at first, or than it reads at all)
    plain = games[0][1][games[0][1].index("\n\n"):]
    games += [(0, f'[Result "1-0"]\n{plain.replace(" ", blank)}') for blank in (" " * 6, " " * 12, " " * 40)]
    for _ in range(200):  # random cuts of real games
        offset, text = rng.choice(games[:6000])
        games.append((offset, text[:rng.randint(0, len(text))]))
    text = "".join(game for _, game in games)
    ends = list(itertools.accumulate(len(game) for _, game in games))
    batch, skipped = _read_batch(text, list(zip([0, *ends[:-1]], ends, strict=True)), 0, 1, max_ply)
    expected = [parse_game(text, max_ply) for _, text in games]
    assert [(s.number, s.reason) for s in skipped] == [
        (number, error) for number, (_, _, error) in enumerate(expected, 1) if error is not None]
    good = [(tags, sans) for tags, sans, error in expected if error is None]
    assert len(good) == len(batch.numbers)
    for index, (tags, sans) in enumerate(good):
        assert batch.tags[index] == tags
        assert batch.sans(index) == sans, (index, sans)


@pytest.mark.parametrize("block", [pytest.param(1, marks=pytest.mark.slow), pytest.param(777, marks=pytest.mark.slow),
                                   100_000])
def test_reading_in_blocks_equals_reading_the_whole_text(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    # a one-process build reads the file a block at a time: games cut by a block's end are read whole
    path = find_corpus("chessbase", "libcbh_NormalGames", "BielMTO.pgn")
    whole = BookBuilder(max_ply=40)
    whole.add_pgn_text(path.read_text(encoding="utf-8"))
    monkeypatch.setattr(bookbuild, "BLOCK_CHARS", block)
    blocks = BookBuilder(max_ply=40)
    blocks.add_pgn(path, jobs=1)
    assert blocks.games == whole.games == 548 and len(whole.skipped) == 5
    assert blocks.skipped == whole.skipped  # same numbers and offsets
    assert list(blocks.entries()) == list(whole.entries())


def test_chessbase_database_builds_the_book_of_its_source_pgn(tmp_path: Path) -> None:
    # BielMTO.cbh holds the games of BielMTO.pgn: the same book from either (the five forfeits have no
    # moves in the base and unreadable "1/2-0" movetext in the PGN: no entries either way)
    folder = find_corpus("chessbase", "libcbh_NormalGames")
    from_pgn = BookBuilder(max_ply=40)
    from_pgn.add_file(folder / "BielMTO.pgn")
    from_base = BookBuilder(max_ply=40)
    from_base.add_file(folder / "BielMTO.cbh")
    assert from_base.games == from_pgn.games == 548 and not from_base.skipped
    make_book(tmp_path / "pgn.bin", from_pgn, min_games=1)
    make_book(tmp_path / "cbh.bin", from_base, min_games=1)
    assert len(from_base) > 10_000
    assert (tmp_path / "cbh.bin").read_bytes() == (tmp_path / "pgn.bin").read_bytes()


def test_chess960_database_is_played_from_each_start_position() -> None:
    folder = find_corpus("chessbase", "libcbh_Chess960Biel")
    from_pgn = BookBuilder(max_ply=12)
    from_pgn.add_file(folder / "Chess960.pgn")
    from_base = BookBuilder(max_ply=12)
    from_base.add_database(folder / "Chess960Biel.cbh")
    assert not from_pgn.skipped and not from_base.skipped
    assert sorted(from_base.entries()) == sorted(from_pgn.entries())


def test_corrupt_database_games_are_skipped_and_reported() -> None:
    # every game of this base has a broken Chess960 start: each is reported (number, .cbg offset, why), the
    # build goes on, and the book is empty
    builder = BookBuilder(max_ply=20)
    builder.add_database(find_corpus("chessbase", "libcbh_Chess960Corrupt", "Corrupt.cbh"))
    assert builder.games == 4 and [game.number for game in builder.skipped] == [1, 2, 3, 4]
    assert all(f"game {game.number}:" in game.reason and "Corrupt.cbg" in game.reason for game in builder.skipped)
    assert len(builder) == 0


def test_the_builder_knows_every_chessbase_file_name() -> None:
    from chessformats.formats.chessbase import COMPANIONS

    assert bookbuild.CHESSBASE_FILES == COMPANIONS


def test_zst_pgn_is_read_frame_after_frame(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    games = '[Result "1-0"]\n\n1. e4 e5 1-0\n\n[Result "0-1"]\n\n1. d4 d5 0-1\n\n'
    path = tmp_path / "games.pgn.zst"
    # two frames, as pzstd and concatenated monthly files give
    compressor = zstandard.ZstdCompressor()
    path.write_bytes(compressor.compress(games.encode()) + compressor.compress(games.encode()))
    builder = BookBuilder()
    builder.add_pgn(path)
    plain = BookBuilder()
    plain.add_pgn_text(games + games)
    assert builder.games == 4 and list(builder.entries()) == list(plain.entries())


@pytest.mark.parametrize("damage", ["cut", "garbled"])
def test_damaged_zst_is_a_format_error_and_no_book_is_written(tmp_path: Path, damage: str) -> None:
    zstandard = pytest.importorskip("zstandard")
    whole = zstandard.ZstdCompressor().compress(('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n' * 3000).encode())
    data = {"cut": whole[:len(whole) // 2], "garbled": whole[:12] + bytes(40) + whole[52:]}[damage]
    path = tmp_path / "games.pgn.zst"
    path.write_bytes(data)
    with pytest.raises(FormatError) as caught:
        BookBuilder().add_pgn(path)
    assert caught.value.file == str(path) and caught.value.offset is not None
    if damage == "cut":
        assert isinstance(caught.value, TruncatedError) and caught.value.offset == len(data)
    from chessformats.cli import main

    assert main(["build", str(path), "-o", str(tmp_path / "book.bin")]) != 0
    assert not (tmp_path / "book.bin").exists()
