"""Polyglot's 16-bit moves as numbers: the bit fields, packing origin/target/promotion into raw moves (one
or many at once), and which raw moves cannot be Polyglot moves at all. No python-chess here (the book builder
packs moves without importing it); :mod:`.moves` turns raw moves into :class:`chess.Move` and back.

The bit fields come from :data:`chessformats.schemas.polyglot.MOVE` (through the generated
:mod:`chessformats.schemas.polyglot_facts`); squares and piece types are numbered as python-chess numbers them.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple

from ...schemas import polyglot_facts as facts
from .. import squares

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FIELDS", "FROM_BITS", "LAST_PROMOTION", "PIECE_OF_PROMOTION", "PROMOTION_BITS", "TO_BITS", "field_value",
           "move_problem", "move_problems", "pack_moves", "unpack_moves"]


class _Bits(NamedTuple):
    """Where a field sits in the 16-bit move: ``(raw >> shift) & mask``."""

    shift: int
    width: int
    mask: int


# shift and width of every field, and the promotions' names, as derived from the declaration (MOVE, PROMOTION)
# into the generated polyglot_facts (a probe imports no declaration)
FIELDS = {name: _Bits(shift, width, (1 << width) - 1) for name, (shift, width) in facts.MOVE_BITS.items()}
PIECE_OF_PROMOTION: dict[int, int | None] = {
    value: None if name == "none" else squares.PIECE_NAMES.index(name) for value, name in facts.PROMOTION_NAMES.items()
}


def _square_bits(end: str, square: int) -> int:
    """The bits of ``square`` in the ``from_``/``to_`` file and rank fields of a raw move."""
    return squares.square_file(square) << FIELDS[f"{end}_file"].shift | squares.square_rank(square) << FIELDS[
        f"{end}_rank"].shift


# a raw move is the OR of three parts, each a table derived from the declaration (hot paths index them)
FROM_BITS = tuple(_square_bits("from", square) for square in squares.SQUARES)
TO_BITS = tuple(_square_bits("to", square) for square in squares.SQUARES)
PROMOTION_BITS = {piece or 0: value << FIELDS["promotion"].shift  # by python-chess piece type, 0 = none
                  for value, piece in PIECE_OF_PROMOTION.items()}


@functools.cache
def _move_arrays() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The three tables as int64 arrays (numpy is imported by bulk paths only)."""
    import numpy as np

    return (np.array(FROM_BITS, dtype=np.int64), np.array(TO_BITS, dtype=np.int64),
            np.array([PROMOTION_BITS.get(piece, 0) for piece in range(squares.KING + 1)], dtype=np.int64))


def pack_moves(origin: Any, target: Any, promotion: Any = 0) -> Any:
    """Raw moves (int64 array) of origin and target squares and python-chess promotion piece types (0: none),
    arrays or numbers; castling must already be given as king-takes-rook."""
    from_array, to_array, promotion_array = _move_arrays()
    return from_array[origin] | to_array[target] | promotion_array[promotion]


def unpack_moves(raw: Any) -> tuple[Any, Any, Any]:
    """Origin and target squares and python-chess promotion piece types (0: none) of raw moves (an int64 array):
    :func:`pack_moves`' inverse (castling stays king-takes-rook; undefined promotions give 0)."""
    import numpy as np

    def field(name: str) -> Any:
        bits = FIELDS[name]
        return raw >> bits.shift & bits.mask

    pieces = np.zeros(1 << FIELDS["promotion"].width, dtype=np.int64)
    for value, piece in PIECE_OF_PROMOTION.items():
        pieces[value] = piece or 0
    return (field("from_rank") * 8 + field("from_file"), field("to_rank") * 8 + field("to_file"),
            pieces.take(field("promotion")))


def field_value(raw: int, name: str) -> int:
    field = FIELDS[name]
    return raw >> field.shift & field.mask


LAST_PROMOTION = max(facts.PROMOTION_NAMES)  # values above it are not defined


def _problems(fields: Any, nonzero: Any) -> dict[str, tuple[Any, str]]:
    """The rules of a Polyglot move over its bit fields, written with ``== != & |`` only, so that they hold for
    numpy arrays (masks) and for single integers (booleans) alike: field path -> (broken, what was expected)."""
    same_square = (fields["from_rank"] == fields["to_rank"]) & (fields["from_file"] == fields["to_file"])
    promotes_badly = (fields["promotion"] != 0) & ((fields["from_rank"] != 6) | (fields["to_rank"] != 7)) & (
        (fields["from_rank"] != 1) | (fields["to_rank"] != 0))
    return {
        "move.reserved": (fields["reserved"] != 0, "0"),
        "move.promotion": (fields["promotion"] > LAST_PROMOTION, f"0..{LAST_PROMOTION}"),
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
    fields = {name: field_value(raw, name) for name in FIELDS}
    for path, (broken, expected) in _problems(fields, raw != 0).items():
        if broken:
            return path, expected, (raw if path == "move" else fields[path.split(".")[1]])
    return None
