"""Reading games in batches for the book builder: a batch of PGN games -> the events its plies add.

A batch (:data:`CHUNK_GAMES` games) is read with :mod:`~chessformats.books.pgnscan` (plain movetext, whole
batch at once; brace comments, NAGs and variations -- lichess's ``{ [%eval 0.17] [%clk 0:04:31] }`` after every
move -- are blanked out first, for the whole batch too: :mod:`~chessformats.books.heads`, so commented games are
read with the plain ones) or :func:`~chessformats.books.pgnread.parse_game` (the rest: ``;`` comments, escapes,
what the scan refuses), replayed by
:mod:`~chessformats.books.batchplay` (python-chess for what it does not play), and turned into a
:class:`Chunk`: one event (game, ply, key, move, outcome) per ply, the positions to find boards again, and
the games skipped with their reason. :class:`~chessformats.books.build.BookBuilder` aggregates chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import batchplay, heads, pgnscan
from .filters import GameFilter
from .pgnread import HeaderTags, game_spans, parse_game, read_headers

MEMO_DEPTH = 40
"""Plies from the start whose positions are kept whole (deeper ones as a link to their parent: memory bound)."""

CHUNK_GAMES = 8192
"""Games replayed together (a batch); the events of one batch are held in memory at once."""

class SkippedGame(NamedTuple):
    """A game left out of the book, and why."""

    number: int
    """1-based number of the game in its file."""
    offset: int
    """Byte offset (in the decompressed text) where the game starts."""
    reason: str


# the outcome of a game for the side to move: polyglot's points for it and the counter it adds to
WIN, DRAW, LOSS, UNKNOWN = range(4)
POINTS = np.array([2, 1, 0, 1], dtype=np.int64)
# per result tag (1-0, 1/2-1/2, 0-1, anything else): the outcome for black (row 0) and white (row 1) to move
RESULT_CODES = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}
OUTCOMES = np.array([[LOSS, DRAW, WIN, UNKNOWN], [WIN, DRAW, LOSS, UNKNOWN]], dtype=np.int8)
COUNTS = ("polyglot_n", "polyglot_sum", "games", "wins", "draws", "losses")

class Chunk(NamedTuple):
    """What one batch of games adds: counts as events, positions to find boards again, skipped games."""

    games: int
    """Games read, skipped ones included."""
    skipped: list[SkippedGame]
    key: np.ndarray[Any, Any]
    """Per event (a ply of a game): the key before the move, ..."""
    raw: np.ndarray[Any, Any]
    white: np.ndarray[Any, Any]
    seq: np.ndarray[Any, Any]
    """... the order the plies come in (game number, then ply) ..."""
    outcome: np.ndarray[Any, Any]
    """... and the game's outcome for the side to move (WIN, DRAW, LOSS, UNKNOWN)."""
    positions: dict[str, np.ndarray[Any, Any]]
    links: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]
    fens: dict[int, str]
    """Positions met only through python-chess (setups, Chess960, what the batch replay left)."""
    filtered: int = 0
    """Games of ``games`` left out by the :class:`~chessformats.books.filters.GameFilter` (not errors)."""


Game = tuple[int, int, dict[str, str], list[str]]  # number, offset, tags, SAN tokens


class Batch(NamedTuple):
    """Games to replay: numbers, offsets, tags, and their moves as numbers (see :class:`pgnscan.Scan`)."""

    numbers: list[int]
    offsets: list[int]
    tags: Sequence[dict[str, str]]
    """Per game (maybe read only when asked for: see :class:`~chessformats.books.pgnread.HeaderTags`)."""
    tokens: np.ndarray[Any, Any]
    starts: np.ndarray[Any, Any]
    lengths: np.ndarray[Any, Any]
    vocabulary: list[str]
    results: np.ndarray[Any, Any]
    """Per game: its Result tag as a column of :data:`OUTCOMES` (:data:`RESULT_CODES`, 3 for any other) ..."""
    standard: np.ndarray[Any, Any]
    """... and whether it starts from the standard position (no FEN tag, SetUp or Chess960 Variant)."""

    def sans(self, game: int) -> list[str]:
        start = int(self.starts[game])
        return [self.vocabulary[token] for token in self.tokens[start:start + int(self.lengths[game])].tolist()]

    @classmethod
    def of(cls, games: list[Game]) -> Batch:
        tags = [game[2] for game in games]
        return cls([game[0] for game in games], [game[1] for game in games], tags,
                   *batchplay.number_tokens([game[3] for game in games]), _result_codes(tags),
                   np.array([_standard(game_tags) for game_tags in tags], dtype=bool))


def _result_codes(tags: Iterable[dict[str, str]]) -> np.ndarray[Any, Any]:
    return np.array([RESULT_CODES.get(game_tags.get("Result", "*"), 3) for game_tags in tags], dtype=np.int64)


def _standard(tags: dict[str, str]) -> bool:
    return "FEN" not in tags and tags.get("SetUp", "0") != "1" and "960" not in tags.get("Variant", "")


