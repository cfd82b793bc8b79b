"""CTG positions over the kernel's batches of positions (:class:`~chessformats.kernel.batch.Boards`): the encoded
(normalised) positions of many boards at once (:func:`encode_boards`), their hashes (:func:`hashes`) and the
CTG move codes of kernel moves (:func:`move_codes`).

The same bytes and numbers as :func:`.position.encode`, :func:`.position.ctg_hash` and :meth:`MOVES.encode
<chessformats.formats.normalised.MoveTable.encode>` (the tests compare them board by board), made by numpy
operations over the whole batch: a book conversion encodes a few hundred thousand positions.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, NamedTuple

import numpy as np

from ...engine.bitorder import REVERSED_BYTES
from ...kernel.batch import (
    EN_PASSANT,
    ORIGIN_SHIFT,
    PROMOTION,
    TARGET_SHIFT,
    Boards,
    legal_moves,
    pseudo_en_passant,
)
from ...schemas.ctg import position_bits
from ...schemas.squares import SQUARE_CODE
from ..normalised import CASTLING_NAMES, CODING_ORDER, CORNERS
from .position import _EP_BITS, _HASH_STEPS, _HEADER_BYTES, HEADER_SIZE, MOVES, _header_byte

__all__ = ["Encoded", "decode_moves", "encode_boards", "flip_diagonal", "flip_horizontal", "flip_vertical", "hashes",
           "legal_en_passant", "move_codes", "occupancies"]

U64 = np.uint64
Array = np.ndarray[Any, Any]
_CORNERS_BB = U64(0x8100000000000081)
_CASTLING_BITS = len(CASTLING_NAMES)
_HEADER = np.zeros((2, 2, max(size for _, _, size in _HEADER_BYTES) + 1), dtype=np.int64)
for (_ep, _castle, _size), _byte in _HEADER_BYTES.items():
    _HEADER[int(_ep), int(_castle), _size] = _byte[0]
# code words by symbol: 0 empty, 1-6 the side to move's pawn ... king (stored as white), 7-12 the other side's
_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")
_WORDS = np.array([SQUARE_CODE.codes["empty"]] + [SQUARE_CODE.codes[f"white_{name}"] for name in _NAMES]
                  + [SQUARE_CODE.codes[f"black_{name}"] for name in _NAMES], dtype=np.int64)
_CODING = np.array(CODING_ORDER, dtype=np.int64)
_STEPS = np.array(_HASH_STEPS, dtype=np.int64).reshape(-1, 2)
_REVERSED_BYTES = np.frombuffer(REVERSED_BYTES, dtype=np.uint8)
_CODE_LIMIT = 16  # the largest piece number + 1 the code table is made for


class Encoded(NamedTuple):
    """Encoded positions of a batch, back to back."""

    data: Array
    """``uint8``: every encoded position, in the batch's order."""
    offsets: Array
    """``int64``, one more than the positions: position ``i`` is ``data[offsets[i]:offsets[i + 1]]``."""
    flipped: Array
    """``bool``: black to move (colours flipped)."""
    mirrored: Array
    """``bool``: files mirrored."""

    def signatures(self) -> list[bytes]:
        """The encoded positions as ``bytes`` (a record's first bytes, the hash input)."""
        data, offsets = self.data.tobytes(), self.offsets.tolist()
        return [data[start:end] for start, end in itertools.pairwise(offsets)]


def legal_en_passant(boards: Boards) -> Array:
    """Whether an en-passant capture is legal in each position (python-chess's ``has_legal_en_passant``): the
    legal moves are made only for the positions where a pawn stands ready (few)."""
    found = pseudo_en_passant(boards)
    ready = np.flatnonzero(found)
    if ready.size:
        offsets, codes = legal_moves(boards.take(ready))
        owner = np.repeat(np.arange(len(ready)), np.diff(offsets))
        has = np.zeros(len(ready), dtype=bool)
        has[owner[(codes & 15) == EN_PASSANT]] = True
        found[ready] = has
    return found


def flip_vertical(bb: Array) -> Array:
    """python-chess's ``flip_vertical`` (ranks mirrored) of each bitboard."""
    flipped: Array = bb.byteswap()
    return flipped


def flip_horizontal(bb: Array) -> Array:
    """python-chess's ``flip_horizontal`` (files mirrored) of each bitboard."""
    flipped: Array = _REVERSED_BYTES[np.ascontiguousarray(bb).view(np.uint8)].view(U64).reshape(bb.shape)
    return flipped


