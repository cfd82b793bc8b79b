"""ChessBase databases: the ``.cbh`` file and its companions, opened together; games by number, a fast header
scan of every record, PGN export.

A :class:`Database` is a collection of games (:class:`~chessformats.engine.contract.GameCollection`):

- ``for game in db``: every game (:class:`~.games.GameHeader`) in record order; guiding texts and games marked
  deleted are left out (:meth:`Database.guiding_texts` gives the texts, :meth:`Database.record` any record);
- ``len(db)``: the number of those games (:attr:`Database.record_count` counts every record);
- ``db[n]``: the game ChessBase numbers ``n`` -- its record number, from 1, as ChessBase shows it, guiding
  texts and deleted games taking numbers too -- so ``db[game.number] == game`` for every game iterated. A
  number that is a guiding text or a deleted game raises :class:`IndexError` (``db.record(n)`` reads it). In a
  base with neither (most bases), the games are ``db[1]`` ... ``db[len(db)]``.
"""

from __future__ import annotations

import functools
import os
import shutil
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ...engine.codec import codec
from ...engine.contract import ClosedError
from ...engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from ...engine.fileio import MappedFile, atomic_write
from ...engine.layout import bit_fields, numpy_dtype
from ...engine.records import record_array
from ...engine.tables import Tabular
from ...engine.trace import parse
from ...schemas import chessbase as schema
from .annotations import decode_bytes
from .batch import MoveBatch, decode_batch
from .batch_pgn import annotated_pgn_texts, pgn_texts, record_fields, single_pgn_text
from .entities import EntityFile, decode_name
from .extended import ExtendedHeader, ExtendedHeaders
from .games import GameHeader, GuidingText, game_header
from .moves import DecodedGame, decode_game

__all__ = ["COMPANIONS", "GAME_DTYPE", "Database", "export_pgn", "open_database"]

COMPANIONS = (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj", ".cbm", ".cbl", ".cbtt",
              ".cib", ".cib2", ".cit", ".cit2", ".cbb", ".cbgi", ".flags", ".ini", ".cko", ".ckn", ".cpo", ".cpn",
              ".pgi")
"""Extensions of a database's files; a database can be opened by any of them."""

GAME_DTYPE = numpy_dtype(schema.GAME_RECORD)
"""The numpy dtype of a ``.cbh`` record read as a game record, derived from the declaration."""

_DATE_BITS = bit_fields(schema.DATE)
_KIND_BITS = bit_fields(schema.RECORD_KIND)
_SKIPPED = 1 << _KIND_BITS["deleted"].shift | 1 << _KIND_BITS["guiding_text"].shift
"""The record-kind bits of a record that is no game to read: deleted, or a guiding text."""
_WORD = codec(schema.DATA_WORD)
_DATA_SIZE = _WORD.field("size")
_WORD_SIZE: int = schema.DATA_WORD.sizeof()
_ANNOTATION_HEAD_SIZE: int = schema.ANNOTATION_RECORD_HEAD.sizeof()
_ANNOTATION_HEAD = codec(schema.ANNOTATION_RECORD_HEAD)
_ANNOTATION_SIZE = _ANNOTATION_HEAD.field("size")
_ANNOTATION_COUNT_AT: int = schema.ANNOTATION_RECORD_HEAD.subcons[0].sizeof() + \
    schema.ANNOTATION_RECORD_HEAD.subcons[1].sizeof()


_GAME = codec(schema.GAME_RECORD)


@functools.cache
def _byte_order(name: str) -> tuple[int, bool]:
    """Size and byte order (little-endian?) of a GAME_RECORD integer field (a bit run: its run's slot)."""
    field = _GAME.field(name)
    size, slot = int(field.size or 0), field.slot
    if slot is None:  # a bit run: its bit fields share the run's slot
        slot = next(f.slot for path, f in _GAME.fields.items() if path.startswith(f"{name}.") and f.slot is not None)
    assert size <= 4
    return size, slot.little


