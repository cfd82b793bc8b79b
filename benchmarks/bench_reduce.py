"""The Dask build with the reduce by key range (``distributed.write_book``): per-stage rates with 1 and 2 local
workers, peak memory per process, and a cost model calibrated on the 1-worker run.

    python benchmarks/bench_reduce.py [--pgn FILE | --copies 10] [--reducers 8] [--max-ply 30] [--write-docs]

Each configuration runs in a fresh process (its peak memory is its own): a ``LocalCluster`` of W one-thread workers
is started, warmed up on a small input, then the book is built once; the client process (which also runs the
scheduler) reports its peak RSS and CPU time, each worker its peak RSS and the CPU time of the build. Every book is
checked byte-identical to the one-process build (``BookBuilder.add_pgn`` then ``make_book``) before anything is
reported. Stage figures are the tasks' own CPU times (``time.process_time`` inside each task), so they hold
whatever else runs on the machine; wall times do not. ``--write-docs`` puts the result in docs/scaling.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from chessformats.books.build import TABLE_ROWS
from chessformats.books.shuffle import file_dtype
from perfdoc import replace_section

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "scaling.md"
SECTION = "dask-reduce"
"""The generated section of docs/scaling.md (``--section`` names another: ``<!-- NAME:start -->`` ...)."""
DATABASE, CORES, MAX_PLY_EVENTS = 6.5e9, 64, 30
STORAGE = 2e9
"""Assumed aggregate bandwidth of the shared storage the shuffle goes through (bytes/s, writes and reads alike); a
task reads at most ``STORAGE / CORES``."""
RANGES = 4096
"""Key ranges of the lichess build (reduce tasks)."""
COLD_SHARE = 0.1
"""Assumed: no position deeper than the hot keys' plies is met in more than this share of the games (lichess: the
most played position after 4 plies, 1. e4 e5 2. Nf3 Nc6, in fewer than 10%)."""


def peak_mib() -> float:
    """This process's peak resident memory (``VmHWM``: of its own address space; ``ru_maxrss`` would keep the
    peak of the process it was forked from)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


def one_configuration(pgn: str, workers: int, reducers: int, max_ply: int, out: str) -> dict[str, Any]:
    """One build on a fresh LocalCluster, in this process (run by ``--one``)."""
    import dask
    from dask.distributed import Client, LocalCluster

    from chessformats.books.distributed import write_book

    def worker_usage() -> tuple[float, float]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime, peak_mib()

    unset = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}  # as write_book does
    with dask.config.set(unset), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        with tempfile.TemporaryDirectory() as folder:  # warm-up: imports on the workers
            small = Path(folder) / "small.pgn"
            small.write_text('[Result "1-0"]\n\n1. e4 e5 1-0\n')
            write_book([small], Path(folder) / "small.bin", scheduler=client, reducers=reducers)
        before = client.run(worker_usage)
        cpu, load, started = _cpu(), os.getloadavg()[0], time.perf_counter()
        done = write_book([pgn], out, scheduler=client, reducers=reducers, max_ply=max_ply)
        wall = time.perf_counter() - started
        client_cpu = _cpu() - cpu
        after = client.run(worker_usage)
    return {"workers": workers, "wall": wall, "games": done.games, "rows": done.rows, "pieces": done.pieces,
            "reducers": done.reducers, "stages": done.stages, "client_cpu": client_cpu,
            "client_peak": peak_mib(),
            "worker_cpu": [after[name][0] - before[name][0] for name in after],
            "worker_peak": [after[name][1] for name in after], "load": [load, os.getloadavg()[0]]}


def run(pgn: str, workers: int, reducers: int, max_ply: int, out: str) -> dict[str, Any]:
    command = [sys.executable, __file__, "--one", str(workers), "--pgn", pgn, "--reducers", str(reducers),
               "--max-ply", str(max_ply), "--out", out]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def one_process(pgn: str, max_ply: int, out: str) -> tuple[float, float]:
    """The one-process build (``--jobs 1``) of the same file: its book, wall and CPU seconds."""
    from chessformats.books.build import BookBuilder
    from chessformats.polyglot import make_book

    cpu, started = _cpu(), time.perf_counter()
    builder = BookBuilder(max_ply=max_ply, boards=False)
    builder.add_pgn(pgn)
    make_book(out, builder)
    builder.close()
    return time.perf_counter() - started, _cpu() - cpu


