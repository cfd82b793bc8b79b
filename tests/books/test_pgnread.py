"""The reading of PGN games for the book builder: one match a game tells what the tags dictionary would, the
batch scan of movetext reads what the tokenizer reads."""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.books import batches, heads, pgnread
from chessformats.books.batches import Batch, read_batch
from chessformats.books.pgnread import GAME_BREAK, HEADER, TAG, HeaderTags, game_spans, parse_game, read_headers
from conftest import find_corpus

# the tag patterns as first written (one alternation a character): what the faster ones must match
_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_HEADER = re.compile(r'(?:\s*\[\s*[A-Za-z0-9_]+\s+"(?:[^"\\]|\\.)*"\s*\])*')

_PIECES = ['[Result "1-0"]', '[Result "0-1"]', '[Result "1/2-1/2"]', '[Result "*"]', '[Result "x"]', '[Result ""]',
           '[FEN "8/8/8/8/8/8/8/K6k w - - 0 1"]', '[SetUp "1"]', '[SetUp "0"]', '[Variant "Chess960"]',
           '[Variant "From Position"]', '[Event "x"]', '[ Event  "a b" ]', '[Result\t"1/2-1/2"]', '[ Result "0-1" ]',
           '[Result  "1-0"]', '[Result "1-0"\n]', '[Result "1-0\n"]', '[Event "a\\"b"]', '[Event "a\\\\"]',
           '[Event "a\\', '[Event "a\\\n"]', '[Event "[Result \\"0-1\\"]"]', '[Event "[Result "]', '[Resultx "1-0"]',
           '[FENx "a"]', '[xFEN "a"]', '[Event ""]', '[Event "é"]', '[Event "x"][Site "y"]', "Result", '"', "[", "]",
           "\n", "\r\n", "\n\n", " ", "\t", "\u00a0", "1. e4 e5 ", "{c}", "*"]


def _expected(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, dict[str, str]]]:
    headers = [_HEADER.match(text, start, end) for start, end in spans]
    return [(header.end(), dict(_TAG.findall(text, start, header.end())))
            for (start, _), header in zip(spans, headers, strict=True) if header is not None]


def _check(text: str, spans: list[tuple[int, int]]) -> None:
    expected = _expected(text, spans)
    assert len(expected) == len(spans)
    positions, results, special = read_headers(text, spans)
    assert positions == [position for position, _ in expected]
    assert positions == [HEADER.match(text, start, end).end() for start, end in spans]  # type: ignore[union-attr]
    assert results == [tags.get("Result") for _, tags in expected]
    assert special == [any(name in tags for name in ("FEN", "SetUp", "Variant")) for _, tags in expected]
    tags = HeaderTags(text, [start for start, _ in spans], positions)
    assert len(tags) == len(spans)
    assert list(tags) == [tags[game] for game in range(len(spans))] == [game_tags for _, game_tags in expected]
    assert [dict(TAG.findall(text, start, position)) for (start, _), position in zip(spans, positions, strict=True)
            ] == list(tags)
    assert list(tags[1::2]) == list(tags)[1::2]
    if len(spans) > 2:
        assert list(tags.take([2, 0])) == [tags[2], tags[0]]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=10).map("".join), min_size=1, max_size=6))
def test_header_fields_equal_the_tags(games: list[str]) -> None:
    ends = list(itertools.accumulate(len(game) for game in games))
    text = "".join(games)
    _check(text, list(zip([0, *ends[:-1]], ends, strict=True)))
    _check(text, [(0, len(text))])


def test_header_fields_of_corpus_games() -> None:
    # file -> whether its games have FEN, SetUp or Variant tags
    files = {("pgn", "twic1134-mainlines.pgn"): False, ("libcbh_NormalGames", "BielMTO.pgn"): True,
             ("libcbh_Chess960Biel", "Chess960.pgn"): True, ("libcbh_NonStandard", "NonStandardStart.pgn"): True,
             ("libcbh_WithVariations", "GamesWithVariations.pgn"): False}
    for (folder, name), setups in files.items():
        text = Path(find_corpus(folder, name) if folder == "pgn" else find_corpus("chessbase", folder, name)).read_text(
            encoding="utf-8")
        spans = list(game_spans(text))
        _check(text, spans)
        _, results, special = read_headers(text, spans)
        assert None not in results and any(special) == setups


