"""The command line a user can trust (issue 25): every subcommand, driven through ``main()``, with inputs of the
wrong format, missing companion files, an existing output, a folder as output and a read-only folder. Each case
checks the message (it names the file and what was found), the exit status (2: refused) and that nothing was left
behind (no output, no temporary file) or replaced (the old bytes, the old mode).

Inputs are made here: Polyglot books packed with ``struct`` from python-chess's keys, PGN text, and books and
bases written from them by the library (inputs only: what is checked is what the command does with them).
"""

from __future__ import annotations

import os
import random
import re
import stat
import struct
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from chessformats import chessbase, ctg, kvetka
from chessformats.cli import main
from chessformats.cli.arguments import end_moves
from conftest import REPO_ROOT

LINE = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _raw(move: chess.Move) -> int:
    to, start = move.to_square, move.from_square
    return (to & 7) | (to >> 3) << 3 | (start & 7) << 6 | (start >> 3) << 9


def polyglot_book(path: Path, line: list[str] = LINE) -> Path:
    """A Polyglot book of one line, packed by hand with python-chess's keys."""
    board, rows = chess.Board(), []
    for san in line:
        move = board.parse_san(san)
        rows.append((chess.polyglot.zobrist_hash(board), _raw(move), 10, 0))
        board.push(move)
    path.write_bytes(b"".join(struct.pack(">QHHI", *row) for row in sorted(rows)))
    return path


def pgn_text(games: int = 3, seed: int = 1, plies: int = 30) -> str:
    """Random legal games as PGN (python-chess writes them)."""
    rng = random.Random(seed)
    texts = []
    for number in range(games):
        game = chess.pgn.Game()
        game.headers["Event"] = f"game {number + 1}"
        game.headers["White"] = f"White {number % 7}"
        game.headers["Black"] = f"Black {number % 5}"
        node = game
        for _ in range(plies):
            moves = list(node.board().legal_moves)
            if not moves:
                break
            node = node.add_variation(rng.choice(moves))
        game.headers["Result"] = rng.choice(["1-0", "0-1", "1/2-1/2"])
        texts.append(str(game))
    return "\n\n".join(texts) + "\n"


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    """One file of each kind: a Polyglot book, a CTG and a Kvetka book, PGN games, a ChessBase base; and wrong
    ones: text named .bin, a CTG named .bin, a Polyglot book named .ctg and .pgn, an empty file, random bytes,
    a truncated CTG."""
    folder = tmp_path / "in"
    folder.mkdir()
    files = {"polyglot": polyglot_book(folder / "book.bin")}
    ctg.convert_book(files["polyglot"], folder / "book.ctg")
    files["ctg"] = folder / "book.ctg"
    kvetka.convert_book(files["polyglot"], folder / "book.kob")
    files["kvetka"] = folder / "book_0.kob"
    files["pgn"] = folder / "games.pgn"
    files["pgn"].write_text(pgn_text())
    chessbase.write_database_from_pgn(folder / "base.cbh", files["pgn"])
    files["chessbase"] = folder / "base.cbh"
    files["text.bin"] = folder / "text.bin"
    files["text.bin"].write_bytes(pgn_text(games=20).encode()[:16 * 40])  # whole "entries" of text
    files["ctg.bin"] = folder / "ctg.bin"
    files["ctg.bin"].write_bytes(files["ctg"].read_bytes())
    files["polyglot.ctg"] = folder / "polyglot.ctg"
    files["polyglot.ctg"].write_bytes(files["polyglot"].read_bytes())
    files["polyglot.pgn"] = folder / "polyglot.pgn"
    files["polyglot.pgn"].write_bytes(files["polyglot"].read_bytes())
    files["empty.bin"] = folder / "empty.bin"
    files["empty.bin"].write_bytes(b"")
    files["random.bin"] = folder / "random.bin"
    files["random.bin"].write_bytes(random.Random(5).randbytes(16 * 64))
    files["truncated.ctg"] = folder / "truncated.ctg"
    files["truncated.ctg"].write_bytes(files["ctg"].read_bytes()[:6000])
    return files


def _listing(folder: Path) -> dict[str, tuple[bytes, float, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime, p.stat().st_mode) for p in sorted(folder.iterdir())
            if p.is_file()}


# --- wrong formats -------------------------------------------------------------------------------------------

