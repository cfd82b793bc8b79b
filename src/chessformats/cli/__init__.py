"""The ``chessformats`` command (``python -m chessformats.cli`` or the ``chessformats`` script)."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
