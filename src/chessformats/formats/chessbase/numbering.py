"""ChessBase's piece numbering: the one implementation of the rule, for one game (Python integers: the game-by-game
decoder and encoder, :mod:`.moves` and :mod:`.encoder`) and for many games at once (numpy arrays: the batch decoder
:mod:`.batch_state` and the batch encoder :mod:`.batch_encoder`) alike.

A one-byte move code names a piece by its type and its number: its place in its side's list of pieces of that
type. The rule (python-chess has no such numbering; the corpus's own bytes are what it is checked against):

- the start position numbers each type in scan order (files a to h, or h to a in the modes with reversed piece
  order; ranks 1 to 8 within a file), up to :data:`NUMBERED` pieces of a type;
- a piece keeps its number when it moves (castling moves the king's and the rook's);
- a captured pawn leaves its number empty; any other captured piece leaves its list, which closes up (the later
  numbers of its type move down one);
- a promoting pawn leaves its number empty and the new piece takes the next number of its type, if that type
  still has one free; else it has no number (and moves as a two-byte move). A piece beyond :data:`NUMBERED` is
  never numbered, even once a numbered one is captured: corpus ManyPromotions (after a capture, a promoted 4th
  queen still moves as a two-byte move; a later promotion takes the free number), as the Java reader's piece
  slots do.

The state: a list is one 64-bit word, byte ``n`` the square of number ``n`` (:data:`NONE`, 64, for none); per game
:data:`WORDS` words, ``side * 7 + piece type`` (a side's word 0, piece type 0, stays empty: :func:`play` takes
nothing from it and promotes nothing into it; a batch that looks a number up there, for a row whose move takes or
promotes nothing, ignores the answer). With every byte
at most 64 a word is below ``2**63``, so it is the same number as a Python ``int`` (one game) and in an
``np.int64`` array (a batch), and the functions below, written with operators only (``& | ^ + - * << >>``,
comparisons, indexing), give the same results on both; where an intermediate value passes ``2**63``
(numpy wraps it, Python does not) only its low 64 bits are used, which agree. ``board``: the squares' piece
codes (:mod:`.start`), a list (one game) or a flat array (a batch, ``at``: each game's first square); ``lists``
the words, a list or a flat ``int64`` array (``row``: each game's first word).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import chess

from ...schemas.chessbase import MOVE_CODES
from .start import BLACK

__all__ = ["LISTS", "NONE", "NUMBERED", "SIDE", "WORDS", "castle", "next_number", "place", "play", "start_words"]

_PAWN = chess.PAWN

NUMBERED = tuple(max((entry[1] for entry in MOVE_CODES.values() if len(entry) == 4 and entry[0] == name), default=0)
                 for name in chess.PIECE_NAMES)
"""By piece type (index 0 unused): how many pieces of that type get a number (as many as there are one-byte codes:
the highest number of the type in the declaration's move codes, :data:`~chessformats.schemas.chessbase.MOVE_CODES`)."""
NONE = 64
"""The byte of an empty number (square 64: off the board)."""
WORDS = 14
"""Words (lists) per game: two sides of seven piece types (piece type 0 unused)."""
LISTS = WORDS * 8
"""Bytes per game, the lists seen as squares: ``side * SIDE + piece * 8 + number`` -> square."""
SIDE = LISTS // 2
"""Where a side's lists start in its game's bytes: ``side * SIDE`` (white 0, black 1)."""
_ONES = 0x0101010101010101
_LOWS = 0x7F7F7F7F7F7F7F7F
_COUNTS = sum(count << 4 * piece for piece, count in enumerate(NUMBERED))
""":data:`NUMBERED` in nibbles (by piece type), for arrays and integers alike."""
_EMPTY = NONE * _ONES


def place(word: Any, square: Any) -> Any:
    """Where ``square`` is in the list ``word``: its number 0-7, or 8 where it is not there (``square``
    :data:`NONE`: the first empty number)."""
    # the bytes that differ from the square: each byte is below 0x80, and plus 0x7F carries into its top bit iff
    # it is not 0; then the bits of the bytes below the first that does not differ, summed in the top byte
    differ = ((word ^ square * _ONES) + _LOWS) >> 7 & _ONES
    return (((differ ^ _ONES) - 1) & differ) * _ONES >> 56 & 15


def _put(word: Any, number: Any, square: Any) -> Any:
    """``word`` with number ``number`` (0-7) on ``square``; unchanged where ``number`` is 8 (not in the list)."""
    shift = 8 * number
    return word ^ ((word >> shift ^ square) & 0xFF) * (number < 8) << shift


def _without(word: Any, number: Any, pawn: Any) -> Any:
    """``word`` once its piece of number ``number`` is taken: a pawn's number empties, another type's list closes up
    (the later numbers move down one); unchanged where ``number`` is 8 (a piece without a number)."""
    below = (1 << 8 * number) - 1
    closed = word & below | (word >> 8 | NONE << 56) & ~below
    emptied = _put(word, number, NONE)
    return closed ^ (closed ^ emptied) * pawn


def next_number(word: Any, piece: Any) -> tuple[Any, Any]:
    """The number a new ``piece`` (a promotion) takes in its list ``word``, and whether it is free (its type has
    numbers left)."""
    number = place(word, NONE)  # (only a pawn's list has gaps, and no pawn is promoted to)
    return number, number < (_COUNTS >> 4 * piece & 15)


def play(board: Any, lists: Any, at: Any, row: Any, side: Any, source: Any, target: Any, spot: Any, new: Any,
         number: Any) -> None:
    """A move other than castling, on the board and the lists: the piece on ``source`` (``number``: its number,
    from :func:`place`; 8: none) goes to ``target``, the piece on ``spot`` (``target``, or the pawn taken en passant;
    none on an empty square) is taken, a promoting pawn becomes a ``new`` piece (0: the move promotes nothing).
    ``side``: 0 white moves, 1 black. The move is not checked."""
    code = board[at + source]
    taken = board[at + spot] & 7
    capture = taken != 0
    if _some(capture):
        enemy, kind, square = _where(capture, row + 7 - 7 * side + taken, taken, spot)
        words = lists[enemy]
        lists[enemy] = _without(words, place(words, square), kind == _PAWN)
    own = row + 7 * side
    promoting = new > 0
    mover = own + (code & 7)
    lists[mover] = _put(lists[mover], number, target + promoting * (NONE - target))
    board[at + spot] = 0
    board[at + source] = 0
    board[at + target] = code
    if _some(promoting):
        at, own, side, target, new = _where(promoting, at, own, side, target, new)
        promoted = own + new
        words = lists[promoted]
        new_number, free = next_number(words, new)
        lists[promoted] = _put(words, new_number + 8 * (free == 0), target)  # (8: no number, no change)
        board[at + target] = new + BLACK * side


def _some(flags: Any) -> bool:
    """Whether any of ``flags`` is set: one game's (a ``bool``) or a batch's (an array)."""
    return flags is True or (flags is not False and bool(flags.any()))


def _where(flags: Any, *values: Any) -> tuple[Any, ...]:
    """``values`` where ``flags`` is set: one game's as they are (where :func:`_some` found its flag set), a
    batch's arrays at those rows (what is the same for every row kept)."""
    if flags is True:
        return values
    rows = flags.nonzero()[0]
    return tuple(value[rows] if getattr(value, "ndim", 0) else value for value in values)


def castle(board: Any, lists: Any, at: Any, row: Any, side: Any, king: Any, rook: Any, king_to: Any,
           rook_to: Any) -> None:
    """Castling, on the board and the lists: the king on ``king`` goes to ``king_to`` and the rook on ``rook`` to
    ``rook_to``, each keeping its number (if it has one). Not checked."""
    for piece, source, target in ((chess.KING, king, king_to), (chess.ROOK, rook, rook_to)):
        mine = row + 7 * side + piece
        words = lists[mine]
        lists[mine] = _put(words, place(words, source), target)
    colour = BLACK * side
    board[at + king] = 0
    board[at + rook] = 0
    board[at + king_to] = chess.KING + colour
    board[at + rook_to] = chess.ROOK + colour


def start_words(board: list[int], reverse: bool) -> list[int]:
    """The :data:`WORDS` lists of a position's pieces (``board``: 64 piece codes), numbered in scan order."""
    return list(_start_words(tuple(board), reverse))


@lru_cache(maxsize=256)
def _start_words(board: tuple[int, ...], reverse: bool) -> tuple[int, ...]:
    lists = [_EMPTY] * WORDS
    for file in range(7, -1, -1) if reverse else range(8):
        for square in range(file, 64, 8):
            code = board[square]
            if code:
                mine = 7 * (code >= BLACK) + (code & 7)
                number, free = next_number(lists[mine], code & 7)
                lists[mine] = _put(lists[mine], number + 8 * (not free), square)  # (8: no number left)
    return tuple(lists)
