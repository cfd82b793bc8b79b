"""ChessBase archives (``.cbv``, and ``.cbz``: the same enciphered with a password): list, read, extract.

>>> from chessformats.formats.chessbase.archive import open_archive
>>> with open_archive("twic1134.cbv") as archive:                     # doctest: +SKIP
...     for member in archive.members:
...         print(member.name, member.size)
...     archive.extract("twic1134")

The layout is declared in :mod:`chessformats.schemas.chessbase.cbv`; the decoding stages are the engine's
(:mod:`~chessformats.engine.huffman`, :mod:`~chessformats.engine.lzrle`, :mod:`~chessformats.engine.des`).
A file is read block by block (:meth:`Archive.blocks`), each block decoded whole and checked (checksum, coding,
sizes), so memory holds one block at a time when extracting. :func:`~.database.open_database` opens a
``.cbv``/``.cbz`` through :func:`extract_to_temporary`: the files go to a temporary folder that is removed
when the base is closed (or fails to open).

Names in the file table are checked before anything is written (:func:`safe_name`): only plain relative names
are accepted; ``..``, absolute paths, drives, control characters and Windows device names are refused.
"""

from __future__ import annotations

import mmap
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from types import TracebackType
from typing import Any, NamedTuple

import numpy as np

from ...engine import des, huffman, lzrle
from ...engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from ...engine.fileio import atomic_write_set, map_file
from ...engine.trace import parse
from ...schemas.chessbase import cbv as schema

__all__ = [
    "ARCHIVE_EXTENSIONS",
    "MAX_BLOCK_OUTPUT",
    "NAME_CODE_PAGE",
    "Archive",
    "ArchiveMember",
    "PasswordError",
    "extract_to_temporary",
    "is_archive",
    "name_problem",
    "open_archive",
    "safe_name",
]

ARCHIVE_EXTENSIONS = (".cbv", ".cbz")

MAX_BLOCK_OUTPUT = 1 << 18
"""The most bytes one block may decode to: ChessBase puts 61,440 bytes of a file in a block; a block that claims
more than four times that is refused before its output is made (memory stays bounded whatever the sizes say)."""

_HUFFMAN_TABLE_BYTES = (256 * (4 + huffman.MAX_LENGTH) + 7) // 8
_REFUSED = '<>"|?*'
"""Characters Windows refuses in file names."""
_DEVICES = re.compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)(\..*)?$", re.IGNORECASE)


class PasswordError(FormatError):
    """A ``.cbz`` opened without its password, or with a wrong one (``needed``: no password was given)."""

    def __init__(self, reason: str, *, needed: bool, **location: Any) -> None:
        self.needed = needed
        super().__init__(reason, **location)


class ArchiveMember(NamedTuple):
    """One file of an archive, as its file-table entry describes it."""

    entry: int
    """Its entry number in the file table (from 0)."""
    name: str
    """Its name as stored, decoded (backslashes kept)."""
    path: str
    """Where it goes below an output folder: :func:`safe_name` of ``name`` (``/`` between folders)."""
    size: int
    """Bytes once decoded."""
    compressed_size: int
    """Bytes of its blocks in the archive."""
    offset: int
    """Offset of its first block in the (deciphered) archive."""
    date: int
    """The entry's date as YYYYMMDD."""
    time: int
    """The entry's time as hhmmsscc."""


def safe_name(name: str) -> str | None:
    """The relative path a stored name may be written to (``/`` between folders), or ``None`` when it must not
    be written (:func:`name_problem` says why)."""
    return None if name_problem(name) is not None else name.replace("\\", "/")


def name_problem(name: str) -> str | None:
    """Why a stored name must not be written, or ``None`` when it may: empty, absolute (``/x``, ``\\x``), with a
    drive or a stream (``C:``, ``a:b``), an empty, ``.`` or ``..`` part, a control character, a Windows device
    name (``CON``, ``nul.txt``, ``COM1``), a part ending in a dot or space (Windows drops them), or a character
    Windows refuses in file names (``<>"|?*``)."""
    if not name:
        return "an empty name"
    control = next((char for char in name if ord(char) < 32 or char == "\x7f"), None)
    if control is not None:
        return f"a control character ({ord(control):#04x})"
    parts = name.replace("\\", "/").split("/")
    if parts[0] == "":
        return "an absolute path"
    for part in parts:
        if part in ("", ".", ".."):
            return f"a {part!r} part" if part else "an empty part (two separators in a row, or one at the end)"
        if ":" in part:
            return "a drive or a stream (':')"
        if _DEVICES.match(part):
            return f"a Windows device name ({part!r})"
        if part[-1] in ". ":
            return "a part ending in a dot or a space (Windows drops them)"
        refused = next((char for char in part if char in _REFUSED), None)
        if refused is not None:
            return f"the character {refused!r}, which Windows refuses in file names" + (
                " ('?' is also what a writer puts for a character its code page lacks: the name was likely written "
                "by one that could not encode it)" if refused == "?" else "")
    return None


