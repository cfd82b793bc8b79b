"""Monty training data (policy and value formats): reading, writing, move codes, visit distributions.

>>> from chessformats import monty
>>> for game in monty.read_games("data.montyformat"):           # doctest: +SKIP
...     for ply in game.plies:
...         print(ply.board.fen(), ply.move, ply.score, ply.visits)

The byte layout lives in :mod:`chessformats.schemas.monty`; this module adds the chess meaning. The
visit bytes of a ply belong to the legal moves of its position sorted by their u16 codes, so reading
generates the legal moves of every position: :func:`legal_codes` does it directly in Monty's move codes
(python-chess's own generator, plus encoding each move, is about four times slower), and the tests compare
it with python-chess on many positions, Chess960 included.
"""

from __future__ import annotations

import math
import os
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, NamedTuple

import chess
import numpy as np

from ..engine.errors import FormatError, InvalidValueError, TruncatedError
from ..engine.fileio import atomic_write
from ..engine.layout import bit_fields, describe, struct_format
from ..schemas import monty as schema

__all__ = [
    "FORMATS",
    "ROUNDINGS",
    "Game",
    "Ply",
    "decode_move",
    "detect_format",
    "encode_move",
    "legal_codes",
    "read_games",
    "visit_bytes",
    "write_games",
]

FORMATS = ("policy", "value")
"""``policy``: montyformat files (scores, visit distributions); ``value``: montyvalue files (evaluations)."""
ROUNDINGS = ("round", "trunc256")
"""How visit counts become bytes: ``round(v * 255 / max)`` (current writers) or ``min(trunc(v * 256 / max), 255)``."""

# --- fast paths, all derived from the declarations --------------------------------------------------------

_HEADER = struct.Struct(struct_format(schema.HEADER))
_HEADER_NAMES = tuple(sub.name for sub in schema.HEADER.subcons)
_HEADER_OFFSETS = {field.path: field.offset or 0 for field in describe(schema.HEADER)}
_BITBOARDS = struct.Struct(struct_format(schema.BITBOARDS))
_BITBOARD_NAMES = tuple(sub.name for sub in schema.BITBOARDS.subcons)
_RIGHTS = bit_fields(schema.CASTLING_RIGHTS)
_PLY_HEAD = struct.Struct(struct_format(schema.PLY_HEAD))
_VALUE_PLY = struct.Struct(struct_format(schema.VALUE_PLY))
_MOVE_WORD = struct.Struct(_PLY_HEAD.format[0] + _PLY_HEAD.format[1])  # the move alone, to find terminators
_MOVE = bit_fields(schema.MOVE)
_PLY_OFFSETS = {field.path: field.offset or 0 for field in describe(schema.PLY_HEAD)}
_TERMINATORS = {"policy": schema.TERMINATOR.sizeof(), "value": schema.VALUE_TERMINATOR.sizeof()}
_HEADER_SIZE = schema.HEADER_SIZE
_MAX_PLY = _PLY_HEAD.size + 255  # the largest policy ply record (num_moves is one byte)

_FLAGS = {name: value for value, (name, _) in schema.FLAG.meanings.items()}
_QUIET, _DOUBLE, _CAPTURE, _EN_PASSANT = _FLAGS["quiet"], _FLAGS["double_push"], _FLAGS["capture"], _FLAGS["en_passant"]
_KING_CASTLE, _QUEEN_CASTLE = _FLAGS["king_castle"], _FLAGS["queen_castle"]
_PROMOTION = _FLAGS["knight_promotion"]  # knight, bishop, rook, queen follow; + _CAPTURE for capturing ones
_PROMOTION_FLAGS = tuple(range(_PROMOTION, _PROMOTION + 4))
_PROMOTION_CAPTURE_FLAGS = tuple(flag + _CAPTURE for flag in _PROMOTION_FLAGS)
_SHIFT_SOURCE, _SHIFT_DESTINATION = _MOVE["source"].shift, _MOVE["destination"].shift
_SQUARE_MASK, _FLAG_MASK = _MOVE["source"].mask, _MOVE["flag"].mask
assert _MOVE["flag"].shift == 0 and _SHIFT_SOURCE == 10 and _SHIFT_DESTINATION == 4  # the loops below rely on it

_RESULTS = {0: "0-1", 1: "1/2-1/2", 2: "1-0"}  # schema.RESULT: black_wins, draw, white_wins
_RESULT_BYTES = {text: byte for byte, text in _RESULTS.items()}
_STANDARD_FILES = (0, 7, 0, 7)  # white queenside, white kingside, black queenside, black kingside
_RIGHT_NAMES = ("white_queenside", "white_kingside", "black_queenside", "black_kingside")
_ROOK_FIELDS = tuple(f"{name}_rook" for name in _RIGHT_NAMES)


# --- move codes ----------------------------------------------------------------------------------------------

class _MoveTable(dict[int, chess.Move]):
    """u16 code -> :class:`chess.Move` as the code reads without a board (castling: king to g/c file)."""

    def __missing__(self, code: int) -> chess.Move:
        flag = code & _FLAG_MASK
        promotion = (flag & 3) + chess.KNIGHT if flag & _PROMOTION else None
        move = self[code] = chess.Move(code >> _SHIFT_SOURCE, (code >> _SHIFT_DESTINATION) & _SQUARE_MASK, promotion)
        return move


