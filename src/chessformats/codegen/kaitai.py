"""Kaitai Struct export: one ``.ksy`` file per file type, printed from the declarations' :class:`.Model`.

Every field keeps its meaning as ``doc``, every enum value its meaning; bit runs become types of ``bN``
fields with the run's ``bit-endian``; counts, sizes and conditions become Kaitai expressions. What Kaitai
cannot express (a prefix-coded board) stays a byte string whose ``doc`` says so. The files are YAML written
here without a YAML library (every string double-quoted, which YAML reads like JSON).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path as FilePath
from typing import Any

from .binmodel import (
    Bin,
    Cond,
    EnumConst,
    EnumDef,
    Expr,
    Field,
    Io,
    Model,
    Not,
    Num,
    Path,
    Spec,
    Str,
    TypeDef,
)
from .filetypes import FORMATS, build_model, file_types

__all__ = ["ksy", "ksy_text", "write_kaitai"]

HEADER = "# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.\n"


# --- expressions ----------------------------------------------------------------------------------------------

def expression(node: Expr) -> str:
    """``node`` in Kaitai's expression language."""
    if isinstance(node, Num):
        return ("true" if node.value else "false") if isinstance(node.value, bool) else str(node.value)
    if isinstance(node, Path):
        prefix = "_root." if node.root else "_parent." * node.parents
        return prefix + ".".join(node.names) + (".value" if node.value else "")
    if isinstance(node, Bin):
        lhs, rhs = expression(node.lhs), expression(node.rhs)
        if _is_enum(node.lhs) and not isinstance(node.rhs, EnumConst):
            lhs += ".to_i"
        if _is_enum(node.rhs) and not isinstance(node.lhs, EnumConst):
            rhs += ".to_i"
        return f"({lhs} {node.op} {rhs})"
    if isinstance(node, Not):
        return f"not {expression(node.operand)}"
    if isinstance(node, Cond):
        return f"({expression(node.condition)} ? {expression(node.then)} : {expression(node.otherwise)})"
    if isinstance(node, EnumConst):
        return f"{node.enum}::{node.member}"
    if isinstance(node, Io):
        return f"_io.{node.what}"
    if isinstance(node, Str):
        raise ValueError(f"a string outside an enum comparison: {node.text!r}")
    raise TypeError(f"not an expression: {node!r}")


def _is_enum(node: Expr) -> bool:
    return isinstance(node, Path) and node.enum


def _top(text: str) -> str:
    """An expression without its outer parentheses (for readability)."""
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        return text[1:-1]
    return text


def _number(text: str) -> int | str:
    """A plain number as an integer, any other expression as its text."""
    return int(text) if text.isdigit() else _top(text)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


# --- the specification as a dictionary ----------------------------------------------------------------------

def _type(spec: Spec, in_bits: bool) -> Any:
    if spec.kind == "int":
        if spec.float:
            return f"f{spec.width}{spec.endian}"
        letter = "s" if spec.signed else "u"
        return f"{letter}1" if spec.width == 1 else f"{letter}{spec.width}{spec.endian}"
    if spec.kind == "bits":
        return f"b{spec.width}" if in_bits else f"b{spec.width}{spec.endian}"
    if spec.kind == "flag":
        return "b1"
    if spec.kind in ("struct", "custom"):
        return spec.type
    if spec.kind == "switch":
        assert spec.on is not None
        return {"switch-on": _top(expression(spec.on)),
                "cases": {key: _type(case, in_bits) for key, case in spec.cases.items()}}
    raise ValueError(f"no Kaitai type for {spec.kind}")


def _doc(item: Field) -> str:
    return f"{item.doc} ({item.note})" if item.note else item.doc


