# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: polyglot_book
  title: Polyglot opening book
  file-extension: [bin]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  Polyglot opening book. A Polyglot book: 16-byte entries up to the end of the file.

  A Polyglot book is a flat file of 16-byte entries, all integers big-endian, sorted by key. Each entry pairs a position (its 64-bit Zobrist key) with one book move, a weight and a learn field. A position with several book moves has several consecutive entries with the same key.

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/polyglot.md
seq:
  - id: entries
    type: entry
    repeat: eos
    doc: the book entries, sorted by key, up to the end of the file
types:
  entry:
    doc: "Entry: One entry; the file is these entries back to back (file size = 16 * n)."
    seq:
      - id: key
        type: u8be
        doc: Zobrist hash of the position (see RANDOM64)
      - id: move
        type: move
        doc: "a book move from that position; 0 (a1a1) is to be ignored"
      - id: weight
        type: u2be
        doc: "relative frequency of the move; polyglot make-book writes 2*wins + draws, scaled"
      - id: learn
        type: u4be
        doc: "learning data; 0 unless a program wrote some (meaning not standardised)"
  move:
    doc: "Move: The 16-bit move field, bit 0 = least significant bit."
    meta:
      bit-endian: be
    seq:
      - id: reserved
        type: b1
        doc: unused, 0 in every known book
      - id: promotion
        type: b3
        enum: promotion
        doc: piece a pawn promotes to (5-7 are not defined)
      - id: from_rank
        type: b3
        doc: rank of the origin square, 0 = rank 1
      - id: from_file
        type: b3
        doc: file of the origin square, 0 = file a
      - id: to_rank
        type: b3
        doc: rank of the destination square, 0 = rank 1
      - id: to_file
        type: b3
        doc: file of the destination square, 0 = file a
enums:
  promotion:
    0:
      id: none
      doc: not a promotion
    1:
      id: knight
      doc: promotes to a knight
    2:
      id: bishop
      doc: promotes to a bishop
    3:
      id: rook
      doc: promotes to a rook
    4:
      id: queen
      doc: promotes to a queen
