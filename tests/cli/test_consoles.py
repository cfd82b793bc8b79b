"""The command line's one rule for where it writes (chessformats.cli.consoles): messages as plain lines when stderr
is no terminal, through rich with bars on one."""

from __future__ import annotations

import io
import sys

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
