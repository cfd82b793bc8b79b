"""Kvetka opening books (``NAME_0.kob``, ``NAME_1.kob``, ..., ``NAME.kin``, ``NAME.ksf``): declarations only.

The ``.kob`` files, taken together as one stream, are a header and 2048-byte blocks of elements, one
element per position (its 22-byte key, the game statistics of the side to move, the book moves as one
byte each, an optional comment and source reference). The ``.kin`` file holds the first key of every
block; the ``.ksf`` file describes the sources (PGN files, web pages, ChessBase bases) and their games.
Big-endian throughout. Source: ``specs/kvetka.ru.txt`` (Kvetka's own description, 2011) and
``notes/kvetka.md``; no real Kvetka book is public, so every choice the spec leaves open is a note below.
"""

from __future__ import annotations

import codecs
from typing import Any

import construct as cs

from ..engine.compactint import COMPACT_INT_MAX_BYTES, COMPACT_INT_MORE, CompactInt, compact_int_bytes, read_compact_int
from ..engine.conditions import FlagSet, Parameter
from ..engine.prefixcode import PrefixCoded
from ..engine.schema import BitsLeft, BitsUnsigned, Example, FormatDoc, MeaningEnum, Structure, bitwise_rest
from .movecode import MoveCode, move_code_field
from .squares import CASTLING, SQUARE_CODE, SQUARE_NAMES

__all__ = [
    "ANSI_STRING",
    "BLOCK",
    "BLOCK_SIZE",
    "BOOK_TYPE",
    "COMPACT_INT_MAX_BYTES",
    "COMPACT_INT_MORE",
    "ELEMENT",
    "ELEMENT_BODY",
    "ELEMENT_FLAGS",
    "ELEMENT_TYPE",
    "EN_PASSANT",
    "FORMAT",
    "GAME",
    "GAME_RESULT",
    "HEADER",
    "HEADER_END",
    "HEADER_START",
    "INTERNET_KIND",
    "KEEPS_GAMES",
    "KEY",
    "KEY_BITS",
    "KEY_SIZE",
    "KIN",
    "KOB",
    "KSF",
    "KSF_TOC_UNIT",
    "MAX_COMMENT",
    "MAX_ELEMENT",
    "MOVE_CODE",
    "MOVE_CODES",
    "SOURCE",
    "SOURCE_HEAD",
    "SOURCE_REF",
    "SOURCE_TYPE",
    "TOC",
    "TOC_ADDRESS",
    "TOC_COUNT",
    "UNICODE_STRING",
    "CompactInt",
    "PartPresent",
    "Text",
    "compact_int_bytes",
    "read_compact_int",
]

BLOCK_SIZE = 2048
"""Every block of the ``.kob`` stream is this long."""
MAX_ELEMENT = 682
"""An element, its length field included, is at most this long (so a block always has room for three)."""
MAX_COMMENT = 300
"""A comment is at most this many characters."""
KSF_TOC_UNIT = 512
"""The ``.ksf`` table of contents is a multiple of this many bytes."""


# --- CompactInt and strings -----------------------------------------------------------------------------

