"""Building opening books from games: read PGN fast, count every (position, move) with its results.

The :class:`BookBuilder` is format-neutral: it collects, per position (identified by its Polyglot key)
and move, the counts a book needs, and :meth:`BookBuilder.to_stats` gives the neutral
:class:`~chessformats.books.stats.BookStats` model that every book writer consumes. It also keeps
the two counters ``polyglot make-book`` keeps (games ``n`` and ``sum`` of ``result + 1``, halved for
the whole position when a move reaches 16,384 games), so the Polyglot writer can reproduce that
program's output byte for byte.

Reading follows ``polyglot make-book``: the main line of each game up to ``max_ply`` plies, comments,
variations and NAGs skipped, the result taken from the ``Result`` tag (anything but ``1-0``/``0-1``
scores as a draw for polyglot's counters; the neutral counts keep ``*`` apart). Games that start from a
``FEN`` tag are played from that position (polyglot ignores the tag and fails on such games). A game
with an illegal or unreadable move within ``max_ply`` plies is skipped whole and reported with its
number and byte offset; the build goes on.

Speed: the games are read in batches; each batch is replayed by :mod:`chessformats.books.batchplay`
(all games of the batch advance one ply per numpy step; python-chess only for what it does not play),
which yields one event (game, ply, key, move) per ply. The counts are then aggregated with numpy into
a table sorted by (key, move); polyglot's sequential halving is recomputed exactly, in game order, for
the few positions that reach 16,384 games. With ``jobs=2`` the file is cut into pieces at game boundaries
that forked processes read and replay, merged here in file order (:mod:`chessformats.books.pieces`).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..engine.streams import COMPRESSED_SUFFIXES
from . import batchplay
from .batches import (
    CHUNK_GAMES,
    COUNTS,
    DRAW,
    LOSS,
    POINTS,
    WIN,
    Batch,
    Chunk,
    Game,
    SkippedGame,
    event_stride,
    read_chunks,
    read_spans,
    replay_games,
)
from .filters import GameFilter
from .halving import halve
from .pgnread import game_spans, open_text, split_games
from .pieces import (  # CHESSBASE_FILES: the names read as a database, kept importable from here
    CHESSBASE_FILES,  # noqa: F401
    DATABASE_NAMES,
    LOCAL_PIECE_BYTES,
    LocalPool,
    merge_pieces,
    piece_size,
    read_forked,
)
from .runs import group_starts, in_order, sort_order
from .spill import SPILL_LIMIT, combine_rows

if TYPE_CHECKING:
    import chess
    import chess.pgn

    from .spill import SpillStore
    from .stats import BookStats

__all__ = ["BookBuilder", "BookEntry", "SkippedGame", "open_text", "split_games"]

BLOCK_CHARS = 1 << 24
"""Characters of PGN read at a time in a one-process build (a block holds many batches of usual games)."""

PARALLEL_BYTES = 1 << 20
"""Files up to this size are read by one process whatever ``jobs`` says (workers would cost more than they save)."""

COUNT_MAX = 16384
"""``polyglot make-book`` halves a position's counters when one of its moves reaches this many games."""

MERGE_EVENTS = 1 << 18
"""Events added to the counts at a time (a larger batch or piece is added key range by key range)."""

TABLE_ROW_BYTES = 73
"""Bytes of a row of counts in memory (key, raw move, first and six counters of 8 bytes, White to move of one)."""

TABLE_MIB = 16
"""Memory for the rows of counts a builder adds before it spills to disk, by default (see :mod:`.spill`)."""


