"""The tree of positions of a book, across formats: walking it from a position along the book moves, the
position key of the format-neutral model, and choosing the moves a built book keeps.

The book formats' conversions (:mod:`.convert`) and their readers' ``to_bookstats`` (:mod:`.ctg`,
:mod:`.kvetka`) walk a book the same way: breadth first from the start position along the book moves that
are legal, each position probed once.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import chess

from .positions import pack, unpack, xfen
from .stats import BookStats, PositionStats

if TYPE_CHECKING:
    from ..engine.contract import OpeningBook

__all__ = ["Sieve", "add_position", "fen_key", "filter_stats", "legal_key", "occupancy_sieve", "position_key",
           "position_stats", "walk"]



def fen_key(board: chess.Board) -> str:
    """A position without move counters (the BookStats key), its en-passant square kept by Polyglot's rule:
    whenever a pawn of the side to move stands beside the pawn that just made a double step, whether or not
    the capture is legal (X-FEN's rule, ``board.has_pseudo_legal_en_passant()``). Polyglot's and Kvetka's keys
    tell such positions apart (a pinned pawn's capture still changes the key), so the model does too; CTG,
    which keeps the file only for a legal capture, merges them again when it writes
    (:func:`.ctg.records_from_stats`)."""
    return xfen(board).rsplit(" ", 2)[0]


def legal_key(board: chess.Board) -> str:
    """A position without move counters, en passant only when a capture is legal (the position as the rules
    of chess and CTG see it; python-chess's default FEN)."""
    return board.fen(en_passant="legal").rsplit(" ", 2)[0]


def position_stats(board: chess.Board) -> PositionStats:
    """An empty entry of the model for ``board`` (its FEN keeps the en-passant square as :func:`fen_key`)."""
    return PositionStats(xfen(board), packed=pack(board))


def add_position(stats: BookStats, board: chess.Board) -> PositionStats:
    """The model's entry for ``board``, made empty if it has none (one FEN made, not two). The board is kept
    packed (:attr:`.PositionStats.packed`: 86 bytes; a ``chess.Board`` costs a kilobyte)."""
    fen = xfen(board)
    key = fen.rsplit(" ", 2)[0]
    position = stats.positions.get(key)
    if position is None:
        position = stats.positions[key] = PositionStats(fen, packed=pack(board))
    return position


def position_key(board: chess.Board, *, legal: bool = False) -> tuple[int, ...]:
    """What tells positions apart as :func:`fen_key` does (``legal``: as :func:`legal_key`), as a tuple of the
    board's bitboards: cheap to make (a FEN costs 60 times more), for sets and dictionaries that no one reads."""
    ep = board.ep_square
    if ep is not None and not (board.has_legal_en_passant() if legal else board.has_pseudo_legal_en_passant()):
        ep = None
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.turn, board.clean_castling_rights(), -1 if ep is None else ep)


Sieve = Callable[[chess.Board, list[chess.Move]], list[chess.Move]]
"""A cheap test of moves outside the book: of the legal moves of a board, those that may lead to a known
position the walk has not reached (a move left out surely does not; see :func:`walk`)."""


def occupancy_sieve(white: Iterable[chess.Bitboard], black: Iterable[chess.Bitboard]) -> Sieve:
    """A :data:`Sieve` for books that store positions normalised (CTG, Kvetka: a stored position stands for a
    position with white to move and for its colour-reversed twin, black to move): the moves after which the
    occupied squares are those of one of ``white`` (of normalised boards, to be reached with white to move:
    as stored, or with files mirrored) or of ``black`` (to be reached with black to move: with colours
    flipped, files mirrored or not), by the side to move after the move. Castling and en-passant captures are
    always kept (more squares change than the move's two)."""
    targets: dict[chess.Color, set[int]] = {chess.WHITE: set(), chess.BLACK: set()}
    for stored in white:
        targets[chess.WHITE].update((stored, chess.flip_horizontal(stored)))
    for stored in black:
        occupied = chess.flip_vertical(stored)
        targets[chess.BLACK].update((occupied, chess.flip_horizontal(occupied)))

    def test(board: chess.Board, moves: list[chess.Move]) -> list[chess.Move]:
        kings, pawns, occupied, ep = board.kings, board.pawns, board.occupied, board.ep_square
        after_targets = targets[not board.turn]
        hopeful = []
        for move in moves:
            moved = chess.BB_SQUARES[move.from_square]
            if ((moved & kings and board.is_castling(move)) or (moved & pawns and move.to_square == ep)
                    or (occupied & ~moved) | chess.BB_SQUARES[move.to_square] in after_targets):
                hopeful.append(move)
        return hopeful

    return test


def walk(book: OpeningBook, start: chess.Board | None = None, *, free_plies: int = 0,
         progress: Callable[[int], None] | None = None,
         sieve: Callable[[], Sieve | None] | None = None) -> Iterator[tuple[chess.Board, Any, dict[chess.Move, Any]]]:
    """Breadth first from ``start`` (default: the start position) along the book moves: every position the
    book knows, as ``(board, what book.probe found, what it finds for the position each move leads to)``.

    ``free_plies``: where a book move leads to a position the book does not know or gives no move for (the
    opponent's reply in a one-sided repertoire), the search goes on through up to that many moves outside the
    book, and every known position it meets is walked from too (``board in book`` for each). These searches
    start once the book moves are walked (then again from the dead ends of what they found), so that
    ``sieve``, called then (each time), can return a test that spares most of the ``in`` tests:
    ``sieve()(board, moves)`` keeps the moves that may lead to a known position not yet reached (say, by the
    squares occupied by the stored positions not reached, or by their keys); a position already reached is
    then not walked again through a free ply (where a format stores a position and its colour-reversed twin as
    one, the sieve tells reached apart by side to move, so that the twin is still looked for). ``None``: every
    move is tested.

    A position found so that has no legal book move (CTG and Kvetka store the positions the book moves lead to)
    is a dead end too: the search goes on from it.

    ``book`` keeps the contract (:class:`~chessformats.contract.OpeningBook`): its probe answers a position whose
    ``moves`` are legal moves of the board, or ``None``. Each position is probed once. ``progress(positions)`` is
    called every 1,024 positions walked.
    """
    probe = book.probe
    first = (start or chess.Board()).copy(stack=False)
    queue = collections.deque([first])
    seen = {position_key(first)}
    found: dict[tuple[int, ...], Any] = {}
    dead_ends: list[bytes] = []  # packed (a board costs a kilobyte)
    test: Sieve | None = None

    def lookup(board: chess.Board) -> Any:
        key = position_key(board)
        if key not in found:
            found[key] = probe(board)
        return found[key]

    def beyond(board: chess.Board) -> Iterator[chess.Board]:
        """The known positions reached from ``board`` (not known) through up to ``free_plies`` moves."""
        frontier = [board]
        for depth in range(free_plies, 0, -1):
            deeper = []
            for position in frontier:  # each move pushed and popped on one board: a copy only for what is kept
                moves = list(position.legal_moves)
                hopeful = moves if test is None else test(position, moves)
                if depth == 1:
                    moves = hopeful
                for move in moves:
                    position.push(move)
                    if (moves is hopeful or move in hopeful) and position in book:
                        yield position.copy(stack=False)
                    elif depth > 1:
                        deeper.append(position.copy(stack=False))
                    position.pop()
            frontier = deeper

    walked = 0
    while True:
        while queue:
            board = queue.popleft()
            here = lookup(board)
            if here is None:
                continue
            children: dict[chess.Move, Any] = {}
            for move in (book_move.move for book_move in here.moves):
                child = board.copy(stack=False)
                child.push(move)
                children[move] = lookup(child)
                key = position_key(child)
                if key not in seen:
                    seen.add(key)
                    if children[move] is not None:
                        queue.append(child)
                    if free_plies and (children[move] is None or not children[move].moves):  # a dead end
                        dead_ends.append(pack(child))
            walked += 1
            if progress is not None and walked % 1024 == 0:
                progress(walked)
            yield board, here, children
        if not dead_ends:
            return
        if sieve is not None:
            test = sieve()
        searched, dead_ends = dead_ends, []
        for packed in searched:  # search on from the dead ends
            for known in beyond(unpack(packed)):
                known_key = position_key(known)
                if known_key not in seen:
                    seen.add(known_key)
                    queue.append(known)
                    if not lookup(known).moves:  # stored without a legal move (a CTG leaf): a dead end too
                        dead_ends.append(pack(known))


def filter_stats(stats: BookStats, *, min_games: int = 1, min_score: float = 0.0,
                 only: chess.Color | None = None) -> BookStats:
    """The moves with at least ``min_games`` games, a score ``(wins + draws / 2) / games`` of at least
    ``min_score`` for the side that plays them, and (``only``) of one side."""
    kept = BookStats(games=stats.games)
    for position in stats:
        turn = chess.WHITE if position.fen.split()[1] == "w" else chess.BLACK
        if only is not None and turn != only:
            continue
        moves = {move: s for move, s in position.moves.items()
                 if s.games >= min_games and s.games > 0 and (s.wins + s.draws / 2) / s.games >= min_score}
        if moves:
            kept.positions[fen_key(position.board())] = PositionStats(position.fen, moves, packed=position.packed)
    return kept
