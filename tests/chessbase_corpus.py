"""Where the ChessBase tests find a corpus base, and a scratch copy of one to damage."""

from __future__ import annotations

import shutil
from pathlib import Path

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
