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

import itertools
import os
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..engine.streams import COMPRESSED_SUFFIXES
from .batches import Chunk, event_stride, read_chunks
from .build import _CHESSBASE_FILES, BookBuilder
from .filters import GameFilter
from .pgnread import game_spans, open_text

__all__ = ["PIECE_BYTES", "Piece", "build_book", "combine", "plan_pieces", "read_piece"]

PIECE_BYTES = 1 << 25
"""Bytes of a plain file (characters of decompressed text) given to one task (32 MiB: about 20,000 games)."""

_BREAK = re.compile(rb"\n[ \t\r]*\n(?=[ \t\r]*\[)")
"""A game break in bytes (:data:`chessformats.books.pgnread.GAME_BREAK`)."""
_PROBE = 1 << 16


class Piece(NamedTuple):
    """A part of the input a worker reads: bytes ``start:end`` of a plain file, or a decompressed text."""

    path: str
    start: int
    """Byte offset in the file (plain) or character offset in the decompressed text (compressed)."""
    end: int
    text: str | None
    """The decompressed text of a compressed file's piece; ``None``: the worker reads ``path[start:end]``."""
    done: int
    """Input bytes (as on disk, over every file) read once this piece is done, for progress reports."""


def _cuts(path: str, size: int, piece_bytes: int) -> list[int]:
    """Offsets of game breaks near every multiple of ``piece_bytes`` in a plain file (0 and ``size`` included)."""
    cuts = [0]
    with open(path, "rb") as handle:
        target = piece_bytes
        while target < size:
            position = max(target, cuts[-1] + 1)
            found = None
            while found is None and position < size:
                handle.seek(position - 1)  # a break starts with the newline before the blank line
                data = handle.read(_PROBE + 64)
                match = _BREAK.search(data)
                if match is not None and match.end() < len(data):
                    found = position - 1 + match.end()
                elif len(data) < _PROBE:
                    break
                else:
                    position += _PROBE
            if found is None:
                break
            cuts.append(found)
            target = found + piece_bytes
    return [*cuts, size]


def plan_pieces(paths: Sequence[str | os.PathLike[str]], *, piece_bytes: int = PIECE_BYTES) -> Iterator[Piece | str]:
    """The pieces of ``paths`` in input order (compressed files decompressed as they are asked for); a ChessBase
    database is yielded as its path (read on the client)."""
    done = 0
    for item in paths:
        path = os.fspath(item)
        size = os.path.getsize(path)
        lower = path.lower()
        if lower.endswith(_CHESSBASE_FILES):
            yield path
        elif lower.endswith(COMPRESSED_SUFFIXES):
            yield from _compressed_pieces(path, done, piece_bytes)
        else:
            cuts, absolute = _cuts(path, size, piece_bytes), os.path.abspath(path)  # workers may run elsewhere
            for start, end in itertools.pairwise(cuts):
                yield Piece(absolute, start, end, None, done + end)
        done += size


def _compressed_pieces(path: str, done: int, piece_chars: int) -> Iterator[Piece]:
    """Decompress a file as a stream and cut its text at game breaks (as ``BookBuilder`` reads in blocks)."""
    from .progress import input_position

    pending, base = "", 0
    with open_text(path) as handle:
        while True:
            block = handle.read(piece_chars)
            text = pending + block if pending else block
            if block:
                last = deque(game_spans(text), maxlen=1)
                rest = last[0][0] if last else 0  # the last game may go on in the next block
            else:
                rest = len(text)
            if rest:
                yield Piece(path, base, base + rest, text[:rest], done + (input_position(handle) or 0))
            pending, base = text[rest:], base + rest
            if not block:
                break


def read_piece(piece: Piece, max_ply: int, game_filter: GameFilter | None, boards: bool = True) -> list[Chunk]:
    """Read and replay one piece (on a worker): its games numbered from 1, offsets from the piece's start.
    ``boards=False``: without the positions (a builder made with ``boards=False`` keeps none: less to send)."""
    import gc

    text = piece.text
    if text is None:
        with open(piece.path, "rb") as handle:
            handle.seek(piece.start)
            text = handle.read(piece.end - piece.start).decode("utf-8", errors="replace")
        if "\r" in text:  # the universal newlines the one-process reader's text stream gives
            text = text.replace("\r\n", "\n").replace("\r", "\n")
    collecting = gc.isenabled()
    gc.disable()
    try:
        chunks = list(read_chunks(text, piece.start, 1, max_ply, game_filter=game_filter))
        if not boards:
            chunks = [_without_boards(chunk) for chunk in chunks]
        return [_sorted(chunk) for chunk in combine(chunks)]
    finally:
        if collecting:
            gc.enable()


