"""ChessBase game databases (``.cbh`` and companions): declarations only.

A database is a family of files sharing one name: ``.cbh`` (one 46-byte record per game or guiding text),
``.cbg`` (game data: setup position and the coded move stream; guiding-text data), ``.cba`` (annotations),
and the entity files ``.cbp`` (players), ``.cbt`` (tournaments), ``.cbc`` (annotators), ``.cbs`` (sources),
``.cbe`` (teams), each an AVL tree of fixed-size records. ``.cbh .cbg .cba`` are big-endian, the entity
files little-endian. Sources: ``specs/chessbase.ru.txt`` (a translation of the CBH format description),
corrected by ``notes/chessbase.md`` and by the corpus (``corpus/chessbase``); where the bytes disagree
with both, the meaning says so. The ``.cbj`` layout (extended game header) comes from the Java project
Yarin78/morphy (``ExtendedGameHeaderStorage``), facts only, each checked on the corpus. Move decoding and
every chess meaning live in :mod:`chessformats.formats.chessbase`.
"""

from __future__ import annotations

import functools
import itertools

import construct as cs

from ..engine.bitruns import BitStructLE
from ..engine.schema import Example, FormatDoc, MeaningEnum, Structure
from ..engine.tagged import Case, TaggedUnion

__all__ = [
    "ANNOTATION_BODY",
    "ANNOTATION_ITEM",
    "ANNOTATION_ITEM_HEAD",
    "ANNOTATION_RECORD",
    "ANNOTATION_RECORD_HEAD",
    "ANNOTATION_TYPE",
    "ANNOTATOR",
    "CBH_HEADER",
    "CBH_HEADER_SIZE",
    "CBH_RECORD",
    "CBH_RECORD_SIZE",
    "CBJ_HEADER",
    "CBJ_HEADER_SIZE",
    "CBJ_RECORD",
    "CBJ_RECORD_V8",
    "CHESS960_SETUP",
    "ENTITY_HEADER",
    "ENTITY_NODE",
    "ENTITY_RECORDS",
    "FORMAT",
    "GAME_DATA_HEAD",
    "GAME_RECORD",
    "LINE_EVALUATION",
    "MODE_TABLES",
    "MOVE_BYTE",
    "MOVE_BYTES",
    "MOVE_CODES",
    "NATIONS",
    "PLAYER",
    "PROMOTION",
    "RESULT",
    "SETUP",
    "SIMPLE_MOVE",
    "SIMPLE_MOVE_BYTES",
    "SOURCE",
    "STORE_HEADER",
    "TEAM",
    "TEXT_CONTENTS",
    "TEXT_DATA",
    "TEXT_RECORD",
    "TIME_PERIOD",
    "TOURNAMENT",
    "TWO_BYTE_MOVE",
]

I24 = cs.BytesInteger(3, signed=True)
U24 = cs.Int24ub

# --- shared value tables -----------------------------------------------------------------------------

NATIONS: tuple[str, ...] = (
    "AFG", "ALB", "ALG", "AND", "ANG", "ANT", "ARG", "ARM", "AUS", "AZE", "BAH", "BHN", "BAN", "BAR", "BLR", "BEL",
    "BLZ", "BER", "BOL", "BIH", "BOT", "BRA", "IVB", "BRU", "BUL", "BUR", "CAN", "CHI", "CHN", "COL", "CRI", "CRO",
    "CUB", "CYP", "CZE", "DEN", "DJI", "DOM", "ECU", "EGY", "ESP", "EST", "ETH", "FAI", "FIJ", "FIN", "FRM", "GAM",
    "GEO", "GHA", "GRE", "GUA", "GCI", "GUY", "HAI", "HON", "HKG", "HUN", "ISL", "IND", "INA", "IRI", "IRQ", "IRL",
    "ITA", "IVO", "JAM", "JPN", "JCI", "JOR", "KAZ", "KEN", "KOR", "KGZ", "KUW", "LAT", "LBN", "LBY", "LIE", "LTU",
    "LUX", "MAC", "MAD", "MAS", "MLI", "MLT", "MAU", "MRI", "MEX", "MDA", "MNC", "MGL", "MAR", "MOZ", "MYA", "NAM",
    "NEP", "AHO", "NZL", "NCA", "NGR", "NOR", "PAK", "PLE", "PAN", "PNG", "PAR", "PER", "PHI", "POL", "POR", "PUR",
    "QAT", "ROM", "RUS", "ESA", "SMR", "SCO", "SEY", "SIN", "SVK", "SLO", "RSA", "SRI", "SUD", "SUR", "SWE", "SUI",
    "SYR", "TJK", "TAN", "THA", "TRI", "TUN", "TUR", "TKM", "UGA", "UKR", "UAE", "URU", "URS", "UZB", "VEN", "VIE",
    "ISV", "WLS", "YEM", "YUG", "ZAM", "ZIM", "ZRE", "DDR", "CSR", "CHD", "CAM", "KAP", "KBA", "COM", "CON", "NKO",
    "LAO", "LES", "MWI", "MDV", "MSH", "OMN", "NAU", "MIC", "NIG", "SAU", "TOG", "TON", "VAN", "VAT", "TUV", "SWA",
    "SIE", "SLU", "PAP", "SVI", "SKI", "SAL", "GE2", "ZAR", "RWA", "LBR", "NET", "TWN", "ASU", "AGG", "ARN", "BNN",
    "BTN", "BRI", "CMB", "CAY", "CAR", "CIA", "COA", "CIN", "ELG", "ERI", "FGB", "FRG", "FRP", "GAB", "GGB", "GRA",
    "GRL", "FGA", "GMA", "GUI", "GUB", "IOM", "JMY", "MFR", "MYF", "MSG", "NCF", "NNN", "NNA", "NMI", "OTM", "PAL",
    "PIG", "RUF", "SAO", "SOM", "SVN", "HGB", "PGB", "TKI", "TCI", "WFR", "NIR", "ISS", "GBR", "SAA", "MNT", "SER",
    "CAT", "BAS", "KOS", "CRC", "LBA", "LEB", "LIB",
)
"""Nation abbreviations by number (1 = ``AFG``); 0 = not given. From the spec's ``Nation_Abbrev``."""

NATION = MeaningEnum(cs.Int8ub, {"none": (0, "not given"),
                                 **{code.lower(): (number, code) for number, code in enumerate(NATIONS, 1)}})

RESULT = MeaningEnum(cs.Int8ub, {
    "black_wins": (0, "0-1"),
    "draw": (1, "1/2-1/2"),
    "white_wins": (2, "1-0"),
    "line": (3, "no game result: a line (see line_evaluation); also what BielMTO stores for the PGN's 1/2-0"),
    "black_wins_forfeit": (4, "-:+ (black wins by forfeit)"),
    "draw_forfeit": (5, "=:= (draw without play)"),
    "white_wins_forfeit": (6, "+:- (white wins by forfeit)"),
    "both_lose": (7, "0-0 (both lose)"),
})

LINE_EVALUATION = MeaningEnum(cs.Int8ub, {
    "none": (0x00, "no evaluation"),
    "equal": (0x0B, "= equal position"),
    "unclear": (0x0D, "unclear position"),
    "white_slightly_better": (0x0E, "+/= white is slightly better"),
    "black_slightly_better": (0x0F, "=/+ black is slightly better"),
    "white_better": (0x10, "+/- white is better"),
    "black_better": (0x11, "-/+ black is better"),
    "white_winning": (0x12, "+- white is winning"),
    "black_winning": (0x13, "-+ black is winning"),
    "development": (0x20, "development advantage"),
    "initiative": (0x24, "with initiative"),
    "attack": (0x28, "with attack"),
    "compensation": (0x2C, "with compensation for the material"),
    "counterplay": (0x84, "with counterplay"),
    "zeitnot": (0x8A, "time trouble"),
    "novelty": (0x92, "novelty"),
})
"""Position evaluations (the CBH line evaluation and the evaluation byte of a CBA symbol item)."""

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

def _date_fields(reserved: int) -> list[cs.Construct]:
    return [
        "reserved" / cs.BitsInteger(reserved) * "unused, 0",
        "year" / cs.BitsInteger(12) * "year, 0 = not given",
        "month" / cs.BitsInteger(4) * "month 1-12, 0 = not given",
        "day" / cs.BitsInteger(5) * "day 1-31, 0 = not given",
    ]


DATE = cs.BitStruct(*_date_fields(3))
"""A packed date in 3 bytes (big-endian)."""

DATE_LE = BitStructLE(*_date_fields(11))
"""A packed date in a 4-byte little-endian integer (entity files)."""

