"""ChessBase CTG opening books (``.ctg`` with ``.ctb`` and ``.cto``): declarations only.

A ``.ctg`` file is 4096-byte pages: a header page, then data pages of position records. A position
record is the position (a header byte and the board as one prefix code word per square, then the
en-passant file and castling flags), the book moves from it (a move code and an annotation each) and
33 bytes of statistics. The ``.cto`` file maps a hash of the position to the data page that holds
it; the ``.ctb`` file holds the bounds of the ``.cto`` lookup. Big-endian throughout. Sources:
``specs/ctg.ru.txt`` and ``notes/ctg.md``; every fact marked "known books" was checked on the corpus
(``corpus/ctg``: PowerPlay17-Sicilienne and simple.ctg).
"""

from __future__ import annotations

from typing import Any, NamedTuple, overload

import construct as cs

from ..engine.formula import Formula
from ..engine.prefixcode import PrefixCoded
from ..engine.schema import BitsLeft, BitsUnsigned, Example, FormatDoc, MeaningEnum, Structure, bitwise_rest
from .movecode import MoveCode, move_code_field
from .squares import CASTLING, SQUARE_CODE, SQUARE_NAMES

__all__ = [
    "ANNOTATIONS",
    "BOARD",
    "COMMENTS",
    "CTB",
    "CTB_HEAD",
    "CTO",
    "CTO_ENTRY",
    "CTO_HEADER",
    "FORMAT",
    "HASH_TABLE",
    "HEADER_PAGE",
    "MOVE",
    "MOVES",
    "MOVE_CODES",
    "PAGE",
    "PAGE_HEADER",
    "PAGE_SIZE",
    "POSITION",
    "POSITION_HEADER",
    "RECORD",
    "STATS",
    "Annotation",
    "flag_bits",
    "position_bits",
]

# --- moves -------------------------------------------------------------------------------------------

