"""ChessBase reader: headers, names, entities, the fast header scan, info, robustness.

Expected values come from the corpus's independent outputs (``expected.libcbh.tsv``), the source PGNs,
the spec and hand arithmetic, never from our own output.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import chess.pgn
import numpy as np
import pytest

from chessbase_corpus import cbh_path, copy_base
from chessformats import chessbase
from chessformats.cli import main
from chessformats.engine.errors import FormatError, TruncatedError, UnsupportedError
from chessformats.formats.chessbase import decode_name
from conftest import find_corpus

TSV_SETS = ("libcbh_Chess960Biel", "libcbh_NormalGames", "libcbh_UnusualStart", "libcbh_WithVariations",
            "morphy_hedgehog", "morphy_linares_old", "morphy_mate2_veryold")


def _tsv(name: str) -> list[list[bytes]]:
    data = find_corpus("chessbase", name, "expected.libcbh.tsv").read_bytes()
    return [line.split(b"\t") for line in data.splitlines() if line]


@pytest.mark.parametrize("name", TSV_SETS)
def test_player_names_agree_with_the_independent_reader(name: str) -> None:
    # the tsv prints "last, first" from the raw bytes (undecoded); we compare the same bytes, decoded alike
    with chessbase.open_database(cbh_path(name)) as db:
        rows = _tsv(name)
        assert rows
        for row in rows:
            number = int(row[0][1:])
            game = db.record(number)
            if isinstance(game, chessbase.GuidingText):
                continue  # the tsv prints an empty line for guiding texts (README: it skips them)
            for column, player in ((2, game.fields.white), (3, game.fields.black)):
                record = db.players[player].record
                expected = decode_name(row[column])
                assert f"{decode_name(record.last_name)}, {decode_name(record.first_name)}" == expected


def test_old_base_names_are_cp1252() -> None:
    # linares: "Lékó, Péter" stored as cp1252 bytes 4c e9 6b f3 (the tsv holds the same raw bytes)
    with chessbase.open_database(cbh_path("morphy_linares_old")) as db:
        names = {game.headers["White"] for game in db}
        assert "Lékó, Péter" in names
        assert db.players.find("Lékó, Péter") is not None
    with chessbase.open_database(cbh_path("morphy_linares_old"), encoding="latin-1") as db:
        assert db.players.find("Lékó, Péter") is not None


def test_headers_agree_with_the_source_pgn() -> None:
    # BielMTO.pgn holds the same 548 games in the same order: result, ratings, date. (Names are compared with
    # the tsv above: the PGN adds titles such as "Hornung, Hans, Dr." that the .cbp record does not hold.)
    cbh = cbh_path("libcbh_NormalGames")
    pgn = io.StringIO(cbh.with_name("BielMTO.pgn").read_text(encoding="utf-8", errors="replace"))
    with chessbase.open_database(cbh) as db:
        for number in range(1, db.record_count + 1):
            source = chess.pgn.read_headers(pgn)
            assert source is not None
            game = db.record(number)
            assert isinstance(game, chessbase.GameHeader)
            assert game.headers["White"].split(",")[0] == source["White"].split(",")[0]
            for tag in ("Result", "Date", "WhiteElo", "BlackElo"):
                ours, theirs = game.headers.get(tag, "?"), source.get(tag, "?")
                if tag == "Result" and theirs == "1/2-0":  # stored as result 3 (the spec's "line"): PGN "*"
                    assert game.fields.result == 3 and ours == "*"
                    continue
                assert ours == theirs or (tag.endswith("Elo") and theirs in ("?", "0", "") and ours == "?"), (
                    number, tag, ours, theirs)
        assert chess.pgn.read_headers(pgn) is None


def test_open_by_any_companion_and_count() -> None:
    cbh = cbh_path("uncbv_twic1134")
    for extension in (".cbh", ".cbg", ".cbp", ".ini"):
        with chessbase.open_database(cbh.with_suffix(extension)) as db:
            assert len(db) == 6117  # corpus README: 6,117 games
            assert len(db.players) == 2737  # .cbp header: 2737 records


def test_fast_header_scan_matches_the_records() -> None:
    with chessbase.open_database(cbh_path("uncbv_twic1134")) as db:
        arrays = db.header_arrays()
        assert len(arrays["year"]) == db.record_count == len(db)
        for number in (1, 2, 1000, 6117):
            record = db._record(number)
            body = record.body
            index = number - 1
            assert arrays["cbg_offset"][index] == record.cbg_offset
            assert (arrays["year"][index], arrays["month"][index], arrays["day"][index]) == (
                body.date.year, body.date.month, body.date.day)
            assert (arrays["white"][index], arrays["black"][index]) == (body.white, body.black)
            assert arrays["white_elo"][index] == body.white_elo
        assert not arrays["guiding_text"].any() and not arrays["deleted"].any()
        assert int(np.count_nonzero(arrays["year"] == 2016)) > 0  # TWIC 1134 (2016)


def test_entities_sorted_and_found_by_tree() -> None:
    with chessbase.open_database(cbh_path("uncbv_twic1134")) as db:
        players = list(db.players.sorted())
        assert len(players) == db.players.header.existing == 2737
        keys = [(p.record.last_name.split(b"\0")[0], p.record.first_name.split(b"\0")[0]) for p in players]
        assert keys == sorted(keys)  # TWIC names are ASCII: signed and unsigned orders agree
        for player in players[::97]:
            found = db.players.find(player.name)
            assert found is not None and found.number == player.number
        assert db.players.find("Nobody, Such") is None
        assert db.players.check() == []
        assert [t.number for t in db.tournaments] == list(range(48))


def test_guiding_texts() -> None:
    with chessbase.open_database(cbh_path("morphy_text")) as db:
        text = db.record(1)
        assert isinstance(text, chessbase.GuidingText)
        assert text.titles == {"english": "My first text"}  # bytes at .cbg offset 34: "My first text"
        assert b"<html>" in text.body
    with chessbase.open_database(cbh_path("morphy_hedgehog")) as db:
        texts = list(db.guiding_texts())
        assert len(texts) == 27  # corpus README: 27 guiding texts
        assert all(isinstance(text, chessbase.GuidingText) for text in texts)


def test_info_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(cbh_path("libcbh_UnusualStart")), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"games": 9' in out and '"1": 2' in out and '"4": 3' in out and '"5": 4' in out  # notes: modes 1, 4, 5


def test_inspect_game_and_player(capsys: pytest.CaptureFixture[str]) -> None:
    cbh = str(cbh_path("libcbh_Annotation"))
    assert main(["inspect", cbh, "--game", "1"]) == 0
    out = capsys.readouterr().out
    assert "cbg[1].word.mode" in out and "cba[1].entries[0].type" in out
    # TWIC 1134, game 1: "Vachier Lagrave, M" (its .cbp record, found through the tree)
    assert main(["inspect", str(cbh_path("uncbv_twic1134")), "--player", "Vachier Lagrave, M"]) == 0
    out = capsys.readouterr().out
    assert ".last_name" in out and "Vachier Lagrave, M" in out and ".balance" in out


def test_empty_database() -> None:
    with chessbase.open_database(cbh_path("uncbv_small")) as db:
        assert len(db) == 0 and db.record_count == 0 and list(db) == [] and list(db.guiding_texts()) == []
        assert list(db.players.sorted()) == []


# --- robustness ---------------------------------------------------------------------------------------

def test_truncated_cbh(tmp_path: Path) -> None:
    cbh = copy_base("libcbh_Annotation", tmp_path)
    cbh.write_bytes(cbh.read_bytes()[:-5])
    with pytest.raises(TruncatedError) as error:
        chessbase.open_database(cbh)
    assert error.value.offset == 46 * 4 and error.value.file == str(cbh)


def test_entity_count_beyond_the_file(tmp_path: Path) -> None:
    cbh = copy_base("libcbh_Annotation", tmp_path)
    cbp = cbh.with_suffix(".cbp")
    data = bytearray(cbp.read_bytes())
    data[0:4] = (10**9).to_bytes(4, "little")
    cbp.write_bytes(bytes(data))
    with pytest.raises(TruncatedError):
        chessbase.open_database(cbh)


def test_game_data_beyond_the_file(tmp_path: Path) -> None:
    cbh = copy_base("libcbh_Annotation", tmp_path)
    data = bytearray(cbh.read_bytes())
    data[46 * 2 + 1:46 * 2 + 5] = (10**8).to_bytes(4, "big")
    cbh.write_bytes(bytes(data))
    with chessbase.open_database(cbh) as db:
        with pytest.raises(FormatError) as error:
            db.game_data(2)
        assert "game 2" in str(error.value)
        assert db.game_data(1)[0] == 26  # the other games still read


def test_newer_generation_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "new.2cbh"
    path.write_bytes(b"\0" * 64)
    with pytest.raises(UnsupportedError):
        chessbase.open_database(path)


def test_names_never_raise() -> None:
    assert decode_name(b"\x81\x8d\xff\0junk") == "\ufffd\ufffd\xff"
    assert decode_name("Lékó".encode()) == "Lékó"
    assert decode_name(b"L\xe9k\xf3\0") == "Lékó"
    assert decode_name(b"\xe9", "koi8-r") == "И"


def test_damaged_tree_is_reported_not_raised(tmp_path: Path) -> None:
    cbh = copy_base("libcbh_NormalGames", tmp_path)
    cbp = cbh.with_suffix(".cbp")
    data = bytearray(cbp.read_bytes())
    root = int.from_bytes(data[4:8], "little")
    start = 32 + 67 * root
    data[start:start + 4] = root.to_bytes(4, "little")  # the root is its own left child: a cycle
    cbp.write_bytes(bytes(data))
    with chessbase.open_database(cbh) as db:
        findings = db.players.check()
        assert findings
        # check() reports; sorted() names the looping link (issue 16: records used to go missing quietly)
        with pytest.raises(FormatError, match="cycle"):
            list(db.players.sorted())


@pytest.mark.parametrize("seed", range(4))
def test_damaged_databases_only_raise_format_errors(tmp_path: Path, seed: int) -> None:
    import random

    from chessformats.cli.chessbase import HANDLER

    rng = random.Random(seed)
    names = ("morphy_test_annotations", "libcbh_Annotation", "morphy_text", "libcbh_Chess960NonStandard")
    for attempt in range(40):
        folder = tmp_path / f"{attempt}"
        folder.mkdir()
        source = cbh_path(rng.choice(names))
        for path in source.parent.iterdir():
            if path.is_file():
                shutil.copy(path, folder / path.name)
        files = [p for p in folder.iterdir() if p.suffix in (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs")]
        for _ in range(rng.randint(1, 6)):
            target = rng.choice(files)
            data = bytearray(target.read_bytes())
            if not data:
                continue
            if rng.random() < 0.2:
                data = data[:rng.randrange(len(data))]
            else:
                for _ in range(rng.randint(1, 8)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
            target.write_bytes(bytes(data))
        cbh = folder / source.name
        try:
            db = chessbase.open_database(cbh)
        except FormatError:
            continue
        with db:
            for number in range(1, db.record_count + 1):
                try:
                    game = db.record(number)
                    if isinstance(game, chessbase.GameHeader):
                        str(game.to_pgn())
                except FormatError:
                    pass
            for entities in (db.players, db.tournaments, db.annotators, db.sources, db.teams):
                try:
                    list(entities.sorted())  # a damaged tree's link: a FormatError
                except FormatError:
                    pass
                entities.check()
        try:
            HANDLER.info(str(cbh))
        except FormatError:
            pass


# --- the base as a collection of games (engine.contract.GameCollection) ---------------------------------------

def test_iterating_a_base_gives_its_games() -> None:
    """twic1134 (6,117 games, no guiding text): ``list(db)`` is every game, numbered 1..6117 as ChessBase numbers
    them, each equal (number and headers) to the game ``db[n]`` and ``db.record(n)`` read."""
    from chessformats.engine.contract import GameCollection

    with chessbase.open_database(cbh_path("uncbv_twic1134")) as db:
        assert isinstance(db, GameCollection)
        games = list(db)
        assert len(games) == len(db) == db.record_count == 6117  # corpus README: 6,117 games
        assert all(isinstance(game, chessbase.GameHeader) for game in games)
        assert [game.number for game in games] == list(range(1, 6118)) == db.numbers().tolist()
        for game in games:
            for other in (db[game.number], db.record(game.number)):
                assert (other.number, other.headers) == (game.number, game.headers)
                assert other == game
        assert games[0].headers["White"] == "Vachier Lagrave, M"  # TWIC 1134's first game (its .cbp record)


@pytest.mark.parametrize("name", ["morphy_hedgehog", "morphy_text"])
def test_guiding_texts_are_not_games(name: str) -> None:
    """Hedgehog: the independent reader fails on 27 records (err=406, its code for a guiding text: it skips
    them), reads the 204 others; iteration gives those 204 games by their ChessBase numbers, guiding_texts() the
    27 texts, and ``db[n]`` refuses a text's number."""
    with chessbase.open_database(cbh_path(name)) as db:
        texts = list(db.guiding_texts())
        games = list(db)
        assert len(games) == len(db) == db.record_count - len(texts)
        assert sorted([g.number for g in games] + [t.number for t in texts]) == list(range(1, db.record_count + 1))
        assert all(isinstance(text, chessbase.GuidingText) for text in texts) and texts
        for game in games:
            assert db[game.number] == game
        for text in texts:
            assert db.record(text.number) == text
            with pytest.raises(IndexError, match="guiding text"):
                db[text.number]
        if name == "morphy_hedgehog":
            rows = _tsv(name)
            assert [t.number for t in texts] == [int(r[0][1:]) for r in rows if r[1] == b"err=406"]
            assert [g.number for g in games] == [int(r[0][1:]) for r in rows if r[1] == b"err=0"]
        with pytest.raises(IndexError):
            db[0]
        with pytest.raises(IndexError):
            db[db.record_count + 1]


