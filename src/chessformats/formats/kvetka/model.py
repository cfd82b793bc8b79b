"""Kvetka elements: one position's key, results, move codes and optional parts (:class:`Element`), ECO comments
(:class:`Opening`) and what a probe finds (:class:`ProbeResult`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import chess

from ...engine import display
from ...engine.codec import codec
from ...engine.derived import derivation
from ...engine.schema import member
from ...schemas import kvetka as schema
from ..normalised import white_pieces
from .key import MOVES, decode_key
from .sources import SourceGame

__all__ = ["Element", "KvetkaMove", "Opening", "ProbeResult", "element_notes", "move_weight", "parse_opening"]

ELEMENT = codec(schema.ELEMENT, stored=("body.key", "body.flags"), enums="checked", records="tuples")
"""An element as read from a block: its key as the 22 stored bytes, its flags as the stored byte, its move codes as
numbers (a code the format does not define is an error)."""
BODY = codec(schema.ELEMENT_BODY, stored=("key", "flags"), enums="checked", records="tuples")
"""The element's body, as :data:`ELEMENT` has it: what :meth:`Element.to_bytes` writes."""
LENGTH = member(schema.ELEMENT, "length")
"""The element's length field (the body's bytes, itself not included): its ``codec_read``/``codec_write``."""
_BODY_DERIVED = derivation(schema.ELEMENT_BODY)
PART_BITS = tuple((str(_BODY_DERIVED.names[bit.part]), bit.mask) for bit in _BODY_DERIVED.bits)
"""Each optional part of the body and its bit of ``flags`` (the bits the encoder derives from the parts present)."""
_ONE_BYTE = tuple(bytes((size,)) for size in range(schema.COMPACT_INT_MORE))
"""The length fields of one byte (a CompactInt below 128)."""
_BUILD = {keeps: BODY.parameters(building=True, keeps_games=keeps) for keeps in (False, True)}
_ENCODE_BODY = _BODY_DERIVED.encoder(BODY.encode)
""":data:`BODY`'s encode with ``move_number`` and the parts' flag bits derived from the value
(:mod:`~chessformats.engine.derived`): the game parts and their bits go together when the book keeps games, else
those bits are written as given."""
_ECO = re.compile(r"([A-E][0-9]{2})\|([^|]*)(?:\|(.*))?", re.DOTALL)


class Opening(NamedTuple):
    """An ECO comment ``E98|name|variation`` (``variation`` is ``None`` when the comment has no second bar)."""

    code: str
    name: str
    variation: str | None = None

    def comment(self) -> str:
        return f"{self.code}|{self.name}" + (f"|{self.variation}" if self.variation is not None else "")


def parse_opening(comment: str | None) -> Opening | None:
    """The ECO code, name and variation of a comment that has the spec's shape, else ``None``."""
    if comment is None:
        return None
    found = _ECO.fullmatch(comment)
    if found is None:
        return None
    return Opening(found.group(1), found.group(2), found.group(3))


@dataclass(frozen=True)
class Element:
    """One element as stored: the key, the side to move's results, the move codes and the optional parts."""

    key: bytes
    wins: int = 0
    draws: int = 0
    losses: int = 0
    codes: tuple[int, ...] = ()
    flags: int = 0
    """Flag bits not represented by the fields below (bits of future parts; bits 1-2 of a book whose
    element_type ignores them); the comment, reference and links bits follow the fields."""
    source: tuple[int, int] | None = None
    """``(source_number, game_in_source)``: a game of the ``.ksf`` with this position."""
    comment: str | None = None
    game_links: bytes | None = None
    """The raw "games for which this is the last stored position" part (the spec gives no format)."""
    extra: bytes = b""
    """Bytes of flag bits the spec does not define yet, kept."""
    offset: int | None = field(default=None, compare=False)
    """Offset in the ``.kob`` stream (header of ``_0.kob`` included), when read from a book."""
    block: int | None = field(default=None, compare=False)

    def _repr_html_(self) -> str | None:
        """In a notebook: the element's bytes (:meth:`to_bytes`), annotated field by field."""
        return display.repr_html(self)

    @property
    def opening(self) -> Opening | None:
        return parse_opening(self.comment)

    def board(self) -> chess.Board:
        """The normalised board of the key (white to move)."""
        return decode_key(self.key)[0]

    def stored_moves(self, board: chess.Board | None = None) -> list[chess.Move | None]:
        """The move of each code on the normalised board (``board``: the key's, when already decoded);
        ``None`` for a code whose piece is not on the board."""
        own = white_pieces(self.board() if board is None else board)
        moves: list[chess.Move | None] = []
        for code in self.codes:
            decoded = MOVES.decode(code, own)
            moves.append(None if decoded is None else chess.Move(*decoded))
        return moves

    def moves(self) -> list[chess.Move]:
        """The moves of the codes on the normalised board (codes whose piece is missing are left out)."""
        return [move for move in self.stored_moves() if move is not None]

    def to_bytes(self, keeps_games: bool = True) -> bytes:
        """The element as stored, length field included; its flags follow the parts present.

        Flag bits of the parts come from the parts; other bits (future ones, or the game bits of a book whose
        element_type ignores them) are written as they are in ``flags``.
        """
        body = _ENCODE_BODY((self.key, self.wins, self.draws, self.losses, None, self.codes, self.flags, self.source,
                             self.comment, self.game_links, self.extra), _BUILD[bool(keeps_games)])
        size = len(body)
        return (_ONE_BYTE[size] if size < len(_ONE_BYTE) else bytes(LENGTH.codec_write(size))) + body


