"""ChessBase databases: the ``.cba`` file (a game's annotations: a record of typed items)."""

from __future__ import annotations

import construct as cs

from ...engine.schema import MeaningEnum
from ...engine.tagged import Case, TaggedUnion
from .cbg import SETUP
from .cbh import ECO
from .common import I24, LINE_EVALUATION, MEDALS, QUOTATION_DATE, RESULT, U24

ANNOTATION_TYPE = MeaningEnum(cs.Int8ub, {
    "text_after": (0x02, "text after the move"),
    "symbols": (0x03, "move symbol, evaluation and prefix"),
    "squares": (0x04, "coloured squares"),
    "arrows": (0x05, "arrows"),
    "time_spent": (0x07, "time spent on the move"),
    "training": (0x09, "training question (head decoded, the question kept raw)"),
    "sound": (0x10, "sound (layout unknown: kept raw)"),
    "picture": (0x11, "picture (number of an embedded picture)"),
    "game_link": (0x13, "game quotation: another game's header (and moves) quoted in a comment"),
    "pawn_structure": (0x14, "pawn structure"),
    "piece_path": (0x15, "piece path"),
    "white_clock": (0x16, "clock time of white (centiseconds)"),
    "black_clock": (0x17, "clock time of black (centiseconds)"),
    "critical_position": (0x18, "critical position"),
    "correspondence_move": (0x19, "correspondence move (layout unknown: kept raw)"),
    "web_link": (0x1C, "web link"),
    "video": (0x20, "video"),
    "engine_evaluation": (0x21, "computer (engine) evaluation"),
    "medals": (0x22, "medals"),
    "variation_colour": (0x23, "colour of the variation's text"),
    "time_control": (0x24, "time control"),
    "evaluation_list": (0x26, "engine evaluations of the main line"),
    "correspondence_header": (0x61, "correspondence header (kept raw)"),
    "text_before": (0x82, "text before the move"),
})

MOVE_SYMBOL = MeaningEnum(cs.Int8ub, {
    "none": (0, "no move symbol"),
    "good": (1, "! good move"),
    "mistake": (2, "? mistake"),
    "brilliant": (3, "!! brilliant move"),
    "blunder": (4, "?? blunder"),
    "interesting": (5, "!? interesting move"),
    "dubious": (6, "?! dubious move"),
    "only_move": (8, "only move"),
    "zugzwang": (22, "zugzwang"),
})

PREFIX_SYMBOL = MeaningEnum(cs.Int8ub, {
    "none": (0x00, "no prefix"),
    "with_idea": (0x8C, "with the idea"),
    "directed_against": (0x8D, "directed against"),
    "better_is": (0x8E, "better is"),
    "worse_is": (0x8F, "worse is"),
    "equivalent": (0x90, "equivalent is"),
    "editorial": (0x91, "editorial comment"),
})

TEXT_LANGUAGE = MeaningEnum(cs.Int8ub, {
    "all": (0x00, "all languages (none given)"),
    "english": (0x2A, "English"),
    "spanish": (0x2B, "Spanish"),
    "french": (0x31, "French"),
    "german": (0x35, "German"),
    "italian": (0x46, "Italian"),
    "dutch": (0x67, "Dutch"),
    "portuguese": (0x75, "Portuguese"),
})

COLOUR = MeaningEnum(cs.Int8ub, {
    "none": (0, "no colour (morphy's GraphicalAnnotationColor NONE)"),
    "not_used": (1, "not used (morphy's NOT_USED)"),
    "green": (2, "green (seen: morphy_test_annotations game 6)"),
    "yellow": (3, "yellow (morphy's YELLOW and format notes; no corpus example)"),
    "red": (4, "red (seen: morphy_test_annotations game 6)"),
})
"""Square and arrow colours: 2, 3, 4 as the Java project Yarin78/morphy (GraphicalAnnotationColor) numbers them."""


def _optional(con: cs.Construct, label: str) -> cs.Construct:
    """A field that may be missing at the end of an item (the item's size says)."""
    optional = cs.Optional(con)
    optional.type_label = label
    return optional


TEXT_ITEM = cs.Struct(
    "reserved" / cs.Int8ub * "0",
    "language" / TEXT_LANGUAGE * "language of the text",
    "text" / cs.GreedyBytes * "the text (code page of the base); 0x9E marks a diagram",
)

# Layouts of the rarer item types: facts from the Java project Yarin78/morphy (its *AnnotationSerializer
# classes under morphy-cbh/.../games/annotations and its format notes format/v1/spec/3-annotations.md),
# checked against the corpus where it has an example (training: morphy_mate2_veryold).