# The spec's table, in its order. 0x1A and 0xF9: the spec's source has both as "2nd queen, y+6" (as do the
# DroidFish and Scidb readers); the spec's translator reads one of them as "x+6", which no other code
# provides. We keep the spec's reading (0x1A = y+6, 0xF9 = x+6); no known book has a second queen's move.
MOVE_CODES: tuple[MoveCode, ...] = (
    MoveCode(0xEC, "pawn", 1, 0, 1),
    MoveCode(0xDB, "pawn", 1, 0, 2),
    MoveCode(0x8B, "pawn", 1, 1, 1),
    MoveCode(0x0C, "pawn", 1, 7, 1),
    MoveCode(0x04, "pawn", 2, 0, 1),
    MoveCode(0x62, "pawn", 2, 0, 2),
    MoveCode(0x96, "pawn", 2, 1, 1),
    MoveCode(0xD1, "pawn", 2, 7, 1),
    MoveCode(0x55, "pawn", 3, 0, 1),
    MoveCode(0x9B, "pawn", 3, 0, 2),
    MoveCode(0x7C, "pawn", 3, 1, 1),
    MoveCode(0x27, "pawn", 3, 7, 1),
    MoveCode(0xCF, "pawn", 4, 0, 1),
    MoveCode(0xE6, "pawn", 4, 0, 2),
    MoveCode(0xEB, "pawn", 4, 1, 1),
    MoveCode(0x06, "pawn", 4, 7, 1),
    MoveCode(0xBB, "pawn", 5, 0, 1),
    MoveCode(0x5F, "pawn", 5, 0, 2),
    MoveCode(0x00, "pawn", 5, 1, 1),
    MoveCode(0xDE, "pawn", 5, 7, 1),
    MoveCode(0xCB, "pawn", 6, 0, 1),
    MoveCode(0xB1, "pawn", 6, 0, 2),
    MoveCode(0x2D, "pawn", 6, 1, 1),
    MoveCode(0x82, "pawn", 6, 7, 1),
    MoveCode(0x18, "pawn", 7, 0, 1),
    MoveCode(0xC8, "pawn", 7, 0, 2),
    MoveCode(0x5C, "pawn", 7, 1, 1),
    MoveCode(0xC7, "pawn", 7, 7, 1),
    MoveCode(0xA3, "pawn", 8, 0, 1),
    MoveCode(0x4A, "pawn", 8, 0, 2),
    MoveCode(0x14, "pawn", 8, 1, 1),
    MoveCode(0x24, "pawn", 8, 7, 1),
    MoveCode(0x34, "knight", 1, 1, 2),
    MoveCode(0x85, "knight", 1, 7, 2),
    MoveCode(0x36, "knight", 1, 2, 1),
    MoveCode(0xF7, "knight", 1, 6, 1),
    MoveCode(0xE9, "knight", 1, 2, 7),
    MoveCode(0x0F, "knight", 1, 6, 7),
    MoveCode(0x8A, "knight", 1, 1, 6),
    MoveCode(0xDA, "knight", 1, 7, 6),
    MoveCode(0x4C, "knight", 2, 1, 2),
    MoveCode(0xF3, "knight", 2, 7, 2),
    MoveCode(0xD2, "knight", 2, 2, 1),
    MoveCode(0xD3, "knight", 2, 6, 1),
    MoveCode(0xE0, "knight", 2, 2, 7),
    MoveCode(0x01, "knight", 2, 6, 7),
    MoveCode(0x2A, "knight", 2, 1, 6),
    MoveCode(0x30, "knight", 2, 7, 6),
    MoveCode(0x2E, "bishop", 1, 1, 1),
    MoveCode(0xC1, "bishop", 1, 2, 2),
    MoveCode(0x0D, "bishop", 1, 3, 3),
    MoveCode(0x6A, "bishop", 1, 4, 4),
    MoveCode(0x15, "bishop", 1, 5, 5),
    MoveCode(0x3A, "bishop", 1, 6, 6),
    MoveCode(0x12, "bishop", 1, 7, 7),
    MoveCode(0x1B, "bishop", 1, 7, 1),
    MoveCode(0xC3, "bishop", 1, 6, 2),
    MoveCode(0x66, "bishop", 1, 5, 3),
    MoveCode(0x3C, "bishop", 1, 3, 5),
    MoveCode(0xB2, "bishop", 1, 2, 6),
    MoveCode(0x26, "bishop", 1, 1, 7),
    MoveCode(0xF5, "bishop", 2, 1, 1),
    MoveCode(0xC2, "bishop", 2, 2, 2),
    MoveCode(0xB9, "bishop", 2, 3, 3),
    MoveCode(0x9F, "bishop", 2, 4, 4),
    MoveCode(0x32, "bishop", 2, 5, 5),
    MoveCode(0x09, "bishop", 2, 6, 6),
    MoveCode(0x1D, "bishop", 2, 7, 7),
    MoveCode(0x54, "bishop", 2, 7, 1),
    MoveCode(0x22, "bishop", 2, 6, 2),
    MoveCode(0xCA, "bishop", 2, 5, 3),
    MoveCode(0xCC, "bishop", 2, 3, 5),
    MoveCode(0x79, "bishop", 2, 2, 6),
    MoveCode(0x72, "bishop", 2, 1, 7),
    MoveCode(0x81, "rook", 1, 0, 1),
    MoveCode(0xE8, "rook", 1, 0, 2),
    MoveCode(0x7A, "rook", 1, 0, 3),
    MoveCode(0x99, "rook", 1, 0, 4),
    MoveCode(0x87, "rook", 1, 0, 5),
    MoveCode(0x50, "rook", 1, 0, 6),
    MoveCode(0xE1, "rook", 1, 0, 7),
    MoveCode(0x7F, "rook", 1, 1, 0),
    MoveCode(0xCD, "rook", 1, 2, 0),
    MoveCode(0x98, "rook", 1, 3, 0),
    MoveCode(0xEF, "rook", 1, 4, 0),
    MoveCode(0x6E, "rook", 1, 5, 0),
    MoveCode(0x52, "rook", 1, 6, 0),
    MoveCode(0x86, "rook", 1, 7, 0),
    MoveCode(0x7D, "rook", 2, 0, 1),
    MoveCode(0xF4, "rook", 2, 0, 2),
    MoveCode(0xE3, "rook", 2, 0, 3),
    MoveCode(0xC5, "rook", 2, 0, 4),
    MoveCode(0xA5, "rook", 2, 0, 5),
    MoveCode(0x7B, "rook", 2, 0, 6),
    MoveCode(0x69, "rook", 2, 0, 7),
    MoveCode(0xC4, "rook", 2, 1, 0),
    MoveCode(0xA9, "rook", 2, 2, 0),
    MoveCode(0x0E, "rook", 2, 3, 0),
    MoveCode(0xAD, "rook", 2, 4, 0),
    MoveCode(0xB5, "rook", 2, 5, 0),
    MoveCode(0xD8, "rook", 2, 6, 0),
    MoveCode(0x21, "rook", 2, 7, 0),
    MoveCode(0x05, "queen", 1, 0, 1),
    MoveCode(0x9D, "queen", 1, 0, 2),
    MoveCode(0x94, "queen", 1, 0, 3),
    MoveCode(0x37, "queen", 1, 0, 4),
    MoveCode(0xB7, "queen", 1, 0, 5),
    MoveCode(0x9A, "queen", 1, 0, 6),
    MoveCode(0xFD, "queen", 1, 0, 7),
    MoveCode(0x2F, "queen", 1, 1, 0),
    MoveCode(0x74, "queen", 1, 2, 0),
    MoveCode(0x31, "queen", 1, 3, 0),
    MoveCode(0xE5, "queen", 1, 4, 0),
    MoveCode(0x39, "queen", 1, 5, 0),
    MoveCode(0x29, "queen", 1, 6, 0),
    MoveCode(0x8F, "queen", 1, 7, 0),
    MoveCode(0xF1, "queen", 1, 1, 1),
    MoveCode(0xA2, "queen", 1, 2, 2),
    MoveCode(0x45, "queen", 1, 3, 3),
    MoveCode(0xE7, "queen", 1, 4, 4),
    MoveCode(0x28, "queen", 1, 5, 5),
    MoveCode(0x61, "queen", 1, 6, 6),
    MoveCode(0xED, "queen", 1, 7, 7),
    MoveCode(0xD7, "queen", 1, 7, 1),
    MoveCode(0xD9, "queen", 1, 6, 2),
    MoveCode(0x7E, "queen", 1, 5, 3),
    MoveCode(0x4B, "queen", 1, 3, 5),
    MoveCode(0x80, "queen", 1, 2, 6),
    MoveCode(0x42, "queen", 1, 1, 7),
    MoveCode(0x4D, "queen", 2, 0, 1),
    MoveCode(0xBD, "queen", 2, 0, 2),
    MoveCode(0xA0, "queen", 2, 0, 3),
    MoveCode(0xB0, "queen", 2, 0, 4),
    MoveCode(0xC6, "queen", 2, 0, 5),
    MoveCode(0x1A, "queen", 2, 0, 6),  # doubtful, see MOVE_CODES
    MoveCode(0xC9, "queen", 2, 0, 7),
    MoveCode(0xF8, "queen", 2, 1, 0),
    MoveCode(0x03, "queen", 2, 2, 0),
    MoveCode(0xFA, "queen", 2, 3, 0),
    MoveCode(0x08, "queen", 2, 4, 0),
    MoveCode(0xBC, "queen", 2, 5, 0),
    MoveCode(0xF9, "queen", 2, 6, 0),  # doubtful, see MOVE_CODES
    MoveCode(0xF0, "queen", 2, 7, 0),
    MoveCode(0x92, "queen", 2, 1, 1),
    MoveCode(0xFB, "queen", 2, 2, 2),
    MoveCode(0xAE, "queen", 2, 3, 3),
    MoveCode(0x38, "queen", 2, 4, 4),
    MoveCode(0x41, "queen", 2, 5, 5),
    MoveCode(0x23, "queen", 2, 6, 6),
    MoveCode(0x6F, "queen", 2, 7, 7),
    MoveCode(0xEE, "queen", 2, 7, 1),
    MoveCode(0x8E, "queen", 2, 6, 2),
    MoveCode(0xFE, "queen", 2, 5, 3),
    MoveCode(0x3B, "queen", 2, 3, 5),
    MoveCode(0xAB, "queen", 2, 2, 6),
    MoveCode(0x63, "queen", 2, 1, 7),
    MoveCode(0x13, "king", 1, 0, 1),
    MoveCode(0x67, "king", 1, 1, 1),
    MoveCode(0xDF, "king", 1, 7, 1),
    MoveCode(0xBE, "king", 1, 1, 0),
    MoveCode(0x97, "king", 1, 7, 0),
    MoveCode(0x0A, "king", 1, 0, 7),
    MoveCode(0x44, "king", 1, 1, 7),
    MoveCode(0x8C, "king", 1, 7, 7),
    MoveCode(0x6B, "king", 1, 2, 0),  # O-O: the king two files right
    MoveCode(0xF6, "king", 1, 6, 0),  # O-O-O: two files left
)
"""Every move code of the format (166 of the 256 byte values)."""

