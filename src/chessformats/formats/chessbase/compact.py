"""Copying a ChessBase base record by record (``chessformats convert a.cbh -o b.cbh``): every game and guiding
text keeps its bytes -- ``.cbh`` record, ``.cbg`` data, ``.cba`` record, ``.cbj`` record, entity records with
their leftovers and the fields no PGN tag gives -- and only what a copy must change is rewritten: file
offsets, entity numbers (renumbered in order of first use), game counts, the entity trees (balanced), the
``.cba`` record's game number and the ``.cbj`` check sum. Deleted records and the entities no game uses are
left out (the copy is compacted)."""

from __future__ import annotations

import os
from typing import Any

from ...engine.codec import codec
from ...engine.contract import Skipped, WriteReport
from ...engine.errors import FormatError
from ...engine.fileio import atomic_write_set
from ...schemas import chessbase as schema
from .database import Database, open_database
from .entities import EntityFile
from .entity_writer import EntityTable
from .extended_writer import NO_TEAM, cbj_header, cbj_record, check_summed
from .write import _cbh_header, _stem, _store_header, new_report

__all__ = ["copy_database"]

_GAME = codec(schema.GAME_RECORD)
_TEXT = codec(schema.TEXT_RECORD)
_KIND_BITS = codec(schema.RECORD_KIND).bit_fields()
_ANNOTATION_GAME = codec(schema.ANNOTATION_RECORD_HEAD).field("game")
_CBJ = codec(schema.CBJ_RECORD)
_GAME_ENTITIES = (("white", ".cbp"), ("black", ".cbp"), ("tournament", ".cbt"), ("annotator", ".cbc"),
                  ("source", ".cbs"))
_TEXT_ENTITIES = (("tournament", ".cbt"), ("annotator", ".cbc"), ("source", ".cbs"))
_STORE_HEADER_SIZE = len(_store_header(0))


def _entity_file(db: Database, extension: str) -> EntityFile:
    return {".cbp": db.players, ".cbt": db.tournaments, ".cbc": db.annotators, ".cbs": db.sources,
            ".cbe": db.teams}[extension]


