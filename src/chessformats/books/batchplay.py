"""Replaying the opening moves of many games at once: numpy bitboards, one step per ply for all games.

Book building must turn millions of SAN tokens into (position key, move) pairs. Done one move at a time
in Python that costs a few µs per ply even with bitboards; here every game of a batch advances together,
one ply per step, so each step is a few dozen numpy operations over arrays of games. Per game the state
is the eight bitboards (colours and piece types), the castling rights (as rook squares, like python-chess),
the en-passant square and the Polyglot key, updated incrementally from the key randoms of the schema.

A SAN token is read once per batch (:func:`parse_token`); per game and ply the step finds the moving
piece (sliding attacks by Kogge-Stone fills from the target square), checks that the target is free of
own pieces, that a pawn capture captures, that castling is allowed and passes no attacked square, and
that the mover's king is not attacked afterwards. Every game starts from the standard position (so the
side to move is the same for all games at each ply). A game whose token this path cannot play -- an
unreadable or illegal token, a piece move with two candidates (one of them pinned), a null move -- is
marked failed and its events are dropped: the caller replays such games with python-chess, which decides.
The tests compare this module with python-chess move by move on many random games.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, NamedTuple

import numpy as np

from ..formats import squares  # python-chess's numbering, without importing python-chess (start-up time)
from ..formats.polyglot.packing import pack_moves
from ..formats.zobrist import CASTLE_TABLE, EP_CAPTURERS
from ..schemas import polyglot_randoms as schema

__all__ = ["COLUMNS", "Replay", "number_tokens", "parse_token", "replay", "replay_tokens"]

U64 = np.uint64
_ALL = U64(0xFFFF_FFFF_FFFF_FFFF)
_NOT_A = U64(0xFEFE_FEFE_FEFE_FEFE)
_NOT_H = U64(0x7F7F_7F7F_7F7F_7F7F)
_NOT_AB = U64(0xFCFC_FCFC_FCFC_FCFC)
_NOT_GH = U64(0x3F3F_3F3F_3F3F_3F3F)
_ONE = U64(1)
_ZERO = U64(0)

# direction: (shift, towards higher squares?, squares a step may land on without wrapping around the board)
_ORTHOGONAL = ((8, True, _ALL), (8, False, _ALL), (1, True, _NOT_A), (1, False, _NOT_H))
_DIAGONAL = ((9, True, _NOT_A), (7, True, _NOT_H), (7, False, _NOT_A), (9, False, _NOT_H))
_RAYS = {direction: (U64(direction[0]), U64(2 * direction[0]), U64(4 * direction[0]))
         for direction in _ORTHOGONAL + _DIAGONAL}

# the randoms of the Polyglot key as arrays; one extra 0 at the end stands for "nothing"
_PIECE_RANDOMS = np.array([*schema.RANDOM_PIECE, 0], dtype=U64)
_NO_PIECE_INDEX = 768
_CASTLE_RANDOMS = np.array(CASTLE_TABLE, dtype=U64)
_EP_RANDOMS = np.array(schema.RANDOM_EN_PASSANT, dtype=U64)
_TURN_RANDOM = U64(schema.RANDOM_TURN)
_NO_EP = 64
# pawns (of the side to move next) that could capture on an en-passant square; index 64 = no square
_EP_FROM = {color: np.array([*EP_CAPTURERS[color], 0], dtype=U64) for color in (squares.WHITE, squares.BLACK)}

COLUMNS = ("white", "black", "pawns", "knights", "bishops", "rooks", "queens", "kings", "castling", "ep", "key",
           "turn")
"""A position: bitboards, castling rook squares, en-passant square (64: none), key, side to move (1: White)."""

CASTLE_SHORT, CASTLE_LONG, PIECE_MOVE, PAWN_PUSH, PAWN_CAPTURE = range(5)
BAD = -1
_PIECES = {"N": squares.KNIGHT, "B": squares.BISHOP, "R": squares.ROOK, "Q": squares.QUEEN, "K": squares.KING}
_PROMOTIONS = {"N": squares.KNIGHT, "B": squares.BISHOP, "R": squares.ROOK, "Q": squares.QUEEN}
_FILES = {c: i for i, c in enumerate("abcdefgh")}
_RANKS = {c: i for i, c in enumerate("12345678")}
_ANY = (1 << 64) - 1
# castling, per (white?, short?): king from, king to, rook from, rook to, squares that must be empty, and
# the squares the king stands on or crosses (none may be attacked)
_B = squares.BB_SQUARES
_CASTLES = {
    (True, True): (squares.E1, squares.G1, squares.H1, squares.F1, _B[squares.F1] | _B[squares.G1],
                   (squares.E1, squares.F1, squares.G1)),
    (True, False): (squares.E1, squares.C1, squares.A1, squares.D1, _B[squares.B1] | _B[squares.C1] | _B[squares.D1],
                    (squares.E1, squares.D1, squares.C1)),
    (False, True): (squares.E8, squares.G8, squares.H8, squares.F8, _B[squares.F8] | _B[squares.G8],
                    (squares.E8, squares.F8, squares.G8)),
    (False, False): (squares.E8, squares.C8, squares.A8, squares.D8, _B[squares.B8] | _B[squares.C8] | _B[squares.D8],
                     (squares.E8, squares.D8, squares.C8)),
}


def parse_token(token: str) -> tuple[int, int, int, int, int]:
    """The position-independent reading of a SAN token (``+``/``#`` stripped).

    ``(form, piece, target square, origin squares allowed (bitboard), promotion piece or 0)``; form
    :data:`BAD` for what this module does not play (python-chess then reads the game).
    """
    bad = (BAD, squares.PAWN, 0, _ANY, 0)
    if token in ("O-O", "0-0"):
        return CASTLE_SHORT, squares.KING, 0, _ANY, 0
    if token in ("O-O-O", "0-0-0"):
        return CASTLE_LONG, squares.KING, 0, _ANY, 0
    if len(token) < 2:
        return bad
    first = token[0]
    if first in _PIECES:
        rest = token[1:].replace("x", "")
        if not 2 <= len(rest) <= 4:
            return bad
        target_file, target_rank = _FILES.get(rest[-2]), _RANKS.get(rest[-1])
        if target_file is None or target_rank is None:
            return bad
        mask = _ANY
        for char in rest[:-2]:  # disambiguation
            if char in _FILES:
                mask &= squares.BB_FILES[_FILES[char]]
            elif char in _RANKS:
                mask &= squares.BB_RANKS[_RANKS[char]]
            else:
                return bad
        return PIECE_MOVE, _PIECES[first], 8 * target_rank + target_file, mask, 0
    if first not in _FILES:
        return bad
    body, promotion = token, 0
    if "=" in body:
        body, _, letter = body.partition("=")
        promotion = _PROMOTIONS.get(letter, -1)
    elif body[-1] in _PROMOTIONS:
        promotion = _PROMOTIONS[body[-1]]
        body = body[:-1]
    if promotion < 0 or len(body) not in (2, 4):
        return bad
    target_file, target_rank = _FILES.get(body[-2]), _RANKS.get(body[-1])
    if target_file is None or target_rank is None or (target_rank in (0, 7)) != (promotion != 0):
        return bad
    target = 8 * target_rank + target_file
    if len(body) == 2:
        return PAWN_PUSH, squares.PAWN, target, _ANY, promotion
    if body[1] != "x" or abs(_FILES[body[0]] - target_file) != 1:
        return bad
    return PAWN_CAPTURE, squares.PAWN, target, squares.BB_FILES[_FILES[body[0]]], promotion


# --- bitboard arithmetic over arrays ---
def _ray(gen: Any, empty: Any, direction: tuple[int, bool, Any]) -> Any:
    """Squares attacked from ``gen`` along one direction, stopping at the first occupied square."""
    _, up, wrap = direction
    one, two, four = _RAYS[direction]
    pro = empty & wrap
    if up:
        gen = gen | (pro & (gen << one))
        pro = pro & (pro << one)
        gen = gen | (pro & (gen << two))
        pro = pro & (pro << two)
        gen = gen | (pro & (gen << four))
        return (gen << one) & wrap
    gen = gen | (pro & (gen >> one))
    pro = pro & (pro >> one)
    gen = gen | (pro & (gen >> two))
    pro = pro & (pro >> two)
    gen = gen | (pro & (gen >> four))
    return (gen >> one) & wrap


def _slide(gen: Any, empty: Any, directions: tuple[tuple[int, bool, Any], ...]) -> Any:
    result = _ray(gen, empty, directions[0])
    for direction in directions[1:]:
        result |= _ray(gen, empty, direction)
    return result


def _knight(b: Any) -> Any:
    one = ((b >> _ONE) & _NOT_H) | ((b << _ONE) & _NOT_A)
    two = ((b >> U64(2)) & _NOT_GH) | ((b << U64(2)) & _NOT_AB)
    return (one << U64(16)) | (one >> U64(16)) | (two << U64(8)) | (two >> U64(8))


def _king(b: Any) -> Any:
    row = b | ((b << _ONE) & _NOT_A) | ((b >> _ONE) & _NOT_H)
    return (row | (row << U64(8)) | (row >> U64(8))) ^ b


def _pawn_attackers(b: Any, white: bool) -> Any:
    """Squares from which a pawn of that colour attacks ``b``."""
    if white:
        return ((b >> U64(7)) & _NOT_A) | ((b >> U64(9)) & _NOT_H)
    return ((b << U64(7)) & _NOT_H) | ((b << U64(9)) & _NOT_A)


def _attacked(square: Any, occupied: Any, attackers: Any, board: tuple[Any, ...], by_white: bool) -> Any:
    """Per game: is ``square`` (a bitboard) attacked by ``attackers`` (one side's pieces)?"""
    pawns, knights, bishops, rooks, queens, kings = board
    empty = ~occupied
    hits = (_slide(square, empty, _DIAGONAL) & (bishops | queens)) | (_slide(square, empty, _ORTHOGONAL)
                                                                       & (rooks | queens))
    hits |= (_knight(square) & knights) | (_king(square) & kings) | (_pawn_attackers(square, by_white) & pawns)
    return (hits & attackers) != _ZERO


def _square_of(bitboard: Any) -> Any:
    """The square of a one-bit bitboard (garbage, but in range, for other values)."""
    with np.errstate(divide="ignore"):
        squares = np.log2(np.where(bitboard == _ZERO, _ONE, bitboard).astype(np.float64)).astype(np.int64)
    return squares & 63


def _castle_index(rights: Any) -> Any:
    """Index into the castling randoms table (bit 0 white short, 1 white long, 2 black short, 3 black long)."""
    index = ((rights >> U64(7)) & _ONE) | ((rights & _ONE) << _ONE) | ((rights >> U64(61)) & U64(4)) \
        | ((rights >> U64(53)) & U64(8))
    return index.astype(np.intp)


class Replay(NamedTuple):
    """What a batch replay found. Events are the plies played (games not failed), in step order."""

    failed: np.ndarray[Any, Any]
    """Per game: True when this path could not play one of its moves (python-chess must decide)."""
    game: np.ndarray[Any, Any]
    """Per event: index of the game in the batch."""
    ply: np.ndarray[Any, Any]
    """Per event: ply number from 0 (even: White moved)."""
    key: np.ndarray[Any, Any]
    """Per event: Polyglot key of the position before the move."""
    raw: np.ndarray[Any, Any]
    """Per event: the move as Polyglot stores it."""
    positions: dict[str, np.ndarray[Any, Any]]
    """Positions met before ``memo_depth`` plies (first of each key per step), by :data:`COLUMNS`."""
    links: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]
    """Deeper positions: (key, parent key, raw move from the parent)."""


def start_columns() -> dict[str, int]:
    """The standard start position as :data:`COLUMNS` values."""
    start = squares.START
    key = CASTLE_TABLE[15] ^ int(_TURN_RANDOM)  # every castling right; White to move
    for type_, name in enumerate(("pawns", "knights", "bishops", "rooks", "queens", "kings"), squares.PAWN):
        for side, color in enumerate(("black", "white")):
            mask = start[name] & start[color]
            while mask:
                square = mask.bit_length() - 1
                key ^= int(_PIECE_RANDOMS[(2 * (type_ - 1) + side) * 64 + square])
                mask ^= 1 << square
    return {**start, "ep": _NO_EP, "key": key, "turn": 1}


def replay(games: list[list[str]], *, memo_depth: int = 40) -> Replay:
    """Play every game's SAN tokens (``+``/``#`` stripped) from the standard start position."""
    return replay_tokens(*number_tokens(games), memo_depth=memo_depth)


def number_tokens(games: list[list[str]]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any],
                                                   np.ndarray[Any, Any], list[str]]:
    """Games of SAN tokens as :func:`replay_tokens` takes them: ``(tokens, starts, lengths, vocabulary)``."""
    lengths = np.fromiter((len(g) for g in games), dtype=np.int64, count=len(games))
    flat = list(chain.from_iterable(games))
    vocabulary = {token: number for number, token in enumerate(dict.fromkeys(flat))}
    tokens = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
    starts = np.zeros(len(games), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return tokens, starts, lengths, list(vocabulary)


def replay_tokens(tokens: np.ndarray[Any, Any], starts: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any],
                  vocabulary: list[str], *, memo_depth: int = 40) -> Replay:
    """:func:`replay` for games as numbers: game ``i`` is ``vocabulary[tokens[starts[i] + j]]``, j < lengths[i]."""
    count = len(lengths)
    order = np.argsort(-lengths, kind="stable")  # longest first: the games still playing are a prefix
    sorted_lengths = lengths[order]
    starts = starts[order]
    parsed = [parse_token(token) for token in vocabulary]
    forms = np.array([p[0] for p in parsed], dtype=np.int64)
    pieces = np.array([p[1] for p in parsed], dtype=np.int64)
    targets = np.array([p[2] for p in parsed], dtype=np.int64)
    origin_masks = np.array([p[3] for p in parsed], dtype=U64)
    promotions = np.array([p[4] for p in parsed], dtype=np.int64)

    start = start_columns()
    state = {name: np.full(count, value, dtype=np.int64 if name == "ep" else U64) for name, value in start.items()
             if name != "turn"}
    ep_part = np.zeros(count, dtype=U64)
    failed = np.zeros(count, dtype=bool)
    previous_key = np.zeros(count, dtype=U64)
    previous_raw = np.zeros(count, dtype=np.int64)
    events: list[tuple[int, Any, Any, Any]] = []
    kept: list[dict[str, Any]] = []
    links: list[tuple[Any, Any, Any]] = []
    playing = count
    ply = 0
    while True:
        while playing and sorted_lengths[playing - 1] <= ply:
            playing -= 1
        if not playing:
            break
        s = slice(0, playing)
        white_moves = ply % 2 == 0
        token = tokens[starts[s] + ply]
        before = {name: column[s] for name, column in state.items()}
        key_before = before["key"].copy()
        if ply < memo_depth:
            first = np.unique(key_before, return_index=True)[1]
            alive = ~failed[s][first]
            taken = first[alive]
            kept.append({name: column[taken].copy() for name, column in before.items()})
            kept[-1]["turn"] = np.full(len(taken), 1 if white_moves else 0, dtype=U64)
        elif ply > 0:
            alive = ~failed[s]
            links.append((key_before[alive], previous_key[s][alive], previous_raw[s][alive]))
        moved, raw, bad = _step(before, ep_part[s], white_moves, forms[token], pieces[token], targets[token],
                                origin_masks[token], promotions[token])
        bad |= failed[s]
        failed[s] = bad
        for name, column in moved.items():
            if name == "ep_part":
                ep_part[s] = column
            else:
                state[name][s] = column
        events.append((ply, order[s].copy(), key_before, raw))
        previous_key[s] = key_before
        previous_raw[s] = raw
        ply += 1

    failed_by_game = np.zeros(count, dtype=bool)
    failed_by_game[order] = failed
    event_game = [e[1][~failed_by_game[e[1]]] for e in events]
    keep = [~failed_by_game[e[1]] for e in events]
    positions = {name: np.concatenate([k[name] for k in kept]) if kept else
                 np.zeros(0, dtype=np.int64 if name == "ep" else U64) for name in COLUMNS}
    empty = np.zeros(0, dtype=U64)
    return Replay(
        failed=failed_by_game,
        game=np.concatenate(event_game) if events else np.zeros(0, dtype=np.int64),
        ply=np.concatenate([np.full(int(k.sum()), e[0], dtype=np.int64) for e, k in zip(events, keep, strict=True)])
        if events else np.zeros(0, dtype=np.int64),
        key=np.concatenate([e[2][k] for e, k in zip(events, keep, strict=True)]) if events else empty,
        raw=np.concatenate([e[3][k] for e, k in zip(events, keep, strict=True)]) if events else
        np.zeros(0, dtype=np.int64),
        positions=positions,
        links=(np.concatenate([link[0] for link in links]) if links else empty,
               np.concatenate([link[1] for link in links]) if links else empty,
               np.concatenate([link[2] for link in links]) if links else np.zeros(0, dtype=np.int64)),
    )


