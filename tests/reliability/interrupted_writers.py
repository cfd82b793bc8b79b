"""The writers ``test_interrupted_writes.py`` kills: one small (old) and one big (new) book per format, written
through the public API. Imported by the test and by its child process (deterministic bytes both times)."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any

CORPUS = Path(os.environ.get("CHESSFORMATS_CORPUS") or Path(__file__).resolve().parents[2].parent / "shared" / "corpus")


def write(name: str, target: str, *, big: bool) -> None:
    {"polyglot": _polyglot, "monty": _monty, "ctg": _ctg, "kvetka": _kvetka, "chessbase": _chessbase}[name](target,
                                                                                                       big)


def _polyglot(target: str, big: bool) -> None:
    from chessformats import polyglot

    count = 300_000 if big else 100
    polyglot.write_book(target, {key * 0x9E3779B97F4A7C15 % (1 << 64): {"e2e4": key % 100 + 1}
                                 for key in range(1, count + 1)})


def _monty(target: str, big: bool) -> None:
    from chessformats import monty

    games = list(monty.read_games(CORPUS / "monty" / "reference_generated_policy.montyformat"))
    monty.write_games(target, games * (400 if big else 1))


def _ctg(target: str, big: bool) -> None:
    from chessformats import ctg

    name = "PowerPlay17-Sicilienne.ctg" if big else "simple.ctg"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ctg.open_book(CORPUS / "ctg" / name) as book:
            records = list(book.records())
    ctg.write_book(target, records)


@functools.cache
def _stats(games: int) -> Any:
    from chessformats.books.build import BookBuilder

    text = (CORPUS / "pgn" / "twic1134-mainlines.pgn").read_bytes()
    starts = [m.start() for m in re.finditer(rb"\[Event ", text)]
    builder = BookBuilder(max_ply=20)
    builder.add_pgn_text(text[:starts[games]].decode("utf-8", "replace"))
    return builder.to_stats()


def _kvetka(target: str, big: bool) -> None:
    from chessformats import kvetka

    kvetka.write_book(target, _stats(400 if big else 40), file_limit=8 * kvetka.BLOCK_SIZE)


def _chessbase(target: str, big: bool) -> None:
    import io

    import chess.pgn

    from chessformats import chessbase

    text = (CORPUS / "pgn" / "twic1134-mainlines.pgn").read_text("utf-8", "replace")
    handle = io.StringIO(text)
    games = []
    for _ in range(400 if big else 5):
        game = chess.pgn.read_game(handle)
        if game is None:
            break
        games.append(game)
    chessbase.write_database(target + ".cbh", games)