def flip_diagonal(bb: Array) -> Array:
    """python-chess's ``flip_diagonal``: square ``8 * rank + file`` to ``8 * file + rank``."""
    for shift, mask in ((28, 0x0F0F0F0F00000000), (14, 0x3333000033330000), (7, 0x5500550055005500)):
        t = (bb ^ (bb << U64(shift))) & U64(mask)
        bb = bb ^ t ^ (t >> U64(shift))
    return bb


def _symbols(boards: Boards, mover: Array) -> Array:
    """``(positions, 64)`` by real square: 0 empty, 1-6 the side to move's pieces by type, 7-12 the other's."""
    count = len(mover)
    symbols = np.zeros((count, 64), dtype=np.int8)
    for type_index, pieces in enumerate((boards.pawns, boards.knights, boards.bishops, boards.rooks, boards.queens,
                                         boards.kings)):
        for bits, symbol in ((pieces & mover, type_index + 1), (pieces & ~mover, type_index + 7)):
            present = np.unpackbits(np.ascontiguousarray(bits).view(np.uint8).reshape(count, 8), axis=1,
                                    bitorder="little").view(bool)
            symbols[present] = symbol
    return symbols


def encode_boards(boards: Boards, legal_ep: Array | None = None, *, chunk: int = 16_384) -> Encoded:
    """The encoded position of every board of a batch (:func:`.position.encode`'s bytes). ``legal_ep``: whether
    each position has a legal en-passant capture (default: :func:`legal_en_passant`)."""
    if legal_ep is None:
        legal_ep = legal_en_passant(boards)
    count = len(boards.turn)
    flipped = ~boards.turn
    mover = np.where(boards.turn, boards.white, boards.black)
    rights = boards.castling & _CORNERS_BB
    king = boards.kings & mover
    king_file = (np.frexp(king.astype(np.float64))[1] - 1) & 7
    mirrored = (rights == 0) & (king != 0) & (king_file < 4)
    xor = np.where(flipped, 0x38, 0) | np.where(mirrored, 0x07, 0)
    castling = np.zeros(count, dtype=np.int64)
    for position in range(_CASTLING_BITS):
        corner = CORNERS[CASTLING_NAMES[position]]
        bit = np.where(flipped, U64(1) << U64(corner ^ 0x38), U64(1) << U64(corner))
        castling = castling << 1 | ((rights & bit) != 0)
    ep_file = np.where(mirrored, 7 - (boards.ep_square & 7), boards.ep_square & 7).astype(np.int64)
    flags = np.where(legal_ep, ep_file, 0)
    flag_bits = np.where(legal_ep, _EP_BITS, 0)
    has_castling = castling != 0
    flags = np.where(has_castling, flags << _CASTLING_BITS | castling, flags)
    flag_bits = flag_bits + np.where(has_castling, _CASTLING_BITS, 0)
    pieces: list[Array] = []
    sizes = np.zeros(count, dtype=np.int64)
    for start in range(0, count, chunk):
        part = slice(start, min(start + chunk, count))
        symbols = _symbols(boards.take(part), mover[part])
        coded = np.take_along_axis(symbols, _CODING[None, :] ^ xor[part, None], axis=1)
        words = _WORDS[coded]  # (positions, 64, 2): value, length
        squares_end = 8 * HEADER_SIZE + words[..., 1].sum(axis=1)
        fb = flag_bits[part]
        total = position_bits(squares_end, fb)
        size = total // 8
        sizes[part] = size
        header = _header_bytes(legal_ep[part], has_castling[part], size)
        values = np.concatenate([header[:, None], words[..., 0], np.zeros((len(size), 1), dtype=np.int64),
                                 flags[part, None]], axis=1)
        lengths = np.concatenate([np.full((len(size), 1), 8 * HEADER_SIZE), words[..., 1],
                                  (total - squares_end - fb)[:, None], fb[:, None]], axis=1)
        pieces.append(_pack(values, lengths, total))
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    data = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint8)
    return Encoded(data, offsets, flipped, mirrored)


