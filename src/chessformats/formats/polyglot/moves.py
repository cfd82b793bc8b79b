"""Polyglot's 16-bit moves: decoding and encoding (castling stored as king-takes-rook), and which raw moves
cannot be Polyglot moves at all.

The bit fields come from :data:`chessformats.schemas.polyglot.MOVE` (through the generated
:mod:`chessformats.schemas.polyglot_facts`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple

import chess

from ...schemas import polyglot_facts as facts

if TYPE_CHECKING:
    import numpy as np

__all__ = ["KING_TAKES_ROOK", "MOVES", "decode_move", "encode_move", "move_problem", "move_problems", "pack_moves"]


class _Bits(NamedTuple):
    """Where a field sits in the 16-bit move: ``(raw >> shift) & mask``."""

    shift: int
    width: int
    mask: int


# shift and width of every field, and the promotions' names, as derived from the declaration (MOVE, PROMOTION)
# into the generated polyglot_facts (a probe imports no declaration)
_BITS = {name: _Bits(shift, width, (1 << width) - 1) for name, (shift, width) in facts.MOVE_BITS.items()}
_PIECE_OF_PROMOTION: dict[int, chess.PieceType | None] = {
    value: (None if name == "none" else chess.PIECE_NAMES.index(name)) for value, name in facts.PROMOTION_NAMES.items()
}


def _square_bits(end: str, square: chess.Square) -> int:
    """The bits of ``square`` in the ``from_``/``to_`` file and rank fields of a raw move."""
    return chess.square_file(square) << _BITS[f"{end}_file"].shift | chess.square_rank(square) << _BITS[
        f"{end}_rank"].shift


# a raw move is the OR of three parts, each a table derived from the declaration (hot paths index them)
_FROM_BITS = tuple(_square_bits("from", square) for square in chess.SQUARES)
_TO_BITS = tuple(_square_bits("to", square) for square in chess.SQUARES)
_PROMOTION_BITS = {piece or 0: value << _BITS["promotion"].shift  # by python-chess piece type, 0 = none
                   for value, piece in _PIECE_OF_PROMOTION.items()}


@functools.cache
def _move_arrays() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The three tables as int64 arrays (numpy is imported by bulk paths only)."""
    import numpy as np

    return (np.array(_FROM_BITS, dtype=np.int64), np.array(_TO_BITS, dtype=np.int64),
            np.array([_PROMOTION_BITS.get(piece, 0) for piece in range(chess.KING + 1)], dtype=np.int64))


def pack_moves(origin: Any, target: Any, promotion: Any = 0) -> Any:
    """Raw moves (int64 array) of origin and target squares and python-chess promotion piece types (0: none),
    arrays or numbers; castling must already be given as king-takes-rook."""
    from_array, to_array, promotion_array = _move_arrays()
    return from_array[origin] | to_array[target] | promotion_array[promotion]


def _field(raw: int, name: str) -> int:
    field = _BITS[name]
    return raw >> field.shift & field.mask


def _square(raw: int, end: str) -> chess.Square:
    return chess.square(_field(raw, f"{end}_file"), _field(raw, f"{end}_rank"))


_LAST_PROMOTION = max(facts.PROMOTION_NAMES)  # values above it are not defined


class _MoveTable(dict[int, chess.Move]):
    """Raw move -> :class:`chess.Move` as stored (castling as king-takes-rook, 0 as the null move), filled
    on first use."""

    def __missing__(self, raw: int) -> chess.Move:
        if raw == 0:
            move = chess.Move.null()
        else:
            move = chess.Move(_square(raw, "from"), _square(raw, "to"),
                              _PIECE_OF_PROMOTION.get(_field(raw, "promotion")))  # undefined values: none
        self[raw] = move
        return move


MOVES = _MoveTable()
"""Raw move -> :class:`chess.Move` exactly as stored; the decoding of every raw move outside
:data:`KING_TAKES_ROOK` (the probe's hot path reads it directly)."""
KING_TAKES_ROOK = frozenset(_FROM_BITS[origin] | _TO_BITS[target] for origin, target in (
    (chess.E1, chess.H1), (chess.E1, chess.A1), (chess.E8, chess.H8), (chess.E8, chess.A8)))
