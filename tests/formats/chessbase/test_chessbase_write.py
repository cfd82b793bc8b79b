"""The ChessBase writer: ChessBase's own bytes for every corpus move stream; PGN -> base -> games equal; every
corpus base read -> written -> read equal; the written entity trees pass the reader's check; atomic writes."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from chessbase_corpus import copy_base, same_game
from chessformats.engine.codec import codec
from chessformats.engine.errors import FormatError
from chessformats.formats.chessbase import export_pgn, open_database
from chessformats.formats.chessbase.annotation_writer import encode_annotations
from chessformats.formats.chessbase.codepage import base_code_page
from chessformats.formats.chessbase.compact import copy_database
from chessformats.formats.chessbase.encoder import encode_game
from chessformats.formats.chessbase.games import GuidingText
from chessformats.formats.chessbase.moves import SKIP, decode_game
from chessformats.formats.chessbase.pgn import build_game, tree_of
from chessformats.formats.chessbase.write import append_games, write_database
from chessformats.schemas import chessbase as schema
from conftest import SHARED_ROOT, find_corpus

_KINDS_SKIPPED = 0x82  # deleted or guiding text: RECORD_KIND's bits, as the corpus tests read them


def _bases() -> list[Path]:
    root = SHARED_ROOT / "corpus" / "chessbase"
    return sorted(root.glob("*/*.cbh")) if root.is_dir() else []


def _corpus_games(cbh: Path) -> Iterator[tuple[int, Any, Any, bytes]]:
    """(number, decoded stream, python-chess game, ChessBase's data) of every readable game of a base."""
    with open_database(cbh) as db:
        for number in range(1, db.record_count + 1):
            if int(db.records["kind"][number - 1]) & _KINDS_SKIPPED:
                continue
            try:
                header = db.record(number)
                decoded = db.decode(number)
                game = header.to_pgn()  # type: ignore[union-attr]
            except Exception:  # damaged corpus games (Chess960Corrupt) are the reader tests' business
                continue
            yield number, decoded, game, db.game_data(number)[1]


@pytest.fixture(scope="module")
def corpus_games() -> Iterator[Any]:
    """:func:`_corpus_games` of a base as a list, read once for this module's tests (twic1134's 6,117 games take
    8 s to read); dropped when the module's tests are done."""
    cache: dict[Path, list[tuple[int, Any, Any, bytes]]] = {}

    def games(cbh: Path) -> list[tuple[int, Any, Any, bytes]]:
        key = cbh.resolve()
        if key not in cache:
            cache[key] = list(_corpus_games(cbh))
        return cache[key]

    yield games
    cache.clear()


@pytest.fixture(scope="module")
def corpus_written(corpus_games: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A corpus base's readable games written by :func:`write_database` (once for this module's tests)."""
    cache: dict[Path, Path] = {}

    def written(cbh: Path) -> Path:
        key = cbh.resolve()
        if key not in cache:
            folder = tmp_path_factory.mktemp(cbh.parent.name)
            cache[key] = _written(folder, [game for _, _, game, _ in corpus_games(cbh)])
        return cache[key]

    yield written


def _tree(data: bytes) -> list[str]:
    return tree_of(build_game(decode_game(data), {}))


@pytest.mark.parametrize("cbh", _bases(), ids=lambda path: path.parent.name)
def test_move_streams_are_chessbases_bytes(cbh: Path, corpus_games: Any) -> None:
    """Every corpus game in mode 0 or 10 whose stream is canonical (ends with its marker, no skipped byte)
    encodes to ChessBase's exact bytes; the others (other modes, NormalNoPop, a skip byte) to the same moves."""
    equal = other = 0
    for number, decoded, game, theirs in corpus_games(cbh):
        encoded = encode_game(game, number=number)
        ours = encoded.data
        canonical = decoded.mode in (0, 10) and decoded.ended and SKIP not in decoded.tokens
        if canonical and decoded.chess960 and decoded.start.start_position != encoded.start.start_position:
            # ChessBase stores 253 for the start positions of libcbh_Chess960NonStandard (python-chess numbers
            # them 455, 454, ...): the number aside, the bytes are ChessBase's (listed in the format docs)
            at = 4 + schema.SETUP.sizeof() + schema.CHESS960_SETUP.sizeof() - 2
            assert decoded.start.start_position == 253
            ours = ours[:at] + theirs[at:at + 2] + ours[at + 2:]
        if canonical:
            assert ours == theirs, f"game {number}"
            equal += 1
        else:
            assert _tree(ours) == tree_of(game), f"game {number}"
            other += 1
    if cbh.parent.name in ("uncbv_twic1134", "libcbh_NormalGames", "libcbh_WithVariations", "libcbh_Chess960Biel",
                           "libcbh_ManyPromotions"):
        assert equal and not other


def _written(tmp_path: Path, games: list[chess.pgn.Game], **options: Any) -> Path:
    target = tmp_path / "out.cbh"
    report = write_database(target, games, **options)
    assert report.skipped == [] and report.written == len(games) and report.unit == "games"
    with open_database(target) as db:
        for entities in (db.players, db.tournaments, db.annotators, db.sources, db.teams):
            assert entities.check() == []
    return target


@pytest.mark.parametrize("cbh", _bases(), ids=lambda path: path.parent.name)
def test_corpus_base_read_write_read(cbh: Path, corpus_games: Any, corpus_written: Any) -> None:
    games = [game for _, _, game, _ in corpus_games(cbh)]
    target = corpus_written(cbh)
    with open_database(target) as db:
        assert len(db) == len(games)
        for number, game in enumerate(games, 1):
            same_game(game, db.record(number).to_pgn())  # type: ignore[union-attr]


_HAND_MADE = """
[Event "Hand made"]
[Site "Here"]
[Date "2024.??.??"]
[Round "3.2"]
[White "Müller, Jörg"]
[Black "李, 四"]
[Result "1-0"]
[WhiteElo "2400"]
[BlackElo "1234"]
[ECO "C42/07"]
[Annotator "Someone"]
[Source "A book"]
[EventDate "2024.05.??"]
[EventType "swiss"]

1. e4 e5 (1... c5 2. Nf3 (2. c3 d5 (2... Nf6) 3. exd5) 2... d6) (1... e6) 2. -- Nf6 3. Nf3 -- 4. Bc4 Bc5 5. O-O O-O 1-0

[Event "Setup"]
[Site "?"]
[Date "1999.12.31"]
[Round "?"]
[White "?"]
[Black "Solo"]
[Result "*"]
[FEN "r3k2r/6P1/8/3pP3/8/8/8/R3K2R w KQkq d6 0 30"]
[SetUp "1"]

30. exd6 O-O-O (30... Kd7 31. gxh8=N (31. g8=R) 31... Rxh8) 31. gxh8=B Rxh8 32. O-O-O *

[Event "Black starts"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "A"]
[Black "B"]
[Result "0-1"]
[FEN "4k3/8/8/8/8/8/4p3/4K3 b - - 0 60"]
[SetUp "1"]

60... Kd7 61. Kxe2 Kc6 62. -- Kb5 0-1

[Event "Annotated"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "A"]
[Black "B"]
[Result "*"]
[TimeControl "40/5400+30:1800+30"]

{ A game comment. } 1. e4 $1 $14 { After e4 [%csl Ga1,Rb2,Yc3] [%cal Ge2e4,Rd2d4] [%clk 1:30:00] }
1... e5 $140 { [%emt 0:00:15] [%eval 0.35,18] Ünïcödé ž and 漢字 } ( { before c5 } 1... c5 $2 $18 $142
{ [%eval #-3] } 2. Nf3 { [%clk 1:29:59] } ) 2. Nf3 $6 { [%eval -1.50] } *
"""


def _chess960_game() -> chess.pgn.Game:
    """A Chess960 game in which both sides castle (moves chosen by a fixed seed, castling first)."""
    rng = random.Random(960)
    board = chess.Board.from_chess960_pos(123)
    game = chess.pgn.Game.from_board(board)
    node: chess.pgn.GameNode = game
    while board.ply() < 60 and not board.is_game_over():
        moves = list(board.legal_moves)
        castling = [move for move in moves if board.is_castling(move)]
        move = castling[0] if castling else rng.choice(moves)
        node = node.add_variation(move)
        board.push(move)
    assert sum(board.is_castling(m) for m in board.move_stack) >= 1
    game.headers["Result"] = "*"
    return game


def _hand_made() -> list[chess.pgn.Game]:
    handle = io.StringIO(_HAND_MADE)
    games = list(iter(lambda: chess.pgn.read_game(handle), None))
    assert len(games) == 4 and not any(game.errors for game in games)
    return [*games, _chess960_game()]


def test_hand_made_games(tmp_path: Path) -> None:
    games = _hand_made()
    target = _written(tmp_path, games)
    with open_database(target) as db:
        for number, game in enumerate(games, 1):
            same_game(game, db.record(number).to_pgn())  # type: ignore[union-attr]
        first = db[1]
        assert first.fields.round == 3 and first.fields.subround == 2
        assert first.flags == ["variations"]  # type: ignore[union-attr]
        assert db[2].flags == ["variations", "setup"]  # type: ignore[union-attr]
        assert set(db[4].flags) == {"arrows", "squares", "symbols", "comments", "variations"}  # type: ignore[union-attr]
        assert db[5].chess960_position is not None and "chess960" in db[5].flags  # type: ignore[union-attr]
        assert db.players.find("Müller, Jörg") is not None
        assert db.tournaments.find("Hand made", year=2024) is not None


def test_unreadable_games_and_long_names_are_reported(tmp_path: Path) -> None:
    good, bad = _hand_made()[0], chess.pgn.read_game(io.StringIO("1. e4 e5 2. Ke3 *"))
    assert bad is not None and bad.errors
    good.headers["White"] = "A" * 40 + ", " + "é" * 30
    good.variations[0].nags = {16, 18}  # two evaluations: the symbols item holds one
    target = tmp_path / "out.cbh"
    report = write_database(target, [bad, good])
    assert report.written == 1 and [left.item for left in report.skipped] == [1]
    assert len(report.warnings) == 3  # last name and first name cut, a NAG left out
    assert sum("$18" in warning.message for warning in report.warnings) == 1
    assert all(warning.item == 2 for warning in report.warnings)
    with open_database(target) as db:
        assert db[1].headers["White"] == "A" * 30 + ", " + "é" * 20  # a full field has no terminator


def test_twic1134_records_are_chessbases(corpus_games: Any, corpus_written: Any) -> None:
    """ChessBase's own twic1134 base, read and written again: every .cbh and .cbj record is ChessBase's but
    for two fields (ChessBase keeps a deleted empty source as record 0, so its games name source 1; the .cbj
    creation time), and every player, tournament and team has ChessBase's record number and game counts."""
    cbh = find_corpus("chessbase", "uncbv_twic1134", "twic1134.cbh")
    with open_database(cbh) as theirs:
        # every record of the base is a readable game, so the written base holds them all, in order
        assert [number for number, _, _, _ in corpus_games(cbh)] == list(range(1, theirs.record_count + 1))
        target = corpus_written(cbh)
        record, extended = codec(schema.GAME_RECORD), codec(schema.CBJ_RECORD)
        with open_database(target) as ours:
            for number in range(1, theirs.record_count + 1):
                at = schema.CBH_HEADER_SIZE + (number - 1) * schema.CBH_RECORD_SIZE
                mine, chessbase = (record.decode(bytes(db._cbh[at:at + schema.CBH_RECORD_SIZE]))._asdict()
                                   for db in (ours, theirs))
                assert chessbase.pop("source") == 1 and mine.pop("source") == 0
                assert mine == chessbase, f"game {number}"
                mine, chessbase = (extended.decode(db.extended.raw(number)[1])._asdict() for db in (ours, theirs))
                del mine["created"], chessbase["created"]
                assert mine == chessbase, f"game {number}"
            for kind in ("players", "tournaments", "teams"):
                mine_file, their_file = getattr(ours, kind), getattr(theirs, kind)
                assert len(mine_file) == len(their_file)
                for entity in mine_file:
                    other = their_file[entity.number]
                    assert (entity.name, entity.record.games, entity.record.first_game) == (
                        other.name, other.record.games, other.record.first_game)


_ANNOTATION_BYTES_BASES = ("libcbh_WithVariations", "libcbh_NormalGames", "libcbh_Chess960Biel", "uncbv_twic1134",
                           "libcbh_ManyPromotions", "libcbh_UnusualStart", "libcbh_Chess960NonStandard")


@pytest.mark.parametrize("name", _ANNOTATION_BYTES_BASES)
def test_annotation_records_are_chessbases_bytes(name: str) -> None:
    """In the bases ChessBase wrote whose annotations PGN holds (comments, NAGs, clocks), every game's .cba
    record is ChessBase's, but for games whose annotations the reader could not attach (``chessbase_extras``:
    final clocks of a game without moves)."""
    equal = 0
    with open_database(find_corpus("chessbase", name, next(
            p.name for p in find_corpus("chessbase", name).glob("*.cbh")))) as db:
        for number in range(1, db.record_count + 1):
            game = db.record(number).to_pgn()  # type: ignore[union-attr]
            if any(game.chessbase_extras.items.values()):  # type: ignore[attr-defined]
                continue
            ours = encode_annotations(game, encode_game(game, number=number), number=number)
            theirs = db.annotation_data(number)
            assert ours.data == (theirs[1] if theirs else None), f"game {number}"
            equal += 1
        assert equal >= len(db) - 13  # NormalGames: 13 games without moves keep their clocks as extras


def test_time_control_item() -> None:
    """The TimeControl tag as the item the reader's test decodes (three 11-byte periods, big-endian)."""
    game = chess.pgn.read_game(io.StringIO('[TimeControl "40/5400+30:1800+30"]\n\n1. e4 *'))
    assert game is not None
    record = encode_annotations(game, encode_game(game), number=1).data
    body = bytes.fromhex("00083d60" "00000bb8" "0028" "01" "0002bf20" "00000bb8" "03e8" "03") + bytes(11)
    assert record is not None and record.endswith(bytes.fromhex("ffffff" "24" "0027") + body)
    for tag in ("?", "-", "*60", "0+1", "1/2/3", "1:2:3:4"):
        game.headers["TimeControl"] = tag
        annotations = encode_annotations(game, encode_game(game), number=1)
        assert annotations.data is None and len(annotations.problems) == (tag not in ("?", "-"))


@pytest.mark.parametrize("tag", ["180+0", "180+2", "180", "40/5400+30:1800+30", "40/7200:3600", "600+0"])
def test_time_control_tag_round_trips(tmp_path: Path, tag: str) -> None:
    """A TimeControl tag written to a base reads back as the same text (``180+0`` is not shortened to ``180``)."""
    game = chess.pgn.read_game(io.StringIO(f'[TimeControl "{tag}"]\n\n1. e4 e5 *'))
    assert game is not None
    base = _written(tmp_path, [game])
    with open_database(base) as db:
        assert db[1].to_pgn().headers["TimeControl"] == tag
    export_pgn(base, tmp_path / "out.pgn")
    assert f'[TimeControl "{tag}"]' in (tmp_path / "out.pgn").read_text(encoding="utf-8")


def test_a_failed_write_leaves_the_old_base(tmp_path: Path) -> None:
    target = _written(tmp_path, _hand_made())
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}

    def failing() -> Iterator[chess.pgn.Game]:
        yield from _hand_made()
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        write_database(target, failing())
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