MEDALS = cs.BitStruct(
    "custom" / cs.Flag * "user-defined medal",
    "strategic_blunder" / cs.Flag * "strategic blunder",
    "tactical_blunder" / cs.Flag * "tactical blunder",
    "endgame" / cs.Flag * "endgame",
    "piece_play" / cs.Flag * "piece play",
    "material" / cs.Flag * "material",
    "defence" / cs.Flag * "defence",
    "sacrifice" / cs.Flag * "sacrifice",
    "attack" / cs.Flag * "attack",
    "tactics" / cs.Flag * "tactics",
    "strategy" / cs.Flag * "strategy",
    "pawn_structure" / cs.Flag * "pawn structure",
    "novelty" / cs.Flag * "novelty",
    "model_game" / cs.Flag * "model game (opening plan)",
    "decided_tournament" / cs.Flag * "decided the tournament",
    "best_game" / cs.Flag * "best game",
)

# --- .cbh ----------------------------------------------------------------------------------------------

CBH_HEADER = cs.Struct(
    "reserved_0" / cs.Int8ub * "0",
    "header_variant" / MeaningEnum(cs.Int16ub, {
        "modern": (44, "ChessBase 9 and later: next-id fields at 12/16/20/40 in use"),
        "old": (36, "older bases (CBLight, ChessBase 6-8): offset 40 is 0"),
    }) * "header bytes in use: 44 (modern) or 36 (old); the signature is 00 00 2C/24 00 2E 01",
    "record_size" / cs.Const(46, cs.Int16ub) * "size of every record, 46",
    "reserved_5" / cs.Int8ub * "1",
    "next_game_id" / cs.Int32ub * "records + 1 (the number the next record will get)",
    "reserved_10" / cs.Int16ub * "0",
    "counter_12" / cs.Int32ub * "a counter, meaning unknown (0 in most bases)",
    "counter_16" / cs.Int32ub * "a counter, meaning unknown (9 in morphy_hedgehog)",
    "counter_20" / cs.Int32ub * "a counter, meaning unknown (0 in most bases)",
    "reserved_24" / cs.Bytes(16) * "zeros",
    "next_game_id_2" / cs.Int32ub * "records + 1 again in modern bases, 0 in old ones",
    "reserved_44" / cs.Int16ub * "0",
)
"""The 46-byte header of a ``.cbh`` file."""
CBH_HEADER_SIZE: int = CBH_HEADER.sizeof()

RECORD_KIND = cs.BitStruct(
    "deleted" / cs.Flag * "the record is marked deleted",
    "reserved" / cs.BitsInteger(5) * "0 in the corpus",
    "guiding_text" / cs.Flag * "1: a guiding text, 0: a game",
    "present" / cs.Flag * "always 1",
)

RECORD_HEAD = cs.Struct(
    "kind" / RECORD_KIND * "what the record holds",
    "cbg_offset" / cs.Int32ub * "offset of the game's (or text's) data in the .cbg file",
)

GAME_FLAGS = cs.BitStruct(
    "reserved_39" / cs.BitsInteger(4) * "0 in the corpus",
    "chess960" / cs.Flag * "the game is Chess960 (flag 0x08000000; notes, seen in libcbh_Chess960*)",
    "reserved_39_2" / cs.Flag * "0 in the corpus",
    "correspondence_header" / cs.Flag * "has a correspondence header",
    "critical_position" / cs.Flag * "has a critical position",
    "reserved_40" / cs.BitsInteger(2) * "0 in the corpus",
    "piece_path" / cs.Flag * "has a piece path",
    "path_structure" / cs.Flag * "has a path structure",
    "game_link" / cs.Flag * "has a link to another game",
    "video" / cs.Flag * "has embedded video",
    "picture" / cs.Flag * "has an embedded picture",
    "audio" / cs.Flag * "has embedded audio",
    "reserved_41" / cs.BitsInteger(6) * "0 in the corpus",
    "training" / cs.Flag * "has training annotations",
    "reserved_41_0" / cs.Flag * "0 in the corpus",
    "time_notes" / cs.Flag * "has time annotations",
    "reserved_42" / cs.Flag * "0 in the corpus",
    "arrows" / cs.Flag * "has arrows",
    "squares" / cs.Flag * "has coloured squares",
    "symbols" / cs.Flag * "has symbols (s)",
    "comments" / cs.Flag * "has comments (c)",
    "variations" / cs.Flag * "has variations (v)",
    "setup" / cs.Flag * "starts from a setup position (P)",
)
"""Flag bytes 39-42 of a game record, read as one big-endian 32-bit integer."""

ANNOTATION_SIZES = cs.BitStruct(
    "reserved" / cs.BitsInteger(2) * "0 in the corpus",
    "many_arrows" / cs.Flag * "arrows in at least ten positions",
    "many_squares" / cs.Flag * "coloured squares in at least ten positions",
    "many_symbols" / cs.Flag * "many symbols (S)",
    "many_comments" / cs.Flag * "many comments (C)",
    "variation_size" / MeaningEnum(cs.BitsInteger(2), {
        "v": (0, "1-50 moves in variations (if any)"),
        "V": (1, "51-300 moves in variations"),
        "r": (2, "301-1000 moves in variations"),
        "R": (3, "more than 1000 moves in variations"),
    }) * "how many moves the variations hold",
)

ECO = cs.BitStruct(
    "code" / cs.BitsInteger(9) * "0 = none, 1 = A00 ... 500 = E99; the whole field >= 64576 is a Chess960 "
                                 "start position (value - 64576)",
    "subcode" / cs.BitsInteger(7) * "sub-variation 0-99 (00 when not given)",
)

GAME_BODY = cs.Struct(
    "cba_offset" / cs.Int32ub * "offset of the game's annotations in the .cba file (0: none)",
    "white" / U24 * "record number of the white player in the .cbp file",
    "black" / U24 * "record number of the black player in the .cbp file",
    "tournament" / U24 * "record number in the .cbt file",
    "annotator" / U24 * "record number in the .cbc file",
    "source" / U24 * "record number in the .cbs file",
    "date" / DATE * "date of the game",
    "result" / RESULT * "result",
    "line_evaluation" / LINE_EVALUATION * "evaluation when result is 3 (line), else 0",
    "round" / cs.Int8ub * "round, 0 = not given",
    "subround" / cs.Int8ub * "subround, 0 = not given",
    "white_elo" / cs.Int16ub * "white's rating, 0 = not given",
    "black_elo" / cs.Int16ub * "black's rating, 0 = not given",
    "eco" / ECO * "opening classification (ECO) or Chess960 start position",
    "medals" / MEDALS * "medals",
    "flags" / GAME_FLAGS * "what the game contains",
    "reserved_43" / cs.Int8ub * "meaning unknown",
    "annotation_sizes" / ANNOTATION_SIZES * "how much of each kind of annotation",
    "moves" / cs.Int8ub * "moves of the main line; 255: count them from the game data",
)

TEXT_BODY = cs.Struct(
    "reserved_5" / cs.Int16ub * "meaning unknown (0 in the corpus)",
    "tournament" / U24 * "record number in the .cbt file",
    "source" / U24 * "record number in the .cbs file",
    "annotator" / U24 * "record number in the .cbc file",
    "round" / cs.Int8ub * "round, 0 = not given",
    "subround" / cs.Int8ub * "subround (0 in the corpus)",
    "media" / cs.Int8ub * "bit 2: the text holds a WMV video stream",
    "links" / cs.BitStruct(
        "reserved" / cs.BitsInteger(5) * "0 in the corpus",
        "video" / cs.Flag * "links a video",
        "picture" / cs.Flag * "links a picture",
        "audio" / cs.Flag * "links audio",
    ) * "media the text links",
    "reserved_20" / cs.Bytes(26) * "zeros",
)

CBH_BODY = TaggedUnion(cs.this.kind.guiding_text, {
    0: Case("Game record (cbh_record.body when kind.guiding_text = 0)", GAME_BODY,
            "Bytes 5-45 of a game record."),
    1: Case("Guiding-text record (cbh_record.body when kind.guiding_text = 1)", TEXT_BODY,
            "Bytes 5-45 of a guiding-text record."),
}, default=None, label="game or guiding text (by kind.guiding_text)")

CBH_RECORD = cs.Struct(*RECORD_HEAD.subcons, "body" / CBH_BODY * "the game or guiding-text fields")
"""One 46-byte ``.cbh`` record: a game or a guiding text (a tagged union on ``kind.guiding_text``)."""
CBH_RECORD_SIZE: int = CBH_RECORD.sizeof()

GAME_RECORD = cs.Struct(*RECORD_HEAD.subcons, *GAME_BODY.subcons)
"""A game record as one flat structure (its numpy dtype gives the fast header scan)."""
TEXT_RECORD = cs.Struct(*RECORD_HEAD.subcons, *TEXT_BODY.subcons)
"""A guiding-text record as one flat structure."""

# --- .cbg and .cba: the shared header ------------------------------------------------------------------

def _modern_store(ctx: cs.Container) -> bool:
    return int(ctx.header_size) == 26


STORE_HEADER = cs.Struct(
    "header_size" / MeaningEnum(cs.Int16ub, {
        "modern": (26, "26-byte header: 32- and 64-bit size fields"),
        "old": (10, "10-byte header of old bases"),
    }) * "size of this header; the first record follows it",
    "file_size" / cs.Int32ub * "size of the file",
    "unused_bytes" / cs.Int32ub * "bytes no record uses any more (left by edits)",
    "file_size_64" / cs.If(_modern_store, cs.Int64ub) * "size of the file again (modern header only)",
    "unused_bytes_64" / cs.If(_modern_store, cs.Int64ub) * "unused bytes again (modern header only)",
)
"""The header of ``.cbg`` and ``.cba`` files (26 bytes; 10 in old bases, not 10 as the spec says for all)."""

