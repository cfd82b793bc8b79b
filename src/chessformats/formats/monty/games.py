"""Games and plies (:class:`~.model.Game`, :class:`~.model.Ply`) from the bulk reader's arrays: every value of a
batch is turned into Python objects at once (``tolist``), then each ply takes its slices."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import chess
import numpy as np

from ...kernel.boards import move_of_code
from .arrays import MontyArrays, piece_bitboards, start_boards
from .model import RESULTS, Game, Ply
from .moves import KING_CASTLE, MOVES, QUEEN_CASTLE

__all__ = ["games_of", "new_board"]

_TEMPLATE = chess.Board(None)
_FIELDS = frozenset(_TEMPLATE.__dict__)
_FAST = _FIELDS == {"occupied_co", "pawns", "knights", "bishops", "rooks", "queens", "kings", "promoted",
                    "occupied", "chess960", "ep_square", "move_stack", "_stack", "turn", "castling_rights",
                    "halfmove_clock", "fullmove_number"}
"""python-chess's board has the attributes this module fills (else boards are made the slower documented way)."""
_CASTLES = frozenset(code & 15 for code in (KING_CASTLE, QUEEN_CASTLE))


def new_board(white: int, black: int, pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int,
              turn: bool, ep_square: int, castling: int, halfmove: int, fullmove: int, chess960: bool) -> chess.Board:
    """A :class:`chess.Board` of these fields (no move stack)."""
    if _FAST:
        board = object.__new__(chess.Board)
        board.__dict__.update(occupied_co=[black, white], pawns=pawns, knights=knights, bishops=bishops, rooks=rooks,
                              queens=queens, kings=kings, promoted=0, occupied=white | black, chess960=chess960,
                              ep_square=ep_square or None, move_stack=[], _stack=[], turn=turn,
                              castling_rights=castling, halfmove_clock=halfmove, fullmove_number=fullmove)
        return board
    board = chess.Board(None, chess960=chess960)  # pragma: no cover - another python-chess
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
    board.occupied = white | black
    board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings = (
        pawns, knights, bishops, rooks, queens, kings)
    board.turn, board.ep_square, board.castling_rights = turn, ep_square or None, castling
    board.halfmove_clock, board.fullmove_number = halfmove, fullmove
    return board


def _shares(visits: np.ndarray, offsets: np.ndarray) -> list[float]:
    """Each visit byte over the sum of its ply's bytes (0.0 when they are all 0): byte / total as Python does."""
    sums = np.zeros(len(visits) + 1, dtype=np.int64)
    np.cumsum(visits, out=sums[1:])
    totals = sums[offsets[1:]] - sums[offsets[:-1]]
    start = offsets[0]
    per = np.repeat(totals, np.diff(offsets)).astype(np.float64)
    values = visits[start:offsets[-1]].astype(np.float64)
    shares: list[float] = np.divide(values, per, out=np.zeros_like(values), where=per != 0).tolist()
    return shares


def games_of(arrays: MontyArrays, *, games: int | None = None) -> Iterator[Game]:
    """The games of ``arrays`` (the first ``games`` of them) as :class:`Game` objects, with every ply's board,
    move, scores and visit distribution."""
    plies = arrays.plies
    value = arrays.format == "value"
    count = len(arrays.headers) if games is None else games
    if not count:
        return
    starts, chess960 = start_boards(arrays.headers[:count])
    stored_files = [tuple(row) for row in np.stack(
        [arrays.headers[:count][name] for name in ("white_queenside_rook", "white_kingside_rook",
                                                   "black_queenside_rook", "black_kingside_rook")], axis=1).tolist()]
    start_fields = [array.tolist() for array in starts[:13]]
    end = int(arrays.game_plies[count])
    pieces = piece_bitboards(plies.boards[:end]).T.tolist()
    turns = (plies.side[:end] == 0).tolist()
    fields: list[list[Any]] = [*pieces, turns, plies.ep_square[:end].tolist(), plies.castling[:end].tolist(),
                               plies.halfmove[:end].tolist(), plies.fullmove[:end].tolist()]
    rows = list(zip(*fields, strict=True))
    codes = plies.move[:end].tolist()
    raw_scores = plies.score[:end].tolist()
    offsets = plies.visit_offsets[:end + 1]
    bounds = offsets.tolist()
    visit_bytes = plies.visits.tobytes()
    visit_codes = plies.visit_moves[offsets[0]:offsets[-1]].tolist()
    shares = _shares(plies.visits, offsets)
    first = bounds[0]
    moves_table = MOVES
    lookup = moves_table.__getitem__
    scale = float(np.iinfo(np.uint16).max)
    game_plies = arrays.game_plies.tolist()
    numbers = arrays.numbers[:count].tolist()
    offsets_in_file = arrays.offsets[:count].tolist()
    results = arrays.headers["result"][:count].tolist()
    for game in range(count):
        is960 = bool(chess960[game])
        start = new_board(*(column[game] for column in start_fields), is960)  # type: ignore[call-arg]
        made: list[Ply] = []
        for index in range(game_plies[game], game_plies[game + 1]):
            board = new_board(*rows[index], is960)  # type: ignore[call-arg]
            code = codes[index]
            raw = raw_scores[index]
            white = rows[index][8]
            if value:
                expected = 1 / (1 + math.exp(-raw / 400))
                score = expected if white else 1 - expected
            else:
                score = raw / scale
            low, high = bounds[index] - first, bounds[index + 1] - first
            visits: dict[chess.Move, float] | None = None
            stored: bytes | None = None
            if high > low:
                legal = visit_codes[low:high]
                if is960 and any(c & 15 in _CASTLES for c in legal):
                    keys = [move_of_code(c, board) if c & 15 in _CASTLES else lookup(c) for c in legal]
                else:
                    keys = list(map(lookup, legal))
                visits = dict(zip(keys, shares[low:high], strict=True))
                stored = visit_bytes[bounds[index]:bounds[index + 1]]
            move = move_of_code(code, board) if is960 and code & 15 in _CASTLES else lookup(code)
            made.append(Ply(move, score, visits, raw, stored, board, code))
        yield Game(start, made, RESULTS[results[game]], stored_files[game], arrays.format, numbers[game],
                   offsets_in_file[game])