def replay_games(batch: Batch, stride: int, read: int, skipped: list[SkippedGame], *, positions: bool = True) -> Chunk:
    """Replay a batch: the standard games together (numpy), the others and the failures with python-chess."""
    standard = batch.standard
    chosen = np.flatnonzero(standard)
    result = batchplay.replay_tokens(batch.tokens, batch.starts[chosen], batch.lengths[chosen], batch.vocabulary,
                                     memo_depth=MEMO_DEPTH, positions=positions)
    numbers = np.array(batch.numbers, dtype=np.int64)[chosen]
    codes = batch.results[chosen]
    white = result.ply % 2 == 0
    columns: list[tuple[Any, ...]] = [(result.key, result.raw, white, numbers[result.game] * stride + result.ply,
                                       OUTCOMES[white.astype(np.int64), codes[result.game]])]
    fens: dict[int, str] = {}  # (left empty when not asked for positions, like result.positions and result.links)
    slow = sorted(np.flatnonzero(~standard).tolist() + chosen[result.failed].tolist())
    for game in slow:
        number, tags = batch.numbers[game], batch.tags[game]
        try:
            plies = _slow_plies(tags, batch.sans(game), fens if positions else None)
        except ValueError as exc:
            skipped.append(SkippedGame(number, batch.offsets[game], str(exc)))
            continue
        if not plies:
            continue
        code = RESULT_CODES.get(tags.get("Result", "*"), 3)
        keys, raws, turns = zip(*plies, strict=True)
        turn = np.array(turns, dtype=bool)
        columns.append((np.array(keys, dtype=np.uint64), np.array(raws, dtype=np.int64), turn,
                        number * stride + np.arange(len(plies), dtype=np.int64),
                        OUTCOMES[turn.astype(np.int64), code]))
    key, raw, turn, seq, outcome = columns[0] if len(columns) == 1 else (
        np.concatenate(parts) for parts in zip(*columns, strict=True))
    return Chunk(read, sorted(skipped), key, raw, turn, seq, outcome, result.positions, result.links, fens)


def _slow_plies(tags: dict[str, str], sans: list[str], fens: dict[int, str] | None) -> list[tuple[int, int, bool]]:
    """(key, raw move, white to move) per ply, with python-chess; ``ValueError`` for an unplayable game. The FEN of
    each position not yet in ``fens`` is added to it (unless ``None``)."""
    import chess  # imported when a game needs it (python-chess's import costs a small build ~10%)

    from ..formats.polyglot.moves import encode_move
    from ..formats.zobrist import zobrist_hash
    from ..kernel.newboard import fen_board

    try:  # Chess960 by the Variant tag or by the FEN's castling rights
        board = fen_board(tags.get("FEN") or chess.STARTING_FEN, chess960="960" in tags.get("Variant", ""))
    except ValueError as exc:
        raise ValueError(f"bad FEN tag: {exc}") from None
    plies = []
    for ply, san in enumerate(sans):
        try:
            move = board.parse_san(san)
        except ValueError:
            raise ValueError(f"illegal or unreadable move {san!r} at ply {ply + 1}") from None
        key = zobrist_hash(board)
        if fens is not None and key not in fens:
            fens[key] = board.fen()
        plies.append((key, encode_move(board, move), board.turn))
        board.push(move)
    return plies


def read_chunks(text: str, base: int, first_number: int, max_ply: int,
                 progress: Callable[[int, int], None] | None = None, *,
                 game_filter: GameFilter | None = None, positions: bool = True) -> Iterator[Chunk]:
    """Parse the games of ``text`` (numbered from ``first_number``) and replay them batch by batch
    (:func:`replay_games`; ``positions=False``: no positions, links or FENs in the chunks, for a builder that keeps
    no boards)."""
    return read_spans(text, game_spans(text), base, first_number, max_ply, progress, game_filter=game_filter,
                      positions=positions)


def read_spans(text: str, spans: Iterable[tuple[int, int]], base: int, first_number: int, max_ply: int,
                progress: Callable[[int, int], None] | None = None, *,
                game_filter: GameFilter | None = None, positions: bool = True) -> Iterator[Chunk]:
    """:func:`read_chunks` for the games at ``spans`` of ``text`` (those ``game_filter`` keeps)."""
    stride = event_stride(max_ply)
    batch_spans: list[tuple[int, int]] = []
    number = first_number - 1
    for span in spans:
        batch_spans.append(span)
        if progress is not None and len(batch_spans) % 1000 == 0:
            progress(number + len(batch_spans), base + span[0])
        if len(batch_spans) >= CHUNK_GAMES:
            yield _read_replay(text, batch_spans, base, number + 1, max_ply, stride, game_filter, positions)
            number += len(batch_spans)
            batch_spans = []
    if batch_spans:
        yield _read_replay(text, batch_spans, base, number + 1, max_ply, stride, game_filter, positions)


