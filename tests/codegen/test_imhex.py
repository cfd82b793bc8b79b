"""The ImHex pattern export: well-formed, and every declared field at its declared offset and size.

ImHex itself is a desktop program; the patterns are checked against a grammar written here from the pattern
language documentation (docs.werwolv.net, "Pattern Language"; source WerWolv/Documentation,
``pattern_language/core-language/``: data-types.md for built-in types, enums, arrays, bitfields, structs and
templates; attributes.md for ``[[comment]]``, ``[[name]]``, ``[[bitfield_order(order, size)]]``;
control-flow.md for ``if``/``else`` and ``match``; expressions.md for operators, ``parent``, ``$`` and ``::``;
functions.md for ``fn``, ``ref`` parameters, ``for`` loops with comma-separated heads; variable-placement.md
for ``@``). The parser below accepts that language (the part the export uses), builds the types and computes
their static layout, which must agree with ``describe()`` of every declaration, bit numbers included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from chessformats.codegen.filetypes import FORMATS, FileType, build_model, file_types
from chessformats.codegen.imhex import hexpat_text, type_name, write_imhex
from chessformats.engine.layout import LayoutField, describe
from conftest import REPO_ROOT

FILE_TYPES = [file_type for key in FORMATS for file_type in file_types(key)]
HEXPAT_DIR = REPO_ROOT / "docs" / "imhex"

BUILTIN = {f"{sign}{bits}": bits // 8 for sign in "us" for bits in (8, 16, 24, 32, 48, 64, 96, 128)}
BUILTIN |= {"float": 4, "double": 8, "char": 1, "char16": 2, "bool": 1}
KEYWORDS = {"struct", "union", "enum", "bitfield", "fn", "if", "else", "match", "while", "for", "return", "break",
            "continue", "padding", "using", "import", "be", "le", "parent", "this", "true", "false", "null", "ref",
            "auto", "const", "addressof", "sizeof", "typenameof", "str"}


# --- tokens ---------------------------------------------------------------------------------------------------

TOKEN = re.compile(r"""
    (?P<space>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<pragma>\#pragma[^\n]*)
  | (?P<number>0x[0-9A-Fa-f]+|0b[01]+|0o[0-7]+|\d+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<char>'(?:[^'\\]|\\.)')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\[\[|\]\]|::|\.\.\.|<<|>>|<=|>=|==|!=|&&|\|\||\^\^|\+=|-=|[-+*/%&|^~!<>=?:;,.()\[\]{}@$])
