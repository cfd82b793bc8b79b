# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: chessbase_cbh
  title: ChessBase game headers (.cbh)
  file-extension: [cbh]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  ChessBase game headers (.cbh). The `.cbh` file: a 46-byte header, then one 46-byte record per game or guiding text.

  A ChessBase database is a family of files with one name. The `.cbh` file has a 46-byte header and one 46-byte record per game or guiding text (game number n, counted from 1, is record n); each record points into `.cbg` (the game data: setup position and coded move stream) and `.cba` (annotations) and names the game's players, tournament, annotator and source by record number in the entity files `.cbp .cbt .cbc .cbs .cbe`, which are AVL trees of fixed-size records. `.cbh .cbg .cba` are big-endian; the entity files are little-endian. The optional `.cbj` file (the extended game header) adds per game the teams (record numbers in `.cbe`), rating types, final material and timestamps. Other companions (`.cbm .cbl .cbtt .cib .cit .cbb .ini` ...) are indexes and settings that a reader does not need. A base travels as an archive: `.cbv` (its files, compressed) or `.cbz` (the same enciphered with a password), read and written here too (the last structures below).

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/chessbase.md
seq:
  - id: header
    type: cbh_header
    doc: the file header
  - id: records
    type: cbh_record
    repeat: eos
    doc: one record per game or guiding text (game n is record n)
