"""Oracles for the CTG tests, independent of chessformats: the spec's hash (its C code ported with C's integer
semantics), its lookup loop and encoding rules written from the spec's text and ``notes/ctg.md``, a walk of
the corpus records by the notes' lengths, the corpus's ``expected-probes.json``, and random positions.
"""

from __future__ import annotations

import json
import random
import re
import struct
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import chess
from hypothesis import strategies as st

from conftest import REPO_ROOT, find_corpus, find_spec

BOOK = ("ctg", "PowerPlay17-Sicilienne.ctg")
EXAMPLE_GAMES = REPO_ROOT / "src" / "chessformats" / "data" / "example_games.pgn"


@cache
def _expected(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def expected_probes() -> dict[str, Any]:
    """``corpus/ctg/expected-probes.json``: 400 positions of the corpus book probed by an independent reader."""
    return _expected(find_corpus("ctg", "expected-probes.json"))


# --- independent implementations from the spec ---------------------------------------------------------

@cache
def spec_hash_table() -> tuple[int, ...]:
    """The ``tbl[]`` of the spec's hash code (skips, or fails in CI, without the specs folder)."""
    text = find_spec("ctg.ru.txt").read_text(encoding="utf-8")
    start = text.index("unsigned int tbl[]")
    return tuple(int(v, 16) for v in re.findall(r"0x([0-9a-f]{8})", text[start:text.index("};", start)]))


def c_gen_hash(data: bytes) -> int:
    """The spec's ``gen_hash``, with C's types: ``signed char ch``, ``short tmp``, ``signed hash`` (32 bits)."""
    table = spec_hash_table()

    def short(x: int) -> int:
        return (x + 0x8000) % 0x10000 - 0x8000

    def int32(x: int) -> int:
        return (x + 0x80000000) % 0x100000000 - 0x80000000

    hash_value = 0
    tmp = 0
    for byte in data:
        ch = byte - 256 if byte > 127 else byte
        tmp = short(tmp + ((0x0F - (ch & 0x0F)) << 2) + 1)
        hash_value = int32(hash_value + table[tmp & 0x3F])
        tmp = short(tmp + ((0xF0 - (ch & 0xF0)) >> 2) + 1)
        hash_value = int32(hash_value + table[tmp & 0x3F])
    return hash_value & 0xFFFFFFFF


# the spec's square codes (section "Кодирование"), c = 1 for black
SPEC_CODES = {chess.PAWN: "11", chess.ROOK: "1011", chess.BISHOP: "1010", chess.KNIGHT: "1001", chess.QUEEN: "10001",
              chess.KING: "10000"}


def spec_encode(board: chess.Board) -> bytes:
    """The encoded position, written from the spec and notes/ctg.md with python-chess doing the mirrors."""
    if board.turn == chess.BLACK:
        board = board.mirror()  # notes: "python-chess Board.mirror()"
    rights = board.clean_castling_rights()
    king = board.king(chess.WHITE)
    ep = chess.square_file(board.ep_square) if board.ep_square is not None and board.has_legal_en_passant() else None
    if not rights and king is not None and chess.square_file(king) < 4:
        board = board.transform(chess.flip_horizontal)
        ep = None if ep is None else 7 - ep
    bits = ""
    for file in range(8):
        for rank in range(8):
            piece = board.piece_at(chess.square(file, rank))
            bits += "0" if piece is None else SPEC_CODES[piece.piece_type] + ("0" if piece.color else "1")
    flags = ""
    if ep is not None:
        flags += format(ep, "03b")
    if rights:
        flags += "".join("1" if rights & chess.BB_SQUARES[s] else "0" for s in (chess.H8, chess.A8, chess.H1, chess.A1))
    used = 8 + len(bits)
    # the spec's "N = 8/4/3/7" rule: pad so that the flags end on a byte; no flags: at least one pad bit
    total = (used + len(flags) + 7) // 8 * 8 if flags else (used // 8 + 1) * 8
    bits += "0" * (total - used - len(flags)) + flags
    header = total // 8 | (0x20 if ep is not None else 0) | (0x40 if rights else 0)
    return bytes((header,)) + int(bits, 2).to_bytes(total // 8 - 1, "big")


def spec_lookup(stem: str, encoded: bytes) -> int | None:
    """The spec's loop over the .cto entries, the page search by record lengths; returns the page or None."""
    ctb = Path(stem + ".ctb").read_bytes()
    cto = Path(stem + ".cto").read_bytes()
    data = Path(stem + ".ctg").read_bytes()
    lower, upper = struct.unpack(">II", ctb[4:12])
    entries = struct.unpack(">I", cto[4:8])[0]
    for c in spec_entries(c_gen_hash(encoded), lower, upper):
        page = struct.unpack(">i", cto[16 + 4 * c:20 + 4 * c])[0] if c < entries else -1
        if page >= 0:
            base = 4096 * (page + 1)
            position = base + 4
            for _ in range(struct.unpack(">H", data[base:base + 2])[0]):
                length = data[position] & 0x1F
                if data[position:position + length] == encoded:
                    return int(page)
                position += length + data[position + length] + 33
    return None


def spec_entries(h: int, lower: int, upper: int) -> Iterator[int]:
    """The .cto entries the spec's loop reads for hash ``h``, in order (the loop from the spec's text)."""
    n = 0
    while n < 0x7FFFFFFF:
        c = (h & n) + n
        n = 2 * n + 1
        if c < lower:
            continue
        yield c
        if c >= upper:
            break


def corpus_records(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(page, offset, record bytes) of every record, walked with the notes' lengths."""
    data = path.read_bytes()
    for page in range(len(data) // 4096 - 1):
        base = 4096 * (page + 1)
        position = base + 4
        for _ in range(struct.unpack(">H", data[base:base + 2])[0]):
            length = data[position] & 0x1F
            size = length + data[position + length] + 33
            yield page, position, data[position:position + size]
            position += size


# --- random positions -------------------------------------------------------------------------------------

@st.composite
def positions(draw: Any) -> chess.Board:
    """A position of a random game (uniform random legal moves), sometimes without castling rights."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    board = chess.Board()
    for _ in range(draw(st.integers(0, 80))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    if draw(st.booleans()):
        board.castling_rights = 0
    return board.copy(stack=False)
