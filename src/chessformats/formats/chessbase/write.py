"""Writing ChessBase databases: python-chess games to a new base (``.cbh .cbg .cba .cbj .cbp .cbt .cbc .cbs .cbe``).

>>> import chess.pgn
>>> from chessformats.formats.chessbase.write import write_database
>>> with open("games.pgn") as pgn:                                            # doctest: +SKIP
...     report = write_database("base.cbh", iter(lambda: chess.pgn.read_game(pgn), None))

Games stream: each game's ``.cbh`` record and ``.cbg`` data are written when it comes, and only the entities
(one record per distinct player, tournament, annotator, source) are kept until the end, when their files are
written as AVL trees. Every file goes through :func:`~chessformats.engine.fileio.atomic_write_set`: a failed
or interrupted write leaves the old base (if any) untouched and no half-written one.

Written: moves with variations, null moves, setup positions and Chess960 (:mod:`.encoder`), the header fields
the reader gives as tags (players, event and site, date with missing parts, round and subround, result,
ratings, ECO, annotator, source, event date and type, teams in ``.cbe`` and ``.cbj``), the setup/variations/
Chess960 flags; annotations (:mod:`.annotation_writer`: comments, NAGs, ``[%csl]``/``[%cal]``, ``[%clk]``,
``[%emt]``, ``[%eval]``, the ``TimeControl`` tag). Not written yet: guiding texts, medals and the other items
without a PGN form, entity details that PGN has no tag for (a tournament's nation, rounds, category; a source's
publisher ...). Tags a base has no place for (``Opening``, ``PlyCount``, ``UTCDate`` ...) are left out, one
warning per tag name with the number of games that had it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Union

from ...engine.codec import codec
from ...engine.contract import Skipped, WriteReport, WriteWarning
from ...engine.errors import FormatError, UnsupportedError
from ...engine.fileio import atomic_write_set, locked
from ...engine.layout import describe
from ...engine.schema import enum_view
from ...engine.trace import parse
from ...schemas import chessbase as schema
from .annotation_writer import (
    EncodedAnnotations,
    ItemRecord,
    LineAnnotations,
    encode_annotations,
    encode_line_annotations,
)
from .encoder import EncodedGame, encode_game
from .entity_writer import EntityTable
from .extended_writer import CBJ_RECORD_SIZE, NO_TEAM, cbj_header, cbj_record
from .tags import HeaderValues, encode_name, header_values, split_player

if TYPE_CHECKING:
    import chess.pgn

    from .database import Database

__all__ = ["GameItem", "PreparedGame", "UnreadableGame", "WriteReport", "append_games", "write_database"]

_CBH_HEADER = codec(schema.CBH_HEADER)
_RECORD = codec(schema.GAME_RECORD)
_STORE_HEADER_SIZE: int = next(value for value, name in enum_view(
    schema.STORE_HEADER.subcons[0]).names.items() if name == "modern")
"""The size of the modern ``.cbg``/``.cba`` header (``STORE_HEADER`` with its 64-bit fields), which we write."""
_NAME_SIZES = {(extension, f.name): f.size or 0 for extension, declaration in schema.ENTITY_RECORDS.items()
               for f in describe(declaration) if f.size and f.name in (
                   "last_name", "first_name", "title", "place", "name", "publisher")}
_MOVES_MAX = _RECORD.field("moves").mask
"""The record's ``moves`` value for a main line too long to count there (the reader counts the stream)."""
_VARIATION_SIZES = tuple((limit, name) for limit, name in ((50, "v"), (300, "V"), (1000, "r"), (None, "R")))
"""The ``variation_size`` class of a game by moves in its variations (``ANNOTATION_SIZES``)."""
_FALSE_FLAGS = {name: (0 if name.startswith("reserved") else False)
                for name in (path.split(".", 1)[1] for path in _RECORD.fields if path.startswith("flags."))}
_NO_MEDALS = {path.split(".", 1)[1]: False for path in _RECORD.fields if path.startswith("medals.")}
_DATE_FIELDS = ("year", "month", "day")


_NAMES_KEPT = 1 << 18
"""Coded names kept at most (a file of millions of players codes the others when met)."""
_NO_LINE = LineAnnotations("", (), {})

