"""The format-agnostic table helpers: pyarrow only when a table is asked for (an error naming the extra without
it), Parquet written batch by batch and atomically, string columns from numpy buffers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from chessformats.engine.tables import string_column, write_parquet  # noqa: E402
from conftest import REPO_ROOT  # noqa: E402

_SOURCE = str(REPO_ROOT / "src")


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": _SOURCE, "PATH": ""})


def test_importing_the_library_imports_no_pyarrow() -> None:
    done = _run("import sys, chessformats, chessformats.chessbase, chessformats.polyglot, chessformats.ctg, "
                "chessformats.kvetka, chessformats.monty\n"
                "from chessformats.formats.chessbase import database\n"
                "print(sorted(name for name in ('pyarrow', 'pandas', 'polars') if name in sys.modules))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_pyarrow_the_error_names_the_extra(corpus_path: Any) -> None:
    book = corpus_path("polyglot", "lasker-trap.bin")
    done = _run("import sys\nsys.modules['pyarrow'] = None  # as if not installed\n"
                "from chessformats import polyglot\n"
                f"with polyglot.open_book({str(book)!r}) as book:\n"
                "    try:\n        book.to_arrow()\n    except ImportError as error:\n        print(error)\n")
    assert done.returncode == 0, done.stderr
    assert "chessformats[arrow]" in done.stdout
    done = _run("import sys\nsys.modules['pyarrow'] = None\nfrom chessformats.cli import main\n"
                f"sys.exit(main(['convert', {str(book)!r}, '-o', '/nonexistent/x.parquet']))")
    assert done.returncode == 2
    assert "chessformats[arrow]" in done.stderr


def _batches(count: int, fail_at: int | None = None) -> Iterator[Any]:
    for index in range(count):
        if index == fail_at:
            raise RuntimeError("source failed")
        yield pa.record_batch({"n": pa.array(np.arange(index * 10, index * 10 + 10), pa.int64())})


def test_parquet_batch_by_batch_and_atomic(tmp_path: Path) -> None:
    target = tmp_path / "t.parquet"
    seen: list[int] = []
    assert write_parquet(_batches(3), target, progress=seen.append) == 30
    assert seen == [10, 20, 30]
    read = pq.ParquetFile(target)
    assert read.metadata.num_row_groups == 3
    assert read.read().column("n").to_pylist() == list(range(30))
    with pytest.raises(RuntimeError):
        write_parquet(_batches(3, fail_at=2), target)
    assert pq.read_table(target).num_rows == 30  # the old file, untouched
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.parquet"]  # no temporary file left
    schema = pa.schema([("n", pa.int64())])
    assert write_parquet(iter(()), target, schema=schema) == 0
    assert pq.read_table(target).schema.equals(schema)


def test_string_column_is_pyarrows_own() -> None:
    texts = ["e2e4 e7e5", "", None, "g1f3"]
    lengths = np.array([len(text or "") for text in texts])
    data = np.frombuffer("".join(text or "" for text in texts).encode(), np.uint8)
    valid = np.array([text is not None for text in texts])
    column = string_column(lengths, data, valid)
    column.validate(full=True)
    assert column.equals(pa.array(texts, pa.string()))
    assert string_column(lengths[:2], data[:9]).to_pylist() == texts[:2]
