# Generated from the chessformats declarations by `chessformats export --to kaitai`; do not edit by hand.
meta:
  id: chessbase_cbt
  title: ChessBase tournaments (.cbt)
  file-extension: [cbt]
  license: MIT
  ks-version: "0.11"
  endian: le
  bit-endian: be
doc: |-
  ChessBase tournaments (.cbt). The `.cbt` file: a header, then fixed-size records (an AVL tree).

  A ChessBase database is a family of files with one name. The `.cbh` file has a 46-byte header and one 46-byte record per game or guiding text (game number n, counted from 1, is record n); each record points into `.cbg` (the game data: setup position and coded move stream) and `.cba` (annotations) and names the game's players, tournament, annotator and source by record number in the entity files `.cbp .cbt .cbc .cbs .cbe`, which are AVL trees of fixed-size records. `.cbh .cbg .cba` are big-endian; the entity files are little-endian. The optional `.cbj` file (the extended game header) adds per game the teams (record numbers in `.cbe`), rating types, final material and timestamps. Other companions (`.cbm .cbl .cbtt .cib .cit .cbb .ini` ...) are indexes and settings that a reader does not need. A base travels as an archive: `.cbv` (its files, compressed) or `.cbz` (the same enciphered with a password), read and written here too (the last structures below).

  Generated from the chessformats declarations (`chessformats export`); field meanings, enums and notes in the chessformats format reference.
doc-ref: docs/formats/chessbase.md
seq:
  - id: header
    type: entity_header
    doc: the file header
  - id: records
    type: tournament
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
  tournament:
    doc: ".cbt tournament: A tournament."
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
      - id: title
        size: 40
        doc: title, 0-terminated
      - id: place
        size: 30
        doc: place, 0-terminated
      - id: date
        type: date_le
        doc: date
      - id: kind
        type: kind
        doc: type and time control
      - id: reserved_84
        type: u1
        doc: meaning unknown
      - id: nation
        type: u1
        enum: nation
        doc: country
      - id: reserved_86
        type: u1
        doc: meaning unknown
      - id: category
        type: u1
        doc: category 1-99, 0 = not given
      - id: flags
        type: flags
        doc: flags
      - id: rounds
        type: u1
        doc: rounds, 0 = not given
      - id: reserved_90
        type: u1
        doc: meaning unknown
      - id: games
        type: u4le
        doc: games of the tournament
      - id: first_game
        type: u4le
        doc: number of the tournament's first game
  date_le:
    meta:
      bit-endian: le
    seq:
      - id: day
        type: b5
        doc: day 1-31, 0 = not given
      - id: month
        type: b4
        doc: month 1-12, 0 = not given
      - id: year
        type: b12
        doc: year, 0 = not given
      - id: reserved
        type: b11
        doc: unused, 0
  kind:
    meta:
      bit-endian: be
    seq:
      - id: correspondence
        type: b1
        doc: correspondence
      - id: rapid
        type: b1
        doc: rapid
      - id: blitz
        type: b1
        doc: blitz
      - id: type
        type: b5
        enum: tournament_type
        doc: type of tournament
  flags:
    meta:
      bit-endian: be
    seq:
      - id: reserved
        type: b5
        doc: "0"
      - id: board_points
        type: b1
        doc: board points
      - id: complete
        type: b1
        doc: the tournament is complete
      - id: unknown
        type: b1
        doc: almost always equal to complete
