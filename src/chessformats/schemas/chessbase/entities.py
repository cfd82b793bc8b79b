"""ChessBase databases: the entity files ``.cbp .cbt .cbc .cbs .cbe`` (AVL trees of fixed-size records,
little-endian)."""

from __future__ import annotations

import construct as cs

from ...engine.schema import MeaningEnum
from .common import DATE_LE, NATION

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

ENTITY_HEADER_HEAD = cs.Struct(*ENTITY_HEADER.subcons[:-1])
"""The fixed 28 bytes of ``ENTITY_HEADER``, up to ``extra_space`` (which sizes the rest)."""

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