def _twic(count: int) -> list[chess.pgn.Game]:
    with open(find_corpus("pgn", "twic1134-mainlines.pgn"), encoding="utf-8") as handle:
        return [game for game in (chess.pgn.read_game(handle) for _ in range(count)) if game is not None]


def test_appending_gives_the_bytes_of_one_write(tmp_path: Path) -> None:
    games = [*_twic(300), *_hand_made()]
    (tmp_path / "one").mkdir()
    (tmp_path / "parts").mkdir()
    write_database(tmp_path / "one" / "base.cbh", games)
    assert append_games(tmp_path / "parts" / "base.cbh", games[:100]).written == 100  # no base yet: created
    assert append_games(tmp_path / "parts" / "base", games[100:250]).written == 150
    assert append_games(tmp_path / "parts" / "base.cbh", games[250:]).written == len(games) - 250
    files = sorted(path.name for path in (tmp_path / "one").iterdir())
    assert files == sorted(path.name for path in (tmp_path / "parts").iterdir())
    assert len(files) == 9
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "parts" / name).read_bytes(), name


@pytest.mark.parametrize("name", ["libcbh_WithVariations", "morphy_hedgehog", "morphy_linares_old",
                                  "libcbh_Annotation", "morphy_text", "libcbh_Chess960Biel"])
