"""ChessBase databases: the ``.cbg`` file (game data: setup position and coded move stream; guiding texts)."""

from __future__ import annotations

import construct as cs

from ...engine.prefixcode import PrefixCode, PrefixCoded
from ...engine.schema import BitsUnsigned, MeaningEnum, bitwise_rest
from ..squares import SQUARE_NAMES
from .moves import MODE_VARIANT

DATA_WORD = cs.BitStruct(
    "not_encoded" / cs.Flag * "1 for guiding-text data",
    "setup" / cs.Flag * "a setup position follows",
    "mode" / cs.BitsInteger(6) * "move-encoding mode 0-11 (see the notes); 0 for most games",
    "size" / cs.BitsInteger(24) * "size of the data in bytes, this word included",
)
"""The first word of a game's (or text's) data. The spec gives bits 0-29 to the size; the mode uses 24-29."""

SETUP_SQUARE_CODE = PrefixCode({
    "empty": ("0", "an empty square"),
    "white_king": ("10001", "a white king"),
    "white_queen": ("10010", "a white queen"),
    "white_knight": ("10011", "a white knight"),
    "white_bishop": ("10100", "a white bishop"),
    "white_rook": ("10101", "a white rook"),
    "white_pawn": ("10110", "a white pawn"),
    "black_king": ("11001", "a black king"),
    "black_queen": ("11010", "a black queen"),
    "black_knight": ("11011", "a black knight"),
    "black_bishop": ("11100", "a black bishop"),
    "black_rook": ("11101", "a black rook"),
    "black_pawn": ("11110", "a black pawn"),
})
"""The setup board's code word per square: 0 for an empty square, else 1, the colour (0 white, 1 black) and the
piece (001 K, 010 Q, 011 N, 100 B, 101 R, 110 P). Symbol names are ``empty`` or ``<colour>_<python-chess piece
name>``; the words 1x000 and 1x111 are no piece."""

SETUP_BOARD_SIZE = 24
"""Bytes of the setup board: 192 bits, enough for 32 pieces (5 bits) and 32 empty squares (1 bit)."""

SETUP_BOARD = cs.Struct(
    "squares" / PrefixCoded(SETUP_SQUARE_CODE, 64, SQUARE_NAMES)
    * "one code word per square, a1, a2, ..., a8, b1, ..., h8",
    "padding" / BitsUnsigned(lambda ctx: 8 * SETUP_BOARD_SIZE - SETUP_SQUARE_CODE.bit_length(ctx.squares))
    * "bits after the last square, to the end of the 24 bytes (0)",
)
"""The setup board as a bit stream, most significant bit of each byte first."""

SETUP_HEAD = cs.Struct(
    "marker" / cs.Int8ub * "1",
    "turn" / cs.BitStruct(
        "reserved" / cs.BitsInteger(3) * "0",
        "black_to_move" / cs.Flag * "1: black to move",
        "en_passant_file" / cs.BitsInteger(4) * "file of a pawn that just advanced two squares (1 = a, 8 = h; 0 none)",
    ) * "side to move and en passant",
    "castling" / cs.BitStruct(
        "reserved" / cs.BitsInteger(4) * "0",
        "black_short" / cs.Flag * "black may still castle short",
        "black_long" / cs.Flag * "black may still castle long",
        "white_short" / cs.Flag * "white may still castle short",
        "white_long" / cs.Flag * "white may still castle long",
    ) * "castling rights",
    "first_move" / cs.Int8ub * "number of the first move",
)
"""The fixed 4 bytes of ``SETUP`` before its board."""

SETUP = cs.Struct(
    *SETUP_HEAD.subcons,
    "board" / cs.FixedSized(SETUP_BOARD_SIZE, bitwise_rest(SETUP_BOARD))
    * "the pieces as a bit stream over a1, a2, ..., a8, b1, ... h8 (see SETUP_SQUARE_CODE)",
)
"""The 28-byte setup position."""

CHESS960_SETUP = cs.Struct(
    "white_king" / cs.Int8ub * "start square of the white king (0 = a1, 1 = a2, ..., 8 = b1: file-major)",
    "black_king" / cs.Int8ub * "start square of the black king",
    "white_rook_short" / cs.Int8ub * "start square of white's short-castling rook",
    "white_rook_long" / cs.Int8ub * "start square of white's long-castling rook",
    "black_rook_short" / cs.Int8ub * "start square of black's short-castling rook",
    "black_rook_long" / cs.Int8ub * "start square of black's long-castling rook",
    "start_position" / cs.Int16ub * "Chess960 start-position number 0-959",
)
"""The 8 bytes after the setup position in Chess960 games (modes 10 and 11)."""

