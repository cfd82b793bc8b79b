"""The bit-reversed byte table against the definition: bit ``i`` of a byte is bit ``7 - i`` of its entry."""

from __future__ import annotations

from chessformats.engine.bitorder import REVERSED_BYTES


def test_each_entry_is_its_byte_with_the_bits_in_the_opposite_order() -> None:
    assert len(REVERSED_BYTES) == 256
    for byte in range(256):
        assert [REVERSED_BYTES[byte] >> (7 - bit) & 1 for bit in range(8)] == [byte >> bit & 1 for bit in range(8)]
    assert REVERSED_BYTES[0x01] == 0x80 and REVERSED_BYTES[0x0F] == 0xF0 and REVERSED_BYTES[0xA0] == 0x05