MOVE_CODE = move_code_field(MOVE_CODES)


class Annotation(NamedTuple):
    """A value of an annotation byte: its NAG (the value itself), symbol and meaning."""

    value: int
    name: str
    symbol: str
    meaning: str


ANNOTATIONS: tuple[Annotation, ...] = (
    Annotation(0x00, "none", "", "no annotation"),
    Annotation(0x01, "good", "!", "! good move (NAG 1)"),
    Annotation(0x02, "mistake", "?", "? mistake (NAG 2)"),
    Annotation(0x03, "brilliant", "!!", "!! brilliant move (NAG 3)"),
    Annotation(0x04, "blunder", "??", "?? blunder (NAG 4)"),
    Annotation(0x05, "interesting", "!?", "!? interesting move (NAG 5)"),
    Annotation(0x06, "dubious", "?!", "?! dubious move (NAG 6)"),
    Annotation(0x08, "only_move", "□", "only move (NAG 8)"),
    Annotation(0x16, "zugzwang", "⨀", "zugzwang (NAG 22)"),
)
"""Move annotations (spec): every value is the NAG of the same number."""

COMMENTS: tuple[Annotation, ...] = (
    Annotation(0x00, "none", "", "no comment"),
    Annotation(0x0A, "drawish", "=", "= drawish position (NAG 10); not in the spec, found in PowerPlay17"),
    Annotation(0x0B, "equal", "=", "= equal chances, quiet position (NAG 11)"),
    Annotation(0x0D, "unclear", "∞", "unclear position (NAG 13)"),
    Annotation(0x0E, "white_slightly_better", "+=",
               "+= white is slightly better (NAG 14); the spec writes =+"),
    Annotation(0x0F, "black_slightly_better", "=+",
               "=+ black is slightly better (NAG 15); the spec writes +="),
    Annotation(0x10, "white_better", "+/-", "+/- white is better (NAG 16); the spec writes -/+"),
    Annotation(0x11, "black_better", "-/+", "-/+ black is better (NAG 17); the spec writes +/-"),
    Annotation(0x12, "white_winning", "+-", "+- white is winning (NAG 18); not in the spec"),
    Annotation(0x13, "black_winning", "-+", "-+ black is winning (NAG 19); the spec writes +-"),
    Annotation(0x20, "development", "↑↑", "development advantage (NAG 32)"),
    Annotation(0x24, "initiative", "↑", "with initiative (NAG 36)"),
    Annotation(0x28, "attack", "→", "with attack (NAG 40)"),
    Annotation(0x2C, "compensation", "=/∞", "with compensation (NAG 44)"),
    Annotation(0x84, "counterplay", "⇆", "counterplay (NAG 132)"),
    Annotation(0x8A, "time_trouble", "⨁", "time trouble (NAG 138)"),
    Annotation(0x92, "novelty", "N", "novelty (NAG 146)"),
)
"""Position comments: NAG numbers like the move annotations (so 0x0E-0x13 follow the NAG table, where the
spec's symbols disagree with it; only 0 and 0x0A occur in the known books)."""

