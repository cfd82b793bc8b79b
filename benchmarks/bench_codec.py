"""Per-record cost of the engine's generated codecs against construct (``parse``, ``Struct.compile()``), of
the bit-level paths against bitstring, and of the generated decoders against the Python parser Kaitai Struct's
compiler generates from our exported ``docs/kaitai/*.ksy``, per declaration class (fixed record, tagged union,
counted array). Prints Markdown tables (the figures of docs/architecture.md); ``--write-docs`` writes the
Kaitai table into docs/performance.md (``codec-bench`` markers).

    python benchmarks/bench_codec.py [--repeat 5] [--kaitai-only] [--write-docs]

The Kaitai compiler is the npm build ``.ci/run`` installs (``CHESSFORMATS_KAITAI``: its ``node_modules``).
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import construct as cs
from bitstring import Bits, Reader, pack

from chessformats.engine.codec import codec
from chessformats.schemas import chessbase, ctg, kvetka, monty, polyglot, squares
from perfdoc import replace_section

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def _sample(name: str, con: cs.Construct) -> bytes:
    """A real record where the corpus has one, else bytes packed from small leaf values."""
    real = {
        "polyglot.ENTRY": lambda: (CORPUS / "polyglot" / "gm2001.bin").read_bytes()[16 * 8376:16 * 8377],
        "ctg.STATS": lambda: ctg.FORMAT.examples[0].data[-33:],
        "chessbase.GAME_RECORD": lambda: (CORPUS / "chessbase" / "uncbv_twic1134" / "twic1134.cbh").read_bytes()[46:92],
        "chessbase.PLAYER": lambda: (CORPUS / "chessbase" / "uncbv_twic1134" / "twic1134.cbp").read_bytes()[32:99],
        "monty.HEADER": lambda: (CORPUS / "monty" / "reference_generated_policy.montyformat").read_bytes()[:43],
    }
    if name in real:
        return real[name]()
    derived = codec(con)
    return derived.pack(*(leaf.const if leaf.has_const else 1 for leaf in derived.plan.leaves))  # type: ignore[union-attr]


DECLARATIONS: dict[str, cs.Construct] = {
    "polyglot.ENTRY": polyglot.ENTRY, "polyglot.MOVE": polyglot.MOVE, "ctg.MOVE": ctg.MOVE, "ctg.STATS": ctg.STATS,
    "kvetka.SOURCE_REF": kvetka.SOURCE_REF, "chessbase.GAME_RECORD": chessbase.GAME_RECORD,
    "chessbase.ENTITY_NODE": chessbase.ENTITY_NODE, "chessbase.PLAYER": chessbase.PLAYER,
    "chessbase.SIMPLE_MOVE": chessbase.SIMPLE_MOVE, "chessbase.TWO_BYTE_MOVE": chessbase.TWO_BYTE_MOVE,
    "monty.HEADER": monty.HEADER, "monty.MOVE": monty.MOVE,
}


def _best(function: Callable[[], Any], repeat: int) -> float:
    """Microseconds of CPU time per call (the machine is shared), best of ``repeat`` runs of about 0.2 s."""
    timer = timeit.Timer(function, timer=time.process_time)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat, number)) / number * 1e6


def _compiled(con: cs.Construct) -> Any:
    try:
        return con.compile()
    except Exception:  # construct cannot compile every construct (adapters of its own, custom classes)
        return None


def _codec_row(name: str, con: cs.Construct, repeat: int) -> str:
    data = _sample(name, con)
    derived = codec(con)
    parsed = con.parse(data)
    record = derived.decode(data)
    compiled = _compiled(con)
    timings = [_best(lambda: derived.decode(data), repeat), _best(lambda: derived.unpack(data), repeat),
               _best(lambda: derived.encode(record), repeat), _best(lambda: con.parse(data), repeat)]
    compiled_parse = _best(lambda: compiled.parse(data), repeat) if compiled is not None else None
    build = _best(lambda: con.build(parsed), repeat)
    compiled_build = _best(lambda: compiled.build(parsed), repeat) if compiled is not None else None
    speed = f"{timings[3] / timings[0]:.0f}× / " + (f"{compiled_parse / timings[0]:.0f}×" if compiled_parse else "n/a")
    cells = [f"{t:.2f}" for t in timings] + [f"{compiled_parse:.1f}" if compiled_parse else "fails",
                                             f"{build:.1f}", f"{compiled_build:.1f}" if compiled_build else "fails"]
    return f"| `{name}` | {len(data)} | " + " | ".join(cells) + f" | {speed} |"


def codecs(repeat: int) -> list[str]:
    rows = ["| declaration | bytes | codec decode | codec unpack | codec encode | construct parse | "
            "compiled parse | construct build | compiled build | decode speed-up vs parse / compiled |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, con in DECLARATIONS.items():
        rows.append(_codec_row(name, con, repeat))
    return rows


def _bitstring_decode(bits: Bits, words: list[tuple[str, Bits]], count: int) -> list[str]:
    out, position = [], 0
    for _ in range(count):
        for name, word in words:
            if bits.startswith(word, position):
                out.append(name)
                position += len(word)
                break
    return out


def _bitstring_table_decode(bits: Bits, table: list[tuple[str, int] | None], width: int, count: int) -> list[str]:
    """The engine's table decoder with bitstring's reader doing the bit access."""
    padded = bits + Bits.from_zeros(width)
    reader = Reader(padded)
    out = []
    for _ in range(count):
        entry = table[reader.peek_value(f"u{width}")]
        assert entry is not None
        out.append(entry[0])
        reader.pos += entry[1]
    return out


def bit_paths(repeat: int) -> list[str]:
    rows = ["| bit-level path | engine (µs) | bitstring (µs) | bitstring / engine |", "|---|---:|---:|---:|"]
    move = bytes.fromhex("031c")
    derived = codec(polyglot.MOVE)
    fmt = "u1, u3, u3, u3, u3, u3"
    assert list(derived.unpack(move)) == Bits.from_bytes(move).unpack(fmt)
    pairs = [("Polyglot move: unpack 6 bit fields of 2 bytes", lambda: derived.unpack(move),
              lambda: Bits.from_bytes(move).unpack(fmt)),
             ("Polyglot move: pack 6 bit fields", lambda: derived.pack(0, 0, 1, 4, 3, 4),
              lambda: pack(fmt, 0, 0, 1, 4, 3, 4).to_bytes())]
    le = bytes.fromhex("e139")
    monty_move = codec(monty.MOVE)
    pairs.append(("Monty move (little-endian run): unpack 3 fields", lambda: monty_move.unpack(le),
                  lambda: pack("u16", Bits.from_bytes(le).unpack("ule16")[0]).unpack("u6, u6, u4")))
    code = squares.SQUARE_CODE
    board = ["white_rook", "white_pawn", *["empty"] * 4, "black_pawn", "black_rook"] * 8
    value, length = code.encode(board)
    bits = Bits.from_string("0b" + format(value, f"0{length}b"))
    words = [(name, Bits.from_string("0b" + code.bits(name))) for name in code.members]
    assert _bitstring_decode(bits, words, 64) == board == code.decode(value, length, 64)[0]
    assert _bitstring_table_decode(bits, code._table, code.max_length, 64) == board
    pairs.append(("prefix code: decode a 64-square board (int table vs bitstring startswith)",
                  lambda: code.decode(value, length, 64), lambda: _bitstring_decode(bits, words, 64)))
    pairs.append(("prefix code: decode a 64-square board (int table vs the same table over a bitstring Reader)",
                  lambda: code.decode(value, length, 64),
                  lambda: _bitstring_table_decode(bits, code._table, code.max_length, 64)))
    pairs.append(("prefix code: encode a 64-square board", lambda: code.encode(board),
                  lambda: Bits.from_joined([Bits.from_string("0b" + code.bits(s)) for s in board])))
    key = kvetka.KEY.build(kvetka.KEY.parse(bytes.fromhex("b60f7960f3a60f58b078e0c1e1a60f5960f3b60f70f0")))
    pairs.append(("construct PrefixCoded (kvetka KEY parse) vs bitstring decode of the same bytes",
                  lambda: kvetka.KEY.parse(key), lambda: _bitstring_decode(Bits.from_bytes(key), words, 64)))
    for label, ours, theirs in pairs:
        mine, other = _best(ours, repeat), _best(theirs, repeat)
        rows.append(f"| {label} | {mine:.2f} | {other:.2f} | {other / mine:.1f}× |")
    return rows


# --- side by side with the Python parser Kaitai Struct generates from our exported .ksy -----------------------

REPO = Path(__file__).resolve().parent.parent
_COMPILE = """
const path = require("path");
const compiler = require(path.join(process.argv[1], "kaitai-struct-compiler"));
const spec = JSON.parse(require("fs").readFileSync(0, "utf8"));
compiler.compile("python", spec, null, false).then((files) => process.stdout.write(JSON.stringify(files)));
"""
"""The Kaitai compiler (npm build), as .ci/kaitai/compile.js runs it but without debug mode: the parser reads
in its constructor, as a Kaitai user's parser does."""


