"""The README's two set-up commands stay true: the test command is the one .ci/run runs."""

from __future__ import annotations

import re

from conftest import REPO_ROOT


def _commands() -> list[str]:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n([^\n]+)\n```", readme)[:2]


def test_readme_opens_with_install_and_test_commands() -> None:
    install, tests = _commands()
    assert install == "pip install . && chessformats tour"
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command() -> None:
    _, tests = _commands()
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci
    assert "export CHESSFORMATS_REQUIRE_CORPUS=1" in ci
