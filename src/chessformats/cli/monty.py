"""The command line's handler for monty files: info, inspect, probe."""

from __future__ import annotations

import io
import os
from typing import Any

import chess

from chessformats.engine.errors import FormatError
from chessformats.formats.monty import FORMATS, Ply, detect_format, read_games
from chessformats.formats.monty.model import (
    BITBOARD_NAMES,
    BITBOARDS_STRUCT,
    HEADER_SIZE,
    PLY_HEAD_STRUCT,
    RESULTS,
    ROOK_FIELDS,
    TERMINATORS,
    VALUE_PLY_STRUCT,
    RawGame,
)
from chessformats.formats.monty.moves import SHIFT_DESTINATION, SHIFT_SOURCE, SQUARE_MASK
from chessformats.formats.monty.read import game_from_raw, plies_from_raw, start_board
from chessformats.formats.monty.structure import raw_games
from chessformats.schemas import monty as schema

from .content import looks_like_text
from .registry import FormatHandler


def _sniff(path: str, head: bytes, size: int) -> int:
    """From the content: 1 for a valid first header, 2 when its plies (those in ``head``) are legal."""
    if looks_like_text(head):
        return 0
    content = 0
    for format in FORMATS:
        try:
            raw = next(raw_games(io.BytesIO(head), path, format, partial=True), None)
            if raw is None:
                continue
            start_board(raw, path)
            content = max(content, 1)
            game_from_raw(raw, path, format)
            content = 2
        except FormatError:
            continue
    return content


def _info(path: str) -> dict[str, Any]:
    """Counts over every game, read with all the checks of :func:`read_games` (the first fault is an error)."""
    format = detect_format(path)
    games = plies = with_visits = chess960 = 0
    results = {"1-0": 0, "1/2-1/2": 0, "0-1": 0}
    for game in read_games(path, format=format):
        games += 1
        plies += len(game.plies)
        with_visits += sum(1 for ply in game.plies if ply.visits is not None)
        chess960 += game.board.chess960
        results[game.result] += 1
    findings = []
    if format == "policy" and plies > with_visits:
        findings.append(f"{plies - with_visits} plies store no visit distribution")
    if chess960:
        findings.append(f"{chess960} Chess960 games")
    return {
        "format": f"monty ({format})",
        "games": games,
        "plies": plies,
        "results": results,
        **({"plies_with_visits": with_visits} if format == "policy" else {}),
        "findings": findings,
    }


def _inspect(path: str, *, game: int | None = None, ply: int | None = None) -> list[Any]:
    """Annotated hex of one game (``--game``, from 1 as every command counts games; default 1), or of one of its
    plies (``--ply``, from 0). The paths are the file's structure (``games[0]`` is game 1), and the first target
    says so."""
    from .registry import InspectTarget

    format = detect_format(path)
    if game is not None and game < 1:
        raise IndexError(f"no such game: {game} (games count from 1)")
    number = (game or 1) - 1
    raw = None
    with open(path, "rb") as handle:
        for raw in raw_games(handle, path, format):
            if raw.number == number:
                break
            if raw.error is not None:
                raise raw.error
        else:
            raise IndexError(f"no such game: {number + 1} (the file has {0 if raw is None else raw.number + 1})")
    readable = len(raw.plies) + (raw.error is not None)  # the ply with a fault can be inspected too
    if ply is not None and not 0 <= ply < readable:
        raise IndexError(f"no such ply: {ply} (game {number + 1} has {len(raw.plies)})")
    annotations = _annotations(raw, path, format)
    prefix = f"games[{number}]"
    # the paths are the file's structure, from 0 (the API's GameFile[i], the table's game column): say which game
    shown = f"{prefix}.header" if ply is None else f"{prefix}.plies[{ply}]"
    annotations.setdefault(shown, f"game {number + 1} (--game {number + 1}; {prefix}: the file's games count from 0)")
    value = format == "value"
    targets = []
    if ply is None:
        targets.append(InspectTarget(schema.HEADER, raw.offset, HEADER_SIZE, f"{prefix}.header", annotations))
    for index, (offset, _, _, stored) in enumerate(raw.plies):
        if ply is None or index == ply:
            size = VALUE_PLY_STRUCT.size if value else PLY_HEAD_STRUCT.size + len(stored)
            targets.append(InspectTarget(schema.VALUE_PLY if value else schema.PLY, offset, size,
                                         f"{prefix}.plies[{index}]", annotations))
    if raw.error is not None and (ply is None or ply == len(raw.plies)):
        # the record that does not read, from its start to a little past the fault
        fault = f"{prefix}.plies[{len(raw.plies)}]"
        past = (raw.error.offset if raw.error.offset is not None else raw.end) + 8
        size = min(past - raw.end, os.path.getsize(path) - raw.end)
        annotations[fault] = f"ERROR: {raw.error}"
        if size > 0:
            targets.append(InspectTarget(schema.UNREAD, raw.end, size, fault, annotations))
    elif ply is None:
        terminator = TERMINATORS[format]
        targets.append(InspectTarget(schema.VALUE_TERMINATOR if value else schema.TERMINATOR, raw.end - terminator,
                                     terminator, f"{prefix}.terminator", annotations))
    return targets


