"""The ChessBase writer keeps the game and reports what it has to change or leave out, the same on both import paths
(python-chess's games and the batch PGN import): characters the code page cannot hold (an append's code page: the
old base's), PGN commands before a first move, a setup's move number over 255, a date not in the PGN form, tags a
base has no place for (counted by name); an item that is no game is a TypeError."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import chess.pgn
import pytest

from chessformats.books.chessbase_import import write_database_from_pgn
from chessformats.formats.chessbase import open_database
from chessformats.formats.chessbase.codepage import base_code_page
from chessformats.formats.chessbase.write import append_games, write_database

_EXTENSIONS = (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj")


def _games(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(text)
    games = list(iter(lambda: chess.pgn.read_game(handle), None))
    assert games and not any(game.errors for game in games)
    return games


def _both_paths(tmp_path: Path, text: str, **options: str) -> list[str]:
    """``text`` written by both paths: the same files and report; the warnings' messages."""
    pgn = tmp_path / "games.pgn"
    pgn.write_text(text, encoding="utf-8")
    slow = write_database(tmp_path / "slow.cbh", _games(text), **options)
    fast = write_database_from_pgn(tmp_path / "fast.cbh", pgn, **options)
    assert (fast.written, fast.skipped, fast.warnings) == (slow.written, slow.skipped, slow.warnings)
    for extension in _EXTENSIONS:
        assert (tmp_path / "fast").with_suffix(extension).read_bytes() == \
            (tmp_path / "slow").with_suffix(extension).read_bytes(), extension
    return [warning.message for warning in slow.warnings]


_RUSSIAN = '[Event "E"]\n[White "Иванов, Пётр"]\n[Black "Müller"]\n[Result "1-0"]\n\n'


def test_characters_the_code_page_cannot_hold_are_reported(tmp_path: Path) -> None:
    text = _RUSSIAN + "{ Иван } 1. e4 { Müller Иван } e5 2. Nf3 { ok } 1-0\n\n" + \
        '[White "Ivanov"]\n[Result "*"]\n\n1. d4 ( { Пётр } 1. c4 ) *\n'
    messages = _both_paths(tmp_path, text, encoding="cp1252")
    assert messages == [
        "game 1: the game's comment: 'Иван' not in cp1252, written as '?'",
        "game 1: comment at position 0: 'Иван' not in cp1252, written as '?'",
        "game 1: last_name 'Иванов': 'Ивано' not in cp1252, written as '?'",
        "game 1: first_name 'Пётр': 'Пётр' not in cp1252, written as '?'",
        "game 2: comment before a variation at position 1: 'Пётр' not in cp1252, written as '?'"]
    with open_database(tmp_path / "slow.cbh", encoding="cp1252") as db:
        first, second = db[1].to_pgn(), db[2].to_pgn()
        # a name the code page cannot hold is none of the base's (not the name its "?"s stand for)
        assert db.players.find("Иванов, Пётр") is None and db.players.find("??????, ????") is not None
    assert (first.headers["White"], first.headers["Black"]) == ("??????, ????", "Müller")  # the game is written
    assert [first.comment, *(node.comment for node in first.mainline())] == ["????", "Müller ????", "", "ok"]
    assert second.variations[1].starting_comment == "????"
    # the code page that holds them: nothing to report
    assert _both_paths(tmp_path, text.replace("Müller", "Muller"), encoding="cp1251") == []


