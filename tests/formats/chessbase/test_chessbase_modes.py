"""ChessBase move-encoding modes without a corpus example (2, 3, 6, 7, 8, 9, 11), through an encoder of our own.

The corpus only holds modes 0, 1, 4, 5 and 10. This file has a small *encoder*, written from the shared notes
alone (``notes/chessbase-mode-tables.json``: each mode's decode table and meaning; ``notes/chessbase.md``: the
stream format) and never from the decoder's code: the inverse permutation of the decode table, the move
counter added before ('pre') or after ('post') the table, one-byte codes for the n-th piece of a kind, two-byte
moves, 16-bit 'simple' words with push/pop bits, numbering from the h-file in 'reverse' modes.

First the encoder has to prove itself: encoding the source PGN of each corpus base in the game's own mode
gives the real ``.cbg`` data byte for byte. Then real games (variations, promotions, Chess960, null moves)
and random games are encoded in every mode and must decode to the same moves and variation tree. Modes 8
and 9 are losing chess ("give away chess" in the Java reader's mode list; python-chess's ``GiveawayBoard``):
random giveaway games, with kings captured and castling, decode and export with the ``Giveaway`` variant.
"""

from __future__ import annotations

import io
import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn
import chess.variant
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessbase_corpus import cbh_path
from chessformats import chessbase
from chessformats.engine.errors import FormatError, UnsupportedError
from chessformats.formats.chessbase.moves import decode_game
from chessformats.formats.chessbase.pgn import build_game, pgn_text, stream_pgn_text, tree_of
from chessformats.schemas import chessbase as schema
from conftest import SHARED_ROOT
from numbering_oracle import Numbering

ALL_MODES = tuple(range(12))

# --- the mode tables, from the shared notes -------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    number: int
    simple: bool
    post: bool
    reverse: bool
    variant: str
    decode: tuple[int, ...]
    encode: tuple[int, ...]

    def put(self, code: int, counter: int) -> int:
        """The stream byte of a decoded value: undo the decoding (inverse table, counter on the right side)."""
        if self.post:  # decoding: (decode[b] - n) & 0xFF
            return self.encode[(code + counter) & 0xFF]
        return (self.encode[code] + counter) & 0xFF  # decoding: decode[(b - n) & 0xFF]


def _notes_file() -> Path:
    root = Path(os.environ["CHESSFORMATS_NOTES"]) if os.environ.get("CHESSFORMATS_NOTES") else SHARED_ROOT / "notes"
    path = root / "chessbase-mode-tables.json"
    if not path.is_file():
        if os.environ.get("CHESSFORMATS_REQUIRE_CORPUS") == "1":
            pytest.fail(f"notes file {path} not found (and CHESSFORMATS_REQUIRE_CORPUS=1)", pytrace=False)
        pytest.skip(f"notes file {path} not found (set CHESSFORMATS_NOTES)")
    return path


_MODES: dict[int, Mode] = {}


def mode_of(number: int) -> Mode:
    if not _MODES:
        notes = json.loads(_notes_file().read_text(encoding="utf-8"))
        for key, entry in notes["modes"].items():
            decode = tuple(entry["decode"])
            assert sorted(decode) == list(range(256)), f"mode {key}: the decode table is not a permutation"
            encode = [0] * 256
            for byte, code in enumerate(decode):
                encode[code] = byte
            _MODES[int(key)] = Mode(int(key), entry["encoder"] == "simple", entry["counter"] == "post",
                                    entry["order"] == "reverse", entry["variant"], decode, tuple(encode))
    return _MODES[number]


# --- the one-byte move codes, from the documented layout --------------------------------------------------
# Ranges of codes (notes + spec, with the spec's missing code 0x40 restored): king 1, queen 1, rook 1, rook 2,
# bishop 1, bishop 2, knight 1, knight 2, pawns 1-8 (4 codes each), queen 2, queen 3, rook 3, bishop 3,
# knight 3; 0x00 null move, 0xEB two-byte move, 0xEC skip, 0xFE/0xFF variation start/end.