_PLAIN_MOVETEXT = ["1.", "12.", "3...", "e4", "Nf3", "exd5", "O-O", "O-O-O", "0-0", "e8=Q", "Qxe5+", "Nf3#", "e4!",
                   "e4?!", "1-0", "0-1", "1/2-1/2", "*", "1-0+", "e5+", "12a", "+e5", "-", "Nf3xe5xd6xc7", " ", "  ",
                   "\n", "\t", "\r\n", ".", "!"]
_ODD_MOVETEXT = ["{c}", "(", ")", "$1", ";x\n", "%", "~", "é", "[", "1-0)",
                 # comments and NAGs the scan blanks out, glued to what is around them or not, and what makes it
                 # hand the game over: a ';' or '%' line that may hide a brace, a brace unclosed or unopened
                 "{ [%eval 0.17] [%clk 0:04:31] }", "{c}+", "e4{c}e5", "{a;b}", "{a\n%b}", "{(}", "{x\n\ny}",
                 "$12+", "e4$3", "{$1}", "{", "}", "{" + "long " * 30 + "}", "\n%esc\n", ";{\n", "{;}\n", "{y}", "\x7f",
                 # variations the scan blanks out (with what is inside them), and what the tokenizer reports in them
                 "(1. d4 {x} d5)", "(e4 (e5) e6)", "(e4(e5)e6)", "(1... e5 $2 {z})", "({)})", "( * )", "(1-0)", "(;)\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.lists(st.sampled_from(_PLAIN_MOVETEXT), max_size=40),
                          st.lists(st.sampled_from(_PLAIN_MOVETEXT + _ODD_MOVETEXT), max_size=40)).map(" ".join),
                min_size=1, max_size=8),
       st.integers(1, 12), st.sampled_from([1, 3, 512]))
def test_batch_reading_of_generated_movetext_equals_the_tokenizer(bodies: list[str], max_ply: int,
                                                                  together: int) -> None:
    # cut anywhere by the scan's limits (8 and 16 characters a ply, windows 6 times as long): what the tokenizer
    # reads, game by game, whichever games are blanked together
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(heads, "_TOGETHER", together)
        _compare([f'[Result "*"]\n\n{body}\n\n' for body in bodies], max_ply)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PLAIN_MOVETEXT + _ODD_MOVETEXT), max_size=30).map(" ".join),
                min_size=1, max_size=6),
       st.sampled_from(["1-0", "0-1 ", "1/2-1/2", "*"]), st.integers(1, 12))
def test_batch_reading_of_games_without_blank_lines_equals_the_tokenizer(bodies: list[str], result: str,
                                                                        max_ply: int) -> None:
    # each game's result line right before the next game's tags: cut there unless in a comment, then the scan
    # reads what the tokenizer reads, game by game
    text = "".join(f'[Result "*"]\n\n{body} {result}\n' for body in bodies)
    spans = list(game_spans(text))
    if not re.search(r"[{};%\[]", "".join(bodies)):  # (what may hide a break, or make one: a '[' after a blank line)
        assert len(spans) == len(bodies)
    batch, skipped = read_batch(text, spans, 0, 1, max_ply)
    expected = [parse_game(text[start:end], max_ply) for start, end in spans]
    assert [(game.number, game.reason) for game in skipped] == [
        (number, error) for number, (_, _, error) in enumerate(expected, 1) if error is not None]
    assert [batch.sans(index) for index in range(len(batch.numbers))] == [
        sans for _, sans, error in expected if error is None]


def _game_spans_counting(text: str) -> list[tuple[int, int]]:
    """:func:`game_spans` as first written: each break's braces counted with ``str.count``."""
    spans, start, pending = [], 0, 0
    for match in GAME_BREAK.finditer(text):
        if text.count("{", pending, match.start()) > text.count("}", pending, match.start()):
            continue
        if re.search(r"\S", text[start:match.start()]):
            spans.append((start, match.start()))
        start = pending = match.end()
    if re.search(r"\S", text[start:]):
        spans.append((start, len(text)))
    return spans


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["{", "}", "{x}", "\n\n[", "\n \n[", "\n\n", "\n", "[", " ", "e4", "é", "€", "\x00",
                                 "\r", "\t", "\n\t\n [", "\n\r\n\r[",
                                 # a result's line before a tag line (a break without a blank line), and near misses
                                 "1-0", "0-1", "1/2-1/2", "*", "2", '\n[E "', '\n [E\t"', "\n[E", '[E "', '"', "]"]),
                max_size=60).map("".join), st.sampled_from([1, 2, 7, 8, 9, 1 << 20]))
