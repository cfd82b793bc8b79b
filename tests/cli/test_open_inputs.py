"""What the reading commands open, and the position they are given (the new-user trial's defects): UCI moves
checked, Chess960 FENs, unsorted and damaged Polyglot books, empty books, pipes, Kvetka book names, misnamed files.

Inputs are made here: Polyglot books packed with ``struct`` from python-chess's keys (python-chess's reader is the
oracle of what a book holds), PGN text written by python-chess.
"""

from __future__ import annotations

import gzip
import os
import struct
import subprocess
import sys
import threading
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from chessformats.cli import main
from chessformats.engine.errors import FormatError
from conftest import REPO_ROOT

LINE = ["e4", "e5", "Nf3", "Nc6"]


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def raw_move(move: chess.Move, promotion: int = 0) -> int:
    """A move as Polyglot stores it (castling as the king taking its rook, as python-chess's reader expects)."""
    to, start = move.to_square, move.from_square
    return (to & 7) | (to >> 3) << 3 | (start & 7) << 6 | (start >> 3) << 9 | promotion << 12


def rows_of(line: list[str], board: chess.Board | None = None) -> list[tuple[int, int, int, int]]:
    board = board or chess.Board()
    rows = []
    for san in line:
        move = board.parse_san(san)
        rows.append((chess.polyglot.zobrist_hash(board), raw_move(move), 10, 0))
        board.push(move)
    return rows


def write_book(path: Path, rows: list[tuple[int, int, int, int]]) -> Path:
    path.write_bytes(b"".join(struct.pack(">QHHI", *row) for row in rows))
    return path


def oracle(path: Path, board: chess.Board) -> list[str]:
    """The moves python-chess's reader finds for ``board``."""
    with chess.polyglot.open_reader(path) as reader:
        return [board.san(entry.move) for entry in reader.find_all(board)]


def pgn_games(count: int = 4) -> str:
    games = []
    for number in range(count):
        game = chess.pgn.Game()
        game.headers["Result"] = "1-0"
        node = game
        for san in LINE[:2 + number % 3]:
            node = node.add_variation(node.board().parse_san(san))
        games.append(str(game))
    return "\n\n".join(games) + "\n"


# --- the position: UCI moves, Chess960 ------------------------------------------------------------------------

@pytest.mark.parametrize(("moves", "refused"), [(["e7e5"], "e7e5"), (["a1a8", "h8h1"], "a1a8"),
                                               (["e4", "e2e4"], "e2e4")])
def test_an_illegal_uci_move_is_refused_as_an_illegal_san_move_is(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  moves: list[str], refused: str) -> None:
    book = write_book(tmp_path / "book.bin", sorted(rows_of(LINE)))
    code, out, err = run(capsys, "probe", book, "--moves", *moves)
    assert code == 2 and out == ""
    assert err.startswith(f"chessformats: error: illegal uci: {refused!r} in ") and err.count("\n") == 1


def test_legal_uci_and_san_moves_reach_the_same_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = write_book(tmp_path / "book.bin", sorted(rows_of(LINE)))
    assert run(capsys, "probe", book, "--moves", "e2e4", "e5", "--json")[:2] == \
        run(capsys, "probe", book, "--moves", "e4", "e7e5", "--json")[:2]
    assert '"san": "Nf3"' in run(capsys, "probe", book, "--moves", "e2e4", "e7e5", "--json")[1]


CHESS960 = "n1qrbkrn/pp1ppppp/8/2p5/4N3/2P5/PP1PPPPb/NBQRBKR1 b GDgd - 0 3"


@pytest.mark.parametrize("fen", [CHESS960, CHESS960.replace("GDgd", "KQkq")])
def test_a_chess960_fen_keeps_its_castling_rights(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  fen: str) -> None:
    """Shredder-FEN letters (and KQkq of a king off e8) are Chess960 castling rights: the probe finds the book's
    castling move under the Chess960 key, as python-chess's reader does."""
    board = chess.Board(CHESS960, chess960=True)
    castle = board.parse_san("O-O")
    book = write_book(tmp_path / "960.bin", [(chess.polyglot.zobrist_hash(board), raw_move(castle), 7, 0)])
    assert oracle(book, board) == ["O-O"]
    code, out, err = run(capsys, "probe", book, "--fen", fen, "--json")
    assert code == 0 and '"san": "O-O"' in out and err == ""