NULL, TWO_BYTE, PUSH, POP = 0x00, 0xEB, 0xFE, 0xFF
_RANGES = [(chess.KING, 0, 10), (chess.QUEEN, 0, 28), (chess.ROOK, 0, 14), (chess.ROOK, 1, 14),
           (chess.BISHOP, 0, 14), (chess.BISHOP, 1, 14), (chess.KNIGHT, 0, 8), (chess.KNIGHT, 1, 8)]
_RANGES += [(chess.PAWN, index, 4) for index in range(8)]
_RANGES += [(chess.QUEEN, 1, 28), (chess.QUEEN, 2, 28), (chess.ROOK, 2, 14), (chess.BISHOP, 2, 14),
            (chess.KNIGHT, 2, 8)]
FIRST_CODE: dict[tuple[int, int], int] = {}
_next = 1
for _piece, _index, _count in _RANGES:
    FIRST_CODE[(_piece, _index)] = _next
    _next += _count
assert _next == TWO_BYTE
KING_STEPS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]  # then O-O, O-O-O
KNIGHT_STEPS = [(2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1)]


def _line_offset(piece: int, dx: int, dy: int) -> int | None:
    """Queen: up 1-7, right 1-7, up-right 1-7, down-right 1-7 (all wrapping mod 8); rook: the first two;
    bishop: the last two. ``dx``, ``dy`` are taken mod 8."""
    if dx == 0 and dy:
        kind, step = 0, dy
    elif dy == 0 and dx:
        kind, step = 1, dx
    elif dx == dy:
        kind, step = 2, dx
    elif dx + dy == 8:
        kind, step = 3, dx
    else:
        return None
    if piece == chess.ROOK:
        return kind * 7 + step - 1 if kind < 2 else None
    if piece == chess.BISHOP:
        return (kind - 2) * 7 + step - 1 if kind >= 2 else None
    return kind * 7 + step - 1


def test_code_layout_is_the_schema_table() -> None:
    # the encoder's own layout against the decoder's table (taken from the spec): same move for every code
    names = {chess.KING: "king", chess.QUEEN: "queen", chess.ROOK: "rook", chess.BISHOP: "bishop",
             chess.KNIGHT: "knight", chess.PAWN: "pawn"}
    seen = 0
    for (piece, index), first in FIRST_CODE.items():
        for offset in range({chess.KING: 10, chess.KNIGHT: 8, chess.PAWN: 4}.get(piece, 28 if piece == chess.QUEEN
                                                                                   else 14)):
            entry = schema.MOVE_CODES[first + offset]
            assert entry[:2] == (names[piece], index + 1)
            if piece == chess.KING:
                assert entry[2:] == (("O-O",) if offset == 8 else ("O-O-O",) if offset == 9 else
                                     (KING_STEPS[offset][0] % 8, KING_STEPS[offset][1] % 8))
            elif piece == chess.KNIGHT:
                assert entry[2:] == (KNIGHT_STEPS[offset][0] % 8, KNIGHT_STEPS[offset][1] % 8)
            elif piece == chess.PAWN:
                assert entry[2:] == ((0, 1), (0, 2), (1, 1), (7, 1))[offset]
            else:
                dx, dy = entry[2], entry[3]
                assert isinstance(dx, int) and isinstance(dy, int)
                assert _line_offset(piece, dx, dy) == offset or (dx, dy) == (4, 4)  # (4, 4): both diagonals
            seen += 1
    assert seen == len(schema.MOVE_CODES) == TWO_BYTE - 1


def test_notes_tables_are_the_schema_tables() -> None:
    for number in ALL_MODES:
        mode = mode_of(number)
        assert bytes(mode.decode) == schema.MODE_TABLES[number]
        assert schema.MODE_ENCODER[number] == ("simple" if mode.simple else "compact")
        assert schema.MODE_COUNTER[number] == ("post" if mode.post else "pre")
        assert schema.MODE_REVERSE[number] == mode.reverse
        assert schema.MODE_VARIANT[number] == mode.variant


# --- the encoder ----------------------------------------------------------------------------------------


