"""What ``main`` says of an exception a command raised: one line for what a user can act on (exit status 2), a
traceback and a request to report it for what is a bug (exit status 3).

A user's error is a :class:`~chessformats.engine.errors.FormatError` (a file of the wrong format, damaged or
missing a part, an output refused), an :class:`OSError` (no such file, no permission), or a
:class:`KeyError`/:class:`IndexError`/:class:`ValueError` raised on purpose: by the command line's own code (``no
such game``: its innermost frame is the command line's), by python-chess called by the command line (a FEN or a
move it refuses), or, a :class:`ValueError`, by the library's own ``raise`` (a value a format cannot store).
Anything else (a :class:`KeyError` from deep in a reader, a :class:`TypeError`, numpy's errors...) is a bug, and
a one-line message would hide it.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType

from .._version import __version__
from ..engine.errors import FormatError

__all__ = ["INTERNAL_ERROR", "is_users_error", "report"]

INTERNAL_ERROR = "  3  an internal error (a bug): the traceback is printed, with a request to report it"
"""The exit status of a bug, as the ``--help`` epilogue lists it after the others."""

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CLI = os.path.join(_PACKAGE, "cli")


def _frames(tb: TracebackType | None) -> list[str]:
    files = []
    while tb is not None:
        files.append(os.path.abspath(tb.tb_frame.f_code.co_filename))
        tb = tb.tb_next
    return files


def is_users_error(exc: BaseException) -> bool:
    """Whether ``exc`` says something a user can act on (see the module's text)."""
    if isinstance(exc, (FormatError, OSError)):
        return True
    if not isinstance(exc, (KeyError, IndexError, ValueError)):
        return False
    import chess

    files = _frames(exc.__traceback__)
    if not files:
        return False
    innermost = files[-1]
    if innermost.startswith(_CLI + os.sep):  # the command line's own refusal: no such game, entry, option...
        return True
    ours = [name for name in files if name.startswith(_PACKAGE + os.sep)]
    if ours and ours[-1].startswith(_CLI + os.sep) and innermost.startswith(os.path.dirname(chess.__file__) + os.sep):
        return True  # python-chess refusing what the command line gave it: the user's FEN or move
    # a ValueError the library raised itself (its innermost frame is the package's): a value it refuses, said
    return type(exc) is ValueError and innermost.startswith(_PACKAGE + os.sep)


def report(exc: Exception) -> int:
    """Say ``exc`` on stderr; the exit status (2: a user's error, 3: a bug)."""
    if is_users_error(exc):
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"chessformats: error: {message}", file=sys.stderr)
        return 2
    import traceback

    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    print(f"chessformats: internal error: {type(exc).__name__}: {exc}\nThis is a bug of chessformats {__version__}: "
          "please report it, with the command and the traceback above.", file=sys.stderr)
    return 3
