"""How far the reading of an input file is, for progress bars: bytes of the file as on disk (compressed bytes
for a compressed file), so that the fraction done is ``position / file size`` whatever the compression."""

from __future__ import annotations

from typing import IO, Any

__all__ = ["input_position"]


def input_position(stream: IO[Any] | None) -> int | None:
    """Bytes of the underlying file read so far by a stream :func:`~chessformats.books.pgnread.open_text` (or
    :func:`~chessformats.engine.streams.open_binary`) opened; ``None`` if that cannot be told (closed, or not a
    file)."""
    if stream is None:
        return None
    layer: Any = stream
    for name in ("buffer", "raw", "handle"):  # text wrapper -> buffered reader -> decompressor -> the file
        layer = getattr(layer, name, layer)
    try:
        return int(layer.tell())
    except (OSError, ValueError, AttributeError):
        return None