_MOVES = _MoveTable()


def decode_move(code: int, board: chess.Board | None = None) -> chess.Move:
    """The :class:`chess.Move` of a u16 move code.

    Without a board castling reads as the king's move to the g- or c-file. With a Chess960 board
    (``board.chess960``) castling becomes python-chess's king-takes-own-rook move, the rook found on the
    king's rank on that side (outermost rook with a castling right).
    """
    flag = code & _FLAG_MASK
    if board is not None and board.chess960 and flag in (_KING_CASTLE, _QUEEN_CASTLE):
        king = code >> _SHIFT_SOURCE
        rooks = board.castling_rights & board.rooks & chess.BB_RANKS[chess.square_rank(king)]
        side = rooks & (chess.BB_ALL << (king + 1) if flag == _KING_CASTLE else chess.BB_SQUARES[king] - 1)
        if side:
            rook = side.bit_length() - 1 if flag == _KING_CASTLE else (side & -side).bit_length() - 1
            return chess.Move(king, rook)
    return _MOVES[code]


def encode_move(move: chess.Move, board: chess.Board) -> int:
    """The u16 code of a legal ``move`` in ``board`` (raises :class:`ValueError` for an illegal move)."""
    code = _code_by_move(board).get(move)
    if code is None:
        raise ValueError(f"{move.uci()} is not a legal move in {board.fen()}")
    return code


def _code_by_move(board: chess.Board) -> dict[chess.Move, int]:
    rooks: dict[int, int] = {}
    return {_move_of(code, board, rooks): code for code in legal_codes(board, rooks)}


def _move_of(code: int, board: chess.Board, rooks: Mapping[int, int]) -> chess.Move:
    """The move of a code from :func:`legal_codes` (``rooks``: the castling rooks it reported)."""
    if board.chess960 and code in rooks:
        return chess.Move(code >> _SHIFT_SOURCE, rooks[code])
    return _MOVES[code]


# --- legal move generation, in move codes ----------------------------------------------------------------

_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_PAWN_ATTACKS = chess.BB_PAWN_ATTACKS
_DIAG_MASKS, _DIAG_ATTACKS = chess.BB_DIAG_MASKS, chess.BB_DIAG_ATTACKS
_FILE_MASKS, _FILE_ATTACKS = chess.BB_FILE_MASKS, chess.BB_FILE_ATTACKS
_RANK_MASKS, _RANK_ATTACKS = chess.BB_RANK_MASKS, chess.BB_RANK_ATTACKS
_RAYS = chess.BB_RAYS
_BETWEEN = [[chess.between(a, b) for b in chess.SQUARES] for a in chess.SQUARES]
_STRAIGHT_RAYS = [_RANK_ATTACKS[square][0] | _FILE_ATTACKS[square][0] for square in chess.SQUARES]
_DIAG_RAYS = [_DIAG_ATTACKS[square][0] for square in chess.SQUARES]
_ALL = chess.BB_ALL
_NOT_FILE_A, _NOT_FILE_H = _ALL ^ chess.BB_FILE_A, _ALL ^ chess.BB_FILE_H
# by side to move (black 0, white 1): pawn step, rank reached by a single step that may step again, last rank
_PAWN_STEP = (-8, 8)
_DOUBLE_RANK = (chess.BB_RANK_6, chess.BB_RANK_3)
_LAST_RANK = (chess.BB_RANK_1, chess.BB_RANK_8)
_BACK_RANK = (chess.BB_RANK_8, chess.BB_RANK_1)


def _attacked(square: int, occupied: int, pawn_side: int, knights: int, kings: int, pawns: int, diagonal: int,
              straight: int) -> int:
    """Attackers of ``square`` among the given enemy pieces, sliders seeing through ``occupied``."""
    return ((_KNIGHT[square] & knights) | (_KING[square] & kings) | (_PAWN_ATTACKS[pawn_side][square] & pawns)
            | (_DIAG_ATTACKS[square][_DIAG_MASKS[square] & occupied] & diagonal)
            | ((_RANK_ATTACKS[square][_RANK_MASKS[square] & occupied]
                | _FILE_ATTACKS[square][_FILE_MASKS[square] & occupied]) & straight))


def _emit(append: Any, targets: int, delta: int, flag: int) -> None:
    """Append ``(target - delta) << 10 | target << 4 | flag`` for every target square."""
    while targets:
        low = targets & -targets
        target = low.bit_length() - 1
        append((target - delta) << 10 | target << 4 | flag)
        targets ^= low


def _emit_promotions(append: Any, targets: int, delta: int, flags: tuple[int, ...]) -> None:
    while targets:
        low = targets & -targets
        target = low.bit_length() - 1
        base = (target - delta) << 10 | target << 4
        for flag in flags:
            append(base | flag)
        targets ^= low


