"""An independent reference counter for book tests: games -> the format-neutral model, the slow obvious way.

The library counts games with :class:`chessformats.books.build.BookBuilder` (batched, numpy). Tests that need
expected statistics fill a :class:`~chessformats.books.stats.BookStats` here instead, by walking each game's
main line node by node with python-chess and tallying a result table per (position, move).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import chess
import chess.pgn

from chessformats.books.stats import BookStats, MoveStats, PositionStats

_OUTCOME = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (None, None)}  # white's points, black's points; None: draw


def count_games(games: Iterable[chess.pgn.Game], *, max_ply: int | None = None) -> BookStats:
    """Positions (FEN without counters, en passant only when capturable) -> moves -> games/wins/draws/losses,
    counted for the side that played the move, from each game's main line (first ``max_ply`` plies)."""
    tally: Counter[tuple[str, str, str]] = Counter()
    fens: dict[str, str] = {}
    number = 0
    for number, game in enumerate(games, 1):  # noqa: B007 (the count is used after the loop)
        result = game.headers.get("Result", "*")
        for ply, node in enumerate(game.mainline()):
            if max_ply is not None and ply >= max_ply:
                break
            parent = node.parent
            assert parent is not None
            before = parent.board()
            fen = before.fen(en_passant="legal")
            key = " ".join(fen.split(" ")[:4])
            fens.setdefault(key, fen)
            mover = "white" if before.turn == chess.WHITE else "black"
            if result == "1/2-1/2":
                outcome = "draw"
            elif result in ("1-0", "0-1"):
                outcome = "win" if (result == "1-0") == (mover == "white") else "loss"
            else:
                outcome = "none"
            tally[(key, node.move.uci(), outcome)] += 1
    stats = BookStats(games=number)
    for (key, uci, outcome), count in sorted(tally.items()):
        position = stats.positions.setdefault(key, PositionStats(fens[key]))
        move = position.moves.setdefault(chess.Move.from_uci(uci), MoveStats())
        move.games += count
        if outcome == "win":
            move.wins += count
        elif outcome == "loss":
            move.losses += count
        elif outcome == "draw":
            move.draws += count
    return stats
