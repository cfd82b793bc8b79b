"""Conditions of optional parts that the generated codecs (:mod:`.varcodec`) compile to direct expressions.

construct calls an ``If`` condition with the parse context; a callable it cannot see into costs the generated
code a context of the fields read so far. The conditions here say what they test, so the generator writes
the test itself (``f_flags.comment``, or ``f_flags & 1`` for a flags field kept as its stored integer):

- :class:`Parameter`: a value given to the parse by name (construct's ``parse(data, name=value)``, a codec's
  ``params``), unless a field of an enclosing record gives it (a file header read before the records);
- :class:`FlagSet`: bit ``flag`` of the bit structure in field ``field`` is set, and, when it has one, the
  :class:`Parameter` is true (a part some files do not have, whatever their flags say).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FlagSet", "Parameter"]


class Parameter:
    """A parse parameter ``name`` (``default`` when not given). ``source``: the path of a field of an enclosing
    record that gives the value instead when it is there (``("header", "element_type", "game_links")``: the
    nearest enclosing record with a ``header`` whose ``element_type`` has ``game_links``)."""

    def __init__(self, name: str, default: Any, *, source: tuple[str, ...] = ()) -> None:
        self.name = name
        self.default = default
        self.source = source

    def __repr__(self) -> str:
        return f"Parameter({self.name!r}, {self.default!r}, source={self.source!r})"

    def __call__(self, ctx: Any) -> Any:
        """The value seen from the construct context ``ctx`` (its enclosing contexts are walked through ``_``)."""
        node = ctx
        while self.source and node is not None:
            get = getattr(node, "get", None)
            if get is None:
                break
            found = _follow(get(self.source[0]), self.source[1:])
            if found is not _MISSING:
                return found
            node = get("_")
        params = ctx.get("_params") if hasattr(ctx, "get") else None
        return params.get(self.name, self.default) if params is not None else self.default


_MISSING = object()


def _follow(value: Any, names: tuple[str, ...]) -> Any:
    for name in names:
        if value is None:
            return _MISSING
        try:
            value = value[name]
        except (KeyError, TypeError, IndexError):
            return _MISSING
    return _MISSING if value is None else value


class FlagSet:
    """The condition "bit ``flag`` of field ``field`` is set (and ``parameter`` is true, when given)".

    construct calls it with the context; the generated codecs read :attr:`flag_test` and :attr:`parameter`
    and write the test as an expression over the field's local variable.
    """

    def __init__(self, flag: str, *, field: str = "flags", parameter: Parameter | None = None) -> None:
        self.flag = flag
        self.field = field
        self.parameter = parameter

    @property
    def flag_test(self) -> tuple[str, str]:
        """``(field, flag)``: the bit structure's field and its flag."""
        return self.field, self.flag

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.flag!r}, field={self.field!r}, parameter={self.parameter!r})"

    def __call__(self, ctx: Any) -> bool:
        return bool(ctx[self.field][self.flag]) and (self.parameter is None or bool(self.parameter(ctx)))
