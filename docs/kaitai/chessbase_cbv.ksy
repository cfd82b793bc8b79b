# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: chessbase_cbv
  title: "ChessBase archive (.cbv): header and file table"
  file-extension: [cbv]
  license: MIT
  ks-version: "0.11"
  endian: le
  bit-endian: be
doc: |-
  ChessBase archive (.cbv): header and file table. The header and file table of a `.cbv` archive. The blocks that follow (each file's, in entry order) are not exported: their Huffman code tables are bit-packed with lengths read from the stream, and the code words and LZ/RLE items need the decoders.

  A ChessBase database is a family of files with one name. The `.cbh` file has a 46-byte header and one 46-byte record per game or guiding text (game number n, counted from 1, is record n); each record points into `.cbg` (the game data: setup position and coded move stream) and `.cba` (annotations) and names the game's players, tournament, annotator and source by record number in the entity files `.cbp .cbt .cbc .cbs .cbe`, which are AVL trees of fixed-size records. `.cbh .cbg .cba` are big-endian; the entity files are little-endian. The optional `.cbj` file (the extended game header) adds per game the teams (record numbers in `.cbe`), rating types, final material and timestamps. Other companions (`.cbm .cbl .cbtt .cib .cit .cbb .ini` ...) are indexes and settings that a reader does not need. A base travels as an archive: `.cbv` (its files, compressed) or `.cbz` (the same enciphered with a password), read and written here too (the last structures below).

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/chessbase.md
seq:
  - id: header
    type: header
    doc: the archive header
  - id: files
    type: files
    size: header.entry_size
    repeat: expr
    repeat-expr: header.files
    doc: the file table, one entry per file
types:
  header:
    doc: ".cbv archive header: The first 8 bytes of an archive (little-endian, like the whole container). The file table follows: `files` entries, `entry_size` bytes apart."
    seq:
      - id: magic
        type: u2le
        valid: 8
        doc: "8: a ChessBase archive (a .cbz deciphered starts so too)"
      - id: files
        type: u2le
        doc: number of entries in the file table
      - id: entry_size
        type: u2le
        doc: "bytes per file-table entry: 173 in the corpus (uncbv reads one byte and skips the next)"
      - id: reserved_6
        type: u2le
        doc: "3 in every corpus archive; meaning unknown"
  files:
    doc: ".cbv file-table entry: One per file. The files' blocks follow the table in entry order, each file's taking `compressed_size` bytes."
    seq:
      - id: name
        size: 132
        doc: "the file's name, 0-terminated, in a single-byte code page; a Windows path (backslashes) in principle, a bare name in the corpus"
      - id: compressed_size
        type: s4le
        doc: bytes of the file's blocks in the archive (block headers included)
      - id: size
        type: s4le
        doc: bytes of the file once decoded
      - id: reserved_140
        type: u1
        doc: "1 in every corpus entry; meaning unknown"
      - id: date
        type: u4le
        doc: "the file's date as the decimal number YYYYMMDD (corpus: 20160801)"
      - id: time
        type: u4le
        doc: the file's time as the decimal number hhmmsscc (hours, minutes, seconds, hundredths)
      - id: offset
        type: u8le
        doc: offset of the file's first block in the archive (the files follow the table in entry order)
      - id: compressed_size_64
        type: u8le
        doc: compressed_size again, 64 bits
      - id: size_64
        type: u8le
        doc: size again, 64 bits
