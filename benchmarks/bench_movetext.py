#!/usr/bin/env python3
"""Book building's read and replay of lichess-like movetext against plain movetext, one process, same run.

    python benchmarks/bench_movetext.py [--pgn twic1134-mainlines.pgn] [--copies 3] [--repeat 3] [--max-ply 30]

The plain text is ``--pgn`` × ``--copies``; the lichess-like one is the same games with an evaluation and a
clock after every move (:func:`lichess_pgn.lichess_like`). Each is read into a ``BookBuilder`` (the batch
reader, the replay and the merge of its events, as ``chessformats build --jobs 1`` does), best of ``--repeat``
(the two texts taking turns); the figure that matters is the ratio (issue 28's target: at least 0.8).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

from lichess_pgn import DEFAULT_SOURCE, lichess_like


def rate(text: str, max_ply: int, repeat: int) -> tuple[float, int]:
    """Games/s of ``BookBuilder.add_pgn_text`` on ``text`` (best of ``repeat``) and the games read."""
    return rates([text], max_ply, repeat)[0]


def rates(texts: list[str], max_ply: int, repeat: int, clock: Callable[[], float] = time.perf_counter,
          boards: bool = True) -> list[tuple[float, int]]:
    """:func:`rate` of each of ``texts``, the texts taking turns (each round reads every text once), so that
    a load that comes and goes weighs on all of them alike. ``clock``: ``time.process_time`` for CPU time;
    ``boards=False``: a builder that keeps no positions (a Polyglot build's)."""
    from chessformats.books.build import BookBuilder

    best, games = [float("inf")] * len(texts), [0] * len(texts)
    for _ in range(repeat):
        for index, text in enumerate(texts):
            builder = BookBuilder(max_ply=max_ply, boards=boards)
            started = clock()
            builder.add_pgn_text(text)
            best[index], games[index] = min(best[index], clock() - started), builder.games
    return [(count / seconds, count) for count, seconds in zip(games, best, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pgn", default=str(DEFAULT_SOURCE))
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-ply", type=int, default=30)
    args = parser.parse_args()
    text = Path(args.pgn).read_text(encoding="utf-8", errors="replace").strip()
    plain = "\n\n".join([text] * args.copies)
    commented = "\n\n".join([lichess_like(text)] * args.copies)
    load = os.getloadavg()[0]
    (plain_rate, games), (commented_rate, _) = rates([plain, commented], args.max_ply, args.repeat)
    print(f"{games:,} games, --max-ply {args.max_ply}, load average {load:.2f} -> {os.getloadavg()[0]:.2f}")
    print(f"plain movetext: {plain_rate:,.0f} games/s ({len(plain.encode()) / games:,.0f} bytes a game)")
    print(f"lichess-like movetext: {commented_rate:,.0f} games/s ({len(commented.encode()) / games:,.0f} bytes a "
          f"game): {commented_rate / plain_rate:.2f}x the plain rate")


if __name__ == "__main__":
    main()
