"""ChessBase annotations (``.cba`` items) as PGN: comments, NAGs, ``[%csl]``/``[%cal]``, ``[%clk]``/``[%emt]``,
``[%eval]`` and the ``TimeControl`` tag.

Items are attached by their position: -1 is the whole game, p >= 0 the (p+1)-th move of the stored stream
(depth first, variations included). Symbol bytes are PGN NAG numbers (seen: every symbol of
``libcbh_Annotation`` against its PGN export). What PGN cannot hold is kept in :class:`Extras`, with
readable values. Layouts of the rarer items follow the Java project Yarin78/morphy (see the schema).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import chess

from ...engine.schema import enum_view
from ...schemas import chessbase as schema
from ...schemas.chessbase import NATIONS

if TYPE_CHECKING:  # (imported where used: writing a base from PGN text reads none of this module's games)
    import chess.engine
    import chess.pgn
    import chess.svg

__all__ = ["Annotator", "Extras", "decode_bytes", "decode_text", "time_control_tag"]

_COLOURS = frozenset(enum_view(schema.COLOUR).names.values()) & {"green", "yellow", "red", "blue"}
"""The COLOUR names that are python-chess arrow colours (the others are drawn green)."""


def decode_bytes(raw: bytes, encoding: str | None = None) -> str:
    """Text of the base: UTF-8 when valid, else cp1252 (``encoding`` overrides); never raises (U+FFFD)."""
    if encoding:
        return raw.decode(encoding, errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def decode_text(raw: bytes, encoding: str | None = None) -> str:
    """An annotation text (:func:`decode_bytes`); in a code page, 0x9E (a diagram) becomes ``[#]``."""
    if not encoding:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            encoding = "cp1252"
    return decode_bytes(raw.replace(b"\x9e", b"[#]"), encoding)


@dataclass
class Extras:
    """Annotations without a PGN form, by stream position (-1: the whole game)."""

    items: dict[int, list[tuple[str, Any]]] = field(default_factory=lambda: defaultdict(list))


def time_control_tag(periods: list[Any]) -> str | None:
    """The PGN ``TimeControl`` value of a time control item's periods, or None when PGN cannot say it.

    Each used period gives ``[moves/]seconds[+increment]`` (moves only when 0 < moves < 1000), joined by
    ``:`` as the PGN standard joins periods; unused periods (all zeros, or kind 5) are left out. The increment
    is written when it is not zero, and on a period of kind 3 ("the rest of the game, with an increment") even
    when it is: lichess's ``180+0`` stays ``180+0``.
    """
    parts = []
    for period in periods:
        start, increment, moves, kind = (int(period.start), int(period.increment), int(period.moves),
                                         int(period.kind))
        if kind == 5 or (start == increment == moves == kind == 0):
            continue
        if start % 100 or increment % 100 or start <= 0:
            return None
        part = str(start // 100)
        if increment or kind == 3:
            part += f"+{increment // 100}"
        if 0 < moves < 1000:
            part = f"{moves}/{part}"
        parts.append(part)
    return ":".join(parts) or None


def _evaluation(value: int, kind: str) -> chess.engine.PovScore | None:
    """An engine evaluation as a score from White's point of view (centipawns, or mate in ``value``)."""
    import chess.engine

    if kind == "centipawns":
        return chess.engine.PovScore(chess.engine.Cp(value), chess.WHITE)
    if kind == "mate" and value:
        return chess.engine.PovScore(chess.engine.Mate(value), chess.WHITE)
    return None


def _string(raw: bytes, encoding: str | None) -> str:
    return decode_text(raw, encoding).rstrip("\0")


def _readable(kind: str, body: Any, encoding: str | None) -> Any:
    """The value kept in :class:`Extras` for an item without a PGN form."""
    if kind == "training":
        return {"seconds": int(body.seconds), "points": int(body.points), "question": bytes(body.question)}
    if kind == "picture":
        text = bytes(body.number).decode("ascii", errors="replace").strip("\0 ")
        return {"picture": int(text) if text.isdigit() else text}
    if kind == "game_link":
        nation = int(body.nation)
        return {"kind": str(body.kind), "white": _string(body.white, encoding),
                "black": _string(body.black, encoding), "white_elo": int(body.white_elo),
                "black_elo": int(body.black_elo), "event": _string(body.event, encoding),
                "site": _string(body.site, encoding),
                "date": f"{int(body.date.year):04d}.{int(body.date.month):02d}.{int(body.date.day):02d}",
                "nation": NATIONS[nation - 1] if 1 <= nation <= len(NATIONS) else nation,
                "round": int(body.round), "subround": int(body.subround), "result": str(body.result),
                "setup": body.setup is not None, "moves": bytes(body.moves)}
    if kind == "pawn_structure":
        return {"structure": int(body.kind)}
    if kind == "piece_path":
        square = _square(int(body.square))
        return {"kind": int(body.kind), "square": chess.square_name(square) if square is not None else None}
    if kind == "web_link":
        return {"url": _string(body.url, encoding), "text": _string(body.text, encoding)}
    if kind == "video":
        return {"language": str(body.language), "caption": _string(body.caption, encoding)}
    if kind == "engine_evaluation":
        return {"value": int(body.value), "kind": str(body.kind), "depth": int(body.depth)}
    if kind == "time_control":
        return [{"seconds": int(p.start) / 100, "increment": int(p.increment) / 100, "moves": int(p.moves),
                 "kind": str(p.kind)} for p in body.periods]
    if kind == "evaluation_list":
        return [{"kind": str(e.kind), "depth": int(e.depth),
                 "evaluation": None if str(e.kind) == "none" else
                 f"#{int(e.value)}" if str(e.kind) == "mate" else f"{int(e.value) / 100:.2f}"}
                for e in body.entries]
    fields = body._asdict() if hasattr(body, "_asdict") else body  # a generated record, or construct's Container
    return {k: v for k, v in fields.items() if not k.startswith("_")}


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
        self.time_control: str | None = None

    def __call__(self, node: chess.pgn.GameNode, index: int) -> None:
        items = self.by_position.get(index - 1)
        if not items:
            return
        for item in items:
            self._apply(node, index - 1, item)

    def _apply(self, node: chess.pgn.GameNode, position: int, item: Any) -> None:
        kind = str(item.type)
        body = item.body
        if kind in ("text_after", "text_before"):
            text = decode_text(body.text, self.encoding).strip()
            if not text:
                return
            if kind == "text_after" or position < 0:
                node.comment = f"{node.comment} {text}".strip() if node.comment else text
            elif node.starts_variation():
                node.starting_comment = f"{node.starting_comment} {text}".strip() if node.starting_comment else text
            elif node.parent is not None:
                parent = node.parent
                parent.comment = f"{parent.comment} {text}".strip() if parent.comment else text
        elif kind == "symbols":
            for value in (body.move_symbol, body.evaluation, body.prefix):
                if value is not None and int(value):
                    node.nags.add(int(value))
        elif kind in ("squares", "arrows"):
            import chess.svg  # (python-chess's PGN module, which made the node, has imported it)

            arrows = [a for a in node.arrows()]
            pairs = [(s.square, s.square, s.colour) for s in body.squares] if kind == "squares" else \
                [(a.source, a.target, a.colour) for a in body.arrows]
            for tail, head, colour in pairs:
                tail_square, head_square = _square(tail), _square(head)
                if tail_square is None or head_square is None:
                    self.extras.items[position].append(("bad square", (tail, head)))
                    continue
                name = str(colour)
                arrows.append(chess.svg.Arrow(tail_square, head_square, color=name if name in _COLOURS else "green"))
            node.set_arrows(arrows)
        elif kind in ("white_clock", "black_clock"):
            if position < 0:  # seen (BielMTO): the clocks at the end of the game, shown at each side's last move
                self.final_clocks[kind == "white_clock"] = int(body.centiseconds)
            else:
                node.set_clock(int(body.centiseconds) / 100)
        elif kind == "time_spent":
            node.set_emt(3600 * int(body.hours) + 60 * int(body.minutes) + int(body.seconds))
        elif kind == "engine_evaluation" and (score := _evaluation(int(body.value), str(body.kind))) is not None:
            node.set_eval(score, int(body.depth) if int(body.depth) > 0 else None)
        elif kind == "time_control" and (tag := time_control_tag(list(body.periods))) is not None:
            self.time_control = tag
        else:
            self.extras.items[position].append((str(item.type), _readable(kind, body, self.encoding)))

    def finish(self, game: chess.pgn.Game) -> None:
        """Put the end-of-game clocks on the last main-line move of each side; set the TimeControl tag."""
        if self.time_control is not None:
            game.headers["TimeControl"] = self.time_control
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
