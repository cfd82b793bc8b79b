"""Book building speed: `chessformats build` against `polyglot make-book`, in one run, same PGN and options.

    python benchmarks/bench_build.py [--pgn FILE] [--polyglot BIN] [--repeat N] [--write-docs]

Every contender runs as its own process, the contenders in turn (polyglot, one process, two processes; N rounds):
wall time from start to exit and CPU time (user + system, the forked reader's included), each as the median and
the range over the rounds, and the ratio to polyglot's run of the same round (paired, so that a drift in the
machine's speed does not move it); peak memory is the largest maximum resident set size. The outputs are
compared byte for byte with polyglot's before anything is reported. For reference, a naive python-chess build
(``read_game`` + ``zobrist_hash`` per ply) is timed once. The inputs of distinct games (``--distinct``, one run
each) have a section of their own, rewritten only when they are run.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chess

from perfdoc import replace_section
from processes import Timing, best, compiled_env, find_polyglot, in_turn, measure, run

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "performance.md"
START, END = "<!-- book-build:start -->", "<!-- book-build:end -->"
DISTINCT_START, DISTINCT_END = "<!-- book-build-distinct:start -->", "<!-- book-build-distinct:end -->"
NAIVE = """
import sys, chess.pgn, chess.polyglot
counts = {}
with open(sys.argv[1], encoding="utf-8") as handle:
    while (game := chess.pgn.read_game(handle)) is not None:
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            if ply >= 30:
                break
            key = (chess.polyglot.zobrist_hash(board), move)
            counts[key] = counts.get(key, 0) + 1
            board.push(move)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", default=str(ROOT.parent / "shared/corpus/pgn/twic1134-mainlines.pgn"))
    parser.add_argument("--polyglot")
    parser.add_argument("--repeat", type=int, default=11, help="rounds (default 11)")
    parser.add_argument("--max-ply", type=int, default=30)
    parser.add_argument("--copies", default="10,30",
                        help="also time files of these many copies of the PGN (comma-separated; larger inputs)")
    parser.add_argument("--distinct", default="100000,300000,900000",
                        help="also time files of these many distinct games (comma-separated, among 100000, 300000 and "
                             "900000; made by distinct_pgn.py and kept in --cache; '' for none): counts that grow with "
                             "the input")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "chessformats-bench"),
                        help="folder for the generated inputs of --distinct")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    polyglot = find_polyglot(args.polyglot)
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        args.env = compiled_env(str(out / "bytecode"))
        imports = best([python, "-c", "import chessformats.cli, chessformats.books.build"], args.repeat, args.env)
        naive = measure([python, "-c", NAIVE, args.pgn], args.env)
        games = Path(args.pgn).read_text(encoding="utf-8", errors="replace").count("[Result ")
        lines = [
            "## Book building (`chessformats build` vs `polyglot make-book`)",
            "",
            f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
            f"load average at start {os.getloadavg()[0]:.2f}; CPython {platform.python_version()}; "
            f"python-chess {chess.__version__}",
            f"- input: `{Path(args.pgn).name}` ({games:,} games), `-max-ply {args.max_ply}`, other options default; "
            "every book checked byte-identical to polyglot's before timing is reported",
            f"- the whole process, {args.repeat} rounds of polyglot, `build --jobs 1` and `build --jobs 2` in turn "
            "(bytecode compiled beforehand, as after `pip install`): wall time and CPU time (user + system, the "
            "forked reader's included) as the median (min-max) over the rounds; × polyglot: the ratio to "
            "polyglot's run of the same round, median (min-max); Python's start-up and imports alone "
            f"take {imports[0]:.2f} s of each chessformats run",
            "",
        ]
        lines += table(polyglot, python, Path(args.pgn), out, args, naive)
        text = Path(args.pgn).read_text(encoding="utf-8", errors="replace")
        for copies in (int(part) for part in args.copies.split(",") if part and int(part) > 1):
            larger = out / f"{copies}x.pgn"
            larger.write_text("\n\n".join([text.strip()] * copies) + "\n", encoding="utf-8")
            lines += ["", f"The same games {copies} times over ({games * copies:,} games in one file; "
                      "1.e4 passes 16,384 games there, so polyglot's halving of the counters is in play):", ""]
            lines += table(polyglot, python, larger, out, args, None)
            larger.unlink()
        if args.max_ply != 1024:
            lines += ["", "Whole games (polyglot's default `-max-ply 1024`), the same file:", ""]
            lines += table(polyglot, python, Path(args.pgn), out, argparse.Namespace(**{**vars(args), "max_ply": 1024}),
                           None)
        distinct_lines = distinct(polyglot, python, out, args) if args.distinct else []
    text = "\n".join(lines)
    print(text)
    if distinct_lines:
        print("\n".join(distinct_lines))
    if args.write_docs:
        write_section(text, START, END)
        if distinct_lines:
            write_section("\n".join(distinct_lines).strip("\n"), DISTINCT_START, DISTINCT_END)


