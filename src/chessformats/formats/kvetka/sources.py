"""The ``.ksf`` file of a Kvetka book: the sources of its games (PGN files, web pages, ChessBase bases), read
lazily (:class:`KsfFile`) and written (:func:`ksf_bytes`). A source is described, never opened."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...engine.codec import codec
from ...engine.errors import InvalidValueError, TruncatedError
from ...engine.fileio import MappedFile
from ...schemas import kvetka as schema
from .fields import Record

__all__ = ["KsfFile", "KvetkaGame", "KvetkaSource", "SourceGame", "ksf_bytes", "toc_size"]

STRING_LENGTH_SIZE: int = schema.UNICODE_STRING.subcon.subcons[0].sizeof()
"""The length field of a string."""
_COUNT_SIZE: int = schema.TOC.subcons[0].sizeof()
_GAME_MIN_SIZE = Record(schema.GAME).min_size
"""Bytes of the shortest game (two empty names)."""
_RESULTS = {value: name for value, (name, _) in schema.GAME_RESULT.meanings.items()}
_SOURCE_TYPES = {value: name for value, (name, _) in schema.SOURCE_TYPE.meanings.items()}
_INTERNET_KINDS = {value: name for value, (name, _) in schema.INTERNET_KIND.meanings.items()}
_INTERNET = next(value for value, name in _SOURCE_TYPES.items() if name == "internet")
_ADDRESS = codec(schema.INTERNET_ADDRESS)
_KIND = _ADDRESS.field("kind")
_POSITION = _ADDRESS.field("position")
"""A web page game's address: its kind and its number or offset, as bit fields of the 32-bit word."""


@dataclass(frozen=True)
class KvetkaGame:
    """One game of a source, as the ``.ksf`` describes it (``address``: see the schema's game_address)."""

    address: int = 0
    length: int = 0
    white: str = ""
    black: str = ""
    white_elo: int = 0
    black_elo: int = 0
    result: int = 3
    """0 = 0-1, 1 = 1-0, 2 = 1/2-1/2, 3 = unknown."""

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


def toc_size(sources: int) -> int:
    """Bytes of the table of contents of a ``.ksf`` with ``sources`` sources (a multiple of 512)."""
    listed = _COUNT_SIZE + 4 * sources
    return listed + (-listed % schema.KSF_TOC_UNIT)


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
            raise TruncatedError("truncated .ksf table of contents", needed=_COUNT_SIZE, available=size,
                                 file=self.path, offset=0, path="toc.source_number", show_path=False)
        count = int.from_bytes(data[:_COUNT_SIZE], "big")
        if _COUNT_SIZE + 4 * count > size:  # checked before anything is allocated from the count
            self.close()
            raise TruncatedError(f"the table of contents lists {count} sources, the file has room for "
                                 f"{(size - 4) // 4}", file=self.path, offset=0, path="toc.source_number",
                                 show_path=False)
        self.addresses = [int.from_bytes(data[4 + 4 * n:8 + 4 * n], "big") for n in range(count)]
        self._sources: dict[int, tuple[KvetkaSource, list[int]]] = {}

    def __len__(self) -> int:
        return len(self.addresses)

    def _string(self, offset: int, width: int, where: str) -> tuple[str, int]:
        data = self._data
        if offset + STRING_LENGTH_SIZE > len(data):
            raise TruncatedError(f"truncated {where}", needed=STRING_LENGTH_SIZE, available=len(data) - offset,
                                 file=self.path, offset=offset, path=where, show_path=False)
        length = int.from_bytes(data[offset:offset + STRING_LENGTH_SIZE], "big") * width
        start = offset + STRING_LENGTH_SIZE
        if start + length > len(data):
            raise TruncatedError(f"truncated {where}", needed=length, available=len(data) - start, file=self.path,
                                 offset=start, path=f"{where}.text", show_path=False)
        con = schema.UNICODE_STRING if width == 2 else schema.ANSI_STRING
        return data[start:start + length].decode(con.encoding, con.errors), start + length

    def source(self, number: int) -> tuple[KvetkaSource, list[int]]:
        """A source with its games (the games parsed), and the offset of each game."""
        cached = self._sources.get(number)
        if cached is not None:
            return cached
        if not 0 <= number < len(self.addresses):
            raise InvalidValueError("source number out of range", expected=f"0..{len(self.addresses) - 1}",
                                    actual=number, file=self.path, path=f"sources[{number}]")
        data = self._data
        where = f"sources[{number}]"
        at = self.addresses[number]
        if at + 2 > len(data):
            raise TruncatedError(f"source {number} starts at {at}, past the end", file=self.path, offset=4 + 4 * number,
                                 path=f"toc.addresses[{number}]", show_path=False)
        source_type, is_bad = data[at], data[at + 1]
        address, at = self._string(at + 2, 2, f"{where}.address")
        if at + 4 > len(data):
            raise TruncatedError(f"truncated {where}.games_number", needed=4, available=len(data) - at,
                                 file=self.path, offset=at, show_path=False)
        count = int.from_bytes(data[at:at + 4], "big")
        at += 4
        if count * _GAME_MIN_SIZE > len(data) - at:  # before reading (or allocating) anything for the games
            raise TruncatedError(f"{where} says {count} games; {len(data) - at} bytes cannot hold them",
                                 file=self.path, offset=at - 4, path=f"{where}.games_number", show_path=False)
        games = []
        offsets = []
        for index in range(count):
            game_where = f"{where}.games[{index}]"
            offsets.append(at)
            if at + 8 > len(data):
                raise TruncatedError(f"truncated {game_where}", needed=8, available=len(data) - at, file=self.path,
                                     offset=at, show_path=False)
            address_value = int.from_bytes(data[at:at + 4], "big")
            length = int.from_bytes(data[at + 4:at + 8], "big")
            white, at = self._string(at + 8, 1, f"{game_where}.white")
            black, at = self._string(at, 1, f"{game_where}.black")
            if at + 5 > len(data):
                raise TruncatedError(f"truncated {game_where}", needed=5, available=len(data) - at, file=self.path,
                                     offset=at, show_path=False)
            games.append(KvetkaGame(address_value, length, white, black, int.from_bytes(data[at:at + 2], "big"),
                                    int.from_bytes(data[at + 2:at + 4], "big"), data[at + 4]))
            at += 5
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
    """The ``.ksf`` file of ``sources``: the table of contents, then the sources back to back."""
    bodies = []
    for source in sources:
        games = [{"game_address": _game_address(source.source_type, game.address), "game_length": game.length,
                  "white": game.white, "black": game.black, "white_elo": game.white_elo,
                  "black_elo": game.black_elo, "game_result": game.result} for game in source.games]
        bodies.append(schema.SOURCE.build({"source_type": source.source_type, "is_bad": source.is_bad,
                                           "address": source.address, "games_number": len(games), "games": games}))
    count = len(bodies)
    size = toc_size(count)
    addresses = []
    at = size
    for body in bodies:
        addresses.append(at)
        at += len(body)
    toc = schema.TOC.build({"source_number": count, "addresses": addresses,
                            "unused": bytes(size - _COUNT_SIZE - 4 * count)})
    return bytes(toc) + b"".join(bodies)


def _game_address(source_type: int, address: int) -> Any:
    if source_type == _INTERNET:
        return {"kind": (address >> _KIND.shift) & _KIND.mask,
                "position": (address >> _POSITION.shift) & _POSITION.mask}
    return address
