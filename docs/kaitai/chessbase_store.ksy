# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: chessbase_store
  title: "ChessBase game data and annotations (.cbg, .cba): the header"
  file-extension: [cbg, cba]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  ChessBase game data and annotations (.cbg, .cba): the header. The header of the `.cbg` and `.cba` files; the records it is followed by are found through the offsets of the `.cbh` records (their coded move streams are not exported).

  A ChessBase database is a family of files with one name. The `.cbh` file has a 46-byte header and one 46-byte record per game or guiding text (game number n, counted from 1, is record n); each record points into `.cbg` (the game data: setup position and coded move stream) and `.cba` (annotations) and names the game's players, tournament, annotator and source by record number in the entity files `.cbp .cbt .cbc .cbs .cbe`, which are AVL trees of fixed-size records. `.cbh .cbg .cba` are big-endian; the entity files are little-endian. The optional `.cbj` file (the extended game header) adds per game the teams (record numbers in `.cbe`), rating types, final material and timestamps. Other companions (`.cbm .cbl .cbtt .cib .cit .cbb .ini` ...) are indexes and settings that a reader does not need. A base travels as an archive: `.cbv` (its files, compressed) or `.cbz` (the same enciphered with a password), read and written here too (the last structures below).

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/chessbase.md
seq:
  - id: header
    type: store_header
    doc: the file header
types:
  store_header:
    doc: ".cbg and .cba header: The header of the `.cbg` and `.cba` files."
    seq:
      - id: header_size
        type: u2be
        enum: header_size
        doc: "size of this header; the first record follows it"
      - id: file_size
        type: u4be
        doc: size of the file
      - id: unused_bytes
        type: u4be
        doc: bytes no record uses any more (left by edits)
      - id: file_size_64
        type: u8be
        if: header_size == header_size::modern
        doc: size of the file again (modern header only)
      - id: unused_bytes_64
        type: u8be
        if: header_size == header_size::modern
        doc: unused bytes again (modern header only)
enums:
  header_size:
    10:
      id: old
      doc: "10-byte header of old bases"
    26:
      id: modern
      doc: "26-byte header: 32- and 64-bit size fields"
