"""Timing whole processes, shared by the benchmark scripts that compare command lines (wall time, CPU time, peak
memory)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


class Timing(NamedTuple):
    """One run of a command, as a whole process."""

    wall: float
    """seconds from its start to its exit"""
    cpu: float
    """user + system seconds of the process and of the children it waited for (a forked reader)"""
    peak: int
    """peak resident memory, KiB"""


def run(command: list[str], env: Mapping[str, str] | None = None) -> tuple[float, int]:
    """Wall seconds and peak resident memory (KiB) of one run of ``command`` (see :func:`measure`)."""
    timing = measure(command, env)
    return timing.wall, timing.peak


def measure(command: list[str], env: Mapping[str, str] | None = None) -> Timing:
    """Wall time, CPU time and peak memory of one run of ``command``.

    Peak memory comes from GNU ``time`` when installed: a process started straight from this (large)
    Python process would inherit its resident size in ``ru_maxrss`` (Linux keeps the larger of the sizes
    before and after ``exec``). Without GNU ``time`` that inflated figure is reported. The CPU time is
    ``wait4``'s: the command's and its waited-for children's (GNU ``time``'s own, about a millisecond, with it).
    """
    return _measured(command, env, keep_output=False)[0]


def measure_output(command: list[str], env: Mapping[str, str] | None = None) -> tuple[Timing, bytes]:
    """:func:`measure`, and what ``command`` wrote on its standard output (for a program that reports what it
    did: games read, its own timing of a stage)."""
    return _measured(command, env, keep_output=True)


def _measured(command: list[str], env: Mapping[str, str] | None, keep_output: bool) -> tuple[Timing, bytes]:
    # stdout and stderr go to files, not pipes: a pipe nobody reads until the end stops a command that writes more
    # than its buffer (64 KiB)
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as report, tempfile.TemporaryFile() as errors, \
            tempfile.TemporaryFile() as output:
        wrapped = [GNU_TIME, "-f", "%M", "-o", report.name, *command] if GNU_TIME else command
        started = time.perf_counter()
        process = subprocess.Popen(wrapped, stdout=output if keep_output else subprocess.DEVNULL, stderr=errors,
                                   env=None if env is None else dict(env))
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise RuntimeError(f"{command[0]} failed: {errors.read().decode(errors='replace')}")
        output.seek(0)
        return Timing(elapsed, usage.ru_utime + usage.ru_stime,
                      int(report.read().split()[-1]) if GNU_TIME else usage.ru_maxrss), output.read()


def best(command: list[str], repeat: int, env: Mapping[str, str] | None = None) -> tuple[float, int]:
    """Best wall time and largest peak memory of ``repeat`` runs."""
    runs = [run(command, env) for _ in range(repeat)]
    return min(t for t, _ in runs), max(m for _, m in runs)


def in_turn(commands: Mapping[str, list[str]], rounds: int, env: Mapping[str, str] | None = None
            ) -> dict[str, list[Timing]]:
    """``rounds`` runs of each command, in turn (A B C A B C ...): the runs of one round are paired, so a ratio
    taken round by round holds when the machine's speed drifts during the measurement."""
    timings: dict[str, list[Timing]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            timings[name].append(measure(command, env))
    return timings


def compiled_env(cache: str) -> dict[str, str]:
    """The environment for timed Python processes: bytecode compiled once into ``cache`` and read from it after, as
    after ``pip install`` (the project machine sets ``PYTHONDONTWRITEBYTECODE=1`` and installs editable: without
    this every run would compile the package from source)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def find_polyglot(explicit: str | None) -> str:
    for candidate in (explicit, os.environ.get("CHESSFORMATS_POLYGLOT"), shutil.which("polyglot"),
                      "/usr/games/polyglot", str(ROOT / ".ci/cache/polyglot/usr/games/polyglot")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("polyglot not found: install Debian's polyglot or run .ci/run once")
