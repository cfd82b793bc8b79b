"""Choosing the games a book is built from by their header tags, as users of the lichess database expect.

A :class:`GameFilter` looks at three things of a game's tags, and nothing else:

- **ratings** (``min_rating``): both ``WhiteElo`` and ``BlackElo`` must be at least the minimum. A game missing
  either rating (no tag, ``?``, ``-`` or anything not a number) is left out while the filter is on.
- **time control** (``time_controls``): lichess's categories, by the estimated duration ``base + 40 ×
  increment`` seconds of the ``TimeControl`` tag (``"180+2"``: 260 s), with lichess's limits (scalachess
  ``Speed``): ``ultraBullet`` up to 29 s, ``bullet`` up to 179 s, ``blitz`` up to 479 s, ``rapid`` up to
  1,499 s, ``classical`` above; ``correspondence`` is the tag ``-``. Exact tags (``"180+2"``) can be given too;
  a game matches when its tag is one of them or falls in one of the categories. A game without a readable
  ``TimeControl`` matches only an exact ``"?"`` or ``""`` given as such.
- **variant** (``variants``): the ``Variant`` tag, compared by :func:`variant_name` (case, blanks and dashes
  ignored; no tag is ``standard``). The default keeps the games played by the rules of chess:
  ``standard``, ``chess960`` (also ``Fischerandom``) and ``fromposition`` (lichess's ``From Position``,
  standard rules from a ``FEN`` tag). Other variants (crazyhouse, atomic, antichess, ...) are left out: the
  builder plays every game by the rules of chess, and some of their games would replay as legal chess with
  a meaning of their own. ``variants=None`` keeps every game whatever its tag (``polyglot make-book`` reads no
  ``Variant`` tag).

Games left out by the filter are not errors: the builder counts them (``BookBuilder.filtered``) and keeps their
numbers, so the book is the one a PGN holding only the kept games gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = ["CHESS_RULES", "TIME_CATEGORIES", "GameFilter", "time_category", "variant_name"]

TIME_CATEGORIES = ("ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence")
"""lichess's speed categories, fastest first."""

_LIMITS = ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid"))
"""The longest estimated duration (seconds) of each category below classical (scalachess ``Speed``)."""

_TIME_CONTROL = re.compile(r"\s*(\d+)\s*(?:\+\s*(\d+)\s*)?")
_PERIOD = r"(?:\d+/\d+|\d+(?:\+\d+)?|\*\d+)"
_TIME_CONTROL_TAG = re.compile(rf"\?|-|{_PERIOD}(?::{_PERIOD})*")
"""A ``TimeControl`` tag as the PGN standard writes one (9.6.1: ``?``, ``-``, periods such as ``40/7200:3600``,
``180+2``, ``*60``)."""
_NOT_NAME = re.compile(r"[\s_-]+")
_ALIASES = {"": "standard", "chess": "standard", "normal": "standard", "standard": "standard",
            "chess960": "chess960", "960": "chess960", "fischerandom": "chess960", "fischerrandom": "chess960",
            "fromposition": "fromposition"}

CHESS_RULES = frozenset(("standard", "chess960", "fromposition"))
"""The variants played by the rules of chess: what :class:`GameFilter` keeps by default."""


def time_category(time_control: str) -> str | None:
    """lichess's category of a ``TimeControl`` tag (``"180+2"`` -> ``"blitz"``, ``"-"`` -> ``"correspondence"``),
    ``None`` if the tag is not ``base+increment`` seconds (or ``base`` alone)."""
    if time_control.strip() == "-":
        return "correspondence"
    match = _TIME_CONTROL.fullmatch(time_control)
    if match is None:
        return None
    estimate = int(match.group(1)) + 40 * int(match.group(2) or 0)
    return next((name for limit, name in _LIMITS if estimate <= limit), "classical")


