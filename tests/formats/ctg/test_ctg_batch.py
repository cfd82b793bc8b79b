"""CTG over the kernel's batches (``formats/ctg/batch.py``): encoded positions, hashes, occupied squares and
move codes both ways, compared position by position with the per-position code they stand in for
(``ctg.position``, itself tested against the spec's examples and the corpus books). Inputs:
:func:`batch_positions.batch_positions`.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from batch_positions import batch_positions
from chessformats.formats.ctg import batch as ctg_batch
from chessformats.formats.ctg.position import MOVES, ctg_hash, encode, occupied_squares
from chessformats.formats.polyglot import batch as polyglot_batch
from chessformats.kernel.batch import Boards, legal_moves
from chessformats.kernel.boards import move_of_code


@pytest.fixture(scope="module")
def positions() -> tuple[list[chess.Board], Boards]:
    return batch_positions()


def test_encoded_positions_hashes_and_occupancies(positions: tuple[list[chess.Board], Boards]) -> None:
    boards, batch = positions
    encoded = ctg_batch.encode_boards(batch)
    signatures = encoded.signatures()
    expected = [encode(b) for b in boards]
    assert signatures == [e for e, _ in expected]
    assert encoded.flipped.tolist() == [n.flipped for _, n in expected]
    assert encoded.mirrored.tolist() == [n.mirrored for _, n in expected]
    assert ctg_batch.hashes(encoded).tolist() == [ctg_hash(s) for s in signatures]
    occupied, readable = ctg_batch.occupancies(encoded.data, encoded.offsets)
    assert readable.all()
    assert occupied.tolist() == [occupied_squares(s) for s in signatures]
    # a position cut short: its squares run past its bytes
    cut = np.concatenate([encoded.data[:encoded.offsets[1] - 4], encoded.data[encoded.offsets[1]:]])
    offsets = encoded.offsets.copy()
    offsets[1:] -= 4
    assert not ctg_batch.occupancies(cut, offsets)[1][0]


def test_move_codes_both_ways(positions: tuple[list[chess.Board], Boards]) -> None:
    boards, batch = positions
    encoded = ctg_batch.encode_boards(batch)
    offsets, codes = legal_moves(batch)
    owner = np.repeat(np.arange(len(boards)), np.diff(offsets))
    ctg_codes = ctg_batch.move_codes(batch, owner, codes, encoded)
    expected = []
    for i, code in zip(owner.tolist(), codes.tolist(), strict=True):  # every move: the oracle is slow, the batch not
        move = move_of_code(code, boards[i])
        found = MOVES.encode(encode(boards[i])[1], move, boards[i].piece_type_at(move.from_square))
        expected.append(-1 if found is None else found)
    assert ctg_codes.tolist() == expected
    assert (ctg_codes < 0).any()  # underpromotions, third pieces
    stored = ctg_codes >= 0
    keys, found = ctg_batch.decode_moves(batch, owner[stored], ctg_codes[stored], encoded)
    assert found.all()
    assert keys.tolist() == polyglot_batch.move_keys(codes[stored]).tolist()
    # every code of the table in every position: the move MOVES.move gives, or none where it gives none
    index = np.repeat(np.arange(len(boards)), len(MOVES.steps))[::13]
    table = np.tile(np.array(sorted(MOVES.steps)), len(boards))[::13]
    keys, found = ctg_batch.decode_moves(batch, index, table, encoded)
    for i, code, key, ok in zip(index.tolist(), table.tolist(), keys.tolist(), found.tolist(), strict=True):
        norm = encode(boards[i])[1]
        move = MOVES.move(code, norm.own, norm.flipped, norm.mirrored)
        assert ok == (move is not None)
        if move is not None:
            assert key == move.from_square << 9 | move.to_square << 3 | (move.promotion or 0)
