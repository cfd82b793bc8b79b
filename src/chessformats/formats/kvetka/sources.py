"""The ``.ksf`` file of a Kvetka book: the sources of its games (PGN files, web pages, ChessBase bases), read
lazily (:class:`KsfFile`) and written (:func:`ksf_bytes`). A source is described, never opened."""

from __future__ import annotations

import operator
import os
import struct
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import construct as cs

from ...engine.codec import codec
from ...engine.derived import derivation
from ...engine.errors import FormatError, InvalidValueError, TruncatedError
from ...engine.fileio import MappedFile
from ...engine.schema import member
from ...schemas import kvetka as schema

__all__ = ["KsfFile", "KvetkaGame", "KvetkaSource", "SourceGame", "ksf_bytes", "toc_count", "toc_size"]

_COUNT = codec(schema.TOC_COUNT)
"""The table of contents' count of sources (``TOC_COUNT``)."""
_COUNT_SIZE = int(_COUNT.size or 0)
_ADDRESS = codec(schema.TOC_ADDRESS)
"""One source's address in the table of contents (``TOC_ADDRESS``): its size and (``struct_format``) layout."""
_ADDRESS_SIZE = int(_ADDRESS.size or 0)
_PADDING = member(schema.TOC, "unused").length
"""The table of contents' padding (up to a multiple of ``KSF_TOC_UNIT``) as the declaration computes it."""
SOURCE = codec(schema.SOURCE_HEAD, enums="numbers", records="tuples")
"""A source's fields before its games (``SOURCE_HEAD``), the source type as its number."""
GAME = codec(schema.GAME, stored=("game_address",), enums="numbers", records="tuples")
"""A game of a source, its address as the stored word, its result as its number."""
_ENCODE_SOURCE = derivation(schema.SOURCE).encoder(
    codec(schema.SOURCE, stored=("games[].game_address",), enums="numbers", records="tuples").encode)
"""A whole source, its games as ``GAME`` has them, its count of games derived from them
(:mod:`~chessformats.engine.derived`)."""
_ENCODE_TOC = derivation(schema.TOC).encoder(codec(schema.TOC, records="tuples").encode)
"""The table of contents, its count of sources derived from its addresses."""
_COUNT_FIELD_SIZE = int(codec(member(schema.SOURCE_HEAD, "games_number")).size or 0)
"""The source's count of games (the last field before them)."""
_GAME_MIN_SIZE = len(GAME.encode((0, 0, "", "", 0, 0, 0)))
"""Bytes of the shortest game (two empty names)."""
_GAME_VALUES = operator.attrgetter("address", "length", "white", "black", "white_elo", "black_elo", "result")
"""A game's values in ``GAME``'s order (:class:`KvetkaGame`'s attributes are in that order)."""
_RESULTS = {value: name for value, (name, _) in schema.GAME_RESULT.meanings.items()}
_SOURCE_TYPES = {value: name for value, (name, _) in schema.SOURCE_TYPE.meanings.items()}
_UNKNOWN_RESULT = next(value for value, name in _RESULTS.items() if name == "unknown")
_NAMES = schema.ANSI_STRING
"""A game's names: ANSI strings, a character their code page lacks written as ``?``."""
_EXAMPLES = 3
"""Names a warning of characters written as ``?`` quotes (it counts them all)."""
_INTERNET_KINDS = {value: name for value, (name, _) in schema.INTERNET_KIND.meanings.items()}
_WEB = codec(schema.INTERNET_ADDRESS)
_KIND = _WEB.field("kind")
_POSITION = _WEB.field("position")
"""A web page game's address: its kind and its number or offset, as bit fields of the 32-bit word."""