def _fm(square: int) -> int:
    """File-major square number: 0 = a1, 1 = a2, ..., 8 = b1."""
    return chess.square_file(square) * 8 + chess.square_rank(square)


@dataclass
class Encoder:
    mode: Mode
    chess960: bool = False
    counter: int = 0

    def __post_init__(self) -> None:
        self.out = bytearray()

    def put(self, code: int) -> None:
        self.out.append(self.mode.put(code, self.counter))

    def two_byte_word(self, board: chess.Board, move: chess.Move) -> int:
        if board.is_castling(move) and self.chess960:  # Chess960: the king's destination twice
            short = board.is_kingside_castling(move)
            square = chess.square(6 if short else 2, 0 if board.turn else 7)
            return _fm(square) << 6 | _fm(square)
        promotion = {None: 0, chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}[move.promotion]
        return promotion << 12 | _fm(move.to_square) << 6 | _fm(move.from_square)

    def compact_codes(self, board: chess.Board, move: chess.Move, numbering: Numbering) -> list[int]:
        if not move:
            return [NULL]
        piece = board.piece_type_at(move.from_square)
        assert piece is not None
        index = numbering.index(board.turn, piece, move.from_square)
        first = FIRST_CODE.get((piece, index)) if index is not None else None
        if first is None or move.promotion or (self.chess960 and board.is_castling(move)):
            word = self.two_byte_word(board, move)
            return [TWO_BYTE, word >> 8, word & 0xFF]
        if board.is_castling(move):
            return [first + (8 if board.is_kingside_castling(move) else 9)]
        dx = chess.square_file(move.to_square) - chess.square_file(move.from_square)
        dy = chess.square_rank(move.to_square) - chess.square_rank(move.from_square)
        if piece == chess.PAWN:
            if not board.turn:  # black: forward is down, "right" as black sees it is towards the a-file
                dx, dy = -dx, -dy
            return [first + {(0, 1): 0, (0, 2): 1, (1, 1): 2, (-1, 1): 3}[(dx, dy)]]
        if piece == chess.KING:
            return [first + KING_STEPS.index((dx, dy))]
        if piece == chess.KNIGHT:
            return [first + KNIGHT_STEPS.index((dx, dy))]
        offset = _line_offset(piece, dx % 8, dy % 8)
        assert offset is not None, move
        return [first + offset]

    def compact(self, node: chess.pgn.GameNode, board: chess.Board, numbering: Numbering) -> None:
        while True:
            children = node.variations
            if not children:
                self.put(POP)
                return
            for position, child in enumerate(children):
                last = position == len(children) - 1
                if not last:
                    self.put(PUSH)
                for code in self.compact_codes(board, child.move, numbering):
                    self.put(code)
                self.counter += 1
                after = board.copy(stack=False)
                after.push(child.move)
                following = numbering.after(board, after)
                if last:
                    node, board, numbering = child, after, following
                else:
                    self.compact(child, after, following)

    def simple(self, node: chess.pgn.GameNode, board: chess.Board) -> None:
        while node.variations:
            children = node.variations
            for position, child in enumerate(children):
                move = child.move
                source, target = (_fm(move.from_square), _fm(move.to_square)) if move else (0, 0)
                if move and board.is_castling(move):  # the king's two-square move
                    target = _fm(chess.square(6 if board.is_kingside_castling(move) else 2,
                                              chess.square_rank(move.from_square)))
                if self.mode.reverse:
                    source, target = target, source
                promotion = {None: 0, chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}[move.promotion]
                word = source | target << 6 | promotion << 12
                word |= (0x8000 if position < len(children) - 1 else 0) | (0 if child.variations else 0x4000)
                self.put(word >> 8)
                self.put(word & 0xFF)
                self.counter += 1
                after = board.copy(stack=False)
                after.push(move)
                if position == len(children) - 1:
                    node, board = child, after
                else:
                    self.simple(child, after)


