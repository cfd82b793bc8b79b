"""Kvetka opening books: probing, iterating, writing, and conversion to and from Polyglot and CTG.

>>> import chess
>>> from chessformats import kvetka
>>> with kvetka.open_book("mybook") as book:            # doctest: +SKIP
...     entry = book.probe(chess.Board())
...     print(entry.moves, entry.wins, entry.draws, entry.losses, entry.opening)

The byte layout lives in :mod:`chessformats.schemas.kvetka` (square codes in
:mod:`chessformats.schemas.squares`); this module adds the chess meaning: the normalised position
(colours flipped for black to move, files mirrored when nobody can castle and the white king stands on
files a-d), the 22-byte key, the move codes, the ``.kin`` lookup and the ``.ksf`` sources. The fast
paths (key encoding, element reading) are derived from the declarations; the tests compare them with
construct's own parse and with vectors worked out by hand from the spec.
"""

from __future__ import annotations

import bisect
import collections
import io
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any, NamedTuple

import chess
import chess.pgn

from ..books.stats import BookStats, MoveStats, PositionStats
from ..engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from ..engine.fileio import atomic_write, map_file
from ..engine.layout import bit_fields
from ..engine.trace import parse
from ..schemas import kvetka as schema
from ..schemas.squares import CASTLING, SQUARE_CODE, SQUARE_NAMES

__all__ = [
    "DEFAULT_FILE_LIMIT",
    "Element",
    "KeyOverflowError",
    "KvetkaBook",
    "KvetkaGame",
    "KvetkaSource",
    "Opening",
    "ProbeResult",
    "SourceGame",
    "WriteResult",
    "book_files",
    "convert",
    "decode_key",
    "decode_move",
    "elements_from_stats",
    "encode_move",
    "filter_stats",
    "ksf_bytes",
    "make_book",
    "open_book",
    "parse_opening",
    "pgn_sources",
    "position_key",
    "write_book",
]

BLOCK_SIZE = schema.BLOCK_SIZE
KEY_SIZE = schema.KEY_SIZE
DEFAULT_FILE_LIMIT = 20 * 1024 * 1024
"""The spec's ".kob files are split once one passes 20 MB" (read as 20 MiB)."""

# --- tables derived from the declarations -------------------------------------------------------------

_USED_SIZE = schema.BLOCK.subcons[0].sizeof()  # the block's n field
_BLOCK_ROOM = BLOCK_SIZE - _USED_SIZE
_FLAGS = bit_fields(schema.ELEMENT_FLAGS)
_COMMENT_FLAG = 1 << _FLAGS["comment"].shift
_LINKS_FLAG = 1 << _FLAGS["game_links"].shift
_REFERENCE_FLAG = 1 << _FLAGS["game_reference"].shift
_KNOWN_FLAGS = _COMMENT_FLAG | _LINKS_FLAG | _REFERENCE_FLAG
_KEEPS_GAMES = 1 << bit_fields(schema.ELEMENT_TYPE)["game_links"].shift
_SOURCE_REF_SIZE = schema.SOURCE_REF.sizeof()
_SOURCE_NUMBER_SIZE = schema.SOURCE_REF.subcons[0].sizeof()
_STRING_LENGTH_SIZE = 4  # the length field of Text
_HEADER_BEFORE_CAPTION = schema.HEADER.subcons[0].sizeof()
_HEADER_AFTER_CAPTION = sum(sub.sizeof() for sub in schema.HEADER.subcons[2:])
_SUPPORTED_TYPE = next(value for value, (name, _) in schema.BOOK_TYPE.meanings.items() if name == "book")
_KEY_BITS = 8 * KEY_SIZE
_EP_BITS = 4
_CASTLING_NAMES = tuple(sub.name for sub in CASTLING.subcons)  # stream order
_CASTLING_BITS = len(_CASTLING_NAMES)
_CORNERS = {"black_short": chess.H8, "black_long": chess.A8, "white_short": chess.H1, "white_long": chess.A1}
_CODING_ORDER = tuple(chess.parse_square(name) for name in SQUARE_NAMES)
_SYMBOL_OF_PIECE = {(color, piece_type): f"{'white' if color else 'black'}_{chess.piece_name(piece_type)}"
                    for color in chess.COLORS for piece_type in chess.PIECE_TYPES}
_PIECE_OF_SYMBOL = {symbol: chess.Piece(piece_type, color) for (color, piece_type), symbol in _SYMBOL_OF_PIECE.items()}
_PIECE_TYPES = {chess.piece_name(piece_type): piece_type for piece_type in chess.PIECE_TYPES}
_MOVES_BY_CODE: dict[int, tuple[chess.PieceType, int, int, int]] = {
    m.code: (_PIECE_TYPES[m.piece], m.number, m.dx, m.dy) for m in schema.MOVE_CODES
}
_CODE_OF_MOVE = {value: code for code, value in _MOVES_BY_CODE.items()}
_MAX_MOVES = 255  # move_number is one byte
_GAME_MIN_SIZE = 4 + 4 + 2 * _STRING_LENGTH_SIZE + 2 + 2 + 1  # a game with two empty names
_ECO = re.compile(r"([A-E][0-9]{2})\|([^|]*)(?:\|(.*))?", re.DOTALL)
_RESULTS = {value: name for value, (name, _) in schema.GAME_RESULT.meanings.items()}
_SOURCE_TYPES = {value: name for value, (name, _) in schema.SOURCE_TYPE.meanings.items()}
_INTERNET_KINDS = {value: name for value, (name, _) in schema.INTERNET_KIND.meanings.items()}
_INTERNET = next(value for value, name in _SOURCE_TYPES.items() if name == "internet")
_KIND_SHIFT = 26
if [sub.name for sub in schema.ELEMENT_BODY.subcons] != ["key", "wins", "draws", "losses", "move_number", "moves",
                                                          "flags", "some_source", "comment", "game_links", "extra"] \
        or [sub.name for sub in schema.ELEMENT.subcons] != ["length", "body"]:  # pragma: no cover
    raise ImportError("schemas.kvetka.ELEMENT changed: update KvetkaBook._element and Element.to_bytes")
if schema.KEY.sizeof() != KEY_SIZE or schema.SOURCE_REF.sizeof() != 6:  # pragma: no cover
    raise ImportError("schemas.kvetka.KEY or SOURCE_REF changed: update the fast paths")


class KeyOverflowError(ValueError):
    """A position whose square codes do not fit in the 22-byte key (many promoted pieces)."""


# --- the normalised position and its key ---------------------------------------------------------------

class _Normalised(NamedTuple):
    board: chess.Board
    """The normalised board: white to move."""
    flipped: bool
    mirrored: bool
    key: bytes
    bits: int
    """Bits of the key that carry the position (squares, en passant, castling); the rest is padding."""


