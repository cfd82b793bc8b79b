"""Where a ChessBase game starts: the standard position, or the setup position (and Chess960 start squares)
stored before its move stream."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ...engine.codec import codec
from ...engine.errors import InvalidValueError, TruncatedError
from ...engine.prefixcode import PrefixCodeError
from ...schemas import chessbase as schema

__all__ = ["BLACK", "EMPTY", "FIRST_MOVE_MAX", "SETUP_SIZE", "StartPosition", "encode_setup", "file_major",
           "read_setup", "standard_start"]

EMPTY = 0
"""The piece code of an empty square; a piece's code is its python-chess piece type, plus ``BLACK`` for black."""
BLACK = 8


@dataclass
class StartPosition:
    """Where a game starts: its FEN, whether it is Chess960, and the squares the decoder numbers pieces on."""

    board: list[int]
    white_to_move: bool
    castling: int
    """Bits: 1 white short, 2 white long, 4 black short, 8 black long."""
    en_passant_file: int | None
    first_move: int
    chess960: bool = False
    rooks: tuple[int, int, int, int] = (chess.H1, chess.A1, chess.H8, chess.A8)
    """Castling rooks: white short, white long, black short, black long."""
    kings: tuple[int, int] = (chess.E1, chess.E8)
    start_position: int | None = None
    standard: bool = True

    def fen(self) -> str:
        board = chess.Board(None, chess960=self.chess960)
        for square, code in enumerate(self.board):
            if code:
                board.set_piece_at(square, chess.Piece(code & 7, not code & BLACK))
        board.turn = self.white_to_move
        rights = 0
        for bit, rook in zip((1, 2, 4, 8), self.rooks, strict=True):
            if self.castling & bit:
                rights |= chess.BB_SQUARES[rook]
        board.castling_rights = rights & (board.rooks | board.kings)
        if self.en_passant_file is not None:
            rank = 5 if self.white_to_move else 2
            board.ep_square = chess.square(self.en_passant_file, rank)
        board.fullmove_number = max(self.first_move, 1)
        return board.fen(en_passant="fen")


def _standard_squares() -> list[int]:
    board = [EMPTY] * 64
    for square, piece in chess.Board().piece_map().items():
        board[square] = piece.piece_type | (0 if piece.color else BLACK)
    return board


_STANDARD_SQUARES = _standard_squares()


def standard_start() -> StartPosition:
    """The standard start position (a new one each call: the decoder moves its pieces)."""
    return StartPosition(_STANDARD_SQUARES[:], True, 15, None, 1)


_HEAD = codec(schema.SETUP_HEAD)
_HEAD_SIZE = int(_HEAD.size or 0)
FIRST_MOVE_MAX: int = _HEAD.field("first_move").mask
"""The largest move number a setup position holds (``SETUP_HEAD.first_move``)."""
_CHESS960 = codec(schema.CHESS960_SETUP)
_CHESS960_SIZE = int(_CHESS960.size or 0)
_BOARD_BITS = 8 * schema.SETUP_BOARD_SIZE
SETUP_SIZE: int = schema.SETUP.sizeof()
"""Bytes of the setup position (``SETUP``); Chess960 modes add ``CHESS960_SETUP``."""
_SQUARE_CODE = schema.SETUP_SQUARE_CODE
_PIECE_CODES = {name: (0 if name == "empty" else
                       chess.PIECE_NAMES.index(name.split("_", 1)[1]) | (BLACK if name.startswith("black") else 0))
                for name in _SQUARE_CODE.codes}
"""The decoder's piece code (python-chess type, + BLACK) of each setup square symbol."""
_SYMBOLS = {code: name for name, code in _PIECE_CODES.items()}
_FILE_MAJOR = tuple(chess.square(index >> 3, index & 7) for index in range(64))
"""The python-chess square of each position in the setup board (file by file: a1, a2, ..., a8, b1, ...)."""
# castling rights: the setup's castling fields -> StartPosition.castling's bits
_RIGHTS = {"white_short": 1, "white_long": 2, "black_short": 4, "black_long": 8}