def _step(before: dict[str, Any], ep_part: Any, white: bool, form: Any, piece: Any, target: Any, origin_mask: Any,
          promotion: Any) -> tuple[dict[str, Any], Any, Any]:
    """One ply for every game still playing: the new state, the raw moves and which games failed."""
    white_bb, black_bb = before["white"], before["black"]
    own, them = (white_bb, black_bb) if white else (black_bb, white_bb)
    pawns, knights, bishops = before["pawns"], before["knights"], before["bishops"]
    rooks, queens, kings = before["rooks"], before["queens"], before["kings"]
    ep = before["ep"]
    occupied = white_bb | black_bb
    empty = ~occupied
    target_bb = _ONE << target.astype(U64)
    bad = (form == BAD) | ((target_bb & own) != _ZERO)

    # the piece that moves: attacks from the target square that reach a piece of the right kind
    diagonal, orthogonal = _slide(target_bb, empty, _DIAGONAL), _slide(target_bb, empty, _ORTHOGONAL)
    candidates = np.where(piece == squares.KNIGHT, _knight(target_bb) & knights, _ZERO)
    candidates |= np.where(piece == squares.BISHOP, diagonal & bishops, _ZERO)
    candidates |= np.where(piece == squares.ROOK, orthogonal & rooks, _ZERO)
    candidates |= np.where(piece == squares.QUEEN, (diagonal | orthogonal) & queens, _ZERO)
    candidates |= np.where(piece == squares.KING, _king(target_bb) & kings, _ZERO)
    own_pawns = pawns & own
    behind = (target_bb >> U64(8)) if white else (target_bb << U64(8))
    two_behind = (behind >> U64(8)) if white else (behind << U64(8))
    double_rank = (target >> 3) == (3 if white else 4)
    push_origin = np.where((behind & own_pawns) != _ZERO, behind,
                           np.where(((behind & occupied) == _ZERO) & double_rank, two_behind & own_pawns, _ZERO))
    capture_origin = (((behind << _ONE) & _NOT_A) | ((behind >> _ONE) & _NOT_H)) & own_pawns
    is_push, is_capture, is_piece = form == PAWN_PUSH, form == PAWN_CAPTURE, form == PIECE_MOVE
    origin_bb = np.where(is_piece, candidates, np.where(is_push, push_origin, capture_origin)) & origin_mask & own
    bad |= is_push & ((target_bb & occupied) != _ZERO)
    en_passant = is_capture & (target == ep) & ((target_bb & them) == _ZERO)
    bad |= is_capture & ((target_bb & them) == _ZERO) & ~en_passant
    first = origin_bb & (~origin_bb + _ONE)  # the lowest candidate
    rest = origin_bb ^ first
    bad |= (first == _ZERO) | ((rest & (rest - _ONE)) != _ZERO)  # no candidate, or three and more
    moved, raw, illegal = _apply(before, ep_part, white, first, piece, target, promotion, is_push, en_passant)
    two = np.flatnonzero((rest != _ZERO) & ~bad)
    if len(two):  # two candidates: SAN leaves out what a pin decides, so exactly one of them must be legal
        other, other_raw, other_illegal = _apply({name: column[two] for name, column in before.items()},
                                                 ep_part[two], white, rest[two], piece[two], target[two],
                                                 promotion[two], is_push[two], en_passant[two])
        first_illegal = illegal[two]
        switch = two[first_illegal & ~other_illegal]
        chosen = first_illegal & ~other_illegal
        for name, column in moved.items():
            column[switch] = other[name][chosen]
        raw[switch] = other_raw[chosen]
        illegal[two] = first_illegal == other_illegal  # both legal (ambiguous) or neither
    bad |= illegal
    for short, kind in ((True, CASTLE_SHORT), (False, CASTLE_LONG)):
        rows = np.flatnonzero(form == kind)
        if len(rows):
            _castle(rows, short, white, before, ep_part, moved, raw, bad)
    return moved, raw, bad


