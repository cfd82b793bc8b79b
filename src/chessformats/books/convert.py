"""Conversions between opening book formats: CTG, Kvetka and Polyglot in every direction, and CTG and Kvetka
books rewritten (``chessformats convert``).

Books are converted through the positions reached from the start position along book moves (books are
trees of moves; a position no line reaches is left out and counted). The statistics travel as the
format-neutral model (:class:`~.stats.BookStats`) except where a format has a rule of its own: CTG ->
Polyglot weighs a move by :func:`chessformats.ctg.polyglot_weight` (annotations applied).
"""

from __future__ import annotations

import os
import warnings

import chess

from ..formats import ctg, kvetka, polyglot
from . import ctg as ctg_books
from . import kvetka as kvetka_books
from .stats import BookStats, MoveStats
from .tree import fen_key, position_stats, walk

__all__ = ["convert", "ctg_polyglot_weights", "ctg_to_polyglot", "polyglot_to_ctg"]

_WEIGHT_LIMIT = 0xFFFF  # a Polyglot weight is 16 bits

Weights = dict[str, dict[chess.Move, int]]


def _fit_weights(weights: Weights, *, keep_nonzero: bool) -> Weights:
    """The weights scaled down together (``weight * 65535 // largest``) when the largest passes 65535;
    ``keep_nonzero``: a weight that was not 0 stays at least 1."""
    largest = max((w for moves in weights.values() for w in moves.values()), default=0)
    if largest > _WEIGHT_LIMIT:
        for moves in weights.values():
            for move, weight in moves.items():
                scaled = weight * _WEIGHT_LIMIT // largest
                moves[move] = max(scaled, 1) if keep_nonzero and weight else scaled
    return weights


def ctg_polyglot_weights(book: ctg.CtgBook, start: chess.Board | None = None) -> tuple[Weights, int]:
    """Polyglot weights (``polyglot.write_book``'s mapping) for the positions of a CTG book reached from
    ``start``; returns the mapping and the number of stored positions that were not reached.

    See :func:`chessformats.ctg.polyglot_weight` for the rule; weights are scaled down together when one
    passes 65535 (a weight that was not 0 stays at least 1).
    """
    weights: Weights = {}
    reached: set[bytes] = set()
    for board, record, children in walk(book.probe, _ctg_moves, start):
        reached.add(record.signature)
        weights[board.fen()] = {move.move: ctg.polyglot_weight(children.get(move.move), move.annotation)
                                for move in record.moves}
    return _fit_weights(weights, keep_nonzero=True), len(book) - len(reached)


def _ctg_moves(record: ctg.PositionRecord) -> list[chess.Move]:
    return [move.move for move in record.moves]


def ctg_to_polyglot(ctg_path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str:
    """Convert a CTG book to a Polyglot book (positions reached from the start); returns a summary.

    Weights: ``2 * wins + draws`` of the side that plays the move, annotations applied (see
    :func:`chessformats.ctg.polyglot_weight`).
    """
    with ctg.open_book(ctg_path) as book:
        weights, unreached = ctg_polyglot_weights(book)
    entries = polyglot.write_book(out, weights)
    return (f"{len(weights)} positions, {entries} entries written to {os.fspath(out)}"
            + (f"; {unreached} stored positions are not reached from the start position (left out)"
               if unreached else ""))


def _polyglot_stats(bin_path: str | os.PathLike[str], *, as_draws: bool) -> tuple[BookStats, int]:
    """The positions of a Polyglot book reached from the start, a move's weight as its games (``as_draws``:
    also as draws, so that a book converted back to Polyglot gets its weights again when no position is
    reached twice); the start position's games are the book's games. Returns the model and the entries."""
    stats = BookStats()
    with polyglot.open_book(bin_path) as book:
        for board, entries in polyglot.reachable_positions(book):
            position = stats.positions.setdefault(fen_key(board), position_stats(board))
            for entry in entries:
                position.moves[entry.move] = MoveStats(games=entry.weight, draws=entry.weight if as_draws else 0)
        total = len(book)
    return stats, total


def polyglot_to_ctg(bin_path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str:
    """Convert a Polyglot book to CTG (positions reached from the start); returns a summary.

    A move's weight becomes the number of games of the position it leads to, with unknown results.
    """
    stats, total = _polyglot_stats(bin_path, as_draws=False)
    root = stats.positions.get(fen_key(chess.Board()))
    stats.games = sum(m.games for m in root.moves.values()) if root is not None else 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        count = ctg_books.write_book(out, stats)
    note = "".join(f"; {w.message}" for w in caught)
    return f"{len(stats)} positions reached from the start ({total} Polyglot entries) -> {count} records{note}"


def _stats_weights(stats: BookStats) -> Weights:
    """Polyglot weights of the model: ``2 * wins + draws`` per move (scaled down together past 65535)."""
    return _fit_weights({position.fen: {move: move_stats.polyglot_weight for move, move_stats in position.moves.items()}
                         for position in stats}, keep_nonzero=False)


_PAIRS = {("ctg", "polyglot"), ("polyglot", "ctg"), ("ctg", "ctg"), ("kvetka", "kvetka"), ("kvetka", "polyglot"),
          ("kvetka", "ctg"), ("polyglot", "kvetka"), ("ctg", "kvetka")}


def convert(source: str, source_format: str, target: str, target_format: str) -> str:
    """``chessformats convert``: CTG, Kvetka and Polyglot books in every direction (CTG and Kvetka books are
    also rewritten in their own format); returns a summary. Formats by their keys (``ctg``, ``kvetka``,
    ``polyglot``)."""
    if (source_format, target_format) not in _PAIRS:
        raise ValueError(f"cannot convert {source_format} to {target_format} (CTG, Kvetka and Polyglot books, "
                         "in every direction but Polyglot to Polyglot)")
    if source_format == "ctg" and target_format == "polyglot":
        return ctg_to_polyglot(source, target)
    if source_format == "polyglot" and target_format == "ctg":
        return polyglot_to_ctg(source, target)
    if source_format == "ctg" and target_format == "ctg":
        with ctg.open_book(source) as ctg_book:
            count = ctg.write_book(target, ctg_book.records(), games=ctg_book.header_games)
        return f"{count} records written to {target}"
    if source_format == "kvetka" and target_format == "kvetka":
        with kvetka.open_book(source) as book:
            result = kvetka.write_book(target, book)
        return f"{result.elements} elements in {result.blocks} blocks written to {', '.join(result.kob_paths)}"
    if source_format == "kvetka":
        with kvetka.open_book(source) as book:
            stats = kvetka_books.to_bookstats(book)
            stored = len(book)
        if target_format == "polyglot":
            count = polyglot.write_book(target, _stats_weights(stats))
            return f"{len(stats)} positions reached from the start ({stored} elements) -> {count} Polyglot entries"
        count = ctg_books.write_book(target, stats)
        return f"{len(stats)} positions reached from the start ({stored} elements) -> {count} CTG records"
    if source_format == "polyglot":
        stats, total = _polyglot_stats(source, as_draws=True)
        origin = f"{total} Polyglot entries"
    else:
        with ctg.open_book(source) as ctg_book:
            stats = ctg_books.to_bookstats(ctg_book)
        origin = "CTG book"
    result = kvetka_books.write_book(target, stats)
    return (f"{len(stats)} positions reached from the start ({origin}) -> {result.elements} elements in "
            f"{', '.join(result.kob_paths)}" + (f"; {result.skipped} moves Kvetka cannot store left out"
                                                if result.skipped else ""))
