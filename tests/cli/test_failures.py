"""What the command line says of an exception: a user's error in one line (exit status 2), a bug with its traceback
(exit status 3) -- told apart exactly: a ``KeyError``/``IndexError``/``ValueError`` is the user's only when a
``raise`` statement of the package (or python-chess's, called by the command line) raised it, never when Python
raised it in the package's code (a missing key of a dict, an unpacking, ``int()``, numpy). And the encodings of
``--encoding`` and ``--pgn-encoding`` refused by argparse, in one line, before anything is read or written.

The exceptions are raised from code compiled under file names inside the package's folder (the files need not
exist: only the frames' names count), as a reader or a command would raise them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np
import pytest

import chessformats
from chessformats.cli import main
from chessformats.cli.arguments import code_page, pgn_encoding
from chessformats.cli.failures import is_users_error, report
from chessformats.engine.errors import FormatError

PACKAGE = Path(os.path.dirname(os.path.abspath(chessformats.__file__)))
READER = str(PACKAGE / "formats" / "a_reader.py")  # a frame of the library
COMMAND = str(PACKAGE / "cli" / "a_command.py")  # a frame of the command line

SOURCE = '''
def lookup(table, key):
    return table[key]

def unpack(values):
    first, second = values
    return first, second

def number(text):
    return int(text)

def broadcast():
    return np.zeros(2) + np.zeros(3)

def reshape():
    return np.zeros(3).reshape(2, 2)

def reraise(text):
    try:
        return int(text)
    except ValueError:
        raise

def refuse():
    raise ValueError("a rating of 70000 does not fit the field's 2 bytes")

def no_such_game(number):
    raise KeyError(
        f"no such game: {number}")

def no_such_record(number):
    raise IndexError(f"no record {number}") from None

def refuse_text(text):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"not a number of games: {text!r}") from None

def wrong_type():
    raise TypeError("expected bytes")

def san(text):
    return chess.Board().parse_san(text)

def fen(text):
    return chess.Board(text)

def square(name):
    return chess.parse_square(name)

def fails(text):
    if {}.get(text) is None:
        raise FormatError(f"{text}: not a Polyglot book")
'''


def _module(filename: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"np": np, "chess": chess, "FormatError": FormatError}
    exec(compile(SOURCE, filename, "exec"), namespace)
    return namespace


LIBRARY, CLI = _module(READER), _module(COMMAND)


def _raised(call: Callable[..., object], *args: object) -> Exception:
    try:
        call(*args)
    except Exception as exc:
        return exc
    raise AssertionError(f"{call} raised nothing")


def _said(capsys: pytest.CaptureFixture[str], exc: Exception) -> tuple[int, str]:
    code = report(exc)
    out, err = capsys.readouterr()
    assert not out
    return code, err


BUGS = [  # Python's own errors in the package's code, and what no raise of the package said
    ("dict lookup in a reader", LIBRARY["lookup"], ({}, "entries"), "KeyError: 'entries'"),
    ("dict lookup in the command line", CLI["lookup"], ({}, "format"), "KeyError: 'format'"),
    ("list index in the command line", CLI["lookup"], ([], 3), "IndexError: list index out of range"),
    ("tuple unpacking", LIBRARY["unpack"], ([1],), "ValueError: not enough values to unpack"),
    ("tuple unpacking in the command line", CLI["unpack"], ([1, 2, 3],), "ValueError: too many values to unpack"),
    ("int() of internal data", LIBRARY["number"], ("x1",), "ValueError: invalid literal for int()"),
    ("numpy broadcast", LIBRARY["broadcast"], (), "ValueError: operands could not be broadcast"),
    ("numpy reshape", LIBRARY["reshape"], (), "ValueError: cannot reshape array"),
    ("a bare raise of int()'s error", LIBRARY["reraise"], ("x1",), "ValueError: invalid literal for int()"),
    ("a TypeError raised on purpose", LIBRARY["wrong_type"], (), "TypeError: expected bytes"),
    ("python-chess refusing the library's SAN", LIBRARY["san"], ("Ke2",), "IllegalMoveError: illegal san"),
    ("python-chess's list.index", CLI["square"], ("z9",), "ValueError: 'z9' is not in list"),
]

USERS = [  # raised on purpose, with words for the user
    ("the library's refusal", LIBRARY["refuse"], (), "a rating of 70000 does not fit the field's 2 bytes"),
    ("the command line's KeyError (its text, not its repr)", CLI["no_such_game"], (9,), "no such game: 9"),
    ("the library's IndexError", LIBRARY["no_such_record"], (4,), "no record 4"),
    ("int()'s error said again", CLI["refuse_text"], ("x1",), "not a number of games: 'x1'"),
    ("python-chess refusing the user's move", CLI["san"], ("Ke2",), "illegal san: 'Ke2' in rnbqkbnr"),
    ("python-chess refusing the user's FEN", CLI["fen"], ("not a fen",), "expected 'w' or 'b' for turn part"),
    ("a FormatError", LIBRARY["fails"], ("x.bin",), "x.bin: not a Polyglot book"),
    ("an OSError", open, (os.path.join(os.sep, "no", "such", "file.bin"),), "No such file or directory"),
]


@pytest.mark.parametrize(("case", "call", "args", "said"), BUGS, ids=[case[0] for case in BUGS])
def test_python_s_own_errors_in_the_package_are_bugs(capsys: pytest.CaptureFixture[str], case: str,
                                                     call: Callable[..., object], args: tuple[object, ...],
                                                     said: str) -> None:
    exc = _raised(call, *args)
    assert not is_users_error(exc), case
    code, err = _said(capsys, exc)
    assert code == 3
    assert "Traceback (most recent call last)" in err and "This is a bug of chessformats" in err
    assert f"chessformats: internal error: {said}" in err
    assert "chessformats: error:" not in err


@pytest.mark.parametrize(("case", "call", "args", "said"), USERS, ids=[case[0] for case in USERS])
def test_errors_raised_on_purpose_are_one_line(capsys: pytest.CaptureFixture[str], case: str,
                                               call: Callable[..., object], args: tuple[object, ...],
                                               said: str) -> None:
    exc = _raised(call, *args)
    assert is_users_error(exc), case
    code, err = _said(capsys, exc)
    assert code == 2
    assert err.startswith("chessformats: error: ") and said in err and len(err.splitlines()) == 1
    assert "Traceback" not in err


def test_a_raise_outside_the_package_is_a_bug() -> None:
    """A ValueError raised on purpose by another module (the standard library, a test) is not the package's
    refusal: its words are not meant for the command's user."""
    outside = _module(str(PACKAGE.parent / "elsewhere.py"))
    assert not is_users_error(_raised(outside["refuse"]))
    assert is_users_error(_raised(LIBRARY["refuse"]))  # (the same code, compiled in the package)