def _pack(values: Array, lengths: Array, total: Array) -> Array:
    """Rows of bit fields (``values``, ``lengths``: at most 8 bits each, first field highest) packed into bytes,
    row after row (each row ``total`` bits, a whole number of bytes). Each field lands in the two bytes its bits
    touch, as a 16-bit window; fields do not overlap, so the bytes are sums (``np.bincount``)."""
    starts = np.zeros(len(total), dtype=np.int64)
    np.cumsum(total[:-1], out=starts[1:])
    at = (np.cumsum(lengths, axis=1) - lengths + starts[:, None]).ravel()
    window = values.ravel() << (16 - lengths.ravel() - (at & 7))
    byte = at >> 3
    size = int(total.sum()) // 8
    packed = (np.bincount(byte, weights=window >> 8, minlength=size + 2)
              + np.bincount(byte + 1, weights=window & 255, minlength=size + 2))
    found: Array = packed[:size].astype(np.uint8)
    return found


def _header_bytes(ep: Array, castling: Array, size: Array) -> Array:
    """The header byte of each position (:func:`.position._header_byte` for a length its table lacks: raises)."""
    fits = size < _HEADER.shape[2]
    for index in np.flatnonzero(~fits):  # more pieces than the length field can count bytes for
        _header_byte(bool(ep[index]), bool(castling[index]), int(size[index]))
    found: Array = _HEADER[ep.astype(np.intp), castling.astype(np.intp), size]
    return found


def hashes(encoded: Encoded) -> Array:
    """:func:`.position.ctg_hash` of every encoded position (``int64``)."""
    data, offsets = encoded.data.astype(np.int64), encoded.offsets
    sizes = np.diff(offsets)
    state = np.zeros(len(sizes), dtype=np.int64)
    total = np.zeros(len(sizes), dtype=np.int64)
    for step in range(int(sizes.max(initial=0))):
        active = np.flatnonzero(sizes > step)
        at = (state[active] << 8) | data[offsets[active] + step]
        state[active] = _STEPS[at, 0]
        total[active] += _STEPS[at, 1]
    found: Array = total & 0xFFFFFFFF
    return found


@functools.cache
def _code_table() -> Array:
    """``(piece type, number, files right, ranks up)`` -> CTG move code, -1 where the table has none."""
    table = np.full((7, _CODE_LIMIT, 8, 8), -1, dtype=np.int16)
    for code, (piece_type, number, dx, dy) in MOVES.steps.items():
        table[piece_type, number, dx, dy] = code
    return table


def move_codes(boards: Boards, index: Array, codes: Array, encoded: Encoded | None = None) -> Array:
    """The CTG move code (``int16``, -1: CTG cannot store it) of each kernel move code ``codes`` played in the
    position ``index`` of ``boards``: the n-th piece of its kind in coding order on the normalised board, and its
    step; a promotion to a queen only."""
    codes = codes.astype(np.int64)
    origin, target, flag = codes >> ORIGIN_SHIFT & 63, codes >> TARGET_SHIFT & 63, codes & 15
    turn = boards.turn[index]
    flipped = ~turn if encoded is None else encoded.flipped[index]
    mover = np.where(turn, boards.white[index], boards.black[index])
    if encoded is None:
        rights = boards.castling[index] & _CORNERS_BB
        king = boards.kings[index] & mover
        mirrored = (rights == 0) & (king != 0) & (((np.frexp(king.astype(np.float64))[1] - 1) & 7) < 4)
    else:
        mirrored = encoded.mirrored[index]
    xor = np.where(flipped, 0x38, 0) | np.where(mirrored, 0x07, 0)
    origin_n, target_n = origin ^ xor, target ^ xor
    bit = U64(1) << origin.astype(U64)
    piece_type = np.zeros(len(codes), dtype=np.int64)
    own = np.zeros(len(codes), dtype=U64)
    for type_index, pieces in enumerate((boards.pawns, boards.knights, boards.bishops, boards.rooks, boards.queens,
                                         boards.kings)):
        here = (pieces[index] & bit) != 0
        piece_type[here] = type_index + 1
        own[here] = (pieces[index] & mover)[here]
    promotion = np.where(flag >= PROMOTION, (flag & 3) + 2, 0)
    storable = np.where((piece_type == 1) & ((target_n >> 3) == 7), promotion == 5, promotion == 0)
    own = np.where(flipped, flip_vertical(own), own)
    own = np.where(mirrored, flip_horizontal(own), own)
    own = flip_diagonal(own)
    at = (origin_n & 7) * 8 + (origin_n >> 3)  # the origin's place in coding order
    number = np.bitwise_count(own & ((U64(1) << at.astype(U64)) - U64(1))).astype(np.int64) + 1
    dx = ((target_n & 7) - (origin_n & 7)) & 7
    dy = ((target_n >> 3) - (origin_n >> 3)) & 7
    found: Array = np.where(storable & (number < _CODE_LIMIT),
                            _code_table()[piece_type, np.minimum(number, _CODE_LIMIT - 1), dx, dy], -1)
    return found.astype(np.int16)