EVALUATION_KIND = MeaningEnum(cs.Int16sl, {
    "centipawns": (0, "an ordinary evaluation in centipawns"),
    "mate": (1, "mate in the given number of moves"),
    "hidden": (3, "meaning unknown: ChessBase shows nothing for it (morphy)"),
})

TIME_PERIOD_KIND = MeaningEnum(cs.Int8ub, {
    "rest": (0, "the rest of the game, no increment"),
    "stage": (1, "a stage of a set number of moves"),
    "unknown": (2, "meaning unknown"),
    "rest_increment": (3, "the rest of the game, with an increment"),
    "unused": (5, "no time and 1000 moves: not used (after a period of kind 0 or 3)"),
})

TIME_PERIOD = cs.Struct(
    "start" / cs.Int32ub * "time for the period, in hundredths of a second",
    "increment" / cs.Int32ub * "increment per move, in hundredths of a second",
    "moves" / cs.Int16ub * "moves the period lasts; 1000 = the rest of the game",
    "kind" / TIME_PERIOD_KIND * "kind of period (all zeros: not used)",
)
"""One period of a time control item (11 bytes, big-endian)."""

EVALUATION_ENTRY = cs.Struct(
    "kind" / MeaningEnum(cs.Int8ub, {
        "centipawns": (0, "an ordinary evaluation in centipawns"),
        "mate": (1, "mate in the given number of moves"),
        "none": (0xFF, "no evaluation"),
    }) * "kind of evaluation",
    "depth" / cs.Int8ub * "search depth in plies",
    "value" / cs.Int16sb * "centipawns, or moves to mate",
)
"""One entry of an evaluation list: the position before the first move, then one per main-line move."""

def _quoted_string(name: str, meaning: str) -> list[cs.Construct]:
    """A string of a game quotation: a length byte, the bytes, a zero byte (morphy)."""
    return [
        f"{name}_length" / cs.Int8ub * f"bytes of {name}",
        name / cs.Bytes(lambda ctx: ctx[f"{name}_length"]) * meaning,
        f"{name}_end" / cs.Int8ub * "0",
    ]


def _quotation_head(ctx: cs.Container) -> int:
    """Bytes of a game quotation before its moves: 37 fixed, the setup position and the four strings."""
    return int(37 + (28 if ctx.setup is not None else 0) + ctx.white_length + ctx.black_length
               + ctx.event_length + ctx.site_length)


GAME_QUOTATION = cs.Struct(
    "size" / cs.Int16ub * "size of the quotation in bytes, this field included",
    "kind" / MeaningEnum(cs.Int16ub, {
        "header": (1, "the game's header alone"),
        "game": (2, "the game's header and its moves"),
    }) * "what is quoted",
    "flags" / cs.BitStruct(
        "reserved" / cs.BitsInteger(9) * "0 (morphy)",
        "setup" / cs.Flag * "a setup position follows (value 64)",
        "reserved_low" / cs.BitsInteger(6) * "0 (morphy)",
    ) * "flags",
    "setup" / cs.If(cs.this.flags.setup, SETUP) * "the quoted game's start position (when flags.setup)",
    *_quoted_string("white", "white player, 'last,first'"),
    *_quoted_string("black", "black player, 'last,first'"),
    "white_elo" / cs.Int16ub * "white's rating, 0 = not given",
    "black_elo" / cs.Int16ub * "black's rating, 0 = not given",
    "eco" / ECO * "opening classification, as in the .cbh record",
    *_quoted_string("event", "tournament title"),
    *_quoted_string("site", "tournament place"),
    "date" / QUOTATION_DATE * "date of the game",
    "event_type" / cs.Int16ub * "tournament type and time control (morphy's CBUtil; not checked here)",
    "nation" / cs.Int16ub * "tournament country, a number into NATIONS (0 = not given)",
    "category" / cs.Int16ub * "tournament category, 0 = not given",
    "rounds" / cs.Int16ub * "rounds of the tournament, 0 = not given",
    "subround" / cs.Int8ub * "subround, 0 = not given",
    "round" / cs.Int8ub * "round, 0 = not given",
    "result" / RESULT * "result",
    "unknown" / cs.Int16ub * "meaning unknown (morphy: always set to some value)",
    "moves" / cs.Bytes(lambda ctx: max(0, ctx.size - _quotation_head(ctx)))
    * "the quoted moves, 2 bytes per ply (morphy's GameQuotationMoveEncoder; kept raw); empty for kind 1",
    "rest" / cs.GreedyBytes * "bytes after `size` (none expected)",
)
"""A game quotation (item type 0x13), after morphy's GameQuotationAnnotationSerializer."""

