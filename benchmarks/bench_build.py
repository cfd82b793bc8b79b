"""Book building speed: `chessformats build` against `polyglot make-book`, in one run, same PGN and options.

    python benchmarks/bench_build.py [--pgn FILE] [--polyglot BIN] [--repeat N] [--write-docs]

Every contender runs as its own process (wall time from start to exit, best of N runs; peak memory is
the process's maximum resident set size from ``wait4``). The outputs are compared byte for byte with
polyglot's before anything is reported. For reference, a naive python-chess build (``read_game`` +
``zobrist_hash`` per ply) is timed once.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import chess

from perfdoc import replace_section
from processes import best, compiled_env, find_polyglot, run

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "performance.md"
START, END = "<!-- book-build:start -->", "<!-- book-build:end -->"
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
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--max-ply", type=int, default=30)
    parser.add_argument("--copies", default="10,30",
                        help="also time files of these many copies of the PGN (comma-separated; larger inputs)")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    polyglot = find_polyglot(args.polyglot)
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        args.env = compiled_env(str(out / "bytecode"))
        imports = best([python, "-c", "import chessformats.cli, chessformats.books.build"], args.repeat, args.env)
        naive = run([python, "-c", NAIVE, args.pgn], args.env)
        games = Path(args.pgn).read_text(encoding="utf-8", errors="replace").count("[Result ")
        lines = [
            "## Book building (`chessformats build` vs `polyglot make-book`)",
            "",
            f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
            f"load average at start {os.getloadavg()[0]:.2f}; CPython {platform.python_version()}; "
            f"python-chess {chess.__version__}",
            f"- input: `{Path(args.pgn).name}` ({games:,} games), `-max-ply {args.max_ply}`, other options default; "
            "every book checked byte-identical to polyglot's before timing is reported",
            f"- wall time of the whole process, best of {args.repeat} runs (bytecode compiled beforehand, as after "
            f"`pip install`); Python's start-up and imports alone "
            f"take {imports[0]:.2f} s of each chessformats run",
            "",
        ]
        lines += table(polyglot, python, Path(args.pgn), out, args, naive)
        text = Path(args.pgn).read_text(encoding="utf-8", errors="replace")
        for copies in (int(part) for part in args.copies.split(",") if int(part) > 1):
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
    text = "\n".join(lines)
    print(text)
    if args.write_docs:
        write_section(text)


def table(polyglot: str, python: str, pgn: Path, out: Path, args: argparse.Namespace,
          naive: tuple[float, int] | None) -> list[str]:
    ply = str(args.max_ply)
    contenders = {
        "polyglot make-book (C)": [polyglot, "make-book", "-pgn", str(pgn), "-bin", str(out / "polyglot.bin"),
                                   "-max-ply", ply],
        "chessformats build, 1 process": [python, "-m", "chessformats.cli", "build", str(pgn), "-o",
                                          str(out / "one.bin"), "--max-ply", ply, "--jobs", "1"],
        "chessformats build, 2 processes": [python, "-m", "chessformats.cli", "build", str(pgn), "-o",
                                            str(out / "two.bin"), "--max-ply", ply, "--jobs", "2"],
    }
    results = {name: best(command, args.repeat, args.env) for name, command in contenders.items()}
    expected = (out / "polyglot.bin").read_bytes()
    for name in ("one.bin", "two.bin"):
        if (out / name).read_bytes() != expected:
            raise SystemExit(f"{name} differs from polyglot's book for {pgn.name}: not reporting timings")
    base = results["polyglot make-book (C)"][0]
    rows = [(name, seconds, memory, seconds / base) for name, (seconds, memory) in results.items()]
    if naive is not None:
        rows.append(("naive python-chess (read_game + zobrist_hash), once", naive[0], naive[1], naive[0] / base))
    lines = ["| program | wall time | peak memory | × polyglot |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | {seconds:.3f} s | {memory / 1024:.0f} MiB | {ratio:.2f}× |"
              for name, seconds, memory, ratio in rows]
    one = results["chessformats build, 1 process"][0] / base
    two = results["chessformats build, 2 processes"][0] / base
    memory = results["chessformats build, 2 processes"][1] / 1024
    verdict = {True: "met", False: "not met"}
    lines += ["", f"Target (issue 15): at least as fast as polyglot at every input size. One process: {one:.2f}× "
                  f"({verdict[one <= 1]}); two processes: {two:.2f}× ({verdict[two <= 1]}). Peak memory with two "
                  f"processes: {memory:.0f} MiB (target at ×30: at most ~150 MiB; "
                  f"{verdict[memory <= 150]} at this size)."]
    return lines


def write_section(text: str) -> None:
    replace_section(f"{START}\n{text}\n{END}", START, END, DOCS)
    print(f"wrote {DOCS}")


if __name__ == "__main__":
    main()
