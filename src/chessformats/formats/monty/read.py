"""Reading Monty files as chess: the start position, legality and visit distribution of every ply.

>>> from chessformats import monty
>>> for game in monty.read_games("data.montyformat"):           # doctest: +SKIP
...     for ply in game.plies:
...         print(ply.board.fen(), ply.move, ply.score, ply.visits)
>>> with monty.open_games("data.montyvalue") as games:          # doctest: +SKIP
...     print(len(games), games[0].result, games[-1].plies[0].move)

Policy or value: unless ``format=`` is given, the format is found from the bytes (:func:`detect_format`): the
first plies of the file are read both ways and only one reading is legal chess (a value ply is 4 bytes, a
policy ply 5 plus one byte per legal move, whose count must be the position's).
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Iterable, Iterator
from typing import IO, Any, TypeAlias

import chess

from ...engine.contract import ClosedError
from ...engine.errors import FormatError
from ...engine.fileio import regular
from ...engine.tables import Tabular
from .bulk import _structural_error, decode, iter_buffers, walk
from .games import games_of
from .model import (
    FORMATS,
    HEADER_NAMES,
    HEADER_STRUCT,
    PLY_HEAD_STRUCT,
    TERMINATORS,
    VALUE_PLY_STRUCT,
    Game,
    Ply,
    RawGame,
    check_format,
)
from .start import side_score, start_board
from .structure import raw_games

__all__ = ["GameFile", "detect_format", "game_from_raw", "open_games", "plies_from_raw", "read_games", "side_score",
           "start_board", "visit_shares"]

def _raw_bytes(raw: RawGame, format: str) -> bytes:
    """The bytes of a game read as a :class:`RawGame` (its plies up to its structural fault, if any), packed as
    the writer packs them (:mod:`.write`)."""
    parts = [HEADER_STRUCT.pack(*(raw.header[name] for name in HEADER_NAMES))]
    if format == "value":
        parts += [VALUE_PLY_STRUCT.pack(code, raw_score) for _, code, raw_score, _ in raw.plies]
    else:
        parts += [PLY_HEAD_STRUCT.pack(code, raw_score, len(stored)) + stored
                  for _, code, raw_score, stored in raw.plies]
    parts.append(bytes(TERMINATORS[format]))
    return b"".join(parts)


def _decoded_raw(raw: RawGame, file: str | None, format: str) -> tuple[Game | None, FormatError | None]:
    """A raw game read as chess by the bulk reader: the game (its plies up to a fault) and the fault."""
    data = _raw_bytes(raw, format)
    structure = walk(data, format)
    decoded = decode(data, structure, format, file=file, base=raw.offset, first_game=raw.number)
    game = next(games_of(decoded.arrays), None)
    if decoded.error is None and game is not None:  # the plies' offsets: those the raw game read them at
        return game, raw.error
    return game, decoded.error


def game_from_raw(raw: RawGame, file: str | None, format: str) -> Game:
    """The chess reading of a game: start position, legality, move counts, visit alignment."""
    game, error = _decoded_raw(raw, file, format)
    if error is not None:
        raise error
    assert game is not None
    return game


def plies_from_raw(raw: RawGame, board: chess.Board, file: str | None, format: str) -> Iterator[Ply]:
    """The plies of a game (``board``: its start position, unused: the plies carry their own), each checked;
    then the game's first fault, if any."""
    del board
    game, error = _decoded_raw(raw, file, format)
    if game is not None:
        yield from game.plies
    if error is not None:
        raise error


def visit_shares(moves: Iterable[chess.Move], stored: bytes) -> dict[chess.Move, float]:
    """Each move's share of the visits: its byte over the sum of the bytes (all 0 when nothing was visited)."""
    total = sum(stored)
    if not total:
        return dict.fromkeys(moves, 0.0)
    return dict(zip(moves, map(total.__rtruediv__, stored), strict=True))  # byte / total, for every byte


_CHUNK = 1 << 22
"""Bytes of a file read at a time (its games are read as chess together)."""

Source: TypeAlias = "str | os.PathLike[str] | IO[bytes]"
"""A path, or a binary file object."""

_SNIFF_BYTES = 1 << 13
"""Bytes of a file read to find its format (the first plies: a policy ply takes 5 to 260 bytes, a value ply 4)."""
_SNIFF_PLIES = 200
"""Plies checked as chess, at most, to find a file's format."""


def _open(source: Source) -> tuple[IO[bytes], str | None, bool]:
    if isinstance(source, (str, os.PathLike)):
        return open(regular(source, "a Monty file", pipes=True), "rb"), os.fspath(source), True  # closed by the caller
    name = getattr(source, "name", None)
    return source, name if isinstance(name, str) else None, False