def copy_database(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> WriteReport:
    """Copy the base ``source`` to ``target`` record by record (atomically).

    Returns a :class:`~chessformats.engine.contract.WriteReport` whose unit is ``records``: ``written`` counts the
    records copied (games and guiding texts; ``counts`` has ``games`` and ``guiding texts``), ``skipped`` the
    records left out by their number in ``source`` (a record whose data cannot be read, or that names an entity
    its file does not hold)."""
    stem = _stem(target)
    report = new_report(stem)
    report.unit = "records"
    texts = 0
    with open_database(source) as db, atomic_write_set() as open_file:
        files = {extension: open_file(stem + extension) for extension in (".cbh", ".cbg", ".cba", ".cbj")}
        tables = {extension: EntityTable(extension) for extension in (".cbp", ".cbt", ".cbc", ".cbs", ".cbe")}
        cbg_size = cba_size = _STORE_HEADER_SIZE
        files[".cbh"].write(bytes(schema.CBH_HEADER_SIZE))
        files[".cbg"].write(bytes(_STORE_HEADER_SIZE))
        files[".cba"].write(bytes(_STORE_HEADER_SIZE))
        files[".cbj"].write(cbj_header(0))
        count = 0
        for number in range(1, db.record_count + 1):
            kind = int(db.records["kind"][number - 1])
            if kind >> _KIND_BITS["deleted"].shift & 1:
                continue
            text = bool(kind >> _KIND_BITS["guiding_text"].shift & 1)
            try:
                copied = _copy_record(db, number, text, count + 1, cbg_size, cba_size, tables)
            except (FormatError, _Missing) as error:
                report.skipped.append(Skipped(number, str(error)))
                continue
            record, data, annotations, extended = copied
            files[".cbh"].write(record)
            files[".cbg"].write(data)
            files[".cba"].write(annotations)
            files[".cbj"].write(extended)
            cbg_size += len(data)
            cba_size += len(annotations)
            count += 1
            texts += text
        files[".cbh"].seek(0)
        files[".cbh"].write(_cbh_header(None, count))
        for extension, size in ((".cbg", cbg_size), (".cba", cba_size)):
            files[extension].seek(0)
            files[extension].write(_store_header(size))
        files[".cbj"].seek(0)
        files[".cbj"].write(cbj_header(count))
        for extension, table in tables.items():
            handle = open_file(stem + extension)
            for chunk in table.file_bytes():
                handle.write(chunk)
    report.written = count
    report.counts.update({"games": count - texts, "guiding texts": texts})
    return report


class _Missing(Exception):
    """A record names an entity its file does not hold."""


def _entity(db: Database, tables: dict[str, EntityTable], extension: str, old: int, game: int) -> int:
    entities = _entity_file(db, extension)
    if not 0 <= old < len(entities):
        raise _Missing(f"{extension} record {old}: the file has {len(entities)}")
    return tables[extension].add_raw(old, entities._raw(old), game)


def _copy_record(db: Database, number: int, text: bool, new: int, cbg_offset: int, cba_offset: int,
                 tables: dict[str, EntityTable]) -> tuple[bytes, bytes, bytes, bytes]:
    """The copied (``.cbh`` record, ``.cbg`` data, ``.cba`` record, ``.cbj`` record) of record ``number``, which
    becomes record ``new`` at these offsets."""
    start = schema.CBH_HEADER_SIZE + (number - 1) * schema.CBH_RECORD_SIZE
    record = bytearray(db._cbh[start:start + schema.CBH_RECORD_SIZE])
    declaration = _TEXT if text else _GAME
    data = _text_data(db, number) if text else db.game_data(number)[1]
    found = None if text else db.annotation_data(number)
    annotations = bytearray(found[1]) if found else bytearray()
    if annotations and _ANNOTATION_GAME.get(annotations):  # 0 (morphy's writer) stays 0
        _ANNOTATION_GAME.put(annotations, new)
    values: dict[str, Any] = {"cbg_offset": cbg_offset}
    if not text:
        values["cba_offset"] = cba_offset if annotations else 0
    for name, extension in _TEXT_ENTITIES if text else _GAME_ENTITIES:
        values[name] = _entity(db, tables, extension, int(declaration.field(name).get(record)), new)
    for name, value in values.items():
        declaration.field(name).put(record, value)
    return bytes(record), data, bytes(annotations), _extended(db, number, new, cbg_offset, values, tables)


def _text_data(db: Database, number: int) -> bytes:
    start = int(db.records["cbg_offset"][number - 1])
    size = int(codec(schema.DATA_WORD).field("size").get(db._cbg, start))
    if start + size > len(db._cbg):
        raise FormatError(f"guiding text {number}: data beyond the end of the .cbg file", file=db.companion(".cbg"),
                          offset=start)
    return bytes(db._cbg[start:start + size])


def _extended(db: Database, number: int, new: int, cbg_offset: int, values: dict[str, Any],
              tables: dict[str, EntityTable]) -> bytes:
    """The game's ``.cbj`` record (version 11) with its offsets and teams renumbered; a default one when the
    source has none."""
    teams = []
    for team in db.team_numbers(number):
        teams.append(NO_TEAM if team is None else _entity(db, tables, ".cbe", team, new))
    found = db.extended.raw(number) if len(db.extended) else None
    cba_offset = int(values.get("cba_offset", 0))
    if found is None or len(found[1]) != _CBJ.size:
        return cbj_record(teams[0], teams[1], cbg_offset, cba_offset, white_rated=False, black_rated=False)
    record = bytearray(found[1])
    for name, value in (("white_team", teams[0]), ("black_team", teams[1]), ("cbg_offset", cbg_offset),
                        ("cba_offset", cba_offset)):
        _CBJ.field(name).put(record, value)
    return check_summed(record)
