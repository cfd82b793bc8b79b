"""Building opening books from games: read PGN fast, count every (position, move) with its results.

The :class:`BookBuilder` is format-neutral: it collects, per position (identified by its Polyglot key)
and move, the counts a book needs, and :meth:`BookBuilder.to_stats` gives the neutral
:class:`~chessformats.formats.bookstats.BookStats` model that every book writer consumes. It also keeps
the two counters ``polyglot make-book`` keeps (games ``n`` and ``sum`` of ``result + 1``, halved for
the whole position when a move reaches 16,384 games), so the Polyglot writer can reproduce that
program's output byte for byte.

Reading follows ``polyglot make-book``: the main line of each game up to ``max_ply`` plies, comments,
variations and NAGs skipped, the result taken from the ``Result`` tag (anything but ``1-0``/``0-1``
scores as a draw for polyglot's counters; the neutral counts keep ``*`` apart). Games that start from a
``FEN`` tag are played from that position (polyglot ignores the tag and fails on such games). A game
with an illegal or unreadable move within ``max_ply`` plies is skipped whole and reported with its
number and byte offset; the build goes on.

Speed: opening positions repeat massively, so each position remembers what each SAN token led to;
novel plies go through :mod:`chessformats.formats.fastplay` (python-chess only for what it does not
handle), and with ``jobs=2`` the second half of the games is read by a forked process.
"""

from __future__ import annotations

import bz2
import gc
import gzip
import io
import lzma
import multiprocessing
import os
import pickle
import re
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, NamedTuple

import chess
import chess.pgn

from .bookstats import BookStats, MoveStats, PositionStats
from .fastplay import Position, play_san, position_from_board, position_to_board
from .polyglot import decode_move, encode_move, zobrist_hash

__all__ = ["BookBuilder", "BookEntry", "SkippedGame", "open_text", "split_games"]

def _start_position() -> Position:
    position = position_from_board(chess.Board())
    assert position is not None
    return position


_START = _start_position()

MEMO_DEPTH = 40
"""Plies from the start for which positions and what each SAN token led to are remembered (memory bound)."""

COUNT_MAX = 16384
"""``polyglot make-book`` halves a position's counters when one of its moves reaches this many games."""


class SkippedGame(NamedTuple):
    """A game left out of the book, and why."""

    number: int
    """1-based number of the game in its file."""
    offset: int
    """Byte offset (in the decompressed text) where the game starts."""
    reason: str


class BookEntry(NamedTuple):
    """One (position, move) of a build with its counters."""

    key: int
    raw_move: int
    """The move as Polyglot stores it (castling as king-takes-rook)."""
    white_to_move: bool
    polyglot_n: int
    """Games, as ``polyglot make-book`` counts them (halved at 16,384)."""
    polyglot_sum: int
    """Sum of ``result + 1`` for the side to move (win 2, draw or unknown 1, loss 0), halved likewise."""
    games: int
    wins: int
    draws: int
    losses: int


# entry record layout inside the builder (lists, for in-place updates)
_N, _SUM, _GAMES, _WINS, _DRAWS, _LOSSES, _TURN, _KEY = range(8)

_GAME_BREAK = re.compile(r"\n[ \t\r]*\n(?=[ \t\r]*\[)")
_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_HEADER = re.compile(r'(?:\s*\[\s*[A-Za-z0-9_]+\s+"(?:[^"\\]|\\.)*"\s*\])*')
# movetext tokens as polyglot's lexer sees them; comments, NAGs and move numbers are told apart by group
_TOKEN = re.compile(
    r"(\{[^}]*\}?|;[^\n]*|^%[^\n]*)"  # 1: comments
    r"|(\()|(\))"  # 2, 3: variations
    r"|(\$\d+|[!?]+|\.+)"  # 4: NAGs and the dots after move numbers
    r"|([A-Za-z0-9][A-Za-z0-9_+#=:/-]*|\*)",  # 5: symbols: moves, move numbers (all digits), results
    re.M,
)
_NO_MARKS = str.maketrans("", "", "+#!?")
# comments, variations, NAGs, escapes and brackets send movetext to the full tokenizer
_COMPLEX = re.compile(r"[{}();%$\[\]<>]")
_RESULTS = {"1-0": 1, "0-1": -1}
_ENDINGS = frozenset(("1-0", "0-1", "1/2-1/2", "*"))