ANNOTATION = MeaningEnum(cs.Int8ub, {a.name: (a.value, a.meaning) for a in ANNOTATIONS})
COMMENT = MeaningEnum(cs.Int8ub, {a.name: (a.value, a.meaning) for a in COMMENTS})

MOVE = cs.Struct(
    "code" / MOVE_CODE * "which piece moves where (see the move codes)",
    "annotation" / ANNOTATION * "annotation of the move",
)

MOVES = cs.Struct(
    "length" / cs.Int8ub * "length of this block in bytes, this byte included: 2 * moves + 1",
    "moves" / cs.Array(Formula("max(length - 1, 0) // 2"), MOVE) * "the book moves, two bytes each",
)


# --- the position --------------------------------------------------------------------------------------

POSITION_HEADER = cs.BitStruct(
    "unused" / cs.BitsInteger(1) * "0 in every known record",
    "has_castling" / cs.Flag * "castling flags end the position (0x40)",
    "has_en_passant" / cs.Flag * "an en-passant file precedes the castling flags (0x20)",
    "length" / cs.BitsInteger(5) * "length of the encoded position in bytes, this header byte included",
)


_EN_PASSANT_FILE = cs.BitsInteger(3)
"""The en-passant file after the squares: 0 = a ... 7 = h."""
_CASTLING_WIDTH = len(CASTLING.subcons)  # one bit per right
_EN_PASSANT_WIDTH: int = _EN_PASSANT_FILE.sizeof()


def flag_bits(has_en_passant: Any, has_castling: Any) -> int:
    """Bits of the flags that end the encoded position (en-passant file, castling rights)."""
    return (_EN_PASSANT_WIDTH if has_en_passant else 0) + (_CASTLING_WIDTH if has_castling else 0)


@overload
def position_bits(squares_end: int, flags: int) -> int: ...
@overload
def position_bits(squares_end: Any, flags: Any) -> Any: ...
def position_bits(squares_end: Any, flags: Any) -> Any:
    """The padding rule: bits of the encoded position whose squares end at bit ``squares_end`` (the header
    byte counted) and whose flags take ``flags`` bits. The flags end on a byte boundary; with no flags,
    at least one zero bit follows the squares (the spec's "N = 8/4/3/7" rule in one line). Integers, or numpy
    arrays of them (one position each: the batch encoder's)."""
    return (squares_end + flags + 7 + (flags == 0)) // 8 * 8


def _padding_bits(ctx: Any) -> int:
    """The zero bits between the squares and the flags: the flags end on the position's last byte."""
    header = ctx["_"]["header"]  # item access: the context is construct's Container (a dict)
    return int(8 * (header.length - 1) - SQUARE_CODE.bit_length(ctx["squares"])
               - flag_bits(header.has_en_passant, header.has_castling))