def table(polyglot: str, python: str, pgn: Path, out: Path, args: argparse.Namespace,
          naive: Timing | None) -> list[str]:
    ply = str(args.max_ply)
    contenders = {
        "polyglot make-book (C)": [polyglot, "make-book", "-pgn", str(pgn), "-bin", str(out / "polyglot.bin"),
                                   "-max-ply", ply],
        "chessformats build, 1 process": [python, "-m", "chessformats.cli", "build", str(pgn), "-o",
                                          str(out / "one.bin"), "--max-ply", ply, "--jobs", "1", "--force"],
        "chessformats build, 2 processes": [python, "-m", "chessformats.cli", "build", str(pgn), "-o",
                                            str(out / "two.bin"), "--max-ply", ply, "--jobs", "2", "--force"],
    }
    runs = in_turn(contenders, args.repeat, args.env)
    expected = (out / "polyglot.bin").read_bytes()
    for name in ("one.bin", "two.bin"):
        if (out / name).read_bytes() != expected:
            raise SystemExit(f"{name} differs from polyglot's book for {pgn.name}: not reporting timings")
    base = runs["polyglot make-book (C)"]
    lines = ["| program | wall time | CPU time | peak memory | × polyglot's wall time | × polyglot's CPU time |",
             "|---|---:|---:|---:|---:|---:|"]
    ratios = {}
    for name, timings in runs.items():
        wall = [timing.wall / paired.wall for timing, paired in zip(timings, base, strict=True)]
        cpu = [timing.cpu / paired.cpu for timing, paired in zip(timings, base, strict=True)]
        ratios[name] = wall
        paired_ratios = ("1.00× | 1.00×" if timings is base
                         else f"{_spread(wall, '.2f', '×')} | {_spread(cpu, '.2f', '×')}")
        lines.append(f"| {name} | {_spread([timing.wall for timing in timings], '.3f', ' s')} "
                     f"| {_spread([timing.cpu for timing in timings], '.3f', ' s')} "
                     f"| {max(timing.peak for timing in timings) / 1024:.0f} MiB | {paired_ratios} |")
    if naive is not None:
        polyglot_wall = statistics.median(timing.wall for timing in base)
        polyglot_cpu = statistics.median(timing.cpu for timing in base)
        lines.append(f"| naive python-chess (read_game + zobrist_hash), once | {naive.wall:.3f} s | {naive.cpu:.3f} s "
                     f"| {naive.peak / 1024:.0f} MiB | {naive.wall / polyglot_wall:.2f}× "
                     f"| {naive.cpu / polyglot_cpu:.2f}× |")
    memory = max(timing.peak for timing in runs["chessformats build, 2 processes"]) / 1024
    verdict = {True: "met", False: "not met"}
    one, two = (ratios[f"chessformats build, {n}"] for n in ("1 process", "2 processes"))
    lines += ["", f"Target (issue 15): at least as fast as polyglot at every input size (the median of the paired "
                  f"ratios at most 1×). One process: {_spread(one, '.2f', '×')} "
                  f"({verdict[statistics.median(one) <= 1]}); two processes: {_spread(two, '.2f', '×')} "
                  f"({verdict[statistics.median(two) <= 1]}). Peak memory with two processes: {memory:.0f} MiB "
                  f"(target at ×30: at most ~150 MiB; {verdict[memory <= 150]} at this size)."]
    return lines


def _spread(values: list[float], form: str, unit: str) -> str:
    """The median and, in brackets, the smallest and the largest value: ``0.249 s (0.241-0.262)``."""
    return (f"{statistics.median(values):{form}}{unit} "
            f"({min(values):{form}}-{max(values):{form}})")


DISTINCT_INPUTS = {100_000: ((1, 100_000),), 300_000: ((1, 300_000),), 900_000: ((1, 300_000), (2, 600_000))}
"""Inputs of distinct games by size: parts of (seed, games) made by distinct_pgn.py, one after the other."""


