"""A Polyglot book walked a layer at a time: :func:`.tree.walk`'s positions, in its order, with numpy operations
over every position of a layer (the kernel's legal moves and moves played, Zobrist keys in batch, the entries of
each key found by ``np.searchsorted`` in the book's sorted keys) instead of python-chess calls per position.

:func:`walk_polyglot` gives what :func:`.polyglot.to_bookstats` reads from :func:`.tree.walk`: the positions
walked (breadth first from the start position along the legal book moves, each once; then, from the dead ends,
through one move outside the book to the stored positions not reached, and on), each with its legal entries in
file order. The order is the walk's: a layer's children come in the order of their parents and entries; the
positions found through a free ply in the order of their dead ends, and of python-chess's legal moves (asked of
python-chess where a dead end leads to two or more). The tests compare the two walks on real books.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import chess
import numpy as np

from ..formats.polyglot.batch import entry_queries, keys, move_keys
from ..kernel.batch import Boards, legal_moves, pseudo_en_passant
from ..kernel.boards import from_boards, move_of_code, to_board
from ..kernel.playing import play

if TYPE_CHECKING:
    from ..formats.polyglot.read import PolyglotBook

__all__ = ["Probed", "Walked", "first_places", "identities", "match_legal", "owner_offsets", "walk_polyglot"]

Array = np.ndarray[Any, Any]
U64 = np.uint64


class Probed(NamedTuple):
    """A batch of positions and their legal entries (file order): position ``i``'s are ``offsets[i]:offsets[i+1]``."""

    boards: Boards
    keys: Array
    offsets: Array
    codes: Array
    """The kernel's move code of each legal entry."""
    weights: Array


class Walked(NamedTuple):
    """The positions a walk reached that the book knows, in the walk's order, with their moves as the model keeps
    them (a move entered twice: its first place, its last weight)."""

    boards: Boards
    keys: Array
    offsets: Array
    codes: Array
    weights: Array
    entries: int
    """The entries stored under the walked positions' keys (invalid and ``a1a1`` ones included)."""


def identities(boards: Boards, en_passant: Array | None = None) -> list[bytes]:
    """What tells positions apart as :func:`.tree.position_key` does (en passant by Polyglot's rule, or as
    ``en_passant`` says), one ``bytes`` per position."""
    ready = pseudo_en_passant(boards) if en_passant is None else en_passant
    columns = np.stack([boards.pawns, boards.knights, boards.bishops, boards.rooks, boards.queens, boards.kings,
                        boards.white, boards.turn.astype(U64), boards.castling,
                        np.where(ready, boards.ep_square.astype(U64), U64(64))], axis=1)
    found: list[bytes] = np.ascontiguousarray(columns).view("S80").ravel().tolist()
    return found


def _concat(parts: list[Boards]) -> Boards:
    return Boards._make(np.concatenate(arrays) for arrays in zip(*parts, strict=True))


def _ragged(offsets: Array, index: Array) -> tuple[Array, Array]:
    """The new offsets and the item indices of the rows ``index`` of a ragged array."""
    counts = offsets[index + 1] - offsets[index]
    new = np.zeros(len(index) + 1, dtype=np.int64)
    np.cumsum(counts, out=new[1:])
    items = np.repeat(offsets[index] - new[:-1], counts) + np.arange(int(new[-1]))
    return new, items


def _take(probed: Probed, index: Array) -> Probed:
    offsets, items = _ragged(probed.offsets, index)
    return Probed(probed.boards.take(index), probed.keys[index], offsets, probed.codes[items], probed.weights[items])


