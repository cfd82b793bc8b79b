"""Writing Monty files: games in the policy or value format, byte-identical to the reference writer."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from typing import IO

import chess
import numpy as np

from ...engine.contract import WriteReport
from ...engine.errors import FormatError
from ...engine.fileio import atomic_write
from ...kernel.batch import legal_moves
from ...kernel.boards import from_boards, move_of_code
from ...schemas import monty as schema
from .model import (
    BITBOARDS_STRUCT,
    HEADER_NAMES,
    HEADER_RANGES,
    HEADER_STRUCT,
    PLY_HEAD_STRUCT,
    RESULT_BYTES,
    RIGHT_NAMES,
    RIGHT_SIDES,
    RIGHTS,
    ROOK_FIELDS,
    ROUNDINGS,
    SCORE_RANGES,
    SIDES,
    STANDARD_FILES,
    TERMINATORS,
    VALUE_PLY_STRUCT,
    VISIT_MAX,
    Game,
    Ply,
    RawGame,
    check_format,
)
from .moves import KING_CASTLE, MOVES, QUEEN_CASTLE
from .read import side_score, start_board, visit_shares

__all__ = ["visit_bytes", "write_games"]

_CASTLES = frozenset((KING_CASTLE, QUEEN_CASTLE))

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
    scale = np.float32(VISIT_MAX if rounding == "round" else VISIT_MAX + 1)
    scaled = counts * scale / np.float32(largest)
    whole = np.trunc(scaled)
    if rounding == "round":
        whole += scaled - whole >= np.float32(0.5)
    return bytes(np.minimum(whole, VISIT_MAX).astype(np.uint8).tobytes())


def _policy_raw(score: float) -> int:
    """trunc(score * 65535) in 32-bit floats (``MontyFormat``)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score {score} outside [0, 1]")
    return int(np.float32(score) * np.float32(SCORE_RANGES["policy"][1]))


def _value_raw(score: float, white: bool) -> int:
    """-(400 * ln(1 / p - 1)) as i16 in 32-bit floats, p white's score (``MontyValueFormat::push``)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score {score} outside [0, 1]")
    p = np.float32(score) if white else np.float32(1) - np.float32(score)
    with np.errstate(divide="ignore"):
        odds = np.float32(1) / p - np.float32(1)
    log = np.float32(-math.inf if odds == 0 else math.log(float(odds)))  # correctly rounded ln, as logf
    scaled = -(np.float32(400) * log)
    low, high = SCORE_RANGES["value"]
    return int(min(max(float(scaled), low), high))  # Rust's saturating `as i16`


def _result_byte(result: str) -> int:
    byte = RESULT_BYTES.get(result) if isinstance(result, str) else None
    if byte is None:
        raise ValueError(f"result must be '1-0', '1/2-1/2' or '0-1', not {result!r}")
    return byte


def _header_bytes(game: Game) -> bytes:
    board = game.board
    if any(not low <= getattr(board, name) <= high for name, (low, high) in HEADER_RANGES.items()):
        raise ValueError(f"move counters out of range for the format: {board.fen()}")
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    stored = schema.compress_bitboards(schema.PieceBitboards(white, black, board.pawns, board.knights, board.bishops,
                                                             board.rooks, board.queens, board.kings))
    rights = 0
    files = list(STANDARD_FILES)
    castling = board.clean_castling_rights()
    for index, name in enumerate(RIGHT_NAMES):
        color, queenside = RIGHT_SIDES[index]
        king = board.king(color)
        rooks = castling & chess.BB_RANKS[0 if color else 7]
        side = [r for r in chess.SquareSet(rooks) if king is not None and (r < king) == queenside]
        if side:
            rights |= 1 << RIGHTS[name].shift
            files[index] = chess.square_file(side[0] if queenside else side[-1])
    if game.rook_files is not None:
        given = tuple(game.rook_files)
        effective = given if any(given) else STANDARD_FILES
        if len(given) != 4 or not all(0 <= f <= 7 for f in given) or any(
                rights >> RIGHTS[name].shift & 1 and effective[i] != files[i] for i, name in enumerate(RIGHT_NAMES)):
            raise ValueError(f"rook files {given} do not match the castling rights of {board.fen()}")
        files = list(given)
    fields = {
        "board": BITBOARDS_STRUCT.pack(*stored), "side_to_move": SIDES["white" if board.turn else "black"],
        "ep_square": board.ep_square or 0,
        "castling_rights": rights, "halfmove_clock": board.halfmove_clock, "fullmove_number": board.fullmove_number,
        "result": _result_byte(game.result), **dict(zip(ROOK_FIELDS, files, strict=True)),
    }
    data = HEADER_STRUCT.pack(*(fields[name] for name in HEADER_NAMES))
    try:  # what the reader would reject is never written
        start_board(RawGame(0, 0, dict(zip(HEADER_NAMES, HEADER_STRUCT.unpack(data), strict=True)), [], 0), None)
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
            if dict(ply.visits) != visit_shares(moves, stored):
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


_GROUP = 64
"""Games whose positions get their legal moves together (one batch of the kernel)."""


def _legal_of(games: list[Game]) -> list[list[tuple[chess.Board, list[int], list[chess.Move]]]]:
    """For every ply of the games: the board before it, and its legal moves (codes in order, and as moves), all
    positions generated in one batch. A game's boards stop at a move that cannot be played."""
    boards_by_game: list[list[chess.Board]] = []
    for game in games:
        board = game.board.copy(stack=False)
        boards = []
        for ply in game.plies:
            boards.append(board.copy(stack=False))
            try:
                board.push(ply.move)
            except Exception:  # not even pseudo-legal: the check of this ply reports it
                break
        boards_by_game.append(boards)
    every = [board for boards in boards_by_game for board in boards]
    offsets, codes = legal_moves(from_boards(every))
    listed = codes.tolist()
    bounds = offsets.tolist()
    result = []
    index = 0
    for boards in boards_by_game:
        rows = []
        for board in boards:
            legal = listed[bounds[index]:bounds[index + 1]]
            rows.append((board, legal, [move_of_code(code, board) if board.chess960 and code & 15 in _CASTLES
                                        else MOVES[code] for code in legal]))
            index += 1
        result.append(rows)
    return result


