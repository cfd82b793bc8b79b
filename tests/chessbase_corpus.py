"""Where the ChessBase tests find a corpus base, a scratch copy of one to damage, and a game compared with the game
it was written from."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess.pgn

from chessformats.formats.chessbase.pgn import tree_of
from conftest import find_corpus


def cbh_path(name: str) -> Path:
    """The ``.cbh`` file of the corpus base in ``corpus/chessbase/<name>`` (skips when the corpus is absent)."""
    (cbh,) = sorted(find_corpus("chessbase", name).glob("*.cbh"))
    return cbh


def copy_base(name: str, folder: Path) -> Path:
    """Every file of a corpus base copied into ``folder``; the copy's ``.cbh`` path."""
    cbh = cbh_path(name)
    for path in cbh.parent.iterdir():
        if path.is_file():
            shutil.copy(path, folder / path.name)
    return folder / cbh.name


_COMMANDS = re.compile(r"\[%(?:csl|cal|clk|emt|eval)\s[^\]]*\]")


def annotations_of(game: chess.pgn.Game) -> list[Any]:
    """Every node's annotations, depth first: comment text (commands aside), starting comment, NAGs, squares
    and arrows, clock, time spent, evaluation."""
    def text(comment: str) -> str:
        return " ".join(_COMMANDS.sub(" ", comment).split())

    out: list[Any] = [text(game.comment)]
    for node in depth_first(game):
        score = node.eval()
        out.append((text(node.comment), text(node.starting_comment), sorted(node.nags),
                    sorted((a.tail, a.head, a.color) for a in node.arrows()), node.clock(), node.emt(),
                    None if score is None else (score.white(), node.eval_depth())))
    return out


def depth_first(game: chess.pgn.Game) -> Iterator[chess.pgn.ChildNode]:
    stack = list(reversed(game.variations))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.variations))


def same_game(source: chess.pgn.Game, back: chess.pgn.Game, *, ignore: tuple[str, ...] = ()) -> None:
    assert tree_of(back) == tree_of(source)
    assert annotations_of(back) == annotations_of(source)
    assert back.board().fen() == source.board().fen()
    wanted = {name: value for name, value in source.headers.items() if name not in ignore}
    got = {name: value for name, value in back.headers.items() if name not in ignore}
    assert got == wanted
