"""ChessBase databases: the ``.cbj`` file (the extended game header: teams, rating types, final material,
timestamps)."""

from __future__ import annotations

import functools
import itertools

import construct as cs

from ...engine.schema import MeaningEnum
from .common import NATION

# Field order and sizes from Yarin78/morphy (ExtendedGameHeaderStorage, ExtendedGameHeader, RatingType,
# EndgameInfo, FinalMaterial); every value the meanings call "seen" or "in the corpus" was checked on
# corpus/chessbase (tests/schemas/chessbase/test_chessbase_cbj_schema.py).

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
