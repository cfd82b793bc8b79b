"""The batch decoder's engine: the state of every game of a chunk in arrays, one step per token.

:mod:`.batch` drives it and gives the results; the module docstring there says what the batch leaves to the
scalar decoder. With ``san=True`` each move also records the piece it takes; once the chunk is decoded,
:func:`.batch_san.annotate` rebuilds the positions after every move from the tokens and works out checks, mates
and rivals from them.
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np

from ...schemas import chessbase as schema
from . import batch_san as _san
from . import moves as _moves
from . import numbering
from .numbering import LISTS as _LISTS
from .numbering import NONE, SIDE, WORDS
from .start import BLACK, SETUP_SIZE, StartPosition, standard_start

__all__ = ["BATCH_MODES", "MAX_DEPTH", "MOVE", "T_POP", "T_PUSH", "T_SKIP", "State", "Tokens"]

MAX_DEPTH = 32
"""Variations nested deeper than this go to the scalar decoder (the position stack grows up to it)."""

# token kinds of the flat arrays
MOVE, T_PUSH, T_POP, T_SKIP = 0, 1, 2, 3
# classes of a decoded code
_C_BAD, _C_MOVE, _C_SHORT, _C_LONG, _C_TWO, _C_NULL, _C_SKIP, _C_PUSH, _C_POP = range(9)

_PAWN, _KING, _ROOK, _QUEEN = chess.PAWN, chess.KING, chess.ROOK, chess.QUEEN
BATCH_MODES = tuple(mode for mode in range(len(schema.MODE_TABLES))
                    if schema.MODE_ENCODER[mode] == "compact" and schema.MODE_VARIANT[mode] != "chess960")
"""Modes the batch decodes: the compact encoder's, Chess960 aside (its castling has its own rules)."""

def _tables() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """DECODE[mode, counter, byte] -> code; CLASS[code]; PIECE_INDEX[code] -> (piece, index);
    TARGET[side, code, square] -> target square of a one-byte move (-1: off the board)."""
    modes = len(schema.MODE_TABLES)
    decode = np.zeros((modes, 256, 256), dtype=np.uint8)
    counter = np.arange(256)[:, None]
    byte = np.arange(256)[None, :]
    for mode, table in enumerate(schema.MODE_TABLES):
        values = np.frombuffer(table, dtype=np.uint8).astype(np.int64)
        if schema.MODE_COUNTER[mode] == "post":
            decode[mode] = (values[byte] - counter) & 0xFF
        else:
            decode[mode] = values[(byte - counter) & 0xFF]
    classes = np.full(256, _C_BAD, dtype=np.int8)
    piece_index = np.zeros((256, 2), dtype=np.int8)
    target = np.full((2, 256, 64), -1, dtype=np.int8)
    for code, (kind, piece, index, dx, dy) in enumerate(_moves._CODES):
        if kind == 0:
            continue
        classes[code] = _C_MOVE if kind == 1 else _C_SHORT if kind == 2 else _C_LONG
        piece_index[code] = piece, index
        if kind != 1:
            continue
        for side in (0, 1):
            target[side, code] = [_moves.one_byte_target(side, piece, dx, dy, square) for square in range(64)]
    classes[schema.CODE_NULL] = _C_NULL
    classes[schema.CODE_TWO_BYTE] = _C_TWO
    classes[schema.CODE_SKIP] = _C_SKIP
    classes[schema.CODE_PUSH] = _C_PUSH
    classes[schema.CODE_POP] = _C_POP
    return decode, classes, piece_index, target


_DECODE, _CLASS, _PIECE_INDEX, _TARGET = _tables()
_DECODE_FLAT, _TARGET_FLAT = _DECODE.ravel(), _TARGET.ravel()
"""By ``mode << 16 | counter << 8 | byte``; by ``(side << 8 | code) << 6 | square``."""
_SLOT = (_PIECE_INDEX[:, 0].astype(np.int64) * 8 + _PIECE_INDEX[:, 1])
_INDEX = _PIECE_INDEX[:, 1].astype(np.int64)
"""By one-byte code: the moving piece's place in its side's lists (``piece * 8 + index``), its index."""
_PROMOTION_TYPES = np.array(_moves._PROMOTIONS, dtype=np.int8)
_FROM, _TO = np.arange(64)[:, None], np.arange(64)[None, :]
_TWO_FILES = ((_FROM >> 3 == _TO >> 3) & (abs((_FROM & 7) - (_TO & 7)) == 2)).ravel()
"""By ``source << 6 | target``: two files apart on one rank (a king's move there is castling: the scalar path)."""
_LOSING = np.array([schema.MODE_VARIANT[mode] == "losing chess" for mode in range(len(schema.MODE_TABLES))])


