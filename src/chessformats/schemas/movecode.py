"""Move codes, shared by ChessBase CTG and Kvetka books: declarations only.

Both formats store a book move as one byte that names the ``number``-th piece of a kind of the side to
move and the step it makes, on the normalised board (white to move; see :mod:`.squares` for the square
order the pieces are counted in). Each format has its own table of codes (``schemas.ctg.MOVE_CODES``,
``schemas.kvetka.MOVE_CODES``); this module declares what a code is. Sources: ``specs/ctg.ru.txt`` and
``specs/kvetka.ru.txt`` (section "Кодирование хода").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import construct as cs

from ..engine.schema import MeaningEnum

__all__ = ["MoveCode", "move_code_field"]


class MoveCode(NamedTuple):
    """One move code: the ``number``-th ``piece`` of the side to move moves ``dx`` files right, ``dy`` ranks up.

    Pieces are counted in square-coding order (a1, a2, ..., a8, b1, ..., h8) on the normalised board
    (white to move); ``dx``/``dy`` wrap around the board (``dx = 7`` is one file left).
    """

    code: int
    piece: str
    number: int
    dx: int
    dy: int

    @property
    def name(self) -> str:
        if self.piece == "king" and self.dy == 0 and self.dx in (2, 6):
            return "king_O-O" if self.dx == 2 else "king_O-O-O"
        steps = "_".join(part for part in (f"x{self.dx}" if self.dx else "", f"y{self.dy}" if self.dy else "") if part)
        return f"{self.piece}{self.number if self.piece != 'king' else ''}_{steps}"

    @property
    def meaning(self) -> str:
        if self.piece == "king" and self.dy == 0 and self.dx in (2, 6):
            return f"0x{self.code:02x}: king castles " + ("short (O-O, e1g1)" if self.dx == 2 else "long (O-O-O, e1c1)")
        ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(self.number, f"{self.number}th")
        piece = "king" if self.piece == "king" else f"{ordinal} {self.piece}"
        steps = ", ".join(part for part in (f"x+{self.dx}" if self.dx else "", f"y+{self.dy}" if self.dy else "")
                          if part)
        return f"0x{self.code:02x}: {piece}, {steps}"


def move_code_field(codes: Iterable[MoveCode]) -> MeaningEnum:
    """The one-byte field of a table of move codes: each value named and explained (for docs and the hex view)."""
    return MeaningEnum(cs.Int8ub, {m.name: (m.code, m.meaning) for m in codes})
