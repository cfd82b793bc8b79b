"""The reader paths the fuzzer drives, through the public import paths only.

Each reader has named paths (``PATHS[reader][name]``); a path takes a :class:`Context` (the folder holding
the mutated file set, the file a reader opens, where the mutations landed) and calls public functions the
way a user would: open, probe, iterate, records / entities / games, PGN export, conversions, book building,
and the ``chessformats`` command line (``info``, ``inspect``, ``probe``, ``convert``, ``build``).

A path lets every :class:`chessformats.FormatError` through to the runner, which counts it as the expected
answer to bad input; any other exception is a failure. The command line is run as ``main()`` runs it but
without its catch-all (``main`` turns ``KeyError``/``IndexError``/``ValueError``/``OSError`` into exit status
2, which would hide a reader's raw error): such an error is accepted only when the command-line code itself
raised it (``no such record``), see :func:`run_cli`.
"""

from __future__ import annotations

import contextlib
import gzip
import importlib
import io
import itertools
import os
import random
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

from chessformats import FormatError

_CLI_FOLDER = f"{os.sep}chessformats{os.sep}cli{os.sep}"
_BIG = 200_000
"""Bytes above which a seed is big: paths read around the mutations instead of everything."""
_LINES = (("e4",), ("d4",), ("e4", "e5"), ("e4", "c5"), ("d4", "Nf6"), ("Nf3",), ("c4",), ("e4", "e5", "Nf3"))


@dataclass
class Context:
    folder: Path
    """The case's folder: the (mutated) files of the seed, under their own names."""
    primary: str
    focus: dict[str, list[int]]
    """Offsets where mutations landed, per file name."""
    rng: random.Random
    size: int
    """Size of the seed's original files together (``big`` above 200 kB)."""
    outputs: Path = field(init=False)

    def __post_init__(self) -> None:
        self.outputs = self.folder / "out"

    @property
    def path(self) -> str:
        return str(self.folder / self.primary)

    @property
    def big(self) -> bool:
        return self.size > _BIG

    def file(self, name: str) -> str:
        return str(self.folder / name)

    def present(self, *extensions: str) -> list[str]:
        """Names of the set's files present in the folder with one of ``extensions`` (sorted)."""
        return sorted(p.name for p in self.folder.iterdir() if p.is_file() and p.name.lower().endswith(extensions))

    def spots(self, *extensions: str) -> list[int]:
        return sorted({at for name, offsets in self.focus.items() if name.lower().endswith(extensions)
                       for at in offsets})

    def output(self, name: str) -> str:
        self.outputs.mkdir(exist_ok=True)
        return str(self.outputs / name)


def preload() -> None:
    """Import every module the paths use, before the workers are forked (each would import them again, and a
    tree changed meanwhile on disk would mix versions)."""
    for name in ("chessformats.polyglot", "chessformats.ctg", "chessformats.kvetka", "chessformats.monty",
                 "chessformats.chessbase", "chessformats.books.build", "chessformats.cli.main",
                 "chessformats.cli.registry", "chessformats.codegen.hexview", "rich.console", "chess.pgn",
                 "chessformats.formats.chessbase.archive"):
        importlib.import_module(name)
    registry = importlib.import_module("chessformats.cli.registry")
    registry.all_formats()


def boards() -> Iterator[chess.Board]:
    yield chess.Board()
    for line in _LINES:
        board = chess.Board()
        for san in line:
            board.push_san(san)
        yield board


def facade(module: Any, name: str, obj: Any, *args: Any) -> Any:
    """``module.name(obj, *args)`` when the facade has it, else the method ``obj.name(*args)`` (where the
    function lived before the layout moved book functions out of the reader classes)."""
    function = getattr(module, name, None)
    return function(obj, *args) if function is not None else getattr(obj, name)(*args)


# --- the command line -----------------------------------------------------------------------------------