class Text(cs.Adapter):  # type: ignore[misc]
    """A Kvetka string: a 4-byte length, then ``length`` bytes (ANSI) or ``2 * length`` bytes (Unicode).

    Unicode is UTF-16 big-endian (the spec does not say; the files are big-endian everywhere else),
    ``length`` counting 16-bit units; lone surrogates are kept (``surrogatepass``). ANSI is Windows-1251
    (Kvetka is a Russian Windows program), bytes it does not define kept as they are (``surrogateescape``),
    so that any stored string reads and writes back to the same bytes.
    """

    def __init__(self, unicode: bool) -> None:
        self.unicode = unicode
        self.width = 2 if unicode else 1
        self.encoding, self.errors = ("utf-16-be", "surrogatepass") if unicode else ("cp1251", "surrogateescape")
        unit = "UTF-16 code units" if unicode else "bytes"
        super().__init__(cs.Struct(
            "length" / cs.Int32ub * f"length of the string in {unit}",
            "text" / cs.Bytes(cs.this.length * self.width)
            * ("the characters, UTF-16 big-endian" if unicode else "the characters, one byte each (Windows-1251)"),
        ))
        self.type_label = "Unicode string" if unicode else "ANSI string"

    def _decode(self, obj: Any, context: Any, path: str) -> str:
        try:
            return bytes(obj.text).decode(self.encoding, self.errors)
        except UnicodeDecodeError as exc:  # an odd byte count cannot happen (2 * length); kept for safety
            raise cs.ExplicitError(f"undecodable string: {exc}", path=path) from exc

    def _encode(self, obj: Any, context: Any, path: str) -> dict[str, Any]:
        data = self.encode_text(obj)
        return {"length": len(data) // self.width, "text": data}

    def codec_read(self, data: Any, offset: int, end: int | None = None) -> tuple[str, int]:
        """For the engine's generated codecs: (text, end); IndexError when the bytes (up to ``end``) end first."""
        stop = len(data) if end is None else end
        if offset + _LENGTH_SIZE > stop:
            raise IndexError("the bytes end inside the length of a string")
        after = offset + _LENGTH_SIZE + self.width * int.from_bytes(data[offset:offset + _LENGTH_SIZE], "big")
        if after > stop:
            raise IndexError("the bytes end inside a string")
        return bytes(data[offset + _LENGTH_SIZE:after]).decode(self.encoding, self.errors), after

    def codec_write(self, value: Any) -> bytes:
        """For the engine's generated codecs: the length and the characters (TypeError: not a string)."""
        if not isinstance(value, str):
            raise TypeError(f"{value!r} is not a string")
        stored = self.encode_text(value)
        return (len(stored) // self.width).to_bytes(_LENGTH_SIZE, "big") + stored

    def codec_read_lines(self, target: str, slow: str, path: str, bind: Any) -> list[str]:
        """Generated lines (over ``data``, ``pos``, ``end``) reading the string into ``target``; a length that runs
        past ``end`` is an error of the length field (``<path>.length``, at its offset). ``bind(prefix, value)``
        names a constant of the generated module."""
        where, size = repr(f"{path}.length" if path else "length"), f"{target}_n"
        stored = f"data[pos + {_LENGTH_SIZE}:pos + {_LENGTH_SIZE} + {size}]"
        text = f"bytes({stored}).decode({self.encoding!r}, {self.errors!r})"
        if self.encoding == "utf-16-be":  # its C decoder, called directly (no look-up of the codec by name)
            text = f"{bind('u', codecs.utf_16_be_decode)}({stored}, {self.errors!r}, True)[0]"
        return [f"if pos + {_LENGTH_SIZE} > end:", f"    raise _trunc({where}, {_LENGTH_SIZE}, end - pos, pos)",
                f"{size} = _ifb(data[pos:pos + {_LENGTH_SIZE}], 'big') * {self.width}",
                f"if pos + {_LENGTH_SIZE} + {size} > end:",
                f"    raise _trunc({where}, {size}, end - pos - {_LENGTH_SIZE}, pos)",
                f"{target} = {text}", f"pos += {_LENGTH_SIZE} + {size}"]

    def codec_write_lines(self, value: str, out: str, slow: str, bind: Any) -> list[str]:
        """Generated lines appending the bytes of ``value`` to the list ``out``: a string's length and characters,
        anything else through ``slow`` (a call of :meth:`codec_write`, which refuses it)."""
        stored, encode = f"{value}_s", bind("t", self.encode_text)
        length = f"len({stored})" if self.width == 1 else f"len({stored}) // {self.width}"
        return [f"if {value}.__class__ is str:", f"    {stored} = {encode}({value})",
                f"    {out}.append(({length}).to_bytes({_LENGTH_SIZE}, 'big'))", f"    {out}.append({stored})",
                "else:", f"    {out}.append({slow})"]

    def encode_text(self, text: str) -> bytes:
        """The stored characters of ``text`` (ANSI: characters Windows-1251 lacks become ``?``)."""
        try:
            return text.encode(self.encoding, self.errors)
        except UnicodeEncodeError:
            return "".join(c if _encodable(c, self.encoding, self.errors) else "?" for c in text).encode(
                self.encoding, self.errors)


_LENGTH_SIZE = cs.Int32ub.sizeof()


def _encodable(char: str, encoding: str, errors: str) -> bool:
    try:
        char.encode(encoding, errors)
    except UnicodeEncodeError:
        return False
    return True


UNICODE_STRING = Text(unicode=True)
ANSI_STRING = Text(unicode=False)


# --- the position key --------------------------------------------------------------------------------------

KEY_SIZE = 22
"""Bytes of a key."""

EN_PASSANT = MeaningEnum(cs.BitsInteger(4), {
    "none": (0, "no pawn has just advanced two squares beside an enemy pawn"),
    **{f"file_{name}": (number, f"the pawn that just advanced two squares stands on file {name}")
       for number, name in enumerate("abcdefgh", start=1)},
})

_KEY_BITS = 8 * KEY_SIZE
_FLAG_BITS = 4 + 4  # the en-passant file and the castling flags


def _key_padding(ctx: Any) -> int:
    """The bits after the castling flags up to the end of the 22 bytes."""
    return _KEY_BITS - _FLAG_BITS - SQUARE_CODE.bit_length(ctx["squares"])  # the context: construct's Container


KEY_BITS = cs.Struct(
    "squares" / PrefixCoded(SQUARE_CODE, 64, SQUARE_NAMES)
    * "one code word per square, a1, a2, ..., a8, b1, ..., h8, of the normalised board (white to move)",
    "en_passant" / EN_PASSANT
    * "file of the pawn that has just advanced two squares, when an enemy pawn stands beside it (legal or not)",
    "castling" / CASTLING * "castling rights of the normalised board",
    "padding" / BitsUnsigned(BitsLeft(_key_padding)) * "the unused bits up to the 176th: written as zeros",
)

KEY = cs.FixedSized(KEY_SIZE, bitwise_rest(KEY_BITS))
"""The 22-byte key of a position: a bit stream, first bit = most significant bit of the first byte."""


# --- moves ------------------------------------------------------------------------------------------------

def _move_table() -> tuple[MoveCode, ...]:
    """The spec's table (section "Кодирование хода"), built by its regular pattern, in code order.

    Steps are ``(dx, dy)`` modulo 8. Bishops and queens list the diagonal x+k y+k (k = 1..7), then the
    anti-diagonal x+7 y+1, x+6 y+2, x+5 y+3, [x+4 y+4 would repeat the diagonal: its code is unused],
    x+3 y+5, x+2 y+6, x+1 y+7. The tests compare this table with the spec's text line by line.
    """
    Steps = list[tuple[int, int] | None]
    pawn: Steps = [(0, 1), (0, 2), (1, 1), (7, 1)]
    knight: Steps = [(1, 2), (7, 2), (2, 1), (6, 1), (2, 7), (6, 7), (1, 6), (7, 6)]
    diagonal: Steps = [(k, k) for k in range(1, 8)]
    anti: Steps = [(8 - k, k) if k != 4 else None for k in range(1, 8)]
    diagonal = diagonal + anti
    up: Steps = [(0, k) for k in range(1, 8)]
    right: Steps = [(k, 0) for k in range(1, 8)]
    straight = up + right
    king: Steps = [(0, 1), (1, 1), (7, 1), (1, 0), (7, 0), (0, 7), (1, 7), (7, 7), (2, 0), (6, 0)]
    layout: list[tuple[str, int, Steps]] = [
        *[("pawn", n, list(pawn)) for n in range(1, 9)],
        *[("knight", n, list(knight)) for n in (1, 2)],
        *[("bishop", n, diagonal) for n in (1, 2)],
        *[("rook", n, straight) for n in (1, 2)],
        *[("queen", n, straight + diagonal) for n in (1, 2, 3)],
        ("king", 1, list(king)),
    ]
    table = []
    code = 0
    for piece, number, steps in layout:
        for step in steps:
            if step is not None:
                table.append(MoveCode(code, piece, number, step[0], step[1]))
            code += 1
    return tuple(table)


MOVE_CODES: tuple[MoveCode, ...] = _move_table()
"""Every move code of the format: 0x00-0xc5 without 0x3a, 0x48, 0x80, 0x9c and 0xb8 (193 codes).

Castling is the king's two-file step: 0xc4 O-O (x+2), 0xc5 O-O-O (x+6)."""

MOVE_CODE = move_code_field(MOVE_CODES)


# --- elements and blocks ---------------------------------------------------------------------------------

ELEMENT_TYPE = cs.BitStruct(
    "unused" / cs.BitsInteger(7) * "bits 1-7: not used, 0",
    "game_links" / cs.Flag * "bit 0: elements may hold references to games (flags bits 1 and 2 count)",
)

ELEMENT_FLAGS = cs.BitStruct(
    "unused" / cs.BitsInteger(5)
    * "bits 3-7: not used yet, 0; a future bit would add data at the end of the element (skipped by length)",
    "game_reference" / cs.Flag * "bit 2: a reference to one game with this position follows (some_source)",
    "game_links" / cs.Flag
    * "bit 1: the games for which this is the last position stored in the book follow (format not given)",
    "comment" / cs.Flag * "bit 0: a comment follows",
)

SOURCE_REF = cs.Struct(
    "source_number" / cs.Int16ub * "the source in the .ksf file, from 0",
    "game_in_source" / cs.Int32ub * "the game in that source, from 0",
)
"""The spec's SourceType: where a game is (6 bytes)."""


KEEPS_GAMES = Parameter("keeps_games", True, source=("header", "element_type", "game_links"))
"""Bit 0 of the header's element_type: from the enclosing file's header, else the parse keyword (parse an
element on its own with ``ELEMENT.parse(data, keeps_games=True/False)``, default True; a codec's
``params={"keeps_games": ...}``)."""


class PartPresent(FlagSet):
    """The condition of an optional part of an element: its bit ``flag`` of the field ``field`` is set (and,
    for a part about games, bit 0 of the header's ``element_type`` too: :data:`KEEPS_GAMES`). Readers and
    writers take the bit from here; construct calls it with the parse context, the generated codecs test the
    bit directly (:mod:`chessformats.engine.conditions`)."""

    def __init__(self, flag: str, *, needs_game_links: bool, field: str = "flags") -> None:
        super().__init__(flag, field=field, parameter=KEEPS_GAMES if needs_game_links else None)
        self.needs_game_links = needs_game_links


ELEMENT_BODY = cs.Struct(
    "key" / KEY * "the position (22 bytes, see Key)",
    "wins" / CompactInt() * "games with this position won by the side to move",
    "draws" / CompactInt() * "games with this position drawn",
    "losses" / CompactInt() * "games with this position lost by the side to move (the spec's 'loses')",
    "move_number" / cs.Int8ub * "number of book moves from this position",
    "moves" / cs.Array(cs.this.move_number, MOVE_CODE) * "the book moves, one move code each",
    "flags" / ELEMENT_FLAGS * "what follows the moves",
    "some_source" / cs.If(PartPresent("game_reference", needs_game_links=True), SOURCE_REF)
    * "a game with this position (when flags bit 2 and element_type bit 0 are set)",
    "comment" / cs.If(PartPresent("comment", needs_game_links=False), UNICODE_STRING)
    * "short description, at most 300 characters; 'E98|name|variation' for an ECO opening (flags bit 0)",
    "game_links" / cs.If(PartPresent("game_links", needs_game_links=True), cs.GreedyBytes)
    * "games for which this is the last stored position (flags bit 1 and element_type bit 0): the spec "
      "gives no format, kept as bytes",
    "extra" / cs.GreedyBytes * "data of flag bits not defined yet: skipped, kept as bytes (none when written)",
)

ELEMENT = cs.Struct(
    "length" / CompactInt() * "length of the element in bytes, this field not included",
    "body" / cs.FixedSized(cs.this.length, ELEMENT_BODY) * "the element's data",
)

BLOCK = cs.Struct(
    "used" / cs.Int16ub * "n: bytes of the block in use, this field included (2048 minus the junk)",
    "elements" / cs.FixedSized(cs.this.used - 2, cs.GreedyRange(ELEMENT)) * "the elements, sorted by key",
    "junk" / cs.Bytes(BLOCK_SIZE - cs.this.used) * "the rest of the block: ignored (kept as it is)",
)

BOOK_TYPE = MeaningEnum(cs.Int8ub, {
    "reserved_0": (0, "reserved"),
    "book": (1, "the only book type in use: the format described here"),
    "reserved_2": (2, "reserved"),
    "reserved_3": (3, "reserved"),
})

HEADER_START = cs.Struct(
    "type" / BOOK_TYPE * "the book type; any other value than 1 is not supported",
)
"""The header's fields before the caption (a reader checks them before it reads the caption's length)."""

HEADER_END = cs.Struct(
    "least_white_elo" / cs.Int16ub * "least ELO of white for a game to be added (0 = no filter)",
    "least_black_elo" / cs.Int16ub * "least ELO of black (0 = no filter)",
    "least_strong_elo" / cs.Int16ub * "least ELO of the stronger player (0 = no filter)",
    "least_weak_elo" / cs.Int16ub * "least ELO of the weaker player (0 = no filter)",
    "max_move" / cs.Int8ub * "plies of each game added to the book; 255 = all of them",
    "element_type" / ELEMENT_TYPE * "the format of the elements",
    "links" / cs.Int8ub * "non-zero: adding a position also adds the moves between it and the stored positions",
    "block_number" / cs.Int32ub * "number of blocks in the book (all .kob files)",
)
"""The header's fixed fields after the caption."""

HEADER = cs.Struct(
    *HEADER_START.subcons,
    "caption" / UNICODE_STRING * "short description of the book (Kvetka's book list shows it)",
    *HEADER_END.subcons,
)
"""The header: at the start of ``NAME_0.kob`` only (see the notes)."""

KOB = cs.Struct(
    "header" / HEADER * "the book header",
    "blocks" / cs.GreedyRange(BLOCK) * "the blocks, 2048 bytes each, up to the end of the file",
)
"""``NAME_0.kob`` (later files are blocks only)."""

KIN = cs.GreedyRange(KEY) * "the key of the first element of each block, in block order"


# --- the .ksf sources file ---------------------------------------------------------------------------------

SOURCE_TYPE = MeaningEnum(cs.Int8ub, {
    "empty": (0, "an empty source (ignored)"),
    "pgn": (1, "a PGN file"),
    "internet": (2, "a web page"),
    "cbh": (3, "a ChessBase database (.cbh)"),
})

INTERNET_KIND = MeaningEnum(cs.BitsInteger(6), {
    "reserved_0": (0, "reserved"),
    "chesspro": (1, "online: chesspro.ru (game number)"),
    "crestbook": (2, "online: crestbook.com (game number)"),
    "pgn_archive": (3, "a PGN archive downloaded from the internet"),
    "reserved_4": (4, "reserved"),
    "reserved_5": (5, "reserved"),
    "pgntojs": (6, "online, made with the PGNtoJS utility (game number)"),
    "chessbase_com": (7, "online: chessbase.com"),
    "chessbase": (8, "online, made with ChessBase"),
    "chessok": (9, "online: chessok.com"),
    "chessgames": (10, "online: chessgames.com"),
    "chesstempo_made": (11, "online, made with ChessTempo"),
    "chesstempo": (12, "online: chesstempo.com"),
    "ugra_chess": (13, "online: games.ugra-chess.com"),
})

GAME_RESULT = MeaningEnum(cs.Int8ub, {
    "black_won": (0, "0-1"),
    "white_won": (1, "1-0"),
    "draw": (2, "1/2-1/2"),
    "unknown": (3, "result unknown or undecided"),
})

INTERNET_ADDRESS = cs.BitStruct(
    "kind" / INTERNET_KIND * "bits 26-31: the kind of web source",
    "position" / cs.BitsInteger(26)
    * "bits 0-25: the game's number in the page (kinds 1, 2, 6), else the offset in the page's source text",
)

def _internet(ctx: Any) -> bool:
    """The enclosing source is a web page (parsed: the enum's name; built: the name or the number)."""
    value = ctx._.source_type
    return bool(value == "internet" or (isinstance(value, int) and SOURCE_TYPE.meanings.get(value, ("",))[0]
                                        == "internet"))


GAME = cs.Struct(
    "game_address" / cs.IfThenElse(_internet, INTERNET_ADDRESS, cs.Int32ub)
    * "where the game is: PGN and CBH: its offset in the file; web page: kind and number/offset",
    "game_length" / cs.Int32ub
    * "length of the game's data in the source (ignored for web kinds 1, 2, 6; 46, the .cbh record, for CBH)",
    "white" / ANSI_STRING * "white's name",
    "black" / ANSI_STRING * "black's name",
    "white_elo" / cs.Int16ub * "white's ELO, 0 = unknown",
    "black_elo" / cs.Int16ub * "black's ELO, 0 = unknown",
    "game_result" / GAME_RESULT * "the result",
)

SOURCE_HEAD = cs.Struct(
    "source_type" / SOURCE_TYPE * "what the source is",
    "is_bad" / cs.Int8ub * "non-zero: the source is known to be unavailable (broken link, deleted file)",
    "address" / UNICODE_STRING
    * "URL or full path; '%currentdir' stands for Kvetka's folder (with its trailing separator)",
    "games_number" / cs.Int32ub * "number of games described",
)
"""A source's fields before its games (a reader checks the count against the bytes left before it reads them)."""

SOURCE = cs.Struct(
    *SOURCE_HEAD.subcons,
    "games" / cs.Array(cs.this.games_number, GAME) * "the games",
)


TOC_COUNT = cs.Int32ub
"""The table of contents' count of sources."""
TOC_ADDRESS = cs.Int32ub
"""One source's offset from the start of the ``.ksf`` file."""


def _toc_padding(ctx: Any) -> int:
    return int(-(TOC_COUNT.sizeof() + TOC_ADDRESS.sizeof() * ctx.source_number) % KSF_TOC_UNIT)


TOC = cs.Struct(
    "source_number" / TOC_COUNT * "number of sources",
    "addresses" / cs.Array(cs.this.source_number, TOC_ADDRESS) * "offset of each source from the start of the file",
    "unused" / cs.Bytes(_toc_padding) * "up to the next multiple of 512 bytes (fewer than 512): zeros when written",
)

KSF = cs.Struct(
    "toc" / TOC * "the table of contents",
    "sources" / cs.Array(cs.this.toc.source_number, SOURCE)
    * "the sources, in order (a reader follows the addresses; this library writes them back to back)",
)


# --- documentation -----------------------------------------------------------------------------------------

FORMAT = FormatDoc(
    key="kvetka",
    title="Kvetka opening book",
    extensions=(".kob", ".kin", ".ksf"),
    summary=(
        "A Kvetka book NAME is `NAME_0.kob`, `NAME_1.kob`, ... (numbered from 0 without gaps), `NAME.kin` "
        "(optional) and `NAME.ksf` (optional). The `.kob` files, read one after the other, are one stream: "
        "a header, then blocks of 2048 bytes, each holding elements sorted by key; an element is one position "
        "(seen from the side to move), its wins, draws and losses and its book moves. The `.kin` file holds "
        "the first key of every block, the `.ksf` file the sources the games came from. All integers are "
        "big-endian."
    ),
    structures=(
        Structure("Header", HEADER, "The start of `NAME_0.kob`."),
        Structure("Block", BLOCK, "2048 bytes: the bytes in use, elements, junk."),
        Structure("Element", ELEMENT, "One position: at most 682 bytes, its length field included."),
        Structure("Key", KEY, "The position as a bit stream of 176 bits: square codes, en passant, castling, "
                  "zero bits."),
        Structure("SourceType", SOURCE_REF, "A reference to a game of the `.ksf` file (6 bytes)."),
        Structure(".kin file", KIN, "22-byte keys, one per block."),
        Structure(".ksf table of contents", TOC, "The start of the `.ksf` file."),
        Structure(".ksf source", SOURCE, "A source and its games; it starts at its address in the table."),
        Structure(".ksf game", GAME, "One game of a source."),
    ),
    notes=(
        "**Files.** The header is at the start of `NAME_0.kob` only; `NAME_1.kob`, ... are bare blocks. Only "
        "then do both promises of the spec hold: all `.kob` data is 'one big file', and concatenating any "
        "consecutive `.kob` files (renumbering the rest) keeps the book valid. A writer adds blocks to the last "
        "file and, once a file passes the limit ('20 Мб', read as 20 MiB; configurable), splits it at a block "
        "boundary into two files of about equal size, as the spec says Kvetka does.",
        "**Blocks.** `n` counts its own two bytes ('the block size minus the junk'), so elements lie in bytes "
        "2..n-1 of the block. A book written from scratch fills each block in key order until the next element "
        "does not fit (the spec's halving split is for inserting into an existing book); no empty block is "
        "written. An element is at most 682 bytes, length field included (3 * 682 = 2046 = a block's room), and "
        "its `length` leaves out the length field itself.",
        "**Truncation.** A comment is cut to 300 characters; if the element still passes 682 bytes, the "
        "game-links part is dropped (the spec: 'reduce the number of games until the element fits'), then the "
        "comment is shortened further.",
        "**Key.** Black to move: colours swapped and ranks mirrored (a1 <-> a8), castling rights with them. Then, "
        "if nobody can castle and the white king is on files a-d, files are mirrored (a1 <-> h1; the spec's "
        "'по вертикали' there means this left-right mirror) with the en-passant file. En passant is written "
        "when the pawn that has just advanced two squares has an enemy pawn beside it, legal capture or not "
        "(python-chess `has_pseudo_legal_en_passant`); the format-neutral model's FENs carry en passant only "
        "when the capture is legal, so books built from it miss the rare pinned case. Castling flags are "
        "python-chess's rights (a captured rook also ends the right, where the spec only names king and rook "
        "moves). Padding bits are written as zeros; a reader accepts any padding and compares only the bits "
        "before it. A position whose squares need more than 168 bits (many promoted pieces) has no key: the "
        "writer leaves it out and counts it.",
        "**Moves.** One byte per move: the n-th white piece of a kind of the normalised board, counted a1, "
        "a2, ..., a8, b1, ..., and its step (x right, y up, modulo 8). Pawns reaching the last rank promote to a "
        "queen; underpromotions and moves of a 9th pawn, 3rd knight, bishop or rook or 4th queen have no code "
        "and are left out. Castling is 0xc4 (O-O) and 0xc5 (O-O-O). A writer stores the most played moves first.",
        "**Strings.** Unicode strings are UTF-16 big-endian (the spec does not say; the file is big-endian "
        "everywhere else), `length` counting 16-bit units. ANSI strings are Windows-1251 (Kvetka is a Russian "
        "program); undefined bytes and lone surrogates are kept, so any stored string writes back to the same "
        "bytes. **CompactInt** is written in the shortest form; a reader also accepts leading zero digits (the "
        "spec's loop does) and refuses more than 10 bytes.",
        "**Results.** `wins`/`draws`/`losses` are those of the side to move. From the format-neutral model "
        "(moves with results of the side that played them), a position's results are the sums over the moves "
        "that lead to it (the start position: its own moves); games without a result are not counted (the "
        "element has no field for them). A position and its colour-swapped or mirrored twin share one element: "
        "their moves and results are merged.",
        "**Game references.** Flags bits 1 and 2 count only when bit 0 of the header's `element_type` is set "
        "(the writer sets it when sources are given); otherwise what follows is read as `extra`. The format of "
        "the game-links list is not in the spec (it stops at 'Формат параметра:'): it is kept as bytes and "
        "never invented by the writer. A `some_source` reference is resolved through the `.ksf`; addresses are "
        "reported, never opened; `%currentdir` is expanded only on request and must stay inside the folder given.",
        "**.ksf.** The table of contents is padded with zeros to the next multiple of 512 (no padding when "
        "`4 + 4 * source_number` already is one); the writer puts the sources back to back after it. Web-page "
        "games keep their kind in bits 26-31 of `game_address`.",
        "**Lookup.** The last `.kin` key not above the position's key names the block. Without a `.kin`, or "
        "with one whose key count is not the block count or whose keys are not in ascending order, the index "
        "is built from the first key of every block (a finding says so). A block read through the `.kin` must "
        "start with the `.kin`'s key for it: otherwise the index is not this book's (an error naming the key). "
        "A header `type` other than 1 is an unsupported book; a `block_number` that disagrees with the files is "
        "a finding.",
        "**Building** (`chessformats build GAMES.pgn -o NAME.kob`) writes `NAME_0.kob` (`_1`, ... past 20 MiB) "
        "and `NAME.kin`; `max_move` is `--max-ply` (255 when larger); `--min-games`, `--min-score` and "
        "`--only-white/--only-black` filter the moves; `--uniform` changes nothing (Kvetka stores results, not "
        "weights). The command line writes no `.ksf`; the library's `pgn_sources` (a game's address is the "
        "byte offset of its `[Event` tag) and `write_book(..., sources=, references=)` do.",
        "**Conversions** (`chessformats convert`). Kvetka -> Polyglot/CTG: the positions reached from the start "
        "along book moves, a move's results being those of the position it leads to (Polyglot weight "
        "2 * wins + draws). Polyglot -> Kvetka: a move's weight becomes the draws of the position it leads to, "
        "so the weights come back when no position is reached twice. CTG -> Kvetka through the same model.",
    ),
    examples=(
        Example(HEADER, bytes.fromhex("010000000a0066006f00750072002000670061006d006500730000000000000000ff010000"
                                      "000001"),
                "The header of a book chessformats wrote from four games (tests/formats/test_kvetka.py): caption "
                "'four games', no ELO filters, all plies, game references kept, one block"),
        Example(ELEMENT, bytes.fromhex(
            "62b60f7960f3a63958b078e031e1a60f5960f3b60f70f00100000129050000000000000000001e004200350030007c00530069"
            "00630069006c00690061006e00200044006500660065006e00630065007c004d00610069006e0020004c0069006e0065"),
                "The same book: 1. e4 c5, white to move, stored as is: white won the one game (wins 1); one "
                "move, 0x29 = 2nd knight x+7 y+2 = Nf3; flags 0x05: a source reference (source 0, game 0) and "
                "the ECO comment 'B50|Sicilian Defence|Main Line'"),
        Example(SOURCE, bytes.fromhex(
            "010000000017002500630075007200720065006e007400640069007200700067006e005c0066006f00750072002e00700067"
            "006e00000001000000000000005000000005576869746500000005426c61636b0960000001"),
                "The same book's .ksf, its one source at offset 512: a PGN file '%currentdirpgn\\four.pgn' with "
                "one game (offset 0, 80 bytes, White 2400 - Black, 1-0)"),
    ),
    references=(
        "Dmitry Bodyagin, *Описание формата дебютных книг Кветки* (kvetka.org, 2011): `specs/kvetka.ru.txt`.",
        "`notes/kvetka.md` for the points the spec leaves open.",
    ),
)
