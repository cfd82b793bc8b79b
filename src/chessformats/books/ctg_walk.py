"""A CTG book walked a layer at a time, and the Polyglot book of it: the bytes :func:`.polyglot.from_bookstats`
writes for the model :func:`.ctg.to_bookstats` makes of the same book, with numpy operations over every position
of a layer (:mod:`chessformats.formats.ctg.batch`: positions encoded and hashed in batch, records read at their
offsets, their move codes decoded) instead of a python-chess probe per position.

The walk is :func:`.tree.walk`'s with one free ply and the CTG sieve (:func:`.ctg.occupancy_sieve`), in its
order: breadth first from the start position along the legal book moves; then, from the dead ends (a position
not stored, or stored without a legal move, however it was reached), through the moves outside the book whose
squares after the move are those of a record not reached with that side to move (a record stands for a position
and its colour-reversed twin; castling and en-passant captures always), to the
stored positions, in the order of their dead ends and of python-chess's legal moves. A record that a probe
would reject (a code that is not a move, a piece that is not there) is probed by
:meth:`~chessformats.ctg.CtgBook.probe`, which raises its error.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import chess
import numpy as np

from ..engine.contract import WriteReport
from ..engine.errors import InvalidValueError
from ..formats.ctg.batch import (
    decode_moves,
    encode_boards,
    flip_horizontal,
    flip_vertical,
    hashes,
    legal_en_passant,
    occupancies,
)
from ..formats.ctg.model import _HALVED, _RED, _WEIGHT_FACTORS, _ZERO_WEIGHT, MOVE_SIZE, MOVES_LENGTH_SIZE, STATS
from ..formats.ctg.position import LENGTH_OF
from ..formats.polyglot.batch import keys, raw_moves
from ..kernel.batch import KING_CASTLE, ORIGIN_SHIFT, QUEEN_CASTLE, TARGET_SHIFT, Boards, legal_moves
from ..kernel.boards import from_boards, move_of_code, to_board
from ..kernel.lookup import SQUARE_BB
from ..kernel.playing import play
from .layers import _concat, _new, _ragged, first_places, identities, match_legal, owner_offsets

if TYPE_CHECKING:
    from ..formats.ctg.read import CtgBook

__all__ = ["Walked", "walk_ctg", "write_polyglot"]

Array = np.ndarray[Any, Any]
U64 = np.uint64
_WEIGHT_LIMIT = 0xFFFF


class _Probed(NamedTuple):
    """A batch of positions, each one's record (its offset, -1: none; its encoded position) and legal moves in
    stored order (kernel move codes, annotations): position ``i``'s are ``offsets[i]:offsets[i + 1]``."""

    boards: Boards
    records: Array
    signatures: list[bytes]
    offsets: Array
    codes: Array
    annotations: Array


class Walked(NamedTuple):
    """The positions a CTG walk reached that the book stores, in the walk's order, their legal moves in stored
    order with each move's annotation and the record of the position it leads to (-1: none)."""

    boards: Boards
    offsets: Array
    codes: Array
    annotations: Array
    children: Array
    reached: int
    """The records walked (a record stands for a position and its colour-reversed twin)."""


def _take(probed: _Probed, index: Array) -> _Probed:
    offsets, items = _ragged(probed.offsets, index)
    return _Probed(probed.boards.take(index), probed.records[index], [probed.signatures[i] for i in index.tolist()],
                   offsets, probed.codes[items], probed.annotations[items])


class _Stored(NamedTuple):
    number_of: dict[bytes, int]
    occupied: Array
    readable: Array
    reached: Array
    """Whether a walk reached each record, by side to move (column ``chess.WHITE``: the position as stored, column
    ``chess.BLACK``: its colour-reversed twin)."""


