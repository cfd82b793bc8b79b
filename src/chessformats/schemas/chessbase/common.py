"""ChessBase databases: value tables and small structures shared by several files (dates, results, medals,
nations), and the header of the ``.cbg`` and ``.cba`` files."""

from __future__ import annotations

import construct as cs

from ...engine.bitruns import BitStructLE
from ...engine.schema import MeaningEnum

I24 = cs.BytesInteger(3, signed=True)
U24 = cs.Int24ub

# --- shared value tables -----------------------------------------------------------------------------

NATIONS: tuple[str, ...] = (
    "AFG", "ALB", "ALG", "AND", "ANG", "ANT", "ARG", "ARM", "AUS", "AZE", "BAH", "BHN", "BAN", "BAR", "BLR", "BEL",
    "BLZ", "BER", "BOL", "BIH", "BOT", "BRA", "IVB", "BRU", "BUL", "BUR", "CAN", "CHI", "CHN", "COL", "CRI", "CRO",
    "CUB", "CYP", "CZE", "DEN", "DJI", "DOM", "ECU", "EGY", "ESP", "EST", "ETH", "FAI", "FIJ", "FIN", "FRM", "GAM",
    "GEO", "GHA", "GRE", "GUA", "GCI", "GUY", "HAI", "HON", "HKG", "HUN", "ISL", "IND", "INA", "IRI", "IRQ", "IRL",
    "ITA", "IVO", "JAM", "JPN", "JCI", "JOR", "KAZ", "KEN", "KOR", "KGZ", "KUW", "LAT", "LBN", "LBY", "LIE", "LTU",
    "LUX", "MAC", "MAD", "MAS", "MLI", "MLT", "MAU", "MRI", "MEX", "MDA", "MNC", "MGL", "MAR", "MOZ", "MYA", "NAM",
    "NEP", "AHO", "NZL", "NCA", "NGR", "NOR", "PAK", "PLE", "PAN", "PNG", "PAR", "PER", "PHI", "POL", "POR", "PUR",
    "QAT", "ROM", "RUS", "ESA", "SMR", "SCO", "SEY", "SIN", "SVK", "SLO", "RSA", "SRI", "SUD", "SUR", "SWE", "SUI",
    "SYR", "TJK", "TAN", "THA", "TRI", "TUN", "TUR", "TKM", "UGA", "UKR", "UAE", "URU", "URS", "UZB", "VEN", "VIE",
    "ISV", "WLS", "YEM", "YUG", "ZAM", "ZIM", "ZRE", "DDR", "CSR", "CHD", "CAM", "KAP", "KBA", "COM", "CON", "NKO",
    "LAO", "LES", "MWI", "MDV", "MSH", "OMN", "NAU", "MIC", "NIG", "SAU", "TOG", "TON", "VAN", "VAT", "TUV", "SWA",
    "SIE", "SLU", "PAP", "SVI", "SKI", "SAL", "GE2", "ZAR", "RWA", "LBR", "NET", "TWN", "ASU", "AGG", "ARN", "BNN",
    "BTN", "BRI", "CMB", "CAY", "CAR", "CIA", "COA", "CIN", "ELG", "ERI", "FGB", "FRG", "FRP", "GAB", "GGB", "GRA",
    "GRL", "FGA", "GMA", "GUI", "GUB", "IOM", "JMY", "MFR", "MYF", "MSG", "NCF", "NNN", "NNA", "NMI", "OTM", "PAL",
    "PIG", "RUF", "SAO", "SOM", "SVN", "HGB", "PGB", "TKI", "TCI", "WFR", "NIR", "ISS", "GBR", "SAA", "MNT", "SER",
    "CAT", "BAS", "KOS", "CRC", "LBA", "LEB", "LIB",
)
"""Nation abbreviations by number (1 = ``AFG``); 0 = not given. From the spec's ``Nation_Abbrev``."""

NATION = MeaningEnum(cs.Int8ub, {"none": (0, "not given"),
                                 **{code.lower(): (number, code) for number, code in enumerate(NATIONS, 1)}})

