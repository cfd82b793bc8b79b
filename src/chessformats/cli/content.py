"""What a file holds when it is none of the formats: the words the command line uses to say what it found (an
empty file, text or PGN games, a compressed or archive file, unknown binary data), from the first bytes alone.

Imported by every sniff: nothing but the engine's stream names.
"""

from __future__ import annotations

import os

from ..engine.streams import COMPRESSED_SUFFIXES

__all__ = ["BINARY", "COMPRESSED", "EMPTY", "compression", "describe", "is_pgn", "looks_like_pgn", "looks_like_text",
           "misnamed", "misnamed_archive"]

COMPRESSED = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
}
"""Magic bytes of the compressions a PGN file may come in -> their names."""

_ARCHIVES = {
    b"PK\x03\x04": "a zip archive",
    b"7z\xbc\xaf\x27\x1c": "a 7-Zip archive",
    b"Rar!": "a RAR archive",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
}

_TEXT_BYTES = frozenset(b"\t\n\r\f") | frozenset(range(0x20, 0x7F)) | frozenset(range(0x80, 0x100))


def is_pgn(path: str) -> bool:
    """A PGN file by its name, perhaps compressed (``.pgn``, ``.pgn.gz``, ``.pgn.bz2``, ``.pgn.xz``, ``.pgn.zst``)?"""
    stem, extension = os.path.splitext(path.lower())
    return extension == ".pgn" or (extension in (".gz", ".bz2", ".xz", *COMPRESSED_SUFFIXES) and stem.endswith(".pgn"))


def compression(head: bytes) -> str | None:
    """The compression ``head`` starts with (``gzip``, ``bzip2``, ``xz``, ``zstd``), or ``None``."""
    for magic, name in COMPRESSED.items():
        if head.startswith(magic):
            return name
    return None


def looks_like_text(head: bytes) -> bool:
    """Whether ``head`` is text: no control bytes but tabs and line ends (no binary format's first bytes are)."""
    return bool(head) and all(byte in _TEXT_BYTES for byte in head)


def looks_like_pgn(head: bytes) -> bool:
    """Whether ``head`` is text that starts like PGN games: a tag (``[Event ...``), a comment or a move number."""
    if not looks_like_text(head):
        return False
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text.startswith((b"[", b"{", b";", b"%")) or text[:1].isdigit() or not text


EMPTY = "an empty file"
"""What :func:`describe` says of a file of no bytes."""
def misnamed_archive(head: bytes) -> bool:
    """Whether ``head`` starts a ChessBase archive (``.cbv``): the header's word 8 and entry size of at least 173
    (:mod:`chessformats.schemas.chessbase.cbv`), then a first member named like a base's file (``NAME.cbh``, ...)."""
    if len(head) < 8 + 6 or head[:2] != b"\x08\x00" or int.from_bytes(head[4:6], "little") < 173:
        return False
    name = head[8:8 + 132].split(b"\0", 1)[0]
    return looks_like_text(name) and os.path.splitext(name.lower())[1][:3] == b".cb"


def _decompressed(head: bytes, packed: str) -> bytes:
    """The first bytes of gzip or xz data (``b""`` for the other compressions, or data that is not whole)."""
    import lzma
    import zlib

    try:
        if packed == "gzip":
            return zlib.decompressobj(wbits=31).decompress(head, 4096)
        if packed == "xz":
            return lzma.LZMADecompressor().decompress(head, 4096)
    except (zlib.error, lzma.LZMAError, EOFError):
        pass
    return b""


def misnamed(path: str | os.PathLike[str], head: bytes) -> str | None:
    """What the file is when it is one the readers would read under another name (they know a compression, a
    ChessBase archive, by the name): a sentence saying what to rename it to; ``None`` otherwise."""
    name = os.path.basename(os.fspath(path))
    stem = os.path.splitext(name)[0] if "." in name.lstrip(".") else name
    packed = compression(head)
    if packed is not None and not is_pgn(name):
        suffix = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}[packed]
        pgn = looks_like_pgn(_decompressed(head, packed))
        return (f"{packed}-compressed {'PGN' if pgn else 'data'} named without .pgn{suffix} (a compression is known "
                f"by the name): {'rename' if pgn else 'if it holds PGN games, rename'} it {stem}.pgn{suffix}")
    if misnamed_archive(head) and not name.lower().endswith((".cbv", ".cbz")):
        return f"a ChessBase archive named otherwise than .cbv (an archive is known by the name): rename it {stem}.cbv"
    return None


BINARY = "binary data of no known format"
"""What :func:`describe` says of bytes that are not text, compressed data or a known archive."""


def describe(path: str | os.PathLike[str], head: bytes, size: int) -> str:
    """What the file holds, in a few words, for a message (a file of no known format)."""
    if os.path.isdir(path):
        return "a folder"
    if size == 0:
        return EMPTY
    packed = compression(head)
    if packed is not None:
        return f"{packed}-compressed {'PGN (games)' if looks_like_pgn(_decompressed(head, packed)) else 'data'}"
    for magic, name in _ARCHIVES.items():
        if head.startswith(magic):
            return name
    if looks_like_pgn(head):
        return "PGN text (games)"
    if looks_like_text(head):
        return "text"
    return BINARY