def test_appending_to_a_chessbase_base(tmp_path: Path, name: str) -> None:
    """The old games (and guiding texts) read as before, byte for byte in .cbh/.cbg/.cba; the new ones as
    written, in the base's code page (morphy_hedgehog's cp1251: the characters it cannot hold reported, as "?");
    every entity tree passes the reader's check."""
    target = copy_base(name, tmp_path)
    for path in tmp_path.iterdir():
        path.chmod(0o644)  # the corpus files are read-only
    with open_database(target) as db:
        code_page = base_code_page(db)
    code_page = None if code_page == "cp1252" else code_page
    assert (code_page == "cp1251") == (name == "morphy_hedgehog")
    with open_database(target, encoding=code_page) as db:
        count = db.record_count
        old = [db.record(number) for number in range(1, count + 1)]
        before = {number: (db._record(number), db.game_data(number)[1], db.annotation_data(number))
                  for number in range(1, count + 1) if hasattr(old[number - 1], "to_pgn")}
        old_games = {number: db.record(number).to_pgn() for number in before}  # type: ignore[union-attr]
    new = [*_twic(30), *_hand_made()]
    report = append_games(target, new)
    assert report.written == len(new) and not report.skipped
    written = [_in_code_page(game, code_page) for game in new]
    assert {warning.item for warning in report.warnings} == {
        position for position, (game, back) in enumerate(zip(new, written, strict=True), 1) if str(game) != str(back)}
    with open_database(target, encoding=code_page) as db:
        assert db.record_count == count + len(new)
        for entities in (db.players, db.tournaments, db.annotators, db.sources, db.teams):
            assert entities.check() == []
        for number, (record, data, annotations) in before.items():
            assert (db._record(number), db.game_data(number)[1], db.annotation_data(number)) == (
                record, data, annotations)
            same_game(old_games[number], db.record(number).to_pgn())  # type: ignore[union-attr]
        for offset, game in enumerate(written, count + 1):
            same_game(game, db.record(offset).to_pgn())  # type: ignore[union-attr]