WRONG_BOOKS = [("text.bin", "PGN text (games)"), ("ctg.bin", "a CTG book"), ("empty.bin", "an empty file"),
               ("random.bin", "binary data of no known format"), ("polyglot.pgn", "a Polyglot book")]


@pytest.mark.parametrize(("name", "found"), WRONG_BOOKS[:4])
def test_merge_refuses_what_is_not_a_polyglot_book(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   inputs: dict[str, Path], name: str, found: str) -> None:
    for first, second in ((inputs[name], inputs["polyglot"]), (inputs["polyglot"], inputs[name])):
        code, out, err = run(capsys, "merge", first, second, "-o", tmp_path / "m.bin")
        assert code == 2 and out == ""
        assert err.startswith(f"chessformats: error: {inputs[name].name}: {found}")
        assert "merge reads Polyglot books" in err and err.count("\n") == 1
        assert not (tmp_path / "m.bin").exists()


@pytest.mark.parametrize(("name", "found"), [*WRONG_BOOKS[1:4], ("polyglot", "a Polyglot book")])
def test_build_refuses_what_is_not_games(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         inputs: dict[str, Path], name: str, found: str) -> None:
    """(The issue's ``build other.bin -o x.bin`` read a Polyglot book as PGN and wrote an empty book.)"""
    code, _, err = run(capsys, "build", inputs[name], "-o", tmp_path / "x.bin")
    assert code == 2
    assert err.startswith(f"chessformats: error: {inputs[name].name}: {found}, not games: build reads PGN files")
    assert not (tmp_path / "x.bin").exists()


@pytest.mark.parametrize(("name", "found"), WRONG_BOOKS[:4])
def test_convert_refuses_what_is_not_a_book_or_base(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    inputs: dict[str, Path], name: str, found: str) -> None:
    if name == "ctg.bin":  # a CTG book named .bin is a CTG book: converted as one
        code, out, _ = run(capsys, "convert", inputs[name], "-o", tmp_path / "x.kob")
        assert code == 0 and "elements written" in out
        return
    code, _, err = run(capsys, "convert", inputs[name], "-o", tmp_path / "x.ctg")
    assert code == 2 and f"{inputs[name].name}: {found}" in err
    # games: what convert writes from them, and the command that makes a book of them
    assert ("convert writes it to .cbh" in err and "chessformats build" in err) if name == "text.bin" else \
        "convert reads" in err
    assert list(tmp_path.iterdir()) == [tmp_path / "in"]


@pytest.mark.parametrize("command", ["info", "probe", "inspect"])
@pytest.mark.parametrize(("name", "found"), [WRONG_BOOKS[0], WRONG_BOOKS[3]])  # (an empty .bin: an empty book)
def test_reading_commands_say_what_a_file_is(capsys: pytest.CaptureFixture[str], inputs: dict[str, Path],
                                             command: str, name: str, found: str) -> None:
    code, out, err = run(capsys, command, inputs[name])
    assert code == 2 and out == ""
    if found == "PGN text (games)" and command != "probe":  # games: what reads them is said instead
        assert err.startswith(f"chessformats: error: {inputs[name].name}: PGN games: {command} reads books, bases "
                              "and Monty data; the games convert to a ChessBase base")
        return
    assert err == f"chessformats: error: {inputs[name].name}: not a file of any known format ({found}; --format " \
                  "forces one)\n"


@pytest.mark.parametrize("command", ["info", "probe"])
def test_a_file_is_read_as_what_its_content_is(capsys: pytest.CaptureFixture[str], inputs: dict[str, Path],
                                               command: str) -> None:
    """A CTG book named .bin is read as CTG, a Polyglot book named .ctg as Polyglot; a truncated CTG gets the CTG
    reader's own error (not "a Polyglot book with invalid moves")."""
    code, out, _ = run(capsys, command, inputs["ctg.bin"], "--json")
    assert code == 0 and '"format": "ctg"' in out if command == "info" else '"position"' in out
    code, out, _ = run(capsys, command, inputs["polyglot.ctg"], "--json")
    assert code == 0 and ('"format": "polyglot"' in out if command == "info" else '"uci": "e2e4"' in out)
    code, _, err = run(capsys, command, inputs["truncated.ctg"])
    assert code == 2 and "truncated.ctg: " in err and "page" in err and "polyglot" not in err.lower()


