"""ChessBase extended game headers (the ``.cbj`` file): teams, rating types, final material, timestamps.

Record n is game n's (:func:`chessformats.schemas.chessbase.cbj_record` gives the layout of each record
size); the file is memory-mapped and records are parsed when asked for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from ...engine.codec import codec
from ...engine.errors import InvalidValueError, TruncatedError
from ...engine.fileio import MappedFile
from ...engine.trace import parse
from ...schemas import chessbase as schema
from .entities import decode_name

__all__ = ["ExtendedHeader", "ExtendedHeaders"]

_UTC = timezone.utc  # not datetime.UTC: mypy checks for Python 3.10
_CBJ_CREATED_EPOCH = datetime(2008, 11, 30, 23, 0, tzinfo=_UTC)  # 2008-12-01 00:00 in Berlin (CET, UTC+1)
_CBJ_MODIFIED_EPOCH = datetime(1582, 10, 15, tzinfo=_UTC)
_CBJ_LATEST = datetime(2100, 1, 1, tzinfo=_UTC)  # later times are another writer's unit, not a date
_CBJ_MAX_RECORD = 1 << 16
_CBJ_TEAM_FIELDS = {name: codec(schema.CBJ_RECORD).field(name) for name in ("white_team", "black_team")}
_CBJ_TEAMS = codec(schema.CBJ_RECORD).picker("white_team", "black_team")
_CBJ_TEAMS_END = max((team.offset or 0) + (team.size or 0) for team in _CBJ_TEAM_FIELDS.values())
"""Fixed fields at the start of every record version."""


@dataclass(frozen=True)
class ExtendedHeader:
    """A game's ``.cbj`` record (the extended game header) with its values decoded."""

    number: int
    """The game (record) number, from 1."""
    offset: int
    """Offset of the record in the ``.cbj`` file."""
    record: Any = field(repr=False)
    """The parsed record (every field the record's size holds; see ``schema.cbj_record``)."""
    white_team: int | None = None
    """Record number of white's team in the ``.cbe`` file (``None``: no team)."""
    black_team: int | None = None
    game_version: int | None = None
    """Edit count (1 for a new game); ``None`` in records too old to hold it."""
    created: datetime | None = None
    """When the game was created (``None``: not given, or a value in another writer's unit or out of range)."""
    modified: datetime | None = None
    """When the game was last changed (``None``: never, not given, or out of range)."""
    white_rating_type: str | None = None
    """Type of white's rating, e.g. "FIDE" or "FIDE blitz" (``None``: not given)."""
    black_rating_type: str | None = None
    final_material: tuple[str, str] | None = None
    """Pieces (kings aside) left at the end of the main line, e.g. ("RB5P", "R6P"): the side with more first,
    which is not necessarily white. ``None``: not computed."""


def _material(value: Any) -> str:
    text: str = "Q" * value.queens + "R" * value.rooks + "B" * value.bishops + "N" * value.knights
    return text + (f"{value.pawns}P" if value.pawns else "")


def _rating_type(value: Any) -> str | None:
    kind = str(value.kind)
    name = decode_name(value.name)
    if kind == "international":
        control = str(value.international_control)
        return (name or "international") + ("" if control in ("normal", "none") else f" {control}")
    if kind == "national":
        control = str(value.national_control)
        return " ".join(part for part in (str(value.nation).upper(), name or "national",
                                          "" if control == "normal" else control) if part)
    return None


def _time(epoch: datetime, **delta: float) -> datetime | None:
    """``epoch`` plus a ``timedelta(**delta)``; ``None`` when that is no date before 2100: a value in another
    writer's unit, or one too large (or too negative) for a ``timedelta`` or a ``datetime`` at all."""
    try:
        moment = epoch + timedelta(**delta)
    except OverflowError:
        return None
    return moment if moment < _CBJ_LATEST else None


