"""PGN text of many games at once, from the batch decoder's arrays (no ``chess.pgn.Game``, no board per game).

:func:`pgn_texts` writes what :func:`.pgn.stream_pgn_text` writes (games without annotations): the tags, then
the moves in SAN with their numbers, variations in parentheses, wrapped at 80 columns. The SAN of every move
of a chunk comes from the batch's arrays (piece, squares, capture, rival, check) through a table of strings
filled as new combinations appear. Games the batch leaves to the scalar decoder are given as ``None``: the
caller writes them the old way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import chess
import chess.pgn
import numpy as np

from ...engine.errors import FormatError
from ...engine.layout import bit_fields
from ...schemas import chessbase as schema
from .batch import MoveBatch, main_lines
from .batch_state import MOVE, T_POP, T_PUSH
from .games import GameHeader, GameSource, RecordFields, annotated_game, pgn_headers
from .moves import DecodedGame
from .pgn import _escape, _wrap, pgn_text, stream_pgn_text

__all__ = ["annotated_pgn_texts", "batch_mainline_sans", "pgn_texts", "san_strings", "single_pgn_text"]

_LETTERS = ("", "", "N", "B", "R", "Q", "K")
_SUFFIX = ("", "+", "#")
_ECO_BITS = bit_fields(schema.ECO)
_WHITE_NUMBERS = [f"{number}." for number in range(1024)]
_BLACK_NUMBERS = [f"{number}..." for number in range(1024)]
_WHITE_PREFIXES = [f"{number}. " for number in range(1024)]


class _Names(dict[int, str]):
    """SAN text by packed key (see :func:`san_strings`), made on first use."""

    def __missing__(self, key: int) -> str:
        piece, rival, source = key & 7, key >> 3 & 3, key >> 5 & 63
        capture, target, promotion = key >> 11 & 1, key >> 12 & 63, key >> 18 & 7
        check, castling, null = key >> 21 & 3, key >> 23 & 1, key >> 24 & 1
        if null:
            text = "--"
        elif castling:
            text = ("O-O" if (target & 7) > (source & 7) else "O-O-O") + _SUFFIX[check]
        elif piece == chess.PAWN:
            text = chess.SQUARE_NAMES[target]
            if (source ^ target) & 7:
                text = chess.FILE_NAMES[source & 7] + "x" + text
            if promotion:
                text += "=" + _LETTERS[promotion]
            text += _SUFFIX[check]
        else:
            text = _LETTERS[piece] + ("", chess.FILE_NAMES[source & 7], chess.RANK_NAMES[source >> 3],
                                      chess.SQUARE_NAMES[source])[rival]
            text += ("x" if capture else "") + chess.SQUARE_NAMES[target] + _SUFFIX[check]
        self[key] = text
        return text


_NAMES = _Names()


def san_strings(batch: MoveBatch) -> list[str]:
    """The SAN of every token slot of a batch decoded with ``san=True`` (meaningless for markers)."""
    key = (batch.piece.astype(np.int64) | batch.rival.astype(np.int64) << 3 | batch.source.astype(np.int64) << 5
           | batch.capture.astype(np.int64) << 11 | batch.target.astype(np.int64) << 12
           | batch.promotion.astype(np.int64) << 18 | batch.check.astype(np.int64) << 21
           | batch.castling.astype(np.int64) << 23 | batch.null.astype(np.int64) << 24)
    names = _NAMES
    return [names[value] for value in key.tolist()]


def record_fields(records: Any, arrays: dict[str, np.ndarray[Any, Any]]) -> list[RecordFields]:
    """Every record's tag fields (``arrays``: :meth:`.Database.header_arrays`)."""
    eco = arrays["eco"].astype(np.int64)
    code = eco >> _ECO_BITS["code"].shift & _ECO_BITS["code"].mask
    subcode = eco >> _ECO_BITS["subcode"].shift & _ECO_BITS["subcode"].mask
    columns = (arrays["tournament"], arrays["year"], arrays["month"], arrays["day"], records["round"],
               records["subround"], arrays["white"], arrays["black"], arrays["result"], arrays["white_elo"],
               arrays["black_elo"], code, subcode, arrays["annotator"], arrays["source"])
    return list(map(RecordFields._make, zip(*(np.asarray(column).astype(np.int64).tolist() for column in columns),
                                            strict=True)))


