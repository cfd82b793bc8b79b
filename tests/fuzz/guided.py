"""Coverage-guided fuzzing with atheris (libFuzzer for Python): ``python -m tests.fuzz --atheris --minutes N``.

One libFuzzer process per reader: the input is the bytes of the file the reader opens (its companions are the
seed's, unchanged), the starting corpus is the reader's small seeds, and the package is instrumented so that
libFuzzer keeps the inputs that reach new code. Each input goes through the reader's quick paths (the same
drivers as the mutation fuzzer). A failure (an exception outside ``FormatError``, a libFuzzer timeout, a
``MemoryError`` under the address-space cap) leaves a libFuzzer artifact; it is turned back into a case of
the mutation fuzzer (the edits from the seed to the artifact) and confirmed, shrunk and saved like any other.

Coverage guidance pays where the decoders branch a lot on the bytes: ChessBase move streams and annotations,
CTG records, Kvetka elements, Monty plies. When atheris is not installed, this mode says so and fails.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .seeds import READERS, Seed, all_seeds

QUICK_PATHS = {"polyglot": ("open", "lenient"), "ctg": ("probe", "pages", "records"), "kvetka": ("probe", "blocks"),
               "monty": ("read",), "chessbase": ("open", "games", "entities"), "archive": ("list",), "pgn": ("build",)}
"""The drivers an input goes through in guided mode (the quick ones: thousands of inputs a minute)."""

GUIDED_FILE = {"chessbase": ".cbg"}
"""The file the input stands for, when not the one the reader opens (a database's game data)."""

SMALL = 20_000
"""Bytes: the seeds whose primary file is at most this long start the guided corpus (libFuzzer's ``-max_len``)."""


def _seeds(reader: str, cache: str) -> list[Seed]:
    chosen = [s for s in all_seeds(cache) if s.reader == reader and _fuzzed(s) in s.sources]
    small = [s for s in chosen if s.sources[_fuzzed(s)].stat().st_size <= SMALL]
    return sorted(small or chosen[:1], key=lambda s: s.sources[_fuzzed(s)].stat().st_size)


def _fuzzed(seed: Seed) -> str:
    """The name of the seed's file the input stands for."""
    extension = GUIDED_FILE.get(seed.reader)
    return seed.primary if extension is None else seed.primary.rsplit(".", 1)[0] + extension


def edits(original: bytes, changed: bytes, name: str) -> list[list[Any]]:
    """Mutations (see :mod:`.mutations`) that turn ``original`` into ``changed``, from the end backwards so
    that each offset is still the original's."""
    out: list[list[Any]] = []
    matcher = difflib.SequenceMatcher(None, original, changed, autojunk=False)
    for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
        if tag in ("replace", "delete"):
            out.append(["delete", name, i1, i2 - i1])
        if tag in ("replace", "insert"):
            out.append(["insert", name, i1, changed[j1:j2].hex()])
    if len(changed) == 0:
        return [["truncate", name, 0]]
    return out


def _runner(reader: str, cache: str, folder: str) -> Any:  # pragma: no cover - runs in the fuzzed process
    """The function libFuzzer calls with each input (also used to replay an artifact alone): the reader's quick
    paths on the input, under the address-space cap. Everything it chooses comes from the input's bytes, so
    an input replays the same way."""
    import logging
    import random
    import shutil
    import warnings
    import zlib

    from chessformats import FormatError

    from . import drivers

    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    seeds = _seeds(reader, cache)
    originals = {s.name: s.load() for s in seeds}
    case = Path(folder) / "case"
    case.mkdir(parents=True, exist_ok=True)
    cap = int(os.environ.get("FUZZ_MEMORY_MB", "1024")) << 20
    with open("/proc/self/status") as status:
        size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (size + cap, size + cap))

    def one(data: bytes) -> None:
        # the input's first byte picks the seed whose companions it is read with, the rest is the file
        seed = seeds[data[0] % len(seeds)] if data else seeds[0]
        files = dict(originals[seed.name])
        files[_fuzzed(seed)] = data[1:]
        for entry in case.iterdir():
            if entry.is_dir():
                shutil.rmtree(entry)
            elif entry.name not in files:
                entry.unlink()
        for name, content in files.items():
            (case / name).write_bytes(content)
        spots = {_fuzzed(seed): [0, max(len(data) - 2, 0)]}
        context = drivers.Context(case, seed.primary, spots, random.Random(zlib.crc32(data)), len(data))
        for path in QUICK_PATHS[reader]:
            try:
                drivers.PATHS[reader][path](context)
            except FormatError:
                pass

    return one


