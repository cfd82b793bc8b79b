# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: ctg_book
  title: ChessBase CTG book (.ctg)
  file-extension: [ctg]
  license: MIT
  ks-version: "0.11"
  endian: be
  bit-endian: be
doc: |-
  ChessBase CTG book (.ctg). The `.ctg` file: a header page, then data pages of position records.

  A CTG book is three files. The `.ctg` file is a sequence of 4096-byte pages: a header page, then data pages numbered from 0 (data page n starts at byte 4096 * (n + 1)), each holding position records back to back. A record is a position encoded from the point of view of the side to move, the book moves from it and the statistics of the games that reached it. The `.cto` file is a table from position hashes to data pages; the `.ctb` file holds the bounds of the lookup in that table. All integers are big-endian.

  `board` (position): kept as bytes: a prefix code cannot be expressed here (see the format's documentation)

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/ctg.md
seq:
  - id: header
    type: header_page
    doc: the header page
  - id: pages
    type: page
    size: 4096
    repeat: eos
    doc: the data pages, numbered from 0
types:
  header_page:
    doc: "Header page: The first page of the `.ctg` file."
    seq:
      - id: unknown_0
        size: 16
        doc: "unknown; 00 20 10 00 00 01 00 01 00 00 10 00 7f ff 7f ff in both known books (written as is)"
      - id: data_pages
        type: u4be
        doc: number of data pages (257 and 1 in the known books)
      - id: unknown_20
        size: 4
        doc: "unknown; ff ff ff ff in both known books (written as is)"
      - id: positions
        type: u4be
        doc: "about the number of positions: 4 in simple.ctg (4 records), 13,321 in PowerPlay17 (13,305 records)"
      - id: games
        type: u4be
        doc: number of games the book was made from (= the games of the start position)
      - id: unused_32
        size: 992
        doc: zeros in the known books
      - id: unknown_1024
        size: 32
        doc: "unknown; the same 24 non-zero bytes, then zeros, in both known books (written as is)"
      - id: unused_1056
        size: 992
        doc: zeros in the known books
      - id: unknown_2048
        size: 32
        doc: "unknown; 00 00 00 0c 00 00 01 00 in PowerPlay17, zeros in simple.ctg (written as zeros)"
      - id: unused_2080
        size: 2016
        doc: zeros in the known books
  page:
    doc: "Data page: 4096 bytes: a 4-byte header, the records, junk up to the end of the page."
    seq:
      - id: header
        type: page_header
        doc: the page header
      - id: records
        type: records_region
        size: header.used - 4
        doc: the position records, back to back
      - id: junk
        size-eos: true
        doc: "left-overs up to the end of the page: to be ignored (kept for a byte-exact rewrite)"
  page_header:
    seq:
      - id: positions
        type: u2be
        doc: number of position records on the page
      - id: used
        type: u2be
        doc: "bytes used by the header and the records; the rest of the page is junk"
  records_region:
    doc: "`records` in a region of the size the field gives: the items, one after the other"
    seq:
      - id: items
        type: record
        repeat: expr
        repeat-expr: _parent.header.positions
        doc: the position records, back to back
  record:
    doc: "Position record: One position, its moves and its statistics."
    seq:
      - id: position
        type: position
        doc: the encoded position
      - id: moves
        type: moves
        doc: the book moves
      - id: stats
        type: stats
        doc: statistics, ratings, recommendation and comment
  position:
    doc: "Encoded position: The position as a bit stream, also the input of the hash and the key a page is searched for: a header byte, one code word per square, padding, then the flags."
    seq:
      - id: header
        type: position_header
        doc: length and flags of the encoded position
      - id: board
        size: header.length - 1
        doc: "the board as a bit stream, most significant bit of each byte first (kept as bytes: a prefix code cannot be expressed here (see the format's documentation))"
  position_header:
    meta:
      bit-endian: be
    seq:
      - id: unused
        type: b1
        doc: "0 in every known record"
      - id: has_castling
        type: b1
        doc: castling flags end the position (0x40)
      - id: has_en_passant
        type: b1
        doc: an en-passant file precedes the castling flags (0x20)
      - id: length
        type: b5
        doc: length of the encoded position in bytes, this header byte included
  moves:
    seq:
      - id: length
        type: u1
        doc: "length of this block in bytes, this byte included: 2 * moves + 1"
      - id: moves
        type: move
        repeat: expr
        repeat-expr: (length - 1) / 2
        doc: the book moves, two bytes each
  move:
    seq:
      - id: code
        type: u1
        enum: move_code
        doc: which piece moves where (see the move codes)
      - id: annotation
        type: u1
        enum: annotation
        doc: annotation of the move
  stats:
    doc: "Statistics: The 33 bytes after the moves."
    seq:
      - id: games
        type: b24be
        doc: games that reached the position
      - id: wins
        type: b24be
        doc: of those, games won by the side to move
      - id: losses
        type: b24be
        doc: games lost by the side to move
      - id: draws
        type: b24be
        doc: "drawn games (games - wins - losses - draws: results not known)"
      - id: unknown1
        type: u4be
        doc: "unknown; grows with the games (2370 at the start position of PowerPlay17), kept"
      - id: rating1
        type: rating
        doc: ratings of the players of the side to move
      - id: rating2
        type: rating
        doc: ratings of their opponents
      - id: recommendation
        type: recommendation
        doc: recommendation flags of the position
      - id: unknown2
        type: u1
        doc: unknown, kept
      - id: comment
        type: u1
        enum: comment
        doc: comment on the position
  rating:
    seq:
      - id: games
        type: b24be
        doc: games with a known rating
      - id: total
        type: u4be
        doc: sum of those ratings
  recommendation:
    meta:
      bit-endian: be
    seq:
      - id: green
        type: b1
        doc: "recommended: shown green (0x80)"
      - id: red
        type: b1
        doc: "not recommended: shown red (0x40)"
      - id: other
        type: b6
        doc: other flags, meaning unknown (0x04, 0x10 and 0x20 occur in the known books)
enums:
  move_code:
    0:
      id: pawn5_x1_y1
      doc: "0x00: 5th pawn, x+1, y+1"
    1:
      id: knight2_x6_y7
      doc: "0x01: 2nd knight, x+6, y+7"
    3:
      id: queen2_x2
      doc: "0x03: 2nd queen, x+2"
    4:
      id: pawn2_y1
      doc: "0x04: 2nd pawn, y+1"
    5:
      id: queen1_y1
      doc: "0x05: 1st queen, y+1"
    6:
      id: pawn4_x7_y1
      doc: "0x06: 4th pawn, x+7, y+1"
    8:
      id: queen2_x4
      doc: "0x08: 2nd queen, x+4"
    9:
      id: bishop2_x6_y6
      doc: "0x09: 2nd bishop, x+6, y+6"
    10:
      id: king_y7
      doc: "0x0a: king, y+7"
    12:
      id: pawn1_x7_y1
      doc: "0x0c: 1st pawn, x+7, y+1"
    13:
      id: bishop1_x3_y3
      doc: "0x0d: 1st bishop, x+3, y+3"
    14:
      id: rook2_x3
      doc: "0x0e: 2nd rook, x+3"
    15:
      id: knight1_x6_y7
      doc: "0x0f: 1st knight, x+6, y+7"
    18:
      id: bishop1_x7_y7
      doc: "0x12: 1st bishop, x+7, y+7"
    19:
      id: king_y1
      doc: "0x13: king, y+1"
    20:
      id: pawn8_x1_y1
      doc: "0x14: 8th pawn, x+1, y+1"
    21:
      id: bishop1_x5_y5
      doc: "0x15: 1st bishop, x+5, y+5"
    24:
      id: pawn7_y1
      doc: "0x18: 7th pawn, y+1"
    26:
      id: queen2_y6
      doc: "0x1a: 2nd queen, y+6"
    27:
      id: bishop1_x7_y1
      doc: "0x1b: 1st bishop, x+7, y+1"
    29:
      id: bishop2_x7_y7
      doc: "0x1d: 2nd bishop, x+7, y+7"
    33:
      id: rook2_x7
      doc: "0x21: 2nd rook, x+7"
    34:
      id: bishop2_x6_y2
      doc: "0x22: 2nd bishop, x+6, y+2"
    35:
      id: queen2_x6_y6
      doc: "0x23: 2nd queen, x+6, y+6"
    36:
      id: pawn8_x7_y1
      doc: "0x24: 8th pawn, x+7, y+1"
    38:
      id: bishop1_x1_y7
      doc: "0x26: 1st bishop, x+1, y+7"
    39:
      id: pawn3_x7_y1
      doc: "0x27: 3rd pawn, x+7, y+1"
    40:
      id: queen1_x5_y5
      doc: "0x28: 1st queen, x+5, y+5"
    41:
      id: queen1_x6
      doc: "0x29: 1st queen, x+6"
    42:
      id: knight2_x1_y6
      doc: "0x2a: 2nd knight, x+1, y+6"
    45:
      id: pawn6_x1_y1
      doc: "0x2d: 6th pawn, x+1, y+1"
    46:
      id: bishop1_x1_y1
      doc: "0x2e: 1st bishop, x+1, y+1"
    47:
      id: queen1_x1
      doc: "0x2f: 1st queen, x+1"
    48:
      id: knight2_x7_y6
      doc: "0x30: 2nd knight, x+7, y+6"
    49:
      id: queen1_x3
      doc: "0x31: 1st queen, x+3"
    50:
      id: bishop2_x5_y5
      doc: "0x32: 2nd bishop, x+5, y+5"
    52:
      id: knight1_x1_y2
      doc: "0x34: 1st knight, x+1, y+2"
    54:
      id: knight1_x2_y1
      doc: "0x36: 1st knight, x+2, y+1"
    55:
      id: queen1_y4
      doc: "0x37: 1st queen, y+4"
    56:
      id: queen2_x4_y4
      doc: "0x38: 2nd queen, x+4, y+4"
    57:
      id: queen1_x5
      doc: "0x39: 1st queen, x+5"
    58:
      id: bishop1_x6_y6
      doc: "0x3a: 1st bishop, x+6, y+6"
    59:
      id: queen2_x3_y5
      doc: "0x3b: 2nd queen, x+3, y+5"
    60:
      id: bishop1_x3_y5
      doc: "0x3c: 1st bishop, x+3, y+5"
    65:
      id: queen2_x5_y5
      doc: "0x41: 2nd queen, x+5, y+5"
    66:
      id: queen1_x1_y7
      doc: "0x42: 1st queen, x+1, y+7"
    68:
      id: king_x1_y7
      doc: "0x44: king, x+1, y+7"
    69:
      id: queen1_x3_y3
      doc: "0x45: 1st queen, x+3, y+3"
    74:
      id: pawn8_y2
      doc: "0x4a: 8th pawn, y+2"
    75:
      id: queen1_x3_y5
      doc: "0x4b: 1st queen, x+3, y+5"
    76:
      id: knight2_x1_y2
      doc: "0x4c: 2nd knight, x+1, y+2"
    77:
      id: queen2_y1
      doc: "0x4d: 2nd queen, y+1"
    80:
      id: rook1_y6
      doc: "0x50: 1st rook, y+6"
    82:
      id: rook1_x6
      doc: "0x52: 1st rook, x+6"
    84:
      id: bishop2_x7_y1
      doc: "0x54: 2nd bishop, x+7, y+1"
    85:
      id: pawn3_y1
      doc: "0x55: 3rd pawn, y+1"
    92:
      id: pawn7_x1_y1
      doc: "0x5c: 7th pawn, x+1, y+1"
    95:
      id: pawn5_y2
      doc: "0x5f: 5th pawn, y+2"
    97:
      id: queen1_x6_y6
      doc: "0x61: 1st queen, x+6, y+6"
    98:
      id: pawn2_y2
      doc: "0x62: 2nd pawn, y+2"
    99:
      id: queen2_x1_y7
      doc: "0x63: 2nd queen, x+1, y+7"
    102:
      id: bishop1_x5_y3
      doc: "0x66: 1st bishop, x+5, y+3"
    103:
      id: king_x1_y1
      doc: "0x67: king, x+1, y+1"
    105:
      id: rook2_y7
      doc: "0x69: 2nd rook, y+7"
    106:
      id: bishop1_x4_y4
      doc: "0x6a: 1st bishop, x+4, y+4"
    107:
      id: king_o_o
      doc: "0x6b: king castles short (O-O, e1g1)"
    110:
      id: rook1_x5
      doc: "0x6e: 1st rook, x+5"
    111:
      id: queen2_x7_y7
      doc: "0x6f: 2nd queen, x+7, y+7"
    114:
      id: bishop2_x1_y7
      doc: "0x72: 2nd bishop, x+1, y+7"
    116:
      id: queen1_x2
      doc: "0x74: 1st queen, x+2"
    121:
      id: bishop2_x2_y6
      doc: "0x79: 2nd bishop, x+2, y+6"
    122:
      id: rook1_y3
      doc: "0x7a: 1st rook, y+3"
    123:
      id: rook2_y6
      doc: "0x7b: 2nd rook, y+6"
    124:
      id: pawn3_x1_y1
      doc: "0x7c: 3rd pawn, x+1, y+1"
    125:
      id: rook2_y1
      doc: "0x7d: 2nd rook, y+1"
    126:
      id: queen1_x5_y3
      doc: "0x7e: 1st queen, x+5, y+3"
    127:
      id: rook1_x1
      doc: "0x7f: 1st rook, x+1"
    128:
      id: queen1_x2_y6
      doc: "0x80: 1st queen, x+2, y+6"
    129:
      id: rook1_y1
      doc: "0x81: 1st rook, y+1"
    130:
      id: pawn6_x7_y1
      doc: "0x82: 6th pawn, x+7, y+1"
    133:
      id: knight1_x7_y2
      doc: "0x85: 1st knight, x+7, y+2"
    134:
      id: rook1_x7
      doc: "0x86: 1st rook, x+7"
    135:
      id: rook1_y5
      doc: "0x87: 1st rook, y+5"
    138:
      id: knight1_x1_y6
      doc: "0x8a: 1st knight, x+1, y+6"
    139:
      id: pawn1_x1_y1
      doc: "0x8b: 1st pawn, x+1, y+1"
    140:
      id: king_x7_y7
      doc: "0x8c: king, x+7, y+7"
    142:
      id: queen2_x6_y2
      doc: "0x8e: 2nd queen, x+6, y+2"
    143:
      id: queen1_x7
      doc: "0x8f: 1st queen, x+7"
    146:
      id: queen2_x1_y1
      doc: "0x92: 2nd queen, x+1, y+1"
    148:
      id: queen1_y3
      doc: "0x94: 1st queen, y+3"
    150:
      id: pawn2_x1_y1
      doc: "0x96: 2nd pawn, x+1, y+1"
    151:
      id: king_x7
      doc: "0x97: king, x+7"
    152:
      id: rook1_x3
      doc: "0x98: 1st rook, x+3"
    153:
      id: rook1_y4
      doc: "0x99: 1st rook, y+4"
    154:
      id: queen1_y6
      doc: "0x9a: 1st queen, y+6"
    155:
      id: pawn3_y2
      doc: "0x9b: 3rd pawn, y+2"
    157:
      id: queen1_y2
      doc: "0x9d: 1st queen, y+2"
    159:
      id: bishop2_x4_y4
      doc: "0x9f: 2nd bishop, x+4, y+4"
    160:
      id: queen2_y3
      doc: "0xa0: 2nd queen, y+3"
    162:
      id: queen1_x2_y2
      doc: "0xa2: 1st queen, x+2, y+2"
    163:
      id: pawn8_y1
      doc: "0xa3: 8th pawn, y+1"
    165:
      id: rook2_y5
      doc: "0xa5: 2nd rook, y+5"
    169:
      id: rook2_x2
      doc: "0xa9: 2nd rook, x+2"
    171:
      id: queen2_x2_y6
      doc: "0xab: 2nd queen, x+2, y+6"
    173:
      id: rook2_x4
      doc: "0xad: 2nd rook, x+4"
    174:
      id: queen2_x3_y3
      doc: "0xae: 2nd queen, x+3, y+3"
    176:
      id: queen2_y4
      doc: "0xb0: 2nd queen, y+4"
    177:
      id: pawn6_y2
      doc: "0xb1: 6th pawn, y+2"
    178:
      id: bishop1_x2_y6
      doc: "0xb2: 1st bishop, x+2, y+6"
    181:
      id: rook2_x5
      doc: "0xb5: 2nd rook, x+5"
    183:
      id: queen1_y5
      doc: "0xb7: 1st queen, y+5"
    185:
      id: bishop2_x3_y3
      doc: "0xb9: 2nd bishop, x+3, y+3"
    187:
      id: pawn5_y1
      doc: "0xbb: 5th pawn, y+1"
    188:
      id: queen2_x5
      doc: "0xbc: 2nd queen, x+5"
    189:
      id: queen2_y2
      doc: "0xbd: 2nd queen, y+2"
    190:
      id: king_x1
      doc: "0xbe: king, x+1"
    193:
      id: bishop1_x2_y2
      doc: "0xc1: 1st bishop, x+2, y+2"
    194:
      id: bishop2_x2_y2
      doc: "0xc2: 2nd bishop, x+2, y+2"
    195:
      id: bishop1_x6_y2
      doc: "0xc3: 1st bishop, x+6, y+2"
    196:
      id: rook2_x1
      doc: "0xc4: 2nd rook, x+1"
    197:
      id: rook2_y4
      doc: "0xc5: 2nd rook, y+4"
    198:
      id: queen2_y5
      doc: "0xc6: 2nd queen, y+5"
    199:
      id: pawn7_x7_y1
      doc: "0xc7: 7th pawn, x+7, y+1"
    200:
      id: pawn7_y2
      doc: "0xc8: 7th pawn, y+2"
    201:
      id: queen2_y7
      doc: "0xc9: 2nd queen, y+7"
    202:
      id: bishop2_x5_y3
      doc: "0xca: 2nd bishop, x+5, y+3"
    203:
      id: pawn6_y1
      doc: "0xcb: 6th pawn, y+1"
    204:
      id: bishop2_x3_y5
      doc: "0xcc: 2nd bishop, x+3, y+5"
    205:
      id: rook1_x2
      doc: "0xcd: 1st rook, x+2"
    207:
      id: pawn4_y1
      doc: "0xcf: 4th pawn, y+1"
    209:
      id: pawn2_x7_y1
      doc: "0xd1: 2nd pawn, x+7, y+1"
    210:
      id: knight2_x2_y1
      doc: "0xd2: 2nd knight, x+2, y+1"
    211:
      id: knight2_x6_y1
      doc: "0xd3: 2nd knight, x+6, y+1"
    215:
      id: queen1_x7_y1
      doc: "0xd7: 1st queen, x+7, y+1"
    216:
      id: rook2_x6
      doc: "0xd8: 2nd rook, x+6"
    217:
      id: queen1_x6_y2
      doc: "0xd9: 1st queen, x+6, y+2"
    218:
      id: knight1_x7_y6
      doc: "0xda: 1st knight, x+7, y+6"
    219:
      id: pawn1_y2
      doc: "0xdb: 1st pawn, y+2"
    222:
      id: pawn5_x7_y1
      doc: "0xde: 5th pawn, x+7, y+1"
    223:
      id: king_x7_y1
      doc: "0xdf: king, x+7, y+1"
    224:
      id: knight2_x2_y7
      doc: "0xe0: 2nd knight, x+2, y+7"
    225:
      id: rook1_y7
      doc: "0xe1: 1st rook, y+7"
    227:
      id: rook2_y3
      doc: "0xe3: 2nd rook, y+3"
    229:
      id: queen1_x4
      doc: "0xe5: 1st queen, x+4"
    230:
      id: pawn4_y2
      doc: "0xe6: 4th pawn, y+2"
    231:
      id: queen1_x4_y4
      doc: "0xe7: 1st queen, x+4, y+4"
    232:
      id: rook1_y2
      doc: "0xe8: 1st rook, y+2"
    233:
      id: knight1_x2_y7
      doc: "0xe9: 1st knight, x+2, y+7"
    235:
      id: pawn4_x1_y1
      doc: "0xeb: 4th pawn, x+1, y+1"
    236:
      id: pawn1_y1
      doc: "0xec: 1st pawn, y+1"
    237:
      id: queen1_x7_y7
      doc: "0xed: 1st queen, x+7, y+7"
    238:
      id: queen2_x7_y1
      doc: "0xee: 2nd queen, x+7, y+1"
    239:
      id: rook1_x4
      doc: "0xef: 1st rook, x+4"
    240:
      id: queen2_x7
      doc: "0xf0: 2nd queen, x+7"
    241:
      id: queen1_x1_y1
      doc: "0xf1: 1st queen, x+1, y+1"
    243:
      id: knight2_x7_y2
      doc: "0xf3: 2nd knight, x+7, y+2"
    244:
      id: rook2_y2
      doc: "0xf4: 2nd rook, y+2"
    245:
      id: bishop2_x1_y1
      doc: "0xf5: 2nd bishop, x+1, y+1"
    246:
      id: king_o_o_o
      doc: "0xf6: king castles long (O-O-O, e1c1)"
    247:
      id: knight1_x6_y1
      doc: "0xf7: 1st knight, x+6, y+1"
    248:
      id: queen2_x1
      doc: "0xf8: 2nd queen, x+1"
    249:
      id: queen2_x6
      doc: "0xf9: 2nd queen, x+6"
    250:
      id: queen2_x3
      doc: "0xfa: 2nd queen, x+3"
    251:
      id: queen2_x2_y2
      doc: "0xfb: 2nd queen, x+2, y+2"
    253:
      id: queen1_y7
      doc: "0xfd: 1st queen, y+7"
    254:
      id: queen2_x5_y3
      doc: "0xfe: 2nd queen, x+5, y+3"
  annotation:
    0:
      id: none
      doc: no annotation
    1:
      id: good
      doc: "! good move (NAG 1)"
    2:
      id: mistake
      doc: "? mistake (NAG 2)"
    3:
      id: brilliant
      doc: "!! brilliant move (NAG 3)"
    4:
      id: blunder
      doc: "?? blunder (NAG 4)"
    5:
      id: interesting
      doc: "!? interesting move (NAG 5)"
    6:
      id: dubious
      doc: "?! dubious move (NAG 6)"
    8:
      id: only_move
      doc: only move (NAG 8)
    22:
      id: zugzwang
      doc: zugzwang (NAG 22)
  comment:
    0:
      id: none
      doc: no comment
    10:
      id: drawish
      doc: "= drawish position (NAG 10); not in the spec, found in PowerPlay17"
    11:
      id: equal
      doc: "= equal chances, quiet position (NAG 11)"
    13:
      id: unclear
      doc: unclear position (NAG 13)
    14:
      id: white_slightly_better
      doc: "+= white is slightly better (NAG 14); the spec writes =+"
    15:
      id: black_slightly_better
      doc: "=+ black is slightly better (NAG 15); the spec writes +="
    16:
      id: white_better
      doc: "+/- white is better (NAG 16); the spec writes -/+"
    17:
      id: black_better
      doc: "-/+ black is better (NAG 17); the spec writes +/-"
    18:
      id: white_winning
      doc: "+- white is winning (NAG 18); not in the spec"
    19:
      id: black_winning
      doc: "-+ black is winning (NAG 19); the spec writes +-"
    32:
      id: development
      doc: development advantage (NAG 32)
    36:
      id: initiative
      doc: with initiative (NAG 36)
    40:
      id: attack
      doc: with attack (NAG 40)
    44:
      id: compensation
      doc: with compensation (NAG 44)
    132:
      id: counterplay
      doc: counterplay (NAG 132)
    138:
      id: time_trouble
      doc: time trouble (NAG 138)
    146:
      id: novelty
      doc: novelty (NAG 146)
