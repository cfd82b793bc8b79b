"""The format-neutral book model: positions, their moves, and game statistics per move.

Book writers and conversions (CTG, Kvetka, to Polyglot) consume a :class:`BookStats`; games fill it through
:meth:`chessformats.books.build.BookBuilder.to_stats`. Results are counted from the point of view of the side
that played the move.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import chess
    import chess.pgn

__all__ = ["BookStats", "MoveStats", "PositionStats"]


@dataclass
class MoveStats:
    """How the games that played a move from a position ended, for the side that played it."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    weight: int | None = None
    """A weight the source format gives the move by a rule of its own (CTG: annotations and red positions
    applied, :func:`chessformats.ctg.polyglot_weight`; Polyglot: the stored weight); ``None``: from the results."""

    @property
    def polyglot_weight(self) -> int:
        """The move's Polyglot weight: :attr:`weight` when the source gave one, else ``2 * wins + draws`` (the
        weight ``polyglot make-book`` starts from, before scaling)."""
        return self.weight if self.weight is not None else 2 * self.wins + self.draws


@dataclass
class PositionStats:
    """One position (as a FEN) and its moves."""

    fen: str
    moves: dict[chess.Move, MoveStats] = field(default_factory=dict)
    packed: bytes | None = field(default=None, repr=False, compare=False)
    """The board of :attr:`fen` packed (:func:`.positions.pack`) when the model was made from boards: what
    :meth:`board` rebuilds instead of parsing the FEN (15 times faster); ``None``: parse the FEN."""

    def board(self) -> chess.Board:
        """The position's board (as ``chess.Board(fen)`` gives it), in Chess960 mode when its castling rights are
        possible only in Chess960 (:func:`~chessformats.kernel.newboard.fen_board`: outside that mode python-chess
        drops them, and the position's key and castling moves would be another position's)."""
        if self.packed is not None:
            from .positions import unpack

            return unpack(self.packed)
        from ..kernel.newboard import fen_board

        return fen_board(self.fen)


@dataclass
class BookStats:
    """Positions -> moves -> statistics (from games: :meth:`~chessformats.books.build.BookBuilder.to_stats`)."""

    positions: dict[str, PositionStats] = field(default_factory=dict)
    games: int = 0
    unreached: int = 0
    """Positions of the source book that no line from the start reaches (left out of the model)."""

    def __iter__(self) -> Iterator[PositionStats]:
        return iter(self.positions.values())

    def __len__(self) -> int:
        return len(self.positions)


def read_pgn_games(path: str, *, encoding: str | None = None) -> Iterator[chess.pgn.Game]:
    """The games of a PGN file (plain or compressed), in order. ``encoding``: the file's (``None``: UTF-8, a game
    that is not UTF-8 read as Windows-1252; see :func:`~chessformats.books.pgnread.open_text`)."""
    from ..formats.pgngames import read_game
    from .pgnread import open_text

    with open_text(path, encoding=encoding) as handle:
        while (game := read_game(handle)) is not None:
            yield game
