"""A ChessBase base as a table: one row per game, in Arrow record batches (``chessformats[arrow]``).

:func:`game_batches` reads the base a batch of games at a time -- the header fields from the record array
(:meth:`.Database.header_arrays`), the move streams through the batch decoder (:mod:`.batch`) -- and builds each
column with numpy: the names of players, events, sites, annotators and sources are looked up once per distinct
record number, the UCI text of every main line is written byte by byte into one buffer (no Python string per
move). Memory is that of one batch, whatever the size of the base (``engine.tables.write_parquet`` writes the
batches to Parquet as they come).

Guiding texts are not games: they are left out, as are games marked deleted (as iterating the base does). A game
the batch decoder leaves to the scalar decoder (Chess960, unusual streams) is read the game-by-game way; a game
that cannot be read at all keeps its row, with its header, no moves and the reason in ``error``.

Columns (:func:`game_schema`):

- ``number``: the game's number in the base (ChessBase's, from 1);
- ``event``, ``site``, ``date`` (PGN's ``YYYY.MM.DD`` with ``??`` for an unknown part), ``year``, ``month``,
  ``day`` (null when unknown), ``round``, ``subround`` (null: none), ``white``, ``black``, ``result`` (``1-0``,
  ``0-1``, ``1/2-1/2``, ``*``), ``white_elo``, ``black_elo`` (null: none), ``eco`` (as the PGN export writes it:
  ``B90``, ``B90/05`` with ChessBase's subcode), ``annotator``, ``source``; a name the base does not give is null;
- ``plies``: the main line's length; ``variations``: how many variations the game's tree has; ``annotations``:
  how many annotation items (comments, symbols, arrows, ...) its ``.cba`` record holds;
- ``fen``: the start position when it is not the standard one (null otherwise);
- ``uci``: the main line as UCI moves separated by single spaces (``"e2e4 e7e5 g1f3"``; castling as the king's
  move, ``e1g1``, except in Chess960 games: king takes rook, as python-chess writes them; a null move ``0000``).
  One string per game rather than a list: it is what UCI engines, the lichess puzzle files and most datasets use,
  a prefix test (``uci.str.startswith("e2e4 c7c5")``) finds an opening without unpacking anything, and it is
  5-6 bytes a move in memory and compresses well in Parquet; ``pyarrow.compute.split_pattern(column, " ")`` or
  pandas' ``str.split()`` gives the list when wanted;
- ``san`` (``san=True``): the main line in SAN, separated by spaces, without move numbers;
- ``movetext`` (``movetext=True``): the game's PGN movetext as the PGN export writes it (move numbers, variations,
  the annotations as comments, NAGs and ``[%...]`` commands, the result; lines wrapped at 80 columns), without
  the tags;
- ``error``: why the game's moves could not be read (null for every game that could).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ...engine.errors import FormatError
from ...engine.layout import bit_fields
from ...engine.tables import arrow, string_column
from ...schemas import chessbase as schema
from .batch import MoveBatch, main_lines
from .entities import EntityFile, decode_name
from .games import RESULT_TAGS, _eco, _pgn_date
from .moves import PUSH
from .pgn import main_line, mainline_sans

Database = Any
"""A :class:`.database.Database` (not imported here: the database imports this module)."""

__all__ = ["BATCH_SIZE", "game_batches", "game_schema"]

BATCH_SIZE = 8192
"""Games per record batch by default: the batch decoder's arrays for 8,192 games take about 100 MB; larger
batches are no faster (``benchmarks/bench_tables.py``)."""

_ECO_BITS = bit_fields(schema.ECO)


def _uci_table() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The UCI text of every move the batch decoder can give, by ``source | target << 6 | promotion << 12 |
    castling << 15 | null << 16``: 8 bytes (the text, a space, zero bytes after) as one ``uint64``, and the text's
    length. Castling (king takes own rook in the stream) is the king's move: the batch decodes no Chess960."""
    code = np.arange(1 << 17)
    source, target, promotion = code & 63, code >> 6 & 63, code >> 12 & 7
    castling, null = code >> 15 & 1, code >> 16 & 1
    target = np.where(castling == 1, (source & 56) | np.where((target & 7) > (source & 7), 6, 2), target)
    files, ranks = np.frombuffer(b"abcdefgh", np.uint8), np.frombuffer(b"12345678", np.uint8)
    text = np.zeros((len(code), 8), np.uint8)
    text[:, 0], text[:, 1] = files[source & 7], ranks[source >> 3]
    text[:, 2], text[:, 3] = files[target & 7], ranks[target >> 3]
    promoted = (promotion > 0) & (promotion < 7)
    text[promoted, 4] = np.frombuffer(b"\0pnbrqk", np.uint8)[promotion[promoted]]  # by python-chess piece type
    text[null == 1, :4] = ord("0")
    length = 4 + promoted
    text[np.arange(len(code)), length] = ord(" ")
    return text.view(np.uint64).reshape(-1), length.astype(np.int64)


