"""CTG books and the format-neutral statistics model: records from a :class:`~.stats.BookStats`, a book as a
BookStats, and ``chessformats build -o BOOK.ctg``.

The public :mod:`chessformats.ctg` exports these beside the format's own API (its ``write_book`` is the one
here, which also takes a BookStats).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import chess

from ..engine.contract import WriteReport, WriteWarning, collect_warnings
from ..formats import ctg
from ..formats.ctg.model import BookMove, PositionRecord, Rating
from ..formats.ctg.position import MOVES, encode, occupied_squares
from .leftout import left_out_reason, warn_left_out
from .stats import BookStats, MoveStats
from .tree import Sieve, add_position, filter_stats, position_key, walk
from .tree import occupancy_sieve as tree_sieve

__all__ = ["from_bookstats", "make_book", "records_from_stats", "to_bookstats", "write_book"]

BOOK_NAME = "CTG"
"""The format as the warning of the moves left out names it (:func:`.leftout.warn_left_out`)."""
THIRD_PIECE = "third piece of a kind"
"""Why a move with no code is left out when it is no underpromotion: CTG numbers the first two knights, bishops,
rooks and queens of a side (:func:`.leftout.left_out_reason`)."""


def to_bookstats(book: ctg.CtgBook, start: chess.Board | None = None, *, free_plies: int = 1,
                 progress: Callable[[int], None] | None = None) -> BookStats:
    """The positions reached from ``start`` (default: the start position) along book moves, as a BookStats.

    A move's statistics are those of the position it leads to, seen from the side that played it
    (its wins are that position's losses); a move whose position is not stored has empty statistics. Its
    ``weight`` is CTG's Polyglot weight (:func:`~chessformats.ctg.polyglot_weight`: annotations applied).
    ``stats.unreached`` counts the stored positions no line from ``start`` reaches (left out).
    ``free_plies``: moves outside the book the search goes through where a book move leads out of the book (1:
    the opponent's replies of a one-sided repertoire; see :func:`.tree.walk`).
    """
    stats = BookStats(games=book.header_games)
    turns: set[tuple[bytes, chess.Color]] = set()  # the records reached, by side to move
    occupancies: dict[bytes, int] = {}  # by signature: each record decoded once, however many times the sieve is made
    for board, record, children in walk(book, start, free_plies=free_plies, progress=progress,
                                        sieve=lambda: occupancy_sieve(book, turns, occupancies)):
        turns.add((record.signature, board.turn))
        position = add_position(stats, board)
        for move in record.moves:
            child = children.get(move.move)
            weight = ctg.polyglot_weight(child, move.annotation)
            position.moves[move.move] = MoveStats(weight=weight) if child is None else MoveStats(
                child.games, child.losses, child.draws, child.wins, weight)
    stats.unreached = len(book) - len({stored for stored, _ in turns})
    return stats


def occupancy_sieve(book: ctg.CtgBook, reached: set[tuple[bytes, chess.Color]],
                    occupancies: dict[bytes, int] | None = None) -> Sieve | None:
    """A :data:`.tree.Sieve` for :func:`.tree.walk` over a CTG book: :func:`.tree.occupancy_sieve` of the stored
    positions outside ``reached`` (signatures with the side to move they were reached with: a record stands for a
    position and its colour-reversed twin); ``None`` (no sieve) when a record's squares cannot be read.
    ``occupancies``: the occupied squares by signature, kept from one call to the next."""
    known = {} if occupancies is None else occupancies
    stored: dict[chess.Color, list[int]] = {chess.WHITE: [], chess.BLACK: []}
    for signature in set(book.signatures()):
        missing = [turn for turn in (chess.WHITE, chess.BLACK) if (signature, turn) not in reached]
        if not missing:
            continue
        occupied = known.get(signature)
        if occupied is None:
            try:
                occupied = known[signature] = occupied_squares(signature)
            except ValueError:  # bits that are no squares: the probe says what is there
                return None
        for turn in missing:
            stored[turn].append(occupied)
    return tree_sieve(stored[chess.WHITE], stored[chess.BLACK])


def records_from_stats(stats: BookStats) -> tuple[list[PositionRecord], int]:
    """Records for a BookStats: every position with moves, and every position a move leads to.

    A position's statistics are the sums over the moves that lead to it (for the side to move there: its
    wins are those moves' losses); a position no move leads to (the start) sums its own moves. Positions
    that normalise to the same CTG position are one record (their moves merged). Returns the records and
    the number of moves left out because CTG cannot store them (third pieces of a kind, underpromotions, Chess960
    castling, null moves, illegal moves: the warning counts them by reason).
    """
    boards: dict[bytes, tuple[chess.Board, bool, bool]] = {}  # each record's first board, flipped, mirrored
    moves: dict[bytes, dict[int, list[int]]] = {}  # signature -> code -> [games, wins, draws, losses]
    incoming: dict[bytes, list[int]] = {}  # games, wins, draws, losses of the side to move
    left_out: Counter[str] = Counter()  # the moves left out, by reason
    # the moves already taken from a position as the rules of chess see it: the model tells apart positions
    # that differ only by an en-passant capture that is not legal (Polyglot's keys do), CTG does not; such
    # twins carry the same moves (a book read from CTG) or the moves of one position under two keys, taken once
    taken: dict[tuple[int, ...], set[int]] = {}
    for position in stats:
        board = position.board()
        encoded, norm = encode(board)
        boards.setdefault(encoded, (board, norm.flipped, norm.mirrored))
        codes = moves.setdefault(encoded, {})
        twin = taken.setdefault(position_key(board, legal=True), set())
        for move, move_stats in position.moves.items():
            code = MOVES.encode(norm, move, board.piece_type_at(move.from_square))
            reason = left_out_reason(board, move, code, beyond=THIRD_PIECE)
            if reason is not None:
                left_out[reason] += 1
                continue
            assert code is not None  # (no code: a reason)
            if code in twin and code in codes:
                continue
            twin.add(code)
            totals = codes.setdefault(code, [0, 0, 0, 0])
            for index, value in enumerate((move_stats.games, move_stats.wins, move_stats.draws, move_stats.losses)):
                totals[index] += value
            child = board.copy(stack=False)
            child.push(move)
            child_signature, child_norm = encode(child)
            boards.setdefault(child_signature, (child, child_norm.flipped, child_norm.mirrored))
            into = incoming.setdefault(child_signature, [0, 0, 0, 0])
            into[0] += move_stats.games
            into[1] += move_stats.losses
            into[2] += move_stats.draws
            into[3] += move_stats.wins
    records = []
    for encoded, (board, flipped, mirrored) in boards.items():
        codes = moves.get(encoded, {})
        if encoded in incoming:
            games, wins, draws, losses = incoming[encoded]
        else:
            games, wins, draws, losses = (sum(t[i] for t in codes.values()) for i in range(4))
        own = board.occupied_co[board.turn]
        pieces = (0, board.pawns & own, board.knights & own, board.bishops & own, board.rooks & own,
                  board.queens & own, board.kings & own)  # Normalised.own, for MOVES.move
        book_moves = tuple(BookMove(_code_move(pieces, flipped, mirrored, code), code, 0) for code in codes)
        records.append(PositionRecord(board, book_moves, games, wins, draws, losses, 0, Rating(0, 0), Rating(0, 0),
                                      0, 0, 0, encoded, 0, None, None, None, flipped, mirrored))
    return records, warn_left_out(left_out, BOOK_NAME)


def _code_move(own: tuple[int, ...], flipped: bool, mirrored: bool, code: int) -> chess.Move:
    move = MOVES.move(code, own, flipped, mirrored)
    assert move is not None  # the code was made from a move of this board
    return move


def write_book(path: str | os.PathLike[str], book: BookStats | Iterable[PositionRecord], *,
               games: int | None = None) -> WriteReport:
    """Write a CTG book: ``path`` (``.ctg``) and its ``.cto`` and ``.ctb``, each atomically; return the records.

    ``book`` is the format-neutral :class:`BookStats` (see :func:`records_from_stats`) or records (from a
    book's :meth:`~chessformats.ctg.CtgBook.records`, :func:`~chessformats.ctg.make_record`, ...). Records
    of the same position are merged (the first one wins). ``games`` goes into the header (default: the
    BookStats' games, else the largest game count of a record).
    """
    if isinstance(book, BookStats):
        report_warnings: list[WriteWarning] = []
        with collect_warnings(report_warnings):
            records, skipped = records_from_stats(book)
        report = ctg.write_book(path, records, games=book.games if games is None else games)
        report.warnings += report_warnings
        if skipped:
            report.counts["moves left out"] = skipped
        return report
    return ctg.write_book(path, book, games=games)


def from_bookstats(path: str | os.PathLike[str], stats: BookStats, *, games: int | None = None) -> WriteReport:
    """A CTG book from the format-neutral model (:func:`write_book` with a BookStats)."""
    return write_book(path, stats, games=games)


def make_book(path: str | os.PathLike[str], builder: Any, *, min_games: int = 3, min_score: float = 0.0,
              only: chess.Color | None = None, uniform: bool = False) -> WriteReport:
    """``chessformats build -o BOOK.ctg``: a CTG book from a :class:`~.build.BookBuilder`; returns the report.

    A move enters the book with at least ``min_games`` games (real counts: CTG stores them), a score
    ``(wins + draws / 2) / games`` of at least ``min_score`` for the side that plays it, and, with
    ``only``, when that side is ``only``. Positions get the statistics of :func:`records_from_stats`.
    ``uniform`` (Polyglot weights of 1) has no CTG meaning and is refused.
    """
    if uniform:
        raise ValueError("--uniform sets Polyglot weights; a CTG book stores game counts")
    stats = builder.to_stats()
    kept = filter_stats(stats, min_games=max(min_games, 1), min_score=min_score, only=only)
    return write_book(path, kept, games=stats.games)
