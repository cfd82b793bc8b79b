"""The progress bar of ``chessformats build`` on a terminal: games read, games/s, the share of the input read
and the time left.

The share is measured in bytes of the input files as they are on disk, summed over every file: a plain
file's characters read (one byte each for ASCII PGN), a compressed file's compressed bytes read (asked from
the stream, :func:`chessformats.books.progress.input_position`), so the estimate does not need the
decompressed size. rich is imported only when a bar is shown (stderr is a terminal).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..engine.streams import COMPRESSED_SUFFIXES

if TYPE_CHECKING:
    from rich.console import Console

    from ..books.build import BookBuilder

__all__ = ["BuildBar"]


class BuildBar:
    """One bar over every input file (see the module documentation)."""

    def __init__(self, console: Console, paths: Sequence[str]) -> None:
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

        self.sizes = [os.path.getsize(path) if os.path.isfile(path) else 0 for path in paths]
        self.total = sum(self.sizes)
        self.started = time.perf_counter()
        self.progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(), TaskProgressColumn(),
                                 TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                                 console=console, transient=True)
        self.task = self.progress.add_task("reading", total=self.total or None, rate="")

    @contextmanager
    def shown(self) -> Iterator[BuildBar]:
        with self.progress:
            yield self

    def update(self, games: int, done: int, description: str | None = None) -> None:
        """``games`` read so far, ``done`` bytes of the whole input read."""
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        fields: dict[str, Any] = {"rate": f"{games:,} games, {games / elapsed:,.0f} games/s"}
        if description is not None:
            fields["description"] = description
        self.progress.update(self.task, completed=min(done, self.total), **fields)

    def for_file(self, index: int, path: str, builder: BookBuilder) -> Callable[[int, int], None]:
        """The ``progress`` callback for ``builder.add_file`` of the ``index``-th input."""
        from ..books.progress import input_position

        offset, size = sum(self.sizes[:index]), self.sizes[index]
        compressed = path.lower().endswith(COMPRESSED_SUFFIXES)
        name = f"reading {os.path.basename(path)}"
        self.update(builder.games, offset, name)

        def report(games: int, characters: int) -> None:
            # one process: the text stream tells the compressed bytes read; several: the pieces give input bytes
            position = input_position(builder.reading) if compressed and builder.reading is not None else characters
            self.update(games, offset + min(position or 0, size))

        return report
