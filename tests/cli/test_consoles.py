"""The command line's one rule for where it writes (chessformats.cli.consoles): messages as plain lines when stderr
is no terminal, through rich with bars on one."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from rich.console import Console

from chessformats.cli.consoles import PlainConsole, console, progress_bar, terminal


class _Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_messages_are_plain_lines_when_stderr_is_no_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    shown = console(stderr=True)  # (pytest's captured stderr is no terminal)
    assert isinstance(shown, PlainConsole) and terminal(shown) is None
    shown.print("[bold]12:30[/bold] :smile:")  # as it is: no markup, no emoji code read
    assert capsys.readouterr().err == "[bold]12:30[/bold] :smile:\n"
    with progress_bar(shown, "converting x", "{task.completed:,} rows") as update:
        assert update is None


def test_messages_go_through_rich_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Screen())
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    shown = console(stderr=True)
    assert isinstance(shown, Console) and shown.file is sys.stderr and terminal(shown) is shown
    assert isinstance(console(), Console)  # results: rich whatever stdout is


def test_a_bar_is_drawn_on_a_terminal_console_only() -> None:
    screen = io.StringIO()
    drawn = Console(file=screen, force_terminal=True, width=120)
    with progress_bar(drawn, "converting games.pgn", "{task.completed:,} rows", total=5000) as update:
        assert update is not None
        update(4321)
    assert "converting games.pgn" in screen.getvalue() and "4,321 rows" in screen.getvalue()
    piped = Console(file=io.StringIO(), force_terminal=False)
    assert terminal(piped) is None
    with progress_bar(piped, "converting games.pgn", "{task.completed:,} rows") as update:
        assert update is None


def test_names_and_reasons_are_shown_as_they_are_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    """rich reads markup in what it prints: a file name holding ``[/x]`` raised its MarkupError (exit status 3),
    one holding ``[bold]`` lost it. Messages (stderr, a terminal) and the names a result prints are as given."""
    from chessformats.cli import main

    folder = tmp_path / "d[bold]x["  # (a name holds no '/': a folder's name ends where '[/x]' begins)
    folder.mkdir()
    games = folder / "[bold]g.pgn"
    games.write_text('[Event "e"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 1-0\n\n[Event "f"]\n[Result "1-0"]\n\n1. d4 1-0\n')
    target = folder / "x]o.cbh"
    assert "[bold]x[/x]" in str(target)
    screen = _Screen()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["convert", str(games), "-o", str(target)]) == 0
    said = screen.getvalue()
    assert f"1 games written to {target} in " in said and "illegal san: 'Ke3'" in said
    assert "converting [bold]g.pgn" in said  # (the bar's description)
    book = folder / "[bold]b.bin"
    assert main(["build", str(games), "-o", str(book), "--min-games", "1", "--jobs", "1"]) == 0
    assert f"entries written to {book} in " in screen.getvalue()
    assert "reading [bold]g.pgn" in screen.getvalue()  # (the bar's description)
    assert main(["convert", str(book), "-o", str(folder / "x]c.ctg")]) == 0
    assert "reading [bold]b.bin: " in screen.getvalue()  # (the spinner's line)
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdout", shown)
    assert main(["info", str(target)]) == 0
    assert shown.getvalue().startswith(f"{target}: ChessBase")
