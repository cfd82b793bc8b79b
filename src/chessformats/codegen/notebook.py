"""Pictures of records in notebooks (Jupyter, VS Code): what ``_repr_html_`` and ``_repr_svg_`` answer.

Importing this module registers its renderers with :mod:`chessformats.engine.display`; the package does that on
the first picture a notebook asks for, so the records of the formats layer show without importing this layer.

- A probe result of a book (Polyglot :class:`~chessformats.formats.polyglot.read.PolyglotPosition`, CTG
  :class:`~chessformats.formats.ctg.model.PositionRecord`, Kvetka
  :class:`~chessformats.formats.kvetka.model.ProbeResult`): python-chess's board with the book moves as arrows,
  beside a table of the moves and their statistics, and under them the stored bytes annotated field by field.
  As SVG: the board alone.
- A record (a Polyglot entry, a CTG record, a Kvetka element): its bytes annotated field by field, as the HTML
  inspector (:mod:`.html`) shows them: each byte coloured by its field, beside the fields' paths, values, chess
  meaning and declared meaning. Static HTML with inline styles: no script, so it shows wherever a notebook is
  rendered.
- A ChessBase game header: its tags as a table, with the teams, medals and flags.

Every text that comes from a file (names, comments, values) is escaped: file content is untrusted.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

import chess
import chess.svg

from ..engine import display
from ..formats.chessbase.games import GameHeader
from ..formats.ctg.model import PositionRecord, record_notes
from ..formats.kvetka.model import Element, ProbeResult, element_notes
from ..formats.polyglot.read import Entry, PolyglotPosition
from ..schemas import ctg as ctg_schema
from ..schemas import kvetka as kvetka_schema
from ..schemas import polyglot as polyglot_schema
from ..schemas.polyglot_facts import ENTRY_FORMAT
from .hexview import field_meaning, format_value
from .html import Stretch, stretch

__all__ = ["board_svg", "game_header_html", "hex_html", "position_html"]

PALETTE = ("#b3e5fc", "#c8e6c9", "#f8bbd0", "#fff9c4", "#d1c4e9", "#ffccbc", "#b2dfdb", "#f0f4c3")
"""The HTML inspector's colours, one per field in turn."""
BOARD_SIZE = 260
_ROW = 16  # bytes per hex row, as the inspector
_CELL = "padding:1px 6px;text-align:left;vertical-align:top;border:none"
_MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;line-height:1.45"
_ENTRY = struct.Struct(ENTRY_FORMAT)


# --- annotated bytes ------------------------------------------------------------------------------------------

def hex_html(part: Stretch) -> str:
    """The annotated bytes of one traced stretch: a hex grid, each byte coloured by its (deepest) field, beside the
    fields with their values, chess meaning and declared meaning."""
    prefix = f"{part.path}." if part.path else ""
    colours: dict[int, tuple[int, str, str]] = {}  # byte offset -> (depth, colour, field path)
    rows = []
    leaf_number = 0
    for field in part.fields:
        if not field.path:
            continue
        shown = field.path[len(prefix):] if field.path.startswith(prefix) else field.path
        note = part.annotations.get(field.path, "")
        indent = f"padding-left:{6 + 12 * max(field.depth - 1, 0)}px"
        if field.leaf:
            colour = PALETTE[leaf_number % len(PALETTE)]
            leaf_number += 1
            for offset in range(field.start, field.end):
                if offset not in colours or field.depth >= colours[offset][0]:
                    colours[offset] = (field.depth, colour, shown)
            bits = ""
            if field.bits is not None:
                low, high = field.bits
                bits = f" (bit {low})" if low == high else f" (bits {low}-{high})"
            rows.append(
                f'<tr><td style="{_CELL};{indent}"><span style="background:{colour};padding:0 3px">'
                f"{escape(shown)}</span>{escape(bits)}</td>"
                f'<td style="{_CELL};color:#05a">{escape(format_value(field))}</td>'
                f'<td style="{_CELL};color:#a40">{escape(note)}</td>'
                f'<td style="{_CELL};color:#666;font-style:italic">{escape(field_meaning(field))}</td></tr>')
        else:
            size = f"{field.end - field.start} bytes"
            rows.append(
                f'<tr><td style="{_CELL};{indent};font-weight:bold;color:#555">{escape(shown)}</td>'
                f'<td style="{_CELL};color:#888">{escape(size)}</td>'
                f'<td style="{_CELL};color:#a40">{escape(note)}</td>'
                f'<td style="{_CELL};color:#666;font-style:italic">{escape(field.meaning)}</td></tr>')
    grid = []
    first = part.offset - part.offset % _ROW
    end = part.offset + len(part.data)
    for row in range(first, end, _ROW):
        cells = []
        for at in range(row, min(row + _ROW, end)):
            if at < part.offset:
                cells.append("  ")
                continue
            byte = f"{part.data[at - part.offset]:02x}"
            depth_colour_path = colours.get(at)
            if depth_colour_path is None:
                cells.append(byte)
            else:
                _, colour, path = depth_colour_path
                cells.append(f'<span style="background:{colour}" title="{escape(path)}">{byte}</span>')
        grid.append(f'<span style="color:#888">{row:08x}</span>  ' + " ".join(cells))
    title = escape(f"{part.path or '(record)'} at {part.offset:#x} ({part.offset}): {len(part.data)} bytes")
    return (f'<div class="chessformats-hex" style="{_MONO}">'
            f'<div style="font-weight:bold;margin:4px 0">{title}</div>'
            f'<div style="display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start">'
            f'<pre style="margin:0;{_MONO}">' + "\n".join(grid) + "</pre>"
            f'<table style="border-collapse:collapse;{_MONO}"><tbody>' + "".join(rows) + "</tbody></table>"
            "</div></div>")


