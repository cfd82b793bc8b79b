"""Between python-chess boards and the kernel's batches: :func:`from_boards`, :func:`to_board` (through
:func:`.newboard.new_board`), the :class:`chess.Move` of a move code (:func:`move_of_code`) and the code of a
move (:func:`code_of_move`)."""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from .batch import (
    CAPTURE,
    DOUBLE_PUSH,
    EN_PASSANT,
    FLAG_SHIFT,
    KING_CASTLE,
    ORIGIN_SHIFT,
    PROMOTION,
    QUEEN_CASTLE,
    QUIET,
    TARGET_SHIFT,
    Boards,
)
from .newboard import new_board

__all__ = ["code_of_move", "from_boards", "move_of_code", "to_board"]

_PIECES = ("pawns", "knights", "bishops", "rooks", "queens", "kings")
def from_boards(boards: Sequence[chess.Board]) -> Boards:
    """A batch of python-chess boards (castling rights as ``clean_castling_rights`` gives them)."""
    u64 = np.uint64
    return Boards._make([
        np.array([b.occupied_co[chess.WHITE] for b in boards], dtype=u64),
        np.array([b.occupied_co[chess.BLACK] for b in boards], dtype=u64),
        *(np.array([getattr(b, name) for b in boards], dtype=u64) for name in _PIECES),
        np.array([b.turn for b in boards], dtype=bool),
        np.array([b.ep_square or 0 for b in boards], dtype=np.uint8),
        np.array([b.clean_castling_rights() for b in boards], dtype=u64),
        np.array([b.halfmove_clock for b in boards], dtype=np.uint16),
        np.array([b.fullmove_number for b in boards], dtype=np.uint16),
    ])


def to_board(boards: Boards, index: int, *, chess960: bool = False) -> chess.Board:
    """Position ``index`` of a batch as a :class:`chess.Board` (no move stack)."""
    pawns, knights, bishops, rooks, queens, kings = (int(getattr(boards, name)[index]) for name in _PIECES)
    return new_board(int(boards.white[index]), int(boards.black[index]), pawns, knights, bishops, rooks, queens,
                     kings, bool(boards.turn[index]), int(boards.ep_square[index]), int(boards.castling[index]),
                     int(boards.halfmove[index]), int(boards.fullmove[index]), chess960)


def move_of_code(code: int, board: chess.Board) -> chess.Move:
    """The :class:`chess.Move` of a legal move code in ``board`` (Chess960 castling: king takes own rook)."""
    origin, target, flag = code >> ORIGIN_SHIFT & 63, code >> TARGET_SHIFT & 63, code & 15
    if flag in (KING_CASTLE, QUEEN_CASTLE) and board.chess960:
        rank = chess.BB_RANKS[chess.square_rank(origin)]
        rooks = board.castling_rights & board.rooks & rank
        side = rooks & ~(chess.BB_SQUARES[origin] * 2 - 1) if flag == KING_CASTLE else rooks & (
            chess.BB_SQUARES[origin] - 1)
        if side:
            return chess.Move(origin, chess.msb(side) if flag == KING_CASTLE else chess.lsb(side))
    return chess.Move(origin, target, (flag & 3) + chess.KNIGHT if flag >= PROMOTION else None)


def code_of_move(board: chess.Board, move: chess.Move) -> int:
    """The move code of a legal ``move`` of ``board``, as :func:`~.batch.legal_moves` writes it (castling, as the
    king taking its rook or moving two files, is the king's move to the g- or c-file): the inverse of
    :func:`move_of_code`. The move is not checked."""
    origin, target = move.from_square, move.to_square
    if board.is_castling(move):
        short = board.is_kingside_castling(move)
        target = chess.square(6 if short else 2, chess.square_rank(origin))
        flag = KING_CASTLE if short else QUEEN_CASTLE
    elif move.promotion:
        flag = PROMOTION + move.promotion - chess.KNIGHT + (CAPTURE if board.is_capture(move) else 0)
    elif board.is_en_passant(move):
        flag = EN_PASSANT
    elif board.is_capture(move):
        flag = CAPTURE
    elif board.pawns & chess.BB_SQUARES[origin] and abs(target - origin) == 16:
        flag = DOUBLE_PUSH
    else:
        flag = QUIET
    return origin << ORIGIN_SHIFT | target << TARGET_SHIFT | flag << FLAG_SHIFT
