"""What a release is made of: one version, written once (``chessformats/_version.py``, which ``pyproject.toml``
reads), a CHANGELOG section for it, and the package data the wheel must carry. ``.ci/run`` builds the wheel,
checks it with twine and runs the tour from it in a new virtual environment; this checks the sources it is built
from."""

from __future__ import annotations

import fnmatch
import re

import pytest

import chessformats
from conftest import REPO_ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PACKAGE = REPO_ROOT / "src" / "chessformats"


def test_the_version_is_written_once() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "chessformats._version.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", chessformats.__version__)
    written = [path for path in PACKAGE.rglob("*.py")
               if re.search(r"^__version__\s*=", path.read_text(encoding="utf-8"), re.MULTILINE)]
    assert written == [PACKAGE / "_version.py"]


def test_the_changelog_has_the_version() -> None:
    changelog = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\d+\.\d+\.\d+)", changelog, re.MULTILINE)
    assert versions and versions[0] == chessformats.__version__


def test_package_data_covers_every_data_file() -> None:
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["chessformats"]
    files = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*")
             if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts]
    assert "py.typed" in files and "data/example_games.pgn" in files
    assert [name for name in files if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)] == []
