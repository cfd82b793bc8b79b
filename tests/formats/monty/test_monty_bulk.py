"""Monty files as arrays (``read_arrays``, ``iter_plies``, ``write_arrays``): every ply against the per-game
reading and python-chess's legal moves (in the order of the spec, ``oracle_order``), the corpus bytes written
back from arrays, streaming and shuffling, and the error contract."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats import FormatError, InvalidValueError, TruncatedError, monty
from chessformats.formats.monty.stream import concat_plies
from monty_cases import oracle_order

POLICY = ("monty", "reference_generated_policy.montyformat")
VALUE = ("monty", "reference_generated_value.montyvalue")


def agree(arrays: monty.MontyArrays, games: list[monty.Game]) -> None:
    """The arrays say what the games say, ply by ply; the visit moves are python-chess's legal moves."""
    plies = arrays.plies
    assert len(arrays.headers) == len(games) and arrays.game_plies[-1] == plies.size
    assert [arrays.offsets.tolist(), arrays.numbers.tolist()] == [[g.offset for g in games], [g.number for g in games]]
    pieces = monty.piece_bitboards(plies.boards)
    row = 0
    for number, game in enumerate(games):
        assert arrays.game_plies[number + 1] - arrays.game_plies[number] == len(game.plies)
        for ply in game.plies:
            board = ply.board
            assert board is not None
            assert pieces[row].tolist() == [board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
                                             board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                                             board.kings]
            assert (plies.side[row], plies.ep_square[row], plies.castling[row]) == (
                0 if board.turn else 1, board.ep_square or 0, board.castling_rights)
            assert (plies.halfmove[row], plies.fullmove[row]) == (board.halfmove_clock, board.fullmove_number)
            assert (plies.move[row], plies.score[row]) == (ply.code, ply.raw_score)
            assert plies.result[row] == {"0-1": 0, "1/2-1/2": 1, "1-0": 2}[game.result] and plies.game[row] == number
            low, high = plies.visit_offsets[row], plies.visit_offsets[row + 1]
            assert bytes(plies.visits[low:high]) == (ply.visit_bytes or b"")
            if ply.visits is not None:
                moves = [monty.decode_move(board, int(code)) for code in plies.visit_moves[low:high]]
                assert moves == list(ply.visits) == oracle_order(board)
            row += 1


@pytest.mark.parametrize(("parts", "format"), [(POLICY, "policy"), (VALUE, "value")])
def test_corpus_arrays_equal_the_games_and_write_back(corpus_path: Callable[..., Path], parts: tuple[str, str],
                                                      format: str, tmp_path: Path) -> None:
    path = corpus_path(*parts)
    arrays = monty.read_arrays(path)
    assert arrays.format == format
    agree(arrays, list(monty.read_games(path)))
    report = monty.write_arrays(tmp_path / "copy", arrays)
    assert (report.written, report.unit) == (5, "games")
    assert (tmp_path / "copy").read_bytes() == path.read_bytes()
    # a slice of the file: the games from the third on, offsets still the file's
    third = int(arrays.offsets[2])
    rest = monty.read_arrays(path, format=format, start=third)
    assert rest.offsets.tolist() == arrays.offsets[2:].tolist()
    assert rest.plies.move.tolist() == arrays.plies.move[arrays.game_plies[2]:].tolist()