class _Book:
    """The book's entries as the walk reads them: sorted keys, file order, the entries a probe skips."""

    def __init__(self, book: PolyglotBook) -> None:
        self.sorted_keys, self.order, self.raw, self.weights = book.columns()
        self.skip: Array = book.invalid_entries | (self.raw == 0)
        self.stored: Array = np.unique(self.sorted_keys)
        self.reached = np.zeros(len(self.stored), dtype=bool)
        """By stored key: a walked position has it."""

    def stored_index(self, position_keys: Array) -> tuple[Array, Array]:
        """Where each key stands in :attr:`stored`, and whether it is there."""
        at = np.minimum(np.searchsorted(self.stored, position_keys), max(len(self.stored) - 1, 0))
        return at, (self.stored[at] == position_keys) if len(self.stored) else np.zeros(len(at), dtype=bool)

    def ranges(self, position_keys: Array) -> tuple[Array, Array]:
        return (np.searchsorted(self.sorted_keys, position_keys, side="left"),
                np.searchsorted(self.sorted_keys, position_keys, side="right"))

    def probe(self, boards: Boards) -> Probed:
        """Each position's legal entries in file order (``PolyglotBook.probe`` with ``minimum_weight=0``)."""
        count = len(boards.turn)
        position_keys = keys(boards)
        lo, hi = self.ranges(position_keys)
        counts = hi - lo
        owner = np.repeat(np.arange(count), counts)
        starts = np.cumsum(counts) - counts
        at = lo[owner] + np.arange(len(owner)) - starts[owner]
        if self.order is not None:  # an unsorted book: each key's entries back in file order
            at = self.order[at]
            order = np.lexsort((at, owner))
            owner, at = owner[order], at[order]
        keep = ~self.skip[at]
        owner, at = owner[keep], at[keep]
        queries = entry_queries(boards, owner, self.raw[at])
        matched, move_codes = match_legal(boards, owner, queries)
        owner, at = owner[matched], at[matched]
        result = owner_offsets(owner, count)
        return Probed(boards, position_keys, result, move_codes, self.weights[at])


def match_legal(boards: Boards, owner: Array, wanted: Array) -> tuple[Array, Array]:
    """Which moves ``wanted`` (:func:`~..formats.polyglot.batch.move_keys`; of the positions ``owner``, ascending)
    are legal in their positions, and the kernel move code of each legal one."""
    holders = np.unique(owner)
    offsets, codes = legal_moves(boards.take(holders)) if len(holders) else (np.zeros(1, np.int64),
                                                                              np.zeros(0, np.uint16))
    legal = (np.repeat(holders, np.diff(offsets)) << 16) | move_keys(codes)
    if not len(legal):
        return np.zeros(len(owner), dtype=bool), codes
    order = np.argsort(legal, kind="stable")
    legal = legal[order]
    key = (owner << 16) | wanted
    where = np.minimum(np.searchsorted(legal, key), len(legal) - 1)
    matched = legal[where] == key
    return matched, codes[order[where[matched]]]


def owner_offsets(owner: Array, count: int) -> Array:
    """The offsets of a ragged array from the (ascending) row of each item."""
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=count), out=offsets[1:])
    return offsets


def _play_entries(probed: Probed) -> tuple[Boards, Array]:
    """Every legal entry played (duplicates too), in order; and the parent of each child."""
    parent = np.repeat(np.arange(len(probed.keys)), np.diff(probed.offsets))
    return play(probed.boards.take(parent), probed.codes), parent


def _new(children: Boards, seen: set[bytes]) -> Array:
    """The children not seen (each once, the first), marked seen."""
    new = []
    for index, identity in enumerate(identities(children)):
        if identity not in seen:
            seen.add(identity)
            new.append(index)
    return np.array(new, dtype=np.int64)


