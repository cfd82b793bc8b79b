"""What ``chessformats build`` checks before it reads a game: its inputs, and every option against the format of
the book it writes. (The moves a format cannot store are said by its writer's warning: :mod:`..books.leftout`.)"""

from __future__ import annotations

import argparse

from ..engine.errors import FormatError

__all__ = ["BUILT", "check_build", "reduced"]

BUILT = ("polyglot", "ctg", "kvetka")
"""The formats ``build`` writes."""

_REFUSED = {
    "sources": {"polyglot": "a Polyglot book stores no sources (a Kvetka book does: NAME.ksf)",
                "ctg": "a CTG book stores no sources (a Kvetka book does: NAME.ksf)"},
    "uniform": {"ctg": "sets Polyglot weights; a CTG book stores game counts",
                "kvetka": "sets Polyglot weights; a Kvetka book stores results, not weights"},
}
"""The options a format cannot honour, and why (each format's ``build`` takes the options it honours)."""


def check_build(args: argparse.Namespace, key: str) -> None:
    """Refuse, in one line and before any game is read, a missing input, a file that holds no games, a base
    without its moves, and an option the book's format ``key`` cannot honour."""
    from .convert import check_companions, games_source

    for option, refused in _REFUSED.items():
        if getattr(args, option) and key in refused:
            raise FormatError(f"--{option}: {refused[key]}", file=args.output)
    if (args.reducers is not None or args.shuffle_dir is not None) and not reduced(args, key):
        option = "--reducers" if args.reducers is not None else "--shuffle-dir"
        raise ValueError(f"{option} needs --dask, a .bin book and no ChessBase database among the inputs")
    for source in args.games:
        if games_source(source, "build") == "chessbase":
            check_companions(source)
            if args.sources:
                raise FormatError("--sources records PGN files as the book's sources, not a ChessBase base",
                                  file=source)
    if args.pgn_encoding is not None and not (key == "kvetka" and args.sources):
        raise FormatError("--pgn-encoding reads the players' names a Kvetka book's --sources records (NAME.ksf): the "
                          "other books store no text of the games, their moves read the same in any encoding",
                          file=args.output)
    if args.memory < 0:
        raise ValueError("--memory must be 0 (keep every count in memory) or a number of MiB")
    if args.dask is not None:
        _need_dask()
        if any(source.lower().endswith(".cbz") for source in args.games):
            raise FormatError("--dask reads no enciphered archive (.cbz): extract it first (chessformats extract)")


def reduced(args: argparse.Namespace, key: str) -> bool:
    """Whether the build distributes the reduce by key range too (:func:`.distributed.build_reduced`)."""
    from ..books.pieces import DATABASE_NAMES

    return args.dask is not None and key == "polyglot" and not any(
        source.lower().endswith(DATABASE_NAMES) for source in args.games)


def _need_dask() -> None:
    """``build --dask`` without the extra installed: one line saying how to get it, before anything is read."""
    import importlib

    try:
        importlib.import_module("dask.distributed")
    except ImportError:
        raise FormatError("--dask needs Dask: pip install 'chessformats[dask]'") from None
