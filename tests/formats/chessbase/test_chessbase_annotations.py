"""ChessBase annotation items without a corpus example, and guiding texts.

Each item is written here byte by byte from its documented layout (Yarin78/morphy's serializers and notes,
see the schema), with the arithmetic in a comment; it is parsed with the schema, rebuilt byte for byte and
mapped to PGN on a small game. Guiding texts are checked on the corpus against facts outside our decoding:
each language's HTML names its language, the pictures it shows are the files of ``text.html/`` and the
``.cbm`` manifest, links name other records.
"""

from __future__ import annotations

import re
from typing import Any

import chess
import chess.engine
import chess.pgn
import construct as cs
import pytest

from chessbase_corpus import cbh_path
from chessformats import chessbase
from chessformats.formats.chessbase import GuidingText
from chessformats.formats.chessbase.annotations import Annotator, time_control_tag
from chessformats.formats.chessbase.pgn import pgn_text
from chessformats.schemas import chessbase as schema
from roundtrip import assert_rebuilds


def _item(position: int, kind: int, body: bytes) -> bytes:
    """An item: position (3 bytes, signed), type, size (2 bytes, the 6 header bytes included), body."""
    return position.to_bytes(3, "big", signed=True) + bytes([kind]) + (6 + len(body)).to_bytes(2, "big") + body


def _annotate(items: list[bytes]) -> tuple[chess.pgn.Game, Annotator]:
    """``1. e4 e5 2. Nf3`` with the items attached (positions: -1 game, 0 e4, 1 e5, 2 Nf3)."""
    entries = [assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError) for raw in items]
    annotator = Annotator(entries)
    game = chess.pgn.Game()
    annotator(game, 0)
    node: chess.pgn.GameNode = game
    for index, uci in enumerate(("e2e4", "e7e5", "g1f3"), 1):
        node = node.add_variation(chess.Move.from_uci(uci))
        annotator(node, index)
    annotator.finish(game)
    return game, annotator


def _moves(game: chess.pgn.Game) -> list[chess.pgn.ChildNode]:
    return list(game.mainline())


# --- items with a PGN form ---------------------------------------------------------------------------

def test_time_spent_is_emt() -> None:
    # 0x07 at position 0 (after 1.e4): hours 1, minutes 2, seconds 5, unknown byte 0x1E; size 6 + 4 = 10
    raw = bytes.fromhex("000000" "07" "000a" "01" "02" "05" "1e")
    item = assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
    assert (item.body.hours, item.body.minutes, item.body.seconds, item.body.unknown) == (1, 2, 5, 0x1E)
    game, _ = _annotate([raw])
    e4 = _moves(game)[0]
    assert e4.emt() == 3600 + 2 * 60 + 5
    assert "1. e4 { [%emt 1:02:05] }" in pgn_text(game)


def test_computer_evaluation_is_eval() -> None:
    # 0x21, three little-endian int16: value, kind, depth; size 6 + 6 = 12
    # after 1...e5: -125 = 0xFF83 -> 83 ff, kind 0 (centipawns) -> 00 00, depth 20 = 0x14 -> 14 00
    pawns = bytes.fromhex("000001" "21" "000c" "83ff" "0000" "1400")
    # after 2.Nf3: 3 -> 03 00, kind 1 (mate) -> 01 00, depth 0 (not given) -> 00 00
    mate = bytes.fromhex("000002" "21" "000c" "0300" "0100" "0000")
    # kind 3: ChessBase shows nothing (morphy): kept on the game, not written
    hidden = bytes.fromhex("000000" "21" "000c" "0a00" "0300" "0500")
    item = assert_rebuilds(schema.ANNOTATION_ITEM, pawns, size=cs.SizeofError)
    assert (item.body.value, str(item.body.kind), item.body.depth) == (-125, "centipawns", 20)
    game, annotator = _annotate([pawns, mate, hidden])
    e4, e5, nf3 = _moves(game)
    # the stored value is White's view: -1.25 stays -1.25 after black's move (not turned to the mover's view)
    assert e5.eval() == chess.engine.PovScore(chess.engine.Cp(-125), chess.WHITE) and e5.eval_depth() == 20
    assert nf3.eval() == chess.engine.PovScore(chess.engine.Mate(3), chess.WHITE) and nf3.eval_depth() is None
    assert e4.eval() is None
    assert annotator.extras.items[0] == [("engine_evaluation", {"value": 10, "kind": "hidden", "depth": 5})]
    text = pgn_text(game)
    assert "e5 { [%eval -1.25,20] }" in text and "Nf3 { [%eval #3] }" in text