STANDARD = standard_start()
_STANDARD_BOARD = np.array(STANDARD.board, dtype=np.int8)
_STANDARD_BITS = _san.START
"""The bitboards of the start position (a column)."""


def _start_row(board: list[int], reverse: bool) -> np.ndarray[Any, Any]:
    """A position's numbered pieces (:func:`.numbering.start_words`) as a game's row of :data:`LISTS` squares."""
    return np.array(numbering.start_words(board, reverse), dtype="<i8").view(np.int8)


_STANDARD_PIECES = {reverse: _start_row(STANDARD.board, reverse) for reverse in (False, True)}


class Tokens:
    """The flat token arrays."""

    def __init__(self, total: int, *, san: bool = False) -> None:
        self.kind = np.zeros(total, np.int8)
        self.source = np.zeros(total, np.int8)
        self.target = np.zeros(total, np.int8)
        self.promotion = np.zeros(total, np.int8)
        self.castling = np.zeros(total, bool)
        self.null = np.zeros(total, bool)
        self.offset = np.zeros(total, np.int64)
        self.size = np.ones(total, np.int8)
        self.piece = np.zeros(total, np.int8)
        self.capture = np.zeros(total, bool)
        self.white = np.zeros(total, bool)
        self.fullmove = np.zeros(total, np.int32)
        self.check = np.zeros(total, np.int8)
        """Per move (``san=True``): 0, 1 = check ("+"), 2 = mate ("#")."""
        self.rival = np.zeros(total, np.int8)
        """Per move (``san=True``): 0 = no rival, SAN names the source by 1 its file, 2 its rank, 3 its square."""
        self.captured = np.zeros(total if san else 0, np.int8)
        """Per move (``san=True``): the piece it takes on its target square (its code: 0 none, en passant)."""