ANNOTATION_CASES = {
    0x02: Case("Text after the move (item type 0x02)", TEXT_ITEM, "The text comes after its move."),
    0x82: Case("Text before the move (item type 0x82)", TEXT_ITEM, "The text comes before its move."),
    0x03: Case("Symbols (item type 0x03)", cs.Struct(
        "move_symbol" / MOVE_SYMBOL * "the move's symbol",
        "evaluation" / _optional(LINE_EVALUATION, "u8, optional") * "evaluation of the position (when present)",
        "prefix" / _optional(PREFIX_SYMBOL, "u8, optional") * "prefix symbol (when present)",
    ), "One to three bytes (the item's size says how many)."),
    0x04: Case("Coloured squares (item type 0x04)", cs.Struct(
        "squares" / cs.GreedyRange(cs.Struct(
            "colour" / COLOUR * "colour",
            "square" / cs.Int8ub * "square, numbered from 1: 1 = a1, 2 = a2, ..., 9 = b1 (file-major)",
        )) * "the squares",
    ), "Two bytes per square."),
    0x05: Case("Arrows (item type 0x05)", cs.Struct(
        "arrows" / cs.GreedyRange(cs.Struct(
            "colour" / COLOUR * "colour",
            "source" / cs.Int8ub * "square the arrow starts on, numbered from 1 (file-major)",
            "target" / cs.Int8ub * "square the arrow points to, numbered from 1 (file-major)",
        )) * "the arrows",
    ), "Three bytes per arrow."),
    0x16: Case("White's clock (item type 0x16)", cs.Struct(
        "centiseconds" / cs.Int32ub * "time left on the clock, in hundredths of a second"), ""),
    0x17: Case("Black's clock (item type 0x17)", cs.Struct(
        "centiseconds" / cs.Int32ub * "time left on the clock, in hundredths of a second"), ""),
    0x18: Case("Critical position (item type 0x18)", cs.Struct(
        "phase" / MeaningEnum(cs.Int8ub, {
            "opening": (1, "critical position in the opening"),
            "middlegame": (2, "critical position in the middlegame"),
            "endgame": (3, "critical position in the endgame"),
        }) * "game phase of the critical position"), ""),
    0x22: Case("Medals (item type 0x22)", cs.Struct(
        "reserved" / cs.Int16ub * "0", "medals" / MEDALS * "medals, as in the .cbh record"), ""),
    0x23: Case("Variation colour (item type 0x23)", cs.Struct(
        "reserved" / cs.Int8ub * "0",
        "blue" / cs.Int8ub * "blue component",
        "green" / cs.Int8ub * "green component",
        "red" / cs.Int8ub * "red component",
    ), ""),
    0x07: Case("Time spent (item type 0x07)", cs.Struct(
        "hours" / cs.Int8ub * "hours spent on the move",
        "minutes" / cs.Int8ub * "minutes",
        "seconds" / cs.Int8ub * "seconds",
        "unknown" / cs.Int8ub * "meaning unknown (morphy: 0x1E on each player's first item, else 0)",
    ), "Four bytes (morphy's TimeSpentAnnotation). PGN: `[%emt h:mm:ss]`."),
    0x09: Case("Training (item type 0x09)", cs.Struct(
        "marker" / cs.Bytes(3) * "01 00 01 (every corpus item, morphy_mate2_veryold; morphy's notes)",
        "size" / cs.Int16ul * "bytes from this field to the end of the item, this field included (seen: item "
                              "size - 9; morphy's notes say 'bytes that follow')",
        "seconds" / cs.Int32ul * "time allowed, in seconds",
        "points" / cs.Int16ul * "points for solving it",
        "question" / cs.GreedyBytes * "the question and its solutions (layout unknown)",
    ), "Little-endian after the marker. Kept on the game (`chessbase_extras`): PGN has no form."),
    0x10: Case("Sound (item type 0x10)", cs.Struct(
        "data" / cs.GreedyBytes * "layout unknown (morphy keeps it raw; likely a number like a picture's)"), ""),
    0x11: Case("Picture (item type 0x11)", cs.Struct(
        "number" / cs.GreedyBytes * "number of an embedded picture, in ASCII decimal digits (morphy's notes)"), ""),
    0x13: Case("Game quotation (item type 0x13)", GAME_QUOTATION,
               "Another game's header (and moves) quoted in a comment; morphy's GameQuotationAnnotationSerializer."),
    0x14: Case("Pawn structure (item type 0x14)", cs.Struct(
        "kind" / cs.Int8ub * "which structure (one byte in morphy; the values' meanings are unknown)"), ""),
    0x15: Case("Piece path (item type 0x15)", cs.Struct(
        "kind" / cs.Int8ub * "meaning unknown (morphy: a type)",
        "square" / cs.Int8ub * "the square of the piece, numbered from 1 (1 = a1, 2 = a2, 9 = b1: file-major)",
    ), "Two bytes (morphy's PiecePathAnnotation)."),
    0x19: Case("Correspondence move (item type 0x19)", cs.Struct(
        "data" / cs.GreedyBytes * "layout unknown (morphy keeps it raw; never seen)"), ""),
    0x1C: Case("Web link (item type 0x1C)", cs.Struct(
        "size" / cs.Int16ul * "size of this data in bytes, this field included (little-endian)",
        "url_length" / cs.Int8ub * "bytes of the URL",
        "url" / cs.Bytes(cs.this.url_length) * "the URL",
        "text_length" / cs.Int8ub * "bytes of the text",
        "text" / cs.Bytes(cs.this.text_length) * "the link's text (empty in morphy's examples)",
        "rest" / cs.GreedyBytes * "bytes after the text (none expected)",
    ), "morphy's WebLinkAnnotation."),
    0x20: Case("Video (item type 0x20)", cs.Struct(
        "reserved" / cs.Int8ub * "1 (morphy)",
        "language" / TEXT_LANGUAGE * "language, as in a text item",
        "caption" / cs.GreedyBytes * "a text, likely the video's caption (code page of the base)",
    ), "morphy's notes (its serializer keeps the bytes raw)."),
    0x21: Case("Computer evaluation (item type 0x21)", cs.Struct(
        "value" / cs.Int16sl * "centipawns (kind 0) or moves to mate (kind 1), from White's point of view",
        "kind" / EVALUATION_KIND * "kind of evaluation",
        "depth" / cs.Int16sl * "search depth in plies (0: not given)",
    ), "Three little-endian 16-bit integers (morphy's ComputerEvaluationAnnotation). PGN: `[%eval ...]`."),
    0x24: Case("Time control (item type 0x24)", cs.Struct(
        "periods" / cs.GreedyRange(TIME_PERIOD) * "three periods of 11 bytes (unused ones all zeros)",
    ), "33 bytes, big-endian (morphy's TimeControlAnnotation). PGN: the `TimeControl` tag."),
    0x26: Case("Evaluation list (item type 0x26)", cs.Struct(
        "count" / cs.Int16ub * "number of entries",
        "entries" / cs.Array(cs.this.count, EVALUATION_ENTRY) * "the evaluations, 4 bytes each",
    ), "On position -1 (morphy's notes). Kept on the game (`chessbase_extras`)."),
}

