"""ChessBase CTG opening books: probing, iterating, writing, and conversion to and from Polyglot.

>>> import chess
>>> from chessformats import ctg
>>> with ctg.open_book("book.ctg") as book:              # doctest: +SKIP
...     position = book.probe(chess.Board())
...     for move in position.moves:
...         print(move.move, move.symbol)
...     print(position.games, position.wins, position.draws, position.losses)

The byte layout lives in :mod:`chessformats.schemas.ctg` (square codes in
:mod:`chessformats.schemas.squares`); this module adds the chess meaning: the normalised position
(colours flipped for black to move, files mirrored when nobody can castle and the white king stands on
files a-d), the move codes, the hash and the ``.cto`` lookup. The fast paths below (position encoding,
hash, record reading) are derived from those declarations; the tests compare them with construct's own
parse of every record of the corpus.
"""

from __future__ import annotations

import collections
import os
import struct
import warnings
from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, NamedTuple

import chess

from ..books.stats import BookStats, MoveStats, PositionStats
from ..engine.errors import FormatError, InvalidValueError, TruncatedError
from ..engine.fileio import atomic_write, map_file
from ..engine.layout import bit_fields, describe, struct_format
from ..engine.prefixcode import PrefixCodeError
from ..engine.schema import unwrap
from ..schemas import ctg as schema
from ..schemas.squares import CASTLING, SQUARE_CODE, SQUARE_NAMES

__all__ = [
    "BookMove",
    "CtgBook",
    "MissingIndexWarning",
    "PositionRecord",
    "Rating",
    "ctg_hash",
    "decode_move",
    "encode_move",
    "from_polyglot",
    "lookup_entries",
    "make_book",
    "make_record",
    "open_book",
    "polyglot_weight",
    "records_from_stats",
    "signature",
    "to_polyglot",
    "write_book",
]

PAGE_SIZE = schema.PAGE_SIZE

# --- tables derived from the declarations -------------------------------------------------------------

_PAGE_HEADER = struct.Struct(struct_format(schema.PAGE_HEADER))
_PAGE_HEADER_SIZE = _PAGE_HEADER.size
_PAGE_CAPACITY = PAGE_SIZE - _PAGE_HEADER_SIZE
_STATS_SIZE = schema.STATS.sizeof()
_MOVE_SIZE = schema.MOVE.sizeof()
_MOVES_LENGTH_SIZE = schema.MOVES.subcons[0].sizeof()
_POSITION_BITS = bit_fields(schema.POSITION_HEADER)
_LENGTH_MASK = _POSITION_BITS["length"].mask
_EP_FLAG = 1 << _POSITION_BITS["has_en_passant"].shift
_CASTLING_FLAG = 1 << _POSITION_BITS["has_castling"].shift
_EP_BITS = unwrap({sub.name: sub for sub in schema.BOARD.subcons}["en_passant_file"]).thensubcon.sizeof()
_CASTLING_NAMES = tuple(sub.name for sub in CASTLING.subcons)  # stream order: first = highest bit
_CASTLING_BITS = len(_CASTLING_NAMES)
_RECOMMENDATION_BITS = bit_fields(schema.RECOMMENDATION)
_GREEN = 1 << _RECOMMENDATION_BITS["green"].shift
_RED = 1 << _RECOMMENDATION_BITS["red"].shift
_OTHER_FLAGS = _RECOMMENDATION_BITS["other"].mask << _RECOMMENDATION_BITS["other"].shift
_MIN_POSITION = 1 + (64 * min(length for _, length in SQUARE_CODE.codes.values()) + 7) // 8  # header + 64 words

# (name, offset, size) of every byte-level field of the 33 statistics bytes, from the declaration
_STATS_FIELDS = tuple((f.path, f.offset or 0, f.size or 0) for f in describe(schema.STATS)
                      if f.leaf and f.bits is None)
if [name for name, _, _ in _STATS_FIELDS] != ["games", "wins", "losses", "draws", "unknown1", "rating1.games",
                                              "rating1.total", "rating2.games", "rating2.total", "unknown2",
                                              "comment"]:  # pragma: no cover - guards the unpacking below
    raise ImportError("schemas.ctg.STATS changed: update PositionRecord")
_RECOMMENDATION_OFFSET = next(f.offset for f in describe(schema.STATS) if f.path == "recommendation")
_STATS_LIMITS = {name: 1 << (8 * size) for name, _, size in _STATS_FIELDS}
# the 33 bytes read as one integer: (shift, mask) of every field, recommendation included
_STATS_SHIFTS = tuple((8 * (_STATS_SIZE - offset - size), (1 << (8 * size)) - 1) for _, offset, size in
                      (*_STATS_FIELDS, ("recommendation", _RECOMMENDATION_OFFSET or 0, 1)))

_PIECE_OF_SYMBOL: dict[str, chess.Piece | None] = {
    name: None if name == "empty" else chess.Piece(chess.PIECE_NAMES.index(name.split("_")[1]),
                                                   name.split("_")[0] == "white")
    for name in SQUARE_CODE.codes
}
_CODING_ORDER = tuple(chess.parse_square(name) for name in SQUARE_NAMES)  # a1, a2, ..., h8
# the coding order read on the real board, by (0x38 if colours flipped) | (0x07 if files mirrored)
_CODING_ORDERS = {xor: tuple(square ^ xor for square in _CODING_ORDER) for xor in (0, 0x07, 0x38, 0x3F)}
_EMPTY_BITS = SQUARE_CODE.bits("empty")
# code words by piece type: (side to move, other side)
_CELL_BITS = [("", "")] + [(SQUARE_CODE.bits(f"white_{chess.piece_name(t)}"),
                            SQUARE_CODE.bits(f"black_{chess.piece_name(t)}")) for t in chess.PIECE_TYPES]
_CORNERS = {"black_short": chess.H8, "black_long": chess.A8, "white_short": chess.H1, "white_long": chess.A1}
# castling flags in stream order as real corners, by "colours flipped" (the side to move is white when stored)
_CASTLING_CORNERS = (tuple(chess.BB_SQUARES[_CORNERS[name]] for name in _CASTLING_NAMES),
                     tuple(chess.BB_SQUARES[_CORNERS[name] ^ 0x38] for name in _CASTLING_NAMES))
_PIECE_TYPES = {name: chess.PIECE_NAMES.index(name) for name in chess.PIECE_NAMES if name}

_MOVES_BY_CODE: dict[int, tuple[chess.PieceType, int, int, int]] = {
    m.code: (_PIECE_TYPES[m.piece], m.number, m.dx, m.dy) for m in schema.MOVE_CODES
}
_CODE_OF_MOVE = {value: code for code, value in _MOVES_BY_CODE.items()}
_ANNOTATIONS = {a.value: a for a in schema.ANNOTATIONS}
_COMMENTS = {a.value: a for a in schema.COMMENTS}