BOARD = cs.Struct(
    "squares" / PrefixCoded(SQUARE_CODE, len(SQUARE_NAMES), SQUARE_NAMES)
    * "one code word per square, a1, a2, ..., a8, b1, ..., h8, of the normalised board",
    "padding" / BitsUnsigned(BitsLeft(_padding_bits, reserve=cs.this._.header.has_en_passant * _EN_PASSANT_WIDTH
                                      + cs.this._.header.has_castling * _CASTLING_WIDTH))
    * "zero bits, so that the flags end exactly on the last byte (8 when there are no flags and the squares "
      "end on a byte boundary)",
    "en_passant_file" / cs.If(cs.this._.header.has_en_passant, _EN_PASSANT_FILE)
    * "file of an en-passant capture, 0 = a (only when has_en_passant)",
    "castling" / cs.If(cs.this._.header.has_castling, CASTLING) * "castling rights (only when has_castling)",
)

POSITION = cs.Struct(
    "header" / POSITION_HEADER * "length and flags of the encoded position",
    "board" / cs.FixedSized(cs.this.header.length - 1, bitwise_rest(BOARD))
    * "the board as a bit stream, most significant bit of each byte first",
)


# --- statistics ----------------------------------------------------------------------------------------

RATING = cs.Struct(
    "games" / cs.Int24ub * "games with a known rating",
    "total" / cs.Int32ub * "sum of those ratings",
)

RECOMMENDATION = cs.BitStruct(
    "green" / cs.Flag * "recommended: shown green (0x80)",
    "red" / cs.Flag * "not recommended: shown red (0x40)",
    "other" / cs.BitsInteger(6) * "other flags, meaning unknown (0x04, 0x10 and 0x20 occur in the known books)",
)

STATS = cs.Struct(
    "games" / cs.Int24ub * "games that reached the position",
    "wins" / cs.Int24ub * "of those, games won by the side to move",
    "losses" / cs.Int24ub * "games lost by the side to move",
    "draws" / cs.Int24ub * "drawn games (games - wins - losses - draws: results not known)",
    "unknown1" / cs.Int32ub * "unknown; grows with the games (2370 at the start position of PowerPlay17), kept",
    "rating1" / RATING * "ratings of the players of the side to move",
    "rating2" / RATING * "ratings of their opponents",
    "recommendation" / RECOMMENDATION * "recommendation flags of the position",
    "unknown2" / cs.Int8ub * "unknown, kept",
    "comment" / COMMENT * "comment on the position",
)
"""The 33 bytes after the moves."""

RECORD = cs.Struct(
    "position" / POSITION * "the encoded position",
    "moves" / MOVES * "the book moves",
    "stats" / STATS * "statistics, ratings, recommendation and comment",
)


# --- pages ---------------------------------------------------------------------------------------------

PAGE_HEADER = cs.Struct(
    "positions" / cs.Int16ub * "number of position records on the page",
    "used" / cs.Int16ub * "bytes used by the header and the records; the rest of the page is junk",
)

PAGE = cs.Struct(
    "header" / PAGE_HEADER * "the page header",
    "records" / cs.FixedSized(cs.this.header.used - PAGE_HEADER.sizeof(), cs.Array(cs.this.header.positions, RECORD))
    * "the position records, back to back",
    "junk" / cs.GreedyBytes * "left-overs up to the end of the page: to be ignored (kept for a byte-exact rewrite)",
)
"""A data page (4096 bytes). Data page n starts at byte 4096 * (n + 1)."""

HEADER_PAGE = cs.Struct(
    "unknown_0" / cs.Default(cs.Bytes(16), bytes.fromhex("00201000000100010000" "1000" "7fff" "7fff"))
    * "unknown; 00 20 10 00 00 01 00 01 00 00 10 00 7f ff 7f ff in both known books (written as is)",
    "data_pages" / cs.Int32ub * "number of data pages (257 and 1 in the known books)",
    "unknown_20" / cs.Default(cs.Bytes(4), b"\xff" * 4) * "unknown; ff ff ff ff in both known books (written as is)",
    "positions" / cs.Int32ub
    * "about the number of positions: 4 in simple.ctg (4 records), 13,321 in PowerPlay17 (13,305 records)",
    "games" / cs.Int32ub * "number of games the book was made from (= the games of the start position)",
    "unused_32" / cs.Default(cs.Bytes(992), bytes(992)) * "zeros in the known books",
    "unknown_1024" / cs.Default(cs.Bytes(32), bytes.fromhex("0001000500017fff00037fff0005001e0006000200070001")
                                + bytes(8))
    * "unknown; the same 24 non-zero bytes, then zeros, in both known books (written as is)",
    "unused_1056" / cs.Default(cs.Bytes(992), bytes(992)) * "zeros in the known books",
    "unknown_2048" / cs.Default(cs.Bytes(32), bytes(32))
    * "unknown; 00 00 00 0c 00 00 01 00 in PowerPlay17, zeros in simple.ctg (written as zeros)",
    "unused_2080" / cs.Default(cs.Bytes(2016), bytes(2016)) * "zeros in the known books",
)
"""The first page of the ``.ctg`` file. Fields whose meaning is unknown default to what both known books hold."""

PAGE_SIZE = HEADER_PAGE.sizeof()
"""Every page of a ``.ctg`` file, the header page included, is this long (4096 bytes)."""


