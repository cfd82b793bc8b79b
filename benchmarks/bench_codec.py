"""Per-record cost of the engine's generated codecs against construct (``parse``, ``Struct.compile()``) and of
the bit-level paths against bitstring. Prints Markdown tables (the figures of docs/architecture.md).

    python benchmarks/bench_codec.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import construct as cs
from bitstring import Bits, Reader, pack

from chessformats.engine.codec import codec
from chessformats.schemas import chessbase, ctg, kvetka, monty, polyglot, squares

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
    """Microseconds per call, best of ``repeat`` runs of about 0.2 s."""
    timer = timeit.Timer(function)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("\n".join(codecs(args.repeat)))
    print()
    print("\n".join(bit_paths(args.repeat)))


if __name__ == "__main__":
    main()
