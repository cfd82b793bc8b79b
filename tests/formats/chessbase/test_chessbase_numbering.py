"""ChessBase's piece numbering (:mod:`chessformats.formats.chessbase.numbering`): the one implementation of the
rule, which the game-by-game decoder and encoder (on Python integers) and the batch decoder and encoder (on numpy
arrays) all call.

- Random games (python-chess says what each move does), biased to captures, promotions and castling so that lists
  close up and promoted pieces find no free number: after every ply, the lists of the game-by-game decoder and
  those of a batch moved on by :func:`numbering.play`/:func:`numbering.castle` equal the independent numbering of
  ``numbering_oracle`` (written from the notes; python-chess has no such numbering), and the batch's board equals
  python-chess's.
- Every path plays every move through :mod:`numbering` (its functions replaced by counting ones): no path keeps a
  rule of its own.
- Corpus: the main lines the batch decodes, coded again by the batch encoder, give ChessBase's bytes (the
  game-by-game decoder and encoder do it in ``test_chessbase_write``)."""

from __future__ import annotations

import random
from typing import Any

import chess
import chess.pgn
import numpy as np
import pytest

from chessbase_corpus import cbh_path
from chessformats.formats.chessbase import numbering, open_database
from chessformats.formats.chessbase.batch import decode_batch
from chessformats.formats.chessbase.batch_encoder import encode_main_lines
from chessformats.formats.chessbase.encoder import encode_game, start_of
from chessformats.formats.chessbase.moves import DecodedMove, _Decoder, decode_game
from chessformats.schemas import chessbase as schema
from numbering_oracle import Numbering

_MODES = {reverse: next(mode for mode, flag in enumerate(schema.MODE_REVERSE) if flag == reverse)
          for reverse in (False, True)}
_PROMOTIONS = "8/PPPPPPPP/8/2k5/5K2/8/pppppppp/8 w - - 0 1"
"""Sixteen promotions to come: queens beyond the third (no free number), and captured ones (a free number)."""
_CODE = {piece.symbol(): piece.piece_type | (0 if piece.color else 8)
         for piece in (chess.Piece(kind, colour) for kind in chess.PIECE_TYPES for colour in chess.COLORS)}


def _random_game(rng: random.Random, fen: str, plies: int = 300) -> list[chess.Move]:
    board = chess.Board(fen)
    moves: list[chess.Move] = []
    while len(moves) < plies:
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


def _oracle_bytes(oracle: Numbering) -> list[int]:
    """The oracle's lists as a game's :data:`numbering.LISTS` squares."""
    out = [numbering.NONE] * numbering.LISTS
    for (colour, piece), squares in oracle.lists.items():
        for number, square in enumerate(squares):
            at = (0 if colour else 1) * numbering.SIDE + piece * 8 + number
            out[at] = numbering.NONE if square is None else square
    return out


def _bytes(words: Any) -> list[int]:
    return np.asarray(words, dtype="<i8").view(np.uint8).tolist()


def _codes(board: chess.Board) -> list[int]:
    return [_CODE[piece.symbol()] if (piece := board.piece_at(square)) else 0 for square in chess.SQUARES]


@pytest.mark.parametrize(("fen", "reverse"), [(chess.STARTING_FEN, False), (chess.STARTING_FEN, True),
                                              (_PROMOTIONS, False)])
def test_one_game_and_batch_numbering_follow_the_notes(fen: str, reverse: bool) -> None:
    rng = random.Random(22 + reverse)
    games = [_random_game(rng, fen) for _ in range(40)]
    start = start_of(chess.Board(fen))
    decoders = [_Decoder(b"", 0, _MODES[reverse], start, None, 0, 0) for _ in games]
    oracles = [Numbering(chess.Board(fen), reverse) for _ in games]
    boards = [chess.Board(fen) for _ in games]
    lists = np.tile(np.array(numbering.start_words(start.board, reverse), dtype=np.int64), len(games))
    squares = np.tile(np.array(start.board, dtype=np.int8), len(games))
    assert _bytes(lists) == [square for oracle in oracles for square in _oracle_bytes(oracle)]
    seen = {"closed up": 0, "no free number": 0, "castled": 0, "en passant": 0}
    wanted = {"closed up", "no free number"} if fen == _PROMOTIONS else set(seen)
    for ply in range(max(map(len, games))):
        rows = [index for index, moves in enumerate(games) if ply < len(moves)]
        side = ply & 1
        castles, moves = [], []
        for index in rows:
            board, move = boards[index], games[index][ply]
            if board.is_castling(move):
                rank, short = move.from_square & 56, move.to_square > move.from_square
                castles.append((index, move.from_square, rank | (7 if short else 0), rank | (6 if short else 2),
                                rank | (5 if short else 3)))
                seen["castled"] += 1
            else:
                spot = move.to_square
                if board.is_en_passant(move):
                    spot += -8 if side == 0 else 8
                    seen["en passant"] += 1
                taken = board.piece_type_at(spot)
                seen["closed up"] += taken not in (None, chess.PAWN)
                promoted = move.promotion or 0
                seen["no free number"] += promoted > 0 and len(oracles[index].lists[(board.turn, promoted)]) == \
                    (1 if promoted == chess.KING else 3)
                moves.append((index, board.piece_type_at(move.from_square), move.from_square, move.to_square, spot,
                              promoted))
            decoders[index]._apply(move.from_square, move.to_square, move.promotion, 0, 1, explicit=True)
            after = board.copy(stack=False)
            after.push(move)
            oracles[index] = oracles[index].after(board, after)
            boards[index] = after
        if castles:
            game, king, rook, king_to, rook_to = np.array(castles, dtype=np.int64).T
            numbering.castle(squares, lists, game * 64, game * numbering.WORDS, side, king, rook, king_to, rook_to)
        if moves:
            game, piece, source, target, spot, new = np.array(moves, dtype=np.int64).T
            row = game * numbering.WORDS
            number = numbering.place(lists[row + 7 * side + piece], source)
            numbering.play(squares, lists, game * 64, row, side, source, target, spot, new, number)
        for index in rows:
            expected = _oracle_bytes(oracles[index])
            assert _bytes(decoders[index].position.lists) == expected, (ply, index)
            assert _bytes(lists[index * numbering.WORDS:(index + 1) * numbering.WORDS]) == expected, (ply, index)
            assert squares[index * 64:(index + 1) * 64].tolist() == _codes(boards[index]), (ply, index)
    assert all(seen[what] > 0 for what in wanted), seen


