"""ChessBase game databases: ``from chessformats import chessbase``. See :mod:`chessformats.formats.chessbase`."""

from .formats import chessbase as _implementation
from .formats.chessbase import *  # noqa: F403

__all__ = _implementation.__all__