def test_appending_writes_in_the_code_page_of_the_base(tmp_path: Path) -> None:
    """A Russian base (cp1251, as morphy_hedgehog): games added without an encoding are written in its code page,
    on both paths alike (a character it cannot hold reported)."""
    old = _games('[White "Петров, Иван"]\n[Result "*"]\n\n1. e4 { Хороший ход } *\n')
    added = _RUSSIAN + "1. e4 { Тоже хорошо } e5 1-0\n"
    pgn = tmp_path / "added.pgn"
    pgn.write_text(added, encoding="utf-8")
    for name in ("slow", "fast"):
        (tmp_path / name).mkdir()
        write_database(tmp_path / name / "base.cbh", old, encoding="cp1251")
    slow = append_games(tmp_path / "slow" / "base.cbh", _games(added))
    fast = write_database_from_pgn(tmp_path / "fast" / "base.cbh", pgn, append=True)
    assert (fast.written, fast.skipped, fast.warnings) == (slow.written, slow.skipped, slow.warnings)
    assert [warning.message for warning in slow.warnings] == ["game 2: last_name 'Müller': 'ü' not in cp1251, "
                                                              "written as '?'"]
    for extension in _EXTENSIONS:
        assert (tmp_path / "fast" / "base").with_suffix(extension).read_bytes() == \
            (tmp_path / "slow" / "base").with_suffix(extension).read_bytes(), extension
    assert "Иванов".encode("cp1251") in (tmp_path / "slow" / "base.cbp").read_bytes()
    with open_database(tmp_path / "slow" / "base.cbh") as db:
        assert base_code_page(db) == "cp1251"
    with open_database(tmp_path / "slow" / "base.cbh", encoding="cp1251") as db:
        first, second = db[1].to_pgn(), db[2].to_pgn()
    assert first.headers["White"] == "Петров, Иван" and first.variations[0].comment == "Хороший ход"
    assert (second.headers["White"], second.headers["Black"]) == ("Иванов, Пётр", "M?ller")
    assert second.variations[0].comment == "Тоже хорошо"
    # the caller's code page is the one written
    shutil.rmtree(tmp_path / "slow")
    (tmp_path / "slow").mkdir()
    write_database(tmp_path / "slow" / "base.cbh", old, encoding="cp1251")
    assert append_games(tmp_path / "slow" / "base.cbh", _games(added), encoding="utf-8").warnings == []
    assert "Иванов".encode() in (tmp_path / "slow" / "base.cbp").read_bytes()


_COMMANDS_BEFORE = (
    '[Event "GC"]\n[Result "*"]\n\n{ [%clk 1:00:00] [%eval 0.50] [%csl Ra1] text } 1. e4 '
    '( { [%clk 0:10:00] [%cal Ge2e4] var } 1. d4 d5 ) 1... e5 *\n\n'
    '[Event "plain"]\n[Result "*"]\n\n{ [%cal Re2e4,Gd2d4] [%emt 0:00:07] [%eval #-3] before } 1. e4 e5 *\n\n'
    '[Event "setup"]\n[Result "*"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"]\n\n'
    '{ [%eval -1.25,18] [%csl Ye8] } 1... Kd7 2. e4 *\n')


def test_commands_before_the_first_move_are_kept_or_reported(tmp_path: Path) -> None:
    """A game's leading comment keeps its squares, arrows, time spent and evaluation (items on the game, which the
    reader puts back on it); a clock there (the game's final clock at that place) and the commands of a
    variation's starting comment (an item there is the move's) are reported. Both paths alike."""
    messages = _both_paths(tmp_path, _COMMANDS_BEFORE)
    assert messages == [
        "game 1: [%clk] in the game's comment: ChessBase has no place for a clock before the first move, left out",
        "game 1: [%clk], [%cal] before a variation's first move at position 2: ChessBase has no place for them "
        "there, left out"]
    sources = _games(_COMMANDS_BEFORE)
    with open_database(tmp_path / "fast.cbh") as db:
        backs = [db[number].to_pgn() for number in (1, 2, 3)]
    for source, back in zip(sources, backs, strict=True):
        assert (_arrows(back), back.eval(), back.eval_depth(), back.emt()) == (
            _arrows(source), source.eval(), source.eval_depth(), source.emt())
        assert back.clock() is None
    assert [back.eval() is not None for back in backs] == [True, True, True]
    assert (len(_arrows(backs[0])), len(_arrows(backs[1])), backs[1].emt()) == (1, 2, 7)
    assert backs[0].comment.endswith("text [%eval 0.50]") and "[%csl Ra1]" in backs[0].comment
    variation = backs[0].variations[1]
    assert (variation.starting_comment, variation.comment, variation.clock()) == ("var", "", None)


def _arrows(node: chess.pgn.GameNode) -> list[tuple[int, int, str]]:
    return sorted((arrow.tail, arrow.head, arrow.color) for arrow in node.arrows())


