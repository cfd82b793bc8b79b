"""Writing the ``.cbj`` file (extended game headers, version 11): each game's teams and data offsets, as the
records ChessBase writes for a game imported from PGN (twic1134: no teams -1, no media -1, FIDE rating types,
game version 1, no final material, the check sum of bytes 8-27)."""

from __future__ import annotations

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
    total = sum(int.from_bytes(record[at:at + _WORD], _ORDER) for at in range(_SUM_START, _SUM_END, _WORD))
    _CHECK_SUM.put(record, total & ((1 << 8 * _WORD) - 1))
    return bytes(record)