enums:
  tournament_type:
    0:
      id: none
      doc: not given
    1:
      id: game
      doc: single game
    2:
      id: match_
      doc: match
    3:
      id: round_robin
      doc: round robin
    4:
      id: swiss
      doc: Swiss system
    5:
      id: team
      doc: team tournament
    6:
      id: knockout
      doc: knock-out
    7:
      id: simul
      doc: simultaneous exhibition
    8:
      id: scheveningen
      doc: Scheveningen system
  nation:
    0:
      id: none
      doc: not given
    1:
      id: afg
      doc: AFG
    2:
      id: alb
      doc: ALB
    3:
      id: alg
      doc: ALG
    4:
      id: and_
      doc: AND
    5:
      id: ang
      doc: ANG
    6:
      id: ant
      doc: ANT
    7:
      id: arg
      doc: ARG
    8:
      id: arm
      doc: ARM
    9:
      id: aus
      doc: AUS
    10:
      id: aze
      doc: AZE
    11:
      id: bah
      doc: BAH
    12:
      id: bhn
      doc: BHN
    13:
      id: ban
      doc: BAN
    14:
      id: bar
      doc: BAR
    15:
      id: blr
      doc: BLR
    16:
      id: bel
      doc: BEL
    17:
      id: blz
      doc: BLZ
    18:
      id: ber
      doc: BER
    19:
      id: bol
      doc: BOL
    20:
      id: bih
      doc: BIH
    21:
      id: bot
      doc: BOT
    22:
      id: bra
      doc: BRA
    23:
      id: ivb
      doc: IVB
    24:
      id: bru
      doc: BRU
    25:
      id: bul
      doc: BUL
    26:
      id: bur
      doc: BUR
    27:
      id: can
      doc: CAN
    28:
      id: chi
      doc: CHI
    29:
      id: chn
      doc: CHN
    30:
      id: col
      doc: COL
    31:
      id: cri
      doc: CRI
    32:
      id: cro
      doc: CRO
    33:
      id: cub
      doc: CUB
    34:
      id: cyp
      doc: CYP
    35:
      id: cze
      doc: CZE
    36:
      id: den
      doc: DEN
    37:
      id: dji
      doc: DJI
    38:
      id: dom
      doc: DOM
    39:
      id: ecu
      doc: ECU
    40:
      id: egy
      doc: EGY
    41:
      id: esp
      doc: ESP
    42:
      id: est
      doc: EST
    43:
      id: eth
      doc: ETH
    44:
      id: fai
      doc: FAI
    45:
      id: fij
      doc: FIJ
    46:
      id: fin
      doc: FIN
    47:
      id: frm
      doc: FRM
    48:
      id: gam
      doc: GAM
    49:
      id: geo
      doc: GEO
    50:
      id: gha
      doc: GHA
    51:
      id: gre
      doc: GRE
    52:
      id: gua
      doc: GUA
    53:
      id: gci
      doc: GCI
    54:
      id: guy
      doc: GUY
    55:
      id: hai
      doc: HAI
    56:
      id: hon
      doc: HON
    57:
      id: hkg
      doc: HKG
    58:
      id: hun
      doc: HUN
    59:
      id: isl
      doc: ISL
    60:
      id: ind
      doc: IND
    61:
      id: ina
      doc: INA
    62:
      id: iri
      doc: IRI
    63:
      id: irq
      doc: IRQ
    64:
      id: irl
      doc: IRL
    65:
      id: ita
      doc: ITA
    66:
      id: ivo
      doc: IVO
    67:
      id: jam
      doc: JAM
    68:
      id: jpn
      doc: JPN
    69:
      id: jci
      doc: JCI
    70:
      id: jor
      doc: JOR
    71:
      id: kaz
      doc: KAZ
    72:
      id: ken
      doc: KEN
    73:
      id: kor
      doc: KOR
    74:
      id: kgz
      doc: KGZ
    75:
      id: kuw
      doc: KUW
    76:
      id: lat
      doc: LAT
    77:
      id: lbn
      doc: LBN
    78:
      id: lby
      doc: LBY
    79:
      id: lie
      doc: LIE
    80:
      id: ltu
      doc: LTU
    81:
      id: lux
      doc: LUX
    82:
      id: mac
      doc: MAC
    83:
      id: mad
      doc: MAD
    84:
      id: mas
      doc: MAS
    85:
      id: mli
      doc: MLI
    86:
      id: mlt
      doc: MLT
    87:
      id: mau
      doc: MAU
    88:
      id: mri
      doc: MRI
    89:
      id: mex
      doc: MEX
    90:
      id: mda
      doc: MDA
    91:
      id: mnc
      doc: MNC
    92:
      id: mgl
      doc: MGL
    93:
      id: mar
      doc: MAR
    94:
      id: moz
      doc: MOZ
    95:
      id: mya
      doc: MYA
    96:
      id: nam
      doc: NAM
    97:
      id: nep
      doc: NEP
    98:
      id: aho
      doc: AHO
    99:
      id: nzl
      doc: NZL
    100:
      id: nca
      doc: NCA
    101:
      id: ngr
      doc: NGR
    102:
      id: nor
      doc: NOR
    103:
      id: pak
      doc: PAK
    104:
      id: ple
      doc: PLE
    105:
      id: pan
      doc: PAN
    106:
      id: png
      doc: PNG
    107:
      id: par
      doc: PAR
    108:
      id: per
      doc: PER
    109:
      id: phi
      doc: PHI
    110:
      id: pol
      doc: POL
    111:
      id: por
      doc: POR
    112:
      id: pur
      doc: PUR
    113:
      id: qat
      doc: QAT
    114:
      id: rom
      doc: ROM
    115:
      id: rus
      doc: RUS
    116:
      id: esa
      doc: ESA
    117:
      id: smr
      doc: SMR
    118:
      id: sco
      doc: SCO
    119:
      id: sey
      doc: SEY
    120:
      id: sin
      doc: SIN
    121:
      id: svk
      doc: SVK
    122:
      id: slo
      doc: SLO
    123:
      id: rsa
      doc: RSA
    124:
      id: sri
      doc: SRI
    125:
      id: sud
      doc: SUD
    126:
      id: sur
      doc: SUR
    127:
      id: swe
      doc: SWE
    128:
      id: sui
      doc: SUI
    129:
      id: syr
      doc: SYR
    130:
      id: tjk
      doc: TJK
    131:
      id: tan
      doc: TAN
    132:
      id: tha
      doc: THA
    133:
      id: tri
      doc: TRI
    134:
      id: tun
      doc: TUN
    135:
      id: tur
      doc: TUR
    136:
      id: tkm
      doc: TKM
    137:
      id: uga
      doc: UGA
    138:
      id: ukr
      doc: UKR
    139:
      id: uae
      doc: UAE
    140:
      id: uru
      doc: URU
    141:
      id: urs
      doc: URS
    142:
      id: uzb
      doc: UZB
    143:
      id: ven
      doc: VEN
    144:
      id: vie
      doc: VIE
    145:
      id: isv
      doc: ISV
    146:
      id: wls
      doc: WLS
    147:
      id: yem
      doc: YEM
    148:
      id: yug
      doc: YUG
    149:
      id: zam
      doc: ZAM
    150:
      id: zim
      doc: ZIM
    151:
      id: zre
      doc: ZRE
    152:
      id: ddr
      doc: DDR
    153:
      id: csr
      doc: CSR
    154:
      id: chd
      doc: CHD
    155:
      id: cam
      doc: CAM
    156:
      id: kap
      doc: KAP
    157:
      id: kba
      doc: KBA
    158:
      id: com
      doc: COM
    159:
      id: con
      doc: CON
    160:
      id: nko
      doc: NKO
    161:
      id: lao
      doc: LAO
    162:
      id: les
      doc: LES
    163:
      id: mwi
      doc: MWI
    164:
      id: mdv
      doc: MDV
    165:
      id: msh
      doc: MSH
    166:
      id: omn
      doc: OMN
    167:
      id: nau
      doc: NAU
    168:
      id: mic
      doc: MIC
    169:
      id: nig
      doc: NIG
    170:
      id: sau
      doc: SAU
    171:
      id: tog
      doc: TOG
    172:
      id: ton
      doc: TON
    173:
      id: van
      doc: VAN
    174:
      id: vat
      doc: VAT
    175:
      id: tuv
      doc: TUV
    176:
      id: swa
      doc: SWA
    177:
      id: sie
      doc: SIE
    178:
      id: slu
      doc: SLU
    179:
      id: pap
      doc: PAP
    180:
      id: svi
      doc: SVI
    181:
      id: ski
      doc: SKI
    182:
      id: sal
      doc: SAL
    183:
      id: ge2
      doc: GE2
    184:
      id: zar
      doc: ZAR
    185:
      id: rwa
      doc: RWA
    186:
      id: lbr
      doc: LBR
    187:
      id: net
      doc: NET
    188:
      id: twn
      doc: TWN
    189:
      id: asu
      doc: ASU
    190:
      id: agg
      doc: AGG
    191:
      id: arn
      doc: ARN
    192:
      id: bnn
      doc: BNN
    193:
      id: btn
      doc: BTN
    194:
      id: bri
      doc: BRI
    195:
      id: cmb
      doc: CMB
    196:
      id: cay
      doc: CAY
    197:
      id: car
      doc: CAR
    198:
      id: cia
      doc: CIA
    199:
      id: coa
      doc: COA
    200:
      id: cin
      doc: CIN
    201:
      id: elg
      doc: ELG
    202:
      id: eri
      doc: ERI
    203:
      id: fgb
      doc: FGB
    204:
      id: frg
      doc: FRG
    205:
      id: frp
      doc: FRP
    206:
      id: gab
      doc: GAB
    207:
      id: ggb
      doc: GGB
    208:
      id: gra
      doc: GRA
    209:
      id: grl
      doc: GRL
    210:
      id: fga
      doc: FGA
    211:
      id: gma
      doc: GMA
    212:
      id: gui
      doc: GUI
    213:
      id: gub
      doc: GUB
    214:
      id: iom
      doc: IOM
    215:
      id: jmy
      doc: JMY
    216:
      id: mfr
      doc: MFR
    217:
      id: myf
      doc: MYF
    218:
      id: msg
      doc: MSG
    219:
      id: ncf
      doc: NCF
    220:
      id: nnn
      doc: NNN
    221:
      id: nna
      doc: NNA
    222:
      id: nmi
      doc: NMI
    223:
      id: otm
      doc: OTM
    224:
      id: pal
      doc: PAL
    225:
      id: pig
      doc: PIG
    226:
      id: ruf
      doc: RUF
    227:
      id: sao
      doc: SAO
    228:
      id: som
      doc: SOM
    229:
      id: svn
      doc: SVN
    230:
      id: hgb
      doc: HGB
    231:
      id: pgb
      doc: PGB
    232:
      id: tki
      doc: TKI
    233:
      id: tci
      doc: TCI
    234:
      id: wfr
      doc: WFR
    235:
      id: nir
      doc: NIR
    236:
      id: iss
      doc: ISS
    237:
      id: gbr
      doc: GBR
    238:
      id: saa
      doc: SAA
    239:
      id: mnt
      doc: MNT
    240:
      id: ser
      doc: SER
    241:
      id: cat
      doc: CAT
    242:
      id: bas
      doc: BAS
    243:
      id: kos
      doc: KOS
    244:
      id: crc
      doc: CRC
    245:
      id: lba
      doc: LBA
    246:
      id: leb
      doc: LEB
    247:
      id: lib
      doc: LIB