def variant_name(tag: str | None) -> str:
    """The name a ``Variant`` tag is compared by: lower case, blanks, dashes and underscores dropped, aliases
    of standard chess and Chess960 folded (``"From Position"`` -> ``"fromposition"``, no tag -> ``"standard"``)."""
    name = _NOT_NAME.sub("", (tag or "").lower())
    return _ALIASES.get(name, name)


def _rating(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    return int(text) if text.isdigit() else None


@dataclass(frozen=True)
class GameFilter:
    """Which games to build from (see the module documentation); the default keeps every game of chess."""

    min_rating: int | None = None
    """Both players rated at least this (games missing a rating are left out); ``None``: no rating filter."""
    time_controls: frozenset[str] | None = None
    """lichess categories (:data:`TIME_CATEGORIES`) and/or exact ``TimeControl`` tags; ``None``: any."""
    variants: frozenset[str] | None = CHESS_RULES
    """Variant names (:func:`variant_name`) to keep; ``None``: any ``Variant`` tag."""
    _categories: frozenset[str] = field(init=False, repr=False, compare=False)
    _exact: frozenset[str] = field(init=False, repr=False, compare=False)
    _seen: dict[str, bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.time_controls is not None:
            object.__setattr__(self, "time_controls", frozenset(self.time_controls))
        if self.variants is not None:
            object.__setattr__(self, "variants", frozenset(variant_name(v) for v in self.variants))
        wanted = self.time_controls or frozenset()
        known = {name.lower(): name for name in TIME_CATEGORIES}
        object.__setattr__(self, "_categories", frozenset(known[n.lower()] for n in wanted if n.lower() in known))
        exact = frozenset(n.strip() for n in wanted if n.lower() not in known)
        for name in sorted(exact):
            if not _TIME_CONTROL_TAG.fullmatch(name):  # (a typo would leave every game out, without a word)
                raise ValueError(f"time control {name!r}: neither a lichess category ({', '.join(TIME_CATEGORIES)}) "
                                 "nor a PGN TimeControl tag (180+2, 40/7200:3600, -)")
        object.__setattr__(self, "_exact", exact)
        object.__setattr__(self, "_seen", {})  # TimeControl tag -> wanted (a month of lichess has a few hundred)

    @classmethod
    def of(cls, *, min_rating: int | None = None, time_controls: str | Iterable[str] | None = None,
           variants: str | Iterable[str] | None = CHESS_RULES) -> GameFilter:
        """A filter from command-line style values: ``time_controls="blitz,rapid,180+2"``, ``variants="standard"``
        or ``"any"`` (every variant)."""
        if isinstance(time_controls, str):
            time_controls = [part for part in (p.strip() for p in time_controls.split(",")) if part]
        if isinstance(variants, str):
            variants = None if variants.strip().lower() in ("any", "all") else [
                part for part in (p.strip() for p in variants.split(",")) if part]
        return cls(min_rating, None if time_controls is None else frozenset(time_controls),
                   None if variants is None else frozenset(variants))

    @property
    def active(self) -> bool:
        """Whether the filter can leave a game out (a default filter still leaves out other variants)."""
        return self.min_rating is not None or self.time_controls is not None or self.variants is not None

    def keep(self, tags: Mapping[str, str]) -> bool:
        """Whether a game with these tags is built from."""
        if self.variants is not None:
            variant = tags.get("Variant")
            if variant is not None and variant_name(variant) not in self.variants:
                return False
            if variant is None and "standard" not in self.variants:
                return False
        if self.min_rating is not None:
            white, black = _rating(tags.get("WhiteElo")), _rating(tags.get("BlackElo"))
            if white is None or black is None or white < self.min_rating or black < self.min_rating:
                return False
        if self.time_controls is not None:
            control = tags.get("TimeControl", "?")
            wanted = self._seen.get(control)
            if wanted is None:
                wanted = self._seen[control] = (control.strip() in self._exact
                                                or time_category(control) in self._categories)
            if not wanted:
                return False
        return True
