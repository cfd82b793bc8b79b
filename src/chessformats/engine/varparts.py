"""Small parts of the variable-layout generator (:mod:`.varcodec`): the ``try`` of an alternative, and what it
asks of a construct (a focused sequence, a bit-level field, a plain number, an encoder that refuses None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import construct as cs

from .errors import join_path
from .plan import Plan
from .prefixcode import PrefixCoded
from .schema import BitsUnsigned, strip_renamed
from .varruntime import NoCase

__all__ = ["attempt", "byte_values", "emit_at", "focus_fields", "is_bit_level", "is_focused", "number_format",
           "refuses_none", "runs"]


def emit_at(emit: Callable[[cs.Construct, str, str | None], None], sub: cs.Construct, indent: str, *,
             into: str | None) -> None:
    emit(sub, indent, into)


def attempt(lines: list[str], indent: str, body: Callable[[str], None], recover: list[str]) -> None:
    """``try: body`` (written by ``body(indent)``); on an error but a missing case (construct's explicit errors
    end the search), the ``recover`` lines: how GreedyRange and Select try an alternative."""
    lines.append(f"{indent}try:")
    body(indent + "    ")
    lines += [f"{indent}except _NoCase:", f"{indent}    raise", f"{indent}except Exception:",
              *(f"{indent}    {line}" for line in recover)]


def byte_values(decode: Callable[..., Any]) -> tuple[Any, ...] | None:
    """The values a one-byte part's ``decode(data, offset)`` gives for each byte, when each is read without an
    error and cannot change (hashable: shared by every read); else None."""
    try:
        values = tuple(decode(bytes((byte,)), 0) for byte in range(256))
        hash(values)
    except Exception:  # a byte the part refuses, or a mutable value: the decoder reads each
        return None
    return values


def refuses_none(encode: Callable[[Any], bytes]) -> bool:
    """A fixed encoder fails on None with an error an alternative catches (not a missing case)."""
    try:
        encode(None)
    except NoCase:
        return False
    except Exception:
        return True
    return False


def number_format(plan_: Plan, run: bool = False) -> str:
    """The struct format of a plan that is one plain integer (``run``: or a struct of one, read into a local;
    else "")."""
    node = plan_.root
    if run and node.kind != "leaf" and len(node.children) == 1:
        node = node.children[0]
    leaf = node.leaf
    if node.kind != "leaf" or leaf is None or leaf.width or leaf.enum is not None or leaf.has_const \
            or leaf.value != "int":
        return ""
    slot = plan_.slots[leaf.slot]
    return f"{'<' if slot.little else '>'}{slot.code}" if slot.code else ""


def is_focused(con: cs.Construct) -> bool:
    """A ``FocusedSeq`` that gives the value of one field, named: a struct whose value is that field's."""
    return isinstance(con, cs.FocusedSeq) and isinstance(con.parsebuildfrom, str)


def focus_fields(con: cs.FocusedSeq) -> tuple[list[str | None], list[str]]:
    """As :func:`take_fields` for a ``FocusedSeq``: the value is the focused field's, the others are None."""
    named: list[str | None] = [strip_renamed(sub)[1] for sub in con.subcons]
    return named, [f"    f_{name} = {'obj' if name == con.parsebuildfrom else 'None'}" for name in named if name]


def is_bit_level(con: cs.Construct) -> bool:
    """A field read from a bit stream (construct's bit integers, the engine's bit fields and prefix codes)."""
    while isinstance(con, (cs.Renamed, cs.Adapter)) and not isinstance(con, PrefixCoded):
        con = con.subcon
    return isinstance(con, (cs.BitsInteger, BitsUnsigned, PrefixCoded))


def runs(subcons: list[cs.Construct], generator: Any, path: str) -> list[Any]:
    """The fields of a struct, consecutive named fixed-size ones joined into one fixed run (``generator.fixed``;
    not those kept as stored)."""
    result: list[Any] = []
    run: list[cs.Construct] = []

    def close() -> None:
        if not run:
            return
        names = tuple(name for name in (strip_renamed(sub)[1] for sub in run) if name)
        fixed = generator.fixed(cs.Struct(*run), names)
        if fixed is None or len(set(names)) != len(names):
            result.extend(run)
        else:
            result.append(fixed)
        run.clear()

    for sub in subcons:
        name = strip_renamed(sub)[1] if isinstance(sub, cs.Renamed) else None
        if name and join_path(path, name) in generator.options.stored:
            close()
            result.append(sub)
        elif generator.fixed(sub) is not None and (name or isinstance(strip_renamed(sub)[0], cs.Const)):
            run.append(sub)
        else:
            close()
            result.append(sub)
    close()
    return result
