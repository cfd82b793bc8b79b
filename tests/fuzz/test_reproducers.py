"""Every saved fuzzing failure (``tests/fuzz/corpus/*.json``) replayed: the reader must answer it with a
``FormatError`` or read it, in time and within the memory cap, for good.

A record with ``xfail`` is a known defect of a reader, waiting for its owner: it replays as a strict xfail, so
the fix shows up as an XPASS that asks for the mark to be removed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from conftest import find_corpus

from .reproducers import CORPUS, CorpusChanged, load_all, prepared_for
from .runner import Limits, Pool, scratch_root

RECORDS = load_all(CORPUS)


def _param(path: Path, data: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=data["xfail"])] if data.get("xfail") else []
    return pytest.param(data, id=path.stem, marks=marks)


@pytest.mark.parametrize("data", [_param(path, data) for path, data in RECORDS])
def test_reproducer(data: dict[str, Any]) -> None:
    if "files" not in data:
        find_corpus()  # skips without the corpus (fails in CI, which has it)
    try:
        prepared, case = prepared_for(data)
    except CorpusChanged as exc:
        pytest.fail(str(exc))
    except LookupError as exc:
        if os.environ.get("CHESSFORMATS_REQUIRE_CORPUS") == "1":
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    root = scratch_root()
    seconds = 10.0 if data["failure"]["kind"] == "timeout" else 30.0  # a known hang need not cost more
    pool = Pool(prepared, Limits(seconds=seconds, memory_mb=1024), 1, root)
    try:
        outcome = pool.one(case)
    finally:
        pool.close()
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    assert outcome.status in ("ok", "error"), (
        f"{data['seed']} {data['path']} {data['mutations']}: {outcome.kind}: {outcome.detail} at {outcome.where}")


def test_corpus_records_are_well_formed() -> None:
    """Each record names a seed, a reader path that exists and mutations the harness knows."""
    from . import drivers, mutations

    for path, data in RECORDS:
        assert data["path"] in drivers.PATHS[data["reader"]], path
        assert ("files" in data) != ("sha256" in data), path
        files = {name: b"\0" * 64 for name in (data.get("files") or data["sha256"])}
        mutations.apply(files, data["mutations"])  # raises on an unknown operation
