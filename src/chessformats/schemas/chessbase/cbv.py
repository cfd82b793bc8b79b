"""ChessBase archives (``.cbv``; ``.cbz`` is the same enciphered): the container that carries a base's files.

An archive is a header, a file table (one fixed-size entry per file) and then, file after file, the file's
blocks. Each block holds up to 61,440 bytes of its file (``0xF000``: every full block in the corpus), stored,
Huffman-coded, LZ/RLE-coded, or both (Huffman first, then LZ/RLE on what it gives). The two decoding stages
are :mod:`chessformats.engine.huffman` and :mod:`chessformats.engine.lzrle`; a ``.cbz`` file is the whole
``.cbv`` enciphered with DES (:mod:`chessformats.engine.des`).

Sources: uncbv (Antoni Boucher, https://github.com/antoyo/uncbv, ``src/cbv.rs``, ``src/decrypt.rs``; GPL-3.0,
facts only), which reads the header, the name and 32-bit sizes of each entry, and the block layout. The rest
was found on the corpus (``corpus/chessbase/uncbv_archives``) and is said so per field: the entry's date,
time, offset and 64-bit sizes, and the block checksum (uncbv: "unknown bytes"), which holds for all 50 blocks.
"""

from __future__ import annotations

import construct as cs

from ...engine.schema import MeaningEnum

ARCHIVE_MAGIC = 8
"""The first 16-bit word of every archive (uncbv's "magic number" ``08 00``)."""

NAME_SIZE = 132
"""Bytes of an entry's name field (0-terminated; the bytes after the terminator are leftovers)."""

BLOCK_DATA = 0xF000
"""Bytes of a file per block: every full block of the corpus holds 61,440; the last holds the rest."""

ARCHIVE_HEADER = cs.Struct(
    "magic" / cs.Const(ARCHIVE_MAGIC, cs.Int16ul) * "8: a ChessBase archive (a .cbz deciphered starts so too)",
    "files" / cs.Int16ul * "number of entries in the file table",
    "entry_size" / cs.Int16ul * "bytes per file-table entry: 173 in the corpus (uncbv reads one byte and skips the "
                                "next)",
    "reserved_6" / cs.Int16ul * "3 in every corpus archive; meaning unknown",
)
"""The 8-byte header of a ``.cbv`` (little-endian, like the whole container)."""
ARCHIVE_HEADER_SIZE: int = ARCHIVE_HEADER.sizeof()

ARCHIVE_ENTRY = cs.Struct(
    "name" / cs.Bytes(NAME_SIZE) * "the file's name, 0-terminated, in a single-byte code page; a Windows path "
                                   "(backslashes) in principle, a bare name in the corpus",
    "compressed_size" / cs.Int32sl * "bytes of the file's blocks in the archive (block headers included)",
    "size" / cs.Int32sl * "bytes of the file once decoded",
    "reserved_140" / cs.Int8ul * "1 in every corpus entry; meaning unknown",
    "date" / cs.Int32ul * "the file's date as the decimal number YYYYMMDD (corpus: 20160801)",
    "time" / cs.Int32ul * "the file's time as the decimal number hhmmsscc (hours, minutes, seconds, hundredths)",
    "offset" / cs.Int64ul * "offset of the file's first block in the archive (the files follow the table in "
                            "entry order)",
    "compressed_size_64" / cs.Int64ul * "compressed_size again, 64 bits",
    "size_64" / cs.Int64ul * "size again, 64 bits",
)
"""One entry of the file table (173 bytes; the header's ``entry_size`` says how far apart entries are)."""
ARCHIVE_ENTRY_SIZE: int = ARCHIVE_ENTRY.sizeof()

BLOCK_HEAD = cs.Struct(
    "size" / cs.Int16ul * "bytes of the block after this 4-byte head (the coding byte included)",
    "checksum" / cs.Int16ul * "sum of the block's complete 16-bit little-endian words after this head, mod 65536 "
                              "(an odd last byte is left out); found on the corpus, uncbv skips it",
)
"""The head of every block."""
BLOCK_HEAD_SIZE: int = BLOCK_HEAD.sizeof()

BLOCK_CODING = MeaningEnum(cs.Int8ul, {
    "stored": (0, "the bytes as they are"),
    "lz": (1, "LZ/RLE-coded (groups of a control word and 16 items: literals, runs, copies)"),
    "huffman": (2, "Huffman-coded (a code table, then the code words)"),
    "huffman_lz": (3, "Huffman-coded; what that gives is LZ/RLE-coded"),
})
"""What the block's bytes are: bit 0 LZ/RLE, bit 1 Huffman (uncbv's compression flags)."""

HUFFMAN_HEAD = cs.Struct(
    "count" / cs.Int16ub * "bytes the code words give (big-endian, unlike the rest of the container)",
)
"""After the coding byte of a Huffman-coded block."""

HUFFMAN_CODE = cs.Struct(
    "length" / cs.BitsInteger(4) * "bits of this byte value's code word; 0: the value has none",
    "word" / cs.BitsInteger(lambda this: this.length) * "the code word, most significant bit first",
)
"""The code word of one byte value (4 + length bits; not byte-aligned)."""

HUFFMAN_TABLE = cs.Bitwise(cs.Array(256, HUFFMAN_CODE))
"""The code table: byte values 0..255 in order, each a :data:`HUFFMAN_CODE`; the code words of the data follow
at the next bit (not the next byte), and the bits after the last word up to the end of the block are padding."""

BLOCK = cs.Struct(
    "head" / BLOCK_HEAD * "size and checksum",
    "coding" / BLOCK_CODING * "how the bytes are coded",
    "data" / cs.Bytes(lambda this: this.head.size - 1) * "the coded bytes: stored bytes, LZ/RLE groups, or a "
                                                        "Huffman head, table and code words",
)
"""One block of a file."""

LZ_CONTROL = cs.Struct(
    "control" / cs.Int16ul * "16 flags, most significant first: 0 a literal byte follows, 1 a coded item",
)
"""The control word that starts each group of 16 LZ/RLE items."""

LZ_ITEM = cs.BitStruct(
    "kind" / cs.BitsInteger(4) * "0: short run, 1: long run, 2: long copy, 3-15: a copy of this many bytes",
    "low" / cs.BitsInteger(4) * "runs: length - 3 (short) or its low 4 bits (long); copies: distance - 3, "
                                "low 4 bits",
    "high" / cs.BitsInteger(8) * "short run: the byte repeated; long run: length bits 4-11 (+ 19); copies: "
                                 "distance bits 4-11",
)
"""The first two bytes of a coded LZ/RLE item; a long run (kind 1) adds the byte repeated, a long copy
(kind 2) the length - 16."""