def one_range(pgn: str, max_ply: int) -> tuple[float, int, int]:
    """The reduce of the whole input as one key range, in this process (its reducer holds every row, more than a
    lichess reducer's 36 M at 4,096 ranges only for inputs over 1.5 G games): CPU seconds, rows, events."""
    from chessformats.books.hotkeys import hot_keys
    from chessformats.books.pieces import plan_pieces
    from chessformats.books.shuffle import map_piece, range_bounds, reduce_range

    options = {"min_games": 3, "min_score": 0.0, "only": None, "uniform": False}
    with tempfile.TemporaryDirectory() as folder:
        mapped = [map_piece(piece, index, max_ply, None, folder, 1, hot_keys())
                  for index, piece in enumerate(plan_pieces([pgn])) if not isinstance(piece, str)]
        started = time.process_time()
        ranged = reduce_range(mapped, 0, range_bounds(1), max_ply, folder, options, TABLE_ROWS)
        return time.process_time() - started, ranged.rows, sum(result.events for result in mapped)


def hot_rate(pieces: int = 40, games: int = 100_000) -> float:
    """CPU seconds per event of a reducer's hot path for one position met in every game (the start position's:
    20 moves played with lichess-like shares, halved every 16,384 games of its first move), ``pieces`` pieces of
    ``games`` games added 10 at a time, the map's tables made beforehand."""
    import numpy as np

    from chessformats.books.hotkeys import HotCounts, HotPart, hot_tables

    rng = np.random.default_rng(1)
    shares = np.array([0.45, 0.25, 0.1, 0.06, 0.04] + [0.1 / 15] * 15)
    parts = []
    for index in range(pieces):
        move = rng.choice(len(shares), size=games, p=shares / shares.sum())
        rows, codes = hot_tables(np.full(games, 1 << 63, dtype=np.uint64), move.astype(np.int64) * 7 + 100,
                                 np.ones(games, dtype=bool), np.arange(games, dtype=np.int64) * 31,
                                 rng.integers(0, 4, games).astype(np.int8))
        parts.append(HotPart(rows, codes, index * games * 31))
    counts, started = HotCounts(), time.process_time()
    for index in range(0, pieces, 10):
        counts.add(parts[index:index + 10])
    return (time.process_time() - started) / (pieces * games)


def movetext(max_ply: int, repeat: int = 5) -> tuple[float, float]:
    """Games/s of one process's read and replay (CPU time, a Polyglot build's builder) of twic1134 × 3, plain and
    lichess-like (:func:`lichess_pgn.lichess_like`), taking turns: ``bench_movetext.py``'s figures."""
    from bench_movetext import rates
    from lichess_pgn import DEFAULT_SOURCE, lichess_like

    text = DEFAULT_SOURCE.read_text(encoding="utf-8", errors="replace").strip()
    plain, commented = "\n\n".join([text] * 3), "\n\n".join([lichess_like(text)] * 3)
    (plain_rate, _), (commented_rate, _) = rates([plain, commented], max_ply, repeat, time.process_time, False)
    return plain_rate, commented_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", help="the input (default: twic1134-mainlines.pgn x --copies)")
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--reducers", type=int, default=8)
    parser.add_argument("--max-ply", type=int, default=MAX_PLY_EVENTS)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="LocalCluster sizes to run (the "
                        "model needs 1 and 2)")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--section", default=SECTION, help="the section of docs/scaling.md to write")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one_configuration(args.pgn, args.one, args.reducers, args.max_ply, args.out)))
        return
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        if args.pgn is None:
            text = (ROOT.parent / "shared/corpus/pgn/twic1134-mainlines.pgn").read_text(encoding="utf-8").strip()
            pgn = out / f"{args.copies}x.pgn"
            pgn.write_text("\n\n".join([text] * args.copies) + "\n", encoding="utf-8")
        else:
            pgn = Path(args.pgn)
        load = os.getloadavg()[0]
        local_wall, local_cpu = one_process(str(pgn), args.max_ply, str(out / "one.bin"))
        results = {workers: run(str(pgn), workers, args.reducers, args.max_ply, str(out / f"w{workers}.bin"))
                   for workers in args.workers}
        if 1 in results and 2 in results:  # (the model's figures)
            args.one_range = one_range(str(pgn), args.max_ply)
            args.hot_rate = hot_rate()
            args.movetext = movetext(args.max_ply)
        expected = (out / "one.bin").read_bytes()
        for workers in results:
            if (out / f"w{workers}.bin").read_bytes() != expected:
                raise SystemExit(f"the {workers}-worker book differs from the one-process build: not reporting")
        report = _report(pgn, results, local_wall, local_cpu, load, args)
    print(report)
    if 1 in results and 2 in results:
        print(next(line for line in report.splitlines() if line.startswith("- 2 workers, model against measured")))
    if args.write_docs:
        start, end = f"<!-- {args.section}:start -->", f"<!-- {args.section}:end -->"
        replace_section(f"{start}\n{report}\n{end}", start, end, DOCS)
        print(f"wrote {DOCS}")


