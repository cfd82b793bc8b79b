"""Reading Monty files into arrays (:class:`~.arrays.MontyArrays`) at training speed: no Python object per ply.

Three stages, each over many games at once: the structure (one pass finding every ply record; the only loop per
ply, a few byte look-ups), the start positions (all headers checked together; a header that looks wrong is read
by :func:`.read.start_board`, which names the field), and the chess (every game replayed one ply at a time but
all games together, :func:`chessformats.kernel.playing.play_rows`, then the legal moves of every position at once,
:func:`chessformats.kernel.batch.legal_moves`, to check each move and count and to align the visit bytes).
Faults keep the reader's contract: the first in file order is raised as a located
:class:`~chessformats.FormatError`, and what came before it is kept.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO, NamedTuple

import chess
import numpy as np

from ...engine.errors import FormatError, InvalidValueError
from ...kernel.batch import KING_CASTLE, ORIGIN_SHIFT, Boards, contains, legal_moves
from ...kernel.lookup import SQUARE_BB
from ...kernel.playing import play_rows, prepare, stack, unstack
from ...schemas import monty as schema
from .arrays import HEADER_DTYPE, PLY_DTYPES, MontyArrays, PlyArrays, rook_files, start_boards, stored_boards
from .model import (
    BITBOARDS_STRUCT,
    HEADER_NAMES,
    HEADER_SIZE,
    HEADER_STRUCT,
    PLY_HEAD_STRUCT,
    PLY_OFFSETS,
    RESULTS,
    RIGHT_NAMES,
    RIGHT_SIDES,
    RIGHTS,
    STANDARD_FILES,
    TERMINATORS,
    VALUE_PLY_STRUCT,
    RawGame,
)
from .moves import MOVES, flag_of
from .start import start_board
from .structure import raw_games

__all__ = ["Decoded", "Structure", "decode", "walk"]

_MOVEGEN_CHUNK = 8192  # positions per call of the move generator (measured fastest: its arrays stay in the caches)
_UNDEFINED_FLAGS = (6, 7)
_START = chess.Board()
_STANDARD_HEADER = np.frombuffer(HEADER_STRUCT.pack(
    BITBOARDS_STRUCT.pack(*schema.compress_bitboards(schema.PieceBitboards(
        _START.occupied_co[chess.WHITE], _START.occupied_co[chess.BLACK], _START.pawns, _START.knights,
        _START.bishops, _START.rooks, _START.queens, _START.kings))),
    0, 0, 15, 0, 1, *STANDARD_FILES, 1), dtype=HEADER_DTYPE)[0]
"""The header of a game from the standard start position: what a refused header is replaced by, so that the
games around it can still be played (their faults may come first)."""


class Structure(NamedTuple):
    """Where the records of complete games are, in a buffer."""

    games: list[int]  # offset of each game's header in the buffer
    plies: list[int]  # offset of each ply record
    bounds: list[int]  # game g's plies are plies[bounds[g]:bounds[g + 1]]
    end: int  # where the walk stopped (after the last complete game)
    complete: bool  # the walk reached the end of the buffer


def walk(data: bytes, format: str, start: int = 0) -> Structure:
    """The records of the complete games of ``data`` from ``start``; stops at the first game that does not end
    within the data (``complete`` False)."""
    games: list[int] = []
    plies: list[int] = []
    bounds = [0]
    add_game, add_ply, add_bound = games.append, plies.append, bounds.append
    size = len(data)
    position = start
    value = format == "value"
    terminator = TERMINATORS[format]
    head, count_at, value_ply = PLY_HEAD_STRUCT.size, PLY_OFFSETS["num_moves"], VALUE_PLY_STRUCT.size
    while position < size:
        here = position + HEADER_SIZE
        mark = len(plies)
        try:
            if value:
                while data[here] or data[here + 1]:
                    add_ply(here)
                    here += value_ply
            else:
                while data[here] or data[here + 1]:
                    add_ply(here)
                    here += head + data[here + count_at]
        except IndexError:
            here = size + 1
        here += terminator
        if here > size:
            del plies[mark:]
            return Structure(games, plies, bounds, position, False)
        add_game(position)
        add_bound(len(plies))
        position = here
    return Structure(games, plies, bounds, position, True)


class Decoded(NamedTuple):
    """A decoded buffer: the games up to the first fault (``arrays``; its last game may be cut before the fault's
    ply: ``complete`` games are whole) and the fault."""

    arrays: MontyArrays
    complete: int
    error: FormatError | None


def decode(data: bytes, structure: Structure, format: str, *, file: str | None = None, base: int = 0,
           first_game: int = 0) -> Decoded:
    """The games of ``structure`` (found in ``data`` by :func:`walk`) as arrays, every ply checked as chess.
    ``base``: the file offset of ``data[0]``; ``first_game``: the number of the first game."""
    value = format == "value"
    raw = np.frombuffer(data, dtype=np.uint8)
    game_at = np.array(structure.games, dtype=np.int64)
    ply_at = np.fromiter(structure.plies, dtype=np.int64, count=len(structure.plies))
    bounds = np.array(structure.bounds, dtype=np.int64)
    games, total = len(game_at), len(ply_at)
    headers = raw[(game_at[:, None] + np.arange(HEADER_SIZE)).ravel()].view(HEADER_DTYPE)
    record = PLY_DTYPES[format]  # a ply record's fixed part, as declared
    heads = raw[(ply_at[:, None] + np.arange(record.itemsize)).ravel()].view(record)
    move = heads["move"].astype(np.uint16)
    score = np.ascontiguousarray(heads["score"])  # signed or unsigned, as declared
    counts = np.zeros(total, dtype=np.int64) if value else heads["num_moves"].astype(np.int64)
    per_game = np.diff(bounds)
    game_of_ply = np.repeat(np.arange(games), per_game)
    index_in_game = np.arange(total) - bounds[game_of_ply]
    faults: list[tuple[int, int, int, FormatError]] = []  # (game, ply or -1 for the header, order, error)
    # structural faults the walk does not see: undefined flags, a value game's null move with a score
    bad_flag = np.flatnonzero(np.isin(move & 15, _UNDEFINED_FLAGS))[:1]
    ends = np.append(game_at[1:], structure.end) if games else game_at
    bad_end = np.flatnonzero((raw[ends - 2] | raw[ends - 1]) != 0)[:1] if value and games else bad_flag[:0]
    for game, ply in [(int(game_of_ply[p]), int(index_in_game[p])) for p in bad_flag] + [
            (int(g), int(per_game[g])) for g in bad_end]:
        faults.append((game, ply, 0, _structural_error(data, int(game_at[game]), format, file, base,
                                                       first_game + game)))
    # the headers: checked together, a suspect one read alone (its error names the field)
    headers_ok = headers
    for suspect in np.flatnonzero(suspect_headers(headers)).tolist():
        error = _header_error(data, int(game_at[suspect]), file, base, first_game + suspect)
        if error is not None:
            faults.append((suspect, -1, 0, error))
            if headers_ok is headers:
                headers_ok = headers.copy()
            headers_ok[suspect] = _STANDARD_HEADER  # not played as it is (its moves may be anything now)
    boards, _ = start_boards(headers_ok)
    positions = _replay(boards, move, bounds, rook_files(headers_ok))
    offsets, legal, known = _legal_moves(positions, move)
    legal_count = np.diff(offsets)
    bad_count = np.flatnonzero((counts != 0) & (counts != legal_count))
    illegal = np.flatnonzero(~known)
    for ply in np.union1d(bad_count, illegal)[:1]:
        game, index = int(game_of_ply[ply]), int(index_in_game[ply])
        faults.append((game, index, 1, _ply_error(positions, int(ply), game + first_game, index,
                                                  int(ply_at[ply]) + base, int(move[ply]), int(counts[ply]),
                                                  int(legal_count[ply]), file)))
    # visits: the stored bytes, and beside each its legal move
    visit_offsets = np.zeros(total + 1, dtype=np.int64)
    np.cumsum(counts, out=visit_offsets[1:])
    has = counts != 0
    visit_moves = legal if has.all() else legal[np.repeat(has, legal_count)]
    plies = PlyArrays(stored_boards(positions), (~positions.turn).astype(np.uint8), positions.ep_square,
                      positions.castling, positions.halfmove, positions.fullmove, move,
                      score, headers["result"][game_of_ply],
                      game_of_ply + first_game, visit_offsets, _visit_bytes(raw, ply_at, counts), visit_moves)
    arrays = MontyArrays(format, headers, bounds, game_at + base, np.arange(games, dtype=np.int64) + first_game, plies)
    if not faults:
        return Decoded(arrays, games, None)
    game, ply, _, error = min(faults, key=lambda item: item[:3])
    keep = int(bounds[game]) + max(ply, 0)
    kept = game if ply < 0 else game + 1
    cut = MontyArrays(format, headers[:kept], np.minimum(bounds[:kept + 1], keep), arrays.offsets[:kept],
                      arrays.numbers[:kept], plies.take(np.arange(keep)))
    return Decoded(cut, game, error)


def _visit_bytes(raw: np.ndarray, ply_at: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The visit bytes of the plies (at ``ply_at``, ``counts`` each), one after the other: the data with the bytes
    between them (headers, ply heads, terminators) left out by a mask."""
    if not len(counts):
        return raw[:0]
    start = ply_at + PLY_HEAD_STRUCT.size
    lengths = np.empty(2 * len(counts), dtype=np.int64)  # alternately bytes left out and visit bytes
    lengths[0] = start[0]
    lengths[2::2] = start[1:] - start[:-1] - counts[:-1]
    lengths[1::2] = counts
    mask = np.repeat(np.tile(np.array([False, True]), len(counts)), lengths)
    visits: np.ndarray = raw[:len(mask)][mask]
    return visits


