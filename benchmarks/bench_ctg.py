#!/usr/bin/env python3
"""CTG speed: probing the corpus book (encoding and hashing included), reading and writing it.

    python benchmarks/bench_ctg.py [--corpus DIR] [--repeat N] [--write-docs] [--profile]

Workloads, on ``PowerPlay17-Sicilienne.ctg``:

1. Probing by board: the 400 positions of ``expected-probes.json`` (in the book) and 1,000 positions of
   random games that are not in it, together and apart. "Cold" opens the book before each run, so the
   pages are indexed as they are first visited; "warm" probes a book that has seen them.
2. Encoding + hashing alone (``signature`` + ``ctg_hash``) for the same positions.
3. Decoding every record (``records()``), and writing the whole book back (``write_book``).

Every timing is the best of ``--repeat`` runs (default 5) with the garbage collector disabled; the
answers are checked against the corpus json outside the timed code. There is no other Python CTG reader
to compare with. With ``--write-docs`` the CTG section of ``docs/performance.md`` (between the
``ctg-bench`` markers) is regenerated; the rest of the file is kept.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_polyglot import best_of, machine_info, random_game_positions
from chessformats import ctg
from perfdoc import replace_section

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/shared/corpus/ctg")
DOCS = REPO / "docs" / "performance.md"
START_MARKER = "<!-- ctg-bench:start -->"
END_MARKER = "<!-- ctg-bench:end -->"
BOOK = "PowerPlay17-Sicilienne.ctg"
MISSES = 1_000
SEED_MISSES = 20240611
TARGET = 20_000  # probes per second, encoding and hashing included


def miss_positions(book: ctg.CtgBook, count: int, seed: int) -> list[chess.Board]:
    """Positions of random games (at most 40 plies) that are not in the book."""
    out: list[chess.Board] = []
    for board in random_game_positions(4 * count, seed, 40):
        if board not in book:
            out.append(board)
        if len(out) == count:
            break
    return out


def check(book: ctg.CtgBook, found: list[dict[str, object]], misses: list[chess.Board]) -> None:
    for item in found:
        record = book.probe(chess.Board(str(item["fen"])))
        probe = item["probe"]
        assert record is not None and isinstance(probe, dict), item["fen"]
        assert [m.code for m in record.moves] == [m["code"] for m in probe["moves"]], item["fen"]
        assert (record.games, record.wins, record.losses, record.draws) == (
            probe["games"], probe["wins"], probe["losses"], probe["draws"]), item["fen"]
    assert all(book.probe(board) is None for board in misses)


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s"


def measure(path: Path, expected: dict[str, object], repeat: int) -> tuple[list[list[str]], dict[str, float]]:
    found: list[dict[str, object]] = expected["found"]  # type: ignore[assignment]
    hits = [chess.Board(str(item["fen"])) for item in found]
    with ctg.open_book(path) as book:
        misses = miss_positions(book, MISSES, SEED_MISSES)
        check(book, found, misses)
        records = list(book.records())
    both = hits + misses
    rows: list[list[str]] = []
    figures: dict[str, float] = {}

    def probe_all(book: ctg.CtgBook, boards: list[chess.Board]) -> None:
        for board in boards:
            book.probe(board)

    holder: list[ctg.CtgBook] = []

    def fresh() -> None:
        if holder:
            holder.pop().close()
        holder.append(ctg.open_book(path))

    for label, boards in ((f"{len(hits)} in book + {len(misses):,} misses", both), (f"{len(hits)} in book", hits),
                          (f"{len(misses):,} misses", misses)):
        cold = best_of(lambda boards=boards: probe_all(holder[0], boards), repeat, before=fresh)  # type: ignore[misc]
        with ctg.open_book(path) as warm_book:
            warm = best_of(lambda boards=boards, warm_book=warm_book: probe_all(warm_book, boards), repeat)
        holder.pop().close()
        rows.append(["probe by board, cold (book opened per run)", label, f"{len(boards):,}", rate(len(boards), cold)])
        rows.append(["probe by board, warm", label, f"{len(boards):,}", rate(len(boards), warm)])
        figures[f"cold {label}"] = len(boards) / cold
        figures[f"warm {label}"] = len(boards) / warm

    def encode_all() -> None:
        for board in both:
            ctg.ctg_hash(ctg.signature(board))

    seconds = best_of(encode_all, repeat)
    rows.append(["encode + hash", f"the same {len(both):,} positions", f"{len(both):,}", rate(len(both), seconds)])

    def read_all() -> None:
        with ctg.open_book(path) as book:
            for _ in book.records():
                pass

    seconds = best_of(read_all, repeat)
    rows.append(["decode every record (records())", BOOK, f"{len(records):,}", rate(len(records), seconds)])
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "copy.ctg"
        seconds = best_of(lambda: ctg.write_book(out, records), repeat)
    rows.append(["write the book (write_book)", f"{BOOK}'s records", f"{len(records):,}", rate(len(records), seconds)])
    return rows, figures


def markdown(rows: Sequence[Sequence[str]]) -> str:
    lines = ["| Operation | Workload | Items | Rate |", "|---|---|---:|---:|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def docs_section(rows: Sequence[Sequence[str]], figures: dict[str, float], info: dict[str, str], repeat: int) -> str:
    worst = min(figures[key] for key in figures if "+" in key)
    lines = [
        START_MARKER,
        "<!-- Generated by benchmarks/bench_ctg.py --write-docs; edits between the markers are lost. -->",
        "",
        "## CTG",
        "",
        "Machine and software of this run:",
        "",
        *[f"- {name}: {value}" for name, value in info.items()],
        "",
        f"Workloads: `{BOOK}` (258 pages, 13,305 records). The 400 positions of `expected-probes.json` "
        f"(all in the book; their answers are checked against the json first) and {MISSES:,} positions of "
        f"random games (at most 40 plies, seed {SEED_MISSES}) that are not in the book. A probe is "
        "`book.probe(board)`: normalising and encoding the position, hashing it, the `.cto` lookup, the page "
        "search, decoding the moves and statistics and checking the moves' legality. *Cold*: the book is "
        "opened before each run, so each page is indexed on its first visit; *warm*: the same book object "
        f"again. Best of {repeat} runs, garbage collector off.",
        "",
        markdown(rows),
        "",
        f"Target of the issue: at least {TARGET:,} probes/s on the 400 + {MISSES:,} positions, encoding and "
        f"hashing included: **{'met' if worst >= TARGET else 'not met'}** (slowest: {worst:,.0f}/s, cold).",
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def write_docs(section: str, path: Path = DOCS) -> None:
    replace_section(section, START_MARKER, END_MARKER, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of the CTG corpus")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per workload (best is kept)")
    parser.add_argument("--write-docs", action="store_true", help=f"rewrite the CTG section of {DOCS}")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of the warm probes")
    args = parser.parse_args(argv)
    info = machine_info()
    for name, value in info.items():
        print(f"{name}: {value}")
    path = args.corpus / BOOK
    expected = json.loads((args.corpus / "expected-probes.json").read_text(encoding="utf-8"))
    warnings.simplefilter("error", ctg.MissingIndexWarning)
    rows, figures = measure(path, expected, args.repeat)
    print()
    for row in rows:
        print(f"{row[0]:44} {row[1]:32} {row[2]:>8} {row[3]:>12}")
    worst = min(figures[key] for key in figures if "+" in key)
    print(f"\ntarget >= {TARGET:,} probes/s (hits + misses): {'met' if worst >= TARGET else 'NOT met'} "
          f"(slowest {worst:,.0f}/s)")
    if args.profile:
        with ctg.open_book(path) as book:
            boards = [chess.Board(str(item["fen"])) for item in expected["found"]]
            boards += miss_positions(book, MISSES, SEED_MISSES)
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(5):
                for board in boards:
                    book.probe(board)
            profile.disable()
        stream = io.StringIO()
        pstats.Stats(profile, stream=stream).sort_stats("tottime").print_stats(15)
        print(stream.getvalue())
    if args.write_docs:
        write_docs(docs_section(rows, figures, info, args.repeat))
        print(f"wrote {DOCS}")
    random.seed()
    return 0


if __name__ == "__main__":
    sys.exit(main())