def test_castling_rights_no_variant_allows_are_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """K with no rook on the king's side (in neither variant a castling): the right is dropped, and the warning
    says so. (KQkq of a rook that left h1 for g1 is a Chess960 right, as the book builder reads it.)"""
    book = write_book(tmp_path / "book.bin", sorted(rows_of(LINE)))
    code, _, err = run(capsys, "probe", book, "--fen", "r3k2r/8/8/8/8/8/8/R3K3 w KQkq - 0 1")
    assert code == 1
    assert "warning: the FEN's castling rights 'KQkq' name castlings the position cannot have" in err
    assert "kept 'Qkq'" in err


# --- Polyglot books: unsorted, damaged --------------------------------------------------------------------------

@pytest.mark.filterwarnings("always")
def test_a_probe_of_an_unsorted_book_finds_every_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Entries in descending key order: the quick probe (a bisection) misses; the whole book is then searched and
    the warning says the book is not sorted."""
    rows = rows_of(LINE)
    book = write_book(tmp_path / "unsorted.bin", sorted(rows, reverse=True))
    board, warned = chess.Board(), 0
    for san in LINE:
        code, out, err = run(capsys, "probe", book, "--fen", board.fen(), "--json")
        assert code == 0 and f'"san": "{san}"' in out, (san, err)
        warned += "unsorted.bin: entries are not sorted by key" in err
        board.push_san(san)
    assert warned  # at least one position was missed by the quick probe, and said
    code, out, _ = run(capsys, "probe", book, "--moves", *LINE)  # a position the book does not have
    assert code == 1 and "not in book" in out


@pytest.mark.filterwarnings("always")  # (each command's warning, as a new process would show it)
def test_a_book_with_a_damaged_entry_is_read_saying_which(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One entry whose move has promotion code 5 (no piece): python-chess reads the rest of the book; so do info
    and probe, naming the entry in a warning."""
    start = chess.polyglot.zobrist_hash(chess.Board())
    book = write_book(tmp_path / "damaged.bin", [(start, raw_move(chess.Move.from_uci("e2e4")), 3, 0),
                                                 (start, raw_move(chess.Move.from_uci("a7a8")) | 5 << 12, 1, 0)])
    assert oracle(book, chess.Board()) == ["e4"]
    said = "damaged.bin: a damaged book: no Polyglot move in entry 1 (offset 16: entries[1].move.promotion: expected"
    code, out, err = run(capsys, "info", book)
    assert code == 0 and "Polyglot" in out and "entries: 2" in out and said in err
    for forced in ((), ("--format", "polyglot")):
        code, out, err = run(capsys, "probe", book, *forced, "--json")
        assert code == 0 and '"san": "e4"' in out and out.count('"san"') == 1 and said in err


