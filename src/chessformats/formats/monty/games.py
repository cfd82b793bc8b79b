"""Games and plies (:class:`~.model.Game`, :class:`~.model.Ply`) from the bulk reader's arrays: the values of a
window of plies (whole games, about :data:`_WINDOW` plies) are turned into Python objects at once (``tolist``),
then each ply takes its own. (A window, not the whole batch: every full collection of the garbage collector walks
the lists alive, and batch-long lists made it a fifth of the reading time.)"""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import islice

import numpy as np

from ...kernel.boards import move_of_code
from ...kernel.newboard import new_board
from .arrays import MontyArrays, piece_bitboards, start_boards
from .model import RESULTS, Game, Ply, lazy_shares
from .moves import KING_CASTLE, MOVES, QUEEN_CASTLE

assert {KING_CASTLE, QUEEN_CASTLE} == {2, 3}  # ``code & 14 == 2``: a castling code

__all__ = ["games_of"]

_WINDOW = 4096
"""Plies made Python values at a time (at least one game)."""


def _shares(visits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each visit byte over the sum of its ply's bytes (0.0 when they are all 0): byte / total as Python does."""
    sums = np.zeros(len(visits) + 1, dtype=np.int64)
    np.cumsum(visits, out=sums[1:])
    totals = sums[offsets[1:]] - sums[offsets[:-1]]
    start = offsets[0]
    per = np.repeat(totals, np.diff(offsets)).astype(np.float64)
    values = visits[start:offsets[-1]].astype(np.float64)
    shares: np.ndarray = np.divide(values, per, out=values, where=per != 0)  # (a ply of zeros keeps them)
    return shares


def _value_scores(raw_scores: list[int], white: list[bool]) -> list[float]:
    """The value format's scores in [0, 1] for the side to move (the stored score is white's, in centipawns)."""
    scores = [1 / (1 + math.exp(-raw / 400)) for raw in raw_scores]
    return [score if white_to_move else 1 - score for score, white_to_move in zip(scores, white, strict=True)]


def games_of(arrays: MontyArrays, *, games: int | None = None) -> Iterator[Game]:
    """The games of ``arrays`` (the first ``games`` of them) as :class:`Game` objects, with every ply's board,
    move, scores and visit distribution."""
    plies = arrays.plies
    value = arrays.format == "value"
    count = len(arrays.headers) if games is None else games
    if not count:
        return
    headers = arrays.headers[:count]
    starts, chess960 = start_boards(headers)
    stored_files = [tuple(row) for row in np.stack(
        [headers[name] for name in ("white_queenside_rook", "white_kingside_rook", "black_queenside_rook",
                                    "black_kingside_rook")], axis=1).tolist()]
    start_rows = list(zip(*(array.tolist() for array in starts), chess960.tolist(), strict=True))
    end = int(arrays.game_plies[count])
    per_game = np.diff(arrays.game_plies[:count + 1])
    ply_960 = np.repeat(chess960, per_game)
    raw_scores = plies.score[:end]
    scores = None if value else raw_scores / float(np.iinfo(np.uint16).max)
    offsets = plies.visit_offsets[:end + 1]
    visit_bytes = plies.visits.tobytes()
    shares = _shares(plies.visits, offsets)
    first = int(offsets[0])
    codes_of_visits = plies.visit_moves[first:int(offsets[-1])]
    castles = ((codes_of_visits & 14) == 2).astype(np.int64)  # flags 2 and 3
    sums = np.zeros(len(castles) + 1, dtype=np.int64)
    np.cumsum(castles, out=sums[1:])
    may_castle = ((sums[offsets[1:] - first] - sums[offsets[:-1] - first]) > 0) & ply_960
    special = may_castle | (ply_960 & ((plies.move[:end] & 14) == 2))
    # the ply values by type, one row per value; made Python objects a window of games at a time (long lists of
    # Python values would be traversed by every full collection of the garbage collector)
    bitboards = np.concatenate([piece_bitboards(plies.boards[:end]).T, plies.castling[:end][None]])
    numbers_of_plies = np.stack([plies.ep_square[:end], plies.halfmove[:end], plies.fullmove[:end], plies.move[:end],
                                 raw_scores, offsets[:-1], offsets[1:]]).astype(np.int64)
    flags = np.stack([plies.side[:end] == 0, ply_960, special])
    lookup = MOVES.__getitem__
    make_shares = lazy_shares
    new = tuple.__new__
    game_plies = arrays.game_plies[:count + 1]
    limits = game_plies.tolist()
    numbers = arrays.numbers[:count].tolist()
    offsets_in_file = arrays.offsets[:count].tolist()
    results = headers["result"].tolist()
    following = 0
    while following < count:
        last = max(following + 1, int(np.searchsorted(game_plies, limits[following] + _WINDOW, side="right")) - 1)
        last = min(last, count)
        low_ply, high_ply = limits[following], limits[last]
        # one row per ply, consumed as it is made (zip reuses its tuple)
        window = numbers_of_plies[:, low_ply:high_ply].tolist()
        rows = zip(*bitboards[:, low_ply:high_ply].tolist(), *window, *flags[:, low_ply:high_ply].tolist(),
                   _value_scores(window[4], flags[0, low_ply:high_ply].tolist()) if scores is None
                   else scores[low_ply:high_ply].tolist(), strict=True)
        for game in range(following, last):
            made: list[Ply] = []
            append = made.append
            length = limits[game + 1] - limits[game]
            for (white_bb, black_bb, pawns, knights, bishops, rooks, queens, kings, castling, ep_square, halfmove,
                 fullmove, code, raw, low, high, turn, is_960, odd, score) in islice(rows, length):
                board = new_board(white_bb, black_bb, pawns, knights, bishops, rooks, queens, kings, turn, ep_square,
                                  castling, halfmove, fullmove, is_960)
                if high == low:
                    visits = None
                    move = move_of_code(code, board) if odd and code & 14 == 2 else lookup(code)
                elif odd:
                    move = move_of_code(code, board) if code & 14 == 2 else lookup(code)
                    visits = make_shares(codes_of_visits, shares, low - first, high - first, board)
                else:
                    move = lookup(code)
                    visits = make_shares(codes_of_visits, shares, low - first, high - first, None)
                append(new(Ply, (move, score, visits, raw, visit_bytes[low:high] if high > low else None, board,
                                 code)))
            yield Game(new_board(*start_rows[game]), made, RESULTS[results[game]], stored_files[game], arrays.format,
                       numbers[game], offsets_in_file[game])
        following = last
