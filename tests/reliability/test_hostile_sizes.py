"""Hostile sizes: every count, length and size field the declarations have, set to 2**31 - 1.

The fields are found by tracing the declarations over real files (``tests/fuzz/fields.py``: each integer leaf
whose name says it counts or measures: ``entries``, ``records``, ``size``, ``length``, ``count``, ...), not
listed by hand; a field narrower than 32 bits gets its largest value. For each one the damaged file set goes
through the reader paths of the fuzzer (open, probe, every record, every game, entities), under
``tracemalloc``. The fields that size something the reader reads or builds (``ALLOCATING``) must be answered
with a ``FormatError``; the others (statistics, counters the readers only report) may read. Either way the
peak of traced memory stays near a clean read's: nothing is allocated from the hostile value.
"""

from __future__ import annotations

import random
import re
import shutil
import signal
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import pytest

from chessformats import FormatError
from conftest import find_corpus
from fuzz import drivers, fields, mutations, seeds

# seed -> the reader paths run on it
SEEDS = {
    "ctg/PowerPlay17-Sicilienne": ("probe", "pages", "records"),
    "chessbase/libcbh_Annotation": ("open", "games", "entities"),
    "chessbase/morphy_text": ("open", "games", "entities"),
    "chessbase/morphy_linares_old": ("open", "games", "entities"),
    "kvetka/games": ("probe", "elements", "blocks"),
    "archive/twic1134.cbv": ("list", "extract"),
}

ALLOCATING = re.compile(r"^(?:cto:header\.entries|cba:(?:size|entries\[\]\.size)|cbg:(?:word\.size|title_count|"
                        r"titles\[\]\.length|body\.count|body\.texts\[\]\.length|body\.texts\[\]\.formatting_length)|"
                        r"cb[ptcse]:(?:records|record_data_size)|cbj:record_size|kob:caption\.length|"
                        r"ksf:(?:toc\.source_number|.*address\.length|.*games_number|.*white\.length|"
                        r".*black\.length)|cbv:(?:entry_size|compressed_size|size))$")
"""``extension:path`` of the fields that size what a reader reads or builds: a FormatError is required."""

HOSTILE = 2**31 - 1

KNOWN: dict[str, str] = {}
"""Fields whose hostile value a reader does not answer yet: tested by ``test_known_hostile_size`` (strict xfail)."""
FIXED = ("cba:entries[].size",)
"""Fields once in ``KNOWN``, answered now: ``test_known_hostile_size`` keeps them as regression tests."""


def _seed(name: str, tmp_path_factory: pytest.TempPathFactory) -> seeds.Seed:
    if name.startswith("kvetka/"):
        found = seeds.synthetic_seeds(tmp_path_factory.mktemp("seeds"))
    else:
        find_corpus()
        found = seeds.corpus_seeds()
    return next(s for s in found if s.name == name)


def _generic(field: fields.Field) -> str:
    path = re.sub(r"\[\d+\]", "[]", field.path)
    return f"{field.file.rsplit('.', 1)[-1].lower()}:{path}"


def _alarm(signum: int, frame: Any) -> None:
    raise TimeoutError("hostile size: over 120 s")


def _read(folder: Path, seed: seeds.Seed, files: dict[str, bytes], paths: tuple[str, ...],
          focus: dict[str, list[int]]) -> tuple[str, int]:
    """Write ``files``, run ``paths`` (reading around ``focus``); the answer (``ok``, ``FormatError: ...`` or
    another exception) and the peak of traced memory."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    context = drivers.Context(folder, seed.primary, focus, random.Random(0), sum(map(len, files.values())))
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(120)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for path in paths:
                drivers.PATHS[seed.reader][path](context)
        answer = "ok"
    except FormatError as exc:
        answer = f"FormatError: {exc}"
    except Exception as exc:  # reported by the test
        answer = f"{type(exc).__name__}: {exc}"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return answer, peak


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_hostile_sizes(name: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    seed = _seed(name, tmp_path_factory)
    paths = SEEDS[name]
    originals = seed.load()
    clean, clean_peak = _read(tmp_path / "case", seed, originals, paths, {})
    assert clean == "ok", clean
    chosen: dict[str, fields.Field] = {}
    for field in fields.locate(seed.reader, originals):
        if field.kind == "size":
            chosen.setdefault(_generic(field), field)
    assert chosen, "the declarations name no count or length field in this seed"
    problems = []
    required = 0
    for generic, field in sorted(chosen.items()):
        value = min(HOSTILE, (1 << field.width) - 1)
        files = mutations.apply(originals, [field.mutation(value)])
        answer, peak = _read(tmp_path / "case", seed, files, paths, {field.file: [field.start]})
        where = f"{field.file} {field.path} (offset {field.start}) = {value}"
        if peak > 2 * clean_peak + (16 << 20):
            problems.append(f"{where}: peak {peak >> 20} MB (clean read: {clean_peak >> 20} MB)")
        if generic in KNOWN:
            continue
        if ALLOCATING.match(generic):
            required += 1
            if not answer.startswith("FormatError"):
                problems.append(f"{where}: {answer} (a FormatError is required)")
        elif not (answer == "ok" or answer.startswith("FormatError")):
            problems.append(f"{where}: {answer}")
    assert required, "no field that sizes an allocation was found in this seed"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("generic", [*FIXED, *(pytest.param(g, marks=pytest.mark.xfail(strict=True, reason=reason))
                                                for g, reason in sorted(KNOWN.items()))])
def test_known_hostile_size(generic: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    seed = _seed("chessbase/libcbh_Annotation", tmp_path_factory)
    originals = seed.load()
    field = next(f for f in fields.locate(seed.reader, originals) if _generic(f) == generic)
    files = mutations.apply(originals, [field.mutation(min(HOSTILE, (1 << field.width) - 1))])
    answer, _ = _read(tmp_path / "case", seed, files, SEEDS[seed.name], {field.file: [field.start]})
    assert answer.startswith("FormatError"), answer
