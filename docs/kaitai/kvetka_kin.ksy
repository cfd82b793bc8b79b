# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: kvetka_kin
  title: Kvetka block index (.kin)
  file-extension: [kin]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  Kvetka block index (.kin). The `.kin` file: the first key of every block.

  A Kvetka book NAME is `NAME_0.kob`, `NAME_1.kob`, ... (numbered from 0 without gaps), `NAME.kin` (optional) and `NAME.ksf` (optional). The `.kob` files, read one after the other, are one stream: a header, then blocks of 2048 bytes, each holding elements sorted by key; an element is one position (seen from the side to move), its wins, draws and losses and its book moves. The `.kin` file holds the first key of every block, the `.ksf` file the sources the games came from. All integers are big-endian.

  `keys` (kvetka_kin): kept as bytes: a prefix code cannot be expressed here (see the format's documentation)

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/kvetka.md
seq:
  - id: keys
    size: 22
    repeat: eos
    doc: "the key of the first element of each block, in block order (kept as bytes: a prefix code cannot be expressed here (see the format's documentation))"
types: {}