def legal_codes(board: chess.Board, castling_rooks: dict[int, int] | None = None) -> list[int]:
    """The u16 codes of the legal moves of ``board`` (unsorted), as Monty's move generator makes them.

    Castling is the king's move to the g- or c-file with flag 2 or 3, in Chess960 too; when
    ``castling_rooks`` is given, the rook square of each castling code is put in it. The moves are the
    ones ``board.legal_moves`` lists (standard chess and Chess960, python-chess's rules).
    """
    # The hot path of reading: tables are local names and the loops are written out (measured: calling a
    # helper per piece costs about a third more).
    knight_table, king_table, pawn_table = _KNIGHT, _KING, _PAWN_ATTACKS
    diag_masks, diag_table = _DIAG_MASKS, _DIAG_ATTACKS
    file_masks, file_table, rank_masks, rank_table = _FILE_MASKS, _FILE_ATTACKS, _RANK_MASKS, _RANK_ATTACKS
    turn = board.turn
    us, them = board.occupied_co[turn], board.occupied_co[not turn]
    occupied = us | them
    knights, bishops, rooks, queens = board.knights, board.bishops, board.rooks, board.queens
    king_mask = board.kings & us
    king = king_mask.bit_length() - 1
    their_knights, their_kings, their_pawns = knights & them, board.kings & them, board.pawns & them
    diagonal = (bishops | queens) & them
    straight = (rooks | queens) & them
    pawn_attacks = pawn_table[turn]
    codes: list[int] = []
    append = codes.append

    # king steps: to squares no enemy piece attacks once the king has left its square
    without_king = occupied ^ king_mask
    targets = king_table[king] & ~us
    while targets:
        low = targets & -targets
        target = low.bit_length() - 1
        if not (knight_table[target] & their_knights or king_table[target] & their_kings
                or pawn_attacks[target] & their_pawns
                or diag_table[target][diag_masks[target] & without_king] & diagonal
                or (rank_table[target][rank_masks[target] & without_king]
                    | file_table[target][file_masks[target] & without_king]) & straight):
            append(king << 10 | target << 4 | (_CAPTURE if low & them else _QUIET))
        targets ^= low

    checkers = ((knight_table[king] & their_knights) | (pawn_attacks[king] & their_pawns)
                | (diag_table[king][diag_masks[king] & occupied] & diagonal)
                | ((rank_table[king][rank_masks[king] & occupied] | file_table[king][file_masks[king] & occupied])
                   & straight))
    if checkers & (checkers - 1):
        return codes  # double check: only the king moves
    enemy = (turn, their_knights, their_kings, their_pawns, diagonal, straight)
    if checkers:
        mask = checkers | _BETWEEN[king][checkers.bit_length() - 1]
    else:
        mask = _ALL
        if board.castling_rights & _BACK_RANK[turn]:
            candidates = board.clean_castling_rights() & _BACK_RANK[turn]
            if candidates:
                _castling(append, king, candidates, occupied, enemy, castling_rooks)

    # pinned pieces: alone between the king and an enemy slider
    pinned = 0
    snipers = (_STRAIGHT_RAYS[king] & straight) | (_DIAG_RAYS[king] & diagonal)
    while snipers:
        low = snipers & -snipers
        blockers = _BETWEEN[king][low.bit_length() - 1] & occupied
        if blockers and not blockers & (blockers - 1):
            pinned |= blockers & us
        snipers ^= low

    captures = them & mask
    quiet = ~occupied & mask
    diagonal_movers, straight_movers = bishops | queens, rooks | queens
    movers = (knights & ~pinned | diagonal_movers | straight_movers) & us  # a pinned knight never moves
    while movers:
        low = movers & -movers
        origin = low.bit_length() - 1
        if low & knights:
            attacks = knight_table[origin]
        else:
            attacks = diag_table[origin][diag_masks[origin] & occupied] if low & diagonal_movers else 0
            if low & straight_movers:
                attacks |= (rank_table[origin][rank_masks[origin] & occupied]
                            | file_table[origin][file_masks[origin] & occupied])
            if low & pinned:
                attacks &= _RAYS[king][origin]
        base = origin << 10
        targets = attacks & captures
        while targets:
            bit = targets & -targets
            append(base | (bit.bit_length() - 1) << 4 | _CAPTURE)
            targets ^= bit
        targets = attacks & quiet
        while targets:
            bit = targets & -targets
            append(base | (bit.bit_length() - 1) << 4)
            targets ^= bit
        movers ^= low

    own_pawns = board.pawns & us
    if own_pawns:
        _pawn_moves(append, turn, own_pawns & ~pinned, them, occupied, mask, _ALL)
        pinned_pawns = own_pawns & pinned
        while pinned_pawns:
            low = pinned_pawns & -pinned_pawns
            _pawn_moves(append, turn, low, them, occupied, mask, _RAYS[king][low.bit_length() - 1])
            pinned_pawns ^= low
        ep = board.ep_square
        if ep is not None and not occupied >> ep & 1:
            _en_passant(append, turn, own_pawns, ep, occupied, king, enemy)
    return codes