def _unsigned(records: np.ndarray[Any, Any], name: str, count: int) -> np.ndarray[Any, Any]:
    """An integer field of up to 4 bytes (the 24-bit ones are ``V3`` in the dtype) as ``uint32``, in the byte
    order the declaration gives it."""
    size, little = _byte_order(name)
    raw = np.frombuffer(records[name].tobytes(), dtype=np.uint8).reshape(count, size).astype(np.uint32)
    columns = [raw[:, i] for i in (range(size - 1, -1, -1) if little else range(size))]
    value: np.ndarray[Any, Any] = columns[0]
    for column in columns[1:]:
        value = value << 8 | column
    return np.asarray(value)


def _sized_record(data: Any, start: int, head: int, size_field: Any, file: str, number: int, beyond: str,
                  cut: str) -> bytes:
    """Game ``number``'s record at ``data[start]``, whose size (at least ``head`` bytes, head included) is its
    ``size_field``: a ``TruncatedError`` (the message ``beyond`` or ``cut``, formatted with the game's number,
    the offset and the size) when the head or the record runs past the end of ``data``."""
    if start + head > len(data):
        raise TruncatedError(beyond.format(number=number, start=start), file=file, offset=start)
    size = size_field.get(data, start)
    if size < head or start + size > len(data):
        raise TruncatedError(cut.format(number=number, start=start, size=size), needed=size,
                             available=len(data) - start, file=file, offset=start)
    return bytes(data[start:start + size])


def _roman(number: int) -> str:
    """``number`` in Roman numerals (1-3999; others in digits)."""
    if not 1 <= number <= 3999:
        return str(number)
    text = ""
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        text += letters * count
    return text


_FILE = "a file of a ChessBase base"


