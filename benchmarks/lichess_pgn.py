"""A lichess-style PGN file: real games with a ``{ [%eval 0.39] [%clk 0:02:57] }`` comment after every move.

    python benchmarks/lichess_pgn.py GAMES OUT.pgn [--source twic1134-mainlines.pgn] [--seed 1] [--marks]

The games are those of ``--source`` (repeated as often as needed to make ``GAMES``), each given a
``TimeControl "180+0"`` tag and, after every move, an evaluation (a random walk in pawns, now and then a mate
``#n``) and the mover's clock (3 minutes, falling by 0-5 s a move), as lichess's database exports write them.
``--marks``: lichess's analysis marks too (``?!``, ``?``, ``??`` after about one move in 20). Deterministic for a
seed. :func:`lichess_like` does the same to a text (``bench_dask.py`` measures book building on it).
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared/corpus/pgn/twic1134-mainlines.pgn"
_SAN = re.compile(r"(?<![\w.])([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=[QRBN])?[+#]?|O-O(?:-O)?[+#]?)(?=\s)")
_DANGLING = re.compile(r" \d+\.\.\.(?=\s+(?:1-0|0-1|1/2-1/2|\*)\s*$)")
"""A black move number written after white's last move (before the result): left out."""
_MARKS = ("?!", "?", "??")
_START_SECONDS = 180


def _annotate(movetext: str, rng: random.Random, marks: bool) -> str:
    """A game's movetext with an evaluation and a clock after every move."""
    clocks = [_START_SECONDS, _START_SECONDS]
    state = {"ply": 0, "eval": 0.2}

    def comment(match: re.Match[str]) -> str:
        side = state["ply"] % 2
        state["ply"] += 1
        clocks[side] = max(0, int(clocks[side]) - rng.randint(0, 5))
        state["eval"] += rng.uniform(-0.4, 0.4)
        score = f"#{rng.choice((-1, 1)) * rng.randint(1, 9)}" if rng.random() < 0.02 else f"{state['eval']:.2f}"
        seconds = int(clocks[side])
        mark = rng.choice(_MARKS) if marks and rng.random() < 0.05 else ""
        black = f" {state['ply'] // 2 + 1}..." if side == 0 else ""  # lichess numbers black's move after a comment
        return f"{match.group(1)}{mark} {{ [%eval {score}] [%clk {seconds // 3600}:{seconds // 60 % 60:02d}:" \
               f"{seconds % 60:02d}] }}{black}"

    return _DANGLING.sub("", _SAN.sub(comment, movetext))


def lichess_like(text: str, *, seed: int = 0, marks: bool = False) -> str:
    """The games of a PGN text with a lichess-style comment after every move (tag lines kept)."""
    rng = random.Random(seed)
    return "\n".join(line if line.startswith("[") else _annotate(line, rng, marks) for line in text.split("\n"))


def write(games: int, path: str | Path, *, source: str | Path = DEFAULT_SOURCE, seed: int = 1,
          marks: bool = False) -> None:
    text = Path(source).read_text(encoding="utf-8", errors="replace").strip()
    blocks = [block for block in re.split(r"\n\s*\n(?=\[)", text) if "[%" not in block]
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        for number in range(games):
            block = blocks[number % len(blocks)]
            tags, _, movetext = block.partition("\n\n")
            out.write(f'{tags}\n[TimeControl "180+0"]\n\n{_annotate(movetext, rng, marks)}\n\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=int)
    parser.add_argument("out")
    parser.add_argument("--source", default=str(DEFAULT_SOURCE))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--marks", action="store_true", help="lichess's ?!, ?, ?? marks after some moves")
    args = parser.parse_args()
    write(args.games, args.out, source=args.source, seed=args.seed, marks=args.marks)


if __name__ == "__main__":
    main()
