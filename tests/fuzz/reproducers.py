"""Saved failures (``tests/fuzz/corpus/*.json``): a seed, a reader path and the mutations that break it.

A corpus seed is named, never copied: the JSON holds the seed's name and the SHA-256 of each of its files,
and a replay re-applies the mutations to ``../shared/corpus`` (skipped without it; CI has it). A synthetic
seed (a Kvetka book written by the project) is stored as bytes (base64), small by construction. A record
may carry ``xfail``: a known defect of a reader, replayed as a strict xfail until its owner fixes it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from .runner import Case, Outcome, Prepared
from .seeds import Seed, corpus_seeds, sha256

CORPUS = Path(__file__).resolve().parent / "corpus"


def name_for(seed: Seed, outcome: Outcome) -> str:
    digest = hashlib.sha256(outcome.signature.encode()).hexdigest()[:10]
    return f"{seed.reader}-{outcome.kind}-{digest}.json"


def record(seed: Seed, originals: dict[str, bytes], case: Case, outcome: Outcome, found: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seed": seed.name,
        "reader": seed.reader,
        "path": case.path,
        "number": case.number,
        "primary": seed.primary,
        "mutations": case.mutations,
        "failure": {"kind": outcome.kind, "detail": outcome.detail, "where": outcome.where,
                    "signature": outcome.signature},
        "found": found,
    }
    if seed.synthetic:
        data["files"] = {name: base64.b64encode(content).decode("ascii") for name, content in originals.items()}
    else:
        data["sha256"] = {name: sha256(content) for name, content in originals.items()}
    return data


def save(data: dict[str, Any], seed: Seed, outcome: Outcome, folder: Path = CORPUS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name_for(seed, outcome)
    path.write_text(dumps(data))
    return path


def dumps(data: dict[str, Any]) -> str:
    """JSON with one key per line and one mutation per line (readable diffs)."""
    lines = []
    for key, value in data.items():
        if key == "mutations":
            inner = ",\n".join(f"  {json.dumps(m)}" for m in value)
            lines.append(f' "{key}": [\n{inner}\n ]')
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def load_all(folder: Path = CORPUS) -> list[tuple[Path, dict[str, Any]]]:
    return [(path, json.loads(path.read_text())) for path in sorted(folder.glob("*.json"))]


def known_signatures(folder: Path = CORPUS) -> set[str]:
    return {data["failure"]["signature"] for _, data in load_all(folder)}


class CorpusChanged(Exception):
    """A corpus file a reproducer names has other bytes than when the reproducer was saved."""


def prepared_for(data: dict[str, Any]) -> tuple[Prepared, Case]:
    """The one-seed :class:`Prepared` and the :class:`Case` of a saved record (``LookupError``: no corpus)."""
    if "files" in data:
        originals = {name: base64.b64decode(text) for name, text in data["files"].items()}
        seed = Seed(data["seed"], data["reader"], data["primary"], {}, synthetic=True)
    else:
        found = {s.name: s for s in corpus_seeds()}
        if data["seed"] not in found:
            raise LookupError(f"corpus seed {data['seed']} not found")
        seed = found[data["seed"]]
        originals = seed.load()
        expected = data["sha256"]
        changed = sorted(name for name in expected if sha256(originals.get(name, b"")) != expected[name])
        if changed:
            raise CorpusChanged(f"{data['seed']}: {', '.join(changed)} changed since the reproducer was saved")
        originals = {name: originals[name] for name in expected}
    prepared = Prepared({seed.name: seed}, {seed.name: originals}, {})
    return prepared, Case(int(data.get("number", 0)), seed.name, data["path"], data["mutations"])
