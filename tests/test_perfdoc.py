"""The shared writer of docs/performance.md sections keeps everything outside its own markers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import REPO_ROOT

spec = importlib.util.spec_from_file_location("perfdoc", REPO_ROOT / "benchmarks" / "perfdoc.py")
assert spec is not None and spec.loader is not None
perfdoc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(perfdoc)

A, B = "<!-- x:start -->", "<!-- x:end -->"


def test_replaces_only_its_section(tmp_path: Path) -> None:
    path = tmp_path / "performance.md"
    path.write_text(f"# Performance\n\nintro\n\n{A}\nold\n{B}\n\nnotes after\n"
                    "<!-- y:start -->\nother\n<!-- y:end -->\n")
    perfdoc.replace_section(f"{A}\nnew\n{B}\n", A, B, path)
    assert path.read_text() == (f"# Performance\n\nintro\n\n{A}\nnew\n{B}\n\nnotes after\n"
                                "<!-- y:start -->\nother\n<!-- y:end -->\n")


def test_appends_when_missing_and_creates_the_file(tmp_path: Path) -> None:
    path = tmp_path / "docs" / "performance.md"
    perfdoc.replace_section(f"{A}\nfirst\n{B}", A, B, path)
    assert path.read_text() == f"# Performance\n\n{A}\nfirst\n{B}\n"
    perfdoc.replace_section(f"{A}\nsecond\n{B}", A, B, path)
    assert path.read_text() == f"# Performance\n\n{A}\nsecond\n{B}\n"