def test_game_breaks_in_comments_are_found_as_by_counting(text: str, chunk: int) -> None:
    # the breaks and the braces found with numpy a chunk at a time (cut anywhere, and around the 8 bytes summed
    # together): as finditer and str.count
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pgnread, "_CHUNK", chunk)
        assert list(game_spans(text)) == _game_spans_counting(text)


def test_batch_reading_of_movetext_cut_at_the_scan_limit() -> None:
    # the first scan reads 8 × 2 + 32 = 48 characters of movetext ("\n\n" and the body here), the second 96
    games = [f'[Result "*"]\n\n{body}\n' for body in (
        "1. e4" + " " * 38 + "1-0+ e5 2. Nf3 *",  # cut after "1-0": that is not the result the tokenizer sees
        "1. e4" + " " * 38 + "1-0 e5 2. Nf3 *",  # the same cut, the result
        "1. e4 e5" + " " * 40 + "(2. Nf3",  # two moves read, then a variation the tokenizer finds unterminated
        "1. e4 e5" + " " * 90 + "(2. Nf3",  # the same past the tokenizer's own first look (it reads two moves)
        "1. e4 e5" + " " * 40 + "2. Nf3 *")]  # two moves read, the third tells they are the first two
    batch = _compare(games, 2)
    assert batch.numbers == [1, 2, 4, 5] and batch.sans(0) == ["e4", "1-0"] and batch.sans(1) == ["e4"]


def _compare(games: list[str], max_ply: int) -> Batch:
    ends = list(itertools.accumulate(len(game) for game in games))
    batch, skipped = read_batch("".join(games), list(zip([0, *ends[:-1]], ends, strict=True)), 0, 1, max_ply)
    expected = [parse_game(game, max_ply) for game in games]
    assert [(game.number, game.reason) for game in skipped] == [
        (number, error) for number, (_, _, error) in enumerate(expected, 1) if error is not None]
    assert [batch.sans(index) for index in range(len(batch.numbers))] == [
        sans for _, sans, error in expected if error is None]
    return batch


def test_batch_reading_of_commented_movetext(monkeypatch: pytest.MonkeyPatch) -> None:
    # brace comments, NAGs and variations are blanked out before the scan; what could read otherwise goes to the
    # tokenizer
    handed = [
        "1. e4 ;{ a brace in a line comment\n e5 } 2. Nf3 *",  # the '}' closes nothing: e5 is a move
        "1. e4 {a\n%b} e5 *",  # an escape line inside a comment
        "1. e4 {a ; b} e5 *",  # a semicolon inside a comment
        "1. e4 { [%clk 0:01:00] }+ e5 *",  # a check mark after a comment
        "1. e4 {unterminated e5 2. Nf3 *",
        "1. e4 } e5 *",
        "1. e4 {" + "x" * 2000 + "} e5 2. Nf3 *",  # longer than the window
        "1. e4 (1. d4 1-0) e5 *",  # a result in a variation: the tokenizer reports it
        "1. e4 (1. d4 (1. c4) e5 *",  # a variation open at the game's end
        "1. e4 ) e5 *",  # closing nothing
        "1. e4 $ e5 *",  # a dollar without a number
        "1. e4 {b {c} e5" + " " * 800 + "2. Nf3 *",  # a brace in a comment (then moves past the windows)
    ]
    read = [
        "1. e4{c}e5 2. Nf3$1 Nc6 *",
        "1. e4 $14 {a (b) c} e5 2. Nf3 {[%eval 0.3]} {two} Nc6 1-0",
        " ".join(f"{n}. e4 {{ [%eval 0.17] [%clk 0:04:31] }} e5 {{ [%eval -0.2] [%clk 0:04:30] }}"
                 for n in range(1, 40)) + " *",
        "1. e4 {x} (1. d4 {y}) e5 *",
        "1. e4 (1. d4 {a ) b} (1. c4 $2 (1... c5 {+-}) e5)) $1 e5(2...Nc6)2. Nf3 (2. d4 {(}) Nc6 *",
    ]
    calls = []
    monkeypatch.setattr(batches, "parse_game", lambda *args: calls.append(args) or parse_game(*args))
    batch = _compare([f'[Result "*"]\n\n{body}\n\n' for body in read], 12)
    assert not calls and [len(batch.sans(index)) for index in range(len(read))] == [4, 4, 12, 2, 4]
    _compare([f'[Result "*"]\n\n{body}\n\n' for body in handed], 12)
    assert len(calls) == len(handed)


