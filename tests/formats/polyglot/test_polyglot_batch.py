"""Polyglot over the kernel's batches (``formats/polyglot/batch.py``): keys, raw moves and the moves a raw move
stands for, compared position by position with python-chess (``chess.polyglot.zobrist_hash``, its legal moves)
and with ``polyglot.moves.encode_move``. Inputs: :func:`batch_positions.batch_positions`.
"""

from __future__ import annotations

import chess
import chess.polyglot
import numpy as np
import pytest

from batch_positions import batch_positions
from chessformats.formats.ctg import batch as ctg_batch
from chessformats.formats.polyglot import batch as polyglot_batch
from chessformats.formats.polyglot.moves import encode_move
from chessformats.kernel.batch import KING_CASTLE, QUEEN_CASTLE, Boards, legal_moves
from chessformats.kernel.boards import move_of_code
from chessformats.kernel.playing import play_rows, prepare, stack, unstack


@pytest.fixture(scope="module")
def positions() -> tuple[list[chess.Board], Boards]:
    return batch_positions()


def test_the_positions_hold_what_the_batches_must_handle(positions: tuple[list[chess.Board], Boards]) -> None:
    boards, _ = positions
    assert sum(b.has_legal_en_passant() for b in boards) > 20
    assert any(b.has_pseudo_legal_en_passant() and not b.has_legal_en_passant() for b in boards)
    assert sum(bool(b.castling_rights) for b in boards) > 500
    assert sum(bool(b.promoted) or chess.popcount(b.queens) > 2 for b in boards) > 0


def test_keys_and_en_passant_are_python_chess_s(positions: tuple[list[chess.Board], Boards]) -> None:
    boards, batch = positions
    keys = polyglot_batch.keys(batch).tolist()
    assert keys == [chess.polyglot.zobrist_hash(b) for b in boards]
    assert ctg_batch.legal_en_passant(batch).tolist() == [b.has_legal_en_passant() for b in boards]


def test_raw_moves_and_entry_queries(positions: tuple[list[chess.Board], Boards]) -> None:
    boards, batch = positions
    offsets, codes = legal_moves(batch)
    owner = np.repeat(np.arange(len(boards)), np.diff(offsets))
    raw = polyglot_batch.raw_moves(codes).tolist()
    moves = [move_of_code(int(code), boards[i]) for i, code in zip(owner.tolist(), codes.tolist(), strict=True)]
    assert raw == [encode_move(boards[i], m) for i, m in zip(owner.tolist(), moves, strict=True)]
    keys = polyglot_batch.move_keys(codes).tolist()
    assert keys == [m.from_square << 9 | m.to_square << 3 | (m.promotion or 0) for m in moves]
    # a raw move read back with its board (castling stored as king-takes-rook) is the move again
    assert polyglot_batch.entry_queries(batch, owner, np.array(raw)).tolist() == keys


def test_key_changes_give_the_keys_after_every_legal_move(positions: tuple[list[chess.Board], Boards]) -> None:
    boards, batch = positions
    offsets, codes = legal_moves(batch)
    owner = np.repeat(np.arange(len(boards)), np.diff(offsets))
    flags, origins = codes.astype(np.int64) & 15, codes.astype(np.int64) >> 10
    rooks = np.where(flags == KING_CASTLE, origins | 7, origins & 56)  # (standard chess: the corner)
    rows = stack(batch.take(owner))
    moves = prepare(codes, rooks)
    played = play_rows(rows, moves)
    before, after = unstack(rows), unstack(played)
    pieces = np.array([boards[i].piece_type_at(int(origin)) for i, origin in zip(owner.tolist(), origins.tolist(),
                                                                                  strict=True)])
    found = (polyglot_batch.keys(before) ^ polyglot_batch.en_passant_keys(before)
             ^ polyglot_batch.key_changes(rows, moves, played, pieces) ^ polyglot_batch.en_passant_keys(after))
    assert found.tolist() == polyglot_batch.keys(after).tolist()
    # python-chess's keys: every castling, en-passant capture, promotion, capture of a rook, king and rook move (what
    # changes castling rights), double step, and every 20th other move
    rights = (rows[10] != played[10]) | ((rows[5] & moves.to_bit) != 0)
    checked = np.flatnonzero((flags == KING_CASTLE) | (flags == QUEEN_CASTLE) | (flags == 5) | (flags >= 8)
                             | (flags == 1) | rights | (np.arange(len(codes)) % 20 == 0))
    assert {int(flags[i]) for i in checked} >= {0, 1, 2, 3, 4, 5, 8, 11, 12, 15}
    expected = []
    for index in checked.tolist():
        board = boards[owner[index]].copy(stack=False)
        board.push(move_of_code(int(codes[index]), board))
        expected.append(chess.polyglot.zobrist_hash(board))
    assert found[checked].tolist() == expected
