"""ChessBase game databases: ``from chessformats import chessbase``. See :mod:`chessformats.formats.chessbase`;
:func:`write_database_from_pgn` (PGN files to a base, fast) is :mod:`chessformats.books.chessbase_import`'s."""

from .books.chessbase_import import write_database_from_pgn
from .formats import chessbase as _implementation
from .formats.chessbase import *  # noqa: F403

__all__ = [*_implementation.__all__, "write_database_from_pgn"]
