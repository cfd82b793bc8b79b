"""Test cases for Polyglot keys and moves, from the format specification (specs/polyglot.ru.txt), shared by
the Zobrist, move and probe tests: the entry layout and move encoding written out from the spec, positions
with every kind of special move, en-passant and castling edge cases, and seeded random games."""

from __future__ import annotations

import random
import struct
from collections.abc import Iterable, Iterator
from typing import Any

import chess

ENTRY = struct.Struct(">QHHI")  # the spec: key 8 bytes, move 2, weight 2, learn 4, all big-endian
PROMOTION_CODE = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}  # the spec


def expected_raw(board: chess.Board, move: chess.Move) -> int:
    """The spec's encoding: to | from << 6 | promotion << 12; castling as king takes rook."""
    to_square = move.to_square
    if board.is_castling(move) and not board.chess960:
        rook_file = 7 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 0
        to_square = chess.square(rook_file, chess.square_rank(move.from_square))
    return to_square | move.from_square << 6 | PROMOTION_CODE[move.promotion] << 12


EXTRA_POSITIONS = [
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1",
    "r1b1k2r/1P4P1/8/8/8/8/1p4p1/R1B1K2R w KQkq - 0 1",
    "r1b1k2r/1P4P1/8/8/8/8/1p4p1/R1B1K2R b KQkq - 0 1",
    "8/8/8/K1pP3r/8/8/8/4k3 w - c6 0 2",
]


EDGE_CASES = [
    # ep square set, no capturing pawn beside the pushed pawn (the spec's own 1.e4 example)
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "KQkq", None),
    # the capturing pawn is pinned (d5xc6 e.p. would expose the king on a5 to the rook on h5): still counts
    ("8/8/8/K1pP3r/8/8/8/4k3 w - c6 0 2", "", 2),
    # pinned along a diagonal by the bishop on b8 (king on g3): e5xf6 e.p. is illegal, key still includes it
    ("1b2k3/8/8/4Pp2/8/6K1/8/8 w - f6 0 2", "", 5),
    # a pawn beside the pushed pawn, but of the colour that just moved
    ("rnbqkbnr/pp2pppp/8/2pp4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 3", "KQkq", None),
    ("rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 2", "KQkq", None),
    # a-file and h-file, both colours to move
    ("rnbqkbnr/1ppppppp/8/pP6/8/8/P1PPPPPP/RNBQKBNR w KQkq a6 0 3", "KQkq", 0),
    ("rnbqkbnr/ppppppp1/8/6Pp/8/8/PPPPPP1P/RNBQKBNR w KQkq h6 0 3", "KQkq", 7),
    ("rnbqkbnr/p1pppppp/8/8/Pp6/8/1PPPPPPP/RNBQKBNR b KQkq a3 0 3", "KQkq", 0),
    ("rnbqkbnr/pppppp1p/8/8/6pP/8/PPPPPPP1/RNBQKBNR b KQkq h3 0 3", "KQkq", 7),
    # no wrap-around between the a- and h-files
    ("rnbqkbnr/ppppppp1/8/P6p/8/8/1PPPPPPP/RNBQKBNR w KQkq h6 0 3", "KQkq", None),
    ("rnbqkbnr/1ppppppp/8/p6P/8/8/PPPPPPP1/RNBQKBNR w KQkq a6 0 3", "KQkq", None),
    # two capturers, one on each side
    ("4k3/8/8/3PpP2/8/8/8/4K3 w - e6 0 2", "", 4),
    # castling rights the position does not have: rooks missing, a rook moved, the king moved
    ("r3k2r/8/8/8/8/8/8/4K3 w KQkq - 0 1", "kq", None),
    ("r3k1r1/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "KQq", None),
    ("r3k2r/8/8/8/8/8/8/R2K3R w KQkq - 0 1", "kq", None),
    ("r2k3r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "KQ", None),
    ("r3k2r/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1", "kq", None),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "KQkq", None),
    ("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", "Kq", None),
    # another piece of the right colour on the rook's corner
    ("r3k2r/8/8/8/8/8/8/R3K2N w KQkq - 0 1", "Qkq", None),
    ("b3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "KQk", None),
    # a rook of the other colour on the corner
    ("r3k2R/8/8/8/8/8/8/r3K3 w KQkq - 0 1", "q", None),
]


def our_rows(entries: Iterable[Any]) -> list[tuple[str, int, int, int]]:
    return [(e.move.uci(), e.weight, e.learn, e.raw_move) for e in entries]


def their_rows(entries: Any) -> list[tuple[str, int, int, int]]:
    return [(e.move.uci(), e.weight, e.learn, e.raw_move) for e in entries]


def random_games(seed: int, games: int, *, chess960: bool = False, max_plies: int = 120) -> Iterator[chess.Board]:
    """Positions of seeded random games (double pawn pushes and captures favoured, for en passant).

    The same board object is yielded before each move and then played on: copy it to keep a position.
    """
    rng = random.Random(seed)
    for _ in range(games):
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        for _ in range(rng.randrange(10, max_plies)):
            yield board
            moves = list(board.legal_moves)
            if not moves:
                break
            special = [m for m in moves if board.is_capture(m) or board.is_castling(m) or m.promotion
                       or (board.piece_type_at(m.from_square) == chess.PAWN
                           and abs(m.to_square - m.from_square) == 16)]
            board.push(rng.choice(special) if special and rng.random() < 0.4 else rng.choice(moves))


def entries(book: Any, position: Any, **options: Any) -> list[Any]:
    """Every entry of a position as :meth:`PolyglotBook.probe` kept them before the contract (weight-0 included
    unless ``minimum_weight`` says otherwise): ``find_all`` with ``minimum_weight=0``."""
    return list(book.find_all(position, **{"minimum_weight": 0, **options}))
