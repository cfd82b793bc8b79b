"""Shared test helpers: where the shared test data lives, and where the external oracle programs are.

Real-world files (``corpus``) and the format specifications (``specs``) live outside the repository, in
``../shared`` next to the repository root; they are never copied into the repo. When they are missing a
test skips, except in CI, which sets ``CHESSFORMATS_REQUIRE_CORPUS=1`` so that a missing corpus fails
instead of silently skipping. External programs used as oracles (``polyglot``, ...) follow the same rule
with ``CHESSFORMATS_REQUIRE_ORACLE=1``.

Environment variables:

``CHESSFORMATS_CORPUS``          the corpus folder (default ``<repo>/../shared/corpus``)
``CHESSFORMATS_SPECS``           the specifications folder (default ``<repo>/../shared/specs``)
``CHESSFORMATS_REQUIRE_CORPUS``  ``1``: missing corpus/spec files fail the test instead of skipping it
``CHESSFORMATS_POLYGLOT``        the ``polyglot`` binary (else ``PATH``, ``/usr/games``, ``.ci/cache``)
``CHESSFORMATS_REQUIRE_ORACLE``  ``1``: a missing oracle program fails the test instead of skipping it
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_ROOT = REPO_ROOT.parent / "shared"


def _missing(message: str, require_env: str) -> None:
    """Skip, or fail when ``require_env`` is set to ``1`` (CI must not skip silently)."""
    if os.environ.get(require_env) == "1":
        pytest.fail(f"{message} (and {require_env}=1)", pytrace=False)
    pytest.skip(message)


def _shared_file(env: str, default: Path, what: str, parts: tuple[str | os.PathLike[str], ...]) -> Path:
    root = Path(os.environ[env]) if os.environ.get(env) else default
    if not root.is_dir():
        _missing(f"{what} folder {root} not found (set {env})", "CHESSFORMATS_REQUIRE_CORPUS")
    path = root.joinpath(*parts)
    if not path.exists():
        _missing(f"{what} file {path} not found", "CHESSFORMATS_REQUIRE_CORPUS")
    return path


def find_corpus(*parts: str | os.PathLike[str]) -> Path:
    """A path in the shared real-world corpus (``corpus_path("polyglot", "gm2001.bin")``); skips if absent."""
    return _shared_file("CHESSFORMATS_CORPUS", SHARED_ROOT / "corpus", "corpus", parts)


def find_spec(*parts: str | os.PathLike[str]) -> Path:
    """A path in the shared specifications folder (``spec_path("polyglot.ru.txt")``); skips if absent."""
    return _shared_file("CHESSFORMATS_SPECS", SHARED_ROOT / "specs", "specification", parts)


def find_tool(name: str, *, env: str, candidates: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """An external oracle program: ``$env``, else ``PATH``, else the first existing candidate.

    Relative candidates are taken from the repository root. Missing -> skip (fail with
    ``CHESSFORMATS_REQUIRE_ORACLE=1``).
    """
    explicit = os.environ.get(env)
    if explicit:
        if not os.access(explicit, os.X_OK):
            pytest.fail(f"{env}={explicit} is not an executable file", pytrace=False)
        return Path(explicit)
    found = shutil.which(name)
    if found:
        return Path(found)
    for candidate in candidates:
        path = Path(candidate)
        if not path.is_absolute():
            path = REPO_ROOT / path
        if path.is_file() and os.access(path, os.X_OK):
            return path
    _missing(f"oracle program {name!r} not found (set {env})", "CHESSFORMATS_REQUIRE_ORACLE")
    raise AssertionError("unreachable")  # pragma: no cover


def find_polyglot() -> Path:
    """The ``polyglot`` binary (Debian package ``polyglot``), used as the oracle for Polyglot books."""
    return find_tool("polyglot", env="CHESSFORMATS_POLYGLOT",
                     candidates=("/usr/games/polyglot", ".ci/cache/polyglot/usr/games/polyglot"))


@pytest.fixture(scope="session")
def corpus_path() -> Callable[..., Path]:
    """``corpus_path(*parts)``: a path under the shared corpus; the test skips (or fails in CI) if absent."""
    return find_corpus


@pytest.fixture(scope="session")
def spec_path() -> Callable[..., Path]:
    """``spec_path(*parts)``: a path under the shared specifications; skips (or fails in CI) if absent."""
    return find_spec


@pytest.fixture(scope="session")
def polyglot_binary() -> Path:
    """The ``polyglot`` oracle binary; the test skips (or fails with CHESSFORMATS_REQUIRE_ORACLE=1)."""
    return find_polyglot()


CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium driven by selenium (Debian's ``chromium`` and ``chromium-driver``; `.ci/run` installs
    them): missing, the test skips (fails with ``CHESSFORMATS_REQUIRE_ORACLE=1``)."""
    chromium = find_tool("chromium", env="CHESSFORMATS_CHROMIUM", candidates=("/usr/bin/chromium",))
    driver_binary = find_tool("chromedriver", env="CHESSFORMATS_CHROMEDRIVER", candidates=("/usr/bin/chromedriver",))
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed (pip install -e '.[test]')", "CHESSFORMATS_REQUIRE_ORACLE")
    options = webdriver.ChromeOptions()
    options.binary_location = str(chromium)
    with tempfile.TemporaryDirectory(prefix="chessformats-chromium-") as profile:
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(str(driver_binary)), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def screenshot(browser: Any, tmp_path: Path, name: str) -> None:
    """The browser's window as a PNG; written to ``docs/images/NAME`` (the README and the site show them) with
    ``CHESSFORMATS_UPDATE_SCREENSHOTS=1``."""
    browser.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / name
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    if os.environ.get("CHESSFORMATS_UPDATE_SCREENSHOTS") == "1":
        images = REPO_ROOT / "docs" / "images"
        images.mkdir(parents=True, exist_ok=True)
        (images / name).write_bytes(shot.read_bytes())


@pytest.fixture(autouse=True)
def _collector_left_on() -> Iterator[None]:
    """No test leaves the cyclic garbage collector off: the suite runs in one process, and with the collector
    off every reference cycle made by the tests after it stays in memory (the suite once grew to 10 GB so)."""
    yield
    if not gc.isenabled():
        gc.enable()
        pytest.fail("the test left the cyclic garbage collector disabled (gc.isenabled() is False)", pytrace=False)
