"""From a python-chess game to its ChessBase game data (``.cbg`` record): the move stream's inverse.

The encoder keeps the decoder's own light board (:class:`.moves._Position`, moved by the decoder's own
``_apply``/``_castle``/``_null``, with :mod:`.numbering`), so a move is coded with exactly the piece number the
decoder will find.
The stream order is the decoder's: at a node with ``n`` continuations, the first ``n - 1`` are each written
as ``PUSH``, the move and its whole subtree, ``POP`` (the main line first); the last follows unwrapped. The
game ends with ``POP``.

Modes: 0 (the compact encoder every ChessBase base uses for ordinary games) and 10 (Chess960, whose castling
is a two-byte move from the king's destination to itself). Each byte goes through
:func:`.moves.encode_byte` with the move counter, which every move (not the markers) advances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

from ...engine.codec import codec
from ...engine.errors import InvalidValueError
from ...schemas import chessbase as schema
from . import numbering
from .moves import _NAMES, _Decoder, _Position, encode_byte, encode_two_byte_move
from .start import BLACK, EMPTY, FIRST_MOVE_MAX, StartPosition, encode_setup, standard_start

if TYPE_CHECKING:
    import chess.pgn  # (imported by the python-chess games themselves: games coded in batches do without it)

__all__ = ["CHESS960_MODE", "STANDARD_MODE", "EncodedGame", "encode_game", "start_of"]

STANDARD_MODE = 0
CHESS960_MODE = schema.MODE_VARIANT.index("chess960")
_WORD = codec(schema.DATA_WORD)
_WORD_SIZE: int = _WORD.size or 0
_HIGH = 8 * ((codec(schema.TWO_BYTE_MOVE).size or 0) - 1)
_LOW_MASK = (1 << _HIGH) - 1


def _one_byte_codes() -> dict[tuple[int, int, int, int], int]:
    """(piece type, index from 0, dx, dy) -> one-byte code (castling is in ``_CASTLING``)."""
    table: dict[tuple[int, int, int, int], int] = {}
    for code, entry in schema.MOVE_CODES.items():
        if len(entry) == 4:
            piece, number, dx, dy = entry
            assert isinstance(dx, int) and isinstance(dy, int)
            # a move of 4 files and 4 ranks has two codes (both diagonals wrap onto it): ChessBase writes the lower
            table.setdefault((_NAMES[piece], number - 1, dx, dy), code)
    return table


_CODES = _one_byte_codes()
_PAWN_DX = {1: 1, -1: 7, 0: 0}
"""A pawn's file step as the mover sees it (right, left, none) -> the code table's dx (see ``MOVE_CODES``)."""
_CASTLING = {entry[2]: code for code, entry in schema.MOVE_CODES.items() if len(entry) == 3}
"""``"O-O"``/``"O-O-O"`` -> the king's castling code."""


@dataclass
class EncodedGame:
    """A game's ``.cbg`` data and what its ``.cbh`` record and annotations need to know."""

    data: bytes
    mode: int
    setup: bool
    main_plies: int
    variation_moves: int
    nodes: list[chess.pgn.ChildNode] = field(default_factory=list, repr=False)
    """The game's nodes in stream order (the ``.cba`` position of ``nodes[i]`` is ``i + 1``; 0: the start)."""
    start: StartPosition | None = field(default=None, repr=False)
    problems: list[str] = field(default_factory=list)
    """What had to change to be written (reported; the game is written)."""