def _legal_moves(positions: Boards, played: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`legal_moves` over the batch in chunks (one set of offsets and codes), and whether each position's
    ``played`` code is among its legal moves."""
    total = len(positions.turn)
    parts_offsets, parts_codes, parts_legal = [np.zeros(1, dtype=np.int64)], [], []
    done = 0
    for start in range(0, total, _MOVEGEN_CHUNK):
        offsets, codes = legal_moves(positions.take(slice(start, start + _MOVEGEN_CHUNK)))
        parts_legal.append(contains(offsets, codes, played[start:start + _MOVEGEN_CHUNK]))
        parts_offsets.append(offsets[1:] + done)
        parts_codes.append(codes)
        done += len(codes)
    if not parts_codes:
        return parts_offsets[0], np.zeros(0, dtype=np.uint16), np.zeros(0, dtype=bool)
    return np.concatenate(parts_offsets), np.concatenate(parts_codes), np.concatenate(parts_legal)


def _replay(starts: Boards, move: np.ndarray, bounds: np.ndarray, files: np.ndarray) -> Boards:
    """The position before every ply (file order): all games played together, one ply at a time, the games
    ordered longest first so that the ones still playing are a prefix of the arrays. ``files``: each game's
    castling rook files (Q K q k), which give the rook of every castling move beforehand."""
    games, total = len(bounds) - 1, int(bounds[-1])
    length = np.diff(bounds)
    order = np.argsort(-length, kind="stable")
    rank = np.empty(games, dtype=np.int64)
    rank[order] = np.arange(games)
    longest = int(length.max()) if games else 0
    playing = np.searchsorted(-length[order], -np.arange(longest), side="left")  # games longer than t plies
    step_start = np.zeros(longest + 1, dtype=np.int64)
    np.cumsum(playing, out=step_start[1:])
    game_of_ply = np.repeat(np.arange(games), length)
    step = np.arange(total) - bounds[:-1][game_of_ply]
    stepwise = step_start[step] + rank[game_of_ply]  # a ply's row in step order
    king = move.astype(np.int64) >> ORIGIN_SHIFT & 63
    rooks = (king & 56) + files[game_of_ply, np.where(king >= 56, 2, 0) + ((move & 15) == KING_CASTLE)]
    codes = np.empty(total, dtype=np.uint16)
    codes[stepwise] = move
    rook = np.empty(total, dtype=np.int64)
    rook[stepwise] = rooks
    moves = prepare(codes, rook)
    state = stack(starts.take(order))  # one array, a row per field: a ply is a few operations on it
    out = np.empty((len(state), total), dtype=state.dtype)
    for t in range(longest):
        count, at = int(playing[t]), int(step_start[t])
        state = state[:, :count]
        out[:, at:at + count] = state
        state = play_rows(state, moves.take(slice(at, at + count)))
    return unstack(np.take(out, stepwise, axis=1))


def suspect_headers(headers: np.ndarray) -> np.ndarray:
    """Headers that may not be a position the reader accepts (every one it refuses is among them)."""
    from .arrays import piece_bitboards

    stored = headers["board"]
    pieces = piece_bitboards(stored)
    white, black, pawns, kings = pieces[:, 0], pieces[:, 1], pieces[:, 2], pieces[:, 7]
    suspect = (stored[:, 1] & stored[:, 2] & stored[:, 3]) != 0
    suspect |= (white & black) != 0
    suspect |= headers["side_to_move"] > 1
    suspect |= headers["castling_rights"] > 15
    suspect |= headers["ep_square"] > 63
    suspect |= ~np.isin(headers["result"], list(RESULTS))
    files = np.stack([headers[name] for name in ("white_queenside_rook", "white_kingside_rook",
                                                 "black_queenside_rook", "black_kingside_rook")], axis=1)
    suspect |= (files > 7).any(axis=1)
    suspect |= (np.bitwise_count(kings & white) != 1) | (np.bitwise_count(kings & black) != 1)
    suspect |= (pawns & np.uint64(0xFF000000000000FF)) != 0
    safe = ~suspect
    boards, _ = start_boards(headers[safe] if not safe.all() else headers)
    files = rook_files(headers[safe] if not safe.all() else headers)
    rights = headers["castling_rights"][safe].astype(np.int64)
    bad = np.zeros(len(boards.turn), dtype=bool)
    for index, name in enumerate(RIGHT_NAMES):
        held = (rights >> RIGHTS[name].shift & 1) == 1
        is_white, queenside = RIGHT_SIDES[index]
        own = boards.white if is_white else boards.black
        rank = 0 if is_white else 56
        rook = SQUARE_BB[rank + files[:, index]]
        king = boards.kings & own & np.uint64(0xFF << rank)
        king_file = np.where(king != 0, np.frexp(king.astype(np.float64))[1] - 1 - rank, -1)
        wrong = (king != 0) & ((files[:, index] < king_file) != queenside)
        bad |= held & (((boards.rooks & own & rook) == 0) | (king == 0) | wrong)
    # en passant: on the third or sixth rank, behind a pawn of the side that moved, with both squares empty
    ep = boards.ep_square.astype(np.int64)
    white_to_move = boards.turn
    occupied = boards.white | boards.black
    behind = np.where(white_to_move, ep - 8, ep + 8) & 63
    before = np.where(white_to_move, ep + 8, ep - 8) & 63
    pawn_there = (boards.pawns & np.where(white_to_move, boards.black, boards.white) & SQUARE_BB[behind]) != 0
    good_ep = ((ep >> 3) == np.where(white_to_move, 5, 2)) & pawn_there & ((occupied & SQUARE_BB[ep]) == 0) & (
        (occupied & SQUARE_BB[before]) == 0)
    bad |= (ep != 0) & ~good_ep
    # the side not to move in check
    from ...kernel.batch import attacked

    enemy = np.where(white_to_move, boards.black, boards.white)
    mover = np.where(white_to_move, boards.white, boards.black)
    king_square = _square(boards.kings & enemy)
    bad |= attacked(king_square, occupied, boards.knights & mover, boards.kings & mover, boards.pawns & mover,
                    (~white_to_move).astype(np.int64), (boards.bishops | boards.queens) & mover,
                    (boards.rooks | boards.queens) & mover) != 0
    suspect[np.flatnonzero(safe)[bad]] = True
    result: np.ndarray = suspect
    return result


def _square(bitboards: np.ndarray) -> np.ndarray:
    from ...kernel.batch import square_of

    return square_of(bitboards)


def _raw_game(data: bytes, at: int, base: int, number: int) -> RawGame:
    header = dict(zip(HEADER_NAMES, HEADER_STRUCT.unpack_from(data, at), strict=True))
    return RawGame(number, base + at, header, [], base + at + HEADER_SIZE)


def _header_error(data: bytes, at: int, file: str | None, base: int, number: int) -> FormatError | None:
    try:
        start_board(_raw_game(data, at, base, number), file)
    except FormatError as error:
        return error
    return None


def _structural_error(data: bytes, at: int, format: str, file: str | None, base: int, number: int) -> FormatError:
    """The located error the structural reader gives for the game at ``at``."""
    try:
        for raw in raw_games(io.BytesIO(data[at:]), file, format, offset=base + at, number=number):
            if raw.error is not None:
                return raw.error
    except FormatError as error:
        return error
    raise AssertionError("no structural fault where one was found")  # pragma: no cover


def _ply_error(positions: Boards, ply: int, game: int, index: int, offset: int, code: int,
               count: int, legal: int, file: str | None) -> FormatError:
    from ...kernel.boards import to_board

    path = f"games[{game}].plies[{index}]"
    if count and count != legal:
        return InvalidValueError(f"game {game}, ply {index}: the stored legal-move count is not the position's",
                                 expected=legal, actual=count, file=file, offset=offset + PLY_OFFSETS["num_moves"],
                                 path=f"{path}.num_moves")
    board = to_board(positions, ply)
    return InvalidValueError(
        f"game {game}, ply {index}: not a legal move in {board.fen()}", expected=f"one of {legal} legal move codes",
        actual=f"{code} ({MOVES[code].uci()}, flag {flag_of(code)})", file=file, offset=offset, path=f"{path}.move")


def read_buffer(data: bytes, format: str, *, file: str | None = None, base: int = 0) -> MontyArrays:
    """All games of ``data`` (a whole file, or a slice of one starting at a game) as arrays; any fault raises
    (a game cut off by the end of the data is a :class:`~chessformats.engine.errors.TruncatedError`)."""
    structure = walk(data, format)
    decoded = decode(data, structure, format, file=file, base=base)
    if decoded.error is not None:
        raise decoded.error
    if not structure.complete:
        raise _structural_error(data, structure.end, format, file, base, len(structure.games))
    return decoded.arrays


def iter_buffers(handle: IO[bytes], format: str, *, file: str | None = None, base: int = 0,
                 chunk: int = 1 << 22) -> Iterator[MontyArrays]:
    """The games of a stream as arrays, about ``chunk`` bytes of file at a time (memory stays bounded: a chunk
    and the arrays of its games); the first fault is raised after the games before it."""
    pending = b""
    number = 0
    while True:
        block = handle.read(chunk)
        data = pending + block if pending else block
        if not data:
            return
        structure = walk(data, format)
        end, complete, games = structure.end, structure.complete, len(structure.games)
        if games:
            decoded = decode(data, structure, format, file=file, base=base, first_game=number)
            del structure  # only the arrays are kept while the caller uses them: memory holds one chunk's
            if decoded.error is not None:
                if decoded.complete:
                    yield _whole(decoded)
                raise decoded.error
            arrays = decoded.arrays
            del decoded
            yield arrays
            del arrays
            number += games
        if not block:
            if not complete:
                raise _structural_error(data, end, format, file, base, number)
            return
        base += end
        pending = data[end:]
        del data


def _whole(decoded: Decoded) -> MontyArrays:
    """The complete games of a decoded buffer."""
    arrays = decoded.arrays
    games = decoded.complete
    if games == len(arrays.headers):
        return arrays
    keep = int(arrays.game_plies[games])
    return MontyArrays(arrays.format, arrays.headers[:games], arrays.game_plies[:games + 1], arrays.offsets[:games],
                       arrays.numbers[:games], arrays.plies.take(np.arange(keep)))