def test_a_move_number_the_setup_cannot_hold_is_clamped_not_the_game(tmp_path: Path) -> None:
    """The setup position's move number is one byte: a FEN's 300 is written as 255 (the numbers shown), reported;
    255 is kept as it is."""
    fens = ["4k3/8/8/8/8/8/4P3/4K3 w - - 0 300", "4k3/8/8/8/8/8/4P3/4K3 b - - 3 255"]
    text = "".join(f'[Event "F"]\n[Result "*"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n1. e4 *\n\n'.replace(
        "1. e4", "1... Kd7 2. e4" if " b " in fen else "1. e4 Kd7") for fen in fens)
    messages = _both_paths(tmp_path, text)
    assert messages == ["game 1: move number 300 of the FEN: a setup position holds at most 255, written as 255"]
    with open_database(tmp_path / "slow.cbh") as db:
        backs = [db[1].to_pgn(), db[2].to_pgn()]
    assert [back.headers["FEN"] for back in backs] == [fens[0].replace(" 300", " 255"), fens[1].replace(" 3 ", " 0 ")]
    assert [[move.uci() for move in back.mainline_moves()] for back in backs] == [["e2e4", "e8d7"], ["e8d7", "e2e4"]]


def test_an_item_that_is_no_game_is_a_type_error(tmp_path: Path) -> None:
    game = _games('[Result "*"]\n\n1. e4 *\n')[0]
    for bad in (None, "1. e4 *", game.variations[0]):
        with pytest.raises(TypeError, match=r"games item 2 \(from 1\) is a (NoneType|str|ChildNode), not a"):
            write_database(tmp_path / "base.cbh", [game, bad])
        assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_date_not_in_the_pgn_form_is_reported(tmp_path: Path) -> None:
    # python-chess reads no date (its headers keep the text) and the PGN standard has one form, YYYY.MM.DD
    text = '[Date "2023-02-03"]\n[EventDate "2023.??.??"]\n[Result "*"]\n\n1. e4 *\n\n' \
        '[Date "2023.02.03"]\n[EventDate "3 Feb 2023"]\n[Result "*"]\n\n1. d4 *\n'
    assert _both_paths(tmp_path, text) == ["game 1: Date '2023-02-03': not a PGN date (YYYY.MM.DD), left out",
                                           "game 2: EventDate '3 Feb 2023': not a PGN date (YYYY.MM.DD), left out"]
    with open_database(tmp_path / "slow.cbh") as db:
        assert [(db[n].headers["Date"], db[n].headers.get("EventDate")) for n in (1, 2)] == [
            ("????.??.??", "2023.??.??"), ("2023.02.03", None)]


def test_tags_the_base_cannot_hold_are_counted_once_by_name(tmp_path: Path) -> None:
    lichess = '[Opening "Sicilian"]\n[Termination "Normal"]\n[UTCDate "2023.01.01"]\n[PlyCount "1"]\n'
    text = f'[Event "a"]\n{lichess}[Result "*"]\n\n1. e4 *\n\n' \
        f'[Event "b"]\n{lichess}[My_Tag "x"]\n[Date "x"]\n[Result "*"]\n\n1. d4 *\n\n' \
        '[Event "c"]\n[Opening "?"]\n[Termination ""]\n[ECO "B20"]\n[WhiteElo "2000"]\n[TimeControl "60+1"]\n' \
        '[Result "*"]\n\n1. c4 *\n'  # (a tag of no value is no loss; those of the record are held)
    slow = write_database(tmp_path / "base.cbh", _games(text))
    assert [(warning.message, warning.item) for warning in slow.warnings] == [
        ("game 2: Date 'x': not a PGN date (YYYY.MM.DD), left out", 2),
        ("tag My_Tag: a ChessBase base has no place for it, left out of 1 game", None),
        ("tag Opening: a ChessBase base has no place for it, left out of 2 games", None),
        ("tag PlyCount: a ChessBase base has no place for it, left out of 2 games", None),
        ("tag Termination: a ChessBase base has no place for it, left out of 2 games", None),
        ("tag UTCDate: a ChessBase base has no place for it, left out of 2 games", None)]
    assert _both_paths(tmp_path, text) == [warning.message for warning in slow.warnings]
