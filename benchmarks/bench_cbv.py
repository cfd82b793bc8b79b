#!/usr/bin/env python3
"""ChessBase archives: opening ``twic1134.cbv`` and exporting it to PGN, against the same export from the
extracted base; extraction speed (MB of output per second); writing an archive.

    python benchmarks/bench_cbv.py [--corpus DIR] [--repeat N] [--write-docs]

Rows, each the best of ``--repeat`` runs (default 3), all in one run:

1. PGN export from the extracted base (``uncbv_twic1134/twic1134.cbh``);
2. PGN export straight from the archive (``export_pgn("twic1134.cbv")``: extraction to a temporary folder
   included), and its ratio to row 1 (target: at most 1.5);
3. extraction of every member of ``twic1134.cbv`` into a folder (``Archive.extract``), MB/s of output (target:
   at least 20); the Huffman and LZ/RLE stages alone, in memory (CPU time);
4. writing the extracted base as a ``.cbv`` (``write_archive``).

With ``--write-docs`` the section between the ``cbv-bench`` markers of ``docs/performance.md`` is rewritten.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chessformats import chessbase
from chessformats.engine import huffman, lzrle
from chessformats.formats.chessbase.archive import open_archive
from chessformats.formats.chessbase.archive_write import base_files, write_archive
from perfdoc import replace_section

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "chessbase"
START_MARKER = "<!-- cbv-bench:start -->"
END_MARKER = "<!-- cbv-bench:end -->"


CPU: dict[str, float] = {}
"""The CPU time (this process) of the run with the best wall time, per measured function: the machine is shared,
and CPU time is what the code costs whatever else runs."""


def best(function: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        started, cpu = time.perf_counter(), time.process_time()
        function()
        times.append((time.perf_counter() - started, time.process_time() - cpu))
    wall, CPU[getattr(function, "__name__", "")] = min(times)
    return wall


def stages(archive_path: Path, repeat: int) -> tuple[float, float]:
    """CPU seconds spent in the Huffman and LZ/RLE stages during one read of every member (best of ``repeat``;
    CPU time, as the machine is shared)."""
    spent = {"huffman": 0.0, "lz": 0.0}
    decode_many, decode = huffman.decode_many, lzrle.decode

    def timed_huffman(*args: Any) -> Any:
        started = time.process_time()
        try:
            return decode_many(*args)
        finally:
            spent["huffman"] += time.process_time() - started

    def timed_lz(*args: Any) -> Any:
        started = time.process_time()
        try:
            return decode(*args)
        finally:
            spent["lz"] += time.process_time() - started

    found = []
    huffman.decode_many, lzrle.decode = timed_huffman, timed_lz  # type: ignore[assignment]
    try:
        with open_archive(archive_path) as archive:
            for _ in range(repeat):
                spent.update(huffman=0.0, lz=0.0)
                for _member, _chunk in archive.decoded():
                    pass
                found.append((spent["huffman"], spent["lz"]))
    finally:
        huffman.decode_many, lzrle.decode = decode_many, decode  # type: ignore[assignment]
    return min(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    archive_path = args.corpus / "uncbv_archives" / "twic1134.cbv"
    extracted = args.corpus / "uncbv_twic1134" / "twic1134.cbh"
    if not archive_path.is_file() or not extracted.is_file():
        print(f"corpus not found under {args.corpus}", file=sys.stderr)
        return 1
    output = sum(path.stat().st_size for path in extracted.parent.iterdir() if path.name != "SOURCES.txt")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        from_base = best(lambda: chessbase.export_pgn(extracted, work / "base.pgn"), args.repeat)
        from_archive = best(lambda: chessbase.export_pgn(archive_path, work / "archive.pgn"), args.repeat)
        same = (work / "base.pgn").read_bytes() == (work / "archive.pgn").read_bytes()

        def extract() -> None:
            target = work / "extracted"
            shutil.rmtree(target, ignore_errors=True)
            with open_archive(archive_path) as archive:
                archive.extract(target)

        extraction = best(extract, args.repeat)
        huffman_seconds, lz_seconds = stages(archive_path, args.repeat)
        writing = best(lambda: write_archive(work / "written.cbv", base_files(extracted)), args.repeat)
        written = (work / "written.cbv").stat().st_size
    rows = [
        ("PGN export from the extracted base", f"{from_base:.3f} s", ""),
        ("PGN export from twic1134.cbv (extraction included)", f"{from_archive:.3f} s",
         f"{from_archive / from_base:.2f}x the extracted base's (target <= 1.5x); PGN identical: {same}"),
        ("extraction of twic1134.cbv (13 files)", f"{extraction * 1000:.0f} ms",
         f"{output / extraction / 1e6:.1f} MB/s of output (target >= 20); CPU time {CPU['extract'] * 1000:.0f} ms: "
         f"{output / CPU['extract'] / 1e6:.1f} MB/s"),
        ("  of which the Huffman stage (31 blocks)", f"{huffman_seconds * 1000:.0f} ms", "CPU time"),
        ("  of which the LZ/RLE stage (26 blocks)", f"{lz_seconds * 1000:.0f} ms", "CPU time"),
        ("writing the base as a .cbv", f"{writing * 1000:.0f} ms",
         f"{output / writing / 1e6:.1f} MB/s; {written:,} bytes (ChessBase's: {archive_path.stat().st_size:,})"),
    ]
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    lines = [f"{name:55} {value:>10}  {note}" for name, value, note in rows]
    print("\n".join(lines))
    print(f"load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    if args.write_docs:
        table = "\n".join(f"| {name.strip()} | {value} | {note} |" for name, value, note in rows)
        section = (
            f"{START_MARKER}\n<!-- Generated by benchmarks/bench_cbv.py --write-docs; edits between the markers are "
            f"lost. -->\n## ChessBase archives (.cbv)\n\n`twic1134.cbv` (805,379 bytes; 13 files, {output:,} bytes "
            f"extracted; 6,117 games), best of {args.repeat} runs, Python {platform.python_version()} on "
            f"{platform.machine()} ({os.cpu_count()} CPUs; load average {load[0]:.1f} / {load[1]:.1f} / "
            f"{load[2]:.1f} when the run ended).\n\n| what | time | notes |\n|---|---:|---|\n{table}\n{END_MARKER}\n")
        replace_section(section, START_MARKER, END_MARKER)
    return 0


if __name__ == "__main__":
    sys.exit(main())
