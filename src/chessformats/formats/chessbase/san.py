"""SAN for the decoded stream without a ``chess.Board``: bitboards and python-chess's attack tables.

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

from ..bitboards import DIAG_ATTACKS as _DIAG
from ..bitboards import DIAG_MASKS as _DIAG_MASKS
from ..bitboards import FILE_ATTACKS as _FILE
from ..bitboards import FILE_MASKS as _FILE_MASKS
from ..bitboards import KING as _KING
from ..bitboards import KNIGHT as _KNIGHT
from ..bitboards import PAWN_ATTACKS as _PAWN
from ..bitboards import RANK_ATTACKS as _RANK
from ..bitboards import RANK_MASKS as _RANK_MASKS
from ..bitboards import SQUARES as _SQ

__all__ = ["SanBoard"]
_LETTERS = ("", "", "N", "B", "R", "Q", "K")


def _attacks(piece: int, square: int, occupied: int) -> int:
    if piece == chess.KNIGHT:
        return _KNIGHT[square]
    if piece == chess.BISHOP:
        return _DIAG[square][_DIAG_MASKS[square] & occupied]
    if piece == chess.ROOK:
        return _RANK[square][_RANK_MASKS[square] & occupied] | _FILE[square][_FILE_MASKS[square] & occupied]
    if piece == chess.QUEEN:
        return (_DIAG[square][_DIAG_MASKS[square] & occupied] | _RANK[square][_RANK_MASKS[square] & occupied]
                | _FILE[square][_FILE_MASKS[square] & occupied])
    return _KING[square]


class SanBoard:
    """Piece bitboards of a position; :meth:`san_and_push` names a (legal) move and plays it."""

    __slots__ = ("colour", "ep", "fullmove", "losing", "pieces", "turn")

    def __init__(self, board: chess.Board) -> None:
        self.pieces = [0, board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings]
        self.colour = [board.occupied_co[chess.BLACK], board.occupied_co[chess.WHITE]]  # index: True = white
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

    def _attacked(self, square: int, by: bool, occupied: int, removed: int = 0) -> bool:
        """Is ``square`` attacked by side ``by`` (its pieces on ``removed`` squares not counted)?"""
        them = self.colour[by] & ~removed
        pieces = self.pieces
        if _KNIGHT[square] & pieces[chess.KNIGHT] & them or _KING[square] & pieces[chess.KING] & them:
            return True
        if _PAWN[not by][square] & pieces[chess.PAWN] & them:
            return True
        diagonal = _DIAG[square][_DIAG_MASKS[square] & occupied]
        if diagonal & (pieces[chess.BISHOP] | pieces[chess.QUEEN]) & them:
            return True
        straight = _RANK[square][_RANK_MASKS[square] & occupied] | _FILE[square][_FILE_MASKS[square] & occupied]
        return bool(straight & (pieces[chess.ROOK] | pieces[chess.QUEEN]) & them)

    def _legal(self, source: int, target: int, piece: int, side: bool) -> bool:
        """Does moving ``piece`` from ``source`` to ``target`` leave ``side``'s king unattacked?"""
        if self.losing:
            return True
        occupied = (self.colour[0] | self.colour[1]) & ~_SQ[source] | _SQ[target]
        removed = _SQ[target]
        if piece == chess.PAWN and target == self.ep and not (self.colour[0] | self.colour[1]) & _SQ[target]:
            captured = target - 8 if side else target + 8
            occupied &= ~_SQ[captured]
            removed |= _SQ[captured]
        king = target if piece == chess.KING else (self.pieces[chess.KING] & self.colour[side]).bit_length() - 1
        return not self._attacked(king, not side, occupied, removed)

    def _has_legal_move(self, side: bool) -> bool:
        own = self.colour[side]
        occupied = self.colour[0] | self.colour[1]
        for piece in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT):
            for source in chess.scan_forward(self.pieces[piece] & own):
                for target in chess.scan_forward(_attacks(piece, source, occupied) & ~own):
                    if self._legal(source, target, piece, side):
                        return True
        forward = 8 if side else -8
        start_rank = 1 if side else 6
        for source in chess.scan_forward(self.pieces[chess.PAWN] & own):
            targets = _PAWN[side][source] & (self.colour[not side] | (_SQ[self.ep] if self.ep is not None else 0))
            one = source + forward
            if 0 <= one < 64 and not occupied & _SQ[one]:
                targets |= _SQ[one]
                two = one + forward
                if chess.square_rank(source) == start_rank and not occupied & _SQ[two]:
                    targets |= _SQ[two]
            for target in chess.scan_forward(targets):
                if self._legal(source, target, chess.PAWN, side):
                    return True
        return False

    def _has_capture(self, side: bool) -> bool:
        """Can ``side`` capture anything (en passant included)? Losing chess only: no king safety."""
        them = self.colour[not side]
        own = self.colour[side]
        occupied = them | own
        pieces = self.pieces
        for piece in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT):
            for source in chess.scan_forward(pieces[piece] & own):
                if _attacks(piece, source, occupied) & them:
                    return True
        targets = them | (_SQ[self.ep] if self.ep is not None else 0)
        return any(_PAWN[side][source] & targets for source in chess.scan_forward(pieces[chess.PAWN] & own))

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
            others = _attacks(piece, target, occupied) & self.pieces[piece] & self.colour[side] & ~_SQ[source]
            if self.losing:
                rivals = list(chess.scan_forward(others)) if others and (
                    self.colour[not side] & _SQ[target] or not self._has_capture(side)) else []
            elif others and piece != chess.KING:
                rivals = [s for s in chess.scan_forward(others) if self._legal(s, target, piece, side)]
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
        if king >= 0 and self._attacked(king, side, self.colour[0] | self.colour[1]):
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
