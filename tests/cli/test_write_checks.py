"""The writing commands check what they will write before they read or write anything: existing files (every file
the writer makes or removes), options the output's format cannot honour, the member names of an archive; and they
exit as docs/cli.md's table says (1: nothing written)."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from chessformats.cli import main
from chessformats.formats import polyglot


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _polyglot_book(path: Path) -> Path:
    polyglot.write_book(path, {chess.STARTING_FEN: {chess.Move.from_uci("e2e4"): 3}})
    return path


def test_kvetka_write_refuses_a_volume_it_would_remove(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a one-volume book removes NAME_1.kob, NAME_2.kob of an earlier, longer book: they are existing outputs
    source = _polyglot_book(tmp_path / "src.bin")
    for number in (1, 2):
        (tmp_path / f"k_{number}.kob").write_bytes(b"precious")
    code, _, err = run(capsys, "convert", source, "-o", tmp_path / "k.kob")
    assert code == 2 and "k_1.kob, k_2.kob" in err and "--force" in err
    assert (tmp_path / "k_1.kob").read_bytes() == b"precious" and not (tmp_path / "k_0.kob").exists()
    code, _, _ = run(capsys, "convert", source, "-o", tmp_path / "k.kob", "--force")
    assert code == 0 and not (tmp_path / "k_1.kob").exists() and not (tmp_path / "k_2.kob").exists()


@pytest.mark.parametrize(("command", "existing"), [
    (("docs",), "polyglot.md"),
    (("export", "polyglot", "--to", "kaitai"), "polyglot_book.ksy"),
    (("export", "ctg", "--to", "imhex"), "ctg_cto.hexpat"),
    (("tour", "--max-ply", "2"), "example.bin"),
    (("tour", "--max-ply", "2"), "docs/ctg.md"),
])
def test_folder_outputs_are_replaced_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    command: tuple[str, ...], existing: str) -> None:
    kept = tmp_path / "out" / existing
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"precious")
    code, out, err = run(capsys, *command, "-o", tmp_path / "out")
    assert code == 2 and err.count("\n") == 1 and existing.split("/")[-1] in err and "--force" in err
    assert kept.read_bytes() == b"precious" and out == ""
    code, _, _ = run(capsys, *command, "-o", tmp_path / "out", "--force")
    assert code == 0 and kept.read_bytes() != b"precious"


@pytest.mark.parametrize("command", [("docs",), ("export", "monty", "--to", "kaitai"), ("tour",)])
def test_folder_output_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      command: tuple[str, ...]) -> None:
    (tmp_path / "pg.bin").write_bytes(b"precious")
    code, _, err = run(capsys, *command, "-o", tmp_path / "pg.bin")
    assert code == 2 and "is a file: give the name of a folder" in err and "Errno" not in err


GAMES = '[Event "A"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'


@pytest.mark.parametrize(("book", "options", "said"), [
    ("b.bin", ("--sources",), "--sources: a Polyglot book stores no sources"),
    ("b.ctg", ("--sources",), "--sources: a CTG book stores no sources"),
    ("b.ctg", ("--uniform",), "--uniform: sets Polyglot weights; a CTG book"),
    ("b.kob", ("--uniform",), "--uniform: sets Polyglot weights; a Kvetka book"),
    ("b.kob", ("--shuffle-dir", "x"), "--shuffle-dir needs --dask, a .bin book"),
    ("b.bin", ("--reducers", "2"), "--reducers needs --dask"),
])
def test_build_refuses_an_option_its_format_cannot_honour_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], book: str, options: tuple[str, ...], said: str) -> None:
    # refused before any input is looked at: the missing input is not what is said
    code, _, err = run(capsys, "build", tmp_path / "missing.pgn", "-o", tmp_path / book, *options)
    assert code == 2 and said in err and err.count("\n") == 1 and "missing.pgn" not in err
    assert list(tmp_path.iterdir()) == []


def test_build_sources_of_a_kvetka_book_are_pgn_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "g.pgn"
    games.write_text(GAMES * 2)
    code, _, _ = run(capsys, "build", games, "-o", tmp_path / "k.kob", "--sources", "--min-games", "1")
    assert code == 0 and (tmp_path / "k.ksf").exists()
    assert run(capsys, "convert", games, "-o", tmp_path / "base.cbh")[0] == 0
    code, _, err = run(capsys, "build", tmp_path / "base.cbh", "-o", tmp_path / "c.kob", "--sources")
    assert code == 2 and "--sources records PGN files" in err and not (tmp_path / "c_0.kob").exists()


UNDERPROMOTION = '[Event "x"]\n[Result "1-0"]\n[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]\n[SetUp "1"]\n\n1. a8=N 1-0\n\n'


@pytest.mark.parametrize(("book", "said"), [("b.kob", "a Kvetka book cannot store them"),
                                            ("b.ctg", "CTG cannot store them"), ("b.bin", None)])
def test_build_says_the_moves_its_format_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str], book: str,
                                                 said: str | None) -> None:
    # Kvetka and CTG code no underpromotion (Polyglot does): the move is left out, and said once
    games = tmp_path / "g.pgn"
    games.write_text(UNDERPROMOTION * 2)
    code, _, err = run(capsys, "build", games, "-o", tmp_path / book, "--min-games", "1")
    assert code == 0
    if said is None:
        assert "left out" not in err
    else:
        assert err.count("left out") == 1 and "1 moves left out" in err and said in err


def test_convert_to_a_base_writing_no_game_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # docs/cli.md's exit statuses: 1 when no game is written (the only game has an illegal move)
    games = tmp_path / "g.pgn"
    games.write_text('[Event "A"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n')
    code, _, err = run(capsys, "convert", games, "-o", tmp_path / "a.cbh")
    assert code == 1 and "nothing written" in err and "illegal san" in err
    code, _, err = run(capsys, "convert", games, "-o", tmp_path / "a.cbh", "--append")
    assert code == 1 and "0 games added" in err and "nothing written" in err
    code, _, err = run(capsys, "convert", tmp_path / "a.cbh", "-o", tmp_path / "b.cbh")  # a base of no game
    assert code == 1 and "0 records copied" in err and "nothing written" in err
    code, _, err = run(capsys, "convert", games, "-o", tmp_path / "a.cbv")  # nor an archive of an empty base
    assert code == 1 and "nothing written" in err and not (tmp_path / "a.cbv").exists()
    (tmp_path / "h.pgn").write_text(GAMES)
    assert run(capsys, "convert", tmp_path / "h.pgn", "-o", tmp_path / "a.cbh", "--append")[0] == 0


def test_convert_refuses_a_target_and_another_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _polyglot_book(tmp_path / "src.bin")
    code, _, err = run(capsys, "convert", source, tmp_path / "a.ctg", "-o", tmp_path / "b.kob")
    assert code == 2 and "two files to write" in err and "a.ctg" in err and "b.kob" in err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["src.bin"]
    code, _, _ = run(capsys, "convert", source, tmp_path / "a.ctg", "-o", tmp_path / "a.ctg")  # the same: one
    assert code == 0 and (tmp_path / "a.ctg").exists()


@pytest.mark.parametrize(("name", "target", "said"), [
    ("g.pgn", "x.bin", "g.pgn: PGN text (games): convert writes it to .cbh (a ChessBase base), .cbv/.cbz (a "
                       "ChessBase archive) or .parquet (a table), not to .bin (Polyglot); to build a book of its "
                       "games: chessformats build "),
    ("m.montyformat", "x.pgn", "m.montyformat: Monty training data: convert writes it to .parquet (a table), not "
                               "to .pgn"),
    ("src.bin", "x.cbh", "src.bin: a Polyglot book: convert writes it to .ctg (CTG), .kob (Kvetka), .bin "
                         "(Polyglot) or .parquet (a table), not to .cbh (a ChessBase base): a book holds"),
])
def test_convert_says_what_it_writes_from_its_source(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                                     target: str, said: str) -> None:
    (tmp_path / "g.pgn").write_text(GAMES)
    _polyglot_book(tmp_path / "src.bin")
    from chessformats.formats import monty

    ply = monty.Ply(chess.Move.from_uci("e2e4"), 0.5, {chess.Move.from_uci("e2e4"): 1})
    monty.write_games(tmp_path / "m.montyformat", [monty.Game(chess.Board(), [ply], "1-0")])
    code, _, err = run(capsys, "convert", tmp_path / name, "-o", tmp_path / target)
    assert code == 2 and said in err and err.count("\n") == 1 and not (tmp_path / target).exists()


@pytest.mark.parametrize("command", ["convert", "build"])
@pytest.mark.parametrize("target", ["x.bin", "x.cbh", "x.pgn", "x.parquet"])
def test_a_missing_source_is_said_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
                                        target: str) -> None:
    if command == "build" and target != "x.bin":
        return
    code, _, err = run(capsys, command, tmp_path / "gone.pgn", "-o", tmp_path / target)
    assert code == 2 and err == f"chessformats: error: {tmp_path / 'gone.pgn'}: no such file\n"


@pytest.mark.parametrize(("archive", "said"), [("Иван.cbv", "the character 'И' (U+0418) has no byte in cp1252"),
                                               ("con.cbz", "a Windows device name")])
def test_convert_refuses_an_archive_name_before_making_its_base(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               archive: str, said: str) -> None:
    # the base made from PGN is stored under the archive's name: refused before a game is read (was: after)
    (tmp_path / "g.pgn").write_text(GAMES)
    code, out, err = run(capsys, "convert", tmp_path / "g.pgn", "-o", tmp_path / archive, "--password", "x")
    assert code == 2 and said in err and err.count("\n") == 1 and out == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["g.pgn"]


@pytest.mark.parametrize(("option", "value", "said"), [
    ("--jobs", "0", "argument --jobs: 0 is less than 1"), ("--jobs", "-3", "argument --jobs: -3 is less than 1"),
    ("--min-games", "-1", "argument --min-games: -1 is less than 0"),
    ("--dask-workers", "0", "argument --dask-workers: 0 is less than 1"),
    ("--jobs", "two", "invalid int value: 'two'")])  # (--reducers 0: refused with --dask, tests/books/test_shuffle)
def test_counts_a_build_cannot_use_are_refused_as_it_parses(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              option: str, value: str, said: str) -> None:
    # (they were taken: --jobs 0 or --min-games -1 ran a build that did nothing useful, without a word)
    (tmp_path / "g.pgn").write_text(GAMES)
    with pytest.raises(SystemExit) as exit_:
        main(["build", str(tmp_path / "g.pgn"), "-o", str(tmp_path / "b.bin"), option, value])
    assert exit_.value.code == 2 and said in capsys.readouterr().err and not (tmp_path / "b.bin").exists()
    assert main(["build", str(tmp_path / "g.pgn"), "-o", str(tmp_path / "b.bin"), "--min-games", "0",
                      "--jobs", "1"]) == 0
