"""``info``, ``inspect`` and ``probe`` as a new user meets them (the second trial's findings): an archive's base
read once and with its password, every option of ``inspect`` obeyed or refused, one numbering for every format,
exit statuses that do not depend on the output form, and messages that say what a user can do.

Inputs are made here: PGN games played at random by python-chess, a base and archives written from them by the
library, Polyglot books packed with ``struct`` from python-chess's keys.
"""

from __future__ import annotations

import random
import re
import struct
from pathlib import Path

import chess
import chess.polyglot
import pytest
from test_trust import pgn_text

from chessformats import chessbase
from chessformats.cli import main

PASSWORD = "secret"


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A base of 5 games, a .cbv and a .cbz (password ``secret``) of it beside it."""
    folder = tmp_path_factory.mktemp("base")
    pgn = folder / "games.pgn"
    pgn.write_text(pgn_text(games=5, plies=12))
    chessbase.write_database_from_pgn(folder / "base.cbh", pgn)
    assert main(["convert", str(folder / "base.cbh"), "-o", str(folder / "base.cbv")]) == 0
    assert main(["convert", str(folder / "base.cbh"), "-o", str(folder / "base.cbz"), "--password", PASSWORD]) == 0
    return folder / "base.cbh"


def test_info_of_an_enciphered_archive_with_its_password(capsys: pytest.CaptureFixture[str], base: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from chessformats.formats.chessbase import archive

    extracted = []
    real = archive.extract_to_temporary

    def counted(*args: object, **kwargs: object) -> object:
        extracted.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(archive, "extract_to_temporary", counted)
    for name in ("base.cbz", "base.cbv"):
        extracted.clear()
        code, out, err = run(capsys, "info", base.with_name(name), "--password", PASSWORD, "--json")
        assert code == 0, err
        assert '"games": 5' in out and '"findings": []' in out
        assert len(extracted) == 1, f"{name}: the archive extracted {len(extracted)} times"


@pytest.mark.parametrize("archive", ["base.cbv", "base.cbz"])
def test_inspect_an_archive_by_game_and_player(capsys: pytest.CaptureFixture[str], base: Path, archive: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``--game``/``--player`` show the base inside the archive, as for the base itself (never the archive's
    header, the option dropped); the temporary folder it is extracted to is removed."""
    from chessformats.formats.chessbase import archive as archives

    folders = []
    real = archives.extract_to_temporary

    def noted(*args: object, **kwargs: object) -> tuple[str, str]:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        folders.append(found[0])
        return found

    monkeypatch.setattr(archives, "extract_to_temporary", noted)
    path = base.with_name(archive)
    code, out, err = run(capsys, "inspect", path, "--game", "3", "--password", PASSWORD)
    _, direct, _ = run(capsys, "inspect", base, "--game", "3")
    assert code == 0, err
    assert out == direct and "games[3].kind" in out and "White 2 - Black 2" in out
    code, _, err = run(capsys, "inspect", path, "--game", "99", "--password", PASSWORD)
    assert code == 2 and "no game 99 in base.cbh (games are 1..5)" in err
    code, out, err = run(capsys, "inspect", path, "--player", "White 4", "--password", PASSWORD)
    assert code == 0 and re.search(r"players\[\d+\]\.last_name .*=> White 4", out), err
    code, _, err = run(capsys, "inspect", path, "--game", "1", "--record", "2", "--password", PASSWORD)
    assert code == 2 and "give one or the other" in err
    assert folders and not any(Path(folder).exists() for folder in folders)
    if archive == "base.cbz":  # its bytes on disk are enciphered: the way to its base is said
        code, _, err = run(capsys, "inspect", path, "--password", PASSWORD)
        assert code == 2 and "--game N or --player NAME show the base inside it" in err


def test_chessbase_records_count_from_0(capsys: pytest.CaptureFixture[str], base: Path) -> None:
    """``--record N`` is the .cbh's record N from 0, as offsets count (46 x N): 0 the header, N game N."""
    code, out, err = run(capsys, "inspect", base, "--record", "0")
    assert code == 0, err
    assert out.startswith("00000000  header  46 bytes") and "header.record_size    = 46" in out
    _, by_record, _ = run(capsys, "inspect", base, "--record", "2")
    _, by_game, _ = run(capsys, "inspect", base, "--game", "2")
    assert by_record == by_game and by_record.startswith(f"{2 * 46:08x}  games[2]")
    code, _, err = run(capsys, "inspect", base, "--record", "6")
    assert code == 2 and "no record 6 in base.cbh (records are 0..5: 0 is the header, N is game N)" in err
    code, out, _ = run(capsys, "inspect", base, "--record", "0", "--count", "2")
    assert code == 0 and "games[1].kind" in out and "games[2]" not in out


