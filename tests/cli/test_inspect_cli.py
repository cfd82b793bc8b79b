"""``info``, ``inspect`` and ``probe`` as a new user meets them (the second trial's findings): an archive's base
read once and with its password, every option of ``inspect`` obeyed or refused, one numbering for every format,
exit statuses that do not depend on the output form, and messages that say what a user can do.

Inputs are made here: PGN games played at random by python-chess, a base and archives written from them by the
library, Polyglot books packed with ``struct`` from python-chess's keys.
"""

from __future__ import annotations

import random
import re
import struct
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from chessformats import chessbase
from chessformats.cli import main

PASSWORD = "secret"


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _pgn(games: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    texts = []
    for number in range(games):
        game = chess.pgn.Game()
        game.headers["White"] = f"White{number}, A"
        game.headers["Black"] = f"Black{number}, B"
        node = game
        for _ in range(12):
            node = node.add_variation(rng.choice(list(node.board().legal_moves)))
        texts.append(str(game))
    return "\n\n".join(texts) + "\n"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A base of 5 games, a .cbv and a .cbz (password ``secret``) of it beside it."""
    folder = tmp_path_factory.mktemp("base")
    pgn = folder / "games.pgn"
    pgn.write_text(_pgn(5))
    chessbase.write_database_from_pgn(folder / "base.cbh", pgn)
    assert main(["convert", str(folder / "base.cbh"), "-o", str(folder / "base.cbv")]) == 0
    assert main(["convert", str(folder / "base.cbh"), "-o", str(folder / "base.cbz"), "--password", PASSWORD]) == 0
    return folder / "base.cbh"


def test_info_of_an_enciphered_archive_with_its_password(capsys: pytest.CaptureFixture[str], base: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from chessformats.formats.chessbase import archive

    extracted = []
    real = archive.extract_to_temporary

    def counted(*args: object, **kwargs: object) -> object:
        extracted.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(archive, "extract_to_temporary", counted)
    for name in ("base.cbz", "base.cbv"):
        extracted.clear()
        code, out, err = run(capsys, "info", base.with_name(name), "--password", PASSWORD, "--json")
        assert code == 0, err
        assert '"games": 5' in out and '"findings": []' in out
        assert len(extracted) == 1, f"{name}: the archive extracted {len(extracted)} times"
