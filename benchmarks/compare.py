"""Every benchmark of ``docs/performance.md``, before and after a change, in one run.

    python benchmarks/compare.py --base REV [--repeat N] [--only polyglot,ctg] [--out DIR]

The tree at ``REV`` is checked out as a temporary git worktree; each benchmark script is run with that
tree's script and package (``PYTHONPATH``) and then with the working tree's, alternately, so that both
meet the same machine load. Every output is printed and saved under ``--out`` (``NAME.before.txt``,
``NAME.after.txt``); the lines that carry figures are printed side by side for a quick look.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("polyglot", "monty", "ctg", "chessbase", "kvetka", "build")
_FIGURE = re.compile(r"[\d,]+(?:\.\d+)?\s*(?:/s|s\b|ms\b|µs\b|×|MiB)")


def _run(tree: Path, name: str, repeat: int) -> str:
    script = tree / "benchmarks" / f"bench_{name}.py"
    if not script.exists():
        return f"(no {script.name} in {tree})"
    environment = {**os.environ, "PYTHONPATH": str(tree / "src")}
    result = subprocess.run([sys.executable, str(script), "--repeat", str(repeat)], capture_output=True,
                            text=True, env=environment, cwd=tree)
    return result.stdout + (f"\n(exit status {result.returncode})\n{result.stderr[-2000:]}"
                            if result.returncode else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the revision before the change")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per workload (best is kept)")
    parser.add_argument("--only", help="comma-separated benchmark names (default: all)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "chessformats-compare")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(BENCHMARKS)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chessformats-base-") as folder:
        base = Path(folder) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.base], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            for name in names:
                before = _run(base, name, args.repeat)
                after = _run(ROOT, name, args.repeat)
                (args.out / f"{name}.before.txt").write_text(before)
                (args.out / f"{name}.after.txt").write_text(after)
                print(f"== {name} (before: {args.base}, after: working tree)")
                old = [line for line in before.splitlines() if _FIGURE.search(line)]
                new = [line for line in after.splitlines() if _FIGURE.search(line)]
                for line_before, line_after in zip(old, new, strict=False):
                    print(f"  before: {line_before.strip()}\n  after:  {line_after.strip()}")
                if len(old) != len(new):
                    print(f"  (the outputs differ in shape: see {args.out}/{name}.*.txt)")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    print(f"outputs in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
