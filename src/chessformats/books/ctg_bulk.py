"""A CTG book from a Polyglot book's walk (:class:`.layers.Walked`), the records made in bulk: the bytes
:func:`.ctg.write_book` writes for the model :func:`.polyglot.to_bookstats` makes of the same book, without the
model's Python objects (positions encoded, hashed and their moves coded by numpy over the whole walk,
:mod:`chessformats.formats.ctg.batch`).

The rules are :func:`.ctg.records_from_stats`': every walked position and every position a storable move leads
to is a record, in the order they are first met; a record's moves are those of every position that normalises to
it, each code once per position as the rules of chess see it (twins that differ by an en-passant square no
capture can use are one), in the order first met; its games are the weights of the moves that lead to it, or
(the start position) of its own moves. A Polyglot move's weight is its games (no results).
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.contract import WriteReport, WriteWarning, collect_warnings
from ..formats.ctg.batch import Encoded, encode_boards, hashes, legal_en_passant, move_codes
from ..formats.ctg.model import MAX_MOVES, MOVE, MOVE_SIZE, MOVES_LENGTH, MOVES_LENGTH_SIZE, BookMove, PositionRecord
from ..formats.ctg.model import NO_RATING as _NO_RATING
from ..formats.ctg.write import write_hashed
from ..kernel.boards import move_of_code, to_board
from ..kernel.playing import play
from .ctg import BOOK_NAME, THIRD_PIECE
from .layers import Walked, identities
from .leftout import left_out_reason, warn_left_out

if TYPE_CHECKING:
    import chess

__all__ = ["records_from_walked", "write_walked"]

Array = np.ndarray[Any, Any]
_GAMES_LIMIT = 1 << 24


def _record(signature: bytes, codes: list[int], games: int) -> PositionRecord:
    """The record as :func:`.ctg.records_from_stats` makes it (for the bytes: no board, no moves decoded)."""
    return PositionRecord(None, tuple(BookMove(None, code, 0) for code in codes), games, 0, 0, 0,  # type: ignore[arg-type]
                          0, _NO_RATING, _NO_RATING, 0, 0, 0, signature, 0, None, None, None, False, False)


@functools.cache
def _pieces() -> tuple[list[bytes], list[bytes], bytes, int]:
    """The moves block's length byte by number of moves, each code's move bytes (no annotation), the statistics
    bytes of a record with no games, and where the games field starts in them (from the declarations)."""
    lengths = [bytes(MOVES_LENGTH.pack(MOVES_LENGTH_SIZE + MOVE_SIZE * n)) for n in range(MAX_MOVES + 1)]
    moves = [bytes(MOVE.pack(code, 0)) for code in range(256)]
    marked = _record(b"", [], 0xABCDEF).stats_bytes()
    at = marked.index(b"\xab\xcd\xef")
    return lengths, moves, _record(b"", [], 0).stats_bytes(), at


def records_from_walked(walked: Walked) -> tuple[list[tuple[int, bytes]], int]:
    """The records of a walked Polyglot book as ``(hash, record bytes)`` in the order first met, and the number of
    moves left out because CTG cannot store them (a warning counts them by reason, as
    :func:`.ctg.records_from_stats` does)."""
    boards = walked.boards
    count = len(walked.keys)
    owner = np.repeat(np.arange(count), np.diff(walked.offsets))
    legal_ep = legal_en_passant(boards)
    encoded = encode_boards(boards, legal_ep)
    ctg_codes = move_codes(boards, owner, walked.codes, encoded).astype(np.int64)
    storable = np.flatnonzero(ctg_codes >= 0)
    skipped = _left_out(walked, owner, np.flatnonzero(ctg_codes < 0))
    # each code once per position as the rules of chess see it (en passant only when a capture is legal)
    twins: dict[bytes, int] = {}
    legal_id = np.array([twins.setdefault(identity, len(twins)) for identity in identities(boards, legal_ep)],
                        dtype=np.int64)
    pair = legal_id[owner[storable]] << 8 | ctg_codes[storable]
    counted = storable[np.sort(np.unique(pair, return_index=True)[1])]
    children = play(boards.take(owner[counted]), walked.codes[counted])
    child_encoded = encode_boards(children)
    # the records in the order first met: a position, then the positions its counted moves lead to
    parent_signatures, child_signatures = encoded.signatures(), child_encoded.signatures()
    parents_of = owner[counted]
    events: list[bytes] = []
    moves_before = np.searchsorted(parents_of, np.arange(count + 1))
    moves_at = moves_before.tolist()
    for index in range(count):
        events.append(parent_signatures[index])
        events += child_signatures[moves_at[index]:moves_at[index + 1]]
    ids: dict[bytes, int] = {}
    event_ids = np.array([ids.setdefault(signature, len(ids)) for signature in events], dtype=np.int64)
    is_parent = np.zeros(len(events), dtype=bool)
    is_parent[np.arange(count) + moves_before[:-1]] = True
    parent_id = event_ids[is_parent]
    child_id = event_ids[~is_parent]
    records = len(ids)
    weights = walked.weights[counted]
    # each record's codes in the order first met, with their weights summed
    code_pair = parent_id[parents_of] << 8 | ctg_codes[counted]
    unique_pairs, first, inverse = np.unique(code_pair, return_index=True, return_inverse=True)
    totals = np.bincount(inverse, weights=weights, minlength=len(unique_pairs)).astype(np.int64)
    by_record = np.lexsort((first, unique_pairs >> 8))
    record_of_code = (unique_pairs >> 8)[by_record]
    code_offsets = np.searchsorted(record_of_code, np.arange(records + 1))
    own_games = np.bincount(unique_pairs >> 8, weights=totals, minlength=records).astype(np.int64)
    incoming = np.bincount(child_id, weights=weights, minlength=records).astype(np.int64)
    has_incoming = np.zeros(records, dtype=bool)
    has_incoming[child_id] = True
    games = np.where(has_incoming, incoming, own_games)
    record_hashes = _record_hashes(records, event_ids, is_parent, encoded, child_encoded)
    lengths, move_bytes, stats_zero, games_at = _pieces()
    codes_sorted = (unique_pairs & 255)[by_record].tolist()
    code_at, game_list, hash_list = code_offsets.tolist(), games.tolist(), record_hashes.tolist()
    result = []
    for record, signature in enumerate(ids):
        codes = codes_sorted[code_at[record]:code_at[record + 1]]
        games_of = game_list[record]
        if len(codes) > MAX_MOVES or not 0 <= games_of < _GAMES_LIMIT:  # the record's own checks say why
            data = _record(signature, codes, games_of).to_bytes()
        else:
            data = b"".join([signature, lengths[len(codes)], *[move_bytes[code] for code in codes],
                             stats_zero[:games_at], games_of.to_bytes(3, "big"), stats_zero[games_at + 3:]])
        result.append((hash_list[record], data))
    return result, skipped


def _left_out(walked: Walked, owner: Array, unstorable: Array) -> int:
    """Warn of the walk's moves that have no CTG code (``unstorable``: their indices) by reason, as
    :func:`.ctg.records_from_stats` does (the walk's moves are legal: underpromotions and third pieces); return how
    many."""
    left_out: Counter[str] = Counter()
    boards: dict[int, chess.Board] = {}  # the positions' boards, each made once
    for index in unstorable.tolist():
        position = int(owner[index])
        board = boards.get(position)
        if board is None:
            board = boards[position] = to_board(walked.boards, position)
        reason = left_out_reason(board, move_of_code(int(walked.codes[index]), board), None, beyond=THIRD_PIECE)
        left_out[reason or THIRD_PIECE] += 1  # (never None: no code)
    return warn_left_out(left_out, BOOK_NAME, stacklevel=3)


def _record_hashes(records: int, event_ids: Array, is_parent: Array, encoded: Encoded,
                   child_encoded: Encoded) -> Array:
    """The hash of each record's encoded position."""
    event_hashes = np.empty(len(event_ids), dtype=np.int64)
    event_hashes[is_parent] = hashes(encoded)
    event_hashes[~is_parent] = hashes(child_encoded)
    found = np.zeros(records, dtype=np.int64)
    found[event_ids] = event_hashes  # the events of one record share its encoded position
    return found


def write_walked(path: str | os.PathLike[str], walked: Walked) -> WriteReport:
    """A CTG book from a walked Polyglot book (:func:`.ctg.from_bookstats` of its model, the same bytes)."""
    report_warnings: list[WriteWarning] = []
    with collect_warnings(report_warnings):
        items, skipped = records_from_walked(walked)
    root = walked.weights[walked.offsets[0]:walked.offsets[1]] if len(walked.keys) else walked.weights[:0]
    report = write_hashed(path, items, games=int(root.sum()))
    report.warnings += report_warnings
    if skipped:
        report.counts["moves left out"] = skipped
    return report