def test_time_control_is_a_tag() -> None:
    # 0x24 at -1: three 11-byte periods (start u32 cs, increment u32 cs, moves u16, kind u8), big-endian
    # 40 moves in 90 min + 30 s: 540000 = 0x00083D60, 3000 = 0x00000BB8, 40 = 0x0028, kind 1 (stage)
    # then 30 min + 30 s for the rest: 180000 = 0x0002BF20, 3000, 1000 = 0x03E8, kind 3; then an unused period
    body = bytes.fromhex("00083d60" "00000bb8" "0028" "01" "0002bf20" "00000bb8" "03e8" "03") + bytes(11)
    raw = _item(-1, 0x24, body)
    assert len(raw) == 6 + 33 and raw[:6] == bytes.fromhex("ffffff" "24" "0027")
    item = assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
    assert [int(p.moves) for p in item.body.periods] == [40, 1000, 0]
    game, annotator = _annotate([raw])
    assert game.headers["TimeControl"] == "40/5400+30:1800+30"
    assert not annotator.extras.items
    # a time that is not whole seconds (150 cs = 1.5 s) has no PGN form: kept on the game
    odd = _item(-1, 0x24, bytes.fromhex("00000096" "00000000" "03e8" "00") + bytes(22))
    game, annotator = _annotate([odd])
    assert "TimeControl" not in game.headers
    assert annotator.extras.items[-1][0][1][0] == {"seconds": 1.5, "increment": 0.0, "moves": 1000, "kind": "rest"}


def test_time_control_values() -> None:
    def period(start: int, increment: int, moves: int, kind: int) -> Any:
        return schema.TIME_PERIOD.parse(schema.TIME_PERIOD.build(
            {"start": start, "increment": increment, "moves": moves, "kind": kind}))

    assert time_control_tag([period(300_000, 0, 1000, 0), period(0, 0, 1000, 5)]) == "3000"  # 50 min, all game
    assert time_control_tag([period(18_000, 200, 1000, 3)]) == "180+2"
    assert time_control_tag([period(18_000, 0, 1000, 3)]) == "180+0"  # kind 3 says "with an increment"
    assert time_control_tag([period(0, 0, 0, 0)]) is None


def test_yellow_arrows_and_squares() -> None:
    # 0x05: colour 3 (yellow, morphy's GraphicalAnnotationColor), e2 = (4 << 3) + 1 + 1 = 34 = 0x22, e4 = 36 = 0x24
    # 0x04: colour 3, square d5 = (3 << 3) + 4 + 1 = 29 = 0x1d
    arrows = _item(0, 0x05, bytes.fromhex("03" "22" "24"))
    squares = _item(0, 0x04, bytes.fromhex("03" "1d"))
    for raw in (arrows, squares):
        assert str(assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
                   .body[("arrows" if raw[3] == 5 else "squares")][0].colour) == "yellow"
    game, _ = _annotate([arrows, squares])
    assert "[%csl Yd5][%cal Ye2e4]" in pgn_text(game)  # python-chess writes the two commands together


# --- items kept on the game ----------------------------------------------------------------------------