def test_random_bytes_are_not_a_damaged_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The sniffer takes a few bad entries among sorted ones, not bytes whose moves are mostly not moves."""
    rows = sorted(rows_of(LINE))
    bad = [(key, move | 5 << 12, weight, learn) for key, move, weight, learn in rows]
    book = write_book(tmp_path / "bad.bin", [rows[0], *bad[1:]])
    code, _, err = run(capsys, "info", book)
    assert code == 2 and "not a file of any known format (binary data" in err


# --- an empty book ----------------------------------------------------------------------------------------------

def test_an_empty_bin_is_an_empty_polyglot_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """build (as ``polyglot make-book``) writes a book of no entries as an empty file, which python-chess reads as
    an empty book: so do info and probe. An empty file of another name is still said to be one."""
    book = tmp_path / "empty.bin"
    book.write_bytes(b"")
    with chess.polyglot.open_reader(book) as reader:
        assert len(reader) == 0
    code, out, err = run(capsys, "info", book)
    assert code == 0 and "Polyglot" in out and "entries: 0" in out and err == ""
    code, out, err = run(capsys, "probe", book)
    assert code == 1 and "not in book" in out and err == ""
    for name in ("empty.ctg", "empty.dat"):
        (tmp_path / name).write_bytes(b"")
        code, _, err = run(capsys, "info", tmp_path / name)
        assert code == 2 and "not a file of any known format (an empty file;" in err


# --- a book's name ----------------------------------------------------------------------------------------------

def test_a_kvetka_book_is_read_by_its_name_as_the_library_reads_it(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from chessformats import kvetka

    polyglot = write_book(tmp_path / "line.bin", sorted(rows_of(LINE)))
    kvetka.convert_book(polyglot, tmp_path / "k book.kob")
    with kvetka.open_book(tmp_path / "k book") as book:
        expected = book.probe(chess.Board())
        assert expected is not None
    for name in ("k book", "k book.kob", "k book_0.kob"):
        code, out, err = run(capsys, "probe", tmp_path / name, "--json")
        assert code == 0 and f'"games": {expected.games}' in out and '"san": "e4"' in out, (name, err)
        code, out, _ = run(capsys, "info", tmp_path / name)
        assert code == 0 and "Kvetka" in out
    code, out, err = run(capsys, "probe", tmp_path / "k boo")
    assert code == 2 and out == ""
    assert err == f"chessformats: error: {tmp_path / 'k boo'}: no such file (nor k boo_0.kob or k boo.ctg)\n"
    # the first file under another name: the library does not read it (it finds a book by NAME_0.kob): nor does the
    # command line, which says what to rename it to
    (tmp_path / "single.kob").write_bytes((tmp_path / "k book_0.kob").read_bytes())
    with pytest.raises(FormatError, match=r"no single_0\.kob"):
        kvetka.open_book(tmp_path / "single.kob")
    code, _, err = run(capsys, "info", tmp_path / "single.kob")
    assert code == 2 and "single.kob: a Kvetka book's first file, not named NAME_0.kob" in err
    assert "rename it single_0.kob" in err and err.count("\n") == 1


# --- standard input, a pipe ---------------------------------------------------------------------------------------

def _command(tmp_path: Path, *argv: str | Path, stdin: bytes | Path) -> subprocess.CompletedProcess[bytes]:
    """The command in a process of its own, ``stdin`` piped in (a file: redirected), temporary files made under
    ``tmp_path/tmp``."""
    temporary = tmp_path / "tmp"
    temporary.mkdir(exist_ok=True)
    environment = {**os.environ, "TMPDIR": str(temporary),
                   "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "chessformats.cli", *map(str, argv)]
    if isinstance(stdin, Path):
        with stdin.open("rb") as handle:
            return subprocess.run(command, stdin=handle, capture_output=True, env=environment, timeout=120,
                                  check=False)
    return subprocess.run(command, input=stdin, capture_output=True, env=environment, timeout=120, check=False)



def test_standard_input_is_read_through_a_temporary_copy(tmp_path: Path) -> None:
    """A book piped into probe (as /dev/stdin) or redirected (as -), and gzip-compressed PGN piped into build (as
    -) are read as the files would be; the temporary copies are gone when the command ends."""
    book = write_book(tmp_path / "book.bin", sorted(rows_of(LINE)))
    done = _command(tmp_path, "probe", "/dev/stdin", "--json", stdin=book.read_bytes())
    assert done.returncode == 0 and b'"san": "e4"' in done.stdout, done.stderr
    done = _command(tmp_path, "probe", "-", "--json", stdin=book)  # (a file redirected into '-')
    assert done.returncode == 0 and b'"san": "e4"' in done.stdout, done.stderr
    games = pgn_games()
    done = _command(tmp_path, "build", "-", "-o", tmp_path / "built.bin", "--min-games", "1",
                    stdin=gzip.compress(games.encode()))
    assert done.returncode == 0, done.stderr
    (tmp_path / "games.pgn").write_text(games)
    assert main(["build", str(tmp_path / "games.pgn"), "-o", str(tmp_path / "direct.bin"), "--min-games", "1"]) == 0
    assert (tmp_path / "built.bin").read_bytes() == (tmp_path / "direct.bin").read_bytes() != b""
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_base_of_several_files_cannot_come_through_a_pipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A .cbh written into a named pipe: its base's other files cannot come with it: refused in one line."""
    from chessformats import chessbase

    (tmp_path / "games.pgn").write_text(pgn_games())
    chessbase.write_database_from_pgn(tmp_path / "base.cbh", tmp_path / "games.pgn")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=((tmp_path / "base.cbh").read_bytes(),))
    writer.start()
    try:
        code, out, err = run(capsys, "info", fifo)
    finally:
        writer.join(timeout=60)
    assert code == 2 and out == ""
    assert err == ("chessformats: error: pipe: a ChessBase base's .cbh, whose games are in the files beside it "
                   "(.cbg, ...), which a pipe cannot bring: give the .cbh's path (or pipe a .cbv archive)\n")