# --- .cbg ----------------------------------------------------------------------------------------------

DATA_WORD = cs.BitStruct(
    "not_encoded" / cs.Flag * "1 for guiding-text data",
    "setup" / cs.Flag * "a setup position follows",
    "mode" / cs.BitsInteger(6) * "move-encoding mode 0-11 (see the notes); 0 for most games",
    "size" / cs.BitsInteger(24) * "size of the data in bytes, this word included",
)
"""The first word of a game's (or text's) data. The spec gives bits 0-29 to the size; the mode uses 24-29."""

SETUP = cs.Struct(
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
    "board" / cs.Bytes(24) * "the pieces as a bit stream over a1, a2, ..., a8, b1, ... h8: 0 = empty square, "
                              "else 1, colour (0 white, 1 black) and piece (001 K, 010 Q, 011 N, 100 B, 101 R, 110 P)",
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
    "chess960" / cs.If(lambda ctx: ctx.word.setup and ctx.word.mode in (10, 11), CHESS960_SETUP)
    * "Chess960 start squares (setup games of modes 10 and 11)",
)
"""The fixed part of a game's data; the coded move stream fills the rest of ``word.size``."""

GAME_DATA = cs.Struct(
    *GAME_DATA_HEAD.subcons,
    "moves" / cs.Bytes(lambda ctx: ctx.word.size - 4 - (28 if ctx.setup is not None else 0)
                       - (8 if ctx.chess960 is not None else 0))
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

# --- the move stream -----------------------------------------------------------------------------------

MOVE_CODES: dict[int, tuple[str, int, int, int] | tuple[str, int, str]] = {
    0x01: ('king', 1, 0, 1), 0x02: ('king', 1, 1, 1), 0x03: ('king', 1, 1, 0), 0x04: ('king', 1, 1, 7),
    0x05: ('king', 1, 0, 7), 0x06: ('king', 1, 7, 7), 0x07: ('king', 1, 7, 0), 0x08: ('king', 1, 7, 1),
    0x09: ('king', 1, 'O-O'), 0x0A: ('king', 1, 'O-O-O'), 0x0B: ('queen', 1, 0, 1), 0x0C: ('queen', 1, 0, 2),
    0x0D: ('queen', 1, 0, 3), 0x0E: ('queen', 1, 0, 4), 0x0F: ('queen', 1, 0, 5), 0x10: ('queen', 1, 0, 6),
    0x11: ('queen', 1, 0, 7), 0x12: ('queen', 1, 1, 0), 0x13: ('queen', 1, 2, 0), 0x14: ('queen', 1, 3, 0),
    0x15: ('queen', 1, 4, 0), 0x16: ('queen', 1, 5, 0), 0x17: ('queen', 1, 6, 0), 0x18: ('queen', 1, 7, 0),
    0x19: ('queen', 1, 1, 1), 0x1A: ('queen', 1, 2, 2), 0x1B: ('queen', 1, 3, 3), 0x1C: ('queen', 1, 4, 4),
    0x1D: ('queen', 1, 5, 5), 0x1E: ('queen', 1, 6, 6), 0x1F: ('queen', 1, 7, 7), 0x20: ('queen', 1, 1, 7),
    0x21: ('queen', 1, 2, 6), 0x22: ('queen', 1, 3, 5), 0x23: ('queen', 1, 4, 4), 0x24: ('queen', 1, 5, 3),
    0x25: ('queen', 1, 6, 2), 0x26: ('queen', 1, 7, 1), 0x27: ('rook', 1, 0, 1), 0x28: ('rook', 1, 0, 2),
    0x29: ('rook', 1, 0, 3), 0x2A: ('rook', 1, 0, 4), 0x2B: ('rook', 1, 0, 5), 0x2C: ('rook', 1, 0, 6),
    0x2D: ('rook', 1, 0, 7), 0x2E: ('rook', 1, 1, 0), 0x2F: ('rook', 1, 2, 0), 0x30: ('rook', 1, 3, 0),
    0x31: ('rook', 1, 4, 0), 0x32: ('rook', 1, 5, 0), 0x33: ('rook', 1, 6, 0), 0x34: ('rook', 1, 7, 0),
    0x35: ('rook', 2, 0, 1), 0x36: ('rook', 2, 0, 2), 0x37: ('rook', 2, 0, 3), 0x38: ('rook', 2, 0, 4),
    0x39: ('rook', 2, 0, 5), 0x3A: ('rook', 2, 0, 6), 0x3B: ('rook', 2, 0, 7), 0x3C: ('rook', 2, 1, 0),
    0x3D: ('rook', 2, 2, 0), 0x3E: ('rook', 2, 3, 0), 0x3F: ('rook', 2, 4, 0), 0x40: ('rook', 2, 5, 0),
    0x41: ('rook', 2, 6, 0), 0x42: ('rook', 2, 7, 0), 0x43: ('bishop', 1, 1, 1), 0x44: ('bishop', 1, 2, 2),
    0x45: ('bishop', 1, 3, 3), 0x46: ('bishop', 1, 4, 4), 0x47: ('bishop', 1, 5, 5), 0x48: ('bishop', 1, 6, 6),
    0x49: ('bishop', 1, 7, 7), 0x4A: ('bishop', 1, 1, 7), 0x4B: ('bishop', 1, 2, 6), 0x4C: ('bishop', 1, 3, 5),
    0x4D: ('bishop', 1, 4, 4), 0x4E: ('bishop', 1, 5, 3), 0x4F: ('bishop', 1, 6, 2), 0x50: ('bishop', 1, 7, 1),
    0x51: ('bishop', 2, 1, 1), 0x52: ('bishop', 2, 2, 2), 0x53: ('bishop', 2, 3, 3), 0x54: ('bishop', 2, 4, 4),
    0x55: ('bishop', 2, 5, 5), 0x56: ('bishop', 2, 6, 6), 0x57: ('bishop', 2, 7, 7), 0x58: ('bishop', 2, 1, 7),
    0x59: ('bishop', 2, 2, 6), 0x5A: ('bishop', 2, 3, 5), 0x5B: ('bishop', 2, 4, 4), 0x5C: ('bishop', 2, 5, 3),
    0x5D: ('bishop', 2, 6, 2), 0x5E: ('bishop', 2, 7, 1), 0x5F: ('knight', 1, 2, 1), 0x60: ('knight', 1, 1, 2),
    0x61: ('knight', 1, 7, 2), 0x62: ('knight', 1, 6, 1), 0x63: ('knight', 1, 6, 7), 0x64: ('knight', 1, 7, 6),
    0x65: ('knight', 1, 1, 6), 0x66: ('knight', 1, 2, 7), 0x67: ('knight', 2, 2, 1), 0x68: ('knight', 2, 1, 2),
    0x69: ('knight', 2, 7, 2), 0x6A: ('knight', 2, 6, 1), 0x6B: ('knight', 2, 6, 7), 0x6C: ('knight', 2, 7, 6),
    0x6D: ('knight', 2, 1, 6), 0x6E: ('knight', 2, 2, 7), 0x6F: ('pawn', 1, 0, 1), 0x70: ('pawn', 1, 0, 2),
    0x71: ('pawn', 1, 1, 1), 0x72: ('pawn', 1, 7, 1), 0x73: ('pawn', 2, 0, 1), 0x74: ('pawn', 2, 0, 2),
    0x75: ('pawn', 2, 1, 1), 0x76: ('pawn', 2, 7, 1), 0x77: ('pawn', 3, 0, 1), 0x78: ('pawn', 3, 0, 2),
    0x79: ('pawn', 3, 1, 1), 0x7A: ('pawn', 3, 7, 1), 0x7B: ('pawn', 4, 0, 1), 0x7C: ('pawn', 4, 0, 2),
    0x7D: ('pawn', 4, 1, 1), 0x7E: ('pawn', 4, 7, 1), 0x7F: ('pawn', 5, 0, 1), 0x80: ('pawn', 5, 0, 2),
    0x81: ('pawn', 5, 1, 1), 0x82: ('pawn', 5, 7, 1), 0x83: ('pawn', 6, 0, 1), 0x84: ('pawn', 6, 0, 2),
    0x85: ('pawn', 6, 1, 1), 0x86: ('pawn', 6, 7, 1), 0x87: ('pawn', 7, 0, 1), 0x88: ('pawn', 7, 0, 2),
    0x89: ('pawn', 7, 1, 1), 0x8A: ('pawn', 7, 7, 1), 0x8B: ('pawn', 8, 0, 1), 0x8C: ('pawn', 8, 0, 2),
    0x8D: ('pawn', 8, 1, 1), 0x8E: ('pawn', 8, 7, 1), 0x8F: ('queen', 2, 0, 1), 0x90: ('queen', 2, 0, 2),
    0x91: ('queen', 2, 0, 3), 0x92: ('queen', 2, 0, 4), 0x93: ('queen', 2, 0, 5), 0x94: ('queen', 2, 0, 6),
    0x95: ('queen', 2, 0, 7), 0x96: ('queen', 2, 1, 0), 0x97: ('queen', 2, 2, 0), 0x98: ('queen', 2, 3, 0),
    0x99: ('queen', 2, 4, 0), 0x9A: ('queen', 2, 5, 0), 0x9B: ('queen', 2, 6, 0), 0x9C: ('queen', 2, 7, 0),
    0x9D: ('queen', 2, 1, 1), 0x9E: ('queen', 2, 2, 2), 0x9F: ('queen', 2, 3, 3), 0xA0: ('queen', 2, 4, 4),
    0xA1: ('queen', 2, 5, 5), 0xA2: ('queen', 2, 6, 6), 0xA3: ('queen', 2, 7, 7), 0xA4: ('queen', 2, 1, 7),
    0xA5: ('queen', 2, 2, 6), 0xA6: ('queen', 2, 3, 5), 0xA7: ('queen', 2, 4, 4), 0xA8: ('queen', 2, 5, 3),
    0xA9: ('queen', 2, 6, 2), 0xAA: ('queen', 2, 7, 1), 0xAB: ('queen', 3, 0, 1), 0xAC: ('queen', 3, 0, 2),
    0xAD: ('queen', 3, 0, 3), 0xAE: ('queen', 3, 0, 4), 0xAF: ('queen', 3, 0, 5), 0xB0: ('queen', 3, 0, 6),
    0xB1: ('queen', 3, 0, 7), 0xB2: ('queen', 3, 1, 0), 0xB3: ('queen', 3, 2, 0), 0xB4: ('queen', 3, 3, 0),
    0xB5: ('queen', 3, 4, 0), 0xB6: ('queen', 3, 5, 0), 0xB7: ('queen', 3, 6, 0), 0xB8: ('queen', 3, 7, 0),
    0xB9: ('queen', 3, 1, 1), 0xBA: ('queen', 3, 2, 2), 0xBB: ('queen', 3, 3, 3), 0xBC: ('queen', 3, 4, 4),
    0xBD: ('queen', 3, 5, 5), 0xBE: ('queen', 3, 6, 6), 0xBF: ('queen', 3, 7, 7), 0xC0: ('queen', 3, 1, 7),
    0xC1: ('queen', 3, 2, 6), 0xC2: ('queen', 3, 3, 5), 0xC3: ('queen', 3, 4, 4), 0xC4: ('queen', 3, 5, 3),
    0xC5: ('queen', 3, 6, 2), 0xC6: ('queen', 3, 7, 1), 0xC7: ('rook', 3, 0, 1), 0xC8: ('rook', 3, 0, 2),
    0xC9: ('rook', 3, 0, 3), 0xCA: ('rook', 3, 0, 4), 0xCB: ('rook', 3, 0, 5), 0xCC: ('rook', 3, 0, 6),
    0xCD: ('rook', 3, 0, 7), 0xCE: ('rook', 3, 1, 0), 0xCF: ('rook', 3, 2, 0), 0xD0: ('rook', 3, 3, 0),
    0xD1: ('rook', 3, 4, 0), 0xD2: ('rook', 3, 5, 0), 0xD3: ('rook', 3, 6, 0), 0xD4: ('rook', 3, 7, 0),
    0xD5: ('bishop', 3, 1, 1), 0xD6: ('bishop', 3, 2, 2), 0xD7: ('bishop', 3, 3, 3), 0xD8: ('bishop', 3, 4, 4),
    0xD9: ('bishop', 3, 5, 5), 0xDA: ('bishop', 3, 6, 6), 0xDB: ('bishop', 3, 7, 7), 0xDC: ('bishop', 3, 1, 7),
    0xDD: ('bishop', 3, 2, 6), 0xDE: ('bishop', 3, 3, 5), 0xDF: ('bishop', 3, 4, 4), 0xE0: ('bishop', 3, 5, 3),
    0xE1: ('bishop', 3, 6, 2), 0xE2: ('bishop', 3, 7, 1), 0xE3: ('knight', 3, 2, 1), 0xE4: ('knight', 3, 1, 2),
    0xE5: ('knight', 3, 7, 2), 0xE6: ('knight', 3, 6, 1), 0xE7: ('knight', 3, 6, 7), 0xE8: ('knight', 3, 7, 6),
    0xE9: ('knight', 3, 1, 6), 0xEA: ('knight', 3, 2, 7),
}
"""One-byte move codes (after the mode's decode table): ``code -> (piece, number, dx, dy)``.

The n-th piece of a kind moves ``dx`` files right and ``dy`` ranks up, wrapping around the board (mod 8);
pawns move relative to their side (dy forward, dx = 1 right or 7 left as the mover sees it); the king's
``O-O``/``O-O-O`` castle. Code 0 is a null move, 0xEB a two-byte move, 0xEC a byte to skip, 0xFE/0xFF
variation start/end. From the spec's table, which skips code 0x40: its codes 0x41-0xEC are one too high.
"""

CODE_NULL, CODE_TWO_BYTE, CODE_SKIP, CODE_PUSH, CODE_POP = 0x00, 0xEB, 0xEC, 0xFE, 0xFF

PROMOTION = MeaningEnum(cs.BitsInteger(2), {
    "queen": (0, "queen"), "rook": (1, "rook"), "bishop": (2, "bishop"), "knight": (3, "knight"),
})

TWO_BYTE_MOVE = cs.BitStruct(
    "reserved" / cs.BitsInteger(2) * "0",
    "promotion" / PROMOTION * "piece a pawn promotes to (ignored for other moves)",
    "to_file" / cs.BitsInteger(3) * "destination file, 0 = a (the spec says rank: a typo)",
    "to_rank" / cs.BitsInteger(3) * "destination rank, 0 = rank 1",
    "from_file" / cs.BitsInteger(3) * "source file, 0 = a",
    "from_rank" / cs.BitsInteger(3) * "source rank, 0 = rank 1",
)
"""The two decoded bytes after code 0xEB, read as one big-endian 16-bit integer."""

MOVE_BYTE = cs.Struct("code" / cs.Int8ub * "a coded move (decoded with the mode's table and the move counter)")
"""One byte of the move stream, as the hex view shows it."""

MOVE_BYTES = cs.Struct(
    "code" / cs.Int8ub * "a coded marker: 0xEB after decoding (a two-byte move follows)",
    "move" / cs.Bytes(2) * "the coded two-byte move (see TWO_BYTE_MOVE)",
)
"""A two-byte move of the compact encoder, with its marker."""

SIMPLE_MOVE_BYTES = cs.Struct("move" / cs.Bytes(2) * "a coded move of the simple encoder (see SIMPLE_MOVE)")
"""A move of the 'simple' encoder (modes 1, 3, 5, 7)."""

SIMPLE_MOVE = cs.BitStruct(
    "push" / cs.Flag * "a variation starts before this move (remember the position)",
    "pop" / cs.Flag * "the line ends after this move (go back to the remembered position)",
    "promotion" / PROMOTION * "piece a pawn promotes to",
    "to_square" / cs.BitsInteger(6) * "destination, file-major: 0 = a1, 1 = a2, ..., 8 = b1 (source in reverse modes)",
    "from_square" / cs.BitsInteger(6) * "source, file-major (destination in reverse modes); both 0: a null move",
)
"""A move of the 'simple' encoder (modes 1, 3, 5, 7): two decoded bytes as a big-endian 16-bit integer."""

MODE_ENCODER = ("compact", "simple", "compact", "simple", "compact", "simple", "compact", "simple",
                "compact", "compact", "compact", "compact")
MODE_COUNTER = ("pre", "pre", "pre", "pre", "post", "post", "post", "post", "post", "post", "post", "post")
MODE_REVERSE = (False, False, True, True, False, False, True, True, False, True, False, True)
MODE_VARIANT = ("chess",) * 8 + ("losing chess", "losing chess", "chess960", "chess960")
"""Per encoding mode 0-11 (``notes/chessbase-mode-tables.json``): encoder, when the move counter is
subtracted ('pre': before the table lookup, 'post': after), piece numbering from the h-file, variant.
Losing chess (modes 8 and 9; "give away chess" in the Java reader) decodes like chess (kings may be taken)
and is exported as python-chess's ``Giveaway`` variant; how a promotion to a king is coded is unknown."""

MODE_TABLES: tuple[bytes, ...] = (
    bytes.fromhex(  # mode 0
        "a29543f5c13d4a6c5383cc7cffae68add1928b8d35815e74268eabcafd9af3a0a515fcb11eed30ea22eba7cd4e6f2e243294418c6e588250"
        "bb028ad8fa60de52ba46ac299dd7df08210166a3f11927b591d5420eb44cd9185fbc25a69604566aaa331c2b73f0dda437d3c510bf5a2334"
        "755bb855d26b093a5712b37748859b0f9ec7c8a17f7ac0bd316df63ec31171ce7ddaa85490971f444016c9e32ccb84ec9f3f5ce6760b3c20"
        "b73600dce7f94ff7af0607e01a0aa94b0cd66387891d131be4700547677b2feee2e8980defcfc4f4fbb0179964f2d42a034d78c6fe658688"
        "79453be5498f2db9be629314e9d0389cb2c2595db67251f8287e6139e1db6980"
    ),
    bytes.fromhex(  # mode 1
        "a82238fb277c65dd41833cad81e9afcb86cc87cfb1eb798f16d12dbe21520f8b284ce8991afd62ea40b7c819918a5f0dc234390c7be076d0"
        "f1aa4723e3a517a40a58c4bbfa433193a6927098759f89356c146373dfe41146d34402dab3f2eff92554299d1dcaecc7b2c568bcf77e2fe1"
        "5c90e6f636954d2a0397edd62e6eb87426a25951acd7304882334910d8fed5159ca0537d0b32963761ee4fa95ad4e707451cab67941e0ea1"
        "003ef00104b9ce1f135bf5bfc60818de5755e556cd056ab00620db80f8b642d28daeb5f47f78f369604e6f2b1b853a8c716ba3c1c96d8e3b"
        "dc889b12fc9e4a6650643d099aff24bd4bd9baa7b484e2775e5d2c727a3fc3c0"
    ),
    bytes.fromhex(  # mode 2
        "72c66657968c4ea0dd158d2f16d810534d445fa99161c205e406f50ce2fe9d2e735d63a3f8c804a1bdb3005a644c98ed197b54c0d71ce8e3"
        "cafdfa806fd1b40702d9b0eba497e7508218593c47f986490ec47143a6993e85bf7801f0ff1dd68b414a278a346adf624869f1a7b82c6068"
        "c38ee6cfad389c9a0decd017256b297523c93dd5a8b13a46b6ee28dcab310f6dc5f47a394224e16720908435655e305cd479a5bca21b1488"
        "9b40f65612937652ace99f814b94ae0b2213d37f9226be7e1a6c11b5af37834521ccfbdeb92b2d33fc3feab7dbf2f3890a519eef4f6ebbda"
        "b2d2f7c1cb550970c7e0ba7795085832e57d1e368f2a741fce5b033baacd877c"
    ),
    bytes.fromhex(  # mode 3
        "9b93661c750b5b01c19d49b95ffd844fce53ca7e8d4cb8fb975a234d1510e7d809ade594f0e6ff1e332ef4f94070b7cf03bd476d6017bc21"
        "315029c6a4b3181b823e4ee239dadb265c891a355405e9d28b87fe278536950d807d3474923d6e2fd6a28855c74383376c5877a0fcc3e3ef"
        "ae24abeadf86e1785db002f65920a3ccfa8f41b6a8bb79073f13a532ecd77251529e5748e081dcee3a90d1de6f287b116a8c9ad9af7a0861"
        "447c6942990c4600717fa738a1e4c2b22c4bbe12621d19c80ed5ed0a0616bfc476ddacc9d3f8a9652b6314f7a6bad4f2d06bcb91cd9f3b73"
        "f52ac55ec0224a45961f64985668aa8e0fb1e8042d30253cb5f19ceb67b4f38a"
    ),
    bytes.fromhex(  # mode 4
        "58a3ee7247b91fa026fddc6df1e3cbc5e2d029e789e1ae7b3441354ba57cf6e5db8c5f3705bb32544cef5d2a7fd38186df18c34416f7850f"
        "4d30791445aaa26c1592a6624819e93c389428a866090363207d36d72e98ecda01132473cd9ecfd9d5688bd2ab5b69b027fc311b537e6576"
        "5575af0accc7c4b2b522e8a7bef5005a21d1748ede9ce4422bb19b93c17870d6b6ad4e6a647a5749119d12c03a2fe684c607ce08820490b8"
        "87ca6e1e401a50b410bc438a710b8d5c3b3f88baf4f3611df9fe25510debc8591746a4f256b7022d339fd883fbbfeaedac606739dd966ba9"
        "c2770c0e91fa999ae0a1f05ec9064fbd5280d4f897233e1c2c954a8f3d6fffb3"
    ),
    bytes.fromhex(  # mode 5
        "e01b9786a248f0230137faeb50765dcd801a315cffbc78dae5a375b371e1a10e56413fe30dc425e6888970dc99a60b9a142c579e697adf55"
        "ad737cc50372f545628eaf5fccc05ef31813b53809283cbd108be9dd8c940881a7fe2479442bc136327f67e4fd494b21a95b771f1cf64065"
        "3df95af8472653d420d2d84f27aefbb69b74b842fc166fd79fb97b60dec246069cd32ac705853eb10015d196ce909511338fc68284b739a0"
        "e8341e7da8d0eae2ef4cc3584e021db27e982d07d5ca68cb30b4ac8363ec87ee2ebecf6d4d8ad604b035c8c91217618d640fa554293a4a6b"
        "bb2fd93b936aaaa422f419436ef1f7db92ed66590abf6c519152f20c9dabbae7"
    ),
    bytes.fromhex(  # mode 6
        "e5999372cd0d5c1216a3b7b2c78b21441134f7e37649becfaf9efeb0739568c8414f509db1d02be7d7c1bdfacee075142227e90a6f063101"
        "4d79711715f2099f64a90fe11ed9daee9ca660d3f4f9458ee2fb35fc9bba398082e8c41a2530cc487c473cc2625f050b43f1aee4073b5377"
        "6e1c196b363769f056659094ad5ad6c5def5207bac0c6cdfa5d52fdcb8ab2eb474bbf87dbfe6c9d15996aa929a3e334b3d322983420e9166"
        "81635e67ca8c5170c0b36aa7891fa210977eb578c61bd43aa02a843ff3a802248dd2cb04380352ec5d54bca42cd8287f871d5b8f4a4e8adb"
        "ef85eb8855a1085700ea7a98dd2ded58c34c6d611346b9fd268623b61840f6ff"
    ),
    bytes.fromhex(  # mode 7
        "2213559b2e726ff1b75e65818767d8337c4ce56d2a8495ad41cb7674b260ab3fbd08b04792becafdee2f6b9dc416c77fb614061d6c43d27e"
        "12d0386296239098363d508ecf64cd3b217dceb3aea1e6f2a0d418e74d024baa9e7a7928f4071a94f8c1b91f75f73591fe8a1939292c3100"
        "322dd1cc1ba55a5b450597690a71ebe4f9772b6ad65fe8d948edbbbc15f6a3b8ba4625449983823a52c93e17ace3bfdddc40700c3c1e9a8b"
        "88574fe10d0b7ba7e9b58fafec03b1da6809df497827d51cdb42fbff53c2118ca24e24a634d373fa3089de0e10b45c5dc8a86e58f0a95480"
        "850fe201ef37c69cf561048da463fc51ead7c3c0e04ac5209f5659669386f326"
    ),
    bytes.fromhex(  # mode 8
        "b6c693c19baa3035ee96fec70516a70fb577763712674abde254ec5f21d0018c87f61b8e087d57a81423d80490a14f0c532ff342ead4e8b1"
        "fda261c26d4929336402f8811ed58d5227116e7ff0acefdf3e32850928d62d831d9c19e90be68299cdd3d20373b213c3ff3c849eb9f5cf44"
        "620df740f91c0e4c4878c446984e8f7baf157eb71ffc70103dfa4d4575eb633968a4f48ad7a05dc0aee78b943a38dc56be2c513f0a47bc00"
        "7add205b6ca5db3665062a3b079a316a5ab8fbe15c7c8634c99524b41a6f2225abed9297d9ad88e0d1f280de66da7269742be471ce17435e"
        "c5a9ba26b3bf419fa3552ef1e318bb894b79e5b06b91a69dca58cbc85960cc50"
    ),
    bytes.fromhex(  # mode 9
        "e385aedcb26346911a16c2c1761f3104459f3dcca4ffc8b037e2cbca9e6e3c5f11fca0c765fedb877a8144e6ef4124f0bb42185db9c5faaa"
        "e1275a8dab28b1c4fd8256da671c899a35c3130f0923bf2b32866b194e6f1b4947b7a9174fafe71470fb10295bc98e734352a65c0a018b5e"
        "c0f492903369d8bd975968a37c48a1dd3a06f2bcb5980ca5603475515374de4bedd7b82ccea700718c8f3be0b3cdbed107128aba64ac4ddf"
        "c620ee663e80628861d238ea4a9b03b683366df83f9c2e7b7e2de9a26a7279e895d96c2293d42650f602d330f5b4210b407d39150dcf54f1"
        "96e47899e57ff94cebec7725f31d58d59d842f1ef72ad6d055a805080ead5794"
    ),
    bytes.fromhex(  # mode 10
        "385064cc9f566f734d4166a2c6b99647eecfb16d484f442015be82093499eb1a337cab59002224b0b4fa85dd57f3d9d28a8d70b56e43a70b"
        "2708eab3941c631b2bc50cd43f37e8dea623ef06fd3ec14032df2dc8d00ff1e27a95ec3cca4911e025d830fe2ebadcaa534cd15e678b0d9e"
        "a9bf057835c4b6a44bd60452a8762cbdae39b2e30381179a3d68c06592c9f77716fff5e11e36bb868ef99dd56bf474802f7b149729e54a02"
        "935ccba15879f85f26288f7ea5edd389c7889b548760daf0453ac2849021f6f25a2a55186101fbe68c6a12b862839810715be4addb420acd"
        "46d77207ce19b73b319c51c369a391e90e1ffc756c1d7de7af5da0bc137fac4e"
    ),
    bytes.fromhex(  # mode 11
        "1a884fd2d7410e97590db7745d1bad1df98942c3a4ff06e88b1eae8a21075f2bd1265b6adbfca2ec53485a616793d520048019cd3be18184"
        "4a29f0a7f8feb21fb905148f30cc969b3e86ab57917f22c865a615ac0fe223b832a84900907c25d8d07b098243c61352470cdae33ab370c2"
        "f7244e739a4503eaf22785f44d6f8c2daa5ce9b6b40234e6753c6672369416afdc589968c1402a2f39ebdf76c083e46d7e7af16b98f6bcbe"
        "33924c8717d935696210cbf5a9cfed2cbb9c8e286eb531bf79dd3d0aa0e5e79fa37dca78d45037b1b09e4477a1e00b55468d9d6456d65e38"
        "0854fd51182ef36c01fafbc5a512de714bbdceef3f1cc463c7ba6095eec9d311"
    ),
)
"""The decode table of each encoding mode (``MODE_TABLES[0]`` is the spec's ``Cbh_Decode``)."""

# --- .cba ----------------------------------------------------------------------------------------------

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

QUOTATION_DATE = cs.BitStruct(*_date_fields(11))


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
    "fixed" / cs.Bytes(6) * "01 00 0E 0E 00 00 in every corpus record (meaning unknown)",
    "count" / cs.Int8ub * "number of items + 1 (seen on every corpus record)",
    "size" / cs.Int32ub * "size of the record in bytes, this head included",
)

