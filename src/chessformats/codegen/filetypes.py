"""The file types exported to other tools (Kaitai Struct, ImHex), each a whole file as one declaration.

A format's schema declares its records; the file types here say how a file is made of them (a header, then
records up to the end of the file) using only those declarations and the schema's own constants. Context
functions of the declarations (Python lambdas) are paired with equivalent expressions in :func:`functions`;
the Kaitai test checks every pairing on real files through Kaitai's own parser.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

import construct as cs

from ..engine.schema import unwrap
from .binmodel import Expr, Model, TypeDef, both, eq, ref, root
from .builder import Builder, FieldsThatFit

__all__ = ["FORMATS", "FileType", "build_model", "file_types", "functions"]

FORMATS = ("polyglot", "ctg", "kvetka", "chessbase", "monty")


class FileType(NamedTuple):
    """One kind of file: its exported id, what it is, its extensions and its whole-file declaration."""

    id: str
    format: str
    title: str
    extensions: tuple[str, ...]
    declaration: cs.Construct
    description: str


def _schema(key: str) -> Any:
    import importlib

    return importlib.import_module(f"chessformats.schemas.{key}")


def _field(struct: cs.Construct, name: str) -> Any:
    """The construct of field ``name`` of ``struct`` (renames stripped)."""
    for sub in struct.subcons:
        if sub.name == name:
            while isinstance(sub, cs.Renamed):
                sub = sub.subcon
            return sub
    raise KeyError(name)


@functools.cache
def file_types(key: str) -> tuple[FileType, ...]:
    """The file types of format ``key``."""
    return _BUILDERS[key]()


def _polyglot() -> tuple[FileType, ...]:
    s = _schema("polyglot")
    book = cs.Struct("entries" / s.BOOK * "the book entries, sorted by key, up to the end of the file")
    return (FileType("polyglot_book", "polyglot", "Polyglot opening book", (".bin",), book,
                     "A Polyglot book: 16-byte entries up to the end of the file."),)


def _ctg() -> tuple[FileType, ...]:
    s = _schema("ctg")
    book = cs.Struct(
        "header" / s.HEADER_PAGE * "the header page",
        "pages" / cs.GreedyRange(cs.FixedSized(s.PAGE_SIZE, s.PAGE)) * "the data pages, numbered from 0",
    )
    return (
        FileType("ctg_book", "ctg", "ChessBase CTG book (.ctg)", (".ctg",), book,
                 "The `.ctg` file: a header page, then data pages of position records."),
        FileType("ctg_cto", "ctg", "ChessBase CTG lookup table (.cto)", (".cto",), s.CTO,
                 "The `.cto` file: a header, then one data page number per directory node."),
        FileType("ctg_ctb", "ctg", "ChessBase CTG lookup bounds (.ctb)", (".ctb",), s.CTB,
                 "The `.ctb` file: the bounds of the `.cto` lookup."),
    )


def _kvetka() -> tuple[FileType, ...]:
    s = _schema("kvetka")
    return (
        FileType("kvetka_kob", "kvetka", "Kvetka opening book (NAME_0.kob)", (".kob",), s.KOB,
                 "The first `.kob` file of a book: the header, then 2048-byte blocks of elements. Later files "
                 "(`NAME_1.kob`, ...) are blocks only."),
        FileType("kvetka_kin", "kvetka", "Kvetka block index (.kin)", (".kin",),
                 cs.Struct("keys" / s.KIN * "the key of the first element of each block, in block order"),
                 "The `.kin` file: the first key of every block."),
        FileType("kvetka_ksf", "kvetka", "Kvetka sources (.ksf)", (".ksf",), s.KSF,
                 "The `.ksf` file: a table of contents, then the sources and their games."),
    )


def _cbj_record(size: int | None) -> cs.Construct:
    s = _schema("chessbase")
    return s.CBJ_RECORD if size is None else s.cbj_record(size)


def _chessbase() -> tuple[FileType, ...]:
    s = _schema("chessbase")
    node_size = int(s.ENTITY_NODE.sizeof())
    types = [
        FileType("chessbase_cbh", "chessbase", "ChessBase game headers (.cbh)", (".cbh",), cs.Struct(
            "header" / s.CBH_HEADER * "the file header",
            "records" / cs.GreedyRange(s.CBH_RECORD) * "one record per game or guiding text (game n is record n)",
        ), "The `.cbh` file: a 46-byte header, then one 46-byte record per game or guiding text."),
        FileType("chessbase_store", "chessbase", "ChessBase game data and annotations (.cbg, .cba): the header",
                 (".cbg", ".cba"), cs.Struct("header" / s.STORE_HEADER * "the file header"),
                 "The header of the `.cbg` and `.cba` files; the records it is followed by are found through the "
                 "offsets of the `.cbh` records (their coded move streams are not exported)."),
    ]
    titles = {".cbp": "players", ".cbt": "tournaments", ".cbc": "annotators", ".cbs": "sources", ".cbe": "teams"}
    for extension, record in s.ENTITY_RECORDS.items():
        declaration = cs.Struct(
            "header" / s.ENTITY_HEADER * "the file header",
            "records" / cs.GreedyRange(cs.FixedSized(cs.this.header.record_data_size + node_size, record))
            * "the records, each a tree node and the entity",
        )
        types.append(FileType(f"chessbase_{extension[1:]}", "chessbase",
                              f"ChessBase {titles[extension]} ({extension})", (extension,), declaration,
                              f"The `{extension}` file: a header, then fixed-size records (an AVL tree)."))
    types.append(FileType("chessbase_cbj", "chessbase", "ChessBase extended game headers (.cbj)", (".cbj",),
                          cs.Struct(
                              "header" / s.CBJ_HEADER * "the file header",
                              "records" / cs.GreedyRange(cs.FixedSized(cs.this.header.record_size,
                                                                       FieldsThatFit(_cbj_record)))
                              * "one record per game (game n is record n); each holds the fields that fit its size",
                          ),
                          "The `.cbj` file: a 32-byte little-endian header, then one big-endian record per game."))
    a = importlib.import_module("chessformats.schemas.chessbase.cbv")
    types.append(FileType("chessbase_cbv", "chessbase", "ChessBase archive (.cbv): header and file table", (".cbv",),
                          cs.Struct(
                              "header" / a.ARCHIVE_HEADER * "the archive header",
                              "files" / cs.Array(cs.this.header.files,
                                                 cs.FixedSized(cs.this.header.entry_size, a.ARCHIVE_ENTRY))
                              * "the file table, one entry per file",
                          ),
                          "The header and file table of a `.cbv` archive. The blocks that follow (each file's, in "
                          "entry order) are not exported: their Huffman code tables are bit-packed with lengths "
                          "read from the stream, and the code words and LZ/RLE items need the decoders."))
    return tuple(types)


def _monty() -> tuple[FileType, ...]:
    s = _schema("monty")
    return (
        FileType("monty_policy", "monty", "Monty training data, policy format (.montyformat)", (".montyformat",),
                 cs.Struct("games" / s.POLICY_FILE * "the games, back to back"),
                 "A policy file: games back to back, each a header, its plies and a null move."),
        FileType("monty_value", "monty", "Monty training data, value format (.montyvalue)", (".montyvalue",),
                 cs.Struct("games" / s.VALUE_FILE * "the games, back to back"),
                 "A value file: games back to back, each a header, its plies and 4 zero bytes."),
    )


_BUILDERS: dict[str, Callable[[], tuple[FileType, ...]]] = {
    "polyglot": _polyglot, "ctg": _ctg, "kvetka": _kvetka, "chessbase": _chessbase, "monty": _monty,
}


def functions(key: str) -> dict[Any, Expr | str]:
    """The context functions of format ``key``'s declarations, each with its equivalent expression.

    ``"until_zero"`` marks the look-ahead of a greedy range that stops before an all-zero terminator.
    """
    table: dict[Any, Expr | str] = {}
    if key == "ctg":
        s = _schema("ctg")
        table[_field(s.MOVES, "moves").count] = (ref("length") - 1) // 2  # max(length - 1, 0) // 2 for length >= 1
    elif key == "kvetka":
        s = _schema("kvetka")
        keeps_games = root("header", "element_type", "game_links")
        for sub in s.ELEMENT_BODY.subcons:  # the optional parts: a flag bit (and the header's game-links bit)
            condition = getattr(unwrap(sub), "condfunc", None)
            if isinstance(condition, s.PartPresent):
                present = ref(condition.field, condition.flag)
                table[condition] = both(present, keeps_games) if condition.needs_game_links else present
        unit = s.KSF_TOC_UNIT
        table[_field(s.TOC, "unused").length] = (unit - (4 + 4 * ref("source_number")) % unit) % unit
        table[_field(s.GAME, "game_address").condfunc] = eq(ref("source_type", up=1), "internet")
    elif key == "chessbase":
        s = _schema("chessbase")
        table[_field(s.STORE_HEADER, "file_size_64").condfunc] = eq(ref("header_size"), "modern")
    elif key == "monty":
        s = _schema("monty")
        for game in (s.POLICY_GAME, s.VALUE_GAME):
            sequence = _field(game, "plies").subcon
            for sub in sequence.subcons:
                if isinstance(sub, cs.Check):
                    table[sub.func] = "until_zero"
    return table


def _names(key: str) -> dict[int, str]:
    """``id(declaration) -> constant name`` over the schema module: the exported types' and enums' names."""
    module = _schema(key)
    names: dict[int, str] = {}
    for name in dir(module):
        value = getattr(module, name)
        if name.isupper() and isinstance(value, cs.Construct):
            names.setdefault(id(value), name.lower())
    return names


def _custom(key: str) -> dict[type, str]:
    return {_schema("kvetka").CompactInt: "compact_int"} if key == "kvetka" else {}


def build_model(file_type: FileType) -> Model:
    """The :class:`Model` of a file type, ready for an emitter."""
    doc = _schema(file_type.format).FORMAT
    docs = {id(s.declaration): f"{s.title}: {s.description}" if s.description else s.title for s in doc.structures}
    builder = Builder(_names(file_type.format), functions(file_type.format), _custom(file_type.format), docs)
    top = builder.top(file_type.id, file_type.description, file_type.declaration)
    notes = sorted({f"`{f.name}` ({t.name}): {f.note}" for t in [top, *builder.types.values()]
                    for f in t.fields if f.note})
    text = "\n\n".join([f"{file_type.title}. {file_type.description}", doc.summary, *notes,
                        "Generated from the chessformats declarations (`chessformats export`); field meanings, "
                        "enums and notes in the chessformats format reference."])
    return Model(file_type.id, file_type.title, text, file_type.extensions, _endian([top, *builder.types.values()]),
                 top, builder.types, builder.enums, f"docs/formats/{file_type.format}.md", builder.sources)


def _endian(types: list[TypeDef]) -> str:
    """The byte order most multi-byte integers of the file type have."""
    orders = [f.spec.endian for t in types for f in t.fields if f.spec.kind == "int" and f.spec.width > 1]
    return "le" if orders.count("le") > orders.count("be") else "be"