def table_rows(mib: int) -> int:
    """The rows of counts that take ``mib`` MiB in memory (``BookBuilder(table_rows=...)`` for a memory budget)."""
    return max(1, (mib << 20) // TABLE_ROW_BYTES)


TABLE_ROWS = table_rows(TABLE_MIB)
"""Rows of counts a builder adds in memory before it spills to disk, by default (229,824)."""

# per outcome (WIN, DRAW, LOSS, UNKNOWN): what a game adds to polyglot_sum, wins, draws and losses
_TALLIES = np.stack([POINTS, *((np.arange(len(POINTS)) == outcome).astype(np.int64) for outcome in (WIN, DRAW, LOSS))])


class BookEntry(NamedTuple):
    """One (position, move) of a build with its counters."""

    key: int
    raw_move: int
    """The move as Polyglot stores it (castling as king-takes-rook)."""
    white_to_move: bool
    polyglot_n: int
    """Games, as ``polyglot make-book`` counts them (halved at 16,384)."""
    polyglot_sum: int
    """Sum of ``result + 1`` for the side to move (win 2, draw or unknown 1, loss 0), halved likewise."""
    games: int
    wins: int
    draws: int
    losses: int


class BookBuilder:
    """Counts (position, move, result) over games. See the module documentation."""

    def __init__(self, *, max_ply: int = 1024, game_filter: GameFilter | None = None, boards: bool = True,
                 table_rows: int | None = TABLE_ROWS, spill_dir: str | os.PathLike[str] | None = None) -> None:
        """``boards=False``: keep no positions (a Polyglot book needs keys and counts only; less memory and time);
        :meth:`board` and :meth:`to_stats` then raise.

        ``table_rows``: rows of counts (distinct position and move) added in memory before the ones polyglot's
        halving cannot concern yet are written to a temporary folder in ``spill_dir`` (the system's by default)
        and merged back when the book is written (:meth:`column_blocks`); ``None``: never. The counts are the
        same either way."""
        if max_ply < 0:
            raise ValueError("max_ply must be >= 0")
        if table_rows is not None and table_rows < 1:
            raise ValueError("table_rows must be >= 1")
        self.table_rows = table_rows
        self.spill_dir = spill_dir
        self._store: SpillStore | None = None
        self._pinned = np.zeros(0, dtype=np.uint64)  # positions kept in memory for good (halving may concern them)
        self._kept = 0  # rows left in memory by the last spill
        self._length: int | None = None
        self.max_ply = max_ply
        self.boards = boards
        self.game_filter = game_filter if game_filter is not None else GameFilter()
        """Which games count (:mod:`chessformats.books.filters`; by default the games of chess, any variant tag
        of a variant with other rules left out)."""
        self.games = 0
        """Games read (including skipped ones and the ones the filter left out), and the records of ChessBase
        bases that are not games (:attr:`not_games`: games are numbered by record)."""
        self.filtered = 0
        """Games the filter left out."""
        self.not_games = 0
        """Records of ChessBase bases that are not games (guiding texts, deleted games): numbered, not counted."""
        self.reading: IO[str] | None = None
        """The PGN text stream being read (a progress bar asks how far it is), else ``None``."""
        self.skipped: list[SkippedGame] = []
        # the counts: one row per (key, move), sorted by key then move; "first" orders rows as first met
        self._table: dict[str, np.ndarray[Any, Any]] = {
            "key": np.zeros(0, dtype=np.uint64), "raw": np.zeros(0, dtype=np.int64),
            "white": np.zeros(0, dtype=bool), "first": np.zeros(0, dtype=np.int64),
            **{name: np.zeros(0, dtype=np.int64) for name in COUNTS}}
        # positions by key (sorted): whole for the first MEMO_DEPTH plies, deeper ones as (parent, move)
        start = batchplay.start_columns()
        self._positions = {name: np.array([value], dtype=np.int64 if name == "ep" else np.uint64)
                           for name, value in start.items()}
        self._links = (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64))
        self._fens: dict[int, str] = {}

    # --- input ---
    def add_pgn(
        self,
        path: str | os.PathLike[str],
        *,
        jobs: int = 1,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Add every game of a PGN file (plain, ``.gz``, ``.bz2``, ``.xz`` or ``.zst``).

        With ``jobs=1`` the file is read in blocks of :data:`BLOCK_CHARS` characters (memory does not grow
        with the file). With ``jobs`` > 1 (POSIX) the file is cut into pieces at game boundaries that ``jobs``
        forked processes read and replay while this one merges them in file order (:mod:`.pieces`; the same counts,
        memory of one piece per process); a plain file of at most ``jobs`` pieces is cut in ``jobs`` pieces, this
        process reading one of them. ``progress(games, characters read)`` is called now and then (bytes of
        the file, compressed bytes for a compressed file, when ``jobs`` > 1).
        """
        collecting = gc.isenabled()
        gc.disable()  # the build creates many small objects that live to the end: no cycles to find
        try:
            size = os.path.getsize(path)
            if jobs > 1 and hasattr(os, "fork") and size > PARALLEL_BYTES and \
                    not _daemonic():  # (a daemonic process may not have children)
                if size <= jobs * LOCAL_PIECE_BYTES and not os.fspath(path).lower().endswith(COMPRESSED_SUFFIXES):
                    read_forked(self, path, jobs, progress)
                    return
                with LocalPool(jobs) as pool:
                    merge_pieces(pool, self, [path], piece_size([path], jobs, largest=LOCAL_PIECE_BYTES), 2 * jobs,
                                 progress)
                return
            with open_text(path) as handle:
                self.reading = handle
                self._add_stream(handle, progress)
        finally:
            self.reading = None
            if collecting:
                gc.enable()

    def add_file(self, path: str | os.PathLike[str], *, jobs: int = 1,
                 progress: Callable[[int, int], None] | None = None, password: str | bytes | None = None) -> None:
        """Add the games of a PGN file (``.pgn``, ``.gz``, ``.bz2``, ``.xz``, ``.zst``, or any other name that is not a
        ChessBase file) or of a ChessBase database (any of its files, or a ``.cbv`` archive, or a ``.cbz`` with its
        ``password``: see :meth:`add_database`)."""
        if os.fspath(path).lower().endswith(DATABASE_NAMES):
            self.add_database(path, progress=progress, password=password)
        else:
            self.add_pgn(path, jobs=jobs, progress=progress)

    def add_database(self, path: str | os.PathLike[str], *, encoding: str | None = None,
                     progress: Callable[[int, int], None] | None = None, password: str | bytes | None = None) -> None:
        """Add the main lines of the games of a ChessBase database (opened by any of its files, or by the archive
        that carries it: ``.cbv``, or ``.cbz`` with its ``password``).

        Games are numbered by their record in the base (guiding texts and deleted games, which are
        records too, add nothing). A game whose moves cannot be decoded, or a losing-chess game (not a
        game of chess for a book), is skipped and reported with its number and its ``.cbg`` offset.
        ``progress(games, records read)`` is called now and then.
        """
        from ..engine.errors import FormatError
        from ..formats.chessbase import RESULT_TAGS, open_database
        from ..formats.chessbase.batch_pgn import batch_mainline_sans
        from ..formats.chessbase.pgn import mainline_sans

        stride = event_stride(self.max_ply)
        first = self.games
        with open_database(path, encoding=encoding, password=password) as db:
            arrays = db.header_arrays()
            batch: list[Game] = []
            skipped: list[SkippedGame] = []
            records = db.record_count
            wanted = np.flatnonzero(~arrays["deleted"] & ~arrays["guiding_text"]) + 1
            for start in range(0, len(wanted), CHUNK_GAMES):
                part = wanted[start:start + CHUNK_GAMES]
                lines = batch_mainline_sans(db.decode_batch(part, san=True), self.max_ply)
                for number_in_base, line in zip(part.tolist(), lines, strict=True):
                    index = number_in_base - 1
                    number, offset = first + number_in_base, int(arrays["cbg_offset"][index])
                    tags: dict[str, str] = {}
                    if line is None:  # left by the batch (a setup position, Chess960, ...): one by one
                        try:
                            decoded = db.decode(number_in_base)
                        except FormatError as exc:
                            skipped.append(SkippedGame(number, offset, str(exc)))
                            continue
                        if decoded.variant == "losing chess":
                            skipped.append(SkippedGame(number, offset, "a losing-chess game"))
                            continue
                        tags, line = mainline_sans(decoded, self.max_ply)
                    tags["Result"] = RESULT_TAGS.get(int(arrays["result"][index]), "*")
                    if not self.game_filter.keep(tags):
                        self.filtered += 1
                        continue
                    batch.append((number, offset, tags, line))
                    if len(batch) >= CHUNK_GAMES:
                        self._merge(replay_games(Batch.of(batch), stride, 0, skipped, positions=self.boards))
                        batch, skipped = [], []
                        if progress is not None:
                            progress(self.games, index + 1)
            self._merge(replay_games(Batch.of(batch), stride, 0, skipped, positions=self.boards))
            self.games = first + records
            self.not_games += int(np.count_nonzero(arrays["deleted"] | arrays["guiding_text"]))
            if progress is not None:
                progress(self.games, records)

    def _add_stream(self, handle: IO[str], progress: Callable[[int, int], None] | None) -> None:
        pending, base = "", 0  # text not yet read as games, and where it starts in the whole text
        while True:
            block = handle.read(BLOCK_CHARS)
            text = pending + block if pending else block
            spans = list(game_spans(text))
            if block and spans:  # the last game may go on in the next block
                rest = spans.pop()[0]
            else:
                rest = len(text) if not block else 0
            for chunk in read_spans(text, spans, base, self.games + 1, self.max_ply, progress,
                                    game_filter=self.game_filter, positions=self.boards):
                self._merge(chunk)
            pending, base = text[rest:], base + rest
            if not block:
                break
        if progress is not None:
            progress(self.games, base)

    def add_pgn_text(self, text: str) -> None:
        """Add the games of a PGN text."""
        self._add_text(text, None)

    def add_game(self, game: chess.pgn.Game) -> None:
        """Add the main line of a python-chess game (its ``Result`` header scores it)."""
        self.add_games((game,))

    def add_games(self, games: Iterable[chess.pgn.Game]) -> None:
        """Add the main lines of python-chess games."""
        import chess

        stride = event_stride(self.max_ply)
        batch: list[Game] = []
        for game in games:
            board = game.board()
            headers = dict(game.headers)
            if not self.game_filter.keep(headers):
                self.games += 1
                self.filtered += 1
                continue
            if "FEN" not in headers and board.fen() != chess.STARTING_FEN:
                headers["FEN"] = board.fen()
            sans: list[str] = []
            for move in game.mainline_moves():
                if len(sans) >= self.max_ply:
                    break
                sans.append(board.san(move).rstrip("+#"))
                board.push(move)
            batch.append((self.games + len(batch) + 1, 0, headers, sans))
            if len(batch) >= CHUNK_GAMES:
                self._merge(replay_games(Batch.of(batch), stride, len(batch), [], positions=self.boards))
                batch = []
        if batch:
            self._merge(replay_games(Batch.of(batch), stride, len(batch), [], positions=self.boards))

    def _add_text(self, text: str, progress: Callable[[int, int], None] | None) -> None:
        for chunk in read_chunks(text, 0, self.games + 1, self.max_ply, progress, game_filter=self.game_filter,
                                 positions=self.boards):
            self._merge(chunk)
        if progress is not None:
            progress(self.games, len(text))

    # --- counting ---
    def _merge(self, chunk: Chunk) -> None:
        """Add a batch's events to the table (the batch's games come after every game counted so far)."""
        self.games += chunk.games
        self.filtered += chunk.filtered
        self.skipped.extend(chunk.skipped)
        if self.boards:
            for position, fen in chunk.fens.items():
                self._fens.setdefault(position, fen)
            self._keep_positions(chunk.positions, chunk.links)
        if not len(chunk.key):
            return
        if in_order(chunk.key, chunk.raw):  # (a piece read by another process comes sorted)
            key, raw, seq, outcome, white = chunk.key, chunk.raw, chunk.seq, chunk.outcome, chunk.white
        else:
            order = sort_order(chunk.key, chunk.raw)
            key, raw, seq, outcome, white = (column.take(order) for column in (chunk.key, chunk.raw, chunk.seq,
                                                                              chunk.outcome, chunk.white))
            del order
        # a large batch is added key range by key range: exact (everything order-dependent is per position: the
        # halving replays one position's events, all in one range, in game order; ``first`` is a minimum), and the
        # memory of a merge stays that of MERGE_EVENTS events whatever the size of a piece
        start = 0
        while start < len(key):
            end = len(key) if len(key) - start <= MERGE_EVENTS else \
                int(np.searchsorted(key, key[start + MERGE_EVENTS - 1], side="right"))
            self._add_events(key[start:end], raw[start:end], white[start:end], seq[start:end], outcome[start:end])
            start = end

    def _add_events(self, key: np.ndarray[Any, Any], raw: np.ndarray[Any, Any], white: np.ndarray[Any, Any],
                    seq: np.ndarray[Any, Any], outcome: np.ndarray[Any, Any]) -> None:
        """Add events sorted by (key, raw move), of games after every game counted so far, to the table."""
        starts = group_starts(key, raw)
        white = white[starts]
        games = np.diff(np.append(starts, len(key)))
        tallies = np.add.reduceat(np.take(_TALLIES, outcome, axis=1), starts, axis=1)
        added = {"key": key[starts], "raw": raw[starts], "white": white, "first": np.minimum.reduceat(seq, starts),
                 "polyglot_n": games.copy(), "polyglot_sum": tallies[0], "games": games, "wins": tallies[1],
                 "draws": tallies[2], "losses": tallies[3]}
        if self.table_rows is not None and len(self._table["key"]) > self._kept and \
                len(self._table["key"]) + len(added["key"]) > self._kept + self.table_rows:
            self._spill()  # before the batch is added: the union's memory stays about the size of the budget
        table = combine_rows(self._table, added)
        if self._store is not None:  # positions whose moves may reach COUNT_MAX with their spilled games: pinned
            free = ~np.isin(table["key"], self._pinned) if len(self._pinned) else np.ones(len(table["key"]), bool)
            near = free & (table["polyglot_n"] + self._store.bound(table["key"], table["raw"]) >= COUNT_MAX)
            if near.any():
                self._pin(np.unique(table["key"][near]))  # (their spilled rows now in the table, before this batch)
                table = combine_rows(self._table, added)
        hot = table["polyglot_n"] >= COUNT_MAX
        if hot.any():
            halve(self._table, table, np.unique(table["key"][hot]), key, raw, POINTS[outcome], seq, COUNT_MAX)
        self._table = table
        self._length = None
        if self.table_rows is not None and len(table["key"]) > self._kept + self.table_rows:
            self._spill()

    def _pin(self, keys: np.ndarray[Any, Any]) -> None:
        """Keep these positions (sorted keys) in memory from now on, their spilled rows brought back."""
        new = np.setdiff1d(keys, self._pinned, assume_unique=True)
        if not len(new):
            return
        self._pinned = np.union1d(self._pinned, new)
        if self._store is not None:
            self._table = combine_rows(self._store.fetch(new), self._table)

    def _spill(self) -> None:
        """Write the rows of the positions polyglot's halving cannot concern yet to disk (:mod:`.spill`)."""
        from .spill import SpillStore

        table = self._table
        if self._store is None:
            self._store = SpillStore(self.spill_dir, block_rows=max(1, (self.table_rows or TABLE_ROWS) // 4))
        big = (table["games"] >= SPILL_LIMIT) | (table["polyglot_n"] != table["games"])  # (halved: has a big move)
        if big.any():
            self._pin(np.unique(table["key"][big]))
            table = self._table
        if len(self._pinned):
            kept = np.isin(table["key"], self._pinned)
            self._store.write(table, kept)
            self._table = {name: column[kept] for name, column in table.items()}
            self._kept = len(self._table["key"])
        else:
            self._store.write(table)
            self._table = {name: column[:0].copy() for name, column in table.items()}  # (not views: frees the table)
            self._kept = 0

    def _keep_positions(self, positions: dict[str, np.ndarray[Any, Any]],
                        links: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]) -> None:
        if len(positions["key"]):
            both = {name: np.concatenate((self._positions[name], positions[name])) for name in self._positions}
            _, first = np.unique(both["key"], return_index=True)
            self._positions = {name: column[first] for name, column in both.items()}
        if len(links[0]):
            joined = tuple(np.concatenate((mine, theirs)) for mine, theirs in zip(self._links, links, strict=True))
            _, first = np.unique(joined[0], return_index=True)
            self._links = (joined[0][first], joined[1][first], joined[2][first])

    # --- output ---
    def column_blocks(self) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
        """The counts in blocks of consecutive key ranges (ascending), each sorted by (key, raw move): the columns of
        :meth:`columns` and ``first`` (the order rows were first met in). Spilled counts are merged back block by
        block, so memory holds one block (about ``table_rows`` rows) at a time; without a spill, one block."""
        if self._store is None:
            yield {name: column.view() for name, column in self._table.items()}
            return
        total = 0
        for block in self._store.blocks(self._table):
            total += len(block["key"])
            yield block
        self._length = total

    def close(self) -> None:
        """Remove the spilled counts (also done when the builder is collected, or at exit); the builder holds only
        what is in memory afterwards: use it no more."""
        if self._store is not None:
            self._store.close()

    def columns(self, *, ordered: bool = True) -> dict[str, np.ndarray[Any, Any]]:
        """The counts as arrays, one row per (position, move) in the order first met.

        ``key``, ``raw`` (the move as Polyglot stores it), ``white`` (White to move), ``polyglot_n``,
        ``polyglot_sum``, ``games``, ``wins``, ``draws``, ``losses`` (see :class:`BookEntry`). With
        ``ordered=False``: the rows in no documented order (read-only, not copied), and a column ``first`` that
        orders them (a writer that keeps few rows orders only those). Spilled counts are all read back into memory:
        a writer that goes through :meth:`column_blocks` does not need to.
        """
        if self._store is None:
            table = self._table
        else:
            blocks = list(self.column_blocks())
            table = {name: np.concatenate([block[name] for block in blocks]) for name in self._table}
        if not ordered:
            return {name: column.view() for name, column in table.items()}
        order = np.argsort(table["first"], kind="stable")
        return {name: column[order] for name, column in table.items() if name != "first"}

    def entries(self) -> Iterator[BookEntry]:
        """Every (position, move) in the order first met."""
        columns = self.columns()
        names = ("key", "raw", "white", *COUNTS)
        for row in zip(*(columns[name].tolist() for name in names), strict=True):
            yield BookEntry(*row)

    def __len__(self) -> int:
        """Distinct (position, move) pairs counted (with spilled counts: merged once, then remembered)."""
        if self._store is None:
            return len(self._table["key"])
        if self._length is None:
            for _ in self.column_blocks():
                pass
        assert self._length is not None
        return self._length

    def board(self, key: int) -> chess.Board:
        """The position of a key met in the build."""
        return self._board(key, {})

    def _board(self, key: int, known: dict[int, chess.Board]) -> chess.Board:
        """:meth:`board`, taking the positions on the way up from ``known`` (boards this method gave) instead of
        going up to a stored position: ``to_stats`` meets a deep position's parent first, so each of its boards
        costs one move, and is the same board (the walk up is the same; a board made from a FEN is not taken)."""
        from ..formats.polyglot.moves import decode_move
        from ..kernel.newboard import fen_board

        if not self.boards:
            raise ValueError("this builder keeps no positions (made with boards=False)")
        fen = self._fens.get(key)
        if fen is not None:
            return fen_board(fen)  # read once: Chess960 when its castling rights say so
        moves: list[int] = []
        link_keys, parents, raws = self._links
        while True:
            parent = known.get(key)
            if parent is not None and key not in self._fens:
                board = parent.copy(stack=False)
                break
            stored = self._stored(key)
            if stored is not None:
                board = stored
                break
            at = int(np.searchsorted(link_keys, np.uint64(key)))
            if at == len(link_keys) or int(link_keys[at]) != key:
                raise KeyError(f"position {key:#018x} not met in this build")
            moves.append(int(raws[at]))
            key = int(parents[at])
        for raw in reversed(moves):
            board.push(decode_move(board, raw))
        return board

    def _stored(self, key: int) -> chess.Board | None:
        from ..kernel.newboard import new_board  # (python-chess only when a position is asked for)

        keys = self._positions["key"]
        at = int(np.searchsorted(keys, np.uint64(key)))
        if at == len(keys) or int(keys[at]) != key:
            return None
        row = {name: int(column[at]) for name, column in self._positions.items()}
        return new_board(row["white"], row["black"], row["pawns"], row["knights"], row["bishops"], row["rooks"],
                         row["queens"], row["kings"], bool(row["turn"]), row["ep"] if row["ep"] < 64 else None,
                         row["castling"])

    def to_stats(self) -> BookStats:
        """The format-neutral model: FEN -> moves -> games, wins, draws, losses (for the mover)."""
        from ..formats.polyglot.moves import decode_move
        from .positions import pack, xfen
        from .stats import BookStats, MoveStats, PositionStats

        stats = BookStats(games=self.games - self.not_games)
        boards: dict[int, chess.Board] = {}
        positions: dict[int, PositionStats] = {}  # by key: one FEN a position, not one an entry
        for entry in self.entries():
            board = boards.get(entry.key)
            if board is None:
                board = boards[entry.key] = self._board(entry.key, boards)
            position = positions.get(entry.key)
            if position is None:
                fen = xfen(board)  # the model keeps the square by Polyglot's rule (tree.fen_key)
                position = stats.positions.setdefault(fen.rsplit(" ", 2)[0], PositionStats(fen, packed=pack(board)))
                positions[entry.key] = position
            move = decode_move(board, entry.raw_move)
            position.moves[move] = MoveStats(entry.games, entry.wins, entry.draws, entry.losses)
        return stats


def _daemonic() -> bool:
    """Whether this is a daemonic process (a pool's worker), which may not start processes of its own."""
    multiprocessing = sys.modules.get("multiprocessing")  # not imported: not a pool's worker (and its import
    return multiprocessing is not None and bool(multiprocessing.current_process().daemon)  # costs start-up)
