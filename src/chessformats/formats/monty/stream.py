"""Monty files as arrays for training: a whole file (or a byte range of one) at once (:func:`read_arrays`), or
streamed in batches of plies with bounded memory, optionally shuffled within a buffer (:func:`iter_plies`).

>>> from chessformats import monty
>>> arrays = monty.read_arrays("data.montyformat")                       # doctest: +SKIP
>>> arrays.plies.boards.shape, arrays.plies.visit_moves.dtype            # doctest: +SKIP
((87807, 4), dtype('uint16'))
>>> for batch in monty.iter_plies("data.montyformat", batch_size=16384, shuffle=1 << 20):  # doctest: +SKIP
...     tensors = {name: torch.from_numpy(array) for name, array in batch._asdict().items()}

The arrays are numpy arrays of fixed-width types, C-contiguous, so any framework can share them without a copy
(``torch.from_numpy``, ``tf.experimental.numpy``, ``jax.numpy.asarray`` ...); chessformats depends on none.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import IO

import numpy as np

from .arrays import MontyArrays, PlyArrays
from .bulk import iter_buffers, read_buffer
from .model import check_format

__all__ = ["concat_plies", "iter_plies", "read_arrays"]

CHUNK = 1 << 20
"""Bytes of file read and decoded at a time by :func:`iter_plies` (about 30,000 plies of a policy file)."""


def _format_of(source: str | os.PathLike[str] | IO[bytes], format: str | None) -> str:
    from .read import detect_format

    if format is None:
        return detect_format(source)
    check_format(format)
    return format


def read_arrays(source: str | os.PathLike[str] | IO[bytes], *, format: str | None = None, start: int = 0,
                stop: int | None = None) -> MontyArrays:
    """The games of a file (a path or a binary file object), or of its bytes ``start:stop`` (``start`` must be
    where a game starts; offsets in the arrays and errors are the file's), as arrays: no Python object per ply.
    ``format``: ``"policy"``, ``"value"`` or ``None`` (found from the bytes). Any fault raises a located
    :class:`~chessformats.FormatError` (a game cut off by ``stop`` is a truncation)."""
    format = _format_of(source, format)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            return read_arrays(handle, format=format, start=start, stop=stop)
    name = getattr(source, "name", None)
    source.seek(start)
    data = source.read() if stop is None else source.read(max(stop - start, 0))
    return read_buffer(data, format, file=name if isinstance(name, str) else None, base=start)


def concat_plies(parts: Sequence[PlyArrays]) -> PlyArrays:
    """Plies of several arrays, one after the other."""
    if len(parts) == 1:
        return parts[0]
    offsets = [np.zeros(1, dtype=np.int64)]
    done = 0
    for part in parts:
        offsets.append(part.visit_offsets[1:] - part.visit_offsets[0] + done)
        done += int(part.visit_offsets[-1] - part.visit_offsets[0])
    rows = [np.concatenate([part[index] for part in parts]) for index in range(10)]
    return PlyArrays._make([
        *rows, np.concatenate(offsets),
        np.concatenate([part.visits[part.visit_offsets[0]:part.visit_offsets[-1]] for part in parts]),
        np.concatenate([part.visit_moves[part.visit_offsets[0]:part.visit_offsets[-1]] for part in parts])])


def iter_plies(source: str | os.PathLike[str] | IO[bytes], *, batch_size: int = 65_536, shuffle: int = 0,
               seed: int | None = None, format: str | None = None, chunk: int = CHUNK) -> Iterator[PlyArrays]:
    """The plies of a file in batches of ``batch_size`` (the last one smaller), read ``chunk`` bytes at a time:
    memory holds a chunk, its plies and the buffer, whatever the file's size.

    ``shuffle``: the size in plies of a shuffle buffer (0: file order). Plies are drawn at random from a buffer
    refilled as it empties, as the reference crate's ``interleave`` mixes games from its inputs: a ply is
    shuffled with the ``shuffle`` plies around it, not with the whole file. ``seed`` makes the order repeatable.
    A fault raises a located :class:`~chessformats.FormatError` after the batches of the plies before it.
    """
    if batch_size < 1 or shuffle < 0:
        raise ValueError("batch_size must be positive and shuffle not negative")
    format = _format_of(source, format)
    rng = np.random.default_rng(seed)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            yield from _batches(iter_buffers(handle, format, file=os.fspath(source), chunk=chunk), batch_size,
                                shuffle, rng)
        return
    name = getattr(source, "name", None)
    yield from _batches(iter_buffers(source, format, file=name if isinstance(name, str) else None, chunk=chunk),
                        batch_size, shuffle, rng)


def _batches(buffers: Iterator[MontyArrays], batch_size: int, shuffle: int,
             rng: np.random.Generator) -> Iterator[PlyArrays]:
    pending: list[PlyArrays] = []
    held = 0
    for arrays in buffers:
        plies = arrays.plies
        del arrays  # (the loop variable would keep a chunk's arrays while the next one is read)
        if not plies.size:
            continue
        pending.append(plies)
        held += plies.size
        del plies
        if held < shuffle + batch_size:
            continue
        buffer = concat_plies(pending)
        pending = []
        if shuffle:
            buffer = buffer.take(rng.permutation(buffer.size))
        emit = (held - shuffle) // batch_size * batch_size
        for start in range(0, emit, batch_size):
            yield buffer.take(np.arange(start, start + batch_size))
        pending = [buffer.take(np.arange(emit, held))] if emit < held else []
        held -= emit
        del buffer
    if held:
        buffer = concat_plies(pending)
        if shuffle:
            buffer = buffer.take(rng.permutation(buffer.size))
        for start in range(0, held, batch_size):
            yield buffer.take(np.arange(start, min(start + batch_size, held)))