class ExtendedHeaders(MappedFile):
    """The ``.cbj`` file: one record per game (game n is record n), memory-mapped, read when asked for.

    A missing or empty file, a game beyond the records it holds (a ``.cbj`` older than its games) or a record
    too small for the field asked for mean "not given", and so does a timestamp that is no date (another
    writer's unit, or out of any date's range); a header or record that cannot be right raises a
    :class:`FormatError`.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if os.path.exists(self.path):
            self._map(self.path, "a file of a ChessBase base")
        self.header: Any = None
        self.record_size = 0
        self._teams_fit = False
        self.count = 0
        self._available = 0
        if not self._data:
            return
        if len(self._data) < schema.CBJ_HEADER_SIZE:
            raise TruncatedError("truncated .cbj header", needed=schema.CBJ_HEADER_SIZE, available=len(self._data),
                                 file=self.path, offset=0)
        self.header = parse(schema.CBJ_HEADER, bytes(self._data[:schema.CBJ_HEADER_SIZE]), file=self.path)
        size = int(self.header.record_size)
        if not 1 <= size <= _CBJ_MAX_RECORD:
            raise InvalidValueError(f".cbj records of {size} bytes", expected=f"1..{_CBJ_MAX_RECORD}", actual=size,
                                    file=self.path, offset=4, path="record_size")
        self.record_size = size
        self._teams_fit = size >= _CBJ_TEAMS_END
        self.count = int(self.header.records)
        self._available = (len(self._data) - schema.CBJ_HEADER_SIZE) // size
        self.declaration = schema.cbj_record(size)

    def __len__(self) -> int:
        return self.count

    def offset_of(self, number: int) -> int:
        """Where game ``number``'s record starts in the file."""
        return schema.CBJ_HEADER_SIZE + (number - 1) * self.record_size

    def team_offset(self, number: int, name: str) -> int:
        """Where field ``name`` (``white_team`` or ``black_team``) of game ``number``'s record is in the file."""
        return self.offset_of(number) + (_CBJ_TEAM_FIELDS[name].offset or 0)

    def raw(self, number: int) -> tuple[int, bytes] | None:
        """(offset, bytes) of game ``number``'s record; ``None`` when the file holds none for it."""
        start = self.raw_span(number)
        if start is None:
            return None
        return start, bytes(self._data[start:start + self.record_size])

    def __getitem__(self, number: int) -> ExtendedHeader | None:
        """Game ``number``'s extended header (``None``: the file holds no record for it)."""
        found = self.raw(number)
        if found is None:
            return None
        start, data = found
        record = parse(self.declaration, data, file=self.path, offset=start, path=f"cbj[{number}]")
        teams = [self._team(record, number, start, name) if name in record else None
                 for name in ("white_team", "black_team")]
        version = record.get("game_version")
        created = record.get("created")
        modified = record.get("modified")
        material = None
        if "material_2" in record:
            material = (_material(record.material_1), _material(record.material_2))
            if material == ("", ""):  # 0: not computed
                material = None
        return ExtendedHeader(
            number, start, record, teams[0], teams[1],
            game_version=None if version is None else int(version),
            created=_time(_CBJ_CREATED_EPOCH, seconds=created / 1024) if created else None,
            modified=_time(_CBJ_MODIFIED_EPOCH, microseconds=modified // 10) if modified else None,
            white_rating_type=_rating_type(record.white_rating) if "white_rating" in record else None,
            black_rating_type=_rating_type(record.black_rating) if "black_rating" in record else None,
            final_material=material,
        )

    def team_numbers(self, number: int) -> tuple[int | None, int | None]:
        """Game ``number``'s (white, black) team numbers, read straight from its record (the offsets come from
        the declaration): the fast path of :meth:`__getitem__` for game lists and PGN export."""
        found = self.raw_span(number)
        if found is None:
            return None, None
        start = found
        if self._teams_fit:  # both fields in the record: one read
            white, black = _CBJ_TEAMS(self._data, start)
            if white == black == -1:
                return None, None
            return (self._checked_team(white, number, start, "white_team"),
                    self._checked_team(black, number, start, "black_team"))
        teams: list[int | None] = []
        for name in ("white_team", "black_team"):
            team = _CBJ_TEAM_FIELDS[name]
            if (team.offset or 0) + (team.size or 0) > self.record_size:
                teams.append(None)
                continue
            value = team.get(self._data, start)
            teams.append(self._checked_team(value, number, start, name))
        return teams[0], teams[1]

    def raw_span(self, number: int) -> int | None:
        """Where game ``number``'s record starts (``None``: the file holds no record for it)."""
        if not 1 <= number <= self.count:
            return None
        start = self.offset_of(number)
        if number > self._available:
            raise TruncatedError(f"the .cbj header counts {self.count} records, the file holds {self._available}",
                                 needed=self.record_size, available=max(0, len(self._data) - start),
                                 file=self.path, offset=start, path=f"cbj[{number}]")
        return start

    def _team(self, record: Any, number: int, start: int, name: str) -> int | None:
        return self._checked_team(int(record[name]), number, start, name)

    def _checked_team(self, value: int, number: int, start: int, name: str) -> int | None:
        if value == -1:
            return None
        if value < 0:
            raise InvalidValueError(f"game {number}: team number {value}", expected="-1 or a .cbe record number",
                                    actual=value, file=self.path, offset=start + (_CBJ_TEAM_FIELDS[name].offset or 0),
                                    path=f"cbj[{number}].{name}")
        return value