# --- a file of a known kind under a name its reader cannot take ----------------------------------------------------

def test_compressed_pgn_without_its_name_is_refused_saying_what_to_rename_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    packed = tmp_path / "noext"
    packed.write_bytes(gzip.compress(pgn_games().encode()))
    code, _, err = run(capsys, "build", packed, "-o", tmp_path / "x.bin")
    assert code == 2 and "noext: gzip-compressed PGN named without .pgn.gz" in err
    assert "rename it noext.pgn.gz" in err and not (tmp_path / "x.bin").exists()
    packed.rename(tmp_path / "noext.pgn.gz")
    assert run(capsys, "build", tmp_path / "noext.pgn.gz", "-o", tmp_path / "x.bin", "--min-games", "1")[0] == 0
    # a small compressed file (26 bytes: an entry and a half) is no damaged Polyglot book either
    small = tmp_path / "y.gz"
    small.write_bytes(gzip.compress(b"hello\n"))
    for command in ("info", "inspect"):
        code, _, err = run(capsys, command, small)
        assert code == 2 and "y.gz: gzip-compressed data" in err and "Polyglot" not in err, err


def test_a_renamed_archive_is_refused_saying_what_to_rename_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from chessformats import chessbase
    from chessformats.formats.chessbase import base_files, write_archive

    (tmp_path / "games.pgn").write_text(pgn_games())
    chessbase.write_database_from_pgn(tmp_path / "base.cbh", tmp_path / "games.pgn")
    write_archive(tmp_path / "base.dat", base_files(tmp_path / "base.cbh"))
    code, out, err = run(capsys, "info", tmp_path / "base.dat")
    assert code == 2 and out == ""
    assert err == ("chessformats: error: base.dat: a ChessBase archive named otherwise than .cbv (an archive is "
                   "known by the name): rename it base.cbv\n")
    renamed = ("chessformats: error: base.dat: a ChessBase archive named otherwise than .cbv (an archive is known by "
               "the name): rename it base.cbv\n")
    for command in (("info", "--format", "chessbase"), ("inspect", "--format", "chessbase"),
                    ("convert", "--from", "chessbase", "-o", tmp_path / "out.pgn")):
        # the format forced: the archive's content said as such, not 'no .cbh file beside it'
        code, out, err = run(capsys, command[0], tmp_path / "base.dat", *command[1:])
        assert (code, out, err) == (2, "", renamed), command
    (tmp_path / "base.dat").rename(tmp_path / "base.cbv")
    code, out, _ = run(capsys, "info", tmp_path / "base.cbv")
    assert code == 0 and "ChessBase" in out
    code, out, _ = run(capsys, "info", tmp_path / "base.cbv", "--format", "chessbase")
    assert code == 0 and "ChessBase" in out
