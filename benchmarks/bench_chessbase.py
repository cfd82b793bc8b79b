#!/usr/bin/env python3
"""ChessBase speed on ``uncbv_twic1134`` (6,117 games): chessformats against PyPI ``cbh2pgn``, one run.

    python benchmarks/bench_chessbase.py [--corpus DIR] [--repeat N] [--cbh2pgn DIR] [--write-docs]

Measures games/s and plies/s for:

1. header scan: every record's header fields as numpy arrays (``Database.header_arrays``);
2. move decoding: every game's move stream with its variations (``Database.decode``);
3. PGN export: every game to PGN text with SAN and annotations (``export_pgn``).

``cbh2pgn`` (``pip download cbh2pgn``; pass the folder it is unpacked in with ``--cbh2pgn``, it is not a
dependency) is timed on the same base, and its output is checked against the source PGNs of the corpus:
what it gets wrong is printed. Every timing is the best of ``--repeat`` runs (default 3). With
``--write-docs`` the ChessBase section of ``docs/performance.md`` (between the ``chessbase-bench``
markers) is regenerated; the rest of the file is kept.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess.pgn

from chessformats import chessbase
from chessformats.formats.chessbase.moves import DecodedMove
from chessformats.formats.chessbase.pgn import tree_of
from perfdoc import replace_section

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/shared/corpus/chessbase")
DOCS = REPO / "docs" / "performance.md"
START_MARKER = "<!-- chessbase-bench:start -->"
END_MARKER = "<!-- chessbase-bench:end -->"
TARGETS = {"header scan": 300_000, "move decoding": 3_000, "PGN export": 1_000}
CPP_READER = 45_000  # games/s of a C++ reader on this machine (issue 7)


def best(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
        gc.enable()
    return min(times), result


def ours(cbh: Path, repeat: int) -> dict[str, tuple[float, int, int]]:
    figures: dict[str, tuple[float, int, int]] = {}

    def scan() -> int:
        with chessbase.open_database(cbh) as db:
            return len(db.header_arrays()["year"])

    seconds, games = best(scan, repeat)
    figures["header scan"] = (seconds, games, 0)

    def decode() -> tuple[int, int]:
        plies = 0
        with chessbase.open_database(cbh) as db:
            for number in range(1, len(db) + 1):
                plies += sum(1 for token in db.decode(number).tokens if isinstance(token, DecodedMove))
            return len(db), plies

    seconds, (games, plies) = best(decode, repeat)
    figures["move decoding"] = (seconds, games, plies)

    def export() -> int:
        with tempfile.TemporaryDirectory() as folder:
            written, _ = chessbase.export_pgn(cbh, Path(folder) / "out.pgn")
            return written

    seconds, games = best(export, repeat)
    figures["PGN export"] = (seconds, games, plies)
    return figures


def theirs(cbh: Path, repeat: int) -> dict[str, tuple[float, int, int]] | None:
    try:
        from cbh2pgn import CBHDatabase  # type: ignore[import-not-found]
    except ImportError:
        return None

    def run() -> int:
        database = CBHDatabase(cbh)
        count = 0
        for game in database:
            game.to_pgn()
            count += 1
        return count

    seconds, games = best(run, repeat)
    return {"PGN export": (seconds, games, 0)}


def cbh2pgn_findings(corpus: Path) -> list[str]:
    """Where cbh2pgn's moves differ from the source PGNs (main lines compared with python-chess)."""
    try:
        from cbh2pgn import CBHDatabase
    except ImportError:
        return []
    findings = []
    for name, pgn_name in (("libcbh_WithVariations", "GamesWithVariations.pgn"),
                           ("libcbh_Chess960Biel", "Chess960.pgn"), ("libcbh_NormalGames", "BielMTO.pgn")):
        folder = corpus / name
        (cbh,) = sorted(folder.glob("*.cbh"))
        source = io.StringIO((folder / pgn_name).read_text(encoding="utf-8", errors="replace"))
        database = CBHDatabase(cbh)
        wrong = variations = 0
        total = len(database)
        for index in range(total):
            expected = chess.pgn.read_game(source)
            game = chess.pgn.read_game(io.StringIO(database[index].to_pgn()))
            if expected is None or game is None:
                wrong += 1
                continue
            if [m.uci() for m in game.mainline_moves()] != [m.uci() for m in expected.mainline_moves()]:
                wrong += 1
            if tree_of(game) != tree_of(expected):
                variations += 1
        findings.append(f"`{name}`: cbh2pgn's main line differs from the source PGN in {wrong} of {total} games; "
                        f"moves with variations differ in {variations} of {total}")
    return findings


def docs_section(figures: dict[str, tuple[float, int, int]], other: dict[str, tuple[float, int, int]] | None,
                 findings: list[str], repeat: int) -> str:
    lines = [
        START_MARKER,
        "<!-- Generated by benchmarks/bench_chessbase.py --write-docs; edits between the markers are lost. -->",
        "",
        "## ChessBase databases",
        "",
        f"`uncbv_twic1134` (6,117 games), best of {repeat} runs, Python {platform.python_version()} on "
        f"{platform.machine()} ({os.cpu_count()} CPUs).",
        "",
        "| task | games/s | plies/s | target games/s | vs the C++ reader (~45,000 games/s) | cbh2pgn games/s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for task, (seconds, games, plies) in figures.items():
        rate = games / seconds
        theirs_rate = f"{other[task][1] / other[task][0]:,.0f}" if other and task in other else ""
        ply_rate = f"{plies / seconds:,.0f}" if plies else ""
        lines.append(f"| {task} | {rate:,.0f} | {ply_rate} | {TARGETS[task]:,} | "
                     f"{rate / CPP_READER:.2f}x | {theirs_rate} |")
    lines += ["", "cbh2pgn 0.2.0 was timed converting every game to PGN (its only mode). What it gets wrong:", ""]
    lines += [f"- {finding}" for finding in findings] or ["- (cbh2pgn not available in this run)"]
    lines += ["", END_MARKER]
    return "\n".join(lines) + "\n"


def write_docs(section: str, path: Path = DOCS) -> None:
    replace_section(section, START_MARKER, END_MARKER, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cbh2pgn", type=Path, help="folder holding the unpacked cbh2pgn package")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if args.cbh2pgn:
        sys.path.insert(0, str(args.cbh2pgn))
    cbh = args.corpus / "uncbv_twic1134" / "twic1134.cbh"
    figures = ours(cbh, args.repeat)
    other = theirs(cbh, args.repeat)
    findings = cbh2pgn_findings(args.corpus)
    section = docs_section(figures, other, findings, args.repeat)
    print(section)
    if args.write_docs:
        write_docs(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
