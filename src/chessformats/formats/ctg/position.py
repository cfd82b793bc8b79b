"""CTG positions: the encoded (normalised) position, its hash and ``.cto`` lookup, and the move codes.

The byte layout is :mod:`chessformats.schemas.ctg`; the normalised board and the move coding are shared with
Kvetka (:mod:`chessformats.formats.normalised`). What is CTG's own: the header byte (length, en-passant and
castling flags), the en-passant file only when a capture is legal, the padding rule, the hash.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from typing import Any

import chess

from ...engine.codec import codec
from ...engine.errors import InvalidValueError
from ...schemas import ctg as schema
from ...schemas.ctg import position_bits
from ...schemas.squares import SQUARE_CODE, SQUARE_NAMES
from ..normalised import (
    CASTLING_BITS,
    MoveTable,
    Normalised,
    castling_rights,
    en_passant_file,
    normalise,
    square_board,
)
from ..normalised import occupied_squares as normalised_occupied

__all__ = ["ctg_hash", "decode_move", "encode_move", "lookup_entries", "signature"]

# --- tables derived from the declarations -------------------------------------------------------------

_HEADER = codec(schema.POSITION_HEADER)
HEADER_SIZE = int(_HEADER.size or 0)
"""The header byte (length and flags) that starts an encoded position."""
_LENGTH = _HEADER.field("length")
LENGTH_OF = bytes(_LENGTH.extract(head) for head in range(1 << (8 * HEADER_SIZE)))
"""The position length of each header byte."""


def _header_byte(has_en_passant: bool, has_castling: bool, length: int) -> bytes:
    """The header byte of an encoded position (InvalidValueError for a length the field cannot hold)."""
    return bytes(_HEADER.encode({"unused": 0, "has_castling": has_castling, "has_en_passant": has_en_passant,
                                 "length": length}))


_HEADER_BYTES = {(ep, castling, length): _header_byte(ep, castling, length)
                 for ep in (False, True) for castling in (False, True) for length in range(_LENGTH.mask + 1)}
"""The header byte by (has en passant, has castling, length)."""
_HEADER_FIELDS = operator.itemgetter(*(_HEADER.leaves.index(name) for name in ("has_en_passant", "has_castling",
                                                                                "length")))
"""(has en passant, has castling, length) from the header's decoded value (its fields in declaration order)."""
LENGTH_INDEX = _HEADER.leaves.index("length")
_EP_BITS = schema.flag_bits(True, False)
_RIGHTS = {flags: castling_rights(sum(flag << (CASTLING_BITS - 1 - bit) for bit, flag in enumerate(flags)))
           for flags in itertools.product((False, True), repeat=CASTLING_BITS)}
"""The castling rights of the normalised board by the decoded castling flags (in stream order)."""
_EMPTY_BITS = SQUARE_CODE.bit_length(["empty"])
_EXTRA_BITS = tuple((f"{name}s", SQUARE_CODE.bit_length([f"white_{name}"]) - _EMPTY_BITS)
                    for name in chess.PIECE_NAMES[1:])
"""The bits a piece's code word takes beyond an empty square's, by the board's attribute of its kind (the squares'
bits counted from the board made of them: both colours of a kind have code words of one length)."""
assert all(SQUARE_CODE.bit_length([f"white_{name}"]) == SQUARE_CODE.bit_length([f"black_{name}"])
           for name in chess.PIECE_NAMES[1:])
_SQUARES = len(SQUARE_NAMES)
"""Code words of a position: one per square, in coding order."""
MIN_POSITION = HEADER_SIZE + (_SQUARES * min(length for _, length in SQUARE_CODE.codes.values()) + 7) // 8
"""The shortest encoded position: the header byte and 64 of the shortest code words."""

MOVES = MoveTable(schema.MOVE_CODES)
"""CTG's move codes (166 of the 256 byte values)."""

# the hash, one table step per byte: (tmp & 63, byte) -> (next tmp & 63, sum of the two table entries)
_HASH_STEPS: list[tuple[int, int]] = []
_TABLE_MASK = len(schema.HASH_TABLE) - 1  # the hash's state indexes the table: only its low 6 bits matter
for _state in range(_TABLE_MASK + 1):
    for _byte in range(256):
        _first = (_state + ((0x0F - (_byte & 0x0F)) << 2) + 1) & _TABLE_MASK
        _second = (_first + ((0xF0 - (_byte & 0xF0)) >> 2) + 1) & _TABLE_MASK
        _HASH_STEPS.append((_second, schema.HASH_TABLE[_first] + schema.HASH_TABLE[_second]))

LOOP_END = 0x7FFFFFFF
"""The spec's lookup loop runs n = 0, 1, 3, 7, ... while n < LOOP_END."""
MAX_LEVEL = LOOP_END.bit_length() - 1
"""The deepest directory level the loop reads (30: n = 2**30 - 1)."""


# --- the encoded position ------------------------------------------------------------------------------

