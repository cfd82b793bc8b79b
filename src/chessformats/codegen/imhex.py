"""ImHex pattern export: one ``.hexpat`` file per file type, printed from the declarations' :class:`.Model`.

Structures become ``struct``\\ s, bit runs ``bitfield``\\ s (``[[bitfield_order]]`` as the run is declared),
enums ``enum``\\ s, meanings ``[[comment]]`` attributes; counts, sizes and conditions become pattern-language
expressions. ImHex has no substreams: a structure read from a region of a given size takes the size as a
template parameter (``<auto Size>``), remembers where it starts and pads up to its end; an array that fills
a region is read while the cursor (``$``) is inside it. Layout and syntax follow the pattern language
documentation (docs.werwolv.net, "Pattern Language": data types, attributes, control flow, expressions).
"""

from __future__ import annotations

import json
import os
from pathlib import Path as FilePath

from .binmodel import Bin, Cond, EnumConst, EnumDef, Expr, Field, Io, Model, Not, Num, Path, Spec, Str, TypeDef
from .filetypes import FORMATS, build_model, file_types

__all__ = ["hexpat_text", "type_name", "write_imhex"]

HEADER = "// Generated from the chessformats declarations by `chessformats export --to imhex`; do not edit by hand.\n"
REGION_START = "region_start"
"""The local variable of a sized structure that holds its first address."""

_OPS = {"and": "&&", "or": "||"}


def type_name(name: str) -> str:
    """The pattern-language name of an exported type or enum (``page_header`` -> ``PageHeader``)."""
    return "".join(part.capitalize() for part in name.split("_"))