def _apply(before: dict[str, Any], ep_part: Any, white: bool, origin_bb: Any, piece: Any, target: Any,
           promotion: Any, is_push: Any, en_passant: Any) -> tuple[dict[str, Any], Any, Any]:
    """Play the move from ``origin_bb`` (one square): the new state, the raw moves, and which leave the king
    attacked."""
    white_bb, black_bb = before["white"], before["black"]
    own, them = (white_bb, black_bb) if white else (black_bb, white_bb)
    pawns, knights, bishops = before["pawns"], before["knights"], before["bishops"]
    rooks, queens, kings = before["rooks"], before["queens"], before["kings"]
    castling, key = before["castling"], before["key"]
    target_bb = _ONE << target.astype(U64)
    origin = _square_of(origin_bb)
    captured_square = np.where(en_passant, target - 8 if white else target + 8, target)
    captured_bb = (_ONE << captured_square.astype(U64)) & them
    captured = np.zeros(len(target), dtype=np.int64)
    for kind, bitboard in ((1, pawns), (2, knights), (3, bishops), (4, rooks), (5, queens), (6, kings)):
        captured[(captured_bb & bitboard) != _ZERO] = kind
    illegal = captured == squares.KING
    landing = np.where(promotion > 0, promotion, piece)
    kept = ~captured_bb
    boards = []
    for kind, bitboard in ((1, pawns), (2, knights), (3, bishops), (4, rooks), (5, queens), (6, kings)):
        boards.append((bitboard & kept & ~np.where(piece == kind, origin_bb, _ZERO))
                      | np.where(landing == kind, target_bb, _ZERO))
    new_own = own ^ origin_bb ^ target_bb
    new_them = them & kept
    king = boards[5] & new_own
    illegal |= _attacked(king, new_own | new_them, new_them, tuple(boards), not white)

    side = 1 if white else 0  # Polyglot piece kinds: 2 * (piece - 1) + (1 for white)
    new_key = key ^ ep_part ^ _TURN_RANDOM ^ _PIECE_RANDOMS[(2 * (piece - 1) + side) * 64 + origin] \
        ^ _PIECE_RANDOMS[(2 * (landing - 1) + side) * 64 + target] \
        ^ _PIECE_RANDOMS[np.where(captured > 0, (2 * (captured - 1) + 1 - side) * 64 + captured_square,
                                  _NO_PIECE_INDEX)]
    home = U64(squares.BB_RANK_1 if white else squares.BB_RANK_8)
    new_castling = castling & ~(origin_bb | target_bb) & np.where(piece == squares.KING, ~home, _ALL)
    new_key ^= _CASTLE_RANDOMS[_castle_index(castling)] ^ _CASTLE_RANDOMS[_castle_index(new_castling)]
    double = is_push & (np.abs(target - origin) == 16)
    new_ep = np.where(double, (target + origin) >> 1, _NO_EP)
    capturers = _EP_FROM[not white][new_ep] & boards[0] & new_them
    new_ep_part = np.where(capturers != _ZERO, _EP_RANDOMS[new_ep & 7], _ZERO)
    new_key ^= new_ep_part
    raw = pack_moves(origin, target, promotion)

    new_white, new_black = (new_own, new_them) if white else (new_them, new_own)
    moved = {"white": new_white, "black": new_black, "pawns": boards[0], "knights": boards[1], "bishops": boards[2],
             "rooks": boards[3], "queens": boards[4], "kings": boards[5], "castling": new_castling, "ep": new_ep,
             "key": new_key, "ep_part": new_ep_part}
    return moved, raw, illegal


