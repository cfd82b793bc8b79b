"""The command line's handler for chessbase files: info, inspect, probe."""

from __future__ import annotations

import contextlib
import os
import shutil
import weakref
from typing import Any

import chess.pgn
import numpy as np

from chessformats.engine.errors import FormatError
from chessformats.formats.chessbase import (
    COMPANIONS,
    Database,
    DecodedMove,
    GameHeader,
    GuidingText,
    build_game,
    decode_text,
    open_database,
)
from chessformats.formats.chessbase.codepage import base_code_page
from chessformats.schemas import chessbase as schema

from .archive import password_for
from .registry import FormatHandler, clamped


def _sniff(path: str, head: bytes, size: int) -> int:
    """3: a ``.cbh`` with the header's fixed bytes, a ``.cbv`` archive with its own; 1: a file of whole 46-byte
    records named ``.cbh`` (damaged), a ``.cbv`` without them; 2: a ``.cbz`` (enciphered: known by its name
    only), a companion file (``.cbg``, ``.cbp``, ...) by its name, when its ``.cbh`` is beside it."""
    stem, extension = os.path.splitext(path)
    extension = extension.lower()
    if extension == ".cbv":
        return 3 if head[:2] == b"\x08\x00" else 1
    if extension == ".cbz":
        return 2
    if extension == ".cbh" or (len(head) >= 6 and head[:1] == b"\0" and head[3:6] == b"\x00\x2e\x01"):
        if head[:1] == b"\0" and head[3:6] == b"\x00\x2e\x01" and size % schema.CBH_RECORD_SIZE == 0:
            return 3
        return 1 if extension == ".cbh" and size and size % schema.CBH_RECORD_SIZE == 0 else 0
    if extension in COMPANIONS[1:9]:
        return 2 if any(os.path.exists(stem + cbh) for cbh in (".cbh", ".CBH")) else 1
    return 0


def _info(path: str) -> dict[str, Any]:
    with open_database(path, password=password_for(path)) as db:
        arrays = db.header_arrays()
        texts = int(np.count_nonzero(arrays["guiding_text"]))
        deleted = int(np.count_nonzero(arrays["deleted"]))
        findings: list[str] = []
        for entities in (db.players, db.tournaments, db.annotators, db.sources, db.teams):
            findings += entities.check()
        # an archive's companions are beside the .cbh it was extracted to (the base opened once, not again)
        findings += [f"no {extension}: {lost}" for extension, lost in missing_companions(db.cbh_path, db)]
        modes = db.encoding_modes()
        unknown = sorted(mode for mode in modes if mode > 11)
        if unknown:
            findings.append(f"games with unknown move-encoding modes: {unknown}")
        return {
            "format": "chessbase",
            "variant": str(db.header.header_variant),
            "records": db.record_count,
            "games": len(db),
            "guiding_texts": texts,
            "deleted": deleted,
            "players": db.players.header.existing if db.players.header else 0,
            "tournaments": db.tournaments.header.existing if db.tournaments.header else 0,
            "annotators": db.annotators.header.existing if db.annotators.header else 0,
            "sources": db.sources.header.existing if db.sources.header else 0,
            "teams": db.teams.header.existing if db.teams.header else 0,
            "encoding_modes": {str(k): v for k, v in modes.items()},
            "code_page": base_code_page(db) or "UTF-8 or ASCII",
            "findings": findings,
        }


_ENTITY_LABELS = {".cbp": "players", ".cbt": "tournaments", ".cbc": "annotators", ".cbs": "sources", ".cbe": "teams"}
"""The entity files, named as their records' paths name them."""


