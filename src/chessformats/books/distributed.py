"""Building a book on a Dask cluster: the same bytes as the one-machine build, from many files and many cores.

Two designs. :func:`write_book` (a Polyglot book, ``build --dask`` of a ``.bin``) distributes the reduce too: the
workers read the pieces and write their events cut by key range to a shared folder, then one task per key range
merges that range of every piece in input order and writes its range of the book, which the client concatenates
(:mod:`chessformats.books.shuffle` documents it; the client's memory does not grow with the book).
:func:`build_book`, described below, merges every piece on the client into one
:class:`~chessformats.books.build.BookBuilder` (any book format; ChessBase databases among the inputs).

:func:`build_book` cuts the input into **pieces** at game boundaries, reads and replays every piece on a
worker (the batch reader of :mod:`chessformats.books.batches`, unchanged), and merges the pieces' events on
the client **in input order** into one :class:`~chessformats.books.build.BookBuilder`. The parts of a
Polyglot build that are global -- the counters' halving at 16,384 games, which depends on the order of the
games, and the order of equal weights (first met) -- are thus done after the reduce exactly as in a
one-process build: each piece numbers its games from 1, and the client shifts the numbers (and so the
events' order keys) by the games of the pieces before it, which gives the numbers of the one-process build.

Pieces:

- **a plain file** is cut into byte ranges of about ``piece_bytes``: the client reads a few kB at each
  nominal cut and moves it to the next game break (a blank line, or a result's line, before a tag line); the
  workers open the file and read their range themselves, so the files must be at the same path on every worker
  (a shared file system). As with ``--jobs 2``, a cut is not checked against a brace comment that holds a blank line
  followed by ``[`` (polyglot's lexer would not cut there either way: a game would be split).
- **a compressed file** (``.gz``, ``.bz2``, ``.xz``, ``.zst``) cannot be entered in the middle: the client
  decompresses it as a stream, cuts the text into pieces at game breaks as the one-process build does, and
  sends each piece's text to a worker. Decompression stays on one core (zstd: several hundred MB/s, enough
  for dozens of workers); the counting is spread.
- **a ChessBase database** is read on the client, in its place in the order.

The client keeps at most ``window`` pieces in flight (by default two per worker thread): its memory is the
book's counts plus those pieces' events (about 26 bytes per ply read), whatever the input size. A skipped
game's offset is the byte offset of its piece plus the character offset inside the piece (the same as the
one-process build's character offset for ASCII text).

Requires ``pip install 'chessformats[dask]'``; dask is imported only here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from . import hotkeys
from .batches import SkippedGame
from .build import TABLE_ROWS, BookBuilder
from .filters import GameFilter
from .pieces import DATABASE_NAMES, PIECE_BYTES, Piece, combine, merge_pieces, piece_size, plan_pieces, read_piece
from .shuffle import Mapped, map_piece, range_bounds, reduce_range

if TYPE_CHECKING:
    import chess

__all__ = ["PIECE_BYTES", "Piece", "ReducedBuild", "build_book", "combine", "plan_pieces", "read_piece", "reducers_for",
           "write_book"]

REDUCE_BYTES = 1 << 30
"""Input bytes per reducer when their number is not given (at least one reducer per worker thread)."""

def build_book(
    paths: Sequence[str | os.PathLike[str]],
    *,
    scheduler: str | Any | None = None,
    workers: int = 2,
    max_ply: int = 1024,
    game_filter: GameFilter | None = None,
    builder: BookBuilder | None = None,
    piece_bytes: int | None = None,
    window: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BookBuilder:
    """Count the games of ``paths`` (PGN, plain or compressed, and ChessBase databases) on a Dask cluster.

    ``scheduler``: a scheduler address (``"tcp://host:8786"``), a ``distributed.Client``, or ``None`` for a
    ``LocalCluster`` of ``workers`` processes with one thread each (closed at the end). The result is the
    :class:`BookBuilder` a one-process build of the same files (in the same order) gives, ``builder`` if one
    is passed (its ``max_ply`` and filter are then used). ``piece_bytes``: the size of a task (by default at
    most :data:`PIECE_BYTES`, less for a small input: four pieces per worker thread, at least 1 MiB).
    ``progress(games, input bytes read)`` is called as pieces are merged.
    """
    if builder is None:
        builder = BookBuilder(max_ply=max_ply, game_filter=game_filter)
    client, cluster = _connect(scheduler, workers)
    try:
        threads = sum(client.nthreads().values()) or 1
        if piece_bytes is None:
            piece_bytes = piece_size(paths, threads)
        _run(client, builder, paths, piece_bytes, window or 2 * threads, progress)
    finally:
        _disconnect(scheduler, client, cluster)
    return builder


def _connect(scheduler: str | Any | None, workers: int) -> tuple[Any, Any]:
    """A Dask client for ``scheduler`` (see :func:`build_book`) and the LocalCluster started for it, if any."""
    from importlib import import_module

    try:
        dask_distributed: Any = import_module("dask.distributed")  # untyped: used through Any
    except ImportError as exc:
        raise ImportError("a Dask build needs dask.distributed: pip install 'chessformats[dask]'") from exc
    cluster: Any = None
    if scheduler is None:
        # dask's nannies give workers MALLOC_TRIM_THRESHOLD_=65536, which fixes glibc's mmap threshold: every
        # numpy array over 128 kB is then mapped and unmapped afresh (measured: the reader's CPU time +12-25%)
        with import_module("dask").config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
            cluster = dask_distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                    dashboard_address=None)
        client = dask_distributed.Client(cluster)
    elif isinstance(scheduler, str):
        client = dask_distributed.Client(scheduler)
    else:
        client = scheduler
    return client, cluster


def _disconnect(scheduler: str | Any | None, client: Any, cluster: Any) -> None:
    if scheduler is None or isinstance(scheduler, str):
        client.close()
    if cluster is not None:
        cluster.close()


def _run(client: Any, builder: BookBuilder, paths: Sequence[str | os.PathLike[str]], piece_bytes: int,
         window: int, progress: Callable[[int, int], None] | None) -> None:
    import gc

    collecting = gc.isenabled()
    gc.disable()  # the merge keeps many small objects alive and makes no cycles (as BookBuilder.add_pgn)
    try:
        merge_pieces(client, builder, paths, piece_bytes, window, progress)
    finally:
        if collecting:
            gc.enable()


class ReducedBuild(NamedTuple):
    """What :func:`write_book` did: the book is at ``path``."""

    path: str
    written: int
    """Entries of the book."""
    games: int
    """Games read (skipped and filtered ones included)."""
    filtered: int
    skipped: list[SkippedGame]
    rows: int
    """Distinct (position, move) pairs counted, over every key range."""
    reducers: int
    pieces: int
    stages: dict[str, float]
    """Measures of the run: ``map_wall``, ``reduce_wall`` (seconds from the first task of the phase to its end; the
    reduce's includes the concatenation), ``map_cpu``, ``reduce_cpu`` (CPU seconds of the tasks, summed),
    ``shuffle_bytes`` (the map files' bytes), ``shuffle_events`` (the events written to them), ``hot_events`` (the
    hot keys' events, counted by the map tasks: :mod:`.hotkeys`)."""


def reducers_for(paths: Sequence[str | os.PathLike[str]], threads: int) -> int:
    """The default number of key ranges: one per :data:`REDUCE_BYTES` of input, at least one per worker thread."""
    total = sum(os.path.getsize(path) for path in paths)
    return max(threads, -(-total // REDUCE_BYTES))


def write_book(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    scheduler: str | Any | None = None,
    workers: int = 2,
    reducers: int | None = None,
    max_ply: int = 1024,
    game_filter: GameFilter | None = None,
    min_games: int = 3,
    min_score: float = 0.0,
    only: chess.Color | None = None,
    uniform: bool = False,
    table_rows: int | None = TABLE_ROWS,
    spill_dir: str | os.PathLike[str] | None = None,
    shuffle_dir: str | os.PathLike[str] | None = None,
    piece_bytes: int | None = None,
    window: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ReducedBuild:
    """Build the Polyglot book of ``paths`` (plain or compressed PGN) on a Dask cluster, the reduce distributed by
    key range (:mod:`chessformats.books.shuffle`), and write it to ``output``: the bytes
    :func:`~chessformats.polyglot.make_book` writes from a one-process build with the same options.

    ``reducers``: key ranges (reduce tasks; by default :func:`reducers_for`). ``shuffle_dir``: where the map tasks
    write the pieces' events and the reducers their ranges of the book (made when missing; a temporary folder is
    made in it, removed at the end): it must be at the same path on the client and every worker (the system's
    temporary folder by default: a ``LocalCluster``, or workers on the client's machine).
    ``table_rows``/``spill_dir``: each reducer's memory budget (a larger key range is counted in sub-ranges of about
    this many events) and where it writes its events grouped by sub-range (on the worker). The client holds the
    pieces' game counts and copies the range files into the book: its memory does not grow with the book.
    ChessBase databases are not read here (:func:`build_book` reads them on the client)."""
    import shutil
    import tempfile

    from ..engine.fileio import atomic_write

    for path in paths:
        if os.fspath(path).lower().endswith(DATABASE_NAMES):
            raise ValueError(f"{os.fspath(path)}: a ChessBase database is read on the client: use build_book")
    if game_filter is None:
        game_filter = GameFilter()
    if shuffle_dir is not None:  # made when missing; absolute, as the workers see it (a worker's folder differs)
        shuffle_dir = os.path.abspath(shuffle_dir)
        os.makedirs(shuffle_dir, exist_ok=True)
    client, cluster = _connect(scheduler, workers)
    folder = tempfile.mkdtemp(prefix="chessformats-shuffle-", dir=shuffle_dir)
    try:
        threads = sum(client.nthreads().values()) or 1
        _check_shared(client, folder)
        count = reducers if reducers is not None else reducers_for(paths, threads)
        bounds = range_bounds(count)
        started = time.perf_counter()
        mapped = _map(client, paths, piece_bytes or piece_size(paths, threads), window or 2 * threads, max_ply,
                      game_filter, folder, count, progress)
        options = {"min_games": min_games, "min_score": min_score, "only": only, "uniform": uniform}
        spill = os.fspath(spill_dir) if spill_dir is not None else None
        mapped_at = time.perf_counter()
        reduce_cpu = 0.0
        pieces = client.scatter([[result._replace(skipped=[]) for result in mapped]], broadcast=True, hash=False)[0]
        futures = [client.submit(reduce_range, pieces, r, bounds[r:r + 2], max_ply, folder, options, table_rows, spill,
                                 pure=False) for r in range(count)]  # (a reducer reads its offsets from the files)
        written = rows = 0
        with atomic_write(output) as handle:
            for future in futures:  # key ranges in ascending order: concatenated as they come
                ranged = future.result()
                future.release()
                with open(ranged.path, "rb") as book:
                    shutil.copyfileobj(book, handle, 1 << 20)
                os.remove(ranged.path)
                written += ranged.entries
                rows += ranged.rows
                reduce_cpu += ranged.seconds
        stages = {"map_wall": mapped_at - started, "reduce_wall": time.perf_counter() - mapped_at,
                  "map_cpu": sum(result.seconds for result in mapped), "reduce_cpu": reduce_cpu,
                  "shuffle_bytes": float(sum(result.size for result in mapped)),
                  "shuffle_events": float(sum(result.events for result in mapped)),
                  "hot_events": float(sum(result.hot_codes for result in mapped))}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        _disconnect(scheduler, client, cluster)
    skipped, before = [], 0
    for result in mapped:
        skipped += [game._replace(number=game.number + before) for game in result.skipped]
        before += result.games
    return ReducedBuild(os.fspath(output), written, before, sum(result.filtered for result in mapped), skipped, rows,
                        count, len(mapped), stages)


def _check_shared(client: Any, folder: str) -> None:
    """Refuse a shuffle folder some worker does not see (a real cluster given the client's temporary folder)."""
    run = getattr(client, "run", None)
    if run is None:
        return
    missing = sorted(worker for worker, seen in run(os.path.isdir, folder).items() if not seen)
    if missing:
        raise ValueError(f"the shuffle folder {folder} is not seen by the workers {', '.join(missing)}: give a folder "
                         "at the same path on the client and every worker (shuffle_dir, --shuffle-dir)")


def _map(client: Any, paths: Sequence[str | os.PathLike[str]], piece_bytes: int, window: int, max_ply: int,
         game_filter: GameFilter, folder: str, reducers: int,
         progress: Callable[[int, int], None] | None) -> list[Mapped]:
    """Run the map tasks, at most ``window`` of them in flight (a compressed file's pieces are text sent from
    here); their results in input order."""
    from collections import deque

    mapped: list[Mapped] = []
    pending: deque[tuple[Any, Piece]] = deque()
    games = 0
    hot = client.scatter(hotkeys.hot_keys(hotkeys.HOT_PLIES), broadcast=True, hash=False)  # sent once, not a task

    def first_done() -> None:
        nonlocal games
        future, piece = pending.popleft()
        mapped.append(future.result())
        future.release()
        games += mapped[-1].games
        if progress is not None:
            progress(games, piece.done)

    for index, piece in enumerate(plan_pieces(paths, piece_bytes=piece_bytes)):
        assert not isinstance(piece, str)  # (databases refused before)
        task = client.scatter([piece], hash=False)[0] if piece.text is not None else piece
        pending.append((client.submit(map_piece, task, index, max_ply, game_filter, folder, reducers, hot,
                                         pure=False),
                        piece))
        while len(pending) >= window:
            first_done()
    while pending:
        first_done()
    return mapped
