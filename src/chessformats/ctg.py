"""ChessBase CTG opening books: ``from chessformats import ctg``. See :mod:`chessformats.formats.ctg`."""

from .formats import ctg as _implementation
from .formats.ctg import *  # noqa: F403

__all__ = _implementation.__all__