def _in_code_page(game: chess.pgn.Game, code_page: str | None) -> chess.pgn.Game:
    """The game as a base in ``code_page`` holds it (its texts' characters that the code page cannot hold: "?")."""
    if code_page is None:
        return game
    back = chess.pgn.read_game(io.StringIO(str(game).encode(code_page, errors="replace").decode(code_page)))
    assert back is not None
    return back


def test_a_failed_append_leaves_the_base(tmp_path: Path) -> None:
    target = _written(tmp_path, _twic(20))
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}

    def failing() -> Iterator[chess.pgn.Game]:
        yield from _hand_made()
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        append_games(target, failing())
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


def _random_game(seed: int) -> chess.pgn.Game:
    """A random legal game with branches, null moves, promotions, comments and NAGs (fixed by ``seed``)."""
    rng = random.Random(seed)
    game = chess.pgn.Game()
    if rng.random() < 0.3:  # a setup position near promotions
        game.setup(chess.Board("4k3/PPP5/8/8/8/8/5ppp/4K3 w - - 0 40"))
    lines: list[chess.pgn.GameNode] = [game]
    for _ in range(rng.randint(1, 6)):
        node = rng.choice(lines)
        board = node.board()
        for _ in range(rng.randint(1, 25)):
            moves = list(board.legal_moves)
            if not moves:
                break
            if not board.is_check() and rng.random() < 0.05:
                move = chess.Move.null()
            else:
                move = rng.choice(moves)
            if node.has_variation(move):
                node = node.variation(move)
            else:
                node = node.add_variation(move)
                if rng.random() < 0.2:
                    node.comment = rng.choice(["ok", "Ähm", "a [#] b", "x" * 300])
                if rng.random() < 0.2:
                    node.nags.add(rng.choice([1, 2, 3, 4, 5, 6, 14, 15, 16, 17, 18, 19, 140, 142]))
            board.push(move)
            lines.append(node)
    return game


