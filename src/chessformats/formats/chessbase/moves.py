"""The ChessBase move stream: from a game's ``.cbg`` data to moves in stream order (variations included).

The decoder keeps a light board (64 squares, and the numbered piece lists of :mod:`.numbering`, which moves
them on as it does for the batch decoder and the encoders) instead of a ``chess.Board``: it only needs to know
which square the n-th piece of a kind stands on, so it runs at a few microseconds per move. :func:`decode_game`
gives the tokens in stream order -- a :class:`DecodedMove` per move, ``PUSH`` and ``POP`` for the variation
markers -- which :mod:`.pgn` turns into a ``chess.pgn.Game``.

Losing chess (modes 8 and 9; the Java reader calls them "give away chess") is decoded like chess: the
stream only says which piece goes where, so compulsory captures change nothing; a captured king simply
leaves the board, castling is decoded as in chess (python-chess's ``GiveawayBoard`` allows it). A promotion
to a king is the one thing no source documents: see :meth:`_Decoder._two_byte`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, NamedTuple

import chess

from ...engine.codec import codec
from ...engine.errors import InvalidValueError, TruncatedError, UnsupportedError
from ...engine.schema import enum_view
from ...schemas import chessbase as schema
from . import numbering
from .numbering import NONE
from .start import BLACK, StartPosition, file_major, read_setup, standard_start

__all__ = ["POP", "PUSH", "SKIP", "DecodedGame", "DecodedMove", "StartPosition", "decode_game", "encode_byte",
           "encode_simple_move", "encode_two_byte_move", "read_setup"]

PUSH = "("
POP = ")"
SKIP = "skip"

_NAMES = {"pawn": chess.PAWN, "knight": chess.KNIGHT, "bishop": chess.BISHOP, "rook": chess.ROOK,
          "queen": chess.QUEEN, "king": chess.KING}
_PROMOTIONS = tuple(_NAMES[name] for _, name in sorted(enum_view(schema.PROMOTION).names.items()))
"""Python-chess piece type by the PROMOTION field's value."""
_PROMOTION_VALUES = {piece: value for value, piece in enumerate(_PROMOTIONS)}

# The move words' bit fields, from their declarations (SIMPLE_MOVE, TWO_BYTE_MOVE, DATA_WORD), as plain integers
# so that the decoding loops run as fast as with literals.
_WORD = codec(schema.DATA_WORD)
_WORD_SIZE: int = _WORD.size or 0
_SETUP_SIZE: int = schema.SETUP.sizeof()
_CHESS960_SIZE: int = schema.CHESS960_SETUP.sizeof()
_SIMPLE = codec(schema.SIMPLE_MOVE)
_TWO = codec(schema.TWO_BYTE_MOVE)


def _bits(declaration: Any, name: str) -> tuple[int, int]:
    """Shift and mask of a move word's field."""
    field = declaration.field(name)
    return int(field.shift), int(field.mask)


_S_PUSH: int = 1 << _SIMPLE.field("push").shift
_S_POP: int = 1 << _SIMPLE.field("pop").shift
_S_PROMOTION_SHIFT, _S_PROMOTION_MASK = _bits(_SIMPLE, "promotion")
_S_TO_SHIFT, _S_TO_MASK = _bits(_SIMPLE, "to_square")
_S_FROM_SHIFT, _S_FROM_MASK = _bits(_SIMPLE, "from_square")
_T_RESERVED_SHIFT, _T_RESERVED_MASK = _bits(_TWO, "reserved")
_T_PROMOTION_SHIFT, _T_PROMOTION_MASK = _bits(_TWO, "promotion")
_T_TO_FILE_SHIFT, _T_TO_FILE_MASK = _bits(_TWO, "to_file")
_T_TO_RANK_SHIFT, _T_TO_RANK_MASK = _bits(_TWO, "to_rank")
_T_FROM_FILE_SHIFT, _T_FROM_FILE_MASK = _bits(_TWO, "from_file")
_T_FROM_RANK_SHIFT, _T_FROM_RANK_MASK = _bits(_TWO, "from_rank")
_MOVE_SIZE: int = _TWO.size or 0
"""Bytes of a two-byte (and of a simple) move: its coded bytes, decoded one by one, make a big-endian word."""
_HIGH: int = 8 * (_MOVE_SIZE - 1)
"""Shift of a move word's first byte (the word is big-endian)."""


