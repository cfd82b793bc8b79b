"""The benchmarks' one way of timing a child process (benchmarks/processes.py): its CPU time counted, its output
kept whatever its size, its failure reported with what it said."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import REPO_ROOT

spec = importlib.util.spec_from_file_location("processes", REPO_ROOT / "benchmarks" / "processes.py")
assert spec is not None and spec.loader is not None
processes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(processes)

# the child spends 50 ms of CPU time by its own clock, then says how much, after 200 KiB on each stream (more than
# a pipe holds: a child writing into a pipe nobody reads would never end)
BUSY = """
import sys, time
while time.process_time() < 0.05:
    pass
sys.stderr.write("e" * 200_000)
print("x" * 200_000)
print(time.process_time())
"""


def test_the_output_and_the_cpu_time_of_a_child() -> None:
    timing, output = processes.measure_output([sys.executable, "-c", BUSY])
    lines = output.decode().split()
    assert lines[0] == "x" * 200_000
    own = float(lines[1])  # the child's user + system time as it measured itself
    assert timing.cpu >= own >= 0.05 and timing.wall > 0 and timing.peak > 0
    assert processes.measure([sys.executable, "-c", BUSY]).cpu >= 0.05


def test_a_failing_child_is_reported_with_its_message() -> None:
    with pytest.raises(RuntimeError, match="no such thing"):
        processes.measure([sys.executable, "-c", "import sys; sys.exit('no such thing')"])