def _inspect(path: str, *, game: int | None = None, record: int | None = None, count: int | None = None,
             player: str | None = None) -> list[Any]:
    """The annotated bytes of a base: ``--game N`` (from 1, ChessBase's numbers) or ``--record N`` of the
    ``.cbh`` (from 0: record 0 is the file's header, record N game N), with ``--count``; ``--player``; the
    records of an entity file given (``.cbp``, ...: ``--record`` from 0). An archive (``.cbv``, ``.cbz``):
    its header and file table (``--record``: entries from 0), or with ``--game``/``--player`` the base inside it,
    extracted to a temporary folder that goes when the targets do."""
    if not path.lower().endswith((".cbv", ".cbz")):
        return _base_targets(path, game=game, record=record, count=count, player=player)
    if game is None and player is None:
        return _archive_targets(path, record, count)
    if record is not None:
        raise IndexError("an archive's --record numbers its file table; --game and --player show the base inside "
                         "it: give one or the other")
    from chessformats.formats.chessbase.archive import extract_to_temporary

    folder, cbh = extract_to_temporary(path, password=password_for(path))
    try:
        targets = _Targets(_base_targets(cbh, game=game, record=None, count=count, player=player))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    weakref.finalize(targets, shutil.rmtree, folder, True)  # the hex view reads the extracted files first
    return targets


class _Targets(list):  # type: ignore[type-arg]
    """The targets of a base extracted from an archive: its temporary folder is removed when they go."""


def _base_targets(path: str, *, game: int | None, record: int | None, count: int | None,
                  player: str | None) -> list[Any]:
    from .registry import InspectTarget

    extension = os.path.splitext(path)[1].lower()
    with open_database(path) as db:
        if player is not None:
            found = db.players.find(player)
            if found is None:
                raise KeyError(f"no player {player!r} in {os.path.basename(db.players.path)}")
            offset = db.players.header_size + found.number * db.players.record_size
            return [InspectTarget(schema.PLAYER, offset, db.players.record_size, f"players[{found.number}]",
                                  {f"players[{found.number}].last_name": found.name}, db.players.path)]
        if record is not None and game is None and extension in _ENTITY_LABELS:
            return _entity_targets(db, extension, record, count)
        if record is not None and game is None and extension in (".cbg", ".cba", ".cbj"):
            raise IndexError(f"a {extension} file's records follow the games: --game N shows game N's bytes in it")
        if game is not None and record is not None:
            raise IndexError("--game N is .cbh record N: give one of --game and --record")
        total = db.record_count
        if record == 0:
            return [InspectTarget(schema.CBH_HEADER, 0, schema.CBH_HEADER_SIZE, "header",
                                  {"header": f"the .cbh's header (record 0): {total} records follow"}, db.cbh_path),
                    *(_game_targets(db, 1, count - 1) if count is not None and count > 1 and total else [])]
        if record is not None and not 0 <= record <= total:
            raise IndexError(f"no record {record} in {os.path.basename(db.cbh_path)} (records are 0..{total}: 0 is "
                             "the header, N is game N)")
        first = game if game is not None else (record if record is not None else 1)
        if not 1 <= first <= total:
            raise IndexError(f"no game {first} in {os.path.basename(db.cbh_path)} (games are 1..{total})")
        return _game_targets(db, first, count or 1)


def _entity_targets(db: Database, extension: str, record: int, count: int | None) -> list[Any]:
    """Records of an entity file (from 0, as the games' records number them)."""
    from .registry import InspectTarget

    entities = next(part for part in (db.players, db.tournaments, db.annotators, db.sources, db.teams)
                    if part.extension == extension)
    label = _ENTITY_LABELS[extension]
    if not 0 <= record < len(entities):
        raise IndexError(f"no record {record} in {os.path.basename(entities.path)} (records are 0.."
                         f"{len(entities) - 1})" if len(entities) else f"{os.path.basename(entities.path)} is empty")
    targets = []
    for number in clamped(record, count or 1, len(entities) - 1, "record"):
        offset = entities.header_size + number * entities.record_size
        targets.append(InspectTarget(entities.declaration, offset, entities.record_size, f"{label}[{number}]",
                                     {f"{label}[{number}]": entities[number].name} if entities[number].name else {},
                                     entities.path))
    return targets