def start_of(board: chess.Board) -> StartPosition:
    """The :class:`StartPosition` of a python-chess board (its pieces, side, castling, en passant, number)."""
    squares = [EMPTY] * 64
    for square, piece in board.piece_map().items():
        squares[square] = piece.piece_type | (0 if piece.color else BLACK)
    rooks: list[int] = []
    castling = 0
    for bit, (colour, short) in zip((1, 2, 4, 8), ((chess.WHITE, True), (chess.WHITE, False),
                                                   (chess.BLACK, True), (chess.BLACK, False)), strict=True):
        rook = _castling_rook(board, colour, short)
        if rook is not None:
            castling |= bit
        rooks.append(rook if rook is not None else chess.square(7 if short else 0, 0 if colour else 7))
    ep = board.ep_square if board.has_legal_en_passant() else None
    start = StartPosition(squares, board.turn == chess.WHITE, castling, None if ep is None else chess.square_file(ep),
                          board.fullmove_number, chess960=board.chess960, standard=False)
    if board.chess960:
        kings = [board.king(colour) for colour in (chess.WHITE, chess.BLACK)]
        start.kings = (kings[0] if kings[0] is not None else chess.E1, kings[1] if kings[1] is not None else chess.E8)
        start.rooks = (rooks[0], rooks[1], rooks[2], rooks[3])
        start.start_position = _chess960_number(board)
    return start


def _castling_rook(board: chess.Board, colour: chess.Color, short: bool) -> int | None:
    king = board.king(colour)
    rights = board.castling_rights & chess.BB_RANK_1 if colour else board.castling_rights & chess.BB_RANK_8
    for rook in chess.scan_forward(rights):
        if king is not None and (rook > king) == short:
            return rook
    return None


def _chess960_number(board: chess.Board) -> int | None:
    """The Chess960 start-position number of the board's pieces (None: not a start position)."""
    return board.chess960_pos(ignore_turn=True, ignore_castling=True, ignore_counters=True)


class _Writer:
    """One game's encoder: the decoder's board, the move counter, the bytes so far."""

    def __init__(self, mode: int, start: StartPosition, game: int) -> None:
        self.mode = mode
        self.chess960 = start.chess960
        self.out = bytearray()
        self.count = 0
        self.decoder = _Decoder(b"", 0, mode, start, None, 0, game)
        self.game = game

    def byte(self, code: int) -> None:
        self.out.append(encode_byte(code, mode=self.mode, count=self.count))

    def move(self, move: chess.Move, node: chess.pgn.GameNode) -> None:
        decoder = self.decoder
        position: _Position = decoder.position
        if not move:
            self.byte(schema.CODE_NULL)
            decoder._null(0, 1)
        else:
            self._move(position, move, node)
        self.count = (self.count + 1) & 0xFF

    def _move(self, position: _Position, move: chess.Move, node: chess.pgn.GameNode) -> None:
        decoder = self.decoder
        source, target = move.from_square, move.to_square
        code = position.board[source]
        side = 0 if position.white else 1
        if not code or (code & BLACK) != (BLACK if side else 0):
            raise InvalidValueError(f"game {self.game}: no piece of the side to move on {chess.square_name(source)} "
                                    f"(move {move.uci()} at ply {node.ply()})", path="moves")
        piece = code & 7
        captured = position.board[target]
        if piece == chess.KING and (captured == (chess.ROOK | (code & BLACK)) or (
                not self.chess960 and abs(chess.square_file(source) - chess.square_file(target)) == 2
                and chess.square_rank(source) == chess.square_rank(target))):
            self._castle(position, source, target)
            return
        index = numbering.place(position.lists[7 * side + piece], source)  # (8: a piece without a number)
        x, y = chess.square_file(source), chess.square_rank(source)
        dx, dy = chess.square_file(target) - x, chess.square_rank(target) - y
        promotion = move.promotion
        one = None
        if index < 8 and promotion is None:  # ChessBase writes every promotion as a two-byte move (corpus)
            if piece == chess.PAWN:
                if side:
                    dx, dy = -dx, -dy
                one = _CODES.get((piece, index, _PAWN_DX.get(dx, -1), dy))
            else:
                one = _CODES.get((piece, index, dx & 7, dy & 7))
        if one is not None:
            self.byte(one)
            decoder._apply(source, target, promotion, 0, 1, explicit=False, number=index)
        else:
            self._two_byte(source, target, promotion)
            decoder._apply(source, target, promotion, 0, 3, explicit=True, number=index)

    def _two_byte(self, source: int, target: int, promotion: int | None) -> None:
        word = encode_two_byte_move(source, target, promotion)
        self.byte(schema.CODE_TWO_BYTE)
        self.byte(word >> _HIGH)
        self.byte(word & _LOW_MASK)

    def _castle(self, position: _Position, king: int, target: int) -> None:
        rank = chess.square_rank(king)
        if self.chess960:
            rook = target if position.board[target] & 7 == chess.ROOK else None
            short = chess.square_file(target) > chess.square_file(king)
            destination = chess.square(6 if short else 2, rank)
            self._two_byte(destination, destination, None)
            self.decoder._castle(king, short, 0, 3, rook)
            return
        short = chess.square_file(target) > chess.square_file(king)
        self.byte(_CASTLING["O-O" if short else "O-O-O"])
        self.decoder._castle(king, short, 0, 1)


