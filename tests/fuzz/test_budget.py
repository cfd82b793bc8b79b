"""The fuzzer in every test run, for a fixed budget (60 s on two workers, then 10 s coverage-guided for each of two
readers, side by side): a new failure fails the test.

The campaign seed is fixed (``SEED``), so that every run draws the same cases in the same order (case ``n`` of a
seed is always the same input; a faster machine gets further down the list in the budget) and a run fails only
because the code changed; ``CHESSFORMATS_FUZZ_SEED`` overrides it. The seed is printed, and
``python -m tests.fuzz --seed SEED`` draws the same cases again. Random seeds are for the long runs,
``python -m tests.fuzz`` (which draws one and prints it). Failures already saved under ``tests/fuzz/corpus/``
(known defects, replayed by ``test_reproducers.py``) do not fail this test; a new one is shrunk and saved there,
ready to commit.
"""

from __future__ import annotations

import os

import pytest

from conftest import find_corpus

from . import campaign
from .runner import Limits

BUDGET = float(os.environ.get("CHESSFORMATS_FUZZ_SECONDS", "60"))
SEED = int(os.environ.get("CHESSFORMATS_FUZZ_SEED") or 24)  # issue 24: a fixed seed for the test runs


@pytest.mark.slow
def test_fuzz_budget() -> None:
    find_corpus("polyglot")
    seed = SEED
    print(f"fuzz seed {seed} (python -m tests.fuzz --seed {seed})")
    report = campaign.run(master=seed, seconds=BUDGET, jobs=2, limits=Limits(seconds=30.0, memory_mb=1024))
    print(f"fuzz: {report.cases} cases in {report.seconds:.0f} s, "
          f"{len(report.findings) - len(report.failures)} known failures")
    assert report.cases > 0
    assert {reader for reader in report.counts} >= {"polyglot", "ctg", "monty", "chessbase", "kvetka", "pgn"}
    assert not report.failures, "\n".join(
        f"seed {seed} case {f.case.number}: {f.reader}/{f.case.path} {f.outcome.detail} at {f.outcome.where}"
        + (f" (saved {f.saved})" if f.saved else "") for f in report.failures)


@pytest.mark.slow
def test_guided_budget() -> None:
    """The coverage-guided mode for 10 s a reader, the two side by side (Kvetka and CTG: cheap inputs, many
    branches), where atheris installs."""
    pytest.importorskip("atheris")
    find_corpus("ctg")
    from . import guided

    seed = SEED
    print(f"fuzz seed {seed} (python -m tests.fuzz --atheris --seed {seed})")
    counts, failures = guided.run(seed=seed, minutes=20 / 60, readers=["kvetka", "ctg"], timeout=30)
    assert counts["kvetka"] > 0 and counts["ctg"] > 0
    assert failures == 0