GAME_DATA_HEAD = cs.Struct(
    "word" / DATA_WORD * "flags, encoding mode and size",
    "setup" / cs.If(cs.this.word.setup, SETUP) * "the start position (when word.setup)",
    "chess960" / cs.If(lambda ctx: ctx.word.setup and ctx.word.mode < len(MODE_VARIANT)
                       and MODE_VARIANT[ctx.word.mode] == "chess960", CHESS960_SETUP)
    * "Chess960 start squares (setup games of modes 10 and 11)",
)
"""The fixed part of a game's data; the coded move stream fills the rest of ``word.size``."""

GAME_DATA = cs.Struct(
    *GAME_DATA_HEAD.subcons,
    "moves" / cs.Bytes(lambda ctx: ctx.word.size - DATA_WORD.sizeof() - (SETUP.sizeof() if ctx.setup is not None else 0)
                       - (CHESS960_SETUP.sizeof() if ctx.chess960 is not None else 0))
    * "the coded move stream (decoded in chessformats.formats.chessbase)",
)
"""A game's data in the ``.cbg`` file."""

TITLE_LANGUAGE = MeaningEnum(cs.Int16ul, {
    "english": (0, "English"), "german": (1, "German"), "french": (2, "French"), "spanish": (3, "Spanish"),
    "italian": (4, "Italian"), "dutch": (5, "Dutch"), "portuguese": (6, "Portuguese (morphy's TextLanguage)"),
    "unknown": (7, "no language: stored by ChessBase, not selectable (morphy; seen in morphy_text)"),
})

TEXT_FORMAT = MeaningEnum(cs.Int16ul, {
    "formatted": (1, "plain text with formatting data, 16-bit lengths (seen: morphy_hedgehog)"),
    "formatted_long": (2, "plain text with formatting data, 32-bit lengths (morphy)"),
    "html": (3, "HTML, 32-bit lengths (seen: morphy_text, ChessBase 16)"),
})


def _short_lengths(ctx: cs.Container) -> bool:
    """Text format 1 (16-bit lengths)? ``text_format`` is read from the enclosing TEXT_DATA."""
    while ctx is not None and "text_format" not in ctx:
        ctx = ctx.get("_")
    return ctx is not None and ctx.text_format in ("formatted", 1)


TEXT_CONTENT = cs.Struct(
    "language" / TITLE_LANGUAGE * "language of the text (little-endian)",
    "length" / cs.IfThenElse(_short_lengths, cs.Int16ul, cs.Int32ul) * "bytes of the text: u16 in format 1, "
                                                                       "else u32 (little-endian)",
    "text" / cs.Bytes(cs.this.length) * "the text: HTML (format 3) or plain text with CR line ends; code page of "
                                       "the base or UTF-8 (the HTML of morphy_text declares charset utf-8)",
    "formatting_length" / cs.IfThenElse(_short_lengths, cs.Int16ul, cs.Int32ul)
    * "bytes of formatting data after the text (u16 in format 1, else u32); in format 3 a u32 that is 0 "
      "(every corpus text; morphy: always 0)",
    "formatting" / cs.Bytes(cs.this.formatting_length) * "formatting runs of a plain text (layout unknown)",
)
"""One language's text in a guiding text's body (morphy's TextContentsSerializer)."""

TEXT_CONTENTS = cs.Struct(
    "unknown" / cs.Int8ub * "0 or 1 (morphy); 1 in every corpus text",
    "count" / cs.Int16ul * "number of texts, one per language (little-endian)",
    "texts" / cs.Array(cs.this.count, TEXT_CONTENT) * "the texts",
    "rest" / cs.GreedyBytes * "bytes after the last text (none in the corpus)",
)
"""The body of a guiding text: its texts, one per language."""

TEXT_DATA = cs.Struct(
    "word" / DATA_WORD * "flags (not_encoded = 1) and size",
    "text_format" / TEXT_FORMAT * "how the texts are stored (little-endian; morphy's text format)",
    "title_count" / cs.Int16ul * "number of titles (little-endian)",
    "titles" / cs.Array(cs.this.title_count, cs.Struct(
        "language" / TITLE_LANGUAGE * "language of the title (little-endian)",
        "length" / cs.Int16ul * "bytes of the title (little-endian)",
        "title" / cs.Bytes(cs.this.length) * "the title",
    )) * "one title per language",
    "body" / cs.FixedSized(lambda ctx: ctx.word.size - 8 - sum(4 + t.length for t in ctx.titles), TEXT_CONTENTS)
    * "the texts (to the end of word.size)",
)
"""A guiding text's data in the ``.cbg`` file (layout after morphy's TextContentsSerializer, checked on the
corpus: every text of morphy_text and morphy_hedgehog parses to its end and rebuilds byte for byte)."""
