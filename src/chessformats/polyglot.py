"""Polyglot opening books: ``from chessformats import polyglot``.

The format is :mod:`chessformats.formats.polyglot`; :func:`make_book` (the book ``polyglot make-book`` writes,
from a :class:`~chessformats.books.build.BookBuilder`) is :mod:`chessformats.books.polyglot`.
"""

from .books.polyglot import make_book
from .formats import polyglot as _implementation
from .formats.polyglot import *  # noqa: F403

__all__ = [*_implementation.__all__, "make_book"]