def test_deprecated_names_still_work() -> None:
    with chessbase.open_database(cbh_path("morphy_hedgehog")) as db:
        with pytest.deprecated_call():
            records = list(db.games())  # the old meaning: games and guiding texts, in record order
        assert records == [db.record(n) for n in range(1, db.record_count + 1)]
        game = next(iter(db))
        with pytest.deprecated_call():
            moves = game.moves()
        assert str(moves) == str(game.to_pgn(annotations=False))
        with pytest.deprecated_call():
            record = game.record
        assert int(record.body.white) == game.fields.white and int(record.body.result) == game.fields.result
        text = next(db.guiding_texts())
        with pytest.deprecated_call():
            assert text.record.kind.guiding_text


def test_a_game_header_is_a_frozen_record() -> None:
    with chessbase.open_database(cbh_path("libcbh_NormalGames")) as db:
        game = db[1]
        with pytest.raises(AttributeError):
            game.number = 2  # type: ignore[misc]
        assert "record" not in repr(game) and game.fields.white_elo == int(game.headers.get("WhiteElo", 0))


def test_a_closed_base_refuses_use() -> None:
    from chessformats.engine.contract import ClosedError

    db = chessbase.open_database(cbh_path("morphy_hedgehog"))
    game = db[5]
    db.close()
    db.close()  # harmless twice
    uses = (len, list, lambda d: d[5], lambda d: d.record(1), lambda d: list(d.guiding_texts()),
            lambda d: d.decode(5), lambda d: d.header_arrays(), lambda d: d.annotations(5), lambda d: d.extended,
            lambda d: d.record_count)
    for use in uses:
        with pytest.raises(ClosedError, match=r"Hedgehog\.cbh"):
            use(db)
    with pytest.raises(ClosedError):
        game.to_pgn()