def _annotations(raw: RawGame, path: str, format: str) -> dict[str, str]:
    """Chess meaning beside the bytes of a game, as far as the game reads (an error is shown where it is)."""
    notes: dict[str, str] = {}
    header = f"games[{raw.number}].header"
    try:
        board = start_board(raw, path)
    except FormatError as exc:
        notes[exc.path or header] = f"ERROR: {exc.reason}"
        return notes
    stored = dict(zip(BITBOARD_NAMES, BITBOARDS_STRUCT.unpack(raw.header["board"]), strict=True))
    for name, mask in stored.items():
        pieces = [board.piece_at(square) for square in chess.SquareSet(mask)]
        notes[f"{header}.board.{name}"] = " ".join(
            f"{piece.symbol()}{chess.square_name(square)}" for piece, square in
            zip(pieces, chess.SquareSet(mask), strict=True) if piece) or "(empty)"
    notes[f"{header}.side_to_move"] = f"start position {board.fen()}"
    notes[f"{header}.ep_square"] = chess.square_name(board.ep_square) if board.ep_square is not None else "none"
    for name in ROOK_FIELDS:
        notes[f"{header}.{name}"] = f"{chess.FILE_NAMES[raw.header[name]]}-file"
    notes[f"{header}.result"] = RESULTS[raw.header["result"]]
    try:
        for index, ply in enumerate(plies_from_raw(raw, board, path, format)):
            _annotate_ply(notes, f"games[{raw.number}].plies[{index}]", ply, format)
    except FormatError as exc:
        notes[exc.path or header] = f"ERROR: {exc.reason}"
    return notes


def _annotate_ply(notes: dict[str, str], here: str, ply: Ply, format: str) -> None:
    assert ply.board is not None and ply.code is not None
    notes[f"{here}.move"] = f"{ply.move.uci()} ({ply.board.san(ply.move)})"
    notes[f"{here}.move.source"] = chess.square_name(ply.code >> SHIFT_SOURCE & SQUARE_MASK)
    notes[f"{here}.move.destination"] = chess.square_name(ply.code >> SHIFT_DESTINATION & SQUARE_MASK)
    side = "white" if ply.board.turn else "black"
    notes[f"{here}.score"] = f"{ply.score:.4f} for {side} (to move)"
    if ply.visits is not None:
        notes[f"{here}.num_moves"] = f"{len(ply.visits)} legal moves"
        for slot, (move, share) in enumerate(ply.visits.items()):
            notes[f"{here}.visits[{slot}]"] = f"{ply.board.san(move)} ({move.uci()}): {100 * share:.1f}%"
    elif format == "policy":
        notes[f"{here}.num_moves"] = "no visit distribution stored"


HANDLER = FormatHandler(
    key="monty", status="read, write, inspect", sniff=_sniff, info=_info, inspect=_inspect,
    inspect_options=("game", "ply"),
)
