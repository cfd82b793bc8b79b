"""The encoder twins of the ChessBase move decoder: every corpus move's word and bytes rebuilt from the decoded
move and the decoder's context (mode, move counter), and the stream cipher inverted for every mode and counter."""

from __future__ import annotations

from typing import Any

import chess
import construct as cs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessformats import FormatError
from chessformats.formats.chessbase import open_database
from chessformats.formats.chessbase.moves import (
    POP,
    PUSH,
    DecodedMove,
    encode_byte,
    encode_simple_move,
    encode_two_byte_move,
)
from chessformats.formats.chessbase.start import BLACK, EMPTY, StartPosition, encode_setup, read_setup, standard_start
from chessformats.schemas import chessbase as schema
from conftest import SHARED_ROOT, find_corpus


def _decode_byte(byte: int, mode: int, count: int) -> int:
    """The decoder's rule, written independently here: table lookup and move counter."""
    table = schema.MODE_TABLES[mode]
    if schema.MODE_COUNTER[mode] == "post":
        return (table[byte] - count) % 256
    return table[(byte - count) % 256]


@pytest.mark.parametrize("mode", range(len(schema.MODE_TABLES)))
def test_encode_byte_inverts_the_cipher(mode: int) -> None:
    for count in range(0, 256, 7):
        assert [encode_byte(_decode_byte(byte, mode, count), mode=mode, count=count) for byte in range(256)] \
            == list(range(256))


_PIECES = {"queen": chess.QUEEN, "rook": chess.ROOK, "bishop": chess.BISHOP, "knight": chess.KNIGHT}
squares = st.integers(0, 63)
promotions = st.sampled_from([None, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT])


@given(squares, squares, promotions)
def test_two_byte_word_agrees_with_construct(source: int, target: int, promotion: int | None) -> None:
    word = encode_two_byte_move(source, target, promotion)
    value = schema.TWO_BYTE_MOVE.parse(word.to_bytes(2, "big"))
    assert (value.from_file, value.from_rank, value.to_file, value.to_rank, value.reserved) == (
        chess.square_file(source), chess.square_rank(source), chess.square_file(target), chess.square_rank(target), 0)
    assert value.promotion == {None: "queen", chess.QUEEN: "queen", chess.ROOK: "rook", chess.BISHOP: "bishop",
                               chess.KNIGHT: "knight"}[promotion]


@given(squares, squares, promotions, st.booleans(), st.booleans(), st.booleans())
def test_simple_word_agrees_with_construct(source: int, target: int, promotion: int | None, push: bool, pop: bool,
                                           reverse: bool) -> None:
    word = encode_simple_move(source, target, promotion, push=push, pop=pop, reverse=reverse)
    value = schema.SIMPLE_MOVE.parse(word.to_bytes(2, "big"))
    stored = (value.to_square, value.from_square) if reverse else (value.from_square, value.to_square)
    assert stored == tuple(chess.square_file(s) * 8 + chess.square_rank(s) for s in (source, target))
    assert (value["push"], value["pop"]) == (push, pop)
    assert schema.SIMPLE_MOVE.build(value) == word.to_bytes(2, "big")


def _bases() -> list[Any]:
    root = SHARED_ROOT / "corpus" / "chessbase"
    return sorted(root.glob("*/*.cbh")) if root.is_dir() else []


@pytest.mark.parametrize("cbh", _bases(), ids=lambda path: path.parent.name)
def test_every_corpus_move_is_rebuilt_from_its_decoding(cbh: Any) -> None:
    """Two-byte and simple moves: the stored bytes == the encoder's (word from the decoded move, each byte
    through the cipher with the move counter the decoder used); one-byte moves: the byte re-enciphered."""
    checked = 0
    with open_database(cbh) as db:
        for number in range(1, db.record_count + 1):
            if int(db.records["kind"][number - 1]) & 0x82:
                continue
            try:
                base, data = db.game_data(number)
                game = db.decode(number)
            except Exception:  # damaged corpus games are other tests' business
                continue
            simple = schema.MODE_ENCODER[game.mode] == "simple"
            count = 0
            tokens = game.tokens
            for index, token in enumerate(tokens):
                if not isinstance(token, DecodedMove):
                    continue
                raw = data[token.offset - base:token.offset - base + token.byte_count]
                promotion = token.promotion
                if token.byte_count > 1 and promotion is None:
                    # a non-promotion keeps whatever promotion bits it was stored with ("ignored for other moves")
                    plain = bytes(_decode_byte(byte, game.mode, count) for byte in raw[-2:])
                    stored = (schema.SIMPLE_MOVE if simple else schema.TWO_BYTE_MOVE).parse(plain)["promotion"]
                    promotion = _PIECES[str(stored)]
                if simple:
                    pop = tokens[index + 1] == POP if index + 1 < len(tokens) else game.ended
                    target = chess.Move.from_uci(token.uci()).to_square if token.castling else token.to_square
                    word = 0 if token.null else encode_simple_move(
                        token.from_square, target, promotion, push=index > 0 and tokens[index - 1] == PUSH,
                        pop=pop, reverse=schema.MODE_REVERSE[game.mode])
                    if token.null:
                        word |= int.from_bytes(raw, "big") & 0xC000  # the markers of a null move: not from the move
                    assert bytes(encode_byte(byte, mode=game.mode, count=count)
                                 for byte in word.to_bytes(2, "big")) == raw, (number, token)
                    checked += 1
                elif token.byte_count == 3 and not token.castling and not token.null:
                    word = encode_two_byte_move(token.from_square, token.to_square, promotion)
                    expected = bytes(encode_byte(code, mode=game.mode, count=count)
                                     for code in (schema.CODE_TWO_BYTE, *word.to_bytes(2, "big")))
                    assert expected == raw, (number, token)
                    checked += 1
                elif token.byte_count == 1:
                    code = _decode_byte(raw[0], game.mode, count)
                    assert encode_byte(code, mode=game.mode, count=count) == raw[0]
                count = (count + 1) % 256
    assert checked or cbh.parent.name  # bases without two-byte moves still had every byte re-enciphered