def _beyond(book: _Book, dead: Boards, seen: set[bytes]) -> Probed:
    """The stored positions not reached (keys) one legal move from the dead ends, in the walk's order, each
    once and not ``seen`` (marked seen)."""
    offsets, codes = legal_moves(dead)
    parent = np.repeat(np.arange(len(dead.turn)), np.diff(offsets))
    children = play(dead.take(parent), codes)
    child_keys = keys(children)
    at, stored = book.stored_index(child_keys)
    hopeful = np.flatnonzero(stored & ~book.reached[at])
    probed = book.probe(children.take(hopeful))
    known = np.flatnonzero(np.diff(probed.offsets) > 0)
    chosen, parents = hopeful[known], parent[hopeful[known]]
    # in python-chess's move order where a dead end leads to more than one
    order = np.arange(len(chosen))
    first = np.searchsorted(parents, parents, side="left")
    last = np.searchsorted(parents, parents, side="right")
    for group in np.unique(first[last - first > 1]):
        members = np.arange(group, last[group])
        board = to_board(dead, int(parents[group]))
        rank = {move: number for number, move in enumerate(board.legal_moves)}
        places = [rank[move_of_code(int(codes[chosen[m]]), board)] for m in members]
        order[members] = members[np.argsort(places, kind="stable")]
    known = known[order]
    fresh = _new(children.take(hopeful[known]), seen)
    return _take(probed, known[fresh])


def walk_polyglot(book: PolyglotBook, *, free_plies: int = 1,
                  progress: Callable[[int], None] | None = None) -> Walked:
    """The positions of a Polyglot book reached from the start position, as :func:`.tree.walk` walks them with
    ``free_plies`` 0 or 1 (the moves outside the book a search goes through from a dead end)."""
    if free_plies not in (0, 1):
        raise ValueError("the layered walk goes through at most one free ply")
    source = _Book(book)
    start = from_boards([chess.Board()])
    seen = set(identities(start))
    layer = source.probe(start)
    layer = _take(layer, np.flatnonzero(np.diff(layer.offsets) > 0))
    walked: list[Probed] = []
    count = 0
    while True:
        dead: list[Boards] = []
        while len(layer.keys):
            walked.append(layer)
            at, stored = source.stored_index(layer.keys)
            source.reached[at[stored]] = True
            count += len(layer.keys)
            if progress is not None:
                progress(count)
            children, _ = _play_entries(layer)
            fresh = children.take(_new(children, seen))
            probed = source.probe(fresh)
            found = np.diff(probed.offsets) > 0
            if free_plies:
                dead.append(fresh.take(np.flatnonzero(~found)))
            layer = _take(probed, np.flatnonzero(found))
        if not dead or not sum(len(part.turn) for part in dead):
            break
        layer = _beyond(source, _concat(dead), seen)
    return _walked(source, walked)


def first_places(owner: Array, codes: Array) -> tuple[Array, Array]:
    """A move entered twice for a position: the model's dictionary keeps its first place and its last value. The
    indices of the moves kept (each ``(owner, code)`` pair's first, in order) and of each one's last entry."""
    pair = (owner.astype(np.int64) << 16) | codes.astype(np.int64)
    order = np.lexsort((np.arange(len(pair)), pair))
    ordered = pair[order]
    change = ordered[1:] != ordered[:-1]
    firsts = order[np.r_[True, change]] if len(pair) else order
    lasts = order[np.r_[change, True]] if len(pair) else order
    keep = np.argsort(firsts, kind="stable")
    return firsts[keep], lasts[keep]


def _walked(book: _Book, parts: list[Probed]) -> Walked:
    """The walk's layers as one, each position's moves as the model keeps them."""
    if not parts:
        empty = from_boards([])
        return Walked(empty, np.zeros(0, U64), np.zeros(1, np.int64), np.zeros(0, np.uint16), np.zeros(0, np.int64),
                      0)
    boards = _concat([part.boards for part in parts])
    position_keys = np.concatenate([part.keys for part in parts])
    counts = np.concatenate([np.diff(part.offsets) for part in parts])
    codes = np.concatenate([part.codes for part in parts])
    weights = np.concatenate([part.weights for part in parts])
    owner = np.repeat(np.arange(len(counts)), counts)
    kept, last = first_places(owner, codes)
    weights_of = weights[last]
    owner = owner[kept]
    offsets = owner_offsets(owner, len(counts))
    unique_keys = np.unique(position_keys)
    lo, hi = book.ranges(unique_keys)
    return Walked(boards, position_keys, offsets, codes[kept], weights_of, int((hi - lo).sum()))