def target(reader: str, cache: str, folder: str) -> None:  # pragma: no cover - runs under libFuzzer
    """The libFuzzer process of one reader (``python -m tests.fuzz.guided READER CACHE FOLDER -- flags``)."""
    import atheris

    with atheris.instrument_imports(include=["chessformats"]):
        import chessformats  # noqa: F401
        from chessformats import FormatError, chessbase, ctg, kvetka, monty, polyglot  # noqa: F401
        from chessformats.books import build  # noqa: F401

    atheris.Setup([sys.argv[0], *sys.argv[4:]], _runner(reader, cache, folder))
    atheris.Fuzz()


def replay(reader: str, cache: str, folder: str, artifact: str) -> None:  # pragma: no cover - a subprocess
    """Run one input as libFuzzer ran it, in a fresh process without libFuzzer: an exception other than a
    ``FormatError`` (``MemoryError`` included) propagates and the process exits with status 1."""
    _runner(reader, cache, folder)(Path(artifact).read_bytes())


def _corpus(reader: str, cache: str, folder: Path) -> Path:
    corpus = folder / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for index, seed in enumerate(_seeds(reader, cache)):
        (corpus / f"seed{index}").write_bytes(bytes([index]) + seed.sources[_fuzzed(seed)].read_bytes())
    return corpus


def main(*, seed: int, minutes: float, readers: Sequence[str] | None = None, memory_mb: int = 1024,
         timeout: int = 20, stats: Path | None = None) -> int:
    """Fuzz each reader for ``minutes`` / readers with libFuzzer; triage the artifacts; print the counts."""
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("fuzz: atheris is not installed (pip install atheris): no coverage-guided mode here")
        return 2
    _, failures = run(seed=seed, minutes=minutes, readers=readers, memory_mb=memory_mb, timeout=timeout,
                      stats=stats)
    return 1 if failures else 0


def run(*, seed: int, minutes: float, readers: Sequence[str] | None = None, memory_mb: int = 1024,
        timeout: int = 20, stats: Path | None = None) -> tuple[dict[str, int], int]:
    """The guided runs: executions per reader, and failures (each triaged: confirmed, shrunk, saved)."""
    import shutil

    from . import campaign
    from .runner import Limits, Pool, Prepared, scratch_root

    root = scratch_root()
    cache = str(root / "seeds")
    chosen = list(readers or READERS)
    seconds = max(10, int(minutes * 60 / len(chosen)))
    counts: dict[str, int] = {}
    failures = 0
    jobs = max(1, min(len(chosen), os.cpu_count() or 1))
    for wave in range(0, len(chosen), jobs):  # a process per reader (libFuzzer's loop: one core), side by side
        launched = [_launch(reader, root, cache, seed, seconds, timeout, memory_mb)
                    for reader in chosen[wave:wave + jobs]]
        for reader, artifacts, process, errors, started in launched:
            returncode = process.wait()
            errors.seek(0)
            stderr = errors.read()
            errors.close()
            runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", stderr)
            counts[reader] = int(runs.group(1)) if runs else 0
            print(f"fuzz: atheris {reader}: {counts[reader]:,} executions in {time.monotonic() - started:,.0f} s"
                  + ("" if returncode == 0 else f", exit status {returncode}"))
            found = sorted(artifacts.iterdir())
            if returncode != 0 and not found:
                print(stderr[-3000:])
                failures += 1
            if found:
                print(_report(stderr))
            for artifact in found:
                failures += _triage(reader, cache, artifact, Pool, Prepared, Limits(float(timeout), memory_mb), root,
                                    campaign, timeout, memory_mb)
    if stats is not None:
        with open(stats, "a") as handle:
            handle.write(json.dumps({"mode": "atheris", "seed": seed, "executions": counts}) + "\n")
    print(f"fuzz: atheris seed {seed}: {sum(counts.values()):,} executions, {failures} failures")
    shutil.rmtree(root, ignore_errors=True)
    return counts, failures