class _Printer:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.sized = {f.spec.type for t in [model.top, *model.types.values()] for f in t.fields
                      if f.size is not None and f.spec.kind == "struct" and not model.types[f.spec.type].wrapper}
        self.in_sized = False

    # -- expressions

    def expr(self, node: Expr) -> str:
        if isinstance(node, Num):
            return ("true" if node.value else "false") if isinstance(node.value, bool) else str(node.value)
        if isinstance(node, Path):
            text = "parent." * node.scopes + ".".join(node.names)
            return f"compact_int_value({text})" if node.value else text
        if isinstance(node, Bin):
            lhs, rhs = self.expr(node.lhs), self.expr(node.rhs)
            if _is_enum(node.lhs) and not isinstance(node.rhs, EnumConst):
                lhs = f"u32({lhs})"
            if _is_enum(node.rhs) and not isinstance(node.lhs, EnumConst):
                rhs = f"u32({rhs})"
            return f"({lhs} {_OPS.get(node.op, node.op)} {rhs})"
        if isinstance(node, Not):
            return f"!{self.expr(node.operand)}"
        if isinstance(node, Cond):
            return f"({self.expr(node.condition)} ? {self.expr(node.then)} : {self.expr(node.otherwise)})"
        if isinstance(node, EnumConst):
            return f"{type_name(node.enum)}::{node.member}"
        if isinstance(node, Io):
            return self._io(node.what)
        if isinstance(node, Str):
            raise ValueError(f"a string outside an enum comparison: {node.text!r}")
        raise TypeError(f"not an expression: {node!r}")

    def _io(self, what: str) -> str:
        end = f"({REGION_START} + Size)" if self.in_sized else "std::mem::size()"
        if what == "pos":
            return "$"
        if what == "size":
            return "Size" if self.in_sized else "std::mem::size()"
        return f"($ >= {end})" if self.in_sized else "std::mem::eof()"

    def _end(self) -> str:
        return f"{REGION_START} + Size" if self.in_sized else "std::mem::size()"

    # -- declarations

    def enum(self, enum: EnumDef) -> list[str]:
        if enum.width < 0:  # the values of a bit field
            base = "u8" if -enum.width <= 8 else "u16" if -enum.width <= 16 else "u32"
        else:
            base = f"u{8 * enum.width}"
        lines = [f"enum {type_name(enum.name)} : {base} {{"]
        for value, ident, _, meaning in enum.members:
            lines.append(f"    {ident} = {value},  // {meaning}" if meaning else f"    {ident} = {value},")
        return [*lines, "};", ""]

    def bitfield(self, typedef: TypeDef) -> list[str]:
        lines = [f"bitfield {type_name(typedef.name)} {{"]
        for item in typedef.fields:
            width = 1 if item.spec.kind == "flag" else item.spec.width
            kind = f"{type_name(item.spec.enum)} " if item.spec.enum else ""
            lines.append(f"    {kind}{item.name} : {width} {_comment(item)};")
        order = "MostToLeastSignificant" if typedef.bit_endian == "be" else "LeastToMostSignificant"
        size = 8 * (typedef.size or 0)
        attributes = [f"bitfield_order(std::core::BitfieldOrder::{order}, {size})"]
        if typedef.doc:
            attributes.append(f"comment({_string(typedef.doc)})")
        return [*lines, f"}} [[{', '.join(attributes)}]];", ""]

    def struct(self, typedef: TypeDef) -> list[str]:
        sized = typedef.name in self.sized
        self.in_sized = sized
        head = f"struct {type_name(typedef.name)}" + ("<auto Size>" if sized else "") + " {"
        lines = [head]
        if sized:
            lines.append(f"    u64 {REGION_START} = $;")
        for item in typedef.fields:
            lines += ["    " + line for line in self.field(item)]
        if sized:
            lines.append(f"    if ($ < {REGION_START} + Size)")
            lines.append(f"        padding[{REGION_START} + Size - $];")
        attributes = f" [[comment({_string(typedef.doc)})]]" if typedef.doc else ""
        self.in_sized = False
        return [*lines, f"}}{attributes};", ""]

    def field(self, item: Field) -> list[str]:
        if item.spec.kind == "struct" and self.model.types[item.spec.type].wrapper:
            return self._region(item)
        statement = self._declaration(item, self._array(item))
        return self._guarded(item, statement)

    def _guarded(self, item: Field, statement: list[str]) -> list[str]:
        if item.condition is None:
            return statement
        return [f"if ({_top(self.expr(item.condition))})", *["    " + line for line in statement]]

    def _declaration(self, item: Field, array: str) -> list[str]:
        spec = item.spec
        if spec.kind == "switch":
            return self._switch(item, array)
        text = f"{self._type(spec, item)} {item.name}{array} {_comment(item)};"
        return [text]

    def _switch(self, item: Field, array: str) -> list[str]:
        spec = item.spec
        assert spec.on is not None
        if set(spec.cases) == {True, False}:
            return [f"if ({_top(self.expr(spec.on))})",
                    f"    {self._type(spec.cases[True], item)} {item.name}{array} {_comment(item)};",
                    "else",
                    f"    {self._type(spec.cases[False], item)} {item.name}{array} {_comment(item)};"]
        lines = [f"match ({_top(self.expr(spec.on))}) {{"]
        for key, case in spec.cases.items():
            lines.append(f"    ({int(key)}): {self._type(case, item)} {item.name}{array} {_comment(item)};")
        return [*lines, "}"]

    def _type(self, spec: Spec, item: Field) -> str:
        if spec.kind == "int":
            if spec.float:
                return f"{spec.endian} {'float' if spec.width == 4 else 'double'}"
            name = type_name(spec.enum) if spec.enum else f"{'s' if spec.signed else 'u'}{8 * spec.width}"
            return name if spec.width == 1 else f"{spec.endian} {name}"
        if spec.kind == "bits":  # a whole-byte integer of an odd width (u24)
            return f"{spec.endian} u{spec.width}"
        if spec.kind == "bytes":
            return "u8"
        if spec.kind in ("struct", "custom"):
            name = type_name(spec.type)
            if spec.type in self.sized and item.size is not None:
                return f"{name}<{_top(self.expr(item.size))}>"
            return name
        raise ValueError(f"no pattern type for {spec.kind}")

    def _array(self, item: Field) -> str:
        if item.spec.kind == "bytes":
            if item.contents is not None:
                return f"[{len(item.contents)}]"
            if item.size_eos:
                return f"[{self._end()} - $]"
            assert item.size is not None
            return f"[{_top(self.expr(item.size))}]"
        if item.repeat == "expr":
            assert item.count is not None
            return f"[{_top(self.expr(item.count))}]"
        if item.repeat == "eos":
            return f"[while($ < {self._end()})]"
        if item.repeat == "until_zero":
            return f"[while(std::mem::read_unsigned($, {item.until_bytes}) != 0)]"
        return ""

    def _region(self, item: Field) -> list[str]:
        """An array filling a region of ``size`` bytes: read while the cursor is inside it."""
        assert item.size is not None
        inner = self.model.types[item.spec.type].fields[0]
        end = f"{item.name}_end"
        lines = [f"u64 {end} = $ + {self.expr(item.size)};"]
        array = f"[{_top(self.expr(inner.count))}]" if inner.repeat == "expr" and inner.count is not None \
            else f"[while($ < {end})]"
        element = Field(item.name, item.doc, inner.spec, inner.size, note=item.note)
        lines += self._guarded(item, self._declaration(element, array))
        lines += [f"if ($ < {end})", f"    padding[{end} - $];"]
        return lines


