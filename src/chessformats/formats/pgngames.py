"""python-chess's ``read_game`` with its errors kept on the game and not logged: :func:`read_game`.

python-chess's ``GameBuilder`` both records what it could not read (``game.errors``) and logs it on the
``chess.pgn`` logger, which, with no logging set up, prints a line such as ``illegal san: 'Qxe5' in ... while
parsing <Game at 0x...>`` to standard error. The readers here report such games themselves (with their number
and line), so the log line would only say it a second time, in python-chess's words. python-chess is imported
on the first game read (a PGN conversion's fast path reads its games without it).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TextIO

    import chess.pgn

__all__ = ["read_game"]


@functools.cache
def _quiet_builder() -> Any:
    import chess.pgn

    class QuietGameBuilder(chess.pgn.GameBuilder):  # type: ignore[type-arg]
        """The game builder of python-chess, errors kept on the game and not logged."""

        def handle_error(self, error: Exception) -> None:
            self.game.errors.append(error)

    return QuietGameBuilder


def read_game(handle: TextIO) -> chess.pgn.Game | None:
    """The next game of ``handle`` as ``chess.pgn.read_game`` reads it (``None`` at the end), what python-chess
    could not read in ``game.errors`` and not logged."""
    import chess.pgn

    game: chess.pgn.Game | None = chess.pgn.read_game(handle, Visitor=_quiet_builder())
    return game
