"""Kvetka opening books: ``from chessformats import kvetka``. See :mod:`chessformats.formats.kvetka`."""

from .formats import kvetka as _implementation
from .formats.kvetka import *  # noqa: F403

__all__ = _implementation.__all__