def _is_enum(node: Expr) -> bool:
    return isinstance(node, Path) and node.enum


def _top(text: str) -> str:
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for index, char in enumerate(text):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and index < len(text) - 1:
                return text
        return text[1:-1]
    return text


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _comment(item: Field) -> str:
    text = f"{item.doc} ({item.note})" if item.note else item.doc
    if item.valid is not None:
        text += f" (always {item.valid})"
    if item.contents is not None:
        text += f" (always {item.contents.hex(' ')})"
    return f"[[comment({_string(text)})]]"


def _order(model: Model) -> list[TypeDef]:
    """Types before the types that use them (the pattern language wants a type declared before its use)."""
    done: list[str] = []

    def visit(name: str) -> None:
        if name in done or name not in model.types:
            return
        done.append(name)  # marks it as being visited (the types are not recursive)
        for item in model.types[name].fields:
            for spec in [item.spec, *item.spec.cases.values()]:
                if spec.kind in ("struct", "custom"):
                    visit(spec.type)
        done.remove(name)
        done.append(name)

    for item in model.top.fields:
        for spec in [item.spec, *item.spec.cases.values()]:
            if spec.kind == "struct":
                visit(spec.type)
    return [model.types[name] for name in done if not model.types[name].wrapper]


_COMPACT_INT = """struct CompactInt {
    u8 digits[while(std::mem::read_unsigned($, 1) >= 0x80)] [[comment("the digits before the last, bit 7 set")]];
    u8 last [[comment("the last digit, bit 7 clear")]];
} [[comment("CompactInt: base-128 digits, most significant first, bit 7 set on every digit but the last")]];

fn compact_int_value(ref CompactInt number) {
    u128 value = 0;
    for (u32 i = 0, i < sizeof(number.digits), i += 1)
        value = (value << 7) | (number.digits[i] & 0x7F);
    return (value << 7) | number.last;
};
"""


def hexpat_text(model: Model) -> str:
    """The ``.hexpat`` file of ``model``."""
    printer = _Printer(model)
    lines = [HEADER.rstrip(), f"// {model.title}", "//"]
    lines += [f"// {line}".rstrip() for paragraph in model.doc.split("\n") for line in _wrap(paragraph)]
    lines += ["", f"#pragma description {model.title}", f"#pragma endian {'big' if model.endian == 'be' else 'little'}",
              "", "import std.core;", "import std.mem;", ""]
    for enum in model.enums.values():
        lines += printer.enum(enum)
    if any(f.spec.kind == "custom" for t in model.types.values() for f in t.fields):
        lines += [*_COMPACT_INT.rstrip().split("\n"), ""]
    for typedef in _order(model):
        lines += printer.bitfield(typedef) if typedef.bit_endian is not None else printer.struct(typedef)
    lines += printer.struct(model.top)
    lines.append(f"{type_name(model.top.name)} {model.top.name} @ 0x00 [[name({_string(model.title)})]];")
    return "\n".join(lines) + "\n"


def _wrap(paragraph: str, width: int = 110) -> list[str]:
    words, lines, line = paragraph.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line or not lines else lines


def write_imhex(out: str | os.PathLike[str], formats: list[str] | None = None) -> list[FilePath]:
    """Write the ``.hexpat`` files of ``formats`` (default: all) into ``out``; return the paths written."""
    folder = FilePath(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for key in formats or list(FORMATS):
        for file_type in file_types(key):
            path = folder / f"{file_type.id}.hexpat"
            path.write_text(hexpat_text(build_model(file_type)), encoding="utf-8")
            written.append(path)
    return written