_UCI_TEXT, _UCI_LENGTH = _uci_table()


def game_schema(san: bool = False, movetext: bool = False) -> Any:
    """The Arrow schema of a games table (see the module docstring for each column)."""
    pa = arrow()
    text = pa.string()
    fields = [("number", pa.uint32()), ("event", text), ("site", text), ("date", text), ("year", pa.uint16()),
              ("month", pa.uint8()), ("day", pa.uint8()), ("round", pa.uint8()), ("subround", pa.uint8()),
              ("white", text), ("black", text), ("result", text), ("white_elo", pa.uint16()),
              ("black_elo", pa.uint16()), ("eco", text), ("annotator", text), ("source", text),
              ("plies", pa.uint32()), ("variations", pa.uint32()), ("annotations", pa.uint32()), ("fen", text),
              ("uci", text)]
    if san:
        fields.append(("san", text))
    if movetext:
        fields.append(("movetext", text))
    fields.append(("error", text))
    return pa.schema(fields)


class _Lookup:
    """A column of strings made from a column of numbers through a function called once per distinct number (a
    name by record number, a PGN date by packed date ...), remembered across batches (at most one string per
    record of the entity file); ``None``/"" is null."""

    def __init__(self, function: Callable[[int], str | None]) -> None:
        self.function = function
        self.known: dict[int, str | None] = {}

    def __call__(self, values: np.ndarray[Any, Any]) -> Any:
        pa = arrow()
        distinct, where = np.unique(values, return_inverse=True)
        known, function = self.known, self.function
        texts = []
        for value in distinct.tolist():
            if value not in known:
                known[value] = function(value) or None
            texts.append(known[value])
        return pa.array(texts, type=pa.string()).take(pa.array(where.reshape(-1).astype(np.int32)))


def _entity_name(entities: EntityFile) -> Callable[[int], str | None]:
    return entities.name_of


def _site(db: Database) -> Callable[[int], str | None]:
    def site(number: int) -> str | None:
        if not 0 <= number < len(db.tournaments):
            return None
        return decode_name(db.tournaments[number].record.place, db.encoding)
    return site


def _nullable(values: np.ndarray[Any, Any], dtype: Any) -> Any:
    """An Arrow integer column with 0 as null (unknown rating, year, round ...)."""
    pa = arrow()
    return pa.array(values.astype(np.int64), type=dtype, mask=values == 0)


def game_batches(db: Database, *, batch_size: int = BATCH_SIZE, san: bool = False,
                 movetext: bool = False) -> Iterator[Any]:
    """The base's games (guiding texts and deleted games left out) as :class:`pyarrow.RecordBatch` es of
    ``batch_size`` games, in record order, with the columns of :func:`game_schema` (``san``: a SAN column too,
    ``movetext``: the PGN movetext)."""
    schema_ = game_schema(san, movetext)
    lookups = {
        "event": _Lookup(_entity_name(db.tournaments)), "site": _Lookup(_site(db)),
        "player": _Lookup(_entity_name(db.players)), "annotator": _Lookup(_entity_name(db.annotators)),
        "source": _Lookup(_entity_name(db.sources)),
        "result": _Lookup(lambda code: RESULT_TAGS.get(code, "*")),
        "eco": _Lookup(lambda value: _eco(value >> _ECO_BITS["code"].shift & _ECO_BITS["code"].mask,
                                          value >> _ECO_BITS["subcode"].shift & _ECO_BITS["subcode"].mask)[0]),
        "date": _Lookup(lambda packed: _pgn_date(packed >> 9, packed >> 5 & 15, packed & 31)),
    }
    numbers = db.numbers()
    for start in range(0, len(numbers), max(batch_size, 1)):
        yield _batch(db, numbers[start:start + batch_size], (san, movetext), lookups, schema_)


