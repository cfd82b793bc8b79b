"""ChessBase databases: the ``.cbh`` file (a 46-byte header, one 46-byte record per game or guiding text)."""

from __future__ import annotations

import construct as cs

from ...engine.schema import MeaningEnum
from ...engine.tagged import Case, TaggedUnion
from .common import DATE, LINE_EVALUATION, MEDALS, RESULT, U24

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

ECO_CHESS960 = 64576
"""The whole ECO field from this value up holds a Chess960 start position (value - ECO_CHESS960)."""

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