def kaitai_module(ksy: str, folder: Path) -> Any:
    """The Python module Kaitai's compiler makes of ``docs/kaitai/<ksy>.ksy`` (None: no Node or compiler)."""
    import yaml

    node = shutil.which(os.environ.get("CHESSFORMATS_NODE", "node"))
    modules = Path(os.environ.get("CHESSFORMATS_KAITAI") or REPO / ".ci" / "cache" / "kaitai" / "node_modules")
    if node is None or not (modules / "kaitai-struct-compiler").is_dir():
        return None
    spec = yaml.safe_load((REPO / "docs" / "kaitai" / f"{ksy}.ksy").read_text(encoding="utf-8"))
    result = subprocess.run([node, "-e", _COMPILE, str(modules)], input=json.dumps(spec), capture_output=True,
                            text=True, timeout=300, check=True)
    for filename, source in json.loads(result.stdout).items():
        (folder / filename).write_text(source, encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module(ksy)


class Case(NamedTuple):
    declaration_class: str
    label: str
    con: cs.Construct
    ksy: str
    kaitai_type: str
    data: Callable[[], bytes]
    root: Any = None
    """The ``_root`` a Kaitai type reads from (a Kvetka element: the book header's ``game_links`` bit)."""


_KVETKA_ROOT = types.SimpleNamespace(header=types.SimpleNamespace(element_type=types.SimpleNamespace(game_links=True)))


def _ctg_moves() -> bytes:
    """The move block of the first record with at least 8 moves in the first CTG book of the corpus."""
    data = sorted((CORPUS / "ctg").glob("*.ctg"))[0].read_bytes()
    for page in range(4096, len(data), 4096):
        offset, positions = page + 4, int.from_bytes(data[page:page + 2], "big")
        for _ in range(positions):
            length = data[offset] & 0x1F
            moves = data[offset + length]
            if moves >= 17:
                return data[offset + length:offset + length + moves]
            offset += length + moves + 33
    raise LookupError("no CTG record with 8 moves")


def _monty_ply() -> bytes:
    data = (CORPUS / "monty" / "reference_generated_policy.montyformat").read_bytes()
    return data[43:43 + 5 + data[43 + 4]]


KAITAI_CASES = [
    Case("fixed record", "`polyglot.ENTRY`", polyglot.ENTRY, "polyglot_book", "Entry",
         lambda: (CORPUS / "polyglot" / "gm2001.bin").read_bytes()[16 * 8376:16 * 8377]),
    Case("tagged union", "`chessbase.CBH_RECORD` (a game)", chessbase.CBH_RECORD, "chessbase_cbh", "CbhRecord",
         lambda: (CORPUS / "chessbase" / "uncbv_twic1134" / "twic1134.cbh").read_bytes()[46:92]),
    Case("counted array", "`ctg.MOVES`", ctg.MOVES, "ctg_book", "Moves", _ctg_moves),
    Case("counted array", "`monty.PLY`", monty.PLY, "monty_policy", "Ply", _monty_ply),
    Case("prefix-coded board", "`ctg.RECORD`", ctg.RECORD, "ctg_book", "Record", lambda: ctg.FORMAT.examples[0].data),
    Case("variable Kvetka element", "`kvetka.ELEMENT`", kvetka.ELEMENT, "kvetka_kob", "Element",
         lambda: next(example.data for example in kvetka.FORMAT.examples if example.structure is kvetka.ELEMENT),
         _KVETKA_ROOT),
]


def kaitai_rows(repeat: int) -> list[str]:
    """Per record: decode (construct's parse, its ``compile()``d parser where it compiles and works, Kaitai's
    Python parser, ours) and encode (construct's build, compiled build, ours; Kaitai's Python runtime does not
    write)."""
    rows = ["| class | declaration | bytes | construct parse | construct compile(): parse | Kaitai (Python) | "
            "ours: decode | construct build | construct compile(): build | ours: encode | ours vs Kaitai | "
            "ours vs construct (decode / encode) |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as folder:
        rows += [_kaitai_row(case, Path(folder), repeat) for case in KAITAI_CASES]
    return rows


def _kaitai_row(case: Case, folder: Path, repeat: int) -> str:
    from kaitaistruct import KaitaiStream

    module = kaitai_module(case.ksy, folder)
    data = case.data()
    derived = codec(case.con)
    assert derived.generated and not derived.delegated, case.label
    value = derived.decode(data)
    assert derived.encode(value) == data
    kaitai = getattr(getattr(module, _kaitai_class(case.ksy)), case.kaitai_type) if module else None
    ours, theirs = _best(lambda: derived.decode(data), repeat), None
    if kaitai is not None:
        kaitai(KaitaiStream(io.BytesIO(data)), None, case.root)  # reads the whole record without error
        theirs = _best(lambda: kaitai(KaitaiStream(io.BytesIO(data)), None, case.root), repeat)
    parse = _best(lambda: case.con.parse(data), repeat)
    encode = _best(lambda: derived.encode(value), repeat)
    parsed = case.con.parse(data)
    build = _best(lambda: case.con.build(parsed), repeat)
    compiled, compiled_parse, compiled_build = _compiled(case.con), "fails", "fails"
    if compiled is not None:  # compile() may succeed and its parser still fail on what it cannot express
        try:
            if compiled.build(compiled.parse(data)) == data:
                compiled_parse = f"{_best(lambda: compiled.parse(data), repeat):.2f}"
                compiled_build = f"{_best(lambda: compiled.build(parsed), repeat):.2f}"
        except Exception:  # any failure of construct's generated code is "fails"
            pass
    return (f"| {case.declaration_class} | {case.label} | {len(data)} | {parse:.2f} | {compiled_parse} | "
            + (f"{theirs:.2f}" if theirs else "n/a") + f" | {ours:.2f} | {build:.2f} | {compiled_build} | "
            + f"{encode:.2f} | " + (f"{theirs / ours:.1f}×" if theirs else "n/a")
            + f" | {parse / ours:.0f}× / {build / encode:.0f}× |")


def _kaitai_class(ksy: str) -> str:
    return "".join(part.capitalize() for part in ksy.split("_"))


def database_reads(repeat: int) -> list[str]:
    """``db[n]`` over every game of twic1134 (the header with its names resolved), warm and cold entity caches."""
    from chessformats.formats.chessbase import Database

    path = CORPUS / "chessbase" / "uncbv_twic1134" / "twic1134.cbh"
    if not path.exists():
        return []
    with Database(path) as db:
        numbers = db.numbers().tolist()
        first = timeit.timeit(lambda: [db[n] for n in numbers], number=1, timer=time.process_time) \
            / len(numbers) * 1e6
        warm = min(timeit.repeat(lambda: [db[n] for n in numbers], number=1, repeat=repeat,
                                 timer=time.process_time)) / len(numbers) * 1e6
    return [f"`db[n]` on twic1134 ({len(numbers):,} games, the header with its names resolved): {warm:.1f} µs a game "
            f"(first pass, entity records read as they come: {first:.1f} µs; 190 µs before, issue 21)."]


START_MARKER, END_MARKER = "<!-- codec-bench:start -->", "<!-- codec-bench:end -->"


def docs_section(rows: list[str], repeat: int) -> str:
    load = os.getloadavg()
    return "\n".join([
        START_MARKER,
        "<!-- Generated by benchmarks/bench_codec.py --write-docs; edits between the markers are lost. -->",
        "", "## Generated codecs against Kaitai Struct's Python parser", "",
        f"Microseconds of CPU time (`time.process_time`) per record, best of {repeat} runs, Python "
        f"{platform.python_version()} ({os.cpu_count()} CPUs "
        f"shared with other work: load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} when the run ended), "
        "every figure of a row from the same run on the same bytes (a corpus record). \"Kaitai (Python)\" is the "
        "parser the Kaitai Struct compiler (npm build, non-debug) generates from our own exported "
        "`docs/kaitai/*.ksy`, reading one record of the type named; \"ours\" is `codec(D).decode` / "
        "`.encode`; construct's own parse and build, and those of its `compile()`d code (\"fails\" where "
        "`compile()` refuses the declaration or its code fails on the record: our adapters, `Switch` on a "
        "computed key), for reference; Kaitai's Python runtime does not write. On the last two "
        "rows the work differs: a `.ksy` cannot express a prefix code, so Kaitai's parser keeps the board (the "
        "CTG position, the Kvetka key) as raw bytes, where ours decodes its 64 squares (`PrefixCode.decode`, "
        "over 16-bit windows, takes about a third of the time). Ours makes no construct context for them: the "
        "fields of the enclosing record a board reads are passed to its function, the CTG move count is a "
        "`Formula` written into the code, bit structures of a few bits and one-byte parts (castling rights, "
        "header and flag bytes) are read from a table of their values.", "",
        *rows, "", END_MARKER, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write-docs", action="store_true",
                        help="regenerate the codec section of docs/performance.md (the Kaitai table)")
    parser.add_argument("--kaitai-only", action="store_true", help="only the Kaitai comparison")
    args = parser.parse_args()
    if not args.kaitai_only:
        print("\n".join(codecs(args.repeat)))
        print()
        print("\n".join(bit_paths(args.repeat)))
        print()
    rows = [*kaitai_rows(args.repeat), "", *database_reads(args.repeat)]
    print("\n".join(rows))
    if args.write_docs:
        replace_section(docs_section(rows, args.repeat), START_MARKER, END_MARKER)


if __name__ == "__main__":
    main()
