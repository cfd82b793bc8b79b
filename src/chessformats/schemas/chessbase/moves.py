"""ChessBase databases: the coded move stream of a game in the ``.cbg`` file (move codes, two-byte and
simple-encoder moves, the twelve encoding modes and their decode tables)."""

from __future__ import annotations

import construct as cs

from ...engine.schema import MeaningEnum

MOVE_CODES: dict[int, tuple[str, int, int, int] | tuple[str, int, str]] = {
    0x01: ('king', 1, 0, 1), 0x02: ('king', 1, 1, 1), 0x03: ('king', 1, 1, 0), 0x04: ('king', 1, 1, 7),
    0x05: ('king', 1, 0, 7), 0x06: ('king', 1, 7, 7), 0x07: ('king', 1, 7, 0), 0x08: ('king', 1, 7, 1),
    0x09: ('king', 1, 'O-O'), 0x0A: ('king', 1, 'O-O-O'), 0x0B: ('queen', 1, 0, 1), 0x0C: ('queen', 1, 0, 2),
    0x0D: ('queen', 1, 0, 3), 0x0E: ('queen', 1, 0, 4), 0x0F: ('queen', 1, 0, 5), 0x10: ('queen', 1, 0, 6),
    0x11: ('queen', 1, 0, 7), 0x12: ('queen', 1, 1, 0), 0x13: ('queen', 1, 2, 0), 0x14: ('queen', 1, 3, 0),
    0x15: ('queen', 1, 4, 0), 0x16: ('queen', 1, 5, 0), 0x17: ('queen', 1, 6, 0), 0x18: ('queen', 1, 7, 0),
    0x19: ('queen', 1, 1, 1), 0x1A: ('queen', 1, 2, 2), 0x1B: ('queen', 1, 3, 3), 0x1C: ('queen', 1, 4, 4),
    0x1D: ('queen', 1, 5, 5), 0x1E: ('queen', 1, 6, 6), 0x1F: ('queen', 1, 7, 7), 0x20: ('queen', 1, 1, 7),
    0x21: ('queen', 1, 2, 6), 0x22: ('queen', 1, 3, 5), 0x23: ('queen', 1, 4, 4), 0x24: ('queen', 1, 5, 3),
    0x25: ('queen', 1, 6, 2), 0x26: ('queen', 1, 7, 1), 0x27: ('rook', 1, 0, 1), 0x28: ('rook', 1, 0, 2),
    0x29: ('rook', 1, 0, 3), 0x2A: ('rook', 1, 0, 4), 0x2B: ('rook', 1, 0, 5), 0x2C: ('rook', 1, 0, 6),
    0x2D: ('rook', 1, 0, 7), 0x2E: ('rook', 1, 1, 0), 0x2F: ('rook', 1, 2, 0), 0x30: ('rook', 1, 3, 0),
    0x31: ('rook', 1, 4, 0), 0x32: ('rook', 1, 5, 0), 0x33: ('rook', 1, 6, 0), 0x34: ('rook', 1, 7, 0),
    0x35: ('rook', 2, 0, 1), 0x36: ('rook', 2, 0, 2), 0x37: ('rook', 2, 0, 3), 0x38: ('rook', 2, 0, 4),
    0x39: ('rook', 2, 0, 5), 0x3A: ('rook', 2, 0, 6), 0x3B: ('rook', 2, 0, 7), 0x3C: ('rook', 2, 1, 0),
    0x3D: ('rook', 2, 2, 0), 0x3E: ('rook', 2, 3, 0), 0x3F: ('rook', 2, 4, 0), 0x40: ('rook', 2, 5, 0),
    0x41: ('rook', 2, 6, 0), 0x42: ('rook', 2, 7, 0), 0x43: ('bishop', 1, 1, 1), 0x44: ('bishop', 1, 2, 2),
    0x45: ('bishop', 1, 3, 3), 0x46: ('bishop', 1, 4, 4), 0x47: ('bishop', 1, 5, 5), 0x48: ('bishop', 1, 6, 6),
    0x49: ('bishop', 1, 7, 7), 0x4A: ('bishop', 1, 1, 7), 0x4B: ('bishop', 1, 2, 6), 0x4C: ('bishop', 1, 3, 5),
    0x4D: ('bishop', 1, 4, 4), 0x4E: ('bishop', 1, 5, 3), 0x4F: ('bishop', 1, 6, 2), 0x50: ('bishop', 1, 7, 1),
    0x51: ('bishop', 2, 1, 1), 0x52: ('bishop', 2, 2, 2), 0x53: ('bishop', 2, 3, 3), 0x54: ('bishop', 2, 4, 4),
    0x55: ('bishop', 2, 5, 5), 0x56: ('bishop', 2, 6, 6), 0x57: ('bishop', 2, 7, 7), 0x58: ('bishop', 2, 1, 7),
    0x59: ('bishop', 2, 2, 6), 0x5A: ('bishop', 2, 3, 5), 0x5B: ('bishop', 2, 4, 4), 0x5C: ('bishop', 2, 5, 3),
    0x5D: ('bishop', 2, 6, 2), 0x5E: ('bishop', 2, 7, 1), 0x5F: ('knight', 1, 2, 1), 0x60: ('knight', 1, 1, 2),
    0x61: ('knight', 1, 7, 2), 0x62: ('knight', 1, 6, 1), 0x63: ('knight', 1, 6, 7), 0x64: ('knight', 1, 7, 6),
    0x65: ('knight', 1, 1, 6), 0x66: ('knight', 1, 2, 7), 0x67: ('knight', 2, 2, 1), 0x68: ('knight', 2, 1, 2),
    0x69: ('knight', 2, 7, 2), 0x6A: ('knight', 2, 6, 1), 0x6B: ('knight', 2, 6, 7), 0x6C: ('knight', 2, 7, 6),
    0x6D: ('knight', 2, 1, 6), 0x6E: ('knight', 2, 2, 7), 0x6F: ('pawn', 1, 0, 1), 0x70: ('pawn', 1, 0, 2),
    0x71: ('pawn', 1, 1, 1), 0x72: ('pawn', 1, 7, 1), 0x73: ('pawn', 2, 0, 1), 0x74: ('pawn', 2, 0, 2),
    0x75: ('pawn', 2, 1, 1), 0x76: ('pawn', 2, 7, 1), 0x77: ('pawn', 3, 0, 1), 0x78: ('pawn', 3, 0, 2),
    0x79: ('pawn', 3, 1, 1), 0x7A: ('pawn', 3, 7, 1), 0x7B: ('pawn', 4, 0, 1), 0x7C: ('pawn', 4, 0, 2),
    0x7D: ('pawn', 4, 1, 1), 0x7E: ('pawn', 4, 7, 1), 0x7F: ('pawn', 5, 0, 1), 0x80: ('pawn', 5, 0, 2),
    0x81: ('pawn', 5, 1, 1), 0x82: ('pawn', 5, 7, 1), 0x83: ('pawn', 6, 0, 1), 0x84: ('pawn', 6, 0, 2),
    0x85: ('pawn', 6, 1, 1), 0x86: ('pawn', 6, 7, 1), 0x87: ('pawn', 7, 0, 1), 0x88: ('pawn', 7, 0, 2),
    0x89: ('pawn', 7, 1, 1), 0x8A: ('pawn', 7, 7, 1), 0x8B: ('pawn', 8, 0, 1), 0x8C: ('pawn', 8, 0, 2),
    0x8D: ('pawn', 8, 1, 1), 0x8E: ('pawn', 8, 7, 1), 0x8F: ('queen', 2, 0, 1), 0x90: ('queen', 2, 0, 2),
    0x91: ('queen', 2, 0, 3), 0x92: ('queen', 2, 0, 4), 0x93: ('queen', 2, 0, 5), 0x94: ('queen', 2, 0, 6),
    0x95: ('queen', 2, 0, 7), 0x96: ('queen', 2, 1, 0), 0x97: ('queen', 2, 2, 0), 0x98: ('queen', 2, 3, 0),
    0x99: ('queen', 2, 4, 0), 0x9A: ('queen', 2, 5, 0), 0x9B: ('queen', 2, 6, 0), 0x9C: ('queen', 2, 7, 0),
    0x9D: ('queen', 2, 1, 1), 0x9E: ('queen', 2, 2, 2), 0x9F: ('queen', 2, 3, 3), 0xA0: ('queen', 2, 4, 4),
    0xA1: ('queen', 2, 5, 5), 0xA2: ('queen', 2, 6, 6), 0xA3: ('queen', 2, 7, 7), 0xA4: ('queen', 2, 1, 7),
    0xA5: ('queen', 2, 2, 6), 0xA6: ('queen', 2, 3, 5), 0xA7: ('queen', 2, 4, 4), 0xA8: ('queen', 2, 5, 3),
    0xA9: ('queen', 2, 6, 2), 0xAA: ('queen', 2, 7, 1), 0xAB: ('queen', 3, 0, 1), 0xAC: ('queen', 3, 0, 2),
    0xAD: ('queen', 3, 0, 3), 0xAE: ('queen', 3, 0, 4), 0xAF: ('queen', 3, 0, 5), 0xB0: ('queen', 3, 0, 6),
    0xB1: ('queen', 3, 0, 7), 0xB2: ('queen', 3, 1, 0), 0xB3: ('queen', 3, 2, 0), 0xB4: ('queen', 3, 3, 0),
    0xB5: ('queen', 3, 4, 0), 0xB6: ('queen', 3, 5, 0), 0xB7: ('queen', 3, 6, 0), 0xB8: ('queen', 3, 7, 0),
    0xB9: ('queen', 3, 1, 1), 0xBA: ('queen', 3, 2, 2), 0xBB: ('queen', 3, 3, 3), 0xBC: ('queen', 3, 4, 4),
    0xBD: ('queen', 3, 5, 5), 0xBE: ('queen', 3, 6, 6), 0xBF: ('queen', 3, 7, 7), 0xC0: ('queen', 3, 1, 7),
    0xC1: ('queen', 3, 2, 6), 0xC2: ('queen', 3, 3, 5), 0xC3: ('queen', 3, 4, 4), 0xC4: ('queen', 3, 5, 3),
    0xC5: ('queen', 3, 6, 2), 0xC6: ('queen', 3, 7, 1), 0xC7: ('rook', 3, 0, 1), 0xC8: ('rook', 3, 0, 2),
    0xC9: ('rook', 3, 0, 3), 0xCA: ('rook', 3, 0, 4), 0xCB: ('rook', 3, 0, 5), 0xCC: ('rook', 3, 0, 6),
    0xCD: ('rook', 3, 0, 7), 0xCE: ('rook', 3, 1, 0), 0xCF: ('rook', 3, 2, 0), 0xD0: ('rook', 3, 3, 0),
    0xD1: ('rook', 3, 4, 0), 0xD2: ('rook', 3, 5, 0), 0xD3: ('rook', 3, 6, 0), 0xD4: ('rook', 3, 7, 0),
    0xD5: ('bishop', 3, 1, 1), 0xD6: ('bishop', 3, 2, 2), 0xD7: ('bishop', 3, 3, 3), 0xD8: ('bishop', 3, 4, 4),
    0xD9: ('bishop', 3, 5, 5), 0xDA: ('bishop', 3, 6, 6), 0xDB: ('bishop', 3, 7, 7), 0xDC: ('bishop', 3, 1, 7),
    0xDD: ('bishop', 3, 2, 6), 0xDE: ('bishop', 3, 3, 5), 0xDF: ('bishop', 3, 4, 4), 0xE0: ('bishop', 3, 5, 3),
    0xE1: ('bishop', 3, 6, 2), 0xE2: ('bishop', 3, 7, 1), 0xE3: ('knight', 3, 2, 1), 0xE4: ('knight', 3, 1, 2),
    0xE5: ('knight', 3, 7, 2), 0xE6: ('knight', 3, 6, 1), 0xE7: ('knight', 3, 6, 7), 0xE8: ('knight', 3, 7, 6),
    0xE9: ('knight', 3, 1, 6), 0xEA: ('knight', 3, 2, 7),
}
"""One-byte move codes (after the mode's decode table): ``code -> (piece, number, dx, dy)``.

The n-th piece of a kind moves ``dx`` files right and ``dy`` ranks up, wrapping around the board (mod 8);
pawns move relative to their side (dy forward, dx = 1 right or 7 left as the mover sees it); the king's
``O-O``/``O-O-O`` castle. Code 0 is a null move, 0xEB a two-byte move, 0xEC a byte to skip, 0xFE/0xFF
variation start/end. From the spec's table, which skips code 0x40: its codes 0x41-0xEC are one too high.
"""