types:
  cbh_header:
    doc: ".cbh header: The first 46 bytes of the `.cbh` file. Old bases differ only in the values (`header_variant` 36, `next_game_id_2` 0)."
    seq:
      - id: reserved_0
        type: u1
        doc: "0"
      - id: header_variant
        type: u2be
        enum: header_variant
        doc: "header bytes in use: 44 (modern) or 36 (old); the signature is 00 00 2C/24 00 2E 01"
      - id: record_size
        type: u2be
        valid: 46
        doc: size of every record, 46
      - id: reserved_5
        type: u1
        doc: "1"
      - id: next_game_id
        type: u4be
        doc: records + 1 (the number the next record will get)
      - id: reserved_10
        type: u2be
        doc: "0"
      - id: counter_12
        type: u4be
        doc: a counter, meaning unknown (0 in most bases)
      - id: counter_16
        type: u4be
        doc: a counter, meaning unknown (9 in morphy_hedgehog)
      - id: counter_20
        type: u4be
        doc: a counter, meaning unknown (0 in most bases)
      - id: reserved_24
        size: 16
        doc: zeros
      - id: next_game_id_2
        type: u4be
        doc: records + 1 again in modern bases, 0 in old ones
      - id: reserved_44
        type: u2be
        doc: "0"
  cbh_record:
    doc: ".cbh record: Record n (from 1) is at offset 46 * n. `body` is a tagged union on `kind.guiding_text`; its two layouts follow."
    seq:
      - id: kind
        type: record_kind
        doc: what the record holds
      - id: cbg_offset
        type: u4be
        doc: offset of the game's (or text's) data in the .cbg file
      - id: body
        type:
          switch-on: "kind.guiding_text ? 1 : 0"
          cases:
            0: game_body
            1: text_body
        doc: the game or guiding-text fields
  record_kind:
    meta:
      bit-endian: be
    seq:
      - id: deleted
        type: b1
        doc: the record is marked deleted
      - id: reserved
        type: b5
        doc: "0 in the corpus"
      - id: guiding_text
        type: b1
        doc: "1: a guiding text, 0: a game"
      - id: present
        type: b1
        doc: always 1
  game_body:
    doc: Bytes 5-45 of a game record.
    seq:
      - id: cba_offset
        type: u4be
        doc: "offset of the game's annotations in the .cba file (0: none)"
      - id: white
        type: b24be
        doc: record number of the white player in the .cbp file
      - id: black
        type: b24be
        doc: record number of the black player in the .cbp file
      - id: tournament
        type: b24be
        doc: record number in the .cbt file
      - id: annotator
        type: b24be
        doc: record number in the .cbc file
      - id: source
        type: b24be
        doc: record number in the .cbs file
      - id: date
        type: date
        doc: date of the game
      - id: result
        type: u1
        enum: result
        doc: result
      - id: line_evaluation
        type: u1
        enum: line_evaluation
        doc: evaluation when result is 3 (line), else 0
      - id: round
        type: u1
        doc: round, 0 = not given
      - id: subround
        type: u1
        doc: subround, 0 = not given
      - id: white_elo
        type: u2be
        doc: white's rating, 0 = not given
      - id: black_elo
        type: u2be
        doc: black's rating, 0 = not given
      - id: eco
        type: eco
        doc: opening classification (ECO) or Chess960 start position
      - id: medals
        type: medals
        doc: medals
      - id: flags
        type: game_flags
        doc: what the game contains
      - id: reserved_43
        type: u1
        doc: meaning unknown
      - id: annotation_sizes
        type: annotation_sizes
        doc: how much of each kind of annotation
      - id: moves
        type: u1
        doc: "moves of the main line; 255: count them from the game data"
  date:
    meta:
      bit-endian: be
    seq:
      - id: reserved
        type: b3
        doc: unused, 0
      - id: year
        type: b12
        doc: year, 0 = not given
      - id: month
        type: b4
        doc: month 1-12, 0 = not given
      - id: day
        type: b5
        doc: day 1-31, 0 = not given
  eco:
    meta:
      bit-endian: be
    seq:
      - id: code
        type: b9
        doc: "0 = none, 1 = A00 ... 500 = E99; the whole field >= 64576 is a Chess960 start position (value - 64576)"
      - id: subcode
        type: b7
        doc: sub-variation 0-99 (00 when not given)
  medals:
    meta:
      bit-endian: be
    seq:
      - id: custom
        type: b1
        doc: user-defined medal
      - id: strategic_blunder
        type: b1
        doc: strategic blunder
      - id: tactical_blunder
        type: b1
        doc: tactical blunder
      - id: endgame
        type: b1
        doc: endgame
      - id: piece_play
        type: b1
        doc: piece play
      - id: material
        type: b1
        doc: material
      - id: defence
        type: b1
        doc: defence
      - id: sacrifice
        type: b1
        doc: sacrifice
      - id: attack
        type: b1
        doc: attack
      - id: tactics
        type: b1
        doc: tactics
      - id: strategy
        type: b1
        doc: strategy
      - id: pawn_structure
        type: b1
        doc: pawn structure
      - id: novelty
        type: b1
        doc: novelty
      - id: model_game
        type: b1
        doc: model game (opening plan)
      - id: decided_tournament
        type: b1
        doc: decided the tournament
      - id: best_game
        type: b1
        doc: best game
  game_flags:
    meta:
      bit-endian: be
    seq:
      - id: reserved_39
        type: b4
        doc: "0 in the corpus"
      - id: chess960
        type: b1
        doc: "the game is Chess960 (flag 0x08000000; notes, seen in libcbh_Chess960*)"
      - id: reserved_39_2
        type: b1
        doc: "0 in the corpus"
      - id: correspondence_header
        type: b1
        doc: has a correspondence header
      - id: critical_position
        type: b1
        doc: has a critical position
      - id: reserved_40
        type: b2
        doc: "0 in the corpus"
      - id: piece_path
        type: b1
        doc: has a piece path
      - id: path_structure
        type: b1
        doc: has a path structure
      - id: game_link
        type: b1
        doc: has a link to another game
      - id: video
        type: b1
        doc: has embedded video
      - id: picture
        type: b1
        doc: has an embedded picture
      - id: audio
        type: b1
        doc: has embedded audio
      - id: reserved_41
        type: b6
        doc: "0 in the corpus"
      - id: training
        type: b1
        doc: has training annotations
      - id: reserved_41_0
        type: b1
        doc: "0 in the corpus"
      - id: time_notes
        type: b1
        doc: has time annotations
      - id: reserved_42
        type: b1
        doc: "0 in the corpus"
      - id: arrows
        type: b1
        doc: has arrows
      - id: squares
        type: b1
        doc: has coloured squares
      - id: symbols
        type: b1
        doc: has symbols (s)
      - id: comments
        type: b1
        doc: has comments (c)
      - id: variations
        type: b1
        doc: has variations (v)
      - id: setup
        type: b1
        doc: starts from a setup position (P)
  annotation_sizes:
    meta:
      bit-endian: be
    seq:
      - id: reserved
        type: b2
        doc: "0 in the corpus"
      - id: many_arrows
        type: b1
        doc: arrows in at least ten positions
      - id: many_squares
        type: b1
        doc: coloured squares in at least ten positions
      - id: many_symbols
        type: b1
        doc: many symbols (S)
      - id: many_comments
        type: b1
        doc: many comments (C)
      - id: variation_size
        type: b2
        enum: variation_size
        doc: how many moves the variations hold
  text_body:
    doc: Bytes 5-45 of a guiding-text record.
    seq:
      - id: reserved_5
        type: u2be
        doc: meaning unknown (0 in the corpus)
      - id: tournament
        type: b24be
        doc: record number in the .cbt file
      - id: source
        type: b24be
        doc: record number in the .cbs file
      - id: annotator
        type: b24be
        doc: record number in the .cbc file
      - id: round
        type: u1
        doc: round, 0 = not given
      - id: subround
        type: u1
        doc: subround (0 in the corpus)
      - id: media
        type: u1
        doc: "bit 2: the text holds a WMV video stream"
      - id: links
        type: links
        doc: media the text links
      - id: reserved_20
        size: 26
        doc: zeros
  links:
    meta:
      bit-endian: be
    seq:
      - id: reserved
        type: b5
        doc: "0 in the corpus"
      - id: video
        type: b1
        doc: links a video
      - id: picture
        type: b1
        doc: links a picture
      - id: audio
        type: b1
        doc: links audio
