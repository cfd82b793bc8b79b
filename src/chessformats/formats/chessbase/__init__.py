"""ChessBase game databases: games with their headers, entities (players, tournaments, ...), a fast header scan.

>>> from chessformats import chessbase
>>> with chessbase.open_database("twic1134.cbh") as db:        # doctest: +SKIP
...     print(len(db), db[1].headers["White"])
...     for game in db:                                          # the games (GameHeader), guiding texts apart
...         pgn = game.to_pgn()
...     for player in db.players.sorted():
...         print(player.name)

A base is a collection of games: iteration gives its games in record order (guiding texts and deleted games
left out: :meth:`~.database.Database.guiding_texts`, :meth:`~.database.Database.record`), ``len`` counts them,
and ``db[n]`` is the game ChessBase numbers ``n`` (its record number, from 1). Writers return
:class:`~chessformats.engine.contract.WriteReport` (``WriteReport`` here is that class).

The byte layouts live in :mod:`chessformats.schemas.chessbase`; this package adds the meaning. Files are
memory-mapped and records are read when asked for, so memory does not grow with the number of games.

One module per concern: :mod:`.database` (the base and its files, PGN export), :mod:`.games` (a game's header and
guiding texts), :mod:`.entities` (players, tournaments, annotators, sources, teams), :mod:`.extended` (the ``.cbj``
extended headers), :mod:`.start` and :mod:`.moves` (where a game starts and its coded move stream), :mod:`.pgn` (a
decoded game as ``chess.pgn``), :mod:`.annotations` (``.cba`` items as PGN), :mod:`.batch_san` (SAN of
batch-decoded moves); writing: :mod:`.write` (a new base from python-chess games), :mod:`.encoder` (the move
stream), :mod:`.batch_encoder` (many main lines' move streams at once), :mod:`.tags` (PGN tags to header values),
:mod:`.entity_writer` (the entity trees), :mod:`.compact` (a base copied record by record); archives:
:mod:`.archive` (``.cbv``/``.cbz``: list, read, extract; ``open_database`` opens the base one holds),
:mod:`.archive_write` (a base packed into an archive).
"""

# (no ``from __future__ import annotations`` here: it would bind the name of the ``annotations`` submodule on
# this package, and the package's names are imported lazily, below)
from typing import TYPE_CHECKING

from ...engine.lazy import lazy_exports

if TYPE_CHECKING:
    from .annotations import decode_text
    from .archive import Archive, ArchiveMember, PasswordError, open_archive
    from .archive_write import base_files, write_archive
    from .compact import copy_database
    from .database import COMPANIONS, GAME_DTYPE, Database, export_pgn, open_database
    from .entities import Entity, EntityFile, SortKey, decode_name
    from .extended import ExtendedHeader, ExtendedHeaders
    from .games import RESULT_TAGS, GameHeader, GuidingText
    from .moves import DecodedGame, DecodedMove
    from .pgn import build_game
    from .write import GameItem, PreparedGame, UnreadableGame, WriteReport, append_games, write_database

__all__ = [
    "COMPANIONS",
    "GAME_DTYPE",
    "RESULT_TAGS",
    "Archive",
    "ArchiveMember",
    "Database",
    "DecodedGame",
    "DecodedMove",
    "Entity",
    "EntityFile",
    "ExtendedHeader",
    "ExtendedHeaders",
    "GameHeader",
    "GameItem",
    "GuidingText",
    "PasswordError",
    "PreparedGame",
    "SortKey",
    "UnreadableGame",
    "WriteReport",
    "append_games",
    "base_files",
    "build_game",
    "copy_database",
    "decode_name",
    "decode_text",
    "export_pgn",
    "open_archive",
    "open_database",
    "write_archive",
    "write_database",
]

# names are imported when first used: writing a base from PGN (``convert``) needs neither the reader nor the
# archives, and their declarations and python-chess's PGN module are a large part of a short run's start-up
__getattr__, __dir__ = lazy_exports(__name__, {
    "annotations": ("decode_text",),
    "archive": ("Archive", "ArchiveMember", "PasswordError", "open_archive"),
    "archive_write": ("base_files", "write_archive"),
    "compact": ("copy_database",),
    "database": ("COMPANIONS", "GAME_DTYPE", "Database", "export_pgn", "open_database"),
    "entities": ("Entity", "EntityFile", "SortKey", "decode_name"),
    "extended": ("ExtendedHeader", "ExtendedHeaders"),
    "games": ("RESULT_TAGS", "GameHeader", "GuidingText"),
    "moves": ("DecodedGame", "DecodedMove"),
    "pgn": ("build_game",),
    "write": ("GameItem", "PreparedGame", "UnreadableGame", "WriteReport", "append_games", "write_database"),
})
