"""Replaying the opening moves of many games at once: numpy bitboards, one step per ply for all games.

Book building must turn millions of SAN tokens into (position key, move) pairs. Done one move at a time
in Python that costs a few µs per ply even with bitboards; here every game of a batch advances together,
one ply per step, so each step is a few dozen numpy operations over arrays of games. Per game the state
is the kernel's position (:func:`chessformats.kernel.playing.stack`), which the kernel's move player updates
(:func:`chessformats.kernel.playing.play_rows`), and the Polyglot key, which follows each move
(:func:`chessformats.formats.polyglot.batch.key_changes`; :mod:`.batchstep`).

A SAN token is read once per batch (:func:`parse_token`); per game and ply the step finds the moving
piece (among the attackers of the target square, :func:`chessformats.kernel.attacks.attacked`), checks that
the target is free of own pieces, that a pawn capture captures, that castling is allowed and passes no attacked
square, and that the mover's king is not attacked afterwards. Every game starts from the standard position (so the
side to move is the same for all games at each ply). A piece move with two candidates is the one that leaves
the king safe (SAN leaves out what a pin decides). A game whose token this path cannot play -- an unreadable or
illegal token, a piece move with two legal candidates or with three and more, a null move -- is marked failed
and its events are dropped: the caller replays such games with python-chess, which decides. The tests compare
this module with python-chess move by move on many random games.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, NamedTuple

import numpy as np

from ..formats import squares  # python-chess's numbering, without importing python-chess (start-up time)
from ..formats.polyglot.batch import keys as polyglot_keys
from ..formats.polyglot.batch import raw_moves
from ..kernel.batch import Boards
from ..kernel.playing import FIELDS, stack
from .batchstep import (
    BAD,
    CASTLE_LONG,
    CASTLE_SHORT,
    PAWN_CAPTURE,
    PAWN_PUSH,
    PIECE_MOVE,
    Moves,
    State,
    step,
)

__all__ = ["COLUMNS", "Replay", "number_tokens", "parse_token", "replay", "replay_tokens"]

U64 = np.uint64
_NO_EP = 64
_CLOCKS = FIELDS.index("halfmove")
"""The rows of a position before its clocks (:func:`~chessformats.kernel.playing.stack`)."""

COLUMNS = ("white", "black", "pawns", "knights", "bishops", "rooks", "queens", "kings", "castling", "ep", "key",
           "turn")
"""A position: bitboards, castling rook squares, en-passant square (64: none), key, side to move (1: White)."""

_PIECES = {"N": squares.KNIGHT, "B": squares.BISHOP, "R": squares.ROOK, "Q": squares.QUEEN, "K": squares.KING}
_PROMOTIONS = {"N": squares.KNIGHT, "B": squares.BISHOP, "R": squares.ROOK, "Q": squares.QUEEN}
_FILES = {c: i for i, c in enumerate("abcdefgh")}
_RANKS = {c: i for i, c in enumerate("12345678")}
_ANY = (1 << 64) - 1

def parse_token(token: str) -> tuple[int, int, int, int, int]:
    """The position-independent reading of a SAN token (``+``/``#`` stripped).

    ``(form, piece, target square, origin squares allowed (bitboard), promotion piece or 0)``; form
    :data:`BAD` for what this module does not play (python-chess then reads the game).
    """
    bad = (BAD, squares.PAWN, 0, _ANY, 0)
    if token in ("O-O", "0-0"):
        return CASTLE_SHORT, squares.KING, 0, _ANY, 0
    if token in ("O-O-O", "0-0-0"):
        return CASTLE_LONG, squares.KING, 0, _ANY, 0
    if len(token) < 2:
        return bad
    first = token[0]
    if first in _PIECES:
        rest = token[1:].replace("x", "")
        if not 2 <= len(rest) <= 4:
            return bad
        target_file, target_rank = _FILES.get(rest[-2]), _RANKS.get(rest[-1])
        if target_file is None or target_rank is None:
            return bad
        mask = _ANY
        for char in rest[:-2]:  # disambiguation
            if char in _FILES:
                mask &= squares.BB_FILES[_FILES[char]]
            elif char in _RANKS:
                mask &= squares.BB_RANKS[_RANKS[char]]
            else:
                return bad
        return PIECE_MOVE, _PIECES[first], 8 * target_rank + target_file, mask, 0
    if first not in _FILES:
        return bad
    body, promotion = token, 0
    if "=" in body:
        body, _, letter = body.partition("=")
        promotion = _PROMOTIONS.get(letter, -1)
    elif body[-1] in _PROMOTIONS:
        promotion = _PROMOTIONS[body[-1]]
        body = body[:-1]
    if promotion < 0 or len(body) not in (2, 4):
        return bad
    target_file, target_rank = _FILES.get(body[-2]), _RANKS.get(body[-1])
    if target_file is None or target_rank is None or (target_rank in (0, 7)) != (promotion != 0):
        return bad
    target = 8 * target_rank + target_file
    if len(body) == 2:
        return PAWN_PUSH, squares.PAWN, target, _ANY, promotion
    if body[1] != "x" or abs(_FILES[body[0]] - target_file) != 1:
        return bad
    return PAWN_CAPTURE, squares.PAWN, target, squares.BB_FILES[_FILES[body[0]]], promotion


class Replay(NamedTuple):
    """What a batch replay found. Events are the plies played (games not failed), in step order."""

    failed: np.ndarray[Any, Any]
    """Per game: True when this path could not play one of its moves (python-chess must decide)."""
    game: np.ndarray[Any, Any]
    """Per event: index of the game in the batch."""
    ply: np.ndarray[Any, Any]
    """Per event: ply number from 0 (even: White moved)."""
    key: np.ndarray[Any, Any]
    """Per event: Polyglot key of the position before the move."""
    raw: np.ndarray[Any, Any]
    """Per event: the move as Polyglot stores it."""
    positions: dict[str, np.ndarray[Any, Any]]
    """Positions met before ``memo_depth`` plies (first of each key per step), by :data:`COLUMNS`."""
    links: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]
    """Deeper positions: (key, parent key, raw move from the parent)."""


def _start(count: int) -> Boards:
    """``count`` standard start positions."""
    start = squares.START
    return Boards._make([*(np.full(count, start[name], dtype=U64) for name in FIELDS[:8]), np.ones(count, dtype=bool),
                         np.zeros(count, dtype=np.uint8), np.full(count, start["castling"], dtype=U64),
                         np.zeros(count, dtype=np.uint16), np.ones(count, dtype=np.uint16)])


def start_columns() -> dict[str, int]:
    """The standard start position as :data:`COLUMNS` values."""
    return {**squares.START, "ep": _NO_EP, "key": int(polyglot_keys(_start(1))[0]), "turn": 1}


def replay(games: list[list[str]], *, memo_depth: int = 40, positions: bool = True) -> Replay:
    """Play every game's SAN tokens (``+``/``#`` stripped) from the standard start position."""
    return replay_tokens(*number_tokens(games), memo_depth=memo_depth, positions=positions)


def number_tokens(games: list[list[str]]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any],
                                                   np.ndarray[Any, Any], list[str]]:
    """Games of SAN tokens as :func:`replay_tokens` takes them: ``(tokens, starts, lengths, vocabulary)``."""
    lengths = np.fromiter((len(g) for g in games), dtype=np.int64, count=len(games))
    flat = list(chain.from_iterable(games))
    vocabulary = {token: number for number, token in enumerate(dict.fromkeys(flat))}
    tokens = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
    starts = np.zeros(len(games), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return tokens, starts, lengths, list(vocabulary)


def replay_tokens(tokens: np.ndarray[Any, Any], starts: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any],
                  vocabulary: list[str], *, memo_depth: int = 40, positions: bool = True,
                  keys: bool = True) -> Replay:
    """:func:`replay` for games as numbers: game ``i`` is ``vocabulary[tokens[starts[i] + j]]``, j < lengths[i].

    ``positions=False``: the events only (:attr:`Replay.positions` and :attr:`Replay.links` empty); ``keys=False``
    (with it): the moves only, without Polyglot keys (:attr:`Replay.key` empty)."""
    if positions and not keys:
        raise ValueError("positions are kept with their keys")
    count = len(lengths)
    order = np.argsort(-lengths, kind="stable")  # longest first: the games still playing are a prefix
    starts = starts[order]
    playing = np.bincount(lengths, minlength=1)[::-1].cumsum()[::-1][1:]  # games with more than j plies, per j
    ends = np.cumsum(playing)  # the events of ply j: [ends[j] - playing[j], ends[j]), in the order of `order`
    moves = Moves([parse_token(token) for token in vocabulary])
    state = State(stack(_start(count)), np.full(count, start_columns()["key"] if keys else 0, dtype=U64),
                  np.zeros(count, dtype=U64))
    failed = np.zeros(count, dtype=bool)
    events = int(ends[-1]) if len(ends) else 0
    event_key = np.empty(events if keys else 0, dtype=U64)
    event_raw = np.empty(events, dtype=np.int64)
    kept: list[dict[str, Any]] = []
    links: list[tuple[Any, Any, Any]] = []
    for ply, games in enumerate(playing.tolist()):
        white = ply % 2 == 0
        state = state.games(slice(0, games)) if games < len(state.key) else state
        at = slice(int(ends[ply]) - games, int(ends[ply]))
        if keys:
            key = event_key[at] = state.key
        if positions and ply < memo_depth:
            taken = np.unique(key, return_index=True)[1]
            taken = taken[~failed[taken]]
            kept.append(_columns(state.rows[:_CLOCKS, taken], key[taken], white))
        elif positions and ply > 0:
            alive = np.flatnonzero(~failed[:games])
            before = int(ends[ply - 1]) - int(playing[ply - 1])
            links.append((key[alive], event_key[before + alive], event_raw[before + alive]))
        state, codes, bad = step(state, moves.plies(tokens[starts[:games] + ply], white), white, keys=keys)
        failed[:games] |= bad
        event_raw[at] = raw_moves(codes)

    failed_by_game = np.zeros(count, dtype=bool)
    failed_by_game[order] = failed
    game = np.concatenate([order[:games] for games in playing.tolist()]) if len(playing) else order[:0]
    ply_of = np.repeat(np.arange(len(playing), dtype=np.int64), playing)
    if failed.any():  # their events are dropped
        keep = ~failed_by_game[game]
        game, ply_of, event_raw = game[keep], ply_of[keep], event_raw[keep]
        event_key = event_key[keep] if keys else event_key
    empty = np.zeros(0, dtype=U64)
    return Replay(
        failed=failed_by_game, game=game, ply=ply_of, key=event_key, raw=event_raw,
        positions={name: np.concatenate([k[name] for k in kept]) if kept else
                   np.zeros(0, dtype=np.int64 if name == "ep" else U64) for name in COLUMNS},
        links=(np.concatenate([link[0] for link in links]) if links else empty,
               np.concatenate([link[1] for link in links]) if links else empty,
               np.concatenate([link[2] for link in links]) if links else np.zeros(0, dtype=np.int64)),
    )


def _columns(rows: Any, key: Any, white: bool) -> dict[str, np.ndarray[Any, Any]]:
    """Positions (:func:`~chessformats.kernel.playing.stack`) and their keys by :data:`COLUMNS`."""
    columns = {name: rows[FIELDS.index(name)] for name in (*COLUMNS[:8], "castling")}
    ep = rows[FIELDS.index("ep_square")].astype(np.int64)
    ep[ep == 0] = _NO_EP
    return {**columns, "ep": ep, "key": key, "turn": np.full(len(key), 1 if white else 0, dtype=U64)}