def _normalise(board: chess.Board) -> _Normalised:
    """The spec's "Подготовка доски": colours flipped for black to move, then files mirrored if no castling."""
    flipped = board.turn == chess.BLACK
    norm = board.copy(stack=False)
    if flipped:
        norm.apply_mirror()
    rights = norm.clean_castling_rights() & chess.BB_CORNERS
    king = norm.king(chess.WHITE)
    mirrored = not rights and king is not None and chess.square_file(king) < 4
    if mirrored:
        norm.apply_transform(chess.flip_horizontal)
    symbols = []
    for square in _CODING_ORDER:
        piece = norm.piece_at(square)
        symbols.append("empty" if piece is None else _SYMBOL_OF_PIECE[piece.color, piece.piece_type])
    value, length = SQUARE_CODE.encode(symbols)
    ep = 0
    if norm.ep_square is not None and norm.has_pseudo_legal_en_passant():
        ep = chess.square_file(norm.ep_square) + 1
    value = (value << _EP_BITS) | ep
    for name in _CASTLING_NAMES:
        value = (value << 1) | (1 if rights & chess.BB_SQUARES[_CORNERS[name]] else 0)
    bits = length + _EP_BITS + _CASTLING_BITS
    if bits > _KEY_BITS:
        raise KeyOverflowError(f"the position needs {bits} bits, a key has {_KEY_BITS}: {board.fen()}")
    return _Normalised(norm, flipped, mirrored, (value << (_KEY_BITS - bits)).to_bytes(KEY_SIZE, "big"), bits)


def position_key(board: chess.Board) -> bytes:
    """The 22-byte key of ``board`` (raises :class:`KeyOverflowError` when it does not fit)."""
    return _normalise(board).key


def decode_key(key: bytes) -> tuple[chess.Board, int]:
    """The normalised board (white to move) of a key, and the value of its padding bits.

    Raises :class:`ValueError` (:class:`PrefixCodeError`) for bits that are not square codes, an
    en-passant value above 8, or a board without one king per side.
    """
    value = int.from_bytes(key, "big")
    symbols, end = SQUARE_CODE.decode(value, _KEY_BITS, 64)
    rest = _KEY_BITS - end
    if rest < _EP_BITS + _CASTLING_BITS:
        raise ValueError(f"the squares take {end} bits, leaving no room for the en-passant and castling bits")
    flags = (value >> (rest - _EP_BITS - _CASTLING_BITS)) & 0xFF
    padding = value & ((1 << (rest - _EP_BITS - _CASTLING_BITS)) - 1)
    ep, castling = flags >> _CASTLING_BITS, flags & ((1 << _CASTLING_BITS) - 1)
    if ep > 8:
        raise ValueError(f"en-passant value {ep} (0 = none, 1-8 = files a-h)")
    board = chess.Board(None)
    for square, symbol in zip(_CODING_ORDER, symbols, strict=True):
        if symbol != "empty":
            board.set_piece_at(square, _PIECE_OF_SYMBOL[symbol])
    if len(board.pieces(chess.KING, chess.WHITE)) != 1 or len(board.pieces(chess.KING, chess.BLACK)) != 1:
        raise ValueError("the board does not have one king per side")
    rights = 0
    for position, name in enumerate(_CASTLING_NAMES):
        if castling >> (_CASTLING_BITS - 1 - position) & 1:
            rights |= chess.BB_SQUARES[_CORNERS[name]]
    board.castling_rights = rights
    if ep:
        board.ep_square = chess.square(ep - 1, 5)
    return board, padding


def _same_position(stored: bytes, key: bytes, bits: int) -> bool:
    """``stored`` holds the position of ``key`` (whose first ``bits`` bits matter), whatever its padding."""
    whole, rest = divmod(bits, 8)
    if stored[:whole] != key[:whole]:
        return False
    return not rest or (stored[whole] ^ key[whole]) >> (8 - rest) == 0


# --- moves -----------------------------------------------------------------------------------------------

def _coding_index(square: chess.Square) -> int:
    return 8 * chess.square_file(square) + chess.square_rank(square)


def _decode_on(norm: chess.Board, code: int) -> chess.Move | None:
    """The move of a code on a normalised board (``None``: its piece is not there)."""
    piece_type, number, dx, dy = _MOVES_BY_CODE[code]
    squares = sorted(norm.pieces(piece_type, chess.WHITE), key=_coding_index)
    if len(squares) < number:
        return None
    origin = squares[number - 1]
    target = chess.square((chess.square_file(origin) + dx) & 7, (chess.square_rank(origin) + dy) & 7)
    promotion = chess.QUEEN if piece_type == chess.PAWN and chess.square_rank(target) == 7 else None
    return chess.Move(origin, target, promotion)


def _encode_on(norm: chess.Board, move: chess.Move) -> int | None:
    """The code of a move of the normalised board (``None``: the table has no code for it)."""
    piece = norm.piece_at(move.from_square)
    if piece is None or piece.color != chess.WHITE or move.drop is not None:
        return None
    if piece.piece_type == chess.PAWN and chess.square_rank(move.to_square) == 7:
        if move.promotion != chess.QUEEN:
            return None  # the table promotes to a queen only
    elif move.promotion is not None:
        return None
    squares = sorted(norm.pieces(piece.piece_type, chess.WHITE), key=_coding_index)
    number = squares.index(move.from_square) + 1
    dx = (chess.square_file(move.to_square) - chess.square_file(move.from_square)) & 7
    dy = (chess.square_rank(move.to_square) - chess.square_rank(move.from_square)) & 7
    return _CODE_OF_MOVE.get((piece.piece_type, number, dx, dy))


def _to_real(move: chess.Move, flipped: bool, mirrored: bool) -> chess.Move:
    """A move of the normalised board on the real board (the transformation is its own inverse)."""
    def square(s: chess.Square) -> chess.Square:
        return s ^ (0x38 if flipped else 0) ^ (0x07 if mirrored else 0)
    return chess.Move(square(move.from_square), square(move.to_square), move.promotion)


def decode_move(board: chess.Board, code: int) -> chess.Move | None:
    """The move of ``board`` a move code stands for (``None``: its piece is not on the board).

    Raises :class:`KeyError` for a byte that is not a move code.
    """
    norm = _normalise(board)
    move = _decode_on(norm.board, code)
    return None if move is None else _to_real(move, norm.flipped, norm.mirrored)


def encode_move(board: chess.Board, move: chess.Move) -> int | None:
    """The move code of ``move`` in ``board``; ``None`` when the table has none.

    Kvetka codes the first eight pawns, two knights, bishops and rooks, three queens and the king; a pawn
    reaching the last rank promotes to a queen; castling is the king's two-file step (``e1g1``).
    """
    norm = _normalise(board)
    return _encode_on(norm.board, _to_real(move, norm.flipped, norm.mirrored))


