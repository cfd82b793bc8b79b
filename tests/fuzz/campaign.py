"""A fuzzing campaign: cases drawn from a seed, run by the pool, failures confirmed, shrunk and saved."""

from __future__ import annotations

import itertools
import json
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import reproducers
from .runner import Case, Limits, Outcome, Pool, Prepared, scratch_root, shrink
from .seeds import all_seeds


@dataclass
class Finding:
    case: Case
    outcome: Outcome
    reader: str
    saved: Path | None = None
    known: bool = False


@dataclass
class Report:
    master: int
    seconds: float = 0.0
    counts: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    """reader -> path -> status (``ok``, ``error``, ``failure``) -> cases."""
    times: dict[str, float] = field(default_factory=dict)
    """``reader/path`` -> seconds spent in its cases."""
    findings: list[Finding] = field(default_factory=list)
    unconfirmed: list[Finding] = field(default_factory=list)
    """Failures that did not happen again alone (leftovers of earlier cases in the worker)."""

    @property
    def cases(self) -> int:
        return sum(n for paths in self.counts.values() for statuses in paths.values() for n in statuses.values())

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if not f.known]

    def add(self, reader: str, path: str, status: str, seconds: float) -> None:
        statuses = self.counts.setdefault(reader, {}).setdefault(path, {})
        statuses[status] = statuses.get(status, 0) + 1
        self.times[f"{reader}/{path}"] = self.times.get(f"{reader}/{path}", 0.0) + seconds

    def summary(self) -> dict[str, Any]:
        return {
            "seed": self.master,
            "seconds": round(self.seconds, 1),
            "cases": self.cases,
            "counts": self.counts,
            "times": {key: round(value, 1) for key, value in self.times.items()},
            "failures": [{"reader": f.reader, "path": f.case.path, "signature": f.outcome.signature,
                          "detail": f.outcome.detail, "saved": str(f.saved) if f.saved else None, "known": f.known}
                         for f in self.findings],
            "unconfirmed": [{"reader": f.reader, "signature": f.outcome.signature, "detail": f.outcome.detail}
                            for f in self.unconfirmed],
        }


def run(*, master: int, seconds: float | None = None, cases: int | None = None, jobs: int = 2,
        limits: Limits | None = None, readers: Sequence[str] | None = None, save: bool = True,
        cache: Path | None = None, corpus: Path = reproducers.CORPUS,
        log: Callable[[str], None] = print, checkpoint: Callable[[Report], None] | None = None) -> Report:
    """Run cases ``0, 1, 2, ...`` of campaign ``master`` until ``seconds`` pass or ``cases`` have run."""
    limits = limits or Limits()
    root = scratch_root()
    cache = cache or root / "seeds"
    report = Report(master)
    started = time.monotonic()
    try:
        prepared = Prepared.make(all_seeds(str(cache)), readers)
        log(f"fuzz: seed {master}, {len(prepared.seeds)} seeds, {jobs} workers, {limits.seconds:g} s and "
            f"{limits.memory_mb} MB per case" + (f", {seconds:g} s budget" if seconds else "")
            + (f", {cases} cases" if cases else ""))
        known = reproducers.known_signatures(corpus)
        pool = Pool(prepared, limits, jobs, root / "workers")
        deadline = started + seconds if seconds else None

        def numbers() -> Iterator[Case]:
            for number in itertools.count() if cases is None else range(cases):
                if deadline is not None and time.monotonic() > deadline:
                    return
                yield prepared.draw(master, number)

        last_log = time.monotonic()
        seen: set[str] = set()
        try:
            for case, outcome in pool.run(numbers()):
                reader = prepared.seeds[case.seed].reader
                report.add(reader, case.path, outcome.status, outcome.seconds)
                if outcome.status == "failure":
                    _triage(pool, prepared, case, outcome, reader, report, known, seen, save, corpus, log)
                if time.monotonic() - last_log > 60:
                    last_log = time.monotonic()
                    elapsed = last_log - started
                    log(f"fuzz: {report.cases:,} cases in {elapsed:,.0f} s ({report.cases / elapsed:,.0f}/s), "
                        f"{len(report.failures)} failures, {len(report.unconfirmed)} unconfirmed")
                    if checkpoint is not None:
                        report.seconds = elapsed
                        checkpoint(report)
        finally:
            pool.close()
    finally:
        report.seconds = time.monotonic() - started
        shutil.rmtree(root, ignore_errors=True)
    return report


def _triage(pool: Pool, prepared: Prepared, case: Case, outcome: Outcome, reader: str, report: Report,
            known: set[str], seen: set[str], save: bool, corpus: Path, log: Callable[[str], None]) -> None:
    finding = Finding(case, outcome, reader)
    if outcome.signature in known:  # a saved reproducer already stands for it
        finding.known = True
        report.findings.append(finding)
        return
    if outcome.signature in seen:  # confirmed and shrunk earlier in this run
        report.findings.append(finding)
        return
    again = pool.one(case)
    if again.status != "failure" or again.kind != outcome.kind:
        report.unconfirmed.append(finding)
        log(f"fuzz: unconfirmed {outcome.signature} (alone: {again.status} {again.kind}) case {case.number}")
        return
    finding.outcome = again
    signature = again.signature
    if signature in known:
        finding.known = True
        report.findings.append(finding)
        return
    report.findings.append(finding)
    log(f"fuzz: FAILURE {reader}/{case.path} {again.detail} at {again.where} (case {case.number}, "
        f"seed {prepared.seeds[case.seed].name})")
    seen.add(signature)

    def fails(trial: Case) -> bool:
        result = pool.one(trial)
        return result.status == "failure" and result.signature == signature

    small = shrink(case, fails)
    finding.case = small
    seed = prepared.seeds[case.seed]
    data = reproducers.record(seed, prepared.originals[case.seed], small, again,
                              f"seed {report.master}, case {case.number}")
    if save:
        finding.saved = reproducers.save(data, seed, again, corpus)
        log(f"fuzz: saved {finding.saved} ({len(small.mutations)} mutations)")
    else:
        log("fuzz: reproducer " + json.dumps({k: data[k] for k in ("seed", "path", "mutations")}))
