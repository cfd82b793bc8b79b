"""Tagged unions: one of several layouts, chosen by a tag read earlier (a record type, a flag bit).

construct's ``Switch`` parses and builds a tagged union, but the engine's walkers see it as one opaque
field. :class:`TaggedUnion` is a ``Switch`` that also

* remembers which case it parsed (the parsed container carries the tag under the private key ``_case``,
  which construct's ``build`` ignores and ``assert_roundtrip`` does not compare),
* reports the fields of that case to the tracer (``trace_spans``), so the hex view labels every byte,
* lists its cases for the documentation (:meth:`TaggedUnion.structures`).

Every case must be a ``Struct`` whose parse does not depend on the surrounding context (wrap the union in
``FixedSized`` and use ``GreedyBytes`` for a variable tail): the tracer re-reads a case from its bytes alone.
Tags without a case are parsed by ``default`` (by default: the bytes kept raw as ``data``; ``None``: an error).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import construct as cs

from .schema import Structure

__all__ = ["RAW_CASE", "Case", "TaggedUnion"]

RAW_CASE = cs.Struct("data" / cs.GreedyBytes * "the bytes, kept as they are (layout not known)")
"""The default case: every byte of the union kept raw."""


class Case(NamedTuple):
    """One alternative of a :class:`TaggedUnion`."""

    title: str
    declaration: cs.Construct
    description: str


class TaggedUnion(cs.Construct):  # type: ignore[misc]
    """One of ``cases[tag]`` (a :class:`Case` or a bare ``Struct``), ``tag`` evaluated from the context."""

    def __init__(self, tag: Callable[[Any], Any] | Any, cases: Mapping[Any, Case | cs.Construct],
                 default: cs.Construct | None = RAW_CASE, *, label: str = "tagged union") -> None:
        super().__init__()
        self.tag = tag
        self.cases: dict[Any, Case] = {
            key: case if isinstance(case, Case) else Case(str(key), case, "") for key, case in cases.items()
        }
        self.default = default
        self.type_label = label
        self.flagbuildnone = False

    def case_of(self, key: Any) -> cs.Construct:
        """The declaration that parses tag ``key``."""
        case = self.cases.get(_plain_key(key))
        if case is not None:
            return case.declaration
        if self.default is None:
            raise cs.ExplicitError(f"no layout for tag {key!r}")
        return self.default

    def _key(self, context: Any, path: str) -> Any:
        try:
            return _plain_key(cs.evaluate(self.tag, context))
        except (KeyError, AttributeError, TypeError) as exc:
            raise cs.ExplicitError(f"cannot evaluate the tag of the union: {exc}", path=path) from exc

    def _parse(self, stream: Any, context: Any, path: str) -> Any:
        key = self._key(context, path)
        value = self.case_of(key)._parsereport(stream, context, path)
        if isinstance(value, dict):
            value = cs.Container(value)
            value["_case"] = key
        return value

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        key = self._key(context, path)
        return self.case_of(key)._build(obj, stream, context, path)

    def _sizeof(self, context: Any, path: str) -> int:
        sizes = set()
        defaults = [self.default] if self.default is not None else []
        for declaration in [case.declaration for case in self.cases.values()] + defaults:
            try:
                sizes.add(int(declaration._sizeof(context, path)))
            except (cs.SizeofError, KeyError, AttributeError, TypeError):
                raise cs.SizeofError("the cases of a tagged union differ in size", path=path) from None
        if len(sizes) != 1:
            raise cs.SizeofError("the cases of a tagged union differ in size", path=path)
        return sizes.pop()

    def trace_spans(self, raw: bytes | None, value: Any) -> list[Any]:
        """The fields of the case that was parsed, as spans relative to the union's first byte."""
        from .trace import Span, trace  # the tracer imports this module's users; import late

        if raw is None or not isinstance(value, dict):
            return []
        _, fields = trace(self.case_of(value.get("_case")), raw)
        return [Span(field.path, 8 * field.start, 8 * field.end, field.value, field.meaning)
                for field in fields if field.leaf and field.bit_start is None]

    def structures(self, prefix: str = "") -> list[Structure]:
        """One documentation :class:`Structure` per case (in tag order)."""
        return [Structure(f"{prefix}{case.title}", case.declaration, case.description)
                for case in self.cases.values()]


def _plain_key(key: Any) -> Any:
    """Enum strings and booleans as plain ints (``EnumIntegerString("text")`` -> its value)."""
    if isinstance(key, cs.EnumIntegerString):
        return int(key)
    if isinstance(key, bool):
        return int(key)
    return key
