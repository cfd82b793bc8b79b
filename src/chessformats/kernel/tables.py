"""The attack tables of the one-position code (:mod:`.scalar`), as Python integers: python-chess's (``chess.BB_*``),
the only place in ``src`` that reads them (``tests/kernel/test_one_attack.py``). The batch code's tables are
:mod:`.attacks`'s, made with numpy and tested equal to these. Without numpy: a quick command (a Polyglot probe's
legality check) imports these and not numpy.
"""

from __future__ import annotations

import chess

__all__ = [
    "DIAG_ATTACKS",
    "DIAG_MASKS",
    "FILE_ATTACKS",
    "FILE_MASKS",
    "KING",
    "KNIGHT",
    "PAWN_ATTACKS",
    "RANK_ATTACKS",
    "RANK_MASKS",
    "RAYS",
    "SQUARES",
]

SQUARES = chess.BB_SQUARES
"""By square: the bitboard of that square alone."""
KNIGHT = chess.BB_KNIGHT_ATTACKS
"""By square: the squares a knight there attacks."""
KING = chess.BB_KING_ATTACKS
"""By square: the squares a king there attacks."""
PAWN_ATTACKS = chess.BB_PAWN_ATTACKS
"""By colour, then square: the squares a pawn of that colour there attacks."""
DIAG_MASKS, DIAG_ATTACKS = chess.BB_DIAG_MASKS, chess.BB_DIAG_ATTACKS
"""By square: the diagonal rays' mask; by square, then occupancy under the mask: the diagonal attacks."""
FILE_MASKS, FILE_ATTACKS = chess.BB_FILE_MASKS, chess.BB_FILE_ATTACKS
"""The same for files."""
RANK_MASKS, RANK_ATTACKS = chess.BB_RANK_MASKS, chess.BB_RANK_ATTACKS
"""The same for ranks."""
RAYS = chess.BB_RAYS
"""By square, then square: the whole line (rank, file or diagonal) through both, 0 when they share none."""
