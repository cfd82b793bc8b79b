"""What the fuzzer mutates: every file of the shared corpus, grouped into the sets a reader opens together.

A :class:`Seed` is one reader's input: a single file (a Polyglot book, a Monty file, a PGN) or a multi-file
set (a CTG book with its ``.cto``/``.ctb``, a ChessBase database with its companions, a Kvetka book). Corpus
files are read where they lie (``$CHESSFORMATS_CORPUS``, else ``../shared/corpus``) and never copied into
the repository; a reproducer names them by seed name and SHA-256. No real Kvetka book exists, so the Kvetka
seeds are written by the project's own writer from the games bundled with the package (a reproducer of
such a seed stores its bytes).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

READERS = ("polyglot", "ctg", "kvetka", "monty", "chessbase", "archive", "pgn")
"""The readers the fuzzer drives; ``pgn`` is book building from games (:class:`BookBuilder`), ``archive`` the
ChessBase archives (``.cbv``, ``.cbz``)."""

_CHESSBASE_SKIP = (".pgn", ".tsv", ".txt", ".md", ".json", ".html")


def corpus_root() -> Path:
    """The shared corpus folder (it may not exist)."""
    explicit = os.environ.get("CHESSFORMATS_CORPUS")
    return Path(explicit) if explicit else REPO_ROOT.parent / "shared" / "corpus"


@dataclass(frozen=True)
class Seed:
    """One reader input: its files (name -> where the original bytes are) and the file the reader opens."""

    name: str
    reader: str
    primary: str
    sources: dict[str, Path] = field(compare=False)
    synthetic: bool = False

    def load(self) -> dict[str, bytes]:
        return {name: path.read_bytes() for name, path in self.sources.items()}

    def digests(self) -> dict[str, str]:
        return {name: sha256(path.read_bytes()) for name, path in self.sources.items()}

    @property
    def size(self) -> int:
        return sum(path.stat().st_size for path in self.sources.values())


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _single(reader: str, path: Path, group: str) -> Seed:
    return Seed(f"{group}/{path.name}", reader, path.name, {path.name: path})


def corpus_seeds(root: Path | None = None) -> list[Seed]:
    """The seeds of the real corpus (empty when it is absent)."""
    root = corpus_root() if root is None else root
    seeds: list[Seed] = []
    if not root.is_dir():
        return seeds
    for path in sorted((root / "polyglot").glob("*.bin")):
        seeds.append(_single("polyglot", path, "polyglot"))
    for path in sorted((root / "ctg").glob("*.ctg")):
        files = {p.name: p for p in sorted(path.parent.glob(path.stem + ".ct[gob]"))}
        seeds.append(Seed(f"ctg/{path.stem}", "ctg", path.name, files))
    for path in sorted((root / "monty").glob("*")):
        if path.suffix in (".montyformat", ".montyvalue"):
            seeds.append(_single("monty", path, "monty"))
    for folder in sorted(p for p in (root / "chessbase").glob("*") if p.is_dir()):
        for cbh in sorted(folder.glob("*.cbh")):
            files = {p.name: p for p in sorted(folder.glob(cbh.stem + ".*"))
                     if p.is_file() and not p.name.lower().endswith(_CHESSBASE_SKIP)}
            seeds.append(Seed(f"chessbase/{folder.name}", "chessbase", cbh.name, files))
    for path in sorted((root / "chessbase").glob("*/*.cb[vz]")):
        seeds.append(_single("archive", path, "archive"))
    for path in sorted(root.glob("**/*.pgn")):
        seeds.append(_single("pgn", path, "pgn/" + path.parent.name))
    return seeds


def _games_text() -> bytes:
    """Games to build the Kvetka seeds from: the first 150 games of the corpus's TWIC PGN, else the bundled ones."""
    twic = corpus_root() / "pgn" / "twic1134-mainlines.pgn"
    if twic.is_file():
        text = twic.read_bytes()
        starts = [m.start() for m in re.finditer(rb"\[Event ", text)]
        return text[:starts[150]] if len(starts) > 150 else text
    return (resources.files("chessformats.data") / "example_games.pgn").read_bytes()


def synthetic_seeds(folder: Path) -> list[Seed]:
    """Kvetka books written by the project's writer into ``folder`` (made once; deterministic bytes).

    ``kvetka/games``: a book built from 150 games (the corpus's TWIC PGN, else the games bundled with the
    package) with game references, a ``.ksf`` and a small file limit (several ``.kob`` files); ``kvetka/plain``:
    fewer plies, without references or sources. Also the bundled games as a PGN seed.
    """
    from chessformats import kvetka
    from chessformats.books.build import BookBuilder

    folder.mkdir(parents=True, exist_ok=True)
    pgn = folder / "games.pgn"
    if not pgn.exists():
        pgn.write_bytes(_games_text())
    bundled = folder / "example_games.pgn"
    if not bundled.exists():
        bundled.write_bytes((resources.files("chessformats.data") / "example_games.pgn").read_bytes())
    seeds = [Seed("pgn/bundled/example_games.pgn", "pgn", bundled.name, {bundled.name: bundled}, synthetic=True)]
    for name, with_sources, plies, blocks in (("games", True, 16, 24), ("plain", False, 8, 4)):
        target = folder / name
        if not target.is_dir():
            building = folder / f"{name}.building"
            shutil.rmtree(building, ignore_errors=True)
            building.mkdir()
            builder = BookBuilder(max_ply=plies)
            builder.add_pgn(pgn)
            kvetka.make_book(building / "book", builder, min_games=1, file_limit=blocks * 2048,
                             sources=[pgn] if with_sources else None)
            building.rename(target)
        files = {p.name: p for p in sorted(target.iterdir())}
        seeds.append(Seed(f"kvetka/{name}", "kvetka", "book_0.kob", files, synthetic=True))
    return seeds


@cache
def all_seeds(cache_folder: str) -> tuple[Seed, ...]:
    """Every seed: the corpus's and the synthetic ones (written under ``cache_folder``)."""
    return tuple(corpus_seeds() + synthetic_seeds(Path(cache_folder)))