@dataclass(frozen=True)
class KvetkaGame:
    """One game of a source, as the ``.ksf`` describes it (``address``: see the schema's game_address)."""

    address: int = 0
    """The stored word of ``game_address`` (web pages: kind and position bit fields, see :class:`SourceGame`)."""
    length: int = 0
    white: str = ""
    black: str = ""
    white_elo: int = 0
    black_elo: int = 0
    result: int = _UNKNOWN_RESULT
    """The ``GAME_RESULT`` value: 0 = 0-1, 1 = 1-0, 2 = 1/2-1/2, 3 = unknown."""

    @property
    def result_name(self) -> str:
        return _RESULTS.get(self.result, str(self.result))


@dataclass(frozen=True)
class KvetkaSource:
    """A source of games: ``source_type`` 0 empty, 1 PGN file, 2 web page, 3 ChessBase base."""

    source_type: int
    address: str
    games: tuple[KvetkaGame, ...] = ()
    is_bad: int = 0


@dataclass(frozen=True)
class SourceGame:
    """A source reference resolved through the ``.ksf``: where the game is and who played it. Never opened."""

    source_number: int
    game_in_source: int
    source_type: str
    address: str
    is_bad: bool
    game: KvetkaGame

    @property
    def internet_kind(self) -> str | None:
        """For web pages: the kind of page (bits 26-31 of the game address)."""
        if self.source_type != "internet":
            return None
        kind = (self.game.address >> _KIND.shift) & _KIND.mask
        return _INTERNET_KINDS.get(kind, str(kind))

    @property
    def position(self) -> int:
        """The game's offset in its file, or (web pages) its number or offset (bits 0-25)."""
        if self.source_type == "internet":
            return (self.game.address >> _POSITION.shift) & _POSITION.mask
        return self.game.address


def _listed(sources: int) -> int:
    """Bytes of the table of contents' count and addresses, before its padding."""
    return _COUNT_SIZE + _ADDRESS_SIZE * sources


def toc_count(head: bytes) -> int | None:
    """The count of sources of a ``.ksf`` that starts with ``head`` (``None``: ``head`` ends before it)."""
    if len(head) < _COUNT_SIZE:
        return None
    return int(_COUNT.decode(head))


def toc_size(sources: int) -> int:
    """Bytes of the table of contents of a ``.ksf`` with ``sources`` sources (a multiple of 512)."""
    return _listed(sources) + int(_PADDING(cs.Container(source_number=sources)))


