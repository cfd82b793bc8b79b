"""Context functions written once as a Python expression over the fields of a record, so that the generated
codecs (:mod:`.varcodec`) evaluate them directly, with no construct context.

construct calls a count, length or condition with the parse context; a ``lambda`` is opaque to the generator,
which then has to build that context for it. A :class:`Formula` says what it computes::

    "moves" / cs.Array(Formula("max(length - 1, 0) // 2"), MOVE)

construct calls it as it would the ``lambda`` (the names are the fields read so far, ``_`` the enclosing
record's context); the generator writes the expression with each field path replaced by its local variable.
Only names, attributes, numbers, arithmetic, comparisons, ``and``/``or``/``not``, conditional expressions and
calls of :data:`FUNCTIONS` are allowed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

__all__ = ["FUNCTIONS", "Formula"]

FUNCTIONS = {"max": max, "min": min, "abs": abs}
"""The functions a formula may call (the generated code calls Python's own)."""

_ALLOWED = (ast.Expression, ast.Name, ast.Load, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp,
            ast.Compare, ast.IfExp, ast.Call, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


class Formula:
    """``text``: a Python expression over the record's field names (``header.length - 1``, ``_.used``)."""

    def __init__(self, text: str) -> None:
        tree = ast.parse(text, mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED):
                raise ValueError(f"formula {text!r}: {type(node).__name__} is not allowed")
            if isinstance(node, (ast.Attribute, ast.Name)) and getattr(node, "attr", getattr(node, "id", "")) \
                    .startswith("__"):
                raise ValueError(f"formula {text!r}: a name that starts with __ is not allowed")
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
                                                   and not node.keywords):
                raise ValueError(f"formula {text!r}: only {', '.join(FUNCTIONS)} may be called")
        self.text = text
        self._tree = tree
        self.names = tuple(sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
                                   and node.id not in FUNCTIONS}))
        """The fields (``_``: the enclosing record) the formula reads."""
        code = compile(f"lambda {', '.join(self.names)}: {text}", f"<formula {text}>", "eval")
        self._function: Callable[..., Any] = eval(code, {"__builtins__": {}, **FUNCTIONS})  # the tree is checked above

    def __repr__(self) -> str:
        return f"Formula({self.text!r})"

    def __call__(self, ctx: Any) -> Any:
        """The value in construct's context ``ctx`` (a field's value by item access, as construct's ``this``)."""
        return self._function(*(ctx[name] for name in self.names))

    def source(self, path: Callable[[list[str]], str | None]) -> str | None:
        """The expression as Python source, each field path (``header.length`` -> ``["header", "length"]``)
        replaced by ``path(names)`` (None: a path it cannot give, and so None)."""
        missing = False

        class Paths(ast.NodeTransformer):
            def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                return self.replace(node) or self.generic_visit(node)

            def visit_Name(self, node: ast.Name) -> ast.AST:
                return self.replace(node) or node

            def replace(self, node: ast.expr) -> ast.AST | None:
                nonlocal missing
                names: list[str] = []
                while isinstance(node, ast.Attribute):
                    names.append(node.attr)
                    node = node.value
                if not isinstance(node, ast.Name) or node.id in FUNCTIONS:
                    return None
                names.append(node.id)
                found = path(names[::-1])
                if found is None:
                    missing = True
                    return None
                return ast.Name(id=f"({found})", ctx=ast.Load())

        tree = Paths().visit(ast.parse(self.text, mode="eval"))
        return None if missing else f"({ast.unparse(tree)})"
