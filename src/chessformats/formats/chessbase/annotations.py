"""ChessBase annotations (``.cba`` items) as PGN: comments, NAGs, ``[%csl]``/``[%cal]``, ``[%clk]``/``[%emt]``.

Items are attached by their position: -1 is the whole game, p >= 0 the (p+1)-th move of the stored stream
(depth first, variations included). Symbol bytes are PGN NAG numbers (seen: every symbol of
``libcbh_Annotation`` against its PGN export). What PGN cannot hold is kept in :class:`Extras`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.pgn
import chess.svg

__all__ = ["Annotator", "Extras", "decode_text"]

_COLOURS = {2: "green", 3: "yellow", 4: "red"}


def decode_text(raw: bytes, encoding: str | None = None) -> str:
    """An annotation text: UTF-8 when valid, else cp1252 (``encoding`` overrides); 0x9E (a diagram) -> ``[#]``."""
    if encoding:
        return raw.replace(b"\x9e", b"[#]").decode(encoding, errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.replace(b"\x9e", b"[#]").decode("cp1252", errors="replace")


@dataclass
class Extras:
    """Annotations without a PGN form, by stream position (-1: the whole game)."""

    items: dict[int, list[tuple[str, Any]]] = field(default_factory=lambda: defaultdict(list))


def _square(number: int) -> int | None:
    """A .cba square number (from 1, file-major: 1 = a1, 2 = a2, 9 = b1) as a python-chess square."""
    if not 1 <= number <= 64:
        return None
    value = number - 1
    return chess.square(value >> 3, value & 7)


class Annotator:
    """Attaches the parsed items of one annotation record to the nodes ``build_game`` creates."""

    def __init__(self, entries: list[Any], encoding: str | None = None) -> None:
        self.by_position: dict[int, list[Any]] = defaultdict(list)
        for entry in entries:
            self.by_position[int(entry.position)].append(entry)
        self.encoding = encoding
        self.extras = Extras()
        self.final_clocks: dict[bool, int] = {}

    def __call__(self, node: chess.pgn.GameNode, index: int) -> None:
        items = self.by_position.get(index - 1)
        if not items:
            return
        for item in items:
            self._apply(node, index - 1, item)

    def _apply(self, node: chess.pgn.GameNode, position: int, item: Any) -> None:
        kind = int(item.type)
        body = item.body
        if kind in (0x02, 0x82):
            text = decode_text(body.text, self.encoding).strip()
            if not text:
                return
            if kind == 0x02 or position < 0:
                node.comment = f"{node.comment} {text}".strip() if node.comment else text
            elif node.starts_variation():
                node.starting_comment = f"{node.starting_comment} {text}".strip() if node.starting_comment else text
            elif node.parent is not None:
                parent = node.parent
                parent.comment = f"{parent.comment} {text}".strip() if parent.comment else text
        elif kind == 0x03:
            for value in (body.move_symbol, body.evaluation, body.prefix):
                if value is not None and int(value):
                    node.nags.add(int(value))
        elif kind in (0x04, 0x05):
            arrows = [a for a in node.arrows()]
            pairs = [(s.square, s.square, s.colour) for s in body.squares] if kind == 0x04 else \
                [(a.source, a.target, a.colour) for a in body.arrows]
            for tail, head, colour in pairs:
                tail_square, head_square = _square(tail), _square(head)
                if tail_square is None or head_square is None:
                    self.extras.items[position].append(("bad square", (tail, head)))
                    continue
                arrows.append(chess.svg.Arrow(tail_square, head_square, color=_COLOURS.get(int(colour), "green")))
            node.set_arrows(arrows)
        elif kind in (0x16, 0x17):
            if position < 0:  # seen (BielMTO): the clocks at the end of the game, shown at each side's last move
                self.final_clocks[kind == 0x16] = int(body.centiseconds)
            else:
                node.set_clock(int(body.centiseconds) / 100)
        else:
            name = str(item.type)
            value = {k: v for k, v in body.items() if not k.startswith("_")}
            self.extras.items[position].append((name, value))

    def finish(self, game: chess.pgn.Game) -> None:
        """Put the end-of-game clocks on the last main-line move of each side."""
        if not self.final_clocks:
            return
        last: dict[bool, chess.pgn.GameNode] = {}
        node: chess.pgn.GameNode = game
        while node.variations:
            node = node.variations[0]
            parent_board_turn = node.parent.turn() if node.parent is not None else chess.WHITE
            last[parent_board_turn] = node
        for white, centiseconds in self.final_clocks.items():
            target = last.get(chess.WHITE if white else chess.BLACK)
            if target is not None:
                target.set_clock(centiseconds / 100)
            else:
                self.extras.items[-1].append(("white_clock" if white else "black_clock", centiseconds))