def test_a_bug_in_a_command_exits_3_through_main(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer's case end to end: a dict lookup failing in the command line's code prints its traceback, not
    ``chessformats: error: format``."""
    module = importlib.import_module("chessformats.cli.main")

    def command(args: argparse.Namespace) -> int:
        return int(CLI["lookup"]({}, "format"))

    monkeypatch.setattr(module, "cmd_formats", command)
    code = main(["formats"])
    out, err = capsys.readouterr()
    assert code == 3 and not out and "Traceback" in err and "chessformats: internal error: KeyError: 'format'" in err
    assert "chessformats: error: format" not in err


# --- the encodings, refused by argparse ---------------------------------------------------------------------------

PGN = '[Event "Test"]\n[White "Иванов, Иван"]\n[Black "Müller, Jörg"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n'


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One game with a Cyrillic and a German name, in UTF-8, and a base written from it."""
    folder = tmp_path_factory.mktemp("encodings")
    (folder / "g.pgn").write_text(PGN, encoding="utf-8")
    assert main(["convert", str(folder / "g.pgn"), "-o", str(folder / "base.cbh")]) == 0
    return folder


def _refused(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and not out
    assert "Traceback" not in err and "internal error" not in err
    return err.splitlines()[-1]


@pytest.mark.parametrize(("source", "target", "option", "name", "said"), [
    ("g.pgn", "x.cbh", "--encoding", "nosuch", "argument --encoding: no such encoding: nosuch"),
    ("base.cbh", "x.pgn", "--encoding", "nosuch", "argument --encoding: no such encoding: nosuch"),
    ("g.pgn", "x.cbh", "--encoding", "utf-16", "argument --encoding: utf-16 cannot be a ChessBase base's code page"),
    ("base.cbh", "x.cbh", "--encoding", "utf-16-le", "utf-16-le cannot be a ChessBase base's code page"),
    ("g.pgn", "x.cbh", "--encoding", "base64", "argument --encoding: base64 cannot be"),
    ("g.pgn", "x.cbh", "--pgn-encoding", "nosuch", "argument --pgn-encoding: no such encoding: nosuch"),
    ("g.pgn", "x.cbh", "--pgn-encoding", "utf-16", "argument --pgn-encoding: utf-16 cannot be a PGN file's"),
    ("g.pgn", "x.cbh", "--pgn-encoding", "rot13", "argument --pgn-encoding: rot13 cannot be a PGN file's"),
])
def test_a_wrong_encoding_is_argparse_s_one_line_error(capsys: pytest.CaptureFixture[str], games: Path, source: str,
                                                       target: str, option: str, name: str, said: str) -> None:
    line = _refused(capsys, "convert", games / source, "-o", games / target, option, name)
    assert line.startswith("chessformats convert: error: ") and said in line
    assert not (games / target).exists()


def test_build_refuses_a_wrong_pgn_encoding(capsys: pytest.CaptureFixture[str], games: Path) -> None:
    line = _refused(capsys, "build", games / "g.pgn", "-o", games / "b.kob", "--sources", "--pgn-encoding", "utf-32")
    assert line.startswith("chessformats build: error: argument --pgn-encoding: utf-32 cannot be")
    assert not (games / "b.kob").exists()


@pytest.mark.parametrize("name", ["cp1251", "CP1251", "koi8-r", "utf-8", "UTF8"])
def test_a_code_page_writes_names_that_read_back(capsys: pytest.CaptureFixture[str], games: Path, name: str) -> None:
    """A code page accepted: the base's player file holds the names in its bytes (``str.encode``, the oracle), and
    they read back into PGN that python-chess reads as the names given."""
    base, back = games / f"{name}.cbh", games / f"{name}.pgn"
    assert main(["convert", str(games / "g.pgn"), "-o", str(base), "--encoding", name]) == 0
    players = base.with_suffix(".cbp").read_bytes()
    utf8 = name.lower().startswith("utf")
    assert "Иванов".encode(name) in players and ("Müller".encode() in players) is utf8
    assert main(["convert", str(base), "-o", str(back), "--encoding", name]) == 0
    capsys.readouterr()
    with open(back, encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None and game.headers["White"] == "Иванов, Иван"
    assert game.headers["Black"] == ("Müller, Jörg" if utf8 else "M?ller, J?rg")


@pytest.mark.parametrize(("name", "base", "pgn"), [
    ("cp1252", True, True), ("latin-1", True, True), ("cp1251", True, True), ("koi8-r", True, True),
    ("mac-roman", True, True), ("cp437", True, True), ("ascii", True, True), ("utf-8", True, True),
    ("gbk", False, True), ("shift_jis", False, True),  # (ASCII as ASCII, but 2 bytes a character)
    ("utf-8-sig", False, False), ("utf-16", False, False), ("utf-32-be", False, False), ("utf-7", False, False),
    ("cp037", False, False), ("unicode_escape", False, False), ("idna", False, False), ("hex", False, False),
])
def test_which_codecs_are_taken(name: str, base: bool, pgn: bool) -> None:
    for check, taken in ((code_page, base), (pgn_encoding, pgn)):
        if taken:
            assert check(name) == name
        else:
            with pytest.raises(argparse.ArgumentTypeError, match=rf"^{re.escape(name)} cannot be"):
                check(name)
    assert pgn_encoding("auto") is None
    with pytest.raises(argparse.ArgumentTypeError, match=r"^no such encoding: auto"):
        code_page("auto")