def test_evaluation_list_is_kept_readable() -> None:
    # 0x26 at -1: count u16 = 2, then entries of kind u8, depth u8, value i16 (big-endian)
    # (0 centipawns, depth 20 = 0x14, +25 = 0x0019), (1 mate, depth 10 = 0x0a, -3 = 0xfffd); size 6 + 2 + 8 = 16
    raw = bytes.fromhex("ffffff" "26" "0010" "0002" "00" "14" "0019" "01" "0a" "fffd")
    item = assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
    assert [int(e.value) for e in item.body.entries] == [25, -3]
    _, annotator = _annotate([raw])
    assert annotator.extras.items[-1] == [("evaluation_list", [
        {"kind": "centipawns", "depth": 20, "evaluation": "0.25"}, {"kind": "mate", "depth": 10, "evaluation": "#-3"}])]


def test_web_link() -> None:
    # 0x1C: size u16 LE = 2 + (1 + 17) + (1 + 0) = 21 -> 15 00; 17 = 0x11, the URL; 0, an empty text
    url = b"https://schack.se"
    raw = _item(1, 0x1C, bytes.fromhex("1500" "11") + url + b"\x00")
    item = assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
    assert item.body.size == 21 == len(raw) - 6 and item.body.url == url
    game, annotator = _annotate([raw])
    assert annotator.extras.items[1] == [("web_link", {"url": "https://schack.se", "text": ""})]
    assert _moves(game)[1].comment == ""


def test_training() -> None:
    # 0x09: marker 01 00 01, size u16 LE from itself = 2 + 4 + 2 + 2 = 10 -> 0a 00 (as in morphy_mate2_veryold:
    # item size - 9), 360 s = 0x168 -> 68 01 00 00, 6 points -> 06 00, a 2-byte question
    raw = _item(0, 0x09, bytes.fromhex("010001" "0a00" "68010000" "0600") + b"Q?")
    item = assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
    assert item.body.size == len(raw) - 9
    _, annotator = _annotate([raw])
    assert annotator.extras.items[0] == [("training", {"seconds": 360, "points": 6, "question": b"Q?"})]


def test_training_items_of_the_corpus() -> None:
    # morphy_mate2_veryold: 15 training items; each one's size field counts from itself to the item's end
    with chessbase.open_database(cbh_path("morphy_mate2_veryold")) as db:
        items = [item for number in range(1, db.record_count + 1) for item in db.annotations(number)]
        game = db[1]
        assert isinstance(game, chessbase.GameHeader)
        extras = game.to_pgn().chessbase_extras.items  # type: ignore[attr-defined]
    assert len(items) == 15 and {str(item.type) for item in items} == {"training"}
    for item in items:
        assert item.body.marker == b"\x01\x00\x01" and item.body.size == item.size - 9
    assert [name for values in extras.values() for name, _ in values] == ["training", "training"]


def test_game_quotation() -> None:
    # 0x13, big-endian: size, kind 1 (header only), flags 0 (no setup), then "Carlsen,M" (9) and "Anand,V" (7)
    # as length byte + bytes + 0, elos 2882 = 0x0b42 and 2792 = 0x0ae8, ECO 0, "WCh" (3), "Chennai" (7),
    # date 2013.11.22 = (2013 << 9) | (11 << 5) | 22 = 0x000fbb76, event type 0, nation IND = 60 = 0x003c,
    # category 21 = 0x0015, rounds 12 = 0x000c, subround 0, round 6, result 2 (1-0), unknown 0x0001, no moves.
    # size = 37 fixed + 9 + 7 + 3 + 7 = 63 = 0x3f
    body = (bytes.fromhex("003f" "0001" "0000") + b"\x09Carlsen,M\x00" + b"\x07Anand,V\x00"
            + bytes.fromhex("0b42" "0ae8" "0000") + b"\x03WCh\x00" + b"\x07Chennai\x00"
            + bytes.fromhex("000fbb76" "0000" "003c" "0015" "000c" "00" "06" "02" "0001"))
    assert len(body) == 63
    raw = _item(2, 0x13, body)
    item = assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
    assert (item.body.white, item.body.moves, item.body.rest, str(item.body.kind)) == (b"Carlsen,M", b"", b"",
                                                                                       "header")
    _, annotator = _annotate([raw])
    ((name, value),) = annotator.extras.items[2]
    assert name == "game_link"
    assert {k: value[k] for k in ("white", "black", "white_elo", "event", "site", "date", "nation", "round",
                                  "result")} == {
        "white": "Carlsen,M", "black": "Anand,V", "white_elo": 2882, "event": "WCh", "site": "Chennai",
        "date": "2013.11.22", "nation": "IND", "round": 6, "result": "white_wins"}


