# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: chessbase_cbp
  title: ChessBase players (.cbp)
  file-extension: [cbp]
  license: MIT
  ks-version: "0.11"
  endian: le
  bit-endian: be
doc: |-
  ChessBase players (.cbp). The `.cbp` file: a header, then fixed-size records (an AVL tree).

  A ChessBase database is a family of files with one name. The `.cbh` file has a 46-byte header and one 46-byte record per game or guiding text (game number n, counted from 1, is record n); each record points into `.cbg` (the game data: setup position and coded move stream) and `.cba` (annotations) and names the game's players, tournament, annotator and source by record number in the entity files `.cbp .cbt .cbc .cbs .cbe`, which are AVL trees of fixed-size records. `.cbh .cbg .cba` are big-endian; the entity files are little-endian. The optional `.cbj` file (the extended game header) adds per game the teams (record numbers in `.cbe`), rating types, final material and timestamps. Other companions (`.cbm .cbl .cbtt .cib .cit .cbb .ini` ...) are indexes and settings that a reader does not need. A base travels as an archive: `.cbv` (its files, compressed) or `.cbz` (the same enciphered with a password), read and written here too (the last structures below).

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/chessbase.md
seq:
  - id: header
    type: entity_header
    doc: the file header
  - id: records
    type: player
    size: header.record_data_size + 9
    repeat: eos
    doc: the records, each a tree node and the entity
types:
  entity_header:
    doc: "Entity file header: The header of `.cbp .cbt .cbc .cbs .cbe` (28 bytes in old bases, 32 in modern ones); record n (from 0) follows at header size + n * (record_data_size + 9)."
    seq:
      - id: records
        type: u4le
        doc: number of records in the file, deleted ones included
      - id: root
        type: s4le
        doc: "record number of the root of the AVL tree (-1: empty)"
      - id: magic
        type: u4le
        valid: 1234567890
        doc: "1234567890"
      - id: record_data_size
        type: u4le
        doc: record size minus the 9 bytes of the tree node
      - id: first_deleted
        type: s4le
        doc: "first record of the list of deleted records (-1: none)"
      - id: existing
        type: u4le
        doc: records not deleted
      - id: extra_space
        type: u4le
        doc: "bytes of header after this field: 4 in modern bases, 0 in old ones"
      - id: extra
        size: extra_space
        doc: meaning unknown (0 in most bases)
  player:
    doc: ".cbp player: A player."
    seq:
      - id: left
        type: s4le
        doc: "record number of the left subtree's root; -1 none; -999: the record is deleted"
      - id: right
        type: s4le
        doc: "right subtree's root; -1 none; of a deleted record: the next deleted record"
      - id: balance
        type: s1
        doc: height of the right subtree minus that of the left one (0 for deleted records)
      - id: last_name
        size: 30
        doc: last name, 0-terminated (bytes after the terminator are leftovers)
      - id: first_name
        size: 20
        doc: first name, 0-terminated
      - id: games
        type: u4le
        doc: games of the player
      - id: first_game
        type: u4le
        doc: number of the player's first game