def test_lichess_movetext_is_read_by_the_first_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    # lichess numbers black's moves after a comment (~10 characters a ply once the comments are blanks): the
    # first scan's head still holds max_ply + 1 moves, so no game is scanned again or tokenized
    moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"] * 8
    body = " ".join((f"{ply // 2 + 1}. " if ply % 2 == 0 else f"{ply // 2 + 1}... ") +
                    f"{move} {{ [%eval -0.{ply % 10}7] [%clk 0:0{ply % 10}:31] }}"
                    for ply, move in enumerate(moves[:60]))
    scans = []
    original = batches._scan_heads
    monkeypatch.setattr(batches, "_scan_heads", lambda *args: scans.append(args) or original(*args))
    monkeypatch.setattr(batches, "parse_game", lambda *args: pytest.fail("tokenized"))
    batch = _compare([f'[Result "*"]\n\n{body} *\n\n'] * 3, 30)
    assert len(scans) == 1 and [len(batch.sans(index)) for index in range(3)] == [30] * 3


# Windows-1252 text. No game of it is UTF-8 ("é" then '"' is not); the first tag holds "ß“" (0xDF 0x93, a UTF-8
# character on its own, U+07D3) before the first byte that is not UTF-8: the game is decided whole, not from there
# on. "€" is 0x80; "#" stands for 0x81, which Windows-1252 leaves undefined (read as U+0081, as in ISO 8859-1).
_LATIN = ('[Event "Schloß“ Open"]\n[Site "Café"]\n[White "Müller, Jürgen"]\n[Black "Nuñez, José"]\n'
          '[Result "1-0"]\n\n1. e4 {„Preis“ 100 € Ä– #} e5 1-0\n')
_UTF8 = '[Event "Москва"]\n[White "Ding, Liren 丁立人"]\n[Black "Weiß"]\n[Result "*"]\n\n1. d4 {½ ß“ €} *\n'


def _latin(text: str) -> bytes:
    return text.encode("cp1252").replace(b"#", b"\x81")


def _text(text: str) -> str:
    return text.replace("#", "\x81")


def test_windows_1252_games_are_read_as_windows_1252(tmp_path: Path) -> None:
    # a file of UTF-8 (with a byte order mark) and Windows-1252 games: each game read in its own encoding, by the
    # stream (in whole and in small chunks, read and readline), compressed, by the pieces of a parallel build and
    # by the games reader of the statistics
    import gzip

    from chessformats.books.pieces import piece_text, plan_pieces
    from chessformats.books.stats import read_pgn_games

    data = b"\xef\xbb\xbf" + _UTF8.encode() + b"\n" + _latin(_LATIN) + b"\r\n" + _UTF8.encode() + b"\n" + _latin(_LATIN)
    raw = "\ufeff" + _UTF8 + "\n" + _text(_LATIN) + "\r\n" + _UTF8 + "\n" + _text(_LATIN)
    expected = raw.replace("\r\n", "\n")
    assert pgnread.decode_pgn(data) == raw
    path, packed = tmp_path / "games.pgn", tmp_path / "games.pgn.gz"
    path.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    for name in (path, packed):
        with pgnread.open_text(name) as handle:
            assert handle.read() == expected
    for size in (1, 5, 64):
        with pgnread.open_text(path) as handle:
            handle._CHUNK_SIZE = size  # type: ignore[attr-defined]
            assert "".join(iter(handle.readline, "")) == expected
    pieces = list(plan_pieces([path], piece_bytes=1))
    assert len(pieces) == 4 and all(not isinstance(piece, str) for piece in pieces)
    assert "".join(piece_text(piece) for piece in pieces if not isinstance(piece, str)) == expected
    names = [(game.headers["Event"], game.headers["White"], game.headers["Black"])
             for game in read_pgn_games(str(path))]
    assert names == [("Москва", "Ding, Liren 丁立人", "Weiß"), ("Schloß“ Open", "Müller, Jürgen", "Nuñez, José")] * 2
    # a named encoding is taken as it is
    assert pgnread.decode_pgn(_latin(_LATIN), "utf-8") == _latin(_LATIN).decode("utf-8", "replace")
    with pgnread.open_text(path, encoding="latin-1") as handle:
        assert handle.read() == data.decode("latin-1").replace("\r\n", "\n")