def test_a_failed_open_releases_what_it_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chessformats.formats.chessbase import database

    target = copy_base("libcbh_Annotation", tmp_path)
    opened: list[database.EntityFile] = []
    real = database.EntityFile

    class Failing(real):  # type: ignore[misc, valid-type]
        def __init__(self, path: str, **options: object) -> None:
            if path.lower().endswith(".cbs"):
                raise OSError("the .cbs file cannot be read")
            super().__init__(path, **options)  # type: ignore[arg-type]
            opened.append(self)

    closed: list[object] = []
    monkeypatch.setattr(database, "EntityFile", Failing)
    monkeypatch.setattr(Failing, "close", lambda self: closed.append(self), raising=False)
    with pytest.raises(OSError, match="cbs"):
        chessbase.open_database(target)
    assert len(opened) == 3 and all(entity in closed for entity in opened)


# --- a base without its .cba file ---------------------------------------------------------------------------

_ANNOTATED_PGN = """[Event "a"]\n[White "Anna"]\n[Black "Berta"]\n[Result "1-0"]\n
1. e4 { best by test } e5 $1 2. Nf3 ( 2. f4 { the gambit } exf4 ) 2... Nc6 { developing } 3. Bb5 1-0\n
[Event "b"]\n[White "Carl"]\n[Black "Dora"]\n[Result "*"]\n\n1. d4 d5 2. c4 *\n
[Event "c"]\n[White "Emil"]\n[Black "Fritz"]\n[Result "0-1"]\n\n1. c4 { English } e5 2. g3 $2 ( 2. Nc3 ) 0-1\n"""


