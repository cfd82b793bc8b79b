"""Running cases: forked workers under a time limit and an address-space cap, attribution, shrinking.

A case is (seed, reader path, mutations). Workers are forked from the parent after everything is imported
and the seeds are loaded; each sets ``RLIMIT_AS`` to its own size plus the cap, runs many cases in turn
(each under ``SIGALRM``), and reports every case's start and outcome through a pipe. The parent keeps a
watchdog: a worker that stays on one case past twice its limit is killed (a hang in C code) and one that
dies (a crash) has its case attributed to it from the start message. Every failure is then re-run alone in
a fresh worker to confirm it (a ``MemoryError`` that needs the leftovers of earlier cases is not a finding),
and a confirmed one is shrunk: mutations are dropped and chunks shortened while it still fails the same way.

Outcomes: ``ok`` (the reader read it), ``error`` (a :class:`chessformats.FormatError`: the expected answer to
bad input), or ``failure`` of kind ``exception`` (anything else), ``timeout``, ``memory`` (``MemoryError``
under the cap), ``crash`` (the worker died) or ``leak`` (a file of the case still open or mapped after the
reader was closed and the garbage collected).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import random
import resource
import shutil
import signal
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from chessformats import FormatError

from . import drivers, fields, mutations
from .seeds import Seed

_PACKAGE = f"{os.sep}chessformats{os.sep}"
_CONTEXT = multiprocessing.get_context("fork")


READER_WEIGHTS = {"pgn": 0.5}
"""How often a reader is drawn, relative to 1: book building from games costs several times a binary reader's
case (python-chess replays the games) and has the fewest branches on the bytes."""


@dataclass(frozen=True)
class Case:
    number: int
    seed: str
    path: str
    mutations: list[Any]


@dataclass
class Outcome:
    status: str
    """``ok``, ``error`` (a FormatError) or ``failure``."""
    kind: str = ""
    """For a failure: ``exception``, ``timeout``, ``memory``, ``crash`` or ``leak``."""
    detail: str = ""
    where: str = ""
    """The innermost frame in the package (``formats/ctg.py:_page``), for a failure's signature."""
    seconds: float = 0.0

    @property
    def signature(self) -> str:
        return f"{self.kind}:{self.detail.split(':', 1)[0]}:{self.where}"


class CaseTimeout(BaseException):
    """Raised by the alarm in a case that runs past its limit (not an Exception: nothing swallows it)."""


@dataclass
class Limits:
    seconds: float = 20.0
    memory_mb: int = 1024
    """Address space a worker may take above its own size at the start (``RLIMIT_AS``)."""


@dataclass
class Prepared:
    """Everything a worker needs, made in the parent before forking: seeds, their bytes, their fields."""

    seeds: dict[str, Seed]
    originals: dict[str, dict[str, bytes]]
    generators: dict[str, mutations.Generator]
    sizes: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.sizes = {name: sum(map(len, files.values())) for name, files in self.originals.items()}

    @classmethod
    def make(cls, seeds: Sequence[Seed], readers: Sequence[str] | None = None) -> Prepared:
        drivers.preload()
        chosen = [s for s in seeds if readers is None or s.reader in readers]
        originals = {s.name: s.load() for s in chosen}
        generators = {s.name: mutations.Generator(originals[s.name], s.primary, s.reader,
                                                  fields.locate(s.reader, originals[s.name])) for s in chosen}
        return cls({s.name: s for s in chosen}, originals, generators)

    def draw(self, master: int, number: int) -> Case:
        """Case ``number`` of the campaign with seed ``master`` (the same case every time)."""
        rng = random.Random(f"{master}/{number}")
        readers = sorted({s.reader for s in self.seeds.values()})
        reader = rng.choices(readers, [READER_WEIGHTS.get(r, 1.0) for r in readers])[0]
        seed = rng.choice(sorted(n for n, s in self.seeds.items() if s.reader == reader))
        paths = sorted(drivers.PATHS[reader])
        path = rng.choices(paths, [drivers.WEIGHTS.get(p, 1.0) for p in paths])[0]
        return Case(number, seed, path, self.generators[seed].draw(rng))


# --- one case ------------------------------------------------------------------------------------------