class _Book:
    """A CTG book as the walk reads it: records located by their encoded positions, read at their offsets."""

    def __init__(self, book: CtgBook) -> None:
        self.book = book
        self.data: Array = np.frombuffer(book.buffer, dtype=np.uint8)
        self.pages_of: dict[int, list[int]] = {}
        self.length_of = np.frombuffer(LENGTH_OF, dtype=np.uint8).astype(np.int64)
        self.stats_at = {name: int(STATS.field(name).offset or 0) for name in ("games", "wins", "losses", "draws",
                                                                               "recommendation")}

    @functools.cached_property
    def stored(self) -> _Stored:
        """Every stored position once (by its encoded position), its occupied squares, whether a walk reached it
        (each side to move)."""
        signatures = list(dict.fromkeys(self.book.signatures()))
        offsets = np.zeros(len(signatures) + 1, dtype=np.int64)
        np.cumsum([len(signature) for signature in signatures], out=offsets[1:])
        occupied, readable = occupancies(np.frombuffer(b"".join(signatures), dtype=np.uint8), offsets)
        return _Stored({signature: number for number, signature in enumerate(signatures)}, occupied, readable,
                       np.zeros((len(signatures), 2), dtype=bool))

    @functools.cached_property
    def orientations(self) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
        """The occupied squares of every record as a position with black to move (colours flipped, files mirrored
        or not) and with white to move (as stored, or mirrored), each sorted, with the record's number."""
        stored = self.stored
        numbers = np.tile(np.arange(len(stored.occupied)), 2)
        found = []
        for occupied in (flip_vertical(stored.occupied), stored.occupied):
            values = np.concatenate([occupied, flip_horizontal(occupied)])
            order = np.argsort(values, kind="stable")
            found.append((values[order], numbers[order]))
        return found[0], found[1]

    def _pages(self, hash_value: int) -> list[int] | None:
        """The pages the ``.cto`` lookup reads for a hash (``None``: one is out of range; the probe says so)."""
        pages = self.pages_of.get(hash_value)
        if pages is None:
            try:
                pages = list(self.book.lookup_pages(hash_value))
            except InvalidValueError:
                return None
            self.pages_of[hash_value] = pages
        return pages

    def locate(self, signatures: list[bytes], hash_values: Array) -> Array:
        """The offset of each encoded position's record, -1 where the book has none."""
        book = self.book
        found = np.full(len(signatures), -1, dtype=np.int64)
        for index, (signature, hash_value) in enumerate(zip(signatures, hash_values.tolist(), strict=True)):
            offset = book.record_offset(signature, self._pages(hash_value) if book.directory is not None else None)
            if offset is not None:
                found[index] = offset
        return found

    def probe(self, boards: Boards) -> _Probed:
        """Each position's record and its legal moves in stored order (:meth:`CtgBook.probe`)."""
        encoded = encode_boards(boards, legal_en_passant(boards))
        signatures = encoded.signatures()
        records = self.locate(signatures, hashes(encoded))
        holders = np.flatnonzero(records >= 0)
        at = records[holders] + self.length_of[self.data[records[holders]]]
        counts = (self.data[at].astype(np.int64) - MOVES_LENGTH_SIZE) // MOVE_SIZE
        owner = np.repeat(holders, counts)
        starts = np.cumsum(counts) - counts
        place = (np.repeat(at - starts * MOVE_SIZE, counts) + MOVES_LENGTH_SIZE
                 + MOVE_SIZE * np.arange(int(counts.sum())))
        ctg_codes, annotations = self.data[place], self.data[place + 1]
        wanted, found = decode_moves(boards, owner, ctg_codes, encoded)
        if not found.all():  # a code that is no move, or a piece that is not there: the probe's error
            self.book.probe(to_board(boards, int(owner[np.argmin(found)])))
            raise AssertionError("the probe of a record with a bad move code did not raise")  # pragma: no cover
        matched, codes = match_legal(boards, owner, wanted)
        return _Probed(boards, records, signatures, owner_offsets(owner[matched], len(records)), codes,
                       annotations[matched].astype(np.int64))

    def field(self, records: Array, name: str, size: int = 3) -> Array:
        """A statistics field (big-endian) of the records at ``records``."""
        at = records + self.length_of[self.data[records]]
        at = at + self.data[at] + self.stats_at[name]
        value = np.zeros(len(records), dtype=np.int64)
        for byte in range(size):
            value = value << 8 | self.data[at + byte]
        return value

    def weights(self, children: Array, annotations: Array) -> Array:
        """:func:`chessformats.ctg.polyglot_weight` of moves by annotation and the record they lead to (-1:
        none)."""
        stored = children >= 0
        records = np.where(stored, children, 0)
        games, wins, losses, draws = (self.field(records, name) for name in ("games", "wins", "losses", "draws"))
        red = (self.field(records, "recommendation", 1) & _RED) != 0
        weight = 2 * losses + draws + np.maximum(games - wins - draws - losses, 0)
        for annotation, factor in _WEIGHT_FACTORS.items():
            weight = np.where(annotations == annotation, weight * factor, weight)
        weight = np.where(annotations == _HALVED, np.where(weight != 0, np.maximum(weight // 2, 1), 0), weight)
        weight = np.where(red, 0, weight)
        weight = np.where(stored, weight, 1)
        found: Array = np.where(np.isin(annotations, _ZERO_WEIGHT), 0, weight)
        return found


def walk_ctg(book: CtgBook, *, progress: Callable[[int], None] | None = None) -> Walked:
    """The positions of a CTG book reached from the start position, as :func:`.ctg.to_bookstats` walks them (one
    free ply)."""
    source = _Book(book)
    start = from_boards([chess.Board()])
    seen = set(identities(start))
    probed_of: dict[bytes, int] = {}  # what each position's probe found (a record's offset, -1: none)
    layer = source.probe(start)
    layer = _take(layer, np.flatnonzero(layer.records >= 0))
    parts: list[tuple[_Probed, Array]] = []
    reached: set[bytes] = set()
    count = 0
    carried: list[Boards] = []  # the positions a free ply found that have no legal move: dead ends too
    while True:
        dead, carried = carried, []
        while len(layer.records):
            parent = np.repeat(np.arange(len(layer.records)), np.diff(layer.offsets))
            children = play(layer.boards.take(parent), layer.codes)
            names = identities(children)
            unknown: list[int] = []
            for index, name in enumerate(names):
                if name not in probed_of:
                    probed_of[name] = -2  # probed below
                    unknown.append(index)
            probed = source.probe(children.take(np.array(unknown, dtype=np.int64)))
            for name, record in zip([names[i] for i in unknown], probed.records.tolist(), strict=True):
                probed_of[name] = record
            parts.append((layer, np.array([probed_of[name] for name in names], dtype=np.int64)))
            reached.update(layer.signatures)
            numbers = [source.stored.number_of[signature] for signature in layer.signatures]
            source.stored.reached[numbers, layer.boards.turn.astype(np.int64)] = True
            count += len(layer.records)
            if progress is not None:
                progress(count)
            fresh = []
            for place, index in enumerate(unknown):
                if names[index] not in seen:
                    seen.add(names[index])
                    fresh.append(place)
            fresh_index = np.array(fresh, dtype=np.int64)
            stored = probed.records[fresh_index] >= 0
            empty = np.diff(probed.offsets)[fresh_index] == 0
            dead.append(probed.boards.take(fresh_index[~stored | empty]))
            layer = _take(probed, fresh_index[stored])
        if not sum(len(part.turn) for part in dead):
            break
        layer = _beyond(source, _concat(dead), seen)
        carried.append(layer.boards.take(np.flatnonzero(np.diff(layer.offsets) == 0)))
    return _walked(parts, len(reached))


def _beyond(source: _Book, dead: Boards, seen: set[bytes]) -> _Probed:
    """The stored positions one legal move from the dead ends that the sieve keeps (the squares after the move
    are those of a record not reached with the side to move after it; castling and en passant always), in the
    walk's order, each once and not ``seen`` (marked seen)."""
    at, codes = legal_moves(dead)
    parent = np.repeat(np.arange(len(dead.turn)), np.diff(at))
    targets = _sieve_targets(source)
    hopeful = np.arange(len(codes))
    if targets is not None:
        codes64 = codes.astype(np.int64)
        origin, target, flag = codes64 >> ORIGIN_SHIFT & 63, codes64 >> TARGET_SHIFT & 63, codes64 & 15
        moved = SQUARE_BB[origin]
        pawn = (dead.pawns[parent] & moved) != 0
        ep = dead.ep_square[parent].astype(np.int64)
        occupied = (dead.white | dead.black)[parent]
        after = (occupied & ~moved) | SQUARE_BB[target]
        white_next = ~dead.turn[parent]
        kept = (((flag == KING_CASTLE) | (flag == QUEEN_CASTLE)) | (pawn & (ep != 0) & (target == ep))
                | np.where(white_next, _among(after, targets[chess.WHITE]), _among(after, targets[chess.BLACK])))
        hopeful = np.flatnonzero(kept)
    children = play(dead.take(parent[hopeful]), codes[hopeful])
    encoded = encode_boards(children, legal_en_passant(children))
    stored = source.locate(encoded.signatures(), hashes(encoded)) >= 0
    chosen = hopeful[stored]
    parents = parent[chosen]
    order = np.arange(len(chosen))
    first = np.searchsorted(parents, parents, side="left")
    last = np.searchsorted(parents, parents, side="right")
    for group in np.unique(first[last - first > 1]):  # python-chess's move order where a dead end has several
        members = np.arange(group, last[group])
        board = to_board(dead, int(parents[group]))
        rank = {move: number for number, move in enumerate(board.legal_moves)}
        places = [rank[move_of_code(int(codes[chosen[m]]), board)] for m in members]
        order[members] = members[np.argsort(places, kind="stable")]
    known = np.flatnonzero(stored)[order]
    fresh = _new(children.take(known), seen)
    return source.probe(children.take(known[fresh]))


def _sieve_targets(source: _Book) -> tuple[Array, Array] | None:
    """The occupied squares of the records not reached, by side to move (indexed by ``chess.BLACK`` and
    ``chess.WHITE``), sorted: with white to move as stored or mirrored, with black to move flipped (mirrored or
    not), as :func:`.tree.occupancy_sieve` (``None``: a record's squares cannot be read: no sieve)."""
    stored = source.stored
    if not stored.readable[~stored.reached.all(axis=1)].all():
        return None
    black, white = (values[~stored.reached[numbers, turn]]
                    for turn, (values, numbers) in enumerate(source.orientations))
    return black, white


def _among(values: Array, targets: Array) -> Array:
    """Whether each of ``values`` is one of ``targets`` (sorted)."""
    if not len(targets):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(targets, values), len(targets) - 1)
    found: Array = targets[at] == values
    return found


def _walked(parts: list[tuple[_Probed, Array]], reached: int) -> Walked:
    if not parts:
        return Walked(from_boards([]), np.zeros(1, np.int64), np.zeros(0, np.uint16), np.zeros(0, np.int64),
                      np.zeros(0, np.int64), reached)
    counts = np.concatenate([np.diff(part.offsets) for part, _ in parts])
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return Walked(_concat([part.boards for part, _ in parts]), offsets,
                  np.concatenate([part.codes for part, _ in parts]),
                  np.concatenate([part.annotations for part, _ in parts]),
                  np.concatenate([children for _, children in parts]), reached)


def polyglot_rows(book: CtgBook, walked: Walked) -> list[tuple[int, int, int, int]]:
    """The Polyglot entries of a walked CTG book, as :func:`.polyglot.from_bookstats` makes them from its model:
    each position's moves (a move stored twice: its first place, its last weight) by descending weight, weights
    scaled down together when one passes 65535."""
    source = _Book(book)
    count = len(walked.offsets) - 1
    owner = np.repeat(np.arange(count), np.diff(walked.offsets))
    weights = source.weights(walked.children, walked.annotations)
    firsts, lasts = first_places(owner, walked.codes)
    kept_weights = weights[lasts]
    owner, codes = owner[firsts], walked.codes[firsts]
    largest = int(kept_weights.max(initial=0))
    if largest > _WEIGHT_LIMIT:
        kept_weights = np.where(kept_weights != 0, np.maximum(kept_weights * _WEIGHT_LIMIT // largest, 1), 0)
    rows = np.lexsort((firsts, -kept_weights, owner))  # a position's moves by descending weight, ties in order
    position_keys = keys(walked.boards)
    return list(zip(position_keys[owner[rows]].tolist(), raw_moves(codes[rows]).tolist(),
                    kept_weights[rows].tolist(), [0] * len(rows), strict=True))


def write_polyglot(path: str | os.PathLike[str], book: CtgBook, walked: Walked) -> WriteReport:
    """A Polyglot book from a walked CTG book (:func:`.polyglot.from_bookstats` of its model, the same bytes)."""
    from ..formats.polyglot.write import write_book

    report = write_book(path, polyglot_rows(book, walked))
    report.counts["positions"] = len(walked.offsets) - 1
    return report
