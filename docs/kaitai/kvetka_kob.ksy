# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: kvetka_kob
  title: Kvetka opening book (NAME_0.kob)
  file-extension: [kob]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  Kvetka opening book (NAME_0.kob). The first `.kob` file of a book: the header, then 2048-byte blocks of elements. Later files (`NAME_1.kob`, ...) are blocks only.

  A Kvetka book NAME is `NAME_0.kob`, `NAME_1.kob`, ... (numbered from 0 without gaps), `NAME.kin` (optional) and `NAME.ksf` (optional). The `.kob` files, read one after the other, are one stream: a header, then blocks of 2048 bytes, each holding elements sorted by key; an element is one position (seen from the side to move), its wins, draws and losses and its book moves. The `.kin` file holds the first key of every block, the `.ksf` file the sources the games came from. All integers are big-endian.

  `key` (element_body): kept as bytes: a prefix code cannot be expressed here (see the format's documentation)

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/kvetka.md
seq:
  - id: header
    type: header
    doc: the book header
  - id: blocks
    type: block
    repeat: eos
    doc: the blocks, 2048 bytes each, up to the end of the file
types:
  header:
    doc: "Header: The start of `NAME_0.kob`."
    seq:
      - id: type
        type: u1
        enum: book_type
        doc: "the book type; any other value than 1 is not supported"
      - id: caption
        type: caption
        doc: short description of the book (Kvetka's book list shows it)
      - id: least_white_elo
        type: u2be
        doc: least ELO of white for a game to be added (0 = no filter)
      - id: least_black_elo
        type: u2be
        doc: least ELO of black (0 = no filter)
      - id: least_strong_elo
        type: u2be
        doc: least ELO of the stronger player (0 = no filter)
      - id: least_weak_elo
        type: u2be
        doc: least ELO of the weaker player (0 = no filter)
      - id: max_move
        type: u1
        doc: "plies of each game added to the book; 255 = all of them"
      - id: element_type
        type: element_type
        doc: the format of the elements
      - id: links
        type: u1
        doc: "non-zero: adding a position also adds the moves between it and the stored positions"
      - id: block_number
        type: u4be
        doc: number of blocks in the book (all .kob files)
  caption:
    seq:
      - id: length
        type: u4be
        doc: length of the string in UTF-16 code units
      - id: text
        size: length * 2
        doc: the characters, UTF-16 big-endian
  element_type:
    meta:
      bit-endian: be
    seq:
      - id: unused
        type: b7
        doc: "bits 1-7: not used, 0"
      - id: game_links
        type: b1
        doc: "bit 0: elements may hold references to games (flags bits 1 and 2 count)"
  block:
    doc: "Block: 2048 bytes: the bytes in use, elements, junk."
    seq:
      - id: used
        type: u2be
        doc: "n: bytes of the block in use, this field included (2048 minus the junk)"
      - id: elements
        type: elements_region
        size: used - 2
        doc: the elements, sorted by key
      - id: junk
        size: "2048 - used"
        doc: "the rest of the block: ignored (kept as it is)"
  elements_region:
    doc: "`elements` in a region of the size the field gives: the items, one after the other"
    seq:
      - id: items
        type: element
        repeat: eos
        doc: the elements, sorted by key
  element:
    doc: "Element: One position: at most 682 bytes, its length field included."
    seq:
      - id: length
        type: compact_int
        doc: length of the element in bytes, this field not included
      - id: body
        type: element_body
        size: length.value
        doc: the element's data
  element_body:
    seq:
      - id: key
        size: 22
        doc: "the position (22 bytes, see Key) (kept as bytes: a prefix code cannot be expressed here (see the format's documentation))"
      - id: wins
        type: compact_int
        doc: games with this position won by the side to move
      - id: draws
        type: compact_int
        doc: games with this position drawn
      - id: losses
        type: compact_int
        doc: games with this position lost by the side to move (the spec's 'loses')
      - id: move_number
        type: u1
        doc: number of book moves from this position
      - id: moves
        type: u1
        enum: move_code
        repeat: expr
        repeat-expr: move_number
        doc: the book moves, one move code each
      - id: flags
        type: element_flags
        doc: what follows the moves
      - id: some_source
        type: source_ref
        if: flags.game_reference and _root.header.element_type.game_links
        doc: a game with this position (when flags bit 2 and element_type bit 0 are set)
      - id: comment
        type: caption
        if: flags.comment
        doc: "short description, at most 300 characters; 'E98|name|variation' for an ECO opening (flags bit 0)"
      - id: game_links
        size-eos: true
        if: flags.game_links and _root.header.element_type.game_links
        doc: "games for which this is the last stored position (flags bit 1 and element_type bit 0): the spec gives no format, kept as bytes"
      - id: extra
        size-eos: true
        doc: "data of flag bits not defined yet: skipped, kept as bytes (none when written)"
  element_flags:
    meta:
      bit-endian: be
    seq:
      - id: unused
        type: b5
        doc: "bits 3-7: not used yet, 0; a future bit would add data at the end of the element (skipped by length)"
      - id: game_reference
        type: b1
        doc: "bit 2: a reference to one game with this position follows (some_source)"
      - id: game_links
        type: b1
        doc: "bit 1: the games for which this is the last position stored in the book follow (format not given)"
      - id: comment
        type: b1
        doc: "bit 0: a comment follows"
  source_ref:
    doc: "SourceType: A reference to a game of the `.ksf` file (6 bytes)."
    seq:
      - id: source_number
        type: u2be
        doc: the source in the .ksf file, from 0
      - id: game_in_source
        type: u4be
        doc: the game in that source, from 0
  compact_int:
    doc: "CompactInt: base-128 digits, most significant first, bit 7 set on every digit but the last"
    seq:
      - id: digits
        type: u1
        repeat: until
        repeat-until: _ < 128
        doc: the digits
    instances:
      value:
        value: "digits.size == 10 ? (((digits[0] & 127) << 63) | ((digits[1] & 127) << 56) | ((digits[2] & 127) << 49) | ((digits[3] & 127) << 42) | ((digits[4] & 127) << 35) | ((digits[5] & 127) << 28) | ((digits[6] & 127) << 21) | ((digits[7] & 127) << 14) | ((digits[8] & 127) << 7) | ((digits[9] & 127) << 0)) : (digits.size == 9 ? (((digits[0] & 127) << 56) | ((digits[1] & 127) << 49) | ((digits[2] & 127) << 42) | ((digits[3] & 127) << 35) | ((digits[4] & 127) << 28) | ((digits[5] & 127) << 21) | ((digits[6] & 127) << 14) | ((digits[7] & 127) << 7) | ((digits[8] & 127) << 0)) : (digits.size == 8 ? (((digits[0] & 127) << 49) | ((digits[1] & 127) << 42) | ((digits[2] & 127) << 35) | ((digits[3] & 127) << 28) | ((digits[4] & 127) << 21) | ((digits[5] & 127) << 14) | ((digits[6] & 127) << 7) | ((digits[7] & 127) << 0)) : (digits.size == 7 ? (((digits[0] & 127) << 42) | ((digits[1] & 127) << 35) | ((digits[2] & 127) << 28) | ((digits[3] & 127) << 21) | ((digits[4] & 127) << 14) | ((digits[5] & 127) << 7) | ((digits[6] & 127) << 0)) : (digits.size == 6 ? (((digits[0] & 127) << 35) | ((digits[1] & 127) << 28) | ((digits[2] & 127) << 21) | ((digits[3] & 127) << 14) | ((digits[4] & 127) << 7) | ((digits[5] & 127) << 0)) : (digits.size == 5 ? (((digits[0] & 127) << 28) | ((digits[1] & 127) << 21) | ((digits[2] & 127) << 14) | ((digits[3] & 127) << 7) | ((digits[4] & 127) << 0)) : (digits.size == 4 ? (((digits[0] & 127) << 21) | ((digits[1] & 127) << 14) | ((digits[2] & 127) << 7) | ((digits[3] & 127) << 0)) : (digits.size == 3 ? (((digits[0] & 127) << 14) | ((digits[1] & 127) << 7) | ((digits[2] & 127) << 0)) : (digits.size == 2 ? (((digits[0] & 127) << 7) | ((digits[1] & 127) << 0)) : ((digits[0] & 127) << 0)))))))))"
        doc: the number
enums:
  book_type:
    0:
      id: reserved_0
      doc: reserved
    1:
      id: book
      doc: "the only book type in use: the format described here"
    2:
      id: reserved_2
      doc: reserved
    3:
      id: reserved_3
      doc: reserved
  move_code:
    0:
      id: pawn1_y1
      doc: "0x00: 1st pawn, y+1"
    1:
      id: pawn1_y2
      doc: "0x01: 1st pawn, y+2"
    2:
      id: pawn1_x1_y1
      doc: "0x02: 1st pawn, x+1, y+1"
    3:
      id: pawn1_x7_y1
      doc: "0x03: 1st pawn, x+7, y+1"
    4:
      id: pawn2_y1
      doc: "0x04: 2nd pawn, y+1"
    5:
      id: pawn2_y2
      doc: "0x05: 2nd pawn, y+2"
    6:
      id: pawn2_x1_y1
      doc: "0x06: 2nd pawn, x+1, y+1"
    7:
      id: pawn2_x7_y1
      doc: "0x07: 2nd pawn, x+7, y+1"
    8:
      id: pawn3_y1
      doc: "0x08: 3rd pawn, y+1"
    9:
      id: pawn3_y2
      doc: "0x09: 3rd pawn, y+2"
    10:
      id: pawn3_x1_y1
      doc: "0x0a: 3rd pawn, x+1, y+1"
    11:
      id: pawn3_x7_y1
      doc: "0x0b: 3rd pawn, x+7, y+1"
    12:
      id: pawn4_y1
      doc: "0x0c: 4th pawn, y+1"
    13:
      id: pawn4_y2
      doc: "0x0d: 4th pawn, y+2"
    14:
      id: pawn4_x1_y1
      doc: "0x0e: 4th pawn, x+1, y+1"
    15:
      id: pawn4_x7_y1
      doc: "0x0f: 4th pawn, x+7, y+1"
    16:
      id: pawn5_y1
      doc: "0x10: 5th pawn, y+1"
    17:
      id: pawn5_y2
      doc: "0x11: 5th pawn, y+2"
    18:
      id: pawn5_x1_y1
      doc: "0x12: 5th pawn, x+1, y+1"
    19:
      id: pawn5_x7_y1
      doc: "0x13: 5th pawn, x+7, y+1"
    20:
      id: pawn6_y1
      doc: "0x14: 6th pawn, y+1"
    21:
      id: pawn6_y2
      doc: "0x15: 6th pawn, y+2"
    22:
      id: pawn6_x1_y1
      doc: "0x16: 6th pawn, x+1, y+1"
    23:
      id: pawn6_x7_y1
      doc: "0x17: 6th pawn, x+7, y+1"
    24:
      id: pawn7_y1
      doc: "0x18: 7th pawn, y+1"
    25:
      id: pawn7_y2
      doc: "0x19: 7th pawn, y+2"
    26:
      id: pawn7_x1_y1
      doc: "0x1a: 7th pawn, x+1, y+1"
    27:
      id: pawn7_x7_y1
      doc: "0x1b: 7th pawn, x+7, y+1"
    28:
      id: pawn8_y1
      doc: "0x1c: 8th pawn, y+1"
    29:
      id: pawn8_y2
      doc: "0x1d: 8th pawn, y+2"
    30:
      id: pawn8_x1_y1
      doc: "0x1e: 8th pawn, x+1, y+1"
    31:
      id: pawn8_x7_y1
      doc: "0x1f: 8th pawn, x+7, y+1"
    32:
      id: knight1_x1_y2
      doc: "0x20: 1st knight, x+1, y+2"
    33:
      id: knight1_x7_y2
      doc: "0x21: 1st knight, x+7, y+2"
    34:
      id: knight1_x2_y1
      doc: "0x22: 1st knight, x+2, y+1"
    35:
      id: knight1_x6_y1
      doc: "0x23: 1st knight, x+6, y+1"
    36:
      id: knight1_x2_y7
      doc: "0x24: 1st knight, x+2, y+7"
    37:
      id: knight1_x6_y7
      doc: "0x25: 1st knight, x+6, y+7"
    38:
      id: knight1_x1_y6
      doc: "0x26: 1st knight, x+1, y+6"
    39:
      id: knight1_x7_y6
      doc: "0x27: 1st knight, x+7, y+6"
    40:
      id: knight2_x1_y2
      doc: "0x28: 2nd knight, x+1, y+2"
    41:
      id: knight2_x7_y2
      doc: "0x29: 2nd knight, x+7, y+2"
    42:
      id: knight2_x2_y1
      doc: "0x2a: 2nd knight, x+2, y+1"
    43:
      id: knight2_x6_y1
      doc: "0x2b: 2nd knight, x+6, y+1"
    44:
      id: knight2_x2_y7
      doc: "0x2c: 2nd knight, x+2, y+7"
    45:
      id: knight2_x6_y7
      doc: "0x2d: 2nd knight, x+6, y+7"
    46:
      id: knight2_x1_y6
      doc: "0x2e: 2nd knight, x+1, y+6"
    47:
      id: knight2_x7_y6
      doc: "0x2f: 2nd knight, x+7, y+6"
    48:
      id: bishop1_x1_y1
      doc: "0x30: 1st bishop, x+1, y+1"
    49:
      id: bishop1_x2_y2
      doc: "0x31: 1st bishop, x+2, y+2"
    50:
      id: bishop1_x3_y3
      doc: "0x32: 1st bishop, x+3, y+3"
    51:
      id: bishop1_x4_y4
      doc: "0x33: 1st bishop, x+4, y+4"
    52:
      id: bishop1_x5_y5
      doc: "0x34: 1st bishop, x+5, y+5"
    53:
      id: bishop1_x6_y6
      doc: "0x35: 1st bishop, x+6, y+6"
    54:
      id: bishop1_x7_y7
      doc: "0x36: 1st bishop, x+7, y+7"
    55:
      id: bishop1_x7_y1
      doc: "0x37: 1st bishop, x+7, y+1"
    56:
      id: bishop1_x6_y2
      doc: "0x38: 1st bishop, x+6, y+2"
    57:
      id: bishop1_x5_y3
      doc: "0x39: 1st bishop, x+5, y+3"
    59:
      id: bishop1_x3_y5
      doc: "0x3b: 1st bishop, x+3, y+5"
    60:
      id: bishop1_x2_y6
      doc: "0x3c: 1st bishop, x+2, y+6"
    61:
      id: bishop1_x1_y7
      doc: "0x3d: 1st bishop, x+1, y+7"
    62:
      id: bishop2_x1_y1
      doc: "0x3e: 2nd bishop, x+1, y+1"
    63:
      id: bishop2_x2_y2
      doc: "0x3f: 2nd bishop, x+2, y+2"
    64:
      id: bishop2_x3_y3
      doc: "0x40: 2nd bishop, x+3, y+3"
    65:
      id: bishop2_x4_y4
      doc: "0x41: 2nd bishop, x+4, y+4"
    66:
      id: bishop2_x5_y5
      doc: "0x42: 2nd bishop, x+5, y+5"
    67:
      id: bishop2_x6_y6
      doc: "0x43: 2nd bishop, x+6, y+6"
    68:
      id: bishop2_x7_y7
      doc: "0x44: 2nd bishop, x+7, y+7"
    69:
      id: bishop2_x7_y1
      doc: "0x45: 2nd bishop, x+7, y+1"
    70:
      id: bishop2_x6_y2
      doc: "0x46: 2nd bishop, x+6, y+2"
    71:
      id: bishop2_x5_y3
      doc: "0x47: 2nd bishop, x+5, y+3"
    73:
      id: bishop2_x3_y5
      doc: "0x49: 2nd bishop, x+3, y+5"
    74:
      id: bishop2_x2_y6
      doc: "0x4a: 2nd bishop, x+2, y+6"
    75:
      id: bishop2_x1_y7
      doc: "0x4b: 2nd bishop, x+1, y+7"
    76:
      id: rook1_y1
      doc: "0x4c: 1st rook, y+1"
    77:
      id: rook1_y2
      doc: "0x4d: 1st rook, y+2"
    78:
      id: rook1_y3
      doc: "0x4e: 1st rook, y+3"
    79:
      id: rook1_y4
      doc: "0x4f: 1st rook, y+4"
    80:
      id: rook1_y5
      doc: "0x50: 1st rook, y+5"
    81:
      id: rook1_y6
      doc: "0x51: 1st rook, y+6"
    82:
      id: rook1_y7
      doc: "0x52: 1st rook, y+7"
    83:
      id: rook1_x1
      doc: "0x53: 1st rook, x+1"
    84:
      id: rook1_x2
      doc: "0x54: 1st rook, x+2"
    85:
      id: rook1_x3
      doc: "0x55: 1st rook, x+3"
    86:
      id: rook1_x4
      doc: "0x56: 1st rook, x+4"
    87:
      id: rook1_x5
      doc: "0x57: 1st rook, x+5"
    88:
      id: rook1_x6
      doc: "0x58: 1st rook, x+6"
    89:
      id: rook1_x7
      doc: "0x59: 1st rook, x+7"
    90:
      id: rook2_y1
      doc: "0x5a: 2nd rook, y+1"
    91:
      id: rook2_y2
      doc: "0x5b: 2nd rook, y+2"
    92:
      id: rook2_y3
      doc: "0x5c: 2nd rook, y+3"
    93:
      id: rook2_y4
      doc: "0x5d: 2nd rook, y+4"
    94:
      id: rook2_y5
      doc: "0x5e: 2nd rook, y+5"
    95:
      id: rook2_y6
      doc: "0x5f: 2nd rook, y+6"
    96:
      id: rook2_y7
      doc: "0x60: 2nd rook, y+7"
    97:
      id: rook2_x1
      doc: "0x61: 2nd rook, x+1"
    98:
      id: rook2_x2
      doc: "0x62: 2nd rook, x+2"
    99:
      id: rook2_x3
      doc: "0x63: 2nd rook, x+3"
    100:
      id: rook2_x4
      doc: "0x64: 2nd rook, x+4"
    101:
      id: rook2_x5
      doc: "0x65: 2nd rook, x+5"
    102:
      id: rook2_x6
      doc: "0x66: 2nd rook, x+6"
    103:
      id: rook2_x7
      doc: "0x67: 2nd rook, x+7"
    104:
      id: queen1_y1
      doc: "0x68: 1st queen, y+1"
    105:
      id: queen1_y2
      doc: "0x69: 1st queen, y+2"
    106:
      id: queen1_y3
      doc: "0x6a: 1st queen, y+3"
    107:
      id: queen1_y4
      doc: "0x6b: 1st queen, y+4"
    108:
      id: queen1_y5
      doc: "0x6c: 1st queen, y+5"
    109:
      id: queen1_y6
      doc: "0x6d: 1st queen, y+6"
    110:
      id: queen1_y7
      doc: "0x6e: 1st queen, y+7"
    111:
      id: queen1_x1
      doc: "0x6f: 1st queen, x+1"
    112:
      id: queen1_x2
      doc: "0x70: 1st queen, x+2"
    113:
      id: queen1_x3
      doc: "0x71: 1st queen, x+3"
    114:
      id: queen1_x4
      doc: "0x72: 1st queen, x+4"
    115:
      id: queen1_x5
      doc: "0x73: 1st queen, x+5"
    116:
      id: queen1_x6
      doc: "0x74: 1st queen, x+6"
    117:
      id: queen1_x7
      doc: "0x75: 1st queen, x+7"
    118:
      id: queen1_x1_y1
      doc: "0x76: 1st queen, x+1, y+1"
    119:
      id: queen1_x2_y2
      doc: "0x77: 1st queen, x+2, y+2"
    120:
      id: queen1_x3_y3
      doc: "0x78: 1st queen, x+3, y+3"
    121:
      id: queen1_x4_y4
      doc: "0x79: 1st queen, x+4, y+4"
    122:
      id: queen1_x5_y5
      doc: "0x7a: 1st queen, x+5, y+5"
    123:
      id: queen1_x6_y6
      doc: "0x7b: 1st queen, x+6, y+6"
    124:
      id: queen1_x7_y7
      doc: "0x7c: 1st queen, x+7, y+7"
    125:
      id: queen1_x7_y1
      doc: "0x7d: 1st queen, x+7, y+1"
    126:
      id: queen1_x6_y2
      doc: "0x7e: 1st queen, x+6, y+2"
    127:
      id: queen1_x5_y3
      doc: "0x7f: 1st queen, x+5, y+3"
    129:
      id: queen1_x3_y5
      doc: "0x81: 1st queen, x+3, y+5"
    130:
      id: queen1_x2_y6
      doc: "0x82: 1st queen, x+2, y+6"
    131:
      id: queen1_x1_y7
      doc: "0x83: 1st queen, x+1, y+7"
    132:
      id: queen2_y1
      doc: "0x84: 2nd queen, y+1"
    133:
      id: queen2_y2
      doc: "0x85: 2nd queen, y+2"
    134:
      id: queen2_y3
      doc: "0x86: 2nd queen, y+3"
    135:
      id: queen2_y4
      doc: "0x87: 2nd queen, y+4"
    136:
      id: queen2_y5
      doc: "0x88: 2nd queen, y+5"
    137:
      id: queen2_y6
      doc: "0x89: 2nd queen, y+6"
    138:
      id: queen2_y7
      doc: "0x8a: 2nd queen, y+7"
    139:
      id: queen2_x1
      doc: "0x8b: 2nd queen, x+1"
    140:
      id: queen2_x2
      doc: "0x8c: 2nd queen, x+2"
    141:
      id: queen2_x3
      doc: "0x8d: 2nd queen, x+3"
    142:
      id: queen2_x4
      doc: "0x8e: 2nd queen, x+4"
    143:
      id: queen2_x5
      doc: "0x8f: 2nd queen, x+5"
    144:
      id: queen2_x6
      doc: "0x90: 2nd queen, x+6"
    145:
      id: queen2_x7
      doc: "0x91: 2nd queen, x+7"
    146:
      id: queen2_x1_y1
      doc: "0x92: 2nd queen, x+1, y+1"
    147:
      id: queen2_x2_y2
      doc: "0x93: 2nd queen, x+2, y+2"
    148:
      id: queen2_x3_y3
      doc: "0x94: 2nd queen, x+3, y+3"
    149:
      id: queen2_x4_y4
      doc: "0x95: 2nd queen, x+4, y+4"
    150:
      id: queen2_x5_y5
      doc: "0x96: 2nd queen, x+5, y+5"
    151:
      id: queen2_x6_y6
      doc: "0x97: 2nd queen, x+6, y+6"
    152:
      id: queen2_x7_y7
      doc: "0x98: 2nd queen, x+7, y+7"
    153:
      id: queen2_x7_y1
      doc: "0x99: 2nd queen, x+7, y+1"
    154:
      id: queen2_x6_y2
      doc: "0x9a: 2nd queen, x+6, y+2"
    155:
      id: queen2_x5_y3
      doc: "0x9b: 2nd queen, x+5, y+3"
    157:
      id: queen2_x3_y5
      doc: "0x9d: 2nd queen, x+3, y+5"
    158:
      id: queen2_x2_y6
      doc: "0x9e: 2nd queen, x+2, y+6"
    159:
      id: queen2_x1_y7
      doc: "0x9f: 2nd queen, x+1, y+7"
    160:
      id: queen3_y1
      doc: "0xa0: 3rd queen, y+1"
    161:
      id: queen3_y2
      doc: "0xa1: 3rd queen, y+2"
    162:
      id: queen3_y3
      doc: "0xa2: 3rd queen, y+3"
    163:
      id: queen3_y4
      doc: "0xa3: 3rd queen, y+4"
    164:
      id: queen3_y5
      doc: "0xa4: 3rd queen, y+5"
    165:
      id: queen3_y6
      doc: "0xa5: 3rd queen, y+6"
    166:
      id: queen3_y7
      doc: "0xa6: 3rd queen, y+7"
    167:
      id: queen3_x1
      doc: "0xa7: 3rd queen, x+1"
    168:
      id: queen3_x2
      doc: "0xa8: 3rd queen, x+2"
    169:
      id: queen3_x3
      doc: "0xa9: 3rd queen, x+3"
    170:
      id: queen3_x4
      doc: "0xaa: 3rd queen, x+4"
    171:
      id: queen3_x5
      doc: "0xab: 3rd queen, x+5"
    172:
      id: queen3_x6
      doc: "0xac: 3rd queen, x+6"
    173:
      id: queen3_x7
      doc: "0xad: 3rd queen, x+7"
    174:
      id: queen3_x1_y1
      doc: "0xae: 3rd queen, x+1, y+1"
    175:
      id: queen3_x2_y2
      doc: "0xaf: 3rd queen, x+2, y+2"
    176:
      id: queen3_x3_y3
      doc: "0xb0: 3rd queen, x+3, y+3"
    177:
      id: queen3_x4_y4
      doc: "0xb1: 3rd queen, x+4, y+4"
    178:
      id: queen3_x5_y5
      doc: "0xb2: 3rd queen, x+5, y+5"
    179:
      id: queen3_x6_y6
      doc: "0xb3: 3rd queen, x+6, y+6"
    180:
      id: queen3_x7_y7
      doc: "0xb4: 3rd queen, x+7, y+7"
    181:
      id: queen3_x7_y1
      doc: "0xb5: 3rd queen, x+7, y+1"
    182:
      id: queen3_x6_y2
      doc: "0xb6: 3rd queen, x+6, y+2"
    183:
      id: queen3_x5_y3
      doc: "0xb7: 3rd queen, x+5, y+3"
    185:
      id: queen3_x3_y5
      doc: "0xb9: 3rd queen, x+3, y+5"
    186:
      id: queen3_x2_y6
      doc: "0xba: 3rd queen, x+2, y+6"
    187:
      id: queen3_x1_y7
      doc: "0xbb: 3rd queen, x+1, y+7"
    188:
      id: king_y1
      doc: "0xbc: king, y+1"
    189:
      id: king_x1_y1
      doc: "0xbd: king, x+1, y+1"
    190:
      id: king_x7_y1
      doc: "0xbe: king, x+7, y+1"
    191:
      id: king_x1
      doc: "0xbf: king, x+1"
    192:
      id: king_x7
      doc: "0xc0: king, x+7"
    193:
      id: king_y7
      doc: "0xc1: king, y+7"
    194:
      id: king_x1_y7
      doc: "0xc2: king, x+1, y+7"
    195:
      id: king_x7_y7
      doc: "0xc3: king, x+7, y+7"
    196:
      id: king_o_o
      doc: "0xc4: king castles short (O-O, e1g1)"
    197:
      id: king_o_o_o
      doc: "0xc5: king castles long (O-O-O, e1c1)"
