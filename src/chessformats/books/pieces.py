"""Pieces of the input at game boundaries, read and replayed by worker processes and merged in input order.

The machinery of a parallel build, shared by ``chessformats build --jobs N`` (forked local processes,
:class:`LocalPool`) and the Dask build (:mod:`chessformats.books.distributed`, which documents the design):
:func:`plan_pieces` cuts the input, :func:`read_piece` reads one piece on a worker, :func:`merge_pieces` keeps a
window of pieces in flight and merges their events into a builder in input order. Memory: each worker holds one
piece; the merging process the book's counts plus the window's events, whatever the input size.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..engine.streams import COMPRESSED_SUFFIXES
from .batches import Chunk, event_stride, read_chunks
from .filters import GameFilter
from .pgnread import BYTE_BREAK, decode_pgn, game_spans, open_text
from .runs import sort_order, union_order

if TYPE_CHECKING:
    from concurrent.futures import Future

__all__ = ["CHESSBASE_ARCHIVES", "CHESSBASE_FILES", "DATABASE_NAMES", "PIECE_BYTES", "LocalPool", "Piece", "combine",
           "merge_pieces", "piece_text", "plan_pieces", "read_piece"]

# a ChessBase database is opened by any of its files (chessbase.COMPANIONS: a test keeps the two equal; not
# imported, for the start-up time of PGN builds); other names are read as PGN
CHESSBASE_FILES = (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj", ".cbm", ".cbl", ".cbtt",
                   ".cib", ".cib2", ".cit", ".cit2", ".cbb", ".cbgi", ".flags", ".ini", ".cko", ".ckn", ".cpo", ".cpn",
                   ".pgi")
CHESSBASE_ARCHIVES = (".cbv", ".cbz")
"""A ChessBase archive holds a base: read as the base it holds."""
DATABASE_NAMES = CHESSBASE_FILES + CHESSBASE_ARCHIVES

PIECE_BYTES = 1 << 25
"""Bytes of a plain file (characters of decompressed text) given to one task (32 MiB: about 20,000 games)."""

LOCAL_PIECE_BYTES = 1 << 21
"""The largest piece of a local parallel build (2 MiB, about 3,300 games of twic1134, 6,500 short lichess games;
a worker then holds about 60 MiB, and merging one piece's events into the counts about as much; 4 MiB pieces
cost the merging process 70 MiB more on inputs of distinct games, for no speed; a Dask worker's larger pieces
cost fewer round trips)."""

_PROBE = 1 << 16
_LOOK_BACK = 16  # (more than a break looks back at: a result and three blanks)


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
                # a break starts with a newline (the one before the blank line, or after the result); the bytes
                # before it are read too, for the result it may look back at
                back = min(position - 1, _LOOK_BACK)
                handle.seek(position - 1 - back)
                data = handle.read(back + _PROBE + 64)
                match = BYTE_BREAK.search(data, back)
                if match is not None and match.end() < len(data):
                    found = position - 1 - back + match.end()
                elif len(data) < back + _PROBE:
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
        if lower.endswith(DATABASE_NAMES):
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


def read_piece(piece: Piece, max_ply: int, game_filter: GameFilter | None, boards: bool = True,
               ordered: bool = True) -> list[Chunk]:
    """Read and replay one piece (on a worker): its games numbered from 1, offsets from the piece's start.
    ``boards=False``: without the positions (a builder made with ``boards=False`` keeps none: less to send);
    ``ordered=False``: the events as read, not sorted by (key, move)."""
    import gc

    text = piece_text(piece)
    collecting = gc.isenabled()
    gc.disable()
    try:
        chunks = list(read_chunks(text, piece.start, 1, max_ply, game_filter=game_filter, positions=boards))
        if not boards:
            chunks = [_without_boards(chunk) for chunk in chunks]
        return [_sorted(chunk) for chunk in combine(chunks)] if ordered else combine(chunks)
    finally:
        if collecting:
            gc.enable()


def piece_text(piece: Piece) -> str:
    """The text of a piece, as :func:`~.pgnread.open_text` reads it from the file (the same decoding, game by game,
    and universal newlines)."""
    if piece.text is not None:
        return piece.text
    with open(piece.path, "rb") as handle:
        handle.seek(piece.start)
        text = decode_pgn(handle.read(piece.end - piece.start))  # (a piece is whole games: decided as in the file)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _without_boards(chunk: Chunk) -> Chunk:
    empty = np.zeros(0, dtype=np.uint64)
    return chunk._replace(positions={name: column[:0] for name, column in chunk.positions.items()},
                          links=(empty, empty, np.zeros(0, dtype=np.int64)), fens={})


def _sorted(chunk: Chunk) -> Chunk:
    """The events in (key, move) order: the order the client's merge sorts them into (faster from sorted input;
    the merge's result does not depend on the order of the events it is given)."""
    order = sort_order(chunk.key, chunk.raw)
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