def _castle(rows: Any, short: bool, white: bool, before: dict[str, Any], ep_part: Any, moved: dict[str, Any],
            raw: Any, bad: Any) -> None:
    """Castling for the games at ``rows``: written over the general step's results."""
    king_from, king_to, rook_from, rook_to, between, crossed = _CASTLES[(white, short)]
    column = {name: value[rows] for name, value in before.items()}
    own = column["white"] if white else column["black"]
    them = column["black"] if white else column["white"]
    occupied = own | them
    rook_bb, king_bb = U64(1 << rook_from), U64(1 << king_from)
    ok = ((column["castling"] & rook_bb) != _ZERO) & ((column["kings"] & own & king_bb) != _ZERO) \
        & ((column["rooks"] & own & rook_bb) != _ZERO) & ((occupied & U64(between)) == _ZERO)
    board = tuple(column[name] for name in ("pawns", "knights", "bishops", "rooks", "queens", "kings"))
    for square in crossed:
        ok &= ~_attacked(np.full(len(rows), 1 << square, dtype=U64), occupied, them, board, not white)
    king_move, rook_move = U64((1 << king_from) | (1 << king_to)), U64((1 << rook_from) | (1 << rook_to))
    castling = column["castling"]
    new_castling = castling & ~U64(squares.BB_RANK_1 if white else squares.BB_RANK_8)
    side = 1 if white else 0
    king_kind, rook_kind = (2 * (squares.KING - 1) + side) * 64, (2 * (squares.ROOK - 1) + side) * 64
    key = column["key"] ^ ep_part[rows] ^ _TURN_RANDOM ^ _PIECE_RANDOMS[king_kind + king_from] \
        ^ _PIECE_RANDOMS[king_kind + king_to] ^ _PIECE_RANDOMS[rook_kind + rook_from] \
        ^ _PIECE_RANDOMS[rook_kind + rook_to] ^ _CASTLE_RANDOMS[_castle_index(castling)] \
        ^ _CASTLE_RANDOMS[_castle_index(new_castling)]
    for name in ("pawns", "knights", "bishops", "queens"):
        moved[name][rows] = column[name]
    moved["kings"][rows] = column["kings"] ^ king_move
    moved["rooks"][rows] = column["rooks"] ^ rook_move
    moved["white" if white else "black"][rows] = own ^ king_move ^ rook_move
    moved["black" if white else "white"][rows] = them
    moved["castling"][rows] = new_castling
    moved["ep"][rows] = _NO_EP
    moved["ep_part"][rows] = _ZERO
    moved["key"][rows] = key
    raw[rows] = pack_moves(king_from, rook_from)  # Polyglot stores castling as the king taking its rook
    bad[rows] = ~ok
