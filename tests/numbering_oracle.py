"""ChessBase's piece numbering as the shared notes describe it, written from them alone and never from the
package's code: each side's numbered pieces of each kind, followed from one python-chess position to the next by
what each kind lost and gained. ``test_chessbase_modes`` shows it gives ChessBase's own bytes on the corpus; the
numbering tests compare :mod:`chessformats.formats.chessbase.numbering` (the one-game and the batch path) with it."""

from __future__ import annotations

import chess

NUMBERED = {chess.KING: 1, chess.QUEEN: 3, chess.ROOK: 3, chess.BISHOP: 3, chess.KNIGHT: 3, chess.PAWN: 8}


class Numbering:
    """Each side's numbered pieces of each kind, in order; pawns keep their number (None once gone).

    Only as many pieces get a number as there are one-byte codes (notes: later pieces are two-byte moves); a
    piece without a number never gets one, a promoted piece takes a free number if there is one.
    """

    def __init__(self, board: chess.Board, reverse: bool) -> None:
        self.lists: dict[tuple[bool, int], list[int | None]] = {
            (colour, piece): [] for colour in chess.COLORS for piece in chess.PIECE_TYPES}
        for file in (range(7, -1, -1) if reverse else range(8)):
            for rank in range(8):
                square = chess.square(file, rank)
                found = board.piece_at(square)
                if found and len(self.lists[(found.color, found.piece_type)]) < NUMBERED[found.piece_type]:
                    self.lists[(found.color, found.piece_type)].append(square)

    def index(self, colour: bool, piece: int, square: int) -> int | None:
        squares = self.lists[(colour, piece)]
        return squares.index(square) if square in squares else None

    def after(self, before: chess.Board, after: chess.Board) -> Numbering:
        """The numbering once ``before`` became ``after``: from what each kind lost and gained."""
        clone = Numbering.__new__(Numbering)
        clone.lists = {key: squares[:] for key, squares in self.lists.items()}
        for (colour, piece), squares in clone.lists.items():
            was = before.pieces_mask(piece, colour)
            now = after.pieces_mask(piece, colour)
            lost, gained = list(chess.scan_forward(was & ~now)), list(chess.scan_forward(now & ~was))
            if lost and gained:  # a piece moved (one per kind and side, castling included)
                (source,), (target,) = lost, gained
                if source in squares:
                    squares[squares.index(source)] = target
            elif lost:  # captured, or a pawn that promoted
                for square in lost:
                    if square in squares and piece == chess.PAWN:
                        squares[squares.index(square)] = None
                    elif square in squares:
                        squares.remove(square)
            elif gained and len(squares) < NUMBERED[piece]:
                squares.extend(gained)  # a promoted piece comes last
        return clone