@pytest.mark.parametrize("seed", range(40))
def test_random_games_round_trip(tmp_path: Path, seed: int) -> None:
    games = [_random_game(seed * 10 + index) for index in range(10)]
    target = _written(tmp_path, games)
    with open_database(target) as db:
        for number, game in enumerate(games, 1):
            same_game(game, db.record(number).to_pgn())  # type: ignore[union-attr]


def test_games_the_format_cannot_hold_are_skipped(tmp_path: Path) -> None:
    crazyhouse = chess.pgn.read_game(io.StringIO('[Variant "Crazyhouse"]\n\n1. e4 d5 2. exd5 Qxd5 *'))
    assert crazyhouse is not None and not crazyhouse.errors
    illegal = chess.pgn.Game()
    illegal.add_variation(chess.Move.from_uci("e2e4")).add_variation(chess.Move.from_uci("e2e4"))  # no piece
    report = write_database(tmp_path / "out.cbh", [crazyhouse, _hand_made()[0], illegal])
    assert report.written == 1
    assert [left.item for left in report.skipped] == [1, 3]
    assert "crazyhouse" in report.skipped[0].reason and "e2" in report.skipped[1].reason


_MOVED = ("cbg_offset", "cba_offset", "white", "black", "tournament", "annotator", "source")
"""What a copy changes in a .cbh record: offsets and entity numbers."""