def encode(board: chess.Board) -> tuple[bytes, Normalised]:
    """The encoded position (the record's first bytes) and how ``board`` was normalised."""
    norm = normalise(board)
    length = 8 * HEADER_SIZE + norm.bits  # the header byte, then the squares
    flags = flag_bits = 0
    ep = en_passant_file(board, norm.mirrored, legal=True)
    if ep is not None:
        flags, flag_bits = ep, _EP_BITS
    if norm.castling:
        flags = (flags << CASTLING_BITS) | norm.castling
        flag_bits += CASTLING_BITS
    total = position_bits(length, flag_bits)
    value = (norm.squares << (total - length)) | flags  # the board's bit stream, its first bit highest
    size = total // 8
    header = _HEADER_BYTES.get((ep is not None, norm.castling != 0, size))
    if header is None:  # more pieces than the length field can count bytes for
        header = _header_byte(ep is not None, norm.castling != 0, size)
    return header + value.to_bytes(size - HEADER_SIZE, "big"), norm


def signature(board: chess.Board) -> bytes:
    """The encoded (normalised) position of ``board``: the first bytes of its record, and the hash input."""
    return encode(board)[0]


def occupied_squares(encoded: bytes) -> int:
    """The squares occupied on the normalised board of an encoded position (a bitboard), without making the
    board (a fifth of a record's decoding time); not checked."""
    return normalised_occupied(SQUARE_CODE.decode(int.from_bytes(encoded[HEADER_SIZE:], "big"),
                                                  8 * (len(encoded) - HEADER_SIZE), _SQUARES)[0])


def normalised_board(header: tuple[Any, ...], squares: Sequence[str], ep_file: int | None,
                     castling: Sequence[bool] | None, path: str, offset: int, where: str) -> chess.Board:
    """The normalised board of an encoded position as the generated codec of :data:`~chessformats.schemas.ctg.POSITION`
    decodes it (its header; the board's squares, en-passant file and castling flags), checked: the length follows
    the padding rule, one king a side."""
    has_ep, has_castling, length = _HEADER_FIELDS(header)
    flag_bits = schema.flag_bits(has_ep, has_castling)
    board = square_board(squares)
    bits = _EMPTY_BITS * len(squares) + sum([extra * getattr(board, kind).bit_count() for kind, extra in _EXTRA_BITS])
    expected = position_bits(8 * HEADER_SIZE + bits, flag_bits) // 8
    if expected != length:
        raise InvalidValueError("length does not follow the padding rule", expected=expected, actual=length,
                                file=path, offset=offset, path=f"{where}.position.header.length")
    kings = [chess.popcount(board.kings & board.occupied_co[color]) for color in (chess.BLACK, chess.WHITE)]
    if kings != [1, 1]:
        raise InvalidValueError(f"{kings[chess.WHITE]} white and {kings[chess.BLACK]} black kings",
                                expected="one king per side", file=path, offset=offset + HEADER_SIZE,
                                path=f"{where}.position.board.squares")
    if castling is not None:
        board.castling_rights = _RIGHTS[tuple(castling)]
    if ep_file is not None:
        board.ep_square = chess.square(ep_file, 5)
    return board


# --- moves ----------------------------------------------------------------------------------------------

def decode_move(board: chess.Board, code: int) -> chess.Move | None:
    """The move of ``board`` that move code ``code`` stands for (``None``: the piece is not on the board).

    Raises :class:`KeyError` for a byte that is not a move code.
    """
    norm = normalise(board)
    return MOVES.move(code, norm.own, norm.flipped, norm.mirrored)


def encode_move(board: chess.Board, move: chess.Move) -> int | None:
    """The move code of ``move`` in ``board``; ``None`` when CTG cannot store it.

    CTG has codes for the first two knights, bishops, rooks and queens only, and promotes to a queen
    only; castling is the king's two-file step (python-chess's ``e1g1``).
    """
    return MOVES.encode(normalise(board), move, board.piece_type_at(move.from_square))


# --- the hash and the lookup -----------------------------------------------------------------------------

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
    while n < LOOP_END:
        c = (hash_value & n) + n
        n = 2 * n + 1
        if c < lower_bound:
            continue
        entries.append(c)
        if c >= upper_bound:
            break
    return entries


def highest_entry_read(lower: int, upper: int) -> int:
    """The largest ``.cto`` entry number the lookup loop can read, over all hashes (-1: none).

    Worked out level by level, not node by node: a damaged ``.ctb`` can put 2**31 nodes in reach. The loop
    goes on past node ``c`` while ``c < max(lower, upper)`` (it skips ``c < lower``, stops after reading
    ``c >= upper``). Every node of level ``k`` (``n .. 2n``, ``n = 2**k - 1``) is reached while every node of
    the levels above goes on; on the first level where only some go on (the ``m`` lowest, ``n .. n + m - 1``),
    the next level holds their children ``2n + 1 + r`` and ``3n + 2 + r`` (``r < m``), which all stop.
    """
    stop = max(lower, upper)
    best = -1
    for level in range(MAX_LEVEL + 1):
        n = (1 << level) - 1
        if 2 * n >= lower:
            best = 2 * n
        going_on = min(max(stop - n, 0), n + 1)
        if going_on <= n:  # not every node of this level goes on: the next level is the last
            if going_on and level < MAX_LEVEL:
                best = 3 * n + 1 + going_on
            break
    return best
