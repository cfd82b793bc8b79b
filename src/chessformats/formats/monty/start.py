"""The start position of a Monty game, every header field checked (:func:`start_board`), and the scores as
stored read as the side to move's (:func:`side_score`)."""

from __future__ import annotations

import math
from typing import Any

import chess

from ...engine.errors import InvalidValueError
from ...kernel.newboard import new_board
from ...schemas import monty as schema
from .model import (
    BITBOARDS_STRUCT,
    HEADER_OFFSETS,
    RESULTS,
    RIGHT_NAMES,
    RIGHT_SIDES,
    RIGHTS,
    ROOK_FIELDS,
    SCORE_RANGES,
    SIDES,
    STANDARD_FILES,
    RawGame,
)

__all__ = ["side_score", "start_board"]

_SIDE_TEXT = " or ".join(f"{value} ({name})" for name, value in SIDES.items())
_RESULT_TEXT = " or ".join(f"{value} ({text})" for value, text in RESULTS.items())
_POLICY_SCALE = SCORE_RANGES["policy"][1]  # the policy score is stored as trunc(score * this)

_STATUS_CHECKS = (
    (chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS, "board",
     "each side needs exactly one king"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "board", "a pawn on the first or last rank"),
    (chess.STATUS_OPPOSITE_CHECK, "side_to_move", "the side that is not to move is in check"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling_rights", "a castling right whose king or rook is not in place"),
    (chess.STATUS_INVALID_EP_SQUARE, "ep_square", "not the square behind a pawn that just advanced two squares"),
)


def start_board(raw: RawGame, file: str | None) -> chess.Board:
    """The start position of a game, every header field checked (a :class:`FormatError` names the field)."""
    header = raw.header

    def invalid(field: str, reason: str, expected: Any, actual: Any) -> InvalidValueError:
        return InvalidValueError(reason, expected=expected, actual=actual, file=file,
                                 offset=raw.offset + HEADER_OFFSETS[field], path=f"games[{raw.number}].header.{field}")

    stored = BITBOARDS_STRUCT.unpack(header["board"])
    pieces = schema.expand_bitboards(*stored)
    if stored[1] & stored[2] & stored[3]:
        raise invalid("board", "a square in all three piece bitboards", "a square in at most two of them",
                      [chess.square_name(s) for s in chess.SquareSet(stored[1] & stored[2] & stored[3])])
    if pieces.black & pieces.white:
        raise invalid("board", "black pieces on empty squares", "black within the occupied squares",
                      [chess.square_name(s) for s in chess.SquareSet(pieces.black & pieces.white)])
    if header["side_to_move"] not in SIDES.values():
        raise invalid("side_to_move", "side to move", _SIDE_TEXT, header["side_to_move"])
    rights = header["castling_rights"]
    unused = rights >> RIGHTS["unused"].shift & RIGHTS["unused"].mask
    if unused:
        raise invalid("castling_rights", "castling rights use only the low 4 bits", "0b0000QKqk", rights)
    if header["ep_square"] > 63:
        raise invalid("ep_square", "en-passant square", "0 (none) or a square 16-23 or 40-47", header["ep_square"])
    if header["result"] not in RESULTS:
        raise invalid("result", "result", _RESULT_TEXT, header["result"])
    files = tuple(header[name] for name in ROOK_FIELDS)
    for name, rook_file in zip(ROOK_FIELDS, files, strict=True):
        if rook_file > 7:
            raise invalid(name, "rook file", "0-7 (a-h)", rook_file)
    if not any(files):
        files = STANDARD_FILES
    board = new_board(pieces.white, pieces.black, pieces.pawns, pieces.knights, pieces.bishops, pieces.rooks,
                      pieces.queens, pieces.kings, header["side_to_move"] == SIDES["white"], header["ep_square"],
                      0, header["halfmove_clock"], header["fullmove_number"])
    chess960 = files != STANDARD_FILES
    for index, name in enumerate(RIGHT_NAMES):
        if not rights >> RIGHTS[name].shift & 1:
            continue
        white, queenside = RIGHT_SIDES[index]
        rank = 0 if white else 7
        rook = chess.square(files[index], rank)
        board.castling_rights |= chess.BB_SQUARES[rook]
        king_mask = pieces.kings & (pieces.white if white else pieces.black) & chess.BB_RANKS[rank]
        king_file = chess.square_file(king_mask.bit_length() - 1) if king_mask else -1
        if king_mask and (files[index] < king_file) != queenside:
            raise invalid(ROOK_FIELDS[index], f"the {name.replace('_', ' ')} rook is on the wrong side of the king",
                          f"a file {'left' if queenside else 'right'} of the king's", files[index])
        chess960 |= king_file != 4
    board.chess960 = chess960
    status = board.status()
    for bits, field, reason in _STATUS_CHECKS:
        if status & bits:
            raise invalid(field, reason, "a legal position", board.fen())
    return board


def side_score(raw: int, value: bool, white: bool) -> float:
    """The side to move's score in [0, 1] from a stored score."""
    if not value:
        return raw / _POLICY_SCALE
    expected = 1 / (1 + math.exp(-raw / 400))  # white's point of view
    return expected if white else 1 - expected
