"""Monty training data (policy and value formats): reading, writing, move codes, visit distributions.

>>> from chessformats import monty
>>> for game in monty.read_games("data.montyformat"):           # doctest: +SKIP
...     for ply in game.plies:
...         print(ply.board.fen(), ply.move, ply.score, ply.visits)
>>> with monty.open_games("data.montyvalue") as games:          # doctest: +SKIP
...     print(len(games), games[0].result)

The format (policy or value) is found from the bytes unless ``format=`` names it (:func:`detect_format`).

The byte layout lives in :mod:`chessformats.schemas.monty`; the modules here add the chess meaning:
:mod:`.moves` (the u16 move codes; legal moves come from the chess kernel, :mod:`chessformats.kernel`: the
visit bytes of a ply belong to the legal moves of its position sorted by their codes), :mod:`.model` (games,
plies and the records' fast paths), :mod:`.structure` (a file's games as bytes), :mod:`.bulk` and
:mod:`.arrays` (files as numpy arrays, no object per ply, for training), :mod:`.games` (games from the
arrays), :mod:`.read` and :mod:`.write`.
"""

from __future__ import annotations

from .model import FORMATS, ROUNDINGS, Game, Ply
from .moves import decode_move, encode_move, legal_codes
from .read import GameFile, detect_format, open_games, read_games
from .write import visit_bytes, write_games

__all__ = [
    "FORMATS",
    "ROUNDINGS",
    "Game",
    "GameFile",
    "Ply",
    "decode_move",
    "detect_format",
    "encode_move",
    "legal_codes",
    "open_games",
    "read_games",
    "visit_bytes",
    "write_games",
]