def _book(folder: Path) -> Path:
    """A Polyglot book of 1. e4 e5 2. Nf3, packed by hand with python-chess's keys."""
    book = folder / "book.bin"
    board, rows = chess.Board(), []
    for san in ("e4", "e5", "Nf3"):
        move = board.parse_san(san)
        raw = move.to_square | move.from_square << 6
        rows.append((chess.polyglot.zobrist_hash(board), raw, 1, 0))
        board.push(move)
    book.write_bytes(b"".join(struct.pack(">QHHI", *row) for row in sorted(rows)))
    return book


def test_count_past_the_end_is_clamped_with_a_warning(capsys: pytest.CaptureFixture[str], base: Path,
                                                      tmp_path: Path) -> None:
    """As for Polyglot entries: the games there are, and a warning saying how many."""
    code, out, err = run(capsys, "inspect", base, "--game", "4", "--count", "3")
    assert code == 0 and "games[4].kind" in out and "games[5].kind" in out and "games[6]" not in out
    assert "warning: --count 3 from game 4: the last is 5 (2 shown)" in err
    code, out, err = run(capsys, "inspect", _book(tmp_path), "--record", "1", "--count", "5")
    assert code == 0 and "entries[2]" in out and "entries[3]" not in out
    assert "warning: --count 5 from entry 1: the last is 2 (2 shown)" in err
    code, out, err = run(capsys, "inspect", _book(tmp_path), "--record", "1", "--count", "2")
    assert code == 0 and "entries[2]" in out and "warning" not in err  # (up to the last: nothing clamped)


def test_an_entity_file_shows_its_own_records(capsys: pytest.CaptureFixture[str], base: Path) -> None:
    with chessbase.open_database(base) as db:
        players = [db.players[n].name for n in range(len(db.players))]
    code, out, err = run(capsys, "inspect", base.with_suffix(".cbp"), "--record", "2")
    assert code == 0, err
    assert re.match(r"[0-9a-f]{8}  players\[2\]  \d+ bytes  => " + re.escape(players[2]), out)
    assert "games[" not in out
    code, _, err = run(capsys, "inspect", base.with_suffix(".cbp"), "--record", str(len(players)))
    assert code == 2 and f"no record {len(players)} in base.cbp (records are 0..{len(players) - 1})" in err
    code, _, err = run(capsys, "inspect", base.with_suffix(".cbg"), "--record", "0")
    assert code == 2 and "--game N shows game N's bytes" in err