def pgn_texts(database: GameSource, batch: MoveBatch, fields: Sequence[RecordFields] | Mapping[int, RecordFields],
              indices: Iterable[int] | None = None) -> Iterator[tuple[int, str | FormatError | None]]:
    """(number, PGN text) of each game of ``batch`` (decoded with ``san=True``); ``None`` for a game the batch
    left to the scalar path, the error for a game whose tags cannot be read. ``fields``: by record index (a game's
    number - 1); ``indices``: only these games of the batch (default: all)."""
    sans = san_strings(batch)
    kinds = batch.kind.tolist()
    whites = batch.white.tolist()
    fullmoves = batch.fullmove.tolist()
    firsts, counts = batch.first.tolist(), batch.count.tolist()
    prefixes = _WHITE_PREFIXES
    words = [(prefixes[fullmove] if fullmove < 1024 else f"{fullmove}. ") + san if white else san
             for san, white, fullmove in zip(sans, whites, fullmoves, strict=True)]
    # each move as it stands in a line without variations: "12. Nf3" for white, "Nc6" for black
    for index, number in _decoded(batch, indices):
        if index < 0:
            yield number, None
            continue
        try:
            headers, _ = pgn_headers(database, number, fields[number - 1])
        except FormatError as error:
            yield number, error
            continue
        start, stop = firsts[index], firsts[index] + counts[index]
        if any(kinds[start:stop]):  # variations (or skipped bytes)
            tokens = _tree_tokens(start, stop, kinds, sans, whites, fullmoves)
        else:
            tokens = words[start:stop]
            if tokens and not whites[start]:
                tokens.insert(0, _number(fullmoves[start], False))
        tokens.append(headers["Result"])
        lines = "\n".join([f'[{name} "{_escape(value)}"]' for name, value in headers.items()])
        yield number, lines + "\n\n" + _wrap_words(tokens) + "\n"


def annotated_pgn_texts(database: GameSource, batch: MoveBatch,
                        fields: Sequence[RecordFields] | Mapping[int, RecordFields],
                        indices: Iterable[int] | None = None) -> Iterator[tuple[int, str | FormatError | None]]:
    """(number, PGN text) of each game of ``batch`` (decoded with ``san=True``) with its annotations: what
    :func:`.pgn.pgn_text` writes of the game's ``to_pgn()``. The tree and the annotations are python-chess's
    (:func:`.pgn.build_game`, :class:`.annotations.Annotator`); the SAN is the batch's, so no board plays the
    moves. ``None`` for a game the batch left to the scalar path, the error for a game whose tags or annotations
    cannot be read. ``indices``: only these games of the batch (default: all)."""
    sans = san_strings(batch)
    kinds = batch.kind.tolist()
    for index, number in _decoded(batch, indices):
        if index < 0:
            yield number, None
            continue
        start = int(batch.first[index])
        move_sans = [sans[slot] for slot in range(start, start + int(batch.count[index])) if kinds[slot] == MOVE]
        try:
            headers, _ = pgn_headers(database, number, fields[number - 1])
            game, named = _named_game(database, number, headers, batch.game(index), move_sans)
        except FormatError as error:
            yield number, error
            continue
        yield number, pgn_text(game, named)


def single_pgn_text(game: GameHeader, annotated: bool) -> str:
    """A game's PGN text the game-by-game way (for the games a batch leaves): through ``chess.pgn`` when it has
    ``annotated`` annotations, else straight from its stream (no ``chess.pgn.Game`` built)."""
    if annotated:
        return pgn_text(game.to_pgn())
    return stream_pgn_text(game.decode(), game.headers)


