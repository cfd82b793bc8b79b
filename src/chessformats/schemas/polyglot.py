"""Polyglot opening books (``.bin``): declarations only.

A book is a sequence of 16-byte big-endian entries, sorted by key. Source: the Polyglot book format
(``specs/polyglot.ru.txt``, a translation of Fabien Letouzey's ``book_format.html``) and
``notes/polyglot.md``.
"""

from __future__ import annotations

import construct as cs

from ..engine.schema import Example, FormatDoc, MeaningEnum, Structure
from .polyglot_randoms import RANDOM64, RANDOM_CASTLE, RANDOM_EN_PASSANT, RANDOM_PIECE, RANDOM_TURN

__all__ = [
    "ENTRY",
    "ENTRY_SIZE",
    "FORMAT",
    "MOVE",
    "PROMOTION",
    "RANDOM64",
    "RANDOM_CASTLE",
    "RANDOM_EN_PASSANT",
    "RANDOM_PIECE",
    "RANDOM_TURN",
]

PROMOTION = MeaningEnum(
    cs.BitsInteger(3),
    {
        "none": (0, "not a promotion"),
        "knight": (1, "promotes to a knight"),
        "bishop": (2, "promotes to a bishop"),
        "rook": (3, "promotes to a rook"),
        "queen": (4, "promotes to a queen"),
    },
)

MOVE = cs.BitStruct(
    "reserved" / cs.BitsInteger(1) * "unused, 0 in every known book",
    "promotion" / PROMOTION * "piece a pawn promotes to (5-7 are not defined)",
    "from_rank" / cs.BitsInteger(3) * "rank of the origin square, 0 = rank 1",
    "from_file" / cs.BitsInteger(3) * "file of the origin square, 0 = file a",
    "to_rank" / cs.BitsInteger(3) * "rank of the destination square, 0 = rank 1",
    "to_file" / cs.BitsInteger(3) * "file of the destination square, 0 = file a",
)
"""A move packed in 16 bits; castling is stored as the king taking its own rook (e1h1, e1a1, e8h8, e8a8)."""

ENTRY = cs.Struct(
    "key" / cs.Int64ub * "Zobrist hash of the position (see RANDOM64)",
    "move" / MOVE * "a book move from that position; 0 (a1a1) is to be ignored",
    "weight" / cs.Int16ub * "relative frequency of the move; polyglot make-book writes 2*wins + draws, scaled",
    "learn" / cs.Int32ub * "learning data; 0 unless a program wrote some (meaning not standardised)",
)
"""One book entry: a position and one of its book moves."""

ENTRY_SIZE: int = ENTRY.sizeof()

BOOK = cs.GreedyRange(ENTRY)
"""A whole book: entries up to the end of the file, sorted by key."""

# The 781 64-bit random numbers of the Zobrist key (RANDOM64 and its parts) are data in polyglot_randoms.py.

FORMAT = FormatDoc(
    key="polyglot",
    title="Polyglot opening book",
    extensions=(".bin",),
    summary=(
        "A Polyglot book is a flat file of 16-byte entries, all integers big-endian, sorted by key. "
        "Each entry pairs a position (its 64-bit Zobrist key) with one book move, a weight and a learn "
        "field. A position with several book moves has several consecutive entries with the same key."
    ),
    structures=(
        Structure("Entry", ENTRY, "One entry; the file is these entries back to back (file size = 16 * n)."),
        Structure("Move", MOVE, "The 16-bit move field, bit 0 = least significant bit."),
    ),
    notes=(
        "**Key.** XOR of: `RANDOM_PIECE[64*kind + 8*rank + file]` for every piece (kind: black pawn 0, "
        "white pawn 1, black knight 2, ... white king 11); `RANDOM_CASTLE[i]` for each castling right still "
        "held (white short, white long, black short, black long); `RANDOM_EN_PASSANT[file]` when the side "
        "to move has a pawn beside the pawn that just advanced two squares (whether the capture is legal "
        "does not matter); `RANDOM_TURN` when white is to move. The 781 numbers are data in "
        "`chessformats/schemas/polyglot_randoms.py`.",
        "**Castling** is stored as the king taking its own rook: e1h1, e1a1, e8h8, e8a8. It means castling "
        "only when a king stands on e1/e8; readers convert it back (e1h1 -> e1g1).",
        "**Move 0** (a1a1) carries no move and is ignored by readers.",
        "**Real books are not always clean** (`notes/polyglot.md`): entries with weight 0 (kept; a common "
        "way to disable a move), non-zero `learn` fields (performance.bin: 88,848 entries), duplicate "
        "keys, and an unsorted tail in one known book. chessformats keeps every entry, warns once about an "
        "unsorted book and still probes it correctly, and always writes sorted books.",
        "**Weights** written by `polyglot make-book` are `2*wins + draws` per (position, move), scaled so "
        "the largest fits in 16 bits.",
    ),
    examples=(
        Example(ENTRY, bytes.fromhex("463b96181691fc9c031c28c700000000"),
                "gm2001.bin, entry 8376: the start position, 1.e4"),
        Example(ENTRY, bytes.fromhex("10fd4254dfedaf8b010703e900000000"),
                "gm2001.bin: after 1.e4 e5 2.Nf3 Nc6 3.Bb5 Nf6, white castles short (stored as e1h1)"),
    ),
    references=(
        "Fabien Letouzey, *Polyglot book format* (book_format.html, shipped with Debian's `polyglot` "
        "package); Russian translation in `specs/polyglot.ru.txt`.",
        "python-chess `chess.polyglot` (reader used as a cross-check in the tests).",
    ),
)