class Workspace:
    """A worker's folder: the files of the case being run (rewritten only when they change)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / "case"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.current: dict[str, bytes] = {}

    def materialise(self, files: dict[str, bytes]) -> None:
        for entry in os.scandir(self.folder):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            elif entry.name not in files:
                os.unlink(entry.path)
                self.current.pop(entry.name, None)
        for name, data in files.items():
            if self.current.get(name) is not data and self.current.get(name) != data:
                (self.folder / name).write_bytes(data)
                self.current[name] = data


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if _PACKAGE in frame.filename:
            tail = frame.filename.split(_PACKAGE, 1)[1]
            return f"{tail}:{frame.name}"
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].name}" if frames else ""


def _held(folder: str) -> list[str]:
    """Files under ``folder`` this process still has open or mapped."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(folder):
            held.append(target)
    with open("/proc/self/maps") as maps:
        held += [line.split(None, 5)[-1].strip() for line in maps if folder in line]
    return held


def _alarm(signum: int, frame: Any) -> None:
    raise CaseTimeout()


def execute(prepared: Prepared, case: Case, workspace: Workspace, limits: Limits) -> Outcome:
    """Run one case in this process (under the alarm); classify what happened."""
    seed = prepared.seeds[case.seed]
    files = mutations.apply(prepared.originals[case.seed], case.mutations)
    if seed.primary not in files:  # mutations never remove the file the reader opens; keep it that way
        files[seed.primary] = b""
    workspace.materialise(files)
    context = drivers.Context(workspace.folder, seed.primary, mutations.focus(case.mutations, files),
                              random.Random(case.number), prepared.sizes[case.seed])
    run = drivers.PATHS[seed.reader][case.path]
    started = time.perf_counter()
    outcome = _call(run, context, limits.seconds)
    outcome.seconds = time.perf_counter() - started
    if outcome.status != "failure":
        held = _held(str(workspace.folder))
        if held:
            gc.collect()
            held = _held(str(workspace.folder))
        if held:
            outcome = Outcome("failure", "leak", f"still open or mapped: {sorted(set(held))[:3]}", "", outcome.seconds)
    return outcome


def _call(run: Callable[[drivers.Context], None], context: drivers.Context, seconds: float) -> Outcome:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run(context)
        return Outcome("ok")
    except FormatError:
        return Outcome("error")
    except CaseTimeout as exc:
        return Outcome("failure", "timeout", f"CaseTimeout: over {seconds} s", _where(exc))
    except MemoryError as exc:
        return Outcome("failure", "memory", f"MemoryError: {exc}", _where(exc))
    except BaseException as exc:  # anything else is a finding, KeyboardInterrupt included (see the runner)
        if isinstance(exc, KeyboardInterrupt):
            raise
        lines = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return Outcome("failure", "exception", lines[:500], _where(exc))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- workers ---------------------------------------------------------------------------------------------

def _address_space() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _worker(prepared: Prepared, conn: Connection, root: str, limits: Limits) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.disable(logging.CRITICAL)  # python-chess logs illegal SAN; the outcome says what happened
    cap = _address_space() + limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    workspace = Workspace(Path(root))
    while True:
        try:
            batch = conn.recv()
        except EOFError:
            return
        if batch is None:
            return
        for case in batch:
            conn.send(("start", case.number))
            outcome = execute(prepared, case, workspace, limits)
            conn.send(("done", case.number, asdict(outcome)))
            if outcome.kind == "memory":  # a heap that hit the cap is no place for the next case
                conn.send(("exit", case.number))
                return
        conn.send(("batch", None))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    root: str
    batch: list[Case] = field(default_factory=list)
    current: int | None = None
    started: float = 0.0
    ran: int = 0


