"""Kvetka books and the format-neutral statistics model: elements from a :class:`~.stats.BookStats` (with ECO
comments and references to the games), a book as a BookStats, ``.ksf`` sources for PGN files, and
``chessformats build -o NAME.kob``.

The public :mod:`chessformats.kvetka` exports these beside the format's own API (its ``write_book`` is the
one here, which also takes a BookStats).
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import chess
import chess.pgn

from ..engine.codec import codec
from ..engine.contract import WriteReport, WriteWarning, collect_warnings
from ..engine.schema import enum_view
from ..formats import kvetka
from ..formats.kvetka.key import MOVES, KeyOverflowError, encode, key_occupied_squares, position_key
from ..formats.pgngames import read_game
from ..schemas.kvetka import GAME, GAME_RESULT
from .leftout import left_out_reason, warn_left_out
from .pgnread import decode_pgn
from .stats import BookStats, MoveStats
from .tree import Sieve, add_position, fen_key, filter_stats, legal_key, occupancy_sieve, walk

__all__ = ["elements_from_stats", "from_bookstats", "make_book", "pgn_sources", "to_bookstats", "write_book"]

_GAME_START = re.compile(rb"(?:^|\n)\[Event ")
_RESULTS = enum_view(GAME_RESULT)
_RESULT_CODES = {meaning: value for value, meaning in _RESULTS.meanings.items()}
"""A PGN result tag's game_result: the declaration's meanings are the tags ("1-0", "0-1", "1/2-1/2")."""
_UNKNOWN_RESULT = _RESULTS.values["unknown"]
_ELO_LIMIT = codec(GAME).field("white_elo").mask
"""The largest rating a .ksf game stores (a larger one is stored as 0, unknown)."""
_PGN_FAILURES = (IndexError, KeyError, ValueError, AssertionError)
"""What python-chess's ``read_game`` has been seen to raise on damaged movetext instead of logging an error."""
BOOK_NAME = "a Kvetka book"
"""The format as the warning of the moves left out names it (:func:`.leftout.warn_left_out`)."""
BEYOND = "third knight/bishop/rook or fourth queen"
"""Why a move with no code is left out when it is no underpromotion: Kvetka numbers the first two knights, bishops
and rooks and the first three queens of a side (:func:`.leftout.left_out_reason`)."""
NO_KEY = "position the key cannot hold"
"""Why the moves of a position, or a move to a position, are left out when the position's squares take more bits
than a key has (:class:`~chessformats.kvetka.KeyOverflowError`)."""


def to_bookstats(book: kvetka.KvetkaBook, start: chess.Board | None = None, *, free_plies: int = 1,
                 progress: Callable[[int], None] | None = None) -> BookStats:
    """The positions reached from ``start`` along book moves, as the format-neutral model.

    A move's statistics are those of the position it leads to, seen from the side that played it (its
    wins are that position's losses); a move whose position is not stored has empty statistics and weight 1
    (as :meth:`~chessformats.kvetka.KvetkaBook.find_all` gives it, and CTG's rule). ``stats.unreached`` counts the
    stored elements no line from ``start`` reaches (left out).
    ``free_plies``: moves outside the book the search goes
    through where a book move leads out of the book (see :func:`.tree.walk`).
    """
    stats = BookStats()
    turns: set[tuple[bytes, chess.Color]] = set()  # the elements reached, by side to move
    occupancies: dict[bytes, int] = {}  # by key: each element's squares decoded once

    def sieve() -> Sieve | None:  # the occupied squares of the elements not reached (see tree.walk)
        try:
            for element in book.elements() if not occupancies else ():
                occupancies.setdefault(element.key, key_occupied_squares(element.key))
        except ValueError:  # a key that is no position: no sieve (every move tested, as the probe reads keys)
            return None
        return occupancy_sieve((occupied for key, occupied in occupancies.items() if (key, chess.WHITE) not in turns),
                               (occupied for key, occupied in occupancies.items() if (key, chess.BLACK) not in turns))

    for board, found, children in walk(book, start, free_plies=free_plies, progress=progress, sieve=sieve):
        turns.add((found.key, board.turn))
        if not found.moves:
            continue
        position = add_position(stats, board)
        for book_move in found.moves:
            move = book_move.move
            child = children[move]
            position.moves[move] = MoveStats(weight=1) if child is None else MoveStats(
                child.games, child.losses, child.draws, child.wins)
    root = stats.positions.get(fen_key(start or chess.Board()))
    stats.games = sum(m.games for m in root.moves.values()) if root is not None else 0
    stats.unreached = len(book) - len({stored for stored, _ in turns})
    return stats