""", re.VERBOSE | re.DOTALL)


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(text):
        match = TOKEN.match(text, position)
        assert match is not None, f"no token at {text[position:position + 40]!r}"
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append((kind, match.group()))
        position = match.end()
    return tokens


# --- the parser -----------------------------------------------------------------------------------------------

@dataclass
class Member:
    name: str
    type: str  # a type name, "" for bit fields without an enum type
    args: list[Any] = field(default_factory=list)
    array: Any = None  # None, ("count", expr) or ("while", expr)
    bits: int | None = None
    conditional: bool = False
    attributes: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class TypeDecl:
    kind: str  # struct, bitfield, enum
    name: str
    members: list[Member | str] = field(default_factory=list)  # "?" marks a non-static step (padding to a region)
    template: bool = False
    base: str = ""
    values: dict[str, int] = field(default_factory=dict)
    attributes: dict[str, list[Any]] = field(default_factory=dict)


class Parser:
    """A recursive-descent parser of the pattern language (the grammar of the documentation pages above)."""

    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.at = 0
        self.types: dict[str, TypeDecl] = {}
        self.functions: set[str] = set()
        self.placements: list[Member] = []
        self.imports: list[str] = []

    # tokens
    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.tokens[index][1] if index < len(self.tokens) else ""

    def kind(self) -> str:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        assert self.at < len(self.tokens), f"unexpected end, expected {expected!r}"
        value = self.tokens[self.at][1]
        if expected is not None:
            assert value == expected, f"expected {expected!r}, found {value!r} near {self.context()}"
        self.at += 1
        return value

    def context(self) -> str:
        return " ".join(token for _, token in self.tokens[max(0, self.at - 8):self.at + 8])

    def name(self) -> str:
        assert self.kind() == "name" and self.peek() not in KEYWORDS, f"expected a name near {self.context()}"
        return self.take()

    # program
    def program(self) -> Parser:
        while self.at < len(self.tokens):
            word = self.peek()
            if self.kind() == "pragma":
                self.take()
            elif word == "import":
                self.take()
                parts = [self.name()]
                while self.peek() == ".":
                    self.take(".")
                    parts.append(self.name())
                self.take(";")
                self.imports.append(".".join(parts))
            elif word == "enum":
                self.enum()
            elif word in ("struct", "bitfield"):
                self.composite(word)
            elif word == "fn":
                self.function()
            else:
                self.placements.append(self.declaration(placement=True))
        return self

    def attributes(self) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        while self.peek() == "[[":
            self.take("[[")
            while True:
                name = self.name()
                args = []
                if self.peek() == "(":
                    self.take("(")
                    while self.peek() != ")":
                        args.append(self.expression())
                        if self.peek() == ",":
                            self.take(",")
                    self.take(")")
                found[name] = args
                if self.peek() != ",":
                    break
                self.take(",")
            self.take("]]")
        return found

    def enum(self) -> None:
        self.take("enum")
        decl = TypeDecl("enum", self.name())
        self.take(":")
        decl.base = self.take()
        assert decl.base in BUILTIN, decl.base
        self.take("{")
        value = 0
        while self.peek() != "}":
            member = self.name()
            if self.peek() == "=":
                self.take("=")
                value = self.constant(self.expression())
            assert member not in decl.values, f"enum {decl.name}: {member} twice"
            decl.values[member] = value
            value += 1
            if self.peek() == ",":
                self.take(",")
        self.take("}")
        decl.attributes = self.attributes()
        self.take(";")
        self.declare(decl)

    def declare(self, decl: TypeDecl) -> None:
        assert decl.name not in self.types and decl.name not in BUILTIN, f"type {decl.name} declared twice"
        self.types[decl.name] = decl

    def composite(self, kind: str) -> None:
        self.take(kind)
        decl = TypeDecl(kind, self.name())
        if self.peek() == "<":
            self.take("<")
            self.take("auto")
            assert self.name() == "Size"
            self.take(">")
            decl.template = True
        self.take("{")
        while self.peek() != "}":
            self.statement(decl, conditional=False)
        self.take("}")
        decl.attributes = self.attributes()
        self.take(";")
        self.declare(decl)

    def statement(self, decl: TypeDecl, *, conditional: bool) -> None:
        word = self.peek()
        if word == "if":
            self.take("if")
            self.take("(")
            self.expression()
            self.take(")")
            self.body(decl)
            if self.peek() == "else":
                self.take("else")
                self.body(decl)
        elif word == "match":
            self.take("match")
            self.take("(")
            self.expression()
            self.take(")")
            self.take("{")
            while self.peek() != "}":
                self.take("(")
                self.expression()
                self.take(")")
                self.take(":")
                self.body(decl)
            self.take("}")
        elif word == "padding":
            self.take("padding")
            self.take("[")
            self.expression()
            self.take("]")
            self.take(";")
            decl.members.append("?")
        elif decl.kind == "bitfield":
            kind = self.name() if self.peek(1) != ":" else ""
            assert not kind or self.types.get(kind, TypeDecl("", "")).kind == "enum", f"unknown enum {kind}"
            member = Member(self.name(), kind, conditional=conditional)
            self.take(":")
            member.bits = self.constant(self.expression())
            member.attributes = self.attributes()
            self.take(";")
            decl.members.append(member)
        else:
            member = self.declaration(placement=False)
            if member is not None:
                member.conditional = conditional
                decl.members.append(member)

    def body(self, decl: TypeDecl) -> None:
        if self.peek() == "{":
            self.take("{")
            while self.peek() != "}":
                self.statement(decl, conditional=True)
            self.take("}")
        else:
            self.statement(decl, conditional=True)

    def type_reference(self) -> tuple[str, list[Any]]:
        if self.peek() in ("be", "le"):
            self.take()
        name = self.take()
        assert name in BUILTIN or name in self.types, f"type {name!r} used before it is declared"
        args = []
        if self.peek() == "<":
            self.take("<")
            args.append(self.expression(level=len(BINARY) - 2))  # no comparison inside template arguments
            self.take(">")
            assert self.types[name].template, f"{name} takes no template arguments"
        return name, args

    def declaration(self, *, placement: bool) -> Any:
        type_name_, args = self.type_reference()
        member = Member(self.name(), type_name_, args)
        if self.peek() == "[":
            self.take("[")
            if self.peek() == "while":
                self.take("while")
                self.take("(")
                member.array = ("while", self.expression())
                self.take(")")
            else:
                member.array = ("count", self.expression())
            self.take("]")
        local = False
        if self.peek() == "=":
            self.take("=")
            self.expression()
            local = True
        if self.peek() == "@":
            self.take("@")
            self.expression()
        elif placement:
            raise AssertionError(f"a global declaration without placement: {member.name}")
        member.attributes = self.attributes()
        self.take(";")
        return None if local else member

    def function(self) -> None:
        self.take("fn")
        name = self.name()
        self.take("(")
        while self.peek() != ")":
            if self.peek() == "ref":
                self.take("ref")
            self.type_reference()
            self.name()
            if self.peek() == ",":
                self.take(",")
        self.take(")")
        self.block()
        self.take(";")
        self.functions.add(name)

    def block(self) -> None:
        self.take("{")
        while self.peek() != "}":
            self.function_statement()
        self.take("}")

    def function_statement(self) -> None:
        word = self.peek()
        if word == "return":
            self.take("return")
            self.expression()
            self.take(";")
        elif word == "for":
            self.take("for")
            self.take("(")
            self.type_reference()
            self.name()
            self.take("=")
            self.expression()
            self.take(",")
            self.expression()
            self.take(",")
            self.assignment()
            self.take(")")
            if self.peek() == "{":
                self.block()
            else:
                self.function_statement()
        elif self.peek() in BUILTIN or self.peek() in self.types or self.peek() in ("be", "le"):
            self.type_reference()
            self.name()
            if self.peek() == "=":
                self.take("=")
                self.expression()
            self.take(";")
        else:
            self.assignment()
            self.take(";")

    def assignment(self) -> None:
        self.name()
        assert self.peek() in ("=", "+=", "-="), f"expected an assignment near {self.context()}"
        self.take()
        self.expression()

    # expressions: precedence climbing over the documented operators
    def expression(self, level: int = 0) -> Any:
        if level == 0:
            condition = self.expression(1)
            if self.peek() == "?":
                self.take("?")
                then = self.expression(0)
                self.take(":")
                return ("?", condition, then, self.expression(0))
            return condition
        if level > len(BINARY):
            return self.unary()
        left = self.expression(level + 1)
        while self.peek() in BINARY[level - 1]:
            op = self.take()
            left = (op, left, self.expression(level + 1))
        return left

    def unary(self) -> Any:
        if self.peek() in ("!", "-", "~"):
            op = self.take()
            return (op, self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Any:
        kind, token = self.tokens[self.at]
        if token == "(":
            self.take("(")
            inner = self.expression()
            self.take(")")
            return inner
        if kind in ("number", "string", "char"):
            self.take()
            return ("literal", int(token, 0) if kind == "number" else token)
        if token in ("$", "true", "false", "parent", "this", "null"):
            self.take()
            return ("word", token)
        if token in ("sizeof", "addressof"):
            self.take()
            self.take("(")
            inner = self.expression()
            self.take(")")
            return (token, inner)
        assert kind == "name", f"unexpected {token!r} in an expression near {self.context()}"
        self.take()
        return ("name", token)

    def postfix(self, node: Any) -> Any:
        while self.peek() in (".", "[", "(", "::"):
            op = self.take()
            if op == "(":
                args = []
                while self.peek() != ")":
                    args.append(self.expression())
                    if self.peek() == ",":
                        self.take(",")
                self.take(")")
                node = ("call", node, args)
            elif op == "[":
                node = ("index", node, self.expression())
                self.take("]")
            elif op == "::":
                node = ("scope", node, self.take())
            else:
                node = ("member", node, self.take())
        return node

    def constant(self, node: Any) -> int:
        if node[0] == "literal" and isinstance(node[1], int):
            return node[1]
        if node[0] == "-" and len(node) == 2:
            return -self.constant(node[1])
        if len(node) == 3 and node[0] in ("+", "-", "*"):
            a, b = self.constant(node[1]), self.constant(node[2])
            return a + b if node[0] == "+" else a - b if node[0] == "-" else a * b
        raise AssertionError(f"not a constant: {node!r}")


BINARY = [("||",), ("^^",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
          ("+", "-"), ("*", "/", "%")]


def parse(text: str) -> Parser:
    return Parser(text).program()


# --- static layout --------------------------------------------------------------------------------------------

@dataclass
class Placed:
    offset: int | None
    size: int | None
    type: str
    bits: tuple[int, int] | None = None


def size_of(program: Parser, name: str, args: list[Any]) -> int | None:
    if name in BUILTIN:
        return BUILTIN[name]
    decl = program.types[name]
    if decl.kind == "enum":
        return BUILTIN[decl.base]
    if decl.kind == "bitfield":
        order = decl.attributes.get("bitfield_order")
        bits = program.constant(order[1]) if order else sum(m.bits or 0 for m in decl.members
                                                             if isinstance(m, Member))
        return bits // 8
    if decl.template:
        return program.constant(args[0]) if args and _is_constant(program, args[0]) else None
    total = 0
    for member in decl.members:
        if isinstance(member, str) or member.conditional:
            return None
        one = size_of(program, member.type, member.args)
        count = _count(program, member)
        if one is None or count is None:
            return None
        total += one * count
    return total


def _is_constant(program: Parser, node: Any) -> bool:
    try:
        program.constant(node)
    except AssertionError:
        return False
    return True


def _count(program: Parser, member: Member) -> int | None:
    if member.array is None:
        return 1
    kind, node = member.array
    return program.constant(node) if kind == "count" and _is_constant(program, node) else None


def layout(program: Parser, name: str, args: list[Any], base: int | None, prefix: str,
           out: dict[str, Placed]) -> None:
    """Every member of type ``name`` placed at ``base``: path -> offset, size (bits for bit fields)."""
    decl = program.types.get(name)
    if decl is None or decl.kind == "enum":
        return
    if decl.kind == "bitfield":
        total = 8 * (size_of(program, name, args) or 0)
        order = decl.attributes.get("bitfield_order")
        most_first = bool(order) and order[0][-1] == "MostToLeastSignificant"
        position = 0
        for member in decl.members:
            assert isinstance(member, Member) and member.bits is not None
            low = total - position - member.bits if most_first else position
            out[f"{prefix}{member.name}"] = Placed(base, total // 8, member.type, (low, low + member.bits - 1))
            position += member.bits
        return
    offset = base
    for member in decl.members:
        if isinstance(member, str):
            offset = None
            continue
        one = size_of(program, member.type, member.args)
        count = _count(program, member)
        size = None if one is None or count is None else one * count
        path = f"{prefix}{member.name}"
        earlier = out.get(path)
        if earlier is None or earlier.offset == offset:
            out[path] = Placed(offset, size if earlier is None or earlier.size == size else None, member.type)
        element = f"{path}[]." if member.array is not None else f"{path}."
        layout(program, member.type, member.args, offset, element, out)
        offset = None if offset is None or size is None else offset + size


def _expected(fields: list[LayoutField]) -> list[LayoutField]:
    """Described fields with a static place (fields inside runs kept as bytes are exempt: their note says so)."""
    return [f for f in fields if f.path and f.offset is not None and f.size is not None and not f.varbits]


def _check(placed: dict[str, Placed], fields: list[LayoutField], where: str) -> list[str]:
    problems = []
    for described in _expected(fields):
        element = described.path.endswith("[]")  # an array's element: placed where the array starts
        found = placed.get(described.path[:-2] if element else described.path)
        if found is None:
            problems.append(f"{where}: {described.path} not in the pattern")
            continue
        if found.offset is not None and found.offset != described.offset:
            problems.append(f"{where}: {described.path} at {found.offset}, declared {described.offset}")
        if described.bits is not None and described.leaf:
            if found.bits != described.bits:
                problems.append(f"{where}: {described.path} bits {found.bits}, declared {described.bits}")
        elif found.size is not None and not element and found.size != described.size:
            problems.append(f"{where}: {described.path} {found.size} bytes, declared {described.size}")
    return problems


# --- the tests ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("file_type", FILE_TYPES, ids=lambda t: t.id)
def test_pattern_is_well_formed(file_type: FileType) -> None:
    model = build_model(file_type)
    program = parse(hexpat_text(model))
    assert {"std.core", "std.mem"} <= set(program.imports)
    assert len(program.placements) == 1 and program.placements[0].type == type_name(model.top.name)
    for enum in model.enums.values():
        decl = program.types[type_name(enum.name)]
        assert decl.values == {ident: value for value, ident, _, _ in enum.members}
    for typedef in [model.top, *model.types.values()]:
        if typedef.wrapper:
            continue
        decl = program.types[type_name(typedef.name)]
        names = {m.name for m in decl.members if isinstance(m, Member)}
        assert {f.name for f in typedef.fields if not model.types.get(f.spec.type, typedef).wrapper} <= names
        assert all("comment" in m.attributes for m in decl.members if isinstance(m, Member))
    assert "name" in program.placements[0].attributes


@pytest.mark.parametrize("file_type", FILE_TYPES, ids=lambda t: t.id)
def test_every_declared_field_at_its_offset_and_size(file_type: FileType) -> None:
    model = build_model(file_type)
    program = parse(hexpat_text(model))
    placed: dict[str, Placed] = {}
    layout(program, type_name(model.top.name), [], 0, "", placed)
    problems = _check(placed, describe(file_type.declaration), file_type.id)
    checked = len(_expected(describe(file_type.declaration)))
    # each documented structure on its own (offsets from its start), where the file type exports it
    doc = __import__(f"chessformats.schemas.{file_type.format}", fromlist=["FORMAT"]).FORMAT
    for structure in doc.structures:
        exported = model.sources.get(id(structure.declaration))
        if exported is None or model.types.get(exported, model.top).wrapper:
            continue
        one: dict[str, Placed] = {}
        name = type_name(exported)
        decl = program.types[name]
        layout(program, name, [("literal", 1 << 20)] if decl.template else [], 0, "", one)
        fields = describe(structure.declaration)
        problems += _check(one, fields, f"{file_type.id}/{structure.title}")
        checked += len(_expected(fields))
    assert problems == []
    assert checked > 0 or all(f.varbits or f.size is None for f in describe(file_type.declaration)), \
        "nothing checked although the declaration has fields with a static place"


def test_grammar_rejects_what_the_language_does_not_allow() -> None:
    good = "import std.mem;\nstruct A { be u16 x [[comment(\"x\")]]; };\nA a @ 0x00;\n"
    parse(good)
    for bad in (
        "struct A { be u16 x [[comment(\"x\")]] };\nA a @ 0x00;\n",  # missing semicolon
        "struct A { B x; };\nA a @ 0x00;\n",  # type used before it is declared
        "struct A { u8 x[while(1]; };\nA a @ 0x00;\n",  # unbalanced parenthesis
        "A a @ 0x00;\n",  # unknown type
        "struct A { u8 x; };\nA a;\n",  # a global pattern without placement
        "bitfield B { x : y; };\n",  # bit width not a constant
    ):
        with pytest.raises(AssertionError):
            parse(bad)


@pytest.mark.parametrize("file_type", FILE_TYPES, ids=lambda t: t.id)
def test_committed_hexpat_is_current(file_type: FileType) -> None:
    committed = HEXPAT_DIR / f"{file_type.id}.hexpat"
    assert committed.exists(), f"{committed} missing: run `chessformats export --to imhex all -o docs/imhex`"
    assert committed.read_text(encoding="utf-8") == hexpat_text(build_model(file_type)), (
        f"{committed} is stale: run `chessformats export --to imhex all -o docs/imhex` and commit the result")


def test_no_other_hexpat_files() -> None:
    assert sorted(path.stem for path in HEXPAT_DIR.glob("*.hexpat")) == sorted(t.id for t in FILE_TYPES)


def test_write_imhex(tmp_path: Path) -> None:
    written = write_imhex(tmp_path, ["ctg"])
    assert [path.name for path in written] == ["ctg_book.hexpat", "ctg_cto.hexpat", "ctg_ctb.hexpat"]
    assert written[0].read_text(encoding="utf-8") == (HEXPAT_DIR / "ctg_book.hexpat").read_text(encoding="utf-8")