class KsfFile(MappedFile):
    """The ``.ksf`` file, mapped and read lazily: a source's games are located the first time one is asked for.

    Bad input raises :class:`~chessformats.FormatError` naming the offset and field.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        data = self._map(self.path)
        size = len(data)
        if size < _COUNT_SIZE:
            self.close()
            raise TruncatedError("truncated toc.source_number", needed=_COUNT_SIZE, available=size, file=self.path,
                                 offset=0, path="toc.source_number", show_path=False)
        count, at = _COUNT.decode(data), _COUNT_SIZE
        if _listed(count) > size:  # checked before anything is allocated from the count
            self.close()
            raise TruncatedError(f"the table of contents lists {count} sources, the file has room for "
                                 f"{(size - _COUNT_SIZE) // _ADDRESS_SIZE}", file=self.path, offset=0,
                                 path="toc.source_number", show_path=False)
        self.addresses: list[int] = [address for (address,) in struct.iter_unpack(
            _ADDRESS.struct_format, data[at:_listed(count)])]
        self._sources: dict[int, tuple[KvetkaSource, list[int]]] = {}

    def __len__(self) -> int:
        return len(self.addresses)

    def _located(self, error: FormatError, where: str) -> FormatError:
        """An error of a codec that read this file, with the file and the path under ``where``."""
        return error.located(file=self.path, path_prefix=where)

    def source(self, number: int) -> tuple[KvetkaSource, list[int]]:
        """A source with its games (the games parsed), and the offset of each game."""
        cached = self._sources.get(number)
        if cached is not None:
            return cached
        if not 0 <= number < len(self.addresses):
            raise InvalidValueError("source number out of range", expected=f"0..{len(self.addresses) - 1}",
                                    actual=number, file=self.path, path=f"sources[{number}]")
        data = self._data
        size = len(data)
        where = f"sources[{number}]"
        at = self.addresses[number]
        if at >= size:
            raise TruncatedError(f"source {number} starts at {at}, past the end", file=self.path,
                                 offset=_listed(number), path=f"toc.addresses[{number}]", show_path=False)
        try:
            (source_type, is_bad, address, count), at = SOURCE.read(data, at, size)
        except FormatError as error:
            raise self._located(error, where) from None
        if count * _GAME_MIN_SIZE > size - at:  # before reading (or allocating) anything for the games
            raise TruncatedError(f"{where} says {count} games; {size - at} bytes cannot hold them",
                                 file=self.path, offset=at - _COUNT_FIELD_SIZE,
                                 path=f"{where}.games_number", show_path=False)
        games = []
        offsets = []
        read = GAME.read
        for index in range(count):
            offsets.append(at)
            try:
                game, at = read(data, at, size)
            except FormatError as error:
                raise self._located(error, f"{where}.games[{index}]") from None
            games.append(KvetkaGame(*game))
        result = (KvetkaSource(source_type, address, tuple(games), is_bad), offsets)
        self._sources[number] = result
        return result

    def resolve(self, reference: tuple[int, int], where: str) -> SourceGame:
        """The game a ``(source_number, game_in_source)`` reference names (``where``: the referring field)."""
        number, game = reference
        source, _ = self.source(number)
        if not 0 <= game < len(source.games):
            raise InvalidValueError("game number out of range", expected=f"0..{len(source.games) - 1}", actual=game,
                                    file=self.path, path=f"{where}.some_source.game_in_source")
        return SourceGame(number, game, _SOURCE_TYPES.get(source.source_type, str(source.source_type)),
                          source.address, bool(source.is_bad), source.games[game])


def ksf_bytes(sources: Sequence[KvetkaSource]) -> bytes:
    """The ``.ksf`` file of ``sources``: the table of contents, then the sources back to back.

    Each source and its games are written from ``SOURCE``'s declaration, its count of games derived (a game's
    ``address`` is the stored word: for a web page its kind and position bit fields already); bad values raise
    :class:`ValueError`. A name's characters that the code page of its ANSI string (Windows-1251) lacks are
    written as ``?``: one warning a source says where, and how many.
    """
    for number, source in enumerate(sources):
        replaced = list(_replaced_names(source, f"sources[{number}]"))
        if replaced:
            characters = sum(count for _, _, count in replaced)
            quoted = ", ".join(f"{where} {name!r}" for where, name, _ in replaced[:_EXAMPLES])
            more = f", and {len(replaced) - _EXAMPLES} more" if len(replaced) > _EXAMPLES else ""
            warnings.warn(f"{source.address}: {characters} characters {_NAMES.encoding} lacks written as '?' in "
                          f"{len(replaced)} names ({quoted}{more})", stacklevel=2)
    bodies = [_ENCODE_SOURCE((source.source_type, source.is_bad, source.address, None,
                              [_GAME_VALUES(game) for game in source.games])) for source in sources]
    count = len(bodies)
    size = toc_size(count)
    addresses = []
    at = size
    for body in bodies:
        addresses.append(at)
        at += len(body)
    return _ENCODE_TOC((None, addresses, bytes(size - _listed(count)))) + b"".join(bodies)


def _replaced_names(source: KvetkaSource, where: str) -> Iterator[tuple[str, str, int]]:
    """The names of ``source``'s games that are stored with characters replaced (the code page of ANSI strings
    lacks them: ``encode_text`` writes ``?``): the field, the name and how many characters."""
    for index, game in enumerate(source.games):
        for field, name in (("white", game.white), ("black", game.black)):
            if name.isascii():
                continue
            stored = _NAMES.encode_text(name).decode(_NAMES.encoding, _NAMES.errors)  # one character a byte
            replaced = sum(1 for given, kept in zip(name, stored, strict=True) if given != kept)
            if replaced:
                yield f"{where}.games[{index}].{field}", name, replaced
