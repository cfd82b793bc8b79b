"""The book model's positions made cheaply: a board's FEN written from its bitboards, and a board packed into
bytes and rebuilt without parsing a FEN.

python-chess writes a FEN square by square (``board_fen`` asks ``piece_at`` 64 times: 31 µs a position here)
and parses one character by character (``chess.Board(fen)``: 50 µs). Conversions between book formats make
one FEN per position and, writing, one board per position (hundreds of thousands), so the model's fast paths
use these: :func:`xfen` is ``board.fen(en_passant="xfen")`` (the same string, 4 times faster), and
:func:`pack`/:func:`unpack` keep a board in 86 bytes and give back the board ``chess.Board(fen)`` would
(``unpack(pack(board))`` equals ``chess.Board(xfen(board))``, 15 times faster; in Chess960 mode when its castling
rights need it, as :meth:`.stats.PositionStats.board` makes it). Nothing here moves a piece: the rules stay
python-chess's.
"""

from __future__ import annotations

import struct

import chess

from ..kernel.newboard import chess960_if_needed, new_board

__all__ = ["pack", "unpack", "xfen"]

_RUNS = tuple(("1" * n, str(n)) for n in range(8, 1, -1))  # runs of empty squares, longest first
_PACKED = struct.Struct("<9QbbHI")
"""pawns, knights, bishops, rooks, queens, kings, white, black, castling rights; turn, en-passant square (-1:
none), halfmove clock, fullmove number."""


def _ep_square(board: chess.Board) -> int | None:
    """The en-passant square by X-FEN's rule (a pawn of the side to move stands ready, legal or not)."""
    return board.ep_square if board.ep_square is not None and board.has_pseudo_legal_en_passant() else None


def xfen(board: chess.Board) -> str:
    """``board.fen(en_passant="xfen")`` of a standard board (no promoted-piece marks), from its bitboards."""
    cells = ["1"] * 64
    white = board.occupied_co[chess.WHITE]
    for upper, lower, pieces in (("P", "p", board.pawns), ("N", "n", board.knights), ("B", "b", board.bishops),
                                 ("R", "r", board.rooks), ("Q", "q", board.queens), ("K", "k", board.kings)):
        while pieces:
            low = pieces & -pieces
            cells[low.bit_length() - 1] = upper if low & white else lower
            pieces ^= low
    placement = "/".join(["".join(cells[rank:rank + 8]) for rank in range(56, -8, -8)])
    for run, digit in _RUNS:
        if run in placement:
            placement = placement.replace(run, digit)
    ep = _ep_square(board)
    return (f"{placement} {'w' if board.turn else 'b'} {board.castling_xfen()} "
            f"{'-' if ep is None else chess.SQUARE_NAMES[ep]} {board.halfmove_clock} {board.fullmove_number}")


def pack(board: chess.Board) -> bytes:
    """The position of ``board`` as its X-FEN tells it (castling rights that hold, en passant by X-FEN's rule,
    the move counters), in 86 bytes (a FEN string takes about 110)."""
    ep = _ep_square(board)
    return _PACKED.pack(board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
                        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
                        board.clean_castling_rights(), board.turn, -1 if ep is None else ep, board.halfmove_clock,
                        board.fullmove_number)


def unpack(packed: bytes) -> chess.Board:
    """The board of :func:`pack`: the board ``chess.Board(xfen(board))`` gives, without parsing a FEN, in Chess960
    mode when its castling rights are possible only in Chess960
    (:func:`~chessformats.kernel.newboard.chess960_if_needed`: the board packed was a Chess960 board)."""
    (pawns, knights, bishops, rooks, queens, kings, white, black, castling, turn, ep, halfmove,
     fullmove) = _PACKED.unpack(packed)
    return chess960_if_needed(new_board(white, black, pawns, knights, bishops, rooks, queens, kings, bool(turn),
                                        None if ep < 0 else ep, castling, halfmove, fullmove))