def test_convert_and_build_refuse_outputs_they_do_not_write(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           inputs: dict[str, Path]) -> None:
    code, _, err = run(capsys, "convert", inputs["chessbase"], "-o", tmp_path / "games.xlsx")
    assert code == 2 and "convert does not write files named like this: it writes .bin (Polyglot), .ctg" in err
    assert ".parquet (a table)" in err and not (tmp_path / "games.xlsx").exists()
    code, _, err = run(capsys, "convert", inputs["ctg"], "-o", tmp_path / "book.pgn")
    assert code == 2 and "a CTG book: convert writes it to .ctg" in err and "not to .pgn: a book holds positions" in err
    code, _, err = run(capsys, "merge", inputs["polyglot"], inputs["polyglot"], "-o", tmp_path / "m.ctg")
    assert code == 2 and "merge does not write files named like this: it writes .bin" in err
    code, _, err = run(capsys, "build", inputs["pgn"], "-o", tmp_path / "book.cbh")
    assert code == 2 and "it writes .bin, .ctg, .kob" in err
    assert list(tmp_path.iterdir()) == [tmp_path / "in"]


# --- missing companions --------------------------------------------------------------------------------------

def test_a_base_without_its_cbg_is_refused_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     inputs: dict[str, Path]) -> None:
    os.unlink(inputs["chessbase"].with_suffix(".cbg"))
    for argv in (("convert", inputs["chessbase"], "-o", tmp_path / "games.pgn"),
                 ("convert", inputs["chessbase"], "-o", tmp_path / "copy.cbh"),
                 ("build", inputs["chessbase"], "-o", tmp_path / "book.bin")):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "base.cbh: no base.cbg beside it: the games' moves are in it" in err, argv
    assert list(tmp_path.iterdir()) == [tmp_path / "in"]


def test_a_base_without_its_cbp_says_the_names_are_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           inputs: dict[str, Path]) -> None:
    os.unlink(inputs["chessbase"].with_suffix(".cbp"))
    code, _, err = run(capsys, "convert", inputs["chessbase"], "-o", tmp_path / "games.pgn")
    assert code == 0 and "no .cbp: player names unknown" in err
    assert (tmp_path / "games.pgn").read_text().count("[Event ") == 3


# --- existing outputs, folders --------------------------------------------------------------------------------

def _writes(inputs: dict[str, Path], out: Path) -> list[tuple[list[str | Path], list[Path]]]:
    """Each writing command with its output in ``out``: (argv without --force, the files it writes)."""
    return [
        (["build", inputs["pgn"], "-o", out / "b.bin", "--min-games", "1"], [out / "b.bin"]),
        (["build", inputs["pgn"], "-o", out / "b.ctg", "--min-games", "1"],
         [out / "b.ctg", out / "b.cto", out / "b.ctb"]),
        (["build", inputs["pgn"], "-o", out / "b.kob", "--min-games", "1"], [out / "b_0.kob", out / "b.kin"]),
        (["merge", inputs["polyglot"], inputs["polyglot"], "-o", out / "m.bin"], [out / "m.bin"]),
        (["convert", inputs["ctg"], "-o", out / "c.bin"], [out / "c.bin"]),
        (["convert", inputs["polyglot"], "-o", out / "c.ctg"], [out / "c.ctg", out / "c.cto", out / "c.ctb"]),
        (["convert", inputs["polyglot"], "-o", out / "c.kob"], [out / "c_0.kob", out / "c.kin"]),
        (["convert", inputs["chessbase"], "-o", out / "c.pgn"], [out / "c.pgn"]),
        (["convert", inputs["pgn"], "-o", out / "c.cbh"], [out / "c.cbh", out / "c.cbg", out / "c.cbp"]),
        (["inspect", inputs["polyglot"], "--html", out / "page.html"], [out / "page.html"]),
    ]


def test_an_existing_output_is_replaced_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         inputs: dict[str, Path]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for argv, files in _writes(inputs, out):
        for file in files:  # one of the files the command writes exists: refused, nothing touched
            file.write_bytes(b"precious")
            os.chmod(file, 0o640)
            before = _listing(out)
            code, _, err = run(capsys, *argv)
            assert code == 2 and "exists" in err and "--force replaces it" in err, (argv, err)
            assert _listing(out) == before, argv
            file.unlink()
        code, _, err = run(capsys, *argv)
        assert code == 0, (argv, err)
        os.chmod(files[0], 0o640)
        code, _, err = run(capsys, *argv)
        assert code == 2 and "exists" in err
        code, _, err = run(capsys, *argv, "--force")
        assert code == 0, (argv, err)
        assert stat.S_IMODE(files[0].stat().st_mode) == 0o640, argv  # the replaced file's mode is kept
    assert not [p.name for p in out.iterdir() if p.name.endswith((".tmp", ".lock"))]