def _game_targets(db: Database, first: int, count: int) -> list[Any]:
    """Games ``first`` .. (``count`` of them, fewer past the end): each one's .cbh record, moves, annotations and
    .cbj record."""
    from .registry import InspectTarget

    targets = []
    for number in clamped(first, count, db.record_count, "game"):
        header = db.record(number)
        at = schema.CBH_HEADER_SIZE * number
        label = header.headers.get("White", "") + " - " + header.headers.get("Black", "") \
            if isinstance(header, GameHeader) else "guiding text"
        declaration = schema.GAME_RECORD if isinstance(header, GameHeader) else schema.TEXT_RECORD
        targets.append(InspectTarget(declaration, at, schema.CBH_RECORD_SIZE, f"games[{number}]",
                                     {f"games[{number}].kind": label}, db.cbh_path))
        if isinstance(header, GuidingText):
            continue
        targets += _move_targets(db, number)
        targets += _annotation_targets(db, number)
        targets += _cbj_targets(db, header)
    return targets


def _archive_targets(path: str, record: int | None, count: int | None) -> list[Any]:
    """An archive's header, then file-table entries (``--record`` from 0, ``--count``) each with its first
    block's head (``.cbv`` only: a ``.cbz`` is enciphered on disk)."""
    from chessformats.formats.chessbase.archive import open_archive
    from chessformats.schemas.chessbase import cbv

    from .registry import InspectTarget

    if path.lower().endswith(".cbz"):
        raise FormatError("inspect shows the bytes on disk, and a .cbz is enciphered: --game N or --player NAME "
                          "show the base inside it; convert it to a .cbv for its file table", file=path)
    with open_archive(path) as archive:
        size = archive.header.entry_size
        targets = [InspectTarget(cbv.ARCHIVE_HEADER, 0, cbv.ARCHIVE_HEADER_SIZE, "header",
                                 {"header.files": f"{len(archive.members)} files"})]
        first, total = record or 0, len(archive.members)
        if not 0 <= first < max(total, 1):
            raise IndexError(f"no entry {first} in the file table of {os.path.basename(path)} (entries are "
                             f"0..{total - 1})")
        for member in archive.members[first:first + len(clamped(first, count or total - first, total - 1,
                                                                   "entry"))]:
            at = cbv.ARCHIVE_HEADER_SIZE + member.entry * size
            targets.append(InspectTarget(cbv.ARCHIVE_ENTRY, at, cbv.ARCHIVE_ENTRY_SIZE, f"files[{member.entry}]",
                                         {f"files[{member.entry}].name": member.path}))
            if member.compressed_size:
                targets.append(InspectTarget(cbv.BLOCK_HEAD, member.offset, cbv.BLOCK_HEAD_SIZE,
                                             f"files[{member.entry}].blocks[0].head", {}))
        return targets


def _cbj_targets(db: Database, game: GameHeader) -> list[Any]:
    """The game's ``.cbj`` record (extended header), its teams named."""
    from .registry import InspectTarget

    found = game.extended
    if found is None:
        return []
    path = f"cbj[{game.number}]"
    notes = {f"{path}.{side}": name for side, name in (("white_team", game.white_team),
                                                       ("black_team", game.black_team)) if name}
    for name in ("created", "modified"):
        moment = getattr(found, name)
        if moment is not None:
            notes[f"{path}.{name}"] = moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return [InspectTarget(db.extended.declaration, found.offset, db.extended.record_size, path, notes,
                          db.extended.path)]


def _annotation_targets(db: Database, number: int) -> list[Any]:
    """The game's annotation record: its head, then each item's head and body (traced with its type's layout)."""
    from .registry import InspectTarget

    found = db.annotation_data(number)
    if found is None:
        return []
    offset, _ = found
    cba = db.companion(".cba")
    targets = [InspectTarget(schema.ANNOTATION_RECORD_HEAD, offset, 14, f"cba[{number}]", {}, cba)]
    at = offset + 14
    for index, entry in enumerate(db.annotations(number)):
        path = f"cba[{number}].entries[{index}]"
        targets.append(InspectTarget(schema.ANNOTATION_ITEM_HEAD, at, 6, path, {}, cba))
        body = schema.ANNOTATION_BODY.case_of(int(entry.type))
        notes = {}
        if int(entry.type) in (0x02, 0x82):
            notes[f"{path}.body.text"] = repr(decode_text(entry.body.text, db.encoding))
        targets.append(InspectTarget(body, at + 6, int(entry.size) - 6, f"{path}.body", notes, cba))
        at += int(entry.size)
    return targets