def _report(pgn: Path, results: dict[int, dict[str, Any]], local_wall: float, local_cpu: float, load: float,
            args: argparse.Namespace) -> str:
    first, last = results[min(results)], results[max(results)]
    games = first["games"]
    lines = [
        f"### Measured: {' and '.join(map(str, results))} local workers, {first['games']:,} games of `{pgn.name}`",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores shared with other "
        f"users (load average {load:.2f} before the runs, {last['load'][1]:.2f} at the end); "
        f"CPython {platform.python_version()}",
        f"- input: `{pgn.name}` ({games:,} games, {pgn.stat().st_size / 1e6:.0f} MB, {first['rows']:,} distinct "
        f"(position, move) rows), `--max-ply {args.max_ply}`, {first['pieces']} pieces, {first['reducers']} key "
        "ranges; "
        "every book byte-identical to the one-process build",
        f"- one process (`BookBuilder.add_pgn`, no Dask): {local_wall:.1f} s wall, {local_cpu:.1f} s CPU "
        f"({games / local_wall:,.0f} games/s)",
        "",
        "| workers | wall | games/s | map: wall / CPU | reduce: wall / CPU | client CPU | client peak | "
        "worker peaks | workers' CPU |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for workers, result in results.items():
        stage = result["stages"]
        lines.append(
            f"| {workers} | {result['wall']:.1f} s | {games / result['wall']:,.0f} | {stage['map_wall']:.1f} / "
            f"{stage['map_cpu']:.1f} s | {stage['reduce_wall']:.1f} / {stage['reduce_cpu']:.1f} s | "
            f"{result['client_cpu']:.1f} s | {result['client_peak']:.0f} MiB | "
            f"{', '.join(f'{peak:.0f}' for peak in result['worker_peak'])} MiB | "
            f"{sum(result['worker_cpu']):.1f} s |")
    if 1 not in results or 2 not in results:
        return "\n".join(lines)
    return "\n".join([*lines, "", *_model(results, args)])


def _model(results: dict[int, dict[str, Any]], args: argparse.Namespace) -> list[str]:
    """The cost model's lines: calibrated on the 1-worker run, checked on the 2-worker run, and the prediction."""
    first, two = results[1], results[2]
    games, stages = first["games"], first["stages"]
    map_cpu, reduce_cpu = stages["map_cpu"] / games, stages["reduce_cpu"] / games  # s per game on one core
    shuffle = stages["shuffle_bytes"] / games
    cold, hot = stages["shuffle_events"] / games, stages["hot_events"] / games  # events per game
    overhead = first["wall"] - stages["map_cpu"] - stages["reduce_cpu"]  # client, scheduler, I/O (1 worker)
    model_wall = overhead + games * (map_cpu + reduce_cpu) / 2
    model_cpu = games * (map_cpu + reduce_cpu)
    cpu = two["stages"]["map_cpu"] + two["stages"]["reduce_cpu"]
    one_cpu, one_rows, one_events = args.one_range
    plain_rate, commented_rate = args.movetext
    extra = max(0.0, 1 / commented_rate - 1 / plain_rate)  # s per game more for lichess-like movetext
    reduce_game = max(reduce_cpu, one_cpu / games)  # the larger: a reducer of every row, or of one range here
    per_event = one_cpu / one_events  # a cold event's reduce (the hot keys' rows included)
    task_storage = STORAGE / CORES
    measured_bytes = file_dtype(first["reducers"]).itemsize  # an event's record in this run's map files ...
    cold_event = per_event + file_dtype(RANGES).itemsize / task_storage  # ... and at lichess's ranges, read in a task
    start_task = DATABASE * (args.hot_rate + 1 / task_storage + cold / RANGES * cold_event)
    cold_task = DATABASE * (COLD_SHARE + cold / RANGES) * cold_event
    largest = max(start_task, cold_task)
    storage = DATABASE * shuffle / STORAGE
    map_phase = max(DATABASE * (map_cpu + extra) / CORES, storage)
    reduce_phase = max(DATABASE * reduce_game / CORES, storage, largest)
    return [
        f"- per core (the tasks' CPU, 1 worker): read+replay+write events {1 / map_cpu:,.0f} games/s, reduce "
        f"{1 / reduce_cpu:,.0f} games/s; shuffle {shuffle:,.0f} bytes a game ({cold:.1f} events of {measured_bytes} "
        f"bytes, and {hot:.1f} events of the hot keys counted by the map: their rows and a byte or two an event)",
        f"- the reduce of every row in one key range (in process, {one_rows:,} rows, {one_events:,} events): "
        f"{one_cpu / games * 1e6:.1f} µs a game ({per_event * 1e9:.0f} ns an event), against "
        f"{reduce_cpu * 1e6:.1f} µs with {first['reducers']} ranges of {first['rows'] // first['reducers']:,} rows",
        f"- the hot path's reduce of one position met in every game (the start position's; 4 M events, halved every "
        f"16,384 games of its first move): {args.hot_rate * 1e9:.0f} ns an event",
        f"- lichess-like movetext (one process, CPU time, best of 5, twic1134 × 3 plain and with a `[%eval]` and a "
        f"`[%clk]` after every move): {plain_rate:,.0f} against {commented_rate:,.0f} games/s "
        f"(**{commented_rate / plain_rate:.2f}×**), {extra * 1e6:.1f} µs a game more",
        f"- model: wall(W) = {overhead:.1f} s (client, scheduler, start of tasks: the 1-worker wall minus its tasks' "
        f"CPU) + games × ({map_cpu * 1e6:.1f} + {reduce_cpu * 1e6:.1f}) µs / W",
        _check_line(model_cpu, cpu, model_wall, two),
        "",
        f"Prediction for the whole lichess database ({DATABASE / 1e9:.1f} G games) on {CORES} cores, at "
        f"`--max-ply {args.max_ply}`, the reduce starting when the map is done (no overlap): the map per game as "
        f"here plus the lichess-like movetext's {extra * 1e6:.1f} µs, the reduce per game the larger of the two "
        f"above ({reduce_game * 1e6:.1f} µs), every core as fast as one here and busy ({RANGES:,} key ranges), the "
        f"shuffle ({DATABASE * shuffle / 1e12:.2f} TB, written once, read once) through shared storage at "
        f"{STORAGE / 1e9:.0f} GB/s in aggregate ({task_storage / 1e6:.0f} MB/s a task), overlapping the computing "
        f"of its phase, and the largest reduce task: the start position's range ({start_task / 3600:.3f} h: "
        f"{DATABASE / 1e9:.1f} G hot events) or a range holding a position of {COLD_SHARE:.0%} of the games "
        f"({cold_task / 3600:.3f} h): map {map_phase / 3600:.2f} h + reduce {reduce_phase / 3600:.2f} h = "
        f"**{(map_phase + reduce_phase) / 3600:.2f} h** (computing alone: "
        f"{DATABASE * (map_cpu + extra + reduce_game) / CORES / 3600:.2f} h; with plain movetext: "
        f"{(max(DATABASE * map_cpu / CORES, storage) + reduce_phase) / 3600:.2f} h; the client's own work, "
        "concatenating the book, is minutes).",
    ]


def _check_line(model_cpu: float, cpu: float, model_wall: float, two: dict[str, Any]) -> str:
    """The 2-worker run against the model, in one line."""
    return (f"- 2 workers, model against measured: tasks' CPU {model_cpu:.1f} s against {cpu:.1f} s "
            f"({(cpu - model_cpu) / model_cpu:+.0%}); wall {model_wall:.1f} s against {two['wall']:.1f} s "
            f"({(two['wall'] - model_wall) / model_wall:+.0%}); the workers got "
            f"{sum(two['worker_cpu']) / two['wall']:.2f} cores of CPU during the run (load "
            f"{two['load'][0]:.1f} at its start)")


if __name__ == "__main__":
    main()
