"""ChessBase databases: the format's documentation (``FORMAT``), generated into ``docs/formats/chessbase.md``."""

from __future__ import annotations

from ...engine.schema import Example, FormatDoc, Structure
from .cba import ANNOTATION_BODY, ANNOTATION_ITEM, ANNOTATION_RECORD
from .cbg import CHESS960_SETUP, GAME_DATA, GAME_DATA_HEAD, SETUP, TEXT_DATA
from .cbh import CBH_HEADER, CBH_RECORD, GAME_RECORD, TEXT_RECORD
from .cbj import CBJ_HEADER, CBJ_RECORD, ENDGAME, MATERIAL, RATING_TYPE
from .cbv import ARCHIVE_ENTRY, ARCHIVE_HEADER, BLOCK, BLOCK_HEAD, HUFFMAN_CODE, HUFFMAN_HEAD, LZ_CONTROL, LZ_ITEM
from .common import STORE_HEADER
from .entities import ANNOTATOR, ENTITY_HEADER, PLAYER, SOURCE, TEAM, TOURNAMENT
from .moves import MOVE_CODES, SIMPLE_MOVE, TWO_BYTE_MOVE


def _move_table_note() -> str:
    """The one-byte move table in ranges, from :data:`MOVE_CODES` (so the page cannot disagree with the code)."""
    runs: list[tuple[int, int, str]] = []
    for code, entry in sorted(MOVE_CODES.items()):
        label = f"{entry[0]} {entry[1]}" if entry[0] not in ("king",) else "king"
        if runs and runs[-1][2] == label and runs[-1][1] == code - 1:
            runs[-1] = (runs[-1][0], code, label)
        else:
            runs.append((code, code, label))
    parts = [f"0x{a:02X}-0x{b:02X} {label}" for a, b, label in runs]
    return ("**One-byte moves** (after decoding; `MOVE_CODES` lists each code's move): 0x00 null move; "
            + "; ".join(parts) + ". Within a piece's range: vertical steps y+1..y+7, then horizontal x+1..x+7, then "
            "diagonals (queens, bishops; wrapping mod 8), kings: 8 steps then O-O, O-O-O; pawns: one forward, two "
            "forward, capture right, capture left (as the mover sees the board).")