ANNOTATION_RECORD = cs.Struct(
    *ANNOTATION_RECORD_HEAD.subcons,
    "entries" / cs.FixedSized(cs.this.size - 14, cs.GreedyRange(ANNOTATION_ITEM)) * "the annotation items",
)
"""A game's annotations in the ``.cba`` file."""

# --- entity files --------------------------------------------------------------------------------------

ENTITY_HEADER = cs.Struct(
    "records" / cs.Int32ul * "number of records in the file, deleted ones included",
    "root" / cs.Int32sl * "record number of the root of the AVL tree (-1: empty)",
    "magic" / cs.Const(1234567890, cs.Int32ul) * "1234567890",
    "record_data_size" / cs.Int32ul * "record size minus the 9 bytes of the tree node",
    "first_deleted" / cs.Int32sl * "first record of the list of deleted records (-1: none)",
    "existing" / cs.Int32ul * "records not deleted",
    "extra_space" / cs.Int32ul * "bytes of header after this field: 4 in modern bases, 0 in old ones",
    "extra" / cs.Bytes(cs.this.extra_space) * "meaning unknown (0 in most bases)",
)
"""The header of the entity files (28 + extra_space bytes, little-endian)."""

ENTITY_NODE = cs.Struct(
    "left" / cs.Int32sl * "record number of the left subtree's root; -1 none; -999: the record is deleted",
    "right" / cs.Int32sl * "right subtree's root; -1 none; of a deleted record: the next deleted record",
    "balance" / cs.Int8sb * "height of the right subtree minus that of the left one (0 for deleted records)",
)
"""The AVL tree node that starts every entity record."""

