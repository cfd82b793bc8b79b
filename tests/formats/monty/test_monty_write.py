"""Writing Monty files: visit rounding, Chess960 castling, what the format cannot hold, random games written
and read back.

References: the spec and notes (formulas), python-chess (legal moves, SAN) and hand arithmetic (commented).
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessformats import monty
from monty_cases import oracle_order, sans


def test_visit_rounding_conventions() -> None:
    # visits 10, 5, 0, 3 of max 10:
    #   round:    10*255/10 = 255, 5*255/10 = 127.5 -> 128, 0, 3*255/10 = 76.5 -> 77 (half away from zero)
    #   trunc256: 10*256/10 = 256 -> 255 (saturated), 5*256/10 = 128, 0, 3*256/10 = 76.8 -> 76
    assert monty.visit_bytes([10, 5, 0, 3]) == bytes([255, 128, 0, 77])
    assert monty.visit_bytes([10, 5, 0, 3], "trunc256") == bytes([255, 128, 0, 76])
    # fractions give the same bytes as counts (the formula only sees ratios to the largest)
    assert monty.visit_bytes([0.5, 0.25, 0.0, 0.15]) == bytes([255, 128, 0, 77])
    # nothing visited: all zero (the reference divides 0 by 0 and casts NaN to 0)
    assert monty.visit_bytes([0, 0]) == bytes(2) and monty.visit_bytes([]) == b""
    # 1 of 3: 85 exactly; 2 of 3: 170 exactly; with 256: 85.33 -> 85, 170.67 -> 170
    assert monty.visit_bytes([1, 2, 3]) == bytes([85, 170, 255])
    assert monty.visit_bytes([1, 2, 3], "trunc256") == bytes([85, 170, 255])
    with pytest.raises(ValueError):
        monty.visit_bytes([1, -1])
    with pytest.raises(ValueError):
        monty.visit_bytes([1, 2], "nearest")


def test_written_visits_read_back(tmp_path: Path) -> None:
    board = chess.Board()
    moves = oracle_order(board)  # 20 moves; give move i i visits
    counts = {move: index for index, move in enumerate(moves)}
    e4 = chess.Move.from_uci("e2e4")
    for rounding, scale in (("round", 255), ("trunc256", 256)):
        path = tmp_path / f"{rounding}.montyformat"
        monty.write_games(path, [monty.Game(board, [monty.Ply(e4, 0.5, counts)], "1/2-1/2")], rounding=rounding)
        (game,) = monty.read_games(path)
        (ply,) = game.plies
        # move i stores i * scale / 19 (the largest count is 19), rounded or truncated, at most 255
        expected = [min(round(i * scale / 19 + 1e-9) if rounding == "round" else i * scale // 19, 255)
                    for i in range(20)]
        assert ply.visit_bytes == bytes(expected)
        assert ply.visits == {move: byte / sum(expected) for move, byte in zip(moves, expected, strict=True)}
        # score 0.5: trunc(0.5 * 65535) = 32767
        assert ply.raw_score == 32767 and ply.move == e4


def test_chess960_castling_written_and_read(tmp_path: Path) -> None:
    # a Chess960 start with ...NKR on the first rank: the king on g1 castles with the h1 rook once f1 is free
    number = next(n for n in range(960) if chess.Board.from_chess960_pos(n).board_fen().endswith("NKR"))
    board = chess.Board.from_chess960_pos(number)
    start = board.copy()
    played = [min((m for m in board.legal_moves if m.from_square == chess.F1), key=chess.Move.uci)]
    board.push(played[0])
    played.append(chess.Move.from_uci("a7a6"))
    board.push(played[1])
    castle = chess.Move.from_uci("g1h1")  # python-chess Chess960 castling: king takes own rook
    assert board.is_kingside_castling(castle)
    played.append(castle)
    path = tmp_path / "960.montyformat"
    monty.write_games(path, [monty.Game(start, [monty.Ply(move, 0.5) for move in played], "1-0")])
    (game,) = monty.read_games(path)
    queenside_rook = chess.square_file(min(chess.SquareSet(start.rooks & chess.BB_RANK_1)))
    assert game.board.chess960 and game.rook_files == (queenside_rook, 7, queenside_rook, 7)
    assert [ply.move for ply in game.plies] == played
    # stored as the king's move to g1 (its own square), flag 2: 2 | 6 << 4 | 6 << 10 = 6242
    last = game.plies[-1]
    assert last.code == 6242 and last.board is not None
    assert monty.decode_move(last.board, 6242) == castle and monty.decode_move(None, 6242).uci() == "g1g1"
    assert monty.encode_move(last.board, castle) == 6242


def test_writer_rejects_what_the_format_cannot_hold(tmp_path: Path) -> None:
    board = chess.Board()
    e4 = chess.Move.from_uci("e2e4")
    path = tmp_path / "out.montyformat"
    path.write_bytes(b"old")
    cases: list[tuple[monty.Game, str]] = [
        (monty.Game(board, [monty.Ply(chess.Move.from_uci("e2e5"), 0.5)], "1-0"), "not a legal move"),
        (monty.Game(board, [monty.Ply(e4, 1.5)], "1-0"), "outside"),
        (monty.Game(board, [monty.Ply(e4, 0.5, {chess.Move.from_uci("e7e5"): 3})], "1-0"), "not legal"),
        (monty.Game(board, [monty.Ply(e4, 0.5, raw_score=3)], "1-0"), "disagree"),
        (monty.Game(board, [monty.Ply(e4, 0.5, {e4: 1}, visit_bytes=bytes(20))], "1-0"), "disagree"),
        (monty.Game(board, [monty.Ply(e4, 0.5, None, visit_bytes=bytes(3))], "1-0"), "3 visit bytes for 20"),
        (monty.Game(board, [], "*"), "result"),
        (monty.Game(chess.Board("8/8/8/8/8/8/8/K7 w - - 0 1"), [], "1-0"), "not a position"),
        (monty.Game(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 300 1"), [], "1-0"), "counters"),
        (monty.Game(board, [], "1-0", rook_files=(1, 7, 0, 7)), "rook files"),
    ]
    for game, message in cases:
        with pytest.raises(ValueError, match=message):
            monty.write_games(path, [monty.Game(board, [monty.Ply(e4, 0.25)], "1-0"), game])
        assert path.read_bytes() == b"old"  # written atomically: nothing replaced
    with pytest.raises(ValueError, match="unknown Monty format"):
        monty.write_games(path, [], format="binpack")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), chess960=st.booleans(), format=st.sampled_from(["policy", "value"]))
def test_random_games_round_trip(tmp_path: Path, seed: int, chess960: bool, format: str) -> None:
    rng = random.Random(seed)
    written = []
    for _ in range(rng.randrange(1, 4)):
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        start = board.copy()
        game_plies = []
        for _ in range(rng.randrange(0, 60)):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            visits = {m: rng.randrange(0, 5000) for m in legal} if rng.random() < 0.8 else None
            game_plies.append(monty.Ply(move, rng.random(), visits))
            board.push(move)
        written.append(monty.Game(start, game_plies, rng.choice(["1-0", "0-1", "1/2-1/2"])))
    path = tmp_path / "random.monty"
    report = monty.write_games(path, written, format=format)
    assert (report.written, report.unit, report.path, report.files) == (len(written), "games", str(path), [str(path)])
    read = list(monty.read_games(path, format=format))
    for game, again in zip(written, read, strict=True):
        assert again.board == game.board and again.result == game.result
        # a Chess960 start with the king on e1 and rooks on a1/h1 reads as standard chess (the file cannot tell):
        # compare moves in SAN, which does not depend on how castling is written
        assert sans(again.board, [p.move for p in again.plies]) == sans(game.board, [p.move for p in game.plies])
        for ply, back in zip(game.plies, again.plies, strict=True):
            assert back.board is not None
            if format == "policy":
                # trunc(f32(score) * 65535): within one unit of the score
                assert back.raw_score is not None and abs(back.raw_score - ply.score * 65535) <= 1
                if ply.visits is None:
                    assert back.visits is None
                else:
                    assert back.visits is not None
                    by_san = {back.board.san(m): ply.visits[m] for m in ply.visits}  # type: ignore[union-attr]
                    order = oracle_order(back.board)
                    assert back.visit_bytes == monty.visit_bytes([by_san[back.board.san(m)] for m in order])
                    assert list(back.visits) == order
            else:
                assert back.score == pytest.approx(ply.score, abs=0.002)
    # and what was read writes back to the same bytes
    buffer = io.BytesIO()
    monty.write_games(buffer, read, format=format)
    assert buffer.getvalue() == path.read_bytes()