def _code_table() -> list[tuple[int, int, int, int, int]]:
    """By decoded code: (kind, piece type, index, dx, dy); kind 0 = not a one-byte move, 1 = move, 2/3 = O-O/O-O-O."""
    table = [(0, 0, 0, 0, 0)] * 256
    for code, entry in schema.MOVE_CODES.items():
        piece, number = _NAMES[entry[0]], entry[1]
        if isinstance(entry[2], str):
            table[code] = (2 if entry[2] == "O-O" else 3, piece, 0, 0, 0)
        else:
            dx, dy = entry[2], entry[3]
            assert isinstance(dx, int) and isinstance(dy, int)
            table[code] = (1, piece, number - 1, dx, dy)
    return table


_CODES = _code_table()


def one_byte_target(side: int, piece: int, dx: int, dy: int, square: int) -> int:
    """The target of a one-byte move of ``side`` (0 White)'s ``piece`` on ``square`` by the code's step (``dx``,
    ``dy``, as :data:`_CODES` holds it: White's view, pieces wrapping round the board's edges); -1 for a pawn
    step off the board."""
    x, y = square & 7, square >> 3
    if piece == chess.PAWN:
        if side:
            dy, dx = -dy, (8 - dx) & 7
        x, y = x + (1 if dx == 1 else -1 if dx == 7 else 0), y + dy
        if not (0 <= x < 8 and 0 <= y < 8):
            return -1
        return y * 8 + x
    return ((y + dy) & 7) * 8 + ((x + dx) & 7)


class DecodedMove(NamedTuple):
    """One move of the stream: squares as python-chess numbers; castling as king takes own rook."""

    from_square: int
    to_square: int
    promotion: int | None
    castling: bool
    null: bool
    offset: int
    """Offset in the ``.cbg`` file of the move's first byte."""
    byte_count: int

    def move(self, *, chess960: bool = False) -> chess.Move:
        """The python-chess move (``Move.null()`` for a null move); castling as the king's move (or onto the rook
        in Chess960)."""
        if self.null:
            return chess.Move.null()
        to_square = self.to_square
        if self.castling and not chess960:
            to_square = chess.square(6 if chess.square_file(to_square) > chess.square_file(self.from_square) else 2,
                                     chess.square_rank(self.from_square))
        return chess.Move(self.from_square, to_square, self.promotion)

    def uci(self, *, chess960: bool = False) -> str:
        """UCI text ("0000" for a null move); castling as the king's move (or onto the rook in Chess960)."""
        return self.move(chess960=chess960).uci()


@dataclass
class DecodedGame:
    """A game's decoded move stream and where it starts."""

    start: StartPosition
    tokens: list[DecodedMove | str]
    mode: int
    ended: bool = True
    """The stream ended with its end marker (0xFF with no variation open); some streams lack it."""

    @property
    def chess960(self) -> bool:
        return self.start.chess960

    @property
    def variant(self) -> str:
        """The mode's variant: "chess", "losing chess" (modes 8 and 9) or "chess960"."""
        return schema.MODE_VARIANT[self.mode]

    def stream(self) -> list[str]:
        """The stream as text: UCI moves ("/c" after castling), "(" and ")" for the markers."""
        out = []
        for token in self.tokens:
            if isinstance(token, str):
                out.append(token)
            else:
                out.append(token.uci(chess960=self.chess960) + ("/c" if token.castling else ""))
        if self.ended:
            out.append(POP)
        return out