class _Prefixed(io.RawIOBase):
    """A stream that cannot seek, its first bytes (read to find the format) given back before the rest."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        super().__init__()
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            data, self._head = self._head + self._rest.read(), b""
            return data
        if self._head:
            data, self._head = self._head[:size], self._head[size:]
            return data
        return self._rest.read(size)


def _read_head(handle: IO[bytes], size: int) -> bytes:
    parts, left = [], size
    while left > 0:
        chunk = handle.read(left)
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _peek(handle: IO[bytes]) -> tuple[bytes, bool, IO[bytes]]:
    """(the first bytes of ``handle``, whether they are all of it, a stream that still gives them): a seekable
    handle is sought back to where it was; another is wrapped to give the bytes read back first."""
    seekable = handle.seekable() if hasattr(handle, "seekable") else False
    where = handle.tell() if seekable else 0
    head = _read_head(handle, _SNIFF_BYTES + 1)
    whole = len(head) <= _SNIFF_BYTES
    if seekable:
        handle.seek(where)
        return head[:_SNIFF_BYTES], whole, handle
    return head[:_SNIFF_BYTES], whole, _Prefixed(head, handle)  # type: ignore[return-value]


def _reading(head: bytes, whole: bool, file: str | None, format: str, offset: int) -> FormatError | None:
    """The first fault of reading ``head`` in ``format`` (its structure, and its plies as chess), or ``None``.
    ``whole``: ``head`` is all of the file (else a game cut off at its end is no fault)."""
    try:
        structure = walk(head, format)
        decoded = decode(head, structure, format, file=file, base=offset)
        if decoded.error is not None:
            return decoded.error
        if whole and not structure.complete:
            return _structural_error(head, structure.end, format, file, offset, len(structure.games))
    except FormatError as error:
        return error
    return None


def _sniff(head: bytes, whole: bool, file: str | None, offset: int = 0) -> str:
    """The format the bytes ``head`` read in (see :func:`detect_format`)."""
    faults = {format: _reading(head, whole, file, format, offset) for format in FORMATS}
    readable = [format for format, fault in faults.items() if fault is None]
    if len(readable) == 1:
        return readable[0]
    named = os.path.splitext((file or "").lower())[1]
    hinted = {".montyvalue": "value", ".montyformat": "policy"}.get(named)
    if hinted is not None:  # both readings hold (no plies: an empty file), or neither (a damaged file)
        return hinted
    if readable:
        return "policy"
    found = [fault for fault in faults.values() if fault is not None]
    raise max(found, key=lambda fault: fault.offset or 0)  # the reading that went further


def detect_format(source: Source) -> str:
    """``"policy"`` or ``"value"``, from the content: the first bytes of the file (8 KiB) are read both ways and
    the one whose first plies are legal chess (move codes, and in the policy format legal-move counts) is the
    format. Only when both readings hold (no plies: an empty file) or neither does (a damaged file, whose
    reading then reports the fault) does the name decide (``.montyvalue``, ``.montyformat``); without such a
    name, policy when both hold, else the :class:`FormatError` of the reading that went further.

    ``source``: a path or a binary file object; a file object that can seek is left where it was (one that
    cannot loses the bytes read: give :func:`read_games` ``format=None`` instead, which keeps them).
    """
    handle, file, owned = _open(source)
    try:
        offset = handle.tell() if handle.seekable() else 0
        head, whole, _ = _peek(handle)
        return _sniff(head, whole, file, offset)
    finally:
        if owned:
            handle.close()


def _format_argument(function: str, positional: tuple[str, ...], format: str | None) -> str | None:
    """``format`` given by keyword, or (deprecated) by position."""
    if not positional:
        return format
    if len(positional) > 1 or format is not None:
        raise TypeError(f"{function}() takes one format, by keyword: format=")
    warnings.warn(f"{function}(source, format) is deprecated: pass format= by keyword", DeprecationWarning,
                  stacklevel=3)
    return positional[0]


def read_games(source: Source, *positional: str, format: str | None = None) -> Iterator[Game]:
    """The games of a Monty file, one at a time (the file is read in chunks, never loaded whole).

    ``source`` is a path or a binary file object (read from where it is, to its end); ``format`` is
    ``"policy"`` (montyformat), ``"value"`` (montyvalue) or ``None``: found from the bytes
    (:func:`detect_format`; a stream is peeked at, nothing is lost). Every ply gives the position before the
    move, the move, the score in [0, 1] for the side to move (and as stored) and, in the policy format, the
    visit distribution: each legal move's share of the visits, aligning the stored bytes with the legal moves
    sorted by their u16 codes. (``format`` given by position is deprecated.)

    Raises :class:`~chessformats.FormatError` (with file, offset and field path such as
    ``games[3].plies[12].num_moves``) for a truncated file, an undefined value, an illegal move or a
    stored legal-move count that is not the position's. :func:`open_games` gives the games by number too.
    """
    format = _format_argument("read_games", positional, format)
    if format is not None:
        check_format(format)
    handle, file, owned = _open(source)
    try:
        if format is None:
            head, whole, handle = _peek(handle)
            format = _sniff(head, whole, file)
        for arrays in iter_buffers(handle, format, file=file, chunk=_CHUNK):
            yield from games_of(arrays)
    finally:
        if owned:
            handle.close()


class _Cursor:
    """Reads a shared file from its own position (each read seeks first): games read by number and by
    iteration at once do not disturb each other."""

    def __init__(self, owner: GameFile, position: int) -> None:
        self.owner, self.position = owner, position

    def read(self, size: int = -1) -> bytes:
        handle = self.owner._live()
        handle.seek(self.position)
        data = handle.read(size)
        self.position += len(data)
        return data


class GameFile(Tabular):
    """A Monty file open for reading: a :class:`~chessformats.engine.contract.GameCollection` of its games.

    ``for game in games``: every game, in file order; ``len(games)``: how many the file holds (counted by
    walking the games' records once, without reading them as chess); ``games[n]``: game ``n``, numbered from 0
    as :attr:`Game.number` (negative ``n`` from the end), read on its own. A context manager: :meth:`close`
    (or the end of the ``with`` block) closes a file it opened, and the object refuses use afterwards
    (:class:`~chessformats.engine.contract.ClosedError`). Open it with :func:`open_games`.
    """

    def __init__(self, source: Source, *, format: str | None = None) -> None:
        if format is not None:
            check_format(format)
        handle, file, owned = _open(source)
        self.path = file or "<stream>"
        self._file = file
        self._handle: IO[bytes] | None = handle
        self._owned = owned
        self._offsets: list[int] | None = None
        try:
            if not handle.seekable():
                raise ValueError(f"{self.path}: open_games needs a file that can seek (read_games reads a stream)")
            self._start = handle.tell()
            if format is None:
                head, whole, _ = _peek(handle)
                format = _sniff(head, whole, file, self._start)
        except BaseException:
            self.close()
            raise
        self.format: str = format
        """``"policy"`` or ``"value"``."""

    def _live(self) -> IO[bytes]:
        if self._handle is None:
            raise ClosedError(f"{self.path}: the Monty file is closed")
        return self._handle

    def _raw(self, offset: int, number: int = 0) -> Iterator[RawGame]:
        self._live()
        return raw_games(_Cursor(self, offset), self._file, self.format, offset=offset,  # type: ignore[arg-type]
                         number=number)

    def _index(self) -> list[int]:
        """The offset of every game (a structural fault in the file is raised)."""
        if self._offsets is None:
            offsets = []
            for raw in self._raw(self._start):
                if raw.error is not None:
                    raise raw.error
                offsets.append(raw.offset)
            self._offsets = offsets
        self._live()
        return self._offsets

    def __iter__(self) -> Iterator[Game]:
        self._live()
        cursor = _Cursor(self, self._start)
        for arrays in iter_buffers(cursor, self.format, file=self._file, base=self._start,  # type: ignore[arg-type]
                                   chunk=_CHUNK):
            yield from games_of(arrays)

    def __len__(self) -> int:
        return len(self._index())

    def iter_batches(self, *, batch_size: int = 65_536) -> Iterator[Any]:
        """Every ply as rows of a table (:mod:`.tables`: game, ply, FEN, move, score, visits ...) in Arrow record
        batches; ``to_arrow``, ``to_pandas``, ``to_polars`` give them at once. Needs ``chessformats[arrow]``."""
        from .tables import ply_batches

        return ply_batches(self, batch_size=batch_size)

    def table_schema(self, **options: Any) -> Any:
        """The Arrow schema of :meth:`iter_batches`' rows."""
        from .tables import monty_schema

        return monty_schema()

    def __getitem__(self, number: int) -> Game:
        if isinstance(number, bool) or not isinstance(number, int):
            raise TypeError(f"games are numbered by int, not {type(number).__name__}")
        offsets = self._index()
        index = number + len(offsets) if number < 0 else number
        if not 0 <= index < len(offsets):
            raise IndexError(f"{self.path}: no game {number} (the file has {len(offsets)}, numbered from 0)")
        raw = next(self._raw(offsets[index], index))
        return game_from_raw(raw, self._file, self.format)

    def __enter__(self) -> GameFile:
        self._live()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file if :func:`open_games` opened it (a file object given stays open); harmless twice."""
        handle, self._handle = self._handle, None
        if handle is not None and self._owned:
            handle.close()

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else self.format
        return f"<GameFile {self.path!r} ({state})>"


def open_games(source: Source, *, format: str | None = None) -> GameFile:
    """Open a Monty file (a path, or a binary file object that can seek, read from where it is) as a
    :class:`GameFile`: its games by iteration and by number (from 0), ``len``; ``format`` as in
    :func:`read_games` (``None``: found from the bytes)."""
    return GameFile(source, format=format)
