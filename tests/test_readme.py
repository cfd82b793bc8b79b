"""The README stays true: its two set-up commands (the test command is the one .ci/run runs), its Python
examples and its error messages.

Every ```python block of README.md and of the guides in ``GUIDES`` runs on its own, as written, in a new empty
folder where the file names it uses stand for corpus files (``PLACEHOLDERS``: a link to the corpus file, or a
file written from corpus files); a block that fails (a missing import, a name from another block, a changed
API) fails its test. What a comment says a line prints or evaluates to is checked too (``PRINTS``,
``VALUES``), and so is each error message of the README's ```text block, on the file it names
(``ERROR_FILES``).
"""

from __future__ import annotations

import gzip
import itertools
import re
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from conftest import REPO_ROOT, find_corpus


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


# --- the Python blocks ---------------------------------------------------------------------------------------

# Guides whose ```python blocks run too, with the text a block needs replaced (a path or a cluster that exists
# only on the reader's machine). docs/architecture.md's blocks are excerpts of the source, not examples.
GUIDES = {
    "docs/scaling.md": {'"/shared/lichess/2024-01.pgn"': "str(PGN)", '"tcp://head:8786"': "None"},
}

TWIC_GAMES = 300  # twic.pgn.gz: the first games of pgn/twic1134-mainlines.pgn (all 6,097 take a minute here)
BIEL = ("chessbase", "libcbh_NormalGames")  # mybase.cbh: 548 games with their companions


# The file names the blocks use -> the corpus file each stands for (linked under the block's name, with the
# files of the same stem beside it: .cto/.ctb, a base's companions), or ("made",): written by the ``made`` fixture.
PLACEHOLDERS: dict[str, tuple[str, ...]] = {
    "gm2001.bin": ("polyglot", "gm2001.bin"),
    "PowerPlay17-Sicilienne.ctg": ("ctg", "PowerPlay17-Sicilienne.ctg"),  # with its .cto and .ctb
    "mybase.cbh": (*BIEL, "BielMTO.cbh"),  # with its companions, as mybase.*
    "selfplay.montyformat": ("monty", "reference_generated_policy.montyformat"),
    "twic.pgn.gz": ("made",),  # the first TWIC_GAMES games of twic1134, gzipped
    "mybook": ("made",),  # a Kvetka book (none is in the corpus): make_book from those games, with its .ksf
}


class Block(NamedTuple):
    path: str
    line: int  # of the block's first line of code in ``path``
    source: str


def _blocks() -> list[Block]:
    blocks = []
    for path in ("README.md", *GUIDES):
        text = (REPO_ROOT / path).read_text(encoding="utf-8")
        for match in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S):
            blocks.append(Block(path, text.count("\n", 0, match.start(1)) + 1, match.group(1)))
    return blocks


BLOCKS = _blocks()


def _same(line: str) -> str:
    return " ".join(line.split())