class _Position:
    """The decoder's board: piece codes by square, each side's numbered pieces (:mod:`.numbering`'s lists, one
    game's: Python integers, moved on by the functions the batch uses), the side to move."""

    __slots__ = ("board", "lists", "white")

    def __init__(self, board: list[int], white: bool, reverse: bool) -> None:
        self.board = board
        self.white = white
        self.lists = numbering.start_words(board, reverse)

    def copy(self) -> _Position:
        clone = _Position.__new__(_Position)
        clone.board = self.board[:]
        clone.white = self.white
        clone.lists = self.lists[:]
        return clone

    def square(self, side: int, piece: int, number: int) -> int:
        """The square of ``side``'s ``piece`` of ``number`` (from 0): :data:`.numbering.NONE` for none."""
        return int(self.lists[7 * side + piece] >> 8 * number & 0xFF)


def decode_game(data: bytes, *, file: str | os.PathLike[str] | None = None, base: int = 0,
                game: int = 0, main_moves: int | None = None) -> DecodedGame:
    """Decode one game's ``.cbg`` data (``data`` starts with its size word; ``base`` is its file offset).

    A stream that cannot be a game (a piece that is not there, a move onto one's own piece, bytes that run
    out) is an :class:`InvalidValueError`/:class:`TruncatedError` naming the game and the byte's offset.

    ``main_moves`` is the main line's move count from the ``.cbh`` record (moves played, not the last move's
    number: 6 for 10 plies from black's move 30, as the corpus' setup games count them): some streams lack their
    end marker and carry leftover bytes after the last move (corpus NormalNoPop); once the main line has that many
    moves and no variation is open, bytes that are not a valid move end the game instead of raising.
    """
    name = os.fspath(file) if file is not None else None
    if len(data) < _WORD_SIZE:
        raise TruncatedError(f"game {game}: truncated game data", needed=_WORD_SIZE, available=len(data), file=name,
                             offset=base)
    not_encoded, has_setup, mode, _ = _WORD.unpack(data)
    if not_encoded:
        raise InvalidValueError(f"game {game}: the data is a guiding text, not a game", file=name, offset=base)
    if mode >= len(schema.MODE_TABLES):
        raise UnsupportedError(f"game {game}: unknown move-encoding mode {mode}", file=name, offset=base,
                               path="word.mode")
    chess960 = schema.MODE_VARIANT[mode] == "chess960"
    at = _WORD_SIZE
    if has_setup:
        start = read_setup(data, at, chess960=chess960, file=name, base=base, game=game)
        at += _SETUP_SIZE + (_CHESS960_SIZE if chess960 else 0)
    else:
        start = standard_start()
    decoder = _Decoder(data, at, mode, start, name, base, game)
    if main_moves is not None and 0 < main_moves < 255:  # moves counted from the start's side: its fewest plies
        decoder.enough_plies = 2 * main_moves - (1 if start.white_to_move else 2)
    tokens = decoder.run_simple() if schema.MODE_ENCODER[mode] == "simple" else decoder.run_compact()
    return DecodedGame(start, tokens, mode, decoder.ended)


