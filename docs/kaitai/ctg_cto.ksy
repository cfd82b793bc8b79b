# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: ctg_cto
  title: ChessBase CTG lookup table (.cto)
  file-extension: [cto]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  ChessBase CTG lookup table (.cto). The `.cto` file: a header, then one data page number per directory node.

  A CTG book is three files. The `.ctg` file is a sequence of 4096-byte pages: a header page, then data pages numbered from 0 (data page n starts at byte 4096 * (n + 1)), each holding position records back to back. A record is a position encoded from the point of view of the side to move, the book moves from it and the statistics of the games that reached it. The `.cto` file is a table from position hashes to data pages; the `.ctb` file holds the bounds of the lookup in that table. All integers are big-endian.

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/ctg.md
seq:
  - id: header
    type: cto_header
    doc: the 16-byte header
  - id: pages
    type: s4be
    repeat: expr
    repeat-expr: header.entries
    doc: "the directory: one data page number per node"
  - id: trailing
    size-eos: true
    doc: bytes after the table (none in the known file), kept
types:
  cto_header:
    seq:
      - id: unknown_0
        size: 4
        doc: "unknown; 00 10 00 01 in the known file (written as is)"
      - id: entries
        type: u4be
        doc: number of 4-byte entries after this header
      - id: unknown_8
        type: u4be
        doc: "unknown; 0 in the known file (written as is)"
      - id: unknown_12
        type: u4be
        doc: "unknown; 248 in the known file (its CTB lower bound; written so)"
