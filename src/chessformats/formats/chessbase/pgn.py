"""From a decoded ChessBase game to a ``chess.pgn.Game``: variation tree, setup, Chess960, annotations."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import chess
import chess.pgn
import chess.variant

from .moves import POP, PUSH, DecodedGame, DecodedMove

__all__ = ["build_game", "mainline_sans", "pgn_text", "stream_pgn_text", "tree_of"]

_Move = TypeVar("_Move")


def build_game(decoded: DecodedGame, headers: Mapping[str, str],
               annotate: Callable[[chess.pgn.GameNode, int], Any] | None = None) -> chess.pgn.Game:
    """The game as python-chess sees it; ``annotate(node, stream_index)`` adds annotations.

    ``stream_index`` counts the moves of the stream (depth first) from 1; ``annotate(game, 0)`` is
    called for the start position.
    """
    game = chess.pgn.Game()
    for name, value in headers.items():
        game.headers[name] = value
    _setup(game, decoded)
    chess960 = decoded.chess960
    if annotate is not None:
        annotate(game, 0)
    count = [0]

    def add(node: chess.pgn.GameNode, token: DecodedMove) -> chess.pgn.GameNode:
        child = node.add_variation(token.move(chess960=chess960))
        count[0] += 1
        if annotate is not None:
            annotate(child, count[0])
        return child

    _grow(decoded.tokens, game, add)
    return game


def _setup(game: chess.pgn.Game, decoded: DecodedGame) -> chess.Board:
    """Set the FEN, SetUp and Variant tags of a game that does not start from the standard position."""
    start = decoded.start
    if decoded.variant == "losing chess":  # modes 8/9: python-chess's giveaway (castling and king promotion allowed)
        losing = chess.variant.GiveawayBoard(start.fen())
        if start.standard:
            game.headers["Variant"] = chess.variant.GiveawayBoard.aliases[0]
        else:
            game.setup(losing)
        return losing
    if not decoded.chess960 and start.standard:
        return chess.Board()
    board = chess.Board(start.fen(), chess960=decoded.chess960)
    game.setup(board)
    if decoded.chess960:
        game.headers["Variant"] = "Chess960"
    return board


def _grow(tokens: Iterable[_Move | str], root: Any, add: Callable[[Any, _Move], Any]) -> None:
    """Grow a tree from the stream: ``add(parent, move) -> child``; "(" remembers a node, ")" goes back to it (a move:
    anything but a marker string)."""
    node, stack = root, []
    for token in tokens:
        if token is PUSH:
            stack.append(node)
        elif token is POP:
            if stack:
                node = stack.pop()
        elif not isinstance(token, str):
            node = add(node, token)


def tree_of(game: chess.pgn.GameNode) -> list[str]:
    """A game's moves as a flat list: UCI in depth-first order, "(" and ")" around each variation.

    Two games with the same moves and variations give the same list, whatever their formatting.
    """
    out: list[str] = []

    def walk(node: chess.pgn.GameNode) -> None:
        while node.variations:
            main, *others = node.variations
            out.append(main.move.uci())
            for other in others:
                out.append("(")
                out.append(other.move.uci())
                walk(other)
                out.append(")")
            node = main

    walk(game)
    return out



def pgn_text(game: chess.pgn.Game, sans: Mapping[chess.pgn.GameNode, str] | None = None) -> str:
    """The game as PGN text, writing what ``chess.pgn.StringExporter`` writes (python-chess's SAN) without its
    visitor: each move is played once, on one board, and variations start from a copy of the position they branch
    off.
    ``sans``: each node's SAN known already (the batch decoder's, :func:`.batch_pgn.annotated_pgn_texts`): no
    board plays the moves then."""
    tokens: list[str] = []
    if game.comment:
        tokens.append(_comment(game.comment))
    board = game.board()
    _walk(game, board if sans is None else _Named(board.turn, board.fullmove_number, sans), tokens, True)
    return _text(game.headers, tokens)


class _Named:
    """What :func:`_walk` asks of a board when every node's SAN is known: the side to move and the move number."""

    __slots__ = ("fullmove_number", "sans", "turn")

    def __init__(self, turn: bool, fullmove_number: int, sans: Mapping[chess.pgn.GameNode, str]) -> None:
        self.turn, self.fullmove_number, self.sans = turn, fullmove_number, sans

    def copy(self, *, stack: bool = False) -> _Named:
        return _Named(self.turn, self.fullmove_number, self.sans)

    def name(self, node: chess.pgn.GameNode) -> str:
        """The SAN of ``node``'s move, which is then played."""
        if not self.turn:
            self.fullmove_number += 1
        self.turn = not self.turn
        return self.sans[node]