CODE_NULL, CODE_TWO_BYTE, CODE_SKIP, CODE_PUSH, CODE_POP = 0x00, 0xEB, 0xEC, 0xFE, 0xFF

PROMOTION = MeaningEnum(cs.BitsInteger(2), {
    "queen": (0, "queen"), "rook": (1, "rook"), "bishop": (2, "bishop"), "knight": (3, "knight"),
})

TWO_BYTE_MOVE = cs.BitStruct(
    "reserved" / cs.BitsInteger(2) * "0",
    "promotion" / PROMOTION * "piece a pawn promotes to (ignored for other moves)",
    "to_file" / cs.BitsInteger(3) * "destination file, 0 = a (the spec says rank: a typo)",
    "to_rank" / cs.BitsInteger(3) * "destination rank, 0 = rank 1",
    "from_file" / cs.BitsInteger(3) * "source file, 0 = a",
    "from_rank" / cs.BitsInteger(3) * "source rank, 0 = rank 1",
)
"""The two decoded bytes after code 0xEB, read as one big-endian 16-bit integer."""

MOVE_BYTE = cs.Struct("code" / cs.Int8ub * "a coded move (decoded with the mode's table and the move counter)")
"""One byte of the move stream, as the hex view shows it."""

MOVE_BYTES = cs.Struct(
    "code" / cs.Int8ub * "a coded marker: 0xEB after decoding (a two-byte move follows)",
    "move" / cs.Bytes(2) * "the coded two-byte move (see TWO_BYTE_MOVE)",
)
"""A two-byte move of the compact encoder, with its marker."""