def _without_boards(chunk: Chunk) -> Chunk:
    empty = np.zeros(0, dtype=np.uint64)
    return chunk._replace(positions={name: column[:0] for name, column in chunk.positions.items()},
                          links=(empty, empty, np.zeros(0, dtype=np.int64)), fens={})


def _sorted(chunk: Chunk) -> Chunk:
    """The events in (key, move) order: the order the client's merge sorts them into (faster from sorted input;
    the merge's result does not depend on the order of the events it is given)."""
    order = np.lexsort((chunk.raw, chunk.key))
    return chunk._replace(key=chunk.key[order], raw=chunk.raw[order], white=chunk.white[order],
                          seq=chunk.seq[order], outcome=chunk.outcome[order])


def combine(chunks: list[Chunk]) -> list[Chunk]:
    """Consecutive chunks as one: the events side by side, each position and link once.

    Merging the one chunk gives the counts merging the chunks one after the other gives (the halving replays
    every event of a position that reaches 16,384 games in game order either way), with one sort of the
    book's table instead of one per batch, and less to send: a position met in several batches is sent once.
    """
    if len(chunks) < 2:
        return chunks
    names = ("key", "raw", "white", "seq", "outcome")
    events = {name: np.concatenate([getattr(chunk, name) for chunk in chunks]) for name in names}
    positions = {name: np.concatenate([chunk.positions[name] for chunk in chunks]) for name in chunks[0].positions}
    _, first = np.unique(positions["key"], return_index=True)
    positions = {name: column[first] for name, column in positions.items()}
    joined = [np.concatenate([chunk.links[i] for chunk in chunks]) for i in range(3)]
    _, first = np.unique(joined[0], return_index=True)
    fens: dict[int, str] = {}
    for chunk in chunks:
        for key, fen in chunk.fens.items():
            fens.setdefault(key, fen)
    return [Chunk(sum(chunk.games for chunk in chunks), [game for chunk in chunks for game in chunk.skipped],
                  events["key"], events["raw"], events["white"], events["seq"], events["outcome"], positions,
                  (joined[0][first], joined[1][first], joined[2][first]), fens,
                  sum(chunk.filtered for chunk in chunks))]


def _shifted(chunk: Chunk, games_before: int, stride: int) -> Chunk:
    """A piece's chunk numbered as in the whole input: the games of the pieces before it come first."""
    if not games_before:
        return chunk
    return chunk._replace(seq=chunk.seq + np.int64(games_before * stride),
                          skipped=[game._replace(number=game.number + games_before) for game in chunk.skipped])


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
            total = sum(os.path.getsize(path) for path in paths)
            piece_bytes = max(1 << 20, min(PIECE_BYTES, total // (4 * threads) + 1))
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
        _merge_pieces(client, builder, paths, piece_bytes, window, progress)
    finally:
        if collecting:
            gc.enable()


def _merge_pieces(client: Any, builder: BookBuilder, paths: Sequence[str | os.PathLike[str]], piece_bytes: int,
                  window: int, progress: Callable[[int, int], None] | None) -> None:
    stride = event_stride(builder.max_ply)
    pending: deque[tuple[Any, Piece]] = deque()

    def merge_first() -> None:
        future, piece = pending.popleft()
        chunks = future.result()
        future.release()
        games_before = builder.games
        for chunk in chunks:
            builder._merge(_shifted(chunk, games_before, stride))
        if progress is not None:
            progress(builder.games, piece.done)

    for piece in plan_pieces(paths, piece_bytes=piece_bytes):
        if isinstance(piece, str):  # a ChessBase database: read here, after every piece before it
            while pending:
                merge_first()
            builder.add_database(piece)
            continue
        # a text piece goes to a worker as data (scattered), not inside the task: no large task graph to ship
        task = client.scatter([piece], hash=False)[0] if piece.text is not None else piece
        pending.append((client.submit(read_piece, task, builder.max_ply, builder.game_filter, builder.boards,
                                      pure=False), piece))
        while len(pending) >= window:
            merge_first()
    while pending:
        merge_first()