def setup_bytes(board: chess.Board, chess960: bytes | None) -> bytes:
    """The 28-byte setup position (+ the 8 Chess960 bytes when given)."""
    ep = chess.square_file(board.ep_square) + 1 if board.ep_square is not None else 0
    rights = 0
    for bit, colour, short in ((1, chess.WHITE, False), (2, chess.WHITE, True), (4, chess.BLACK, False),
                               (8, chess.BLACK, True)):
        if _castling_rook(board, colour, short) is not None:
            rights |= bit
    bits = ""
    codes = {chess.KING: 1, chess.QUEEN: 2, chess.KNIGHT: 3, chess.BISHOP: 4, chess.ROOK: 5, chess.PAWN: 6}
    for file in range(8):
        for rank in range(8):
            found = board.piece_at(chess.square(file, rank))
            if found is None:
                bits += "0"
            else:
                bits += "1" + ("0" if found.color else "1") + format(codes[found.piece_type], "03b")
    bits = bits.ljust(192, "0")
    head = bytes([1, ep | (0 if board.turn else 0x10), rights, board.fullmove_number])
    return head + int(bits, 2).to_bytes(24, "big") + (chess960 or b"")


def _castling_rook(board: chess.Board, colour: bool, short: bool) -> int | None:
    king = board.king(colour)
    if king is None:
        return None
    for rook in chess.scan_forward(board.castling_rights & board.pieces_mask(chess.ROOK, colour)):
        if chess.square_rank(rook) == chess.square_rank(king) and (rook > king) == short:
            return rook
    return None


def chess960_bytes(board: chess.Board) -> bytes:
    """King and rook start squares (white king, black king, white short/long, black short/long rook) and number."""
    number = board.chess960_pos()
    assert number is not None, "a Chess960 start position is needed to derive the 8 bytes"
    squares = [board.king(chess.WHITE), board.king(chess.BLACK)]
    for colour in (chess.WHITE, chess.BLACK):
        rooks = list(chess.scan_forward(board.pieces_mask(chess.ROOK, colour)))
        squares += [max(rooks), min(rooks)]
    return bytes(_fm(square) for square in squares if square is not None) + number.to_bytes(2, "big")


def encode_game(game: chess.pgn.Game, number: int, *, chess960_extra: bytes | None = None,
                setup: bool | None = None) -> bytes:
    """A game's ``.cbg`` data (size word, setup position, moves) in encoding mode ``number``."""
    mode = mode_of(number)
    board = game.board()
    chess960 = mode.variant == "chess960"
    if setup is None:
        setup = chess960 or board.fen() != type(board)().fen()
    encoder = Encoder(mode, chess960)
    if mode.simple:
        encoder.simple(game, board)
    else:
        encoder.compact(game, board, Numbering(board, mode.reverse))
    head = b""
    if setup:
        extra = (chess960_extra or chess960_bytes(board)) if chess960 else None
        head = setup_bytes(board, extra)
    size = 4 + len(head) + len(encoder.out)
    return bytes([number | (0x40 if setup else 0)]) + size.to_bytes(3, "big") + head + bytes(encoder.out)


# --- corpus: the encoder reproduces real data ----------------------------------------------------------

PGN_SETS = {
    "libcbh_NormalGames": "BielMTO.pgn", "libcbh_Chess960Biel": "Chess960.pgn",
    "libcbh_WithVariations": "GamesWithVariations.pgn", "libcbh_ManyPromotions": "Promotions.pgn",
    "libcbh_UnusualStart": "UnusualStart.pgn", "libcbh_NonStandard": "NonStandardStart.pgn",
    "libcbh_Chess960NonStandard": "Chess960NonStandardStart.pgn", "libcbh_Annotation": "TestBaseExport.pgn",
}


def _pgn_games(name: str, pgn: str) -> list[chess.pgn.Game]:
    source = io.StringIO(cbh_path(name).with_name(pgn).read_text(encoding="utf-8", errors="replace"))
    games = []
    while (game := chess.pgn.read_game(source)) is not None:
        games.append(game)
    return games