def test_a_two_byte_word_round_trips_through_construct_build() -> None:
    word = encode_two_byte_move(chess.E7, chess.E8, chess.KNIGHT)
    assert schema.TWO_BYTE_MOVE.build(schema.TWO_BYTE_MOVE.parse(word.to_bytes(2, "big"))) == word.to_bytes(2, "big")
    with pytest.raises(cs.ConstructError):
        schema.TWO_BYTE_MOVE.parse(b"\x00")


# --- the setup position ---------------------------------------------------------------------------------------

def _setups() -> list[tuple[str, int, bytes, bool]]:
    """(base, game, stored setup bytes, chess960) of every corpus game that starts from a setup position."""
    found = []
    for cbh in _bases():
        with open_database(cbh) as db:
            for number in range(1, db.record_count + 1):
                try:
                    _, data = db.game_data(number)
                except Exception:
                    continue
                word = schema.DATA_WORD.parse(data[:4])
                if word.not_encoded or not word.setup or word.mode >= len(schema.MODE_VARIANT):
                    continue
                chess960 = schema.MODE_VARIANT[word.mode] == "chess960"
                size = schema.SETUP.sizeof() + (schema.CHESS960_SETUP.sizeof() if chess960 else 0)
                found.append((cbh.parent.name, number, bytes(data[4:4 + size]), chess960))
    return found


def test_every_corpus_setup_is_rebuilt_from_its_decoding() -> None:
    find_corpus("chessbase")
    setups = _setups()
    rebuilt = 0
    for base, number, raw, chess960 in setups:
        try:
            start = read_setup(raw, 0, chess960=chess960, file=None, base=0, game=number)
        except FormatError:
            continue  # damaged corpus setups (Chess960Corrupt): other tests' business
        assert encode_setup(start, marker=raw[0]) == raw, (base, number)
        # and construct reads the same board from the declaration
        parsed = schema.SETUP.parse(raw)
        board = [chess.square(index >> 3, index & 7) for index in range(64)]
        assert [str(symbol) for symbol in parsed.board.squares] == [
            "empty" if not start.board[square] else
            f"{'black' if start.board[square] & BLACK else 'white'}_{chess.piece_name(start.board[square] & 7)}"
            for square in board]
        assert schema.SETUP.build(parsed) == raw[:schema.SETUP.sizeof()]
        rebuilt += 1
    assert rebuilt >= 200, rebuilt  # 216 of the corpus' 220 setups read (4 are damaged on purpose)


_PIECE_CODES = st.sampled_from([piece | colour for piece in range(chess.PAWN, chess.KING + 1) for colour in (0, BLACK)])


@st.composite
def start_positions(draw: Any) -> StartPosition:
    squares = draw(st.lists(st.integers(0, 63), max_size=32, unique=True))
    board = [EMPTY] * 64
    for square in squares:
        board[square] = draw(_PIECE_CODES)
    ep = draw(st.one_of(st.none(), st.integers(0, 7)))
    start = StartPosition(board, draw(st.booleans()), draw(st.integers(0, 15)), ep, draw(st.integers(0, 255)),
                          standard=False)
    if draw(st.booleans()):
        start.chess960 = True
        start.kings = (draw(st.integers(0, 63)), draw(st.integers(0, 63)))
        start.rooks = tuple(draw(st.integers(0, 63)) for _ in range(4))  # type: ignore[assignment]
        start.start_position = draw(st.integers(0, 959))
    return start


@given(start_positions())
def test_setup_round_trips_and_agrees_with_construct(start: StartPosition) -> None:
    raw = encode_setup(start)
    assert len(raw) == schema.SETUP.sizeof() + (schema.CHESS960_SETUP.sizeof() if start.chess960 else 0)
    assert read_setup(raw, 0, chess960=start.chess960, file=None, base=0, game=0) == start
    parsed = schema.SETUP.parse(raw)
    assert (parsed.turn.black_to_move, parsed.first_move, parsed.board.padding) == (
        not start.white_to_move, start.first_move, 0)
    assert schema.SETUP.build(parsed) == raw[:schema.SETUP.sizeof()]
    if start.chess960:
        extra = schema.CHESS960_SETUP.parse(raw[schema.SETUP.sizeof():])
        assert extra.start_position == start.start_position
        assert chess.square(extra.white_king >> 3, extra.white_king & 7) == start.kings[0]


def test_a_setup_board_that_runs_past_its_bytes_is_located() -> None:
    start = standard_start()
    raw = bytearray(encode_setup(start))
    at = schema.SETUP_HEAD.sizeof()
    raw[at:at + schema.SETUP_BOARD_SIZE] = b"\xff" * schema.SETUP_BOARD_SIZE  # 11111: no piece
    with pytest.raises(FormatError) as caught:
        read_setup(bytes(raw), 0, chess960=False, file="x.cbg", base=100, game=7)
    assert caught.value.offset == 100 + at and caught.value.path == "setup.board.squares"
    raw[at:at + schema.SETUP_BOARD_SIZE] = bytes.fromhex("b5") * schema.SETUP_BOARD_SIZE  # 64 pieces: too many
    with pytest.raises(FormatError, match="setup board"):
        read_setup(bytes(raw), 0, chess960=False, file="x.cbg", base=100, game=7)