_HELD_TAGS = frozenset(("Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "BlackElo", "ECO",
                       "Annotator", "Source", "EventDate", "EventType", "WhiteTeam", "BlackTeam", "TimeControl",
                       "FEN", "SetUp", "Variant"))
"""The PGN tags a base holds (:func:`.tags.header_values`, the entities, the setup position, the time control
item); the others are left out, counted by name in the report."""
_NO_VALUES = ("", "?")
"""A tag of these values holds nothing: left out unreported."""

_FILES = (".cbh", ".cbg", ".cba", ".cbj", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe")
"""The files a writer writes, the ``.cbh`` first."""


def new_report(stem: str) -> WriteReport:
    """An empty report of a base written at ``stem`` (unit ``games``, its files listed)."""
    return WriteReport(stem + ".cbh", unit="games", files=[stem + extension for extension in _FILES])


@dataclass(frozen=True)
class PreparedGame:
    """A game already encoded by a reader (a main line from the standard position, as
    :func:`chessformats.books.chessbase_import.write_database_from_pgn` reads most PGN games): its PGN tags and
    its ``.cbg`` data. Written exactly as the python-chess game of the same tags and moves."""

    headers: Mapping[str, str]
    encoded: EncodedGame
    annotations: LineAnnotations | ItemRecord | None = None
    """Its main line's comments and NAGs (None: none), or its annotation record made already."""


@dataclass(frozen=True)
class UnreadableGame:
    """A place in the stream of games for one its reader could not read: counted and reported, not written."""

    reason: str
    line: int | None = None
    """The line of the source text the game starts on (from 1), if known."""


GameItem = Union["chess.pgn.Game", PreparedGame, UnreadableGame]
"""What the writer takes: python-chess games, games already encoded, places of unreadable games. (A forward
reference: python-chess's PGN module is imported with the games that need it, so a base written from PGN text
alone may do without it.)"""


def _store_header(size: int, old: bytes = b"") -> bytes:
    """The ``.cbg``/``.cba`` header of a file of ``size`` bytes (``old``: the header it had, whose size and unused
    byte count are kept)."""
    if old:
        value = parse(schema.STORE_HEADER, old)
        modern = value.file_size_64 is not None
        return bytes(schema.STORE_HEADER.build({
            "header_size": int(value.header_size), "file_size": size, "unused_bytes": value.unused_bytes,
            "file_size_64": size if modern else None, "unused_bytes_64": value.unused_bytes_64}))
    header = codec(schema.STORE_HEADER).encode({"header_size": _STORE_HEADER_SIZE, "file_size": size,
                                                 "unused_bytes": 0, "file_size_64": size, "unused_bytes_64": 0})
    assert len(header) == _STORE_HEADER_SIZE
    return bytes(header)


def _date(values: tuple[int, int, int]) -> dict[str, int]:
    return {"reserved": 0, **dict(zip(_DATE_FIELDS, values, strict=True))}


class _Base:
    """The base being written: its entity tables and the open ``.cbh`` and ``.cbg`` files."""

    def __init__(self, files: dict[str, IO[bytes]], encoding: str | None, report: WriteReport) -> None:
        self.cbh, self.cbg, self.cba, self.cbj = (files[extension] for extension in (".cbh", ".cbg", ".cba", ".cbj"))
        self.encoding = encoding
        self.report = report
        self.players, self.tournaments = EntityTable(".cbp"), EntityTable(".cbt")
        self.annotators, self.sources = EntityTable(".cbc"), EntityTable(".cbs")
        self.teams = EntityTable(".cbe")
        self.cbg_size = self.cba_size = _STORE_HEADER_SIZE
        self.cbj_size = CBJ_RECORD_SIZE
        self.count = 0
        self.names: dict[tuple[str, str, str], bytes] = {}
        """The names coded so far that fit their field, by (entity file, field, text): players and events come
        back in game after game."""
        self.position: int | None = None
        """The position (from 1) in the writer's input of the game being added: the ``item`` of its warnings."""
        self.left_out: dict[str, int] = {}
        """Games by the name of a tag of theirs that the base has no place for (:data:`_HELD_TAGS`)."""

    def name(self, extension: str, field_name: str, text: str, number: int) -> bytes:
        known = self.names.get((extension, field_name, text))
        if known is not None:
            return known
        size = _NAME_SIZES[extension, field_name]
        raw, cut, lost = encode_name(text, size, self.encoding)
        if not cut and not lost and len(self.names) < _NAMES_KEPT:
            self.names[extension, field_name, text] = raw
        if lost:
            self.report.warnings.append(WriteWarning(
                f"game {number}: {field_name} {text!r}: {lost!r} not in {self.encoding}, written as '?'",
                item=self.position))
        if cut:
            self.report.warnings.append(WriteWarning(f"game {number}: {field_name} {text!r} cut to {size} bytes",
                                                     item=self.position))
        return raw

    def player(self, text: str, number: int) -> int:
        last, first = split_player(text)
        last_raw = self.name(".cbp", "last_name", last, number)
        first_raw = self.name(".cbp", "first_name", first, number)
        return self.players.add((last_raw, first_raw), {"last_name": last_raw, "first_name": first_raw}, number)

    def tournament(self, tags: Any, values: HeaderValues, number: int) -> int:
        title = self.name(".cbt", "title", _known(tags.get("Event", "")), number)
        place = self.name(".cbt", "place", _known(tags.get("Site", "")), number)
        key = (title, place, values.event_date)
        if key in self.tournaments:
            return self.tournaments.add(key, {}, number)
        record = {"title": title, "place": place, "date": _date(values.event_date),
                  "kind": {"correspondence": False, "rapid": False, "blitz": False, "type": values.event_type},
                  "reserved_84": 0, "nation": 0, "reserved_86": 0, "category": 0,
                  "flags": {"reserved": 0, "board_points": False, "complete": False, "unknown": False},
                  "rounds": 0, "reserved_90": 0}
        return self.tournaments.add(key, record, number)

    def annotator(self, text: str, number: int) -> int:
        name = self.name(".cbc", "name", text, number)
        return self.annotators.add(name, {"name": name}, number)

    def source(self, text: str, number: int) -> int:
        title = self.name(".cbs", "title", text, number)
        if title in self.sources:
            return self.sources.add(title, {}, number)
        record = {"title": title, "publisher": bytes(_NAME_SIZES[".cbs", "publisher"]), "publication": _date((0, 0, 0)),
                  "date": _date((0, 0, 0)), "version": 0, "quality": 0}
        return self.sources.add(title, record, number)

    def team(self, text: str | None, number: int) -> int:
        if not text or text == "?":
            return NO_TEAM
        title = self.name(".cbe", "title", text, number)
        return self.teams.add(title, {"title": title, "number": 0, "reserved_56": 0, "season": 0, "year": 0,
                                      "nation": 0}, number)

    def add(self, game: chess.pgn.Game) -> None:
        number = self.count + 1
        encoded = encode_game(game, number=number)
        annotations = encode_annotations(game, encoded, number=number, encoding=self.encoding)
        self._add(game.headers, encoded, annotations, number)

    def add_prepared(self, game: PreparedGame) -> None:
        number = self.count + 1
        if isinstance(game.annotations, ItemRecord):
            annotations = game.annotations.encoded(number)
        else:
            annotations = encode_line_annotations(game.headers, game.annotations or _NO_LINE, number=number,
                                                  encoding=self.encoding)
        self._add(game.headers, game.encoded, annotations, number)

    def _add(self, tags: Mapping[str, str], encoded: EncodedGame, annotations: EncodedAnnotations,
             number: int) -> None:
        values = header_values(tags)
        if not _HELD_TAGS.issuperset(tags):
            left_out = self.left_out
            for name, value in tags.items():
                if name not in _HELD_TAGS and value not in _NO_VALUES:
                    left_out[name] = left_out.get(name, 0) + 1
        self.report.warnings.extend(WriteWarning(f"game {number}: {problem}", item=self.position)
                                    for problem in values.problems + encoded.problems + annotations.problems)
        record = {
            "kind": {"deleted": False, "reserved": 0, "guiding_text": False, "present": True},
            "cbg_offset": self.cbg_size, "cba_offset": self.cba_size if annotations.data else 0,
            "white": self.player(tags.get("White", "?"), number), "black": self.player(tags.get("Black", "?"), number),
            "tournament": self.tournament(tags, values, number),
            "annotator": self.annotator(tags.get("Annotator", ""), number),
            "source": self.source(tags.get("Source", ""), number),
            "date": _date(values.date), "result": values.result, "line_evaluation": 0,
            "round": values.round, "subround": values.subround,
            "white_elo": values.white_elo, "black_elo": values.black_elo,
            "eco": {"code": values.eco[0], "subcode": values.eco[1]} if not encoded.start or
            encoded.start.start_position is None else _chess960_eco(encoded.start.start_position),
            "medals": _NO_MEDALS, "flags": _flags(encoded, annotations), "reserved_43": 0,
            "annotation_sizes": _annotation_sizes(encoded, annotations),
            "moves": min(_main_moves(encoded), _MOVES_MAX),
        }
        data = _RECORD.encode(record)
        teams = self.team(tags.get("WhiteTeam"), number), self.team(tags.get("BlackTeam"), number)
        self.cbj.write(cbj_record(teams[0], teams[1], self.cbg_size, self.cba_size if annotations.data else 0,
                                  white_rated=values.white_elo > 0, black_rated=values.black_elo > 0
                                  )[:self.cbj_size])
        self.cbg.write(encoded.data)
        self.cbh.write(data)
        self.cbg_size += len(encoded.data)
        if annotations.data:
            self.cba.write(annotations.data)
            self.cba_size += len(annotations.data)
        self.count = number


def _is_game(item: object) -> bool:
    """Whether ``item`` is a python-chess game (there is none unless its PGN module has been imported)."""
    pgn = sys.modules.get("chess.pgn")
    return pgn is not None and isinstance(item, pgn.Game)


def _known(text: str) -> str:
    """A tag value as the entity holds it: "?" (unknown) is the empty name, which the reader shows as "?"."""
    return "" if text == "?" else text


def _chess960_eco(position: int) -> dict[str, int]:
    value = schema.ECO_CHESS960 + position
    eco = codec(schema.ECO)
    return {"code": eco.field("code").extract(value), "subcode": eco.field("subcode").extract(value)}


def _flags(encoded: EncodedGame, annotations: EncodedAnnotations) -> dict[str, Any]:
    kinds = annotations.kinds
    return {**_FALSE_FLAGS, "setup": encoded.setup, "variations": encoded.variation_moves > 0,
            "chess960": bool(encoded.start and encoded.start.chess960),
            "comments": bool(kinds.get("text_after") or kinds.get("text_before")), "symbols": "symbols" in kinds,
            "squares": "squares" in kinds, "arrows": "arrows" in kinds}


_MANY = 10
"""Items of a kind from which the record's ``many_*`` bit is set (symbols: corpus, 9 never, 10 always)."""
_MANY_COMMENT_BYTES = 200
"""Comment bytes above which the record's ``many_comments`` bit is set: in every corpus game with a comment,
ChessBase sets it when its comments' texts (before and after moves, all languages) hold more than 200 bytes
(200: never, 201: always; 426 games have it)."""


def _annotation_sizes(encoded: EncodedGame, annotations: EncodedAnnotations) -> dict[str, Any]:
    kinds = annotations.kinds
    return {"reserved": 0, "many_arrows": kinds.get("arrows", 0) >= _MANY,
            "many_squares": kinds.get("squares", 0) >= _MANY, "many_symbols": kinds.get("symbols", 0) >= _MANY,
            "many_comments": annotations.text_bytes > _MANY_COMMENT_BYTES,
            "variation_size": _variation_size(encoded.variation_moves)}


def _variation_size(moves: int) -> str:
    for limit, name in _VARIATION_SIZES:
        if limit is None or moves <= limit:
            return name
    raise AssertionError("unreachable")


def _main_moves(encoded: EncodedGame) -> int:
    """The record's move count: full moves of the main line (a line that starts with black's move counts it)."""
    black_first = encoded.start is not None and not encoded.start.white_to_move
    return (encoded.main_plies + (1 if black_first else 0) + 1) // 2


def write_database(path: str | os.PathLike[str], games: Iterable[GameItem], *,
                   encoding: str | None = None) -> WriteReport:
    """Write ``games`` as a new ChessBase base at ``path`` (the ``.cbh`` file; its companions beside it), replacing
    a base of that name atomically. Returns a :class:`~chessformats.engine.contract.WriteReport` (unit ``games``;
    ``skipped``: each game left out, by its position in ``games`` from 1, with the reason and, for an
    :class:`UnreadableGame`, the line of its text; ``warnings``: names cut to their field, tags the record cannot
    hold, characters ``encoding`` cannot hold (written as "?"), and after them one per tag name the base has no
    place for (with ``item`` None and the number of games that had it), as
    :class:`~chessformats.engine.contract.WriteWarning`\\ s whose ``item`` is the game's position in ``games``
    and whose message names its number in the base).

    A game python-chess could not read completely (``game.errors``), an :class:`UnreadableGame`, or a game the
    format cannot hold is skipped and reported; the others are written (a :class:`PreparedGame` as it is).
    ``encoding``: the names' code page (``None``: cp1252 for the names it holds, UTF-8 for the others, the way
    the reader reads them).
    """
    return _write(_stem(path), games, encoding, append=False)


def append_games(path: str | os.PathLike[str], games: Iterable[GameItem], *,
                 encoding: str | None = None) -> WriteReport:
    """Add ``games`` to the base at ``path`` (atomically: its files are written anew beside it and renamed over
    it only when every game is in). Existing games, records and entity record numbers stay as they are (bytes
    included); new players, tournaments ... are added to the entity files, game counts updated, and each
    entity tree rebuilt balanced over all its records. A base without a ``.cbh`` file is created. Appends to one
    base hold its lock (``.NAME.cbh.lock`` beside it, :func:`~chessformats.engine.fileio.locked`) from their
    first read to their last rename, so concurrent appends (threads or processes) each add all their games. Returns the
    :class:`~chessformats.engine.contract.WriteReport` of :func:`write_database` (``written``: the games added).
    ``encoding``: the code page of the names and comments added (``None``: the one the base's texts measure as,
    :func:`~.codepage.base_code_page`, as a Russian base's cp1251; else :func:`write_database`'s default)."""
    return _write(_stem(path), games, encoding, append=True)  # (a new base when there is none, decided locked)


def _stem(path: str | os.PathLike[str]) -> str:
    stem = os.fspath(path)
    return stem[:-4] if stem.lower().endswith(".cbh") else stem


def _copy(path: str, handle: IO[bytes]) -> int:
    """Copy the file ``path`` (if any) into ``handle``; its size."""
    if not os.path.exists(path):
        return 0
    with open(path, "rb") as source:
        shutil.copyfileobj(source, handle)
    return os.path.getsize(path)


def _head(path: str, size: int) -> bytes:
    """The first ``size`` bytes of the file ``path`` (b"": no file)."""
    if not os.path.exists(path):
        return b""
    with open(path, "rb") as handle:
        return handle.read(size)


def _new_store(handle: IO[bytes]) -> int:
    handle.write(bytes(_STORE_HEADER_SIZE))
    return _STORE_HEADER_SIZE


def _old_extended(old: Database, handle: IO[bytes]) -> int:
    """Copy the old base's ``.cbj`` file (or, when it has none, write one for its games); its record size."""
    path = old.companion(".cbj")
    if os.path.exists(path) and os.path.getsize(path) >= schema.CBJ_HEADER_SIZE:
        size = int(old.extended.record_size)
        if size > CBJ_RECORD_SIZE:
            raise UnsupportedError(f".cbj records of {size} bytes: appending writes at most {CBJ_RECORD_SIZE}",
                                   file=path)
        _copy(path, handle)
        return size
    handle.write(cbj_header(0))
    for number in range(1, old.record_count + 1):
        handle.write(cbj_record(NO_TEAM, NO_TEAM, int(old.records["cbg_offset"][number - 1]),
                                int(old.records["cba_offset"][number - 1]), white_rated=False, black_rated=False))
    return CBJ_RECORD_SIZE


def _code_page(old: Database) -> str | None:
    """The code page to add games to ``old`` in: the one its texts measure as (:func:`~.codepage.base_code_page`,
    the measure by which the command line reads it), None when that is cp1252 or they need none (ASCII, UTF-8:
    the default writes what the reader reads back either way)."""
    from .codepage import base_code_page

    measured = base_code_page(old)
    return None if measured == "cp1252" else measured


def _cbh_header(old: Database | None, count: int) -> bytes:
    if old is None:
        return bytes(_CBH_HEADER.encode({
            "reserved_0": 0, "header_variant": "modern", "reserved_5": 1, "next_game_id": count + 1,
            "reserved_10": 0, "counter_12": 0, "counter_16": 0, "counter_20": 0, "reserved_24": bytes(16),
            "next_game_id_2": count + 1, "reserved_44": 0}))
    header = bytearray(_head(old.cbh_path, schema.CBH_HEADER_SIZE))
    _CBH_HEADER.field("next_game_id").put(header, count + 1)
    if _CBH_HEADER.field("next_game_id_2").get(header):  # 0 in old bases
        _CBH_HEADER.field("next_game_id_2").put(header, count + 1)
    return bytes(header)


def _read(path: str) -> bytes:
    if not os.path.exists(path):
        return b""
    with open(path, "rb") as handle:
        return handle.read()


def _write(stem: str, games: Iterable[GameItem], encoding: str | None, *, append: bool) -> WriteReport:
    # the base's lock is held from the first read of the old base to the last rename: concurrent appends run one
    # after the other (each renaming its files over the base, an append without it lost the others' games)
    with locked(stem + ".cbh"):
        if append and not os.path.exists(stem + ".cbh"):  # another writer's base is not there yet: a new one
            append = False
        return _write_locked(stem, games, encoding, append=append)


def _write_locked(stem: str, games: Iterable[GameItem], encoding: str | None, *, append: bool) -> WriteReport:
    report = new_report(stem)
    old = None
    if append:
        from .database import open_database  # (the reader: not imported to write a new base)

        old = open_database(stem + ".cbh")
    with contextlib.ExitStack() as stack, atomic_write_set() as open_file:
        if old is not None:
            stack.enter_context(old)
            if encoding is None:
                encoding = _code_page(old)
        files = {extension: open_file(stem + extension) for extension in (".cbh", ".cbg", ".cba", ".cbj")}
        cbh, cbg, cba, cbj = files[".cbh"], files[".cbg"], files[".cba"], files[".cbj"]
        base = _Base(files, encoding, report)
        tables = {".cbp": base.players, ".cbt": base.tournaments, ".cbc": base.annotators, ".cbs": base.sources,
                  ".cbe": base.teams}
        if old is None:
            cbh.write(bytes(schema.CBH_HEADER_SIZE))
            cbg.write(bytes(_STORE_HEADER_SIZE))
            cba.write(bytes(_STORE_HEADER_SIZE))
            cbj.write(cbj_header(0))
        else:
            base.count = old.record_count
            _copy(old.cbh_path, cbh)
            base.cbg_size = _copy(old.companion(".cbg"), cbg) or _new_store(cbg)
            base.cba_size = _copy(old.companion(".cba"), cba) or _new_store(cba)
            base.cbj_size = _old_extended(old, cbj)
            for extension, table in tables.items():
                table.load(_read(old.companion(extension)))
        start = base.count
        for position, game in enumerate(games, 1):
            base.position = position
            if isinstance(game, UnreadableGame):
                report.skipped.append(Skipped(position, game.reason, game.line))
                continue
            if isinstance(game, PreparedGame):
                try:
                    base.add_prepared(game)
                except FormatError as error:
                    report.skipped.append(Skipped(position, str(error)))
                continue
            if not _is_game(game):
                raise TypeError(f"games item {position} (from 1) is a {type(game).__name__}, not a chess.pgn.Game, "
                                "PreparedGame or UnreadableGame")
            if game.errors:
                report.skipped.append(Skipped(position, f"python-chess could not read it: {game.errors[0]}"))
                continue
            try:
                base.add(game)
            except FormatError as error:
                report.skipped.append(Skipped(position, str(error)))
        report.warnings += [WriteWarning(f"tag {name}: a ChessBase base has no place for it, left out of {count:,} "
                                         f"game{'s' if count > 1 else ''}") for name, count in sorted(
                                             base.left_out.items())]
        cbh.seek(0)
        cbh.write(_cbh_header(old, base.count))
        for extension, handle, size in ((".cbg", cbg, base.cbg_size), (".cba", cba, base.cba_size)):
            handle.seek(0)
            handle.write(_store_header(size, _head(old.companion(extension), _STORE_HEADER_SIZE) if old else b""))
        cbj.seek(0)
        cbj.write(cbj_header(base.count, _head(old.companion(".cbj"), schema.CBJ_HEADER_SIZE) if old else b""))
        for extension, table in tables.items():
            with_handle = open_file(stem + extension)
            for chunk in table.file_bytes():
                with_handle.write(chunk)
    report.written = base.count - start
    return report
