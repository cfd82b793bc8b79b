"""PGN files to a ChessBase base, fast: main lines (with their comments and NAGs) are read and encoded in
batches, never as python-chess games; everything else goes through python-chess and the writer's own encoder,
so the base is byte for byte the one :func:`~chessformats.formats.chessbase.write.write_database` writes from
``chess.pgn.read_game``'s games.

>>> from chessformats.books.chessbase_import import write_database_from_pgn
>>> report = write_database_from_pgn("base.cbh", ["twic1134.pgn.gz"])           # doctest: +SKIP

The text is read in blocks and cut into games with python-chess's own rules (``read_game``: tag lines, at most
one blank line, movetext up to the first blank line) for the simple shape most files have: tag lines, then
movetext lines (which may hold blank lines) whose brace comments close on their line, each game ending at a
blank line. A game of another shape is read by ``read_game`` from the text itself, where it starts. A game of
that simple shape without ``FEN``/``SetUp``/``Variant`` tags is cut at its comments and NAGs (``$n``, ``!``,
``?!`` ...); what is between them must be only moves, move numbers and its result at the end (:mod:`.pgnscan`;
every move a token python-chess's own movetext pattern reads whole). Those are replayed with the others of its
batch (:mod:`.batchplay`) and their move stream coded for all of them at once
(:mod:`~chessformats.formats.chessbase.batch_encoder`); the comments and NAGs go where python-chess's
``GameBuilder`` puts them (a comment before the first move on the game, the others on the move before them),
a batch's lichess-shaped ones (an evaluation and a clock after every move) read together
(:mod:`~chessformats.formats.chessbase.annotation_batch`). A game the replay cannot play (an illegal or
ambiguous move, a null move ...), a NAG before the first move and every game with variations is read by
``read_game`` from its text. A game python-chess cannot read is reported with its number and the line it
starts on.

Memory: one batch of games (:data:`BATCH_GAMES`, or 16 M characters of text) and one block of text at a time,
plus the writer's entities (one record per distinct player, tournament ...).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, pairwise
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TextIO, cast

import numpy as np

from ..engine.contract import WriteReport
from ..formats.chessbase.annotation_batch import encode_comment_lines
from ..formats.chessbase.annotation_writer import ItemRecord, LineAnnotations
from ..formats.chessbase.batch_encoder import encode_main_lines
from ..formats.chessbase.write import (
    GameItem,
    PreparedGame,
    UnreadableGame,
    append_games,
    write_database,
)
from ..formats.pgngames import read_game
from ..formats.polyglot.packing import unpack_moves
from . import batchplay, pgnscan
from .pgnread import open_text

if TYPE_CHECKING:  # (imported for the games python-chess reads: a file the batches read whole does without it)
    import chess.pgn

__all__ = ["BATCH_GAMES", "pgn_items", "write_database_from_pgn"]

BATCH_GAMES = 4096
"""Plain games replayed and encoded together."""
_BATCH_CHARS = 1 << 24
"""Characters of text of the plain games of a batch at most (4,096 lichess games with a comment after every
move hold 14 M: they are replayed and encoded together, one step a ply; the batch's arrays grow with its text)."""
_COMMENTS = 1 << 15
"""Comments read together at most, about (:func:`.annotation_batch.encode_comment_lines` on a batch's games a part
at a time: its arrays stay small, 30 MB less at the peak for 3,000 lichess-style games than with 128 k)."""
_READ_GAMES = 256
"""python-chess games held back at most while a batch of plain games before them fills (a python-chess game of
a heavily annotated file takes far more memory than a plain game's text)."""
_BLOCK_CHARS = 1 << 20
_MARGIN = 1 << 18
"""Characters kept ahead of the reading position before a game is matched (a longer game is matched again
with more text)."""
_ALL_PLIES = 1 << 30
"""Polyglot raw moves are 16-bit."""

# One game of the simple shape, from where the previous one ended: blank lines; tag lines (python-chess's
# TAG_REGEX, one per line); at most one blank line, taken whenever there is one (an atomic group, written as a
# captured lookahead for Python 3.10); movetext lines (not blank, not starting with a comment or a tag, each brace
# comment closed on its line); the blank line (or the end of the text) that ends the game. A "blank" line is one
# ``str.isspace`` accepts, as for python-chess (re's \s is the same set).
_GAME = re.compile(
    r"(?:[^\S\n]*\n)*"
    r"((?:\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*[^\S\n]+\"[^\n]*\"\][^\S\n]*\n)+)"
    r"(?=((?:[^\S\n]*\n)?))\2"
    r"(?P<moves>(?:(?![^\S\n]*(?:\n|\Z))(?![%;\[])[^\n{]*(?:\{[^}\n]*\}[^\n{]*)*(?:\n|\Z))*)"
    r"[^\S\n]*(?:\n|\Z)")
_TAG = re.compile(r"^\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)[^\S\n]+\"([^\n]*)\"\][^\S\n]*$", re.M)
_ROSTER = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?", "Result": "*"}
"""The tags python-chess gives every game (``chess.pgn.Headers()``: the seven tag roster's unknown values)."""
_SET_UP = ("FEN", "SetUp", "Variant")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_NULL = "0000"
"""The digits python-chess reads as a null move."""
_MARKUP = re.compile(r"(\{[^}\n]*\}|\$[0-9]+|[?!]{1,2})")
"""What python-chess reads between the moves of a main line as annotations: a brace comment (on one line),
a NAG, a mark (``!``, ``?!`` ..., read two characters at most at a time)."""
_COMMENT = re.compile(r"(\{[^}\n]*\})")
"""The brace comments of :data:`_MARKUP` (what it finds in a movetext without ``$``, ``!`` or ``?``: faster)."""
_MARKS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
"""The NAGs of the move marks (the PGN standard's, 8.2.4; python-chess's ``NAG_GOOD_MOVE`` ... ``NAG_DUBIOUS_MOVE``)."""
_SAN_TOKEN = re.compile(r"[NBKRQ]?[a-h]?[1-8]?x?[a-h][1-8](?:=[NBRQ])?|O-O(?:-O)?")
"""Move tokens that python-chess's movetext pattern surely reads whole as a move (a subset of its first
alternative and of its castling one): the others are asked of that pattern itself."""


class _Text:
    """The PGN text, read in blocks: games of the simple shape are matched on it, and python-chess reads the
    others from it line by line (:meth:`readline`). ``line``: the line number at the reading position."""

    def __init__(self, handle: IO[str]) -> None:
        self.handle = handle
        self.buffer = ""
        self.pos = 0
        self.eof = False
        self.line = 1
        self.first = True

    def _fill(self) -> None:
        block = self.handle.read(_BLOCK_CHARS)
        if self.first:
            block = block.removeprefix("\ufeff")  # as the utf-8-sig codec
            self.first = False
        if not block:
            self.eof = True
        self.buffer = self.buffer[self.pos:] + block
        self.pos = 0

    def readline(self) -> str:
        end = self.buffer.find("\n", self.pos)
        while end < 0 and not self.eof:
            searched = len(self.buffer) - self.pos
            self._fill()
            end = self.buffer.find("\n", self.pos + searched)
        stop = end + 1 if end >= 0 else len(self.buffer)
        line = self.buffer[self.pos:stop]
        self.pos = stop
        if line.endswith("\n"):
            self.line += 1
        return line

    def plain(self) -> re.Match[str] | None:
        """The game of the simple shape at the reading position (then the position moves past it), or None."""
        while not self.eof and len(self.buffer) - self.pos < _MARGIN:
            self._fill()
        while True:
            match = _GAME.match(self.buffer, self.pos)
            if match is None or match.end() < len(self.buffer) or self.eof:
                break
            self._fill()  # the game may go on past the text read so far
        if match is not None:
            self.line += self.buffer.count("\n", match.start(), match.end())
            self.pos = match.end()
        return match

    def at_end(self) -> bool:
        if self.pos >= len(self.buffer) and not self.eof:
            self._fill()
        return self.pos >= len(self.buffer) and self.eof


class _Plain(NamedTuple):
    number: int
    line: int
    headers: str
    gap: str
    """The blank line between the tags and the moves, if any."""
    moves: str


class _Read(NamedTuple):
    number: int
    line: int
    game: chess.pgn.Game


def _unreadable(line: int, game: chess.pgn.Game) -> UnreadableGame | None:
    if game.errors:
        return UnreadableGame(f"python-chess could not read it: {game.errors[0]}", line)
    return None


def pgn_items(handle: IO[str], *, progress: Callable[[int], None] | None = None) -> Iterator[GameItem]:
    """The games of the PGN text ``handle`` as the writer takes them, one per game in order: a
    :class:`~chessformats.formats.chessbase.write.PreparedGame` for a plain main line, a python-chess game for
    the others, an :class:`~chessformats.formats.chessbase.write.UnreadableGame` (with its line) for a game
    python-chess cannot read. ``progress(games)`` is called after each batch."""
    text = _Text(handle)
    pending: list[_Plain | _Read] = []
    plain = read = chars = 0
    number = 0
    while not text.at_end():
        line = text.line
        match = text.plain()
        if match is not None:
            number += 1
            pending.append(_Plain(number, line, match[1], match[2], match["moves"]))
            plain += 1
            chars += match.end() - match.start()
            if plain >= BATCH_GAMES or chars >= _BATCH_CHARS:
                yield from _batch(pending)
                if progress is not None:
                    progress(number)
                pending, plain, read, chars = [], 0, 0, 0
            continue

        game = read_game(cast(TextIO, text))  # python-chess only calls readline
        if game is None:
            break
        number += 1
        if not pending:  # nothing before it waits: no need to hold it
            yield _unreadable(line, game) or game
            if progress is not None and number % _READ_GAMES == 0:
                progress(number)
            continue
        pending.append(_Read(number, line, game))
        read += 1
        if read >= _READ_GAMES:
            yield from _batch(pending)
            pending, plain, read, chars = [], 0, 0, 0
    yield from _batch(pending)
    if progress is not None:
        progress(number)


def _tags(headers: str) -> dict[str, str]:
    tags = dict(_ROSTER)
    tags.update(_TAG.findall(headers))
    return tags


def _movetext_result(moves: str) -> tuple[bool, str | None]:
    """Whether the movetext's result (if any) is its last token and its only one; that result."""
    found = [(result, moves.count(result)) for result in _RESULTS]
    total = sum(count for _, count in found)
    if total == 0:
        return True, None
    if total > 1:
        return False, None
    result = next(result for result, count in found if count)
    return moves.rstrip().endswith(result), result


def _valid_tokens(vocabulary: list[str]) -> np.ndarray[Any, Any]:
    """Per token: python-chess's movetext pattern reads it whole, as a move (not a null move)."""
    valid = np.array([_SAN_TOKEN.fullmatch(token) is not None for token in vocabulary], dtype=bool)
    others = np.flatnonzero(~valid).tolist()
    if others:
        import chess.pgn
    for index in others:
        token = vocabulary[index]
        match = chess.pgn.MOVETEXT_REGEX.match(token)
        valid[index] = match is not None and match.group(0) == token and match.group(1) is not None and \
            token not in ("--", "Z0", "0000", "@@@@")
    return valid


def _split(moves: str) -> tuple[list[str], list[str], bool] | None:
    """A movetext's text between its annotations (``segments``, one more than ``marks``), the annotations
    (:data:`_MARKUP`) and whether they are brace comments only (so, when its text has no "$", "!" or "?"; the
    marks are then the comments' texts between their braces); None when there is none."""
    nags = "$" in moves or "!" in moves or "?" in moves
    if not nags and "{" not in moves:
        return None
    if not nags:  # each "{" closes on its line (_GAME) at the first "}": right when the braces alternate
        parts = moves.replace("}", "{").split("{")
        if len(parts) == 2 * moves.count("{") + 1:  # as many "}" as "{"; alternating: none before the first "{",
            pieces = moves.split("{")               # one after each (a "{" in a comment has a stray "}" after)
            if "}" not in pieces[0] and all("}" in piece for piece in pieces[1:]):
                return parts[0::2], parts[1::2], True
    parts = (_MARKUP if nags else _COMMENT).split(moves)
    if not nags:
        return parts[0::2], [mark[1:-1] for mark in parts[1::2]], True
    return parts[0::2], parts[1::2], False


def _text(comment: str) -> str:
    """python-chess's text of a brace comment's text (it drops a space after "{" and one before "}")."""
    comment = comment[1:] if comment[:1] == " " else comment
    return comment[:-1] if comment[-1:] == " " else comment


def _line(marks: list[str], before: list[int], plies: int, *, bare: bool = False) -> LineAnnotations | None:
    """The annotations of a main line of ``plies`` moves: ``marks[j]`` follows its first ``before[j]`` moves, as
    python-chess's ``GameBuilder`` places them; None when one is a NAG before the first move (python-chess puts
    it on the game, which ChessBase has no place for here). ``bare``: the marks are brace comments' texts, without
    their braces (a game whose annotations are all brace comments)."""
    comment = ""
    comments = [""] * plies
    nags: dict[int, set[int]] = {}
    for mark, moves in zip(marks, before, strict=True):
        if bare or mark[0] == "{":
            text = _text(mark if bare else mark[1:-1])
            if not text:
                continue
            if moves == 0:
                comment = f"{comment} {text}" if comment else text
            else:
                old = comments[moves - 1]
                comments[moves - 1] = f"{old} {text}" if old else text
            continue
        if moves == 0:
            return None
        nags.setdefault(moves - 1, set()).add(int(mark[1:]) if mark[0] == "$" else _MARKS[mark])
    return LineAnnotations(comment, comments, nags)


def _every_move(marks: dict[int, list[str]], first: list[int], lengths: np.ndarray[Any, Any],
                chosen: np.ndarray[Any, Any], tags: list[dict[str, str]],
                commented: set[int]) -> dict[int, LineAnnotations | ItemRecord]:
    """By candidate: the annotations of the games of ``chosen`` with one brace comment after every move and
    nothing else (lichess's shape), read together (:func:`.annotation_batch.encode_comment_lines`) or, where
    that cannot, as a :class:`LineAnnotations`. ``lengths``: moves per segment; ``commented``: the candidates
    whose annotations are all brace comments (their marks: the comments' texts, without the braces)."""
    single = np.concatenate(([0], np.cumsum(lengths == 1)))  # segments of one move before each
    games = [index for index in chosen.tolist() if index in commented]
    starts = np.array([first[index] for index in games], dtype=np.int64)
    stops = starts + np.array([len(marks[index]) for index in games], dtype=np.int64)
    every = (single[stops] - single[starts] == stops - starts) & (lengths[stops] == 0)
    games = [index for index, kept in zip(games, every.tolist(), strict=True) if kept]
    if not games:
        return {}
    plies = [len(marks[index]) for index in games]
    ends = np.cumsum(plies)
    cuts = [0, *np.flatnonzero(np.diff(ends // _COMMENTS)) + 1, len(games)]  # parts of about _COMMENTS comments
    records: list[ItemRecord | None] = []
    for start, stop in pairwise(cuts):
        part = games[start:stop]
        comments = "}{".join(chain.from_iterable(marks[index] for index in part))
        records += encode_comment_lines([tags[index] for index in part], f"{{{comments}}}", plies[start:stop])
    return {index: record if record is not None else LineAnnotations("", [_text(mark) for mark in marks[index]], {})
            for index, record in zip(games, records, strict=True)}


def _batch(pending: list[_Plain | _Read]) -> Iterator[GameItem]:
    """The writer's items for a batch: the plain games replayed and encoded together, the others parsed."""
    plain = [item for item in pending if isinstance(item, _Plain)]
    prepared: dict[int, PreparedGame] = {}
    tags = [_tags(item.headers) for item in plain]
    candidates: list[int] = []
    results: list[str | None] = []
    segments: list[str] = []  # the candidates' text between annotations, in order
    first: list[int] = []  # per candidate: its first segment
    marks: dict[int, list[str]] = {}  # by candidate: its annotations (marks[j] follows segment first + j)
    commented: set[int] = set()  # the candidates whose marks are all brace comments (kept without their braces)
    for index, item in enumerate(plain):
        if any(tag in tags[index] for tag in _SET_UP):
            continue
        split = _split(item.moves)
        parts = [item.moves] if split is None else split[0]
        moves = item.moves if split is None else " ".join(parts)
        if _NULL in moves:
            continue
        ends, result = _movetext_result(moves)
        if ends:
            if split is not None:
                marks[len(candidates)] = split[1]
                if split[2]:
                    commented.add(len(candidates))
            candidates.append(index)
            results.append(result)
            first.append(len(segments))
            segments += parts
    if candidates:
        scan = pgnscan.scan(segments, [False] * len(segments), _ALL_PLIES)
        # the scan's tokens are the segments' in order (a segment not read has none), so a game's are together
        owner = np.repeat(np.arange(len(segments)), scan.lengths)
        bad = np.bincount(owner[~_valid_tokens(scan.vocabulary)[scan.tokens]], minlength=len(segments))
        bounds = np.append(first, len(segments))
        fine = np.add.reduceat(scan.read & (bad == 0), first) == np.diff(bounds)
        chosen = np.flatnonzero(fine)
        starts = scan.starts[first][chosen]
        lengths = np.add.reduceat(scan.lengths, first)[chosen]
        replay = batchplay.replay_tokens(scan.tokens, starts, lengths, scan.vocabulary, memo_depth=0,
                                         positions=False, keys=False)
        origin, target, promotion = unpack_moves(replay.raw.reshape(-1).astype(np.int64))
        plies = np.where(replay.failed, 0, lengths)
        encoded = encode_main_lines(replay.game, replay.ply, origin, target, promotion, plies)
        moves_before = np.cumsum(scan.lengths)
        every = _every_move(marks, first, scan.lengths, chosen[~replay.failed], [tags[i] for i in candidates],
                            commented)
        for slot, index in enumerate(chosen.tolist()):
            if replay.failed[slot]:
                continue
            line: LineAnnotations | ItemRecord | None = every.get(index)
            if line is None and index in marks:
                base = first[index]
                done = int(moves_before[base - 1]) if base else 0
                found = marks[index]
                line = _line(found, (moves_before[base:base + len(found)] - done).tolist(), int(plies[slot]),
                             bare=index in commented)
                if line is None:
                    continue
            game_tags = tags[candidates[index]]
            result = results[index]
            if result is not None and game_tags.get("Result", "*") == "*":
                game_tags["Result"] = result  # python-chess's GameBuilder.visit_result
            prepared[plain[candidates[index]].number] = PreparedGame(game_tags, encoded[slot], line)
    for entry in pending:
        if isinstance(entry, _Read):
            yield _unreadable(entry.line, entry.game) or entry.game
            continue
        ready = prepared.get(entry.number)
        if ready is not None:
            yield ready
            continue

        game = read_game(io.StringIO(entry.headers + entry.gap + entry.moves))  # (its text, from its first tag)
        if game is None:  # not reached: the text has a tag line
            yield UnreadableGame("no game", entry.line)
            continue
        yield _unreadable(entry.line, game) or game


def write_database_from_pgn(path: str | os.PathLike[str],
                            pgn: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
                            encoding: str | None = None, pgn_encoding: str | None = None, append: bool = False,
                            progress: Callable[[int], None] | None = None) -> WriteReport:
    """Write the games of the PGN file(s) ``pgn`` (plain, ``.gz``, ``.bz2``, ``.xz``, ``.zst``) as the ChessBase
    base ``path`` (``append``: add them to it), streamed; the same base as
    :func:`~chessformats.formats.chessbase.write.write_database` of python-chess's games, several times faster.

    Returns the writer's :class:`~chessformats.engine.contract.WriteReport` (unit ``games``). Games are numbered
    across the files in order; a game python-chess cannot read is in the report's ``skipped`` with its number
    (``item``) and the line of its file it starts on (``line``). ``encoding``: the names' code page in the base
    (see ``write_database``). ``pgn_encoding``: the PGN files' (``None``: UTF-8, a game that is not UTF-8 read as
    Windows-1252, see :func:`~chessformats.books.pgnread.decode_pgn`). ``progress(games)``: called with the games
    read so far, after each batch.
    """
    paths = [pgn] if isinstance(pgn, (str, os.PathLike)) else list(pgn)

    def items() -> Iterator[GameItem]:
        done = 0
        for source in paths:
            with open_text(source, encoding=pgn_encoding) as handle:
                counted = None if progress is None else _offset(progress, done)
                for item in pgn_items(handle, progress=counted):
                    done += 1
                    yield item

    write = append_games if append else write_database
    return write(path, items(), encoding=encoding)


def _offset(progress: Callable[[int], None], before: int) -> Callable[[int], None]:
    return lambda games: progress(before + games)
