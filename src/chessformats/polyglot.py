"""Polyglot opening books: ``from chessformats import polyglot``. See :mod:`chessformats.formats.polyglot`."""

from .formats import polyglot as _implementation
from .formats.polyglot import *  # noqa: F403

__all__ = _implementation.__all__