def encode_game(game: chess.pgn.Game, *, number: int = 0) -> EncodedGame:
    """The ``.cbg`` data of ``game`` (its size word, setup position, coded move stream with variations).

    Raises :class:`InvalidValueError` for what the format cannot hold (a variant other than Chess960, a setup
    board of more than 32 pieces ...)."""
    import chess.pgn

    board = game.board()
    variant = game.headers.get("Variant", "").lower()
    if type(board) is not chess.Board:
        raise InvalidValueError(f"game {number}: variant {board.uci_variant} cannot be written", path="moves")
    chess960 = board.chess960 or "960" in variant
    setup = chess960 or board.fen() != chess.STARTING_FEN or "FEN" in game.headers
    start = start_of(board) if setup else standard_start()
    if chess960:
        start.chess960 = True
        if start.start_position is None:
            start.start_position = _chess960_number(board)
        kings = [board.king(colour) for colour in (chess.WHITE, chess.BLACK)]
        start.kings = (kings[0] if kings[0] is not None else chess.E1, kings[1] if kings[1] is not None else chess.E8)
    mode = CHESS960_MODE if chess960 else STANDARD_MODE
    writer = _Writer(mode, start, number)
    nodes: list[chess.pgn.ChildNode] = []
    main_plies = 0
    node: chess.pgn.GameNode = game
    while node.variations:
        node = node.variations[0]
        main_plies += 1
    stack: list[tuple[str, chess.pgn.GameNode | None, _Position | None]] = [("line", game, None)]
    while stack:
        kind, item, saved = stack.pop()
        if kind == "pop":
            writer.byte(schema.CODE_POP)
            assert saved is not None
            writer.decoder.position = saved
            continue
        assert item is not None
        if kind != "line":
            if kind == "branch":
                writer.byte(schema.CODE_PUSH)
                stack.append(("pop", None, writer.decoder.position.copy()))
            assert isinstance(item, chess.pgn.ChildNode)
            writer.move(item.move, item)
            nodes.append(item)
        children = item.variations
        if children:
            stack.append(("tail", children[-1], None))
            stack.extend(("branch", child, None) for child in reversed(children[:-1]))
    writer.byte(schema.CODE_POP)
    problems = []
    if setup and start.first_move > FIRST_MOVE_MAX:  # (only the numbers shown depend on it)
        problems.append(f"move number {start.first_move} of the FEN: a setup position holds at most {FIRST_MOVE_MAX}, "
                        f"written as {FIRST_MOVE_MAX}")
        start.first_move = FIRST_MOVE_MAX
    head = encode_setup(start) if setup else b""
    size = _WORD_SIZE + len(head) + len(writer.out)
    word = _WORD.encode({"not_encoded": False, "setup": setup, "mode": mode, "size": size})
    return EncodedGame(bytes(word) + head + bytes(writer.out), mode, setup, main_plies, len(nodes) - main_plies,
                       nodes, start, problems)