# the hash, one table step per byte: (tmp & 63, byte) -> (next tmp & 63, sum of the two table entries)
_HASH_STEPS: list[tuple[int, int]] = []
for _state in range(64):
    for _byte in range(256):
        _first = (_state + ((0x0F - (_byte & 0x0F)) << 2) + 1) & 0x3F
        _second = (_first + ((0xF0 - (_byte & 0xF0)) >> 2) + 1) & 0x3F
        _HASH_STEPS.append((_second, schema.HASH_TABLE[_first] + schema.HASH_TABLE[_second]))

_MAX_LEVEL = 30  # the spec's loop runs n = 0, 1, 3, ... while n < 0x7fffffff: levels 0-30


# --- the normalised position --------------------------------------------------------------------------

class _Normalised(NamedTuple):
    signature: bytes
    flipped: bool
    mirrored: bool
    own: tuple[int, ...]
    """Bitboards of the side to move's pieces by piece type (index 1-6), on the real board."""


def _normalise(board: chess.Board) -> _Normalised:
    """The encoded position (the record's first bytes) and how ``board`` was normalised.

    Nothing is moved: the real board is read in the normalised board's coding order (squares XOR
    ``0x38`` when the colours are flipped, ``0x07`` when the files are mirrored), the side to move's pieces
    getting the white code words.
    """
    mover = board.occupied_co[board.turn]
    flipped = board.turn == chess.BLACK
    rights = board.clean_castling_rights() & chess.BB_CORNERS if board.castling_rights else 0
    king = board.kings & mover
    mirrored = not rights and king != 0 and (king.bit_length() - 1) & 7 < 4
    cells = [_EMPTY_BITS] * 64  # code words as bit strings: joining them is the fastest concatenation
    own = [0]
    for piece_type, bb in ((chess.PAWN, board.pawns), (chess.KNIGHT, board.knights), (chess.BISHOP, board.bishops),
                           (chess.ROOK, board.rooks), (chess.QUEEN, board.queens), (chess.KING, board.kings)):
        mover_word, other_word = _CELL_BITS[piece_type]
        squares = bb & mover
        own.append(squares)
        while squares:
            low = squares & -squares
            cells[low.bit_length() - 1] = mover_word
            squares ^= low
        squares = bb & ~mover
        while squares:
            low = squares & -squares
            cells[low.bit_length() - 1] = other_word
            squares ^= low
    bits = "".join([cells[square] for square in _CODING_ORDERS[(0x38 if flipped else 0) | (0x07 if mirrored else 0)]])
    value = int(bits, 2)
    length = 8 + len(bits)  # the header byte, then the squares
    flags = flag_bits = header = 0
    if board.ep_square is not None and board.has_legal_en_passant():
        flags, flag_bits, header = (7 - (board.ep_square & 7) if mirrored else board.ep_square & 7), _EP_BITS, _EP_FLAG
    if rights:
        for corner in _CASTLING_CORNERS[flipped]:
            flags = (flags << 1) | (1 if rights & corner else 0)
        flag_bits += _CASTLING_BITS
        header |= _CASTLING_FLAG
    total = _position_bits(length, flag_bits)
    value = (value << (total - length)) | flags
    size = total // 8
    return _Normalised(bytes((header | size,)) + value.to_bytes(size - 1, "big"), flipped, mirrored, tuple(own))