def open_text(path: str | os.PathLike[str]) -> IO[str]:
    """Open a PGN file for reading text, decompressing ``.gz``, ``.bz2`` and ``.xz``."""
    name = os.fspath(path)
    lower = name.lower()
    raw: Any
    if lower.endswith(".gz"):
        raw = gzip.open(name, "rb")
    elif lower.endswith(".bz2"):
        raw = bz2.open(name, "rb")
    elif lower.endswith(".xz"):
        raw = lzma.open(name, "rb")
    else:
        raw = open(name, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline=None)


def split_games(text: str, base_offset: int = 0) -> Iterator[tuple[int, str]]:
    """``(offset, game text)`` of every game: games are separated by a blank line before a tag.

    A break inside a brace comment (unbalanced ``{``) is not a game boundary.
    """
    start = 0
    pending = 0
    for match in _GAME_BREAK.finditer(text):
        chunk = text[pending:match.start()]
        if chunk.count("{") > chunk.count("}"):
            continue  # the blank line is inside a comment: keep going
        if text[start:match.start()].strip():
            yield base_offset + start, text[start:match.start()]
        start = pending = match.end()
    if text[start:].strip():
        yield base_offset + start, text[start:]


def _parse_game(text: str, max_ply: int) -> tuple[dict[str, str], list[str], str | None]:
    """Tags, the first ``max_ply`` main-line SAN tokens (``+``/``#`` stripped), and an error if any."""
    header = _HEADER.match(text)
    position = header.end() if header else 0
    tags = dict(_TAG.findall(text, 0, position))
    # Most movetext has no comments or variations: then the symbols are all there is to read.
    head = text[position:position + 16 * max_ply + 64]
    truncated = len(head) < len(text) - position
    if truncated:
        head = head[:max(head.rfind(" "), head.rfind("\n"), 0)]
    if not _COMPLEX.search(head):
        # Check marks and !? off, then every word that starts with a letter is a move, and the others must
        # be "12." / "12..." move numbers or the result (which ends a game's text: nothing follows it).
        words = head.translate(_NO_MARKS).split()
        symbols = [word for word in words if word[0] > "9"]
        if all(word[-1] == "." or word in _ENDINGS for word in words if word[0] <= "9") and (
                len(symbols) >= max_ply or not truncated):
            return tags, symbols[:max_ply], None
    moves: list[str] = []
    depth = 0
    for match in _TOKEN.finditer(text, position):
        symbol = match.group(5)
        if symbol is not None:
            if symbol.isdigit():
                continue  # a move number
            if symbol in _ENDINGS:
                if depth:
                    return tags, moves, "result inside a variation"
                return tags, moves, None
            if depth == 0:
                if len(moves) >= max_ply:
                    return tags, moves, None  # polyglot reads no further moves (it checks no more either)
                moves.append(symbol.rstrip("+#"))
        elif match.group(2) is not None:
            depth += 1
        elif match.group(3) is not None:
            if depth == 0:
                return tags, moves, "unbalanced ')'"
            depth -= 1
    if depth:
        return tags, moves, "unterminated variation"
    return tags, moves, None