def _batch(db: Database, part: np.ndarray[Any, Any], options: tuple[bool, bool], lookups: dict[str, _Lookup],
           schema_: Any) -> Any:
    pa = arrow()
    san, movetext = options
    arrays = db.header_arrays(part)
    records = db.records[part - 1]
    batch = db.decode_batch(part, san=san or movetext)
    lines = _main_lines(batch)
    extra = {index: _one_game(db, int(part[index]), san) for index in np.flatnonzero(batch.fallback).tolist()}
    lengths = lines.lengths.copy()
    plies, variations = lines.plies.copy(), lines.variations.copy()
    fens: list[str | None] = [None] * len(part)
    for index, start in batch.starts.items():
        if not batch.fallback[index]:
            fens[index] = start.fen()
    errors: list[str | None] = [None] * len(part)
    for index, game in extra.items():
        if isinstance(game, FormatError):
            errors[index] = str(game)
            continue
        lengths[index] = len(game.uci)
        plies[index], variations[index], fens[index] = game.plies, game.variations, game.fen
    uci = _joined(lines, lengths, {index: game.uci for index, game in extra.items()
                                   if not isinstance(game, FormatError)})
    valid = np.array([error is None for error in errors]) if extra else None
    year, month, day = arrays["year"], arrays["month"], arrays["day"]
    columns = [
        pa.array(part.astype(np.uint32)),
        lookups["event"](arrays["tournament"]), lookups["site"](arrays["tournament"]),
        lookups["date"](year << 9 | month << 5 | day),
        _nullable(year, pa.uint16()), _nullable(month, pa.uint8()), _nullable(day, pa.uint8()),
        _nullable(records["round"], pa.uint8()), _nullable(records["subround"], pa.uint8()),
        lookups["player"](arrays["white"]), lookups["player"](arrays["black"]), lookups["result"](arrays["result"]),
        _nullable(arrays["white_elo"], pa.uint16()), _nullable(arrays["black_elo"], pa.uint16()),
        lookups["eco"](arrays["eco"]), lookups["annotator"](arrays["annotator"]),
        lookups["source"](arrays["source"]),
        pa.array(plies.astype(np.uint32)), pa.array(variations.astype(np.uint32)),
        pa.array(db.annotation_counts(part).astype(np.uint32)),
        pa.array(fens, type=pa.string()), string_column(lengths, uci, valid),
    ]
    if san:
        texts = _san_lines(batch, lines)
        for index, game in extra.items():
            texts[index] = None if isinstance(game, FormatError) else game.san
        columns.append(pa.array(texts, type=pa.string()))
    if movetext:
        columns.append(pa.array(_movetexts(db, part, records, arrays, batch), type=pa.string()))
    columns.append(pa.array(errors, type=pa.string()))
    return pa.RecordBatch.from_arrays(columns, schema=schema_)


class _Lines:
    """The main lines of a batch's games: which token slots they are (``slots``, ``game`` of each), and each game's
    plies, variations and UCI text (``data``, ``lengths`` bytes per game)."""

    def __init__(self, slots: np.ndarray[Any, Any], game: np.ndarray[Any, Any], plies: np.ndarray[Any, Any],
                 variations: np.ndarray[Any, Any], data: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any]) -> None:
        self.slots, self.game, self.plies, self.variations = slots, game, plies, variations
        self.data, self.lengths = data, lengths


def _main_lines(batch: MoveBatch) -> _Lines:
    """The main line of every game the batch decoded (:func:`.batch.main_lines`), with its UCI text."""
    games = len(batch.numbers)
    slots, game, variations = main_lines(batch)
    plies = np.bincount(game, minlength=games)
    code = batch.source[slots].astype(np.int32)
    code |= batch.target[slots].astype(np.int32) << 6
    code |= batch.promotion[slots].astype(np.int32) << 12
    code |= batch.castling[slots].astype(np.int32) << 15
    code |= batch.null[slots].astype(np.int32) << 16
    text = _UCI_TEXT[code].view(np.uint8).reshape(-1, 8)  # each move's text and a space, then zero bytes
    last = np.flatnonzero(np.diff(game, append=games)) if len(game) else game  # a game's last move: no space after
    text[last, _UCI_LENGTH[code[last]]] = 0
    data = text.reshape(-1)
    data = data[data != 0]
    promoted = game[(code >> 12 & 7) != 0]
    lengths = 5 * plies - (plies > 0) + np.bincount(promoted, minlength=games)
    return _Lines(slots, game, plies, variations, data, lengths)