PLAYER = cs.Struct(
    *ENTITY_NODE.subcons,
    "last_name" / cs.Bytes(30) * "last name, 0-terminated (bytes after the terminator are leftovers)",
    "first_name" / cs.Bytes(20) * "first name, 0-terminated",
    "games" / cs.Int32ul * "games of the player",
    "first_game" / cs.Int32ul * "number of the player's first game",
)
"""A ``.cbp`` record (67 bytes)."""

TOURNAMENT_TYPE = MeaningEnum(cs.BitsInteger(5), {
    "none": (0, "not given"), "game": (1, "single game"), "match": (2, "match"),
    "round_robin": (3, "round robin"), "swiss": (4, "Swiss system"), "team": (5, "team tournament"),
    "knockout": (6, "knock-out"), "simul": (7, "simultaneous exhibition"),
    "scheveningen": (8, "Scheveningen system"),
})

TOURNAMENT = cs.Struct(
    *ENTITY_NODE.subcons,
    "title" / cs.Bytes(40) * "title, 0-terminated",
    "place" / cs.Bytes(30) * "place, 0-terminated",
    "date" / DATE_LE * "date",
    "kind" / cs.BitStruct(
        "correspondence" / cs.Flag * "correspondence",
        "rapid" / cs.Flag * "rapid",
        "blitz" / cs.Flag * "blitz",
        "type" / TOURNAMENT_TYPE * "type of tournament",
    ) * "type and time control",
    "reserved_84" / cs.Int8ub * "meaning unknown",
    "nation" / NATION * "country",
    "reserved_86" / cs.Int8ub * "meaning unknown",
    "category" / cs.Int8ub * "category 1-99, 0 = not given",
    "flags" / cs.BitStruct(
        "reserved" / cs.BitsInteger(5) * "0",
        "board_points" / cs.Flag * "board points",
        "complete" / cs.Flag * "the tournament is complete",
        "unknown" / cs.Flag * "almost always equal to complete",
    ) * "flags",
    "rounds" / cs.Int8ub * "rounds, 0 = not given",
    "reserved_90" / cs.Int8ub * "meaning unknown",
    "games" / cs.Int32ul * "games of the tournament",
    "first_game" / cs.Int32ul * "number of the tournament's first game",
)
"""A ``.cbt`` record (99 bytes)."""