class State:
    """The running state of every game of a chunk."""

    def __init__(self, games: int, modes: np.ndarray[Any, Any], pointer: np.ndarray[Any, Any],
                 end: np.ndarray[Any, Any], *, san: bool = False) -> None:
        self.san = san
        self.modes = modes
        self.pointer = pointer.copy()
        self.end = end
        self.counter = np.zeros(games, np.int64)
        self.ply = np.full(games, 2, np.int32)
        """Per game: ``fullmove * 2``, plus 1 when black is to move."""
        self.board = np.tile(_STANDARD_BOARD, (games, 1))
        reverse = np.array([schema.MODE_REVERSE[mode] for mode in range(len(schema.MODE_TABLES))])[modes]
        self.pieces = np.where(reverse[:, None], _STANDARD_PIECES[True][None, :],
                               _STANDARD_PIECES[False][None, :]).astype(np.int8)
        """(games, 112): side * SIDE + piece * 8 + index -> square, NONE for none (:mod:`.numbering`'s lists as
        bytes)."""
        self.depth = np.zeros(games, np.int64)
        self.tokens = np.zeros(games, np.int64)
        self.stack_board: np.ndarray[Any, Any] | None = None
        self.stack_pieces: np.ndarray[Any, Any] | None = None
        self.stack_ply: np.ndarray[Any, Any] | None = None

    def setup(self, index: int, start: StartPosition) -> None:
        """Game ``index`` starts from a setup position (its stream after it)."""
        self.board[index] = start.board
        reverse = schema.MODE_REVERSE[int(self.modes[index])]
        self.pieces[index] = _start_row(start.board, reverse)
        self.ply[index] = max(start.first_move, 1) * 2 + (not start.white_to_move)
        self.pointer[index] += SETUP_SIZE

    def run(self, data: np.ndarray[Any, Any], active: np.ndarray[Any, Any], fallback: np.ndarray[Any, Any],
            first: np.ndarray[Any, Any], out: Tokens) -> None:
        table = self.modes << 16
        following = first.copy()
        """Per game: its next token's slot."""
        begin = self.pointer.copy()
        while active.size:
            finished = None
            pointer = self.pointer[active]
            over = pointer >= self.end[active]
            if over.any():  # a stream without its end marker: the scalar decoder decides
                fallback[active[over]] = True
                active, pointer = active[~over], pointer[~over]
            counter = self.counter.take(active)
            codes = _DECODE_FLAT.take(table.take(active) | counter << 8 | data.take(pointer))
            classes = _CLASS.take(codes)
            slots = following.take(active)
            following[active] = slots + 1
            bad = np.zeros(active.size, bool)
            self.pointer[active] = pointer + 1
            out.fullmove[slots] = self.ply.take(active)  # (its side and move number below)
            one = classes == _C_MOVE
            if one.any():
                where = np.flatnonzero(one)
                games = active.take(where)
                side = self.ply.take(games) & 1
                code = codes.take(where).astype(np.int64)
                source = self.pieces.reshape(-1).take(games * _LISTS + side * SIDE + _SLOT.take(code)).astype(np.int64)
                missing = source == NONE
                target = _TARGET_FLAT.take((side << 8 | code) << 6 | (source & 63)).astype(np.int64)
                missing |= target < 0
                index = _INDEX.take(code)
                if missing.any():
                    bad[where[missing]] = True
                    keep = ~missing
                    where, games, side, source, target, index = (value[keep] for value in (
                        where, games, side, source, target, index))
                self._apply(where, games, side, source, target, np.zeros(len(where), np.int64), slots, bad, out,
                            index=index)
            two = classes == _C_TWO
            if two.any():
                where = np.flatnonzero(two)
                self._two_byte(data, active, where, pointer, counter, slots, bad, out)
                self.pointer[active[where]] += 2
            castles = (classes == _C_SHORT) | (classes == _C_LONG)
            if castles.any():
                where = np.flatnonzero(castles)
                self._castle(active, where, classes[where] == _C_SHORT, slots, bad, out)
            null = classes == _C_NULL
            if null.any():
                where = np.flatnonzero(null)
                games = active[where]
                out.null[slots[where]] = True
                out.source[slots[where]] = 0
                out.target[slots[where]] = 0
                out.piece[slots[where]] = 0
                self._turn(games)
            push = classes == _C_PUSH
            if push.any():
                where = np.flatnonzero(push)
                out.kind[slots[where]] = T_PUSH
                bad[where[~self._push(active[where])]] = True
            pop = classes == _C_POP
            if pop.any():
                where = np.flatnonzero(pop)
                games = active[where]
                ended = self.depth[games] == 0
                out.kind[slots[where]] = T_POP
                self._pop(games[~ended])
                finished = where[ended]  # the stream's end (not counted as a token)
                following[games[ended]] -= 1
            skip = classes == _C_SKIP
            if skip.any():
                out.kind[slots[skip]] = T_SKIP
            bad |= classes == _C_BAD
            self.counter[active] = (counter + (classes < _C_SKIP)) & 0xFF
            if bad.any():
                fallback[active[bad]] = True
            elif finished is None or not finished.size:
                continue
            if finished is not None:
                bad[finished] = True
            active = active[~bad]
        self.tokens = following - first
        # each token's offset: its game's first byte and the sizes of the tokens before it
        total = len(out.kind)
        running = np.zeros(total + 1, np.int64)
        np.cumsum(out.size, out=running[1:])
        begin -= running.take(first)
        out.offset[:] = running[:-1] + np.repeat(begin, np.diff(first, append=total))
        out.white[:] = (out.fullmove & 1) == 0  # (meaningful for moves only)
        out.fullmove >>= 1
        if self.san:
            _san.annotate(out, first, self.tokens, fallback, _STANDARD_BITS)

    def _turn(self, games: np.ndarray[Any, Any]) -> None:
        self.ply[games] += 1

    def _two_byte(self, data: np.ndarray[Any, Any], active: np.ndarray[Any, Any], where: np.ndarray[Any, Any],
                  pointer: np.ndarray[Any, Any], counter: np.ndarray[Any, Any], slots: np.ndarray[Any, Any],
                  bad: np.ndarray[Any, Any], out: Tokens) -> None:
        games = active[where]
        at = pointer[where]
        short = at + 3 > self.end[games]
        bad[where[short]] = True
        where, games, at = where[~short], games[~short], at[~short]
        modes = self.modes[games]
        high = _DECODE[modes, counter[where], data[at + 1]].astype(np.int64)
        low = _DECODE[modes, counter[where], data[at + 2]].astype(np.int64)
        word = high << _moves._HIGH | low
        source = (word >> _moves._T_FROM_RANK_SHIFT & _moves._T_FROM_RANK_MASK) * 8 + \
            (word >> _moves._T_FROM_FILE_SHIFT & _moves._T_FROM_FILE_MASK)
        target = (word >> _moves._T_TO_RANK_SHIFT & _moves._T_TO_RANK_MASK) * 8 + \
            (word >> _moves._T_TO_FILE_SHIFT & _moves._T_TO_FILE_MASK)
        promotion = _PROMOTION_TYPES[word >> _moves._T_PROMOTION_SHIFT & _moves._T_PROMOTION_MASK].astype(np.int64)
        reserved = (word >> _moves._T_RESERVED_SHIFT & _moves._T_RESERVED_MASK) != 0
        odd = (source == target) | (reserved & _LOSING[modes])  # Chess960 castling, an unknown promotion: scalar
        bad[where[odd]] = True
        keep = ~odd
        out.size[slots[where[keep]]] = 3
        side = self.ply[games[keep]] & 1
        self._apply(where[keep], games[keep], side, source[keep], target[keep], promotion[keep], slots, bad, out)

    def _apply(self, where: np.ndarray[Any, Any], games: np.ndarray[Any, Any], side: np.ndarray[Any, Any],
               source: np.ndarray[Any, Any], target: np.ndarray[Any, Any], promotion: np.ndarray[Any, Any],
               slots: np.ndarray[Any, Any], bad: np.ndarray[Any, Any], out: Tokens, *,
               index: np.ndarray[Any, Any] | None = None) -> None:
        """Play ``source``-``target`` in ``games`` (``where``: their places in the step); odd moves are ``bad``.
        ``index``: the moving piece's place in its list, when known (one-byte moves); else looked up."""
        board = self.board.reshape(-1)
        at = games * 64
        own = side * BLACK
        code = board.take(at + source).astype(np.int64)
        captured = board.take(at + target).astype(np.int64)
        piece = code & 7
        wrong = (code == 0) | ((code & BLACK) != own) | (source == target)
        wrong |= (captured != 0) & ((captured & BLACK) == own)
        if self.san:  # a king taken (a damaged stream in chess): the batch SAN's rules assume both kings
            wrong |= (captured & 7) == _KING
        wrong |= (piece == _KING) & _TWO_FILES.take(source << 6 | target)
        pawn = piece == _PAWN
        passant = pawn & (captured == 0) & (((source ^ target) & 7) != 0)
        spot = target  # (the square of the piece taken)
        if passant.any():
            spot = np.where(passant, np.where(side == 0, target - 8, target + 8), target)
            enemy_pawn = _PAWN | (BLACK - own)
            wrong |= passant & ((spot < 0) | (spot > 63) | (board.take(at + np.clip(spot, 0, 63)) != enemy_pawn))
        lists = self.pieces.reshape(-1).view(np.int64)
        row = games * WORDS
        if index is None:
            index = numbering.place(lists.take(row + 7 * side + piece), source)
            wrong |= index == 8  # a piece without a number: the scalar decoder
        rank = target >> 3
        promoting = pawn & ((rank == 0) | (rank == 7))
        new = np.where(promoting, np.where(promotion > 0, promotion, _QUEEN), 0)
        if promoting.any():
            free = numbering.next_number(lists.take(row + 7 * side + new), new)[1]
            wrong |= promoting & ~free  # the new piece would have no number
        if wrong.any():
            bad[where[wrong]] = True
            keep = ~wrong
            where, games, side, source, target, captured, piece, passant, spot, index, new, at, row = (
                value[keep] for value in (where, games, side, source, target, captured, piece, passant, spot, index,
                                          new, at, row))
        slot_out = slots[where]
        if self.san:
            out.captured[slot_out] = captured
        numbering.play(board, lists, at, row, side, source, target, spot, new, index)
        out.source[slot_out] = source
        out.target[slot_out] = target
        out.promotion[slot_out] = new
        out.piece[slot_out] = piece
        out.capture[slot_out] = (captured != 0) | passant
        self._turn(games)

    def _castle(self, active: np.ndarray[Any, Any], where: np.ndarray[Any, Any], short: np.ndarray[Any, Any],
                slots: np.ndarray[Any, Any], bad: np.ndarray[Any, Any], out: Tokens) -> None:
        games = active[where]
        side = self.ply[games] & 1
        own = np.where(side == 1, BLACK, 0)
        king = self.pieces[games, side * SIDE + _KING * 8].astype(np.int64)
        wrong = king == NONE
        king = np.where(wrong, 0, king)
        rank = king & ~7
        rook = rank + np.where(short, 7, 0)
        king_to, rook_to = rank + np.where(short, 6, 2), rank + np.where(short, 5, 3)
        board = self.board
        wrong |= (board[games, king] != (_KING | own)) | (board[games, rook] != (_ROOK | own))
        free_king = (board[games, king_to] == 0) | (king_to == king) | (king_to == rook)
        free_rook = (board[games, rook_to] == 0) | (rook_to == king) | (rook_to == rook)
        wrong |= ~free_king | ~free_rook
        if wrong.any():
            bad[where[wrong]] = True
            keep = ~wrong
            where, games, side, king, rook, king_to, rook_to = (value[keep] for value in (
                where, games, side, king, rook, king_to, rook_to))
        numbering.castle(board.reshape(-1), self.pieces.reshape(-1).view(np.int64), games * 64, games * WORDS, side,
                         king, rook, king_to, rook_to)
        slot_out = slots[where]
        out.source[slot_out] = king
        out.target[slot_out] = rook
        out.castling[slot_out] = True
        out.piece[slot_out] = _KING
        self._turn(games)

    def _push(self, games: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """Remember the games' positions; False where the stack is full."""
        depth = self.depth[games]
        needed = min(int(depth.max()) + 1, MAX_DEPTH)
        if self.stack_board is None or self.stack_board.shape[1] < needed:
            self._grow(max(needed, 4))
        assert self.stack_board is not None and self.stack_pieces is not None
        assert self.stack_ply is not None
        room = depth < MAX_DEPTH
        games, depth = games[room], depth[room]
        self.stack_board[games, depth] = self.board[games]
        self.stack_pieces[games, depth] = self.pieces[games]
        self.stack_ply[games, depth] = self.ply[games]
        self.depth[games] = depth + 1
        return np.asarray(room, dtype=bool)

    def _grow(self, depth: int) -> None:
        """Make room for ``depth`` remembered positions per game (kept ones copied)."""
        count = len(self.board)
        depth = min(max(depth, 2 * (0 if self.stack_board is None else self.stack_board.shape[1])), MAX_DEPTH)
        grown: tuple[np.ndarray[Any, Any], ...] = (
            np.zeros((count, depth, 64), np.int8), np.zeros((count, depth, self.pieces.shape[1]), np.int8),
            np.zeros((count, depth), np.int32))
        if self.stack_board is not None:
            kept = self.stack_board.shape[1]
            for new, old in zip(grown, (self.stack_board, self.stack_pieces, self.stack_ply), strict=True):
                assert old is not None
                new[:, :kept] = old
        self.stack_board, self.stack_pieces, self.stack_ply = grown

    def _pop(self, games: np.ndarray[Any, Any]) -> None:
        if not games.size:
            return
        assert self.stack_board is not None and self.stack_pieces is not None
        assert self.stack_ply is not None
        depth = self.depth[games] - 1
        self.board[games] = self.stack_board[games, depth]
        self.pieces[games] = self.stack_pieces[games, depth]
        self.ply[games] = self.stack_ply[games, depth]
        self.depth[games] = depth