def _position_bits(squares_end: int, flag_bits: int) -> int:
    """Bits of the encoded position: the flags end on a byte boundary; with no flags, at least one pad bit.

    ``squares_end`` counts the header byte. This is the spec's "N = 8/4/3/7" padding rule in one line:
    the first byte boundary after the squares that leaves room for the flags.
    """
    if flag_bits:
        return (squares_end + flag_bits + 7) // 8 * 8
    return (squares_end // 8 + 1) * 8


def signature(board: chess.Board) -> bytes:
    """The encoded (normalised) position of ``board``: the first bytes of its record, and the hash input."""
    return _normalise(board).signature


def ctg_hash(encoded: bytes) -> int:
    """The spec's ``gen_hash`` of an encoded position (unsigned 32 bits)."""
    state = 0
    total = 0
    steps = _HASH_STEPS
    for byte in encoded:
        state, add = steps[(state << 8) | byte]
        total += add
    return total & 0xFFFFFFFF


def lookup_entries(hash_value: int, lower_bound: int, upper_bound: int) -> list[int]:
    """The ``.cto`` entry numbers the spec's loop reads for a hash, in order.

    ``for n = 0, 1, 3, 7, ...: c = (hash & n) + n; skip c < lower_bound; read entry c; stop once
    c >= upper_bound``. Node ``c`` is the dbm directory's node of the hash at level ``log2(n + 1)``.
    """
    entries = []
    n = 0
    while n < 0x7FFFFFFF:
        c = (hash_value & n) + n
        n = 2 * n + 1
        if c < lower_bound:
            continue
        entries.append(c)
        if c >= upper_bound:
            break
    return entries


def _transform(square: chess.Square, flipped: bool, mirrored: bool) -> chess.Square:
    """A square between the real board and the normalised one (the mapping is its own inverse)."""
    if flipped:
        square ^= 0x38
    if mirrored:
        square ^= 0x07
    return square


def _normalised_bb(bb: int, flipped: bool, mirrored: bool) -> int:
    """A bitboard of the real board on the normalised board."""
    if flipped:
        bb = chess.flip_vertical(bb)
    if mirrored:
        bb = chess.flip_horizontal(bb)
    return bb


def _nth_piece(bb: int, number: int) -> chess.Square | None:
    """The ``number``-th (from 1) square of ``bb`` in coding order (a1, a2, ..., a8, b1, ...)."""
    transposed = chess.flip_diagonal(bb)  # bit 8 * file + rank: coding order
    for _ in range(number - 1):
        transposed &= transposed - 1
    if not transposed:
        return None
    index = (transposed & -transposed).bit_length() - 1
    return chess.square(index >> 3, index & 7)


def _decode(code: int, own: Sequence[int], flipped: bool = False,
            mirrored: bool = False) -> tuple[chess.Square, chess.Square, chess.PieceType | None] | None:
    """``(from, to, promotion)`` on the normalised board; ``None`` when the code's piece is not there.

    ``own``: the side to move's pieces by type on the real board, which ``flipped``/``mirrored`` normalise.
    """
    piece_type, number, dx, dy = _MOVES_BY_CODE[code]
    origin = _nth_piece(_normalised_bb(own[piece_type], flipped, mirrored), number)
    if origin is None:
        return None
    target = chess.square((chess.square_file(origin) + dx) & 7, (chess.square_rank(origin) + dy) & 7)
    promotion = chess.QUEEN if piece_type == chess.PAWN and chess.square_rank(target) == 7 else None
    return origin, target, promotion


def decode_move(board: chess.Board, code: int) -> chess.Move | None:
    """The move of ``board`` that move code ``code`` stands for (``None``: the piece is not on the board).

    Raises :class:`KeyError` for a byte that is not a move code.
    """
    norm = _normalise(board)
    decoded = _decode(code, norm.own, norm.flipped, norm.mirrored)
    if decoded is None:
        return None
    origin, target, promotion = decoded
    return chess.Move(_transform(origin, norm.flipped, norm.mirrored), _transform(target, norm.flipped, norm.mirrored),
                      promotion)


def _encode(norm: _Normalised, move: chess.Move, piece_type: chess.PieceType | None) -> int | None:
    if piece_type is None or move.drop is not None:
        return None
    origin = _transform(move.from_square, norm.flipped, norm.mirrored)
    target = _transform(move.to_square, norm.flipped, norm.mirrored)
    if piece_type == chess.PAWN and chess.square_rank(target) == 7 and move.promotion != chess.QUEEN:
        return None  # CTG stores only queen promotions
    if move.promotion is not None and piece_type != chess.PAWN:
        return None
    bb = chess.flip_diagonal(_normalised_bb(norm.own[piece_type], norm.flipped, norm.mirrored))
    mask = 1 << (8 * chess.square_file(origin) + chess.square_rank(origin))
    if not bb & mask:
        return None
    number = bin(bb & (mask - 1)).count("1") + 1
    dx = (chess.square_file(target) - chess.square_file(origin)) & 7
    dy = (chess.square_rank(target) - chess.square_rank(origin)) & 7
    return _CODE_OF_MOVE.get((piece_type, number, dx, dy))


def encode_move(board: chess.Board, move: chess.Move) -> int | None:
    """The move code of ``move`` in ``board``; ``None`` when CTG cannot store it.

    CTG has codes for the first two knights, bishops, rooks and queens only, and promotes to a queen
    only; castling is the king's two-file step (python-chess's ``e1g1``).
    """
    return _encode(_normalise(board), move, board.piece_type_at(move.from_square))


# --- reading ------------------------------------------------------------------------------------------

class Rating(NamedTuple):
    """A rating block: the games with a known rating and the sum of those ratings."""

    games: int
    total: int

    @property
    def average(self) -> float | None:
        return self.total / self.games if self.games else None


_NO_RATING = Rating(0, 0)


def _symbol(table: dict[int, schema.Annotation], value: int) -> str:
    """The symbol of an annotation or comment byte (empty for an undeclared value)."""
    known = table.get(value)
    return known.symbol if known is not None else ""


class BookMove(NamedTuple):
    """A book move with its annotation."""

    move: chess.Move
    """The move in the position it belongs to (the probed board, or the normalised board when iterating)."""
    code: int
    """The move code as stored."""
    annotation: int
    """The annotation byte as stored (0 = none); its value is the NAG."""

    @property
    def nag(self) -> int | None:
        return self.annotation or None

    @property
    def symbol(self) -> str:
        """``!``, ``?``, ``!!``, ``??``, ``!?``, ``?!``, ... (empty for none or an undeclared value)."""
        return _symbol(_ANNOTATIONS, self.annotation)


class PositionRecord(NamedTuple):
    """One position of the book with its moves and statistics (from the point of view of the side to move)."""

    board: chess.Board
    """The position the moves belong to: the probed board, or the normalised board when iterating."""
    moves: tuple[BookMove, ...]
    games: int
    wins: int
    losses: int
    draws: int
    unknown1: int
    rating1: Rating
    """Ratings of the players of the side to move."""
    rating2: Rating
    """Ratings of their opponents."""
    recommendation: int
    unknown2: int
    comment: int
    signature: bytes = b""
    """The encoded normalised position (the record's first bytes)."""
    padding: int = 0
    """The padding bits as stored (0 in every known book)."""
    page: int | None = None
    number: int | None = None
    offset: int | None = None
    """Where the record is: data page, number on the page, absolute offset in the ``.ctg``."""
    flipped: bool = False
    mirrored: bool = False
    """How ``board`` maps onto the normalised board (colours flipped; files mirrored)."""

    @property
    def green(self) -> bool:
        """Recommended (shown green)."""
        return bool(self.recommendation & _GREEN)

    @property
    def red(self) -> bool:
        """Not recommended (shown red)."""
        return bool(self.recommendation & _RED)

    @property
    def other_flags(self) -> int:
        """The recommendation bits other than green and red, as stored."""
        return self.recommendation & _OTHER_FLAGS

    @property
    def comment_nag(self) -> int | None:
        return self.comment or None

    @property
    def comment_symbol(self) -> str:
        return _symbol(_COMMENTS, self.comment)

    @property
    def average_rating(self) -> float | None:
        """Average rating of the players of the side to move."""
        return self.rating1.average

    @property
    def opponents_rating(self) -> float | None:
        return self.rating2.average

    @property
    def performance(self) -> float | None:
        """Performance of the side to move: opponents' average + 400 * (wins - losses) / decided-or-drawn games."""
        scored = self.wins + self.draws + self.losses
        opponents = self.rating2.average
        if opponents is None or not scored:
            return None
        return opponents + 400 * (self.wins - self.losses) / scored

    def stats_bytes(self) -> bytes:
        """The 33 statistics bytes of this record."""
        values = {"games": self.games, "wins": self.wins, "losses": self.losses, "draws": self.draws,
                  "unknown1": self.unknown1, "rating1.games": self.rating1.games,
                  "rating1.total": self.rating1.total, "rating2.games": self.rating2.games,
                  "rating2.total": self.rating2.total, "unknown2": self.unknown2, "comment": self.comment}
        out = bytearray(_STATS_SIZE)
        for name, offset, size in _STATS_FIELDS:
            value = values[name]
            if not 0 <= value < _STATS_LIMITS[name]:
                raise ValueError(f"{name} = {value} does not fit in {size} bytes")
            out[offset:offset + size] = value.to_bytes(size, "big")
        if not 0 <= self.recommendation < 256:
            raise ValueError(f"recommendation = {self.recommendation} does not fit in a byte")
        out[_RECOMMENDATION_OFFSET or 0] = self.recommendation
        return bytes(out)

    def to_bytes(self) -> bytes:
        """The whole record as stored."""
        if len(self.moves) > (255 - _MOVES_LENGTH_SIZE) // _MOVE_SIZE:
            raise ValueError(f"a CTG record holds at most 127 moves, not {len(self.moves)}")
        moves = bytearray((_MOVES_LENGTH_SIZE + _MOVE_SIZE * len(self.moves),))
        for move in self.moves:
            if move.code not in _MOVES_BY_CODE or not 0 <= move.annotation < 256:
                raise ValueError(f"invalid move code {move.code} or annotation {move.annotation}")
            moves += bytes((move.code, move.annotation))
        return self.signature + bytes(moves) + self.stats_bytes()


class MissingIndexWarning(UserWarning):
    """The ``.cto``/``.ctb`` files are not beside the ``.ctg``: probes scan every page."""


class _Page(NamedTuple):
    offsets: list[int]
    by_signature: dict[bytes, int]


class CtgBook:
    """A CTG book (``.ctg`` plus ``.cto``/``.ctb`` when present), mapped read-only. Use :func:`open_book`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        stem, extension = os.path.splitext(self.path)
        if extension.lower() in (".cto", ".ctb"):
            self.path = _sibling(stem, ".ctg") or stem + ".ctg"
            stem = os.path.splitext(self.path)[0]
        self._data = map_file(self.path)
        size = len(self._data)
        if size < PAGE_SIZE or size % PAGE_SIZE:
            pages, rest = divmod(size, PAGE_SIZE)
            self.close()
            raise TruncatedError(f"truncated page {pages - 1}" if pages else "truncated header page",
                                 needed=PAGE_SIZE, available=rest if pages else size, file=self.path,
                                 offset=pages * PAGE_SIZE, show_path=False)
        self.data_pages = size // PAGE_SIZE - 1
        self.header_games = int.from_bytes(self._data[28:32], "big")
        self._pages: dict[int, _Page] = {}
        self._everything: dict[bytes, int] | None = None
        self.cto_path = _sibling(stem, ".cto")
        self.ctb_path = _sibling(stem, ".ctb")
        self.directory: list[int] | None = None
        self.lower_bound = self.upper_bound = 0
        if self.cto_path is None or self.ctb_path is None:
            warnings.warn(f"{os.path.basename(self.path)}: no .cto/.ctb beside it: probes scan every page",
                          MissingIndexWarning, stacklevel=3)
        else:
            try:
                self._read_index(self.cto_path, self.ctb_path)
            except BaseException:
                self.close()
                raise

    def _read_index(self, cto_path: str, ctb_path: str) -> None:
        with open(ctb_path, "rb") as handle:
            ctb = handle.read(12)
        if len(ctb) < 12:
            raise TruncatedError("truncated .ctb header", needed=12, available=len(ctb), file=ctb_path, offset=0,
                                 show_path=False)
        self.lower_bound, self.upper_bound = struct.unpack_from(">II", ctb, 4)
        with open(cto_path, "rb") as handle:
            cto = handle.read()
        header_size = schema.CTO_HEADER.sizeof()
        if len(cto) < header_size:
            raise TruncatedError("truncated .cto header", needed=header_size, available=len(cto), file=cto_path,
                                 offset=0, show_path=False)
        entries = int.from_bytes(cto[4:8], "big")
        room = (len(cto) - header_size) // 4
        if entries > room:  # checked before anything is allocated from the count
            raise TruncatedError(f"the .cto header says {entries} entries, the file holds {room}",
                                 file=cto_path, offset=4, path="header.entries", show_path=False)
        self.directory = list(struct.unpack_from(f">{entries}i", cto, header_size))

    # -- context manager

    def __enter__(self) -> CtgBook:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        data = self._data
        self._data = b""
        if hasattr(data, "close"):
            data.close()

    # -- pages

    def _page(self, page: int) -> _Page:
        """The records of a data page (their offsets, and offset by encoded position), validated."""
        cached = self._pages.get(page)
        if cached is not None:
            return cached
        if not 0 <= page < self.data_pages:
            raise InvalidValueError("page number out of range", expected=f"0..{self.data_pages - 1}",
                                    actual=page, file=self.path, path=f"pages[{page}]")
        data = self._data
        base = PAGE_SIZE * (page + 1)
        count, used = _PAGE_HEADER.unpack_from(data, base)
        where = f"pages[{page}]"
        if not _PAGE_HEADER_SIZE <= used <= PAGE_SIZE:
            raise InvalidValueError("bytes used out of range", expected=f"{_PAGE_HEADER_SIZE}..{PAGE_SIZE}",
                                    actual=used, file=self.path, offset=base + 2, path=f"{where}.header.used")
        position = base + _PAGE_HEADER_SIZE
        end = base + used
        offsets = []
        by_signature: dict[bytes, int] = {}
        for number in range(count):
            record = f"{where}.records[{number}]"
            if position >= end:
                raise TruncatedError(f"{record}: the page header says {count} records in {used} bytes, record "
                                     f"{number} starts at byte {position - base}", file=self.path, offset=position,
                                     path=f"{where}.header.positions", show_path=False)
            length = data[position] & _LENGTH_MASK
            if length < _MIN_POSITION:
                raise InvalidValueError("encoded position too short to hold 64 squares", expected=f">= {_MIN_POSITION}",
                                        actual=length, file=self.path, offset=position,
                                        path=f"{record}.position.header.length")
            if position + length >= end:
                raise TruncatedError(f"truncated {record}.position", needed=length + 1,
                                     available=end - position, file=self.path, offset=position, show_path=False)
            moves = data[position + length]
            if not moves % 2:
                raise InvalidValueError("moves block length is even", expected="2 * moves + 1", actual=moves,
                                        file=self.path, offset=position + length, path=f"{record}.moves.length")
            size = length + moves + _STATS_SIZE
            if position + size > end:
                raise TruncatedError(f"truncated {record}", needed=size, available=end - position,
                                     file=self.path, offset=position, show_path=False)
            offsets.append(position)
            by_signature.setdefault(bytes(data[position:position + length]), position)
            position += size
        if position != end:
            raise InvalidValueError(f"the {count} records end at byte {position - base}", expected=position - base,
                                    actual=used, file=self.path, offset=base + 2, path=f"{where}.header.used")
        result = _Page(offsets, by_signature)
        self._pages[page] = result
        return result

    def page_records(self, page: int) -> list[PositionRecord]:
        """The records of data page ``page`` (normalised boards), validated."""
        return [self._decode_record(page, number, offset) for number, offset in enumerate(self._page(page).offsets)]

    def records(self) -> Iterator[PositionRecord]:
        """Every stored position, page by page: the normalised board (white to move) and its record."""
        for page in range(self.data_pages):
            yield from self.page_records(page)

    __iter__ = records

    def __len__(self) -> int:
        return sum(len(self._page(page).offsets) for page in range(self.data_pages))

    # -- lookup

    def _locate(self, encoded: bytes) -> tuple[int, int] | None:
        """(page, offset) of the record of an encoded position, through the .cto lookup (or all pages)."""
        if self.directory is None:
            if self._everything is None:
                self._everything = {}
                for page in range(self.data_pages):
                    for key, start in self._page(page).by_signature.items():
                        self._everything.setdefault(key, page << 32 | start)
            found = self._everything.get(encoded)
            return None if found is None else (found >> 32, found & 0xFFFFFFFF)
        directory = self.directory
        size = len(directory)
        for entry in lookup_entries(ctg_hash(encoded), self.lower_bound, self.upper_bound):
            page = directory[entry] if entry < size else -1  # past the table's end: empty (see the docs)
            if page < 0:
                continue
            if page >= self.data_pages:
                raise InvalidValueError("page number out of range", expected=f"0..{self.data_pages - 1}",
                                        actual=page, file=self.cto_path, offset=16 + 4 * entry,
                                        path=f"pages[{entry}]")
            offset = self._page(page).by_signature.get(encoded)
            if offset is not None:
                return page, offset
        return None

    def probe(self, board: chess.Board, *, legal_only: bool = True) -> PositionRecord | None:
        """The record of ``board`` (``None``: not in book), its moves as moves of ``board``.

        With ``legal_only``, moves that are not legal in ``board`` are left out.
        """
        norm = _normalise(board)
        found = self._locate(norm.signature)
        if found is None:
            return None
        page, offset = found
        data = self._data
        length = len(norm.signature)
        count = (data[offset + length] - _MOVES_LENGTH_SIZE) // _MOVE_SIZE
        moves = []
        flipped, mirrored = norm.flipped, norm.mirrored
        for number in range(count):
            at = offset + length + _MOVES_LENGTH_SIZE + _MOVE_SIZE * number
            code = data[at]
            if code not in _MOVES_BY_CODE:
                raise _bad_code(self.path, page, None, at, number, code)
            decoded = _decode(code, norm.own, flipped, mirrored)
            if decoded is None:
                raise _missing_piece(self.path, page, None, at, number, code)
            origin, target, promotion = decoded
            move = chess.Move(_transform(origin, flipped, mirrored), _transform(target, flipped, mirrored), promotion)
            if legal_only and not board.is_legal(move):
                continue
            moves.append(BookMove(move, code, data[at + 1]))
        return self._stats(board.copy(stack=False), tuple(moves), offset + length + data[offset + length],
                           norm.signature, 0, page, None, offset, flipped, mirrored)

    def __contains__(self, board: object) -> bool:
        return isinstance(board, chess.Board) and self._locate(_normalise(board).signature) is not None

    def _stats(self, board: chess.Board, moves: tuple[BookMove, ...], at: int, encoded: bytes, padding: int,
               page: int | None, number: int | None, offset: int, flipped: bool, mirrored: bool) -> PositionRecord:
        stats = int.from_bytes(self._data[at:at + _STATS_SIZE], "big")
        (games, wins, losses, draws, unknown1, r1_games, r1_total, r2_games, r2_total, unknown2, comment,
         recommendation) = [(stats >> shift) & mask for shift, mask in _STATS_SHIFTS]
        return PositionRecord(board, moves, games, wins, losses, draws, unknown1, Rating(r1_games, r1_total),
                              Rating(r2_games, r2_total), recommendation, unknown2, comment, encoded, padding, page,
                              number, offset, flipped, mirrored)

    def _decode_record(self, page: int, number: int, offset: int) -> PositionRecord:
        """A record, fully decoded and checked: the normalised board, the moves on it, the statistics."""
        data = self._data
        where = f"pages[{page}].records[{number}]"
        head = data[offset]
        length = head & _LENGTH_MASK
        encoded = bytes(data[offset:offset + length])
        board, padding = _decode_position(encoded, self.path, offset, where)
        own = [0] + [board.pieces_mask(piece_type, chess.WHITE) for piece_type in range(1, 7)]
        moves = []
        for move_number in range((data[offset + length] - _MOVES_LENGTH_SIZE) // _MOVE_SIZE):
            at = offset + length + _MOVES_LENGTH_SIZE + _MOVE_SIZE * move_number
            code = data[at]
            if code not in _MOVES_BY_CODE:
                raise _bad_code(self.path, page, number, at, move_number, code)
            decoded = _decode(code, own)
            if decoded is None:
                raise _missing_piece(self.path, page, number, at, move_number, code)
            moves.append(BookMove(chess.Move(*decoded), code, data[at + 1]))
        return self._stats(board, tuple(moves), offset + length + data[offset + length], encoded, padding, page,
                           number, offset, False, False)

    # -- summaries

    def findings(self) -> list[str]:
        """What a user should know about the book (missing index, header counts, junk, the lookup's reach)."""
        notes = []
        if self.directory is None:
            notes.append("no .cto/.ctb beside the .ctg: probes scan every page")
        header_pages = int.from_bytes(self._data[16:20], "big")
        if header_pages != self.data_pages:
            notes.append(f"the header says {header_pages} data pages, the file has {self.data_pages}")
        records = len(self)
        header_positions = int.from_bytes(self._data[24:28], "big")
        if header_positions != records:
            notes.append(f"the header's position count is {header_positions}, the pages hold {records} records")
        junk = sum(1 for page in range(self.data_pages) if any(self._junk(page)))
        if junk:
            notes.append(f"{junk} pages have non-zero bytes after their used part (ignored, kept)")
        if self.directory is not None:
            reach = _highest_entry_read(self.lower_bound, self.upper_bound)
            if reach >= len(self.directory):
                notes.append(f"the lookup reads .cto entries up to {reach}, the table has {len(self.directory)} "
                             "(entries past the end count as empty)")
        return notes

    def _junk(self, page: int) -> bytes:
        base = PAGE_SIZE * (page + 1)
        _, used = _PAGE_HEADER.unpack_from(self._data, base)
        return bytes(self._data[base + used:base + PAGE_SIZE])

    def located(self, board: chess.Board) -> tuple[int, int, int] | None:
        """(page, number on the page, offset) of the record of ``board``, or ``None``."""
        found = self._locate(_normalise(board).signature)
        if found is None:
            return None
        page, offset = found
        return page, self._page(page).offsets.index(offset), offset

    def to_bookstats(self, start: chess.Board | None = None) -> BookStats:
        """The positions reached from ``start`` (default: the start position) along book moves, as a BookStats.

        A move's statistics are those of the position it leads to, seen from the side that played it
        (its wins are that position's losses); a move whose position is not stored has empty statistics.
        """
        stats = BookStats(games=self.header_games)
        for board, record, children in self._walk(start):
            position = stats.positions.setdefault(_fen_key(board), _position_stats(board))
            for move in record.moves:
                child = children.get(move.move)
                position.moves[move.move] = MoveStats() if child is None else MoveStats(
                    child.games, child.losses, child.draws, child.wins)
        return stats

    def polyglot_weights(self, start: chess.Board | None = None) -> tuple[dict[str, dict[chess.Move, int]], int]:
        """Polyglot weights (``polyglot.write_book``'s mapping) for the positions reached from ``start``.

        Returns the mapping and the number of stored positions that were not reached. See
        :func:`polyglot_weight` for the rule; weights are scaled down together when one passes 65535.
        """
        weights: dict[str, dict[chess.Move, int]] = {}
        reached: set[bytes] = set()
        for board, record, children in self._walk(start):
            reached.add(record.signature)
            weights[board.fen()] = {move.move: polyglot_weight(children.get(move.move), move.annotation)
                                    for move in record.moves}
        largest = max((w for moves in weights.values() for w in moves.values()), default=0)
        if largest > 0xFFFF:
            for moves in weights.values():
                for move, weight in moves.items():
                    moves[move] = max(weight * 0xFFFF // largest, 1) if weight else 0
        return weights, len(self) - len(reached)

    def _walk(self, start: chess.Board | None) -> Iterator[tuple[chess.Board, PositionRecord,
                                                                 dict[chess.Move, PositionRecord | None]]]:
        """Breadth first from ``start`` along legal book moves: (board, its record, the records of its moves)."""
        first = (start or chess.Board()).copy(stack=False)
        queue = collections.deque([first])
        seen = {_fen_key(first)}
        records: dict[str, PositionRecord | None] = {}

        def probe(board: chess.Board) -> PositionRecord | None:
            key = _fen_key(board)
            if key not in records:
                records[key] = self.probe(board)
            return records[key]

        while queue:
            board = queue.popleft()
            record = probe(board)
            if record is None:
                continue
            children: dict[chess.Move, PositionRecord | None] = {}
            for move in record.moves:
                child = board.copy(stack=False)
                child.push(move.move)
                children[move.move] = probe(child)
                key = _fen_key(child)
                if key not in seen:
                    seen.add(key)
                    queue.append(child)
            yield board, record, children


def _fen_key(board: chess.Board) -> str:
    """A position without move counters, en passant only when a capture is legal (the BookStats key)."""
    return board.fen(en_passant="legal").rsplit(" ", 2)[0]


def _position_stats(board: chess.Board) -> PositionStats:
    return PositionStats(board.fen(en_passant="legal"))


def _bad_code(path: str, page: int, number: int | None, at: int, move: int, code: int) -> FormatError:
    where = f"pages[{page}].records[{number if number is not None else '?'}]"
    return InvalidValueError("not a move code", expected="one of the 166 move codes of the table",
                             actual=f"0x{code:02x}", file=path, offset=at, path=f"{where}.moves.moves[{move}].code")


def _missing_piece(path: str, page: int, number: int | None, at: int, move: int, code: int) -> FormatError:
    piece_type, count, _, _ = _MOVES_BY_CODE[code]
    where = f"pages[{page}].records[{number if number is not None else '?'}]"
    return InvalidValueError(f"move code 0x{code:02x} moves piece {count} of kind {chess.piece_name(piece_type)}, "
                             "which the position does not have", file=path, offset=at,
                             path=f"{where}.moves.moves[{move}].code")


def _decode_position(encoded: bytes, path: str, offset: int, where: str) -> tuple[chess.Board, int]:
    """The normalised board of an encoded position and its padding bits, checked."""
    head = encoded[0]
    length = len(encoded)
    bits = 8 * (length - 1)
    value = int.from_bytes(encoded[1:], "big")
    try:
        symbols, end = SQUARE_CODE.decode(value, bits, 64)
    except PrefixCodeError as exc:
        raise InvalidValueError(str(exc), file=path, offset=offset + 1 + exc.bit // 8,
                                path=f"{where}.position.board.squares") from exc
    has_ep = bool(head & _EP_FLAG)
    has_castling = bool(head & _CASTLING_FLAG)
    flag_bits = _EP_BITS * has_ep + _CASTLING_BITS * has_castling
    padding_bits = bits - end - flag_bits
    if padding_bits < 0:
        raise InvalidValueError(f"the squares take {end} bits, the position leaves {bits - flag_bits} before the "
                                "flags", file=path, offset=offset, path=f"{where}.position.header.length")
    expected = _position_bits(8 + end, flag_bits) // 8
    if expected != length:
        raise InvalidValueError("length does not follow the padding rule", expected=expected, actual=length,
                                file=path, offset=offset, path=f"{where}.position.header.length")
    padding = (value >> flag_bits) & ((1 << padding_bits) - 1)
    board = chess.Board(None)
    kings = [0, 0]
    for square, symbol in zip(_CODING_ORDER, symbols, strict=True):
        piece = _PIECE_OF_SYMBOL[symbol]
        if piece is not None:
            board.set_piece_at(square, piece)
            if piece.piece_type == chess.KING:
                kings[piece.color] += 1
    if kings != [1, 1]:
        raise InvalidValueError(f"{kings[chess.WHITE]} white and {kings[chess.BLACK]} black kings", expected="one "
                                "king per side", file=path, offset=offset + 1, path=f"{where}.position.board.squares")
    if has_castling:
        flags = value & ((1 << _CASTLING_BITS) - 1)
        corners = {"black_short": chess.BB_H8, "black_long": chess.BB_A8, "white_short": chess.BB_H1,
                   "white_long": chess.BB_A1}
        rights = 0
        for position, name in enumerate(_CASTLING_NAMES):
            if flags >> (_CASTLING_BITS - 1 - position) & 1:
                rights |= corners[name]
        board.castling_rights = rights
    if has_ep:
        board.ep_square = chess.square((value >> (_CASTLING_BITS * has_castling)) & 7, 5)
    return board, padding


def _sibling(stem: str, extension: str) -> str | None:
    """``stem + extension`` in either case, if such a file exists."""
    for candidate in (stem + extension, stem + extension.upper()):
        if os.path.exists(candidate):
            return candidate
    return None


def _highest_entry_read(lower: int, upper: int) -> int:
    """The largest ``.cto`` entry number the lookup loop can read, over all hashes."""
    best = -1
    stack = [(0, 0)]  # (level, node)
    while stack:
        level, node = stack.pop()
        if node >= lower:
            best = max(best, node)
            if node >= upper:
                continue
        if level < _MAX_LEVEL:
            stack.append((level + 1, node + (1 << level)))
            stack.append((level + 1, node + (2 << level)))
    return best


def open_book(path: str | os.PathLike[str]) -> CtgBook:
    """Open a CTG book: the ``.ctg`` (its ``.cto``/``.ctb`` are found beside it). Use as a context manager.

    Without ``.cto``/``.ctb`` the book still works: probes scan the pages (a :class:`MissingIndexWarning`
    says so once). Bad input raises :class:`~chessformats.FormatError` naming the page, offset and field.
    """
    return CtgBook(path)


def polyglot_weight(child: PositionRecord | None, annotation: int = 0) -> int:
    """The Polyglot weight of a CTG move, from the record of the position it leads to and its annotation.

    ``2 * wins + draws + unknown`` for the side that plays the move (its wins are the child record's
    losses; games without a known result count like draws), times 2 for ``!`` and 4 for ``!!``, halved
    for ``?!``; 0 for ``?`` and ``??`` moves and for moves into a position marked red (not recommended);
    1 when the position the move leads to is not stored.
    """
    if annotation in (0x02, 0x04):
        return 0
    if child is None:
        return 1
    if child.red:
        return 0
    unknown = max(child.games - child.wins - child.draws - child.losses, 0)
    weight = 2 * child.losses + child.draws + unknown
    factor = {0x01: 2, 0x03: 4}.get(annotation, 1)
    weight *= factor
    if annotation == 0x06:
        weight = max(weight // 2, 1) if weight else 0
    return weight


# --- writing ------------------------------------------------------------------------------------------

def make_record(board: chess.Board, moves: Iterable[chess.Move | tuple[chess.Move, int]] = (), *,
                games: int = 0, wins: int = 0, losses: int = 0, draws: int = 0, unknown1: int = 0,
                rating1: Rating = _NO_RATING, rating2: Rating = _NO_RATING, recommendation: int = 0,
                unknown2: int = 0, comment: int = 0) -> PositionRecord:
    """A record for ``board``: moves (optionally ``(move, annotation)``) and statistics of the side to move.

    Raises :class:`ValueError` for a move CTG cannot store (see :func:`encode_move`).
    """
    norm = _normalise(board)
    book_moves = []
    for item in moves:
        move, annotation = item if isinstance(item, tuple) else (item, 0)
        code = _encode(norm, move, board.piece_type_at(move.from_square))
        if code is None:
            raise ValueError(f"CTG cannot store the move {move.uci()} in {board.fen()}")
        book_moves.append(BookMove(move, code, annotation))
    return PositionRecord(board.copy(stack=False), tuple(book_moves), games, wins, losses, draws, unknown1, rating1,
                          rating2, recommendation, unknown2, comment, norm.signature, 0, None, None, None,
                          norm.flipped, norm.mirrored)


def records_from_stats(stats: BookStats) -> tuple[list[PositionRecord], int]:
    """Records for a BookStats: every position with moves, and every position a move leads to.

    A position's statistics are the sums over the moves that lead to it (for the side to move there: its
    wins are those moves' losses); a position no move leads to (the start) sums its own moves. Positions
    that normalise to the same CTG position are one record (their moves merged). Returns the records and
    the number of moves left out because CTG cannot store them (third knights, underpromotions).
    """
    boards: dict[bytes, chess.Board] = {}
    moves: dict[bytes, dict[int, list[int]]] = {}  # signature -> code -> [games, wins, draws, losses]
    incoming: dict[bytes, list[int]] = {}  # games, wins, draws, losses of the side to move
    skipped = 0
    for position in stats:
        board = position.board()
        norm = _normalise(board)
        boards.setdefault(norm.signature, board)
        codes = moves.setdefault(norm.signature, {})
        for move, move_stats in position.moves.items():
            code = _encode(norm, move, board.piece_type_at(move.from_square))
            if code is None or not board.is_legal(move):
                skipped += 1
                continue
            totals = codes.setdefault(code, [0, 0, 0, 0])
            for index, value in enumerate((move_stats.games, move_stats.wins, move_stats.draws, move_stats.losses)):
                totals[index] += value
            child = board.copy(stack=False)
            child.push(move)
            child_signature = signature(child)
            boards.setdefault(child_signature, child)
            into = incoming.setdefault(child_signature, [0, 0, 0, 0])
            into[0] += move_stats.games
            into[1] += move_stats.losses
            into[2] += move_stats.draws
            into[3] += move_stats.wins
    records = []
    for encoded, board in boards.items():
        codes = moves.get(encoded, {})
        if encoded in incoming:
            games, wins, draws, losses = incoming[encoded]
        else:
            games, wins, draws, losses = (sum(t[i] for t in codes.values()) for i in range(4))
        norm = _normalise(board)
        book_moves = tuple(BookMove(_code_move(norm, code), code, 0) for code in codes)
        records.append(PositionRecord(board, book_moves, games, wins, losses, draws, 0, Rating(0, 0), Rating(0, 0),
                                      0, 0, 0, encoded, 0, None, None, None, norm.flipped, norm.mirrored))
    if skipped:
        warnings.warn(f"{skipped} moves left out: CTG cannot store them (third pieces, underpromotions)",
                      stacklevel=2)
    return records, skipped


def _code_move(norm: _Normalised, code: int) -> chess.Move:
    decoded = _decode(code, norm.own, norm.flipped, norm.mirrored)
    assert decoded is not None
    origin, target, promotion = decoded
    return chess.Move(_transform(origin, norm.flipped, norm.mirrored),
                      _transform(target, norm.flipped, norm.mirrored), promotion)


class _Layout(NamedTuple):
    pages: list[list[bytes]]
    directory: list[int]
    lower_bound: int
    upper_bound: int


def _layout(records: Sequence[tuple[bytes, bytes]]) -> _Layout:
    """Pages and ``.cto`` table for records ``(encoded position, record bytes)``: the dbm scheme.

    The directory is dbm's binary trie over the hash bits, lowest bit first: node ``c = (hash & n) + n``
    at level ``k`` (``n = 2**k - 1``). A node whose records fill more than a page is split by the next
    bit; the root is always split, so that readers that start at ``n = 1`` find every position. Leaves
    are packed into pages in trie order, several small leaves sharing a page. See the format notes.
    """
    items = [(ctg_hash(encoded), record) for encoded, record in records]
    leaves: list[tuple[int, int, list[bytes], int]] = []  # (level, node, records, bytes)
    interior: list[int] = []
    stack = [(0, 0, items)]
    while stack:
        level, bits, group = stack.pop()
        node = bits + (1 << level) - 1
        size = sum(len(record) for _, record in group)
        if level >= 1 and size <= _PAGE_CAPACITY:
            leaves.append((level, node, [record for _, record in group], size))
            continue
        if level >= _MAX_LEVEL or (len({h for h, _ in group}) == 1 and level >= 1):
            raise ValueError("too many positions share one hash to fit in a page")
        interior.append(node)
        one = [item for item in group if item[0] >> level & 1]
        zero = [item for item in group if not item[0] >> level & 1]
        stack.append((level + 1, bits | 1 << level, one))
        stack.append((level + 1, bits, zero))
    used = [leaf for leaf in leaves if leaf[2]]
    lower = (1 << min((leaf[0] for leaf in used), default=1)) - 1
    upper = max(interior) + 1
    pages: list[list[bytes]] = []
    room = 0
    page_of: dict[int, int] = {}
    for _, node, leaf_records, size in used:  # trie order (zero before one): next fit
        if not pages or size > room:
            pages.append([])
            room = _PAGE_CAPACITY
        pages[-1].extend(leaf_records)
        room -= size
        page_of[node] = len(pages) - 1
    directory = [-1] * (_highest_entry_read(lower, upper) + 1)
    for node, page in page_of.items():
        directory[node] = page
    return _Layout(pages, directory, lower, upper)


def write_book(path: str | os.PathLike[str], book: BookStats | Iterable[PositionRecord], *,
               games: int | None = None) -> int:
    """Write a CTG book: ``path`` (``.ctg``) and its ``.cto`` and ``.ctb``, each atomically; return the records.

    ``book`` is the format-neutral :class:`BookStats` (see :func:`records_from_stats`) or records (from a
    book's :meth:`CtgBook.records`, :func:`make_record`, ...). Records of the same position are merged
    (the first one wins). ``games`` goes into the header (default: the BookStats' games, else the
    largest game count of a record).
    """
    if isinstance(book, BookStats):
        records, _ = records_from_stats(book)
        if games is None:
            games = book.games
    else:
        records = list(book)
    unique: dict[bytes, bytes] = {}
    for record in records:
        if not record.signature:
            raise ValueError("a record needs its encoded position (use make_record)")
        unique.setdefault(record.signature, record.to_bytes())
    if games is None:
        games = max((r.games for r in records), default=0)
    layout = _layout(list(unique.items()))
    stem = os.path.splitext(os.fspath(path))[0]
    header = dict(schema.HEADER_PAGE_DEFAULTS, data_pages=len(layout.pages), positions=len(unique), games=games)
    with atomic_write(stem + ".cto") as handle:
        handle.write(schema.CTO.build({"header": dict(schema.CTO_HEADER_DEFAULTS, entries=len(layout.directory),
                                                      unknown_12=layout.lower_bound),
                                       "pages": layout.directory, "trailing": b""}))
    with atomic_write(stem + ".ctb") as handle:
        handle.write(schema.CTB.build(dict(schema.CTB_DEFAULTS, lower_bound=layout.lower_bound,
                                           upper_bound=layout.upper_bound)))
    with atomic_write(path) as handle:
        handle.write(schema.HEADER_PAGE.build(header))
        for page in layout.pages:
            body = b"".join(page)
            handle.write(_PAGE_HEADER.pack(len(page), _PAGE_HEADER_SIZE + len(body)) + body
                         + bytes(_PAGE_CAPACITY - len(body)))
    return len(unique)


def make_book(path: str | os.PathLike[str], builder: Any, *, min_games: int = 3, min_score: float = 0.0,
              only: chess.Color | None = None, uniform: bool = False) -> int:
    """``chessformats build -o BOOK.ctg``: a CTG book from a :class:`~.bookbuild.BookBuilder`; returns the records.

    A move enters the book with at least ``min_games`` games (real counts: CTG stores them), a score
    ``(wins + draws / 2) / games`` of at least ``min_score`` for the side that plays it, and, with
    ``only``, when that side is ``only``. Positions get the statistics of :func:`records_from_stats`.
    ``uniform`` (Polyglot weights of 1) has no CTG meaning and is refused.
    """
    if uniform:
        raise ValueError("--uniform sets Polyglot weights; a CTG book stores game counts")
    stats = builder.to_stats()
    kept = BookStats(games=stats.games)
    for key, position in stats.positions.items():
        turn = position.fen.split()[1] == "w"
        if only is not None and turn != only:
            continue
        moves = {move: move_stats for move, move_stats in position.moves.items()
                 if move_stats.games >= max(min_games, 1)
                 and (move_stats.wins + move_stats.draws / 2) / move_stats.games >= min_score}
        if moves:
            kept.positions[key] = type(position)(position.fen, moves)
    return write_book(path, kept, games=stats.games)


# --- conversion -----------------------------------------------------------------------------------------

def to_polyglot(ctg_path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str:
    """Convert a CTG book to a Polyglot book (positions reached from the start); returns a summary."""
    from . import polyglot

    with open_book(ctg_path) as book:
        weights, unreached = book.polyglot_weights()
    entries = polyglot.write_book(out, weights)
    return (f"{len(weights)} positions, {entries} entries written to {os.fspath(out)}"
            + (f"; {unreached} stored positions are not reached from the start position (left out)"
               if unreached else ""))


def from_polyglot(bin_path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str:
    """Convert a Polyglot book to CTG (positions reached from the start); returns a summary.

    A move's weight becomes the number of games of the position it leads to, with unknown results.
    """
    from . import polyglot

    stats = BookStats()
    first = chess.Board()
    with polyglot.open_book(bin_path) as book:
        for board, entries in polyglot.reachable_positions(book):
            position = stats.positions.setdefault(_fen_key(board), _position_stats(board))
            for entry in entries:
                position.moves[entry.move] = MoveStats(games=entry.weight)
        stats.games = sum(m.games for m in stats.positions[_fen_key(first)].moves.values()) \
            if _fen_key(first) in stats.positions else 0
        total = len(book)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        count = write_book(out, stats)
    note = "".join(f"; {w.message}" for w in caught)
    return f"{len(stats)} positions reached from the start ({total} Polyglot entries) -> {count} records{note}"


def convert(source: str, source_format: str, target: str, target_format: str) -> str:
    """``chessformats convert``: CTG -> Polyglot, Polyglot -> CTG, CTG -> CTG (rewritten)."""
    if source_format == "ctg" and target_format == "polyglot":
        return to_polyglot(source, target)
    if source_format == "polyglot" and target_format == "ctg":
        return from_polyglot(source, target)
    if source_format == "ctg" and target_format == "ctg":
        with open_book(source) as book:
            count = write_book(target, book.records(), games=book.header_games)
        return f"{count} records written to {target}"
    raise ValueError(f"cannot convert {source_format} to {target_format} (CTG <-> Polyglot and CTG -> CTG)")
