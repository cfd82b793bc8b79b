"""The ``chessformats`` command (``python -m chessformats.cli`` or the ``chessformats`` script).

The command does no linear algebra: numpy's OpenBLAS is told to start no threads (unless the environment says
otherwise), which takes a third of numpy's import time (~30-60 ms of CPU at every start, on 2 cores)."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .main import build_parser, main  # (after the setting: numpy reads it when first imported)

__all__ = ["build_parser", "main"]