NAME_CODE_PAGE = "cp1252"
"""The code page a member's name is read in (bytes cp1252 leaves undefined as Latin-1). The file table records
none: ChessBase, a Windows program, writes the names in the ANSI code page of the Windows it runs on; uncbv
(``antoyo/uncbv``, ``src/cbv.rs``) reads them as ISO-8859-1. Names are written in it too (:mod:`.archive_write`
refuses a name it cannot hold) so that every reader reads the same name back."""


def _decode_name(raw: bytes) -> str:
    try:
        return raw.decode(NAME_CODE_PAGE)
    except UnicodeDecodeError:
        return raw.decode("latin-1")


class _Block(NamedTuple):
    """A block whose head was read and checked, waiting to be decoded."""

    member: ArchiveMember
    at: int
    """Offset of its head."""
    path: str
    coding: int
    """Its coding byte (-1: the place of a member that has no block)."""
    payload: bytes
    """Its bytes after the head (the coding byte first)."""
    limit: int
    """The most bytes it may decode to."""
    last: bool
    """Whether it is its member's last block."""


_BATCH = 48
"""Blocks decoded together (at most 48 * MAX_BLOCK_OUTPUT bytes of output held at once): a base of a few MB, as
TWIC's weekly ones, in one or two batches."""


class Archive:
    """An opened archive: its :attr:`members`, their bytes (:meth:`read`, :meth:`blocks`), :meth:`extract`."""

    def __init__(self, path: str | os.PathLike[str], *, password: str | bytes | None = None) -> None:
        self.path = os.fspath(path)
        self.data: Any = map_file(self.path, "a ChessBase archive")
        self._map = self.data if isinstance(self.data, mmap.mmap) else None
        self.encrypted = False
        try:
            self._open(password)
        except BaseException:
            self.close()
            raise

    def _open(self, password: str | bytes | None) -> None:
        head = bytes(self.data[:schema.ARCHIVE_HEADER_SIZE])
        plain = len(head) >= 2 and int.from_bytes(head[:2], "little") == schema.ARCHIVE_MAGIC
        if not plain or password is not None:
            if password is None:
                if self.path.lower().endswith(".cbz"):
                    raise PasswordError("an enciphered archive (.cbz): give its password", needed=True,
                                        file=self.path, offset=0)
                raise InvalidValueError("not a ChessBase archive", expected=schema.ARCHIVE_MAGIC,
                                        actual=int.from_bytes(head[:2], "little") if len(head) >= 2 else head,
                                        file=self.path, offset=0, path="header.magic")
            self._decipher(password)
        self.header, self.members = self._table()

    def _decipher(self, password: str | bytes) -> None:
        try:
            key = des.password_key(password)
        except ValueError as error:
            raise PasswordError(str(error), needed=True, file=self.path) from None
        whole = len(self.data) // 8 * 8
        first = des.decrypt(bytes(self.data[:8]), key) if whole else b""
        if int.from_bytes(first[:2], "little") != schema.ARCHIVE_MAGIC:
            raise PasswordError("wrong password (the deciphered header is not an archive's)", needed=False,
                                file=self.path, offset=0)
        plain = des.decrypt(memoryview(self.data)[:whole] if self._map is None else self.data[:whole], key)
        self._release_map()
        self.data = plain
        self.encrypted = True

    def _release_map(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None

    def _table(self) -> tuple[Any, list[ArchiveMember]]:
        size = len(self.data)
        if size < schema.ARCHIVE_HEADER_SIZE:
            raise TruncatedError("truncated archive header", needed=schema.ARCHIVE_HEADER_SIZE, available=size,
                                 file=self.path, offset=0)
        header = parse(schema.ARCHIVE_HEADER, bytes(self.data[:schema.ARCHIVE_HEADER_SIZE]), file=self.path,
                       path="header")
        if header.entry_size < schema.ARCHIVE_ENTRY_SIZE:
            raise UnsupportedError(f"file-table entries of {header.entry_size} bytes (known: "
                                   f"{schema.ARCHIVE_ENTRY_SIZE})", file=self.path, offset=4, path="header.entry_size")
        table_end = schema.ARCHIVE_HEADER_SIZE + header.files * header.entry_size
        if table_end > size:
            raise TruncatedError(f"the file table of {header.files} entries ends past the end of the file",
                                 needed=table_end, available=size, file=self.path, offset=schema.ARCHIVE_HEADER_SIZE,
                                 path="files")
        members: list[ArchiveMember] = []
        taken: set[str] = set()
        position = table_end
        for index in range(header.files):
            at = schema.ARCHIVE_HEADER_SIZE + index * header.entry_size
            entry = parse(schema.ARCHIVE_ENTRY, bytes(self.data[at:at + schema.ARCHIVE_ENTRY_SIZE]), file=self.path,
                          offset=at, path=f"files[{index}]")
            name = _decode_name(bytes(entry.name).split(b"\0", 1)[0])
            problem = name_problem(name)
            if problem is not None:
                raise InvalidValueError(f"a member name that may not be written: {problem}", actual=name,
                                        file=self.path, offset=at, path=f"files[{index}].name")
            target = name.replace("\\", "/")
            if target.lower() in taken:
                raise InvalidValueError("two members with one name", actual=name, file=self.path, offset=at,
                                        path=f"files[{index}].name")
            taken.add(target.lower())
            for field, value in (("compressed_size", entry.compressed_size), ("size", entry.size)):
                if value < 0:
                    raise InvalidValueError("a negative size", actual=value, file=self.path,
                                            offset=at + (132 if field == "compressed_size" else 136),
                                            path=f"files[{index}].{field}")
            if position + entry.compressed_size > size:
                raise TruncatedError(f"member {name}'s blocks end past the end of the archive",
                                     needed=position + entry.compressed_size, available=size, file=self.path,
                                     offset=at + 132, path=f"files[{index}].compressed_size")
            members.append(ArchiveMember(index, name, target, entry.size, entry.compressed_size, position,
                                         entry.date, entry.time))
            position += entry.compressed_size
        return header, members

    # --- reading ----------------------------------------------------------------------------------------

    def member(self, name: str) -> ArchiveMember:
        """The member of this name (compared without case, ``\\`` and ``/`` alike); ``KeyError`` if none."""
        wanted = name.replace("\\", "/").lower()
        for found in self.members:
            if found.path.lower() == wanted:
                return found
        raise KeyError(f"{os.path.basename(self.path)} has no member {name!r}")

    def blocks(self, member: ArchiveMember) -> Iterator[bytes]:
        """The decoded bytes of ``member``, block after block; raises :class:`FormatError` at the first block
        that is damaged, and when the blocks give another size than the entry says."""
        for _, chunk in self.decoded([member]):
            yield chunk

    def read(self, member: ArchiveMember | str) -> bytes:
        """The decoded bytes of a member (or of the member of that name)."""
        found = self.member(member) if isinstance(member, str) else member
        return b"".join(self.blocks(found))

    def decoded(self, members: list[ArchiveMember] | None = None) -> Iterator[tuple[ArchiveMember, bytes]]:
        """(member, decoded block) for every block of the members (all by default), in order. Blocks are
        decoded in batches of up to :data:`_BATCH` (the Huffman stage of a batch is one numpy walk); each
        member's size is checked when its last block is given."""
        batch: list[_Block] = []
        made: dict[int, int] = {}  # bytes given so far of each member being read
        for member in self.members if members is None else members:
            position, end, number = member.offset, member.offset + member.compressed_size, 0
            while position < end:
                batch.append(self._prepare(member, position, end, number))
                position += schema.BLOCK_HEAD_SIZE + len(batch[-1].payload)
                number += 1
                if len(batch) == _BATCH:
                    yield from self._finish(batch, made)
                    batch = []
            if member.compressed_size == 0:
                batch.append(_Block(member, position, f"files[{member.entry}]", -1, b"", 0, True))
        yield from self._finish(batch, made)

    def _prepare(self, member: ArchiveMember, at: int, end: int, number: int) -> _Block:
        """A block's head read and checked (size, checksum, coding)."""
        path = f"files[{member.entry}].blocks[{number}]"
        if at + schema.BLOCK_HEAD_SIZE > end:
            raise TruncatedError("a block head cut short", needed=schema.BLOCK_HEAD_SIZE, available=end - at,
                                 file=self.path, offset=at, path=path)
        size, checksum = (int.from_bytes(self.data[at + i:at + i + 2], "little") for i in (0, 2))
        start = at + schema.BLOCK_HEAD_SIZE
        if size == 0 or start + size > end:
            raise TruncatedError("a block that ends past its member", needed=size, available=end - start,
                                 file=self.path, offset=at, path=f"{path}.head.size")
        payload = bytes(self.data[start:start + size])
        found = int(np.frombuffer(payload, "<u2", count=size // 2).sum(dtype=np.uint64)) & 0xFFFF
        if found != checksum:
            raise InvalidValueError("a damaged block (its checksum does not match)", expected=checksum, actual=found,
                                    file=self.path, offset=at + 2, path=f"{path}.head.checksum")
        coding = payload[0]
        if coding > 3:
            raise InvalidValueError("an unknown block coding", expected="0-3", actual=coding, file=self.path,
                                    offset=start, path=f"{path}.coding")
        return _Block(member, at, path, coding, payload, min(member.size, MAX_BLOCK_OUTPUT), start + size >= end)

    def _finish(self, batch: list[_Block], made: dict[int, int]) -> Iterator[tuple[ArchiveMember, bytes]]:
        streams = [self._huffman_stream(block) for block in batch if block.coding > 0 and block.coding & 2]
        try:
            decoded = iter(huffman.decode_many(streams))
        except huffman.BitStreamError as error:
            block = [block for block in batch if block.coding > 0 and block.coding & 2][error.stream]
            kind = TruncatedError if error.truncated else InvalidValueError
            raise kind(f"Huffman code words: {error}", file=self.path,
                       offset=block.at + schema.BLOCK_HEAD_SIZE + 3 + error.bit // 8,
                       path=f"{block.path}.data.words") from None
        for block in batch:
            if block.coding < 0:  # a member without blocks
                body = b""
            else:
                body = next(decoded) if block.coding & 2 else block.payload[1:]
                if block.coding & 1:
                    try:
                        body = lzrle.decode(body, block.limit)
                    except lzrle.LzError as error:
                        where = 0 if block.coding & 2 else 1 + error.at
                        raise InvalidValueError(f"LZ/RLE data: {error} (item at {error.at} of the coded bytes)",
                                                file=self.path, offset=block.at + schema.BLOCK_HEAD_SIZE + where,
                                                path=f"{block.path}.data") from None
            made[block.member.entry] = made.get(block.member.entry, 0) + len(body)
            member = block.member
            if made[member.entry] > member.size or (block.last and made[member.entry] != member.size):
                given = made.pop(member.entry)
                raise InvalidValueError(f"member {member.name}: its blocks give "
                                        + (f"{given} bytes" if block.last and given < member.size else
                                           f"more than the {member.size} bytes of its entry"),
                                        expected=member.size, file=self.path, offset=block.at,
                                        path=f"files[{member.entry}].size")
            if block.last:
                made.pop(member.entry, None)
            yield member, body

    def _huffman_stream(self, block: _Block) -> huffman.Stream:
        body, at, path = block.payload[1:], block.at + schema.BLOCK_HEAD_SIZE + 1, block.path
        if len(body) < 2:
            raise TruncatedError("a Huffman head cut short", needed=2, available=len(body), file=self.path,
                                 offset=at, path=f"{path}.data.count")
        count = int.from_bytes(body[:2], "big")
        if count > block.limit:
            raise InvalidValueError(f"a block that claims {count} bytes, more than the {block.limit} it may",
                                    file=self.path, offset=at, path=f"{path}.data.count")
        coded = body[2:]
        bits = np.unpackbits(np.frombuffer(coded[:_HUFFMAN_TABLE_BYTES], np.uint8)).astype(np.int64)
        available = len(bits)
        padded = np.zeros(available + 4 + huffman.MAX_LENGTH, np.int64)
        padded[:available] = bits
        nibble = padded[:-3] << 3 | padded[1:-2] << 2 | padded[2:-1] << 1 | padded[3:]
        nibbles = nibble.tolist()
        starts, used = [], 0
        for value in range(256):  # each byte's 4-bit length, then its code word of that many bits
            length = nibbles[used] if used + 4 <= available else -1
            if length < 0 or used + 4 + length > available:
                raise TruncatedError("a Huffman code table cut short", file=self.path, offset=at + 2,
                                     path=f"{path}.data.table[{value}]")
            starts.append(used)
            used += 4 + length
        first = np.array(starts) + 4
        lengths = nibble[first - 4]
        head = np.zeros(_HUFFMAN_TABLE_BYTES + 3, np.int64)
        head[:available // 8] = np.frombuffer(coded[:available // 8], np.uint8)
        byte = first >> 3  # the 24 bits from each word's byte hold its 15 bits at most
        window = (head[byte] << 16 | head[byte + 1] << 8 | head[byte + 2]) >> (24 - huffman.MAX_LENGTH - (first & 7))
        codes = (window & (1 << huffman.MAX_LENGTH) - 1) >> (huffman.MAX_LENGTH - lengths)
        return huffman.Stream(coded, used, huffman.decode_table(lengths.tolist(), codes.tolist()), count)

    # --- writing files out ------------------------------------------------------------------------------

    def extract(self, folder: str | os.PathLike[str], members: list[ArchiveMember] | None = None, *,
                durable: bool = False) -> list[str]:
        """Write the members (all by default) below ``folder`` (made if missing): the paths written. Nothing is
        written unless every member decodes: files are written to temporary files that are renamed at the end,
        and a folder this call made is removed again when it fails. The files are not flushed to the disk
        (``fsync``) unless ``durable`` (as ``tar`` and ``unzip`` do: they can be extracted again)."""
        root = os.path.abspath(os.fspath(folder))
        made: list[str] = []
        chosen = self.members if members is None else members
        try:
            targets = {}
            for member in chosen:
                target = os.path.join(root, *member.path.split("/"))
                _make_folders(os.path.dirname(target), made)
                real = os.path.realpath(os.path.dirname(target))
                if os.path.commonpath([real, os.path.realpath(root)]) != os.path.realpath(root):
                    raise InvalidValueError("a member that would be written outside the folder",
                                            actual=member.name, file=self.path, path=f"files[{member.entry}].name")
                targets[member.entry] = target
            with atomic_write_set(durable=durable) as open_file:
                handles: dict[int, Any] = {}
                for member, chunk in self.decoded(chosen):  # the members' blocks decoded in batches across members
                    handle = handles.get(member.entry)
                    if handle is None:
                        handle = handles[member.entry] = open_file(targets[member.entry])
                    handle.write(chunk)
            return [targets[member.entry] for member in chosen]
        except BaseException:
            for path in reversed(made):
                try:
                    os.rmdir(path)
                except OSError:
                    pass
            raise

    def close(self) -> None:
        """Release the archive's file (closing twice is harmless)."""
        self._release_map()
        self.data = b""

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def _make_folders(folder: str, made: list[str]) -> None:
    missing = []
    while not os.path.isdir(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    for path in reversed(missing):
        os.mkdir(path)
        made.append(path)


def open_archive(path: str | os.PathLike[str], *, password: str | bytes | None = None) -> Archive:
    """Open a ``.cbv`` (or a ``.cbz`` with its ``password``)."""
    return Archive(path, password=password)


def is_archive(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an archive (``.cbv``/``.cbz``, by its name)."""
    return os.fspath(path).lower().endswith(ARCHIVE_EXTENSIONS)


def extract_to_temporary(path: str | os.PathLike[str], *, password: str | bytes | None = None) -> tuple[str, str]:
    """The files of an archive that carries one base, written to a new temporary folder: (the folder, the base's
    ``.cbh``). The folder is removed again when this fails; removing it afterwards is the caller's
    (:func:`~.database.open_database` does it when the base is closed)."""
    folder = tempfile.mkdtemp(prefix="chessformats-cbv-")
    try:
        with open_archive(path, password=password) as archive:
            bases = [member for member in archive.members if member.path.lower().endswith(".cbh")]
            if len(bases) != 1:
                raise UnsupportedError(f"the archive holds {len(bases)} .cbh files (one base is needed to open it "
                                       "as a base; extract it instead)", file=archive.path)
            archive.extract(folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder, os.path.join(folder, *bases[0].path.split("/"))
