"""Bit runs: bytes read as packed bit fields, stored big-endian or little-endian.

construct's ``BitStruct`` reads a run's bits in file order, most significant bit of the first byte first:
the layout of a *big-endian* integer. Formats that pack fields into a *little-endian* integer (Monty's
16-bit move ``flag | destination << 4 | source << 10``, written low byte first) declare the run with
:func:`BitStructLE`: the same field list, from the integer's most significant bit down, over the
byte-swapped run. Field bit numbers (``bit_fields``), documentation, tracing and the hex view then speak
of the integer, whatever its byte order; :func:`bit_run` is how the engine's walkers recognise both kinds.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import construct as cs

from .schema import is_bitwise

__all__ = ["BitRun", "BitStructLE", "bit_run", "run_bits"]


class BitRun(NamedTuple):
    """A run of bytes parsed as bit fields."""

    fields: cs.Construct
    """The construct that parses the run's bit stream (the integer's most significant bit first)."""
    size: int | None
    """The run's size in bytes (``None`` when it is not fixed)."""
    little_endian: bool
    """True when the run is stored as a little-endian integer (declared with :func:`BitStructLE`)."""


def BitStructLE(*subcons: Any, **subconskw: Any) -> cs.Construct:
    """A ``BitStruct`` over a little-endian integer; fields are listed from its most significant bit.

    ``BitStructLE("src" / BitsInteger(6), "dst" / BitsInteger(6), "flag" / BitsInteger(4))`` parses the
    bytes ``e1 39`` (the integer 0x39e1) as ``src=14, dst=30, flag=1``.
    """
    return cs.ByteSwapped(cs.BitStruct(*subcons, **subconskw))


def bit_run(con: cs.Construct) -> BitRun | None:
    """The :class:`BitRun` of a ``Bitwise``/``BitStruct`` or :func:`BitStructLE` construct, else ``None``."""
    if is_bitwise(con):
        return BitRun(con.subcon, _size(con), False)
    if isinstance(con, cs.Transformed) and con.decodefunc is cs.swapbytes and is_bitwise(con.subcon):
        return BitRun(con.subcon.subcon, _size(con), True)
    return None


def run_bits(run: BitRun, data: bytes) -> bytes:
    """The bit stream ``run.fields`` parses, from the run's bytes as stored."""
    bits: bytes = cs.bytes2bits(data[::-1] if run.little_endian else data)
    return bits


def _size(con: cs.Construct) -> int | None:
    amount = getattr(con, "decodeamount", None)
    return amount if isinstance(amount, int) else None
