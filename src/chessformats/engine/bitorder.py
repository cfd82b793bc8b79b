"""Bit order within a byte: :data:`REVERSED_BYTES`, each byte with its bits in the opposite order (bit 0 <-> 7).

CTG counts a position's hash bits from the other end of each byte (its ``.cto`` index is sorted by the bytes of the
hash bit-reversed) and numbers a bitboard's squares from the other side of each rank; both read this table.
"""

from __future__ import annotations

__all__ = ["REVERSED_BYTES"]

REVERSED_BYTES = bytes(int(f"{byte:08b}"[::-1], 2) for byte in range(256))
"""By byte value: that byte's bits reversed (``0x01`` -> ``0x80``, ``0x0F`` -> ``0xF0``)."""