class _Companion(MappedFile):
    """A companion file read by offset (``.cbg``, ``.cba``), memory-mapped whole; empty when the base has none
    (``present`` tells the two apart: a file that is there but empty is a damaged one)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.present = os.path.exists(path)
        self.data: Any = self._map(path, _FILE) if self.present else b""


class Database(Tabular, MappedFile):
    """A ChessBase database, opened by its ``.cbh`` or any companion file.

    Its files are memory-mapped (the ``.cbj`` file when first needed) and released by :meth:`close` (or at the
    end of a ``with`` block).
    """

    _views = ("records",)
    archive_path: str | None = None
    """The ``.cbv``/``.cbz`` the base was opened from (its files are then in a temporary folder), else ``None``."""
    archive_cleanup: Any = None
    """Removes that temporary folder (run by :meth:`close`)."""

    def __init__(self, path: str | os.PathLike[str], *, encoding: str | None = None) -> None:
        name = os.fspath(path)
        stem, extension = os.path.splitext(name)
        if extension.lower() == ".2cbh" or (os.path.exists(stem + ".2cbh") and not os.path.exists(stem + ".cbh")):
            raise UnsupportedError("a ChessBase 17+ database (.2cbh): not supported yet", file=name)
        if extension.lower() not in COMPANIONS:
            stem = name
        self.base = stem
        self.encoding = encoding
        self.cbh_path = self.companion(".cbh")
        if not os.path.exists(self.cbh_path):
            raise FormatError("no .cbh file beside it: not a ChessBase database", file=name)
        self._closed = False
        self._numbers: np.ndarray[Any, Any] | None = None  # the game numbers, found when first needed
        self._extended: ExtendedHeaders | None = None  # the .cbj file, opened when first needed
        self._stores: tuple[_Companion, ...] = ()
        self._entities: list[EntityFile] = []
        try:
            self._open(encoding)
        except BaseException:
            self.close()
            raise

    def _open(self, encoding: str | None) -> None:
        self._cbh = self._map(self.cbh_path, _FILE)
        if len(self._cbh) < schema.CBH_HEADER_SIZE:
            raise TruncatedError("truncated .cbh header", needed=schema.CBH_HEADER_SIZE, available=len(self._cbh),
                                 file=self.cbh_path, offset=0)
        self.header = parse(schema.CBH_HEADER, bytes(self._cbh[:schema.CBH_HEADER_SIZE]), file=self.cbh_path)
        self.records = record_array(self._cbh, schema.GAME_RECORD, file=self.cbh_path, offset=schema.CBH_HEADER_SIZE,
                                    label="record", path="records")
        self._stores = (_Companion(self.companion(".cbg")), _Companion(self.companion(".cba")))
        self._cbg, self._cba = (store.data for store in self._stores)

        def entity(extension: str) -> EntityFile:
            opened = EntityFile(self.companion(extension), encoding=encoding)
            self._entities.append(opened)
            return opened

        self.players = entity(".cbp")
        self.tournaments = entity(".cbt")
        self.annotators = entity(".cbc")
        self.sources = entity(".cbs")
        self.teams = entity(".cbe")

    def __getattr__(self, name: str) -> Any:
        # only reached when the attribute is missing: the record array dropped by close()
        if name == "records" and self.__dict__.get("_closed"):
            raise self._closed_error()
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _closed_error(self) -> ClosedError:
        return ClosedError(f"{self.cbh_path}: the database is closed")

    def _check(self) -> None:
        if self._closed:
            raise self._closed_error()

    @property
    def extended(self) -> ExtendedHeaders:
        """The ``.cbj`` file (extended game headers), opened on first use; empty when the base has none."""
        self._check()
        if self._extended is None:
            self._extended = ExtendedHeaders(self.companion(".cbj"))
        return self._extended

    def extended_header(self, number: int) -> ExtendedHeader | None:
        """Game ``number``'s ``.cbj`` record with its team numbers checked against the ``.cbe`` file."""
        found = self.extended[number]
        if found is not None:
            self._check_teams(number, (found.white_team, found.black_team))
        return found

    def team_numbers(self, number: int) -> tuple[int | None, int | None]:
        """Game ``number``'s (white, black) team record numbers (``None``: not given), checked."""
        teams = self.extended.team_numbers(number)
        if teams != (None, None):
            self._check_teams(number, teams)
        return teams

    def _check_teams(self, number: int, teams: tuple[int | None, int | None]) -> None:
        for name, team in zip(("white_team", "black_team"), teams, strict=True):
            if team is not None and team >= len(self.teams):
                raise InvalidValueError(f"game {number}: team {team}, the .cbe file has {len(self.teams)} records",
                                        actual=team, file=self.extended.path,
                                        offset=self.extended.team_offset(number, name),
                                        path=f"cbj[{number}].{name}")

    def team_name(self, number: int) -> str:
        """Team ``number``'s name as ChessBase shows it: the title, then the team number (if any) in Roman
        numerals ("Eppingen" with number 2 is "Eppingen II", as UnusualStart.pgn has it). "" when out of range."""
        self._check()
        if not 0 <= number < len(self.teams):
            return ""
        team = self.teams[number]
        suffix = int(team.record.number)
        return f"{team.name} {_roman(suffix)}" if team.name and suffix else team.name

    def companion(self, extension: str) -> str:
        """The path of the base's file with this extension (``".cbg"``), in the case the folder has it."""
        for candidate in (self.base + extension, self.base + extension.upper()):
            if os.path.exists(candidate):
                return candidate
        return self.base + extension

    def close(self) -> None:
        """Release every file of the base (arrays taken from them must not be used afterwards); the base refuses
        use afterwards (:class:`~chessformats.engine.contract.ClosedError`). Closing twice is harmless."""
        self._closed = True
        super().close()  # the record array, then the .cbh map
        for part in (*self._stores, *self._entities):
            part.close()
        if self._extended is not None:
            self._extended.close()
        if self.archive_cleanup is not None:  # opened from an archive: its temporary folder goes
            self.archive_cleanup()

    # --- the games -------------------------------------------------------------------------------------

    @property
    def record_count(self) -> int:
        """Records in the ``.cbh`` file: games, guiding texts and deleted games (ChessBase numbers 1..this)."""
        return len(self.records)

    def numbers(self) -> np.ndarray[Any, Any]:
        """The numbers of the games iteration gives (every record but guiding texts and deleted games), in
        order."""
        self._check()
        if self._numbers is None:
            self._numbers = np.flatnonzero((self.records["kind"] & _SKIPPED) == 0) + 1
        return self._numbers

    def __len__(self) -> int:
        """The games (guiding texts and deleted games not counted): as many as iteration gives."""
        return len(self.numbers())

    def __iter__(self) -> Iterator[GameHeader]:
        """Every game in record order (guiding texts and deleted games left out)."""
        for number in self.numbers().tolist():
            yield game_header(self, number, self._record(number))

    def _record(self, number: int) -> Any:
        count = self.record_count
        if not 1 <= number <= count:
            raise IndexError(f"{os.path.basename(self.cbh_path)}: no record {number} (records are 1..{count})")
        start = schema.CBH_HEADER_SIZE * number
        try:
            return codec(schema.CBH_RECORD).decode(self._cbh, start)  # compiled on first use (cached)
        except FormatError as error:
            raise error.located(file=self.cbh_path, path_prefix=f"records[{number}]") from None

    def __getitem__(self, number: int) -> GameHeader:
        """Game ``number``, numbered from 1 as ChessBase does (its record number). :class:`IndexError` when the
        base has no such record, or when record ``number`` is a guiding text or a deleted game (which
        :meth:`record` reads)."""
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
            raise TypeError(f"games are numbered by int (ChessBase's game number), not {type(number).__name__}")
        record = self._record(int(number))
        kind = "a guiding text" if record.kind.guiding_text else "a deleted game" if record.kind.deleted else None
        if kind is not None:
            raise IndexError(f"{os.path.basename(self.cbh_path)}: record {number} is {kind}, not a game of the "
                             f"collection: read it with db.record({number})")
        return game_header(self, int(number), record)

    def record(self, number: int) -> GameHeader | GuidingText:
        """Record ``number`` (from 1, as ChessBase numbers them), whatever it is: a game (deleted ones too,
        ``deleted`` set) or a guiding text."""
        record = self._record(number)
        if record.kind.guiding_text:
            return self._text(number, record)
        return game_header(self, number, record)

    def guiding_texts(self) -> Iterator[GuidingText]:
        """Every guiding text in record order (deleted ones left out)."""
        kinds = self.records["kind"]
        wanted = (kinds >> _KIND_BITS["guiding_text"].shift & 1) & ~(kinds >> _KIND_BITS["deleted"].shift) & 1
        for number in (np.flatnonzero(wanted) + 1).tolist():
            yield self._text(number, self._record(number))

    def games(self) -> Iterator[GameHeader | GuidingText]:
        """Deprecated: every record in order, games and guiding texts (deleted ones skipped). Iterate the base for
        its games, :meth:`guiding_texts` for the texts."""
        warnings.warn("Database.games() is deprecated: iterate the database for its games (db.guiding_texts() for "
                      "the guiding texts, db.record(n) for any record)", DeprecationWarning, stacklevel=2)
        return self._records()

    def _records(self) -> Iterator[GameHeader | GuidingText]:
        for number in range(1, self.record_count + 1):
            if self.records["kind"][number - 1] >> _KIND_BITS["deleted"].shift & 1:
                continue
            yield self.record(number)

    def _text(self, number: int, record: Any) -> GuidingText:
        start = int(record.cbg_offset)
        if start + _WORD_SIZE > len(self._cbg):
            raise TruncatedError(f"guiding text {number}: data beyond the end of the .cbg file",
                                 file=self.companion(".cbg"), offset=start)
        size = _DATA_SIZE.get(self._cbg, start)
        if start + size > len(self._cbg) or size < 8:
            raise TruncatedError(f"guiding text {number}: {size} bytes from offset {start}",
                                 file=self.companion(".cbg"), offset=start)
        try:
            data = codec(schema.TEXT_DATA).decode(self._cbg[start:start + size])
        except FormatError as error:
            raise error.located(file=self.companion(".cbg"), base_offset=start, path_prefix=f"texts[{number}]") \
                from None
        titles = {str(t.language): decode_name(t.title, self.encoding) for t in data.titles}
        head = 8 + sum(4 + int(t.length) for t in data.titles)
        raw = bytes(self._cbg[start + head:start + size])
        texts = {str(t.language): decode_bytes(t.text, self.encoding) for t in data.body.texts}
        formatting = {str(t.language): bytes(t.formatting) for t in data.body.texts if t.formatting}
        body = record.body
        return GuidingText(number, titles, raw, self.tournaments.name_of(body.tournament),
                           self.annotators.name_of(body.annotator), self.sources.name_of(body.source),
                           str(data.text_format), texts, formatting, deleted=bool(record.kind.deleted),
                           _record=record)

    def decode(self, number: int) -> DecodedGame:
        """Game ``number``'s move stream, decoded (without reading its header's names)."""
        offset, data = self.game_data(number)
        return decode_game(data, file=self.companion(".cbg"), base=offset, game=number,
                           main_moves=int(self.records["moves"][number - 1]))

    def decode_many(self, numbers: Iterable[int] | None = None, *,
                    chunk: int = 8192) -> Iterator[tuple[int, DecodedGame]]:
        """(number, decoded stream) of many games, decoded ``chunk`` games at a time (:mod:`.batch`): the same
        results, and the same errors, as :meth:`decode` game by game. ``None``: every game (guiding texts and
        deleted records skipped)."""
        for part in self._chunks(numbers, chunk):
            batch = self.decode_batch(part)
            for index, number in enumerate(part.tolist()):
                yield number, self.decode(number) if batch.fallback[index] else batch.game(index)

    def _chunks(self, numbers: Iterable[int] | None, chunk: int) -> Iterator[np.ndarray[Any, Any]]:
        if numbers is None:
            wanted = self.numbers()
        else:
            wanted = np.fromiter(numbers, dtype=np.int64)
        for start in range(0, len(wanted), max(chunk, 1)):
            yield wanted[start:start + chunk]

    def decode_batch(self, numbers: np.ndarray[Any, Any], *, san: bool = False) -> MoveBatch:
        """The move streams of games ``numbers`` decoded at once, as token arrays (:class:`.batch.MoveBatch`);
        the games it leaves to the scalar decoder are marked in ``fallback``."""
        numbers = np.asarray(numbers, dtype=np.int64)
        outside = (numbers < 1) | (numbers > self.record_count)
        if outside.any():
            self.game_data(int(numbers[np.argmax(outside)]))  # the IndexError decode gives
        offsets = self.records["cbg_offset"][numbers - 1].astype(np.int64)
        return decode_batch(self._cbg, numbers, offsets, san=san)

    def annotations(self, number: int) -> list[Any]:
        """The parsed items of game ``number``'s annotation record (empty when it has none)."""
        found = self.annotation_data(number)
        if found is None:
            return []
        offset, data = found
        cba = self.companion(".cba")
        try:
            record = codec(schema.ANNOTATION_RECORD).decode(data)
        except FormatError as error:
            raise error.located(file=cba, base_offset=offset, path_prefix=f"annotations[{number}]") from None
        items = list(record.entries)
        used = _ANNOTATION_HEAD_SIZE + sum(int(item.size) for item in items)
        if used < len(data):
            # the item list (read greedily to the record's end) stopped at an item that does not parse: its error,
            # located, rather than a game that silently loses that item and every one after it
            path = f"annotations[{number}].entries[{len(items)}]"
            parse(schema.ANNOTATION_ITEM, data[used:], file=cba, offset=offset + used, path=path)
            raise InvalidValueError(f"game {number}: annotation item {len(items)} does not fit its record",
                                    file=cba, offset=offset + used, path=path)
        if record.count != len(items) + 1:
            raise InvalidValueError(f"game {number}: the annotation record counts {record.count - 1} items but "
                                    f"holds {len(items)}", expected=len(items) + 1, actual=record.count, file=cba,
                                    offset=offset + _ANNOTATION_COUNT_AT, path=f"annotations[{number}].count")
        return items

    def game_data(self, number: int) -> tuple[int, bytes]:
        """(offset, bytes) of game ``number``'s data in the ``.cbg`` file, its size checked against the file."""
        count = self.record_count
        if not 1 <= number <= count:
            raise IndexError(f"{os.path.basename(self.cbh_path)}: no record {number} (records are 1..{count})")
        start = int(self.records["cbg_offset"][number - 1])
        return start, _sized_record(self._cbg, start, _WORD_SIZE, _DATA_SIZE, self.companion(".cbg"), number,
                                    "game {number}: data offset {start} beyond the end of the .cbg file",
                                    "game {number}: data of {size} bytes from offset {start}")

    def annotation_data(self, number: int) -> tuple[int, bytes] | None:
        """(offset, bytes) of game ``number``'s annotation record in the ``.cba`` file (``None``: none, or the base
        has no ``.cba`` file -- its games read without annotations, as ``info`` reports; a ``.cba`` that is there
        but too short for the record is an error)."""
        count = self.record_count
        if not 1 <= number <= count:
            raise IndexError(f"{os.path.basename(self.cbh_path)}: no record {number} (records are 1..{count})")
        start = int(self.records["cba_offset"][number - 1])
        if int(self.records["kind"][number - 1]) >> _KIND_BITS["guiding_text"].shift & 1 or not start or \
                not self._stores[1].present:
            return None
        return start, _sized_record(self._cba, start, _ANNOTATION_HEAD_SIZE, _ANNOTATION_SIZE, self.companion(".cba"),
                                    number, "game {number}: annotation offset {start} beyond the end of the .cba file",
                                    "game {number}: annotation record of {size} bytes")

    # --- bulk -------------------------------------------------------------------------------------------

    def header_arrays(self, numbers: np.ndarray[Any, Any] | None = None) -> dict[str, np.ndarray[Any, Any]]:
        """Every record's header fields as numpy arrays (one element per record), without a Python loop;
        ``numbers``: those records only (game numbers, from 1)."""
        records = self.records if numbers is None else self.records[np.asarray(numbers) - 1]
        count = len(records)

        def u24(name: str) -> np.ndarray[Any, Any]:
            return _unsigned(records, name, count)

        date = u24("date")
        kind = records["kind"]
        return {
            "number": np.arange(1, count + 1, dtype=np.uint32) if numbers is None else
            np.asarray(numbers).astype(np.uint32),
            "deleted": (kind >> _KIND_BITS["deleted"].shift & 1).astype(bool),
            "guiding_text": (kind >> _KIND_BITS["guiding_text"].shift & 1).astype(bool),
            "cbg_offset": records["cbg_offset"].astype(np.uint32),
            "cba_offset": records["cba_offset"].astype(np.uint32),
            "white": u24("white"), "black": u24("black"), "tournament": u24("tournament"),
            "annotator": u24("annotator"), "source": u24("source"),
            "year": date >> _DATE_BITS["year"].shift & _DATE_BITS["year"].mask,
            "month": date >> _DATE_BITS["month"].shift & _DATE_BITS["month"].mask,
            "day": date >> _DATE_BITS["day"].shift & _DATE_BITS["day"].mask,
            "result": records["result"].astype(np.uint8),
            "white_elo": records["white_elo"].astype(np.uint16),
            "black_elo": records["black_elo"].astype(np.uint16),
            "eco": records["eco"].astype(np.uint16),
            "flags": records["flags"].astype(np.uint32),
            "moves": records["moves"].astype(np.uint8),
        }

    def annotated(self, numbers: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        """Per record (``numbers``: those games only, from 1): whether it has an annotation record to read -- a
        ``.cba`` offset, in a base that has its ``.cba`` file (:meth:`annotation_data` reads it)."""
        offsets = self.records["cba_offset"] if numbers is None else self.records["cba_offset"][np.asarray(numbers) - 1]
        return np.asarray(offsets != 0) & self._stores[1].present

    def annotation_counts(self, numbers: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """How many annotation items the ``.cba`` record of each game ``numbers`` holds, from the records' heads (0
        for a game without one, or whose head lies beyond the end of the ``.cba`` file)."""
        offsets = self.records["cba_offset"][np.asarray(numbers) - 1].astype(np.int64)
        present = (offsets != 0) & (offsets + _ANNOTATION_HEAD_SIZE <= len(self._cba))
        counts = np.zeros(len(offsets), np.int64)
        if present.any():
            cba = np.frombuffer(self._cba, dtype=np.uint8)
            heads = cba[offsets[present][:, None] + np.arange(_ANNOTATION_HEAD_SIZE)]
            counts[present] = np.maximum(_ANNOTATION_HEAD.columns(heads.tobytes())["count"].astype(np.int64) - 1, 0)
        return counts

    def iter_batches(self, *, batch_size: int = 8192, san: bool = False, movetext: bool = False) -> Iterator[Any]:
        """The games as :class:`pyarrow.RecordBatch` es of ``batch_size`` rows, one row per game (names resolved,
        the main line as UCI; ``san``: as SAN too; ``movetext``: the PGN movetext); :mod:`.tables` gives the
        columns. ``to_arrow``, ``to_pandas``, ``to_polars`` take the same options. Needs ``chessformats[arrow]``."""
        from .tables import game_batches

        return game_batches(self, batch_size=batch_size, san=san, movetext=movetext)

    def table_schema(self, *, san: bool = False, movetext: bool = False, **options: Any) -> Any:
        """The Arrow schema of :meth:`iter_batches`' rows (``options``: those of :meth:`iter_batches` that do not
        change it)."""
        from .tables import game_schema

        return game_schema(san, movetext)

    def encoding_modes(self) -> dict[int, int]:
        """How many games use each move-encoding mode (from the first byte of each game's data)."""
        arrays = self.header_arrays()
        games = ~arrays["guiding_text"] & ~arrays["deleted"]
        offsets = arrays["cbg_offset"][games].astype(np.int64)
        if len(offsets) and int(offsets.max()) >= len(self._cbg):
            raise TruncatedError("a game's data offset lies beyond the end of the .cbg file",
                                 file=self.companion(".cbg"), offset=int(offsets.max()))
        cbg = np.frombuffer(self._cbg, dtype=np.uint8) if len(self._cbg) else np.zeros(0, np.uint8)
        if len(offsets) and int(offsets.max()) + _WORD_SIZE > len(self._cbg):
            raise TruncatedError("a game's data word runs past the end of the .cbg file",
                                 file=self.companion(".cbg"), offset=int(offsets.max()))
        modes = _WORD.columns(cbg[offsets[:, None] + np.arange(_WORD_SIZE)].tobytes())["mode"]
        values, counts = np.unique(modes, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


def export_pgn(source: str | os.PathLike[str], target: str | os.PathLike[str], *, annotations: bool = True,
               encoding: str | None = None, progress: Callable[[int, int], None] | None = None,
               chunk: int = 8192, password: str | bytes | None = None) -> tuple[int, list[FormatError]]:
    """Write every game of a database as PGN (atomically); returns (games written, errors of skipped games).
    ``source`` may be an archive (``password``: a ``.cbz``'s).

    A game that cannot be read (a corrupt stream, an unknown mode) is skipped and its error returned; the
    others are written. Guiding texts have no PGN form and are left out. Games are decoded ``chunk`` at a time
    by the batch decoder (:mod:`.batch_pgn`): games without annotations are written from its arrays, the others
    through ``chess.pgn`` with its SAN; the games the batch leaves to the scalar decoder one by one through
    ``chess.pgn`` and python-chess's SAN.
    """
    failed: list[FormatError] = []
    written = 0
    with open_database(source, encoding=encoding, password=password) as db, atomic_write(target) as handle:
        total = db.record_count
        fields = record_fields(db.records, db.header_arrays())
        annotated = db.annotated() if annotations else np.zeros(total, bool)
        for part in db._chunks(None, chunk):
            marked = annotated[part - 1]
            plain, rich = part[~marked], part[marked]
            texts = dict(pgn_texts(db, db.decode_batch(plain, san=True), fields)) if len(plain) else {}
            if len(rich):
                texts.update(annotated_pgn_texts(db, db.decode_batch(rich, san=True), fields))
            for number in part.tolist():
                text = texts.get(number)
                if text is None:
                    text = _pgn_one(db, number, bool(annotated[number - 1]))
                if isinstance(text, FormatError):
                    failed.append(text)
                    continue
                handle.write(text.encode("utf-8") + b"\n")
                written += 1
                if progress is not None and (number % 256 == 0 or number == total):
                    progress(number, total)
    return written, failed


def _pgn_one(db: Database, number: int, annotated: bool) -> str | FormatError:
    """Game ``number`` as PGN text the one-by-one way (or the error that stops it)."""
    try:
        return single_pgn_text(db[number], annotated)
    except FormatError as error:
        return error


def open_database(path: str | os.PathLike[str], *, encoding: str | None = None,
                  password: str | bytes | None = None) -> Database:
    """Open a ChessBase database by its ``.cbh`` or any companion file (``encoding``: names' code page), or the
    base a ChessBase archive carries (``.cbv``; ``.cbz`` with its ``password``), through a temporary folder that
    :meth:`Database.close` removes, or at the latest the garbage collector (:func:`~.archive.extract_to_temporary`).
    """
    from .archive import extract_to_temporary, is_archive

    if not is_archive(path):
        return Database(path, encoding=encoding)
    folder, cbh = extract_to_temporary(path, password=password)
    try:
        database = Database(cbh, encoding=encoding)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    database.archive_path = os.fspath(path)
    database.archive_cleanup = weakref.finalize(database, shutil.rmtree, folder, True)
    return database