FORMAT = FormatDoc(
    key="chessbase",
    title="ChessBase game database",
    extensions=(".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj", ".cbv", ".cbz"),
    summary=(
        "A ChessBase database is a family of files with one name. The `.cbh` file has a 46-byte header and "
        "one 46-byte record per game or guiding text (game number n, counted from 1, is record n); each record "
        "points into `.cbg` (the game data: setup position and coded move stream) and `.cba` (annotations) "
        "and names the game's players, tournament, annotator and source by record number in the entity files "
        "`.cbp .cbt .cbc .cbs .cbe`, which are AVL trees of fixed-size records. `.cbh .cbg .cba` are "
        "big-endian; the entity files are little-endian. The optional `.cbj` file (the extended game header) "
        "adds per game the teams (record numbers in `.cbe`), rating types, final material and timestamps. "
        "Other companions (`.cbm .cbl .cbtt .cib .cit .cbb .ini` ...) are indexes and settings that a reader "
        "does not need. A base travels as an archive: `.cbv` (its files, compressed) or `.cbz` (the same "
        "enciphered with a password), read and written here too (the last structures below)."
    ),
    structures=(
        Structure(".cbh header", CBH_HEADER, "The first 46 bytes of the `.cbh` file. Old bases differ only in "
                  "the values (`header_variant` 36, `next_game_id_2` 0)."),
        Structure(".cbh record", CBH_RECORD, "Record n (from 1) is at offset 46 * n. `body` is a tagged union "
                  "on `kind.guiding_text`; its two layouts follow."),
        Structure(".cbh game record", GAME_RECORD, "A record whose `kind.guiding_text` is 0, every field at its "
                  "offset in the record (the spec's offsets)."),
        Structure(".cbh guiding-text record", TEXT_RECORD, "A record whose `kind.guiding_text` is 1."),
        Structure(".cbg and .cba header", STORE_HEADER, "The header of the `.cbg` and `.cba` files."),
        Structure(".cbg game data", GAME_DATA, "At the record's `cbg_offset`. The move stream is coded: "
                  "see the notes."),
        Structure("Setup position", SETUP, "Present when `word.setup` is set."),
        Structure("Chess960 start squares", CHESS960_SETUP, "After the setup position in modes 10 and 11."),
        Structure("Two-byte move", TWO_BYTE_MOVE, "The two bytes after the decoded marker 0xEB, each decoded like "
                  "a one-byte move, read as one integer."),
        Structure("Simple-encoder move", SIMPLE_MOVE, "Every move of modes 1, 3, 5 and 7: two decoded bytes."),
        Structure(".cbg guiding-text data", TEXT_DATA, "At the text record's `cbg_offset`."),
        Structure(".cba annotation record", ANNOTATION_RECORD, "At the game record's `cba_offset` (0: none)."),
        Structure(".cba annotation item", ANNOTATION_ITEM, "`body` is a tagged union on `type`; the known "
                  "layouts follow, every other type is kept raw."),
        *ANNOTATION_BODY.structures(),
        Structure("Entity file header", ENTITY_HEADER, "The header of `.cbp .cbt .cbc .cbs .cbe` "
                  "(28 bytes in old bases, 32 in modern ones); record n (from 0) follows at "
                  "header size + n * (record_data_size + 9)."),
        Structure(".cbp player", PLAYER, "A player."),
        Structure(".cbt tournament", TOURNAMENT, "A tournament."),
        Structure(".cbc annotator", ANNOTATOR, "An annotator."),
        Structure(".cbs source", SOURCE, "A source."),
        Structure(".cbe team", TEAM, "A team."),
        Structure(".cbj header", CBJ_HEADER, "The first 32 bytes of the `.cbj` file (little-endian); record n "
                  "(game n, from 1) follows at 32 + (n - 1) * record_size. A missing `.cbj`, or one holding fewer "
                  "records than the `.cbh`, means no extended header for those games."),
        Structure(".cbj record", CBJ_RECORD, "A version-11 record (120 bytes, big-endian). Version 8 records "
                  "(78 bytes) end after `reserved_74`; a record of another size holds the fields that fit and "
                  "keeps the rest raw (`extra`)."),
        Structure("Rating type", RATING_TYPE, "`white_rating` and `black_rating` of a `.cbj` record."),
        Structure("Final material", MATERIAL, "`material_1` and `material_2` of a `.cbj` record (a big-endian "
                  "16-bit integer)."),
        Structure("Endgame classification", ENDGAME, "`endgame` of a `.cbj` record."),
        Structure(".cbv archive header", ARCHIVE_HEADER, "The first 8 bytes of an archive (little-endian, like the "
                  "whole container). The file table follows: `files` entries, `entry_size` bytes apart."),
        Structure(".cbv file-table entry", ARCHIVE_ENTRY, "One per file. The files' blocks follow the table in "
                  "entry order, each file's taking `compressed_size` bytes."),
        Structure(".cbv block", BLOCK, "A file is a run of blocks, each holding up to 61,440 bytes of it. The "
                  "decoding stages and their order are in the notes."),
        Structure(".cbv block head", BLOCK_HEAD, "The first 4 bytes of a block."),
        Structure("Huffman head", HUFFMAN_HEAD, "The first bytes of a Huffman-coded block's `data`; the code "
                  "table follows (256 `Huffman code word`s, bit-packed), then the code words."),
        Structure("Huffman code word", HUFFMAN_CODE, "The code word of one byte value, in the code table: 4 + "
                  "`length` bits, most significant first, not byte-aligned."),
        Structure("LZ/RLE control word", LZ_CONTROL, "Starts every group of 16 items of LZ/RLE-coded bytes."),
        Structure("LZ/RLE coded item", LZ_ITEM, "The first two bytes of an item whose control bit is 1."),
    ),
    notes=(
        "**Byte order.** `.cbh .cbg .cba` are big-endian, except the guiding-text title fields; the entity "
        "files are little-endian throughout (the spec says so only for their headers).",
        "**Game data word.** The top byte of the first word of a game's data holds flags (bit 7: guiding text, "
        "bit 6: setup position follows) and the 6-bit encoding mode; only the low 24 bits are the size (the "
        "spec gives bits 0-29 to the size).",
        "**Header sizes.** `.cbg`/`.cba` headers are 26 bytes (10 in old bases; the spec says 10 for all); "
        "bytes 10-25 repeat the file size and the unused-byte count as 64-bit integers.",
        "**Move stream.** Each byte b is decoded with the table of the game's mode: `table[(b - n) & 0xFF]` "
        "('pre' modes) or `(table[b] - n) & 0xFF` ('post' modes), n = moves decoded so far (mod 256). After "
        "decoding, 0xFE starts a variation (remember the position), 0xFF ends the current line (go back to "
        "the remembered position; with none left, the game ends), 0xEB announces a two-byte move and 0xEC is "
        "skipped. (The spec says 0xEC and 0xED: its one-byte table leaves out code 0x40, rook 2 x+5, so every "
        "code it lists from 0x41 on is one too high.) Other codes are one-byte moves of the n-th "
        "piece of a kind (pieces numbered in a1, a2, ..., h8 order; h1, h2, ..., a8 in 'reverse' modes). Only "
        "the first 3 queens, rooks, bishops and knights, 8 pawns and 1 king of a side get a number; a piece "
        "without one never gets one (a promoted piece takes a free number, if any) and moves as a two-byte "
        "move (corpus ManyPromotions). Losing chess (modes 8 and 9) is read as python-chess's `Giveaway`.",
        _move_table_note(),
        "**Annotation positions.** An item's position counts the moves before it in the stored depth-first "
        "order of the move stream (variations included), not in PGN order; -1 is the whole game.",
        "**Entity trees.** Deleted records have `left` = -999 and `right` = the next deleted record. The tree's "
        "order (morphy) is: players by last name, then first name; tournaments by year **descending**, then "
        "title, place, month descending, day descending; annotators by name; sources by title; teams by title, "
        "then team number, season (a season first), year, nation. Names compare byte by byte and then a 0 byte, "
        "as unsigned bytes for players and teams (ChessBase 16) and signed ones for the others (no corpus tree "
        "tells signed from unsigned there). Every corpus tree follows this order, except that the old "
        "morphy_linares_old base compares player names signed (cp1252 'Lékó' before 'Larsen'). Bytes after a "
        "name's terminator are leftovers and are kept for a byte-exact rewrite.",
        "**Names** are in a single-byte code page (cp1252 in Western bases, cp1251 in morphy_hedgehog's guiding "
        "texts) or, in newer bases, UTF-8.",
        "**Clocks.** The two clock items at position -1 (BielMTO, Chess960Biel) hold each side's clock after its "
        "last move of the main line, in centiseconds.",
        "**Rarer annotation items** (no corpus example except training): layouts from Yarin78/morphy. A computer "
        "evaluation (0x21) is three little-endian 16-bit integers; its value is taken as from White's point of "
        "view, as ChessBase shows it and morphy prints it (`+0.50/20`), and written as `[%eval 0.50,20]` "
        "(`#N` for mate in N); time spent (0x07) is written as `[%emt h:mm:ss]`; a time control (0x24) whose "
        "times are whole seconds becomes the `TimeControl` tag (`40/5400+30:1800+30`). Square and arrow colours "
        "2, 3, 4 are green, yellow, red (morphy; 2 and 4 seen in morphy_test_annotations).",
        "**Guiding texts.** After the titles, the body holds one text per language (morphy's text languages 0-7: "
        "English, German, French, Spanish, Italian, Dutch, Portuguese, none): HTML in `text_format` 3 "
        "(morphy_text, each text's HTML names its language), plain text with formatting data in format 1 "
        "(morphy_hedgehog, cp1251 Cyrillic).",
        "**Chess960.** ECO values >= 64576 are start-position numbers + 64576; game flag bit `chess960` "
        "(0x08000000 of bytes 39-42) is set; castling is stored as a two-byte move whose source equals its "
        "destination.",
        "**Writing move streams (ChessBase's choices, from the corpus).** At a position with n continuations "
        "the first n - 1 (main line first) are each written as 0xFE, the move and its whole line, 0xFF; the "
        "last follows without markers; the game ends with 0xFF. A move of 4 files and 4 ranks has two one-byte "
        "codes (both diagonals wrap onto it): ChessBase writes the lower. Every promotion, to a queen too, is a "
        "two-byte move. With these rules our encoder gives ChessBase's bytes for every corpus game in modes 0 "
        "and 10 (twic1134: 6117 of 6117). Differences that cannot be removed: a stream ChessBase wrote without "
        "its end marker (NormalNoPop) or with a skip byte (morphy_mate2_veryold game 7) is written canonically; "
        "games in modes 1-9 and 11 are written in mode 0 (or 10); the Chess960 start-position number is "
        "python-chess's, where libcbh_Chess960NonStandard stores 253 for positions python-chess numbers "
        "454 and 455 (the meaning of 253 is unknown).",
        "**Writing the other files (what our writer does, and what it cannot give back).** Annotation items are "
        "written sorted by position, as in every corpus record; within a position the corpus has no fixed order "
        "(symbols before a text after the move 3428 times, after it 76 times), so ours is text before, symbols, "
        "squares, arrows, text after, clocks, time spent, evaluation. Clocks only on each side's last main-line "
        "move are written as the game's final clocks (position -1), as BielMTO stores them. With that, the "
        "annotation records of WithVariations, NormalGames, Chess960Biel and twic1134 are ChessBase's bytes. Not "
        "given back: spaces and line breaks around a text (the reader trims them), items without a PGN form "
        "(medals, training, ...), the game number 0 that morphy writes in a record's head. Rewriting ChessBase's "
        "twic1134 gives its .cbh and .cbj records but for the source number (ChessBase keeps a deleted empty "
        "source as record 0) and the .cbj creation time (ours: 0); the .cbj rating type is FIDE's for a rated "
        "player, none otherwise. The record's `many_comments` bit is set when the game's comment texts (before and "
        "after moves) hold more than 200 bytes: ChessBase's rule in every corpus game with a comment (200 bytes: "
        "never; 201: always), while five games of morphy_linares_old have the bit without any annotation. Entity "
        "records equal ChessBase's in names, counts and first games; ChessBase "
        "leaves memory garbage after a name's terminator (ours: zeros) and fills fields no PGN tag gives "
        "(a tournament's nation, rounds, category; a source's publisher). A name may fill its field without "
        "terminator (twic1134's 45-byte team names). The entity trees are balanced (each range's middle as its "
        "root), so their links differ from ChessBase's insertion-built trees; the order is the same. A base copied "
        "record by record (`copy_database`) keeps every record's bytes but offsets, entity numbers, tree nodes and "
        "the .cbj check sum; its recounted game counts and first games equal ChessBase's on every corpus base.",
        "**Extended header (.cbj).** Header little-endian, records big-endian. `check_sum` is the 16-bit sum "
        "of the words at offsets 8-27 in every corpus record ChessBase wrote (morphy reads it as the total "
        "material, and so writes other values). `material_1`/`material_2` match the end of the main line "
        "(both sides, larger first) except in 14 of morphy_hedgehog's games. `created` is in ChessBase's "
        "unit only in bases ChessBase wrote (twic1134: 2016-08-01, the issue's date); other writers store "
        "larger values in another unit.",
        "**Archives (.cbv): decoding a block.** The coding byte says which stages to undo, in this order: "
        "Huffman (bit 1), then LZ/RLE (bit 0); 0 is stored. *Huffman*: a big-endian count of output bytes, then "
        "for each byte value 0-255 a 4-bit length and that many bits of code word, then the code words, most "
        "significant bit first, from the bit after the table; decoding stops after `count` bytes (the rest is "
        "padding). The code is explicit, not canonical: where one word is a prefix of another the shorter wins. "
        "*LZ/RLE*: groups of a little-endian 16-bit control word and 16 items, one per bit, most significant "
        "first: 0 a literal byte; 1 a coded item `b0 [b1 [b2]]` with `h = b0 >> 4`, `l = b0 & 15`: h 0, a run "
        "of l + 3 copies of b1; h 1, a run of l + 16 b1 + 19 copies of b2; h 2, a copy of b2 + 16 bytes from "
        "16 b1 + l + 3 back; h 3-15, a copy of h bytes from that distance. Copies read the block's own output "
        "only; the coded bytes may end after any item.",
        "**Archives: the block checksum** (`head.checksum`, called unknown by uncbv) is the sum of the block's "
        "complete little-endian 16-bit words after the head, mod 65536, an odd last byte left out: it holds for "
        "all 50 corpus blocks, so a damaged block is recognised before it is decoded.",
        "**Enciphered archives (.cbz)** are the whole `.cbv` enciphered with single DES in ECB mode (8-byte blocks "
        "on their own; the file padded to a multiple of 8), the key made from the password's bytes: 8 bytes as "
        "they are, shorter ones repeated to 8, longer ones folded (`key[i mod 8] = 2 key[i mod 8] xor byte i`, "
        "mod 256). A wrong password shows in the first 8 bytes: the deciphered magic is not 8.",
        "**Archives: names.** A name is the file's name as stored (a Windows name; the corpus has bare names). "
        "This library writes nothing for a name that is absolute, has a drive, a `..` or `.` part, a control "
        "character or a Windows device name (`CON`, `NUL.txt`, `COM1`, ...): the whole archive is refused, "
        "before anything is written (uncbv joins the name to the output folder as it is).",
    ),
    examples=(
        Example(CBH_RECORD, bytes.fromhex(
            "010000001a0000001a0000000000010000000000000000000fd2ee020001010a5a085f0000000000c00000000018"),
            "libcbh_NormalGames/BielMTO.cbh, game 1 (data at .cbg offset 26, 2005-07-14, 1-0, B40)"),
        Example(PLAYER, bytes.fromhex(
            "1600000011000000004b61727468696b6579616e00000000000000000000000000000000000000"
            "4d7572616c6900000000000000000000000000000a00000001000000"),
            "libcbh_NormalGames/BielMTO.cbp, record 0: Karthikeyan, Murali"),
        Example(ANNOTATION_RECORD, bytes.fromhex(
            "00000101000e0e000009000000460000000300070100000103000702000002030007050000030300070600"
            "000403000703000005030007040000060300071600000703000708"),
            "libcbh_Annotation/TestBase.cba, the annotations of game 1 (one move symbol after each of 8 moves)"),
        Example(GAME_DATA_HEAD, bytes.fromhex("4000005701100009584bc5a679d456f502d60a8541cf6dd0d5bc587990000000"),
                "libcbh_NonStandard/NonStandardStart.cbg, game 1: a setup position, black to move, move 9"),
    ),
    references=(
        "uncbv (Antoni Boucher, Rust, GPL-3.0), https://github.com/antoyo/uncbv at 3322f69, `src/cbv.rs`, "
        "`src/decrypt.rs` and the crates it uses (`huffman`, `des`): the archive header, the name and sizes of a "
        "file-table entry, the block layout, the Huffman and LZ/RLE stages and the password's DES key (facts "
        "only). The entry's other fields and the block checksum were found on the corpus "
        "(`corpus/chessbase/uncbv_archives`).",
        "*Описание формата баз партий от Chessbase* (the Kvetka project's translation of the CBH format "
        "description), `specs/chessbase.ru.txt`.",
        "`notes/chessbase.md` and `notes/chessbase-mode-tables.json` (corrections and the twelve mode tables).",
        "Yarin78/morphy (Java), `morphy-cbh/.../games/ExtendedGameHeaderStorage.java` and the classes it uses: "
        "the `.cbj` field order and sizes, checked on the corpus.",
        "Yarin78/morphy (Java), `morphy-cbh/.../games/annotations/*Serializer.java`, "
        "`GraphicalAnnotationColor.java`, `morphy-cbh/.../text/TextContentsSerializer.java` and its notes "
        "`format/v1/spec/3-annotations.md`: the layouts of the rarer annotation items and of guiding texts "
        "(facts only; checked on the corpus where it has examples).",
        "Yarin78/morphy (Java), `compareTo` of `morphy-cbh/.../entities/{Player,Tournament,Annotator,Source,"
        "Team}.java`, `util/CBUtil.java` and `format/v1/spec/4-entities.md` (Sort order): the order of the "
        "entity trees (facts only; checked on every corpus tree).",
    ),
)
