"""What ``main`` says of an exception a command raised: one line for what a user can act on (exit status 2), a
traceback and a request to report it for what is a bug (exit status 3).

A user's error is a :class:`~chessformats.engine.errors.FormatError` (a file of the wrong format, damaged or
missing a part, an output refused), an :class:`OSError` (no such file, no permission), or a
:class:`KeyError`/:class:`IndexError`/:class:`ValueError` raised on purpose: by a ``raise`` statement of the package
(the command line's ``no such game``, the library's refusal of a value a format cannot store), or by one of
python-chess called by the command line (a FEN or a move it refuses). "By a ``raise`` statement" is exact, not
guessed from where it happened: the innermost frame's instruction is ``RAISE_VARARGS``. The same types raised by
Python itself are bugs, though in the package's code: ``d[k]`` of a missing key, a tuple unpacked from too few
values, ``int()`` of a text that is no number, numpy's errors; so is anything else (a :class:`TypeError`, ...): a
one-line message would hide it.
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


def _frames(tb: TracebackType | None) -> list[TracebackType]:
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    return frames


def _file(tb: TracebackType) -> str:
    return os.path.abspath(tb.tb_frame.f_code.co_filename)


def _raised(tb: TracebackType) -> bool:
    """Whether the frame of ``tb`` raised its exception by a ``raise`` statement (not Python's own error of an
    operation: a subscript, an unpacking, a call of a builtin)."""
    import opcode

    code = tb.tb_frame.f_code.co_code
    return 0 <= tb.tb_lasti < len(code) and code[tb.tb_lasti] == opcode.opmap["RAISE_VARARGS"]


def is_users_error(exc: BaseException) -> bool:
    """Whether ``exc`` says something a user can act on (see the module's text)."""
    if isinstance(exc, (FormatError, OSError)):
        return True
    if not isinstance(exc, (KeyError, IndexError, ValueError)):
        return False
    frames = _frames(exc.__traceback__)
    if not frames or not _raised(frames[-1]):
        return False
    innermost = _file(frames[-1])
    if innermost.startswith(_PACKAGE + os.sep):  # the package's own refusal: no such game, a value it cannot store
        return True
    import chess

    ours = [name for name in map(_file, frames) if name.startswith(_PACKAGE + os.sep)]
    # python-chess refusing what the command line gave it: the user's FEN or move
    return bool(ours) and ours[-1].startswith(_CLI + os.sep) and \
        innermost.startswith(os.path.dirname(chess.__file__) + os.sep)


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