class _Null(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return False


def run_cli(*argv: str) -> int:
    """``chessformats ARGV`` in this process, output discarded; returns the exit status.

    The parsed command runs without ``main``'s catch-all. A ``FormatError`` goes to the runner (expected). A
    ``KeyError``/``IndexError``/``ValueError``/``OSError`` that ``main`` would report as exit status 2 is
    accepted when the command-line code raised it itself (its innermost frame is in ``chessformats/cli/``:
    ``no such record``, ``position not in book``); from anywhere deeper it is a reader's raw error and is
    raised.
    """
    cli_main = importlib.import_module("chessformats.cli.main")
    parser = cli_main.build_parser()
    null = _Null()
    with contextlib.redirect_stdout(null), contextlib.redirect_stderr(null), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = parser.parse_args(list(argv))
        try:
            return int(args.func(args) or 0)
        except FormatError:
            raise
        except (KeyError, IndexError, ValueError, OSError) as exc:
            if _raised_in_cli(exc):
                return 2
            raise


def _raised_in_cli(exc: BaseException) -> bool:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and _CLI_FOLDER in last


# --- Polyglot ---------------------------------------------------------------------------------------------

def _pg_entries(ctx: Context) -> list[int]:
    return sorted({max(0, at // 16 + d) for at in ctx.spots(".bin") for d in (-1, 0, 1)} | {0})


def pg_open(ctx: Context) -> None:
    from chessformats import polyglot

    with polyglot.open_book(ctx.path) as book:
        for index in _pg_entries(ctx):
            if index < len(book):
                book[index].move.uci()
        book.findings()
        book.positions()
        book.arrays()
        for board in boards():
            book.probe(board)


def pg_lenient(ctx: Context) -> None:
    from chessformats import polyglot

    with polyglot.open_book(ctx.path, strict=False) as book:
        keys = [book[i].key for i in _pg_entries(ctx) if i < len(book)]
        for key in keys:
            book.probe(key)
        for board in boards():
            if book.probe(board, minimum_weight=1):
                book.choice(board, random=1)
            chess.Board() in book  # noqa: B015
        for entry in itertools.islice(book, 3000 if ctx.big else None):
            entry.move.uci()
        book.findings()


def pg_reachable(ctx: Context) -> None:
    from chessformats import polyglot

    with polyglot.open_book(ctx.path, strict=False) as book:
        for board, entries in itertools.islice(polyglot.reachable_positions(book), 300):
            board.fen()
            len(entries)


def pg_convert(ctx: Context) -> None:
    from chessformats import ctg, kvetka, polyglot

    if ctx.size > 16384:  # conversions walk the whole book: small books only
        polyglot.merge_books(ctx.path, ctx.path, ctx.output("merged.bin"))
        return
    ctg.from_polyglot(ctx.path, ctx.output("book.ctg"))
    kvetka.convert(ctx.path, "polyglot", ctx.output("book.kob"), "kvetka")
    polyglot.merge_books(ctx.path, ctx.path, ctx.output("merged.bin"))


def pg_cli(ctx: Context) -> None:
    run_cli("info", ctx.path, "--json")
    run_cli("probe", ctx.path, "--fen", "startpos", "--json")
    run_cli("inspect", ctx.path, "--fen", "startpos")
    for index in _pg_entries(ctx)[:3]:
        run_cli("inspect", ctx.path, "--record", str(index), "--count", "3")
    for at in ctx.spots(".bin")[:2]:
        run_cli("inspect", ctx.path, "--offset", str(at), "--length", "32")


# --- CTG ---------------------------------------------------------------------------------------------------

def _ctg_pages(ctx: Context) -> list[int]:
    size = os.path.getsize(ctx.path)
    pages = max(size // 4096 - 1, 0)
    chosen = {at // 4096 - 1 for at in ctx.spots(".ctg")} | {0, pages - 1}
    return sorted(p for p in chosen if 0 <= p < pages)


def _open_ctg(ctx: Context, path: str | None = None) -> Any:
    from chessformats import ctg

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ctg.open_book(path or ctx.path)


def ctg_probe(ctx: Context) -> None:
    with _open_ctg(ctx) as book:
        for board in boards():
            found = book.probe(board)
            if found is not None:
                for move in found.moves:
                    move.symbol  # noqa: B018
                found.average_rating  # noqa: B018
                found.performance  # noqa: B018
            book.located(board)
            board in book  # noqa: B015
            book.probe(board, legal_only=False)


def ctg_pages(ctx: Context) -> None:
    with _open_ctg(ctx) as book:
        for page in _ctg_pages(ctx):
            for record in book.page_records(page):
                record.board.fen()
                record.to_bytes()
                record.comment_symbol  # noqa: B018


def ctg_records(ctx: Context) -> None:
    with _open_ctg(ctx) as book:
        book.findings()
        if not ctx.big:
            for record in book.records():
                record.stats_bytes()
            len(book)


def ctg_walk(ctx: Context) -> None:
    from chessformats import ctg

    if ctx.big:
        with _open_ctg(ctx) as book:
            seen: set[str] = set()
            queue = [chess.Board()]
            while queue and len(seen) < 40:
                board = queue.pop()
                found = book.probe(board)
                seen.add(board.fen())
                for move in found.moves if found is not None else ():
                    child = board.copy(stack=False)
                    child.push(move.move)
                    if child.fen() not in seen:
                        queue.append(child)
        return
    with _open_ctg(ctx) as book:
        facade(ctg, "to_bookstats", book)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctg.to_polyglot(ctx.path, ctx.output("book.bin"))
        with _open_ctg(ctx) as book:
            ctg.write_book(ctx.output("copy.ctg"), list(book.records()))


def ctg_companions(ctx: Context) -> None:
    for name in ctx.present(".cto", ".ctb"):
        with _open_ctg(ctx, ctx.file(name)) as book:
            book.probe(chess.Board())


def ctg_cli(ctx: Context) -> None:
    if not ctx.big:  # info decodes every record
        run_cli("info", ctx.path, "--json")
    run_cli("probe", ctx.path, "--fen", "startpos", "--json")
    run_cli("inspect", ctx.path, "--fen", "startpos")
    for page in _ctg_pages(ctx)[:2]:
        run_cli("inspect", ctx.path, "--page", str(page))
        run_cli("inspect", ctx.path, "--page", str(page), "--record", "0")
    for name in ctx.present(".cto", ".ctb"):
        run_cli("inspect", ctx.file(name))
        run_cli("info", ctx.file(name))


# --- Kvetka ------------------------------------------------------------------------------------------------

def _open_kvetka(ctx: Context, path: str | None = None) -> Any:
    from chessformats import kvetka

    return kvetka.open_book(path or ctx.path)


def kv_probe(ctx: Context) -> None:
    with _open_kvetka(ctx) as book:
        for board in boards():
            found = book.probe(board)
            if found is not None:
                found.games  # noqa: B018
                found.opening  # noqa: B018
            book.located(board)
            board in book  # noqa: B015


def kv_elements(ctx: Context) -> None:
    with _open_kvetka(ctx) as book:
        for element in book.elements():
            book.element_board(element)
            element.moves  # noqa: B018
            element.opening  # noqa: B018
            element.to_bytes(book.keeps_games)
        len(book)
        book.findings()
        for source in book.source_games():
            for game in source.games:
                game.result_name  # noqa: B018


def kv_blocks(ctx: Context) -> None:
    with _open_kvetka(ctx) as book:
        chosen = {0, book.blocks - 1}
        start = 0
        for path in book.kob_paths:  # the .kob files are one stream of blocks after the header
            name = os.path.basename(path)
            chosen |= {(start + at - book.header_size) // 2048 for at in ctx.focus.get(name, ())}
            start += os.path.getsize(path)
        for block in sorted(chosen):
            if 0 <= block < book.blocks:
                for element in book.block_elements(block):
                    book.element_board(element)


def kv_walk(ctx: Context) -> None:
    from chessformats import kvetka

    with _open_kvetka(ctx) as book:
        facade(kvetka, "to_bookstats", book)
    kvetka.convert(ctx.path, "kvetka", ctx.output("book.bin"), "polyglot")
    with _open_kvetka(ctx) as book:
        kvetka.write_book(ctx.output("copy"), book)
    with _open_kvetka(ctx, ctx.output("copy")) as copy:
        len(copy)


def kv_companions(ctx: Context) -> None:
    for name in ctx.present(".kin", ".ksf", ".kob"):
        with _open_kvetka(ctx, ctx.file(name)) as book:
            book.probe(chess.Board())


def kv_cli(ctx: Context) -> None:
    run_cli("info", ctx.path, "--json")
    run_cli("probe", ctx.path, "--fen", "startpos", "--json")
    run_cli("probe", ctx.path, "--moves", "e4")
    run_cli("inspect", ctx.path, "--fen", "startpos")
    run_cli("inspect", ctx.path, "--block", "0")
    run_cli("inspect", ctx.path, "--record", "1")
    for name in ctx.present(".kin", ".ksf"):
        run_cli("inspect", ctx.file(name))
        run_cli("inspect", ctx.file(name), "--record", "0")
        run_cli("info", ctx.file(name))


# --- Monty -------------------------------------------------------------------------------------------------

def _consume(games: Iterable[Any]) -> list[Any]:
    out = []
    for game in games:
        for ply in game.plies:
            ply.board.fen()
            ply.move.uci()
            dict(ply.visits or {})
        out.append(game)
    return out


def mt_read(ctx: Context) -> None:
    from chessformats import monty

    kind = monty.detect_format(ctx.path)
    games = _consume(monty.read_games(ctx.path, format=kind))
    monty.write_games(ctx.output("copy"), games, format=kind)
    _consume(monty.read_games(ctx.output("copy"), format=kind))


def mt_other(ctx: Context) -> None:
    from chessformats import monty

    data = Path(ctx.path).read_bytes()
    for kind in monty.FORMATS:
        with contextlib.suppress(FormatError):
            _consume(monty.read_games(io.BytesIO(data), format=kind))


def mt_cli(ctx: Context) -> None:
    run_cli("info", ctx.path, "--json")
    run_cli("inspect", ctx.path, "--game", "0")
    run_cli("inspect", ctx.path, "--game", "0", "--ply", "1")
    run_cli("inspect", ctx.path, "--game", str(ctx.rng.randrange(6)), "--ply", str(ctx.rng.randrange(60)))


# --- ChessBase ---------------------------------------------------------------------------------------------

def _open_db(ctx: Context, path: str | None = None) -> Any:
    from chessformats import chessbase

    return chessbase.open_database(path or ctx.path)


def _game_numbers(ctx: Context, db: Any) -> list[int]:
    """Games around the mutations: by record for ``.cbh``/``.cbj``, by data offset for ``.cbg``/``.cba``."""
    import numpy as np

    count = db.record_count
    chosen = {1, count}
    chosen |= {at // 46 + d for at in ctx.spots(".cbh") for d in (0, 1)}
    chosen |= {at // max(db.extended.record_size, 1) + d for at in ctx.spots(".cbj") for d in (0, 1)}
    if count:
        arrays = db.header_arrays()
        for extension, column in ((".cbg", "cbg_offset"), (".cba", "cba_offset")):
            spots = ctx.spots(extension)
            if spots:
                offsets = arrays[column].astype(np.int64)
                order = np.argsort(offsets, kind="stable")
                found = np.searchsorted(offsets[order], np.array(spots), side="right") - 1
                chosen |= {int(order[i]) + 1 for i in found if i >= 0}
    return sorted(n for n in chosen if 1 <= n <= count)


_SMALL_BASE = 40
"""Records of a database read whole by the paths; in a bigger one, the games around the mutations."""


def _read_game(db: Any, number: int) -> None:
    from chessformats import chessbase

    item = db.record(number)
    if isinstance(item, chessbase.GameHeader):
        item.extended  # noqa: B018
        item.decode()
        item.to_pgn(annotations=False)
        str(item.to_pgn())
        db.annotations(number)
        db.team_numbers(number)
    else:
        item.html  # noqa: B018


def cb_open(ctx: Context) -> None:
    with _open_db(ctx) as db:
        len(db)
        db.header_arrays()
        db.encoding_modes()
        for number in _game_numbers(ctx, db):
            db.record(number)


def cb_games(ctx: Context) -> None:
    with _open_db(ctx) as db:
        numbers = _game_numbers(ctx, db) if db.record_count > _SMALL_BASE else range(1, db.record_count + 1)
        for number in numbers:
            if not db.records["kind"][number - 1] & 0x80:
                _read_game(db, number)


def cb_entities(ctx: Context) -> None:
    with _open_db(ctx) as db:
        for entities in (db.players, db.tournaments, db.annotators, db.sources, db.teams):
            extension = entities.extension
            spots = ctx.spots(extension)
            size = max(entities.record_size, 1)
            numbers = {0, len(entities) - 1} | {(at - entities.header_size) // size for at in spots}
            for number in sorted(n for n in numbers if 0 <= n < len(entities)):
                entity = entities[number]
                entities.sort_key(number)
                if not entity.deleted and entity.name:
                    entities.find(entity.name)
            for entity in itertools.islice(entities.sorted(), 3000):
                entity.name  # noqa: B018
            entities.check()


def cb_export(ctx: Context) -> None:
    from chessformats import chessbase
    from chessformats.books.build import BookBuilder

    with _open_db(ctx) as db:
        small = db.record_count <= _SMALL_BASE
        if not small:  # the games around the mutations only
            for number in _game_numbers(ctx, db):
                item = db.record(number)
                if isinstance(item, chessbase.GameHeader):
                    str(item.to_pgn())
    if not small:
        return
    chessbase.export_pgn(ctx.path, ctx.output("all.pgn"))
    chessbase.export_pgn(ctx.path, ctx.output("plain.pgn"), annotations=False)
    builder = BookBuilder(max_ply=30)
    builder.add_database(ctx.path)
    builder.to_stats()


def cb_companions(ctx: Context) -> None:
    for name in ctx.present(".cbg", ".cbp", ".cbj", ".cba"):
        with _open_db(ctx, ctx.file(name)) as db:
            len(db)


def cb_cli(ctx: Context) -> None:
    run_cli("info", ctx.path, "--json")
    with _open_db(ctx) as db:
        numbers = _game_numbers(ctx, db)[:3]
        players = [db.players[n].name for n in range(min(len(db.players), 2))]
    for number in numbers:
        run_cli("inspect", ctx.path, "--game", str(number))
    for name in players:
        if name:
            run_cli("inspect", ctx.path, "--player", name)
    if len(numbers) <= _SMALL_BASE and not ctx.big:
        run_cli("convert", ctx.path, "-o", ctx.output("all.pgn"))


# --- PGN: book building ------------------------------------------------------------------------------------

def _builder(ctx: Context) -> Any:
    from chessformats.books.build import BookBuilder

    return BookBuilder(max_ply=ctx.rng.choice((8, 16, 40, 1024)))


def pgn_build(ctx: Context) -> None:
    builder = _builder(ctx)
    builder.add_pgn(ctx.path)
    for _ in itertools.islice(builder.entries(), 2000):
        pass
    builder.to_stats()
    len(builder.skipped)


def pgn_text(ctx: Context) -> None:
    builder = _builder(ctx)
    builder.add_pgn_text(Path(ctx.path).read_bytes().decode("utf-8", "replace"))
    builder.add_file(ctx.path, jobs=2)
    builder.to_stats()


def pgn_books(ctx: Context) -> None:
    from chessformats import ctg, kvetka, polyglot

    builder = _builder(ctx)
    builder.add_file(ctx.path)
    polyglot.make_book(ctx.output("book.bin"), builder, min_games=1)
    ctg.make_book(ctx.output("book.ctg"), builder, min_games=1)
    kvetka.make_book(ctx.output("book.kob"), builder, min_games=1, sources=[ctx.path])
    with polyglot.open_book(ctx.output("book.bin")) as book:
        len(book)


def pgn_gzip(ctx: Context) -> None:
    """The (damaged) games gzip-compressed."""
    clean = ctx.output("games.pgn.gz")
    Path(clean).write_bytes(gzip.compress(Path(ctx.path).read_bytes(), mtime=0))
    _builder(ctx).add_file(clean)


def pgn_gzip_damaged(ctx: Context) -> None:
    """The games gzip-compressed, then the compressed stream damaged (a damaged download)."""
    data = gzip.compress(Path(ctx.path).read_bytes(), mtime=0)
    damaged = bytearray(data)
    for _ in range(ctx.rng.randint(1, 3)):
        damaged[ctx.rng.randrange(len(damaged))] ^= 1 << ctx.rng.randrange(8)
    if ctx.rng.random() < 0.3:
        damaged = damaged[:ctx.rng.randrange(len(damaged))]
    broken = ctx.output("damaged.pgn.gz")
    Path(broken).write_bytes(bytes(damaged))
    _builder(ctx).add_file(broken)


def pgn_cli(ctx: Context) -> None:
    run_cli("build", ctx.path, "-o", ctx.output("book.bin"), "--min-games", "1", "--jobs", "1")


ARCHIVE_PASSWORDS = {"small.cbz": "password", "small2.cbz": "pass", "small3.cbz": "my long password"}
"""The corpus .cbz files' passwords (their SOURCES.txt)."""


def _password(ctx: Context) -> str | None:
    return ARCHIVE_PASSWORDS.get(ctx.primary) if ctx.primary.lower().endswith(".cbz") else None


def ar_list(ctx: Context) -> None:
    """The file table, and the members around the damage read whole."""
    from chessformats.formats.chessbase.archive import open_archive

    with open_archive(ctx.path, password=_password(ctx)) as archive:
        spots = ctx.spots(".cbv", ".cbz")
        for member in archive.members:
            end = member.offset + member.compressed_size
            if not ctx.big or any(member.offset - 512 <= at < end for at in spots):
                archive.read(member)


def ar_extract(ctx: Context) -> None:
    """Extraction into a folder: whole or nothing, nothing outside it."""
    from chessformats.formats.chessbase.archive import open_archive

    folder = Path(ctx.output("extracted"))
    try:
        with open_archive(ctx.path, password=_password(ctx)) as archive:
            archive.extract(folder)
    except FormatError:
        if folder.exists() and any(folder.iterdir()):
            raise AssertionError("a failed extraction left files behind") from None
        raise
    outside = sorted(p.name for p in ctx.folder.iterdir() if p.name not in (ctx.primary, "out"))
    if outside:
        raise AssertionError(f"files written outside the output folder: {outside}")


def ar_open(ctx: Context) -> None:
    """The archived base opened as a base: its games (the first ones; all for a small archive)."""
    from chessformats import chessbase

    with chessbase.open_database(ctx.path, password=_password(ctx)) as db:
        for number in list(db.numbers()[:20 if ctx.big else None]):
            _read_game(db, int(number))


def ar_cli(ctx: Context) -> None:
    password = _password(ctx)
    extra = ("--password", password) if password else ()
    run_cli("list", ctx.path, *extra)
    run_cli("extract", ctx.path, "-o", ctx.output("cli"), *extra)


PATHS: dict[str, dict[str, Callable[[Context], None]]] = {
    "polyglot": {"open": pg_open, "lenient": pg_lenient, "reachable": pg_reachable, "convert": pg_convert,
                 "cli": pg_cli},
    "ctg": {"probe": ctg_probe, "pages": ctg_pages, "records": ctg_records, "walk": ctg_walk,
            "companions": ctg_companions, "cli": ctg_cli},
    "kvetka": {"probe": kv_probe, "elements": kv_elements, "blocks": kv_blocks, "walk": kv_walk,
               "companions": kv_companions, "cli": kv_cli},
    "monty": {"read": mt_read, "other": mt_other, "cli": mt_cli},
    "chessbase": {"open": cb_open, "games": cb_games, "entities": cb_entities, "export": cb_export,
                  "companions": cb_companions, "cli": cb_cli},
    "archive": {"list": ar_list, "extract": ar_extract, "open": ar_open, "cli": ar_cli},
    "pgn": {"build": pgn_build, "text": pgn_text, "books": pgn_books, "gzip": pgn_gzip,
            "gzip-damaged": pgn_gzip_damaged, "cli": pgn_cli},
}
"""reader -> path name -> path."""

WEIGHTS: dict[str, float] = {"cli": 0.15, "walk": 0.15, "convert": 0.15, "export": 0.15, "books": 0.15,
                             "text": 0.15, "gzip-damaged": 0.1, "gzip": 0.1, "reachable": 0.3, "elements": 0.3}
"""How often a path is drawn, relative to 1 (the paths that run the command line or read a whole book are
drawn less: they are slow, and the paths that read the damaged place directly find most faults)."""