@pytest.mark.parametrize(("kind", "body", "name", "value"), [
    (0x14, "03", "pawn_structure", {"structure": 3}),
    # piece path: type 3, square 0x2b = 43, from 1: 42 -> file 42 >> 3 = 5 (f), rank 42 & 7 = 2 -> f3
    (0x15, "032b", "piece_path", {"kind": 3, "square": "f3"}),
    (0x11, "3132", "picture", {"picture": 12}),  # ASCII "12"
    (0x20, "012a" + b"intro".hex(), "video", {"language": "english", "caption": "intro"}),  # 1, 0x2A English
    (0x10, "0102", "sound", {"data": b"\x01\x02"}),
    (0x19, "010203", "correspondence_move", {"data": b"\x01\x02\x03"}),
    (0x7E, "0102", "126", {"data": b"\x01\x02"}),  # an unknown type stays raw
])
def test_items_without_pgn_form(kind: int, body: str, name: str, value: Any) -> None:
    raw = _item(0, kind, bytes.fromhex(body))
    assert_rebuilds(schema.ANNOTATION_ITEM, raw, size=cs.SizeofError)
    game, annotator = _annotate([raw])
    assert annotator.extras.items[0] == [(name, value)]
    assert not _moves(game)[0].comment


def test_a_record_of_every_new_item_round_trips() -> None:
    items = [_item(-1, 0x24, bytes(33)), _item(0, 0x07, bytes(4)), _item(0, 0x21, bytes(6)),
             _item(1, 0x1C, bytes.fromhex("0400" "00" "00")), _item(2, 0x15, b"\x01\x01")]
    entries = b"".join(items)
    # head: game 1 (3 bytes), 01 00 0e 0e 00 00, count = items + 1, size = 14 + items
    record = bytes.fromhex("000001" "01000e0e0000") + bytes([len(items) + 1]) + (14 + len(entries)).to_bytes(4, "big")
    parsed = assert_rebuilds(schema.ANNOTATION_RECORD, record + entries, size=cs.SizeofError)
    assert [str(e.type) for e in parsed.entries] == ["time_control", "time_spent", "engine_evaluation", "web_link",
                                                     "piece_path"]


# --- guiding texts ---------------------------------------------------------------------------------------

def _texts(name: str, encoding: str | None = None) -> list[GuidingText]:
    with chessbase.open_database(cbh_path(name), encoding=encoding) as db:
        return list(db.guiding_texts())