class _Decoder:
    def __init__(self, data: bytes, at: int, mode: int, start: StartPosition, file: str | None, base: int,
                 game: int) -> None:
        self.data = data
        self.at = at
        self.table = schema.MODE_TABLES[mode]
        self.post = schema.MODE_COUNTER[mode] == "post"
        self.reverse = schema.MODE_REVERSE[mode]
        self.losing = schema.MODE_VARIANT[mode] == "losing chess"
        self.start = start
        self.file = file
        self.base = base
        self.game = game
        self.position = _Position(start.board[:], start.white_to_move, self.reverse)
        self.count = 0
        self.ended = False
        self.enough_plies: int | None = None
        self.main_plies = 0
        self.main_end = 0

    def _error(self, reason: str, offset: int) -> InvalidValueError:
        return InvalidValueError(f"game {self.game}: {reason}", file=self.file, offset=self.base + offset,
                                 path="moves")

    def _decode(self, byte: int) -> int:
        if self.post:
            return (self.table[byte] - self.count) & 0xFF
        return self.table[(byte - self.count) & 0xFF]

    def run_compact(self) -> list[DecodedMove | str]:
        tokens: list[DecodedMove | str] = []
        stack: list[_Position] = []
        try:
            self._compact(tokens, stack)
        except InvalidValueError:
            if stack or self.enough_plies is None or self.main_plies < self.enough_plies:
                raise
            del tokens[self.main_end:]  # leftover bytes after a stream without its end marker
        return tokens

    def _compact(self, tokens: list[DecodedMove | str], stack: list[_Position]) -> None:
        data, end = self.data, len(self.data)
        codes = _CODES
        self.main_end = 0
        while True:
            at = self.at
            if at >= end:
                return  # notes/corpus: some streams lack the final end marker (NormalNoPop)
            code = self._decode(data[at])
            self.at = at + 1
            if code == schema.CODE_POP:
                if not stack:
                    self.ended = True
                    return
                self.position = stack.pop()
                tokens.append(POP)
            elif code == schema.CODE_PUSH:
                stack.append(self.position.copy())
                tokens.append(PUSH)
            elif code == schema.CODE_SKIP:
                tokens.append(SKIP)
                continue
            elif code == schema.CODE_TWO_BYTE:
                if at + 1 + _MOVE_SIZE > end:
                    raise TruncatedError(f"game {self.game}: truncated two-byte move", needed=_MOVE_SIZE,
                                         available=end - at - 1, file=self.file, offset=self.base + at)
                word = self._decode(data[at + 1]) << _HIGH | self._decode(data[at + 2])
                self.at = at + 1 + _MOVE_SIZE
                tokens.append(self._two_byte(word, at))
            elif code == schema.CODE_NULL:
                tokens.append(self._null(at, 1))
            else:
                kind, piece, index, dx, dy = codes[code]
                if kind == 0:
                    raise self._error(f"invalid move code {code:#04x}", at)
                tokens.append(self._one_byte(kind, piece, index, dx, dy, at))
            if code < schema.CODE_SKIP:  # moves advance the counter; markers and skipped bytes do not
                self.count = (self.count + 1) & 0xFF
                if not stack:
                    self.main_plies += 1
                    self.main_end = len(tokens)

    def run_simple(self) -> list[DecodedMove | str]:
        data, end = self.data, len(self.data)
        tokens: list[DecodedMove | str] = []
        stack: list[_Position] = []
        while self.at < end:
            at = self.at
            if at + _MOVE_SIZE > end:
                raise TruncatedError(f"game {self.game}: truncated move", needed=_MOVE_SIZE, available=end - at,
                                     file=self.file, offset=self.base + at)
            word = self._decode(data[at]) << _HIGH | self._decode(data[at + 1])
            self.at = at + _MOVE_SIZE
            if word & _S_PUSH:
                stack.append(self.position.copy())
                tokens.append(PUSH)
            source, target = word >> _S_FROM_SHIFT & _S_FROM_MASK, word >> _S_TO_SHIFT & _S_TO_MASK
            if self.reverse:
                source, target = target, source
            if source == 0 and target == 0:
                tokens.append(self._null(at, _MOVE_SIZE))
            else:
                from_square, to_square = file_major(source), file_major(target)
                assert from_square is not None and to_square is not None
                tokens.append(self._apply(from_square, to_square,
                                          _PROMOTIONS[word >> _S_PROMOTION_SHIFT & _S_PROMOTION_MASK], at, _MOVE_SIZE,
                                          explicit=True))
            self.count = (self.count + 1) & 0xFF
            if word & _S_POP:
                if not stack:
                    self.ended = True
                    return tokens
                self.position = stack.pop()
                tokens.append(POP)
        return tokens

    def _null(self, at: int, size: int) -> DecodedMove:
        self.position.white = not self.position.white
        return DecodedMove(0, 0, None, False, True, self.base + at, size)

    def _one_byte(self, kind: int, piece: int, index: int, dx: int, dy: int, at: int) -> DecodedMove:
        position = self.position
        side = 0 if position.white else 1
        square = position.lists[7 * side + piece] >> 8 * index & 0xFF  # (NONE: no such piece)
        if kind != 1:  # castling
            if square == NONE:
                raise self._error("castling without a king", at)
            return self._castle(square, kind == 2, at, 1)
        if square == NONE:
            raise self._error(f"no {chess.piece_name(piece)} {index + 1} to move", at)
        target = one_byte_target(side, piece, dx, dy, square)
        if target < 0:
            raise self._error("a pawn moves off the board", at)
        promotion = chess.QUEEN if piece == chess.PAWN and target >> 3 in (0, 7) else None
        return self._apply(square, target, promotion, at, 1, explicit=False, number=index)

    def _two_byte(self, word: int, at: int) -> DecodedMove:
        from_square = chess.square(word >> _T_FROM_FILE_SHIFT & _T_FROM_FILE_MASK,
                                   word >> _T_FROM_RANK_SHIFT & _T_FROM_RANK_MASK)
        to_square = chess.square(word >> _T_TO_FILE_SHIFT & _T_TO_FILE_MASK, word >> _T_TO_RANK_SHIFT & _T_TO_RANK_MASK)
        if from_square == to_square and chess.square_file(to_square) in (2, 6):
            # Chess960 castling (seen in libcbh_Chess960*): source = destination = the king's destination square
            # (g-file: short, c-file: long); the rook is the one the setup names for that side
            king = self.position.square(0 if self.position.white else 1, chess.KING, 0)
            if king == NONE:
                raise self._error("castling without a king", at)
            return self._castle(king, chess.square_file(to_square) == 6, at, 1 + _MOVE_SIZE)
        if word >> _T_RESERVED_SHIFT & _T_RESERVED_MASK and self.losing and chess.square_rank(to_square) in (0, 7) \
                and self.position.board[from_square] & 7 == chess.PAWN:
            # Losing chess lets a pawn promote to a king, but the promotion field has two bits (Q, R, B, N) and
            # no source says how ChessBase codes a king promotion. The bits above it are 0 in every known
            # stream; a promotion that sets them is most likely that case: say so rather than guess a piece.
            raise UnsupportedError(f"game {self.game}: a losing-chess promotion with unknown bits "
                                   f"{word >> _T_RESERVED_SHIFT & _T_RESERVED_MASK:#x} "
                                   "(perhaps to a king, whose coding is unknown)",
                                   file=self.file, offset=self.base + at, path="moves")
        return self._apply(from_square, to_square, _PROMOTIONS[word >> _T_PROMOTION_SHIFT & _T_PROMOTION_MASK], at,
                           1 + _MOVE_SIZE, explicit=True)

    def _castle(self, king: int, short: bool, at: int, size: int, rook: int | None = None) -> DecodedMove:
        position = self.position
        side = 0 if position.white else 1
        rank = chess.square_rank(king)
        if rook is None:
            rooks = self.start.rooks
            rook = rooks[(0 if short else 1) + 2 * side] if self.start.chess960 else \
                chess.square(7 if short else 0, rank)
        board = position.board
        own = BLACK if side else 0
        if board[king] != chess.KING | own or board[rook] != chess.ROOK | own:
            raise self._error("castling without king and rook in place", at)
        king_to = chess.square(6 if short else 2, rank)
        rook_to = chess.square(5 if short else 3, rank)
        if any(board[square] and square not in (king, rook) for square in (king_to, rook_to)):
            raise self._error("castling through an occupied square", at)
        numbering.castle(board, position.lists, 0, 0, side, king, rook, king_to, rook_to)
        position.white = not position.white
        return DecodedMove(king, rook, None, True, False, self.base + at, size)

    def _apply(self, source: int, target: int, promotion: int | None, at: int, size: int, *,
               explicit: bool, number: int | None = None) -> DecodedMove:
        position = self.position
        board = position.board
        side = 0 if position.white else 1
        own = BLACK if side else 0
        code = board[source]
        if not code or (code & BLACK) != own:
            raise self._error(f"no piece of the side to move on {chess.square_name(source)}", at)
        piece = code & 7
        if piece == chess.KING and abs((source & 7) - (target & 7)) == 2 and not self.start.chess960 \
                and (source >> 3) == (target >> 3):
            return self._castle(source, (target & 7) > (source & 7), at, size)  # castling written as e1g1
        captured = board[target]
        if captured and (captured & BLACK) == own:
            raise self._error(f"move {chess.square_name(source)}{chess.square_name(target)} onto an own piece", at)
        if source == target:
            raise self._error(f"move from {chess.square_name(source)} to the same square", at)
        spot = target
        if not captured and piece == chess.PAWN and (source ^ target) & 7:  # diagonal onto an empty square: en passant
            spot = target - 8 if side == 0 else target + 8
            if not 0 <= spot < len(board) or board[spot] != (chess.PAWN | (own ^ BLACK)):
                raise self._error("a pawn captures on an empty square", at)  # (or moves off the board's edge)
        new = 0
        if piece == chess.PAWN and target >> 3 in (0, 7):
            new = promotion or chess.QUEEN
        else:
            promotion = None
        lists = position.lists
        numbering.play(board, lists, 0, 0, side, source, target, spot, new,
                       numbering.place(lists[7 * side + piece], source) if number is None else number)
        position.white = not position.white
        return DecodedMove(source, target, promotion, False, False, self.base + at, size)



