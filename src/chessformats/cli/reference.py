"""``docs/cli.md``, the command line's reference, generated from its parser (:func:`.main.build_parser`): every
command with its arguments and their help, the exit statuses and the numbering convention of the ``--help``
epilogue. ``python -m chessformats.cli.reference docs/cli.md`` writes it; ``tests/cli/test_reference.py`` fails
when the page is not what the parser gives.

The page is made from the parser's actions, not from ``format_help()``, whose layout changes with the terminal's
width and the Python version.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .main import DESCRIPTION, EPILOG, build_parser

__all__ = ["cli_reference"]

_HEAD = """# The `chessformats` command

<!-- generated from the parser by `python -m chessformats.cli.reference docs/cli.md`; a test fails when it is stale -->

"""


def _commands(parser: argparse.ArgumentParser) -> dict[str, tuple[argparse.ArgumentParser, str]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            return {name: (sub, helps.get(name, "")) for name, sub in action.choices.items()}
    return {}


def _name(action: argparse.Action) -> str:
    metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    if action.choices is not None and action.metavar is None:
        metavar = "{" + ",".join(str(choice) for choice in action.choices) + "}"
    if not action.option_strings:
        shown = metavar if action.dest != "format_key" else "FORMAT"
        return f"`{shown} ...`" if action.nargs in ("+", "*") else f"`[{shown}]`" if action.nargs == "?" else \
            f"`{shown}`"
    flags = ", ".join(f"`{flag}`" for flag in action.option_strings)
    if action.nargs == 0:
        return flags
    value = f"{metavar} ..." if action.nargs in ("+", "*") else f"[{metavar}]" if action.nargs == "?" else metavar
    return f"{flags} `{value}`"


def _meaning(action: argparse.Action) -> str:
    text = (action.help or "").replace("|", "\\|")
    extras = []
    if action.required and action.nargs not in ("*", "?"):  # (argparse marks a positional of nargs='*' required)
        extras.append("required")
    default: Any = action.default
    if action.option_strings and action.nargs != 0 and default not in (None, argparse.SUPPRESS) \
            and "default" not in text:
        extras.append(f"default {default}")
    return text + (f" ({'; '.join(extras)})" if extras else "")


def cli_reference() -> str:
    """The Markdown page of the command line, from its parser."""
    parser = build_parser()
    lines = [_HEAD + DESCRIPTION, "", "```text", EPILOG, "```", ""]
    commands = _commands(parser)
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#chessformats-{name}) | {text} |" for name, (_, text) in commands.items()]
    for name, (sub, text) in commands.items():
        lines += ["", f"## chessformats {name}", "", text[:1].upper() + text[1:] + ".", ""]
        rows = [action for action in sub._actions
                if not isinstance(action, argparse._HelpAction) and action.help != argparse.SUPPRESS]
        if rows:
            lines += ["| argument | meaning |", "|---|---|"]
            lines += [f"| {_name(action)} | {_meaning(action)} |" for action in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - the documented way to write the page
    page = cli_reference()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as handle:
            handle.write(page)
    else:
        sys.stdout.write(page)
