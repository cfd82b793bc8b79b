#!/usr/bin/env python3
"""ChessBase speed on ``uncbv_twic1134`` (6,117 games): the batch decoder against the game-by-game one, one run.

    python benchmarks/bench_chessbase.py [--corpus DIR] [--repeat N] [--cbh2pgn DIR] [--write-docs]

Measures games/s and plies/s for, in the same run:

1. header scan: every record's header fields as numpy arrays (``Database.header_arrays``);
2. move decoding, game by game (``Database.decode``, the scalar decoder: what ``main`` did before the batch);
3. move decoding, batch: every game's moves and variations as token arrays (``Database.decode_batch``);
4. move decoding with SAN, batch: the same with what SAN needs (checks, mates, rivals;
   ``Database.decode_batch(san=True)``, what the PGN export and the tables' ``san`` column use);
5. move decoding, batch to objects: the same as ``DecodedGame`` objects (``Database.decode_many``);
6. PGN export, game by game (the scalar decoder and python-chess's SAN, as ``export_pgn`` writes the games the
   batch leaves);
7. PGN export (``export_pgn``: games without annotations from the batch arrays, annotated games through
   ``chess.pgn`` with the batch's SAN);
8. python-chess reading the same games back from the exported PGN (``chess.pgn.read_game``): the Python peer.

The C++ reader libcbh is run on the same base in the same run, as the static ``libcbh_dump`` of the shared tools
(``--libcbh``, default ``../shared/tools/libcbh_dump``: it decodes every game's moves and annotations and prints
them as text); without it the columns against it are left empty. Its wall-clock and CPU times (user + system,
of the child process) are printed beside ours; CPU time is the fairer figure on a shared machine.
``cbh2pgn`` (``pip download cbh2pgn``; pass the folder it is unpacked in with
``--cbh2pgn``, it is not a dependency) is timed on the same base, and its output is checked against the
source PGNs of the corpus: what it gets wrong is printed. Every timing is the best of ``--repeat`` runs
(default 3); the load average is printed with them. With ``--write-docs`` the ChessBase section of
``docs/performance.md`` (between the ``chessbase-bench`` markers) is regenerated; the rest of the file is kept.
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
import numpy as np

from chessformats import chessbase
from chessformats.formats.chessbase.batch_state import MOVE
from chessformats.formats.chessbase.database import _SKIPPED, _pgn_one
from chessformats.formats.chessbase.moves import DecodedMove
from chessformats.formats.chessbase.pgn import tree_of
from perfdoc import replace_section
from processes import measure_output

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/shared/corpus/chessbase")
DOCS = REPO / "docs" / "performance.md"
START_MARKER = "<!-- chessbase-bench:start -->"
END_MARKER = "<!-- chessbase-bench:end -->"
TARGETS = {"header scan": 300_000, "move decoding (batch)": 20_000, "PGN export": 5_000}
"""games/s; and decoding with SAN at least the rate of the C++ reader, on CPU time (issue 22)."""
DEFAULT_LIBCBH = REPO.parent / "shared" / "tools" / "libcbh_dump"
BEFORE = {"move decoding (batch)": "move decoding, game by game", "move decoding (batch, objects)":
          "move decoding, game by game", "move decoding with SAN (batch)": "move decoding, game by game",
          "PGN export": "PGN export, game by game"}
CPU: dict[str, float] = {}
"""By task: the best CPU time of its runs (``best`` fills it)."""


def best(function: Callable[[], Any], repeat: int, task: str = "") -> tuple[float, Any]:
    times, cpu = [], []
    result = None
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        started, started_cpu = time.perf_counter(), time.process_time()
        result = function()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        gc.enable()
    if task:
        CPU[task] = min(cpu)
    return min(times), result


def libcbh(cbh: Path, program: Path, repeat: int) -> tuple[float, float, int] | None:
    """The C++ reader on the same base: (best wall seconds, best CPU seconds of the child, games it printed)."""
    if not program.exists():
        return None
    runs = [measure_output([str(program), str(cbh)]) for _ in range(repeat)]
    games = sum(1 for line in runs[-1][1].splitlines() if line.startswith(b"#"))
    return min(timing.wall for timing, _ in runs), min(timing.cpu for timing, _ in runs), games


def ours(cbh: Path, repeat: int) -> dict[str, tuple[float, int, int]]:
    figures: dict[str, tuple[float, int, int]] = {}

    def scan() -> int:
        with chessbase.open_database(cbh) as db:
            return len(db.header_arrays()["year"])

    seconds, games = best(scan, repeat, "header scan")
    figures["header scan"] = (seconds, games, 0)

    def decode() -> tuple[int, int]:
        plies = 0
        with chessbase.open_database(cbh) as db:
            for number in range(1, db.record_count + 1):
                plies += sum(1 for token in db.decode(number).tokens if isinstance(token, DecodedMove))
            return len(db), plies

    seconds, (games, plies) = best(decode, repeat, "move decoding, game by game")
    figures["move decoding, game by game"] = (seconds, games, plies)

    def batch(san: bool = False) -> tuple[int, int]:
        with chessbase.open_database(cbh) as db:
            numbers = np.arange(1, db.record_count + 1)
            count = 0
            for start in range(0, len(numbers), 8192):
                arrays = db.decode_batch(numbers[start:start + 8192], san=san)
                moves = np.append(0, np.cumsum(arrays.kind == MOVE))  # moves before each slot
                decoded = ~arrays.fallback
                ends = arrays.first[decoded] + arrays.count[decoded]
                count += int((moves[ends] - moves[arrays.first[decoded]]).sum())
                for index in np.flatnonzero(arrays.fallback).tolist():  # none in this base; counted if any
                    count += sum(1 for token in db.decode(int(numbers[start + index])).tokens
                                 if isinstance(token, DecodedMove))
            return len(db), count

    seconds, (games, batch_plies) = best(batch, repeat, "move decoding (batch)")
    assert batch_plies == plies, (batch_plies, plies)
    figures["move decoding (batch)"] = (seconds, games, plies)
    seconds, (games, batch_plies) = best(lambda: batch(san=True), repeat, "move decoding with SAN (batch)")
    assert batch_plies == plies, (batch_plies, plies)
    figures["move decoding with SAN (batch)"] = (seconds, games, plies)

    def objects() -> int:
        with chessbase.open_database(cbh) as db:
            return sum(1 for _ in db.decode_many())

    seconds, games = best(objects, repeat, "move decoding (batch, objects)")
    figures["move decoding (batch, objects)"] = (seconds, games, plies)

    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out.pgn"

        def one_by_one() -> int:
            written = 0
            with chessbase.open_database(cbh) as db, open(Path(folder) / "old.pgn", "wb") as handle:
                for number in range(1, db.record_count + 1):
                    if int(db.records["kind"][number - 1]) & _SKIPPED:
                        continue
                    text = _pgn_one(db, number, bool(db.records["cba_offset"][number - 1]))
                    if isinstance(text, str):
                        handle.write(text.encode("utf-8") + b"\n")
                        written += 1
            return written

        seconds, games = best(one_by_one, repeat, "PGN export, game by game")
        figures["PGN export, game by game"] = (seconds, games, plies)

        def export() -> int:
            written, _ = chessbase.export_pgn(cbh, target)
            return written

        seconds, games = best(export, repeat, "PGN export")
        figures["PGN export"] = (seconds, games, plies)
        assert target.read_bytes() == (Path(folder) / "old.pgn").read_bytes()
        text = target.read_text(encoding="utf-8")

    def python_chess() -> int:
        source = io.StringIO(text)
        count = 0
        while chess.pgn.read_game(source) is not None:
            count += 1
        return count

    seconds, games = best(python_chess, max(1, repeat - 1), "python-chess reads the same games from PGN")
    figures["python-chess reads the same games from PGN"] = (seconds, games, plies)
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
                 findings: list[str], repeat: int, load: tuple[float, float, float],
                 cpp: tuple[float, float, int] | None) -> str:
    cpp_rate = cpp[2] / cpp[0] if cpp else 0.0
    cpp_cpu_rate = cpp[2] / cpp[1] if cpp and cpp[1] else 0.0
    lines = [
        START_MARKER,
        "<!-- Generated by benchmarks/bench_chessbase.py --write-docs; edits between the markers are lost. -->",
        "",
        "## ChessBase databases",
        "",
        f"`uncbv_twic1134` (6,117 games, no variations), best of {repeat} runs, Python {platform.python_version()} "
        f"on {platform.machine()} ({os.cpu_count()} CPUs shared with other work: load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} when the run ended). Every row ran in the same run; "
        "\"before\" is the game-by-game path of the same row in that run (what `main` did before the batch "
        "decoder). The C++ reader libcbh ran on the same base in the same run (`libcbh_dump`, a static build of "
        "its reader with a driver that prints every game's moves and annotations: "
        + (f"{cpp[2]:,} games in {cpp[0]:.3f} s wall, {cpp[1]:.3f} s CPU, {cpp_rate:,.0f} games/s wall, "
           f"{cpp_cpu_rate:,.0f} games/s CPU" if cpp else "not available in this run") + "). "
        "Games/s are wall-clock; CPU games/s (the process's CPU time, the fairer figure on a shared machine) "
        "are compared with libcbh's CPU games/s.",
        "",
        "| task | games/s | CPU games/s | plies/s | target games/s | vs before | vs libcbh (CPU) | cbh2pgn games/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for task, (seconds, games, plies) in figures.items():
        rate = games / seconds
        theirs_rate = f"{other[task][1] / other[task][0]:,.0f}" if other and task in other else ""
        ply_rate = f"{plies / seconds:,.0f}" if plies else ""
        target = f"{TARGETS[task]:,}" if task in TARGETS else ""
        before = ""
        if task in BEFORE:
            old_seconds, old_games, _ = figures[BEFORE[task]]
            before = f"{rate / (old_games / old_seconds):.1f}x"
        cpu_rate = games / CPU[task] if CPU.get(task) else 0.0
        versus = f"{cpu_rate / cpp_cpu_rate:.2f}x" if cpp_cpu_rate and cpu_rate else ""
        lines.append(f"| {task} | {rate:,.0f} | {cpu_rate:,.0f} | {ply_rate} | {target} | {before} | {versus} | "
                     f"{theirs_rate} |")
    lines += ["", "Move decoding (batch) gives every move's squares, promotion and flags and the variation markers "
              "as arrays; \"objects\" makes a `DecodedGame` of `DecodedMove` tuples per game from them (the Python "
              "objects cost about as much as the decoding); \"with SAN\" also works out every move's check, mate "
              "and rival pieces (on the chess kernel: the positions after every move rebuilt from the decoded "
              "moves once the chunk is decoded, an XOR of each move's changes along its game, then the kernel's "
              "attacks and move generator over the moves of ~32k-token blocks of games at once), what the PGN "
              "export and the tables' `san` "
              "column read. All equal the game-by-game decoder's results on every game of the corpus "
              "(tests/formats/chessbase/test_chessbase_batch.py, where the SAN is also compared with python-chess's), "
              "and the export is byte for byte the game-by-game export's.",
              "", "cbh2pgn 0.2.0 was timed converting every game to PGN (its only mode). What it gets wrong:", ""]
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
    parser.add_argument("--libcbh", type=Path, default=DEFAULT_LIBCBH, help="the libcbh_dump program")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    if args.cbh2pgn:
        sys.path.insert(0, str(args.cbh2pgn))
    cbh = args.corpus / "uncbv_twic1134" / "twic1134.cbh"
    cpp = libcbh(cbh, args.libcbh, args.repeat)
    figures = ours(cbh, args.repeat)
    other = theirs(cbh, args.repeat)
    findings = cbh2pgn_findings(args.corpus)
    section = docs_section(figures, other, findings, args.repeat, os.getloadavg(), cpp)
    print(section)
    if args.write_docs:
        write_docs(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
