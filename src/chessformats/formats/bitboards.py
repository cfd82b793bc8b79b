"""The bitboard tables of the chess-level readers, in one place.

python-chess computes every attack table once (``chess.BB_*``); the readers that generate or check moves on
integers (Monty's legal-move order, ChessBase's light SAN board, the Polyglot legality check) take them from
here under short names, as module globals their hot loops read fast.
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
]

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
