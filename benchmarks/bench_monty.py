#!/usr/bin/env python3
"""Monty training data speed: reading with visit alignment, in plies per second, beside the reference crate.

    python benchmarks/bench_monty.py [--games N] [--repeat N] [--stream-copies N] [--write-docs] [--profile]

Reading a policy file means, for every ply, generating the legal moves of the position, sorting them by
their u16 codes, checking the stored count and pairing each visit byte with its move; legal-move
generation is the cost. The workload is a file of self-play-like games written by chessformats (seeded
random games, a fifth from Chess960 starts, a visit distribution on every ply; the corpus file has only
132 plies). Measured in the same run: the reference crate's own reader (``../shared/tools/monty_read``,
``MontyFormat::deserialise_from``, which generates every position's legal moves too) on the same file; the
bulk reader (``monty.read_arrays``: numpy arrays, the chess kernel's batch move generator); ``read_games``
(a ``Game`` per game, a ``Ply`` and a ``chess.Board`` per ply); the value file; a reader doing the alignment
with python-chess's own move generator for reference; move generation alone; writing from arrays and from
games; and streaming (``monty.iter_plies``) the file and a file ``--stream-copies`` times larger, with the
peak of traced memory (``tracemalloc``) of each. Results are compared before timing (the arrays equal the
per-game reading, which equals the python-chess reading on every ply). Every figure is the best of
``--repeat`` runs (default 5). With ``--write-docs`` the Monty section of ``docs/performance.md`` (between the
``monty-bench`` markers) is regenerated; text outside the markers is kept.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import chess
import numpy as np

from bench_polyglot import machine_info
from chessformats import monty
from chessformats.formats.monty import stream as monty_stream
from chessformats.kernel import from_boards, legal_moves
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
READ_TARGET = 200_000     # plies per second, read_games with visit alignment (the issue)
WRITE_TARGET = 1_000_000  # plies per second, writing from arrays (the issue)
CRATE_SHARE = 0.5         # the bulk reader: at least this share of the crate's plies per second, same run
CRATE = Path(os.environ.get("MONTY_READ", REPO.parent / "shared" / "tools" / "monty_read"))
STREAM_COPIES = 50
MID_COPIES = 5


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
                 target: float | None = None, target_text: str | None = None) -> None:
        self.name, self.items, self.unit, self.note = name, items, unit, note
        self.seconds, self.cpu = times
        self.target = target_text or (f"≥ {target:,.0f} {unit}/s" if target else "—")
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


def read_all_visits(data: bytes) -> int:
    """Every ply's visit distribution used: its moves and shares made."""
    return sum(len(dict(ply.visits.items())) for game in monty.read_games(io.BytesIO(data), format="policy")
               for ply in game.plies if ply.visits is not None)


def crate_time(path: str, repeat: int) -> tuple[float, float] | None:
    """The reference crate's best time reading ``path`` (its own figure), or ``None`` without the binary."""
    if not CRATE.exists():
        return None
    out = subprocess.run([str(CRATE), path, str(repeat)], capture_output=True, text=True, check=True).stdout
    seconds = float(out.split("best")[1].split()[0])
    return seconds, seconds


def stream(path: str, batch_size: int = 16_384) -> int:
    return sum(batch.size for batch in monty.iter_plies(path, format="policy", batch_size=batch_size))


