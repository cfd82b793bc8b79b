"""The blanking of comments, NAGs and variations for the batch scan: lichess-like movetext read by the batch path
gives the main lines python-chess reads, and the heads it gathers as one byte string scan as the same strings do."""

from __future__ import annotations

import io
import random
import re

import chess
import chess.pgn
import numpy as np
import pytest

from chessformats.books import batches, heads, pgnscan
from chessformats.books.pgnread import game_spans, parse_game
from conftest import find_corpus

_SAN = re.compile(r"(?<![\w.])([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=[QRBN])?[+#]?|O-O(?:-O)?[+#]?)(?=\s)")
_MAX_PLY = 30


def _lichess_like(text: str, rng: random.Random, kind: str) -> str:
    """Every move followed by lichess's comment (evaluation and clock, black's move numbered after it); for
    ``kind`` "annotated" now and then a mark, a NAG, a parenthesis in a comment or a variation with comments and
    NAGs; "odd" adds comments holding what reads otherwise outside one (a result, a NAG, a ';')."""
    state = {"ply": 0}
    texts = {"comments": ("",), "annotated": ("", "", "", " a ( b", " x ) y"),
             "odd": ("",) * 300 + (" a ( b", " 1-0 $1 ;")}[kind]
    rate = 0.0 if kind == "comments" else 1.0

    def annotate(match: re.Match[str]) -> str:
        ply = state["ply"]
        state["ply"] += 1
        mark = rng.choice(("?!", "!", "??")) if rng.random() < 0.04 * rate else ""
        nag = f" ${rng.randint(1, 19)}" if rng.random() < 0.04 * rate else ""
        san = match.group(1)  # (a variation of the move itself: legal where it stands, as python-chess wants)
        variation = f" ({san} {{ [%eval 0.1] }} $2 ({san} {{v}}) {{w}})" if rng.random() < 0.03 * rate else ""
        number = f" {ply // 2 + 1}..." if ply % 2 == 0 else ""
        return (f"{match.group(1)}{mark}{nag} {{ [%eval {rng.uniform(-3, 3):.2f}] [%clk 0:0{rng.randint(0, 9)}:"
                f"{rng.randint(10, 59)}]{rng.choice(texts)} }}{variation}{number}")

    games = []
    for game in re.split(r"\n\s*\n(?=\[)", text.strip()):
        tags, _, movetext = game.partition("\n\n")
        state["ply"] = 0
        movetext = re.sub(r" \d+\.\.\.(?=\s+(?:1-0|0-1|1/2-1/2|\*)\s*$)", "", _SAN.sub(annotate, movetext))
        games.append(f"{tags}\n\n{movetext}")
    return "\n\n".join(games) + "\n"


def _uci(sans: list[str]) -> list[str]:
    board, moves = chess.Board(), []
    for san in sans:
        move = board.parse_san(san)
        moves.append(move.uci())
        board.push(move)
    return moves


@pytest.mark.parametrize("kind", ["comments", "annotated", "odd"])
def test_lichess_like_main_lines_equal_python_chess(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 real games with a comment after every move (and marks, NAGs, variations, odd comments): the batch path
    # reads the first moves of every main line as python-chess does; the tokenizer reads none of them but those
    # with what may read otherwise in a comment (a ';': it may hide a brace)
    source = find_corpus("pgn", "twic1134-mainlines.pgn").read_text(encoding="utf-8")
    text = _lichess_like("\n\n".join(re.split(r"\n\s*\n(?=\[)", source)[:200]), random.Random(28), kind)
    assert text.count("[%clk") > 15_000 and (text.count("{v}") > 100) == (kind != "comments")
    spans = list(game_spans(text))
    tokenized = []
    monkeypatch.setattr(batches, "parse_game", lambda *args: tokenized.append(args) or parse_game(*args))
    batch, skipped = batches.read_batch(text, spans, 0, 1, _MAX_PLY)
    assert not skipped and len(batch.numbers) == len(spans) == 200
    assert len(tokenized) == (0 if kind != "odd" else sum(";" in game for game, _ in tokenized)) < 50
    handle = io.StringIO(text)
    for index in range(len(spans)):
        game = chess.pgn.read_game(handle)
        assert game is not None and not game.errors
        expected = [move.uci() for move in game.mainline_moves()][:_MAX_PLY]
        assert _uci(batch.sans(index)) == expected, index
    assert chess.pgn.read_game(handle) is None


def test_packed_heads_scan_as_their_strings() -> None:
    # the heads gathered as one byte string read as the same heads given as strings; indexing and joining them
    texts = ["1. e4 e5 2. Nf3", "", "1... Nc6+ 3. Bb5 *", "e4\ne5 1-0", "Nf3 d5 O-O"]

    def packed(part: list[str]) -> pgnscan.Packed:
        return pgnscan.Packed("\n".join(["", *part, pgnscan.PADDING]).encode("ascii"),
                              np.array([len(text) for text in part], dtype=np.int64))

    joined = pgnscan.Packed.join([packed(texts[:2]), packed(texts[2:3]), packed(texts[3:])])
    assert list(joined) == texts and [joined[i] for i in range(-5, 5)] == texts * 2 and joined[1:4] == texts[1:4]
    truncated = [False, False, True, True, False]
    expected = pgnscan.scan(texts, truncated, 3)
    for found, wanted in zip(pgnscan.scan(joined, truncated, 3), expected, strict=True):
        assert np.array_equal(found, wanted) if isinstance(wanted, np.ndarray) else found == wanted


def test_blanked_heads_come_packed_or_as_strings() -> None:
    # a batch whose games all blank together gives its heads packed; one game that needs the per-game head (a
    # ';' comment) gives them as strings; both read the same moves
    body = " ".join(f"{n}. e4 {{ [%clk 0:00:{n:02d}] }} {n}... e5 {{ [%clk 0:00:{n:02d}] }}" for n in range(1, 20))
    text = "\n\n".join([f'[Result "*"]\n\n{body} *'] * 3)
    spans = list(game_spans(text))
    positions = [text.index("1.", start) for start, _ in spans]
    found, _ = heads.heads(text, spans, positions, 8 * _MAX_PLY + 32)
    assert isinstance(found, pgnscan.Packed) and len(set(found)) == 1
    odd = text[:spans[1][0]] + text[spans[1][0]:].replace("1. e4 {", "1. e4 ; x\n{", 1)
    spans = list(game_spans(odd))
    strings, _ = heads.heads(odd, spans, [odd.index("1.", start) for start, _ in spans], 8 * _MAX_PLY + 32)
    assert not isinstance(strings, pgnscan.Packed) and strings[0] == found[0] and strings[2] == found[2]


def test_comments_with_a_y_take_the_one_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # lichess's analysed games ("{ Inaccuracy. Nf3 was best. }"): a 'y' looks like a brace to the one comparison;
    # the braces of every game are still checked at once, not brace by brace
    body = " ".join(f"{n}. e4 {{ [%eval 0.1] Inaccuracy. Nf3 was best. }} {n}... e5 {{ y }}" for n in range(1, 20))
    text = "\n\n".join([f'[Result "*"]\n\n{body} *'] * 3)
    spans = list(game_spans(text))
    calls: list[str] = []
    comments = heads._Window.comments
    monkeypatch.setattr(heads._Window, "comments", lambda self: calls.append("comments") or comments(self))
    found, _ = heads.heads(text, spans, [text.index("1.", start) for start, _ in spans], 8 * _MAX_PLY + 32)
    assert calls == [] and isinstance(found, pgnscan.Packed)
    assert set(found[0].split()) == {"1.", "e4", "e5", "*"}  # the comments blanked, and the numbers after them
