"""The kernel's attacks (:mod:`chessformats.kernel.attacks`, the one implementation) against python-chess: the
attackers of a square (:func:`~chessformats.kernel.attacks.attacked`: the move generator, the ChessBase batch SAN
and the book replay use it) against ``Board.attackers_mask`` and a side's attack map
(:func:`~chessformats.kernel.attacks.attack_map`) against ``Board.attacks_mask`` on random occupancies; the
sliders' kindergarten tables, the leapers' and the line tables of :mod:`chessformats.kernel.lookup` against
python-chess's tables."""

from __future__ import annotations

import chess
import numpy as np

from chessformats.kernel import attacks, batch, lookup
from chessformats.kernel.lookup import KING_BB, KNIGHT_BB, PAWN_BB, SQUARE_BB


def test_attackers_are_python_chess_attackers() -> None:
    rng = np.random.default_rng(5)
    count = 3_000
    kinds = rng.integers(0, 20, (count, 64))  # per square: a piece (1-6 white, 7-12 black) or empty (0, 13-19)
    kinds[kinds > 12] = 0
    kinds[:64] = 0  # an empty board, then full ones
    kinds[64:128] = rng.integers(1, 13, (64, 64))
    square = rng.integers(0, 64, count)
    square[:128] = np.tile(np.arange(64), 2)
    defender = rng.integers(0, 2, count)  # the colour whose pawn-attack table finds the attacking pawns
    bits = np.uint64(1) << np.arange(64, dtype=np.uint64)

    def mask(*which: int) -> np.ndarray:
        return np.bitwise_or.reduce(np.where(np.isin(kinds, which), bits, np.uint64(0)), axis=1)

    pawns, knights, bishops, rooks, queens, kings = (mask(kind, kind + 6) for kind in chess.PIECE_TYPES)
    white, black = mask(1, 2, 3, 4, 5, 6), mask(7, 8, 9, 10, 11, 12)
    assert batch.attacked is attacks.attacked  # one implementation
    found = attacks.attacked(square, white | black, knights, kings, pawns, defender, bishops | queens, rooks | queens)
    occupied = white | black
    rook_lines, bishop_lines = attacks.rook_attacks(square, occupied), attacks.bishop_attacks(square, occupied)
    white_map = attacks.attack_map(occupied, knights & white, kings & white, pawns & white, np.ones(count, bool),
                                   (bishops | queens) & white, (rooks | queens) & white)
    for index in range(count):
        board = chess.Board(None)
        board.pawns, board.knights, board.bishops = int(pawns[index]), int(knights[index]), int(bishops[index])
        board.rooks, board.queens, board.kings = int(rooks[index]), int(queens[index]), int(kings[index])
        board.occupied_co = [int(black[index]), int(white[index])]
        board.occupied = int(white[index] | black[index])
        s, side = int(square[index]), bool(defender[index])
        # every piece of either colour attacking s, the pawns as pawns of the attacking colour (not ``side``)
        pieces = (board.attackers_mask(chess.WHITE, s) | board.attackers_mask(chess.BLACK, s)) & ~board.pawns
        expected = pieces | (chess.BB_PAWN_ATTACKS[side][s] & board.pawns)
        assert int(found[index]) == expected, (board.fen(), chess.square_name(s))
        assert int(rook_lines[index]) == (chess.BB_RANK_ATTACKS[s][chess.BB_RANK_MASKS[s] & board.occupied]
                                          | chess.BB_FILE_ATTACKS[s][chess.BB_FILE_MASKS[s] & board.occupied])
        assert int(bishop_lines[index]) == chess.BB_DIAG_ATTACKS[s][chess.BB_DIAG_MASKS[s] & board.occupied]
        expected_map = 0
        for piece in chess.scan_forward(board.occupied_co[chess.WHITE]):
            expected_map |= board.attacks_mask(piece)
        assert int(white_map[index]) == expected_map, board.fen()
    assert batch.square_of(SQUARE_BB).tolist() == list(range(64))
    assert attacks.single_square(attacks.SQUARE_BB).tolist() == list(range(64))