def _launch(reader: str, root: Path, cache: str, seed: int, seconds: int, timeout: int,
            memory_mb: int) -> tuple[str, Path, subprocess.Popen[str], Any, float]:
    """One reader's libFuzzer process, started: its stderr goes to a file (read when it ends)."""
    folder = Path(tempfile.mkdtemp(prefix=f"{reader}-", dir=root))
    corpus = _corpus(reader, cache, folder)
    artifacts = folder / "artifacts"
    artifacts.mkdir()
    # -rss_limit_mb=0: libFuzzer's RSS check reads getrusage's ru_maxrss, which Linux carries over exec from the
    # launching process (a pytest process that peaked at 2 GB made every input an "out-of-memory" within a
    # second); the memory cap is the RLIMIT_AS the target sets itself (a MemoryError)
    command = [sys.executable, "-m", "tests.fuzz.guided", reader, cache, str(folder / "work"),
               f"-seed={seed % (1 << 31)}", f"-max_total_time={seconds}", f"-timeout={timeout}",
               "-rss_limit_mb=0", f"-max_len={SMALL}", f"-artifact_prefix={artifacts}/",
               "-print_final_stats=1", "-close_fd_mask=3", str(corpus)]
    errors = open(folder / "stderr.txt", "w+")  # closed by run(), once the process ends
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, text=True,
                               env={**os.environ, "FUZZ_MEMORY_MB": str(memory_mb)},
                               cwd=Path(__file__).resolve().parents[2])
    return reader, artifacts, process, errors, time.monotonic()


def _report(stderr: str) -> str:
    """libFuzzer's account of what went wrong: from its first error line (or the Python traceback) on."""
    lines = stderr.splitlines()
    first = next((n for n, line in enumerate(lines)
                  if "ERROR: libFuzzer" in line or "Uncaught Python exception" in line or "Traceback" in line),
                 max(len(lines) - 30, 0))
    return "\n".join("  | " + line for line in lines[first:first + 40])


def _triage(reader: str, cache: str, artifact: Path, pool_class: Any, prepared_class: Any, limits: Any,
            root: Path, campaign: Any, timeout: int, memory_mb: int) -> int:
    """A libFuzzer artifact confirmed or not: re-run as a mutation case (confirmed, shrunk and saved), else
    replayed alone the way libFuzzer ran it, in a fresh process (confirmed: kept under the temporary folder,
    and its traceback printed). A failure neither confirms (a limit reached only after thousands of inputs
    in one process, say) is reported and not counted: 1 for a confirmed failure, else 0."""
    import shutil

    from .runner import Case

    data = artifact.read_bytes()
    seeds = _seeds(reader, cache)
    seed = seeds[data[0] % len(seeds)] if data else seeds[0]
    prepared = prepared_class.make([seed])
    original = prepared.originals[seed.name][_fuzzed(seed)]
    mutations = edits(original, data[1:], _fuzzed(seed))
    pool = pool_class(prepared, limits, 1, root / "triage")
    report = campaign.Report(0)
    for path in QUICK_PATHS[reader]:
        case = Case(0, seed.name, path, mutations)
        outcome = pool.one(case)
        if outcome.status == "failure":
            campaign._triage(pool, prepared, case, outcome, reader, report, set(), set(), True,
                             campaign.reproducers.CORPUS, print)
            return 1
    command = [sys.executable, "-m", "tests.fuzz.guided", "--replay", reader, cache, str(root / "replay"),
               str(artifact)]
    try:
        replayed = subprocess.run(command, capture_output=True, text=True, timeout=timeout * 2,
                                  env={**os.environ, "FUZZ_MEMORY_MB": str(memory_mb)},
                                  cwd=Path(__file__).resolve().parents[2])
        failed, detail = replayed.returncode != 0, replayed.stderr
    except subprocess.TimeoutExpired:
        failed, detail = True, f"over {timeout * 2} s"
    if failed:
        kept = Path(tempfile.gettempdir()) / "chessformats-fuzz-artifacts"
        kept.mkdir(exist_ok=True)
        shutil.copy(artifact, kept / f"{reader}-{artifact.name}")
        print(f"fuzz: {artifact.name} ({reader}) fails again alone; kept as {kept / f'{reader}-{artifact.name}'} "
              f"(python -m tests.fuzz.guided --replay {reader} CACHE FOLDER FILE)\n{_report(detail)}")
        return 1
    print(f"fuzz: {artifact.name} ({reader}) unconfirmed: neither as a mutation case nor alone in a fresh "
          "process does the input fail; not counted")
    return 0


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1] == "--replay":
        replay(*sys.argv[2:6])
    else:
        target(sys.argv[1], sys.argv[2], sys.argv[3])
