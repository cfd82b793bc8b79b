#!/usr/bin/env python3
"""Monty training data speed: reading with visit alignment, in plies per second.

    python benchmarks/bench_monty.py [--games N] [--repeat N] [--write-docs] [--profile]

Reading a policy file means, for every ply, generating the legal moves of the position, sorting them by
their u16 codes, checking the stored count and pairing each visit byte with its move; legal-move
generation is the cost. The workload is a file of self-play-like games written by chessformats (seeded
random games, a fifth from Chess960 starts, a visit distribution on every ply; the corpus file has only
132 plies). Measured: ``read_games`` on the policy file, the same games as a value file, a reader doing
the alignment with python-chess's own move generator (``board.legal_moves``, each move encoded) for
reference, move generation alone, and ``write_games``. Results are compared before timing (our reading
equals the python-chess reading on every ply). Every figure is the best of ``--repeat`` runs (default 5).
With ``--write-docs`` the Monty section of ``docs/performance.md`` (between the ``monty-bench`` markers)
is regenerated; text outside the markers is kept.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import chess

from bench_polyglot import machine_info
from chessformats import monty
from perfdoc import replace_section

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs" / "performance.md"
START_MARKER = "<!-- monty-bench:start -->"
END_MARKER = "<!-- monty-bench:end -->"

GAMES = 1000
MAX_PLIES = 160
CHESS960_SHARE = 0.2
SEED = 20240701
POSITIONS = 20_000  # for move generation alone
TARGET = 20_000     # plies per second, reading with visit alignment (the issue)


# --- the workload -------------------------------------------------------------------------------------------

def synthetic_games(count: int, seed: int) -> list[monty.Game]:
    """Random games with a search-like visit distribution (a few moves take most visits) on every ply."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if rng.random() < CHESS960_SHARE else chess.Board()
        start = board.copy()
        plies = []
        for _ in range(rng.randrange(20, MAX_PLIES)):
            legal = list(board.legal_moves)
            if not legal:
                break
            visits = {move: int(rng.paretovariate(1.1) * 8) for move in legal}
            move = max(visits, key=visits.__getitem__) if rng.random() < 0.7 else rng.choice(legal)
            plies.append(monty.Ply(move, rng.random(), visits))
            board.push(move)
        games.append(monty.Game(start, plies, rng.choice(["1-0", "1/2-1/2", "0-1"])))
    return games


def file_bytes(games: list[monty.Game], format: str) -> bytes:
    buffer = io.BytesIO()
    monty.write_games(buffer, games, format=format)
    return buffer.getvalue()


# --- the reference: the same alignment with python-chess's move generator -----------------------------------

def spec_code(board: chess.Board, move: chess.Move) -> int:
    """A move's u16 code from python-chess's predicates (flag table of the spec)."""
    origin, target = move.from_square, move.to_square
    if board.is_castling(move):
        kingside = board.is_kingside_castling(move)
        target = chess.square(6 if kingside else 2, chess.square_rank(origin))
        flag = 2 if kingside else 3
    elif move.promotion:
        flag = 8 + move.promotion - chess.KNIGHT + (4 if board.is_capture(move) else 0)
    elif board.is_en_passant(move):
        flag = 5
    elif board.is_capture(move):
        flag = 4
    elif board.piece_type_at(origin) == chess.PAWN and abs(target - origin) == 16:
        flag = 1
    else:
        flag = 0
    return flag | target << 4 | origin << 10


def python_chess_visits(games: list[monty.Game]) -> Iterator[dict[chess.Move, float]]:
    """Each ply's visit distribution, aligned with python-chess's legal moves (bytes taken as stored)."""
    for game in games:
        board = game.board.copy()
        for ply in game.plies:
            moves = sorted(board.legal_moves, key=lambda move, board=board: spec_code(board, move))
            stored = ply.visit_bytes or b""
            total = sum(stored)
            yield {move: byte / total for move, byte in zip(moves, stored, strict=True)}
            board.push(ply.move)


# --- measuring ----------------------------------------------------------------------------------------------

class Row:
    """One workload: best wall-clock and best CPU time (seconds) for ``items``; judged on wall-clock time."""

    def __init__(self, name: str, items: int, unit: str, times: tuple[float, float], note: str = "—",
                 target: int | None = None) -> None:
        self.name, self.items, self.unit, self.note = name, items, unit, note
        self.seconds, self.cpu = times
        self.target = f"≥ {target:,} {unit}/s" if target else "—"
        self.met = None if target is None else items / self.seconds >= target

    def cells(self) -> list[str]:
        result = "—" if self.met is None else ("met" if self.met else "**not met**")
        return [self.name, f"{self.items:,} {self.unit}", f"{self.seconds * 1000:,.0f} ms",
                f"{self.items / self.seconds:,.0f} {self.unit}/s", f"{self.items / self.cpu:,.0f} {self.unit}/s",
                self.note, self.target, result]


HEADERS = ["Workload", "Items", "Best time", "Rate", "Rate (CPU time)", "Note", "Target", "Result"]


