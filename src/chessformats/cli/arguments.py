"""The command line's arguments before and around argparse: ``--moves`` that ends at the first word that is not a
move, the encodings of ``--encoding`` and ``--pgn-encoding`` checked (a wrong one: argparse's one-line refusal,
not a traceback at the first text written), and the old spellings of options kept working (not shown in
``--help``)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["PGN_ENCODING_HELP", "Deprecated", "at_least", "code_page", "end_moves", "pgn_encoding"]

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


_ASCII = bytes(range(32, 127)) + b"\t\n\r"


def _ascii_codec(name: str, examples: str) -> bool:
    """Whether ``name`` is a text codec that reads and writes ASCII (the PGN's markup, a name's ASCII letters) as
    ASCII, bytes it does not define read as U+FFFD (not UTF-16, UTF-7, EBCDIC, nor a codec of no text: base64,
    rot13); argparse's one-line refusal of a codec Python does not know."""
    import codecs

    try:
        codecs.lookup(name)
    except LookupError:
        raise argparse.ArgumentTypeError(f"no such encoding: {name} ({examples})") from None
    import warnings

    try:
        with warnings.catch_warnings():  # (unicode_escape's words on the backslash of ASCII)
            warnings.simplefilter("ignore")
            return _ASCII.decode(name, errors="replace") == _ASCII.decode("ascii") and \
                _ASCII.decode("ascii").encode(name, errors="replace") == _ASCII
    except (LookupError, UnicodeError):  # a codec of no text (base64, rot13), or without errors="replace" (idna)
        return False


def pgn_encoding(name: str) -> str | None:
    """``--pgn-encoding``: a codec Python knows (``None`` for ``auto``) that reads ASCII as ASCII, the PGN's tags
    and moves being ASCII whatever the names' encoding; else argparse's one-line refusal."""
    if name.lower() == "auto":
        return None
    examples = "e.g. utf-8, cp1251, latin-1; or auto"
    if not _ascii_codec(name, examples):
        raise argparse.ArgumentTypeError(f"{name} cannot be a PGN file's encoding: it does not read ASCII (the tags "
                                         f"and moves) as ASCII ({examples})")
    return name


def code_page(name: str) -> str:
    """``--encoding``, a ChessBase base's code page: a codec Python knows that writes ASCII as ASCII and every other
    character in one byte (cp1252, cp1251, latin-1, koi8-r, ...), or UTF-8 (what the base's texts are read as when
    valid); else argparse's one-line refusal. UTF-16 or UTF-32 would write 0 bytes into names that end at one, a
    byte-order mark into each: names that read back wrong."""
    import codecs

    examples = "a code page: cp1252, cp1251, latin-1, ...; or utf-8"
    if _ascii_codec(name, examples) and (codecs.lookup(name).name == "utf-8" or all(
            len(char.encode(name, errors="replace")) == 1 for char in "é€Ж")):
        return name
    raise argparse.ArgumentTypeError(f"{name} cannot be a ChessBase base's code page: it must write ASCII as ASCII "
                                     f"and each other character in one byte ({examples})")


def at_least(lowest: int) -> Callable[[str], int]:
    """An integer option's type: a whole number of at least ``lowest`` (``--jobs 0`` or ``--min-games -1`` are
    argparse's one-line refusal, not a build that silently does nothing)."""
    def number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"{value} is less than {lowest}")
        return value

    number.__name__ = f"int >= {lowest}"
    return number


class Deprecated(argparse.Action):
    """An option's old spelling (``--out``, build's ``--format``): stores the value, says what replaced it."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        new = {"output": "-o/--output", "to": "--to"}.get(self.dest, self.dest)
        print(f"chessformats: warning: {option_string} is deprecated: use {new}", file=sys.stderr)
        setattr(namespace, self.dest, values)