def _read_replay(text: str, spans: list[tuple[int, int]], base: int, first_number: int, max_ply: int, stride: int,
                 game_filter: GameFilter | None, positions: bool) -> Chunk:
    batch, skipped = read_batch(text, spans, base, first_number, max_ply, game_filter=game_filter)
    filtered = len(spans) - len(batch.numbers) - len(skipped)
    chunk = replay_games(batch, stride, len(spans), skipped, positions=positions)
    return chunk._replace(filtered=filtered) if filtered else chunk


def read_batch(text: str, spans: list[tuple[int, int]], base: int, first_number: int,
                max_ply: int, *, game_filter: GameFilter | None = None) -> tuple[Batch, list[SkippedGame]]:
    """Tags and first moves of the games at ``spans`` of ``text``: plain movetext scanned together (numpy), the
    rest one by one with the tokenizer. Offsets are reported from ``base``. The games ``game_filter`` leaves out
    are dropped after their tags are read (their movetext is not looked at)."""
    numbers = list(range(first_number, first_number + len(spans)))
    # the tags are read only for what the replay needs (Result, and FEN, SetUp or Variant when there is one),
    # or all of them for the filter
    positions, values, special = read_headers(text, spans)
    tags: Sequence[dict[str, str]] = HeaderTags(text, [start for start, _ in spans], positions)
    if game_filter is not None and game_filter.active:
        every = list(tags)
        chosen = [game for game, game_tags in enumerate(every) if game_filter.keep(game_tags)]
        if not chosen:
            return Batch.of([]), []
        numbers, spans, tags = [numbers[i] for i in chosen], [spans[i] for i in chosen], [every[i] for i in chosen]
        positions, values = [positions[i] for i in chosen], [values[i] for i in chosen]
        special = [special[i] for i in chosen]
    results = np.array([_RESULT_OF.get(value, 3) for value in values], dtype=np.int64)
    standard = np.ones(len(spans), dtype=bool)
    for game in np.flatnonzero(special).tolist():
        standard[game] = _standard(tags[game])
    offsets = [base + start for start, _ in spans]
    # the scan reads first what holds max_ply moves but in odd movetext (~6 characters a ply), then for the
    # games that was too short what holds them in any movetext of only moves; the tokenizer reads the rest
    scanned = _scan_heads(text, spans, positions, 8 * max_ply + 32, max_ply)
    skipped: list[SkippedGame] = []
    if scanned.read.all():
        return Batch(numbers, offsets, tags, scanned.tokens, scanned.starts, scanned.lengths, scanned.vocabulary,
                     results, standard), skipped
    # the games not read yet: their moves are appended to the scanned ones
    rescanned: dict[int, list[str]] = {}
    short = np.flatnonzero(scanned.short).tolist()
    if short:
        again = _scan_heads(text, [spans[i] for i in short], [positions[i] for i in short], 16 * max_ply + 64,
                            max_ply)
        for slot in np.flatnonzero(again.read).tolist():
            start = int(again.starts[slot])
            rescanned[short[slot]] = [again.vocabulary[token] for token in
                                      again.tokens[start:start + int(again.lengths[slot])].tolist()]
    vocabulary = {token: index for index, token in enumerate(scanned.vocabulary)}
    extra: list[int] = []
    starts, lengths = scanned.starts.copy(), scanned.lengths.copy()
    keep = np.ones(len(spans), dtype=bool)
    for game in np.flatnonzero(~scanned.read).tolist():
        sans = rescanned.get(game)
        if sans is None:
            start, end = spans[game]
            _, sans, error = parse_game(text[start:end], max_ply)
            if error is not None:
                skipped.append(SkippedGame(numbers[game], offsets[game], error))
                keep[game] = False
                continue
        starts[game], lengths[game] = len(scanned.tokens) + len(extra), len(sans)
        extra.extend(vocabulary.setdefault(san, len(vocabulary)) for san in sans)
    tokens = np.concatenate((scanned.tokens, np.array(extra, dtype=np.int64)))
    kept = np.flatnonzero(keep)
    chosen = kept.tolist()
    return Batch([numbers[i] for i in chosen], [offsets[i] for i in chosen],
                 tags.take(chosen) if isinstance(tags, HeaderTags) else [tags[i] for i in chosen], tokens,
                 starts[kept], lengths[kept], list(vocabulary), results[kept], standard[kept]), skipped


def _scan_heads(text: str, spans: list[tuple[int, int]], positions: list[int], limit: int,
                max_ply: int) -> pgnscan.Scan:
    """:func:`pgnscan.scan` of the first ``limit`` characters of each game's movetext (from ``positions``), its
    brace comments, NAGs and variations blanked out first (:func:`heads.heads`)."""
    return pgnscan.scan(*heads.heads(text, spans, positions, limit), max_ply)


_RESULT_OF: dict[str | None, int] = {value: code for value, code in RESULT_CODES.items()}
"""The column of :data:`OUTCOMES` of a Result tag's value (``None``: no tag)."""


def event_stride(max_ply: int) -> int:
    return min(max_ply, 1 << 24) + 1
