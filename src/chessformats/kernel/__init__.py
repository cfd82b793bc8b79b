"""The chess kernel: one attack implementation (:mod:`.attacks`, with the tables derived from it in :mod:`.lookup`)
and batch positions (:mod:`.batch`: numpy arrays of bitboards, legal-move generation vectorised over many positions
at once; :mod:`.playing`: moves played on them), with the way in and out of python-chess (:mod:`.boards`;
:mod:`.newboard` makes a ``chess.Board`` from bitboards without numpy), and one position on Python integers for
Polyglot's legality check (:mod:`.scalar`, on :mod:`.tables`, no numpy). Below the formats and the books, above the
engine: it imports only the engine, numpy and python-chess. Its names are imported on first use, so making a board
costs no numpy.
"""

from __future__ import annotations

from ..engine.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {"batch": ("Boards", "legal_moves"),
                                               "boards": ("from_boards", "move_of_code", "to_board"),
                                               "playing": ("play",)})

__all__ = ["Boards", "from_boards", "legal_moves", "move_of_code", "play", "to_board"]
