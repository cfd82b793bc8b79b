"""Monty training data as a table: one row per ply, in file order (``chessformats[arrow]``).

Columns: ``game`` (the game's number in the file, from 0), ``ply`` (from 0), ``fen`` (the position before the
move), ``move`` (UCI; Chess960 castling as king takes rook, as python-chess writes it), ``code`` (the u16 move code
as stored), ``score`` (the search's score in [0, 1] for the side to move), ``raw_score`` (as stored), ``result``
(the game's, ``1-0``, ``1/2-1/2``, ``0-1``), and, for the policy format, the visit distribution as two list columns
of the same length: ``visit_moves`` (the legal moves, UCI, in the order of their codes) and ``visits`` (each one's
share of the visits); both null for a ply that stores no distribution (and in the value format).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...engine.tables import arrow
from ..booktable import row_batches
from .model import Game

__all__ = ["PLY_BATCH", "monty_schema", "ply_batches"]

PLY_BATCH = 65_536
"""Plies per record batch by default."""


def monty_schema() -> Any:
    """The Arrow schema of a Monty file's table."""
    pa = arrow()
    return pa.schema([("game", pa.uint32()), ("ply", pa.uint16()), ("fen", pa.string()), ("move", pa.string()),
                      ("code", pa.uint16()), ("score", pa.float64()), ("raw_score", pa.int32()),
                      ("result", pa.string()), ("visit_moves", pa.list_(pa.string())),
                      ("visits", pa.list_(pa.float64()))])


def ply_batches(games: Iterable[Game], *, batch_size: int = PLY_BATCH) -> Iterator[Any]:
    """The plies of ``games`` (as :func:`.read.read_games` or a :class:`.read.GameFile` gives them) as rows of
    :func:`monty_schema`, in record batches of ``batch_size`` rows."""
    return row_batches(_rows(games), monty_schema(), batch_size)


def _rows(games: Iterable[Game]) -> Iterator[tuple[Any, ...]]:
    for number, game in enumerate(games):
        for index, ply in enumerate(game.plies):
            board = ply.board
            visits = ply.visits
            yield (number if game.number is None else game.number, index, None if board is None else board.fen(),
                   ply.move.uci(), ply.code, ply.score, ply.raw_score, game.result,
                   None if visits is None else [move.uci() for move in visits],
                   None if visits is None else list(visits.values()))
