"""Where the command line writes, decided in one place.

Results go to stdout through rich (markup rendered on a terminal, plain text in a pipe): what a result prints of
a file's names or contents is escaped (:func:`plain`). Messages go to stderr: through rich when stderr is a
terminal, which is also the only place bars and spinners are drawn; elsewhere as plain lines, without importing
rich (start-up time of a build or a conversion run by a script). Either way a message is written as it is, no
markup read in it (a file name or a skipped game's reason may hold ``[/x]``, which rich would refuse).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["PlainConsole", "console", "plain", "progress_bar", "terminal"]


class PlainConsole:
    """What a command that prints only lines needs of a console when stderr is not a terminal: rich is not
    imported for it, and a line is written as it is (no markup read in it)."""

    is_terminal = False

    @staticmethod
    def print(text: str) -> None:
        print(text, file=sys.stderr)


@overload
def console(*, stderr: Literal[False] = ...) -> Console: ...


@overload
def console(*, stderr: bool) -> Console | PlainConsole: ...


def console(*, stderr: bool = False) -> Console | PlainConsole:
    """The console a command prints through: stdout's (results), or with ``stderr`` the messages' (a rich console
    on a terminal that reads no markup in them, else a :class:`PlainConsole`)."""
    if stderr and not sys.stderr.isatty():
        return PlainConsole()
    from rich.console import Console  # rich is imported only by commands that print through it

    return Console(stderr=stderr, highlight=False, soft_wrap=True, markup=not stderr, emoji=not stderr)


def plain(text: object) -> str:
    """``text`` (a file's name, a value read from a file) for a line of rich markup: shown as it is."""
    from rich.markup import escape

    return escape(str(text))


def terminal(shown: Console | PlainConsole) -> Console | None:
    """The rich console to draw a bar or a spinner on: ``shown`` when it writes to a terminal; else ``None``
    (the command prints its lines alone)."""
    if isinstance(shown, PlainConsole) or not shown.is_terminal:
        return None
    return shown


@contextlib.contextmanager
def progress_bar(shown: Console | PlainConsole, description: str, counted: str,
                 total: int | None = None) -> Iterator[Callable[..., None] | None]:
    """On a terminal (:func:`terminal`), a bar removed when done: ``description``, the bar, ``counted`` (a rich
    column template such as ``"{task.completed:,} rows"``) and the time taken; yields ``update(completed,
    total=None)``. Elsewhere yields ``None``."""
    screen = terminal(shown)
    if screen is None:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), TextColumn(counted, markup=False),
                  TimeElapsedColumn(), console=screen, transient=True) as bar:
        task = bar.add_task(description, total=total)

        def update(completed: int, total: int | None = None) -> None:
            bar.update(task, completed=completed, total=total)

        yield update