# --- .ctb and .cto -------------------------------------------------------------------------------------

CTB_HEAD = cs.Struct(
    "unknown_0" / cs.Default(cs.Bytes(4), bytes.fromhex("000c0001"))
    * "unknown; 00 0c 00 01 in the known file (written as is)",
    "lower_bound" / cs.Int32ub * "smallest .cto entry number the lookup reads",
    "upper_bound" / cs.Int32ub * "the lookup stops after reading an entry number at least this large",
)
"""The fixed part of the ``.ctb`` file: the bounds of the lookup."""

CTB = cs.Struct(
    *CTB_HEAD.subcons,
    "rest" / cs.Default(cs.GreedyBytes, bytes(48))
    * "unknown, kept (48 bytes in the known file: 31 bytes ff and one 7f, zeros, then 00 00 00 08; written as 48 "
      "zeros)",
)

CTO_HEADER = cs.Struct(
    "unknown_0" / cs.Default(cs.Bytes(4), bytes.fromhex("00100001"))
    * "unknown; 00 10 00 01 in the known file (written as is)",
    "entries" / cs.Int32ub * "number of 4-byte entries after this header",
    "unknown_8" / cs.Default(cs.Int32ub, 0) * "unknown; 0 in the known file (written as is)",
    "unknown_12" / cs.Int32ub * "unknown; 248 in the known file (its CTB lower bound; written so)",
)

CTO_ENTRY = cs.Int32sb * "entry n: the data page of directory node n; -1 = empty"

CTO = cs.Struct(
    "header" / CTO_HEADER * "the 16-byte header",
    "pages" / cs.Array(cs.this.header.entries, CTO_ENTRY) * "the directory: one data page number per node",
    "trailing" / cs.Default(cs.GreedyBytes, b"") * "bytes after the table (none in the known file), kept",
)

# --- hashing -------------------------------------------------------------------------------------------

HASH_TABLE: tuple[int, ...] = (
    0x3100D2BF, 0x3118E3DE, 0x34AB1372, 0x2807A847, 0x1633F566, 0x2143B359, 0x26D56488, 0x3B9E6F59,
    0x37755656, 0x3089CA7B, 0x18E92D85, 0x0CD0E9D8, 0x1A9E3B54, 0x3EAA902F, 0x0D9BFAAE, 0x2F32B45B,
    0x31ED6102, 0x3D3C8398, 0x146660E3, 0x0F8D4B76, 0x02C77A5F, 0x146C8799, 0x1C47F51F, 0x249F8F36,
    0x24772043, 0x1FBC1E4D, 0x1E86B3FA, 0x37DF36A6, 0x16ED30E4, 0x02C3148E, 0x216E5929, 0x0636B34E,
    0x317F9F56, 0x15F09D70, 0x131026FB, 0x38C784B1, 0x29AC3305, 0x2B485DC5, 0x3C049DDC, 0x35A9FBCD,
    0x31D5373B, 0x2B246799, 0x0A2923D3, 0x08A96E9D, 0x30031A9F, 0x08F525B5, 0x33611C06, 0x2409DB98,
    0x0CA4FEB2, 0x1000B71E, 0x30566E32, 0x39447D31, 0x194E3752, 0x08233A95, 0x0F38FE36, 0x29C7CD57,
    0x0F7B3A39, 0x328E8A16, 0x1E7D1388, 0x0FBA78F5, 0x274C7E7C, 0x1E8BE65C, 0x2FA0B0BB, 0x1EB6C371,
)
"""The 64 numbers of ``gen_hash`` (the spec; the table of the old Unix dbm's ``calchash``)."""


# --- documentation -------------------------------------------------------------------------------------

