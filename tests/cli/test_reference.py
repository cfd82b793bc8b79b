"""``docs/cli.md`` is the command line's parser, written out (``python -m chessformats.cli.reference
docs/cli.md`` after changing an option)."""

from __future__ import annotations

import argparse

from chessformats.cli.main import build_parser
from chessformats.cli.reference import cli_reference
from conftest import REPO_ROOT


def test_docs_cli_is_current() -> None:
    page = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == cli_reference(), "docs/cli.md is stale: python -m chessformats.cli.reference docs/cli.md"


def test_the_page_names_every_command_and_option_and_the_exit_codes() -> None:
    page = cli_reference()
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        assert f"## chessformats {name}\n" in page
        for action in sub._actions:
            if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
                for flag in action.option_strings:
                    assert f"`{flag}`" in page, (name, flag)
    assert "exit status:" in page and "numbering: games count from 1" in page
    assert "`--out`" not in page  # the deprecated spellings are not shown