def distinct(polyglot: str, python: str, out: Path, args: argparse.Namespace) -> list[str]:
    """Inputs of distinct games: memory bounded by the counts kept in memory (``--memory``), not by the input."""
    from distinct_pgn import write

    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    ply = str(args.max_ply)
    lines = ["Distinct games (`benchmarks/distinct_pgn.py`: the opening of a random twic1134 game, 0-12 plies, "
             "then random legal moves to 40 plies; nearly every position after the opening is new, so the counts "
             "grow with the input as with real collections, while the book stays small: few new positions reach "
             "`-min-game 3`). Every book byte-identical to polyglot's; one run each; `--memory 0` keeps every "
             "count in memory (what `build` did before counts were spilled):", "",
             "| games | input | polyglot | peak | `build` | peak | × polyglot | spilled rows (runs left) | "
             "`build --memory 0` | peak |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    peaks = []
    for count in (int(part) for part in args.distinct.split(",") if part):
        parts = []
        for seed, games in DISTINCT_INPUTS[count]:
            part = cache / f"distinct-s{seed}-{games}.pgn"
            if not part.exists():
                write(games, part, source=args.pgn, seed=seed)
            parts.append(part)
        pgn = parts[0] if len(parts) == 1 else out / f"distinct-{count}.pgn"
        if len(parts) > 1:
            with open(pgn, "wb") as joined:
                for part in parts:
                    joined.write(part.read_bytes())
        spill_dir = out / "spill"
        spill_dir.mkdir(exist_ok=True)
        contenders = {
            "polyglot": [polyglot, "make-book", "-pgn", str(pgn), "-bin", str(out / "polyglot.bin"), "-max-ply", ply],
            "build": [python, "-m", "chessformats.cli", "build", str(pgn), "-o", str(out / "two.bin"), "--max-ply",
                      ply, "--spill-dir", str(spill_dir), "--force"],
            "all in memory": [python, "-m", "chessformats.cli", "build", str(pgn), "-o", str(out / "mem.bin"),
                              "--max-ply", ply, "--memory", "0", "--force"],
        }
        results = {name: run(command, args.env) for name, command in contenders.items()}
        expected = (out / "polyglot.bin").read_bytes()
        for name in ("two.bin", "mem.bin"):
            if (out / name).read_bytes() != expected:
                raise SystemExit(f"{name} differs from polyglot's book for {pgn.name}: not reporting timings")
        spilled = _spilled_rows(python, pgn, args)
        (base, base_memory), (seconds, memory), (whole, whole_memory) = results.values()
        peaks.append(memory / 1024)
        lines.append(f"| {count:,} | {pgn.stat().st_size / 2**20:.0f} MiB | {base:.2f} s "
                     f"| {base_memory / 1024:.0f} MiB | {seconds:.2f} s | {memory / 1024:.0f} MiB "
                     f"| {seconds / base:.2f}× | {spilled} | {whole:.2f} s | {whole_memory / 1024:.0f} MiB |")
        if len(parts) > 1:
            pgn.unlink()
    if peaks:
        lines += ["", f"Peak memory of `build` (`--jobs 2`, `--memory 16`, the defaults) over these inputs: "
                  f"{min(peaks):.0f}-{max(peaks):.0f} MiB (target: bounded by the book, not by the input, and at most "
                  f"~150 MiB with `--jobs 2`: {'met' if max(peaks) <= 150 else 'not met'})."]
    return lines


def _spilled_rows(python: str, pgn: Path, args: argparse.Namespace) -> str:
    """Rows spilled to disk by a build as the CLI's (two processes, the default memory), and the runs left."""
    code = ("import sys; from chessformats.books.build import BookBuilder; "
            "b = BookBuilder(max_ply=int(sys.argv[2]), boards=False); b.add_pgn(sys.argv[1], jobs=2); s = b._store; "
            "print(f'{s.spilled:,} ({len(s)})' if s is not None else 'none'); b.close()")
    import subprocess

    return subprocess.run([python, "-c", code, str(pgn), str(args.max_ply)], check=True, capture_output=True,
                          text=True, env=args.env).stdout.strip()


def write_section(text: str, start: str, end: str) -> None:
    replace_section(f"{start}\n{text}\n{end}", start, end, DOCS)
    print(f"wrote {DOCS}")


if __name__ == "__main__":
    main()