SIMPLE_MOVE_BYTES = cs.Struct("move" / cs.Bytes(2) * "a coded move of the simple encoder (see SIMPLE_MOVE)")
"""A move of the 'simple' encoder (modes 1, 3, 5, 7)."""

SIMPLE_MOVE = cs.BitStruct(
    "push" / cs.Flag * "a variation starts before this move (remember the position)",
    "pop" / cs.Flag * "the line ends after this move (go back to the remembered position)",
    "promotion" / PROMOTION * "piece a pawn promotes to",
    "to_square" / cs.BitsInteger(6) * "destination, file-major: 0 = a1, 1 = a2, ..., 8 = b1 (source in reverse modes)",
    "from_square" / cs.BitsInteger(6) * "source, file-major (destination in reverse modes); both 0: a null move",
)
"""A move of the 'simple' encoder (modes 1, 3, 5, 7): two decoded bytes as a big-endian 16-bit integer."""

MODE_ENCODER = ("compact", "simple", "compact", "simple", "compact", "simple", "compact", "simple",
                "compact", "compact", "compact", "compact")
MODE_COUNTER = ("pre", "pre", "pre", "pre", "post", "post", "post", "post", "post", "post", "post", "post")
MODE_REVERSE = (False, False, True, True, False, False, True, True, False, True, False, True)
MODE_VARIANT = ("chess",) * 8 + ("losing chess", "losing chess", "chess960", "chess960")
"""Per encoding mode 0-11 (``notes/chessbase-mode-tables.json``): encoder, when the move counter is
subtracted ('pre': before the table lookup, 'post': after), piece numbering from the h-file, variant.
Losing chess (modes 8 and 9; "give away chess" in the Java reader) decodes like chess (kings may be taken)
and is exported as python-chess's ``Giveaway`` variant; how a promotion to a king is coded is unknown."""