# --- the encoder twins: a move to its word and byte(s), given what the decoder knows ----------------------------

def encode_byte(code: int, *, mode: int, count: int) -> int:
    """The stored byte that decodes to ``code`` in ``mode`` when the move counter is ``count`` (inverse of the
    decoder's table lookup and counter)."""
    inverse = _INVERSE_TABLES[mode]
    if schema.MODE_COUNTER[mode] == "post":
        return inverse[(code + count) & 0xFF]
    return (inverse[code] + count) & 0xFF


def encode_two_byte_move(from_square: int, to_square: int, promotion: int | None = None) -> int:
    """The decoded 16-bit word of a two-byte move (TWO_BYTE_MOVE), squares as python-chess numbers."""
    return _word(_TWO, {"reserved": 0, "promotion": _PROMOTION_VALUES.get(promotion or chess.QUEEN, 0),
                        "to_file": chess.square_file(to_square), "to_rank": chess.square_rank(to_square),
                        "from_file": chess.square_file(from_square), "from_rank": chess.square_rank(from_square)})


def encode_simple_move(from_square: int, to_square: int, promotion: int | None = None, *, push: bool = False,
                       pop: bool = False, reverse: bool = False) -> int:
    """The decoded 16-bit word of a simple-encoder move (SIMPLE_MOVE); ``reverse``: the mode swaps the squares.

    A null move is ``from_square == to_square == 0`` (a1, file-major 0)."""
    source, target = _file_major_number(from_square), _file_major_number(to_square)
    if reverse:
        source, target = target, source
    return _word(_SIMPLE, {"push": push, "pop": pop, "promotion": _PROMOTION_VALUES.get(promotion or chess.QUEEN, 0),
                           "to_square": target, "from_square": source})


def _word(declaration: Any, values: dict[str, Any]) -> int:
    """The bit run's integer holding ``values``, each put in with its field's insert (range-checked)."""
    word = 0
    for name, value in values.items():
        word = declaration.field(name).insert(word, value)
    return word


def _file_major_number(square: int) -> int:
    return chess.square_file(square) * 8 + chess.square_rank(square)


def _inverse(table: bytes) -> bytes:
    inverse = bytearray(256)
    for byte, code in enumerate(table):
        inverse[code] = byte
    return bytes(inverse)


_INVERSE_TABLES = tuple(_inverse(table) for table in schema.MODE_TABLES)
