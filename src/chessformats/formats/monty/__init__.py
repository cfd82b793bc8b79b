"""Monty training data (policy and value formats): reading, writing, move codes, visit distributions.

>>> from chessformats import monty
>>> for game in monty.read_games("data.montyformat"):           # doctest: +SKIP
...     for ply in game.plies:
...         print(ply.board.fen(), ply.move, ply.score, ply.visits)
>>> with monty.open_games("data.montyvalue") as games:          # doctest: +SKIP
...     print(len(games), games[0].result)
>>> arrays = monty.read_arrays("data.montyformat")              # doctest: +SKIP
>>> for batch in monty.iter_plies("data.montyformat", batch_size=16384, shuffle=1 << 20):  # doctest: +SKIP
...     train(batch.boards, batch.move, batch.visit_offsets, batch.visits, batch.visit_moves)

The format (policy or value) is found from the bytes unless ``format=`` names it (:func:`detect_format`).

The byte layout lives in :mod:`chessformats.schemas.monty`; the modules here add the chess meaning:
:mod:`.moves` (the u16 move codes; legal moves come from the chess kernel, :mod:`chessformats.kernel`: the
visit bytes of a ply belong to the legal moves of its position sorted by their codes), :mod:`.model` (games,
plies and the records' fast paths), :mod:`.structure` (a file's games as bytes), :mod:`.bulk` and
:mod:`.arrays` (files as numpy arrays, no object per ply, for training), :mod:`.games` (games from the
arrays), :mod:`.read` and :mod:`.write`.
"""

from __future__ import annotations

from .arrays import MontyArrays, PlyArrays, piece_bitboards, take_games, write_arrays
from .model import FORMATS, ROUNDINGS, Game, Ply
from .moves import decode_move, encode_move, legal_codes
from .read import GameFile, detect_format, open_games, read_games
from .stream import iter_plies, read_arrays
from .write import visit_bytes, write_games

__all__ = [
    "FORMATS",
    "ROUNDINGS",
    "Game",
    "GameFile",
    "MontyArrays",
    "Ply",
    "PlyArrays",
    "decode_move",
    "detect_format",
    "encode_move",
    "iter_plies",
    "legal_codes",
    "open_games",
    "piece_bitboards",
    "read_arrays",
    "read_games",
    "take_games",
    "visit_bytes",
    "write_arrays",
    "write_games",
]
