"""ChessBase's piece numbering over many games (:mod:`chessformats.formats.chessbase.numbering`, what the batch
decoder and the batch encoder both call) against the scalar decoder's :class:`_Position`, the reference (python-chess
has no such numbering). What each move does on the board (the piece taken, en passant, castling) comes from
python-chess; the games are random, biased to captures and promotions so that lists close up and promoted pieces
find no free number."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from chessformats.formats.chessbase import numbering
from chessformats.formats.chessbase.encoder import start_of
from chessformats.formats.chessbase.moves import _Decoder
from chessformats.schemas import chessbase as schema

_MODES = {reverse: next(mode for mode, flag in enumerate(schema.MODE_REVERSE) if flag == reverse)
          for reverse in (False, True)}
_PROMOTIONS = "8/PPPPPPPP/8/2k5/5K2/8/pppppppp/8 w - - 0 1"
"""Sixteen promotions to come: queens beyond the third (no free number), and captured ones (a free number)."""


def _random_game(rng: random.Random, fen: str) -> list[chess.Move]:
    board = chess.Board(fen)
    moves: list[chess.Move] = []
    while len(moves) < 300:
        legal = list(board.legal_moves)
        if not legal:
            break
        if rng.random() < 0.7:  # spare the queens (so that promoted ones pile up)
            legal = [move for move in legal if board.piece_type_at(move.to_square) != chess.QUEEN] or legal
        promotions = [move for move in legal if move.promotion]
        pawns = [move for move in legal if board.piece_type_at(move.from_square) == chess.PAWN]
        captures = [move for move in legal if board.is_capture(move)]
        castles = [move for move in legal if board.is_castling(move)]
        pool = promotions if promotions and rng.random() < 0.95 else castles if castles and rng.random() < 0.5 else \
            pawns if pawns and rng.random() < 0.5 else captures if captures and rng.random() < 0.2 else legal
        move = rng.choice(pool)
        if move.promotion and rng.random() < 0.2:
            move.promotion = rng.choice((chess.KNIGHT, chess.BISHOP, chess.ROOK))
        moves.append(move)
        board.push(move)
    return moves


def _lists(decoder: _Decoder) -> list[int]:
    out = [-1] * numbering.LISTS
    for side in (0, 1):
        for piece in range(1, 7):
            for number, square in enumerate(decoder.position.pieces[side][piece]):
                out[side * 56 + piece * 8 + number] = -1 if square is None else square
    return out


@pytest.mark.parametrize(("fen", "reverse"), [(chess.STARTING_FEN, False), (chess.STARTING_FEN, True),
                                              (_PROMOTIONS, False)])
def test_the_batch_numbering_follows_the_scalar_decoder(fen: str, reverse: bool) -> None:
    rng = random.Random(22 + reverse)
    games = [_random_game(rng, fen) for _ in range(60)]
    start = start_of(chess.Board(fen))
    decoders = [_Decoder(b"", 0, _MODES[reverse], start, None, 0, 0) for _ in games]
    boards = [chess.Board(fen) for _ in games]
    pieces = np.tile(numbering.start_lists(start.board[:], True, reverse), (len(games), 1))
    flat = pieces.reshape(-1)
    assert pieces.tolist() == [_lists(decoder) for decoder in decoders]
    seen = {"closed up": 0, "no free number": 0, "castled": 0, "en passant": 0}
    wanted = {"closed up", "no free number"} if fen == _PROMOTIONS else set(seen)
    for ply in range(max(map(len, games))):
        rows = [index for index, moves in enumerate(games) if ply < len(moves)]
        castles, captures, moves = [], [], []
        for index in rows:
            board, move = boards[index], games[index][ply]
            side, base = ply & 1, index * numbering.LISTS + (ply & 1) * 56
            if board.is_castling(move):
                rank = move.from_square & 56
                short = move.to_square > move.from_square
                castles.append((base, rank | (6 if short else 2), rank | (7 if short else 0),
                                rank | (5 if short else 3)))
                seen["castled"] += 1
            else:
                square = move.to_square
                if board.is_en_passant(move):
                    square += -8 if side == 0 else 8
                    seen["en passant"] += 1
                taken = board.piece_type_at(square)
                if taken:
                    captures.append((index * numbering.LISTS + (1 - side) * 56, taken, square))
                    seen["closed up"] += taken != chess.PAWN
                moves.append((base, board.piece_type_at(move.from_square), move.from_square, move.to_square,
                              move.promotion or 0))
            decoders[index]._apply(move.from_square, move.to_square, move.promotion, 0, 1, explicit=True)
            board.push(move)
        if castles:
            base, king_to, rook, rook_to = np.array(castles, dtype=np.int64).T
            numbering.castle(flat, base, king_to, rook, rook_to)
        if captures:
            base, piece, square = np.array(captures, dtype=np.int64).T
            numbering.close_up(flat, base, piece, square)
        if moves:
            base, piece, source, target, promotion = np.array(moves, dtype=np.int64).T
            number, numbered = numbering.number_of(flat, base, piece, source)
            promoting = promotion > 0
            new_number, free = numbering.next_number(flat, base, np.where(promoting, promotion, chess.QUEEN))
            seen["no free number"] += int((promoting & ~free).sum())
            keep = numbered
            numbering.renumber(flat, base[keep], piece[keep], number[keep], target[keep], promoting[keep],
                               promotion[keep], new_number[keep], free[keep])
        assert [pieces[index].tolist() for index in rows] == [_lists(decoders[index]) for index in rows], ply
    assert all(seen[what] > 0 for what in wanted), seen