def _with_data(name: str) -> Iterator[tuple[chess.pgn.Game, bytes]]:
    games = _pgn_games(name, PGN_SETS[name])
    with chessbase.open_database(cbh_path(name)) as db:
        assert len(db) == len(games)
        for number, game in enumerate(games, 1):
            yield game, db.game_data(number)[1]


@pytest.mark.parametrize("name", sorted(PGN_SETS))
def test_encoder_reproduces_the_corpus_byte_for_byte(name: str) -> None:
    checked: dict[int, int] = {}
    for game, data in _with_data(name):
        number = data[0] & 0x3F
        setup = bool(data[0] & 0x40)
        extra = None
        if number in (10, 11) and setup:
            board = game.board()
            # the 8 bytes name the game's *start* position: a set-up middle game does not show it (take them
            # from the file); Chess960NonStandard numbers every start position 253 (its PGN comments say so
            # too): derive the squares, take the number
            if board.chess960_pos() is None:
                extra = data[32:40]
            else:
                extra = chess960_bytes(board)
                if name == "libcbh_Chess960NonStandard":
                    extra = extra[:6] + data[38:40]
        ours = encode_game(game, number, chess960_extra=extra, setup=setup)
        if mode_of(number).simple and ours != data:
            ours = _with_their_spare_bits(game, ours, data)
        assert ours == data, (name, game.headers.get("White"), number)
        checked[number] = checked.get(number, 0) + 1
    assert checked


def _with_their_spare_bits(game: chess.pgn.Game, ours: bytes, data: bytes) -> bytes:
    """Simple encoder: ChessBase leaves junk in the promotion bits of moves that do not promote (corpus
    UnusualStart, mode 5: 0x1000 on 1. d4); copy those bits (and only those) from the real data."""
    mode = mode_of(data[0] & 0x3F)
    assert len(ours) == len(data), "the streams differ in length"
    start = 4 + (28 if data[0] & 0x40 else 0)
    moves = []
    todo: list[chess.pgn.GameNode] = [game]
    while todo:  # the moves in stream order: depth first, main line first
        node = todo.pop()
        todo.extend(reversed(node.variations))
        if node.move is not None:
            moves.append(node.move)

    def word(stream: bytes, at: int, counter: int) -> int:
        if mode.post:
            return ((mode.decode[stream[at]] - counter) & 0xFF) << 8 | (mode.decode[stream[at + 1]] - counter) & 0xFF
        return mode.decode[(stream[at] - counter) & 0xFF] << 8 | mode.decode[(stream[at + 1] - counter) & 0xFF]

    fixed = bytearray(ours)
    for index, move in enumerate(moves):
        at = start + 2 * index
        mine, theirs = word(ours, at, index), word(data, at, index)
        if mine != theirs and (mine ^ theirs) & ~0x3000 == 0 and not move.promotion:
            fixed[at:at + 2] = data[at:at + 2]
    return bytes(fixed)


# --- rare modes: real games ------------------------------------------------------------------------------


def _decoded_game(data: bytes) -> chess.pgn.Game:
    return build_game(decode_game(data, game=1), {})


def _same(game: chess.pgn.Game, data: bytes) -> None:
    ours = _decoded_game(data)
    assert tree_of(ours) == tree_of(game)
    assert ours.board().fen() == game.board().fen()


def _real_games() -> list[chess.pgn.Game]:
    games = _pgn_games("libcbh_WithVariations", "GamesWithVariations.pgn")
    games += _pgn_games("libcbh_ManyPromotions", "Promotions.pgn")
    games += _pgn_games("libcbh_NonStandard", "NonStandardStart.pgn")
    games += _pgn_games("libcbh_UnusualStart", "UnusualStart.pgn")
    with_null = chess.pgn.read_game(io.StringIO("1. e4 -- 2. d4 (2. Nf3 -- 3. Nc3) 2... Nf6 3. -- d5 *"))
    assert with_null is not None
    return [*games, with_null]


@pytest.mark.parametrize("number", [m for m in ALL_MODES if m not in (10, 11)])
def test_real_games_in_every_mode(number: int) -> None:
    games = _real_games()
    for game in games:
        _same(game, encode_game(game, number))
    assert len(games) >= 40


