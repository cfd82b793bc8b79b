"""Square codes shared by ChessBase CTG and Kvetka books: declarations only.

Both formats store a position as one prefix code word per square, squares taken file by file
(a1, a2, ..., a8, b1, ..., h8), followed by castling flags in the same order. Source: ``specs/ctg.ru.txt``
(section "Кодирование") and ``specs/kvetka.ru.txt``; ``notes/ctg.md``, ``notes/kvetka.md``.
"""

from __future__ import annotations

import construct as cs

from ..engine.prefixcode import PrefixCode

__all__ = ["CASTLING", "SQUARE_CODE", "SQUARE_NAMES"]

SQUARE_CODE = PrefixCode({
    "empty": ("0", "an empty square"),
    "white_pawn": ("110", "a white pawn"),
    "black_pawn": ("111", "a black pawn"),
    "white_rook": ("10110", "a white rook"),
    "black_rook": ("10111", "a black rook"),
    "white_bishop": ("10100", "a white bishop"),
    "black_bishop": ("10101", "a black bishop"),
    "white_knight": ("10010", "a white knight"),
    "black_knight": ("10011", "a black knight"),
    "white_queen": ("100010", "a white queen"),
    "black_queen": ("100011", "a black queen"),
    "white_king": ("100000", "a white king"),
    "black_king": ("100001", "a black king"),
})
"""One code word per square; the last bit of every piece's word is its colour (1 = black).

Symbol names are ``empty`` or ``<colour>_<python-chess piece name>``.
"""

SQUARE_NAMES: tuple[str, ...] = tuple(f"{file}{rank}" for file in "abcdefgh" for rank in "12345678")
"""The order in which squares are coded: a1, a2, ..., a8, b1, ..., h8 (file by file)."""

CASTLING = cs.Struct(
    "black_short" / cs.Flag * "black may still castle short (O-O)",
    "black_long" / cs.Flag * "black may still castle long (O-O-O)",
    "white_short" / cs.Flag * "white may still castle short (O-O)",
    "white_long" / cs.Flag * "white may still castle long (O-O-O)",
)
"""The four castling flags, one bit each in this order (a bit-level struct: use it inside a bit run)."""