def _lines(game: chess.pgn.GameNode) -> list[list[str]]:
    """Every line of a game tree as its UCI moves (the main line first, then each variation, depth first)."""
    found: list[list[str]] = []

    def walk(node: chess.pgn.GameNode, path: list[str]) -> None:
        if not node.variations:
            found.append(path)
        for child in node.variations:
            walk(child, [*path, child.move.uci()])

    walk(game, [])
    return found


def test_a_base_without_its_cba_reads_without_annotations(tmp_path: Path) -> None:
    # issue: every game failed with "annotation offset 26 beyond the end of the .cba file", a file not there;
    # now the games read without their annotations (the loss `info` reports), and a damaged .cba still raises
    source = io.StringIO(_ANNOTATED_PGN)
    games = [game for game in iter(lambda: chess.pgn.read_game(source), None)]
    cbh = tmp_path / "b.cbh"
    chessbase.write_database(cbh, games)
    cba = cbh.with_suffix(".cba")
    cba_bytes = cba.read_bytes()
    cba.unlink()
    with chessbase.open_database(cbh) as db:
        assert np.count_nonzero(db.records["cba_offset"]) == 2  # (the premise: two games have annotations)
        for number, game in enumerate(games, 1):
            read = db[number].to_pgn()
            assert _lines(read) == _lines(game)  # oracle: python-chess's reading of the source
            assert all(not node.comment and not node.nags for node in read.mainline())
            assert db.annotations(number) == [] and db.annotation_data(number) is None
        assert db.annotation_counts(db.numbers()).tolist() == [0, 0, 0]
    written, failed = chessbase.export_pgn(cbh, tmp_path / "b.pgn")
    assert (written, failed) == (3, [])
    exported = io.StringIO((tmp_path / "b.pgn").read_text(encoding="utf-8"))
    back = [game for game in iter(lambda: chess.pgn.read_game(exported), None)]
    assert [_lines(game) for game in back] == [_lines(game) for game in games]
    assert [game.headers["White"] for game in back] == ["Anna", "Carl", "Emil"]
    # a .cba that is there but cut short is damage: located errors, not silence
    cba.write_bytes(cba_bytes[:26])
    with chessbase.open_database(cbh) as db:
        with pytest.raises(TruncatedError) as error:
            db[1].to_pgn()
        assert error.value.file == str(cba) and error.value.offset == 26
        assert db[2].to_pgn().headers["White"] == "Carl"
    written, failed = chessbase.export_pgn(cbh, tmp_path / "c.pgn")
    assert written == 1 and len(failed) == 2 and all(isinstance(e, TruncatedError) for e in failed)