# --- reading records in bulk ----------------------------------------------------------------------------------

@functools.cache
def _step_table() -> Array:
    """By code byte: piece type (0: not a code), number, files right, ranks up (:attr:`MOVES.steps`)."""
    table = np.zeros((256, 4), dtype=np.int64)
    for code, step in MOVES.steps.items():
        table[code] = step
    return table


def decode_moves(boards: Boards, index: Array, codes: Array, encoded: Encoded) -> tuple[Array, Array]:
    """The moves CTG move codes ``codes`` stand for in the positions ``index`` of ``boards`` (``encoded``: their
    normalisation), as ``origin << 9 | target << 3 | promotion`` (python-chess's squares and piece type; a pawn
    reaching the last rank becomes a queen), and whether each was found (a code of the table whose piece is there:
    :meth:`MOVES.move <chessformats.formats.normalised.MoveTable.move>` gives a move)."""
    steps = _step_table()[codes.astype(np.intp)]
    piece_type, number, dx, dy = steps[:, 0], steps[:, 1], steps[:, 2], steps[:, 3]
    flipped, mirrored = encoded.flipped[index], encoded.mirrored[index]
    mover = np.where(boards.turn[index], boards.white[index], boards.black[index])
    kinds = np.stack([np.zeros(len(boards.turn), dtype=U64), boards.pawns, boards.knights, boards.bishops,
                      boards.rooks, boards.queens, boards.kings])
    own = kinds[piece_type, index] & mover
    own = np.where(flipped, flip_vertical(own), own)
    own = np.where(mirrored, flip_horizontal(own), own)
    own = flip_diagonal(own)  # bit 8 * file + rank: coding order
    for skip in range(1, int(number.max(initial=1))):
        later = number > skip
        own[later] &= own[later] - U64(1)
    found = (piece_type != 0) & (own != 0)
    at = np.frexp((own & (~own + U64(1))).astype(np.float64))[1] - 1  # the lowest bit: the piece's coding place
    origin = (at & 7) * 8 + (at >> 3)
    target = ((origin >> 3) + dy & 7) * 8 + ((origin & 7) + dx & 7)
    promotion = np.where((piece_type == 1) & ((target >> 3) == 7), 5, 0)
    xor = np.where(flipped, 0x38, 0) | np.where(mirrored, 0x07, 0)
    keys: Array = (origin ^ xor) << 9 | (target ^ xor) << 3 | promotion
    return keys, found


@functools.cache
def _word_lengths() -> tuple[int, Array, int]:
    """The longest code word of a square, the length of the word each window of that many bits starts with, and
    the first bit of the empty square's word (a one-bit word)."""
    longest = max(length for _, length in SQUARE_CODE.codes.values())
    lengths = np.zeros(1 << longest, dtype=np.int64)
    for value, length in SQUARE_CODE.codes.values():
        shift = longest - length
        lengths[value << shift:(value + 1) << shift] = length
    empty_value, empty_length = SQUARE_CODE.codes["empty"]
    assert empty_length == 1  # the test below reads one bit
    return longest, lengths, empty_value


def occupancies(data: Array, offsets: Array) -> tuple[Array, Array]:
    """The occupied squares (a bitboard, ``uint64``) of the normalised board of each encoded position
    (``data[offsets[i]:offsets[i + 1]]``), read from the code words' lengths without decoding the pieces; and
    whether they could be read (``False``: the squares run past the position's bytes, where
    :func:`.position.occupied_squares` raises)."""
    count = len(offsets) - 1
    longest, lengths, empty = _word_lengths()
    padded = np.concatenate([data, np.zeros(4, dtype=np.uint8)]).astype(np.int64)  # a window may read past the end
    position = (offsets[:-1] + HEADER_SIZE) * 8  # bit position in ``data``
    limit = offsets[1:] * 8
    occupied = np.zeros(count, dtype=U64)
    mask = (1 << longest) - 1
    for square in CODING_ORDER:
        byte = position >> 3
        window = ((padded[byte] << 16 | padded[byte + 1] << 8 | padded[byte + 2]) >> (24 - longest - (position & 7))
                  & mask)
        occupied |= np.where(window >> (longest - 1) != empty, U64(1) << U64(square), U64(0))
        position += lengths[window]
    return occupied, position <= limit
