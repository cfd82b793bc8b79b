"""``chessformats probe`` as a table a reader can take in: the position's results in words, its moves sorted by
share with percentages and scores, the meaning of each annotation symbol shown; the format's internals (raw codes,
entry numbers, rating sums, page offsets) only with ``--verbose`` (``--json`` gives everything)."""

from __future__ import annotations

from typing import Any

from .consoles import plain

__all__ = ["INTERNALS", "show_probe"]

INTERNALS = frozenset({"learn", "raw_move", "entry", "code", "nag", "annotation", "rating1", "rating2", "unknown1",
                       "unknown2", "page", "offset", "block", "recommendation", "comment", "symbol_meaning",
                       "comment_meaning"})
"""Keys of a probe's answer that describe how the format stores it, not the chess: shown with ``--verbose``."""


def _score(row: dict[str, Any]) -> float | None:
    """The score of the side to move (a position) or of the side that plays the move (a move), from 0 to 1."""
    games = (row.get("wins") or 0) + (row.get("draws") or 0) + (row.get("losses") or 0)
    if not games:
        return None
    return float(row["wins"] + row["draws"] / 2) / games


def _position_line(position: dict[str, Any], side: str) -> str:
    games = position.get("games")
    parts = [f"{games:,} games" if games is not None else "games unknown"]
    score = _score(position)
    if score is not None:
        parts.append(f"{side} (to move) won {position['wins']:,}, drew {position['draws']:,}, lost "
                     f"{position['losses']:,}: scores {100 * score:.1f}%")
    if position.get("average_rating"):
        parts.append(f"average rating {position['average_rating']:.0f}")
    if position.get("performance"):
        parts.append(f"{side} performs at {position['performance']:.0f}")
    if position.get("eco") or position.get("opening"):
        parts.append(" ".join(str(position[k]) for k in ("eco", "opening", "variation") if position.get(k)))
    if position.get("comment_symbol"):
        parts.append(f"{position['comment_symbol']} ({position.get('comment_meaning') or 'comment'})")
    if position.get("green"):
        parts.append("marked green (recommended)")
    if position.get("red"):
        parts.append("marked red (not recommended)")
    return "; ".join(parts)


def show_probe(console: Any, fen: str, position: dict[str, Any] | None, moves: list[dict[str, Any]], *,
               verbose: bool = False) -> None:
    """Print a probe: the position (with what the book stores about it), then its moves by share."""
    side = "white" if fen.split()[1] == "w" else "black"
    console.print(f"[bold]{fen}[/bold]")
    if position is not None:
        console.print("  " + _position_line(position, side))
        if verbose:
            console.print("  [dim]" + "  ".join(f"{k}={plain(v)}" for k, v in position.items()
                                               if k in INTERNALS and v is not None) + "[/dim]")
    if not moves:
        return
    ordered = sorted(moves, key=lambda row: -row["share"])  # (stable: equal shares keep the book's order)
    weights = all("games" not in row for row in moves)  # Polyglot: weights, no results
    head = f"  {'move':9} {'share':>6}  " + (f"{'weight':>6}" if weights else f"{'games':>7}  {'score':>6}")
    console.print(head + ("  (score: of the side that plays the move)" if not weights else ""))
    symbols: dict[str, str] = {}
    for row in ordered:
        symbol = row.get("symbol") or ""
        if symbol:
            symbols[symbol] = row.get("symbol_meaning") or ""
        line = f"  {row['san'] + symbol:9} {100 * row['share']:5.1f}%  "
        if weights:
            line += f"{row['weight']:6}"
        else:
            score = _score(row)
            line += f"{row.get('games', 0):7,}  " + (f"{100 * score:5.1f}%" if score is not None else "     -")
        if verbose:
            line += "  [dim]" + "  ".join(f"{k}={plain(v)}" for k, v in row.items() if k in INTERNALS or k == "uci") + \
                "[/dim]"
        console.print(line)
    if symbols:
        console.print("  " + ", ".join(f"{symbol} {meaning}" for symbol, meaning in symbols.items()))
