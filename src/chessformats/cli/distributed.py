"""The options of ``build --dask`` and the build of a Polyglot book with the reduce distributed by key range."""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import TYPE_CHECKING, Any

from .arguments import at_least
from .outputs import say_built

if TYPE_CHECKING:
    from ..books.filters import GameFilter

__all__ = ["add_dask_options", "build_reduced"]


def add_dask_options(p: argparse.ArgumentParser) -> None:
    """The options of a build on a Dask cluster."""
    p.add_argument("--dask", nargs="?", const="local", metavar="SCHEDULER",
                   help="count on a Dask cluster (pip install 'chessformats[dask]'): a scheduler address such as "
                        "tcp://host:8786, or none for a local cluster of --dask-workers processes")
    p.add_argument("--dask-workers", type=at_least(1), default=2,
                   help="processes of the local Dask cluster (default 2)")
    p.add_argument("--reducers", type=int, metavar="R",
                   help="with --dask and a .bin book: key ranges merged by R tasks on the workers (default: one per "
                        "GiB of input, at least one per worker thread)")
    p.add_argument("--shuffle-dir", metavar="DIR",
                   help="with --dask and a .bin book: where the workers exchange the events by key range, made when "
                        "missing; the same path on the client and every worker (default: the system's temporary "
                        "folder)")


def build_reduced(args: argparse.Namespace, say: Any, started: float, bar: Any, game_filter: GameFilter) -> int:
    """``build --dask`` of a Polyglot book: the reduce distributed by key range too (:func:`~.write_book`)."""
    from ..books.build import table_rows
    from ..books.distributed import write_book

    if args.reducers is not None and args.reducers < 1:
        raise ValueError("--reducers must be >= 1")
    with bar.shown() if bar is not None else contextlib.nullcontext():
        done = write_book(args.games, args.output, scheduler=None if args.dask == "local" else args.dask,
                          workers=args.dask_workers, reducers=args.reducers, max_ply=args.max_ply,
                          game_filter=game_filter, min_games=args.min_games, min_score=args.min_score / 100.0,
                          only=True if args.only_white else False if args.only_black else None,
                          uniform=args.uniform, table_rows=None if args.memory == 0 else table_rows(args.memory),
                          spill_dir=args.spill_dir, shuffle_dir=args.shuffle_dir,
                          progress=bar.update if bar is not None else None)
    return say_built(say, done.games, done.filtered, done.skipped, done.written,
                     f"{done.games:,} games, {done.rows:,} positions x moves, {done.written:,} entries written to "
                     f"{done.path} in {time.perf_counter() - started:.2f} s ({done.pieces:,} pieces, "
                     f"{done.reducers} key ranges)")