RESULT = MeaningEnum(cs.Int8ub, {
    "black_wins": (0, "0-1"),
    "draw": (1, "1/2-1/2"),
    "white_wins": (2, "1-0"),
    "line": (3, "no game result: a line (see line_evaluation); also what BielMTO stores for the PGN's 1/2-0"),
    "black_wins_forfeit": (4, "-:+ (black wins by forfeit)"),
    "draw_forfeit": (5, "=:= (draw without play)"),
    "white_wins_forfeit": (6, "+:- (white wins by forfeit)"),
    "both_lose": (7, "0-0 (both lose)"),
})

LINE_EVALUATION = MeaningEnum(cs.Int8ub, {
    "none": (0x00, "no evaluation"),
    "equal": (0x0B, "= equal position"),
    "unclear": (0x0D, "unclear position"),
    "white_slightly_better": (0x0E, "+/= white is slightly better"),
    "black_slightly_better": (0x0F, "=/+ black is slightly better"),
    "white_better": (0x10, "+/- white is better"),
    "black_better": (0x11, "-/+ black is better"),
    "white_winning": (0x12, "+- white is winning"),
    "black_winning": (0x13, "-+ black is winning"),
    "development": (0x20, "development advantage"),
    "initiative": (0x24, "with initiative"),
    "attack": (0x28, "with attack"),
    "compensation": (0x2C, "with compensation for the material"),
    "counterplay": (0x84, "with counterplay"),
    "zeitnot": (0x8A, "time trouble"),
    "novelty": (0x92, "novelty"),
})
"""Position evaluations (the CBH line evaluation and the evaluation byte of a CBA symbol item)."""

def _date_fields(reserved: int) -> list[cs.Construct]:
    return [
        "reserved" / cs.BitsInteger(reserved) * "unused, 0",
        "year" / cs.BitsInteger(12) * "year, 0 = not given",
        "month" / cs.BitsInteger(4) * "month 1-12, 0 = not given",
        "day" / cs.BitsInteger(5) * "day 1-31, 0 = not given",
    ]


DATE = cs.BitStruct(*_date_fields(3))
"""A packed date in 3 bytes (big-endian)."""

DATE_LE = BitStructLE(*_date_fields(11))
"""A packed date in a 4-byte little-endian integer (entity files)."""

QUOTATION_DATE = cs.BitStruct(*_date_fields(11))
"""A packed date in a 4-byte big-endian integer (game quotations in ``.cba`` items)."""

MEDALS = cs.BitStruct(
    "custom" / cs.Flag * "user-defined medal",
    "strategic_blunder" / cs.Flag * "strategic blunder",
    "tactical_blunder" / cs.Flag * "tactical blunder",
    "endgame" / cs.Flag * "endgame",
    "piece_play" / cs.Flag * "piece play",
    "material" / cs.Flag * "material",
    "defence" / cs.Flag * "defence",
    "sacrifice" / cs.Flag * "sacrifice",
    "attack" / cs.Flag * "attack",
    "tactics" / cs.Flag * "tactics",
    "strategy" / cs.Flag * "strategy",
    "pawn_structure" / cs.Flag * "pawn structure",
    "novelty" / cs.Flag * "novelty",
    "model_game" / cs.Flag * "model game (opening plan)",
    "decided_tournament" / cs.Flag * "decided the tournament",
    "best_game" / cs.Flag * "best game",
)


# --- .cbg and .cba: the shared header ------------------------------------------------------------------

def _modern_store(ctx: cs.Container) -> bool:
    return int(ctx.header_size) == 26


STORE_HEADER = cs.Struct(
    "header_size" / MeaningEnum(cs.Int16ub, {
        "modern": (26, "26-byte header: 32- and 64-bit size fields"),
        "old": (10, "10-byte header of old bases"),
    }) * "size of this header; the first record follows it",
    "file_size" / cs.Int32ub * "size of the file",
    "unused_bytes" / cs.Int32ub * "bytes no record uses any more (left by edits)",
    "file_size_64" / cs.If(_modern_store, cs.Int64ub) * "size of the file again (modern header only)",
    "unused_bytes_64" / cs.If(_modern_store, cs.Int64ub) * "unused bytes again (modern header only)",
)
"""The header of ``.cbg`` and ``.cba`` files (26 bytes; 10 in old bases, not 10 as the spec says for all)."""