def merge_pieces(client: Any, builder: Any, paths: Sequence[str | os.PathLike[str]], piece_bytes: int,
                  window: int, progress: Callable[[int, int], None] | None) -> None:
    """Merge the pieces of ``paths`` into ``builder`` (a :class:`~chessformats.books.build.BookBuilder`) in input
    order, read by ``client`` (a Dask client or a :class:`LocalPool`), at most ``window`` pieces in flight."""
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


class _Done:
    """A local future with the two calls the merge makes on a Dask future."""

    def __init__(self, future: Future[Any]) -> None:
        self._future = future

    def result(self) -> Any:
        return self._future.result()

    def release(self) -> None:
        from concurrent.futures import Future

        self._future = Future()


class LocalPool:
    """The calls of a Dask client :func:`merge_pieces` makes, on ``processes`` forked local processes (POSIX)."""

    def __init__(self, processes: int) -> None:
        import multiprocessing  # (imported by parallel builds only: start-up time)
        from concurrent.futures import ProcessPoolExecutor

        self.processes = processes
        self._executor = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))

    def scatter(self, items: list[Any], hash: bool = False) -> list[Any]:
        return items

    def submit(self, function: Callable[..., Any], *args: Any, pure: bool = False) -> _Done:
        return _Done(self._executor.submit(function, *args))

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


def read_forked(builder: Any, path: str | os.PathLike[str], processes: int,
                progress: Callable[[int, int], None] | None) -> None:
    """Read a plain file of a few pieces' size in ``processes`` pieces at once: this process reads the first, one
    forked child (POSIX) each of the others, sending its chunks back through a pipe; merged into ``builder`` in
    file order. Cheaper than a pool for a small file: no pool to start, one piece per process, no task queue."""
    import pickle

    name = os.fspath(path)
    size = os.path.getsize(name)
    cuts = _cuts(name, size, size // processes + 1)
    pieces = [Piece(os.path.abspath(name), start, end, None, end) for start, end in itertools.pairwise(cuts)]
    children: list[tuple[int, int]] = []
    try:
        for piece in pieces[1:]:
            reading, writing = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: read its piece, send the chunks (or the error), leave without cleanup
                status = 0
                try:
                    os.close(reading)
                    try:
                        message: Any = ("chunks", read_piece(piece, builder.max_ply, builder.game_filter,
                                                             builder.boards))
                    except Exception as exc:  # re-raised by the parent
                        message = ("error", exc)
                    with os.fdopen(writing, "wb") as out:
                        pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException:  # a child must never return into the caller's code
                    status = 1
                finally:
                    os._exit(status)
            os.close(writing)
            children.append((pid, reading))
        outcomes: list[Any] = [("chunks", read_piece(pieces[0], builder.max_ply, builder.game_filter,
                                                     builder.boards))]
        for pid, reading in children:
            with os.fdopen(reading, "rb") as received:
                data = received.read()
            os.waitpid(pid, 0)
            outcomes.append(pickle.loads(data) if data else ("error", RuntimeError("a build process died")))
        children = []
    finally:
        for pid, reading in children:  # (an error in this process: the children are not waited for in vain)
            os.close(reading)
            os.waitpid(pid, 0)
    stride = event_stride(builder.max_ply)
    chunks, games_before = [], builder.games
    for kind, value in outcomes:
        if kind == "error":
            raise value
        for chunk in value:
            chunks.append(_shifted(chunk, games_before, stride))
            games_before += chunk.games
    for chunk in join_sorted(chunks):  # one merge: the book's counts are sorted once
        builder._merge(chunk)
    if progress is not None:
        progress(builder.games, pieces[-1].done)


def join_sorted(chunks: list[Chunk]) -> list[Chunk]:
    """:func:`combine` for chunks whose events are each sorted by (key, raw move), as :func:`read_piece` returns
    them: the joined events are sorted too (merged run by run with :func:`~.runs.union_order`, not sorted again)."""
    if len(chunks) < 2:
        return chunks
    joined = combine(chunks)[0]
    order, key, raw = np.arange(len(chunks[0].key)), chunks[0].key, chunks[0].raw
    for chunk in chunks[1:]:
        merged = union_order(key, raw, chunk.key, chunk.raw)
        order = np.concatenate((order, np.arange(len(order), len(order) + len(chunk.key))))[merged]
        key, raw = np.concatenate((key, chunk.key))[merged], np.concatenate((raw, chunk.raw))[merged]
    return [joined._replace(key=key, raw=raw, white=joined.white[order], seq=joined.seq[order],
                            outcome=joined.outcome[order])]


def piece_size(paths: Sequence[str | os.PathLike[str]], threads: int, *, largest: int = PIECE_BYTES) -> int:
    """The default size of a piece: four per worker thread, at least 1 MiB, at most ``largest``."""
    total = sum(os.path.getsize(path) for path in paths)
    return max(1 << 20, min(largest, total // (4 * threads) + 1))
