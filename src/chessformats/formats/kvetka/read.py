"""Reading Kvetka books: :class:`KvetkaBook` (the ``.kob`` files as one stream, the ``.kin`` index, the
``.ksf`` sources), probing.

The fast paths (element reading) are derived from the declarations in :mod:`chessformats.schemas.kvetka`; the
tests compare them with construct's own parse and with vectors worked out by hand from the spec.
"""

from __future__ import annotations

import bisect
import collections
import itertools
import os
import re
from collections.abc import Container, Iterator
from typing import Any

import chess

from ...engine.codec import codec
from ...engine.contract import BookMethods
from ...engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from ...engine.fileio import MappedFile, map_file, regular
from ...engine.records import locate_item
from ...engine.schema import member
from ...engine.tables import Tabular
from ...engine.trace import parse
from ...schemas import kvetka as schema
from .key import KEY_BITS, KEY_SIZE, MOVES, KeyOverflowError, decode_key, encode, same_position
from .model import ELEMENT, LENGTH, PART_BITS, Element, KvetkaMove, ProbeResult, move_weight
from .sources import KsfFile, KvetkaSource

__all__ = ["BLOCK_SIZE", "KvetkaBook", "book_files", "header_size", "open_book"]

BLOCK_SIZE = schema.BLOCK_SIZE
USED = codec(member(schema.BLOCK, "used"))
"""The block's field of bytes in use, read and written from ``BLOCK``'s declaration."""
USED_SIZE = int(USED.size or 0)
_HEADER_START = codec(schema.HEADER_START)
"""The header's fields before the caption (the book type)."""
_CAPTION_LENGTH = codec(member(schema.UNICODE_STRING.subcon, "length"))
"""The caption's length field (in UTF-16 units: ``UNICODE_STRING.width`` bytes each)."""
_HEADER_BEFORE_CAPTION = int(_HEADER_START.size or 0)
_HEADER_HEAD = _HEADER_BEFORE_CAPTION + int(_CAPTION_LENGTH.size or 0)
"""Bytes of the header up to the caption's characters: what :func:`header_size` needs."""
_HEADER_AFTER_CAPTION = int(codec(schema.HEADER_END).size or 0)
_GAME_BITS = tuple(bit for name, bit in PART_BITS if name != "comment")
_COMMENT_BIT = dict(PART_BITS)["comment"]
_READ_LENGTH = LENGTH.codec_read


SUPPORTED_TYPE = next(value for value, (name, _) in schema.BOOK_TYPE.meanings.items() if name == "book")
"""The only book type this library (and Kvetka) reads."""


def header_size(head: bytes) -> int | None:
    """Bytes of the header of ``NAME_0.kob`` from its first bytes (the caption's length decides); ``None`` when
    ``head`` does not start a header of the supported book type or ends before the caption's length."""
    if len(head) < _HEADER_HEAD or _HEADER_START.unpack(head) != (SUPPORTED_TYPE,):
        return None
    (units,) = _CAPTION_LENGTH.unpack(head, _HEADER_BEFORE_CAPTION)
    return int(_HEADER_HEAD + schema.UNICODE_STRING.width * units + _HEADER_AFTER_CAPTION)


def book_files(path: str | os.PathLike[str]) -> tuple[str, list[str], str | None, str | None]:
    """``(stem, .kob files in order, .kin or None, .ksf or None)`` of the book named by ``path``.

    ``path`` is the book's name (``dir/NAME``) or any of its files (``NAME_3.kob``, ``NAME.kin``, ``NAME.ksf``).
    """
    name = os.fspath(path)
    stem, extension = os.path.splitext(name)
    lower = extension.lower()
    if lower == ".kob":
        found = re.fullmatch(r"(.*)_([0-9]+)", stem, re.DOTALL)
        if found is not None and os.path.exists(f"{found.group(1)}_0{extension}"):
            stem = found.group(1)
    elif lower not in (".kin", ".ksf"):
        stem = name
    kobs: list[str] = []
    while True:
        candidate = _sibling(f"{stem}_{len(kobs)}", ".kob")
        if candidate is None:
            break
        kobs.append(candidate)
    return stem, kobs, _sibling(stem, ".kin"), _sibling(stem, ".ksf")


def _sibling(stem: str, extension: str) -> str | None:
    for candidate in (stem + extension, stem + extension.upper()):
        if os.path.exists(candidate):
            return candidate
    return None