class BookBuilder:
    """Counts (position, move, result) over games. See the module documentation."""

    def __init__(self, *, max_ply: int = 1024) -> None:
        if max_ply < 0:
            raise ValueError("max_ply must be >= 0")
        self.max_ply = max_ply
        self.games = 0
        """Games read (including skipped ones)."""
        self.skipped: list[SkippedGame] = []
        # key -> (position or None, {san: (entry of that move, child key)})
        self._nodes: dict[int, tuple[Position | None, dict[str, tuple[list[int], int]]]] = {
            _START.key: (_START, {})}
        self._fens: dict[int, str] = {}  # positions met only through python-chess (setups, Chess960)
        self._entries: dict[tuple[int, int], list[int]] = {}
        self._by_key: dict[int, list[list[int]]] = {}
        self._pending_positions: list[list[int]] = []
        self._parents: dict[int, tuple[int, str]] = {}  # deep positions: key -> (parent key, SAN played)

    # --- input ---
    def add_pgn(
        self,
        path: str | os.PathLike[str],
        *,
        jobs: int = 1,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Add every game of a PGN file (plain, ``.gz``, ``.bz2`` or ``.xz``).

        ``jobs=2`` reads the second half of the file in a forked process (POSIX only; the whole text is
        held in memory then). ``progress(games, bytes)`` is called now and then.
        """
        with open_text(path) as handle:
            text = handle.read()
        collecting = gc.isenabled()
        gc.disable()  # the build creates millions of small objects that live to the end: no cycles to find
        try:
            if jobs > 1 and hasattr(os, "fork") and len(text) > 1 << 20:
                self._add_text_parallel(text, progress)
            else:
                self._add_text(text, 0, progress)
        finally:
            if collecting:
                gc.enable()

    def add_pgn_text(self, text: str) -> None:
        """Add the games of a PGN text."""
        self._add_text(text, 0, None)

    def add_game(self, game: chess.pgn.Game) -> None:
        """Add the main line of a python-chess game (its ``Result`` header scores it)."""
        self.games += 1
        board = game.board()
        headers = dict(game.headers)
        if "FEN" not in headers and board.fen() != chess.STARTING_FEN:
            headers["FEN"] = board.fen()
        sans: list[str] = []
        for move in game.mainline_moves():
            if len(sans) >= self.max_ply:
                break
            sans.append(board.san(move).rstrip("+#"))
            board.push(move)
        self._add_moves(headers, sans, self.games, 0)

    def add_games(self, games: Iterable[chess.pgn.Game]) -> None:
        """Add the main lines of python-chess games."""
        for game in games:
            self.add_game(game)

    def _add_text(self, text: str, base: int, progress: Callable[[int, int], None] | None) -> None:
        for done, (offset, game_text) in enumerate(split_games(text, base), 1):
            self.games += 1
            tags, sans, error = _parse_game(game_text, self.max_ply)
            if error is not None:
                self.skipped.append(SkippedGame(self.games, offset, error))
            else:
                self._add_moves(tags, sans, self.games, offset)
            if progress is not None and done % 1000 == 0:
                progress(self.games, offset - base)
        if progress is not None:
            progress(self.games, len(text))

    def _add_moves(self, tags: dict[str, str], sans: list[str], number: int, offset: int) -> None:
        plies = None
        if "FEN" not in tags and tags.get("SetUp", "0") != "1" and "960" not in tags.get("Variant", ""):
            plies = self._fast_plies(sans)
        if plies is None:
            try:
                plies = [(self._entry(key, raw, white), white) for key, raw, white in self._slow_plies(tags, sans)]
            except ValueError as exc:
                self.skipped.append(SkippedGame(number, offset, str(exc)))
                return
        result = tags.get("Result", "*")
        score = _RESULTS.get(result, 0)
        # per side to move: (added to polyglot's sum, counter to add one to)
        if result == "1/2-1/2":
            white_side, black_side = (1, _DRAWS), (1, _DRAWS)
        elif score:
            won, lost = (2, _WINS), (0, _LOSSES)
            white_side, black_side = (won, lost) if score > 0 else (lost, won)
        else:
            white_side, black_side = (1, -1), (1, -1)
        by_key = self._by_key
        for entry, white in plies:
            points, counter = white_side if white else black_side
            entry[_N] += 1
            entry[_SUM] += points
            entry[_GAMES] += 1
            if counter >= 0:
                entry[counter] += 1
            if entry[_N] >= COUNT_MAX:
                for sibling in by_key[entry[_KEY]]:
                    sibling[_N] = (sibling[_N] + 1) // 2
                    sibling[_SUM] = (sibling[_SUM] + 1) // 2

    def _entry(self, key: int, raw: int, white: bool) -> list[int]:
        entry = self._entries.get((key, raw))
        if entry is None:
            entry = self._entries[(key, raw)] = [0, 0, 0, 0, 0, 0, white, key]
            self._by_key.setdefault(key, []).append(entry)
        return entry

    def _fast_plies(self, sans: list[str]) -> list[tuple[list[int], bool]] | None:
        nodes = self._nodes
        key = _START.key
        node = nodes[key]
        plies: list[tuple[list[int], bool]] = []
        for ply, san in enumerate(sans):
            if ply == MEMO_DEPTH:  # deep positions rarely repeat: play on without remembering them
                return self._deep_plies(plies, node[0], sans[ply:])
            memo = node[1]
            step = memo.get(san)
            position = node[0]
            if position is None:
                return None
            if step is None:
                played = play_san(position, san)
                if played is None:
                    return None
                raw, child = played
                step = memo[san] = (self._entry(key, raw, position.turn), child.key)
                if child.key not in nodes:
                    nodes[child.key] = (child, {})
            plies.append((step[0], position.turn))
            key = step[1]
            node = nodes[key]
        return plies

    def _deep_plies(self, plies: list[tuple[list[int], bool]], position: Position | None,
                    sans: list[str]) -> list[tuple[list[int], bool]] | None:
        parents = self._parents
        for san in sans:
            if position is None:
                return None
            played = play_san(position, san)
            if played is None:
                return None
            plies.append((self._entry(position.key, played[0], position.turn), position.turn))
            child = played[1].key
            if child not in parents:
                parents[child] = (position.key, san)  # enough to find the position again (to_stats)
            position = played[1]
        return plies

    def _slow_plies(self, tags: dict[str, str], sans: list[str]) -> list[tuple[int, int, bool]]:
        fen = tags.get("FEN")
        chess960 = "960" in tags.get("Variant", "")
        try:
            board = chess.Board(fen, chess960=chess960) if fen else chess.Board(chess960=chess960)
        except ValueError as exc:
            raise ValueError(f"bad FEN tag: {exc}") from None
        if fen and not chess960 and board.has_chess960_castling_rights():
            board.chess960 = True
        plies = []
        for ply, san in enumerate(sans):
            try:
                move = board.parse_san(san)
            except ValueError:
                raise ValueError(f"illegal or unreadable move {san!r} at ply {ply + 1}") from None
            key = zobrist_hash(board)
            if key not in self._nodes and key not in self._fens:
                self._fens[key] = board.fen()
            plies.append((key, encode_move(move, board), board.turn))
            board.push(move)
        return plies

    # --- parallel reading ---
    def _add_text_parallel(self, text: str, progress: Callable[[int, int], None] | None) -> None:
        match = _GAME_BREAK.search(text, len(text) // 2)
        if match is None:
            self._add_text(text, 0, progress)
            return
        split = match.end()
        first_games = sum(1 for _ in split_games(text[:split]))
        reader, writer = multiprocessing.Pipe(duplex=False)
        child = multiprocessing.get_context("fork").Process(
            target=_child_build, args=(self.max_ply, text, split, first_games, writer))
        child.start()
        writer.close()
        self._add_text(text[:split], 0, progress)
        try:
            payload = reader.recv_bytes()
        except EOFError:
            payload = b""
        if not payload:
            child.join()
            raise RuntimeError(f"the second reader process failed (exit code {child.exitcode})")
        other = pickle.loads(payload)
        table = other["entries"]
        if any(games >= COUNT_MAX or games + (e[_GAMES] if (e := self._entries.get((key, raw))) else 0) >= COUNT_MAX
               for games, key, raw in zip(table[2::9], table[7::9], table[8::9], strict=True)):
            # polyglot halves counters in game order: only one reader in sequence can reproduce that
            child.join()
            fresh = BookBuilder(max_ply=self.max_ply)
            fresh._add_text(text, 0, progress)
            self.__dict__.update(fresh.__dict__)
            return
        self._import(other)
        child.join()
        if progress is not None:
            progress(self.games, len(text))

    def _export(self) -> dict[str, Any]:
        """The counts and positions as flat lists of integers (quick to pickle for another process)."""
        table: list[int] = []
        for (_, raw), entry in self._entries.items():
            table.extend(entry)
            table.append(raw)
        positions: list[int] = []
        for key, node in self._nodes.items():
            if node[0] is not None and key in self._by_key:
                positions.extend(node[0])
        return {"games": self.games, "skipped": self.skipped, "entries": table, "positions": positions,
                "fens": self._fens, "parents": self._parents}

    def _import(self, other: dict[str, Any]) -> None:
        """Add what another builder exported (the games came after ours)."""
        self.games += other["games"]
        self.skipped.extend(other["skipped"])
        table = other["entries"]
        entries, by_key = self._entries, self._by_key
        for start in range(0, len(table), 9):
            key, raw = table[start + _KEY], table[start + 8]
            entry = entries.get((key, raw))
            if entry is None:
                entry = entries[(key, raw)] = table[start:start + 8]
                by_key.setdefault(key, []).append(entry)
            else:
                entry[_N] += table[start + _N]
                entry[_SUM] += table[start + _SUM]
                entry[_GAMES] += table[start + _GAMES]
                entry[_WINS] += table[start + _WINS]
                entry[_DRAWS] += table[start + _DRAWS]
                entry[_LOSSES] += table[start + _LOSSES]
        self._pending_positions.append(other["positions"])
        for key, fen in other["fens"].items():
            self._fens.setdefault(key, fen)
        for key, parent in other["parents"].items():
            self._parents.setdefault(key, parent)

    def _position(self, key: int) -> Position | None:
        nodes = self._nodes
        if key not in nodes and self._pending_positions:  # positions another process sent: index them once
            width = len(Position._fields)
            for flat in self._pending_positions:
                for start in range(0, len(flat), width):
                    row = flat[start:start + width]
                    nodes.setdefault(row[11], (tuple.__new__(Position, row), {}))
            self._pending_positions.clear()
        # a deep position is found again by replaying the moves from the last position remembered
        chain = []
        while key not in nodes and key in self._parents:
            parent_key, san = self._parents[key]
            chain.append((key, san))
            key = parent_key
        node = nodes.get(key)
        position = node[0] if node is not None else None
        for child_key, san in reversed(chain):
            played = play_san(position, san) if position is not None else None
            if played is None or played[1].key != child_key:
                return None
            position = played[1]
            nodes[child_key] = (position, {})
        return position

    # --- output ---
    def entries(self) -> Iterator[BookEntry]:
        """Every (position, move) in the order first met."""
        for (key, raw), e in self._entries.items():
            yield BookEntry(key, raw, bool(e[_TURN]), e[_N], e[_SUM], e[_GAMES], e[_WINS], e[_DRAWS], e[_LOSSES])

    def __len__(self) -> int:
        return len(self._entries)

    def board(self, key: int) -> chess.Board:
        """The position of a key met in the build."""
        fen = self._fens.get(key)
        if fen is not None:
            return chess.Board(fen, chess960=chess.Board(fen).has_chess960_castling_rights())
        position = self._position(key)
        if position is None:
            raise KeyError(f"position {key:#018x} not met in this build")
        return position_to_board(position)

    def to_stats(self) -> BookStats:
        """The format-neutral model: FEN -> moves -> games, wins, draws, losses (for the mover)."""
        stats = BookStats(games=self.games)
        boards: dict[int, chess.Board] = {}
        for entry in self.entries():
            board = boards.get(entry.key)
            if board is None:
                board = boards[entry.key] = self.board(entry.key)
            fen = board.fen()
            name = fen.rsplit(" ", 2)[0]
            position = stats.positions.get(name)
            if position is None:
                position = stats.positions[name] = PositionStats(fen)
            move = decode_move(entry.raw_move, board)
            position.moves[move] = MoveStats(entry.games, entry.wins, entry.draws, entry.losses)
        return stats


def _child_build(max_ply: int, text: str, split: int, first_games: int, writer: Any) -> None:
    builder = BookBuilder(max_ply=max_ply)
    builder.games = first_games  # game numbers continue from the first half
    gc.disable()
    try:
        builder._add_text(text[split:], split, None)
        builder.games -= first_games
        writer.send_bytes(pickle.dumps(builder._export(), protocol=pickle.HIGHEST_PROTOCOL))
        writer.close()
    finally:
        os._exit(0)  # no clean-up of the copied heap: the parent has what it needs (or sees EOF)