def _attribute(item: Field, owner: TypeDef, peeks: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": item.name}
    if item.contents is not None:
        out["contents"] = list(item.contents)
    elif item.spec.kind != "bytes":
        out["type"] = _type(item.spec, owner.bit_endian is not None)
    if item.size is not None and item.contents is None:
        out["size"] = _number(expression(item.size))
    if item.size_eos:
        out["size-eos"] = True
    if item.spec.enum:
        out["enum"] = item.spec.enum
    condition = item.condition
    if item.repeat == "expr":
        assert item.count is not None
        out["repeat"], out["repeat-expr"] = "expr", _number(expression(item.count))
    elif item.repeat == "eos":
        out["repeat"] = "eos"
    elif item.repeat == "until_zero":
        out["repeat"], out["repeat-until"] = "until", "_.end_follows"
        peeks[item.spec.type] = item.until_bytes
        guard = f"{item.name}_first_bytes != 0"
        out["if"] = guard if condition is None else f"{guard} and {expression(condition)}"
        condition = None
    if condition is not None:
        out["if"] = _top(expression(condition))
    if item.valid is not None:
        out["valid"] = item.valid
    out["doc"] = _doc(item)
    return out


def _type_body(typedef: TypeDef, peeks: dict[str, int]) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if typedef.doc:
        body["doc"] = typedef.doc
    if typedef.bit_endian is not None:
        body["meta"] = {"bit-endian": typedef.bit_endian}
    body["seq"] = [_attribute(item, typedef, peeks) for item in typedef.fields]
    instances = {
        f"{item.name}_first_bytes": {
            "pos": "_io.pos", "type": f"u{item.until_bytes}le",
            "doc": f"the {item.until_bytes} bytes where `{item.name}` starts, read ahead (0: the terminator, no items)"}
        for item in typedef.fields if item.repeat == "until_zero"
    }
    if instances:
        body["instances"] = instances
    return body


def _peek_instances(width: int) -> dict[str, Any]:
    return {
        "next_bytes": {"pos": "_io.pos", "type": f"u{width}le",
                       "doc": f"the {width} bytes after this item, read ahead (all zero: the terminator follows)"},
        "end_follows": {"value": "next_bytes == 0", "doc": "the terminator follows this item"},
    }


def _enum(enum: EnumDef) -> dict[int, Any]:
    return {value: {"id": ident, "doc": meaning} if meaning else ident for value, ident, _, meaning in enum.members}


def ksy(model: Model) -> dict[str, Any]:
    """The Kaitai Struct specification of ``model`` as a dictionary (what the ``.ksy`` file holds)."""
    peeks: dict[str, int] = {}
    top = _type_body(model.top, peeks)
    types = {name: _type_body(typedef, peeks) for name, typedef in model.types.items()}
    for name, width in peeks.items():
        types[name].setdefault("instances", {}).update(_peek_instances(width))
    for custom in sorted({f.spec.type for t in [model.top, *model.types.values()] for f in t.fields
                          if f.spec.kind == "custom"}):
        types[custom] = _CUSTOM[custom]()
    spec: dict[str, Any] = {
        "meta": {
            "id": model.id,
            "title": model.title,
            "file-extension": [extension.lstrip(".") for extension in model.extensions],
            "license": "MIT",
            "ks-version": "0.11",
            "endian": model.endian,
            "bit-endian": "be",
        },
        "doc": model.doc,
        "doc-ref": model.doc_ref,
        "seq": top["seq"],
    }
    if "instances" in top:
        spec["instances"] = top["instances"]
    spec["types"] = types
    if model.enums:
        spec["enums"] = {name: _enum(enum) for name, enum in model.enums.items()}
    return spec


def _compact_int() -> dict[str, Any]:
    """A base-128 integer, most significant digit first, bit 7 set on all digits but the last."""
    from ..schemas.kvetka import COMPACT_INT_MAX_BYTES

    def digits(count: int) -> str:
        return " | ".join(f"((digits[{i}] & 127) << {7 * (count - 1 - i)})" for i in range(count))

    value = digits(1)
    for count in range(2, COMPACT_INT_MAX_BYTES + 1):
        value = f"(digits.size == {count} ? ({digits(count)}) : {value})"
    return {
        "doc": "CompactInt: base-128 digits, most significant first, bit 7 set on every digit but the last",
        "seq": [{"id": "digits", "type": "u1", "repeat": "until", "repeat-until": "_ < 128",
                 "doc": "the digits"}],
        "instances": {"value": {"value": _top(value), "doc": "the number"}},
    }


_CUSTOM = {"compact_int": _compact_int}


# --- YAML ---------------------------------------------------------------------------------------------------

_PLAIN_KEY = re.compile(r"^[a-z_][a-z0-9_-]*$")
_PLAIN = re.compile(r"^[A-Za-z_(][A-Za-z0-9_ .,:()+*/<>=!?&|%'-]*$")
_SPECIAL = re.compile(r"^(true|false|null|yes|no|on|off|y|n|~|[-+]?[0-9].*)$", re.IGNORECASE)


def _scalar(value: Any) -> str:
    """A YAML scalar: plain when YAML reads it back as the same string, else double-quoted (JSON)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.match(text) and not _SPECIAL.match(text) and ": " not in text and " #" not in text \
            and not text.endswith((" ", ":")):
        return text
    return json.dumps(text, ensure_ascii=False)


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    return key if _PLAIN_KEY.match(key) and key not in ("true", "false", "null", "yes", "no", "on", "off") \
        else json.dumps(key)


def _yaml(value: Any, indent: int) -> list[str]:
    pad = "  " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, list) and item and all(isinstance(x, (int, str)) for x in item):
                lines.append(f"{pad}{_key(key)}: {_inline(item)}")
            elif isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{_key(key)}:")
                lines += _yaml(item, indent + 1)
            elif isinstance(item, str) and "\n" in item:
                lines.append(f"{pad}{_key(key)}: |-")
                lines += [f"{pad}  {line}" if line else "" for line in item.split("\n")]
            else:
                lines.append(f"{pad}{_key(key)}: {_inline(item)}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and item:
                inner = _yaml(item, indent + 1)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines += inner[1:]
            else:
                lines.append(f"{pad}- {_inline(item)}")
    return lines


def _inline(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_inline(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {_inline(v)}" for k, v in value.items()) + "}"
    return _scalar(value)


def ksy_text(model: Model) -> str:
    """The ``.ksy`` file of ``model``."""
    return HEADER + "\n".join(_yaml(ksy(model), 0)) + "\n"


def write_kaitai(out: str | os.PathLike[str], formats: list[str] | None = None) -> list[FilePath]:
    """Write the ``.ksy`` files of ``formats`` (default: all) into ``out``; return the paths written."""
    folder = FilePath(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for key in formats or list(FORMATS):
        for file_type in file_types(key):
            path = folder / f"{file_type.id}.ksy"
            path.write_text(ksy_text(build_model(file_type)), encoding="utf-8")
            written.append(path)
    return written
