"""Monty's u16 move codes: the fields and flags (from :data:`chessformats.schemas.monty.MOVE` and ``FLAG``),
decoding a code into a :class:`chess.Move`, and a position's legal codes (the chess kernel's: its move codes are
Monty's)."""

from __future__ import annotations

import chess

from ...engine.codec import codec
from ...engine.schema import enum_view
from ...kernel.batch import legal_moves
from ...kernel.boards import code_of_move, from_boards, move_of_code
from ...schemas import monty as schema

__all__ = [
    "CAPTURE", "DOUBLE_PUSH", "EN_PASSANT", "FLAG_MASK", "FLAG_SHIFT", "KING_CASTLE", "MOVES", "MOVE_FIELDS",
    "PROMOTION_CAPTURE_FLAGS", "PROMOTION_FLAGS", "QUEEN_CASTLE", "QUIET", "SHIFT_DESTINATION", "SHIFT_SOURCE",
    "SQUARE_MASK", "decode_move", "encode_move", "flag_of", "legal_codes",
]

MOVE_FIELDS = codec(schema.MOVE).bit_fields()
"""Shift and width of the code's fields (source, destination, flag), from the declaration."""
SHIFT_SOURCE, SHIFT_DESTINATION = MOVE_FIELDS["source"].shift, MOVE_FIELDS["destination"].shift
SQUARE_MASK = MOVE_FIELDS["source"].mask
FLAG_SHIFT, FLAG_MASK = MOVE_FIELDS["flag"].shift, MOVE_FIELDS["flag"].mask
_FLAG_BITS = {name: value << FLAG_SHIFT for value, name in enum_view(schema.FLAG).names.items()}
# the flags as their bits in a code: a code is ``origin << SHIFT_SOURCE | target << SHIFT_DESTINATION | FLAG``
QUIET, DOUBLE_PUSH, CAPTURE = _FLAG_BITS["quiet"], _FLAG_BITS["double_push"], _FLAG_BITS["capture"]
EN_PASSANT = _FLAG_BITS["en_passant"]
KING_CASTLE, QUEEN_CASTLE = _FLAG_BITS["king_castle"], _FLAG_BITS["queen_castle"]
_PROMOTED = ("knight", "bishop", "rook", "queen")
PROMOTION_FLAGS = tuple(_FLAG_BITS[f"{piece}_promotion"] for piece in _PROMOTED)
PROMOTION_CAPTURE_FLAGS = tuple(_FLAG_BITS[f"{piece}_promotion_capture"] for piece in _PROMOTED)
_PROMOTION_OF_FLAG = {bits: chess.PIECE_NAMES.index(name.split("_")[0])
                      for name, bits in _FLAG_BITS.items() if "_promotion" in name}


def flag_of(code: int) -> int:
    """The flag field of a u16 move code (a value of :data:`chessformats.schemas.monty.FLAG`)."""
    return code >> FLAG_SHIFT & FLAG_MASK


def _flag_bits(code: int) -> int:
    return code & FLAG_MASK << FLAG_SHIFT


def _source(code: int) -> chess.Square:
    return code >> SHIFT_SOURCE & SQUARE_MASK


class _MoveTable(dict[int, chess.Move]):
    """u16 code -> :class:`chess.Move` as the code reads without a board (castling: king to g/c file)."""

    def __missing__(self, code: int) -> chess.Move:
        promotion = _PROMOTION_OF_FLAG.get(_flag_bits(code))
        move = self[code] = chess.Move(_source(code), code >> SHIFT_DESTINATION & SQUARE_MASK, promotion)
        return move


MOVES = _MoveTable()
"""u16 code -> :class:`chess.Move` as the code reads without a board, filled on first use."""


def decode_move(board: chess.Board | None, code: int) -> chess.Move:
    """The :class:`chess.Move` of a u16 move code played from ``board``.

    Without a board (``None``) castling reads as the king's move to the g- or c-file. With a Chess960 board
    (``board.chess960``) castling becomes python-chess's king-takes-own-rook move, the rook found on the
    king's rank on that side (outermost rook with a castling right: the kernel's
    :func:`~chessformats.kernel.boards.move_of_code`).
    """
    if board is not None and board.chess960 and _flag_bits(code) in (KING_CASTLE, QUEEN_CASTLE):
        return move_of_code(code, board)
    return MOVES[code]


def legal_codes(board: chess.Board, castling_rooks: dict[int, int] | None = None) -> list[int]:
    """The u16 codes of the legal moves of ``board``, sorted (the order the visit bytes follow).

    The chess kernel's move generator on a batch of one (:func:`chessformats.kernel.batch.legal_moves`: its
    codes are Monty's). Castling is the king's move to the g- or c-file with flag 2 or 3, in Chess960 too; when
    ``castling_rooks`` is given, the rook square of each castling code is put in it.
    """
    codes: list[int] = legal_moves(from_boards([board]))[1].tolist()
    if castling_rooks is not None:
        for code in codes:
            if _flag_bits(code) in (KING_CASTLE, QUEEN_CASTLE):
                castling_rooks[code] = move_of_code(code, _as_chess960(board)).to_square
    return codes


def _as_chess960(board: chess.Board) -> chess.Board:
    if board.chess960:
        return board
    copy = board.copy(stack=False)
    copy.chess960 = True
    return copy


def encode_move(board: chess.Board, move: chess.Move) -> int:
    """The u16 code of ``move``, legal in ``board`` (raises :class:`ValueError` for an illegal move): the legal
    code that :func:`decode_move` reads as ``move`` (the kernel's :func:`~chessformats.kernel.boards.code_of_move`:
    its codes are Monty's)."""
    if board.is_legal(move):
        code = code_of_move(board, move)
        if decode_move(board, code) == move:  # (a king taking its rook in standard chess is not how Monty reads)
            return code
    raise ValueError(f"{move.uci()} is not a legal move in {board.fen()}")