def elements_from_stats(stats: BookStats, *, openings: Mapping[str, str | kvetka.Opening] | None = None,
                        references: Mapping[str, tuple[int, int]] | None = None
                        ) -> tuple[list[kvetka.Element], int]:
    """Elements for a BookStats: every position with moves and every position a move leads to.

    A position's results are the sums over the moves that lead to it (for its side to move: its wins
    are those moves' losses); a position no move leads to (the start) sums its own moves. Positions with
    the same key are one element (moves merged). Moves are stored most played first. ``openings`` and
    ``references`` are keyed by FEN (move counters optional; en passant as python-chess writes it by
    default, only when a capture is legal); a reference is looked up for the first position met of a key.
    Returns the elements, sorted by key, and the number of moves left out (no code in the table, not legal, or a
    position the key cannot hold: a warning counts them by reason, as :func:`.ctg.records_from_stats` does).
    """
    moves: dict[bytes, dict[int, int]] = {}
    incoming: dict[bytes, list[int]] = {}
    boards: dict[bytes, chess.Board] = {}
    left_out: Counter[str] = Counter()  # the moves left out, by reason
    for position in stats:
        board = position.board()
        try:
            found = encode(board)
        except KeyOverflowError:
            left_out[NO_KEY] += len(position.moves)
            continue
        boards.setdefault(found.key, board)
        codes = moves.setdefault(found.key, {})
        for move, move_stats in position.moves.items():
            code = MOVES.encode(found.norm, move, board.piece_type_at(move.from_square))
            reason = left_out_reason(board, move, code, beyond=BEYOND)
            if reason is not None:
                left_out[reason] += 1
                continue
            assert code is not None  # (no code: a reason)
            child = board.copy(stack=False)
            child.push(move)
            try:
                child_key = position_key(child)
            except KeyOverflowError:
                left_out[NO_KEY] += 1
                continue
            codes[code] = codes.get(code, 0) + move_stats.games
            boards.setdefault(child_key, child)
            into = incoming.setdefault(child_key, [0, 0, 0])
            into[0] += move_stats.losses
            into[1] += move_stats.draws
            into[2] += move_stats.wins
    notes = {_strip_counters(fen): text for fen, text in (openings or {}).items()}
    refs = {_strip_counters(fen): ref for fen, ref in (references or {}).items()}
    keyed_notes = {position_key(chess.Board(fen)): text for fen, text in notes.items()}
    elements = []
    for key in sorted(boards):
        codes = moves.get(key, {})
        if key in incoming:
            wins, draws, losses = incoming[key]
        else:
            wins = draws = losses = 0
            own = stats.positions.get(fen_key(boards[key]))
            if own is not None:
                for move_stats in own.moves.values():
                    wins += move_stats.wins
                    draws += move_stats.draws
                    losses += move_stats.losses
        ordered = tuple(sorted(codes, key=lambda code: (-codes[code], code)))
        note = keyed_notes.get(key)
        comment = note.comment() if isinstance(note, kvetka.Opening) else note
        elements.append(kvetka.Element(key, wins, draws, losses, ordered, 0, refs.get(legal_key(boards[key])),
                                       comment))
    return elements, warn_left_out(left_out, BOOK_NAME)


def _strip_counters(fen: str) -> str:
    parts = fen.split()
    return " ".join(parts[:4]) if len(parts) >= 4 else fen


def write_book(path: str | os.PathLike[str], book: BookStats | kvetka.KvetkaBook | Iterable[kvetka.Element], *,
               caption: str = "", openings: Mapping[str, str | kvetka.Opening] | None = None,
               sources: Sequence[kvetka.KvetkaSource] | None = None,
               references: Mapping[str, tuple[int, int]] | None = None, max_move: int = kvetka.ALL_PLIES,
               elo_filters: tuple[int, int, int, int] = (0, 0, 0, 0), links: int = 0,
               file_limit: int = kvetka.DEFAULT_FILE_LIMIT) -> WriteReport:
    """Write a Kvetka book ``NAME_0.kob`` (``_1``, ... past ``file_limit`` bytes), ``NAME.kin`` and, with
    ``sources``, ``NAME.ksf``; each file atomically. ``path`` is ``NAME``, ``NAME.kob`` or ``NAME_0.kob``.

    ``book`` is the format-neutral :class:`BookStats` (see :func:`elements_from_stats`; ``openings`` and
    ``references`` are keyed by FEN), an open :class:`~chessformats.kvetka.KvetkaBook` (rewritten: header,
    elements and sources as read) or elements. Elements are sorted by key (the first of equal keys wins),
    truncated to the spec's limits (comment 300 characters, element 682 bytes) and packed into blocks in
    order; stale ``NAME_k.kob`` files of a previous, longer book and a stale ``.ksf`` are removed. The
    report's ``counts["moves left out"]`` counts the moves of a BookStats that Kvetka cannot store, and its
    warnings say why (:func:`elements_from_stats`).
    """
    skipped = 0
    said: list[WriteWarning] = []
    if isinstance(book, BookStats):
        with collect_warnings(said):
            book, skipped = elements_from_stats(book, openings=openings, references=references)
    result = kvetka.write_book(path, book, caption=caption, sources=sources, max_move=max_move,
                               elo_filters=elo_filters, links=links, file_limit=file_limit)
    result.warnings[:0] = said
    if skipped:
        result.counts["moves left out"] = skipped
    return result