class KvetkaBook(BookMethods[KvetkaMove], Tabular, MappedFile):
    """A Kvetka book: the ``.kob`` files as one stream, the ``.kin`` index, the ``.ksf`` sources (:func:`open_book`).

    It keeps the contract of every book (:class:`chessformats.contract.OpeningBook`): ``probe`` (a board or the
    book's key, :meth:`key`), iteration, ``len`` and ``[i]`` over the elements in stored (key) order, python-chess's
    ``find_all``/``find``/``get``/``choice``/``weighted_choice`` with each move's weight (``2 * wins + draws`` of
    the side that plays it, from the position it leads to).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.stem, self.kob_paths, self.kin_path, self.ksf_path = book_files(path)
        if not self.kob_paths:
            raise FormatError(f"no {os.path.basename(self.stem)}_0.kob: not a Kvetka book", file=os.fspath(path))
        self.path = self.kob_paths[0]
        for name in (*self.kob_paths, self.kin_path, self.ksf_path):  # a folder or a FIFO of a book file's name
            if name is not None:
                regular(name, "a file of a Kvetka book")
        self._files: list[Any] = []
        self.starts: list[int] = []
        """Stream offset of each ``.kob`` file."""
        self.sources: KsfFile | None = None
        self.findings_list: list[str] = []
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        total = 0
        for name in self.kob_paths:
            data = map_file(name)
            self._files.append(data)
            self.starts.append(total)
            total += len(data)
        self.size = total
        first = self._files[0]
        if len(first) < _HEADER_BEFORE_CAPTION:
            raise TruncatedError("truncated header", needed=_HEADER_BEFORE_CAPTION, available=0, file=self.path,
                                 offset=0, show_path=False)
        (book_type,) = _HEADER_START.unpack(first)
        if book_type != SUPPORTED_TYPE:
            meaning = schema.BOOK_TYPE.meanings.get(book_type, ("unknown", "unknown"))[1]
            raise UnsupportedError(f"book type {book_type} ({meaning}) is not supported: only type "
                                   f"{SUPPORTED_TYPE} is", file=self.path, offset=0, path="header.type")
        size = header_size(first[:_HEADER_HEAD])
        if size is None:
            raise TruncatedError("truncated header.caption", needed=_HEADER_HEAD - _HEADER_BEFORE_CAPTION,
                                 available=len(first) - _HEADER_BEFORE_CAPTION, file=self.path,
                                 offset=_HEADER_BEFORE_CAPTION, show_path=False)
        if size > len(first):  # checked before the caption is read
            raise TruncatedError("truncated header (its caption is longer than the file)", needed=size,
                                 available=len(first), file=self.path, offset=0, show_path=False)
        self.header = parse(schema.HEADER, bytes(first[:size]), file=self.path, path="header")
        self.header_size = size
        self.caption: str = self.header.caption
        self.keeps_games = bool(self.header.element_type.game_links)
        self._params = ELEMENT.parameters(keeps_games=self.keeps_games)
        self.blocks, rest = divmod(total - size, BLOCK_SIZE)
        if rest:
            at = size + self.blocks * BLOCK_SIZE
            file, offset = self.where(at)
            raise TruncatedError(f"truncated block {self.blocks}", needed=BLOCK_SIZE, available=rest, file=file,
                                 offset=offset, path=f"blocks[{self.blocks}]", show_path=False)
        for index, start in enumerate(self.starts[1:], start=1):
            if (start - size) % BLOCK_SIZE:
                self.findings_list.append(f"{os.path.basename(self.kob_paths[index])} does not start on a block "
                                          "boundary (read as one stream all the same)")
        if self.header.block_number != self.blocks:
            self.findings_list.append(f"the header says {self.header.block_number} blocks, the .kob files hold "
                                      f"{self.blocks}")
        self._cache: collections.OrderedDict[int, list[Element]] = collections.OrderedDict()
        self._starts: list[int] | None = None
        self.kin_keys = False
        """The index is the ``.kin``'s: each block's first key is checked against it when the block is read."""
        self.index = self._read_index()
        self.sources = KsfFile(self.ksf_path) if self.ksf_path is not None else None

    def _read_index(self) -> list[bytes]:
        if self.kin_path is not None:
            with open(self.kin_path, "rb") as handle:
                data = handle.read()
            count, rest = divmod(len(data), KEY_SIZE)
            if rest:
                raise TruncatedError(f"truncated key {count}", needed=KEY_SIZE, available=rest, file=self.kin_path,
                                     offset=count * KEY_SIZE, path=f"[{count}]", show_path=False)
            keys = [data[n * KEY_SIZE:(n + 1) * KEY_SIZE] for n in range(count)]
            if count != self.blocks:
                self.findings_list.append(f"the .kin holds {count} keys for {self.blocks} blocks: ignored, the "
                                          "index was built from the blocks")
            elif any(keys[n] >= keys[n + 1] for n in range(count - 1)):
                self.findings_list.append("the .kin keys are not in ascending order: ignored, the index was built "
                                          "from the blocks")
            else:
                self.kin_keys = True
                return keys
        else:
            self.findings_list.append("no .kin file: the index was built by reading every block")
        keys = []
        previous = bytes(KEY_SIZE)
        for block in range(self.blocks):
            elements = self.block_elements(block)
            previous = elements[0].key if elements else previous
            keys.append(previous)
        return keys

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.blocks} blocks"
        return f"<{type(self).__name__} {self.path!r} ({state})>"

    def close(self) -> None:
        """Release the ``.kob`` maps and the ``.ksf``."""
        sources, self.sources = self.sources, None
        if sources is not None:
            sources.close()
        files, self._files = self._files, []
        for data in files:
            if hasattr(data, "close"):
                data.close()
        super().close()

    # -- the stream

    def where(self, at: int) -> tuple[str, int]:
        """(file, offset in it) of a stream offset."""
        index = bisect.bisect_right(self.starts, at) - 1
        return self.kob_paths[index], at - self.starts[index]

    def read(self, at: int, size: int) -> bytes:
        """``size`` bytes of the stream from offset ``at`` (fewer at its end), across ``.kob`` files."""
        index = bisect.bisect_right(self.starts, at) - 1
        out = b""
        while size > 0 and index < len(self._files):
            local = at - self.starts[index]
            piece = bytes(self._files[index][local:local + size])
            out += piece
            at += len(piece)
            size -= len(piece)
            index += 1
        return out

    def block_offset(self, block: int) -> int:
        """Stream offset of a block."""
        return int(self.header_size) + BLOCK_SIZE * block

    def block_bytes(self, block: int) -> bytes:
        self._check_open()
        if not 0 <= block < self.blocks:
            raise InvalidValueError("block number out of range", expected=f"0..{self.blocks - 1}", actual=block,
                                    file=self.path, path=f"blocks[{block}]")
        return self.read(self.block_offset(block), BLOCK_SIZE)

    def block_elements(self, block: int) -> list[Element]:
        """The elements of a block, validated (cached)."""
        cached = self._cache.get(block)
        if cached is not None:
            self._cache.move_to_end(block)
            return cached
        data = self.block_bytes(block)
        base = self.block_offset(block)
        used = USED.decode(data)
        if not USED_SIZE <= used <= BLOCK_SIZE:
            file, offset = self.where(base)
            raise InvalidValueError("bytes in use out of range", expected=f"{USED_SIZE}..{BLOCK_SIZE}", actual=used,
                                    file=file, offset=offset, path=f"blocks[{block}].used")
        elements: list[Element] = []
        at = USED_SIZE
        read, params = ELEMENT.read, self._params
        try:
            while at < used:
                start = at
                (_, (key, wins, draws, losses, _, codes, flags, source, comment, links, extra)), at = read(
                    data, at, used, params)
                if self.keeps_games:  # the bits of the parts present are the parts' (flags keeps the others)
                    flags &= ~((_GAME_BITS[0] if source is not None else 0) | (_GAME_BITS[1] if links is not None
                                                                                else 0))
                elements.append(Element(key, wins, draws, losses, tuple(codes),
                                        flags & ~_COMMENT_BIT if comment is not None else flags, source, comment,
                                        links, extra, base + start, block))
        except FormatError as error:
            where = f"blocks[{block}].elements[{len(elements)}]"
            raise self._relocated(error, base, where) from None
        if self.kin_keys and elements and elements[0].key != self.index[block]:
            raise InvalidValueError(f"the .kin's key {block} is not the first key of block {block}: the index does "
                                    "not describe this book", expected=elements[0].key.hex(),
                                    actual=self.index[block].hex(), file=self.kin_path, offset=block * KEY_SIZE,
                                    path=f"[{block}]")
        self._cache[block] = elements
        if len(self._cache) > 4096:
            self._cache.popitem(last=False)
        return elements

    def _error(self, kind: type[FormatError], reason: str, at: int, path: str, **extra: Any) -> FormatError:
        """An error located at stream offset ``at`` (its file and the offset in that file)."""
        file, offset = self.where(at)
        return kind(reason, file=file, offset=offset, path=path, **extra)

    def _relocated(self, error: FormatError, base: int, where: str) -> FormatError:
        """An error of a codec that read bytes at stream offset ``base``, in its ``.kob`` file, under ``where``."""
        file, offset = self.where(base + (error.offset or 0))
        error.file, error.offset = file, offset
        if isinstance(error, TruncatedError):
            error.show_path = True
        return error.located(path_prefix=where)

    def element_board(self, element: Element) -> chess.Board:
        """The normalised board of an element's key; a bad key is a located :class:`FormatError`."""
        try:
            return decode_key(element.key)[0]
        except ValueError as exc:  # PrefixCodeError included
            where = f"blocks[{element.block}].elements[?].body.key"
            raise self._error(InvalidValueError, str(exc), element.offset or 0, where) from None

    # -- lookup

    def _block_count(self, block: int) -> int:
        """The elements of a block, counted through their length fields alone (no body decoded)."""
        cached = self._cache.get(block)
        if cached is not None:
            return len(cached)
        data = self.block_bytes(block)
        used = USED.decode(data)
        if not USED_SIZE <= used <= BLOCK_SIZE:
            return len(self.block_elements(block))  # raises the located error
        count, at = 0, USED_SIZE
        read = _READ_LENGTH
        try:
            while at < used:
                length, at = read(data, at, used)
                at += length
                count += 1
        except (IndexError, ValueError):
            return len(self.block_elements(block))  # raises the located error
        if at > used:
            return len(self.block_elements(block))
        return count

    def _element_starts(self) -> list[int]:
        """The number of the first element of each block, and the total last."""
        if self._starts is None:
            self._starts = [0, *itertools.accumulate(self._block_count(block) for block in range(self.blocks))]
        return self._starts

    def __len__(self) -> int:
        """The elements of the book (counted through their length fields: no element is decoded)."""
        self._check_open()
        return self._element_starts()[-1]

    def __getitem__(self, index: int) -> Element:
        """Element ``index`` in stored (key) order, as iteration gives them; decodes its block only."""
        self._check_open()
        block, number = locate_item(self._element_starts(), index, file=self.path, label="element")
        return self.block_elements(block)[number]

    def elements(self) -> Iterator[Element]:
        """Every element, in stored (key) order."""
        for block in range(self.blocks):
            self._check_open()  # per block: a book closed while iterated raises, not a damaged block
            yield from self.block_elements(block)

    __iter__ = elements

    def find_element(self, key: bytes, bits: int = KEY_BITS) -> Element | None:
        """The element of a key (only its first ``bits`` bits compared: stored padding may be anything)."""
        self._check_open()
        block = bisect.bisect_right(self.index, key) - 1
        for candidate in (block, block + 1) if bits < KEY_BITS else (block,):
            if 0 <= candidate < self.blocks:
                for element in self.block_elements(candidate):
                    if same_position(element.key, key, bits):
                        return element
        return None

    def key(self, board: chess.Board) -> bytes:
        """The book's key of a board: the 22-byte key of its normalised position (:class:`KeyOverflowError` for a
        position no key can hold)."""
        return encode(board).key

    def probe(self, position: chess.Board | bytes, *, legal_only: bool = True) -> ProbeResult | None:
        """The book's knowledge of a position (``None``: not in book): a board, its moves as moves of that board;
        or the book's key of it (:meth:`key`), its moves as moves of the key's normalised board (white to move).

        With ``legal_only``, moves that are not legal in the board are left out.
        """
        self._check_open()
        if isinstance(position, (bytes, bytearray)):
            try:
                board = decode_key(bytes(position))[0]
            except ValueError:
                return None  # not a key of any position
        elif isinstance(position, chess.Board):
            board = position
        else:
            raise TypeError(f"a Kvetka book is probed with a chess.Board or its key (bytes: book.key(board)), not "
                            f"{type(position).__name__}")
        try:
            found = encode(board)
        except KeyOverflowError:
            return None
        element = self.find_element(found.key, found.bits)
        if element is None:
            return None
        moves = []
        where = f"blocks[{element.block}]"
        for number, code in enumerate(element.codes):
            move = MOVES.move(code, found.norm.own, found.norm.flipped, found.norm.mirrored)
            if move is None:
                raise self._error(InvalidValueError, f"move code 0x{code:02x} moves a piece the position does not have",
                                 element.offset or 0, f"{where}.elements[?].body.moves[{number}]")
            if legal_only and not board.is_legal(move):
                continue
            moves.append(KvetkaMove(move, code))
        source = None
        if element.source is not None and self.sources is not None:
            source = self.sources.resolve(element.source, where)
        return ProbeResult(board.copy(stack=False), tuple(moves), element.wins, element.draws, element.losses,
                           element.comment, element.opening, source, element, found.norm.flipped, found.norm.mirrored)

    def find_all(self, position: chess.Board | bytes, *, minimum_weight: int = 1,
                 exclude_moves: Container[chess.Move] = (), legal_only: bool = True) -> Iterator[KvetkaMove]:
        """The moves of a position (board or key) with their weights (see :class:`KvetkaMove`), those of weight
        >= ``minimum_weight``, in stored order."""
        return self._weighed(self.probe(position, legal_only=legal_only), _move_weight, minimum_weight, exclude_moves)

    def __contains__(self, position: object) -> bool:
        if isinstance(position, bytearray):
            position = bytes(position)
        return isinstance(position, (chess.Board, bytes)) and self.probe(position, legal_only=False) is not None

    def located(self, board: chess.Board) -> tuple[int, int, Element] | None:
        """(block, number in the block, element) of ``board``."""
        found = encode(board)
        element = self.find_element(found.key, found.bits)
        if element is None or element.block is None:
            return None
        return element.block, self.block_elements(element.block).index(element), element

    def source_games(self) -> list[KvetkaSource]:
        """Every source of the ``.ksf`` with its games (empty without a ``.ksf``)."""
        self._check_open()
        if self.sources is None:
            return []
        return [self.sources.source(number)[0] for number in range(len(self.sources))]

    def resolve_address(self, address: str, kvetka_folder: str | os.PathLike[str] | None = None) -> str:
        """A source address with ``%currentdir`` expanded to ``kvetka_folder`` (default: the book's folder).

        Nothing is opened. The expanded path must stay inside that folder (``..`` cannot climb out of it):
        :class:`ValueError` otherwise. Addresses without ``%currentdir`` are returned as stored.
        """
        marker = "%currentdir"
        if not address.lower().startswith(marker):
            return address
        folder = os.path.realpath(os.fspath(kvetka_folder) if kvetka_folder is not None
                                  else os.path.dirname(os.path.abspath(self.path)))
        relative = address[len(marker):].replace("\\", "/").lstrip("/")
        resolved = os.path.realpath(os.path.join(folder, *relative.split("/")))
        if os.path.commonpath([folder, resolved]) != folder:
            raise ValueError(f"{address!r} leaves the folder {folder}")
        return resolved

    # -- summaries

    def iter_batches(self, *, batch_size: int = 65_536) -> Iterator[Any]:
        """Every element and its moves as rows of a table (:mod:`.tables`: key, FEN, move, weight, results ...)
        in Arrow record batches; ``to_arrow``, ``to_pandas``, ``to_polars`` give them at once. Needs
        ``chessformats[arrow]``."""
        from .tables import kvetka_batches

        return kvetka_batches(self, batch_size=batch_size)

    def table_schema(self, **options: Any) -> Any:
        """The Arrow schema of :meth:`iter_batches`' rows."""
        from .tables import kvetka_schema

        return kvetka_schema()

    def findings(self) -> list[str]:
        self._check_open()
        notes = list(self.findings_list)
        padded = 0
        junk = 0
        oversize = 0
        for block in range(self.blocks):
            data = self.block_bytes(block)
            junk += any(data[USED.decode(data):])
            for element in self.block_elements(block):
                try:
                    _, padding = decode_key(element.key)
                except ValueError:
                    continue
                padded += padding != 0
                oversize += len(element.to_bytes(self.keeps_games)) > schema.MAX_ELEMENT
        if padded:
            notes.append(f"{padded} keys have non-zero padding bits (read all the same)")
        if junk:
            notes.append(f"{junk} blocks have non-zero bytes after their used part (ignored)")
        if oversize:
            notes.append(f"{oversize} elements are longer than {schema.MAX_ELEMENT} bytes")
        return notes


def _move_weight(move: KvetkaMove, child: ProbeResult | None) -> int:
    return move_weight(child)


def open_book(path: str | os.PathLike[str]) -> KvetkaBook:
    """Open a Kvetka book by its name (``dir/NAME``) or any of its files. Use as a context manager.

    The ``.kob`` files ``NAME_0.kob``, ``NAME_1.kob``, ... are read as one stream; without ``NAME.kin``
    the index is built by reading the first key of every block. Bad input raises
    :class:`~chessformats.FormatError` naming the file, offset and field.
    """
    return KvetkaBook(path)
