"""Reading CTG books: :class:`CtgBook` (the ``.ctg`` mapped read-only, its ``.cto``/``.ctb`` index), probing.

The fast paths below (page scan, record reading) are derived from the declarations in
:mod:`chessformats.schemas.ctg`; the tests compare them with construct's own parse of every record of the
corpus.
"""

from __future__ import annotations

import itertools
import os
import struct
import warnings
from collections.abc import Container, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import chess

from ...engine.codec import codec
from ...engine.contract import BookMethods
from ...engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from ...engine.fileio import MappedFile, regular
from ...engine.records import locate_item
from ...engine.tables import Tabular
from ...schemas import ctg as schema
from ..normalised import white_pieces
from .model import (
    MOVE_SIZE,
    MOVES_LENGTH,
    MOVES_LENGTH_SIZE,
    PAGE_HEADER,
    PAGE_HEADER_SIZE,
    PAGE_SIZE,
    RECOMMENDATION_OF,
    STATS,
    STATS_SIZE,
    BookMove,
    PositionRecord,
    Rating,
    polyglot_weight,
)
from .position import (
    LENGTH_INDEX,
    LENGTH_OF,
    MIN_POSITION,
    MOVES,
    ctg_hash,
    encode,
    highest_entry_read,
    lookup_entries,
    normalised_board,
)

__all__ = ["CtgBook", "MissingIndexWarning", "header_numbers", "open_book"]

_FILE = "a file of a CTG book"
_PAGE_USED = int(PAGE_HEADER.field("used").offset or 0)
_MOVES_LENGTH_AT = struct.Struct(MOVES_LENGTH.struct_format).unpack_from
"""The moves block's length field, read in C (the page walk reads one per record; bounds checked before)."""
_RECORD = codec(schema.RECORD, enums="numbers", records="tuples")
"""A whole record through the generated codec: the position's header and board (squares by name, en-passant file,
castling flags), the moves as (code, annotation) numbers, the statistics."""
_MOVES = codec(schema.MOVES, enums="numbers", records="tuples")
"""The moves block alone: a probe has the board already (it is the key just found)."""


def _move_at(at: int, index: int) -> int:
    """The offset of move ``index`` of the moves block at ``at`` (for errors)."""
    return at + MOVES_LENGTH_SIZE + MOVE_SIZE * index


_HEADER_PAGE = codec(schema.HEADER_PAGE)
_HEADER_NUMBERS = {name: _HEADER_PAGE.field(name) for name in ("data_pages", "positions", "games")}
_HEADER_NUMBERS_END = max(int(f.offset or 0) + int(f.size or 0) for f in _HEADER_NUMBERS.values())
_CTB = codec(schema.CTB_HEAD)
_CTB_SIZE = int(_CTB.size or 0)
_CTB_BOUNDS = _CTB.picker("lower_bound", "upper_bound")
_HEADER_PICK = _HEADER_PAGE.picker(*_HEADER_NUMBERS)
_CTO_HEADER = codec(schema.CTO_HEADER)
_CTO_HEADER_SIZE = int(_CTO_HEADER.size or 0)
_CTO_ENTRIES = _CTO_HEADER.field("entries")
_CTO_ENTRY = codec(schema.CTO_ENTRY)
_CTO_ENTRY_SIZE = int(_CTO_ENTRY.size or 0)
_CTO_ORDER, _CTO_CODE = _CTO_ENTRY.struct_format[0], _CTO_ENTRY.struct_format[1:]
"""The byte order and struct code of a directory entry, for reading the whole table in one call."""


def header_numbers(head: bytes) -> dict[str, int] | None:
    """The counts of the header page (``data_pages``, ``positions``, ``games``) from the first bytes of a
    ``.ctg``; ``None`` when ``head`` is too short to hold them."""
    if len(head) < _HEADER_NUMBERS_END:
        return None
    return dict(zip(_HEADER_NUMBERS, _HEADER_PICK(head), strict=True))