def test_convert_to_a_base_adds_with_append_and_refuses_without(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                inputs: dict[str, Path]) -> None:
    """The issue's loss: ``convert x.pgn -o y.cbh`` replaced an existing base with fewer games, silently."""
    base = tmp_path / "y.cbh"
    more = tmp_path / "more.pgn"
    more.write_text(pgn_text(games=12, seed=2))
    assert run(capsys, "convert", more, "-o", base)[0] == 0
    code, _, err = run(capsys, "convert", inputs["pgn"], "-o", base)
    assert code == 2 and "--force replaces it, --append adds to it" in err
    with chessbase.open_database(base) as db:
        assert len(db) == 12
    assert run(capsys, "convert", inputs["pgn"], "-o", base, "--append")[0] == 0
    with chessbase.open_database(base) as db:
        assert len(db) == 15


def test_a_folder_as_output_is_refused_and_nothing_left(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        inputs: dict[str, Path]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for argv, files in _writes(inputs, out):
        files[0].mkdir()
        code, _, err = run(capsys, *argv)
        assert code == 2 and "is a folder" in err, (argv, err)
        assert sorted(p.name for p in out.iterdir()) == [files[0].name], argv
        files[0].rmdir()


def test_a_read_only_folder_is_refused_before_anything_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               inputs: dict[str, Path],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.chmod(out, 0o555)
    if os.geteuid() == 0:  # root writes anyway: the folder is made to look read-only as the kernel says it
        real = os.access
        monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if Path(path) == out else real(path, mode))
    try:
        for argv, _ in _writes(inputs, out):
            code, _, err = run(capsys, *argv)
            assert code == 2 and f"the folder {out} is not writable" in err, (argv, err)
            assert list(out.iterdir()) == []
    finally:
        os.chmod(out, 0o755)


def test_written_files_get_the_umask_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          inputs: dict[str, Path]) -> None:
    old = os.umask(0o027)
    try:
        out = tmp_path / "out"
        out.mkdir()
        for argv, files in _writes(inputs, out):
            assert run(capsys, *argv)[0] == 0, argv
            for file in files:
                assert stat.S_IMODE(file.stat().st_mode) == 0o640, (argv, file)
    finally:
        os.umask(old)


def test_concurrent_appends_lose_no_game(tmp_path: Path) -> None:
    """Three ``convert ... --append`` into one base at once: every game of each is in the base."""
    sources = []
    for number in range(3):
        source = tmp_path / f"games{number}.pgn"
        source.write_text(pgn_text(games=150, seed=10 + number, plies=40))
        sources.append(source)
    base = tmp_path / "base.cbh"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"),
                                                                 os.environ.get("PYTHONPATH", "")])}
    processes = [subprocess.Popen([sys.executable, "-m", "chessformats.cli", "convert", str(source), "-o", str(base),
                                   "--append"], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for source in sources]
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        assert b"150 games added" in err
    with chessbase.open_database(base) as db:
        events = sorted(game.to_pgn().headers["Event"] for game in db)
    assert len(events) == 450
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith((".tmp", ".lock"))]


# --- one vocabulary ---------------------------------------------------------------------------------------------

def test_moves_end_at_the_first_word_that_is_not_a_move(capsys: pytest.CaptureFixture[str],
                                                        inputs: dict[str, Path]) -> None:
    assert end_moves(["probe", "--moves", "e4", "e5", "book.bin"]) == ["probe", "--moves=e4", "--moves=e5",
                                                                        "book.bin"]
    assert end_moves(["probe", "b.bin", "--moves", "Nf3", "O-O", "exd5", "e7e8q", "--json"]) == [
        "probe", "b.bin", "--moves=Nf3", "--moves=O-O", "--moves=exd5", "--moves=e7e8q", "--json"]
    code, out, _ = run(capsys, "probe", "--moves", "e4", "e5", inputs["polyglot"])
    assert code == 0 and "Nf3" in out