def element_notes(prefix: str, element: Element) -> dict[str, str]:
    """The chess meaning of an element's fields, by their paths under ``prefix`` (the hex views show them): the
    key's position as a FEN, each move code as its move, the comment's ECO code and opening."""
    board = element.board()
    notes = {f"{prefix}.body.key": f"{board.fen()} (normalised: white to move)"}
    for number, move in enumerate(element.stored_moves(board)):
        if move is not None:
            notes[f"{prefix}.body.moves[{number}]"] = move.uci() + (f" ({board.san(move)})"
                                                                   if board.is_legal(move) else "")
    if element.opening is not None:
        opening = element.opening
        notes[f"{prefix}.body.comment"] = f"ECO {opening.code}: {opening.name}" + (
            f", {opening.variation}" if opening.variation else "")
    return notes


def fit(element: Element, keeps_games: bool) -> tuple[Element, bytes]:
    """The element truncated as the spec says (comment <= 300 characters, element <= 682 bytes), and its bytes.

    The game-links part is dropped first (the spec: fewer games until the element fits), then the comment
    is shortened further.
    """
    if element.comment is not None and len(element.comment) > schema.MAX_COMMENT:
        element = replace(element, comment=element.comment[:schema.MAX_COMMENT])
    data = element.to_bytes(keeps_games)
    if len(data) > schema.MAX_ELEMENT and element.game_links is not None:
        element = replace(element, game_links=None)
        data = element.to_bytes(keeps_games)
    while len(data) > schema.MAX_ELEMENT and element.comment:
        over = len(data) - schema.MAX_ELEMENT
        element = replace(element, comment=element.comment[:max(len(element.comment) - (over + 1) // 2, 0)])
        data = element.to_bytes(keeps_games)
    if len(data) > schema.MAX_ELEMENT:
        raise ValueError(f"an element of {len(data)} bytes cannot be shortened to {schema.MAX_ELEMENT}")
    return element, data


class KvetkaMove(NamedTuple):
    """A book move of a probed position."""

    move: chess.Move
    """The move, as a move of the probed board (of the stored normalised board when probed by key)."""
    code: int
    """The move code as stored."""
    weight: int | None = None
    """The Polyglot weight of the move, ``2 * wins + draws`` of the side that plays it (the results stored for
    the position it leads to; 1 when that position is not stored); given by
    :meth:`~chessformats.kvetka.KvetkaBook.find_all` and the choices, ``None`` in probes (it takes a lookup)."""


@dataclass(frozen=True)
class ProbeResult:
    """What the book knows about a position: its moves and the side to move's results."""

    board: chess.Board
    moves: tuple[KvetkaMove, ...]
    """The book moves in stored order, as moves of ``board``."""
    wins: int
    draws: int
    losses: int
    comment: str | None
    opening: Opening | None
    source: SourceGame | None
    """The game the element refers to, resolved through the ``.ksf`` (``None``: none or no ``.ksf``)."""
    element: Element
    flipped: bool
    mirrored: bool

    def _repr_html_(self) -> str | None:
        """In a notebook: the board beside the moves and results, and the element's annotated bytes."""
        return display.repr_html(self)

    def _repr_svg_(self) -> str | None:
        """The board with the book moves as arrows."""
        return display.repr_svg(self)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def key(self) -> bytes:
        """The book's key of the position (:meth:`KvetkaBook.key`), as stored."""
        return self.element.key


def move_weight(child: ProbeResult | None) -> int:
    """A move's weight: ``2 * wins + draws`` of the side that plays it (the losses and draws stored for the position
    it leads to, ``child``); 1 when that position is not stored, as CTG's rule."""
    return 1 if child is None else 2 * child.losses + child.draws
