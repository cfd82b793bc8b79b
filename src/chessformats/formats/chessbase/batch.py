"""Many ChessBase move streams decoded at once: one numpy step per move, over every game of a chunk.

The scalar decoder (:mod:`.moves`) walks one game at a time, a Python call per move. Here the state of a whole
chunk of games -- each game's board, its numbered piece lists, side to move, move counter, byte pointer and a
stack of positions for the variations -- lives in arrays, and each step decodes the next token of every game
still running with a few dozen array operations. The token arrays it fills are what :class:`DecodedGame`
tokens hold, column by column.

Whatever the batch does not model goes to the scalar decoder, game by game, which then gives the result (or the
located error) exactly as before: a damaged stream (a missing piece, a move onto an own piece, bytes that run
out, a stream without its end marker), a piece without a number (a 4th queen), a damaged setup position, the
simple encoder's modes and Chess960, castling written as a king's two-file move or as a two-byte move, a
losing-chess promotion with unknown bits, variations nested deeper than :data:`MAX_DEPTH`. With ``san=True``
(for the PGN export, :mod:`.batch_pgn`) games with a setup position and losing chess go there too. The tests
compare both decoders on every game of the corpus, and on damaged streams.

Speed on ``twic1134`` (6,117 games, CPU time): about 45,000 games/s to token arrays, about 32,000 with what SAN
needs (``san=True``; the C++ reader libcbh: about 29,000 in the same run), about 20,000 to ``DecodedGame``
objects, against about 6,400 for the scalar decoder (``benchmarks/bench_chessbase.py``, ``docs/performance.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import Any

import numpy as np

from ...engine.codec import codec
from ...engine.errors import FormatError
from ...schemas import chessbase as schema
from .batch_state import BATCH_MODES, MAX_DEPTH, MOVE, STANDARD, T_POP, T_PUSH, State, Tokens
from .moves import POP, PUSH, SKIP, DecodedGame, DecodedMove
from .start import StartPosition, read_setup

__all__ = ["MAX_DEPTH", "MoveBatch", "decode_batch", "main_lines"]

_WORD = codec(schema.DATA_WORD)
_WORD_SIZE: int = _WORD.size or 0

@dataclass
class MoveBatch:
    """The decoded streams of a chunk of games, as flat token arrays; ``fallback`` games are left to the
    scalar decoder (their tokens here are not to be used)."""

    numbers: np.ndarray[Any, Any]
    """Game numbers, one per game."""
    modes: np.ndarray[Any, Any]
    fallback: np.ndarray[Any, Any]
    """Per game: True = the batch did not decode it."""
    first: np.ndarray[Any, Any]
    """Per game: index of its first token in the flat arrays."""
    count: np.ndarray[Any, Any]
    """Per game: its number of tokens."""
    starts: dict[int, StartPosition]
    """The setup positions of the games that have one, by index."""
    kind: np.ndarray[Any, Any]
    """Per token: MOVE, T_PUSH, T_POP or T_SKIP."""
    source: np.ndarray[Any, Any]
    target: np.ndarray[Any, Any]
    promotion: np.ndarray[Any, Any]
    """Per token: the promotion's python-chess piece type, 0 for none."""
    castling: np.ndarray[Any, Any]
    null: np.ndarray[Any, Any]
    offset: np.ndarray[Any, Any]
    size: np.ndarray[Any, Any]
    piece: np.ndarray[Any, Any]
    """Per token: the moving piece's type (0 for a null move)."""
    capture: np.ndarray[Any, Any]
    white: np.ndarray[Any, Any]
    """Per token: white moves."""
    fullmove: np.ndarray[Any, Any]
    check: np.ndarray[Any, Any]
    """Per move (``san=True``): 1 check, 2 mate."""
    rival: np.ndarray[Any, Any]
    """Per move (``san=True``): how SAN names the source square (1 file, 2 rank, 3 square; 0 not)."""
    _moves: list[DecodedMove] | None = field(default=None, repr=False, compare=False)

    def tokens(self, index: int) -> list[DecodedMove | str]:
        """Game ``index``'s tokens (of a game the batch decoded) as :func:`.moves.decode_game` gives them."""
        if self._moves is None:
            self._moves = self._all_moves()
        start = int(self.first[index])
        stop = start + int(self.count[index])
        tokens: list[DecodedMove | str] = list(self._moves[start:stop])
        kinds = self.kind[start:stop]
        if kinds.any():
            for at in np.flatnonzero(kinds).tolist():
                tokens[at] = _MARKERS[int(kinds[at])]
        return tokens

    def _all_moves(self) -> list[DecodedMove]:
        """Every slot of the flat arrays as a :class:`DecodedMove` (made once, all at once)."""
        columns = (self.source.tolist(), self.target.tolist(),
                   list(map(_PROMOTION_OBJECTS.__getitem__, self.promotion.tolist())),
                   self.castling.tolist(), self.null.tolist(), self.offset.tolist(), self.size.tolist())
        return list(map(tuple.__new__, repeat(DecodedMove), zip(*columns, strict=True)))

    def game(self, index: int) -> DecodedGame:
        """Game ``index`` (of a game the batch decoded) as a :class:`DecodedGame`."""
        setup = self.starts.get(index)
        start = replace(setup, board=setup.board[:]) if setup is not None else \
            StartPosition(STANDARD.board[:], True, STANDARD.castling, None, 1)
        return DecodedGame(start, self.tokens(index), int(self.modes[index]), True)


