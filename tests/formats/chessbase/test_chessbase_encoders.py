"""The encoder twins of the ChessBase move decoder: every corpus move's word and bytes rebuilt from the decoded
move and the decoder's context (mode, move counter), and the stream cipher inverted for every mode and counter."""

from __future__ import annotations

from typing import Any

import chess
import construct as cs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessformats.formats.chessbase import open_database
from chessformats.formats.chessbase.moves import (
    POP,
    PUSH,
    DecodedMove,
    encode_byte,
    encode_simple_move,
    encode_two_byte_move,
)
from chessformats.schemas import chessbase as schema
from conftest import SHARED_ROOT


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
        for number in range(1, len(db) + 1):
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