def test_old_option_spellings_still_work_and_say_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "docs", "--out", tmp_path / "docs")
    assert code == 0 and "--out is deprecated: use -o/--output" in err and (tmp_path / "docs" / "ctg.md").exists()
    code, _, _ = run(capsys, "docs", "-o", tmp_path / "docs2")
    assert code == 0 and (tmp_path / "docs2" / "ctg.md").exists()
    with pytest.raises(SystemExit):  # one of the two is needed
        main(["docs"])
    assert "required: -o/--output" in capsys.readouterr().err


def test_build_reports_the_name_it_wrote_and_probe_takes_the_name_given(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       inputs: dict[str, Path]) -> None:
    code, _, err = run(capsys, "build", inputs["pgn"], "-o", tmp_path / "hh.kob", "--min-games", "1")
    assert code == 0 and f"written to {tmp_path / 'hh_0.kob'}" in err
    code, out, _ = run(capsys, "probe", tmp_path / "hh.kob", "--fen", "startpos")
    assert code == 0 and "not in book" not in out


def test_not_in_book_exits_1_in_every_book_format(capsys: pytest.CaptureFixture[str],
                                                  inputs: dict[str, Path]) -> None:
    for name in ("polyglot", "ctg", "kvetka"):
        code, _, _ = run(capsys, "probe", inputs[name], "--moves", "a4")
        assert code == 1, name
        code, _, _ = run(capsys, "probe", inputs[name])
        assert code == 0, name


def test_help_lists_every_command_and_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("tour", "info", "probe", "inspect", "build", "merge", "convert", "docs", "export", "formats"):
        assert command in out
    assert "``" not in out
    assert "exit status:" in out and "  1  nothing found" in out and "numbering: games count from 1" in out
    with pytest.raises(SystemExit):
        main(["probe", "--help"])
    assert "exit status:" in capsys.readouterr().out


def test_dask_without_the_extra_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            inputs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails as when dask is not installed
    code, _, err = run(capsys, "build", inputs["pgn"], "-o", tmp_path / "x.bin", "--dask")
    assert code == 2 and err == "chessformats: error: --dask needs Dask: pip install 'chessformats[dask]'\n"
    assert not (tmp_path / "x.bin").exists()