_PROMOTION_OBJECTS: tuple[int | None, ...] = (None, *range(1, 7))
_MARKERS = ("", PUSH, POP, SKIP)


def decode_batch(cbg: Any, numbers: np.ndarray[Any, Any], offsets: np.ndarray[Any, Any], *,
                 san: bool = False) -> MoveBatch:
    """Decode the games ``numbers`` whose data starts at ``offsets`` in the ``.cbg`` bytes ``cbg``; ``san``:
    work out checks, mates and rivals too (:mod:`.batch_san`; games with a setup position are then left to the
    scalar path)."""
    data = np.frombuffer(cbg, dtype=np.uint8) if len(cbg) else np.zeros(0, np.uint8)
    games = len(numbers)
    offsets = offsets.astype(np.int64)
    fallback = offsets + _WORD_SIZE > len(data)
    safe = np.where(fallback, 0, offsets)
    heads = data[safe[:, None] + np.arange(_WORD_SIZE)] if len(data) >= _WORD_SIZE else \
        np.zeros((games, _WORD_SIZE), np.uint8)
    words = _WORD.columns(heads.tobytes())
    modes = np.asarray(words["mode"]).astype(np.int64)
    sizes = np.asarray(words["size"]).astype(np.int64)
    fallback |= np.asarray(words["not_encoded"]).astype(bool)
    fallback |= ~np.isin(modes, BATCH_MODES) | (sizes < _WORD_SIZE) | (offsets + sizes > len(data))
    setups = np.flatnonzero(~fallback & np.asarray(words["setup"]).astype(bool))
    if san:  # losing chess has its own SAN (no check, compulsory captures): the scalar path
        fallback |= np.isin(modes, [mode for mode, variant in enumerate(schema.MODE_VARIANT) if variant != "chess"])
    modes = np.where(fallback, 0, modes)
    sizes = np.where(fallback, _WORD_SIZE, sizes)
    capacity = np.maximum(sizes - _WORD_SIZE, 0)
    first = np.zeros(games, dtype=np.int64)
    if games:
        first[1:] = np.cumsum(capacity)[:-1]
    total = int(capacity.sum())
    out = Tokens(total, san=san)
    if san:
        fallback[setups] = True
        setups = setups[:0]
    state = State(games, modes, offsets + _WORD_SIZE, offsets + sizes, san=san)
    starts = {}
    for index in setups.tolist():
        try:  # the scalar decoder reports a damaged setup
            start = read_setup(bytes(cbg[offsets[index]:offsets[index] + sizes[index]]), _WORD_SIZE, chess960=False,
                               file=None, base=0, game=0)
        except FormatError:
            fallback[index] = True
            continue
        starts[index] = start
        state.setup(index, start)
    state.run(data, np.flatnonzero(~fallback), fallback, first, out)
    return MoveBatch(np.asarray(numbers), modes, fallback, first, state.tokens, starts, out.kind, out.source,
                     out.target, out.promotion, out.castling, out.null, out.offset, out.size, out.piece, out.capture,
                     out.white, out.fullmove, out.check, out.rival)


def main_lines(batch: MoveBatch) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The main line of every game the batch decoded, with numpy alone: its moves' token slots (in order), the
    game (index) of each, and each game's number of variations.

    In the stream, "(" remembers the current position and ")" goes back to it; the moves after "(" continue the
    current line, so a game's main line is every move before its first ")" that goes back over a move (a ")"
    right after its "(" changes nothing)."""
    games = len(batch.numbers)
    total = len(batch.kind)
    decoded = np.flatnonzero(~batch.fallback & (batch.count > 0))
    edges = np.zeros(total + 1, np.int32)  # +1 where a decoded game's tokens start, -1 where they end
    edges[batch.first[decoded]] = 1
    np.subtract.at(edges, batch.first[decoded] + batch.count[decoded], 1)
    valid = np.cumsum(edges[:-1]) > 0
    kind = batch.kind
    marked = np.flatnonzero(valid & (kind != MOVE))
    if not len(marked) or not ((kind[marked] == T_PUSH) | (kind[marked] == T_POP)).any():
        slots = np.flatnonzero(valid & (kind == MOVE))
        game = np.repeat(np.arange(games), np.diff(np.append(batch.first, total)))[slots]
        return slots, game, np.zeros(games, np.int64)
    owner = np.searchsorted(batch.first, np.arange(total), side="right") - 1
    push = valid & (kind == T_PUSH)
    pop = valid & (kind == T_POP)
    after_push = np.zeros(total, bool)
    after_push[1:] = push[:-1]
    going_back = pop & ~(after_push & (np.arange(total) > batch.first[owner]))
    backs = np.cumsum(going_back)
    starts = np.minimum(batch.first, max(total - 1, 0))
    before = backs[starts] - going_back[starts]
    slots = np.flatnonzero(valid & (kind == MOVE) & (backs - before[owner] == 0))
    return slots, owner[slots], np.bincount(owner[push], minlength=games)