ANNOTATION_BODY = TaggedUnion(cs.this.type, ANNOTATION_CASES, label="by type (other types: raw bytes)")

ANNOTATION_ITEM = cs.Struct(
    "position" / I24 * "the position the item belongs to: -1 = the whole game, else the number of moves "
                       "before it in the stored (depth-first) move stream",
    "type" / ANNOTATION_TYPE * "what the item holds",
    "size" / cs.Int16ub * "size of the item in bytes, these 6 header bytes included",
    "body" / cs.FixedSized(cs.this.size - 6, ANNOTATION_BODY) * "the item's data, by type",
)
"""One annotation item; unknown types are kept as raw bytes."""

ANNOTATION_ITEM_HEAD = cs.Struct(*ANNOTATION_ITEM.subcons[:3])
"""The 6-byte head of an annotation item (the hex view traces the body with its case's declaration)."""

ANNOTATION_RECORD_HEAD = cs.Struct(
    "game" / U24 * "the record's game number (its .cbh record, from 1); 0 in files of some other writers",
    "fixed" / cs.Bytes(4) * "01 00 0E 0E in every corpus record (meaning unknown)",
    "count" / U24 * "number of items + 1 (24-bit big-endian, as morphy writes it; checked against the items)",
    "size" / cs.Int32ub * "size of the record in bytes, this head included",
)

ANNOTATION_FIXED = bytes.fromhex("01000e0e")
"""The value of ``ANNOTATION_RECORD_HEAD.fixed`` in every corpus record (what a writer stores)."""

ANNOTATION_RECORD = cs.Struct(
    *ANNOTATION_RECORD_HEAD.subcons,
    "entries" / cs.FixedSized(cs.this.size - 14, cs.GreedyRange(ANNOTATION_ITEM)) * "the annotation items",
)
"""A game's annotations in the ``.cba`` file."""
