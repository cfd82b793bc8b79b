"""The reproducers of the fuzzing campaign of 2026-11-24 (``../shared/fuzz/2026-11-24``, outside the repository).

That campaign capped every run at 2 GB of address space and reported ``MemoryError`` in four cases. Each is run
here in a fresh process without a cap and under the same 2 GB cap: if the reader answers the same way both
times, with a peak far below the cap, the report was an artefact of the campaign's processes, not of the
reader. (``chessbase-cbj-created`` is a real defect, fixed with its own regression test elsewhere.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import SHARED_ROOT, _missing

CAP_MB = 2048

_RUN = textwrap.dedent('''
    import contextlib, io, json, resource, sys
    cap = int(sys.argv[1])
    if cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap << 20, cap << 20))
    kind, args = sys.argv[2], sys.argv[3:]
    result = {}
    try:
        if kind == "build":
            from chessformats.books.build import BookBuilder
            builder = BookBuilder()
            builder.add_pgn(args[0], jobs=int(args[1]))
            result["answer"] = [builder.games, len(builder), len(builder.skipped)]
        else:
            from chessformats.cli import main
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(args)
            result["answer"] = [status, out.getvalue()[-300:], err.getvalue()[-300:]]
    except BaseException as exc:
        result["answer"] = ["raised", type(exc).__name__, str(exc)[:300]]
    with open("/proc/self/status") as status:
        result["peak_mb"] = next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmPeak"))
    print(json.dumps(result))
''')


def _folder(name: str) -> Path:
    folder = SHARED_ROOT / "fuzz" / "2026-11-24" / name
    if not folder.is_dir():
        _missing(f"campaign reproducer {folder} not found", "CHESSFORMATS_REQUIRE_CORPUS")
    return folder


def _copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(_folder(name), target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


def _run(cap: int, kind: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _RUN, str(cap), kind, *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _same_with_and_without_cap(kind: str, *args: str) -> list[Any]:
    free = _run(0, kind, *args)
    capped = _run(CAP_MB, kind, *args)
    assert free["answer"] == capped["answer"], (free, capped)
    assert capped["answer"][0] != "raised", capped
    assert capped["peak_mb"] < CAP_MB // 4, f"peak {capped['peak_mb']} MB: not far below the {CAP_MB} MB cap"
    answer: list[Any] = capped["answer"]
    return answer


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_pgn_build_was_an_artefact(tmp_path: Path, jobs: str) -> None:
    """``[Even`` (five bytes) through ``BookBuilder.add_pgn``: one game, skipped and reported; an empty book."""
    folder = _copy("pgn-build", tmp_path)
    assert _same_with_and_without_cap("build", str(folder / "rich.pgn"), jobs) == [1, 0, 1]


def test_cli_monty_value_was_an_artefact(tmp_path: Path) -> None:
    """``info`` reports the file's fault (a FormatError: exit status 2), ``inspect`` shows the bytes (0)."""
    path = _copy("cli-monty-value", tmp_path) / "reference_generated_value.montyvalue"
    status, _, error = _same_with_and_without_cap("cli", "info", str(path))
    assert status == 2 and "black pieces on empty squares" in error
    assert _same_with_and_without_cap("cli", "inspect", str(path))[0] == 0
    assert _same_with_and_without_cap("cli", "inspect", str(path), "--game", "1", "--ply", "1")[0] == 0  # games from 1


def test_cli_ctg_detect_was_an_artefact(tmp_path: Path) -> None:
    """Sniffing reads 4 kB; ``info`` then reports the damaged page (a FormatError: exit status 2)."""
    path = _copy("cli-ctg-detect", tmp_path) / "small.ctg"
    status, _, error = _same_with_and_without_cap("cli", "info", str(path))
    assert status == 2 and "pages[5].records[39]" in error


def test_cli_kvetka_no_kin_exit_status_1_is_probe_not_in_book(tmp_path: Path) -> None:
    """Without ``tiny.kin`` every command answers; exit status 1 is ``probe`` of a position the book does not
    hold ("not in book", the documented status), e.g. after 1. a3; the probes agree with the book's own .kin."""
    folder = _copy("cli-kvetka-no-kin", tmp_path)
    book = str(folder / "tiny_0.kob")
    status, out, _ = _same_with_and_without_cap("cli", "probe", book, "--moves", "a3")
    assert status == 1 and "not in book" in out
    for command in (["info", book], ["probe", book, "--fen", "startpos"], ["inspect", book, "--record", "0"],
                    ["inspect", book, "--block", "0"], ["info", str(folder / "tiny.ksf")]):
        assert _same_with_and_without_cap("cli", *command)[0] == 0, command

    import chess

    from chessformats import kvetka

    (tmp_path / "indexed").mkdir()
    with kvetka.open_book(book) as without:  # the index built from the blocks
        kvetka.write_book(tmp_path / "indexed" / "tiny", without)  # the same book, with its .kin
        boards = [chess.Board()]
        for move in list(chess.Board().legal_moves):
            board = chess.Board()
            board.push(move)
            boards.append(board)
        answers = [without.probe(board) for board in boards]
    with kvetka.open_book(tmp_path / "indexed" / "tiny") as indexed:
        assert indexed.kin_path is not None
        again = [indexed.probe(board) for board in boards]
    assert [None if a is None else (a.moves, a.wins, a.draws, a.losses) for a in answers] == \
        [None if a is None else (a.moves, a.wins, a.draws, a.losses) for a in again]
    assert sum(a is not None for a in answers) > 1