def test_concurrent_library_appends_lose_no_game(tmp_path: Path) -> None:
    """``append_games`` from three threads at once (the library's own lock, without the command line)."""
    import io
    import threading

    base = tmp_path / "base.cbh"
    batches = []
    for number in range(3):
        handle = io.StringIO(pgn_text(games=40, seed=20 + number))
        batches.append(list(iter(lambda: chess.pgn.read_game(handle), None)))  # noqa: B023 (called here)
    assert [len(games) for games in batches] == [40, 40, 40]
    threads = [threading.Thread(target=chessbase.append_games, args=(base, games)) for games in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with chessbase.open_database(base) as db:
        assert len(db) == 120


def test_inspect_record_shows_count_records_default_one(capsys: pytest.CaptureFixture[str],
                                                        inputs: dict[str, Path]) -> None:
    """``inspect FILE.cto --record N`` showed every entry from N on (8,134 lines) where --count says 1."""
    index = inputs["ctg"].with_suffix(".cto")
    code, out, _ = run(capsys, "inspect", index, "--record", "1")
    assert code == 0 and re.findall(r"pages\[\d+\]", out) == ["pages[1]"]
    code, out, _ = run(capsys, "inspect", index, "--record", "0", "--count", "2")
    assert code == 0 and re.findall(r"pages\[\d+\]", out) == ["pages[0]", "pages[1]"]


def test_info_names_missing_companions(capsys: pytest.CaptureFixture[str], inputs: dict[str, Path]) -> None:
    os.unlink(inputs["chessbase"].with_suffix(".cbt"))
    code, out, _ = run(capsys, "info", inputs["chessbase"], "--json")
    assert code == 0 and "no .cbt: tournaments unknown" in out


def test_inspect_bit_labels_never_run_into_the_bits(capsys: pytest.CaptureFixture[str],
                                                    inputs: dict[str, Path]) -> None:
    """A CTG board's bits past 99 were labelled "bits 104-1081010 0..." (the label ran into the picture)."""
    code, out, _ = run(capsys, "inspect", inputs["ctg"], "--fen", "startpos")
    labels = re.findall(r"^\S+  (bits? \d+(?:-\d+)?)( +)[01.]", out, flags=re.MULTILINE)
    assert code == 0 and any(int(label.split()[1].split("-")[0]) >= 100 for label, _ in labels)
    starts = {len(label) + len(gap) for label, gap in labels}
    assert len(starts) == 1  # every picture starts in one column


def test_build_counts_games_not_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The Hedgehog base: 231 records, 27 of them guiding texts (the corpus's README); build said "231 games"."""
    from conftest import find_corpus

    base = find_corpus("chessbase", "morphy_hedgehog", "Hedgehog.cbh")
    code, _, err = run(capsys, "build", base, "-o", tmp_path / "h.bin", "--min-games", "1")
    assert code == 0 and "27 records of the bases are not games" in err and "\n204 games, " in err


def test_book_conversions_report_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """convert_book(progress=...) is told as the source is walked and as the target is written; the command shows
    it on a terminal."""
    import io

    from rich.console import Console

    from chessformats.books.convert import convert_book
    from conftest import find_corpus

    main_module = sys.modules["chessformats.cli.main"]  # (the package's ``main`` is the function)

    source = find_corpus("polyglot", "picochess_fun.bin")
    calls: list[tuple[str, int]] = []
    report = convert_book(source, tmp_path / "a.ctg", progress=lambda stage, count: calls.append((stage, count)))
    reading = [count for stage, count in calls if stage == "reading"]
    assert reading and reading == sorted(reading) and calls[-1] == ("writing", report.counts["positions"])
    screen = io.StringIO()
    monkeypatch.setattr(main_module, "_console", lambda stderr=False: Console(file=screen, force_terminal=True))
    assert main(["convert", str(source), "-o", str(tmp_path / "b.ctg")]) == 0
    assert "reading picochess_fun.bin: " in screen.getvalue() and " positions" in screen.getvalue()


def test_a_command_that_produces_nothing_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 inputs: dict[str, Path]) -> None:
    code, _, err = run(capsys, "build", inputs["pgn"], "-o", tmp_path / "x.bin", "--min-games", "100")
    assert code == 1 and "nothing written" in err
    elsewhere = polyglot_book(tmp_path / "later.bin", ["e4", "e5", "Nf3"])
    data = elsewhere.read_bytes()
    elsewhere.write_bytes(b"".join(data[i:i + 16] for i in range(0, len(data), 16)
                                   if data[i:i + 8] != struct.pack(">Q", chess.polyglot.zobrist_hash(chess.Board()))))
    code, _, err = run(capsys, "convert", elsewhere, "-o", tmp_path / "x.ctg")  # the start position is not in it
    assert code == 1 and "nothing written" in err and "2 entries" in err


def test_builds_old_format_option_sets_the_output_format(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        inputs: dict[str, Path]) -> None:
    code, _, err = run(capsys, "build", inputs["pgn"], "-o", tmp_path / "book.dat", "--format", "ctg",
                       "--min-games", "1")
    assert code == 0 and "--format is deprecated: use --to" in err
    assert (tmp_path / "book.dat").exists() and (tmp_path / "book.cto").exists()
    (tmp_path / "book.dat").unlink()  # its index alone is an output that exists
    code, _, err = run(capsys, "build", inputs["pgn"], "-o", tmp_path / "book.dat", "--to", "ctg")
    assert code == 2 and "exists (book.cto, book.ctb)" in err
    code, _, err = run(capsys, "build", inputs["pgn"], "-o", tmp_path / "other.dat", "--to", "polyglot",
                       "--min-games", "1")
    assert code == 0
    with chess.polyglot.open_reader(tmp_path / "other.dat") as reader:
        assert len(list(reader.find_all(chess.Board(), minimum_weight=0))) > 0


def test_info_says_it_is_reading_on_a_terminal(capsys: pytest.CaptureFixture[str], inputs: dict[str, Path],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    screen = io.StringIO()
    main_module = sys.modules["chessformats.cli.main"]
    monkeypatch.setattr(main_module, "_console", lambda stderr=False: Console(file=screen, force_terminal=True))
    assert main(["info", str(inputs["ctg"])]) == 0
    assert "reading book.ctg" in screen.getvalue() and "data_pages" in screen.getvalue()
