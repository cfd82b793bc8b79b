"""Encoding many main lines at once: the ``.cbg`` data (mode 0) of games that start from the standard position
and have no variations, from their moves as arrays of squares, one numpy step per ply for all games.

:func:`.encoder.encode_game` codes a python-chess game move by move on the decoder's light board (a few µs a
move). A PGN import has most of its games as plain main lines whose moves a batch replay already found
(origin, target, promotion per ply); here every game of a batch advances together, so each ply is a few dozen
array operations over the games still playing. Per game the state is the batch decoder's: the piece code on
each square and each side's numbered piece lists, moved on by the same functions (:mod:`.numbering`). The codes
come from the same tables as the encoder's (one-byte codes by piece, number and step; castling; two-byte moves
for promotions and unnumbered pieces) and each byte goes through the same counter (:func:`.moves.encode_byte`).
The tests compare the bytes with :func:`.encoder.encode_game` on every game of the corpus PGN and on random
games.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import chess
import numpy as np

from ...engine.codec import codec
from ...schemas import chessbase as schema
from . import numbering
from .encoder import _CASTLING, _CODES, _HIGH, _LOW_MASK, STANDARD_MODE, EncodedGame
from .moves import encode_byte, encode_two_byte_move
from .numbering import WORDS
from .start import BLACK, standard_start

__all__ = ["encode_main_lines"]

_WORD = codec(schema.DATA_WORD)
_WORD_SIZE: int = _WORD.size or 0
_NO_CODE = -1


@cache
def _tables() -> dict[str, Any]:
    """The lookup tables, built once from the encoder's own (codes, counter bytes, two-byte words)."""
    one_byte = np.full((chess.KING + 1, 8, 8, 8), _NO_CODE, dtype=np.int16)
    for (piece, index, dx, dy), code in _CODES.items():
        one_byte[piece, index, dx, dy] = code
    counter = np.array([[encode_byte(code, mode=STANDARD_MODE, count=count) for code in range(256)]
                        for count in range(256)], dtype=np.uint8)
    # a two-byte move's word is the OR of its fields: origin, target and promotion parts, each from a1/a1/queen
    plain = encode_two_byte_move(chess.A1, chess.A1, chess.QUEEN)
    origin = np.array([encode_two_byte_move(square, chess.A1, chess.QUEEN) ^ plain for square in chess.SQUARES],
                      dtype=np.int64)
    target = np.array([encode_two_byte_move(chess.A1, square, chess.QUEEN) ^ plain for square in chess.SQUARES],
                      dtype=np.int64)
    promotion = np.array([encode_two_byte_move(chess.A1, chess.A1, piece or chess.QUEEN)
                          for piece in range(chess.KING + 1)], dtype=np.int64)
    start = standard_start()
    return {"one_byte": one_byte, "counter": counter, "origin": origin, "target": target, "promotion": promotion,
            "board": np.array(start.board, dtype=np.int8),
            "lists": np.array(numbering.start_words(start.board, False), dtype=np.int64)}