def _move_targets(db: Database, number: int) -> list[Any]:
    """The game's data head, then each move's bytes labelled with the move (the raw stream if it is corrupt)."""
    from .registry import InspectTarget

    offset, data = db.game_data(number)
    cbg = db.companion(".cbg")
    try:
        decoded = db.decode(number)
    except FormatError as error:
        return [InspectTarget(schema.GAME_DATA, offset, len(data), f"cbg[{number}]",
                              {f"cbg[{number}].moves": f"cannot be decoded: {error.reason}"}, cbg)]
    head_size = 4 + (28 if data[0] & 0x40 else 0) + (8 if data[0] & 0x40 and decoded.chess960 else 0)
    targets = [InspectTarget(schema.GAME_DATA_HEAD, offset, head_size, f"cbg[{number}]",
                             {f"cbg[{number}].word.mode": f"{schema.MODE_ENCODER[decoded.mode]} encoder, counter "
                              f"{schema.MODE_COUNTER[decoded.mode]}, {schema.MODE_VARIANT[decoded.mode]}"}, cbg)]
    nodes: list[chess.pgn.GameNode] = []
    build_game(decoded, {}, lambda node, index: nodes.append(node) if index else None)  # stream order
    moves = [token for token in decoded.tokens if isinstance(token, DecodedMove)]
    for index, (token, node) in enumerate(zip(moves, nodes, strict=False)):
        path = f"cbg[{number}].moves[{index}]"
        parent = node.parent
        move = node.move
        san = parent.board().san(move) if parent is not None and move is not None and not token.null else "--"
        shown = f"{token.uci(chess960=decoded.chess960)} ({san})"
        declaration = schema.MOVE_BYTE if token.byte_count == 1 else \
            schema.MOVE_BYTES if token.byte_count == 3 else schema.SIMPLE_MOVE_BYTES
        label = f"{path}.code" if token.byte_count != 2 else f"{path}.move"
        targets.append(InspectTarget(declaration, token.offset, token.byte_count, path, {label: shown}, cbg))
    return targets


HANDLER = FormatHandler(
    key="chessbase", status="read, write (from PGN or a base), PGN export, inspect; archives (.cbv, .cbz)",
    sniff=_sniff, info=_info, inspect=_inspect,
    inspect_options=("game", "record", "count", "player"),
)


_LOST = {
    ".cbg": "the games' moves are in it (no game can be read)",
    ".cba": "annotations (comments, symbols, arrows) unknown",
    ".cbp": "player names unknown",
    ".cbt": "tournaments unknown",
    ".cbc": "annotators unknown",
    ".cbs": "sources unknown",
}
"""What a base loses without each of its companion files (teams, ``.cbe``, are optional: old bases have none)."""


def missing_companions(path: str, db: Database | None = None) -> list[tuple[str, str]]:
    """The companion files missing beside a base's ``.cbh``: (extension, what is lost without it). A ``.cba`` is
    missing only when a game has annotations (a base without any has none): ``db``, the base already open, is
    asked (else the base is opened from ``path``)."""
    stem = os.path.splitext(path)[0] if os.path.splitext(path)[1].lower() in COMPANIONS else path

    def there(extension: str) -> bool:
        return any(os.path.exists(stem + name) for name in (extension, extension.upper()))

    missing = [(extension, lost) for extension, lost in _LOST.items() if extension != ".cba" and not there(extension)]
    if not there(".cba"):
        with open_database(path) if db is None else contextlib.nullcontext(db) as opened:
            if bool(np.any(opened.records["cba_offset"] != 0)):
                missing.insert(1, (".cba", _LOST[".cba"]))
    return missing
