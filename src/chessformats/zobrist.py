"""Polyglot Zobrist keys: ``from chessformats import zobrist``. See :mod:`chessformats.formats.zobrist`."""

from .formats import zobrist as _implementation
from .formats.zobrist import *  # noqa: F403

__all__ = _implementation.__all__
