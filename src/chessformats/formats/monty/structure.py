"""Reading the structure of a Monty file: games as bytes (:class:`~.model.RawGame`), from a stream read in
chunks, every structural fault a located :class:`~chessformats.FormatError`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from ...engine.errors import FormatError, InvalidValueError, TruncatedError
from ...schemas import monty as schema
from .model import (
    HEADER_NAMES,
    HEADER_SIZE,
    HEADER_STRUCT,
    MAX_PLY,
    MOVE_WORD,
    PLY_HEAD_STRUCT,
    PLY_OFFSETS,
    TERMINATORS,
    VALUE_PLY_STRUCT,
    RawGame,
)
from .moves import flag_of

__all__ = ["raw_games"]

_CHUNK = 1 << 20
_FLAGS = frozenset(schema.FLAG.meanings)
_FLAG_TEXT = ", ".join(map(str, sorted(_FLAGS)))


def raw_games(handle: IO[bytes], file: str | None, format: str, *, partial: bool = False, offset: int = 0,
              number: int = 0) -> Iterator[RawGame]:
    """Games from a binary stream, read in chunks; any structural fault is a located :class:`FormatError`.

    With ``partial`` a game cut off by the end of the data is given with the plies read so far, and ends
    the games (the sniffer sees only the head of a file). ``offset``: the file offset of the stream's first byte;
    ``number``: the number of the game found there (offsets and numbers in games and errors count from them).
    """
    value = format == "value"
    ply_struct = VALUE_PLY_STRUCT if value else PLY_HEAD_STRUCT
    unpack_ply = ply_struct.unpack_from
    unpack_word = MOVE_WORD.unpack_from
    head_size = ply_struct.size
    terminator = TERMINATORS[format]
    keep = max(MAX_PLY, HEADER_SIZE)  # bytes kept ahead: a whole ply record or header always fits
    read = handle.read
    buffer = b""
    position = 0   # in buffer
    base = offset  # file offset of buffer[0]
    eof = False
    while True:
        while len(buffer) - position < keep and not eof:
            chunk = read(_CHUNK)
            eof = not chunk
            buffer, base, position = buffer[position:] + chunk, base + position, 0
        if position == len(buffer):
            return
        start = base + position
        if len(buffer) - position < HEADER_SIZE:
            if partial:
                return
            raise TruncatedError(f"truncated game {number}", needed=HEADER_SIZE, available=len(buffer) - position,
                                 file=file, offset=start, path=f"games[{number}].header", show_path=False)
        header = dict(zip(HEADER_NAMES, HEADER_STRUCT.unpack_from(buffer, position), strict=True))
        position += HEADER_SIZE
        plies: list[tuple[int, int, int, bytes]] = []
        try:
            while True:
                while len(buffer) - position < keep and not eof:
                    chunk = read(_CHUNK)
                    eof = not chunk
                    buffer, base, position = buffer[position:] + chunk, base + position, 0
                available = len(buffer) - position
                if available < head_size and (available < terminator or unpack_word(buffer, position)[0]):
                    if partial:
                        yield RawGame(number, start, header, plies, base + position)
                        return
                    here = f"games[{number}].plies[{len(plies)}]"
                    needed = head_size if available >= 2 and unpack_word(buffer, position)[0] else terminator
                    raise TruncatedError(f"truncated {here}", needed=needed, available=available, file=file,
                                         offset=base + position, path=here, show_path=False)
                fields = unpack_ply(buffer, position) if available >= head_size else (0, 0, 0)
                code = fields[0]
                if code == 0:
                    if value and fields[1]:
                        raise InvalidValueError(
                            "a null move with a score: not the 4-byte terminator of the value format", expected=0,
                            actual=fields[1], file=file, offset=base + position + PLY_OFFSETS["score"],
                            path=f"games[{number}].plies[{len(plies)}].score")
                    position += terminator
                    break
                if flag_of(code) not in _FLAGS:
                    raise InvalidValueError("move flag not defined", expected=_FLAG_TEXT, actual=flag_of(code),
                                            file=file, offset=base + position,
                                            path=f"games[{number}].plies[{len(plies)}].move.flag")
                if value:
                    plies.append((base + position, code, fields[1], b""))
                    position += head_size
                    continue
                count = fields[2]
                if available - head_size < count:
                    if partial:
                        yield RawGame(number, start, header, plies, base + position)
                        return
                    here = f"games[{number}].plies[{len(plies)}].visits"
                    raise TruncatedError(f"truncated {here}", needed=count, available=available - head_size, file=file,
                                         offset=base + position + head_size, path=here, show_path=False)
                body = position + head_size
                plies.append((base + position, code, fields[1], buffer[body:body + count]))
                position = body + count
        except FormatError as exc:
            yield RawGame(number, start, header, plies, base + position, exc)
            return
        yield RawGame(number, start, header, plies, base + position)
        number += 1
