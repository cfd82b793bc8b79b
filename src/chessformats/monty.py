"""Monty training data: ``from chessformats import monty``. See :mod:`chessformats.formats.monty`."""

from .formats import monty as _implementation
from .formats.monty import *  # noqa: F403

__all__ = _implementation.__all__