def stream_peak(path: str) -> tuple[int, int]:
    """(plies, peak traced bytes) of streaming a file in batches."""
    gc.collect()
    tracemalloc.start()
    plies = stream(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return plies, peak


def measure(games: list[monty.Game], repeat: int, copies: int) -> tuple[list[Row], list[str]]:
    policy, value = file_bytes(games, "policy"), file_bytes(games, "value")
    read = list(monty.read_games(io.BytesIO(policy)))
    plies = sum(len(game.plies) for game in read)
    ours = [ply.visits for game in read for ply in game.plies]
    reference = list(python_chess_visits(read))
    if ours != reference:
        raise SystemExit("chessformats and the python-chess reading disagree")
    arrays = monty.read_arrays(io.BytesIO(policy), format="policy")
    if arrays.plies.move.tolist() != [ply.code for game in read for ply in game.plies] or \
            arrays.plies.visits.tobytes() != b"".join(ply.visit_bytes or b"" for game in read for ply in game.plies):
        raise SystemExit("the arrays and the per-game reading disagree")
    if _written(monty.take_games(arrays, np.arange(len(read)))) != policy:
        raise SystemExit("writing the arrays does not give the file's bytes")
    boards = [ply.board for game in read for ply in game.plies if ply.board is not None][:POSITIONS]
    batch = from_boards(boards)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "workload.montyformat")
        with open(path, "wb") as handle:
            handle.write(policy)
        crate = crate_time(path, repeat)
        bulk = timed(lambda: monty.read_arrays(path, format="policy"), repeat)
        if crate is not None:
            rows.append(Row("reference crate: MontyFormat::deserialise_from", plies, "plies", crate,
                            "monty_read (Rust, its own timing), same file"))
        share = f"≥ {CRATE_SHARE}× the crate ({CRATE_SHARE * plies / crate[0]:,.0f} plies/s)" if crate else None
        rows.append(Row("read_arrays (bulk, numpy arrays)", plies, "plies", bulk, "garbage collector off",
                        CRATE_SHARE * plies / crate[0] if crate else None, share))
        rows += [
            Row("read_games, policy, visits aligned", plies, "plies", timed(lambda: read_all(policy, "policy"), repeat),
                "garbage collector off", READ_TARGET),
            Row("read_games, policy, visits aligned", plies, "plies",
                timed(lambda: read_all(policy, "policy"), repeat, gc_on=True), "garbage collector on", READ_TARGET),
            Row("read_games, every visit distribution used", plies, "plies",
                timed(lambda: read_all_visits(policy), repeat), "moves and shares made (they are made on first use)"),
            Row("read_games, value format", plies, "plies", timed(lambda: read_all(value, "value"), repeat),
                "every move checked legal"),
            Row("alignment with python-chess's legal_moves", plies, "plies",
                timed(lambda: sum(1 for _ in python_chess_visits(read)), max(1, repeat // 2)),
                "reference: moves sorted by their codes, positions given"),
            Row("kernel legal_moves (move generation alone)", len(boards), "positions",
                timed(lambda: legal_moves(batch), repeat), "one batch, positions given"),
            Row("python-chess list(board.legal_moves)", len(boards), "positions",
                timed(lambda: [list(board.legal_moves) for board in boards], max(1, repeat // 2)), "reference"),
            Row("write_arrays (from arrays)", plies, "plies", timed(lambda: _written(arrays), repeat),
                "bytes identical to the file read", WRITE_TARGET),
            Row("write_games, policy", plies, "plies", timed(lambda: file_bytes(games, "policy"), max(1, repeat // 2)),
                "from Game objects, visit counts rounded"),
        ]
        peaks = {}
        for times in (1, MID_COPIES, copies):
            name = os.path.join(folder, f"copies{times}.montyformat")
            with open(name, "wb") as handle:
                for _ in range(times):
                    handle.write(policy)
            if times == MID_COPIES:
                rows.append(Row(f"iter_plies, batches of 16,384, {MID_COPIES}× the workload", plies * times,
                                "plies", timed(lambda name=name: stream(name), 1), "file order, from disk"))
            peaks[times] = stream_peak(name)
            os.remove(name)
    big_plies, big_peak = peaks[copies]
    small_peak, mid_peak = peaks[1][1], peaks[MID_COPIES][1]
    flat = big_peak <= 1.25 * mid_peak + 4 * 2**20
    notes = [
        f"workload: {len(games):,} games, {plies:,} plies ({sum(game.board.chess960 for game in read):,} games "
        "read as Chess960), a visit distribution on every ply, "
        f"{len(policy):,} bytes (policy) / {len(value):,} bytes (value); seed {SEED}",
        f"legal moves per position: {len(legal_moves(batch)[1]) / len(boards):.1f} on average over the first "
        f"{len(boards):,} positions",
        f"streaming memory (peak traced by tracemalloc, chunks of {monty_stream.CHUNK:,} bytes): "
        f"{small_peak / 2**20:,.1f} MiB for the workload, {mid_peak / 2**20:,.1f} MiB for {MID_COPIES}× it, "
        f"{big_peak / 2**20:,.1f} MiB for {copies}× it ({big_plies:,} plies): "
        f"{'flat' if flat else 'NOT flat'} (judged: the {copies}× peak within 1.25× the {MID_COPIES}× peak + 4 MiB)",
    ]
    if crate is None:
        notes.append(f"the reference crate's reader was not found at {CRATE}: no anchor in this run")
    return rows, notes


def _written(arrays: monty.MontyArrays) -> bytes:
    buffer = io.BytesIO()
    monty.write_arrays(buffer, arrays)
    return buffer.getvalue()


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|---|---:|---:|---:|---:|---|---|---|"]
    return "\n".join(lines + ["| " + " | ".join(row.cells()) + " |" for row in rows])


def docs_section(rows: Sequence[Row], notes: Sequence[str], info: dict[str, str], repeat: int) -> str:
    judged = [row for row in rows if row.met is not None]
    verdicts = "; ".join(f"{row.name} ({row.note}): {row.items / row.seconds:,.0f} {row.unit}/s against "
                         f"{row.target}: {'met' if row.met else '**not met**'}" for row in judged)
    lines = [
        START_MARKER,
        "<!-- Generated by benchmarks/bench_monty.py --write-docs; edits between the markers are lost. -->",
        "",
        "## Monty training data",
        "",
        "Reading a policy file aligns every ply's visit bytes with the legal moves of its position sorted by "
        "their u16 codes, so every position's legal moves are generated. chessformats replays all games of a "
        "chunk of the file together and generates the legal moves of all their positions at once with the chess "
        "kernel (`chessformats.kernel.batch.legal_moves`: numpy over bitboards, checked against perft counts "
        "and python-chess in the tests). `monty.read_arrays` stops there (numpy arrays, no object per ply); "
        "`read_games` then builds each ply's board, move, scores and visit mapping. The reference crate's own "
        "reader runs on the same file in the same run. Re-run with "
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
        f"Against the targets of the issue: {verdicts}.",
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def write_section(section: str, path: Path = DOCS) -> None:
    replace_section(section, START_MARKER, END_MARKER, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=GAMES, help=f"games in the workload (default {GAMES})")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per workload (best is kept)")
    parser.add_argument("--stream-copies", type=int, default=STREAM_COPIES,
                        help=f"the streamed file is this many copies of the workload (default {STREAM_COPIES})")
    parser.add_argument("--write-docs", action="store_true", help=f"rewrite the Monty section of {DOCS}")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of reading the policy file")
    args = parser.parse_args(argv)
    info = machine_info()
    for name, value in info.items():
        print(f"{name}: {value}")
    print("\ngenerating games ...", flush=True)
    games = synthetic_games(args.games, SEED)
    print("measuring ...", flush=True)
    rows, notes = measure(games, args.repeat, args.stream_copies)
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
