"""The HTML inspector: one self-contained page of a file's bytes, coloured by field, beside the tree of fields.

The page holds everything it shows (no network): the bytes of each inspected stretch in hex, each byte
coloured by the field it belongs to; the fields as a tree (path, value, chess meaning); hovering or clicking a
field highlights its bytes and, for bit fields, its bits, and shows its path, type, value and meaning.
Positions named in the chess annotations (a FEN: a CTG or Kvetka record's board, a Polyglot position given
with ``--fen``, a Monty start position) are drawn with python-chess's ``chess.svg``, with the book moves of
the same record as arrows. The fields come from :func:`chessformats.engine.trace.trace`, exactly as the
text hex view (:mod:`.hexview`) gets them; nothing here knows a format.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import chess
import chess.svg
import construct as cs

from ..engine.trace import TracedField, trace
from .hexview import field_meaning, format_value

__all__ = ["Stretch", "page", "read_targets", "stretch", "write_page"]

_FEN = re.compile(r"(?:[pnbrqkPNBRQK1-8]{1,8}/){7}[pnbrqkPNBRQK1-8]{1,8} [wb] (?:-|[KQkqA-Ha-h]{1,4}) (?:-|[a-h][36])"
                  r"(?: \d+ \d+)?")
_UCI = re.compile(r"^([a-h][1-8])([a-h][1-8])[qrbn]?\b")


class Stretch(NamedTuple):
    """A stretch of a file traced with its declaration: what the page shows of one inspect target."""

    path: str
    offset: int
    data: bytes
    fields: list[TracedField]
    annotations: Mapping[str, str]


def stretch(declaration: cs.Construct, data: bytes, *, offset: int = 0, path: str = "",
            annotations: Mapping[str, str] | None = None, file: str | None = None) -> Stretch:
    """Trace ``data`` (found at ``offset`` of its file) with ``declaration``."""
    _, fields = trace(declaration, data, offset=offset, path=path, file=file)
    return Stretch(path, offset, data, fields, dict(annotations or {}))


class Target(Protocol):
    """What the inspect command's handlers return (:class:`chessformats.cli.registry.InspectTarget`)."""

    @property
    def declaration(self) -> cs.Construct: ...
    @property
    def offset(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def path(self) -> str: ...
    @property
    def annotations(self) -> dict[str, str]: ...
    @property
    def file(self) -> str | None: ...


def read_targets(path: str, targets: Sequence[Target]) -> list[Stretch]:
    """Read and trace each target's bytes (from ``target.file``, else ``path``), as the text hex view does."""
    result = []
    for target in targets:
        source = target.file or path
        with open(source, "rb") as handle:
            handle.seek(target.offset)
            data = handle.read(target.size)
        result.append(stretch(target.declaration, data, offset=target.offset, path=target.path,
                              annotations=target.annotations, file=source))
    return result


def _field_json(field: TracedField, annotations: Mapping[str, str]) -> dict[str, Any]:
    item: dict[str, Any] = {
        "path": field.path, "name": field.name, "start": field.start, "end": field.end, "depth": field.depth,
        "leaf": field.leaf, "type": field.type, "value": format_value(field) if field.leaf else "",
        "meaning": field_meaning(field), "note": annotations.get(field.path, ""),
    }
    if field.bit_start is not None:
        item["bitStart"], item["bitEnd"] = field.bit_start, field.bit_end
        item["bits"] = list(field.bits) if field.bits else None
        item["little"] = field.little_endian
    if not field.leaf and isinstance(field.value, list):
        item["value"] = f"{len(field.value)} items"
    return item


def _boards(stretches: Sequence[Stretch]) -> list[dict[str, str]]:
    """One diagram per position named in the annotations, with the moves of the same records as arrows."""
    positions: dict[str, tuple[str, list[chess.svg.Arrow]]] = {}
    for one in stretches:
        own = {key: text for key, text in one.annotations.items() if key.startswith(one.path)}
        found = next((match.group() for text in own.values() if (match := _FEN.search(text))), None)
        if found is None:
            continue
        try:
            board = chess.Board(found)
        except ValueError:
            continue
        caption, arrows = positions.setdefault(board.fen(), (found, []))
        for text in own.values():
            move = _UCI.match(text)
            if move and move.group(1) != move.group(2):
                arrow = chess.svg.Arrow(chess.parse_square(move.group(1)), chess.parse_square(move.group(2)))
                if arrow not in arrows:
                    arrows.append(arrow)
    result = []
    for fen, (caption, arrows) in positions.items():
        svg = chess.svg.board(chess.Board(fen), arrows=arrows, size=280)
        result.append({"fen": caption, "svg": svg})
    return result


def page(title: str, stretches: Sequence[Stretch]) -> str:
    """The HTML page of the traced ``stretches`` of a file."""
    data = {
        "title": title,
        "stretches": [{"path": s.path, "offset": s.offset, "hex": s.data.hex(),
                       "fields": [_field_json(f, s.annotations) for f in s.fields if f.path]}
                      for s in stretches],
    }
    boards = _boards(stretches)
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    figures = "".join(f'<figure class="board">{b["svg"]}<figcaption>{html.escape(b["fen"])}</figcaption></figure>'
                      for b in boards)
    return (_TEMPLATE.replace("{{TITLE}}", html.escape(title)).replace("{{BOARDS}}", figures)
            .replace("{{DATA}}", payload).replace("{{STYLE}}", _STYLE).replace("{{SCRIPT}}", _SCRIPT))


def write_page(out: str | os.PathLike[str], title: str, stretches: Sequence[Stretch]) -> Path:
    path = Path(out)
    path.write_text(page(title, stretches), encoding="utf-8")
    return path


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="chessformats inspect --html">
<title>{{TITLE}}</title>
<style>{{STYLE}}</style>
</head>
<body>
<header><h1>{{TITLE}}</h1>
<div id="details" class="details">Hover or click a field (tree) or a byte (hex).</div></header>
<section id="boards">{{BOARDS}}</section>
<main id="stretches"></main>
<script type="application/json" id="data">{{DATA}}</script>
<script>{{SCRIPT}}</script>
</body>
</html>
"""

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ccc; padding: 6px 12px; z-index: 2; }
h1 { font-size: 16px; margin: 0 0 4px 0; }
.details { font-size: 13px; min-height: 3.6em; white-space: pre-wrap; }
.details .path { font-family: monospace; font-weight: bold; }
#boards { display: flex; flex-wrap: wrap; gap: 12px; padding: 8px 12px; }
figure.board { margin: 0; } figcaption { font: 11px monospace; max-width: 280px; word-break: break-all; }
.stretch { display: flex; gap: 16px; padding: 8px 12px; align-items: flex-start; }
.stretch h2 { font-size: 13px; font-family: monospace; margin: 0 0 4px 0; }
.hex { font: 13px/1.5 monospace; white-space: nowrap; }
.row .addr { color: #888; margin-right: 8px; }
.byte { display: inline-block; width: 2.2ch; text-align: center; margin-right: 0.4ch; border-radius: 2px;
        cursor: pointer; }
.byte.sel { outline: 2px solid #d00; background: #ffd54f !important; }
.byte.hov { outline: 1px dashed #333; }
.tree { font: 12px/1.45 monospace; max-height: 80vh; overflow: auto; flex: 1; min-width: 320px; }
.node { cursor: pointer; white-space: nowrap; padding: 0 4px; border-radius: 2px; }
.node.container { color: #555; font-weight: bold; }
.node.sel { background: #ffd54f; } .node.hov { background: #eee; }
.node .val { color: #05a; } .node .note { color: #a40; }
.bitstrip { display: inline-flex; gap: 1px; margin-left: 4px; vertical-align: middle; }
.bit { width: 12px; height: 14px; font: 10px/14px monospace; text-align: center; background: #eee; }
.bit.on { background: #d00; color: #fff; } .bit.gap { margin-left: 4px; }
"""

_SCRIPT = r"""
const DATA = JSON.parse(document.getElementById('data').textContent);
const PALETTE = ['#b3e5fc', '#c8e6c9', '#f8bbd0', '#fff9c4', '#d1c4e9', '#ffccbc', '#b2dfdb', '#f0f4c3'];
const details = document.getElementById('details');
const all = [];  // every field: {field, stretch index, tree node, byte spans}
let selected = null;

function esc(text) { const d = document.createElement('span'); d.textContent = text; return d.innerHTML; }

function bitStrip(f, hex, base) {
  if (f.bitStart === undefined || f.bitStart === null || f.little) return '';
  let out = '<span class="bitstrip">';
  for (let b = f.start; b < f.end; b++) {
    const byte = parseInt(hex.substr(2 * (b - base), 2), 16);
    for (let i = 0; i < 8; i++) {
      const bit = 8 * b + i, on = bit >= f.bitStart && bit < f.bitEnd;
      out += '<span class="bit' + (on ? ' on' : '') + (i === 0 && b > f.start ? ' gap' : '') + '" data-bit="' + bit +
             '">' + ((byte >> (7 - i)) & 1) + '</span>';
    }
  }
  return out + '</span>';
}

function describe(entry) {
  const f = entry.field, s = DATA.stretches[entry.stretch];
  let text = '<span class="path">' + esc(f.path) + '</span>  ' + esc(f.type) + '  bytes ' + f.start +
             (f.end - f.start > 1 ? '-' + (f.end - 1) : '') + ' (' + (f.end - f.start) + ')';
  if (f.bits) text += '  bits ' + f.bits[0] + (f.bits[1] !== f.bits[0] ? '-' + f.bits[1] : '') +
                      (f.little ? ' of the little-endian integer' : '');
  text += bitStrip(f, s.hex, s.offset);
  if (f.value) text += '\n= ' + esc(f.value);
  if (f.note) text += '  => ' + esc(f.note);
  if (f.meaning) text += '\n' + esc(f.meaning);
  details.innerHTML = text;
}

function mark(entry, cls, on) {
  entry.node.classList.toggle(cls, on);
  for (const span of entry.bytes) span.classList.toggle(cls, on);
}

function select(entry) {
  if (selected) mark(selected, 'sel', false);
  selected = entry;
  mark(entry, 'sel', true);
  describe(entry);
}

function innermost(stretch, offset) {
  let best = null;
  for (const entry of all) {
    const f = entry.field;
    if (entry.stretch === stretch && f.start <= offset && offset < f.end &&
        (!best || f.depth >= best.field.depth)) best = entry;
  }
  return best;
}

DATA.stretches.forEach((s, si) => {
  const box = document.createElement('section'); box.className = 'stretch';
  const hexBox = document.createElement('div'); hexBox.className = 'hex';
  hexBox.innerHTML = '<h2>' + esc(s.path || '(file)') + ' @ ' + s.offset + '</h2>';
  const tree = document.createElement('div'); tree.className = 'tree';
  const count = s.hex.length / 2, spans = [];
  const first = s.offset - (s.offset % 16);
  let row = null;
  for (let a = first; a < s.offset + count; a++) {
    if (a % 16 === 0 || !row) {
      row = document.createElement('div'); row.className = 'row';
      row.innerHTML = '<span class="addr">' + a.toString(16).padStart(8, '0') + '</span>';
      hexBox.appendChild(row);
    }
    const span = document.createElement('span'); span.className = 'byte';
    if (a >= s.offset) {
      span.textContent = s.hex.substr(2 * (a - s.offset), 2); span.dataset.offset = a; spans[a - s.offset] = span;
      span.addEventListener('mouseenter', () => {
        const e = innermost(si, a); if (e) { mark(e, 'hov', true); describe(e); }
      });
      span.addEventListener('mouseleave', () => { const e = innermost(si, a); if (e) mark(e, 'hov', false); });
      span.addEventListener('click', () => { const e = innermost(si, a); if (e) select(e); });
    } else { span.textContent = '  '; }
    row.appendChild(span);
  }
  let colour = 0;
  s.fields.forEach((f) => {
    const node = document.createElement('div');
    node.className = 'node' + (f.leaf ? '' : ' container');
    node.style.paddingLeft = (4 + 14 * f.depth) + 'px';
    node.dataset.path = f.path;
    node.innerHTML = esc(f.name || f.path) + (f.value ? ' = <span class="val">' + esc(f.value) + '</span>' : '') +
                     (f.note ? ' <span class="note">=> ' + esc(f.note) + '</span>' : '');
    node.title = f.path + (f.meaning ? '\n' + f.meaning : '');
    const bytes = [];
    for (let b = f.start; b < f.end; b++) if (spans[b - s.offset]) bytes.push(spans[b - s.offset]);
    const entry = {field: f, stretch: si, node: node, bytes: bytes};
    if (f.leaf) {  // a byte takes the colour of the deepest field holding it (a square's code word, not the board)
      const paint = PALETTE[colour++ % PALETTE.length];
      for (const span of bytes) {
        if (!span.dataset.depth || f.depth >= Number(span.dataset.depth)) {
          span.style.background = paint; span.dataset.depth = f.depth;
        }
      }
    }
    node.addEventListener('mouseenter', () => { mark(entry, 'hov', true); describe(entry); });
    node.addEventListener('mouseleave', () => { mark(entry, 'hov', false); if (selected) describe(selected); });
    node.addEventListener('click', () => select(entry));
    all.push(entry);
    tree.appendChild(node);
  });
  box.appendChild(hexBox); box.appendChild(tree);
  document.getElementById('stretches').appendChild(box);
});
"""