def encode_main_lines(game: np.ndarray[Any, Any], ply: np.ndarray[Any, Any], origin: np.ndarray[Any, Any],
                      target: np.ndarray[Any, Any], promotion: np.ndarray[Any, Any],
                      plies: np.ndarray[Any, Any]) -> list[EncodedGame]:
    """The :class:`.encoder.EncodedGame` of each of ``len(plies)`` games from the standard position.

    One entry per move played (an event), ordered by ply: ``game`` (index of the game), ``ply`` (from 0),
    ``origin`` and ``target`` squares (castling as the king taking its rook, the way a Polyglot move and the
    batch replay give it), ``promotion`` (a python-chess piece type, 0: none). ``plies[i]``: the moves of game
    ``i`` (each of its plies 0 .. plies[i] - 1 has an event). The moves must be legal: they are not checked.
    """
    tables = _tables()
    count = len(plies)
    board = np.tile(tables["board"], (count, 1))
    lists = np.tile(tables["lists"], count)
    events = len(game)
    out = np.zeros((events, 3), dtype=np.uint8)
    sizes = np.zeros(events, dtype=np.int64)
    bounds = np.searchsorted(ply, np.arange(int(plies.max(initial=0)) + 1), side="left")
    for step in range(len(bounds) - 1):
        rows = slice(int(bounds[step]), int(bounds[step + 1]))
        codes = _step(step & 1, game[rows], origin[rows], target[rows], promotion[rows], board, lists, tables)
        sizes[rows] = (codes >= 0).sum(axis=1)
        out[rows] = tables["counter"][step & 0xFF][np.maximum(codes, 0)]
    order = np.argsort(game, kind="stable")  # by game, each game's moves in ply order
    flat = out[order][np.arange(3) < sizes[order][:, None]].tobytes()
    lengths = np.bincount(game, weights=sizes, minlength=count).astype(np.int64).tolist()
    pops = tables["counter"][np.asarray(plies, dtype=np.int64) & 0xFF, schema.CODE_POP].tolist()
    result: list[EncodedGame] = []
    at = 0
    for number, (size, pop) in enumerate(zip(lengths, pops, strict=True)):
        stream = flat[at:at + size]
        at += size
        word = _WORD.encode({"not_encoded": False, "setup": False, "mode": STANDARD_MODE,
                             "size": _WORD_SIZE + size + 1})
        result.append(EncodedGame(bytes(word) + stream + bytes((pop,)), STANDARD_MODE, False, int(plies[number]), 0))
    return result


def _step(side: int, game: Any, origin: Any, target: Any, promotion: Any, board: Any, lists: Any,
          tables: dict[str, Any]) -> Any:
    """One ply of the games ``game`` (side 0: white moves): the codes of each move (-1: unused), and the board
    and the piece lists (:mod:`.numbering`) moved on."""
    own = BLACK if side else 0
    at, row = game * 64, game * WORDS
    squares = board.reshape(-1)
    code = squares[at + origin]
    piece = (code & 7).astype(np.int64)
    index = numbering.place(lists[row + 7 * side + piece], origin)
    numbered = index < 8
    captured = squares[at + target]
    codes = np.full((len(game), 3), _NO_CODE, dtype=np.int64)
    castles = (piece == chess.KING) & (captured == (chess.ROOK | own))
    plain = ~castles

    # codes: castling; one byte for a numbered piece's move (promotions are always two-byte moves); else two-byte
    short = (target & 7) > (origin & 7)
    codes[castles, 0] = np.where(short[castles], _CASTLING["O-O"], _CASTLING["O-O-O"])
    dx, dy = (target & 7) - (origin & 7), (target >> 3) - (origin >> 3)
    pawn = piece == chess.PAWN
    if side:
        dx, dy = np.where(pawn, -dx, dx), np.where(pawn, -dy, dy)
    one = np.where(plain & numbered & (promotion == 0), tables["one_byte"][piece, index & 7, dx & 7, dy & 7],
                   _NO_CODE)
    codes[:, 0] = np.where(plain, np.where(one >= 0, one, schema.CODE_TWO_BYTE), codes[:, 0])
    two = plain & (one < 0)
    word = tables["origin"][origin[two]] | tables["target"][target[two]] | tables["promotion"][promotion[two]]
    codes[two, 1] = word >> _HIGH
    codes[two, 2] = word & _LOW_MASK

    # the board and the numbers (the piece taken: on the target, or the pawn behind it en passant)
    passant = pawn & (((origin ^ target) & 7) != 0) & (captured == 0)
    spot = target + passant * (8 if side else -8)
    rank = target >> 3
    new = np.where(pawn & ((rank == 0) | (rank == 7)), np.where(promotion > 0, promotion, chess.QUEEN), 0)
    if castles.any():
        moving = np.flatnonzero(plain)
        numbering.play(squares, lists, at[moving], row[moving], side, origin[moving], target[moving], spot[moving],
                       new[moving], index[moving])
        home = origin[castles] & 56
        numbering.castle(squares, lists, at[castles], row[castles], side, origin[castles], target[castles],
                         home | np.where(short[castles], 6, 2), home | np.where(short[castles], 5, 3))
    else:
        numbering.play(squares, lists, at, row, side, origin, target, spot, new, index)
    return codes
