"""Building a book on a Dask cluster: the same bytes as the one-machine build, from many files and many cores.

:func:`build_book` cuts the input into **pieces** at game boundaries, reads and replays every piece on a
worker (the batch reader of :mod:`chessformats.books.batches`, unchanged), and merges the pieces' events on
the client **in input order** into one :class:`~chessformats.books.build.BookBuilder`. The parts of a
Polyglot build that are global -- the counters' halving at 16,384 games, which depends on the order of the
games, and the order of equal weights (first met) -- are thus done after the reduce exactly as in a
one-process build: each piece numbers its games from 1, and the client shifts the numbers (and so the
events' order keys) by the games of the pieces before it, which gives the numbers of the one-process build.

Pieces:

- **a plain file** is cut into byte ranges of about ``piece_bytes``: the client reads a few kB at each
  nominal cut and moves it to the next game break (a blank line before a tag line); the workers open the
  file and read their range themselves, so the files must be at the same path on every worker (a shared
  file system). As with ``--jobs 2``, a cut is not checked against a brace comment that holds a blank line
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
from collections.abc import Callable, Sequence
from typing import Any

from .build import BookBuilder
from .filters import GameFilter
from .pieces import PIECE_BYTES, Piece, combine, merge_pieces, piece_size, plan_pieces, read_piece

__all__ = ["PIECE_BYTES", "Piece", "build_book", "combine", "plan_pieces", "read_piece"]

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
    from importlib import import_module

    try:
        dask_distributed: Any = import_module("dask.distributed")  # untyped: used through Any
    except ImportError as exc:
        raise ImportError("a Dask build needs dask.distributed: pip install 'chessformats[dask]'") from exc
    if builder is None:
        builder = BookBuilder(max_ply=max_ply, game_filter=game_filter)
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
    try:
        threads = sum(client.nthreads().values()) or 1
        if piece_bytes is None:
            piece_bytes = piece_size(paths, threads)
        _run(client, builder, paths, piece_bytes, window or 2 * threads, progress)
    finally:
        if scheduler is None or isinstance(scheduler, str):
            client.close()
        if cluster is not None:
            cluster.close()
    return builder


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
