"""ChessBase's piece numbering over many games at once: the one batch implementation of the rule, which the batch
decoder (:mod:`.batch_state`) and the batch encoder (:mod:`.batch_encoder`) both call.

A one-byte move code names a piece by its type and its number: its place in its side's list of pieces of that
type. The rule, as the scalar decoder's :class:`.moves._Position` keeps it (the reference these functions are
tested against: python-chess has no such numbering):

- the start position numbers each type in scan order (files a to h, or h to a in the modes with reversed piece
  order; ranks 1 to 8 within a file), up to :data:`NUMBERED` pieces of a type;
- a piece keeps its number when it moves (castling moves the king's and the rook's);
- a captured pawn leaves its number empty; any other captured piece leaves its list, which closes up (the later
  numbers of its type move down one);
- a promoting pawn leaves its number empty and the new piece takes the next number of its type, if that type
  still has one free; else it has no number (and moves as a two-byte move).

The state: per game an int8 row of :data:`LISTS` squares, ``side * 56 + piece * 8 + number`` -> square, -1 for
none. The functions take ``flat`` (the rows as one flat, contiguous int8 view, written in place) and ``base``: per
move, its game's row offset plus ``side * 56``, as int64 (a multiple of 8: each list is one 8-byte word, read and
written at once).
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np

from .moves import _NUMBERED, _Position

__all__ = ["LISTS", "NUMBERED", "SIDE", "castle", "close_up", "next_number", "number_of", "renumber", "start_lists"]

LISTS = 112
"""Squares per game: two sides of seven piece types (index 0 unused) of eight numbers."""
SIDE = LISTS // 2
"""Where a side's lists start in its game's row: ``side * SIDE`` (white 0, black 1)."""
NUMBERED = np.array(_NUMBERED, dtype=np.int8)
"""By piece type: how many pieces of that type get a number."""
_WORD = np.dtype("<u8")
"""A list of eight squares as one word (byte ``n``, number ``n``, at bits ``8n``)."""
_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_BELOW = np.array([(1 << 8 * place) - 1 for place in range(9)], dtype=np.uint64)
"""By place 0-8: the bytes below it."""
_BYTE = np.array([0xFF << 8 * place for place in range(8)] + [0], dtype=np.uint64)
"""By place 0-8: its byte set (-1, an empty number); nothing for 8 (not in the list)."""
_LAST = np.array([0xFF << 56] * 8 + [0], dtype=np.uint64)
"""By place 0-8: the last byte set, which empties when a list closes up; nothing for 8 (not in the list)."""


def start_lists(board: list[int], white: bool, reverse: bool) -> np.ndarray[Any, Any]:
    """A position's numbered pieces as a row of :data:`LISTS` squares (the scalar decoder's numbering)."""
    lists = _Position(board, white, reverse).pieces
    out = np.full((2, 7, 8), -1, dtype=np.int8)
    for side in (0, 1):
        for piece in range(1, 7):
            for number, square in enumerate(lists[side][piece]):
                out[side, piece, number] = -1 if square is None else square
    return out.reshape(-1)


def _find(words: np.ndarray[Any, Any], square: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Per list (an 8-byte word), the place of ``square`` in it: 0-7, 8 where it is not there."""
    differ = words ^ (square.astype(np.uint64) & 0xFF) * _ONES  # a zero byte where the list holds the square
    zero = (differ - _ONES) & ~differ & _HIGHS  # its high bit set (and maybe those above the first)
    place: np.ndarray[Any, Any] = np.bitwise_count((zero & (~zero + 1)) - 1).astype(np.int64) >> 3
    return place


def number_of(flat: np.ndarray[Any, Any], base: np.ndarray[Any, Any], piece: np.ndarray[Any, Any],
              square: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The number of the ``piece`` on ``square`` and whether it has one (else the number is 0)."""
    place = _find(flat.view(_WORD).take((base >> 3) + piece), square)
    return place & 7, place < 8


def next_number(flat: np.ndarray[Any, Any], base: np.ndarray[Any, Any],
                piece: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The number a new ``piece`` (a promotion) would take, and whether that type has it free."""
    words = flat.view(_WORD).take((base >> 3) + piece)
    taken = (words.view(np.int8).reshape(-1, 8) >= 0).sum(axis=1)
    return taken, taken < NUMBERED.take(piece)


def close_up(flat: np.ndarray[Any, Any], base: np.ndarray[Any, Any], piece: np.ndarray[Any, Any],
             square: np.ndarray[Any, Any]) -> None:
    """The ``piece`` on ``square`` is captured: a pawn's number empties, another type's list closes up (where it
    is not in its list, a piece without a number, nothing changes)."""
    lists = flat.view(_WORD)
    at = (base >> 3) + piece
    words = lists.take(at)
    place = _find(words, square)
    below = _BELOW.take(place)
    closed = (words & below) | ((words >> 8) & ~below) | _LAST.take(place)
    lists[at] = np.where(piece == chess.PAWN, words | _BYTE.take(place), closed)


def renumber(flat: np.ndarray[Any, Any], base: np.ndarray[Any, Any], piece: np.ndarray[Any, Any],
             number: np.ndarray[Any, Any], target: np.ndarray[Any, Any], promoting: np.ndarray[Any, Any],
             new_piece: np.ndarray[Any, Any], new_number: np.ndarray[Any, Any], free: np.ndarray[Any, Any]) -> None:
    """The numbered ``piece`` moves to ``target`` and keeps its ``number``; where ``promoting``, its number
    empties and the ``new_piece`` takes ``new_number`` where that is ``free`` (from :func:`next_number`)."""
    flat[base + piece * 8 + number] = np.where(promoting, -1, target)
    promoted = promoting & free
    if promoted.any():
        flat[base[promoted] + new_piece[promoted] * 8 + new_number[promoted]] = target[promoted]


def castle(flat: np.ndarray[Any, Any], base: np.ndarray[Any, Any], king_to: np.ndarray[Any, Any],
           rook: np.ndarray[Any, Any], rook_to: np.ndarray[Any, Any]) -> None:
    """Castling: the (numbered) king goes to ``king_to``, the rook on ``rook`` (if numbered) to ``rook_to``."""
    flat[base + chess.KING * 8] = king_to
    number, found = number_of(flat, base, np.full(len(base), chess.ROOK), rook)
    flat[base[found] + chess.ROOK * 8 + number[found]] = rook_to[found]
