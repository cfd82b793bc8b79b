"""SAN for the decoded stream without a ``chess.Board``: piece bitboards, the questions asked of the chess
kernel's one-position functions (:mod:`chessformats.kernel.scalar`).

Only what SAN needs: which other pieces of the kind could legally go to the same square, whether the move
gives check, and (for a check) whether the opponent has any legal move. The tests compare every move of
the corpus with ``chess.Board.san``.

Losing chess (a ``chess.variant.SuicideBoard``, such as the ``GiveawayBoard`` of ChessBase modes 8 and 9)
knows no check: no "+" ("#" when the move ends the game), any king may move and is named like other pieces,
and, captures being compulsory, a non-capture has no rivals when a capture is possible (as python-chess's
SAN decides).
"""

from __future__ import annotations

import chess
import chess.variant

from ...kernel.scalar import attacked, attacks, has_capture, has_legal_move, king_safe_after, of_board
from ...kernel.tables import SQUARES as _SQ

__all__ = ["SanBoard"]
_LETTERS = ("", "", "N", "B", "R", "Q", "K")


class SanBoard:
    """Piece bitboards of a position; :meth:`san_and_push` names a (legal) move and plays it."""

    __slots__ = ("colour", "ep", "fullmove", "losing", "pieces", "turn")

    def __init__(self, board: chess.Board) -> None:
        self.pieces, self.colour = of_board(board)  # pieces by type (1 pawn ... 6 king); colour: True = white
        self.turn = board.turn
        self.ep = board.ep_square
        self.fullmove = board.fullmove_number
        self.losing = isinstance(board, chess.variant.SuicideBoard)  # no check; captures are compulsory

    def copy(self) -> SanBoard:
        clone = SanBoard.__new__(SanBoard)
        clone.pieces = self.pieces[:]
        clone.colour = self.colour[:]
        clone.turn, clone.ep, clone.fullmove, clone.losing = self.turn, self.ep, self.fullmove, self.losing
        return clone

    def _piece_at(self, square: int) -> int:
        mask = _SQ[square]
        for piece in (1, 2, 3, 4, 5, 6):
            if self.pieces[piece] & mask:
                return piece
        return 0

    def _has_legal_move(self, side: bool) -> bool:
        """Has ``side`` a legal move?"""
        return has_legal_move(self.pieces, self.colour, side, self.ep, losing=self.losing)

    def san_and_push(self, move: chess.Move, castling: bool | None = None) -> str:
        """The SAN of ``move``, and play it.

        ``castling``: whether the move castles, its target then being the rook's square; ``None``: decide
        from the board (a king taking its own rook, or a king moving two files: python-chess's encodings).
        """
        side = self.turn
        if not move:
            self.turn = not side
            self.ep = None
            if not side:
                self.fullmove += 1
            return "--"
        source, target = move.from_square, move.to_square
        piece = self._piece_at(source)
        if castling is None:
            castling = False
            if piece == chess.KING:
                if self.colour[side] & self.pieces[chess.ROOK] & _SQ[target]:
                    castling = True
                elif abs((target & 7) - (source & 7)) == 2 and (target >> 3) == (source >> 3):
                    castling = True
                    target = (source & ~7) + (7 if (target & 7) > (source & 7) else 0)
        if castling:
            san = "O-O" if chess.square_file(target) > chess.square_file(source) else "O-O-O"
        elif piece == chess.PAWN:
            san = chess.SQUARE_NAMES[target]
            if (source ^ target) & 7:
                san = chess.FILE_NAMES[source & 7] + "x" + san
            if move.promotion:
                san += "=" + _LETTERS[move.promotion] if move.promotion != chess.KNIGHT else "=N"
        else:
            san = _LETTERS[piece]
            occupied = self.colour[0] | self.colour[1]
            others = attacks(piece, target, occupied) & self.pieces[piece] & self.colour[side] & ~_SQ[source]
            pieces, colour = self.pieces, self.colour
            if self.losing:
                rivals = list(chess.scan_forward(others)) if others and (
                    colour[not side] & _SQ[target] or not has_capture(pieces, colour, side, self.ep)) else []
            elif others and piece != chess.KING:
                rivals = [s for s in chess.scan_forward(others)
                          if king_safe_after(pieces, colour, self.ep, s, target, piece, side)]
            else:
                rivals = []
            if rivals:
                file, rank = source & 7, source >> 3
                if all(s & 7 != file for s in rivals):
                    san += chess.FILE_NAMES[file]
                elif all(s >> 3 != rank for s in rivals):
                    san += chess.RANK_NAMES[rank]
                else:
                    san += chess.SQUARE_NAMES[source]
            if self.colour[not side] & _SQ[target]:
                san += "x"
            san += chess.SQUARE_NAMES[target]
        self._push(source, target, piece, move.promotion, castling, side)
        if self.losing:  # python-chess: "#" once the game is over (no piece or no move left), never "+"
            if move and (not self.colour[not side] or not self._has_legal_move(not side)):
                san += "#"
            return san
        king = (self.pieces[chess.KING] & self.colour[not side]).bit_length() - 1
        if king >= 0 and attacked(self.pieces, self.colour[side], king, side, self.colour[0] | self.colour[1]):
            san += "+" if self._has_legal_move(not side) else "#"
        return san

    def _push(self, source: int, target: int, piece: int, promotion: int | None, castling: bool,
              side: bool) -> None:
        pieces, colour = self.pieces, self.colour
        ep = None
        if castling:  # target: the rook's square
            rank = source & ~7
            short = (target & 7) > (source & 7)
            king_to, rook_to = rank + (6 if short else 2), rank + (5 if short else 3)
            pieces[chess.KING] &= ~_SQ[source]
            pieces[chess.ROOK] &= ~_SQ[target]
            colour[side] &= ~(_SQ[source] | _SQ[target])
            pieces[chess.KING] |= _SQ[king_to]
            pieces[chess.ROOK] |= _SQ[rook_to]
            colour[side] |= _SQ[king_to] | _SQ[rook_to]
        else:
            captured = self._piece_at(target) if colour[not side] & _SQ[target] else 0
            if captured:
                pieces[captured] &= ~_SQ[target]
                colour[not side] &= ~_SQ[target]
            elif piece == chess.PAWN and (source ^ target) & 7:  # en passant
                behind = target - 8 if side else target + 8
                pieces[chess.PAWN] &= ~_SQ[behind]
                colour[not side] &= ~_SQ[behind]
            pieces[piece] &= ~_SQ[source]
            colour[side] &= ~_SQ[source]
            pieces[promotion or piece] |= _SQ[target]
            colour[side] |= _SQ[target]
            if piece == chess.PAWN and abs(target - source) == 16:
                ep = (source + target) // 2
        self.ep = ep
        self.turn = not side
        if not side:
            self.fullmove += 1
