"""The format-neutral book model: positions, their moves, and game statistics per move.

Book writers (Polyglot today; CTG and Kvetka later) consume a :class:`BookStats`; game sources fill
it. Results are counted from the point of view of the side that played the move.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

if TYPE_CHECKING:
    import chess.pgn

__all__ = ["BookStats", "MoveStats", "PositionStats"]


@dataclass
class MoveStats:
    """How the games that played a move from a position ended, for the side that played it."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def polyglot_weight(self) -> int:
        """``2 * wins + draws``, the weight ``polyglot make-book`` starts from (before scaling)."""
        return 2 * self.wins + self.draws


@dataclass
class PositionStats:
    """One position (as a FEN without move counters) and its moves."""

    fen: str
    moves: dict[chess.Move, MoveStats] = field(default_factory=dict)

    def board(self) -> chess.Board:
        return chess.Board(self.fen)


@dataclass
class BookStats:
    """Positions -> moves -> statistics, filled from games."""

    positions: dict[str, PositionStats] = field(default_factory=dict)
    games: int = 0

    def add_game(self, game: chess.pgn.Game, *, max_ply: int | None = None) -> None:
        """Count the main line of ``game`` (up to ``max_ply`` plies) with its result."""
        result = game.headers.get("Result", "*")
        score = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(result)
        drawn = result == "1/2-1/2"
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            if max_ply is not None and ply >= max_ply:
                break
            key = board.fen(en_passant="legal").rsplit(" ", 2)[0]
            position = self.positions.get(key)
            if position is None:
                position = self.positions[key] = PositionStats(board.fen(en_passant="legal"))
            stats = position.moves.get(move)
            if stats is None:
                stats = position.moves[move] = MoveStats()
            stats.games += 1
            if drawn:
                stats.draws += 1
            elif score is not None:
                if score == board.turn:
                    stats.wins += 1
                else:
                    stats.losses += 1
            board.push(move)
        self.games += 1

    def add_games(self, games: Iterable[chess.pgn.Game], *, max_ply: int | None = None) -> None:
        for game in games:
            self.add_game(game, max_ply=max_ply)

    def __iter__(self) -> Iterator[PositionStats]:
        return iter(self.positions.values())

    def __len__(self) -> int:
        return len(self.positions)


def read_pgn_games(path: str) -> Iterator[chess.pgn.Game]:
    """The games of a PGN file, in order."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        import chess.pgn

        while (game := chess.pgn.read_game(handle)) is not None:
            yield game
