"""A griffe extension for the API reference (mkdocs.yml loads it): the docstrings are written for Sphinx
(``:class:`~chessformats.x.Y``` and double-backtick literals); the site renders Markdown, where a role would
show as its raw text. Each role becomes the code it names (``~`` keeps the last part, as Sphinx shows it)."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const|term|ref|doc):"
                   r"`(~?)([^`<]+?)(?: <[^>]+>)?`")


def _shown(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2).strip()
    if short:
        target = target.rpartition(".")[2]
    return f"``{target}``"


class SphinxRoles(griffe.Extension):
    """Rewrites ``:role:`target``` as a literal in every docstring loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(_shown, obj.docstring.value)