def _text(headers: Mapping[str, str], tokens: list[str]) -> str:
    """The tags, then the movetext and the result wrapped at 80 columns."""
    lines = [f'[{name} "{_escape(value)}"]' for name, value in headers.items()]
    return "\n".join(lines) + "\n\n" + _wrap([*tokens, headers.get("Result", "*")]) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    return "{ " + text.replace("}", "").strip() + " }"


def _move(node: Any, board: chess.Board | _Named, tokens: list[str], force_number: bool) -> None:
    """Write one move (number, SAN, NAGs, comment) and play it."""
    if board.turn == chess.WHITE:
        tokens.append(f"{board.fullmove_number}.")
    elif force_number:
        tokens.append(f"{board.fullmove_number}...")
    tokens.append(board.name(node) if isinstance(board, _Named) else board.san_and_push(node.move))
    if node.nags:
        tokens.extend(f"${nag}" for nag in sorted(node.nags))
    if node.comment:
        tokens.append(_comment(node.comment))


def _walk(parent: Any, board: chess.Board | _Named, tokens: list[str], force_number: bool) -> None:
    """Write the moves below ``parent``: a ``chess.pgn`` node, or a :class:`_Light` one."""
    while parent.variations:
        main, *others = parent.variations
        before = board.copy(stack=False) if others else board
        _move(main, board, tokens, force_number)
        force_number = bool(main.comment)
        for other in others:
            tokens.append("(")
            if other.starting_comment:
                tokens.append(_comment(other.starting_comment))
            line = before.copy(stack=False)
            _move(other, line, tokens, True)
            _walk(other, line, tokens, bool(other.comment))
            tokens.append(")")
            force_number = True
        parent = main


def stream_pgn_text(decoded: DecodedGame, headers: Mapping[str, str]) -> str:
    """PGN text straight from a decoded stream without annotations (no ``chess.pgn.Game`` is built)."""
    holder = chess.pgn.Game()  # for the tags only: the same order and values as build_game gives
    for name, value in headers.items():
        holder.headers[name] = value
    board = _setup(holder, decoded)
    tokens: list[str] = []
    _walk(_light_tree(decoded), board, tokens, True)
    return _text(holder.headers, tokens)


def mainline_sans(decoded: DecodedGame, max_ply: int | None = None, *, checks: bool = False,
                  moves: list[chess.Move] | None = None) -> tuple[dict[str, str], list[str]]:
    """The tags a book builder needs (``FEN``, ``SetUp``, ``Variant`` when the game does not start from the
    standard position) and the first ``max_ply`` (default all) main-line moves as SAN, without check marks unless
    ``checks``; ``moves``: the main line when the caller has walked it already (:func:`main_line`)."""
    holder = chess.pgn.Game()
    board = _setup(holder, decoded)
    tags = {name: holder.headers[name] for name in ("FEN", "SetUp", "Variant") if name in holder.headers}
    if moves is None:
        moves = main_line(decoded)
    sans = [board.san_and_push(move) for move in moves[:max_ply]]
    return tags, sans if checks else [san.rstrip("+#") for san in sans]


def main_line(decoded: DecodedGame) -> list[chess.Move]:
    """The stream's main-line moves (castling as :meth:`.DecodedMove.move` gives it)."""
    node = _light_tree(decoded)
    moves = []
    while node.variations:
        node = node.variations[0]
        moves.append(node.move)
    return moves


class _Light:
    """A move of a stream's variation tree, with the attributes :func:`_walk` reads of a ``chess.pgn`` node."""

    __slots__ = ("move", "variations")
    nags = None
    comment = starting_comment = ""

    def __init__(self, move: chess.Move) -> None:
        self.move = move
        self.variations: list[_Light] = []


def _light_tree(decoded: DecodedGame) -> _Light:
    """The variation tree of a stream as :class:`_Light` nodes (no ``chess.pgn`` nodes)."""
    root = _Light(chess.Move.null())
    chess960 = decoded.chess960

    def add(node: _Light, token: DecodedMove) -> _Light:
        child = _Light(token.move(chess960=chess960))
        node.variations.append(child)
        return child

    _grow(decoded.tokens, root, add)
    return root


def _wrap(tokens: list[str], width: int = 80) -> str:
    lines: list[str] = []
    current = ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    if current:
        lines.append(current)
    return "\n".join(lines)
