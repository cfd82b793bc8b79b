# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: monty_policy
  title: Monty training data, policy format (.montyformat)
  file-extension: [montyformat]
  license: MIT
  ks-version: "0.11"
  endian: le
  bit-endian: be
doc: |-
  Monty training data, policy format (.montyformat). A policy file: games back to back, each a header, its plies and a null move.

  Training data written by the Monty chess engine's data generator (the Rust crate `montyformat`). A file is a sequence of games and nothing else: no file header, no index. A game is a 43-byte header (the start position, the files of the castling rooks and the result), then one record per ply, then a terminator. The *policy* format (`MontyFormat`) stores for each ply the move, the search's score and the visit distribution over the legal moves, and ends a game with a null move (2 zero bytes); the *value* format (`MontyValueFormat`) stores the move and an evaluation, and ends a game with 4 zero bytes. All integers are little-endian. Squares are numbered 0 = a1, 1 = b1, ..., 7 = h1, 8 = a2, ..., 63 = h8.

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/monty.md
seq:
  - id: games
    type: policy_game
    repeat: eos
    doc: the games, back to back
types:
  policy_game:
    seq:
      - id: header
        type: header
        doc: the start position and the result
      - id: plies
        type: ply
        repeat: until
        repeat-until: _.end_follows
        if: plies_first_bytes != 0
        doc: the plies of the game
      - id: terminator
        type: terminator
        doc: end of the game
    instances:
      plies_first_bytes:
        pos: _io.pos
        type: u2le
        doc: "the 2 bytes where `plies` starts, read ahead (0: the terminator, no items)"
  header:
    doc: "Game header: The start of every game, in both formats."
    seq:
      - id: board
        type: bitboards
        doc: the pieces of the start position, as 4 overlapping bitboards
      - id: side_to_move
        type: u1
        enum: side
        doc: whose move it is in the start position
      - id: ep_square
        type: u1
        doc: "en-passant target square (0 = a1, 8 = a2, ..., 63 = h8) after a double pawn push, whether or not a capture is possible; 0 = none"
      - id: castling_rights
        type: castling_rights
        doc: castling rights of the start position
      - id: halfmove_clock
        type: u1
        doc: plies since the last capture or pawn move
      - id: fullmove_number
        type: u2le
        doc: move number of the start position, from 1
      - id: white_queenside_rook
        type: u1
        doc: file (0 = a) of the rook white castles queenside with (a when none)
      - id: white_kingside_rook
        type: u1
        doc: file (7 = h) of the rook white castles kingside with (h when none)
      - id: black_queenside_rook
        type: u1
        doc: file of the rook black castles queenside with (a when none)
      - id: black_kingside_rook
        type: u1
        doc: file of the rook black castles kingside with (h when none)
      - id: result
        type: u1
        enum: result
        doc: the game's result from white's side
  bitboards:
    seq:
      - id: black
        type: u8le
        doc: squares of the black pieces
      - id: rooks_queens_kings
        type: u8le
        doc: squares of the rooks, queens and kings (both colours)
      - id: knights_bishops_kings
        type: u8le
        doc: squares of the knights, bishops and kings (both colours)
      - id: pawns_bishops_queens
        type: u8le
        doc: squares of the pawns, bishops and queens (both colours)
  castling_rights:
    meta:
      bit-endian: be
    seq:
      - id: unused
        type: b4
        doc: always 0
      - id: white_queenside
        type: b1
        doc: white may still castle queenside (Q)
      - id: white_kingside
        type: b1
        doc: white may still castle kingside (K)
      - id: black_queenside
        type: b1
        doc: black may still castle queenside (q)
      - id: black_kingside
        type: b1
        doc: black may still castle kingside (k)
  ply:
    doc: "Ply, policy format: One record per ply of a policy file; `num_moves` visit bytes follow the fixed part."
    seq:
      - id: move
        type: move
        doc: the move played
      - id: score
        type: u2le
        doc: "the search's score for the side to move, trunc(score * 65535) with score in [0, 1]"
      - id: num_moves
        type: u1
        doc: number of legal moves, 0 when the ply stores no visit distribution
      - id: visits
        type: u1
        repeat: expr
        repeat-expr: num_moves
        doc: visits of one legal move (moves in the order of their u16 codes), 255 = the most visited
    instances:
      next_bytes:
        pos: _io.pos
        type: u2le
        doc: "the 2 bytes after this item, read ahead (all zero: the terminator follows)"
      end_follows:
        value: next_bytes == 0
        doc: the terminator follows this item
  move:
    doc: "Move: A move as a little-endian u16: `flag | destination << 4 | source << 10`."
    meta:
      bit-endian: le
    seq:
      - id: flag
        type: b4
        enum: flag
        doc: what kind of move
      - id: destination
        type: b6
        doc: "square the piece reaches; when castling the king's g- or c-file square (the king's own square when it does not move)"
      - id: source
        type: b6
        doc: "square the piece leaves (0 = a1, 1 = b1, ..., 63 = h8); the king's square when castling"
  terminator:
    doc: "Terminator, policy format: After the last ply of a policy game."
    seq:
      - id: null_move
        contents: [0, 0]
        doc: "the null move (u16 0): the game ends"
enums:
  side:
    0:
      id: white
      doc: white to move
    1:
      id: black
      doc: black to move
  result:
    0:
      id: black_wins
      doc: white lost (0-1)
    1:
      id: draw
      doc: a draw (1/2-1/2)
    2:
      id: white_wins
      doc: white won (1-0)
  flag:
    0:
      id: quiet
      doc: a move to an empty square
    1:
      id: double_push
      doc: a pawn advancing two squares
    2:
      id: king_castle
      doc: "castling with the rook on the h-side of the king; the king ends on the g-file"
    3:
      id: queen_castle
      doc: "castling with the rook on the a-side of the king; the king ends on the c-file"
    4:
      id: capture
      doc: a capture (not en passant, not a promotion)
    5:
      id: en_passant
      doc: an en-passant capture
    8:
      id: knight_promotion
      doc: a pawn move to the last rank, promoting to a knight
    9:
      id: bishop_promotion
      doc: a promotion to a bishop
    10:
      id: rook_promotion
      doc: a promotion to a rook
    11:
      id: queen_promotion
      doc: a promotion to a queen
    12:
      id: knight_promotion_capture
      doc: a capture promoting to a knight
    13:
      id: bishop_promotion_capture
      doc: a capture promoting to a bishop
    14:
      id: rook_promotion_capture
      doc: a capture promoting to a rook
    15:
      id: queen_promotion_capture
      doc: a capture promoting to a queen
