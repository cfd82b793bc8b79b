"""The Dask build against the one-machine build, on the same input, in one run: 1 vs 2 local workers.

    python benchmarks/bench_dask.py [--pgn FILE] [--copies 10] [--repeat 3] [--max-ply 30] [--write-docs]

Whole processes (`chessformats build`, wall time from start to exit, best of N, the largest process's peak
memory from GNU ``time``), then the library call on an already started ``LocalCluster`` (no cluster start-up in
the figure) with the client's merge time and the events' size measured. Every book is checked byte-identical
to the one-process build before anything is reported. ``--write-docs`` puts the table in docs/scaling.md.
"""

from __future__ import annotations

import argparse
import os
import pickle
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_build import best
from bench_movetext import rates
from lichess_pgn import lichess_like
from perfdoc import replace_section

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "scaling.md"
START, END = "<!-- dask-scaling:start -->", "<!-- dask-scaling:end -->"


def library_run(paths: list[Path], workers: int, max_ply: int, repeat: int) -> dict[str, Any]:
    from dask.distributed import Client, LocalCluster

    from chessformats.books import distributed
    from chessformats.books.build import BookBuilder

    results: dict[str, Any] = {}
    import dask

    unset = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}  # as build_book does
    with dask.config.set(unset), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        for _ in range(repeat):
            builder = BookBuilder(max_ply=max_ply)
            merging = [0.0]
            merge = builder._merge

            def timed(chunk: Any, merge: Any = merge, merging: list[float] = merging) -> None:
                started = time.perf_counter()
                merge(chunk)
                merging[0] += time.perf_counter() - started

            builder._merge = timed  # type: ignore[method-assign]
            started = time.perf_counter()
            distributed.build_book(paths, scheduler=client, builder=builder)
            elapsed = time.perf_counter() - started
            if not results or elapsed < results["seconds"]:
                results = {"seconds": elapsed, "merge": merging[0], "builder": builder}
    return results