def _visible(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_each_language_names_itself() -> None:
    # morphy_text text 2, "Multi lang, deutsch primary": its author wrote each language's text in that language
    (text,) = [t for t in _texts("morphy_text") if t.number == 2]
    assert text.text_format == "html"
    assert {lang: _visible(html) for lang, html in text.html.items() if _visible(html)} == {
        "english": "English text", "german": "Deutsch text", "french": "Franc", "spanish": "Esp",
        "italian": "Ital", "dutch": "Ned", "portuguese": "Port"}


def test_html_texts_of_morphy_text() -> None:
    texts = _texts("morphy_text")
    assert len(texts) == 9
    folder = cbh_path("morphy_text").with_suffix(".html")
    pictures = set()
    for text in texts:
        for html in text.html.values():
            assert html.lstrip().lower().startswith(("<html>", "<!doctype html")), text.number
            assert html.rstrip().lower().endswith("</html>"), text.number
            pictures |= set(re.findall(r'src="text\.html\\([^"]+)"', html))
    # the pictures shown are the files of the base's text.html folder, and what its .cbm manifest lists
    assert pictures == {p.name for p in folder.iterdir()}
    manifest = cbh_path("morphy_text").with_suffix(".cbm").read_bytes()
    assert all(name.encode() in manifest for name in pictures)
    by_number = {t.number: t for t in texts}
    # text 8 links to text 1 by its title; text 10 to the Swedish federation's site, in UTF-8
    assert f"CBLink(tag_text,{by_number[1].titles['english']}," in by_number[8].html["english"]
    assert "Sveriges Schackförbunds hemsida" in _visible(by_number[10].html["english"])
    # text 6 links to the base's game (number 5, Mårdell - Foo)
    with chessbase.open_database(cbh_path("morphy_text")) as db:
        game = db[5]
        assert isinstance(game, chessbase.GameHeader)
        white = game.headers["White"]
    assert f"CBLink(tag_game,{white.replace(', ', ',')}," in by_number[6].html["english"]


def test_encoding_option_is_honoured() -> None:
    (text,) = [t for t in _texts("morphy_text", encoding="cp1252") if t.number == 10]
    # "ö" is C3 B6 in UTF-8: read as cp1252 those are "Ã¶"
    assert "SchackfÃ¶rbunds" in text.html["english"] and "Schackförbunds" not in text.html["english"]


def test_plain_texts_of_morphy_hedgehog() -> None:
    texts = _texts("morphy_hedgehog", encoding="cp1251")
    assert len(texts) == 27 and {t.text_format for t in texts} == {"formatted"}
    (contents,) = [t for t in texts if t.number == 2]
    assert contents.titles == {"german": "Содержание"}  # "Contents"
    assert "Глава 1. История и первопроходцы" in contents.texts["english"]  # "Chapter 1. History and pioneers"
    assert all(t.formatting.get("english") for t in texts) and not texts[0].html


@pytest.mark.parametrize("name", ["morphy_text", "morphy_hedgehog"])
def test_text_bodies_rebuild_byte_for_byte(name: str) -> None:
    for text in _texts(name):
        parsed = assert_rebuilds(schema.TEXT_CONTENTS, text.body, size=cs.SizeofError,
                                 text_format=text.text_format)
        assert parsed.rest == b"" and parsed.count == len(text.texts)
        assert all(len(t.text) == t.length for t in parsed.texts)


@pytest.mark.parametrize("item", [0, 1])
def test_an_item_running_past_its_record_is_a_located_error(tmp_path: Any, item: int) -> None:
    """An annotation item whose size runs past its record: a FormatError naming that item (the greedy item list
    used to stop there and drop it and every item after it)."""
    import shutil

    from chessformats import FormatError
    from chessformats.engine.codec import codec

    folder = tmp_path / "base"
    shutil.copytree(cbh_path("libcbh_Annotation").parent, folder)
    for path in folder.iterdir():
        path.chmod(0o644)
    cbh = next(folder.glob("*.cbh"))
    with chessbase.open_database(cbh) as db:
        number = next(n for n in range(1, db.record_count + 1) if len(db.annotations(n)) > item)
        start, data = db.annotation_data(number)  # type: ignore[misc]
        cba = db.companion(".cba")
    size = codec(schema.ANNOTATION_ITEM_HEAD).field("size")
    at = start + schema.ANNOTATION_RECORD_HEAD.sizeof()
    for _ in range(item):
        at += size.get(data, at - start)
    raw = bytearray(open(cba, "rb").read())
    size.put(raw, (1 << size.width) - 1, at)
    open(cba, "wb").write(bytes(raw))
    with chessbase.open_database(cbh) as db, pytest.raises(FormatError) as caught:
        db.annotations(number)
    assert caught.value.path is not None and caught.value.path.startswith(f"annotations[{number}].entries[{item}]")
    assert caught.value.file == cba
    assert caught.value.offset is not None and caught.value.offset >= at
