"""Games and plies (:class:`~.model.Game`, :class:`~.model.Ply`) from the bulk reader's arrays: every value of a
batch is turned into Python objects at once (``tolist``), then each ply takes its slices."""

from __future__ import annotations

import math
from collections.abc import Iterator

import chess
import numpy as np

from ...kernel.boards import move_of_code
from .arrays import MontyArrays, piece_bitboards, start_boards
from .model import RESULTS, Game, Ply, VisitShares
from .moves import KING_CASTLE, MOVES, QUEEN_CASTLE

assert {KING_CASTLE, QUEEN_CASTLE} == {2, 3}  # ``code & 14 == 2``: a castling code

__all__ = ["games_of", "new_board"]

_TEMPLATE = chess.Board(None)
_FIELDS = frozenset(_TEMPLATE.__dict__)
_FAST = _FIELDS == {"occupied_co", "pawns", "knights", "bishops", "rooks", "queens", "kings", "promoted",
                    "occupied", "chess960", "ep_square", "move_stack", "_stack", "turn", "castling_rights",
                    "halfmove_clock", "fullmove_number"}
"""python-chess's board has the attributes this module fills (else boards are made the slower documented way)."""
_BOARD, _new = chess.Board, object.__new__


def new_board(white: int, black: int, pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int,
              turn: bool, ep_square: int, castling: int, halfmove: int, fullmove: int, chess960: bool) -> chess.Board:
    """A :class:`chess.Board` of these fields (no move stack)."""
    if _FAST:
        board = _new(_BOARD)
        board.__dict__ = {"occupied_co": [black, white], "pawns": pawns, "knights": knights, "bishops": bishops,
                          "rooks": rooks, "queens": queens, "kings": kings, "promoted": 0, "occupied": white | black,
                          "chess960": chess960, "ep_square": ep_square or None, "move_stack": [], "_stack": [],
                          "turn": turn, "castling_rights": castling, "halfmove_clock": halfmove,
                          "fullmove_number": fullmove}
        return board
    board = chess.Board(None, chess960=chess960)  # pragma: no cover - another python-chess
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
    board.occupied = white | black
    board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings = (
        pawns, knights, bishops, rooks, queens, kings)
    board.turn, board.ep_square, board.castling_rights = turn, ep_square or None, castling
    board.halfmove_clock, board.fullmove_number = halfmove, fullmove
    return board


def _shares(visits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each visit byte over the sum of its ply's bytes (0.0 when they are all 0): byte / total as Python does."""
    sums = np.zeros(len(visits) + 1, dtype=np.int64)
    np.cumsum(visits, out=sums[1:])
    totals = sums[offsets[1:]] - sums[offsets[:-1]]
    start = offsets[0]
    per = np.repeat(totals, np.diff(offsets)).astype(np.float64)
    values = visits[start:offsets[-1]].astype(np.float64)
    shares: np.ndarray = np.divide(values, per, out=np.zeros_like(values), where=per != 0)
    return shares


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
    rows = list(zip(*piece_bitboards(plies.boards[:end]).T.tolist(), (plies.side[:end] == 0).tolist(),
                    plies.ep_square[:end].tolist(), plies.castling[:end].tolist(), plies.halfmove[:end].tolist(),
                    plies.fullmove[:end].tolist(), ply_960.tolist(), strict=True))
    codes = plies.move[:end].tolist()
    raw_scores = plies.score[:end].tolist()
    if value:
        white = (plies.side[:end] == 0).tolist()
        scores = [1 / (1 + math.exp(-raw / 400)) for raw in raw_scores]
        scores = [s if w else 1 - s for s, w in zip(scores, white, strict=True)]
    else:
        scores = (plies.score[:end] / float(np.iinfo(np.uint16).max)).tolist()
    offsets = plies.visit_offsets[:end + 1]
    bounds = offsets.tolist()
    visit_bytes = plies.visits.tobytes()
    shares = _shares(plies.visits, offsets)
    first = bounds[0]
    codes_of_visits = plies.visit_moves[first:bounds[-1]]
    castles = ((codes_of_visits & 14) == 2).astype(np.int64)  # flags 2 and 3
    sums = np.zeros(len(castles) + 1, dtype=np.int64)
    np.cumsum(castles, out=sums[1:])
    may_castle = ((sums[offsets[1:] - first] - sums[offsets[:-1] - first]) > 0) & ply_960
    special = (may_castle | (ply_960 & ((plies.move[:end] & 14) == 2))).tolist()
    lookup = MOVES.__getitem__
    lazy = VisitShares.of_codes
    new = tuple.__new__
    game_plies = arrays.game_plies[:count + 1].tolist()
    numbers = arrays.numbers[:count].tolist()
    offsets_in_file = arrays.offsets[:count].tolist()
    results = headers["result"].tolist()
    for game in range(count):
        made: list[Ply] = []
        append = made.append
        for index in range(game_plies[game], game_plies[game + 1]):
            board = new_board(*rows[index])
            code = codes[index]
            low, high = bounds[index], bounds[index + 1]
            if special[index]:
                move = move_of_code(code, board) if code & 14 == 2 else lookup(code)
                visits = lazy(codes_of_visits, shares, low - first, high - first, board) if high > low else None
            else:
                move = lookup(code)
                visits = lazy(codes_of_visits, shares, low - first, high - first, None) if high > low else None
            append(new(Ply, (move, scores[index], visits, raw_scores[index],
                             visit_bytes[low:high] if high > low else None, board, code)))
        yield Game(new_board(*start_rows[game]), made, RESULTS[results[game]], stored_files[game], arrays.format,
                   numbers[game], offsets_in_file[game])