def _decoded(batch: MoveBatch, indices: Iterable[int] | None) -> Iterator[tuple[int, int]]:
    """(index, number) of the games ``indices`` of a batch (default: all), the index -1 for a game the batch left
    to the scalar path."""
    numbers, fallback = batch.numbers.tolist(), batch.fallback.tolist()
    for index in range(len(numbers)) if indices is None else indices:
        yield -1 if fallback[index] else index, numbers[index]


def _named_game(database: GameSource, number: int, headers: dict[str, str], decoded: DecodedGame,
                move_sans: list[str]) -> tuple[chess.pgn.Game, dict[chess.pgn.GameNode, str]]:
    """Game ``number`` as ``chess.pgn`` with its annotations (:func:`.games.annotated_game`), and each node's SAN
    (``move_sans``: the stream's moves in order, depth first, as :func:`.pgn.build_game` numbers them from 1)."""
    named: dict[chess.pgn.GameNode, str] = {}

    def name(node: chess.pgn.GameNode, at: int) -> None:
        if at:
            named[node] = move_sans[at - 1]

    return annotated_game(database, number, decoded, headers, name), named


def _wrap_words(tokens: list[str], width: int = 80) -> str:
    """:func:`.pgn._wrap` of tokens without spaces (or of words made of such tokens and single spaces: they wrap
    as their tokens do), faster: the joined text cut at its last space that fits."""
    text = " ".join(tokens)
    if len(text) <= width:
        return text
    lines = []
    at, end = 0, len(text)
    while end - at > width:
        cut = text.rfind(" ", at, at + width + 1)
        if cut <= at:  # a token wider than the line
            return _wrap(text.split(" "), width)
        lines.append(text[at:cut])
        at = cut + 1
    lines.append(text[at:])
    return "\n".join(lines)


def _number(fullmove: int, white: bool) -> str:
    if fullmove < 1024:
        return _WHITE_NUMBERS[fullmove] if white else _BLACK_NUMBERS[fullmove]
    return f"{fullmove}." if white else f"{fullmove}..."


def _tree_tokens(start: int, stop: int, kinds: list[int], sans: list[str], whites: list[bool],
                 fullmoves: list[int]) -> list[str]:
    """A game with variations: the tree the stream makes (as :func:`.pgn._grow` makes it), written in PGN's
    order (as :func:`.pgn._walk` writes it)."""
    root: list[Any] = [-1, []]
    node, stack = root, []
    for at in range(start, stop):
        kind = kinds[at]
        if kind == T_PUSH:
            stack.append(node)
        elif kind == T_POP:
            if stack:
                node = stack.pop()
        elif kind == 0:
            child: list[Any] = [at, []]
            node[1].append(child)
            node = child
    tokens: list[str] = []

    def move(at: int, force: bool) -> None:
        if whites[at]:
            tokens.append(_number(fullmoves[at], True))
        elif force:
            tokens.append(_number(fullmoves[at], False))
        tokens.append(sans[at])

    def walk(parent: list[Any], force: bool) -> None:
        while parent[1]:
            main, *others = parent[1]
            move(main[0], force)
            force = False
            for other in others:
                tokens.append("(")
                move(other[0], True)
                walk(other, False)
                tokens.append(")")
                force = True
            parent = main

    walk(root, True)
    return tokens


def batch_mainline_sans(batch: MoveBatch, max_ply: int) -> list[list[str] | None]:
    """For each game of a batch decoded with ``san=True`` (no setup position, no losing chess: the batch leaves
    those to the scalar path), the first ``max_ply`` main-line moves as :func:`.pgn.mainline_sans` gives them (no
    tags to add); ``None`` for a game the batch left (``fallback``)."""
    sans = san_strings(batch)
    slots, game, _ = main_lines(batch)
    bounds = np.searchsorted(game, np.arange(len(batch.numbers) + 1)).tolist()
    chosen = slots.tolist()
    return [None if fallback else [sans[slot].rstrip("+#") for slot in chosen[start:min(stop, start + max_ply)]]
            for fallback, start, stop in zip(batch.fallback.tolist(), bounds[:-1], bounds[1:], strict=True)]
