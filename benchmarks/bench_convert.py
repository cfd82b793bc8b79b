#!/usr/bin/env python3
"""Book conversions through the model, as whole ``chessformats convert`` processes: Polyglot -> CTG of the
gnuchess book, and that CTG book -> Polyglot (issue 25, item 10).

    python benchmarks/bench_convert.py [--book BOOK.bin] [--base OTHER/src] [--repeat N] [--write-docs]

``--book``: the gnuchess book (default ``/usr/share/games/gnuchess/book.bin``, from Debian's ``gnuchess-book``
package: 2,885,728 bytes, 180,358 entries; not in the corpus). ``--base``: the ``src`` folder of another tree
(say, the main branch's) to time beside this one, the two run in turn (A B A B ...) on the same inputs: both
convert this tree's CTG book back. The figure is CPU time (user + system, of the process: the machine is
shared), the median of ``--repeat`` runs (default 3), with the wall time and the peak resident memory (GNU
``time``). With ``--write-docs`` the section between the ``convert-bench`` markers of ``docs/performance.md``
is regenerated.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perfdoc import replace_section
from processes import Timing, measure

REPO = Path(__file__).resolve().parent.parent
START_MARKER = "<!-- convert-bench:start -->"
END_MARKER = "<!-- convert-bench:end -->"
DEFAULT_BOOK = Path("/usr/share/games/gnuchess/book.bin")
STEPS = ("polyglot -> ctg", "ctg -> polyglot")


def command(src: Path, source: Path, target: Path) -> tuple[list[str], dict[str, str]]:
    """``chessformats convert SOURCE -o TARGET --force`` run from the tree ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    return [sys.executable, "-m", "chessformats.cli", "convert", str(source), "-o", str(target), "--force"], env


def median(timings: list[Timing]) -> dict[str, float]:
    return {"cpu": statistics.median(t.cpu for t in timings), "wall": statistics.median(t.wall for t in timings),
            "peak": max(t.peak for t in timings) / 1024}


def measure_trees(book: Path, trees: dict[str, Path], repeat: int, folder: Path) -> dict[str, dict[str, Any]]:
    """Per conversion and tree: median CPU and wall seconds, peak MiB."""
    ctg_book = folder / "gnuchess.ctg"
    runs: dict[str, dict[str, list[Timing]]] = {step: {name: [] for name in trees} for step in STEPS}
    for _ in range(repeat):
        for name, src in trees.items():  # in turn: a drift of the machine's speed touches both
            runs["polyglot -> ctg"][name].append(measure(*command(src, book, folder / f"{name}.ctg")))
        if not ctg_book.exists():  # every tree converts the same CTG back: this tree's
            for suffix in (".ctg", ".cto", ".ctb"):
                (folder / f"this{suffix}").rename(ctg_book.with_suffix(suffix))
        for name, src in trees.items():
            runs["ctg -> polyglot"][name].append(measure(*command(src, ctg_book, folder / f"{name}.bin")))
    return {step: {name: median(timings) for name, timings in by_tree.items()} for step, by_tree in runs.items()}


def section(result: dict[str, dict[str, Any]], book: Path, repeat: int, load: tuple[float, float]) -> str:
    lines = [START_MARKER, "## Book conversions (`chessformats convert`, issue 25)", "",
             f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores shared with "
             f"other work (load average {load[0]:.2f} at start, {load[1]:.2f} at the end); CPython "
             f"{platform.python_version()}",
             f"- input: the gnuchess book (`{book.name}`, Debian's `gnuchess-book`, {book.stat().st_size:,} bytes); "
             "the CTG converted back is the one this tree wrote",
             f"- whole processes (start-up included), median of {repeat} runs, the trees in turn; CPU time is "
             "user + system (the figure: the machine is shared), peak resident memory from GNU `time`", "",
             "| conversion | tree | CPU time | wall time | peak memory | × base |",
             "|---|---|---:|---:|---:|---:|"]
    for step, by_tree in result.items():
        base = by_tree.get("base")
        for name, figures in by_tree.items():
            ratio = f"{figures['cpu'] / base['cpu']:.2f}×" if base else ""
            lines.append(f"| {step} | {name} | {figures['cpu']:.1f} s | {figures['wall']:.1f} s | "
                         f"{figures['peak']:.0f} MiB | {ratio} |")
    lines += ["", "When filed: Polyglot -> CTG of the gnuchess book 30 s, CTG -> Polyglot of an 8.4 MB CTG book "
              "43 s (wall). Target (issue): a tenth of that.", END_MARKER]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--book", type=Path, default=DEFAULT_BOOK)
    parser.add_argument("--base", type=Path, help="another tree's src folder, timed beside this one")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    if not args.book.exists():
        print(f"{args.book}: no such book (give --book)", file=sys.stderr)
        return 2
    trees = {"this": REPO / "src", **({"base": args.base} if args.base else {})}
    start_load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        result = measure_trees(args.book, trees, args.repeat, Path(folder))
    text = section(result, args.book, args.repeat, (start_load, os.getloadavg()[0]))
    print(text)
    if args.write_docs:
        replace_section(text, START_MARKER, END_MARKER)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
