# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: ctg_ctb
  title: ChessBase CTG lookup bounds (.ctb)
  file-extension: [ctb]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  ChessBase CTG lookup bounds (.ctb). The `.ctb` file: the bounds of the `.cto` lookup.

  A CTG book is three files. The `.ctg` file is a sequence of 4096-byte pages: a header page, then data pages numbered from 0 (data page n starts at byte 4096 * (n + 1)), each holding position records back to back. A record is a position encoded from the point of view of the side to move, the book moves from it and the statistics of the games that reached it. The `.cto` file is a table from position hashes to data pages; the `.ctb` file holds the bounds of the lookup in that table. All integers are big-endian.

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/ctg.md
seq:
  - id: unknown_0
    size: 4
    doc: "unknown; 00 0c 00 01 in the known file (written as is)"
  - id: lower_bound
    type: u4be
    doc: smallest .cto entry number the lookup reads
  - id: upper_bound
    type: u4be
    doc: the lookup stops after reading an entry number at least this large
  - id: rest
    size-eos: true
    doc: "unknown, kept (48 bytes in the known file: 31 bytes ff and one 7f, zeros, then 00 00 00 08; written as 48 zeros)"
types: {}