"""The raw moves that mean castling when a king stands on their origin: e1h1, e1a1, e8h8, e8a8."""


def decode_move(board: chess.Board | None, raw: int) -> chess.Move:
    """The :class:`chess.Move` of a raw 16-bit move played from ``board``.

    Without a board (``None``) the move is as stored (castling as king-takes-rook, ``a1a1`` as the null
    move). With a board, king-takes-rook becomes standard castling when a king stands on e1/e8 and the board
    is not Chess960 (where python-chess itself writes castling as king-takes-rook).
    """
    move = MOVES[raw]
    if board is not None and not board.chess960 and move.from_square in (chess.E1, chess.E8):
        if move.to_square in (chess.H1, chess.A1, chess.H8, chess.A8) and board.kings & chess.BB_SQUARES[
                move.from_square]:
            file = 6 if chess.square_file(move.to_square) == 7 else 2
            return chess.Move(move.from_square, chess.square(file, chess.square_rank(move.from_square)))
    return move


def encode_move(board: chess.Board | None, move: chess.Move) -> int:
    """The raw 16-bit move of ``move`` played from ``board``; with a board (not ``None``), castling is stored
    as king-takes-rook."""
    if not move:
        return 0
    from_square, to_square = move.from_square, move.to_square
    if board is not None and board.is_castling(move) and not board.chess960:
        rook_file = 7 if chess.square_file(to_square) > chess.square_file(from_square) else 0
        to_square = chess.square(rook_file, chess.square_rank(from_square))
    if move.drop is not None or from_square == to_square:
        raise ValueError(f"a Polyglot book cannot store the move {move.uci()}")
    return _PROMOTION_BITS[move.promotion or 0] | _FROM_BITS[from_square] | _TO_BITS[to_square]


def _problems(fields: Any, nonzero: Any) -> dict[str, tuple[Any, str]]:
    """The rules of a Polyglot move over its bit fields, written with ``== != & |`` only, so that they hold for
    numpy arrays (masks) and for single integers (booleans) alike: field path -> (broken, what was expected)."""
    same_square = (fields["from_rank"] == fields["to_rank"]) & (fields["from_file"] == fields["to_file"])
    promotes_badly = (fields["promotion"] != 0) & ((fields["from_rank"] != 6) | (fields["to_rank"] != 7)) & (
        (fields["from_rank"] != 1) | (fields["to_rank"] != 0))
    return {
        "move.reserved": (fields["reserved"] != 0, "0"),
        "move.promotion": (fields["promotion"] > _LAST_PROMOTION, f"0..{_LAST_PROMOTION}"),
        "move": (nonzero & same_square, "origin differs from destination"),
        "move.to_rank": (nonzero & promotes_badly, "7 or 0 (promotions end on the last rank)"),
    }


def move_problems(
    moves: np.ndarray[Any, Any],
) -> tuple[dict[str, tuple[np.ndarray[Any, Any], str]], dict[str, np.ndarray[Any, Any]]]:
    """For raw moves (an integer array): field path -> (mask of the moves where it is invalid, what was
    expected), and the bit fields of the moves.

    A Polyglot move has its reserved bit clear, a defined promotion (0..4), an origin other than its destination
    (but for the null move ``a1a1``), and promotes only from the 7th rank to the 8th or from the 2nd to the 1st.
    """
    from ...engine.layout import unpack_bits
    from ...schemas import polyglot as schema

    fields = unpack_bits(moves, schema.MOVE)
    return _problems(fields, moves != 0), fields


def move_problem(raw: int) -> tuple[str, str, int] | None:
    """The first rule (see :func:`move_problems`) a single raw move breaks, as (field path, what was expected,
    the value found), or ``None``."""
    fields = {name: _field(raw, name) for name in _BITS}
    for path, (broken, expected) in _problems(fields, raw != 0).items():
        if broken:
            return path, expected, (raw if path == "move" else fields[path.split(".")[1]])
    return None