@pytest.mark.parametrize("cbh", _bases(), ids=lambda path: path.parent.name)
def test_copying_a_base_keeps_every_record(tmp_path: Path, cbh: Path) -> None:
    """Record by record: the same game data and annotation bytes, the same .cbh fields but offsets and entity
    numbers, the same entity records (but tree node and game counts) behind each number, the same games,
    guiding texts and PGN; trees that pass check()."""
    target = tmp_path / "copy.cbh"
    report = copy_database(cbh, target)
    assert not report.skipped
    record = codec(schema.GAME_RECORD)
    node = ("left", "right", "balance")
    with open_database(cbh) as old, open_database(target) as new:
        assert new.record_count == old.record_count == report.written and len(new) == len(old)
        assert report.unit == "records" and report.counts == {"games": len(old), "guiding texts": len(list(
            old.guiding_texts()))}
        for kind in ("players", "tournaments", "annotators", "sources", "teams"):
            assert getattr(new, kind).check() == []
        for number in range(1, old.record_count + 1):
            assert new.game_data(number)[1] == old.game_data(number)[1]
            ours, theirs = new.annotation_data(number), old.annotation_data(number)
            assert (ours is None) == (theirs is None)
            if ours and theirs:
                assert ours[1][3:] == theirs[1][3:]  # the game number aside
            at = schema.CBH_HEADER_SIZE + (number - 1) * schema.CBH_RECORD_SIZE
            mine, original = (record.decode(bytes(db._cbh[at:at + schema.CBH_RECORD_SIZE]))._asdict()
                              for db in (new, old))
            fields = ("white", "black", "tournament", "annotator", "source")
            if not original["kind"].guiding_text:
                for name, entities in zip(fields, ("players", "players", "tournaments", "annotators", "sources"),
                                          strict=True):
                    # every field but the tree node: the game counts and first games, counted again, are ChessBase's
                    a, b = getattr(new, entities)[mine[name]].record, getattr(old, entities)[original[name]].record
                    assert {k: v for k, v in a._asdict().items() if k not in node} == \
                        {k: v for k, v in b._asdict().items() if k not in node}
            for name in _MOVED:
                del mine[name], original[name]
            assert mine == original
            game, copied = old.record(number), new.record(number)
            if isinstance(game, GuidingText):
                assert isinstance(copied, GuidingText)
                assert (copied.titles, copied.texts, copied.tournament) == (game.titles, game.texts, game.tournament)
    # the same PGN, game for game (export_pgn: python-chess's text, checked in test_chessbase_batch); games that
    # cannot be read (Chess960Corrupt) are copied as they are and fail alike
    theirs_written, theirs_failed = export_pgn(cbh, tmp_path / "old.pgn")
    ours_written, ours_failed = export_pgn(target, tmp_path / "new.pgn")
    assert (tmp_path / "new.pgn").read_bytes() == (tmp_path / "old.pgn").read_bytes()
    assert ours_written == theirs_written
    assert [(error.reason, error.path) for error in ours_failed] == [(error.reason, error.path)
                                                                     for error in theirs_failed]


