"""Writing ChessBase archives (``.cbv``; ``.cbz`` with a password): a base's files packed as ChessBase packs them.

Each file is cut into blocks of :data:`~chessformats.schemas.chessbase.cbv.BLOCK_DATA` bytes (61,440, as in every
corpus archive); a block is Huffman-coded (coding 2) when that makes it smaller, else stored (coding 0). The
LZ/RLE stage is not used when writing: the blocks are valid by the format's rules (a reader applies a stage
only when the coding byte asks for it), a little larger than ChessBase's own. The block checksum is written as
ChessBase writes it. A ``.cbz`` is the ``.cbv`` enciphered with DES under the password's key, padded with zero
bytes to a multiple of 8 (the corpus ``.cbz`` files are 4 bytes longer than their ``.cbv`` for that reason).
"""

from __future__ import annotations

import datetime
import os
import struct
from collections.abc import Iterable

import numpy as np

from ...engine import des, huffman
from ...engine.contract import WriteReport
from ...engine.errors import FormatError
from ...engine.fileio import atomic_write
from ...schemas.chessbase import cbv as schema
from .archive import ARCHIVE_EXTENSIONS, NAME_CODE_PAGE, name_problem

__all__ = ["base_files", "stored_name", "write_archive"]


def _block(chunk: bytes, compress: bool) -> bytes:
    """One block (head included) holding ``chunk``."""
    payload = b"\0" + chunk
    if compress and chunk:
        lengths, codes = huffman.build_code(chunk)
        table = 0
        table_bits = 0
        for value in range(256):
            table = (table << (4 + lengths[value])) | (lengths[value] << lengths[value]) | codes[value]
            table_bits += 4 + lengths[value]
        words, word_bits = huffman.encode(chunk, lengths, codes)
        table_bytes = (table << (-table_bits % 8)).to_bytes((table_bits + 7) // 8, "big")
        bits = np.concatenate((np.unpackbits(np.frombuffer(table_bytes, np.uint8))[:table_bits],
                               np.unpackbits(np.frombuffer(words, np.uint8))[:word_bits]))
        coded = b"\2" + len(chunk).to_bytes(2, "big") + np.packbits(bits).tobytes()
        if len(coded) < len(payload):
            payload = coded
    checksum = int(np.frombuffer(payload, "<u2", count=len(payload) // 2).sum(dtype=np.uint64)) & 0xFFFF
    return struct.pack("<HH", len(payload), checksum) + payload


def _stamp(seconds: float) -> tuple[int, int]:
    moment = datetime.datetime.fromtimestamp(seconds)
    return (moment.year * 10000 + moment.month * 100 + moment.day,
            ((moment.hour * 100 + moment.minute) * 100 + moment.second) * 100 + moment.microsecond // 10000)


def stored_name(name: str, target: str) -> bytes:
    """The bytes of file ``name`` in the file table, or a :class:`FormatError` naming what keeps it out: a name
    the reader refuses (:func:`.archive.name_problem`), a character without a byte in the code page names are
    read in (a broken name -- cp1252 would put ``?`` for it -- is never written), a name too long. The command line
    asks it of the base a PGN file becomes before it reads a game."""
    problem = name_problem(name)
    if problem is not None:
        raise FormatError(f"{name!r} cannot be a member's name: {problem}", file=target)
    try:
        raw = name.encode(NAME_CODE_PAGE)
    except UnicodeEncodeError as error:
        char = name[error.start]
        raise FormatError(f"{name!r} cannot be a member's name: the character {char!r} (U+{ord(char):04X}) has no "
                          f"byte in {NAME_CODE_PAGE}, the code page archive names are read in (the archive records "
                          f"none): rename it (or the archive its base is named after) in Western European letters, "
                          "e.g. ASCII ones",
                          file=target) from None
    if len(raw) >= schema.NAME_SIZE:
        raise FormatError(f"{name!r} cannot be a member's name: {len(raw)} bytes, a name holds at most "
                          f"{schema.NAME_SIZE - 1}", file=target)
    return raw


def write_archive(path: str | os.PathLike[str], files: Iterable[str | os.PathLike[str]], *,
                  password: str | bytes | None = None, compress: bool = True) -> WriteReport:
    """Write the ``files`` (each stored under its own name, without folders) into the archive ``path``,
    enciphered when a ``password`` is given (a ``.cbz``). Written whole or not at all (a temporary file
    renamed at the end)."""
    target = os.fspath(path)
    sources = [os.fspath(file) for file in files]
    names = [os.path.basename(source) for source in sources]
    stored = [stored_name(name, target) for name in names]
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            raise FormatError(f"two files named {name!r}", file=target)
        seen.add(name.lower())
    table_end = schema.ARCHIVE_HEADER_SIZE + len(sources) * schema.ARCHIVE_ENTRY_SIZE
    entries, bodies = [], []
    position = table_end
    blocks = 0
    for source, raw in zip(sources, stored, strict=True):
        with open(source, "rb") as handle:
            data = handle.read()
        body = b"".join(_block(data[start:start + schema.BLOCK_DATA], compress)
                        for start in range(0, len(data), schema.BLOCK_DATA))
        blocks += -(-len(data) // schema.BLOCK_DATA)
        date, time = _stamp(os.path.getmtime(source))
        entries.append(schema.ARCHIVE_ENTRY.build({
            "name": raw.ljust(schema.NAME_SIZE, b"\0"),
            "compressed_size": len(body), "size": len(data), "reserved_140": 1, "date": date, "time": time,
            "offset": position, "compressed_size_64": len(body), "size_64": len(data),
        }))
        bodies.append(body)
        position += len(body)
    header = schema.ARCHIVE_HEADER.build({"files": len(sources), "entry_size": schema.ARCHIVE_ENTRY_SIZE,
                                          "reserved_6": 3})
    archive = header + b"".join(entries) + b"".join(bodies)
    if password is not None:
        archive += b"\0" * (-len(archive) % 8)
        archive = des.encrypt(archive, des.password_key(password))
    with atomic_write(target) as handle:
        handle.write(archive)
    return WriteReport(path=target, written=len(sources), unit="files", files=[target],
                       counts={"blocks": blocks, "bytes": len(archive)})


def base_files(path: str | os.PathLike[str]) -> list[str]:
    """The files of the ChessBase base ``path`` (its ``.cbh`` or any companion): every file of its folder with
    the base's name, whatever the extension (``.cbh .cbg .cba .cbp ... .ini``), archives left out; the ``.cbh``
    first."""
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    stem = os.path.splitext(os.path.basename(name))[0].lower()
    found = sorted(entry.path for entry in os.scandir(folder) if entry.is_file()
                   and os.path.splitext(entry.name)[0].lower() == stem
                   and not entry.name.lower().endswith(ARCHIVE_EXTENSIONS) and not entry.name.startswith("."))
    return sorted(found, key=lambda file: not file.lower().endswith(".cbh"))