@pytest.mark.parametrize("number", (10, 11))
def test_chess960_games_in_both_modes(number: int) -> None:
    games = _pgn_games("libcbh_Chess960Biel", "Chess960.pgn")
    checked = 0
    for game in games:
        if game.board().chess960_pos() is None or game.headers.get("Variant", "").lower() != "chess960":
            continue
        data = encode_game(game, number)
        decoded = decode_game(data, game=1)
        assert decoded.chess960
        ours = build_game(decoded, {})
        assert ours.headers["Variant"] == "Chess960"
        assert tree_of(ours) == tree_of(game)
        checked += 1
    assert checked > 100


def test_rare_modes_change_the_bytes() -> None:
    # the modes really differ: the same game gives a different stream in each (no mode is a copy of another)
    (game, *_) = _pgn_games("libcbh_WithVariations", "GamesWithVariations.pgn")
    streams = {encode_game(game, number)[4:] for number in ALL_MODES if number not in (10, 11)}
    assert len(streams) == 10


# --- random games (hypothesis) ------------------------------------------------------------------------


def random_game(rng: random.Random, board: chess.Board, plies: int, branching: float) -> chess.pgn.Game:
    """A random game from ``board``: legal moves only (no king promotions), some side variations."""
    game = chess.pgn.Game()
    game.setup(board)
    if type(board) is chess.Board and not board.chess960 and board.fen() == chess.STARTING_FEN:
        for name in ("FEN", "SetUp"):
            game.headers.pop(name, None)
    todo: list[tuple[chess.pgn.GameNode, chess.Board, int]] = [(game, board, plies)]
    while todo:
        node, position, left = todo.pop()
        while left > 0:
            moves = [move for move in position.legal_moves if move.promotion != chess.KING]
            if not moves:
                break
            choices = rng.sample(moves, min(len(moves), 1 + (rng.random() < branching) * rng.randint(1, 2)))
            children = [node.add_variation(move) for move in choices]
            for child in children[1:]:
                after = position.copy(stack=False)
                after.push(child.move)
                todo.append((child, after, min(left - 1, rng.randint(0, 6))))
            position = position.copy(stack=False)
            position.push(children[0].move)
            node = children[0]
            left -= 1
    return game


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), number=st.sampled_from([m for m in ALL_MODES if m not in (8, 9, 10, 11)]))
def test_random_chess_games(seed: int, number: int) -> None:
    rng = random.Random(seed)
    game = random_game(rng, chess.Board(), rng.randint(0, 120), 0.15)
    _same(game, encode_game(game, number))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), number=st.sampled_from((10, 11)))
def test_random_chess960_games(seed: int, number: int) -> None:
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(rng.randrange(960))
    game = random_game(rng, board, rng.randint(0, 100), 0.15)
    ours = _decoded_game(encode_game(game, number))
    assert tree_of(ours) == tree_of(game)
    assert ours.board().fen() == game.board().fen()


# --- losing chess (modes 8 and 9) ----------------------------------------------------------------------


def _giveaway(seed: int, plies: int = 150, fen: str | None = None) -> chess.pgn.Game:
    rng = random.Random(seed)
    board = chess.variant.GiveawayBoard(fen) if fen else chess.variant.GiveawayBoard()
    return random_game(rng, board, plies, 0.1)


def _losing_check(game: chess.pgn.Game, number: int) -> chess.pgn.Game:
    data = encode_game(game, number)
    decoded = decode_game(data, game=1)
    assert decoded.variant == "losing chess"
    ours = build_game(decoded, {"Event": "test"})
    assert ours.headers["Variant"] == "Giveaway"
    assert isinstance(ours.board(), chess.variant.GiveawayBoard)
    assert tree_of(ours) == tree_of(game)
    assert ours.board().fen() == game.board().fen()
    # SAN without "+", kings named like other pieces, compulsory captures: as python-chess writes it
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    assert pgn_text(ours).split() == ours.accept(exporter).split()  # (line breaks may differ)
    assert stream_pgn_text(decoded, {"Event": "test"}) == pgn_text(ours)
    reread = chess.pgn.read_game(io.StringIO(pgn_text(ours)))
    assert reread is not None and not reread.errors and tree_of(reread) == tree_of(game)
    return ours


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), number=st.sampled_from((8, 9)))
def test_random_losing_chess_games(seed: int, number: int) -> None:
    _losing_check(_giveaway(seed), number)


