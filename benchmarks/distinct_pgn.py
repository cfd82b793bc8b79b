"""A PGN file of distinct games, for measuring book building when the counts grow with the input.

    python benchmarks/distinct_pgn.py GAMES OUT.pgn [--source twic1134-mainlines.pgn] [--plies 40] [--seed 1]
                                      [--first N]

Repeating one file many times (``bench_build.py --copies``) keeps the book's table at the size of one copy;
real collections (a lichess month) meet new positions with every game. Each game here opens with the first
0-12 plies of a random game of ``--source`` (so the common openings are shared and reach polyglot's
16,384-game halving in large files), then goes on with random legal moves to ``--plies`` plies: nearly every
position after the opening is new. Deterministic for a seed; written by two processes. Game ``n`` depends only on
the seed and ``n``: ``--first 1000000`` writes games 1,000,000 on, so files made in parts concatenate to the
file made at once.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ("1-0", "0-1", "1/2-1/2", "1-0", "0-1", "*")


def _openings(source: str, limit: int = 2000) -> list[list[chess.Move]]:
    lines = []
    with open(source, encoding="utf-8", errors="replace") as handle:
        while len(lines) < limit and (game := chess.pgn.read_game(handle)) is not None:
            if "FEN" not in game.headers:
                lines.append(list(game.mainline_moves())[:12])
    return lines


def _games(task: tuple[int, int, int, int, list[list[chess.Move]]]) -> str:
    first, count, plies, seed, openings = task
    out = []
    for number in range(first, first + count):
        rng = random.Random(seed * 1_000_003 + number)
        board = chess.Board()
        opening = rng.choice(openings)[: rng.randint(0, 12)]
        sans = []
        for move in opening:
            sans.append(board.san(move))
            board.push(move)
        while len(sans) < plies and not board.is_game_over():
            move = rng.choice(list(board.legal_moves))
            sans.append(board.san(move))
            board.push(move)
        moves = " ".join(f"{i // 2 + 1}. {san}" if i % 2 == 0 else san for i, san in enumerate(sans))
        result = rng.choice(RESULTS)
        out.append(f'[Event "distinct"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "{number}"]\n[White "?"]\n'
                   f'[Black "?"]\n[Result "{result}"]\n\n{moves} {result}\n\n')
    return "".join(out)


def write(games: int, path: str | Path, *, source: str, plies: int = 40, seed: int = 1, processes: int = 2,
          first: int = 0) -> None:
    openings = _openings(source)
    step = 2000
    end = first + games
    tasks = [(start, min(step, end - start), plies, seed, openings) for start in range(first, end, step)]
    with multiprocessing.get_context("fork").Pool(processes) as pool, open(path, "w", encoding="utf-8") as out:
        for text in pool.imap(_games, tasks):
            out.write(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=int)
    parser.add_argument("out")
    parser.add_argument("--source", default=str(ROOT.parent / "shared/corpus/pgn/twic1134-mainlines.pgn"))
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="number of the first game (default 0)")
    args = parser.parse_args()
    write(args.games, args.out, source=args.source, plies=args.plies, seed=args.seed, first=args.first)


if __name__ == "__main__":
    main()
