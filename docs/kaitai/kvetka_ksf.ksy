# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: kvetka_ksf
  title: Kvetka sources (.ksf)
  file-extension: [ksf]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  Kvetka sources (.ksf). The `.ksf` file: a table of contents, then the sources and their games.

  A Kvetka book NAME is `NAME_0.kob`, `NAME_1.kob`, ... (numbered from 0 without gaps), `NAME.kin` (optional) and `NAME.ksf` (optional). The `.kob` files, read one after the other, are one stream: a header, then blocks of 2048 bytes, each holding elements sorted by key; an element is one position (seen from the side to move), its wins, draws and losses and its book moves. The `.kin` file holds the first key of every block, the `.ksf` file the sources the games came from. All integers are big-endian.

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/kvetka.md
seq:
  - id: toc
    type: toc
    doc: the table of contents
  - id: sources
    type: source
    repeat: expr
    repeat-expr: toc.source_number
    doc: "the sources, in order (a reader follows the addresses; this library writes them back to back)"
types:
  toc:
    doc: ".ksf table of contents: The start of the `.ksf` file."
    seq:
      - id: source_number
        type: u4be
        doc: number of sources
      - id: addresses
        type: u4be
        repeat: expr
        repeat-expr: source_number
        doc: offset of each source from the start of the file
      - id: unused
        size: (512 - ((4 + (4 * source_number)) % 512)) % 512
        doc: "up to the next multiple of 512 bytes (fewer than 512): zeros when written"
  source:
    doc: ".ksf source: A source and its games; it starts at its address in the table."
    seq:
      - id: source_type
        type: u1
        enum: source_type
        doc: what the source is
      - id: is_bad
        type: u1
        doc: "non-zero: the source is known to be unavailable (broken link, deleted file)"
      - id: address
        type: address
        doc: "URL or full path; '%currentdir' stands for Kvetka's folder (with its trailing separator)"
      - id: games_number
        type: u4be
        doc: number of games described
      - id: games
        type: game
        repeat: expr
        repeat-expr: games_number
        doc: the games
  address:
    seq:
      - id: length
        type: u4be
        doc: length of the string in UTF-16 code units
      - id: text
        size: length * 2
        doc: the characters, UTF-16 big-endian
  game:
    doc: ".ksf game: One game of a source."
    seq:
      - id: game_address
        type:
          switch-on: _parent.source_type == source_type::internet
          cases:
            true: internet_address
            false: u4be
        doc: "where the game is: PGN and CBH: its offset in the file; web page: kind and number/offset"
      - id: game_length
        type: u4be
        doc: "length of the game's data in the source (ignored for web kinds 1, 2, 6; 46, the .cbh record, for CBH)"
      - id: white
        type: white
        doc: white's name
      - id: black
        type: white
        doc: black's name
      - id: white_elo
        type: u2be
        doc: white's ELO, 0 = unknown
      - id: black_elo
        type: u2be
        doc: black's ELO, 0 = unknown
      - id: game_result
        type: u1
        enum: game_result
        doc: the result
  internet_address:
    meta:
      bit-endian: be
    seq:
      - id: kind
        type: b6
        enum: internet_kind
        doc: "bits 26-31: the kind of web source"
      - id: position
        type: b26
        doc: "bits 0-25: the game's number in the page (kinds 1, 2, 6), else the offset in the page's source text"
  white:
    seq:
      - id: length
        type: u4be
        doc: length of the string in bytes
      - id: text
        size: length * 1
        doc: the characters, one byte each (Windows-1251)
enums:
  source_type:
    0:
      id: empty
      doc: an empty source (ignored)
    1:
      id: pgn
      doc: a PGN file
    2:
      id: internet
      doc: a web page
    3:
      id: cbh
      doc: a ChessBase database (.cbh)
  internet_kind:
    0:
      id: reserved_0
      doc: reserved
    1:
      id: chesspro
      doc: "online: chesspro.ru (game number)"
    2:
      id: crestbook
      doc: "online: crestbook.com (game number)"
    3:
      id: pgn_archive
      doc: a PGN archive downloaded from the internet
    4:
      id: reserved_4
      doc: reserved
    5:
      id: reserved_5
      doc: reserved
    6:
      id: pgntojs
      doc: online, made with the PGNtoJS utility (game number)
    7:
      id: chessbase_com
      doc: "online: chessbase.com"
    8:
      id: chessbase
      doc: online, made with ChessBase
    9:
      id: chessok
      doc: "online: chessok.com"
    10:
      id: chessgames
      doc: "online: chessgames.com"
    11:
      id: chesstempo_made
      doc: online, made with ChessTempo
    12:
      id: chesstempo
      doc: "online: chesstempo.com"
    13:
      id: ugra_chess
      doc: "online: games.ugra-chess.com"
  game_result:
    0:
      id: black_won
      doc: "0-1"
    1:
      id: white_won
      doc: "1-0"
    2:
      id: draw
      doc: "1/2-1/2"
    3:
      id: unknown
      doc: result unknown or undecided