class MissingIndexWarning(UserWarning):
    """The ``.cto``/``.ctb`` files are not beside the ``.ctg`` (or one of them is not), or provably do not
    describe it (another book's, or damaged: :attr:`CtgBook.index_problem`): probes scan every page."""


class _Page(NamedTuple):
    offsets: list[int]
    by_signature: dict[bytes, int]


class CtgBook(BookMethods[BookMove], Tabular, MappedFile):
    """A CTG book (``.ctg`` plus ``.cto``/``.ctb`` when present), mapped read-only. Use :func:`open_book`.

    It keeps the contract of every book (:class:`chessformats.contract.OpeningBook`): ``probe`` (a board or the
    book's key, :meth:`key`), iteration, ``len`` and ``[i]`` over the stored records page by page, python-chess's
    ``find_all``/``find``/``get``/``choice``/``weighted_choice`` with each move's Polyglot weight
    (:func:`~chessformats.ctg.polyglot_weight`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        stem, extension = os.path.splitext(self.path)
        if extension.lower() in (".cto", ".ctb"):
            self.path = _sibling(stem, ".ctg") or stem + ".ctg"
        elif extension.lower() != ".ctg" and not os.path.isfile(self.path):  # the book's name, as for Kvetka
            self.path = _sibling(self.path, ".ctg") or self.path
        stem = os.path.splitext(self.path)[0]
        data = self._map(self.path, _FILE)
        size = len(data)
        if size < PAGE_SIZE or size % PAGE_SIZE:
            pages, rest = divmod(size, PAGE_SIZE)
            self.close()
            raise TruncatedError(f"truncated page {pages - 1}" if pages else "truncated header page",
                                 needed=PAGE_SIZE, available=rest if pages else size, file=self.path,
                                 offset=pages * PAGE_SIZE, show_path=False)
        self.data_pages = size // PAGE_SIZE - 1
        self._header = header_numbers(data[:_HEADER_NUMBERS_END]) or {}
        self.header_games = self._header["games"]
        self._pages: dict[int, _Page] = {}
        self._starts: list[int] | None = None
        self._everything: dict[bytes, tuple[int, int]] | None = None
        self.cto_path = _sibling(stem, ".cto")
        self.ctb_path = _sibling(stem, ".ctb")
        self.directory: list[int] | None = None
        """The ``.cto`` table as read (``None``: no ``.cto``/``.ctb``)."""
        self.lower_bound = self.upper_bound = 0
        self.index_problem: str | None = None
        """Why the ``.cto``/``.ctb`` beside the book provably do not describe it (``None``: no such proof):
        probes then scan every page, as without them."""
        if self.cto_path is None or self.ctb_path is None:
            warnings.warn(f"{os.path.basename(self.path)}: {self._missing_index()}: probes scan every page",
                          MissingIndexWarning, stacklevel=3)
            return
        try:
            self._read_index(self.cto_path, self.ctb_path)
        except BaseException:
            self.close()
            raise
        self.index_problem = self._stale_index()
        if self.index_problem is not None:
            warnings.warn(f"{os.path.basename(self.path)}: {self.index_problem}: probes scan every page",
                          MissingIndexWarning, stacklevel=3)

    def _missing_index(self) -> str:
        """Which of the ``.cto``/``.ctb`` is not beside the book (one alone is not used)."""
        if self.cto_path is None and self.ctb_path is None:
            return "no .cto/.ctb beside the .ctg"
        missing, there = (".cto", ".ctb") if self.cto_path is None else (".ctb", ".cto")
        return f"no {missing} beside the .ctg (its {there} is not used without it)"

    def _stale_index(self) -> str | None:
        """The proof, if the index files have one at hand, that they were not made for this ``.ctg`` (another
        book's, or damaged): a ``.cto`` entry naming a data page the ``.ctg`` does not have, or ``.ctb`` bounds
        under which the lookup reads no entry that names a page. Checked at open: the table only, no page."""
        directory = self.directory
        assert directory is not None and self.cto_path is not None
        highest = max(directory, default=-1)
        if highest >= self.data_pages:
            entry = directory.index(highest)
            return (f"{os.path.basename(self.cto_path)} entry {entry} names data page {highest}, the .ctg has "
                    f"{self.data_pages} (the .cto/.ctb are another book's, or damaged)")
        reach = highest_entry_read(self.lower_bound, self.upper_bound)
        if self.data_pages and max(directory[self.lower_bound:reach + 1], default=-1) < 0:
            return (f"the lookup reads .cto entries {self.lower_bound}..{reach} (.ctb bounds), none of which names "
                    "a page (the .cto/.ctb are another book's, or damaged)")
        return None

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.data_pages} data pages"
        return f"<{type(self).__name__} {self.path!r} ({state})>"

    def _read_index(self, cto_path: str, ctb_path: str) -> None:
        with open(regular(ctb_path, _FILE), "rb") as handle:
            ctb = handle.read(_CTB_SIZE)
        if len(ctb) < _CTB_SIZE:
            raise TruncatedError("truncated .ctb header", needed=_CTB_SIZE, available=len(ctb), file=ctb_path,
                                 offset=0, show_path=False)
        self.lower_bound, self.upper_bound = _CTB_BOUNDS(ctb)
        with open(regular(cto_path, _FILE), "rb") as handle:
            cto = handle.read()
        if len(cto) < _CTO_HEADER_SIZE:
            raise TruncatedError("truncated .cto header", needed=_CTO_HEADER_SIZE, available=len(cto), file=cto_path,
                                 offset=0, show_path=False)
        entries = int(_CTO_ENTRIES.get(cto))
        room = (len(cto) - _CTO_HEADER_SIZE) // _CTO_ENTRY_SIZE
        if entries > room:  # checked before anything is allocated from the count
            raise TruncatedError(f"the .cto header says {entries} entries, the file holds {room}",
                                 file=cto_path, offset=_CTO_ENTRIES.offset, path="header.entries", show_path=False)
        self.directory = list(struct.unpack_from(f"{_CTO_ORDER}{entries}{_CTO_CODE}", cto, _CTO_HEADER_SIZE))

    # -- pages

    def _page(self, page: int) -> _Page:
        """The records of a data page (their offsets, and offset by encoded position), validated."""
        cached = self._pages.get(page)
        if cached is not None:
            return cached
        if not 0 <= page < self.data_pages:
            raise InvalidValueError("page number out of range", expected=f"0..{self.data_pages - 1}",
                                    actual=page, file=self.path, path=f"pages[{page}]")
        data = self._data
        base = PAGE_SIZE * (page + 1)
        count, used = PAGE_HEADER.unpack(data, base, self.path)
        where = f"pages[{page}]"
        if not PAGE_HEADER_SIZE <= used <= PAGE_SIZE:
            raise InvalidValueError("bytes used out of range", expected=f"{PAGE_HEADER_SIZE}..{PAGE_SIZE}",
                                    actual=used, file=self.path, offset=base + _PAGE_USED, path=f"{where}.header.used")
        position = base + PAGE_HEADER_SIZE
        end = base + used
        offsets = []
        by_signature: dict[bytes, int] = {}
        for number in range(count):
            if position >= end:
                raise TruncatedError(f"{where}.records[{number}]: the page header says {count} records in {used} "
                                     f"bytes, record {number} starts at byte {position - base}", file=self.path,
                                     offset=position,
                                     path=f"{where}.header.positions", show_path=False)
            length = LENGTH_OF[data[position]]
            if length < MIN_POSITION:
                raise InvalidValueError("encoded position too short to hold 64 squares", expected=f">= {MIN_POSITION}",
                                        actual=length, file=self.path, offset=position,
                                        path=f"{where}.records[{number}].position.header.length")
            if position + length >= end:
                raise TruncatedError(f"truncated {where}.records[{number}].position", needed=length + 1,
                                     available=end - position, file=self.path, offset=position, show_path=False)
            moves, = _MOVES_LENGTH_AT(data, position + length)
            if not moves % 2:
                raise InvalidValueError("moves block length is even", expected="2 * moves + 1", actual=moves,
                                        file=self.path, offset=position + length,
                                        path=f"{where}.records[{number}].moves.length")
            size = length + moves + STATS_SIZE
            if position + size > end:
                raise TruncatedError(f"truncated {where}.records[{number}]", needed=size, available=end - position,
                                     file=self.path, offset=position, show_path=False)
            offsets.append(position)
            by_signature.setdefault(bytes(data[position:position + length]), position)
            position += size
        if position != end:
            raise InvalidValueError(f"the {count} records end at byte {position - base}", expected=position - base,
                                    actual=used, file=self.path, offset=base + _PAGE_USED, path=f"{where}.header.used")
        result = _Page(offsets, by_signature)
        self._pages[page] = result
        return result

    def page_records(self, page: int) -> list[PositionRecord]:
        """The records of data page ``page`` (normalised boards), validated."""
        self._check_open()
        return [self._decode_record(page, number, offset) for number, offset in enumerate(self._page(page).offsets)]

    def records(self) -> Iterator[PositionRecord]:
        """Every stored position, page by page: the normalised board (white to move) and its record."""
        for page in range(self.data_pages):
            self._check_open()  # per page: a book closed while iterated raises, not a damaged page
            yield from self.page_records(page)

    __iter__ = records

    def signatures(self) -> Iterator[bytes]:
        """The encoded position (:meth:`key`) of every stored record, page by page, without decoding a record
        (a position stored twice is given once)."""
        for page in range(self.data_pages):
            self._check_open()
            yield from self._page(page).by_signature

    def _record_starts(self) -> list[int]:
        """The number of the first record of each page, and the total last: read from the page headers only."""
        if self._starts is None:
            data = self._data
            counts = (PAGE_HEADER.unpack(data, PAGE_SIZE * (page + 1), self.path)[0] for page in range(self.data_pages))
            self._starts = [0, *itertools.accumulate(counts)]
        return self._starts

    def __len__(self) -> int:
        """The records the page headers announce (no record is decoded)."""
        self._check_open()
        return self._record_starts()[-1]

    def __getitem__(self, index: int) -> PositionRecord:
        """Record ``index`` in stored order (as iteration gives them), decoding its page only."""
        self._check_open()
        page, number = locate_item(self._record_starts(), index, file=self.path, label="record")
        offsets = self._page(page).offsets
        if number >= len(offsets):  # the header's count and the page disagree: _page raised already otherwise
            raise IndexError(index)  # pragma: no cover
        return self._decode_record(page, number, offsets[number])

    # -- lookup

    def _locate(self, encoded: bytes) -> tuple[int, int] | None:
        """(page, offset) of the record of an encoded position, through the .cto lookup (or all pages: no
        lookup, or one that does not describe the book)."""
        if self.directory is None or self.index_problem is not None:
            if self._everything is None:
                self._everything = {}
                for page in range(self.data_pages):
                    for key, start in self._page(page).by_signature.items():
                        self._everything.setdefault(key, (page, start))
            return self._everything.get(encoded)
        for page in self.lookup_pages(ctg_hash(encoded)):
            offset = self._page(page).by_signature.get(encoded)
            if offset is not None:
                return page, offset
        return None

    def lookup_pages(self, hash_value: int) -> Iterator[int]:
        """The data pages the ``.cto`` lookup names for a position's hash, in lookup order (entries past the
        table's end, and negative ones, are empty: see the docs); a page number out of range is an
        :class:`InvalidValueError` when the walk reaches it (probes do not walk such a table: they scan the pages,
        see :attr:`index_problem`).
        A book opened without its ``.cto`` has no lookup: an :class:`UnsupportedError`."""
        directory = self.directory
        if directory is None:
            raise UnsupportedError("the book has no .cto lookup table: its records are found by scanning the pages",
                                   file=self.path)
        size = len(directory)
        for entry in lookup_entries(hash_value, self.lower_bound, self.upper_bound):
            page = directory[entry] if entry < size else -1
            if page < 0:
                continue
            if page >= self.data_pages:
                raise InvalidValueError("page number out of range", expected=f"0..{self.data_pages - 1}",
                                        actual=page, file=self.cto_path,
                                        offset=_CTO_HEADER_SIZE + _CTO_ENTRY_SIZE * entry, path=f"pages[{entry}]")
            yield page

    def key(self, board: chess.Board) -> bytes:
        """The book's key of a board: the encoding of its normalised position (what the records start with)."""
        return encode(board)[0]

    def probe(self, position: chess.Board | bytes, *, legal_only: bool = True) -> PositionRecord | None:
        """The record of a position (``None``: not in book): a board, its moves as moves of that board; or the
        book's key of it (:meth:`key`), its moves as moves of the stored (normalised) board.

        With ``legal_only``, moves that are not legal in the board are left out.
        """
        self._check_open()
        if isinstance(position, (bytes, bytearray)):
            return self._probe_key(bytes(position), legal_only)
        if not isinstance(position, chess.Board):
            raise TypeError(f"a CTG book is probed with a chess.Board or its key (bytes: book.key(board)), not "
                            f"{type(position).__name__}")
        board = position
        encoded, norm = encode(board)
        found = self._locate(encoded)
        if found is None:
            return None
        page, offset = found
        at = offset + len(encoded)
        try:  # the stored board is the key just found: not decoded again
            (_, codes), stats_at = _MOVES.read(self._data, at)
            stats = STATS.decode(self._data, stats_at, self.path)
        except FormatError as error:
            raise error.located(file=self.path, path_prefix=f"pages[{page}].records[?]") from None
        moves = self._moves(page, None, at, codes, norm.own, norm.flipped, norm.mirrored)
        if legal_only:
            moves = [move for move in moves if board.is_legal(move.move)]
        return _record(board.copy(stack=False), tuple(moves), stats, encoded, 0, page, None, offset, norm.flipped,
                       norm.mirrored)

    def _probe_key(self, encoded: bytes, legal_only: bool) -> PositionRecord | None:
        found = self._locate(encoded) if len(encoded) >= MIN_POSITION else None
        if found is None:
            return None
        page, offset = found
        record = self._decode_record(page, self._page(page).offsets.index(offset), offset)
        if legal_only:
            record = record._replace(moves=tuple(move for move in record.moves if record.board.is_legal(move.move)))
        return record

    def find_all(self, position: chess.Board | bytes, *, minimum_weight: int = 1,
                 exclude_moves: Container[chess.Move] = (), legal_only: bool = True) -> Iterator[BookMove]:
        """The moves of a position (board or key) with their Polyglot weights (:func:`polyglot_weight`: the
        position each move leads to is looked up), those of weight >= ``minimum_weight``, in stored order."""
        return self._weighed(self.probe(position, legal_only=legal_only), _move_weight, minimum_weight, exclude_moves)

    def _moves(self, page: int, number: int | None, at: int, codes: Sequence[tuple[int, int]], own: Sequence[int],
               flipped: bool = False, mirrored: bool = False) -> list[BookMove]:
        """The moves block at ``at`` of record ``number`` (``None``: not counted) of a page, as decoded (``codes``:
        (code, annotation) pairs), every code checked: the moves on the board whose pieces ``own``, ``flipped``
        and ``mirrored`` give (see :meth:`~chessformats.formats.normalised.MoveTable.decode`)."""
        moves = []
        move = MOVES.move
        for index, (code, annotation) in enumerate(codes):
            if code not in MOVES:
                raise _bad_code(self.path, page, number, _move_at(at, index), index, code)
            found = move(code, own, flipped, mirrored)
            if found is None:
                raise _missing_piece(self.path, page, number, _move_at(at, index), index, code)
            moves.append(BookMove(found, code, annotation))
        return moves

    def __contains__(self, position: object) -> bool:
        self._check_open()
        if isinstance(position, (bytes, bytearray)):
            return len(position) >= MIN_POSITION and self._locate(bytes(position)) is not None
        return isinstance(position, chess.Board) and self._locate(encode(position)[0]) is not None

    def _decode_record(self, page: int, number: int, offset: int) -> PositionRecord:
        """A record, fully decoded and checked: the normalised board, the moves on it, the statistics."""
        where = f"pages[{page}].records[{number}]"
        try:
            ((header, (squares, padding, ep_file, castling)), (_, codes), stats), _ = _RECORD.read(self._data, offset)
        except TruncatedError as error:  # the page walk saw the record fit: its squares run past the position
            raise InvalidValueError(f"the squares do not fit in the position's length: {error.reason}",
                                    file=self.path, offset=offset, path=f"{where}.position.header.length") from None
        except FormatError as error:
            raise error.located(file=self.path, path_prefix=where) from None
        board = normalised_board(header, squares, ep_file, castling, self.path, offset, where)
        length = header[LENGTH_INDEX]
        moves = self._moves(page, number, offset + length, codes, white_pieces(board))
        return _record(board, tuple(moves), stats, bytes(self._data[offset:offset + length]), padding, page, number,
                       offset, False, False)

    # -- summaries

    def iter_batches(self, *, batch_size: int = 65_536) -> Iterator[Any]:
        """Every stored position and its moves as rows of a table (:mod:`.tables`: key, FEN, move, weight,
        statistics ...) in Arrow record batches; ``to_arrow``, ``to_pandas``, ``to_polars`` give them at once.
        Needs ``chessformats[arrow]``."""
        from .tables import ctg_batches

        return ctg_batches(self, batch_size=batch_size)

    def table_schema(self, **options: Any) -> Any:
        """The Arrow schema of :meth:`iter_batches`' rows."""
        from .tables import ctg_schema

        return ctg_schema()

    def findings(self) -> list[str]:
        """What a user should know about the book (a missing index, or one that is not the book's: see
        :attr:`index_problem`, and pages whose first record the lookup does not lead to; header counts, junk,
        the lookup's reach)."""
        self._check_open()
        notes = []
        if self.directory is None:
            notes.append(f"{self._missing_index()}: probes scan every page")
        elif self.index_problem is not None:
            notes.append(f"{self.index_problem}: probes scan every page")
        if self._header["data_pages"] != self.data_pages:
            notes.append(f"the header says {self._header['data_pages']} data pages, the file has {self.data_pages}")
        records = len(self)
        if self._header["positions"] != records:
            notes.append(f"the header's position count is {self._header['positions']}, the pages hold {records} "
                         "records")
        junk = sum(1 for page in range(self.data_pages) if any(self._junk(page)))
        if junk:
            notes.append(f"{junk} pages have non-zero bytes after their used part (ignored, kept)")
        if self.directory is not None:
            reach = highest_entry_read(self.lower_bound, self.upper_bound)
            if reach >= len(self.directory):
                notes.append(f"the lookup reads .cto entries up to {reach}, the table has {len(self.directory)} "
                             "(entries past the end count as empty)")
            if self.index_problem is None:
                notes.extend(self._unreachable())
        return notes

    def _unreachable(self) -> list[str]:
        """The data pages whose first record the ``.cto`` lookup does not lead to (a ``.cto``/``.ctb`` made for
        another book of as many pages, or damaged): one hash and lookup walk per page."""
        data = self._data
        missed = []
        for page in range(self.data_pages):
            base = PAGE_SIZE * (page + 1)
            count, used = PAGE_HEADER.unpack(data, base, self.path)
            start = base + PAGE_HEADER_SIZE
            end = start + LENGTH_OF[data[start]]
            if not count or end > base + min(used, PAGE_SIZE) or end - start < MIN_POSITION:
                continue  # no record, or a damaged one: reading the page says so, not this check
            if page not in self.lookup_pages(ctg_hash(bytes(data[start:end]))):
                missed.append(page)
        if not missed:
            return []
        return [f"the .cto lookup does not lead to the first record of {len(missed)} of the {self.data_pages} data "
                f"pages (page {missed[0]} first): the .cto/.ctb do not describe this .ctg; probes through them "
                "miss positions"]

    def _junk(self, page: int) -> bytes:
        base = PAGE_SIZE * (page + 1)
        _, used = PAGE_HEADER.unpack(self._data, base, self.path)
        return bytes(self._data[base + used:base + PAGE_SIZE])

    def record_offset(self, encoded: bytes, pages: Iterable[int] | None = None) -> int | None:
        """The file offset of the record of an ``encoded`` position, or ``None``: looked up in ``pages`` when
        given (a bulk reader that hashed many positions at once; not when the lookup does not describe the book:
        :attr:`index_problem`), else as a probe finds it."""
        self._check_open()
        if pages is None or self.index_problem is not None:
            found = self._locate(encoded)
            return None if found is None else found[1]
        for page in pages:
            offset = self._page(page).by_signature.get(encoded)
            if offset is not None:
                return offset
        return None

    def located(self, board: chess.Board) -> tuple[int, int, int] | None:
        """(page, number on the page, offset) of the record of ``board``, or ``None``."""
        self._check_open()
        found = self._locate(encode(board)[0])
        if found is None:
            return None
        page, offset = found
        return page, self._page(page).offsets.index(offset), offset


def _record(board: chess.Board, moves: tuple[BookMove, ...], stats: tuple[Any, ...], encoded: bytes, padding: int,
            page: int | None, number: int | None, offset: int, flipped: bool, mirrored: bool) -> PositionRecord:
    """The record of a decoded statistics block (``stats``: :data:`STATS`' value, its fields in order)."""
    games, wins, losses, draws, unknown1, rating1, rating2, recommendation, unknown2, comment = stats
    return PositionRecord(board, moves, games, wins, draws, losses, unknown1, Rating(*rating1), Rating(*rating2),
                          RECOMMENDATION_OF[tuple(recommendation)], unknown2, int(comment), encoded, padding, page,
                          number, offset, flipped, mirrored)


def _move_weight(move: BookMove, child: PositionRecord | None) -> int:
    return polyglot_weight(child, move.annotation)


def open_book(path: str | os.PathLike[str]) -> CtgBook:
    """Open a CTG book: the ``.ctg``, any of its files, or its name (``dir/NAME`` for ``dir/NAME.ctg``); its
    ``.cto``/``.ctb`` are found beside it. Use as a context manager.

    Without ``.cto``/``.ctb`` the book still works: probes scan the pages (a :class:`MissingIndexWarning`
    says so once). So do they when the ``.cto``/``.ctb`` provably belong to another book (a ``.cto`` entry names
    a data page the ``.ctg`` does not have, or the ``.ctb``'s bounds let the lookup read no page): the warning
    and :meth:`CtgBook.findings` give the proof. Bad input raises :class:`~chessformats.FormatError` naming the
    page, offset and field.
    """
    return CtgBook(path)


def _bad_code(path: str, page: int, number: int | None, at: int, move: int, code: int) -> FormatError:
    where = f"pages[{page}].records[{number if number is not None else '?'}]"
    return InvalidValueError("not a move code", expected="one of the 166 move codes of the table",
                             actual=f"0x{code:02x}", file=path, offset=at, path=f"{where}.moves.moves[{move}].code")


def _missing_piece(path: str, page: int, number: int | None, at: int, move: int, code: int) -> FormatError:
    piece_type, count, _, _ = MOVES.steps[code]
    where = f"pages[{page}].records[{number if number is not None else '?'}]"
    return InvalidValueError(f"move code 0x{code:02x} moves piece {count} of kind {chess.piece_name(piece_type)}, "
                             "which the position does not have", file=path, offset=at,
                             path=f"{where}.moves.moves[{move}].code")


def _sibling(stem: str, extension: str) -> str | None:
    """``stem + extension`` in either case, if such a file exists."""
    for candidate in (stem + extension, stem + extension.upper()):
        if os.path.exists(candidate):
            return candidate
    return None


