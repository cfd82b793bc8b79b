"""Monty training data ("montyformat" policy files and "montyvalue" value files): declarations only.

A file is games back to back; a game is a 43-byte header (the start position, its castling rook files
and the result), one record per ply, and a terminator. All integers are little-endian. Sources:
``specs/monty.en.txt`` (the format's own documentation), corrected by ``notes/monty.md`` and by the
files the reference crate (official-monty/montyformat v0.9.2) wrote (``corpus/monty``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import construct as cs

from ..engine.bitruns import BitStructLE
from ..engine.schema import Example, FormatDoc, MeaningEnum, Structure

__all__ = [
    "BITBOARDS",
    "BOARD",
    "CASTLING_RIGHTS",
    "FLAG",
    "FORMAT",
    "HEADER",
    "HEADER_SIZE",
    "MOVE",
    "PLY",
    "PLY_HEAD",
    "POLICY_FILE",
    "POLICY_GAME",
    "RESULT",
    "SIDE",
    "TERMINATOR",
    "UNREAD",
    "VALUE_FILE",
    "VALUE_GAME",
    "VALUE_PLY",
    "VALUE_TERMINATOR",
    "CompressedBoard",
    "PieceBitboards",
    "compress_bitboards",
    "expand_bitboards",
]


# --- the start position -------------------------------------------------------------------------------

class PieceBitboards(NamedTuple):
    """The eight bitboards the four stored ones expand to (bit n = square n, 0 = a1, 1 = b1, ..., 63 = h8)."""

    white: int
    black: int
    pawns: int
    knights: int
    bishops: int
    rooks: int
    queens: int
    kings: int


BITBOARDS = cs.Struct(
    "black" / cs.Int64ul * "squares of the black pieces",
    "rooks_queens_kings" / cs.Int64ul * "squares of the rooks, queens and kings (both colours)",
    "knights_bishops_kings" / cs.Int64ul * "squares of the knights, bishops and kings (both colours)",
    "pawns_bishops_queens" / cs.Int64ul * "squares of the pawns, bishops and queens (both colours)",
)
"""The four stored bitboards. Each piece kind is in a different set of them: pawn 001, knight 010,
bishop 011, rook 100, queen 101, king 110 (membership in rooks_queens_kings, knights_bishops_kings,
pawns_bishops_queens)."""


def expand_bitboards(black: int, rooks_queens_kings: int, knights_bishops_kings: int,
                     pawns_bishops_queens: int) -> PieceBitboards:
    """The eight piece bitboards of the four stored ones (the specification's formula).

    Never fails: bytes that no position gives (a square in all three piece bitboards, a black square that
    holds no piece) expand to overlapping bitboards, which the format layer rejects.
    """
    rqk, nbk, pbq = rooks_queens_kings, knights_bishops_kings, pawns_bishops_queens
    kings = rqk & nbk
    queens = rqk & pbq
    bishops = nbk & pbq
    return PieceBitboards(white=(rqk | nbk | pbq) ^ black, black=black, pawns=pbq ^ bishops ^ queens,
                          knights=nbk ^ bishops ^ kings, bishops=bishops, rooks=rqk ^ kings ^ queens,
                          queens=queens, kings=kings)


def compress_bitboards(pieces: PieceBitboards) -> tuple[int, int, int, int]:
    """The four stored bitboards of :class:`PieceBitboards` (inverse of :func:`expand_bitboards`)."""
    return (pieces.black, pieces.rooks | pieces.queens | pieces.kings,
            pieces.knights | pieces.bishops | pieces.kings, pieces.pawns | pieces.bishops | pieces.queens)


class CompressedBoard(cs.Adapter):  # type: ignore[misc]
    """The four overlapping bitboards of :data:`BITBOARDS` <-> :class:`PieceBitboards`.

    ``build(parse(b)) == b`` for any 32 bytes: expanding then compressing gives back every stored bit.
    """

    def _decode(self, obj: Any, context: Any, path: str) -> PieceBitboards:
        return expand_bitboards(obj.black, obj.rooks_queens_kings, obj.knights_bishops_kings,
                                obj.pawns_bishops_queens)

    def _encode(self, obj: PieceBitboards, context: Any, path: str) -> dict[str, int]:
        return dict(zip((sub.name for sub in BITBOARDS.subcons), compress_bitboards(obj), strict=True))


BOARD = CompressedBoard(BITBOARDS)
"""The pieces of the start position: 4 stored bitboards, decoded to :class:`PieceBitboards`."""

SIDE = MeaningEnum(cs.Int8ul, {
    "white": (0, "white to move"),
    "black": (1, "black to move"),
})

CASTLING_RIGHTS = cs.BitStruct(
    "unused" / cs.BitsInteger(4) * "always 0",
    "white_queenside" / cs.Flag * "white may still castle queenside (Q)",
    "white_kingside" / cs.Flag * "white may still castle kingside (K)",
    "black_queenside" / cs.Flag * "black may still castle queenside (q)",
    "black_kingside" / cs.Flag * "black may still castle kingside (k)",
)
"""Castling rights, ``0b0000QKqk``."""

RESULT = MeaningEnum(cs.Int8ul, {
    "black_wins": (0, "white lost (0-1)"),
    "draw": (1, "a draw (1/2-1/2)"),
    "white_wins": (2, "white won (1-0)"),
})

HEADER = cs.Struct(
    "board" / BOARD * "the pieces of the start position, as 4 overlapping bitboards",
    "side_to_move" / SIDE * "whose move it is in the start position",
    "ep_square" / cs.Int8ul * "en-passant target square (0 = a1, 8 = a2, ..., 63 = h8) after a double pawn "
                              "push, whether or not a capture is possible; 0 = none",
    "castling_rights" / CASTLING_RIGHTS * "castling rights of the start position",
    "halfmove_clock" / cs.Int8ul * "plies since the last capture or pawn move",
    "fullmove_number" / cs.Int16ul * "move number of the start position, from 1",
    "white_queenside_rook" / cs.Int8ul * "file (0 = a) of the rook white castles queenside with (a when none)",
    "white_kingside_rook" / cs.Int8ul * "file (7 = h) of the rook white castles kingside with (h when none)",
    "black_queenside_rook" / cs.Int8ul * "file of the rook black castles queenside with (a when none)",
    "black_kingside_rook" / cs.Int8ul * "file of the rook black castles kingside with (h when none)",
    "result" / RESULT * "the game's result from white's side",
)
"""The start of every game: the start position, the castling rook files (Q K q k) and the result."""

HEADER_SIZE: int = HEADER.sizeof()


# --- moves --------------------------------------------------------------------------------------------

FLAG = MeaningEnum(cs.BitsInteger(4), {
    "quiet": (0, "a move to an empty square"),
    "double_push": (1, "a pawn advancing two squares"),
    "king_castle": (2, "castling with the rook on the h-side of the king; the king ends on the g-file"),
    "queen_castle": (3, "castling with the rook on the a-side of the king; the king ends on the c-file"),
    "capture": (4, "a capture (not en passant, not a promotion)"),
    "en_passant": (5, "an en-passant capture"),
    "knight_promotion": (8, "a pawn move to the last rank, promoting to a knight"),
    "bishop_promotion": (9, "a promotion to a bishop"),
    "rook_promotion": (10, "a promotion to a rook"),
    "queen_promotion": (11, "a promotion to a queen"),
    "knight_promotion_capture": (12, "a capture promoting to a knight"),
    "bishop_promotion_capture": (13, "a capture promoting to a bishop"),
    "rook_promotion_capture": (14, "a capture promoting to a rook"),
    "queen_promotion_capture": (15, "a capture promoting to a queen"),
})
"""The kind of a move; 6 and 7 are not used. Bit 2 marks captures, bit 3 promotions."""

MOVE = BitStructLE(
    "source" / cs.BitsInteger(6) * "square the piece leaves (0 = a1, 1 = b1, ..., 63 = h8); the king's square "
                                   "when castling",
    "destination" / cs.BitsInteger(6) * "square the piece reaches; when castling the king's g- or c-file square "
                                        "(the king's own square when it does not move)",
    "flag" / FLAG * "what kind of move",
)
"""A move as a little-endian u16: ``flag | destination << 4 | source << 10``; 0 (a1a1 quiet) is the null move."""


# --- the policy format (montyformat) -----------------------------------------------------------------------

PLY_HEAD = cs.Struct(
    "move" / MOVE * "the move played",
    "score" / cs.Int16ul * "the search's score for the side to move, trunc(score * 65535) with score in [0, 1]",
    "num_moves" / cs.Int8ul * "number of legal moves, 0 when the ply stores no visit distribution",
)
"""The fixed part of a ply record."""

PLY = cs.Struct(
    *PLY_HEAD.subcons,
    "visits" / cs.Array(cs.this.num_moves, cs.Int8ul)
    * "visits of one legal move (moves in the order of their u16 codes), 255 = the most visited",
)
"""One ply of the policy format."""

TERMINATOR = cs.Struct(
    "null_move" / cs.Const(b"\x00\x00") * "the null move (u16 0): the game ends",
)
"""The end of a game in the policy format."""


# --- the value format (montyvalue) ---------------------------------------------------------------------------

VALUE_PLY = cs.Struct(
    "move" / MOVE * "the move played",
    "score" / cs.Int16sl * "evaluation from white's side, trunc(-400 * ln(1 / p - 1)) with p white's expected "
                           "score",
)
"""One ply of the value format."""

VALUE_TERMINATOR = cs.Struct(
    "null_move" / cs.Const(b"\x00\x00") * "the null move (u16 0)",
    "score" / cs.Const(b"\x00\x00") * "score 0: with the null move, the game ends",
)
"""The end of a game in the value format: the whole 4-byte record is zero."""


UNREAD = cs.GreedyBytes * "bytes that do not read as the record expected here"
"""Bytes where a reader stopped (for showing a fault, not part of the format)."""


# --- whole games and files (the grammar; readers use the records above) -----------------------------------

def _plies(ply: cs.Construct, terminator: cs.Construct) -> cs.Construct:
    """Plies up to, not including, the terminator (the reference reader stops at the terminator's bytes)."""
    size = terminator.sizeof()

    def more(this: Any) -> bool:
        return bool(this._building or this.next != bytes(size))

    return cs.GreedyRange(cs.FocusedSeq("ply", "next" / cs.Peek(cs.Bytes(size)), cs.Check(more), "ply" / ply))


POLICY_GAME = cs.Struct(
    "header" / HEADER * "the start position and the result",
    "plies" / _plies(PLY, TERMINATOR) * "the plies of the game",
    "terminator" / TERMINATOR * "end of the game",
)
"""A game in the policy format."""

VALUE_GAME = cs.Struct(
    "header" / HEADER * "the start position and the result",
    "plies" / _plies(VALUE_PLY, VALUE_TERMINATOR) * "the plies of the game",
    "terminator" / VALUE_TERMINATOR * "end of the game",
)
"""A game in the value format."""

POLICY_FILE = cs.GreedyRange(POLICY_GAME)
VALUE_FILE = cs.GreedyRange(VALUE_GAME)


FORMAT = FormatDoc(
    key="monty",
    title="Monty training data",
    extensions=(".montyformat", ".montyvalue"),
    summary=(
        "Training data written by the Monty chess engine's data generator (the Rust crate `montyformat`). A "
        "file is a sequence of games and nothing else: no file header, no index. A game is a 43-byte header "
        "(the start position, the files of the castling rooks and the result), then one record per ply, then "
        "a terminator. The *policy* format (`MontyFormat`) stores for each ply the move, the search's score "
        "and the visit distribution over the legal moves, and ends a game with a null move (2 zero bytes); "
        "the *value* format (`MontyValueFormat`) stores the move and an evaluation, and ends a game with 4 "
        "zero bytes. All integers are little-endian. Squares are numbered 0 = a1, 1 = b1, ..., 7 = h1, "
        "8 = a2, ..., 63 = h8."
    ),
    structures=(
        Structure("Game header", HEADER, "The start of every game, in both formats."),
        Structure("Move", MOVE, "A move as a little-endian u16: `flag | destination << 4 | source << 10`."),
        Structure("Ply, policy format", PLY, "One record per ply of a policy file; `num_moves` visit bytes follow "
                  "the fixed part."),
        Structure("Terminator, policy format", TERMINATOR, "After the last ply of a policy game."),
        Structure("Ply, value format", VALUE_PLY, "One record per ply of a value file."),
        Structure("Terminator, value format", VALUE_TERMINATOR, "After the last ply of a value game."),
    ),
    notes=(
        "**Grammar.** policy file = (header, (move, score, num_moves, visits[num_moves])*, 00 00)*; value file "
        "= (header, (move, score)*, 00 00 00 00)*. A game ends where a move would be the null move (u16 0; "
        "in the value format the whole 4-byte record is 0).",
        "**Bitboards.** The 8 piece bitboards are stored as 4 overlapping ones: black; rooks|queens|kings; "
        "knights|bishops|kings; pawns|bishops|queens. Decoding: occupancy = b1|b2|b3, white = occupancy ^ "
        "black, kings = b1&b2, queens = b1&b3, bishops = b2&b3, rooks = b1^kings^queens, knights = "
        "b2^bishops^kings, pawns = b3^bishops^queens. A square in all three of b1, b2, b3, or a black "
        "square outside the occupancy, is invalid.",
        "**Square numbering** is rank-major like python-chess (0 = a1, 1 = b1, 8 = a2), not '0=A1 1=A2' as "
        "the specification's text says: g2g4 (source 14, destination 30, flag 1) is 14817.",
        "**Rook files** are 4 bytes in the order Q K q k (white queenside, white kingside, black queenside, "
        "black kingside): the files of the start position's castling rooks, the a- or h-file by convention "
        "for a right that is not held. Standard chess is `00 07 00 07`, and four zero bytes are read as that "
        "default. Other files, or a castling right with the king off the e-file, make the game a Chess960 "
        "game (the corpus Chess960 game, rooks on f and h, stores `05 07 05 07`). The files are written as "
        "they are read, so that a file rewritten from what was read is identical.",
        "**Castling** is stored as the king's move to the g- or c-file with flag 2 (kingside) or 3 "
        "(queenside), in Chess960 too: a king on g8 castling with the h8 rook is stored as g8g8 "
        "(64482 = 2 | 62 << 4 | 62 << 10), source equal to destination; chessformats gives it as the "
        "python-chess Chess960 move g8h8 (king takes own rook).",
        "**En-passant byte.** Set to the square behind the pawn after every double push (0 = none), whether "
        "or not an en-passant capture is possible.",
        "**Score, policy format.** u16 = trunc(score * 65535) computed in 32-bit floats, score in [0, 1] "
        "from the side to move's point of view (the corpus scores of black plies are 1 - white's). "
        "chessformats reads it as raw / 65535.",
        "**Score, value format.** i16 = trunc(-400 * ln(1/p - 1)) in 32-bit floats (saturating), where p "
        "is white's expected score: the writer (`MontyValueFormat::push`) turns the side to move's score "
        "s into p = s for white and 1 - s for black. chessformats reads back s = 1 / (1 + exp(-raw/400)) "
        "for white and 1 minus that for black. The program that wrote the corpus clamped p to [0.01, 0.99] "
        "(no score beyond +-1838).",
        "**Visit distribution.** num_moves is the number of legal moves of the position (0 = no "
        "distribution stored for the ply; the corpus has both kinds); then one byte per legal move, the "
        "moves ordered by their u16 code (the moves themselves are not stored: a reader generates the legal "
        "moves, Chess960 castling included, and sorts them). A stored count that differs from the real number "
        "of legal moves is an error (the reference reader asserts it). The byte is the move's visits "
        "relative to the most visited move: current writers store round(visits * 255 / max_visits) (round "
        "half away from zero); older data used trunc(visits * 256 / max_visits), saturated at 255. Both "
        "give 255 for the most visited move; chessformats writes either (`rounding=`) and reads a byte b as "
        "the fraction b / (sum of the bytes).",
        "**Result** 0 = white lost, 1 = draw, 2 = white won (the reference writes `result * 2` of a float "
        "result in {0, 0.5, 1}).",
    ),
    examples=(
        Example(HEADER, bytes.fromhex("000000000000ffff9900000000000099760000000000007"
                                      "62cff00000000ff2c00000f0001000007000702"),
                "reference_generated_policy.montyformat, game 0: the start position, white won"),
        Example(PLY_HEAD, bytes.fromhex("e139aba014"),
                "the same game, ply 0: g2g4 (a double push), score 41131 / 65535 = 0.628, 20 legal moves"),
        Example(PLY_HEAD, bytes.fromhex("e2fbcd7227"),
                "reference_generated_policy.montyformat, game 3 (Chess960), ply 21: black castles kingside "
                "with the king on g8 and the rook on h8, stored g8g8 (39 legal moves, 39 visit bytes follow)"),
        Example(VALUE_PLY, bytes.fromhex("e139d000"),
                "reference_generated_value.montyvalue, game 0, ply 0: g2g4, evaluation 208 (white's expected "
                "score 1 / (1 + exp(-208/400)) = 0.627)"),
    ),
    references=(
        "The format's documentation (`specs/monty.en.txt`, from the montyformat repository's docs) and "
        "`notes/monty.md`.",
        "official-monty/montyformat (Rust): `MontyFormat::serialise_into_buffer`/`deserialise_from`, "
        "`MontyValueFormat::serialise_into`, `CompressedChessBoard`; the corpus files were written by v0.9.2.",
    ),
)
