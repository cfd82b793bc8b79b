"""The kernel's attack tables, in one place, as Python integers (:mod:`.lookup` holds them as numpy arrays).

python-chess computes every attack table once (``chess.BB_*``); the code that generates or checks moves on
integers (ChessBase's light SAN board, the Polyglot legality check) takes them from here under short names, and
binds them as module globals its hot loops read fast. The few tables python-chess does not keep (squares between
two squares, the empty-board rays of the sliders) are computed here, once. Without numpy: a quick command
(a Polyglot probe's legality check) imports these and not numpy.
"""

from __future__ import annotations

import chess

__all__ = [
    "BETWEEN",
    "DIAG_ATTACKS",
    "DIAG_MASKS",
    "DIAG_RAYS",
    "FILE_ATTACKS",
    "FILE_MASKS",
    "KING",
    "KNIGHT",
    "PAWN_ATTACKS",
    "RANK_ATTACKS",
    "RANK_MASKS",
    "RAYS",
    "SQUARES",
    "STRAIGHT_RAYS",
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
BETWEEN = [[chess.between(a, b) for b in chess.SQUARES] for a in chess.SQUARES]
"""By square, then square: the squares strictly between the two on their line (0 when they share none)."""
STRAIGHT_RAYS = [RANK_ATTACKS[square][0] | FILE_ATTACKS[square][0] for square in chess.SQUARES]
"""By square: the squares a rook there attacks on an empty board."""
DIAG_RAYS = [DIAG_ATTACKS[square][0] for square in chess.SQUARES]
"""By square: the squares a bishop there attacks on an empty board."""
