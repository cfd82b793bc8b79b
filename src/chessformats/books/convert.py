"""Conversions between opening book formats: CTG, Kvetka and Polyglot in every direction, composed through the
format-neutral model (``chessformats convert``).

Every conversion is ``target.from_bookstats(path, source.to_bookstats(book))``: each format reads itself into a
:class:`~.stats.BookStats` and writes itself from one, so a new format joins every pair by offering the two.
Books are trees of moves: the model holds the positions reached from the start position along book moves (a
stored position no line reaches is left out and counted: ``report.counts["not reached"]``). Where a format has a
rule of its own, the model carries it: a CTG move's Polyglot weight (annotations applied,
:func:`chessformats.ctg.polyglot_weight`) and a Polyglot move's weight travel as :attr:`.MoveStats.weight`.

A book converted to its own format is rewritten record by record instead (nothing is lost: ratings, comments,
sources), not through the model.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..engine.contract import WriteReport, deprecated_alias
from ..formats import ctg, kvetka, polyglot
from . import ctg as ctg_books
from . import kvetka as kvetka_books
from . import polyglot as polyglot_books
from .stats import BookStats

__all__ = ["BOOK_FORMATS", "convert", "convert_book", "ctg_to_polyglot", "polyglot_to_ctg", "read_bookstats",
           "write_bookstats"]

BOOK_FORMATS = ("ctg", "kvetka", "polyglot")
"""The book formats a conversion reads and writes (the command line's format keys)."""

_EXTENSIONS = {".bin": "polyglot", ".ctg": "ctg", ".cto": "ctg", ".ctb": "ctg", ".kob": "kvetka", ".kin": "kvetka",
               ".ksf": "kvetka"}
_OPEN: dict[str, Callable[[str], Any]] = {"ctg": ctg.open_book, "kvetka": kvetka.open_book,
                                          "polyglot": polyglot.open_book}
_STORES_RESULTS_ONLY = {"kvetka"}
"""Formats that keep results but no game count: a Polyglot weight reaches them as draws (see
:func:`chessformats.polyglot.to_bookstats`)."""


def book_format(path: str | os.PathLike[str], given: str | None = None) -> str:
    """The format key of a book path (by its extension), or ``given``."""
    if given is not None:
        if given not in BOOK_FORMATS:
            raise ValueError(f"{given!r} is not a book format ({', '.join(BOOK_FORMATS)})")
        return given
    extension = os.path.splitext(os.fspath(path))[1].lower()
    if extension not in _EXTENSIONS:
        raise ValueError(f"{os.fspath(path)}: cannot tell the book format from {extension or 'no extension'!r}: "
                         f"give it ({', '.join(BOOK_FORMATS)})")
    return _EXTENSIONS[extension]


def read_bookstats(book: Any, source_format: str, *, target_format: str | None = None,
                   progress: Callable[[int], None] | None = None) -> BookStats:
    """The model of an open book of ``source_format`` (its ``to_bookstats``; ``progress(positions walked)``)."""
    if source_format == "ctg":
        return ctg_books.to_bookstats(book, progress=progress)
    if source_format == "kvetka":
        return kvetka_books.to_bookstats(book, progress=progress)
    return polyglot_books.to_bookstats(book, as_draws=target_format in _STORES_RESULTS_ONLY, progress=progress)


def write_bookstats(path: str | os.PathLike[str], stats: BookStats, target_format: str) -> WriteReport:
    """A book of ``target_format`` from the model (its ``from_bookstats``)."""
    if target_format == "ctg":
        return ctg_books.from_bookstats(path, stats)
    if target_format == "kvetka":
        return kvetka_books.from_bookstats(path, stats)
    return polyglot_books.from_bookstats(path, stats)


def convert_book(source: str | os.PathLike[str], target: str | os.PathLike[str], *, source_format: str | None = None,
                 target_format: str | None = None,
                 progress: Callable[[str, int], None] | None = None) -> WriteReport:
    """Convert a book (CTG, Kvetka, Polyglot) to a book of any of these formats; formats from the extensions
    unless given. Returns the target's :class:`~chessformats.contract.WriteReport`, with
    ``counts["positions"]`` (reached from the start) and ``counts["not reached"]`` (stored positions, or
    Polyglot entries, left out) for a conversion through the model.

    A book converted to its own format (CTG, Kvetka) is rewritten as it is stored; Polyglot to Polyglot is
    refused (nothing to convert: copy the file, or ``chessformats merge``). ``progress(stage, count)``: called as
    the source is walked (``"reading"``, positions so far) and once as the target is written (``"writing"``,
    the positions of the model).
    """
    source_key, target_key = book_format(source, source_format), book_format(target, target_format)
    if source_key == target_key == "polyglot":
        raise ValueError("cannot convert polyglot to polyglot (CTG, Kvetka and Polyglot books, in every direction "
                         "but Polyglot to Polyglot)")
    with _OPEN[source_key](os.fspath(source)) as book:
        if source_key == target_key == "ctg":
            return ctg.write_book(target, book.records(), games=book.header_games)
        if source_key == target_key == "kvetka":
            return kvetka.write_book(target, book)
        reading = None if progress is None else lambda done: progress("reading", done)
        if source_key == "polyglot" and target_key == "ctg":  # the records made in bulk, not through the model
            return _polyglot_to_ctg_bulk(book, target, reading, progress)
        if source_key == "ctg" and target_key == "polyglot":  # the entries made in bulk, not through the model
            return _ctg_to_polyglot_bulk(book, target, reading, progress)
        stats = read_bookstats(book, source_key, target_format=target_key, progress=reading)
    if progress is not None:
        progress("writing", len(stats))
    report = write_bookstats(target, stats, target_key)
    report.counts["positions"] = len(stats)
    if stats.unreached:
        report.counts["not reached"] = stats.unreached
    return report


def _polyglot_to_ctg_bulk(book: Any, target: str | os.PathLike[str], reading: Callable[[int], None] | None,
                          progress: Callable[[str, int], None] | None) -> WriteReport:
    """Polyglot -> CTG from the layered walk (:mod:`.layers`, :mod:`.ctg_bulk`): the bytes of the conversion
    through the model, ten times faster."""
    from .ctg_bulk import write_walked
    from .layers import walk_polyglot

    walked = walk_polyglot(book, progress=reading)
    if progress is not None:
        progress("writing", len(walked.keys))
    report = write_walked(target, walked)
    report.counts["positions"] = len(walked.keys)
    if len(book) - walked.entries:
        report.counts["not reached"] = len(book) - walked.entries
    return report


def _ctg_to_polyglot_bulk(book: Any, target: str | os.PathLike[str], reading: Callable[[int], None] | None,
                          progress: Callable[[str, int], None] | None) -> WriteReport:
    """CTG -> Polyglot from the layered walk (:mod:`.ctg_walk`): the bytes of the conversion through the model,
    ten times faster."""
    from .ctg_walk import walk_ctg, write_polyglot

    walked = walk_ctg(book, progress=reading)
    if progress is not None:
        progress("writing", len(walked.offsets) - 1)
    report = write_polyglot(target, book, walked)
    if len(book) - walked.reached:
        report.counts["not reached"] = len(book) - walked.reached
    return report


def _convert(source: str, source_format: str, target: str, target_format: str) -> str:
    """The conversion before the contract: positional formats, a summary string."""
    return convert_book(source, target, source_format=source_format, target_format=target_format).summary()


def _ctg_to_polyglot(ctg_path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str:
    return convert_book(ctg_path, out, source_format="ctg", target_format="polyglot").summary()


def _polyglot_to_ctg(bin_path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str:
    return convert_book(bin_path, out, source_format="polyglot", target_format="ctg").summary()


convert = deprecated_alias(_convert, "chessformats.books.convert.convert", "convert_book(source, target)")
ctg_to_polyglot = deprecated_alias(_ctg_to_polyglot, "chessformats.ctg.to_polyglot",
                                   "chessformats.ctg.convert_book(source, target)")
polyglot_to_ctg = deprecated_alias(_polyglot_to_ctg, "chessformats.ctg.from_polyglot",
                                   "chessformats.ctg.convert_book(source, target)")
