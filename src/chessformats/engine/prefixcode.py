"""Prefix codes (Huffman-style variable-length codes), declared once and used in both directions.

A :class:`PrefixCode` is declared as ``name -> (code word, meaning)``, code words written as bit strings
(``"110"``); no word may be a prefix of another. It gives the fast paths over Python integers
(:meth:`PrefixCode.encode`, :meth:`PrefixCode.decode`) and :class:`PrefixCoded`, the bit-level construct
that reads ``count`` code words from a bit stream (inside a ``Bitwise`` run), builds them back, and reports
one trace span per symbol (``trace_spans``) so the hex view can show every code word.

The declaration is the only place a code word is written: schemas declare the table, formats use the
derived encoders and decoders, the documentation lists :meth:`PrefixCode.table`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import construct as cs

if TYPE_CHECKING:
    from .trace import Span

__all__ = ["PrefixCode", "PrefixCodeError", "PrefixCoded"]

_WIDE = 16
"""Bits a window of :meth:`PrefixCode.decode` looks at: one lookup reads every whole word they hold. The
windows' entries are made as the decoder first meets them (a list of ``2 ** 16``; a cold read makes a few)."""


_Window: TypeAlias = "tuple[tuple[str, ...], int, int, tuple[int, ...]] | int | None"


class PrefixCodeError(ValueError):
    """Bits that are not a sequence of code words (an unknown word, or the bits end inside a word).

    :ivar bit: the bit position (from the start of the decoded bits) where the bad word starts.
    """

    def __init__(self, reason: str, *, bit: int) -> None:
        self.bit = bit
        super().__init__(reason)


class PrefixCode:
    """A prefix-free code: ``members`` maps a symbol name to ``(code word, meaning)``.

    Raises :class:`ValueError` for an empty table, a word that is empty or not made of ``0``/``1``, two
    equal words, or a word that is a prefix of another.
    """

    def __init__(self, members: Mapping[str, tuple[str, str]]) -> None:
        if not members:
            raise ValueError("a prefix code needs at least one code word")
        self.members: dict[str, tuple[str, str]] = dict(members)
        words = sorted((bits, name) for name, (bits, _) in self.members.items())
        for bits, name in words:
            if not bits or set(bits) - {"0", "1"}:
                raise ValueError(f"code word of {name!r} must be a non-empty string of 0 and 1, not {bits!r}")
        # in sorted order a word that is a prefix of another sorts directly before one of its extensions
        for (first, first_name), (second, second_name) in itertools.pairwise(words):
            if second.startswith(first):
                raise ValueError(f"code word {first!r} of {first_name!r} is a prefix of {second!r} "
                                 f"of {second_name!r}" if first != second else
                                 f"{first_name!r} and {second_name!r} have the same code word {first!r}")
        self.codes: dict[str, tuple[int, int]] = {
            name: (int(bits, 2), len(bits)) for name, (bits, _) in self.members.items()
        }
        """Symbol -> (code word as an integer, its length in bits)."""
        self.max_length = max(length for _, length in self.codes.values())
        # decoding table indexed by the next max_length bits: (symbol, word length), None where no word starts
        table: list[tuple[str, int] | None] = [None] * (1 << self.max_length)
        for name, (value, length) in self.codes.items():
            shift = self.max_length - length
            for low in range(1 << shift):
                table[(value << shift) | low] = (name, length)
        self._table = table
        self._by_word = {(length, value): name for name, (value, length) in self.codes.items()}
        self._lengths = {name: length for name, (_, length) in self.codes.items()}
        self._words = {name: bits for name, (bits, _) in self.members.items()}.__getitem__
        self._width = max(self.max_length, _WIDE)
        self._most = self._width // min(length for _, length in self.codes.values())
        """The most words one window holds."""
        self._windows: list[_Window] | None = None
        """Window of :attr:`_width` bits -> its entry (:meth:`_window`; 0: not made yet), made as decoding meets it."""

    @property
    def complete(self) -> bool:
        """True when every bit sequence starts with a code word (Kraft sum 1): no bits are invalid."""
        return all(entry is not None for entry in self._table)

    def bits(self, symbol: str) -> str:
        """The code word of ``symbol`` as a bit string."""
        return self.members[symbol][0]

    def meaning(self, symbol: str) -> str:
        return self.members[symbol][1]

    def bit_length(self, symbols: Iterable[str]) -> int:
        """Total length in bits of the code words of ``symbols``."""
        return sum(map(self._lengths.__getitem__, symbols))

    def encode(self, symbols: Iterable[str]) -> tuple[int, int]:
        """``(value, length)``: the code words of ``symbols`` concatenated, first word in the high bits."""
        bits = "".join(map(self._words, symbols))  # the words as text, joined and read as one number
        return (int(bits, 2) if bits else 0), len(bits)

    def decode(self, value: int, length: int, count: int, start: int = 0) -> tuple[list[str], int]:
        """Decode ``count`` symbols from ``value``, a string of ``length`` bits (first bit = highest).

        Decoding starts at bit ``start`` (0 = the first, highest bit); returns the symbols and the bit
        position after the last one. Raises :class:`PrefixCodeError` when the bits run out inside a word
        or hold no code word.
        """
        windows: list[Any] = self._windows or self._new_windows()
        width, most = self._width, self._most
        mask = (1 << width) - 1
        padded = value << width  # a window past the end reads zeros
        out: list[str] = []
        shift = length - start  # the bits left
        remaining = count
        while True:  # optimistic: a window not made yet (0), with no word (None) or past the bits (a negative
            try:     # shift) fails before the state changes; the first is made here and the walk goes on
                while remaining >= most:  # every word of the window is wanted
                    symbols, size, number, _ = windows[(padded >> shift) & mask]
                    out += symbols
                    shift -= size
                    remaining -= number
                while remaining > 0:
                    symbols, size, number, ends = windows[(padded >> shift) & mask]
                    if number >= remaining:
                        out += symbols[:remaining]
                        shift -= ends[remaining - 1]
                        break
                    out += symbols
                    shift -= size
                    remaining -= number
                break
            except (TypeError, ValueError):
                window = (padded >> shift) & mask if shift >= 0 else -1
                if window < 0 or windows[window] != 0:  # no word there: the exact reading says where
                    return self._decode_words(value, length, count, start)
                windows[window] = self._window(window)
        if shift < 0:  # words past the end: the exact reading says where
            return self._decode_words(value, length, count, start)
        return out, length - shift

    def _new_windows(self) -> list[_Window]:
        self._windows = [0] * (1 << self._width)
        return self._windows

    def _window(self, window: int) -> _Window:
        """The entry of a window of :attr:`_width` bits: the whole code words it starts with, their total length,
        their number and the end of each (None: no word starts there)."""
        width, longest, table = self._width, self.max_length, self._table
        low = (1 << longest) - 1
        symbols: list[str] = []
        ends: list[int] = []
        used = 0
        while used < width:  # the next word: the bits from ``used`` on, read on as zeros past the window
            rest = width - used
            bits = (window << (longest - rest)) & low if rest < longest else (window >> (rest - longest)) & low
            entry = table[bits]
            if entry is None or entry[1] > rest:  # no word, or one that ends past the window
                break
            symbols.append(entry[0])
            used += entry[1]
            ends.append(used)
        return (tuple(symbols), used, len(symbols), tuple(ends)) if symbols else None

    def _decode_words(self, value: int, length: int, count: int, start: int) -> tuple[list[str], int]:
        """:meth:`decode` word by word, the bits read on as zeros past their end: where it fails, the error."""
        position = start
        width = self.max_length
        mask = (1 << width) - 1
        table = self._table
        padded = value << width
        end = length + width
        out: list[str] = []
        for _ in range(count):
            entry = table[(padded >> (end - position - width)) & mask]
            if entry is None:
                raise PrefixCodeError(f"no code word starts with the bits at bit {position}", bit=position)
            symbol, size = entry
            if position + size > length:
                raise PrefixCodeError(f"the bits end inside a code word at bit {position}", bit=position)
            out.append(symbol)
            position += size
        return out, position

    def table(self) -> list[tuple[str, str, str]]:
        """``(code word, symbol, meaning)`` rows in declaration order, for documentation."""
        return [(bits, name, meaning) for name, (bits, meaning) in self.members.items()]


