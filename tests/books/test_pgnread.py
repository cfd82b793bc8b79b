"""The header reading of the book builder: one match a game tells what the tags dictionary would."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chessformats.books.pgnread import HEADER, TAG, HeaderTags, game_spans, read_headers
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