# What a comment says a line prints (one line of the block's output) or evaluates to (after the block ran),
# keyed by the line as written in the block (runs of blanks as one). ``''`` in a comment is an empty string.
PRINTS = {
    "print(move.move, move.nag, move.symbol) # e2e4 None ''": "e2e4 None ",
    "print(position.games, position.wins, position.draws, position.losses) # 499 176 116 201": "499 176 116 201",
    "print(report.summary()) # 2 entries written to mine.bin": "2 entries written to mine.bin",
    "print(len(games)) # 548": "548",
}
VALUES = {
    "polyglot.zobrist_hash(chess.Board()) # 0x463b96181691fc9c": 0x463B96181691FC9C,
}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The placeholder files written from corpus files (``"made"`` in ``PLACEHOLDERS``), once for all blocks."""
    from chessformats import kvetka
    from chessformats.books.build import BookBuilder
    from chessformats.books.pgnread import split_games

    folder = tmp_path_factory.mktemp("made")
    text = find_corpus("pgn", "twic1134-mainlines.pgn").read_text(encoding="utf-8")
    games = [game.strip() for _, game in itertools.islice(split_games(text), TWIC_GAMES)]
    pgn = folder / "twic.pgn"
    pgn.write_text("\n\n".join(games) + "\n", encoding="utf-8")
    (folder / "twic.pgn.gz").write_bytes(gzip.compress(pgn.read_bytes(), compresslevel=1))
    builder = BookBuilder(max_ply=30)
    builder.add_pgn(pgn)
    assert kvetka.make_book(folder / "mybook", builder, sources=[pgn]).written > 0
    return folder


def _provide(name: str, folder: Path, made: Path) -> None:
    """Make ``name`` (and the files that go with it) exist in ``folder``."""
    where = PLACEHOLDERS[name]
    if where == ("made",):
        stem = name.split(".")[0]
        for file in made.iterdir():
            if file.name == name or file.name.startswith((f"{stem}.", f"{stem}_")):
                (folder / file.name).symlink_to(file)
        return
    target = find_corpus(*where)
    new_stem, stem = name.rsplit(".", 1)[0], target.name.rsplit(".", 1)[0]
    for file in target.parent.iterdir():  # the file and its companions: same stem, another extension
        if file.name.rsplit(".", 1)[0] == stem:
            (folder / (new_stem + "." + file.name.rsplit(".", 1)[1])).symlink_to(file)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{block.path}:{block.line}" for block in BLOCKS])
def test_python_block_runs(block: Block, made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    source = block.source
    for old, new in GUIDES.get(block.path, {}).items():
        assert old in source, f"{block.path}:{block.line}: {old} is no longer in the block: update GUIDES"
        source = source.replace(old, new)
    for name in PLACEHOLDERS:
        if name in source:
            _provide(name, tmp_path, made)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__readme__", "PGN": made / "twic.pgn"}
    # the block's own line numbers in a traceback
    exec(compile("\n" * (block.line - 1) + source, str(REPO_ROOT / block.path), "exec"), namespace)
    printed = capsys.readouterr().out.splitlines()
    lines = {_same(line) for line in block.source.splitlines()}
    for line, output in PRINTS.items():
        if line in lines:
            assert output in printed, f"{line!r} did not print {output!r}: {printed}"
    for line, value in VALUES.items():
        if line in lines:
            assert eval(line.split(" #")[0], namespace) == value, line


def test_checked_comments_are_in_the_blocks() -> None:
    lines = {_same(line) for block in BLOCKS for line in block.source.splitlines()}
    missing = sorted((set(PRINTS) | set(VALUES)) - lines)
    assert not missing, f"checked lines no longer in a block (update PRINTS or VALUES): {missing}"


# --- the error messages ----------------------------------------------------------------------------------------

def _truncated_gm2001(path: Path) -> None:
    """gm2001.bin cut in its last entry: 30,415 entries and 7 bytes."""
    path.write_bytes(find_corpus("polyglot", "gm2001.bin").read_bytes()[:30415 * 16 + 7])


def _promotion_on_rank_5(path: Path) -> None:
    """One entry (the start position) whose move e2e5 promotes to a knight: to_rank 4 (rank 5)."""
    move = 1 << 12 | 1 << 9 | 4 << 6 | 4 << 3 | 4  # promotion, from_rank, from_file, to_rank, to_file
    path.write_bytes(struct.pack(">QHHI", 0x463B96181691FC9C, move, 1, 0))


ERROR_FILES: dict[str, Callable[[Path], None]] = {"gm2001.bin": _truncated_gm2001, "page.bin": _promotion_on_rank_5}


def test_error_messages_are_current(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chessformats import FormatError, polyglot

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"^Errors are .*?^```text\n(.*?)^```$", readme, re.M | re.S)
    assert shown is not None
    monkeypatch.chdir(tmp_path)
    for message in shown.group(1).splitlines():
        name = message.split(":")[0]
        ERROR_FILES[name](tmp_path / name)
        with pytest.raises(FormatError) as caught:
            polyglot.open_book(name).close()
        assert str(caught.value) == message