_TEXT_KINDS = ("text_after", "text_before")
_STALE_MANY_COMMENTS = {("morphy_linares_old", number) for number in (287, 395, 403, 404, 414)}
"""Games whose record has ``many_comments`` but no annotation record at all (its comments deleted, it seems)."""


def _comment_bytes(db: Any, number: int) -> int:
    return sum(len(item.body.text) for item in db.annotations(number) if str(item.type) in _TEXT_KINDS)


def test_many_comments_rule_on_the_corpus() -> None:
    """ChessBase sets ``many_comments`` when a game's comment texts hold more than 200 bytes: in every corpus
    game (426 have it), but the five that have it without any annotation."""
    find_corpus("chessbase", "morphy_linares_old")
    checked = flagged = 0
    for cbh in _bases():
        with open_database(cbh) as db:
            for number in range(1, db.record_count + 1):
                if int(db.records["kind"][number - 1]) & _KINDS_SKIPPED:
                    continue
                try:
                    record = db._record(number).body
                    size = _comment_bytes(db, number)
                except FormatError:
                    continue
                flag = bool(record.annotation_sizes.many_comments)
                if (cbh.parent.name, number) in _STALE_MANY_COMMENTS:
                    assert flag and not db.annotations(number)
                    continue
                assert flag == (size > 200), (cbh.parent.name, number, size)
                checked += 1
                flagged += flag
    assert checked > 7000 and flagged > 400


def test_many_comments_is_written_by_that_rule(tmp_path: Path) -> None:
    games = []
    for size in (199, 200, 201, 450):
        game = chess.pgn.Game()
        node = game.add_variation(chess.Move.from_uci("e2e4"))
        node.comment = "x" * (size - 60)
        node.add_variation(chess.Move.from_uci("e7e5")).starting_comment = "y" * 60
        games.append(game)
    target = _written(tmp_path, games)
    with open_database(target) as db:
        assert [_comment_bytes(db, number) for number in range(1, 5)] == [199, 200, 201, 450]
        assert [bool(db._record(number).body.annotation_sizes.many_comments)
                for number in range(1, 5)] == [False, False, True, True]