FORMAT = FormatDoc(
    key="ctg",
    title="ChessBase CTG opening book",
    extensions=(".ctg", ".cto", ".ctb"),
    summary=(
        "A CTG book is three files. The `.ctg` file is a sequence of 4096-byte pages: a header page, then "
        "data pages numbered from 0 (data page n starts at byte 4096 * (n + 1)), each holding position "
        "records back to back. A record is a position encoded from the point of view of the side to move, "
        "the book moves from it and the statistics of the games that reached it. The `.cto` file is a "
        "table from position hashes to data pages; the `.ctb` file holds the bounds of the lookup in that "
        "table. All integers are big-endian."
    ),
    structures=(
        Structure("Header page", HEADER_PAGE, "The first page of the `.ctg` file."),
        Structure("Data page", PAGE, "4096 bytes: a 4-byte header, the records, junk up to the end of the page."),
        Structure("Position record", RECORD, "One position, its moves and its statistics."),
        Structure("Encoded position", POSITION,
                  "The position as a bit stream, also the input of the hash and the key a page is searched "
                  "for: a header byte, one code word per square, padding, then the flags."),
        Structure("Statistics", STATS, "The 33 bytes after the moves."),
        Structure(".ctb file", CTB, "The bounds of the `.cto` lookup (60 bytes in the known book)."),
        Structure(".cto file", CTO, "A 16-byte header, then one signed 4-byte data page number per directory node."),
    ),
    notes=(
        "**Normalisation.** A position is stored as if white were to move. Black to move: the board is "
        "mirrored top to bottom and the colours swapped (python-chess `Board.mirror()`), castling rights "
        "included. Then, if nobody has a castling right left and the white king stands on files a-d, the "
        "board is mirrored left to right (and the en-passant file with it). Moves are decoded on the "
        "normalised board and mapped back through the same mirrors.",
        "**Header byte** (missing from the spec): bits 0-4 are the length of the encoded position in bytes, "
        "this byte included; 0x20 says an en-passant file follows the squares, 0x40 that castling flags do.",
        "**Padding.** Counting bits from the start of the encoded position (header byte included), zero bits "
        "are put after the squares so that the flags (3 bits of en-passant file, then 4 castling bits) end "
        "exactly on the last byte; with no flags at all at least one zero bit is written, so squares that end "
        "on a byte boundary are followed by a whole zero byte. This is the spec's N = 8/4/3/7 rule in one "
        "sentence; all 13,305 records of PowerPlay17 re-encode byte for byte with it.",
        "**En passant** is stored only when the side to move has a legal en-passant capture (python-chess "
        "`has_legal_en_passant()`), not after every double step. **Castling flags** are, in order: black "
        "O-O, black O-O-O, white O-O, white O-O-O of the normalised board.",
        "**Moves.** A move code names the n-th piece of a kind of the side to move, counting in square order "
        "(a1, a2, ..., a8, b1, ..., h8) on the normalised board, and its step (x+dx, y+dy, modulo 8: x+7 is "
        "one file left). A pawn that reaches the last rank promotes to a queen: CTG cannot store "
        "underpromotions, nor moves of a third knight, bishop, rook or queen (writers leave them out and say "
        "so). Castling is the king's two-file step (0x6b O-O, 0xf6 O-O-O). The spec doubts 0x1a (2nd queen "
        "y+6) and 0xf9 (2nd queen x+6): its source, DroidFish and Scidb give both as y+6, which leaves x+6 "
        "without a code; chessformats keeps the spec's reading. No known book moves a second queen.",
        "**Annotations and comments are NAGs**: the annotation byte of a move (1 = !, 2 = ?, 3 = !!, 4 = ??, "
        "5 = !?, 6 = ?!, 8 = only move, 22 = zugzwang) and the comment byte of a position (10 = drawish, "
        "found in PowerPlay17 though the spec does not list it, 11 = equal, 13 = unclear, 14 = +=, ...) are "
        "NAG numbers. The spec's symbols for comments 0x0e-0x13 contradict the NAG table (it gives 0x0e as "
        "=+ and 0x13 as +-); the known books only use 0 and 10, so the NAG reading is kept.",
        "**Statistics** are those of the games that reached the position, from the side to move's point of "
        "view. `games` may exceed wins + draws + losses (games whose result is not known; up to 36 in "
        "PowerPlay17). `rating1` belongs to the players of the side to move and `rating2` to their "
        "opponents: over the 2,266 records of PowerPlay17 with at least 2 rated games in both blocks, the "
        "side to move's score correlates +0.21 with rating1's average and -0.21 with rating2's. chessformats "
        "reports the average rating (rating1) and a performance of the side to move: rating2's average + "
        "400 * (wins - losses) / (wins + draws + losses); ChessBase's own performance formula is not known.",
        "**Recommendation byte**: 0x80 green (recommended), 0x40 red (not recommended); the other bits are "
        "kept as they are (0x04, 0x10, 0x20 and 0x84 occur). `unknown1` (4 bytes) is almost proportional to "
        "the games (2370 for 499 games at the start position) and `unknown2` (1 byte) varies; both are kept.",
        "**Hash.** `gen_hash` (the table of the old Unix dbm's `calchash`) runs over the whole encoded "
        "position, header byte included: for each byte, `tmp += ((15 - (byte & 15)) << 2) + 1; hash += "
        "T[tmp & 63]; tmp += ((0xf0 - (byte & 0xf0)) >> 2) + 1; hash += T[tmp & 63]`, sums modulo 2^32. "
        "Only the low 6 bits of `tmp` matter.",
        "**Lookup.** The `.cto` table is dbm's directory: a binary trie over the hash bits, lowest bit first. "
        "Node c of level k (n = 2^k - 1) holds the hashes with c = (hash & n) + n. The lookup reads, for "
        "n = 0, 1, 3, 7, ... (while n < 0x7fffffff), entry c = (hash & n) + n, skipping entries below the "
        "`.ctb` lower bound and stopping after the first entry at or above the upper bound. An entry >= 0 is "
        "a data page: the position is looked for there by comparing the encoded position with the first "
        "`length` bytes of each record (records follow each other: `length + moves.length + 33` bytes). "
        "Entries past the end of the table count as empty: PowerPlay17's lookup reads entries up to 895 "
        "of its 892-entry table. Its bounds are 248 and 384; 255 of its directory nodes are on level 8 and "
        "one level-8 node is split into two on level 9 (635 and 891).",
        "**Writing** (chessformats's rule, derived from the dbm scheme). The records are placed in a dbm trie: "
        "a node whose records do not fit in one page (4092 bytes) is split on the next hash bit; the root is "
        "always split, so that readers whose loop starts at n = 1 (DroidFish, Scidb) find every position. "
        "The leaves are packed into pages in trie order, several small leaves sharing a page (a page is "
        "searched by position, not by hash). Lower bound = 2^k - 1 for the shallowest level k holding "
        "records; upper bound = 1 + the largest split node, so the loop reads exactly the levels where a "
        "position can be; table size = 1 + the largest entry the loop can read, so that no reader reads past "
        "the end. Header fields whose meaning is unknown get the values both known books share; the CTB's "
        "last 48 bytes are zeros.",
        "**Pages.** A data page's header gives the number of records and the bytes used (header included); "
        "the rest of the page is junk (141 of PowerPlay17's 257 data pages have non-zero junk). The header "
        "page's count at offset 24 is close to, not equal to, the number of records (13,321 for 13,305).",
        "**Books without .cto/.ctb** (like `simple.ctg`) can still be read: every page is scanned.",
        "**Conversions** (`chessformats convert`). CTG -> Polyglot: the positions reached from the start "
        "position along book moves; a move's weight is 2 * wins + draws + unknown-result games of the side "
        "that plays it (from the record of the position it leads to), times 2 for !, 4 for !!, halved for "
        "?!; moves annotated ? or ?? and moves into a red position are kept with weight 0; a move whose "
        "position is not stored gets weight 1; weights are scaled together to fit 16 bits. Polyglot -> CTG: "
        "the positions reached from the start; each move's weight becomes the number of games, results "
        "unknown, of the position it leads to (so CTG -> Polyglot gives the weights back when no "
        "position is reached twice). From games (the format-neutral book model): a position's statistics "
        "are the sums over the moves that lead to it (the start position: over its own moves).",
        "**Corrections to the spec and notes.** The header byte, the padding rule and the en-passant rule "
        "above are not in the spec; the spec's page 'an unknown number of bytes after the comment' is none "
        "(a record is exactly position + moves + 33 bytes); comment 0x0a occurs but is not listed; the "
        "comment symbols for 0x0e-0x13 are reversed against the NAG numbers; PowerPlay17 has 258 pages, "
        "i.e. 257 data pages (not 258 data pages), and its loop reads past the end of its `.cto` table.",
    ),
    examples=(
        Example(RECORD, bytes.fromhex(
            "56b60f7960f3a60f58b078e0c1e1a60f5960f3b60f7f035f000001f30000b00000c900007400000942000187000d640000"
            "0184000d849d14fd00"),
            "PowerPlay17-Sicilienne.ctg, data page 237, record 54 (file offset 977919): the start position. "
            "One book move, code 0x5f = 5th pawn y+2 = e2e4; 499 games, 176 won and 201 lost by white, 116 drawn"),
        Example(RECORD, bytes.fromhex(
            "36b30f70cea25b958a4ce9a9b88ed8f35e0c3d6160e20596000600000004000000000000000000000000120000000000"
            "000000000000000000000000"),
            "PowerPlay17-Sicilienne.ctg, data page 10, record 28 (file offset 46636): "
            "r1bnqrk1/pp4bp/3p1np1/1Pp2p2/2PPp3/P1N1P3/3NBPPP/R1BQ1RK1 w - c6, en passant possible on file c "
            "(2), no castling; moves 0x96 = 2nd pawn x+1 y+1 = b5xc6 en passant and 0x06 = 4th pawn x+7 y+1 = "
            "d4xc5; 4 games"),
        Example(CTB, bytes.fromhex(
            "000c0001000000f800000180ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f00000000"
            "000000000000000000000008"),
            "PowerPlay17-Sicilienne.ctb, the whole file: lower bound 248, upper bound 384"),
    ),
    references=(
        "The CTG description of the Rybka forum (2008), Russian translation in `specs/ctg.ru.txt`; "
        "`notes/ctg.md` for the header byte, padding, en-passant and record layout it leaves out.",
        "Peter Österlund's DroidFish (`CtgBook.java`) and Gregor Cramer's Scidb (`app_chessbase_book.cpp`): "
        "readers that follow the same lookup loop; used to cross-check field order and the move table.",
        "The old Unix `dbm` (`calchash` and its directory walk): the hash table and the lookup scheme.",
    ),
)