def _entry_stretch(entry: Entry, board: chess.Board | None = None) -> Stretch:
    prefix = f"entries[{entry.number}]"
    notes = {f"{prefix}.move": entry.move.uci() if entry.move else "a1a1 (ignored)"}
    if board is not None:
        notes[f"{prefix}.key"] = board.fen()
    data = _ENTRY.pack(entry.key, entry.raw_move, entry.weight, entry.learn)
    return stretch(polyglot_schema.ENTRY, data, offset=entry.number * _ENTRY.size, path=prefix, annotations=notes)


def _record_stretch(record: PositionRecord) -> Stretch:
    known = record.page is not None and record.number is not None
    prefix = f"pages[{record.page}].records[{record.number}]" if known else "record"
    notes = record_notes(prefix, record)
    stored = [change for change, done in (("colours flipped", record.flipped), ("files mirrored", record.mirrored))
              if done]
    if stored:  # the record stores the normalised board, not the probed one
        notes[f"{prefix}.position"] += f" (as probed; stored with {' and '.join(stored)})"
    return stretch(ctg_schema.RECORD, record.to_bytes(), offset=record.offset or 0, path=prefix, annotations=notes)


def _element_stretch(element: Element) -> Stretch:
    prefix = "element" if element.block is None else f"blocks[{element.block}].element"
    return stretch(kvetka_schema.ELEMENT, element.to_bytes(), offset=element.offset or 0, path=prefix,
                   annotations=element_notes(prefix, element))


def _details(summary: str, parts: Iterable[Stretch]) -> str:
    body = "".join(hex_html(part) for part in parts)
    return f'<details style="margin-top:6px"><summary>{escape(summary)}</summary>{body}</details>'


# --- probe results --------------------------------------------------------------------------------------------

def board_svg(board: chess.Board, moves: Iterable[chess.Move], *, size: int = BOARD_SIZE) -> str:
    """python-chess's board with ``moves`` as arrows (each from-to pair once)."""
    arrows: list[chess.svg.Arrow] = []
    for move in moves:
        if move and move.from_square != move.to_square:
            arrow = chess.svg.Arrow(move.from_square, move.to_square)
            if arrow not in arrows:
                arrows.append(arrow)
    return chess.svg.board(board, arrows=arrows, size=size)


def _move_name(board: chess.Board | None, move: chess.Move) -> str:
    if board is not None and board.is_legal(move):
        return board.san(move)
    return move.uci()


