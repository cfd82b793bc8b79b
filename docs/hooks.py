"""mkdocs hooks (mkdocs.yml): the page of the Kaitai/ImHex exports lists every exported file, from the folders
themselves, so a new file type appears without editing the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

_DOCS = Path(__file__).resolve().parent
_MARK = "<!-- exported files -->"


def _listing(folder: str, suffix: str) -> str:
    names = sorted(path.name for path in (_DOCS / folder).glob(f"*{suffix}"))
    return "\n".join(f"- [`{name}`]({folder}/{name})" for name in names)


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if _MARK not in markdown:
        return markdown
    listing = ("### Kaitai Struct\n\n" + _listing("kaitai", ".ksy") + "\n\n### ImHex\n\n"
               + _listing("imhex", ".hexpat"))
    return markdown.replace(_MARK, listing)
