"""The command line's arguments before and around argparse: ``--moves`` that ends at the first word that is not a
move, and the old spellings of options kept working (not shown in ``--help``)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

__all__ = ["PGN_ENCODING_HELP", "Deprecated", "end_moves", "pgn_encoding"]

PGN_ENCODING_HELP = ("the PGN text's encoding (cp1251, latin-1, ...); default auto: UTF-8, and a game that is not "
                     "valid UTF-8 as Windows-1252")


_MOVE = re.compile(r"(?:[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=?[QRBNqrbn])?|[O0]-[O0](?:-[O0])?"
                   r"|[a-h][1-8][a-h][1-8][qrbn]?|0000|--)[+#]?[!?]{0,2}")
"""A move as ``--moves`` takes it: SAN (``Nf3``, ``exd5``, ``e8=Q+``, ``O-O``) or UCI (``e2e4``, ``e7e8q``)."""


def end_moves(arguments: list[str]) -> list[str]:
    """``--moves`` takes the words after it while they are moves: ``probe --moves e4 e5 book.bin`` reads
    ``book.bin`` as the book (argparse alone would take it for a third move)."""
    out: list[str] = []
    index = 0
    while index < len(arguments):
        word = arguments[index]
        index += 1
        if word == "--":
            out += arguments[index - 1:]
            break
        if word != "--moves":
            out.append(word)
            continue
        moves = []
        while index < len(arguments) and _MOVE.fullmatch(arguments[index]) and not os.path.exists(arguments[index]):
            moves.append(arguments[index])
            index += 1
        out += [f"--moves={move}" for move in moves] if moves else [word]
    return out


def pgn_encoding(name: str) -> str | None:
    """``--pgn-encoding``: a codec Python knows (``None`` for ``auto``); else argparse's one-line refusal."""
    if name.lower() == "auto":
        return None
    import codecs

    try:
        codecs.lookup(name)
    except LookupError:
        raise argparse.ArgumentTypeError(f"no such encoding: {name} (e.g. utf-8, cp1251, latin-1; or auto)") from None
    return name


class Deprecated(argparse.Action):
    """An option's old spelling (``--out``, build's ``--format``): stores the value, says what replaced it."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        new = {"output": "-o/--output", "to": "--to"}.get(self.dest, self.dest)
        print(f"chessformats: warning: {option_string} is deprecated: use {new}", file=sys.stderr)
        setattr(namespace, self.dest, values)