def from_bookstats(path: str | os.PathLike[str], stats: BookStats, **options: Any) -> WriteReport:
    """A Kvetka book from the format-neutral model (:func:`write_book` with a BookStats; the same options)."""
    return write_book(path, stats, **options)


def pgn_sources(paths: Sequence[str | os.PathLike[str]], *, max_ply: int = kvetka.ALL_PLIES,
                encoding: str | None = None) -> tuple[list[kvetka.KvetkaSource], dict[str, tuple[int, int]]]:
    """``.ksf`` sources for PGN files, and for every position of their games' first ``max_ply`` plies the first
    game it occurs in (``references`` for :func:`write_book`, keyed by FEN without move counters).

    A game starts at its ``[Event`` tag: its address is that byte offset in the (uncompressed, plain) file and
    its length runs to the next game. Addresses are full paths, as the spec asks. Games python-chess cannot
    replay, or cannot even read (its parser fails on some damaged movetext), are described from their tags but
    give no references. ``encoding``: the files' (``None``: UTF-8, a game that is not UTF-8 read as Windows-1252;
    see :func:`~chessformats.books.pgnread.decode_pgn`).
    """
    sources = []
    references: dict[str, tuple[int, int]] = {}
    for number, path in enumerate(paths):
        with open(path, "rb") as handle:
            data = handle.read()
        starts = [match.start() + (1 if data[match.start():match.start() + 1] == b"\n" else 0)
                  for match in _GAME_START.finditer(data)]
        games = []
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else len(data)
            text = decode_pgn(data[start:end], encoding)
            try:
                game = read_game(io.StringIO(text))
            except _PGN_FAILURES:  # python-chess itself fails on this movetext (a ')' with no variation open)
                headers = chess.pgn.read_headers(io.StringIO(text))
                if headers is not None:  # described like a game that cannot be replayed: no references
                    games.append(_game(start, end, headers))
                continue
            if game is None:
                continue
            headers = game.headers
            games.append(_game(start, end, headers))
            try:
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    if ply >= max_ply:
                        break
                    references.setdefault(legal_key(board), (number, len(games) - 1))
                    board.push(move)
                references.setdefault(legal_key(board), (number, len(games) - 1))
            except (ValueError, AssertionError):
                continue
        sources.append(kvetka.KvetkaSource(1, os.path.abspath(os.fspath(path)), tuple(games)))
    return sources, references


def _game(start: int, end: int, headers: chess.pgn.Headers) -> kvetka.KvetkaGame:
    return kvetka.KvetkaGame(start, end - start, headers.get("White", ""), headers.get("Black", ""),
                             _elo(headers.get("WhiteElo")), _elo(headers.get("BlackElo")),
                             _RESULT_CODES.get(headers.get("Result", "*"), _UNKNOWN_RESULT))


def _elo(text: str | None) -> int:
    return int(text) if text is not None and text.isdigit() and int(text) <= _ELO_LIMIT else 0


def make_book(path: str | os.PathLike[str], builder: Any, *, min_games: int = 3, min_score: float = 0.0,
              only: chess.Color | None = None, uniform: bool = False, file_limit: int = kvetka.DEFAULT_FILE_LIMIT,
              sources: Sequence[str | os.PathLike[str]] | None = None, encoding: str | None = None) -> WriteReport:
    """``chessformats build -o NAME.kob``: a Kvetka book from a :class:`~.build.BookBuilder`; returns the report.

    Moves need ``min_games`` games and a score of ``min_score`` for the side that plays them (``only``: one
    side's moves). Kvetka stores results, not weights, so ``uniform`` changes nothing. ``max_move`` in the
    header is the builder's ``max_ply`` (``ALL_PLIES``, 255, when it is larger). With ``sources`` (the PGN files
    the builder read), ``NAME.ksf`` describes them and every position refers to the first game it occurs in;
    ``encoding``: the PGN files' code page (:func:`pgn_sources`; default UTF-8, Windows-1252 for a game that is not).
    """
    stats = filter_stats(builder.to_stats(), min_games=min_games, min_score=min_score, only=only)
    max_move = min(int(getattr(builder, "max_ply", kvetka.ALL_PLIES)), kvetka.ALL_PLIES)
    ksf_sources, references = pgn_sources(sources, max_ply=max_move, encoding=encoding) if sources else (None, None)
    result = write_book(path, stats, max_move=max_move, file_limit=file_limit, sources=ksf_sources,
                        references=references)
    return result