def _pawn_moves(append: Any, turn: bool, pawns: int, them: int, occupied: int, mask: int, line: int) -> None:
    """Pushes and captures of ``pawns`` (moving along ``line``, for pinned pawns) that land in ``mask``."""
    step = _PAWN_STEP[turn]
    last = _LAST_RANK[turn]
    allowed = mask & line
    if turn:
        single = (pawns << 8) & ~occupied
        double = ((single & _DOUBLE_RANK[turn]) << 8) & ~occupied & allowed
        west, east = ((pawns & _NOT_FILE_A) << 7) & them & allowed, ((pawns & _NOT_FILE_H) << 9) & them & allowed
        west_step, east_step = 7, 9
    else:
        single = (pawns >> 8) & ~occupied
        double = ((single & _DOUBLE_RANK[turn]) >> 8) & ~occupied & allowed
        west, east = ((pawns & _NOT_FILE_A) >> 9) & them & allowed, ((pawns & _NOT_FILE_H) >> 7) & them & allowed
        west_step, east_step = -9, -7
    single &= allowed
    _emit(append, single & ~last, step, _QUIET)
    _emit(append, double, 2 * step, _DOUBLE)
    _emit(append, west & ~last, west_step, _CAPTURE)
    _emit(append, east & ~last, east_step, _CAPTURE)
    if (single | west | east) & last:
        _emit_promotions(append, single & last, step, _PROMOTION_FLAGS)
        _emit_promotions(append, west & last, west_step, _PROMOTION_CAPTURE_FLAGS)
        _emit_promotions(append, east & last, east_step, _PROMOTION_CAPTURE_FLAGS)


def _en_passant(append: Any, turn: bool, pawns: int, ep: int, occupied: int, king: int,
                enemy: tuple[bool, int, int, int, int, int]) -> None:
    """En-passant captures that leave the king safe (tested on the occupancy after the capture)."""
    captured = ep - _PAWN_STEP[turn]
    side, knights, kings, enemy_pawns, diagonal, straight = enemy
    capturers = _PAWN_ATTACKS[not turn][ep] & pawns
    while capturers:
        low = capturers & -capturers
        after = (occupied ^ low ^ chess.BB_SQUARES[captured]) | chess.BB_SQUARES[ep]
        if not _attacked(king, after, side, knights, kings, enemy_pawns & ~chess.BB_SQUARES[captured], diagonal,
                         straight):
            append((low.bit_length() - 1) << 10 | ep << 4 | _EN_PASSANT)
        capturers ^= low


def _castling(append: Any, king: int, candidates: int, occupied: int, enemy: tuple[bool, int, int, int, int, int],
              castling_rooks: dict[int, int] | None) -> None:
    """Castling with the rooks ``candidates``, by python-chess's rules (``generate_castling_moves``)."""
    rank = king & 56
    king_mask = chess.BB_SQUARES[king]
    while candidates:
        rook_mask = candidates & -candidates
        candidates ^= rook_mask
        rook = rook_mask.bit_length() - 1
        queenside = rook < king
        king_to, rook_to = rank + (2 if queenside else 6), rank + (3 if queenside else 5)
        king_to_mask, rook_to_mask = chess.BB_SQUARES[king_to], chess.BB_SQUARES[rook_to]
        path = _BETWEEN[king][king_to]
        if (occupied ^ king_mask ^ rook_mask) & (path | _BETWEEN[rook][rook_to] | king_to_mask | rook_to_mask):
            continue
        if _any_attacked(path, occupied ^ king_mask, enemy):
            continue
        if _attacked(king_to, occupied ^ king_mask ^ rook_mask ^ rook_to_mask, *enemy):
            continue
        code = king << 10 | king_to << 4 | (_QUEEN_CASTLE if queenside else _KING_CASTLE)
        append(code)
        if castling_rooks is not None:
            castling_rooks[code] = rook


def _any_attacked(squares: int, occupied: int, enemy: tuple[bool, int, int, int, int, int]) -> bool:
    while squares:
        low = squares & -squares
        if _attacked(low.bit_length() - 1, occupied, *enemy):
            return True
        squares ^= low
    return False


# --- games and plies ---------------------------------------------------------------------------------------

class Ply(NamedTuple):
    """One ply: the move played and what the search said about the position before it.

    To write a game only ``move``, ``score`` and (policy format) ``visits`` are needed. ``raw_score`` and
    ``visit_bytes`` are the values as stored; when set, :func:`write_games` writes them unchanged (they
    must agree with ``score`` and ``visits``: to write new values, set them to ``None``).
    """

    move: chess.Move
    """The move played (Chess960 castling as python-chess writes it: king takes own rook)."""
    score: float
    """The search's score in [0, 1] from the side to move's point of view."""
    visits: Mapping[chess.Move, float] | None = None
    """Policy format: each legal move's share of the visits (reading: byte / sum of the bytes; writing:
    counts or fractions, missing moves count 0); ``None`` when the ply stores no distribution."""
    raw_score: int | None = None
    """The score as stored: u16 (policy format) or i16 (value format, from white's point of view)."""
    visit_bytes: bytes | None = None
    """The visit bytes as stored, in the order of the legal moves' codes."""
    board: chess.Board | None = None
    """The position before the move (filled by the reader; ignored by the writer)."""
    code: int | None = None
    """The u16 code of the move as stored (filled by the reader)."""