ANNOTATOR = cs.Struct(
    *ENTITY_NODE.subcons,
    "name" / cs.Bytes(45) * "name, 0-terminated",
    "games" / cs.Int32ul * "games annotated",
    "first_game" / cs.Int32ul * "number of the first game annotated",
)
"""A ``.cbc`` record (62 bytes)."""

SOURCE = cs.Struct(
    *ENTITY_NODE.subcons,
    "title" / cs.Bytes(25) * "title, 0-terminated",
    "publisher" / cs.Bytes(16) * "publisher, 0-terminated",
    "publication" / DATE_LE * "publication date",
    "date" / DATE_LE * "date of the source",
    "version" / cs.Int8ub * "version",
    "quality" / MeaningEnum(cs.Int8ub, {
        "none": (0, "not given (treated as low)"), "high": (1, "high"), "medium": (2, "medium"), "low": (3, "low"),
    }) * "quality",
    "games" / cs.Int32ul * "games from the source",
    "first_game" / cs.Int32ul * "number of the first game from the source",
)
"""A ``.cbs`` record (68 bytes)."""

TEAM = cs.Struct(
    *ENTITY_NODE.subcons,
    "title" / cs.Bytes(45) * "name, 0-terminated",
    "number" / cs.Int16ul * "team number",
    "reserved_56" / cs.Int16ul * "meaning unknown",
    "season" / cs.Int8ub * "bit 0: the team played the season year/year+1 (else only year)",
    "year" / cs.Int32ul * "year",
    "nation" / NATION * "nation",
    "games" / cs.Int32ul * "games of the team",
    "first_game" / cs.Int32ul * "number of the team's first game",
)
"""A ``.cbe`` record (72 bytes)."""

ENTITY_RECORDS = {".cbp": PLAYER, ".cbt": TOURNAMENT, ".cbc": ANNOTATOR, ".cbs": SOURCE, ".cbe": TEAM}
"""The record declaration of each entity file, by extension."""

# --- .cbj: the extended game header ---------------------------------------------------------------------
# Field order and sizes from Yarin78/morphy (ExtendedGameHeaderStorage, ExtendedGameHeader, RatingType,
# EndgameInfo, FinalMaterial); every value the meanings call "seen" or "in the corpus" was checked on
# corpus/chessbase (tests/schemas/test_chessbase_cbj_schema.py).

CBJ_HEADER = cs.Struct(
    "version" / cs.Int32ul * "format version: 11 (120-byte records) or 8 (78-byte records) in the corpus",
    "record_size" / cs.Int32ul * "size of every record: 120 (version 11), 78 (version 8); morphy names 8-38 for "
                                 "older versions",
    "records" / cs.Int32ul * "records in the file (the .cbh record count in the corpus); record n is game n",
    "reserved_12" / cs.Bytes(20) * "leftovers, meaning unknown (fragments of names and paths in the corpus)",
)
"""The 32-byte header of a ``.cbj`` file (little-endian, unlike its records)."""
CBJ_HEADER_SIZE: int = CBJ_HEADER.sizeof()

