"""Mutations: small, JSON-serialisable edits of a file set, and a random generator of them.

A mutation is a list ``[op, file, *arguments]``; :func:`apply` applies a list of them in order to a file set
(name -> bytes). Offsets are taken modulo the file's current length, so every mutation applies to any file
and a shrunk list stays applicable. Operations:

``flip f offset bit``            flip one bit
``byte f offset value``          set one byte (0x00, 0xFF, 0x7F, 0x80 or any)
``truncate f length``            cut the file to ``length`` bytes
``delete f offset length``       remove a chunk
``duplicate f offset length``    repeat a chunk in place
``splice f source target length``  copy a chunk of the file over another place
``insert f offset hex``          insert bytes (PGN tokens, random bytes)
``int f offset size order value``  set a byte-aligned integer field (a count, length or pointer)
``bits f bit_start bit_end value``  set a big-endian bit field (bit 0 = most significant bit of byte 0)
``remove f``                     delete a companion file
``crop f start length``          keep only a window of a big file (cut at a PGN game start)
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from .fields import Field

Mutation = list[Any]

INTERESTING_BYTES = (0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE)

PGN_TOKENS = (
    b"[", b"]", b"{", b"}", b"(", b")", b"$", b"$255", b"*", b"1-0", b"0-1", b"1/2-1/2", b"O-O", b"O-O-O",
    b"e8=Q", b"exd6", b"Kxe1", b"--", b"Z0", b"\x00", b"\xff\xfe", b"%", b";", b"\r", b"\n", b"\n\n",
    b"1.", b"999999999.", b'"', b"\\", b"\n[Event \"", b'[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n',
    b'[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1"]\n', b'[SetUp "1"]\n',
    b'[Variant "chess960"]\n', b'[Result "1-0"]\n', b"e4 e5 Nf3 Nc6 Bb5 a6", b"\n\n\n\n", b"P@e4", b"Qh4#",
    b"\xc3\xa9", b"\x1a", b"<", b"..", b"1...", b"e9", b"N" * 40,
)

_GAME_START = re.compile(rb"\[Event ")


def _at(data: bytes, offset: int, *, inclusive: bool = False) -> int:
    size = len(data) + (1 if inclusive else 0)
    return offset % size if size else 0


def apply(files: dict[str, bytes], mutations: Sequence[Mutation]) -> dict[str, bytes]:
    """The file set after ``mutations`` (a mutation of a missing file does nothing)."""
    out = dict(files)
    for mutation in mutations:
        op, name, *args = mutation
        if name not in out:
            continue
        data = out[name]
        if op == "remove":
            del out[name]
            continue
        out[name] = _apply_one(op, data, args)
    return out


def _apply_one(op: str, data: bytes, args: list[Any]) -> bytes:
    if op == "truncate":
        return data[:max(0, min(int(args[0]), len(data)))]
    if op == "insert":
        at = _at(data, int(args[0]), inclusive=True)
        return data[:at] + bytes.fromhex(args[1]) + data[at:]
    if op == "crop":
        start = _at(data, int(args[0]))
        found = _GAME_START.search(data, start)
        start = found.start() if found else start
        end = start + int(args[1])
        found = _GAME_START.search(data, end)
        return data[start:found.start() if found else len(data)]
    if not data:
        return data
    buffer = bytearray(data)
    if op == "flip":
        buffer[_at(data, int(args[0]))] ^= 1 << (int(args[1]) & 7)
    elif op == "byte":
        buffer[_at(data, int(args[0]))] = int(args[1]) & 0xFF
    elif op == "delete":
        at = _at(data, int(args[0]))
        del buffer[at:at + int(args[1])]
    elif op == "duplicate":
        at = _at(data, int(args[0]))
        buffer[at:at] = data[at:at + int(args[1])]
    elif op == "splice":
        source, target = _at(data, int(args[0])), _at(data, int(args[1]))
        chunk = data[source:source + int(args[2])]
        buffer[target:target + len(chunk)] = chunk
    elif op == "int":
        offset, size, order, value = int(args[0]), int(args[1]), str(args[2]), int(args[3])
        if offset + size <= len(data):
            buffer[offset:offset + size] = (value % (1 << 8 * size)).to_bytes(size, order)  # type: ignore[arg-type]
    elif op == "bits":
        start, end, value = int(args[0]), int(args[1]), int(args[2])
        first, last = start // 8, (end + 7) // 8
        if last <= len(data) and end > start:
            width = 8 * (last - first)
            number = int.from_bytes(data[first:last], "big")
            shift = width - (end - 8 * first)
            mask = ((1 << (end - start)) - 1) << shift
            number = (number & ~mask) | ((value << shift) & mask)
            buffer[first:last] = number.to_bytes(last - first, "big")
    else:
        raise ValueError(f"unknown mutation {op!r}")
    return bytes(buffer)


def focus(mutations: Sequence[Mutation], files: dict[str, bytes]) -> dict[str, list[int]]:
    """Where each file was changed (byte offsets in the mutated file, approximately): the drivers read there."""
    spots: dict[str, list[int]] = {}
    for op, name, *args in mutations:
        size = len(files.get(name, b""))
        if op in ("flip", "byte", "delete", "duplicate", "insert", "int"):
            where = int(args[0])
        elif op == "splice":
            where = int(args[1])
        elif op == "bits":
            where = int(args[0]) // 8
        elif op == "truncate":
            where = int(args[0]) - 1
        else:
            continue
        spots.setdefault(name, []).append(where % size if size else 0)
    return spots


def hostile_values(width: int, current: int, file_size: int) -> list[int]:
    """Values to put in a count, length or pointer field of ``width`` bits."""
    top = (1 << width) - 1
    values = {2**31 - 1, 2**32 - 1, top, top >> 1, (top >> 1) + 1, 0, 1, current + 1, current - 1, current * 2,
              current * 256, file_size, file_size + 1, file_size // 2}
    return sorted(v & top for v in values)


class Generator:
    """Random mutation lists for one seed (its files and its traced fields)."""

    def __init__(self, files: dict[str, bytes], primary: str, reader: str, fields: Sequence[Field]) -> None:
        self.files = files
        self.primary = primary
        self.reader = reader
        self.fields = list(fields)
        self.names = sorted(files)

    def draw(self, rng: random.Random) -> list[Mutation]:
        mutations: list[Mutation] = []
        sizes = {name: len(data) for name, data in self.files.items()}
        if self.reader == "pgn" and sizes[self.primary] > 65536:
            mutations.append(["crop", self.primary, rng.randrange(sizes[self.primary]),
                              rng.choice((2048, 4096, 16384))])
            sizes[self.primary] = min(sizes[self.primary], 40000)
        count = rng.choice((1, 1, 1, 1, 2, 2, 3, 4, 6, 8))
        for _ in range(count):
            mutations.append(self._one(rng, sizes))
        return mutations

    def _file(self, rng: random.Random) -> str:
        if len(self.names) == 1 or rng.random() < 0.5:
            return self.primary
        return rng.choice(self.names)

    def _one(self, rng: random.Random, sizes: dict[str, int]) -> Mutation:
        roll = rng.random()
        if self.fields and roll < 0.2:
            chosen = rng.choice(self.fields)
            value = rng.choice(hostile_values(chosen.width, chosen.value, sizes.get(chosen.file, 0)))
            return chosen.mutation(value)
        if len(self.names) > 1 and roll < 0.23:
            return ["remove", rng.choice([n for n in self.names if n != self.primary] or self.names)]
        name = self._file(rng)
        size = max(1, sizes.get(name, 1))
        offset = rng.randrange(size)
        kind = rng.random()
        if self.reader == "pgn" and kind < 0.35:
            token = rng.choice(PGN_TOKENS) if rng.random() < 0.8 else rng.randbytes(rng.randint(1, 8))
            return ["insert", name, offset, token.hex()]
        if kind < 0.3:
            return ["flip", name, offset, rng.randrange(8)]
        if kind < 0.6:
            value = rng.choice(INTERESTING_BYTES) if rng.random() < 0.7 else rng.randrange(256)
            return ["byte", name, offset, value]
        if kind < 0.68:
            return ["truncate", name, rng.choice((offset, offset, size - 1, size - rng.randint(1, 16), 0))]
        length = rng.choice((1, 2, 3, 4, 8, 16, 46, 64, 512, 4096))
        if kind < 0.78:
            return ["delete", name, offset, length]
        if kind < 0.88:
            return ["duplicate", name, offset, length]
        if kind < 0.95:
            return ["splice", name, rng.randrange(size), offset, length]
        return ["insert", name, offset, rng.randbytes(rng.randint(1, 16)).hex()]
