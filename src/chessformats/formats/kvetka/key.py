"""Kvetka positions: the 22-byte key of the normalised position, and the move codes.

The byte layout is :mod:`chessformats.schemas.kvetka`; the normalised board and the move coding are shared
with CTG (:mod:`chessformats.formats.normalised`). What is Kvetka's own: the fixed 22 bytes (zero padding
after the flags), the en-passant file whenever a pawn stands ready to capture (legal or not), and always
four castling bits.
"""

from __future__ import annotations

from typing import NamedTuple

import chess

from ...engine.schema import unwrap
from ...schemas import kvetka as schema
from ...schemas.squares import SQUARE_CODE
from ..normalised import CASTLING_BITS, MoveTable, Normalised, castling_rights, en_passant_file, normalise, square_board

__all__ = ["KEY_SIZE", "KeyOverflowError", "decode_key", "decode_move", "encode_move", "position_key"]

KEY_SIZE = schema.KEY_SIZE
KEY_BITS = 8 * KEY_SIZE
_EP_BITS = unwrap(schema.EN_PASSANT).sizeof()

MOVES = MoveTable(schema.MOVE_CODES)
"""Kvetka's move codes (193 of the 256 byte values)."""


class KeyOverflowError(ValueError):
    """A position whose square codes do not fit in the 22-byte key (many promoted pieces)."""


class Key(NamedTuple):
    """A position's key and how its board was normalised."""

    key: bytes
    bits: int
    """Bits of the key that carry the position (squares, en passant, castling); the rest is padding."""
    norm: Normalised


def encode(board: chess.Board) -> Key:
    """The spec's "Подготовка доски": colours flipped for black to move, then files mirrored if no castling;
    the squares, the en-passant file (+1; 0 = none) and the castling flags, padded with zeros to 22 bytes."""
    norm = normalise(board)
    ep = en_passant_file(board, norm.mirrored, legal=False)
    value = (norm.squares << _EP_BITS) | (0 if ep is None else ep + 1)
    value = (value << CASTLING_BITS) | norm.castling
    bits = norm.bits + _EP_BITS + CASTLING_BITS
    if bits > KEY_BITS:
        raise KeyOverflowError(f"the position needs {bits} bits, a key has {KEY_BITS}: {board.fen()}")
    return Key((value << (KEY_BITS - bits)).to_bytes(KEY_SIZE, "big"), bits, norm)


def position_key(board: chess.Board) -> bytes:
    """The 22-byte key of ``board`` (raises :class:`KeyOverflowError` when it does not fit)."""
    return encode(board).key


def decode_key(key: bytes) -> tuple[chess.Board, int]:
    """The normalised board (white to move) of a key, and the value of its padding bits.

    Raises :class:`ValueError` (:class:`PrefixCodeError`) for bits that are not square codes, an
    en-passant value above 8, or a board without one king per side.
    """
    value = int.from_bytes(key, "big")
    symbols, end = SQUARE_CODE.decode(value, KEY_BITS, 64)
    rest = KEY_BITS - end
    if rest < _EP_BITS + CASTLING_BITS:
        raise ValueError(f"the squares take {end} bits, leaving no room for the en-passant and castling bits")
    flags = (value >> (rest - _EP_BITS - CASTLING_BITS)) & ((1 << (_EP_BITS + CASTLING_BITS)) - 1)
    padding = value & ((1 << (rest - _EP_BITS - CASTLING_BITS)) - 1)
    ep, castling = flags >> CASTLING_BITS, flags & ((1 << CASTLING_BITS) - 1)
    if ep > 8:
        raise ValueError(f"en-passant value {ep} (0 = none, 1-8 = files a-h)")
    board = square_board(symbols)
    if len(board.pieces(chess.KING, chess.WHITE)) != 1 or len(board.pieces(chess.KING, chess.BLACK)) != 1:
        raise ValueError("the board does not have one king per side")
    board.castling_rights = castling_rights(castling)
    if ep:
        board.ep_square = chess.square(ep - 1, 5)
    return board, padding


def same_position(stored: bytes, key: bytes, bits: int) -> bool:
    """``stored`` holds the position of ``key`` (whose first ``bits`` bits matter), whatever its padding."""
    whole, rest = divmod(bits, 8)
    if stored[:whole] != key[:whole]:
        return False
    return not rest or (stored[whole] ^ key[whole]) >> (8 - rest) == 0


def decode_move(board: chess.Board, code: int) -> chess.Move | None:
    """The move of ``board`` a move code stands for (``None``: its piece is not on the board).

    Raises :class:`KeyError` for a byte that is not a move code.
    """
    norm = encode(board).norm
    return MOVES.move(code, norm.own, norm.flipped, norm.mirrored)


def encode_move(board: chess.Board, move: chess.Move) -> int | None:
    """The move code of ``move`` in ``board``; ``None`` when the table has none.

    Kvetka codes the first eight pawns, two knights, bishops and rooks, three queens and the king; a pawn
    reaching the last rank promotes to a queen; castling is the king's two-file step (``e1g1``).
    """
    return MOVES.encode(encode(board).norm, move, board.piece_type_at(move.from_square))