class Pool:
    """``jobs`` forked workers; :meth:`run` feeds them cases and yields ``(case, outcome)``."""

    def __init__(self, prepared: Prepared, limits: Limits, jobs: int, root: Path, recycle: int = 400) -> None:
        self.prepared = prepared
        self.limits = limits
        self.jobs = jobs
        self.root = root
        self.recycle = recycle
        self.workers: list[_Worker] = []
        self.spawned = 0

    def _spawn(self) -> _Worker:
        parent, child = _CONTEXT.Pipe()
        self.spawned += 1
        self.root.mkdir(parents=True, exist_ok=True)
        root = tempfile.mkdtemp(prefix="w", dir=self.root)
        process = _CONTEXT.Process(target=_worker, args=(self.prepared, child, root, self.limits), daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent, root)

    def _retire(self, worker: _Worker, *, kill: bool = False) -> None:
        if kill and worker.process.is_alive():
            os.kill(worker.process.pid, signal.SIGKILL)
        else:
            try:
                worker.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        worker.process.join(5)
        if worker.process.is_alive():
            os.kill(worker.process.pid, signal.SIGKILL)
            worker.process.join()
        worker.conn.close()
        shutil.rmtree(worker.root, ignore_errors=True)

    def close(self) -> None:
        for worker in self.workers:
            self._retire(worker)
        self.workers = []

    def run(self, cases: Iterator[Case], *, batch: int = 16) -> Iterator[tuple[Case, Outcome]]:
        pending: list[Case] = []
        exhausted = False

        def take(count: int) -> list[Case]:
            nonlocal exhausted
            out = pending[:count]
            del pending[:count]
            while len(out) < count and not exhausted:
                try:
                    out.append(next(cases))
                except StopIteration:
                    exhausted = True
            return out

        def feed(worker: _Worker) -> bool:
            work = take(batch)
            if not work:
                return False
            worker.batch = work
            worker.conn.send(work)
            return True

        def restart(worker: _Worker, *, kill: bool) -> None:
            pending[:0] = worker.batch
            self._retire(worker, kill=kill)
            fresh = self._spawn()
            self.workers[self.workers.index(worker)] = fresh
            busy.remove(worker)
            if feed(fresh):
                busy.append(fresh)

        def take_current(worker: _Worker) -> Case:
            case = next(c for c in worker.batch if c.number == worker.current)
            worker.batch.remove(case)
            worker.current = None
            return case

        while len(self.workers) < self.jobs:
            self.workers.append(self._spawn())
        busy = [w for w in self.workers if feed(w)]
        while busy:
            ready = wait([w.conn for w in busy], timeout=1.0)
            now = time.monotonic()
            for worker in list(busy):
                if worker.conn in ready:
                    try:
                        message = worker.conn.recv()
                    except (EOFError, OSError):
                        message = ("died",)
                    kind = message[0]
                    if kind == "start":
                        worker.current, worker.started = message[1], now
                    elif kind == "done":
                        case = take_current(worker)
                        worker.ran += 1
                        yield case, Outcome(**message[2])
                    elif kind == "batch":
                        if worker.ran >= self.recycle:
                            restart(worker, kill=False)
                        elif not feed(worker):
                            busy.remove(worker)
                    elif kind == "exit":
                        restart(worker, kill=False)
                    else:  # the worker died: its current case crashed it
                        worker.process.join(1)
                        if worker.current is not None:
                            case = take_current(worker)
                            yield case, Outcome("failure", "crash",
                                                f"Crash: worker exit status {worker.process.exitcode}", "")
                        restart(worker, kill=True)
                elif worker.current is not None and now - worker.started > 2 * self.limits.seconds + 5:
                    seconds = now - worker.started
                    case = take_current(worker)
                    yield case, Outcome("failure", "timeout", f"Hang: killed after {seconds:.0f} s", "", seconds)
                    restart(worker, kill=True)

    def one(self, case: Case) -> Outcome:
        """Run a single case alone in a fresh worker (to confirm or shrink a failure)."""
        single = Pool(self.prepared, self.limits, 1, self.root, recycle=1)
        try:
            for _, outcome in single.run(iter([case]), batch=1):
                return outcome
        finally:
            single.close()
        raise AssertionError("no outcome")


# --- shrinking ---------------------------------------------------------------------------------------------

_LENGTH_ARGUMENT = {"delete": 3, "duplicate": 3, "splice": 4, "crop": 3}


def shrink(case: Case, fails: Callable[[Case], bool], *, budget: int = 60) -> Case:
    """A smaller case that still ``fails``: fewer mutations, shorter chunks, fewer inserted bytes."""
    best = case
    tries = 0

    def attempt(candidate: list[Any]) -> bool:
        nonlocal best, tries
        if tries >= budget:
            return False
        tries += 1
        trial = Case(best.number, best.seed, best.path, candidate)
        if fails(trial):
            best = trial
            return True
        return False

    changed = True
    while changed and tries < budget:
        changed = False
        for index in range(len(best.mutations)):
            if index < len(best.mutations) and len(best.mutations) > 1 and \
                    attempt(best.mutations[:index] + best.mutations[index + 1:]):
                changed = True
                break
    for index in range(len(best.mutations)):
        op = best.mutations[index][0]
        position = _LENGTH_ARGUMENT.get(op)
        while position is not None and int(best.mutations[index][position]) > 1:
            smaller = list(best.mutations[index])
            smaller[position] = int(smaller[position]) // 2
            if not attempt([*best.mutations[:index], smaller, *best.mutations[index + 1:]]):
                break
        while op == "insert" and len(best.mutations[index][3]) > 2:
            shorter = list(best.mutations[index])
            shorter[3] = shorter[3][:len(shorter[3]) // 4 * 2] or shorter[3][:2]
            if not attempt([*best.mutations[:index], shorter, *best.mutations[index + 1:]]):
                break
    return best


def scratch_root() -> Path:
    """Where workers keep their case folders: RAM (``/dev/shm``) when there is some."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="chessformats-fuzz-", dir=base))
