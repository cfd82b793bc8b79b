"""`chessformats build`'s progress bar (games/s, share of the input, ETA) and its imports: a build that is not
on a terminal and not on Dask imports neither dask nor rich's progress bar."""

from __future__ import annotations

import gzip
import io
import random
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from chessformats.books.build import BookBuilder
from chessformats.books.progress import input_position
from chessformats.cli.buildbar import BuildBar
from chessformats.engine.streams import open_binary

GAME = '[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n'


def test_bar_reports_games_rate_share_and_eta(tmp_path: Path) -> None:
    plain, packed = tmp_path / "a.pgn", tmp_path / "b.pgn.gz"
    plain.write_text(GAME * 4000)
    packed.write_bytes(gzip.compress((GAME * 4000).encode()))
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=160)
    bar = BuildBar(console, [str(plain), str(packed)])
    builder = BookBuilder()
    seen: list[float] = []
    with bar.shown():
        for index, path in enumerate((plain, packed)):
            report = bar.for_file(index, str(path), builder)

            def watch(games: int, characters: int, report: object = report) -> None:
                report(games, characters)  # type: ignore[operator]
                seen.append(bar.progress.tasks[0].completed)

            builder.add_pgn(path, progress=watch)
    assert bar.total == plain.stat().st_size + packed.stat().st_size
    assert seen == sorted(seen) and seen[-1] == bar.total  # never backwards; all of both files at the end
    assert any(0 < done < plain.stat().st_size for done in seen)
    text = out.getvalue()
    assert "games/s" in text and "ETA" in text and "8,000 games" in text


def test_input_position_counts_compressed_bytes(tmp_path: Path) -> None:
    packed = tmp_path / "b.pgn.gz"
    rng = random.Random(1)  # tags that do not compress away: the file is many reads long
    data = gzip.compress("".join(f'[Site "{rng.getrandbits(64):x}"]\n' + GAME for _ in range(20000)).encode())
    packed.write_bytes(data)
    with open_binary(packed) as handle:
        text = io.TextIOWrapper(handle, encoding="utf-8")
        assert input_position(text) == 0
        text.read(1000)
        first = input_position(text)
        text.read()
        assert first is not None and 0 < first < len(data) and input_position(text) == len(data)
    assert input_position(None) is None


def test_a_plain_build_imports_no_dask(tmp_path: Path) -> None:
    pgn = tmp_path / "a.pgn"
    pgn.write_text(GAME * 10)
    code = ("import sys; from chessformats.cli import main; "
            f"assert main(['build', {str(pgn)!r}, '-o', {str(tmp_path / 'a.bin')!r}]) == 0; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed') "
            "or m in ('rich.progress', 'chessformats.books.distributed')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