# --- elements -----------------------------------------------------------------------------------------------

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

    @property
    def opening(self) -> Opening | None:
        return parse_opening(self.comment)

    def board(self) -> chess.Board:
        """The normalised board of the key (white to move)."""
        return decode_key(self.key)[0]

    def moves(self) -> list[chess.Move]:
        """The moves of the codes on the normalised board (codes whose piece is missing are left out)."""
        board = self.board()
        return [move for move in (_decode_on(board, code) for code in self.codes) if move is not None]

    def to_bytes(self, keeps_games: bool = True) -> bytes:
        """The element as stored, length field included; its flags follow the parts present."""
        if len(self.key) != KEY_SIZE:
            raise ValueError(f"a key is {KEY_SIZE} bytes, not {len(self.key)}")
        if len(self.codes) > _MAX_MOVES:
            raise ValueError(f"an element holds at most {_MAX_MOVES} moves, not {len(self.codes)}")
        # bits of the parts below come from the parts; other bits (future ones, or bits 1-2 of a book whose
        # element_type ignores them) are written as they are
        flags = self.flags & ~(_KNOWN_FLAGS if keeps_games else _COMMENT_FLAG) & 0xFF
        parts = [self.key, schema.compact_int_bytes(self.wins), schema.compact_int_bytes(self.draws),
                 schema.compact_int_bytes(self.losses), bytes((len(self.codes),))]
        for code in self.codes:
            if code not in _MOVES_BY_CODE:
                raise ValueError(f"0x{code:02x} is not a move code")
        parts.append(bytes(self.codes))
        tail = []
        if self.source is not None and keeps_games:
            flags |= _REFERENCE_FLAG
            tail.append(self.source[0].to_bytes(_SOURCE_NUMBER_SIZE, "big")
                        + self.source[1].to_bytes(_SOURCE_REF_SIZE - _SOURCE_NUMBER_SIZE, "big"))
        if self.comment is not None:
            flags |= _COMMENT_FLAG
            tail.append(_text_bytes(schema.UNICODE_STRING, self.comment))
        if self.game_links is not None and keeps_games:
            flags |= _LINKS_FLAG
            tail.append(self.game_links)
        tail.append(self.extra)
        body = b"".join(parts) + bytes((flags,)) + b"".join(tail)
        return schema.compact_int_bytes(len(body)) + body