enums:
  header_variant:
    36:
      id: old
      doc: "older bases (CBLight, ChessBase 6-8): offset 40 is 0"
    44:
      id: modern
      doc: "ChessBase 9 and later: next-id fields at 12/16/20/40 in use"
  result:
    0:
      id: black_wins
      doc: "0-1"
    1:
      id: draw
      doc: "1/2-1/2"
    2:
      id: white_wins
      doc: "1-0"
    3:
      id: line
      doc: "no game result: a line (see line_evaluation); also what BielMTO stores for the PGN's 1/2-0"
    4:
      id: black_wins_forfeit
      doc: "-:+ (black wins by forfeit)"
    5:
      id: draw_forfeit
      doc: "=:= (draw without play)"
    6:
      id: white_wins_forfeit
      doc: "+:- (white wins by forfeit)"
    7:
      id: both_lose
      doc: "0-0 (both lose)"
  line_evaluation:
    0:
      id: none
      doc: no evaluation
    11:
      id: equal
      doc: "= equal position"
    13:
      id: unclear
      doc: unclear position
    14:
      id: white_slightly_better
      doc: "+/= white is slightly better"
    15:
      id: black_slightly_better
      doc: "=/+ black is slightly better"
    16:
      id: white_better
      doc: "+/- white is better"
    17:
      id: black_better
      doc: "-/+ black is better"
    18:
      id: white_winning
      doc: "+- white is winning"
    19:
      id: black_winning
      doc: "-+ black is winning"
    32:
      id: development
      doc: development advantage
    36:
      id: initiative
      doc: with initiative
    40:
      id: attack
      doc: with attack
    44:
      id: compensation
      doc: with compensation for the material
    132:
      id: counterplay
      doc: with counterplay
    138:
      id: zeitnot
      doc: time trouble
    146:
      id: novelty
      doc: novelty
  variation_size:
    0:
      id: v
      doc: "1-50 moves in variations (if any)"
    1:
      id: v_2
      doc: "51-300 moves in variations"
    2:
      id: r
      doc: "301-1000 moves in variations"
    3:
      id: r_2
      doc: more than 1000 moves in variations
