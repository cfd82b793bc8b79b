"""Writing the ``.cbj`` file (extended game headers, version 11): each game's teams and data offsets, as the
records ChessBase writes for a game imported from PGN (twic1134: no teams -1, no media -1, FIDE rating types,
game version 1, no final material, the check sum of bytes 8-27)."""

from __future__ import annotations

import struct
from typing import Literal

from ...engine.codec import codec
from ...schemas import chessbase as schema

__all__ = ["CBJ_RECORD_SIZE", "CBJ_VERSION", "NO_TEAM", "cbj_header", "cbj_record", "check_summed"]

CBJ_VERSION = 11
"""The version whose records are ``CBJ_RECORD`` (120 bytes)."""
NO_TEAM = -1
_RECORD = codec(schema.CBJ_RECORD)
_HEADER = codec(schema.CBJ_HEADER)
CBJ_RECORD_SIZE: int = _RECORD.size or 0
_SUM_START = int(_RECORD.field("media_offset").offset or 0)
_SUM_END = int(_RECORD.field("check_sum").offset or 0)
_CHECK_SUM = _RECORD.field("check_sum")
_WORD = int(_CHECK_SUM.size or 0)
_ORDER: Literal["little", "big"] = "little" if _CHECK_SUM.slot is not None and _CHECK_SUM.slot.little else "big"
"""The records' byte order (the check sum's, as the declaration gives it)."""
_NO_MATERIAL = {name: 0 for name in ("pawns", "queens", "knights", "bishops", "rooks")}
_RATING_NAME_SIZE = int(_RECORD.field("white_rating.name").size or 0)
_FIDE = {"reserved_0": 0, "kind": "international", "national_control": "normal", "international_control": "normal",
         "nation": 0, "name": b"FIDE".ljust(_RATING_NAME_SIZE, b"\0")}
_NO_RATING = {**_FIDE, "kind": "none", "international_control": "none", "name": bytes(_RATING_NAME_SIZE)}
_NO_ENDGAME = {path.split(".", 1)[1]: 0 for path in _RECORD.fields if path.startswith("endgame.")}
_SUM_WORDS = struct.Struct(("<" if _ORDER == "little" else ">") + {2: "H", 4: "I"}[_WORD] * ((_SUM_END - _SUM_START)
                                                                                          // _WORD))
"""The words the check sum adds."""
_OFFSETS = tuple((int(_RECORD.field(name).offset or 0), int(_RECORD.field(name).size or 0))
                 for name in ("cbg_offset", "cba_offset"))
_LIMITS = tuple(1 << 8 * size for _, size in _OFFSETS)
"""What each offset field holds (unsigned): a value past it is left to the declaration, which refuses it."""
_TEMPLATES: dict[tuple[int, int, bool, bool], bytes] = {}
"""A record of zero offsets by (teams, ratings): only the offsets change from game to game."""
_TEMPLATES_KEPT = 1 << 12


def cbj_header(records: int, old: bytes = b"") -> bytes:
    """The header of a ``.cbj`` file of ``records`` records (``old``: the header it had, kept but the count)."""
    if old:
        header = bytearray(old)
        _HEADER.field("records").put(header, records)
        return bytes(header)
    return bytes(_HEADER.encode({"version": CBJ_VERSION, "record_size": _RECORD.size, "records": records,
                                 "reserved_12": bytes(int(_HEADER.field("reserved_12").size or 0))}))


def cbj_record(white_team: int, black_team: int, cbg_offset: int, cba_offset: int, *, white_rated: bool,
               black_rated: bool) -> bytes:
    """A game's ``.cbj`` record (``NO_TEAM``: no team); a rated player's rating type is FIDE's (twic1134: a
    player without a rating has none)."""
    key = (white_team, black_team, white_rated, black_rated)
    template = _TEMPLATES.get(key)
    if template is None:
        template = _record(white_team, black_team, 0, 0, white_rated=white_rated, black_rated=black_rated)
        if len(_TEMPLATES) < _TEMPLATES_KEPT:
            _TEMPLATES[key] = template
    if not (0 <= cbg_offset < _LIMITS[0] and 0 <= cba_offset < _LIMITS[1]):  # the declaration checks what it holds
        return _record(white_team, black_team, cbg_offset, cba_offset, white_rated=white_rated,
                       black_rated=black_rated)
    record = bytearray(template)
    for (at, size), value in zip(_OFFSETS, (cbg_offset, cba_offset), strict=True):
        record[at:at + size] = value.to_bytes(size, _ORDER)
    return check_summed(record)


def _record(white_team: int, black_team: int, cbg_offset: int, cba_offset: int, *, white_rated: bool,
            black_rated: bool) -> bytes:
    record = bytearray(_RECORD.encode({
        "white_team": white_team, "black_team": black_team, "media_offset": -1, "cba_offset": cba_offset,
        "reserved_20": 0, "material_1": _NO_MATERIAL, "reserved_24": 0, "material_2": _NO_MATERIAL, "check_sum": 0,
        "cbg_offset": cbg_offset, "white_rating": _FIDE if white_rated else _NO_RATING,
        "black_rating": _FIDE if black_rated else _NO_RATING, "reserved_70": 0, "reserved_74": 0,
        "game_version": 1, "created": 0, "endgame": _NO_ENDGAME, "modified": 0, "game_tag": 0,
    }))
    return check_summed(record)


def check_summed(record: bytearray) -> bytes:
    """The record with its ``check_sum`` recomputed (the 16-bit sum of the words at offsets 8-27)."""
    total = sum(_SUM_WORDS.unpack_from(record, _SUM_START))
    _CHECK_SUM.put(record, total & ((1 << 8 * _WORD) - 1))
    return bytes(record)