def _table(caption: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A table; a column empty in every row (weights a probe does not give, say) is left out."""
    rows = list(rows)
    kept = [index for index in range(len(columns))
            if index < 2 or any(row[index] not in (None, "") for row in rows)]
    columns = [columns[index] for index in kept]
    rows = [[row[index] for index in kept] for row in rows]
    head = "".join(f'<th style="{_CELL};border-bottom:1px solid #999">{escape(name)}</th>' for name in columns)
    body = "".join("<tr>" + "".join(f'<td style="{_CELL}">{escape("" if value is None else str(value))}</td>'
                                    for value in row) + "</tr>" for row in rows)
    return (f'<table style="border-collapse:collapse"><caption style="text-align:left;font-weight:bold">'
            f"{escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def _facts(items: Mapping[str, Any]) -> str:
    shown = [f"<b>{escape(name)}</b> {escape(str(value))}" for name, value in items.items() if value is not None]
    return '<p style="margin:6px 0">' + " &middot; ".join(shown) + "</p>"


def position_html(title: str, board: chess.Board | None, moves: Sequence[chess.Move], table: str,
                  facts: Mapping[str, Any], stored: str) -> str:
    """A probe result: the board (when known) with its ``moves`` as arrows, beside its moves table and the
    position's facts; the stored bytes under them."""
    picture = "" if board is None else f"<div>{board_svg(board, moves)}</div>"
    return (f'<div class="chessformats-position"><div style="font-weight:bold">{escape(title)}</div>'
            f'<div style="display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start">{picture}'
            f'<div style="flex:1;min-width:280px">{table}{_facts(facts)}</div></div>{stored}</div>')


def _polyglot_html(found: PolyglotPosition) -> str:
    total = sum(entry.weight for entry in found.moves)
    rows = [(_move_name(found.board, e.move), e.move.uci(), e.weight,
             f"{100 * e.weight / total:.1f}%" if total else "", e.learn) for e in found.moves]
    table = _table(f"{len(rows)} move{'s' * (len(rows) != 1)}", ("move", "uci", "weight", "share", "learn"), rows)
    facts = {"key": f"{found.key:#018x}", "position": found.board.fen() if found.board is not None else None}
    return position_html("Polyglot book position", found.board, [e.move for e in found.moves], table, facts,
                         _details("stored entries", (_entry_stretch(e, found.board) for e in found.moves)))


def _ctg_html(record: PositionRecord) -> str:
    rows = [(_move_name(record.board, m.move), m.move.uci(), m.symbol, m.weight) for m in record.moves]
    table = _table(f"{len(rows)} move{'s' * (len(rows) != 1)}", ("move", "uci", "annotation", "weight"), rows)
    rating = record.average_rating
    performance = record.performance
    facts = {"games": record.games, "wins": record.wins, "draws": record.draws, "losses": record.losses,
             "average rating": None if rating is None else round(rating),
             "performance": None if performance is None else round(performance),
             "recommended": "green" if record.green else "red" if record.red else None,
             "comment": record.comment_symbol or None, "position": record.board.fen()}
    return position_html("CTG book position", record.board, [m.move for m in record.moves], table, facts,
                         _details("stored record", [_record_stretch(record)]))


def _kvetka_html(found: ProbeResult) -> str:
    rows = [(_move_name(found.board, m.move), m.move.uci(), f"0x{m.code:02x}", m.weight) for m in found.moves]
    table = _table(f"{len(rows)} move{'s' * (len(rows) != 1)}", ("move", "uci", "code", "weight"), rows)
    opening = found.opening
    facts = {"games": found.games, "wins": found.wins, "draws": found.draws, "losses": found.losses,
             "opening": None if opening is None else f"{opening.code} {opening.name}"
             + (f", {opening.variation}" if opening.variation else ""),
             "comment": found.comment if opening is None else None, "position": found.board.fen()}
    return position_html("Kvetka book position", found.board, [m.move for m in found.moves], table, facts,
                         _details("stored element", [_element_stretch(found.element)]))


def _position_svg(found: Any) -> str:
    return board_svg(found.board, [move.move for move in found.moves])


def _polyglot_svg(found: PolyglotPosition) -> str | None:
    return None if found.board is None else _position_svg(found)


# --- a game header --------------------------------------------------------------------------------------------

_SEVEN = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


def game_header_html(game: GameHeader) -> str:
    """A ChessBase game's tags (the seven of PGN first), teams, medals and flags."""
    tags: list[tuple[str, Any]] = [(name, game.headers[name]) for name in _SEVEN if name in game.headers]
    tags += [(name, value) for name, value in game.headers.items() if name not in _SEVEN]
    extra = {"White team": game.white_team, "Black team": game.black_team,
             "Chess960 position": game.chess960_position, "medals": ", ".join(game.medals) or None,
             "flags": ", ".join(game.flags) or None, "deleted": "yes" if game.deleted else None}
    tags += [(name, value) for name, value in extra.items() if value is not None]
    white, black = game.headers.get("White", "?"), game.headers.get("Black", "?")
    caption = f"Game {game.number}: {white} - {black}"
    return f'<div class="chessformats-game">{_table(caption, ("tag", "value"), tags)}</div>'


display.register(PolyglotPosition, "html", _polyglot_html)
display.register(PolyglotPosition, "svg", _polyglot_svg)
display.register(PositionRecord, "html", _ctg_html)
display.register(PositionRecord, "svg", _position_svg)
display.register(ProbeResult, "html", _kvetka_html)
display.register(ProbeResult, "svg", _position_svg)
display.register(Entry, "html", lambda entry: hex_html(_entry_stretch(entry)))
display.register(Element, "html", lambda element: hex_html(_element_stretch(element)))
display.register(GameHeader, "html", game_header_html)