def random_games(seed: int, count: int) -> list[monty.Game]:
    """Games from standard and Chess960 starts, preferring castling, captures, promotions and pawn moves."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if rng.random() < 0.5 else chess.Board()
        start, plies, length = board.copy(), [], rng.randrange(0, 90)
        while len(plies) < length and (legal := list(board.legal_moves)):
            special = [m for m in legal if board.is_castling(m) or board.is_capture(m) or m.promotion
                       or board.is_en_passant(m) or board.piece_type_at(m.from_square) == chess.PAWN]
            move = rng.choice(special if special and rng.random() < 0.7 else legal)
            visits = {m: rng.randrange(0, 300) for m in legal} if rng.random() < 0.8 else None
            plies.append(monty.Ply(move, rng.random(), visits))
            board.push(move)
        games.append(monty.Game(start, plies, rng.choice(["1-0", "0-1", "1/2-1/2"])))
    return games


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), format=st.sampled_from(["policy", "value"]))
def test_generated_games(seed: int, format: str) -> None:
    buffer = io.BytesIO()
    monty.write_games(buffer, random_games(seed, 4), format=format)
    data = buffer.getvalue()
    arrays = monty.read_arrays(io.BytesIO(data), format=format)
    agree(arrays, list(monty.read_games(io.BytesIO(data), format=format)))
    out = io.BytesIO()
    monty.write_arrays(out, arrays)
    assert out.getvalue() == data


def test_a_shuffled_copy_of_the_games(corpus_path: Callable[..., Path]) -> None:
    path = corpus_path(*POLICY)
    arrays = monty.read_arrays(path)
    order = [3, 0, 4, 4, 1]
    buffer = io.BytesIO()
    monty.write_arrays(buffer, monty.take_games(arrays, np.array(order)))
    games = list(monty.read_games(path))
    copied = list(monty.read_games(io.BytesIO(buffer.getvalue()), format="policy"))
    assert [[(p.move, p.raw_score, p.visit_bytes) for p in g.plies] for g in copied] == [
        [(p.move, p.raw_score, p.visit_bytes) for p in games[n].plies] for n in order]


def workload(corpus_path: Callable[..., Path], times: int) -> bytes:
    return corpus_path(*POLICY).read_bytes() * times


def test_streaming_in_batches(corpus_path: Callable[..., Path]) -> None:
    data = workload(corpus_path, 7)
    whole = monty.read_arrays(io.BytesIO(data), format="policy").plies
    batches = list(monty.iter_plies(io.BytesIO(data), format="policy", batch_size=100, chunk=1000))
    assert [b.size for b in batches] == [100] * (whole.size // 100) + [whole.size % 100]
    joined = concat_plies(batches)
    for mine, theirs in zip(joined, whole, strict=True):
        assert np.array_equal(mine, theirs)
    shuffled = list(monty.iter_plies(io.BytesIO(data), format="policy", batch_size=64, shuffle=300, seed=1,
                                     chunk=1000))
    mixed = concat_plies(shuffled)
    assert not np.array_equal(mixed.move, whole.move)
    # the same plies, each with its own position, result and visits
    key = np.lexsort((mixed.score, mixed.move, mixed.boards[:, 0], mixed.game))
    again = mixed.take(key)
    base = whole.take(np.lexsort((whole.score, whole.move, whole.boards[:, 0], whole.game)))
    for mine, theirs in zip(again, base, strict=True):
        assert np.array_equal(mine, theirs)
    assert [b.move.tolist() for b in shuffled] == [b.move.tolist() for b in monty.iter_plies(
        io.BytesIO(data), format="policy", batch_size=64, shuffle=300, seed=1, chunk=1000)]


def test_arrays_are_shared_with_torch(corpus_path: Callable[..., Path]) -> None:
    torch = pytest.importorskip("torch")
    batch = next(monty.iter_plies(corpus_path(*POLICY), batch_size=50))
    for array in (batch.visit_offsets, batch.visits, batch.game, batch.boards.view(np.int64)):
        tensor = torch.from_numpy(array)
        assert tensor.data_ptr() == array.ctypes.data  # no copy
        assert tensor.numpy().tolist() == array.tolist()


def test_a_truncated_last_game(corpus_path: Callable[..., Path]) -> None:
    path = corpus_path(*POLICY)
    data = path.read_bytes()
    arrays = monty.read_arrays(path)
    cut = data[:-7]
    with pytest.raises(TruncatedError) as raised:
        monty.read_arrays(io.BytesIO(cut), format="policy")
    assert raised.value.path is not None and raised.value.path.startswith("games[4]")
    # streamed: the earlier games' plies come first, then the error
    seen = []
    with pytest.raises(TruncatedError) as streamed:
        for batch in monty.iter_plies(io.BytesIO(cut), format="policy", batch_size=10, chunk=512):
            seen.append(batch)
    assert (streamed.value.offset, streamed.value.path) == (raised.value.offset, raised.value.path)
    assert concat_plies(seen).move.tolist() == arrays.plies.move[:arrays.game_plies[4]].tolist()


def test_a_damaged_ply(corpus_path: Callable[..., Path], tmp_path: Path) -> None:
    path = corpus_path(*POLICY)
    data = bytearray(path.read_bytes())
    # game 2, ply 3: its move replaced by a1a1 with the capture flag
    games = list(monty.read_games(path))
    offset = games[2].offset
    assert offset is not None
    at = offset + 43 + sum(5 + len(p.visit_bytes or b"") for p in games[2].plies[:3])
    data[at:at + 2] = (4).to_bytes(2, "little")
    damaged = tmp_path / "damaged.montyformat"
    damaged.write_bytes(bytes(data))
    with pytest.raises(InvalidValueError) as raised:
        monty.read_arrays(damaged, format="policy")
    error = raised.value
    assert (error.file, error.offset, error.path) == (str(damaged), at, "games[2].plies[3].move")
    read: list[monty.Game] = []
    with pytest.raises(FormatError) as again:
        for game in monty.read_games(damaged, format="policy"):
            read.append(game)
    assert (again.value.offset, again.value.path) == (at, error.path) and len(read) == 2


def test_the_kernel_codes_are_the_declared_ones() -> None:
    """The kernel's from-to-flag codes are Monty's move word as declared (fields and flag values)."""
    from chessformats.formats.monty import moves
    from chessformats.kernel import batch

    assert (batch.ORIGIN_SHIFT, batch.TARGET_SHIFT, batch.FLAG_SHIFT) == (
        moves.SHIFT_SOURCE, moves.SHIFT_DESTINATION, moves.FLAG_SHIFT)
    assert (batch.QUIET, batch.DOUBLE_PUSH, batch.KING_CASTLE, batch.QUEEN_CASTLE, batch.CAPTURE,
            batch.EN_PASSANT) == (moves.QUIET, moves.DOUBLE_PUSH, moves.KING_CASTLE, moves.QUEEN_CASTLE,
                                  moves.CAPTURE, moves.EN_PASSANT)
    assert [batch.PROMOTION + i for i in range(4)] == list(moves.PROMOTION_FLAGS)
    assert [batch.PROMOTION + batch.CAPTURE + i for i in range(4)] == list(moves.PROMOTION_CAPTURE_FLAGS)
