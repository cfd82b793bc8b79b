"""Reading Monty files as chess: the start position, legality and visit distribution of every ply.

>>> from chessformats import monty
>>> for game in monty.read_games("data.montyformat"):           # doctest: +SKIP
...     for ply in game.plies:
...         print(ply.board.fen(), ply.move, ply.score, ply.visits)
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from typing import IO, Any

import chess

from ...engine.errors import FormatError, InvalidValueError
from ...schemas import monty as schema
from .model import (
    BITBOARDS_STRUCT,
    FORMATS,
    HEADER_OFFSETS,
    PLY_OFFSETS,
    RESULTS,
    RIGHT_NAMES,
    RIGHT_SIDES,
    RIGHTS,
    ROOK_FIELDS,
    SCORE_RANGES,
    SIDES,
    STANDARD_FILES,
    Game,
    Ply,
    RawGame,
    check_format,
)
from .movegen import legal_codes
from .moves import MOVES, flag_of, move_of
from .structure import raw_games

__all__ = ["detect_format", "game_from_raw", "plies_from_raw", "read_games", "side_score", "start_board",
           "visit_shares"]

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
    board = chess.Board(None)
    board.pawns, board.knights, board.bishops = pieces.pawns, pieces.knights, pieces.bishops
    board.rooks, board.queens, board.kings = pieces.rooks, pieces.queens, pieces.kings
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = pieces.white, pieces.black
    board.occupied = pieces.white | pieces.black
    board.turn = header["side_to_move"] == SIDES["white"]
    board.halfmove_clock = header["halfmove_clock"]
    board.fullmove_number = header["fullmove_number"]
    board.ep_square = header["ep_square"] or None
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


def game_from_raw(raw: RawGame, file: str | None, format: str) -> Game:
    """The chess reading of a game: start position, legality, move counts, visit alignment."""
    board = start_board(raw, file)
    start = board.copy(stack=False)
    plies = list(plies_from_raw(raw, board, file, format))
    return Game(start, plies, RESULTS[raw.header["result"]], tuple(raw.header[name] for name in ROOK_FIELDS),
                format, raw.number, raw.offset)


def plies_from_raw(raw: RawGame, board: chess.Board, file: str | None, format: str) -> Iterator[Ply]:
    """The plies of a game played on ``board``, each checked; then the game's structural fault, if any."""
    value = format == "value"
    moves_table = MOVES
    push = board.push
    for index, (offset, code, raw_score, stored) in enumerate(raw.plies):
        rooks: dict[int, int] = {}
        codes = legal_codes(board, rooks)
        count = len(stored)
        if count and count != len(codes):
            raise InvalidValueError(
                f"game {raw.number}, ply {index}: the stored legal-move count is not the position's",
                expected=len(codes), actual=count, file=file, offset=offset + PLY_OFFSETS["num_moves"],
                path=f"games[{raw.number}].plies[{index}].num_moves")
        if code not in codes:
            raise InvalidValueError(
                f"game {raw.number}, ply {index}: not a legal move in {board.fen()}",
                expected=f"one of {len(codes)} legal move codes", actual=f"{code} ({MOVES[code].uci()}, "
                f"flag {flag_of(code)})", file=file, offset=offset, path=f"games[{raw.number}].plies[{index}].move")
        move = moves_table[code] if not rooks else move_of(code, board, rooks)
        visits: dict[chess.Move, float] | None = None
        if count:
            codes.sort()
            if rooks and board.chess960:
                visits = visit_shares([move_of(c, board, rooks) for c in codes], stored)
            else:
                visits = visit_shares(map(moves_table.__getitem__, codes), stored)
        yield Ply(move, side_score(raw_score, value, board.turn), visits, raw_score, stored if count else None,
                  board.copy(stack=False), code)
        push(move)
    if raw.error is not None:
        raise raw.error


def visit_shares(moves: Iterable[chess.Move], stored: bytes) -> dict[chess.Move, float]:
    """Each move's share of the visits: its byte over the sum of the bytes (all 0 when nothing was visited)."""
    total = sum(stored)
    if not total:
        return dict.fromkeys(moves, 0.0)
    return dict(zip(moves, map(total.__rtruediv__, stored), strict=True))  # byte / total, for every byte


def _open(source: str | os.PathLike[str] | IO[bytes]) -> tuple[IO[bytes], str | None, bool]:
    if isinstance(source, (str, os.PathLike)):
        return open(source, "rb"), os.fspath(source), True  # closed by read_games
    name = getattr(source, "name", None)
    return source, name if isinstance(name, str) else None, False


def read_games(source: str | os.PathLike[str] | IO[bytes], format: str = "policy") -> Iterator[Game]:
    """The games of a Monty file, one at a time (the file is read in chunks, never loaded whole).

    ``source`` is a path or a binary file object; ``format`` is ``"policy"`` (montyformat) or ``"value"``
    (montyvalue). Every ply gives the position before the move, the move, the score in [0, 1] for the
    side to move (and as stored) and, in the policy format, the visit distribution: each legal move's
    share of the visits, aligning the stored bytes with the legal moves sorted by their u16 codes.

    Raises :class:`~chessformats.FormatError` (with file, offset and field path such as
    ``games[3].plies[12].num_moves``) for a truncated file, an undefined value, an illegal move or a
    stored legal-move count that is not the position's.
    """
    check_format(format)
    handle, file, owned = _open(source)
    try:
        for raw in raw_games(handle, file, format):
            yield game_from_raw(raw, file, format)
    finally:
        if owned:
            handle.close()


def detect_format(path: str | os.PathLike[str]) -> str:
    """``"policy"`` or ``"value"``: by the extension (``.montyvalue``), else by which reading of the first
    game succeeds (raises the policy reading's :class:`FormatError` when neither does)."""
    name = os.fspath(path).lower()
    if name.endswith(".montyvalue"):
        return "value"
    if name.endswith(".montyformat"):
        return "policy"
    errors = []
    for format in FORMATS:
        try:
            with open(path, "rb") as handle:
                for raw in raw_games(handle, os.fspath(path), format):
                    game_from_raw(raw, os.fspath(path), format)
                    break
            return format
        except FormatError as exc:
            errors.append(exc)
    raise errors[0]