class PrefixCoded(cs.Construct):  # type: ignore[misc]
    """``count`` code words of ``code`` in a bit stream; parses to a list of symbol names.

    Use inside ``Bitwise``/``BitStruct``. ``count`` is an integer or a context function. ``labels``
    names the symbols for tracing (``a1``, ``a2``, ...; default ``0``, ``1``, ...): :meth:`trace_spans`
    reports one span per symbol, whose meaning carries the code word.
    """

    def __init__(self, code: PrefixCode, count: int | Callable[[Any], int],
                 labels: Sequence[str] | None = None) -> None:
        super().__init__()
        self.code = code
        self.count = count
        self.labels = tuple(labels) if labels is not None else None
        self.type_label = f"prefix code words ×{count}" if isinstance(count, int) else "prefix code words"

    def _parse(self, stream: Any, context: Any, path: str) -> cs.ListContainer:
        count = cs.evaluate(self.count, context)
        by_word = self.code._by_word
        longest = self.code.max_length
        out = cs.ListContainer()
        for index in range(count):
            value = length = 0
            while True:
                bit = cs.stream_read(stream, 1, path)[0]
                value = (value << 1) | (bit & 1)
                length += 1
                symbol = by_word.get((length, value))
                if symbol is not None:
                    out.append(symbol)
                    break
                if length >= longest:
                    word = format(value, f"0{length}b")
                    raise cs.ExplicitError(f"symbol {index}: no code word starts with the bits {word}", path=path)
        return out

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        count = cs.evaluate(self.count, context)
        symbols = list(obj)
        if len(symbols) != count:
            raise cs.ExplicitError(f"expected {count} symbols, got {len(symbols)}", path=path)
        for symbol in symbols:
            if symbol not in self.code.codes:
                raise cs.ExplicitError(f"{symbol!r} is not a symbol of the code", path=path)
            value, length = self.code.codes[symbol]
            cs.stream_write(stream, cs.integer2bits(value, length), length, path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        raise cs.SizeofError("prefix code words have no fixed size", path=path)

    def trace_spans(self, raw: bytes | None, value: Sequence[str]) -> list[Span]:
        """One span per symbol: label, bits relative to the first word, symbol name, meaning and word."""
        from .trace import Span

        spans = []
        position = 0
        for index, symbol in enumerate(value):
            bits, meaning = self.code.members[symbol]
            label = self.labels[index] if self.labels is not None and index < len(self.labels) else str(index)
            spans.append(Span(label, position, position + len(bits), symbol, f"{meaning} (code {bits})"))
            position += len(bits)
        return spans