def test_leaper_tables_are_python_chess_tables() -> None:
    for looked_up, made in ((KNIGHT_BB, attacks.KNIGHT_BB), (KING_BB, attacks.KING_BB), (PAWN_BB, attacks.PAWN_BB),
                            (SQUARE_BB, attacks.SQUARE_BB)):
        assert looked_up is made  # lookup's tables are these, made once
    for table in (KNIGHT_BB, KING_BB, PAWN_BB, SQUARE_BB):
        assert table.dtype == np.uint64
    assert KNIGHT_BB.tolist() == chess.BB_KNIGHT_ATTACKS and KING_BB.tolist() == chess.BB_KING_ATTACKS
    assert PAWN_BB.tolist() == chess.BB_PAWN_ATTACKS and SQUARE_BB.tolist() == chess.BB_SQUARES


def test_slider_tables_are_python_chess_attack_tables() -> None:
    """Every entry of the kindergarten tables (made with numpy) against python-chess's attack tables: the byte's
    squares (a rank's byte is the rank, a file's bit i its square on rank i, a diagonal's its square on file i)
    occupied, the rest empty."""
    rank_table, file_table, diagonal_table, anti_table, diagonal_mask, anti_mask = attacks.slider_arrays()
    for square in chess.SQUARES:
        file, rank = chess.square_file(square), chess.square_rank(square)
        diagonal = [chess.square(f, rank + f - file) for f in range(8) if 0 <= rank + f - file < 8]
        anti = [chess.square(f, rank - f + file) for f in range(8) if 0 <= rank - f + file < 8]
        # per line: its table, its squares by their bit in the byte, python-chess's attacks and masks
        lines = (
            (rank_table, [chess.square(x, rank) for x in range(8)], chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS),
            (file_table, [chess.square(file, y) for y in range(8)], chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS),
            (diagonal_table, [next((s for s in diagonal if chess.square_file(s) == f), None) for f in range(8)],
             chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS),
            (anti_table, [next((s for s in anti if chess.square_file(s) == f), None) for f in range(8)],
             chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS))
        for table, by_bit, line_attacks, masks in lines:
            keep = sum(chess.BB_SQUARES[s] for s in by_bit if s is not None)
            for byte in range(256):
                occupied = sum(chess.BB_SQUARES[s] for bit, s in enumerate(by_bit) if s is not None and byte >> bit & 1)
                expected = line_attacks[square][occupied & masks[square]] & keep
                assert int(table[square * 256 + byte]) == expected, (chess.square_name(square), byte)
        assert int(diagonal_mask[square]) == sum(chess.BB_SQUARES[s] for s in diagonal)
        assert int(anti_mask[square]) == sum(chess.BB_SQUARES[s] for s in anti)


def test_line_tables_are_python_chess_tables() -> None:
    """The tables :mod:`~chessformats.kernel.lookup` derives from the attacks: rays, lines, squares between."""
    assert lookup.LINE_BB.tolist() == chess.BB_RAYS
    assert lookup.BETWEEN_BB.tolist() == [[chess.between(a, b) for b in chess.SQUARES] for a in chess.SQUARES]
    assert lookup.ROOK_RAYS_BB.tolist() == [chess.BB_RANK_ATTACKS[s][0] | chess.BB_FILE_ATTACKS[s][0]
                                            for s in chess.SQUARES]
    assert lookup.BISHOP_RAYS_BB.tolist() == [chess.BB_DIAG_ATTACKS[s][0] for s in chess.SQUARES]
    empty = chess.Board(None)
    for piece in chess.PIECE_TYPES[1:]:
        expected = []
        for square in chess.SQUARES:
            empty.set_piece_map({square: chess.Piece(piece, chess.WHITE)})
            expected.append(empty.attacks_mask(square))
        assert lookup.EMPTY_ATTACKS_BB[piece].tolist() == expected, chess.piece_name(piece)