def _joined(lines: _Lines, lengths: np.ndarray[Any, Any], extra: dict[int, bytes]) -> np.ndarray[Any, Any]:
    """The UCI bytes of every game one after the other: the batch's text, with the games read one by one
    (``extra``, by index) put in their places (``lengths``: every game's final length)."""
    if not extra:
        return lines.data
    starts = np.zeros(len(lengths), np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    data = np.empty(int(lengths.sum()), np.uint8)
    old = np.zeros(len(lengths), np.int64)
    np.cumsum(lines.lengths[:-1], out=old[1:])
    owner = np.repeat(np.arange(len(lengths)), lines.lengths)
    data[starts[owner] + np.arange(len(lines.data)) - old[owner]] = lines.data
    for index, text in extra.items():
        data[starts[index]:starts[index] + len(text)] = np.frombuffer(text, np.uint8)
    return data


def _san_lines(batch: MoveBatch, lines: _Lines) -> list[str | None]:
    """The SAN main line of each game of a batch decoded with ``san=True`` (space-separated)."""
    from .batch_pgn import san_strings

    sans = san_strings(batch)
    chosen = [sans[slot] for slot in lines.slots.tolist()]
    bounds = np.zeros(len(lines.plies) + 1, np.int64)
    np.cumsum(lines.plies, out=bounds[1:])
    edges = bounds.tolist()
    return [" ".join(chosen[edges[index]:edges[index + 1]]) for index in range(len(lines.plies))]


def _movetexts(db: Database, part: np.ndarray[Any, Any], records: Any, arrays: dict[str, np.ndarray[Any, Any]],
               batch: MoveBatch) -> list[str | None]:
    """Each game's PGN movetext as :func:`.database.export_pgn` writes it, without the tags: from the batch
    (:func:`.batch_pgn.pgn_texts`, :func:`.batch_pgn.annotated_pgn_texts` for the games with annotations), the
    games it leaves through ``chess.pgn``; ``None`` for a game whose moves cannot be read."""
    from .batch_pgn import annotated_pgn_texts, pgn_texts, record_fields, single_pgn_text

    numbers = part.tolist()
    fields = dict(zip((number - 1 for number in numbers), record_fields(records, arrays), strict=True))
    annotated = (records["cba_offset"] != 0).tolist()
    texts = dict(pgn_texts(db, batch, fields, [index for index, rich in enumerate(annotated) if not rich]))
    texts.update(annotated_pgn_texts(db, batch, fields, [index for index, rich in enumerate(annotated) if rich]))
    found: list[str | None] = []
    for index, number in enumerate(numbers):
        text = texts.get(number)
        try:
            if text is None:
                text = single_pgn_text(db[number], annotated[index])
        except FormatError:
            text = None
        found.append(None if text is None or isinstance(text, FormatError) else
                     text.split("\n\n", 1)[1].rstrip("\n"))
    return found


class _Game:
    """A game read the game-by-game way: its main line (UCI bytes, SAN), plies, variations, start FEN."""

    def __init__(self, uci: bytes, san: str | None, plies: int, variations: int, fen: str | None) -> None:
        self.uci, self.san, self.plies, self.variations, self.fen = uci, san, plies, variations, fen


def _one_game(db: Database, number: int, san: bool) -> _Game | FormatError:
    """Game ``number`` through the scalar decoder (or the error that stops it)."""
    try:
        decoded = db.decode(number)
        start = decoded.start
        fen = None if start.standard and not decoded.chess960 else start.fen()
        main = main_line(decoded)
        text = " ".join(mainline_sans(decoded, checks=True, moves=main)[1]) if san else None
        uci = " ".join(move.uci() for move in main).encode("ascii")
        return _Game(uci, text, len(main), sum(token is PUSH for token in decoded.tokens), fen)
    except FormatError as error:
        return error