_LATIN_PARTS = ["ü", "ß“", "€", "Ä–", "é", "Ñ", "a", " ", "{", "}", "1. e4", "\n", "\r\n"]
_UTF8_PARTS = [*_LATIN_PARTS, "丁", "\u2013", "Москва"]
_BREAKS = ["\n\n", "\r\n\r\n", "\n \n", "\n\n\n", "\n\t\r\n", " 1-0\n", "*\r\n", " 1/2-1/2 \n"]
"""Game breaks (a blank line between games, or a result's line before the next game's tags; in a file of Mac OS 9's
line ends, "\\r" alone, no game break is found in the bytes: its games are decided together)."""


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(_UTF8_PARTS), max_size=12).map("".join),
                          st.sampled_from(_BREAKS)), max_size=6),
       st.sampled_from([1, 2, 3, 7, 64, 8192]))
def test_each_game_is_decided_whole(games: list[tuple[bool, str, str]], chunk: int) -> None:
    # games in Windows-1252 (one byte of each not UTF-8: the "é" before '"', after the White tag, which may hold
    # UTF-8 characters: "ß“", "Ä–") or UTF-8 after game breaks of any kind: each read in its encoding, whatever the
    # stream's chunks, and as in the whole by pieces cut at breaks
    texts, data = [], b""
    for latin, words, gap in games:
        if latin:
            words = "".join(part for part in words if part.encode("cp1252", "ignore").decode("cp1252") == part)
        text = f'[White "{words}"]\n[Event "é"]\n\n{words}{gap}'
        texts.append(text)
        data += text.encode("cp1252" if latin else "utf-8")
    expected = "".join(texts)
    assert pgnread.decode_pgn(data) == expected
    cuts = [0, *(match.end() for match in pgnread.BYTE_BREAK.finditer(data)), len(data)]
    assert "".join(pgnread.decode_pgn(data[start:end]) for start, end in itertools.pairwise(cuts)) == expected
    stream = io.TextIOWrapper(io.BytesIO(data), encoding=pgnread._CODEC, newline="")
    stream._CHUNK_SIZE = chunk  # type: ignore[attr-defined]
    assert "".join(iter(lambda: stream.read(5), "")) == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=8), st.sampled_from([*_BREAKS, "\r\r", "["])), max_size=30).map("".join),
       st.sampled_from([1, 3, 8192]), st.booleans())
def test_utf8_text_reads_as_before(text: str, chunk: int, mark: bool) -> None:
    # valid UTF-8 (with or without a byte order mark): what the UTF-8 text stream read before (its own codec)
    data = ("\ufeff" if mark else "").encode() + text.encode("utf-8", "surrogatepass")
    assert pgnread.decode_pgn(data) == data.decode("utf-8", "replace")
    ours = io.TextIOWrapper(io.BytesIO(data), encoding=pgnread._CODEC, newline=None)
    before = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline=None)
    ours._CHUNK_SIZE = before._CHUNK_SIZE = chunk  # type: ignore[attr-defined]
    assert "".join(iter(lambda: ours.read(5), "")) == before.read()


def test_a_stream_holds_back_a_bounded_length(monkeypatch: pytest.MonkeyPatch) -> None:
    # games with no blank line between them and no result (no game break): held back up to _HOLD bytes, then
    # decided up to the last line end (or the last ASCII byte), a part at a time
    monkeypatch.setattr(pgnread, "_HOLD", 100)
    for line in ('[Event "Café"]\n1. e4 e5\n', '[Event "Café"]\r1. e4 e5 *\r', "é" * 30 + "a"):
        text = line * 40
        decoder = pgnread._Decoder()
        parts, held = [], 0
        data = text.encode("cp1252")
        for start in range(0, len(data), 30):
            parts.append(decoder.decode(data[start:start + 30]))
            held = max(held, len(decoder.pending))
        parts.append(decoder.decode(b"", final=True))
        assert "".join(parts) == text and held <= 130 and decoder.pending == b""