MONTH, DATABASE, CORES = 95e6, 6.5e9, 64
"""Projection assumptions: games of a lichess standard month (2024: about 90-100 M), of the whole database (order
of magnitude of the sum of the monthly files), and the cores of the cluster."""
def merge_rate(chunks: list[Any], copies: int, max_ply: int, repeat: int) -> float:
    """Games/s of the client's merge alone (no worker running): a piece's chunks merged ``copies`` times."""
    from chessformats.books import pieces
    from chessformats.books.batches import event_stride
    from chessformats.books.build import BookBuilder

    best_seconds = float("inf")
    for _ in range(repeat):
        builder = BookBuilder(max_ply=max_ply)
        started = time.perf_counter()
        for _ in range(copies):
            before = builder.games
            for chunk in chunks:
                builder._merge(pieces._shifted(chunk, before, event_stride(max_ply)))
        best_seconds = min(best_seconds, time.perf_counter() - started)
    return copies * sum(chunk.games for chunk in chunks) / best_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", default=str(ROOT.parent / "shared/corpus/pgn/twic1134-mainlines.pgn"))
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-ply", type=int, default=30)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    from chessformats.books import distributed
    from chessformats.polyglot import make_book

    python, ply = sys.executable, str(args.max_ply)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        text = Path(args.pgn).read_text(encoding="utf-8", errors="replace").strip()
        pgn = out / f"{args.copies}x.pgn"
        pgn.write_text("\n\n".join([text] * args.copies) + "\n", encoding="utf-8")
        games = pgn.read_text(encoding="utf-8").count("[Result ")
        megabytes = pgn.stat().st_size / 1e6
        build = [python, "-m", "chessformats.cli", "build", str(pgn), "--max-ply", ply, "--force", "-o"]
        contenders = {
            "in process (`--jobs 1`)": [*build, str(out / "j1.bin"), "--jobs", "1"],
            "`--jobs 2` (fork)": [*build, str(out / "j2.bin"), "--jobs", "2"],
            "`--dask`, LocalCluster of 1 worker": [*build, str(out / "d1.bin"), "--dask", "--dask-workers", "1"],
            "`--dask`, LocalCluster of 2 workers": [*build, str(out / "d2.bin"), "--dask", "--dask-workers", "2"],
        }
        processes = {name: best(command, args.repeat) for name, command in contenders.items()}
        expected = (out / "j1.bin").read_bytes()
        for name in ("j2.bin", "d1.bin", "d2.bin"):
            if (out / name).read_bytes() != expected:
                raise SystemExit(f"{name} differs from the one-process book: not reporting timings")
        library = {workers: library_run([pgn], workers, args.max_ply, args.repeat) for workers in (1, 2)}
        for workers, result in library.items():
            make_book(out / f"lib{workers}.bin", result["builder"], min_games=3)
            if (out / f"lib{workers}.bin").read_bytes() != expected:
                raise SystemExit(f"the library build on {workers} workers differs: not reporting timings")
        piece = distributed.Piece("", 0, 0, text, 0)  # one piece of the size build_book would cut here
        chunks = distributed.read_piece(piece, args.max_ply, None)
        event_bytes = len(pickle.dumps(chunks, protocol=pickle.HIGHEST_PROTOCOL)) / sum(c.games for c in chunks)
        merge_alone = merge_rate(chunks, args.copies, args.max_ply, args.repeat)
        (plain_rate, _), (lichess_rate, _) = rates(["\n\n".join([text] * 3), "\n\n".join([lichess_like(text)] * 3)],
                                                   args.max_ply, args.repeat)
        lichess_bytes = len(lichess_like(text).encode()) / text.count("[Result ")
    end_load = os.getloadavg()[0]
    one, two = library[1]["seconds"], library[2]["seconds"]
    lines = [
        "## Measured: 1 vs 2 local workers",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores shared with other "
        f"users (load average {load:.2f} at start, {end_load:.2f} at the end); CPython {platform.python_version()}",
        f"- input: `{Path(args.pgn).name}` × {args.copies} in one plain file ({games:,} games, "
        f"{megabytes:.0f} MB), `--max-ply {args.max_ply}`; every book "
        "byte-identical to the one-process build",
        "",
        "| how | wall time | games/s | largest process's peak memory |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {name} (whole process) | {seconds:.2f} s | {games / seconds:,.0f} | {memory / 1024:.0f} MiB |"
              for name, (seconds, memory) in processes.items()]
    lines += [f"| `build_book` on a started LocalCluster of {workers} worker{'s' * (workers > 1)} | "
              f"{result['seconds']:.2f} s | {games / result['seconds']:,.0f} | -- |"
              for workers, result in library.items()]
    lines += [
        "",
        f"- speed-up from 1 to 2 workers (library call, no start-up): {one / two:.2f}×; "
        f"per-core rate with 1 worker: {games / one:,.0f} games/s",
        f"- the client's merge of the events (single-threaded, in game order): {library[2]['merge']:.2f} s of the "
        f"2-worker run, i.e. {games / max(library[2]['merge'], 1e-9):,.0f} games/s while the workers share its "
        f"cores; alone (no worker running, the same events): {merge_alone:,.0f} games/s",
        f"- sent from a worker to the client: {event_bytes:,.0f} bytes per game (pickled events, positions and "
        f"links of one piece of {len(text) / 1e6:.1f} MB) at `--max-ply {args.max_ply}`",
    ]
    factor = lichess_rate / plain_rate
    low, high = games / one * factor, max(games / seconds for seconds, _ in processes.values()) * factor
    lines += [
        f"- lichess-like movetext (the same games with a `[%eval]` and a `[%clk]` comment after every move, "
        f"{lichess_bytes:,.0f} bytes per game): one process reads it at {lichess_rate:,.0f} games/s against "
        f"{plain_rate:,.0f} for the plain games in the same run ({factor:.2f}×)",
        "",
        f"Projection from these figures ({MONTH / 1e6:.0f} M games a month, {DATABASE / 1e9:.1f} G games in the "
        f"whole database, {CORES} cores each as fast as one here, lichess-like games: {low:,.0f} to "
        f"{high:,.0f} games/s per core, from the 1-worker rate to the best whole-process rate, × {factor:.2f}):",
        "",
        f"| | workers alone ({CORES} cores) | through one client ({merge_alone:,.0f} games/s merged) |",
        "|---|---:|---:|",
    ]
    for name, count in ((f"one month ({MONTH / 1e6:.0f} M games)", MONTH),
                        (f"the whole database ({DATABASE / 1e9:.1f} G games)", DATABASE)):
        fast, slow = _duration(count / (CORES * high)), _duration(count / (CORES * low))
        lines.append(f"| {name} | {fast if fast == slow else f'{fast} to {slow}'} | {_duration(count / merge_alone)} |")
    report = "\n".join(lines)
    print(report)
    if args.write_docs:
        replace_section(f"{START}\n{report}\n{END}", START, END, DOCS)
        print(f"wrote {DOCS}")


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 5400 else f"{seconds / 60:.0f} min"


if __name__ == "__main__":
    main()