def _game_bytes(game: Game, number: int, format: str, rounding: str,
                legal: list[tuple[chess.Board, list[int], list[chess.Move]]]) -> bytes:
    value = format == "value"
    out = [_header_bytes(game)]
    reuse_raw = game.format in (None, format)
    for index, ply in enumerate(game.plies):
        where = f"game {number}, ply {index}"
        board, codes, moves = legal[index]
        try:
            slot = moves.index(ply.move)
        except ValueError:
            raise ValueError(f"{where}: {ply.move.uci()} is not a legal move in {board.fen()}") from None
        code = codes[slot]
        raw = ply.raw_score if reuse_raw else None
        if raw is not None:
            if ply.score != side_score(raw, value, board.turn):
                raise ValueError(f"{where}: score and raw_score disagree (set raw_score=None to write a new score)")
            low, high = SCORE_RANGES[format]
            if not low <= raw <= high:
                raise ValueError(f"{where}: raw_score {raw} out of range")
        else:
            raw = _value_raw(ply.score, board.turn) if value else _policy_raw(ply.score)
        if value:
            out.append(VALUE_PLY_STRUCT.pack(code, raw))
        elif ply.visits is None and ply.visit_bytes is None:
            out.append(PLY_HEAD_STRUCT.pack(code, raw, 0))
        else:
            stored = _visits_of(ply, moves, rounding, where)
            out.append(PLY_HEAD_STRUCT.pack(code, raw, len(stored)) + stored)
    out.append(bytes(TERMINATORS[format]))
    return b"".join(out)


def write_games(target: str | os.PathLike[str] | IO[bytes], games: Iterable[Game], *, format: str = "policy",
                rounding: str = "round") -> WriteReport:
    """Write games in the policy or value format; return a :class:`~chessformats.engine.contract.WriteReport`
    (unit ``games``; ``path``: the path written, or the file object's name).

    Each game is a :class:`Game`: start board, plies (move, score and, policy format, visit counts or
    fractions by move, or ``None`` for no distribution) and result. The games :func:`read_games` gives
    can be written back unchanged and give the identical file (stored scores and visit bytes are reused).
    ``rounding`` turns visits into bytes (see :func:`visit_bytes`). A path is written atomically (through a
    temporary file); a bad game raises :class:`ValueError` naming it and leaves the old file in place.
    """
    check_format(format)
    if rounding not in ROUNDINGS:
        raise ValueError(f"unknown rounding {rounding!r} (known: {', '.join(ROUNDINGS)})")
    if isinstance(target, (str, os.PathLike)):
        path = os.fspath(target)
        with atomic_write(target) as handle:
            written = _write(handle, games, format, rounding)
        return WriteReport(path, written, "games", files=[path])
    name = getattr(target, "name", None)
    written = _write(target, games, format, rounding)
    return WriteReport(name if isinstance(name, str) else "<stream>", written, "games")


def _write(handle: IO[bytes], games: Iterable[Game], format: str, rounding: str) -> int:
    count = 0
    group: list[Game] = []
    for game in games:
        _header_bytes(game)  # a bad start position is reported before the moves are generated
        group.append(game)
        if len(group) == _GROUP:
            count = _write_group(handle, group, count, format, rounding)
            group = []
    return _write_group(handle, group, count, format, rounding) if group else count


def _write_group(handle: IO[bytes], group: list[Game], count: int, format: str, rounding: str) -> int:
    for game, legal in zip(group, _legal_of(group), strict=True):
        handle.write(_game_bytes(game, count, format, rounding, legal))
        count += 1
    return count