def _text_bytes(text_con: schema.Text, text: str) -> bytes:
    data = text_con.encode_text(text)
    return (len(data) // text_con.width).to_bytes(_STRING_LENGTH_SIZE, "big") + data


def _fit(element: Element, keeps_games: bool) -> tuple[Element, bytes]:
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


class _Located(NamedTuple):
    file: str
    offset: int


# --- sources (.ksf) -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KvetkaGame:
    """One game of a source, as the ``.ksf`` describes it (``address``: see the schema's game_address)."""

    address: int = 0
    length: int = 0
    white: str = ""
    black: str = ""
    white_elo: int = 0
    black_elo: int = 0
    result: int = 3
    """0 = 0-1, 1 = 1-0, 2 = 1/2-1/2, 3 = unknown."""

    @property
    def result_name(self) -> str:
        return _RESULTS.get(self.result, str(self.result))


@dataclass(frozen=True)
class KvetkaSource:
    """A source of games: ``source_type`` 0 empty, 1 PGN file, 2 web page, 3 ChessBase base."""

    source_type: int
    address: str
    games: tuple[KvetkaGame, ...] = ()
    is_bad: int = 0


@dataclass(frozen=True)
class SourceGame:
    """A source reference resolved through the ``.ksf``: where the game is and who played it. Never opened."""

    source_number: int
    game_in_source: int
    source_type: str
    address: str
    is_bad: bool
    game: KvetkaGame

    @property
    def internet_kind(self) -> str | None:
        """For web pages: the kind of page (bits 26-31 of the game address)."""
        if self.source_type != "internet":
            return None
        kind = self.game.address >> _KIND_SHIFT
        return _INTERNET_KINDS.get(kind, str(kind))

    @property
    def position(self) -> int:
        """The game's offset in its file, or (web pages) its number or offset (bits 0-25)."""
        if self.source_type == "internet":
            return self.game.address & ((1 << _KIND_SHIFT) - 1)
        return self.game.address


class _Sources:
    """The ``.ksf`` file, read lazily: a source's games are located the first time one is asked for."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.data: Any = map_file(path)
        data = self.data
        if len(data) < 4:
            raise TruncatedError("truncated .ksf table of contents", needed=4, available=len(data), file=path,
                                 offset=0, path="toc.source_number", show_path=False)
        count = int.from_bytes(data[:4], "big")
        if 4 + 4 * count > len(data):  # checked before anything is allocated from the count
            raise TruncatedError(f"the table of contents lists {count} sources, the file has room for "
                                 f"{(len(data) - 4) // 4}", file=path, offset=0, path="toc.source_number",
                                 show_path=False)
        self.addresses = [int.from_bytes(data[4 + 4 * n:8 + 4 * n], "big") for n in range(count)]
        self._sources: dict[int, tuple[KvetkaSource, list[int]]] = {}

    def __len__(self) -> int:
        return len(self.addresses)

    def close(self) -> None:
        data, self.data = self.data, b""
        if hasattr(data, "close"):
            data.close()

    def _string(self, offset: int, width: int, where: str) -> tuple[str, int]:
        data = self.data
        if offset + _STRING_LENGTH_SIZE > len(data):
            raise TruncatedError(f"truncated {where}", needed=_STRING_LENGTH_SIZE, available=len(data) - offset,
                                 file=self.path, offset=offset, path=where, show_path=False)
        length = int.from_bytes(data[offset:offset + _STRING_LENGTH_SIZE], "big") * width
        start = offset + _STRING_LENGTH_SIZE
        if start + length > len(data):
            raise TruncatedError(f"truncated {where}", needed=length, available=len(data) - start, file=self.path,
                                 offset=start, path=f"{where}.text", show_path=False)
        con = schema.UNICODE_STRING if width == 2 else schema.ANSI_STRING
        return data[start:start + length].decode(con.encoding, con.errors), start + length

    def source(self, number: int) -> tuple[KvetkaSource, list[int]]:
        """A source with its games (the games parsed), and the offset of each game."""
        cached = self._sources.get(number)
        if cached is not None:
            return cached
        if not 0 <= number < len(self.addresses):
            raise InvalidValueError("source number out of range", expected=f"0..{len(self.addresses) - 1}",
                                    actual=number, file=self.path, path=f"sources[{number}]")
        data = self.data
        where = f"sources[{number}]"
        at = self.addresses[number]
        if at + 2 > len(data):
            raise TruncatedError(f"source {number} starts at {at}, past the end", file=self.path, offset=4 + 4 * number,
                                 path=f"toc.addresses[{number}]", show_path=False)
        source_type, is_bad = data[at], data[at + 1]
        address, at = self._string(at + 2, 2, f"{where}.address")
        if at + 4 > len(data):
            raise TruncatedError(f"truncated {where}.games_number", needed=4, available=len(data) - at,
                                 file=self.path, offset=at, show_path=False)
        count = int.from_bytes(data[at:at + 4], "big")
        at += 4
        if count * _GAME_MIN_SIZE > len(data) - at:  # before reading (or allocating) anything for the games
            raise TruncatedError(f"{where} says {count} games; {len(data) - at} bytes cannot hold them",
                                 file=self.path, offset=at - 4, path=f"{where}.games_number", show_path=False)
        games = []
        offsets = []
        for index in range(count):
            game_where = f"{where}.games[{index}]"
            offsets.append(at)
            if at + 8 > len(data):
                raise TruncatedError(f"truncated {game_where}", needed=8, available=len(data) - at, file=self.path,
                                     offset=at, show_path=False)
            address_value = int.from_bytes(data[at:at + 4], "big")
            length = int.from_bytes(data[at + 4:at + 8], "big")
            white, at = self._string(at + 8, 1, f"{game_where}.white")
            black, at = self._string(at, 1, f"{game_where}.black")
            if at + 5 > len(data):
                raise TruncatedError(f"truncated {game_where}", needed=5, available=len(data) - at, file=self.path,
                                     offset=at, show_path=False)
            games.append(KvetkaGame(address_value, length, white, black, int.from_bytes(data[at:at + 2], "big"),
                                    int.from_bytes(data[at + 2:at + 4], "big"), data[at + 4]))
            at += 5
        result = (KvetkaSource(source_type, address, tuple(games), is_bad), offsets)
        self._sources[number] = result
        return result

    def resolve(self, reference: tuple[int, int], where: str) -> SourceGame:
        number, game = reference
        source, _ = self.source(number)
        if not 0 <= game < len(source.games):
            raise InvalidValueError("game number out of range", expected=f"0..{len(source.games) - 1}", actual=game,
                                    file=self.path, path=f"{where}.some_source.game_in_source")
        return SourceGame(number, game, _SOURCE_TYPES.get(source.source_type, str(source.source_type)),
                          source.address, bool(source.is_bad), source.games[game])


def ksf_bytes(sources: Sequence[KvetkaSource]) -> bytes:
    """The ``.ksf`` file of ``sources``: the table of contents, then the sources back to back."""
    bodies = []
    for source in sources:
        games = [{"game_address": _game_address(source.source_type, game.address), "game_length": game.length,
                  "white": game.white, "black": game.black, "white_elo": game.white_elo,
                  "black_elo": game.black_elo, "game_result": game.result} for game in source.games]
        bodies.append(schema.SOURCE.build({"source_type": source.source_type, "is_bad": source.is_bad,
                                           "address": source.address, "games_number": len(games), "games": games}))
    count = len(bodies)
    toc_size = 4 + 4 * count + (-(4 + 4 * count) % schema.KSF_TOC_UNIT)
    addresses = []
    at = toc_size
    for body in bodies:
        addresses.append(at)
        at += len(body)
    toc = schema.TOC.build({"source_number": count, "addresses": addresses,
                            "unused": bytes(toc_size - 4 - 4 * count)})
    return bytes(toc) + b"".join(bodies)


def _game_address(source_type: int, address: int) -> Any:
    if source_type == _INTERNET:
        return {"kind": address >> _KIND_SHIFT, "position": address & ((1 << _KIND_SHIFT) - 1)}
    return address


# --- reading -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ProbeResult:
    """What the book knows about a position: its moves and the side to move's results."""

    board: chess.Board
    moves: tuple[chess.Move, ...]
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

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def book_files(path: str | os.PathLike[str]) -> tuple[str, list[str], str | None, str | None]:
    """``(stem, .kob files in order, .kin or None, .ksf or None)`` of the book named by ``path``.

    ``path`` is the book's name (``dir/NAME``) or any of its files (``NAME_3.kob``, ``NAME.kin``, ``NAME.ksf``).
    """
    name = os.fspath(path)
    stem, extension = os.path.splitext(name)
    lower = extension.lower()
    if lower == ".kob":
        found = re.fullmatch(r"(.*)_([0-9]+)", stem, re.DOTALL)
        if found is not None and os.path.exists(f"{found.group(1)}_0{extension}"):
            stem = found.group(1)
    elif lower not in (".kin", ".ksf"):
        stem = name
    kobs: list[str] = []
    while True:
        candidate = _sibling(f"{stem}_{len(kobs)}", ".kob")
        if candidate is None:
            break
        kobs.append(candidate)
    return stem, kobs, _sibling(stem, ".kin"), _sibling(stem, ".ksf")


def _sibling(stem: str, extension: str) -> str | None:
    for candidate in (stem + extension, stem + extension.upper()):
        if os.path.exists(candidate):
            return candidate
    return None


class KvetkaBook:
    """A Kvetka book: the ``.kob`` files as one stream, the ``.kin`` index, the ``.ksf`` sources (:func:`open_book`)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.stem, self.kob_paths, self.kin_path, self.ksf_path = book_files(path)
        if not self.kob_paths:
            raise FormatError(f"no {os.path.basename(self.stem)}_0.kob: not a Kvetka book", file=os.fspath(path))
        self.path = self.kob_paths[0]
        self._files: list[Any] = []
        self._starts: list[int] = []
        self.findings_list: list[str] = []
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        total = 0
        for name in self.kob_paths:
            data = map_file(name)
            self._files.append(data)
            self._starts.append(total)
            total += len(data)
        self.size = total
        first = self._files[0]
        if len(first) < _HEADER_BEFORE_CAPTION:
            raise TruncatedError("truncated header", needed=_HEADER_BEFORE_CAPTION, available=0, file=self.path,
                                 offset=0, show_path=False)
        if first[0] != _SUPPORTED_TYPE:
            meaning = schema.BOOK_TYPE.meanings.get(first[0], ("unknown", "unknown"))[1]
            raise UnsupportedError(f"book type {first[0]} ({meaning}) is not supported: only type 1 is",
                                   file=self.path, offset=0, path="header.type")
        caption_at = _HEADER_BEFORE_CAPTION
        if len(first) < caption_at + _STRING_LENGTH_SIZE:
            raise TruncatedError("truncated header.caption", needed=_STRING_LENGTH_SIZE,
                                 available=len(first) - caption_at, file=self.path, offset=caption_at, show_path=False)
        caption_units = int.from_bytes(first[caption_at:caption_at + _STRING_LENGTH_SIZE], "big")
        header_size = caption_at + _STRING_LENGTH_SIZE + 2 * caption_units + _HEADER_AFTER_CAPTION
        if header_size > len(first):  # checked before the caption is read
            raise TruncatedError("truncated header (its caption is longer than the file)", needed=header_size,
                                 available=len(first), file=self.path, offset=0, show_path=False)
        self.header = parse(schema.HEADER, bytes(first[:header_size]), file=self.path, path="header")
        self.header_size = header_size
        self.caption: str = self.header.caption
        self.keeps_games = bool(self.header.element_type.game_links)
        self.blocks, rest = divmod(total - header_size, BLOCK_SIZE)
        if rest:
            at = header_size + self.blocks * BLOCK_SIZE
            file, offset = self._where(at)
            raise TruncatedError(f"truncated block {self.blocks}", needed=BLOCK_SIZE, available=rest, file=file,
                                 offset=offset, path=f"blocks[{self.blocks}]", show_path=False)
        for index, start in enumerate(self._starts[1:], start=1):
            if (start - header_size) % BLOCK_SIZE:
                self.findings_list.append(f"{os.path.basename(self.kob_paths[index])} does not start on a block "
                                          "boundary (read as one stream all the same)")
        if self.header.block_number != self.blocks:
            self.findings_list.append(f"the header says {self.header.block_number} blocks, the .kob files hold "
                                      f"{self.blocks}")
        self._cache: collections.OrderedDict[int, list[Element]] = collections.OrderedDict()
        self.index = self._read_index()
        self.sources = _Sources(self.ksf_path) if self.ksf_path is not None else None

    def _read_index(self) -> list[bytes]:
        if self.kin_path is not None:
            with open(self.kin_path, "rb") as handle:
                data = handle.read()
            count, rest = divmod(len(data), KEY_SIZE)
            if rest:
                raise TruncatedError(f"truncated key {count}", needed=KEY_SIZE, available=rest, file=self.kin_path,
                                     offset=count * KEY_SIZE, path=f"[{count}]", show_path=False)
            if count == self.blocks:
                return [data[n * KEY_SIZE:(n + 1) * KEY_SIZE] for n in range(count)]
            self.findings_list.append(f"the .kin holds {count} keys for {self.blocks} blocks: ignored, the index "
                                      "was built from the blocks")
        else:
            self.findings_list.append("no .kin file: the index was built by reading every block")
        keys = []
        previous = bytes(KEY_SIZE)
        for block in range(self.blocks):
            elements = self.block_elements(block)
            previous = elements[0].key if elements else previous
            keys.append(previous)
        return keys

    # -- context manager

    def __enter__(self) -> KvetkaBook:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        sources = getattr(self, "sources", None)
        if sources is not None:
            sources.close()
        files, self._files = self._files, []
        for data in files:
            if hasattr(data, "close"):
                data.close()

    # -- the stream

    def _where(self, at: int) -> tuple[str, int]:
        """(file, offset in it) of a stream offset."""
        index = bisect.bisect_right(self._starts, at) - 1
        return self.kob_paths[index], at - self._starts[index]

    def _read(self, at: int, size: int) -> bytes:
        index = bisect.bisect_right(self._starts, at) - 1
        out = b""
        while size > 0 and index < len(self._files):
            local = at - self._starts[index]
            piece = bytes(self._files[index][local:local + size])
            out += piece
            at += len(piece)
            size -= len(piece)
            index += 1
        return out

    def block_offset(self, block: int) -> int:
        """Stream offset of a block."""
        return int(self.header_size) + BLOCK_SIZE * block

    def block_bytes(self, block: int) -> bytes:
        if not 0 <= block < self.blocks:
            raise InvalidValueError("block number out of range", expected=f"0..{self.blocks - 1}", actual=block,
                                    file=self.path, path=f"blocks[{block}]")
        return self._read(self.block_offset(block), BLOCK_SIZE)

    def block_elements(self, block: int) -> list[Element]:
        """The elements of a block, validated (cached)."""
        cached = self._cache.get(block)
        if cached is not None:
            self._cache.move_to_end(block)
            return cached
        data = self.block_bytes(block)
        base = self.block_offset(block)
        used = int.from_bytes(data[:_USED_SIZE], "big")
        if not _USED_SIZE <= used <= BLOCK_SIZE:
            file, offset = self._where(base)
            raise InvalidValueError("bytes in use out of range", expected=f"{_USED_SIZE}..{BLOCK_SIZE}", actual=used,
                                    file=file, offset=offset, path=f"blocks[{block}].used")
        elements: list[Element] = []
        at = _USED_SIZE
        while at < used:
            element, at = self._element(data, at, used, base, f"blocks[{block}].elements[{len(elements)}]", block)
            elements.append(element)
        self._cache[block] = elements
        if len(self._cache) > 4096:
            self._cache.popitem(last=False)
        return elements

    def _error(self, kind: type[FormatError], reason: str, at: int, path: str, **extra: Any) -> FormatError:
        file, offset = self._where(at)
        return kind(reason, file=file, offset=offset, path=path, **extra)

    def _compact_int(self, data: bytes, at: int, end: int, base: int, path: str) -> tuple[int, int]:
        try:
            return schema.read_compact_int(data, at, end)
        except IndexError:
            raise self._error(TruncatedError, f"truncated {path}", base + at, path) from None
        except ValueError as exc:
            raise self._error(InvalidValueError, str(exc), base + at, path) from None

    def _element(self, data: bytes, at: int, end: int, base: int, where: str, block: int) -> tuple[Element, int]:
        """Read one element at ``data[at:]`` (a block, elements up to ``end``), every length checked first."""
        start = at
        length, at = self._compact_int(data, at, end, base, f"{where}.length")
        stop = at + length
        if stop > end:
            raise self._error(TruncatedError, f"{where}: the element's length {length} runs past the block's "
                              f"used bytes ({end - at} left)", base + start, f"{where}.length")
        body = f"{where}.body"
        if at + KEY_SIZE > stop:
            raise self._error(TruncatedError, f"truncated {body}.key", base + at, f"{body}.key")
        key = data[at:at + KEY_SIZE]
        at += KEY_SIZE
        counts = []
        for name in ("wins", "draws", "losses"):
            value, at = self._compact_int(data, at, stop, base, f"{body}.{name}")
            counts.append(value)
        if at >= stop:
            raise self._error(TruncatedError, f"truncated {body}.move_number", base + at, f"{body}.move_number")
        count = data[at]
        at += 1
        if at + count + 1 > stop:
            raise self._error(TruncatedError, f"truncated {body}.moves", base + at, f"{body}.moves")
        codes = tuple(data[at:at + count])
        for number, code in enumerate(codes):
            if code not in _MOVES_BY_CODE:
                raise self._error(InvalidValueError, "not a move code", base + at + number, f"{body}.moves[{number}]",
                                  expected="one of the 193 move codes of the table", actual=f"0x{code:02x}")
        at += count
        flags = data[at]
        at += 1
        source = None
        if flags & _REFERENCE_FLAG and self.keeps_games:
            if at + _SOURCE_REF_SIZE > stop:
                raise self._error(TruncatedError, f"truncated {body}.some_source", base + at, f"{body}.some_source")
            source = (int.from_bytes(data[at:at + _SOURCE_NUMBER_SIZE], "big"),
                      int.from_bytes(data[at + _SOURCE_NUMBER_SIZE:at + _SOURCE_REF_SIZE], "big"))
            at += _SOURCE_REF_SIZE
        comment = None
        if flags & _COMMENT_FLAG:
            if at + _STRING_LENGTH_SIZE > stop:
                raise self._error(TruncatedError, f"truncated {body}.comment", base + at, f"{body}.comment.length")
            units = int.from_bytes(data[at:at + _STRING_LENGTH_SIZE], "big")
            text_at = at + _STRING_LENGTH_SIZE
            if text_at + 2 * units > stop:
                raise self._error(TruncatedError, f"{body}.comment: {units} characters do not fit in the element",
                                  base + at, f"{body}.comment.length")
            con = schema.UNICODE_STRING
            comment = data[text_at:text_at + 2 * units].decode(con.encoding, con.errors)
            at = text_at + 2 * units
        links = None
        if flags & _LINKS_FLAG and self.keeps_games:
            links, at = data[at:stop], stop
        present = (_REFERENCE_FLAG if source is not None else 0) | (_COMMENT_FLAG if comment is not None else 0) \
            | (_LINKS_FLAG if links is not None else 0)
        element = Element(key, counts[0], counts[1], counts[2], codes, flags & ~present, source, comment, links,
                          data[at:stop],
                          base + start, block)
        return element, stop

    def element_board(self, element: Element) -> chess.Board:
        """The normalised board of an element's key; a bad key is a located :class:`FormatError`."""
        try:
            return decode_key(element.key)[0]
        except ValueError as exc:  # PrefixCodeError included
            where = f"blocks[{element.block}].elements[?].body.key"
            raise self._error(InvalidValueError, str(exc), element.offset or 0, where) from None

    # -- lookup

    def __len__(self) -> int:
        return sum(len(self.block_elements(block)) for block in range(self.blocks))

    def elements(self) -> Iterator[Element]:
        """Every element, in stored (key) order."""
        for block in range(self.blocks):
            yield from self.block_elements(block)

    __iter__ = elements

    def find(self, key: bytes, bits: int = _KEY_BITS) -> Element | None:
        """The element of a key (only its first ``bits`` bits compared: stored padding may be anything)."""
        block = bisect.bisect_right(self.index, key) - 1
        for candidate in (block, block + 1) if bits < _KEY_BITS else (block,):
            if 0 <= candidate < self.blocks:
                for element in self.block_elements(candidate):
                    if _same_position(element.key, key, bits):
                        return element
        return None

    def probe(self, board: chess.Board, *, legal_only: bool = True) -> ProbeResult | None:
        """The book's knowledge of ``board`` (``None``: not in book); moves as moves of ``board``.

        With ``legal_only``, moves that are not legal in ``board`` are left out.
        """
        try:
            norm = _normalise(board)
        except KeyOverflowError:
            return None
        element = self.find(norm.key, norm.bits)
        if element is None:
            return None
        moves = []
        where = f"blocks[{element.block}]"
        for number, code in enumerate(element.codes):
            move = _decode_on(norm.board, code)
            if move is None:
                raise self._error(InvalidValueError, f"move code 0x{code:02x} moves a piece the position does not have",
                                  element.offset or 0, f"{where}.elements[?].body.moves[{number}]")
            real = _to_real(move, norm.flipped, norm.mirrored)
            if legal_only and not board.is_legal(real):
                continue
            moves.append(real)
        source = None
        if element.source is not None and self.sources is not None:
            source = self.sources.resolve(element.source, where)
        return ProbeResult(board.copy(stack=False), tuple(moves), element.wins, element.draws, element.losses,
                           element.comment, element.opening, source, element, norm.flipped, norm.mirrored)

    def __contains__(self, board: object) -> bool:
        return isinstance(board, chess.Board) and self.probe(board, legal_only=False) is not None

    def located(self, board: chess.Board) -> tuple[int, int, Element] | None:
        """(block, number in the block, element) of ``board``."""
        norm = _normalise(board)
        element = self.find(norm.key, norm.bits)
        if element is None or element.block is None:
            return None
        return element.block, self.block_elements(element.block).index(element), element

    def source_games(self) -> list[KvetkaSource]:
        """Every source of the ``.ksf`` with its games (empty without a ``.ksf``)."""
        if self.sources is None:
            return []
        return [self.sources.source(number)[0] for number in range(len(self.sources))]

    def resolve_address(self, address: str, kvetka_folder: str | os.PathLike[str] | None = None) -> str:
        """A source address with ``%currentdir`` expanded to ``kvetka_folder`` (default: the book's folder).

        Nothing is opened. The expanded path must stay inside that folder (``..`` cannot climb out of it):
        :class:`ValueError` otherwise. Addresses without ``%currentdir`` are returned as stored.
        """
        marker = "%currentdir"
        if not address.lower().startswith(marker):
            return address
        folder = os.path.realpath(os.fspath(kvetka_folder) if kvetka_folder is not None
                                  else os.path.dirname(os.path.abspath(self.path)))
        relative = address[len(marker):].replace("\\", "/").lstrip("/")
        resolved = os.path.realpath(os.path.join(folder, *relative.split("/")))
        if os.path.commonpath([folder, resolved]) != folder:
            raise ValueError(f"{address!r} leaves the folder {folder}")
        return resolved

    # -- summaries

    def findings(self) -> list[str]:
        notes = list(self.findings_list)
        padded = 0
        junk = 0
        oversize = 0
        for block in range(self.blocks):
            data = self.block_bytes(block)
            used = int.from_bytes(data[:_USED_SIZE], "big")
            junk += any(data[used:])
            for element in self.block_elements(block):
                try:
                    _, padding = decode_key(element.key)
                except ValueError:
                    continue
                padded += padding != 0
                oversize += len(element.to_bytes(self.keeps_games)) > schema.MAX_ELEMENT
        if padded:
            notes.append(f"{padded} keys have non-zero padding bits (read all the same)")
        if junk:
            notes.append(f"{junk} blocks have non-zero bytes after their used part (ignored)")
        if oversize:
            notes.append(f"{oversize} elements are longer than {schema.MAX_ELEMENT} bytes")
        return notes

    def to_bookstats(self, start: chess.Board | None = None) -> BookStats:
        """The positions reached from ``start`` along book moves, as the format-neutral model.

        A move's statistics are those of the position it leads to, seen from the side that played it (its
        wins are that position's losses); a move whose position is not stored has empty statistics.
        """
        stats = BookStats()
        first = (start or chess.Board()).copy(stack=False)
        queue = collections.deque([first])
        seen = {_fen_key(first)}
        while queue:
            board = queue.popleft()
            found = self.probe(board)
            if found is None or not found.moves:
                continue
            position = stats.positions.setdefault(_fen_key(board), PositionStats(board.fen(en_passant="legal")))
            for move in found.moves:
                child = board.copy(stack=False)
                child.push(move)
                result = self.probe(child, legal_only=False)
                position.moves[move] = MoveStats() if result is None else MoveStats(
                    result.games, result.losses, result.draws, result.wins)
                key = _fen_key(child)
                if key not in seen:
                    seen.add(key)
                    queue.append(child)
        root = stats.positions.get(_fen_key(first))
        stats.games = sum(m.games for m in root.moves.values()) if root is not None else 0
        return stats


def _fen_key(board: chess.Board) -> str:
    return board.fen(en_passant="legal").rsplit(" ", 2)[0]


def open_book(path: str | os.PathLike[str]) -> KvetkaBook:
    """Open a Kvetka book by its name (``dir/NAME``) or any of its files. Use as a context manager.

    The ``.kob`` files ``NAME_0.kob``, ``NAME_1.kob``, ... are read as one stream; without ``NAME.kin``
    the index is built by reading the first key of every block. Bad input raises
    :class:`~chessformats.FormatError` naming the file, offset and field.
    """
    return KvetkaBook(path)


# --- writing ------------------------------------------------------------------------------------------------

def elements_from_stats(stats: BookStats, *, openings: Mapping[str, str | Opening] | None = None,
                        references: Mapping[str, tuple[int, int]] | None = None) -> tuple[list[Element], int]:
    """Elements for a BookStats: every position with moves and every position a move leads to.

    A position's results are the sums over the moves that lead to it (for its side to move: its wins
    are those moves' losses); a position no move leads to (the start) sums its own moves. Positions with
    the same key are one element (moves merged). Moves are stored most played first. ``openings`` and
    ``references`` are keyed by FEN (move counters optional; en passant as python-chess writes it by
    default, only when a capture is legal); a reference is looked up for the first position met of a key.
    Returns the elements, sorted by key, and the number of moves left out (no code in the table, or not
    legal).
    """
    moves: dict[bytes, dict[int, int]] = {}
    incoming: dict[bytes, list[int]] = {}
    boards: dict[bytes, chess.Board] = {}
    skipped = 0
    for position in stats:
        board = position.board()
        try:
            norm = _normalise(board)
        except KeyOverflowError:
            skipped += len(position.moves)
            continue
        boards.setdefault(norm.key, board)
        codes = moves.setdefault(norm.key, {})
        for move, move_stats in position.moves.items():
            code = _encode_on(norm.board, _to_real(move, norm.flipped, norm.mirrored))
            if code is None or not board.is_legal(move):
                skipped += 1
                continue
            child = board.copy(stack=False)
            child.push(move)
            try:
                child_key = position_key(child)
            except KeyOverflowError:
                skipped += 1
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
            own = stats.positions.get(_fen_key(boards[key]))
            if own is not None:
                for move_stats in own.moves.values():
                    wins += move_stats.wins
                    draws += move_stats.draws
                    losses += move_stats.losses
        ordered = tuple(sorted(codes, key=lambda code: (-codes[code], code)))
        note = keyed_notes.get(key)
        comment = note.comment() if isinstance(note, Opening) else note
        elements.append(Element(key, wins, draws, losses, ordered, 0, refs.get(_fen_key(boards[key])), comment))
    return elements, skipped


def _strip_counters(fen: str) -> str:
    parts = fen.split()
    return " ".join(parts[:4]) if len(parts) >= 4 else fen


def _blocks(encoded: Sequence[bytes]) -> list[list[int]]:
    """Element indices per block: each block filled in key order until the next element does not fit."""
    blocks: list[list[int]] = []
    room = 0
    for index, data in enumerate(encoded):
        if not blocks or len(data) > room:
            blocks.append([])
            room = _BLOCK_ROOM
        blocks[-1].append(index)
        room -= len(data)
    return blocks


def _split_files(header_size: int, blocks: int, limit: int) -> list[int]:
    """Blocks per ``.kob`` file, as Kvetka's rule makes them: blocks are added to the last file; once a file
    passes ``limit`` bytes it is split at a block boundary into two files of about equal size."""
    files = [0]
    for _ in range(blocks):
        files[-1] += 1
        base = header_size if len(files) == 1 else 0
        count = files[-1]
        if base + BLOCK_SIZE * count > limit and count >= 2:
            best = min(range(1, count), key=lambda k: abs(base + BLOCK_SIZE * k - BLOCK_SIZE * (count - k)))
            files[-1:] = [best, count - best]
    return files


@dataclass
class WriteResult:
    """What :func:`write_book` wrote."""

    elements: int
    blocks: int
    kob_paths: list[str]
    kin_path: str
    ksf_path: str | None
    skipped: int = 0


def write_book(path: str | os.PathLike[str], book: BookStats | KvetkaBook | Iterable[Element], *,
               caption: str = "", openings: Mapping[str, str | Opening] | None = None,
               sources: Sequence[KvetkaSource] | None = None, references: Mapping[str, tuple[int, int]] | None = None,
               max_move: int = 255, elo_filters: tuple[int, int, int, int] = (0, 0, 0, 0), links: int = 0,
               file_limit: int = DEFAULT_FILE_LIMIT) -> WriteResult:
    """Write a Kvetka book ``NAME_0.kob`` (``_1``, ... past ``file_limit`` bytes), ``NAME.kin`` and, with
    ``sources``, ``NAME.ksf``; each file atomically. ``path`` is ``NAME``, ``NAME.kob`` or ``NAME_0.kob``.

    ``book`` is the format-neutral :class:`BookStats` (see :func:`elements_from_stats`; ``openings`` and
    ``references`` are keyed by FEN), an open :class:`KvetkaBook` (rewritten: header, elements and
    sources as read) or elements. Elements are sorted by key (the first of equal keys wins), truncated
    to the spec's limits (comment 300 characters, element 682 bytes) and packed into blocks in order;
    stale ``NAME_k.kob`` files of a previous, longer book and a stale ``.ksf`` are removed.
    """
    skipped = 0
    keeps_games = sources is not None
    if isinstance(book, BookStats):
        elements, skipped = elements_from_stats(book, openings=openings, references=references)
    elif isinstance(book, KvetkaBook):
        elements = list(book.elements())
        caption = caption or book.caption
        header = book.header
        max_move, links = header.max_move, header.links
        elo_filters = (header.least_white_elo, header.least_black_elo, header.least_strong_elo,
                       header.least_weak_elo)
        keeps_games = book.keeps_games
        if sources is None and book.sources is not None:
            sources = book.source_games()
    else:
        elements = list(book)
    if sources is not None or any(e.source is not None or e.game_links is not None for e in elements):
        keeps_games = True  # element_type bit 0: references are kept (a .ksf is optional, the spec says)
    unique: dict[bytes, Element] = {}
    for element in elements:
        unique.setdefault(element.key, element)
    encoded = [_fit(unique[key], keeps_games)[1] for key in sorted(unique)]
    keys = sorted(unique)
    layout = _blocks(encoded)
    header_bytes = schema.HEADER.build({
        "type": _SUPPORTED_TYPE, "caption": caption, "least_white_elo": elo_filters[0],
        "least_black_elo": elo_filters[1], "least_strong_elo": elo_filters[2], "least_weak_elo": elo_filters[3],
        "max_move": min(max_move, 255), "element_type": {"unused": 0, "game_links": keeps_games}, "links": links,
        "block_number": len(layout)})
    block_data = []
    for members in layout:
        body = b"".join(encoded[index] for index in members)
        used = _USED_SIZE + len(body)
        block_data.append(used.to_bytes(_USED_SIZE, "big") + body + bytes(BLOCK_SIZE - used))
    stem = _output_stem(path)
    files = _split_files(len(header_bytes), len(block_data), file_limit)
    kob_paths = []
    first = 0
    for number, count in enumerate(files):
        name = f"{stem}_{number}.kob"
        with atomic_write(name) as handle:
            if number == 0:
                handle.write(header_bytes)
            for data in block_data[first:first + count]:
                handle.write(data)
        first += count
        kob_paths.append(name)
    stale = len(files)
    while os.path.exists(f"{stem}_{stale}.kob"):
        os.unlink(f"{stem}_{stale}.kob")
        stale += 1
    kin_path = stem + ".kin"
    with atomic_write(kin_path) as handle:
        for members in layout:
            handle.write(keys[members[0]])
    ksf_path = None
    if sources is not None:
        ksf_path = stem + ".ksf"
        with atomic_write(ksf_path) as handle:
            handle.write(ksf_bytes(sources))
    elif os.path.exists(stem + ".ksf"):
        os.unlink(stem + ".ksf")
    return WriteResult(len(encoded), len(block_data), kob_paths, kin_path, ksf_path, skipped)


def _output_stem(path: str | os.PathLike[str]) -> str:
    name = os.fspath(path)
    stem, extension = os.path.splitext(name)
    if extension.lower() in (".kob", ".kin", ".ksf"):
        found = re.fullmatch(r"(.*)_0", stem, re.DOTALL) if extension.lower() == ".kob" else None
        return found.group(1) if found is not None else stem
    return name


# --- building and conversion ----------------------------------------------------------------------------------

_GAME_START = re.compile(rb"(?:^|\n)\[Event ")
_RESULT_CODES = {"0-1": 0, "1-0": 1, "1/2-1/2": 2}


def pgn_sources(paths: Sequence[str | os.PathLike[str]], *, max_ply: int = 255
                ) -> tuple[list[KvetkaSource], dict[str, tuple[int, int]]]:
    """``.ksf`` sources for PGN files, and for every position of their games' first ``max_ply`` plies the first
    game it occurs in (``references`` for :func:`write_book`, keyed by FEN without move counters).

    A game starts at its ``[Event`` tag: its address is that byte offset in the (uncompressed, plain) file and
    its length runs to the next game. Addresses are full paths, as the spec asks. Games python-chess cannot
    replay are described but give no references.
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
            game = chess.pgn.read_game(io.StringIO(data[start:end].decode("utf-8", errors="replace")))
            if game is None:
                continue
            headers = game.headers
            games.append(KvetkaGame(start, end - start, headers.get("White", ""), headers.get("Black", ""),
                                    _elo(headers.get("WhiteElo")), _elo(headers.get("BlackElo")),
                                    _RESULT_CODES.get(headers.get("Result", "*"), 3)))
            try:
                board = game.board()
                for ply, move in enumerate(game.mainline_moves()):
                    if ply >= max_ply:
                        break
                    references.setdefault(_fen_key(board), (number, len(games) - 1))
                    board.push(move)
                references.setdefault(_fen_key(board), (number, len(games) - 1))
            except (ValueError, AssertionError):
                continue
        sources.append(KvetkaSource(1, os.path.abspath(os.fspath(path)), tuple(games)))
    return sources, references


def _elo(text: str | None) -> int:
    return int(text) if text is not None and text.isdigit() and int(text) < 0x10000 else 0


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
            kept.positions[_fen_key(position.board())] = PositionStats(position.fen, moves)
    return kept


def make_book(path: str | os.PathLike[str], builder: Any, *, min_games: int = 3, min_score: float = 0.0,
              only: chess.Color | None = None, uniform: bool = False, file_limit: int = DEFAULT_FILE_LIMIT,
              sources: Sequence[str | os.PathLike[str]] | None = None) -> int:
    """``chessformats build -o NAME.kob``: a Kvetka book from a :class:`~.bookbuild.BookBuilder`; returns the elements.

    Moves need ``min_games`` games and a score of ``min_score`` for the side that plays them (``only``: one
    side's moves). Kvetka stores results, not weights, so ``uniform`` changes nothing. ``max_move`` in the
    header is the builder's ``max_ply`` (255 = all plies when it is larger). With ``sources`` (the PGN files
    the builder read), ``NAME.ksf`` describes them and every position refers to the first game it occurs in.
    """
    stats = filter_stats(builder.to_stats(), min_games=min_games, min_score=min_score, only=only)
    max_ply = int(getattr(builder, "max_ply", 255))
    max_move = max_ply if max_ply < 255 else 255
    ksf_sources, references = pgn_sources(sources, max_ply=max_move) if sources else (None, None)
    result = write_book(path, stats, max_move=max_move, file_limit=file_limit, sources=ksf_sources,
                        references=references)
    return result.elements


def _polyglot_stats(bin_path: str | os.PathLike[str]) -> tuple[BookStats, int]:
    """Positions reached from the start in a Polyglot book; a move's weight becomes the draws of the position it
    leads to (so that Kvetka -> Polyglot gives the weights back when no position is reached twice)."""
    from . import polyglot

    stats = BookStats()
    with polyglot.open_book(bin_path) as book:
        for board, entries in polyglot.reachable_positions(book):
            position = stats.positions.setdefault(_fen_key(board), PositionStats(board.fen(en_passant="legal")))
            for entry in entries:
                position.moves[entry.move] = MoveStats(games=entry.weight, draws=entry.weight)
        total = len(book)
    return stats, total


def convert(source: str, source_format: str, target: str, target_format: str) -> str:
    """``chessformats convert`` with Kvetka on either side: Kvetka <-> Polyglot, Kvetka <-> CTG, Kvetka -> Kvetka."""
    from . import ctg, polyglot

    if source_format == "kvetka" and target_format == "kvetka":
        with open_book(source) as book:
            result = write_book(target, book)
        return f"{result.elements} elements in {result.blocks} blocks written to {', '.join(result.kob_paths)}"
    if source_format == "kvetka":
        with open_book(source) as book:
            stats = book.to_bookstats()
            stored = len(book)
        if target_format == "polyglot":
            count = polyglot.write_book(target, polyglot.weights_from_stats(stats))
            return f"{len(stats)} positions reached from the start ({stored} elements) -> {count} Polyglot entries"
        if target_format == "ctg":
            count = ctg.write_book(target, stats)
            return f"{len(stats)} positions reached from the start ({stored} elements) -> {count} CTG records"
    elif target_format == "kvetka":
        if source_format == "polyglot":
            stats, total = _polyglot_stats(source)
            origin = f"{total} Polyglot entries"
        elif source_format == "ctg":
            with ctg.open_book(source) as ctg_book:
                stats = ctg_book.to_bookstats()
            origin = "CTG book"
        else:
            raise ValueError(f"cannot convert {source_format} to kvetka")
        result = write_book(target, stats)
        return (f"{len(stats)} positions reached from the start ({origin}) -> {result.elements} elements in "
                f"{', '.join(result.kob_paths)}" + (f"; {result.skipped} moves Kvetka cannot store left out"
                                                    if result.skipped else ""))
    raise ValueError(f"cannot convert {source_format} to {target_format}")
