"""Polyglot opening books: ``from chessformats import polyglot``.

Conversions to and from other book formats go through the format-neutral model: :func:`to_bookstats`,
:func:`from_bookstats`, and ``convert_book(source, target)`` for any pair.

The format is :mod:`chessformats.formats.polyglot`; :func:`make_book` (the book ``polyglot make-book`` writes,
from a :class:`~chessformats.books.build.BookBuilder`) is :mod:`chessformats.books.polyglot`.
"""

from .books.polyglot import from_bookstats, make_book, to_bookstats
from .formats import polyglot as _implementation
from .formats.polyglot import *  # noqa: F403


def __getattr__(name: str) -> object:
    if name == "convert_book":  # books.convert imports every book format: only when asked for
        from .books.convert import convert_book

        return convert_book
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [*_implementation.__all__, "convert_book", "from_bookstats", "make_book", "to_bookstats"]  # noqa: F405
