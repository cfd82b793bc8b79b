"""``python -m tests.fuzz --minutes N [--seed S]``: fuzz every reader for N minutes (from the repository root).

Failures are shrunk and saved under ``tests/fuzz/corpus/`` (``--no-save``: printed only). ``--stats FILE``
appends the run's counts (per reader and path) to a JSON-lines file, from which ``docs/reliability.md``
reports the totals. ``--atheris`` runs the coverage-guided mode instead (see :mod:`.guided`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

from . import campaign
from .runner import Limits
from .seeds import READERS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to fuzz (default 1)")
    parser.add_argument("--cases", type=int, help="stop after this many cases instead")
    parser.add_argument("--seed", type=int, help="campaign seed (default: random, printed)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per case (default 20)")
    parser.add_argument("--memory", type=int, default=1024, help="MB of address space per case (default 1024)")
    parser.add_argument("--reader", action="append", choices=READERS, help="only these readers (repeatable)")
    parser.add_argument("--no-save", action="store_true", help="do not write reproducers")
    parser.add_argument("--stats", type=Path, help="append the run's counts to this JSON-lines file")
    parser.add_argument("--atheris", action="store_true", help="coverage-guided fuzzing with atheris")
    parser.add_argument("--summarise", type=Path, metavar="FILE", help="print the totals of a --stats file (Markdown)")
    args = parser.parse_args(argv)
    if args.summarise:
        print(summarise(args.summarise))
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    if args.atheris:
        from . import guided

        return guided.main(seed=seed, minutes=args.minutes, readers=args.reader, memory_mb=args.memory,
                           timeout=int(args.timeout), stats=args.stats)
    partial = Path(f"{args.stats}.partial") if args.stats else None

    def checkpoint(report: campaign.Report) -> None:  # the counts so far, should the run be killed
        if partial is not None:
            partial.write_text(json.dumps({"mode": "mutation", **report.summary()}) + "\n")

    report = campaign.run(master=seed, seconds=None if args.cases else args.minutes * 60, cases=args.cases,
                          jobs=args.jobs, limits=Limits(args.timeout, args.memory), readers=args.reader,
                          save=not args.no_save, checkpoint=checkpoint)
    summary = report.summary()
    print(f"fuzz: seed {seed}: {report.cases:,} cases in {report.seconds:,.0f} s, "
          f"{len(report.failures)} failures ({len(report.findings) - len(report.failures)} known), "
          f"{len(report.unconfirmed)} unconfirmed")
    for reader, paths in sorted(report.counts.items()):
        total = {status: sum(p.get(status, 0) for p in paths.values()) for status in ("ok", "error", "failure")}
        print(f"  {reader:10} {sum(total.values()):>9,} cases: {total['ok']:,} read, {total['error']:,} FormatError, "
              f"{total['failure']:,} failures")
    for finding in report.findings:
        saved = f" -> {finding.saved}" if finding.saved else ""
        print(f"  {'known' if finding.known else 'FAILURE'}: {finding.reader}/{finding.case.path} "
              f"{finding.outcome.detail} at {finding.outcome.where}{saved}")
    if args.stats:
        with open(args.stats, "a") as handle:
            handle.write(json.dumps({"mode": "mutation", **summary}) + "\n")
        if partial is not None and partial.exists():
            partial.unlink()
    return 1 if report.failures else 0


def summarise(path: Path) -> str:
    """Markdown tables of the totals of a ``--stats`` file: cases per reader and path, executions per reader."""
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    partial = Path(f"{path}.partial")
    if partial.exists():
        runs.append(json.loads(partial.read_text()))
    cases: dict[tuple[str, str], dict[str, int]] = {}
    guided: dict[str, int] = {}
    seconds = 0.0
    failures = []
    for run in runs:
        if run.get("mode") == "atheris":
            for reader, count in run["executions"].items():
                guided[reader] = guided.get(reader, 0) + count
            continue
        seconds += run.get("seconds", 0.0)
        failures += run.get("failures", [])
        for reader, paths in run["counts"].items():
            for name, statuses in paths.items():
                total = cases.setdefault((reader, name), {})
                for status, count in statuses.items():
                    total[status] = total.get(status, 0) + count
    lines = ["| reader | path | cases | read | FormatError | failures |", "|---|---|---:|---:|---:|---:|"]
    by_reader: dict[str, dict[str, int]] = {}
    for (reader, name), statuses in sorted(cases.items()):
        row = [statuses.get(s, 0) for s in ("ok", "error", "failure")]
        lines.append(f"| {reader} | {name} | {sum(row):,} | {row[0]:,} | {row[1]:,} | {row[2]:,} |")
        for status, count in statuses.items():
            by_reader.setdefault(reader, {})[status] = by_reader.setdefault(reader, {}).get(status, 0) + count
    lines += ["", "| reader | mutation cases | coverage-guided executions | total |", "|---|---:|---:|---:|"]
    grand = 0
    for reader in sorted(set(by_reader) | set(guided)):
        mutated = sum(by_reader.get(reader, {}).values())
        grand += mutated + guided.get(reader, 0)
        lines.append(f"| {reader} | {mutated:,} | {guided.get(reader, 0):,} | {mutated + guided.get(reader, 0):,} |")
    lines.append(f"| **all** | {sum(sum(v.values()) for v in by_reader.values()):,} | {sum(guided.values()):,} | "
                 f"**{grand:,}** |")
    signatures = sorted({f"{f['signature']} (known: {f['known']})" for f in failures})
    lines += ["", f"{len(runs)} runs, {seconds / 3600:.1f} h of mutation fuzzing; failures by signature:"]
    lines += [f"- {s}" for s in signatures] or ["- none"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
