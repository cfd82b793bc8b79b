"""Pictures of records in notebooks: the hook between the records (formats) and their renderers (codegen).

IPython (Jupyter, VS Code, nbclient) shows an object through its ``_repr_html_`` or ``_repr_svg_`` method when it
has one. A record of the formats layer (a probe result, a book entry, a game header) takes :func:`repr_html` (and
:func:`repr_svg`) as those methods; they look the object's class up in a registry that the presentation layer
(:mod:`chessformats.codegen.notebook`) fills. The formats layer never imports codegen: the package's
``__init__`` (the layer above both) hands this module a loader that imports the renderers on the first picture
asked for, so ``import chessformats.polyglot`` costs nothing more.

A class without a renderer answers ``None``: IPython then shows its plain ``repr``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["register", "render", "repr_html", "repr_svg", "set_loader"]

Renderer = Callable[[Any], "str | None"]
"""Draws an object; ``None``: not this one (a Polyglot position probed by key has no board to draw)."""

_RENDERERS: dict[tuple[type, str], Renderer] = {}
_loader: Callable[[], None] | None = None


def register(kind: type, mime: str, renderer: Renderer) -> None:
    """Show instances of ``kind`` (and of its subclasses) as ``mime`` (``"html"`` or ``"svg"``) with ``renderer``."""
    if mime not in ("html", "svg"):
        raise ValueError(f"mime must be 'html' or 'svg', not {mime!r}")
    _RENDERERS[kind, mime] = renderer


def set_loader(loader: Callable[[], None]) -> None:
    """``loader()`` registers the renderers; it runs once, when the first picture is asked for."""
    global _loader
    _loader = loader


def _find(kind: type, mime: str) -> Renderer | None:
    for klass in kind.__mro__:
        found = _RENDERERS.get((klass, mime))
        if found is not None:
            return found
    return None


def render(value: object, mime: str) -> str | None:
    """``value`` drawn as ``mime`` by its class's renderer, or ``None`` when its class has none."""
    global _loader
    renderer = _find(type(value), mime)
    if renderer is None and _loader is not None:
        loader, _loader = _loader, None
        loader()
        renderer = _find(type(value), mime)
    return None if renderer is None else renderer(value)


def repr_html(self: object) -> str | None:
    """IPython's ``_repr_html_``: an HTML fragment (every text that comes from a file escaped)."""
    return render(self, "html")


def repr_svg(self: object) -> str | None:
    """IPython's ``_repr_svg_``: an SVG picture (a board)."""
    return render(self, "svg")