class Game(NamedTuple):
    """One game: the start position, the plies and the result."""

    board: chess.Board
    """The start position (``chess960`` set for Chess960 games)."""
    plies: Sequence[Ply]
    """The plies, in order."""
    result: str
    """``"1-0"``, ``"1/2-1/2"`` or ``"0-1"``."""
    rook_files: tuple[int, int, int, int] | None = None
    """The stored castling rook files (Q K q k, 0 = a-file); ``None`` to derive them from the board."""
    format: str | None = None
    """The format the game was read from (``raw_score`` is only reused when writing the same format)."""
    number: int | None = None
    """The game's number in its file, from 0 (filled by the reader)."""
    offset: int | None = None
    """The game's byte offset in its file (filled by the reader)."""


class _RawGame(NamedTuple):
    """A game as bytes: the header fields and the ply records, checked for structure only.

    ``error`` is a structural fault met after ``plies``: the chess layer checks those plies first, so that
    the first fault in file order is the one reported (a wrong move count misaligns what follows it).
    """

    number: int
    offset: int
    header: dict[str, Any]
    plies: list[tuple[int, int, int, bytes]]  # (offset, move code, raw score, visit bytes)
    end: int
    error: FormatError | None = None


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise ValueError(f"unknown Monty format {format!r} (known: {', '.join(FORMATS)})")


# --- reading: structure ------------------------------------------------------------------------------------

_CHUNK = 1 << 20


def _raw_games(handle: IO[bytes], file: str | None, format: str, *, partial: bool = False) -> Iterator[_RawGame]:
    """Games from a binary stream, read in chunks; any structural fault is a located :class:`FormatError`.

    With ``partial`` a game cut off by the end of the data is given with the plies read so far, and ends
    the games (the sniffer sees only the head of a file).
    """
    value = format == "value"
    ply_struct = _VALUE_PLY if value else _PLY_HEAD
    unpack_ply = ply_struct.unpack_from
    unpack_word = _MOVE_WORD.unpack_from
    head_size = ply_struct.size
    terminator = _TERMINATORS[format]
    keep = max(_MAX_PLY, _HEADER_SIZE)  # bytes kept ahead: a whole ply record or header always fits
    read = handle.read
    buffer = b""
    position = 0   # in buffer
    base = 0       # file offset of buffer[0]
    eof = False
    number = 0
    while True:
        while len(buffer) - position < keep and not eof:
            chunk = read(_CHUNK)
            eof = not chunk
            buffer, base, position = buffer[position:] + chunk, base + position, 0
        if position == len(buffer):
            return
        start = base + position
        if len(buffer) - position < _HEADER_SIZE:
            if partial:
                return
            raise TruncatedError(f"truncated game {number}", needed=_HEADER_SIZE, available=len(buffer) - position,
                                 file=file, offset=start, path=f"games[{number}].header", show_path=False)
        header = dict(zip(_HEADER_NAMES, _HEADER.unpack_from(buffer, position), strict=True))
        position += _HEADER_SIZE
        plies: list[tuple[int, int, int, bytes]] = []
        try:
            while True:
                while len(buffer) - position < keep and not eof:
                    chunk = read(_CHUNK)
                    eof = not chunk
                    buffer, base, position = buffer[position:] + chunk, base + position, 0
                available = len(buffer) - position
                if available < head_size and (available < terminator or unpack_word(buffer, position)[0]):
                    if partial:
                        yield _RawGame(number, start, header, plies, base + position)
                        return
                    here = f"games[{number}].plies[{len(plies)}]"
                    needed = head_size if available >= 2 and unpack_word(buffer, position)[0] else terminator
                    raise TruncatedError(f"truncated {here}", needed=needed, available=available, file=file,
                                         offset=base + position, path=here, show_path=False)
                fields = unpack_ply(buffer, position) if available >= head_size else (0, 0, 0)
                code = fields[0]
                if code == 0:
                    if value and fields[1]:
                        raise InvalidValueError(
                            "a null move with a score: not the 4-byte terminator of the value format", expected=0,
                            actual=fields[1], file=file, offset=base + position + _PLY_OFFSETS["score"],
                            path=f"games[{number}].plies[{len(plies)}].score")
                    position += terminator
                    break
                if code & _FLAG_MASK not in schema.FLAG.meanings:
                    raise InvalidValueError("move flag not defined", expected="0-5 or 8-15", actual=code & _FLAG_MASK,
                                            file=file, offset=base + position,
                                            path=f"games[{number}].plies[{len(plies)}].move.flag")
                if value:
                    plies.append((base + position, code, fields[1], b""))
                    position += head_size
                    continue
                count = fields[2]
                if available - head_size < count:
                    if partial:
                        yield _RawGame(number, start, header, plies, base + position)
                        return
                    here = f"games[{number}].plies[{len(plies)}].visits"
                    raise TruncatedError(f"truncated {here}", needed=count, available=available - head_size, file=file,
                                         offset=base + position + head_size, path=here, show_path=False)
                body = position + head_size
                plies.append((base + position, code, fields[1], buffer[body:body + count]))
                position = body + count
        except FormatError as exc:
            yield _RawGame(number, start, header, plies, base + position, exc)
            return
        yield _RawGame(number, start, header, plies, base + position)
        number += 1


