"""The code page of a ChessBase base's texts, measured: bases store names and comments in the code page of the
Windows that wrote them and record none (the ``.cba`` text items name a language, from a Western list). A reader
that takes cp1252 turns Russian comments into "Íå áóäåì ïîêà…"; the measure tells Cyrillic from Western text by
how high bytes stand: Cyrillic words are written wholly in bytes 0xC0-0xFF, Western words hold one accented letter
among ASCII ones. A base is measured by its comments and its names (players, tournaments, ...) together.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine.errors import FormatError

__all__ = ["base_code_page", "guess_code_page"]

_LETTERS = range(0xC0, 0x100)
_CYRILLIC_SHARE = 0.5
"""Above this share of high letters standing beside another high letter, the text is Cyrillic (cp1251)."""


def guess_code_page(texts: Iterable[bytes]) -> str | None:
    """``None`` when the texts need no code page (ASCII, or valid UTF-8: the default reading is right); else
    ``"cp1251"`` when most of their high letters (0xC0-0xFF) stand beside another (Cyrillic words), else
    ``"cp1252"`` (Western European)."""
    high = paired = 0
    other = False
    for text in texts:
        if not any(byte >= 0x80 for byte in text):
            continue
        try:
            text.decode("utf-8")
            continue
        except UnicodeDecodeError:
            other = True
        for index, byte in enumerate(text):
            if byte in _LETTERS:
                high += 1
                before = index > 0 and text[index - 1] in _LETTERS
                if before or (index + 1 < len(text) and text[index + 1] in _LETTERS):
                    paired += 1
    if not other:
        return None
    return "cp1251" if high and paired / high > _CYRILLIC_SHARE else "cp1252"


_NAME_FIELDS = (("players", ("last_name", "first_name")), ("tournaments", ("title", "place")),
                ("annotators", ("name",)), ("sources", ("title",)), ("teams", ("title",)))
"""The name fields of each entity file (the text its records hold)."""


def base_code_page(db: Any, *, games: int = 500, names: int = 1000) -> str | None:
    """:func:`guess_code_page` over the comments of the first ``games`` annotated games of an open base and the
    names of the first ``names`` records of each entity file (players, tournaments, annotators, sources, teams:
    a base without comments is measured by its names); ``None``: nothing but ASCII or UTF-8."""
    texts: list[bytes] = []
    for number in (np.flatnonzero(db.annotated())[:games] + 1).tolist():
        try:
            items = db.annotations(number)
        except FormatError:
            continue
        texts += [bytes(item.body.text) for item in items if str(item.type) in ("text_after", "text_before")]
    for kind, fields in _NAME_FIELDS:
        entities = getattr(db, kind)
        for number in range(min(len(entities), names)):
            try:
                record = entities[number].record
            except FormatError:
                continue
            texts += [bytes(getattr(record, name)).split(b"\0", 1)[0] for name in fields]
    return guess_code_page(texts)