def test_every_path_plays_its_moves_through_numbering(monkeypatch: pytest.MonkeyPatch) -> None:
    """numbering.play and numbering.castle replaced by counting ones: the game-by-game decoder and encoder and
    the batch decoder and encoder each play every move of the games through them."""
    rng = random.Random(1134)
    games = [chess.pgn.Game.from_board(_board(rng)) for _ in range(30)]
    moves = [list(game.mainline_moves()) for game in games]
    expected = {"play": 0, "castle": 0}
    for game, line in zip(games, moves, strict=True):
        board = game.board()
        for move in line:
            expected["castle" if board.is_castling(move) else "play"] += 1
            board.push(move)
    assert expected["castle"] >= 10 and expected["play"] > 1000
    calls: dict[str, int] = {}

    def counting(name: str) -> Any:
        real = getattr(numbering, name)

        def count(*values: Any) -> None:
            calls[name] = calls.get(name, 0) + int(np.size(values[5]))  # (its moves: one per source square)
            real(*values)
        return count

    def counted(run: Any) -> dict[str, int]:
        calls.clear()
        run()
        return calls.copy()

    data = [encode_game(game).data for game in games]
    events = sorted((ply, index, move.from_square, _king_takes_rook(game, ply, move), move.promotion or 0)
                    for index, (game, line) in enumerate(zip(games, moves, strict=True))
                    for ply, move in enumerate(line))
    columns = np.array(events, dtype=np.int64).T
    plies = np.array([len(line) for line in moves], dtype=np.int64)
    offsets = np.cumsum([0] + [len(item) for item in data[:-1]])
    with monkeypatch.context() as patch:
        patch.setattr(numbering, "play", counting("play"))
        patch.setattr(numbering, "castle", counting("castle"))
        assert counted(lambda: [encode_game(game) for game in games]) == expected
        assert counted(lambda: [decode_game(item) for item in data]) == expected
        batch = counted(lambda: decode_batch(b"".join(data), np.arange(1, len(data) + 1), offsets))
        assert batch == expected
        assert counted(lambda: encode_main_lines(columns[1], columns[0], columns[2], columns[3], columns[4],
                                                 plies)) == expected
    assert [item.data for item in encode_main_lines(columns[1], columns[0], columns[2], columns[3], columns[4],
                                                    plies)] == data


def _board(rng: random.Random) -> chess.Board:
    """A random game's end (castling when it can, captures often; promotions to the numbers free: queens)."""
    board = chess.Board()
    for _ in range(rng.randrange(40, 160)):
        legal = list(board.legal_moves)
        if not legal:
            break
        castles = [move for move in legal if board.is_castling(move)]
        captures = [move for move in legal if board.is_capture(move)]
        move = rng.choice(castles or (captures if captures and rng.random() < 0.5 else legal))
        board.push(move)
    return board


def _king_takes_rook(game: chess.pgn.Game, ply: int, move: chess.Move) -> int:
    """The move's target as the batch encoder takes it: castling as the king taking its rook."""
    board = game.board()
    for earlier in list(game.mainline_moves())[:ply]:
        board.push(earlier)
    if board.is_castling(move):
        return chess.square(7 if chess.square_file(move.to_square) == 6 else 0, chess.square_rank(move.to_square))
    return move.to_square


@pytest.mark.parametrize(("name", "games"), [("uncbv_twic1134", 6117), ("libcbh_NormalGames", 548),
                                             ("libcbh_ManyPromotions", 7), ("morphy_linares_old", 115)])
def test_batch_decoded_main_lines_code_again_to_chessbases_bytes(name: str, games: int) -> None:
    """Every main line from the standard position (mode 0, ended by its marker) the batch decodes (the games it
    leaves to the game-by-game decoder, from that: ManyPromotions' promoted pieces without a number), coded
    again by the batch encoder: ChessBase's bytes. ``games``: how many such games the base has."""
    with open_database(cbh_path(name)) as db:
        numbers = db.numbers()
        events: list[tuple[int, int, int, int, int]] = []
        chosen: list[int] = []
        plies: list[int] = []
        for number, game in db.decode_many(numbers):
            tokens = game.tokens
            if game.mode != 0 or not game.start.standard or not game.ended or \
                    not all(isinstance(token, DecodedMove) and not token.null for token in tokens):
                continue
            for ply, token in enumerate(tokens):
                assert isinstance(token, DecodedMove)
                events.append((ply, len(chosen), token.from_square, token.to_square, token.promotion or 0))
            chosen.append(number)
            plies.append(len(tokens))
        assert len(chosen) == games
        events.sort()
        columns = np.array(events, dtype=np.int64).reshape(-1, 5).T
        encoded = encode_main_lines(columns[1], columns[0], columns[2], columns[3], columns[4],
                                    np.array(plies, dtype=np.int64))
        for number, item in zip(chosen, encoded, strict=True):
            assert item.data == db.game_data(number)[1], number
