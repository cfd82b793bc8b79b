#!/usr/bin/env python3
"""Kvetka speed: probing a book built from the corpus PGN, reading its blocks and its .ksf, writing it.

    python benchmarks/bench_kvetka.py [--pgn FILE] [--repeat N] [--write-docs] [--profile]

The book: every game of ``twic1134-mainlines.pgn`` (the corpus TWIC file) up to ply 30, through
``BookBuilder`` and ``chessformats.books.kvetka.write_book`` with its ``.ksf`` (``pgn_sources``: every
position refers to the first game it occurs in), built once into a temporary folder. Workloads:

1. Probing by board: 1,000 positions of the book (the first of its positions in the builder's order) and
   1,000 positions of random games that are not in it, together and apart. "Cold" opens the book before each
   run (its ``.kin`` read, no block cached); "warm" probes a book that has read them.
2. Reading every block (``block_elements`` of each block, elements validated, on a freshly opened book).
3. ``Element.to_bytes`` of every element; ``write_book`` of the whole book (elements and sources).
4. Reading every source of the ``.ksf`` with its games (``KsfFile.source``, a freshly opened file).

Every timing is the best of ``--repeat`` runs (default 5) with the garbage collector disabled; the probes'
answers are checked outside the timed code (hits found with the builder's statistics, misses not found). With
``--write-docs`` the Kvetka section of ``docs/performance.md`` (between the ``kvetka-bench`` markers) is
regenerated; the rest of the file is kept.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_polyglot import best_of, machine_info, random_game_positions
from chessformats import kvetka
from chessformats.books.build import BookBuilder
from chessformats.books.kvetka import pgn_sources, write_book
from chessformats.formats.kvetka import KsfFile
from chessformats.formats.kvetka import write_book as write_elements
from perfdoc import replace_section

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PGN = Path("/work/shared/corpus/pgn/twic1134-mainlines.pgn")
DOCS = REPO / "docs" / "performance.md"
START_MARKER = "<!-- kvetka-bench:start -->"
END_MARKER = "<!-- kvetka-bench:end -->"
MAX_PLY = 30
HITS = 1_000
MISSES = 1_000
SEED_MISSES = 20240611


def build(pgn: Path, folder: Path) -> tuple[Path, list[chess.Board], dict[str, tuple[int, int, int]]]:
    """The book NAME in ``folder``, the boards of its first positions and their (wins, draws, losses)."""
    builder = BookBuilder(max_ply=MAX_PLY)
    builder.add_pgn(pgn)
    stats = builder.to_stats()
    sources, references = pgn_sources([pgn], max_ply=MAX_PLY)
    stem = folder / "twic"
    write_book(stem, stats, sources=sources, references=references, max_move=MAX_PLY)
    hits: list[chess.Board] = []
    answers: dict[str, tuple[int, int, int]] = {}
    with kvetka.open_book(stem) as book:
        for fen in stats.positions:
            board = chess.Board(fen)
            found = book.probe(board)
            if found is None:
                continue
            hits.append(board)
            answers[board.fen()] = (found.wins, found.draws, found.losses)
            if len(hits) == HITS:
                break
    return stem, hits, answers


def miss_positions(book: kvetka.KvetkaBook, count: int, seed: int) -> list[chess.Board]:
    """Positions of random games (at most 40 plies) that are not in the book."""
    out: list[chess.Board] = []
    for board in random_game_positions(4 * count, seed, 40):
        if board not in book:
            out.append(board)
        if len(out) == count:
            break
    return out


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s"


def measure(stem: Path, hits: list[chess.Board], answers: dict[str, tuple[int, int, int]],
            repeat: int) -> tuple[list[list[str]], dict[str, float]]:
    with kvetka.open_book(stem) as book:
        misses = miss_positions(book, MISSES, SEED_MISSES)
        for board in hits:
            found = book.probe(board)
            assert found is not None and (found.wins, found.draws, found.losses) == answers[board.fen()], board.fen()
        assert all(book.probe(board) is None for board in misses)
        elements = list(book.elements())
        sources = book.source_games()
        blocks = book.blocks
        caption = book.caption
    games = sum(len(source.games) for source in sources)
    both = hits + misses
    rows: list[list[str]] = []
    figures: dict[str, float] = {}
    holder: list[kvetka.KvetkaBook] = []

    def fresh() -> None:
        if holder:
            holder.pop().close()
        holder.append(kvetka.open_book(stem))

    def probe_all(book: kvetka.KvetkaBook, boards: list[chess.Board]) -> None:
        for board in boards:
            book.probe(board)

    for label, boards in ((f"{len(hits):,} in book + {len(misses):,} misses", both), (f"{len(hits):,} in book", hits),
                          (f"{len(misses):,} misses", misses)):
        cold = best_of(lambda boards=boards: probe_all(holder[0], boards), repeat, before=fresh)  # type: ignore[misc]
        with kvetka.open_book(stem) as warm_book:
            warm = best_of(lambda boards=boards, warm_book=warm_book: probe_all(warm_book, boards), repeat)
        holder.pop().close()
        rows.append(["probe by board, cold (book opened per run)", label, f"{len(boards):,}", rate(len(boards), cold)])
        rows.append(["probe by board, warm", label, f"{len(boards):,}", rate(len(boards), warm)])
        figures[f"cold {label}"] = len(boards) / cold
        figures[f"warm {label}"] = len(boards) / warm

    def read_blocks() -> None:
        for block in range(holder[0].blocks):
            holder[0].block_elements(block)

    seconds = best_of(read_blocks, repeat, before=fresh)
    holder.pop().close()
    rows.append(["read every block (block_elements)", f"{blocks:,} blocks", f"{len(elements):,}",
                 rate(len(elements), seconds)])
    figures["read blocks"] = len(elements) / seconds

    def to_bytes_all() -> None:
        for element in elements:
            element.to_bytes()

    seconds = best_of(to_bytes_all, repeat)
    rows.append(["Element.to_bytes", "every element", f"{len(elements):,}", rate(len(elements), seconds)])
    figures["to_bytes"] = len(elements) / seconds
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "copy"
        seconds = best_of(lambda: write_elements(out, elements, caption=caption, sources=sources, max_move=MAX_PLY),
                          repeat)
    rows.append(["write the book (write_book, with .ksf)", "every element and source", f"{len(elements):,}",
                 rate(len(elements), seconds)])
    figures["write_book"] = len(elements) / seconds
    ksf = stem.with_suffix(".ksf")
    files: list[KsfFile] = []

    def fresh_ksf() -> None:
        if files:
            files.pop().close()
        files.append(KsfFile(ksf))

    def read_sources() -> None:
        reader = files[0]
        for number in range(len(reader)):
            reader.source(number)

    seconds = best_of(read_sources, repeat, before=fresh_ksf)
    files.pop().close()
    rows.append(["read every .ksf source (KsfFile.source)", f"{len(sources)} source(s)", f"{games:,} games",
                 rate(games, seconds)])
    figures["ksf"] = games / seconds
    return rows, figures


def markdown(rows: Sequence[Sequence[str]]) -> str:
    lines = ["| Operation | Workload | Items | Rate |", "|---|---|---:|---:|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def docs_section(rows: Sequence[Sequence[str]], info: dict[str, str], repeat: int, pgn: Path) -> str:
    lines = [
        START_MARKER,
        "<!-- Generated by benchmarks/bench_kvetka.py --write-docs; edits between the markers are lost. -->",
        "",
        "## Kvetka",
        "",
        "Machine and software of this run:",
        "",
        *[f"- {name}: {value}" for name, value in info.items()],
        "",
        f"Workloads: a book built from `{pgn.name}` (every game up to ply {MAX_PLY}, with its `.ksf`: each "
        f"position refers to the first game it occurs in). {HITS:,} positions of the book (checked against the "
        f"builder's statistics first) and {MISSES:,} positions of random games (at most 40 plies, seed "
        f"{SEED_MISSES}) that are not in it. A probe is `book.probe(board)`: normalising the position, its "
        "22-byte key, the `.kin` lookup, reading and validating the block, decoding the moves, checking their "
        "legality and resolving the game reference through the `.ksf`. *Cold*: the book is opened before each "
        f"run (no block cached); *warm*: the same book object again. Best of {repeat} runs, garbage collector "
        "off.",
        "",
        markdown(rows),
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pgn", type=Path, default=DEFAULT_PGN, help="the PGN file the book is built from")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per workload (best is kept)")
    parser.add_argument("--write-docs", action="store_true", help=f"rewrite the Kvetka section of {DOCS}")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of reading every block")
    args = parser.parse_args(argv)
    info = machine_info()
    for name, value in info.items():
        print(f"{name}: {value}")
    with tempfile.TemporaryDirectory(prefix="kvetka-bench-") as folder:
        stem, hits, answers = build(args.pgn, Path(folder))
        rows, _ = measure(stem, hits, answers, args.repeat)
        print()
        for row in rows:
            print(f"{row[0]:44} {row[1]:32} {row[2]:>8} {row[3]:>12}")
        if args.profile:
            profile = cProfile.Profile()
            with kvetka.open_book(stem) as book:
                profile.enable()
                for block in range(book.blocks):
                    book.block_elements(block)
                profile.disable()
            stream = io.StringIO()
            pstats.Stats(profile, stream=stream).sort_stats("tottime").print_stats(15)
            print(stream.getvalue())
    if args.write_docs:
        replace_section(docs_section(rows, info, args.repeat, args.pgn), START_MARKER, END_MARKER, DOCS)
        print(f"wrote {DOCS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