def read_setup(data: bytes, at: int, *, chess960: bool, file: str | None, base: int,
               game: int) -> StartPosition:
    """The setup position at ``data[at:]`` (``SETUP``, then ``CHESS960_SETUP`` in Chess960 modes)."""
    needed = SETUP_SIZE + (_CHESS960_SIZE if chess960 else 0)
    if len(data) < at + needed:
        raise TruncatedError(f"game {game}: truncated setup position", needed=needed, available=len(data) - at,
                             file=file, offset=base + at)
    head = _HEAD.decode(data, at)
    board_at = at + _HEAD_SIZE
    value = int.from_bytes(data[board_at:board_at + schema.SETUP_BOARD_SIZE], "big")  # bit stream, first bit high
    try:
        symbols, _ = _SQUARE_CODE.decode(value, _BOARD_BITS, 64)
    except PrefixCodeError as exc:
        raise InvalidValueError(f"game {game}: the setup board: {exc}", file=file,
                                offset=base + board_at + exc.bit // 8, path="setup.board.squares") from exc
    board = [EMPTY] * 64
    codes = _PIECE_CODES
    for square, symbol in zip(_FILE_MAJOR, symbols, strict=True):
        board[square] = codes[symbol]
    castling = head.castling
    rights = sum(bit for name, bit in _RIGHTS.items() if getattr(castling, name))
    ep = head.turn.en_passant_file
    start = StartPosition(board, not head.turn.black_to_move, rights, ep - 1 if 1 <= ep <= 8 else None,
                          head.first_move, standard=False)
    if chess960:
        extra = _CHESS960.decode(data, at + SETUP_SIZE)
        squares = [file_major(value) for value in extra[:6]]
        if any(square is None for square in squares):
            raise InvalidValueError(f"game {game}: invalid Chess960 start square", file=file,
                                    offset=base + at + SETUP_SIZE, path="chess960")
        white_king, black_king, ws, wl, bs, bl = (s for s in squares if s is not None)
        start.chess960 = True
        start.kings = (white_king, black_king)
        start.rooks = (ws, wl, bs, bl)
        start.start_position = extra.start_position
    return start


def encode_setup(start: StartPosition, *, marker: int = 1) -> bytes:
    """The bytes ``read_setup`` reads back as ``start``: ``SETUP``, and ``CHESS960_SETUP`` for a Chess960 start
    (its rooks, kings and ``start_position``). Raises :class:`InvalidValueError` for a value a field cannot hold
    (more pieces than the 24 bytes of the board can code)."""
    symbols = [_SYMBOLS[start.board[square]] for square in _FILE_MAJOR]
    value, length = _SQUARE_CODE.encode(symbols)
    if length > _BOARD_BITS:
        raise InvalidValueError(f"the setup board needs {length} bits, it has {_BOARD_BITS}",
                                path="setup.board.squares")
    ep = start.en_passant_file
    head = _HEAD.encode({
        "marker": marker,
        "turn": {"reserved": 0, "black_to_move": not start.white_to_move,
                 "en_passant_file": 0 if ep is None else ep + 1},
        "castling": {"reserved": 0, **{name: bool(start.castling & bit) for name, bit in _RIGHTS.items()}},
        "first_move": start.first_move,
    })
    out = head + (value << (_BOARD_BITS - length)).to_bytes(schema.SETUP_BOARD_SIZE, "big")
    if start.chess960:
        out += _CHESS960.encode({
            "white_king": _file_major_number(start.kings[0]), "black_king": _file_major_number(start.kings[1]),
            **{name: _file_major_number(square) for name, square in zip(
                ("white_rook_short", "white_rook_long", "black_rook_short", "black_rook_long"), start.rooks,
                strict=True)},
            "start_position": start.start_position or 0})
    return bytes(out)


def _file_major_number(square: int) -> int:
    return chess.square_file(square) * 8 + chess.square_rank(square)


def file_major(value: int) -> int | None:
    """A file-major square number (0 = a1, 1 = a2, ..., 8 = b1) as a python-chess square."""
    return chess.square(value >> 3, value & 7) if 0 <= value < 64 else None