def test_losing_chess_kings_are_captured_and_castle() -> None:
    kings_taken = castled = 0
    for seed in range(60):
        game = _giveaway(seed)
        for number in (8, 9):
            _losing_check(game, number)
        board = game.board()
        for move in game.mainline_moves():
            kings_taken += board.piece_type_at(move.to_square) == chess.KING
            castled += board.is_castling(move)
            board.push(move)
    assert kings_taken > 0
    # castling is rare in random games: a set-up position where both sides may castle
    castling = chess.pgn.read_game(io.StringIO(
        '[Variant "Giveaway"]\n[FEN "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"]\n\n'
        "1. O-O O-O-O 2. Kh1 (2. Rab1 Kb8) 2... Kb8 3. a4 *"))
    assert castling is not None and not castling.errors
    for number in (8, 9):
        ours = _losing_check(castling, number)
        assert "O-O-O" in pgn_text(ours)


def test_losing_chess_with_several_kings_and_promotions() -> None:
    # a set-up position with two white kings (the second one has no number: two-byte moves), a king taken by
    # a promoted rook, under-promotions
    board = chess.variant.GiveawayBoard("8/P6k/8/8/8/8/1p5p/K1K5 w - - 0 1")
    game = chess.pgn.Game()
    game.setup(board)
    node: chess.pgn.GameNode = game
    for uci in ("c1b2", "h2h1r", "a7a8n", "h1a1", "b2a1", "h7g7", "a1b2", "g7f6", "a8b6", "f6e5"):
        move = chess.Move.from_uci(uci)
        assert board.is_legal(move), uci
        board.push(move)
        node = node.add_variation(move)
    for number in (8, 9):
        _losing_check(game, number)


def test_losing_chess_king_promotion_is_unsupported() -> None:
    # the two-bit promotion field cannot name a king; a promotion setting the bits above it is refused, located
    mode = mode_of(8)
    fen_game = chess.pgn.read_game(io.StringIO('[Variant "Giveaway"]\n[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]\n\n*'))
    assert fen_game is not None
    head = encode_game(fen_game, 8)[:-1]  # without the end marker
    word = 0xC000 | _fm(chess.A8) << 6 | _fm(chess.A7)
    stream = bytes(mode.put(code, 0) for code in (TWO_BYTE, word >> 8, word & 0xFF)) + bytes([mode.put(POP, 1)])
    data = bytes([head[0]]) + (len(head) + len(stream)).to_bytes(3, "big") + head[4:] + stream
    with pytest.raises(UnsupportedError, match="king") as error:
        decode_game(data, game=5, base=1000)
    assert "game 5" in str(error.value) and error.value.offset == 1000 + len(head)
    # the same promotion with the bits clear is a queen promotion
    word &= 0x3FFF
    stream = bytes(mode.put(code, 0) for code in (TWO_BYTE, word >> 8, word & 0xFF)) + bytes([mode.put(POP, 1)])
    data = bytes([head[0]]) + (len(head) + len(stream)).to_bytes(3, "big") + head[4:] + stream
    assert [move.uci() for move in _decoded_game(data).mainline_moves()] == ["a7a8q"]


# --- unknown modes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("number", range(12, 64))
def test_unknown_modes_raise_a_located_format_error(number: int) -> None:
    data = bytes([number, 0, 0, 5, 0xFF])
    with pytest.raises(UnsupportedError) as error:
        decode_game(data, game=7, base=4242)
    assert isinstance(error.value, FormatError)
    assert "game 7" in str(error.value) and f"mode {number}" in str(error.value)
    assert error.value.offset == 4242