MATERIAL = cs.BitStruct(
    "pawns" / cs.BitsInteger(4) * "pawns (16 wraps to 0)",
    "queens" / cs.BitsInteger(3) * "queens (at most 7)",
    "knights" / cs.BitsInteger(3) * "knights (at most 7)",
    "bishops" / cs.BitsInteger(3) * "bishops (at most 7)",
    "rooks" / cs.BitsInteger(3) * "rooks (at most 7)",
)
"""The pieces (kings aside) of one side, packed in 16 bits."""

TIME_CONTROL = MeaningEnum(cs.Int8ub, {
    "normal": (0, "normal"), "blitz": (1, "blitz"), "rapid": (2, "rapid"), "correspondence": (3, "correspondence"),
})

RATING_TYPE = cs.Struct(
    "reserved_0" / cs.Int8ub * "0 in the corpus",
    "kind" / MeaningEnum(cs.Int8ub, {
        "none": (0, "not given (all 16 bytes 0; bases written by other programs)"),
        "international": (1, "an international rating (FIDE, ICCF)"),
        "national": (2, "a national rating (morphy; not in the corpus)"),
    }) * "kind of rating",
    "national_control" / TIME_CONTROL * "time control of a national rating (0 otherwise)",
    "international_control" / MeaningEnum(cs.Int8ub, {
        "none": (0, "not given"), "normal": (1, "normal"), "blitz": (2, "blitz"), "rapid": (3, "rapid"),
        "correspondence": (4, "correspondence"), "national": (100, "a national rating (morphy)"),
    }) * "time control of an international rating, plus 1",
    "nation" / NATION * "nation of a national rating (morphy; 0 in the corpus)",
    "name" / cs.Bytes(11) * "name of the rating, 0-terminated (FIDE in the corpus)",
)
"""A player's rating type (16 bytes)."""

ENDGAME = cs.Struct(
    "version" / cs.Int16ub * "1: the fields below are filled (written by morphy); 0 in ChessBase's corpus records",
    "longest" / cs.Int16ub * "code of the endgame type the game stayed in longest (morphy's EndgameType; 0 none)",
    *[field for stage in range(1, 5) for field in (
        f"type_{stage}" / cs.Int16ub * f"code of the game's endgame type number {stage} (0 none)",
        f"ply_{stage}" / cs.Int16ub * f"ply at which endgame type number {stage} starts",
    )],
)
"""Endgame classification (20 bytes; all 0 in the ChessBase-written corpus bases)."""

_CBJ_FIELDS: tuple[cs.Construct, ...] = (
    "white_team" / cs.Int32sb * "record number of white's team in the .cbe file; -1: none",
    "black_team" / cs.Int32sb * "record number of black's team in the .cbe file; -1: none",
    "media_offset" / cs.Int32sb * "a guiding text's offset in the .cbm media file; -1 (ChessBase) or 0: none",
    "cba_offset" / cs.Int64ub * "the game's .cba offset again (equal to the .cbh record's; 0 for guiding texts)",
    "reserved_20" / cs.Int16sb * "0 in the corpus",
    "material_1" / MATERIAL * "material at the end of the main line of the side with more (pawns compared first, "
                              "then queens, knights, bishops, rooks); 0 when not computed",
    "reserved_24" / cs.Int16sb * "0 in the corpus",
    "material_2" / MATERIAL * "material at the end of the main line of the other side",
    "check_sum" / cs.Int16ub * "sum of the ten 16-bit words at offsets 8-27, mod 65536 (morphy: total material)",
    "cbg_offset" / cs.Int64ub * "the game's .cbg offset again (equal to the .cbh record's)",
    "white_rating" / RATING_TYPE * "the type of white's rating",
    "black_rating" / RATING_TYPE * "the type of black's rating",
    "reserved_70" / cs.Int32ub * "meaning unknown (morphy: reset when a game is copied); 0 in the corpus",
    "reserved_74" / cs.Int32ub * "meaning unknown (morphy: reset when a game is copied); 0 in the corpus",
    "game_version" / cs.Int16ub * "edit count: 1 for a new game, raised when it is saved again (morphy)",
    "created" / cs.Int64sb * "creation time in 1/1024 s since 2008-12-01 00:00 Europe/Berlin (other writers: other "
                             "units)",
    "endgame" / ENDGAME * "endgame classification",
    "modified" / cs.Int64ub * "last change in 100 ns ticks since 1582-10-15 00:00 UTC; 0: never changed",
    "game_tag" / cs.Int32sb * "the game's tag record (morphy); 0 or -1 (none) in the corpus",
)
_CBJ_ENDS: tuple[int, ...] = tuple(itertools.accumulate(int(f.sizeof()) for f in _CBJ_FIELDS))


@functools.cache
def cbj_record(size: int) -> cs.Struct:
    """The declaration of a ``.cbj`` record of ``size`` bytes: the fields that fit, then the rest raw."""
    count = sum(1 for end in _CBJ_ENDS if end <= size)
    used = _CBJ_ENDS[count - 1] if count else 0
    fields = list(_CBJ_FIELDS[:count])
    if size > used:
        fields.append("extra" / cs.Bytes(size - used) * "bytes of a version this reader does not know, kept raw")
    return cs.Struct(*fields)


CBJ_RECORD = cbj_record(120)
"""A version-11 ``.cbj`` record (120 bytes, big-endian): the extended header of game n (record n, from 1)."""
CBJ_RECORD_V8 = cbj_record(78)
"""A version-8 ``.cbj`` record (78 bytes): the first 78 bytes of a version-11 record."""

# --- documentation -------------------------------------------------------------------------------------

def _move_table_note() -> str:
    """The one-byte move table in ranges, from :data:`MOVE_CODES` (so the page cannot disagree with the code)."""
    runs: list[tuple[int, int, str]] = []
    for code, entry in sorted(MOVE_CODES.items()):
        label = f"{entry[0]} {entry[1]}" if entry[0] not in ("king",) else "king"
        if runs and runs[-1][2] == label and runs[-1][1] == code - 1:
            runs[-1] = (runs[-1][0], code, label)
        else:
            runs.append((code, code, label))
    parts = [f"0x{a:02X}-0x{b:02X} {label}" for a, b, label in runs]
    return ("**One-byte moves** (after decoding; `MOVE_CODES` lists each code's move): 0x00 null move; "
            + "; ".join(parts) + ". Within a piece's range: vertical steps y+1..y+7, then horizontal x+1..x+7, then "
            "diagonals (queens, bishops; wrapping mod 8), kings: 8 steps then O-O, O-O-O; pawns: one forward, two "
            "forward, capture right, capture left (as the mover sees the board).")


