"""Polyglot Zobrist keys: the 64-bit position keys Polyglot books (and the book builder) are sorted by.

The 781 randoms are declared in :mod:`chessformats.schemas.polyglot`; this module derives the lookup tables
used to hash a position fast (:data:`PAWN_TABLES`, :data:`CASTLE_TABLE`, :data:`EP_CAPTURERS`) and the
hash itself, :func:`zobrist_hash`. Used by the Polyglot reader and writer and by the batch replay of the
book builder (``chessformats.books``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..schemas import polyglot_randoms as schema  # the randoms alone: hashing imports no declaration
from . import squares  # python-chess's numbering without importing it (the book builder's start-up)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import chess

__all__ = ["CASTLE_TABLE", "EP_CAPTURERS", "PAWN_TABLES", "byte_tables", "child_keys", "zobrist_hash"]


def byte_tables(kinds: Iterable[int]) -> list[list[int]]:
    """For each of Polyglot's piece ``kinds`` (black pawn 0, white pawn 1, black knight 2, ... white king 11) and
    rank, in that order: the XOR of the piece randoms of the squares set in each 8-bit occupancy of the rank."""
    tables = []
    for kind in kinds:
        for rank in range(8):
            randoms = schema.RANDOM_PIECE[64 * kind + 8 * rank: 64 * kind + 8 * rank + 8]
            table = [0] * 256
            for byte in range(1, 256):
                low = byte & -byte
                table[byte] = table[byte ^ low] ^ randoms[low.bit_length() - 1]
            tables.append(table)
    return tables


PAWN_TABLES = byte_tables((0, 1))
"""By ``8 * kind + rank`` (kind: black pawn 0, white pawn 1): the XOR of the pawn randoms of each byte of a rank."""
CASTLE_TABLE = [0] * 16
"""By castling-rights index (bit 0 white short, 1 white long, 2 black short, 3 black long): the XOR of the
castling randoms of those rights."""
for _rights in range(16):
    for _bit in range(4):
        if _rights >> _bit & 1:
            CASTLE_TABLE[_rights] ^= schema.RANDOM_CASTLE[_bit]


def _capturer_masks(color: bool) -> list[int]:
    """By en-passant square: where a pawn of ``color`` (to move) must stand to capture en passant."""
    masks = []
    for square in squares.SQUARES:
        pushed = square - 8 if color == squares.WHITE else square + 8
        mask = 0
        if 0 <= pushed < 64:
            for delta in (-1, 1):
                file = squares.square_file(pushed) + delta
                if 0 <= file < 8:
                    mask |= squares.BB_SQUARES[squares.square(file, squares.square_rank(pushed))]
        masks.append(mask)
    return masks


EP_CAPTURERS = (_capturer_masks(squares.BLACK), _capturer_masks(squares.WHITE))
"""By side to move, then en-passant square: the squares a pawn of the side to move must stand on to capture."""
_RANDOM_PIECE = schema.RANDOM_PIECE  # module-level aliases: the hot path reads locals and globals only
_RANDOM_EN_PASSANT = schema.RANDOM_EN_PASSANT
_RANDOM_TURN = schema.RANDOM_TURN
_RANK_1, _RANK_8, _E1, _E8 = squares.BB_RANK_1, squares.BB_RANK_8, squares.BB_SQUARES[squares.E1], squares.BB_SQUARES[
    squares.E8]


def zobrist_hash(board: chess.Board) -> int:
    """The Polyglot key of ``board``.

    Table-driven: pawns are looked up a rank (8 bits) at a time, other pieces a square at a time.
    Castling rights are the ones the position really has (king and rook still in place, as
    :meth:`chess.Board.has_kingside_castling_rights` says; in Chess960 a right counts as short or long by
    the rook's side of the king); the en-passant part counts only when a pawn of the side to move stands
    beside the pawn that just advanced two squares, whether or not the capture is legal.
    """
    # The hot path of every probe: the loops are written out per colour on purpose (measured: folding the
    # colours into one loop costs about 15% of the hashing speed).
    black, white = board.occupied_co
    key = 0
    tables = PAWN_TABLES  # index 8 * kind + rank; pawns never stand on rank 1 or 8
    mask = (board.pawns & black) >> 8
    rank = 1
    while mask:
        byte = mask & 0xFF
        if byte:
            key ^= tables[rank][byte]
        mask >>= 8
        rank += 1
    mask = (board.pawns & white) >> 8
    rank = 9
    while mask:
        byte = mask & 0xFF
        if byte:
            key ^= tables[rank][byte]
        mask >>= 8
        rank += 1
    randoms = _RANDOM_PIECE
    base = 128  # 64 * kind, from the black knight on
    for pieces in (board.knights, board.bishops, board.rooks, board.queens, board.kings):
        mask = pieces & black
        while mask:
            square = mask.bit_length() - 1
            key ^= randoms[base + square]
            mask ^= 1 << square
        mask = pieces & white
        while mask:
            square = mask.bit_length() - 1
            key ^= randoms[base + 64 + square]
            mask ^= 1 << square
        base += 128
    rights = board.castling_rights
    if rights:
        if board.chess960 or board.promoted:  # a right is on the king's side or the queen's side of the king
            index = (board.has_kingside_castling_rights(squares.WHITE)
                     | board.has_queenside_castling_rights(squares.WHITE) << 1
                     | board.has_kingside_castling_rights(squares.BLACK) << 2
                     | board.has_queenside_castling_rights(squares.BLACK) << 3)
        else:  # standard chess: a right needs the king on e1/e8 and the rook on its corner
            kings = board.kings
            rights &= board.rooks & ((white & _RANK_1 if kings & white & _E1 else 0)
                                     | (black & _RANK_8 if kings & black & _E8 else 0))
            # corner bits h1, a1, h8, a8 -> Polyglot castling bits 0-3
            index = ((rights >> 7) & 1) | ((rights & 1) << 1) | ((rights >> 61) & 4) | ((rights >> 53) & 8)
        key ^= CASTLE_TABLE[index]
    ep = board.ep_square
    if ep is not None and EP_CAPTURERS[board.turn][ep] & board.pawns & (white if board.turn else black):
        key ^= _RANDOM_EN_PASSANT[ep & 7]
    if board.turn:
        key ^= _RANDOM_TURN
    return key


_CASTLING_SQUARES = sum(squares.BB_SQUARES[corner] for corner in (0, 7, 56, 63)) | _E1 | _E8
"""Where a move may change castling rights (the kings' and rooks' first squares)."""


def child_keys(board: chess.Board, moves: Sequence[chess.Move]) -> list[int]:
    """The Polyglot key of the position each of ``moves`` (legal moves of ``board``) leads to, mostly without
    playing it: the board's key, the moving piece out and in, the captured piece out, the side to move and the
    en-passant file that goes. A move that may change more (castling rights or an en-passant file: any move
    from or onto a king's or rook's first square while a right stands, double steps, castling, en-passant
    captures, promotions) is played and hashed (:func:`zobrist_hash`)."""
    key = zobrist_hash(board) ^ _RANDOM_TURN
    turn = board.turn
    ep = board.ep_square
    if ep is not None and EP_CAPTURERS[turn][ep] & board.pawns & board.occupied_co[turn]:
        key ^= _RANDOM_EN_PASSANT[ep & 7]
    watched = _CASTLING_SQUARES if board.castling_rights else 0
    randoms, bb_squares, occupied = _RANDOM_PIECE, squares.BB_SQUARES, board.occupied
    mine, theirs = 64 * turn - 128, 64 * (1 - turn) - 128  # + 128 * piece type: the randoms' piece kinds
    keys = []
    for move in moves:
        start, end = move.from_square, move.to_square
        piece = board.piece_type_at(start) or 0
        if (move.promotion or (bb_squares[start] | bb_squares[end]) & watched
                or (piece == 1 and (end == ep or abs(end - start) == 16))):
            board.push(move)
            keys.append(zobrist_hash(board))
            board.pop()
            continue
        child = key ^ randoms[mine + 128 * piece + start] ^ randoms[mine + 128 * piece + end]
        if bb_squares[end] & occupied:
            child ^= randoms[theirs + 128 * (board.piece_type_at(end) or 0) + end]
        keys.append(child)
    return keys