MODE_TABLES: tuple[bytes, ...] = (
    bytes.fromhex(  # mode 0
        "a29543f5c13d4a6c5383cc7cffae68add1928b8d35815e74268eabcafd9af3a0a515fcb11eed30ea22eba7cd4e6f2e243294418c6e588250"
        "bb028ad8fa60de52ba46ac299dd7df08210166a3f11927b591d5420eb44cd9185fbc25a69604566aaa331c2b73f0dda437d3c510bf5a2334"
        "755bb855d26b093a5712b37748859b0f9ec7c8a17f7ac0bd316df63ec31171ce7ddaa85490971f444016c9e32ccb84ec9f3f5ce6760b3c20"
        "b73600dce7f94ff7af0607e01a0aa94b0cd66387891d131be4700547677b2feee2e8980defcfc4f4fbb0179964f2d42a034d78c6fe658688"
        "79453be5498f2db9be629314e9d0389cb2c2595db67251f8287e6139e1db6980"
    ),
    bytes.fromhex(  # mode 1
        "a82238fb277c65dd41833cad81e9afcb86cc87cfb1eb798f16d12dbe21520f8b284ce8991afd62ea40b7c819918a5f0dc234390c7be076d0"
        "f1aa4723e3a517a40a58c4bbfa433193a6927098759f89356c146373dfe41146d34402dab3f2eff92554299d1dcaecc7b2c568bcf77e2fe1"
        "5c90e6f636954d2a0397edd62e6eb87426a25951acd7304882334910d8fed5159ca0537d0b32963761ee4fa95ad4e707451cab67941e0ea1"
        "003ef00104b9ce1f135bf5bfc60818de5755e556cd056ab00620db80f8b642d28daeb5f47f78f369604e6f2b1b853a8c716ba3c1c96d8e3b"
        "dc889b12fc9e4a6650643d099aff24bd4bd9baa7b484e2775e5d2c727a3fc3c0"
    ),
    bytes.fromhex(  # mode 2
        "72c66657968c4ea0dd158d2f16d810534d445fa99161c205e406f50ce2fe9d2e735d63a3f8c804a1bdb3005a644c98ed197b54c0d71ce8e3"
        "cafdfa806fd1b40702d9b0eba497e7508218593c47f986490ec47143a6993e85bf7801f0ff1dd68b414a278a346adf624869f1a7b82c6068"
        "c38ee6cfad389c9a0decd017256b297523c93dd5a8b13a46b6ee28dcab310f6dc5f47a394224e16720908435655e305cd479a5bca21b1488"
        "9b40f65612937652ace99f814b94ae0b2213d37f9226be7e1a6c11b5af37834521ccfbdeb92b2d33fc3feab7dbf2f3890a519eef4f6ebbda"
        "b2d2f7c1cb550970c7e0ba7795085832e57d1e368f2a741fce5b033baacd877c"
    ),
    bytes.fromhex(  # mode 3
        "9b93661c750b5b01c19d49b95ffd844fce53ca7e8d4cb8fb975a234d1510e7d809ade594f0e6ff1e332ef4f94070b7cf03bd476d6017bc21"
        "315029c6a4b3181b823e4ee239dadb265c891a355405e9d28b87fe278536950d807d3474923d6e2fd6a28855c74383376c5877a0fcc3e3ef"
        "ae24abeadf86e1785db002f65920a3ccfa8f41b6a8bb79073f13a532ecd77251529e5748e081dcee3a90d1de6f287b116a8c9ad9af7a0861"
        "447c6942990c4600717fa738a1e4c2b22c4bbe12621d19c80ed5ed0a0616bfc476ddacc9d3f8a9652b6314f7a6bad4f2d06bcb91cd9f3b73"
        "f52ac55ec0224a45961f64985668aa8e0fb1e8042d30253cb5f19ceb67b4f38a"
    ),
    bytes.fromhex(  # mode 4
        "58a3ee7247b91fa026fddc6df1e3cbc5e2d029e789e1ae7b3441354ba57cf6e5db8c5f3705bb32544cef5d2a7fd38186df18c34416f7850f"
        "4d30791445aaa26c1592a6624819e93c389428a866090363207d36d72e98ecda01132473cd9ecfd9d5688bd2ab5b69b027fc311b537e6576"
        "5575af0accc7c4b2b522e8a7bef5005a21d1748ede9ce4422bb19b93c17870d6b6ad4e6a647a5749119d12c03a2fe684c607ce08820490b8"
        "87ca6e1e401a50b410bc438a710b8d5c3b3f88baf4f3611df9fe25510debc8591746a4f256b7022d339fd883fbbfeaedac606739dd966ba9"
        "c2770c0e91fa999ae0a1f05ec9064fbd5280d4f897233e1c2c954a8f3d6fffb3"
    ),
    bytes.fromhex(  # mode 5
        "e01b9786a248f0230137faeb50765dcd801a315cffbc78dae5a375b371e1a10e56413fe30dc425e6888970dc99a60b9a142c579e697adf55"
        "ad737cc50372f545628eaf5fccc05ef31813b53809283cbd108be9dd8c940881a7fe2479442bc136327f67e4fd494b21a95b771f1cf64065"
        "3df95af8472653d420d2d84f27aefbb69b74b842fc166fd79fb97b60dec246069cd32ac705853eb10015d196ce909511338fc68284b739a0"
        "e8341e7da8d0eae2ef4cc3584e021db27e982d07d5ca68cb30b4ac8363ec87ee2ebecf6d4d8ad604b035c8c91217618d640fa554293a4a6b"
        "bb2fd93b936aaaa422f419436ef1f7db92ed66590abf6c519152f20c9dabbae7"
    ),
    bytes.fromhex(  # mode 6
        "e5999372cd0d5c1216a3b7b2c78b21441134f7e37649becfaf9efeb0739568c8414f509db1d02be7d7c1bdfacee075142227e90a6f063101"
        "4d79711715f2099f64a90fe11ed9daee9ca660d3f4f9458ee2fb35fc9bba398082e8c41a2530cc487c473cc2625f050b43f1aee4073b5377"
        "6e1c196b363769f056659094ad5ad6c5def5207bac0c6cdfa5d52fdcb8ab2eb474bbf87dbfe6c9d15996aa929a3e334b3d322983420e9166"
        "81635e67ca8c5170c0b36aa7891fa210977eb578c61bd43aa02a843ff3a802248dd2cb04380352ec5d54bca42cd8287f871d5b8f4a4e8adb"
        "ef85eb8855a1085700ea7a98dd2ded58c34c6d611346b9fd268623b61840f6ff"
    ),
    bytes.fromhex(  # mode 7
        "2213559b2e726ff1b75e65818767d8337c4ce56d2a8495ad41cb7674b260ab3fbd08b04792becafdee2f6b9dc416c77fb614061d6c43d27e"
        "12d0386296239098363d508ecf64cd3b217dceb3aea1e6f2a0d418e74d024baa9e7a7928f4071a94f8c1b91f75f73591fe8a1939292c3100"
        "322dd1cc1ba55a5b450597690a71ebe4f9772b6ad65fe8d948edbbbc15f6a3b8ba4625449983823a52c93e17ace3bfdddc40700c3c1e9a8b"
        "88574fe10d0b7ba7e9b58fafec03b1da6809df497827d51cdb42fbff53c2118ca24e24a634d373fa3089de0e10b45c5dc8a86e58f0a95480"
        "850fe201ef37c69cf561048da463fc51ead7c3c0e04ac5209f5659669386f326"
    ),
    bytes.fromhex(  # mode 8
        "b6c693c19baa3035ee96fec70516a70fb577763712674abde254ec5f21d0018c87f61b8e087d57a81423d80490a14f0c532ff342ead4e8b1"
        "fda261c26d4929336402f8811ed58d5227116e7ff0acefdf3e32850928d62d831d9c19e90be68299cdd3d20373b213c3ff3c849eb9f5cf44"
        "620df740f91c0e4c4878c446984e8f7baf157eb71ffc70103dfa4d4575eb633968a4f48ad7a05dc0aee78b943a38dc56be2c513f0a47bc00"
        "7add205b6ca5db3665062a3b079a316a5ab8fbe15c7c8634c99524b41a6f2225abed9297d9ad88e0d1f280de66da7269742be471ce17435e"
        "c5a9ba26b3bf419fa3552ef1e318bb894b79e5b06b91a69dca58cbc85960cc50"
    ),
    bytes.fromhex(  # mode 9
        "e385aedcb26346911a16c2c1761f3104459f3dcca4ffc8b037e2cbca9e6e3c5f11fca0c765fedb877a8144e6ef4124f0bb42185db9c5faaa"
        "e1275a8dab28b1c4fd8256da671c899a35c3130f0923bf2b32866b194e6f1b4947b7a9174fafe71470fb10295bc98e734352a65c0a018b5e"
        "c0f492903369d8bd975968a37c48a1dd3a06f2bcb5980ca5603475515374de4bedd7b82ccea700718c8f3be0b3cdbed107128aba64ac4ddf"
        "c620ee663e80628861d238ea4a9b03b683366df83f9c2e7b7e2de9a26a7279e895d96c2293d42650f602d330f5b4210b407d39150dcf54f1"
        "96e47899e57ff94cebec7725f31d58d59d842f1ef72ad6d055a805080ead5794"
    ),
    bytes.fromhex(  # mode 10
        "385064cc9f566f734d4166a2c6b99647eecfb16d484f442015be82093499eb1a337cab59002224b0b4fa85dd57f3d9d28a8d70b56e43a70b"
        "2708eab3941c631b2bc50cd43f37e8dea623ef06fd3ec14032df2dc8d00ff1e27a95ec3cca4911e025d830fe2ebadcaa534cd15e678b0d9e"
        "a9bf057835c4b6a44bd60452a8762cbdae39b2e30381179a3d68c06592c9f77716fff5e11e36bb868ef99dd56bf474802f7b149729e54a02"
        "935ccba15879f85f26288f7ea5edd389c7889b548760daf0453ac2849021f6f25a2a55186101fbe68c6a12b862839810715be4addb420acd"
        "46d77207ce19b73b319c51c369a391e90e1ffc756c1d7de7af5da0bc137fac4e"
    ),
    bytes.fromhex(  # mode 11
        "1a884fd2d7410e97590db7745d1bad1df98942c3a4ff06e88b1eae8a21075f2bd1265b6adbfca2ec53485a616793d520048019cd3be18184"
        "4a29f0a7f8feb21fb905148f30cc969b3e86ab57917f22c865a615ac0fe223b832a84900907c25d8d07b098243c61352470cdae33ab370c2"
        "f7244e739a4503eaf22785f44d6f8c2daa5ce9b6b40234e6753c6672369416afdc589968c1402a2f39ebdf76c083e46d7e7af16b98f6bcbe"
        "33924c8717d935696210cbf5a9cfed2cbb9c8e286eb531bf79dd3d0aa0e5e79fa37dca78d45037b1b09e4477a1e00b55468d9d6456d65e38"
        "0854fd51182ef36c01fafbc5a512de714bbdceef3f1cc463c7ba6095eec9d311"
    ),
)
"""The decode table of each encoding mode (``MODE_TABLES[0]`` is the spec's ``Cbh_Decode``)."""