def test_nothing_found_is_exit_status_1_in_every_form(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """docs/cli.md: 1 when the position is not in the book, whatever the output's form; inspect --fen too."""
    book = _book(tmp_path)
    for form in ((), ("--json",)):
        code, out, _ = run(capsys, "probe", book, "--moves", "h3", *form)
        assert code == 1, form
        code, out, _ = run(capsys, "probe", book, "--moves", "e4", *form)
        assert code == 0 and "e5" in out, form
    code, out, err = run(capsys, "inspect", book, "--moves", "h3")
    assert code == 1 and not out and "position not in book" in err
    code, out, _ = run(capsys, "inspect", book, "--moves", "e4")
    assert code == 0 and "entries[" in out


@pytest.mark.parametrize(("option", "message"), [
    (("--offset", "-5"), "--offset -5: not in book.bin (its 48 bytes are at offsets 0..47)"),
    (("--offset", "48"), "--offset 48: not in book.bin (its 48 bytes are at offsets 0..47)"),
    (("--offset", "5", "--length", "0"), "--length 0: give 1 or more bytes"),
    (("--record", "-1"), "no such record: -1 (records count from 0)"),
    (("--record", "0", "--count", "0"), "--count 0: give 1 or more records"),
])
def test_numbers_outside_the_numbering_are_refused_with_the_range(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path, option: tuple[str, ...],
                                                                  message: str) -> None:
    code, out, err = run(capsys, "inspect", _book(tmp_path), *option)
    assert code == 2 and not out and message in err
    code, out, _ = run(capsys, "inspect", _book(tmp_path), "--offset", "47", "--length", "1")
    assert code == 0 and out.startswith("00000020  entries[2]")


def test_monty_labels_say_the_cli_number_beside_the_file_path(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    """--game counts from 1 (docs/cli.md), the paths and the API from 0: the first target says both."""
    from chessformats import monty

    rng = random.Random(5)
    games = []
    for _ in range(3):
        board, plies = chess.Board(), []
        for _ in range(4):
            move = rng.choice(list(board.legal_moves))
            plies.append(monty.Ply(move, 0.5))
            board.push(move)
        games.append(monty.Game(chess.Board(), plies, "1/2-1/2"))
    path = tmp_path / "games.montyvalue"
    monty.write_games(path, games, format="value")
    code, out, err = run(capsys, "inspect", path, "--game", "2")
    assert code == 0, err
    assert out.splitlines()[0].endswith("games[1].header  43 bytes  => game 2 (--game 2; games[1]: the file's games "
                                        "count from 0)")
    second = games[1].plies[0].move.uci()
    assert "games[1].plies[0].move" in out and f"=> {second}" in out  # games[1] is game 2: the API's [1]
    code, out, _ = run(capsys, "inspect", path, "--game", "3", "--ply", "2")
    assert code == 0 and out.splitlines()[0].endswith("=> game 3 (--game 3; games[2]: the file's games count from 0)")
    with pytest.raises(SystemExit):
        main(["inspect", "--help"])
    assert "Monty's\n  games[0] is --game 1" in capsys.readouterr().out
    pq = pytest.importorskip("pyarrow.parquet")
    code, _, err = run(capsys, "convert", path, "-o", tmp_path / "plies.parquet")
    assert code == 0 and "the table's game column counts from 0, as the file and the library do: game 0 is " \
        "inspect --game 1" in err
    table = pq.read_table(tmp_path / "plies.parquet").to_pydict()
    assert table["move"][table["game"].index(1)] == second  # row game 1 is --game 2


def test_pgn_is_said_to_be_read_by_convert_and_build(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    games = tmp_path / "games.pgn"
    games.write_text(pgn_text(games=2))
    for command in ("info", "inspect"):
        code, out, err = run(capsys, command, games)
        assert code == 2 and not out
        assert f"games.pgn: PGN games: {command} reads books, bases and Monty data; the games convert to a ChessBase " \
            "base (chessformats convert games.pgn -o games.cbh)" in err and "build games.pgn -o book.bin" in err
        assert "not a file of any known format" not in err


def test_formats_lists_the_commands_each_format_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """What ``formats`` says a format's commands are is what the commands do (convert's and build's own tables)."""
    from chessformats.cli.convert import BOOKS
    from chessformats.cli.main import BUILT

    code, out, _ = run(capsys, "formats")
    assert code == 0
    said = dict(re.findall(r"^(\w+) .*\n\s+commands: (.*)$", out, flags=re.MULTILINE))
    assert set(said) == {"chessbase", "ctg", "kvetka", "monty", "polyglot"}
    for book in BOOKS:  # every book converts to every other book and to a table, and build writes it
        others = ", ".join([other for other in BOOKS if other != book] + ["parquet"])
        assert f"convert (to {others})" in said[book] and "probe" in said[book] and "build (writes it)" in said[book]
        assert book in BUILT
    assert "convert (to parquet)" in said["monty"] and "probe" not in said["monty"]
    assert "build (reads its games)" in said["chessbase"] and "convert (to pgn, chessbase" in said["chessbase"]


def test_members_of_extract_are_not_said_to_be_required() -> None:
    from chessformats.cli.reference import cli_reference

    page = cli_reference()
    assert "| `MEMBERS ...` | only these members (default: all) |" in page
    assert "| `GAMES ...` |" in page and "(required)" in page.split("| `GAMES ...` |")[1].split("\n")[0]


def test_a_bug_shows_its_traceback_and_exit_status_3(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyError/IndexError the command line did not raise itself is a bug: not one line that hides it."""
    from chessformats.formats.polyglot import read

    book = _book(tmp_path)

    def broken(*args: object, **kwargs: object) -> object:
        return {}["entries"]  # a lookup that fails, as a bug deep in a reader would

    monkeypatch.setattr(read, "open_book", broken)
    code, out, err = run(capsys, "inspect", book, "--record", "0")
    assert code == 3 and not out
    assert "Traceback (most recent call last)" in err and "KeyError: 'entries'" in err
    assert "chessformats: internal error: KeyError: 'entries'\nThis is a bug of chessformats" in err
    monkeypatch.undo()
    # a user's errors stay one line, exit status 2: the command line's own refusal, python-chess refusing a FEN
    for argv, said in ((("inspect", book, "--record", "7"), "no such entry"),
                       (("probe", book, "--fen", "not a fen"), "not a fen"),
                       (("info", tmp_path / "missing.bin"), "missing.bin")):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.startswith("chessformats: error: ") and said in err, argv
        assert "Traceback" not in err and len(err.splitlines()) == 1, argv


def test_exit_status_3_is_documented() -> None:
    from chessformats.cli.main import EPILOG

    assert "\n  3  an internal error (a bug)" in EPILOG
    assert "3  an internal error (a bug)" in (Path(__file__).parents[2] / "docs" / "cli.md").read_text()