def timed(run: Callable[[], object], repeat: int, gc_on: bool = False) -> tuple[float, float]:
    """Best wall-clock and best CPU time of ``repeat`` runs after a warm-up (garbage collector off unless asked)."""
    run()
    walls, cpus = [], []
    enabled = gc.isenabled()
    gc.collect()
    if not gc_on:
        gc.disable()
    try:
        for _ in range(repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    finally:
        if enabled:
            gc.enable()
    return min(walls), min(cpus)


def read_all(data: bytes, format: str) -> int:
    return sum(len(game.plies) for game in monty.read_games(io.BytesIO(data), format=format))


def measure(games: list[monty.Game], repeat: int) -> tuple[list[Row], list[str]]:
    policy, value = file_bytes(games, "policy"), file_bytes(games, "value")
    read = list(monty.read_games(io.BytesIO(policy)))
    plies = sum(len(game.plies) for game in read)
    ours = [ply.visits for game in read for ply in game.plies]
    reference = list(python_chess_visits(read))
    if ours != reference:
        raise SystemExit("chessformats and the python-chess reading disagree")
    positions = [ply.board for game in read for ply in game.plies if ply.board is not None][:POSITIONS]
    rows = [
        Row("read_games, policy, visits aligned", plies, "plies", timed(lambda: read_all(policy, "policy"), repeat),
            "garbage collector off", TARGET),
        Row("read_games, policy, visits aligned", plies, "plies",
            timed(lambda: read_all(policy, "policy"), repeat, gc_on=True), "garbage collector on", TARGET),
        Row("read_games, value format", plies, "plies", timed(lambda: read_all(value, "value"), repeat),
            "every move checked legal"),
        Row("alignment with python-chess's legal_moves", plies, "plies",
            timed(lambda: sum(1 for _ in python_chess_visits(read)), repeat),
            "reference: moves sorted by their codes, positions given"),
        Row("legal_codes (move generation alone)", len(positions), "positions",
            timed(lambda: [monty.legal_codes(board) for board in positions], repeat)),
        Row("python-chess list(board.legal_moves)", len(positions), "positions",
            timed(lambda: [list(board.legal_moves) for board in positions], repeat), "reference"),
        Row("write_games, policy", plies, "plies", timed(lambda: file_bytes(games, "policy"), max(1, repeat // 2)),
            "visit counts rounded"),
    ]
    notes = [
        f"workload: {len(games):,} games, {plies:,} plies ({sum(game.board.chess960 for game in read):,} games "
        "read as Chess960), a visit distribution on every ply, "
        f"{len(policy):,} bytes (policy) / {len(value):,} bytes (value); seed {SEED}",
        f"legal moves per position: {sum(len(monty.legal_codes(b)) for b in positions) / len(positions):.1f} on "
        f"average over the first {len(positions):,} positions",
    ]
    return rows, notes


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|---|---:|---:|---:|---:|---|---|---|"]
    return "\n".join(lines + ["| " + " | ".join(row.cells()) + " |" for row in rows])


def docs_section(rows: Sequence[Row], notes: Sequence[str], info: dict[str, str], repeat: int) -> str:
    judged = [row for row in rows if row.met is not None]
    verdict = "**met**" if all(row.met for row in judged) else "**not met**"
    figures = "; ".join(f"{row.note}: {row.items / row.seconds:,.0f} plies/s ({row.items / row.cpu:,.0f} in CPU time)"
                        for row in judged)
    lines = [
        START_MARKER,
        "<!-- Generated by benchmarks/bench_monty.py --write-docs; edits between the markers are lost. -->",
        "",
        "## Monty training data",
        "",
        "Reading a policy file aligns every ply's visit bytes with the legal moves of its position sorted by "
        "their u16 codes, so every position's legal moves are generated: chessformats generates them directly "
        "as move codes (`monty.legal_codes`, checked against python-chess on every position in the tests) and "
        "builds each ply's board, move, scores and `{chess.Move: share}` mapping. Re-run with "
        "`python benchmarks/bench_monty.py --write-docs`.",
        "",
        "Machine and software of this run:",
        "",
        *[f"- {name}: {value}" for name, value in info.items()],
        "",
        *[f"- {note}" for note in notes],
        "",
        f"Best of {repeat} runs (writing: best of {max(1, repeat // 2)}). *Rate* is over wall-clock time (the "
        "target is judged on it); *Rate (CPU time)* over the process's CPU time, which leaves out the time it "
        "waited for a core (the machine is shared: see the load average above).",
        "",
        markdown_table(rows),
        "",
        f"Against the target of the issue: reading with visit alignment ≥ {TARGET:,} plies/s: {verdict} "
        f"({figures}).",
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def write_section(section: str, path: Path = DOCS) -> None:
    replace_section(section, START_MARKER, END_MARKER, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=GAMES, help=f"games in the workload (default {GAMES})")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per workload (best is kept)")
    parser.add_argument("--write-docs", action="store_true", help=f"rewrite the Monty section of {DOCS}")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of reading the policy file")
    args = parser.parse_args(argv)
    info = machine_info()
    for name, value in info.items():
        print(f"{name}: {value}")
    print("\ngenerating games ...", flush=True)
    games = synthetic_games(args.games, SEED)
    print("measuring ...", flush=True)
    rows, notes = measure(games, args.repeat)
    width = [max(len(row.cells()[i]) for row in rows) for i in range(len(HEADERS))]
    print()
    for row in rows:
        print("  ".join(cell.replace("**", "").ljust(width[i]) for i, cell in enumerate(row.cells())).rstrip())
    for note in notes:
        print(f"- {note}")
    if args.profile:
        data = file_bytes(games, "policy")
        profile = cProfile.Profile()
        gc.disable()
        profile.runcall(read_all, data, "policy")
        gc.enable()
        stream = io.StringIO()
        pstats.Stats(profile, stream=stream).sort_stats("tottime").print_stats(12)
        print(stream.getvalue())
    if args.write_docs:
        write_section(docs_section(rows, notes, info, args.repeat))
        print(f"\nwrote {DOCS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