FORMAT = FormatDoc(
    key="chessbase",
    title="ChessBase game database",
    extensions=(".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj"),
    summary=(
        "A ChessBase database is a family of files with one name. The `.cbh` file has a 46-byte header and "
        "one 46-byte record per game or guiding text (game number n, counted from 1, is record n); each record "
        "points into `.cbg` (the game data: setup position and coded move stream) and `.cba` (annotations) "
        "and names the game's players, tournament, annotator and source by record number in the entity files "
        "`.cbp .cbt .cbc .cbs .cbe`, which are AVL trees of fixed-size records. `.cbh .cbg .cba` are "
        "big-endian; the entity files are little-endian. The optional `.cbj` file (the extended game header) "
        "adds per game the teams (record numbers in `.cbe`), rating types, final material and timestamps. "
        "Other companions (`.cbm .cbl .cbtt .cib .cit .cbb .ini` ...) are indexes and settings that a reader "
        "does not need."
    ),
    structures=(
        Structure(".cbh header", CBH_HEADER, "The first 46 bytes of the `.cbh` file. Old bases differ only in "
                  "the values (`header_variant` 36, `next_game_id_2` 0)."),
        Structure(".cbh record", CBH_RECORD, "Record n (from 1) is at offset 46 * n. `body` is a tagged union "
                  "on `kind.guiding_text`; its two layouts follow."),
        Structure(".cbh game record", GAME_RECORD, "A record whose `kind.guiding_text` is 0, every field at its "
                  "offset in the record (the spec's offsets)."),
        Structure(".cbh guiding-text record", TEXT_RECORD, "A record whose `kind.guiding_text` is 1."),
        Structure(".cbg and .cba header", STORE_HEADER, "The header of the `.cbg` and `.cba` files."),
        Structure(".cbg game data", GAME_DATA, "At the record's `cbg_offset`. The move stream is coded: "
                  "see the notes."),
        Structure("Setup position", SETUP, "Present when `word.setup` is set."),
        Structure("Chess960 start squares", CHESS960_SETUP, "After the setup position in modes 10 and 11."),
        Structure("Two-byte move", TWO_BYTE_MOVE, "The two bytes after the decoded marker 0xEB, each decoded like "
                  "a one-byte move, read as one integer."),
        Structure("Simple-encoder move", SIMPLE_MOVE, "Every move of modes 1, 3, 5 and 7: two decoded bytes."),
        Structure(".cbg guiding-text data", TEXT_DATA, "At the text record's `cbg_offset`."),
        Structure(".cba annotation record", ANNOTATION_RECORD, "At the game record's `cba_offset` (0: none)."),
        Structure(".cba annotation item", ANNOTATION_ITEM, "`body` is a tagged union on `type`; the known "
                  "layouts follow, every other type is kept raw."),
        *ANNOTATION_BODY.structures(),
        Structure("Entity file header", ENTITY_HEADER, "The header of `.cbp .cbt .cbc .cbs .cbe` "
                  "(28 bytes in old bases, 32 in modern ones); record n (from 0) follows at "
                  "header size + n * (record_data_size + 9)."),
        Structure(".cbp player", PLAYER, "A player."),
        Structure(".cbt tournament", TOURNAMENT, "A tournament."),
        Structure(".cbc annotator", ANNOTATOR, "An annotator."),
        Structure(".cbs source", SOURCE, "A source."),
        Structure(".cbe team", TEAM, "A team."),
        Structure(".cbj header", CBJ_HEADER, "The first 32 bytes of the `.cbj` file (little-endian); record n "
                  "(game n, from 1) follows at 32 + (n - 1) * record_size. A missing `.cbj`, or one holding fewer "
                  "records than the `.cbh`, means no extended header for those games."),
        Structure(".cbj record", CBJ_RECORD, "A version-11 record (120 bytes, big-endian). Version 8 records "
                  "(78 bytes) end after `reserved_74`; a record of another size holds the fields that fit and "
                  "keeps the rest raw (`extra`)."),
        Structure("Rating type", RATING_TYPE, "`white_rating` and `black_rating` of a `.cbj` record."),
        Structure("Final material", MATERIAL, "`material_1` and `material_2` of a `.cbj` record (a big-endian "
                  "16-bit integer)."),
        Structure("Endgame classification", ENDGAME, "`endgame` of a `.cbj` record."),
    ),
    notes=(
        "**Byte order.** `.cbh .cbg .cba` are big-endian, except the guiding-text title fields; the entity "
        "files are little-endian throughout (the spec says so only for their headers).",
        "**Game data word.** The top byte of the first word of a game's data holds flags (bit 7: guiding text, "
        "bit 6: setup position follows) and the 6-bit encoding mode; only the low 24 bits are the size (the "
        "spec gives bits 0-29 to the size).",
        "**Header sizes.** `.cbg`/`.cba` headers are 26 bytes (10 in old bases; the spec says 10 for all); "
        "bytes 10-25 repeat the file size and the unused-byte count as 64-bit integers.",
        "**Move stream.** Each byte b is decoded with the table of the game's mode: `table[(b - n) & 0xFF]` "
        "('pre' modes) or `(table[b] - n) & 0xFF` ('post' modes), n = moves decoded so far (mod 256). After "
        "decoding, 0xFE starts a variation (remember the position), 0xFF ends the current line (go back to "
        "the remembered position; with none left, the game ends), 0xEB announces a two-byte move and 0xEC is "
        "skipped. (The spec says 0xEC and 0xED: its one-byte table leaves out code 0x40, rook 2 x+5, so every "
        "code it lists from 0x41 on is one too high.) Other codes are one-byte moves of the n-th "
        "piece of a kind (pieces numbered in a1, a2, ..., h8 order; h1, h2, ..., a8 in 'reverse' modes). Only "
        "the first 3 queens, rooks, bishops and knights, 8 pawns and 1 king of a side get a number; a piece "
        "without one never gets one (a promoted piece takes a free number, if any) and moves as a two-byte "
        "move (corpus ManyPromotions). Losing chess (modes 8 and 9) is read as python-chess's `Giveaway`.",
        _move_table_note(),
        "**Annotation positions.** An item's position counts the moves before it in the stored depth-first "
        "order of the move stream (variations included), not in PGN order; -1 is the whole game.",
        "**Entity trees.** Deleted records have `left` = -999 and `right` = the next deleted record. The tree's "
        "order (morphy) is: players by last name, then first name; tournaments by year **descending**, then "
        "title, place, month descending, day descending; annotators by name; sources by title; teams by title, "
        "then team number, season (a season first), year, nation. Names compare byte by byte and then a 0 byte, "
        "as unsigned bytes for players and teams (ChessBase 16) and signed ones for the others (no corpus tree "
        "tells signed from unsigned there). Every corpus tree follows this order, except that the old "
        "morphy_linares_old base compares player names signed (cp1252 'Lékó' before 'Larsen'). Bytes after a "
        "name's terminator are leftovers and are kept for a byte-exact rewrite.",
        "**Names** are in a single-byte code page (cp1252 in Western bases, cp1251 in morphy_hedgehog's guiding "
        "texts) or, in newer bases, UTF-8.",
        "**Clocks.** The two clock items at position -1 (BielMTO, Chess960Biel) hold each side's clock after its "
        "last move of the main line, in centiseconds.",
        "**Rarer annotation items** (no corpus example except training): layouts from Yarin78/morphy. A computer "
        "evaluation (0x21) is three little-endian 16-bit integers; its value is taken as from White's point of "
        "view, as ChessBase shows it and morphy prints it (`+0.50/20`), and written as `[%eval 0.50,20]` "
        "(`#N` for mate in N); time spent (0x07) is written as `[%emt h:mm:ss]`; a time control (0x24) whose "
        "times are whole seconds becomes the `TimeControl` tag (`40/5400+30:1800+30`). Square and arrow colours "
        "2, 3, 4 are green, yellow, red (morphy; 2 and 4 seen in morphy_test_annotations).",
        "**Guiding texts.** After the titles, the body holds one text per language (morphy's text languages 0-7: "
        "English, German, French, Spanish, Italian, Dutch, Portuguese, none): HTML in `text_format` 3 "
        "(morphy_text, each text's HTML names its language), plain text with formatting data in format 1 "
        "(morphy_hedgehog, cp1251 Cyrillic).",
        "**Chess960.** ECO values >= 64576 are start-position numbers + 64576; game flag bit `chess960` "
        "(0x08000000 of bytes 39-42) is set; castling is stored as a two-byte move whose source equals its "
        "destination.",
        "**Extended header (.cbj).** Header little-endian, records big-endian. `check_sum` is the 16-bit sum "
        "of the words at offsets 8-27 in every corpus record ChessBase wrote (morphy reads it as the total "
        "material, and so writes other values). `material_1`/`material_2` match the end of the main line "
        "(both sides, larger first) except in 14 of morphy_hedgehog's games. `created` is in ChessBase's "
        "unit only in bases ChessBase wrote (twic1134: 2016-08-01, the issue's date); other writers store "
        "larger values in another unit.",
    ),
    examples=(
        Example(CBH_RECORD, bytes.fromhex(
            "010000001a0000001a0000000000010000000000000000000fd2ee020001010a5a085f0000000000c00000000018"),
            "libcbh_NormalGames/BielMTO.cbh, game 1 (data at .cbg offset 26, 2005-07-14, 1-0, B40)"),
        Example(PLAYER, bytes.fromhex(
            "1600000011000000004b61727468696b6579616e00000000000000000000000000000000000000"
            "4d7572616c6900000000000000000000000000000a00000001000000"),
            "libcbh_NormalGames/BielMTO.cbp, record 0: Karthikeyan, Murali"),
        Example(ANNOTATION_RECORD, bytes.fromhex(
            "00000101000e0e000009000000460000000300070100000103000702000002030007050000030300070600"
            "000403000703000005030007040000060300071600000703000708"),
            "libcbh_Annotation/TestBase.cba, the annotations of game 1 (one move symbol after each of 8 moves)"),
        Example(GAME_DATA_HEAD, bytes.fromhex("4000005701100009584bc5a679d456f502d60a8541cf6dd0d5bc587990000000"),
                "libcbh_NonStandard/NonStandardStart.cbg, game 1: a setup position, black to move, move 9"),
    ),
    references=(
        "*Описание формата баз партий от Chessbase* (the Kvetka project's translation of the CBH format "
        "description), `specs/chessbase.ru.txt`.",
        "`notes/chessbase.md` and `notes/chessbase-mode-tables.json` (corrections and the twelve mode tables).",
        "Yarin78/morphy (Java), `morphy-cbh/.../games/ExtendedGameHeaderStorage.java` and the classes it uses: "
        "the `.cbj` field order and sizes, checked on the corpus.",
        "Yarin78/morphy (Java), `morphy-cbh/.../games/annotations/*Serializer.java`, "
        "`GraphicalAnnotationColor.java`, `morphy-cbh/.../text/TextContentsSerializer.java` and its notes "
        "`format/v1/spec/3-annotations.md`: the layouts of the rarer annotation items and of guiding texts "
        "(facts only; checked on the corpus where it has examples).",
        "Yarin78/morphy (Java), `compareTo` of `morphy-cbh/.../entities/{Player,Tournament,Annotator,Source,"
        "Team}.java`, `util/CBUtil.java` and `format/v1/spec/4-entities.md` (Sort order): the order of the "
        "entity trees (facts only; checked on every corpus tree).",
    ),
)
