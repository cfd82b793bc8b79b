"""Kvetka positions: the 22-byte key of the normalised position, and the move codes.

The byte layout is :mod:`chessformats.schemas.kvetka`; the normalised board and the move coding are shared
with CTG (:mod:`chessformats.formats.normalised`). What is Kvetka's own: the fixed 22 bytes (zero padding
after the flags), the en-passant file whenever a pawn stands ready to capture (legal or not), and always
four castling bits.
"""

from __future__ import annotations

from typing import NamedTuple

import chess

from ...engine.codec import codec
from ...engine.schema import member
from ...schemas import kvetka as schema
from ..normalised import (
    MoveTable,
    Normalised,
    castling_rights,
    en_passant_file,
    normalise,
    occupied_squares,
    square_board,
)

__all__ = ["KEY_SIZE", "KeyOverflowError", "decode_key", "decode_move", "encode_move", "key_occupied_squares",
           "position_key"]

KEY_SIZE = schema.KEY.sizeof()
KEY_BITS = 8 * KEY_SIZE
_LAYOUT = codec(schema.KEY)
_SQUARES = member(schema.KEY_BITS, "squares")
"""The squares: ``count`` code words of the prefix code ``code``, first in the key."""


def _flag_widths() -> dict[str, int]:
    """Bits of each fixed-width field of the key after the squares, in declaration order (en passant, castling);
    the padding after them (its width: what the squares leave) has none."""
    widths: dict[str, int] = {}
    for path, found in _LAYOUT.fields.items():
        if found.layout.leaf and found.layout.bit_width:
            top = path.split(".", 1)[0]
            widths[top] = widths.get(top, 0) + found.layout.bit_width
    return widths


_WIDTHS = _flag_widths()
_FLAG_BITS = sum(_WIDTHS.values())
_FLAGS = tuple(_WIDTHS)
_EN_PASSANT = {name: value for value, (name, _) in schema.EN_PASSANT.meanings.items()}
_NO_EN_PASSANT = _EN_PASSANT["none"]
_EN_PASSANT_OF_FILE = {chess.FILE_NAMES.index(name.removeprefix("file_")): value for name, value in _EN_PASSANT.items()
                       if name.startswith("file_")}
"""The en-passant value of each file (0 = a); ``none`` for no en passant."""
_FILE_OF_EN_PASSANT = {value: file for file, value in _EN_PASSANT_OF_FILE.items()}

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
    flags = {"en_passant": _NO_EN_PASSANT if ep is None else _EN_PASSANT_OF_FILE[ep], "castling": norm.castling}
    value = norm.squares
    for name in _FLAGS:
        value = (value << _WIDTHS[name]) | flags[name]
    bits = norm.bits + _FLAG_BITS
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
    value = int.from_bytes(key, "big")  # the key is one bit stream, its first bit the top bit of the first byte
    symbols, end = _SQUARES.code.decode(value, KEY_BITS, _SQUARES.count)
    rest = KEY_BITS - end
    if rest < _FLAG_BITS:
        raise ValueError(f"the squares take {end} bits, leaving no room for the en-passant and castling bits")
    flags = {}
    for name in _FLAGS:
        rest -= _WIDTHS[name]
        flags[name] = (value >> rest) & ((1 << _WIDTHS[name]) - 1)
    padding = value & ((1 << rest) - 1)
    ep = flags["en_passant"]
    if ep != _NO_EN_PASSANT and ep not in _FILE_OF_EN_PASSANT:
        raise ValueError(f"en-passant value {ep} (0 = none, 1-8 = files a-h)")
    board = square_board(symbols)
    if len(board.pieces(chess.KING, chess.WHITE)) != 1 or len(board.pieces(chess.KING, chess.BLACK)) != 1:
        raise ValueError("the board does not have one king per side")
    board.castling_rights = castling_rights(flags["castling"])
    if ep != _NO_EN_PASSANT:
        board.ep_square = chess.square(_FILE_OF_EN_PASSANT[ep], 5)  # rank 6: white is to move
    return board, padding


def key_occupied_squares(key: bytes) -> int:
    """The squares occupied on the normalised board of a key (a bitboard), without making the board; not
    checked."""
    return occupied_squares(_SQUARES.code.decode(int.from_bytes(key, "big"), KEY_BITS, _SQUARES.count)[0])


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
    norm = normalise(board)
    return MOVES.move(code, norm.own, norm.flipped, norm.mirrored)


def encode_move(board: chess.Board, move: chess.Move) -> int | None:
    """The move code of ``move`` in ``board``; ``None`` when the table has none.

    Kvetka codes the first eight pawns, two knights, bishops and rooks, three queens and the king; a pawn
    reaching the last rank promotes to a queen; castling is the king's two-file step (``e1g1``).
    """
    return MOVES.encode(normalise(board), move, board.piece_type_at(move.from_square))
