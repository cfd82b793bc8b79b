#!/usr/bin/env python3
"""ChessBase writing speed on ``twic1134-mainlines.pgn`` (6,097 games), one process.

    python benchmarks/bench_chessbase_write.py [--pgn FILE] [--repeat N]

Measures games/s for:

1. PGN parsing alone (python-chess ``read_game``: what every PGN -> base conversion pays first);
2. writing the parsed games as a base (``write_database``: move streams, annotations, headers, entities);
3. the whole conversion, PGN file -> base (parsing and writing, streamed as ``chessformats convert`` does);
4. appending the games to a base of the same games (``append_games``: the old base is copied too).

The issue's target for 3 is 2,000 games/s. Every timing is the best of ``--repeat`` runs (default 3).
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess.pgn

from chessformats.formats.chessbase import append_games, write_database

DEFAULT_PGN = Path("/work/shared/corpus/pgn/twic1134-mainlines.pgn")
TARGET = 2_000


def best(function: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def read(path: Path) -> Iterator[chess.pgn.Game]:
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            yield game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", type=Path, default=DEFAULT_PGN)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    games = list(read(args.pgn))
    count = len(games)
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "base.cbh"
        figures = {
            "PGN parsing (python-chess)": best(lambda: sum(1 for _ in read(args.pgn)), args.repeat),
            "writing parsed games": best(lambda: write_database(base, games), args.repeat),
            "PGN file -> base": best(lambda: write_database(base, read(args.pgn)), args.repeat),
        }
        write_database(base, games)
        figures["appending to a base of the same games"] = best(
            lambda: (write_database(base, games), append_games(base, games)), args.repeat) - figures[
            "writing parsed games"]
    print(f"{count:,} games from {args.pgn.name}")
    for name, seconds in figures.items():
        print(f"  {name:40s} {seconds:7.2f} s  {count / seconds:9,.0f} games/s")
    print(f"  target for PGN file -> base: {TARGET:,} games/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
