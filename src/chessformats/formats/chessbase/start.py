"""Where a ChessBase game starts: the standard position, or the setup position (and Chess960 start squares)
stored before its move stream."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ...engine.errors import InvalidValueError, TruncatedError

__all__ = ["BLACK", "EMPTY", "StartPosition", "file_major", "read_setup", "standard_start"]

EMPTY = 0
"""The piece code of an empty square; a piece's code is its python-chess piece type, plus ``BLACK`` for black."""
BLACK = 8
_SETUP_PIECES = {1: chess.KING, 2: chess.QUEEN, 3: chess.KNIGHT, 4: chess.BISHOP, 5: chess.ROOK, 6: chess.PAWN}


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


def standard_start() -> StartPosition:
    board = [EMPTY] * 64
    for square, piece in chess.Board().piece_map().items():
        board[square] = piece.piece_type | (0 if piece.color else BLACK)
    return StartPosition(board, True, 15, None, 1)


def read_setup(data: bytes, at: int, *, chess960: bool, file: str | None, base: int,
               game: int) -> StartPosition:
    """The setup position at ``data[at:]`` (28 bytes, + 8 for Chess960 modes)."""
    needed = 28 + (8 if chess960 else 0)
    if len(data) < at + needed:
        raise TruncatedError(f"game {game}: truncated setup position", needed=needed, available=len(data) - at,
                             file=file, offset=base + at)
    turn, castling, first = data[at + 1], data[at + 2], data[at + 3]
    bits = int.from_bytes(data[at + 4:at + 28], "big")
    width = 192
    board = [EMPTY] * 64
    position = 0
    for file_index in range(8):
        for rank in range(8):
            if position >= width:
                raise InvalidValueError(f"game {game}: the setup board runs past its 24 bytes", file=file,
                                        offset=base + at + 4, path="setup.board")
            if not bits >> (width - 1 - position) & 1:
                position += 1
                continue
            if position + 5 > width:
                raise InvalidValueError(f"game {game}: the setup board runs past its 24 bytes", file=file,
                                        offset=base + at + 4, path="setup.board")
            code = bits >> (width - 5 - position) & 0xF
            position += 5
            piece = _SETUP_PIECES.get(code & 7)
            if piece is None:
                raise InvalidValueError(f"game {game}: invalid piece code in the setup board", actual=code,
                                        file=file, offset=base + at + 4 + position // 8, path="setup.board")
            board[chess.square(file_index, rank)] = piece | (BLACK if code & 8 else 0)
    ep = turn & 0x0F
    # castling byte (spec): bit 0 white O-O-O, bit 1 white O-O, bit 2 black O-O-O, bit 3 black O-O
    rights = (2 if castling & 1 else 0) | (1 if castling & 2 else 0) | (8 if castling & 4 else 0) | \
             (4 if castling & 8 else 0)
    start = StartPosition(board, not turn & 0x10, rights, ep - 1 if 1 <= ep <= 8 else None, first,
                          standard=False)
    if chess960:
        extra = data[at + 28:at + 36]
        squares = [file_major(value) for value in extra[:6]]
        if any(square is None for square in squares):
            raise InvalidValueError(f"game {game}: invalid Chess960 start square", file=file,
                                    offset=base + at + 28, path="chess960")
        white_king, black_king, ws, wl, bs, bl = (s for s in squares if s is not None)
        start.chess960 = True
        start.kings = (white_king, black_king)
        start.rooks = (ws, wl, bs, bl)
        start.start_position = int.from_bytes(extra[6:8], "big")
    return start


def file_major(value: int) -> int | None:
    """A file-major square number (0 = a1, 1 = a2, ..., 8 = b1) as a python-chess square."""
    return chess.square(value >> 3, value & 7) if 0 <= value < 64 else None