# --- reading: chess ----------------------------------------------------------------------------------------

_STATUS_CHECKS = (
    (chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS, "board",
     "each side needs exactly one king"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "board", "a pawn on the first or last rank"),
    (chess.STATUS_OPPOSITE_CHECK, "side_to_move", "the side that is not to move is in check"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling_rights", "a castling right whose king or rook is not in place"),
    (chess.STATUS_INVALID_EP_SQUARE, "ep_square", "not the square behind a pawn that just advanced two squares"),
)


def _start_board(raw: _RawGame, file: str | None) -> chess.Board:
    """The start position of a game, every header field checked (a :class:`FormatError` names the field)."""
    header = raw.header

    def invalid(field: str, reason: str, expected: Any, actual: Any) -> InvalidValueError:
        return InvalidValueError(reason, expected=expected, actual=actual, file=file,
                                 offset=raw.offset + _HEADER_OFFSETS[field], path=f"games[{raw.number}].header.{field}")

    stored = _BITBOARDS.unpack(header["board"])
    pieces = schema.expand_bitboards(*stored)
    if stored[1] & stored[2] & stored[3]:
        raise invalid("board", "a square in all three piece bitboards", "a square in at most two of them",
                      [chess.square_name(s) for s in chess.SquareSet(stored[1] & stored[2] & stored[3])])
    if pieces.black & pieces.white:
        raise invalid("board", "black pieces on empty squares", "black within the occupied squares",
                      [chess.square_name(s) for s in chess.SquareSet(pieces.black & pieces.white)])
    if header["side_to_move"] > 1:
        raise invalid("side_to_move", "side to move", "0 (white) or 1 (black)", header["side_to_move"])
    rights = header["castling_rights"]
    unused = rights >> _RIGHTS["unused"].shift & _RIGHTS["unused"].mask
    if unused:
        raise invalid("castling_rights", "castling rights use only the low 4 bits", "0b0000QKqk", rights)
    if header["ep_square"] > 63:
        raise invalid("ep_square", "en-passant square", "0 (none) or a square 16-23 or 40-47", header["ep_square"])
    if header["result"] not in _RESULTS:
        raise invalid("result", "result", "0, 1 or 2", header["result"])
    files = tuple(header[name] for name in _ROOK_FIELDS)
    for name, rook_file in zip(_ROOK_FIELDS, files, strict=True):
        if rook_file > 7:
            raise invalid(name, "rook file", "0-7 (a-h)", rook_file)
    if not any(files):
        files = _STANDARD_FILES
    board = chess.Board(None)
    board.pawns, board.knights, board.bishops = pieces.pawns, pieces.knights, pieces.bishops
    board.rooks, board.queens, board.kings = pieces.rooks, pieces.queens, pieces.kings
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = pieces.white, pieces.black
    board.occupied = pieces.white | pieces.black
    board.turn = header["side_to_move"] == 0
    board.halfmove_clock = header["halfmove_clock"]
    board.fullmove_number = header["fullmove_number"]
    board.ep_square = header["ep_square"] or None
    chess960 = files != _STANDARD_FILES
    for index, name in enumerate(_RIGHT_NAMES):
        if not rights >> _RIGHTS[name].shift & 1:
            continue
        rank = 0 if index < 2 else 7
        rook = chess.square(files[index], rank)
        board.castling_rights |= chess.BB_SQUARES[rook]
        king_mask = pieces.kings & (pieces.white if index < 2 else pieces.black) & chess.BB_RANKS[rank]
        king_file = chess.square_file(king_mask.bit_length() - 1) if king_mask else -1
        if king_mask and (files[index] < king_file) != (index % 2 == 0):
            raise invalid(_ROOK_FIELDS[index], f"the {name.replace('_', ' ')} rook is on the wrong side of the king",
                          f"a file {'left' if index % 2 == 0 else 'right'} of the king's", files[index])
        chess960 |= king_file != 4
    board.chess960 = chess960
    status = board.status()
    for bits, field, reason in _STATUS_CHECKS:
        if status & bits:
            raise invalid(field, reason, "a legal position", board.fen())
    return board


def _score(raw: int, value: bool, white: bool) -> float:
    """The side to move's score in [0, 1] from a stored score."""
    if not value:
        return raw / 65535
    expected = 1 / (1 + math.exp(-raw / 400))  # white's point of view
    return expected if white else 1 - expected


def _game(raw: _RawGame, file: str | None, format: str) -> Game:
    """The chess reading of a game: start position, legality, move counts, visit alignment."""
    board = _start_board(raw, file)
    start = board.copy(stack=False)
    plies = list(_plies(raw, board, file, format))
    return Game(start, plies, _RESULTS[raw.header["result"]], tuple(raw.header[name] for name in _ROOK_FIELDS),
                format, raw.number, raw.offset)


def _plies(raw: _RawGame, board: chess.Board, file: str | None, format: str) -> Iterator[Ply]:
    """The plies of a game played on ``board``, each checked; then the game's structural fault, if any."""
    value = format == "value"
    moves_table = _MOVES
    push = board.push
    for index, (offset, code, raw_score, stored) in enumerate(raw.plies):
        rooks: dict[int, int] = {}
        codes = legal_codes(board, rooks)
        count = len(stored)
        if count and count != len(codes):
            raise InvalidValueError(
                f"game {raw.number}, ply {index}: the stored legal-move count is not the position's",
                expected=len(codes), actual=count, file=file, offset=offset + _PLY_OFFSETS["num_moves"],
                path=f"games[{raw.number}].plies[{index}].num_moves")
        if code not in codes:
            raise InvalidValueError(
                f"game {raw.number}, ply {index}: not a legal move in {board.fen()}",
                expected=f"one of {len(codes)} legal move codes", actual=f"{code} ({_MOVES[code].uci()}, "
                f"flag {code & _FLAG_MASK})", file=file, offset=offset, path=f"games[{raw.number}].plies[{index}].move")
        move = moves_table[code] if not rooks else _move_of(code, board, rooks)
        visits: dict[chess.Move, float] | None = None
        if count:
            codes.sort()
            if rooks and board.chess960:
                visits = _shares([_move_of(c, board, rooks) for c in codes], stored)
            else:
                visits = _shares(map(moves_table.__getitem__, codes), stored)
        yield Ply(move, _score(raw_score, value, board.turn), visits, raw_score, stored if count else None,
                  board.copy(stack=False), code)
        push(move)
    if raw.error is not None:
        raise raw.error


def _shares(moves: Iterable[chess.Move], stored: bytes) -> dict[chess.Move, float]:
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
    _check_format(format)
    handle, file, owned = _open(source)
    try:
        for raw in _raw_games(handle, file, format):
            yield _game(raw, file, format)
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
                for raw in _raw_games(handle, os.fspath(path), format):
                    _game(raw, os.fspath(path), format)
                    break
            return format
        except FormatError as exc:
            errors.append(exc)
    raise errors[0]


# --- writing -----------------------------------------------------------------------------------------------

def visit_bytes(visits: Sequence[float], rounding: str = "round") -> bytes:
    """Visit counts (or fractions) as stored: relative to the largest, in 32-bit floats like the reference.

    ``rounding="round"``: round(v * 255 / max), half away from zero (current writers);
    ``"trunc256"``: min(trunc(v * 256 / max), 255) (older data). All zero when the largest is 0.
    """
    if rounding not in ROUNDINGS:
        raise ValueError(f"unknown rounding {rounding!r} (known: {', '.join(ROUNDINGS)})")
    values = np.asarray(visits, dtype=np.float64)
    if values.size and (not np.all(np.isfinite(values)) or values.min() < 0):
        raise ValueError("visits must be finite and not negative")
    counts = values.astype(np.float32)
    largest = counts.max() if counts.size else np.float32(0)
    if largest <= 0:
        return bytes(len(counts))
    scale = np.float32(255 if rounding == "round" else 256)
    scaled = counts * scale / np.float32(largest)
    whole = np.trunc(scaled)
    if rounding == "round":
        whole += scaled - whole >= np.float32(0.5)
    return bytes(np.minimum(whole, 255).astype(np.uint8).tobytes())


def _policy_raw(score: float) -> int:
    """trunc(score * 65535) in 32-bit floats (``MontyFormat``)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score {score} outside [0, 1]")
    return int(np.float32(score) * np.float32(65535))


def _value_raw(score: float, white: bool) -> int:
    """-(400 * ln(1 / p - 1)) as i16 in 32-bit floats, p white's score (``MontyValueFormat::push``)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score {score} outside [0, 1]")
    p = np.float32(score) if white else np.float32(1) - np.float32(score)
    with np.errstate(divide="ignore"):
        odds = np.float32(1) / p - np.float32(1)
    log = np.float32(-math.inf if odds == 0 else math.log(float(odds)))  # correctly rounded ln, as logf
    scaled = -(np.float32(400) * log)
    return int(min(max(float(scaled), -32768.0), 32767.0))  # Rust's saturating `as i16`


def _result_byte(result: str) -> int:
    byte = _RESULT_BYTES.get(result) if isinstance(result, str) else None
    if byte is None:
        raise ValueError(f"result must be '1-0', '1/2-1/2' or '0-1', not {result!r}")
    return byte


def _header_bytes(game: Game) -> bytes:
    board = game.board
    if board.halfmove_clock > 255 or not 0 <= board.fullmove_number <= 0xFFFF:
        raise ValueError(f"move counters out of range for the format: {board.fen()}")
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    stored = schema.compress_bitboards(schema.PieceBitboards(white, black, board.pawns, board.knights, board.bishops,
                                                             board.rooks, board.queens, board.kings))
    rights = 0
    files = list(_STANDARD_FILES)
    castling = board.clean_castling_rights()
    for index, name in enumerate(_RIGHT_NAMES):
        color = chess.WHITE if index < 2 else chess.BLACK
        king = board.king(color)
        rooks = castling & chess.BB_RANKS[0 if color else 7]
        side = [r for r in chess.SquareSet(rooks) if king is not None and (r < king) == (index % 2 == 0)]
        if side:
            rights |= 1 << _RIGHTS[name].shift
            files[index] = chess.square_file(side[0] if index % 2 == 0 else side[-1])
    if game.rook_files is not None:
        given = tuple(game.rook_files)
        effective = given if any(given) else _STANDARD_FILES
        if len(given) != 4 or not all(0 <= f <= 7 for f in given) or any(
                rights >> _RIGHTS[name].shift & 1 and effective[i] != files[i] for i, name in enumerate(_RIGHT_NAMES)):
            raise ValueError(f"rook files {given} do not match the castling rights of {board.fen()}")
        files = list(given)
    fields = {
        "board": _BITBOARDS.pack(*stored), "side_to_move": 0 if board.turn else 1, "ep_square": board.ep_square or 0,
        "castling_rights": rights, "halfmove_clock": board.halfmove_clock, "fullmove_number": board.fullmove_number,
        "result": _result_byte(game.result), **dict(zip(_ROOK_FIELDS, files, strict=True)),
    }
    data = _HEADER.pack(*(fields[name] for name in _HEADER_NAMES))
    try:  # what the reader would reject is never written
        _start_board(_RawGame(0, 0, dict(zip(_HEADER_NAMES, _HEADER.unpack(data), strict=True)), [], 0), None)
    except FormatError as exc:
        raise ValueError(f"not a position the format can store ({exc.reason}): {board.fen()}") from None
    return data


def _visits_of(ply: Ply, moves: list[chess.Move], rounding: str, where: str) -> bytes:
    """The stored visit bytes of a ply (``moves``: the legal moves in code order)."""
    if ply.visit_bytes is not None:
        stored = bytes(ply.visit_bytes)
        if len(stored) != len(moves):
            raise ValueError(f"{where}: {len(stored)} visit bytes for {len(moves)} legal moves")
        if ply.visits is not None:
            if dict(ply.visits) != _shares(moves, stored):
                raise ValueError(f"{where}: visits and visit_bytes disagree (set visit_bytes=None to write new visits)")
        return stored
    assert ply.visits is not None
    counts: dict[chess.Move, float] = {}
    for key, amount in ply.visits.items():
        counts[chess.Move.from_uci(key) if isinstance(key, str) else key] = amount
    unknown = set(counts) - set(moves)
    if unknown:
        raise ValueError(f"{where}: visits for moves that are not legal: {', '.join(sorted(m.uci() for m in unknown))}")
    return visit_bytes([counts.get(move, 0) for move in moves], rounding)


def _game_bytes(game: Game, number: int, format: str, rounding: str) -> bytes:
    value = format == "value"
    out = [_header_bytes(game)]
    board = game.board.copy(stack=False)
    reuse_raw = game.format in (None, format)
    for index, ply in enumerate(game.plies):
        where = f"game {number}, ply {index}"
        rooks: dict[int, int] = {}
        codes = sorted(legal_codes(board, rooks))
        moves = [_move_of(code, board, rooks) for code in codes]
        try:
            slot = moves.index(ply.move)
        except ValueError:
            raise ValueError(f"{where}: {ply.move.uci()} is not a legal move in {board.fen()}") from None
        code = codes[slot]
        raw = ply.raw_score if reuse_raw else None
        if raw is not None:
            if ply.score != _score(raw, value, board.turn):
                raise ValueError(f"{where}: score and raw_score disagree (set raw_score=None to write a new score)")
            low, high = (-32768, 32767) if value else (0, 65535)
            if not low <= raw <= high:
                raise ValueError(f"{where}: raw_score {raw} out of range")
        else:
            raw = _value_raw(ply.score, board.turn) if value else _policy_raw(ply.score)
        if value:
            out.append(_VALUE_PLY.pack(code, raw))
        elif ply.visits is None and ply.visit_bytes is None:
            out.append(_PLY_HEAD.pack(code, raw, 0))
        else:
            stored = _visits_of(ply, moves, rounding, where)
            out.append(_PLY_HEAD.pack(code, raw, len(stored)) + stored)
        board.push(moves[slot])
    out.append(bytes(_TERMINATORS[format]))
    return b"".join(out)


def write_games(target: str | os.PathLike[str] | IO[bytes], games: Iterable[Game], *, format: str = "policy",
                rounding: str = "round") -> int:
    """Write games in the policy or value format; return the number of games written.

    Each game is a :class:`Game`: start board, plies (move, score and, policy format, visit counts or
    fractions by move, or ``None`` for no distribution) and result. The games :func:`read_games` gives
    can be written back unchanged and give the identical file (stored scores and visit bytes are reused).
    ``rounding`` turns visits into bytes (see :func:`visit_bytes`). A path is written atomically (through a
    temporary file); a bad game raises :class:`ValueError` naming it and leaves the old file in place.
    """
    _check_format(format)
    if rounding not in ROUNDINGS:
        raise ValueError(f"unknown rounding {rounding!r} (known: {', '.join(ROUNDINGS)})")
    if isinstance(target, (str, os.PathLike)):
        with atomic_write(target) as handle:
            return _write(handle, games, format, rounding)
    return _write(target, games, format, rounding)


def _write(handle: IO[bytes], games: Iterable[Game], format: str, rounding: str) -> int:
    count = 0
    for game in games:
        handle.write(_game_bytes(game, count, format, rounding))
        count += 1
    return count
