"""Monty's u16 move codes: the fields and flags (from :data:`chessformats.schemas.monty.MOVE` and ``FLAG``),
and decoding a code into a :class:`chess.Move`."""

from __future__ import annotations

import chess

from ...engine.codec import codec
from ...engine.schema import enum_view
from ...kernel.boards import move_of_code
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
    king's rank on that side (outermost rook with a castling right).
    """
    flag = _flag_bits(code)
    if board is not None and board.chess960 and flag in (KING_CASTLE, QUEEN_CASTLE):
        king = _source(code)
        rooks = board.castling_rights & board.rooks & chess.BB_RANKS[chess.square_rank(king)]
        side = rooks & (chess.BB_ALL << (king + 1) if flag == KING_CASTLE else chess.BB_SQUARES[king] - 1)
        if side:
            rook = side.bit_length() - 1 if flag == KING_CASTLE else (side & -side).bit_length() - 1
            return chess.Move(king, rook)
    return MOVES[code]


_PROMOTION_BITS = {chess.PIECE_NAMES.index(name): (PROMOTION_FLAGS[index], PROMOTION_CAPTURE_FLAGS[index])
                   for index, name in enumerate(_PROMOTED)}


def _code(board: chess.Board, move: chess.Move, theirs: int) -> int:
    """The u16 code of ``move``, legal in ``board`` (``theirs``: the opponent's pieces)."""
    origin, target = move.from_square, move.to_square
    bit = chess.BB_SQUARES[target]
    if move.promotion:
        quiet, capture = _PROMOTION_BITS[move.promotion]
        flag = capture if bit & theirs else quiet
    elif board.pawns & chess.BB_SQUARES[origin]:
        if bit & theirs:
            flag = CAPTURE
        elif target == board.ep_square and (origin - target) & 7:
            flag = EN_PASSANT
        else:
            flag = DOUBLE_PUSH if abs(target - origin) == 16 else QUIET
    elif board.kings & chess.BB_SQUARES[origin] and board.is_castling(move):
        kingside = board.is_kingside_castling(move)
        target = chess.square(6 if kingside else 2, chess.square_rank(origin))
        flag = KING_CASTLE if kingside else QUEEN_CASTLE
    else:
        flag = CAPTURE if bit & theirs else QUIET
    return origin << SHIFT_SOURCE | target << SHIFT_DESTINATION | flag


def legal_codes(board: chess.Board, castling_rooks: dict[int, int] | None = None) -> list[int]:
    """The u16 codes of the legal moves of ``board``, sorted (the order the visit bytes follow).

    One position at a time, from python-chess's ``board.legal_moves`` (each move's code by the specification's
    flag table); a batch of positions is the chess kernel's (:func:`chessformats.kernel.batch.legal_moves`,
    which the tests check against this). Castling is the king's move to the g- or c-file with flag 2 or 3, in
    Chess960 too; when ``castling_rooks`` is given, the rook square of each castling code is put in it.
    """
    theirs = board.occupied_co[not board.turn]
    codes = sorted(_code(board, move, theirs) for move in board.generate_legal_moves())
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
    """The u16 code of ``move``, legal in ``board`` (raises :class:`ValueError` for an illegal move)."""
    for legal in board.generate_legal_moves(chess.BB_SQUARES[move.from_square]):  # (castling: the king's moves)
        if legal == move:
            return _code(board, legal, board.occupied_co[not board.turn])
    raise ValueError(f"{move.uci()} is not a legal move in {board.fen()}")
