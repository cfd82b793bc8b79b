"""PGN -> ChessBase base, fast path (:mod:`chessformats.books.chessbase_import`): every file byte for byte the
base the python-chess path writes (``chess.pgn.read_game`` games through ``write_database``), with the same
report (games skipped, their numbers and the lines they start on, warnings), on the corpus PGN, on the PGN
files of the corpus bases, on tricky texts and on randomly damaged ones; the batch move encoder equal to the
game-by-game encoder on random games. The twic1134 base python-chess's games make also reads back as those games."""

from __future__ import annotations

import importlib.util
import io
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np
import pytest

from chessbase_corpus import same_game
from chessformats import chessbase
from chessformats.books import chessbase_import
from chessformats.books.chessbase_import import pgn_items, write_database_from_pgn
from chessformats.books.pgnread import open_text
from chessformats.engine.errors import FormatError
from chessformats.formats.chessbase import PreparedGame, UnreadableGame, WriteReport, append_games, write_database
from chessformats.formats.chessbase.batch_encoder import encode_main_lines
from chessformats.formats.chessbase.encoder import encode_game
from conftest import SHARED_ROOT, find_corpus

_EXTENSIONS = (".cbh", ".cbg", ".cba", ".cbp", ".cbt", ".cbc", ".cbs", ".cbe", ".cbj")


class _Lines:
    """A text handle counting the lines python-chess reads (how the command line said where a game starts)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.line = 0

    def readline(self) -> str:
        text: str = self.handle.readline()
        if text:
            self.line += 1
        return text


def _reference_items(path: Path, text: str | None = None) -> Iterator[chess.pgn.Game | UnreadableGame]:
    """python-chess's games of ``path`` (read as the command line read them before the fast path), or of ``text``,
    the text written to it (for a file that is not all UTF-8)."""
    with open(path, encoding="utf-8-sig", errors="replace") if text is None else io.StringIO(text) as handle:
        lines = _Lines(handle)
        while True:
            start = lines.line + 1
            game = chess.pgn.read_game(lines)  # type: ignore[arg-type]
            if game is None:
                return
            yield UnreadableGame(f"python-chess could not read it: {game.errors[0]}", start) if game.errors else game


def _files(stem: Path) -> dict[str, bytes]:
    return {extension: stem.with_suffix(extension).read_bytes() for extension in _EXTENSIONS}


def _report(report: WriteReport) -> tuple[Any, ...]:
    return report.written, report.skipped, report.warnings


def _assert_same(pgn: Path, folder: Path, *, kinds: bool = False, items: list[chess.pgn.Game | UnreadableGame] | None
                 = None, text: str | None = None) -> tuple[WriteReport, dict[str, int]]:
    """Both paths on ``pgn``: the same files and report; the fast path's items by kind (``kinds``; else {}).
    ``items``: python-chess's games of ``pgn`` when the caller has read them (else read here, from ``text`` if
    given: the text written to ``pgn``)."""
    slow = write_database(folder / "slow.cbh", _reference_items(pgn, text) if items is None else items)
    fast = write_database_from_pgn(folder / "fast.cbh", pgn)
    assert _report(fast) == _report(slow)
    theirs, ours = _files(folder / "slow.cbh"), _files(folder / "fast.cbh")
    for extension in _EXTENSIONS:
        assert ours[extension] == theirs[extension], extension
    if not kinds:
        return fast, {}
    with open_text(pgn) as handle:
        names = [type(item).__name__ for item in pgn_items(handle)]
    return fast, {name: names.count(name) for name in set(names)}


def test_twic1134_same_bytes_as_python_chess(tmp_path: Path) -> None:
    pgn = find_corpus("pgn", "twic1134-mainlines.pgn")
    games = list(_reference_items(pgn))
    report, kinds = _assert_same(pgn, tmp_path, kinds=True, items=games)
    assert report.written == 6097 and not report.skipped
    assert kinds == {"PreparedGame": 6097}  # every game through the fast path
    # the base python-chess's games made (the same files) reads back as those games
    played = [game for game in games if isinstance(game, chess.pgn.Game)]
    assert len(played) == len(games)
    with chessbase.open_database(tmp_path / "slow.cbh") as db:
        assert len(db) == len(played)
        for entities in (db.players, db.tournaments, db.annotators, db.sources, db.teams):
            assert entities.check() == []
        assert len(db.players) == len({name for g in played for name in (g.headers["White"], g.headers["Black"])})
        for number, game in enumerate(played, 1):
            same_game(game, db.record(number).to_pgn(annotations=False))  # type: ignore[union-attr]
        # the same games written by ChessBase (uncbv_twic1134): our move streams are its bytes
        with chessbase.open_database(find_corpus("chessbase", "uncbv_twic1134", "twic1134.cbh")) as theirs:
            assert db.game_data(1)[1] == theirs.game_data(1)[1]


def _corpus_pgns() -> list[Path]:
    root = SHARED_ROOT / "corpus" / "chessbase"
    return sorted(root.glob("*/*.pgn")) if root.is_dir() else []


@pytest.mark.parametrize("pgn", _corpus_pgns(), ids=lambda path: path.name)
def test_corpus_pgns_same_bytes_as_python_chess(tmp_path: Path, pgn: Path) -> None:
    """Comments, clocks, NAGs, variations, setups, Chess960, promotions, games without their end marker."""
    _assert_same(pgn, tmp_path)


_PLAIN = """[Event "E"]
[Site "S"]
[Date "2024.01.02"]
[Round "3.1"]
[White "Adams, Michael"]
[Black "Carlsen, Magnus"]
[Result "1-0"]
[WhiteElo "2700"]
[ECO "C65"]
[TimeControl "40/5400+30:1800+30"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O Nxe4 5. d4 Nd6 6. Bxc6 dxc6 7. dxe5 Nf5 8. Qxd8+ Kxd8 1-0
"""
_PROMOTING = """[Event "P"]
[White "W"]
[Black "B"]
[Result "*"]

1. h4 g5 2. hxg5 Nf6 3. gxf6 Rg8 4. fxe7 Rg6 5. exf8=N Kxf8 6. Rxh7 Rg3 7. a4 Qe8 8. a5 Qe3 9. a6 Qxd2+
10. Bxd2 Rxg2 11. axb7 Rxg1 12. bxa8=B Rxf1+ 13. Kxf1 c5 14. Bb7 c4 15. Bxc8 c3 16. Bxd7 cxd2 17. Bxe8 Kxe8 *
"""
_PASSANT = """[Event "EP"]
[Result "*"]

1. e4 Nf6 2. e5 d5 3. exd6 cxd6 4. d4 Qa5+ 5. c3 Qxa2 6. Rxa2 *
"""
_TRICKY = [
    _PLAIN,
    _PROMOTING,
    _PASSANT,
    _PLAIN.replace("\n\n1.", "\n1."),  # no blank line after the tags
    _PLAIN.replace("\n\n1.", "\n\n\n1."),  # two: the tags are a game of their own, the moves another
    _PLAIN.replace('[Round "3.1"]\n', '[Round "3.1"]\n\n'),  # a blank line between tags
    _PLAIN.replace('[Result "1-0"]', '[Result "*"]'),  # the movetext's result is the game's
    _PLAIN.replace(" 1-0\n", " 1-0 9. Ke2 Be6\n"),  # moves after the result
    _PLAIN.replace(" 1-0\n", "\n"),  # no result
    _PLAIN.replace("Nf3", "Nf3!").replace("Nc6", "Nc6?!"),  # NAGs as marks
    _PLAIN.replace("Nxe4", "Nxxe4"),  # a token python-chess reads in part
    _PLAIN.replace("Nxe4", "N:e4"),
    _PLAIN.replace("2. Nf3", "2. 0000 Nf3"),  # a null move among move numbers
    _PLAIN.replace("2. Nf3", "2. -- Nf3"),
    _PLAIN.replace("Bb5", "Bb6"),  # an illegal move
    _PLAIN.replace("1. e4", "% a comment line\n1. e4"),
    _PLAIN.replace("1. e4", "; a comment line\n1. e4"),
    _PLAIN.replace("Nd6", "Nd6 {a comment\n\nwith a blank line}"),
    _PLAIN.replace("Nd6", "Nd6 (6... Be7)"),
    _PLAIN.replace('[Event "E"]', '[Event "E"] trailing'),  # a tag line python-chess ignores
    _PLAIN.replace('[Event "E"]', '[Event "say "hi""]'),
    _PLAIN.replace('[Event "E"]', '[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]'),
    _PLAIN.replace('[Event "E"]', '[Variant "Standard"]'),
    _PLAIN.replace("\n", "\r\n"),
    "\ufeff" + _PLAIN,
    _PLAIN.replace("\n\n1.", "\n\u00a0\n1."),  # a blank line of a non-ASCII space
    _PLAIN.replace("1. e4", "1.e4").replace("2. Nf3", "2.Nf3"),
    _PLAIN.replace("1. e4 e5", "1. e4 1... e5").replace("Kxd8", "Kxd8#"),
    _PLAIN.rstrip("\n"),
    "\n\n   \n" + _PLAIN,
    "1. d4 d5 *\n",  # movetext without tags
    '[Event "only tags"]\n',
    '[Event "only tags"]\n\n\n[Event "and again"]\n\n1. c4 *\n',
    _PLAIN.replace("Carlsen, Magnus", "Carlsen" * 10 + ", " + "é" * 40),  # names cut to their fields
    _PLAIN.replace("2. Nf3", "2. Z0 Nf3"),  # (some tests take the texts before by index)
    _PLAIN.replace("2. Nf3", "2. @@@@ Nf3"),
    _PLAIN.replace("1. e4 e5", "1. e4 {c} --+ 2. --! e5"),  # null moves that play on, commented, marked
    _PLAIN.replace("1. e4 e5", "1.e4 --2.-- e5"),
]


# a game in Windows-1252, as files older than UTF-8 have them (not UTF-8: read as Windows-1252, the game whole):
# "ß“" (0xDF 0x93) is a UTF-8 character on its own, "€" is 0x80
_WINDOWS = ('[Event "Schloß“ Open"]\n[Site "Café"]\n[White "Müller, Jürgen"]\n[Black "Nuñez, José"]\n'
            '[Result "0-1"]\n\n1. e4 {„Preis“ 100 €} e5 2. Nf3 Nc6 0-1\n')


def test_tricky_texts_same_bytes_as_python_chess(tmp_path: Path) -> None:
    for number, text in enumerate(_TRICKY):
        folder = tmp_path / str(number)
        folder.mkdir()
        pgn = folder / "games.pgn"
        games = "\n".join((text, _PROMOTING, text, _PASSANT))
        pgn.write_bytes(games.encode("utf-8") + b"\n" + _WINDOWS.encode("cp1252"))  # (then a game in Windows-1252)
        _assert_same(pgn, folder, text=games.removeprefix("\ufeff") + "\n" + _WINDOWS)


def test_windows_1252_names_reach_the_base(tmp_path: Path) -> None:
    """A Windows-1252 game read by the fast path and one read by python-chess (a variation), between UTF-8 games:
    the names, the comment; a file in a code page named by ``pgn_encoding``."""
    pgn = tmp_path / "games.pgn"
    # (not "ß“": the base's reader takes a name that is valid UTF-8 as UTF-8, and the writer stores it in cp1252)
    windows = _WINDOWS.replace("Schloß“", "Schloß")
    varied = windows.replace("e5 2.", "e5 (1... c5) 2.")
    first = _PLAIN.replace("Adams", "Ding 丁立人")
    text = "\n".join((first, windows, varied, _PLAIN))
    pgn.write_bytes(first.encode() + b"\n" + windows.encode("cp1252") + b"\n" + varied.encode("cp1252") + b"\n"
                    + _PLAIN.encode())
    _, kinds = _assert_same(pgn, tmp_path, kinds=True, text=text)
    assert kinds == {"PreparedGame": 3, "Game": 1}
    with chessbase.open_database(tmp_path / "fast.cbh") as db:
        games = [db.record(number).to_pgn() for number in (1, 2, 3)]  # type: ignore[union-attr]
    assert [(game.headers["White"], game.headers["Black"]) for game in games] == [
        ("Ding 丁立人, Michael", "Carlsen, Magnus"), *[("Müller, Jürgen", "Nuñez, José")] * 2]
    assert [(game.headers["Event"], game.headers["Site"]) for game in games[1:]] == [("Schloß Open", "Café")] * 2
    assert [game.next().comment for game in games[1:]] == ["„Preis“ 100 €"] * 2  # type: ignore[union-attr]
    russian = tmp_path / "russian.pgn"
    russian.write_bytes(_PLAIN.replace("Adams, Michael", "Карпов, Анатолий").encode("cp1251"))
    write_database_from_pgn(tmp_path / "russian.cbh", russian, encoding="cp1251", pgn_encoding="cp1251")
    with chessbase.open_database(tmp_path / "russian.cbh", encoding="cp1251") as db:
        assert db.record(1).to_pgn().headers["White"] == "Карпов, Анатолий"  # type: ignore[union-attr]


def test_the_fast_path_is_taken(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(_PLAIN + "\n" + _PROMOTING + "\n" + _PASSANT + "\n" + _TRICKY[14], encoding="utf-8")
    with open_text(pgn) as handle:
        items = list(pgn_items(handle))
    assert [type(item) for item in items] == [PreparedGame, PreparedGame, PreparedGame, UnreadableGame]
    assert isinstance(items[0], PreparedGame) and items[0].headers["Round"] == "3.1"
    assert isinstance(items[3], UnreadableGame) and items[3].line == 27 and "Bb6" in items[3].reason


_DAMAGE = ["\n", "\n\n", "{", "}", "(", ")", "!", "?", "$1", "0000", "1-0", "*", "[", "]", "%", ";", " ", "x",
           "=Q", "O-O", "e4", "\u00a0", "\f", '"', "\ufeff", "\r", "12.", "Nf3", '[Result "*"]\n']


@pytest.mark.parametrize("seed", range(6))
def test_damaged_texts_same_bytes_as_python_chess(tmp_path: Path, seed: int) -> None:
    """Random cuts, copies and insertions in a mixed text: the fast path reads whatever python-chess reads."""
    rng = random.Random(seed)
    base = "\n".join(_TRICKY[:3] + _TRICKY[6:12] + _TRICKY[17:19] + _ANNOTATED[:1] + _ANNOTATED[6:7])
    for case in range(25):
        text = base
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(text))
            kind = rng.randrange(3)
            if kind == 0:
                text = text[:at] + text[at + rng.randint(1, 40):]
            elif kind == 1:
                text = text[:at] + text[rng.randrange(len(text)):][:rng.randint(1, 200)] + text[at:]
            else:
                text = text[:at] + rng.choice(_DAMAGE) + text[at:]
        folder = tmp_path / str(case)
        folder.mkdir()
        pgn = folder / "games.pgn"
        pgn.write_bytes(text.encode("utf-8"))
        _assert_same(pgn, folder)


def test_small_blocks_and_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Games cut by the block boundaries and batches of a few games: read as with whole-file blocks."""
    monkeypatch.setattr(chessbase_import, "_BLOCK_CHARS", 700)
    monkeypatch.setattr(chessbase_import, "_MARGIN", 300)
    monkeypatch.setattr(chessbase_import, "BATCH_GAMES", 3)
    monkeypatch.setattr(chessbase_import, "_READ_GAMES", 2)
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join(_TRICKY * 2), encoding="utf-8")
    _assert_same(pgn, tmp_path)


def test_appending_and_several_files(tmp_path: Path) -> None:
    first, second = tmp_path / "a.pgn", tmp_path / "b.pgn"
    first.write_text(_PLAIN + "\n" + _TRICKY[14], encoding="utf-8")
    second.write_text(_PROMOTING + "\n" + _PASSANT, encoding="utf-8")
    write_database(tmp_path / "slow.cbh", _reference_items(first))
    append_games(tmp_path / "slow.cbh", _reference_items(second))
    write_database_from_pgn(tmp_path / "fast.cbh", first)
    report = chessbase.write_database_from_pgn(tmp_path / "fast.cbh", [second], append=True)
    assert report.written == 2 and not report.skipped
    assert _files(tmp_path / "fast.cbh") == _files(tmp_path / "slow.cbh")
    both = write_database_from_pgn(tmp_path / "both.cbh", [first, second], progress=lambda games: None)
    assert both.written == 3 and [(left.item, left.line) for left in both.skipped] == [(2, 14)]


def _random_game(rng: random.Random) -> chess.pgn.Game:
    """A random game, promotions made likely (pawn moves first, then captures)."""
    board = chess.Board()
    for _ in range(rng.randint(0, 160)):
        moves = list(board.legal_moves)
        if not moves:
            break
        pawn = [move for move in moves if board.piece_type_at(move.from_square) == chess.PAWN]
        capture = [move for move in moves if board.is_capture(move)]
        move = rng.choice(pawn if pawn and rng.random() < 0.5 else capture if capture and rng.random() < 0.5
                          else moves)
        board.push(move)
    return chess.pgn.Game.from_board(board)


def test_batch_encoder_equals_the_game_encoder() -> None:
    rng = random.Random(1134)
    games = [_random_game(rng) for _ in range(300)]
    events: list[tuple[int, int, int, int, int]] = []
    for index, game in enumerate(games):
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            target = move.to_square
            if board.is_castling(move):  # as the batch replay gives it: the king takes its rook
                target = chess.square(7 if chess.square_file(target) == 6 else 0, chess.square_rank(target))
            events.append((ply, index, move.from_square, target, move.promotion or 0))
            board.push(move)
    events.sort()
    columns = np.array(events, dtype=np.int64).reshape(-1, 5).T
    plies = np.array([len(list(game.mainline_moves())) for game in games], dtype=np.int64)
    encoded = encode_main_lines(columns[1], columns[0], columns[2], columns[3], columns[4], plies)
    promotions = sum(event[4] > 0 for event in events)
    assert promotions > 20
    for index, game in enumerate(games):
        expected = encode_game(game)
        assert encoded[index].data == expected.data, index
        assert encoded[index].main_plies == expected.main_plies and encoded[index].variation_moves == 0


def test_unreadable_compressed_input_is_a_format_error(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn.gz"
    pgn.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(FormatError):
        write_database_from_pgn(tmp_path / "base.cbh", pgn)
    assert not (tmp_path / "base.cbh").exists()


def test_reads_like_python_chess_from_a_stream() -> None:
    """pgn_items on a handle (no file): python-chess's games and the prepared ones in order."""
    items = list(pgn_items(io.StringIO(_PLAIN + "\n" + _TRICKY[17])))
    assert isinstance(items[0], PreparedGame) and isinstance(items[1], chess.pgn.Game)
    assert str(items[1]) == str(chess.pgn.read_game(io.StringIO(_TRICKY[17])))  # the comment's blank line kept
    assert "with a blank line" in str(items[1])


def _long_annotated_game(plies: int) -> str:
    """A legal game of ``plies`` moves (knights out and back) with a clock, an evaluation, coloured squares and
    arrows on every move: four annotation items a move, far past the 255 a one-byte count could hold."""
    tours = ["Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6", "Nb1", "Nb8"]
    moves = []
    for ply in range(plies):
        number = f"{ply // 2 + 1}. " if ply % 2 == 0 else ""
        seconds = 5400 - ply * 7
        clock = f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
        moves.append(f"{number}{tours[ply % 8]} {{ [%clk {clock}] [%eval {(ply % 50 - 25) / 10:.2f}] "
                     f"[%csl Gd4,Re5] [%cal Ge2e4,Rd7d5] }}")
    tags = "".join(f'[{name} "{value}"]\n' for name, value in (
        ("Event", "Long"), ("Site", "?"), ("Date", "2026.11.27"), ("Round", "1"), ("White", "A"), ("Black", "B"),
        ("Result", "1/2-1/2")))
    return f"{tags}\n{' '.join(moves)} 1/2-1/2\n"


def _marks(node: chess.pgn.ChildNode) -> tuple[Any, ...]:
    score = node.eval()
    return (node.clock(), None if score is None else score.white(),
            sorted((arrow.tail, arrow.head, arrow.color) for arrow in node.arrows()))


def test_a_game_with_thousands_of_annotation_items_round_trips(tmp_path: Path) -> None:
    # the annotation record counts its items in 24 bits (issue 22): 400 plies x 4 items + the start's
    pgn = tmp_path / "long.pgn"
    pgn.write_text(_long_annotated_game(400) * 2, encoding="utf-8")
    report, _ = _assert_same(pgn, tmp_path)
    assert report.written == 2 and not report.skipped
    reference = list(_reference_items(pgn))
    with chessbase.open_database(tmp_path / "fast.cbh") as db:
        for number, game in enumerate(reference, 1):
            assert isinstance(game, chess.pgn.Game)
            items = db.annotations(number)
            assert len(items) >= 4 * 400
            back = db[number].to_pgn()
            assert [node.move for node in back.mainline()] == [node.move for node in game.mainline()]
            assert [_marks(node) for node in back.mainline()] == [_marks(node) for node in game.mainline()]
            assert [re.sub(r"\[%[^\]]*\]", "", node.comment).split() for node in back.mainline()] == \
                [[] for _ in game.mainline()]  # nothing but the commands read back as their annotations


def test_the_annotation_count_is_checked_against_the_items(tmp_path: Path) -> None:
    pgn = tmp_path / "long.pgn"
    pgn.write_text(_long_annotated_game(80), encoding="utf-8")
    write_database_from_pgn(tmp_path / "base.cbh", pgn)
    cba = tmp_path / "base.cba"
    data = bytearray(cba.read_bytes())
    with chessbase.open_database(tmp_path / "base.cbh") as db:
        offset, record = db.annotation_data(1)  # type: ignore[misc]
        assert int.from_bytes(record[7:10], "big") == len(db.annotations(1)) + 1
    data[offset + 9] ^= 1
    cba.write_bytes(bytes(data))
    with chessbase.open_database(tmp_path / "base.cbh") as db, pytest.raises(FormatError) as raised:
        db.annotations(1)
    assert raised.value.offset == offset + 7 and "count" in str(raised.value)


def _commented(text: str, comments: list[str]) -> str:
    """``text`` (a game of ``_TRICKY``) with ``comments[i]`` after its move i (as many as there are)."""
    head, _, moves = text.partition("\n\n")
    words = moves.split(" ")
    out, ply = [], 0
    for word in words:
        out.append(word)
        if word[:1].isalpha() and ply < len(comments):
            out.append(comments[ply])
            ply += 1
    return head + "\n\n" + " ".join(out)


_LICHESS = ["{ [%eval 0.17] [%clk 0:03:00] }", "{ [%eval 0.2] [%clk 0:02:58] }", "{ [%eval #-3] [%clk 0:02:50] }",
            "{ [%eval -1.25,22] [%clk 0:02:41.5] }", "{ [%clk 0:02:40] }", "{ [%eval 3] }",
            "{[%eval 0.1][%clk 1:00:00]}", "{ }", "{  [%clk 0:01:00]  }", "{ [%eval 99999.99] [%clk 0:01:00] }",
            "{ [%clk abc] }",
            "{ [%eval 0.3]  [%clk 0:00:09] }", "{ [%eval 1.5.5] [%clk 0:01:00] }", "{ [%clk 0:01:00] [%eval 0.2] }"]
"""Comments of lichess's shape and near it (mates, depths, tenths, spacing, values python-chess does not read)."""
_ANNOTATED = [
    _commented(_PLAIN, [_LICHESS[ply % 7] for ply in range(16)]),  # one after every move: the batch path
    _commented(_PLAIN, ["{ [%clk 0:03:00] }"] * 12 + ["{ [%eval 0.1] }"] * 4),
    _commented(_PLAIN, ["{ [%eval 0.1] }"] * 13 + ["{ [%clk 0:01:00] }"] * 3),
    _commented(_PLAIN, [_LICHESS[(ply * 5) % len(_LICHESS)] for ply in range(16)]),
    _commented(_PLAIN, ["{ [%eval 0.1] }"] * 14 + ["{ [%clk 0:01:00] }"] * 2),  # clocks on the last moves only
    _commented(_PLAIN, ["{ [%eval 0.1] }"] * 15 + ["{ [%clk 0:01:00] }"]),
    _commented(_PLAIN, ["{good move}", "$1", "!?", "{ [%csl Gd4,Re5] [%cal Ge2e4] }", "{ [%emt 0:00:05] }",
                        "$14 { a comment } { and another }", "?? $200", "{ [%eval 0.5] text [%clk 0:01:00] }",
                        "{ x  }", "{  y }", "{}", "{ [%eval 0.5] } $3", "{ [%cal Xe2e4] }", "$999"]),
    _PLAIN.replace("1. e4", "{ before the first move } 1. e4").replace(" 1-0\n", " 1-0 { after the result }\n"),
    _PLAIN.replace("1. e4", "$5 1. e4"),  # a NAG before the first move: python-chess puts it on the game
    _PLAIN.replace("1. e4 e5", "1. e4{no blank}e5").replace("Nf3", "Nf3!!"),
    _PLAIN.replace("Nf3", "Nf3 { a { brace }"),
    _PLAIN.replace("Nf3", "Nf3 $ { dollar }"),
    _PLAIN.replace("Nf3", "Nf3 { [%clk 0:01:00] } {unclosed"),
    _PLAIN.replace("Nf3", "Nf3 { ; not a comment line }").replace("Nc6", "Nc6 {é ž}"),
]


def test_annotated_texts_same_bytes_as_python_chess(tmp_path: Path) -> None:
    """Comments, NAGs and PGN commands on main lines: through the batch path, the same base."""
    pgn = tmp_path / "games.pgn"
    crlf = [_ANNOTATED[0].replace("\n", "\r\n"), _ANNOTATED[6].replace("\n", "\r\n")]
    pgn.write_bytes("\n".join([*_ANNOTATED, *crlf, _PROMOTING]).encode("utf-8"))
    _assert_same(pgn, tmp_path)
    with open_text(pgn) as handle:
        items = list(pgn_items(handle))
    kinds = [type(item).__name__ if not isinstance(item, PreparedGame) else type(item.annotations).__name__
             for item in items]
    assert kinds[:3] == ["ItemRecord"] * 3  # the lichess shape read together
    assert kinds[3:6] == ["LineAnnotations", "ItemRecord", "ItemRecord"]  # texts: one game at a time; final clocks
    with open_text(pgn) as handle:  # the final clocks on the game, where the batch puts them
        records = [item.annotations for item in pgn_items(handle) if isinstance(item, PreparedGame)]
    assert [record.items[:3] for record in records[4:6]] == [bytes.fromhex("ffffff")] * 2
    # python-chess's: a NAG before the first move, a "$", a "{" left open (its comment runs into the next game)
    assert kinds[6:] == ["LineAnnotations", "LineAnnotations", "Game", "LineAnnotations", "LineAnnotations", "Game",
                         "Game", "ItemRecord", "LineAnnotations", "NoneType"]  # and the same with CRLF line ends


def test_final_clocks_same_bytes_as_python_chess(tmp_path: Path) -> None:
    """Clocks on the last two moves only (ChessBase keeps them on the game, White's first), a game of an odd and of
    an even number of moves, one clock or two: through the batch path, the same base."""
    tail = ["{ [%eval 0.2] [%clk 0:01:00] }", "{ [%clk 0:00:50] }"]
    evaluations = ["{ [%eval 0.1] }"] * 14
    one_move = _PASSANT.replace(" Nf6 2. e5 d5 3. exd6 cxd6 4. d4 Qa5+ 5. c3 Qxa2 6. Rxa2", "")
    texts = [_commented(_PASSANT, evaluations[:9] + tail), _commented(_PASSANT, evaluations[:10] + tail),
             _commented(_PLAIN, evaluations + tail), _commented(_PLAIN, evaluations + tail[::-1]),
             _commented(_PASSANT, evaluations[:10] + tail[1:]), _commented(one_move, tail[1:])]
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join(texts), encoding="utf-8")
    _assert_same(pgn, tmp_path)
    with open_text(pgn) as handle:
        assert {type(item.annotations).__name__ for item in pgn_items(handle) if isinstance(item, PreparedGame)} == \
            {"ItemRecord"}


def test_random_annotations_same_bytes_as_python_chess(tmp_path: Path) -> None:
    rng = random.Random(22)
    pieces = [*_LICHESS, "$1", "$2", "!", "?!", "??", "$19", "{ text }", "{ [%csl Ra1] }", "{ [%emt 0:01:02] }", "",
              "{ 1-0 }", "{ * }", "{ 0000 }", "}", "{ a { b }"]  # (a result or a null move in a comment is not the
    # movetext's; a "{" in a comment)
    texts = []
    for _ in range(30):
        game = rng.choice(_TRICKY[:3])
        texts.append(_commented(game, [" ".join(rng.choice(pieces) for _ in range(rng.choice((1, 1, 1, 2))))
                                       for _ in range(40)]))
    # comments, and a "}" outside them (python-chess skips it): not a comment's end
    texts += ['[Event "}"]\n\n1. e4 } d6 { e5 } *\n']
    # a "{" in a comment and a stray "}" after it: as many of each, not alternating (python-chess: e4, Nf3)
    texts += ['[Event "b"]\n\n1. e4 {a{e5} e6 } 2. Nf3 *\n']
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join(texts), encoding="utf-8")
    _assert_same(pgn, tmp_path)


def test_a_clock_or_depth_chessbase_cannot_hold_is_left_out_not_the_game(tmp_path: Path) -> None:
    # a clock of 2**32 centiseconds or more, an evaluation's depth of 2**15 or more: the game is written without it,
    # with a warning; both paths alike (the batch leaves such games to the writer)
    pgn = tmp_path / "big.pgn"
    pgn.write_text('[Result "*"]\n\n1. e4 { [%clk 2000000:00:00] } e5 { [%clk 0:01:00] } 2. Nf3 { [%clk 0:00:59] } '
                   '*\n\n[Result "*"]\n\n1. d4 { [%eval 0.3,40000] } d5 { [%eval -0.2,20] } *\n')
    report, _ = _assert_same(pgn, tmp_path)
    assert report.written == 2 and not report.skipped
    assert [warning.message.split(": ", 1)[1] for warning in report.warnings] == [
        "[%clk] of 7200000000.0 s at position 0: out of range, left out",
        "[%eval] depth 40000 at position 0: out of range, left out"]
    with chessbase.open_database(tmp_path / "fast.cbh") as db:
        first, second = db[1].to_pgn(), db[2].to_pgn()
    assert [node.clock() for node in first.mainline()] == [None, 60.0, 59.0]
    assert [(node.eval(), node.eval_depth()) for node in second.mainline()] == [
        (chess.engine.PovScore(chess.engine.Cp(30), chess.WHITE), None),
        (chess.engine.PovScore(chess.engine.Cp(-20), chess.WHITE), 20)]


def test_a_long_lichess_game_round_trips(tmp_path: Path) -> None:
    """A 300-ply game of the lichess shape (600 items: past a one-byte count) through the batch path."""
    text = _long_annotated_game(300).replace(" [%csl Gd4,Re5] [%cal Ge2e4,Rd7d5]", "")
    text = re.sub(r"\{ (\[%clk [^\]]*\]) (\[%eval [^\]]*\]) \}", r"{ \2 \1 }", text)  # lichess: evaluation first
    pgn = tmp_path / "long.pgn"
    pgn.write_text(text, encoding="utf-8")
    _assert_same(pgn, tmp_path)
    with open_text(pgn) as handle:
        (item,) = list(pgn_items(handle))
    assert isinstance(item, PreparedGame) and type(item.annotations).__name__ == "ItemRecord"
    with chessbase.open_database(tmp_path / "fast.cbh") as db:
        assert len(db.annotations(1)) == 2 * 300
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None
        assert [_marks(node) for node in db[1].to_pgn().mainline()] == [_marks(node) for node in game.mainline()]


_SHAPES = ["{ [%eval 0.17] [%clk 0:03:00] }", "{ [%eval -12.34] [%clk 0:02:58] }", "{ [%eval #-3] [%clk 0:02:50] }",
           "{ [%eval #0] }", "{ [%eval -0.00] [%clk 0:00:00] }", "{ [%eval +1.5] [%clk 0:01:00] }",
           "{ [%eval 123.45] [%clk 0:01:00] }", "{ [%eval -1.25,22] [%clk 0:02:41.5] }", "{ [%clk 10:00:00] }",
           "{ [%eval 0.1]\t[%clk 0:01:00] }", "{ [%eval 0.1][%clk 0:01:00] }", "{ [%eval 0.1]   [%clk 0:01:00] }",
           "{[%eval 0.1] [%clk 0:01:00]}", "{  [%eval 0.1] [%clk 0:01:00]  }", "{ [%eval\t0.1] [%clk\t0:01:00] }",
           "{ [%eval 0.1]\x1c[%clk 0:01:00] }", "{ [%eval 0.1]\xa0[%clk 0:01:00] }", "{ [%eval 0.1] x [%clk 0:01:00] }",
           "{ [%clk 0:01:00] [%eval 0.1] }", "{ [%eval 0.1] [%clk 0:01:00] [%eval 0.2] }", "{ [%eval 1.5.5] }",
           "{ [%eval 99999.99] }", "{ [%eval abc] [%clk abc] }", "{ [%clk 0:1:2] }", "{ [%eval ] }", "{ }", "{}",
           "{ é }", "{ [%eval 0.1] { [%clk 0:01:00] }", "{ [%csl Ga1] }", "{ [%emt 0:00:05] }", "{ [%eval 0.1] ] }",
           "{ [[%eval 0.1] }", "{ [%evaluate 0.1] }", "{ [%clk 0:01:00]x }", "{ [%eval 0.1] [%clk 0:0a:00] }",
           "{ [%eval é] }", "{ [%eval 0.1] [%clk 0:01:0é] }"]
"""A comment after every move (the batch path reads them together): lichess's shape in its variants (signs,
mates, long values, depths, tenths, blanks of every kind between and around the commands) and comments near it
that the writer reads one by one (text, another command, a brace, a character outside ASCII)."""


def test_every_move_commented_same_bytes_as_python_chess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chessbase_import, "_COMMENTS", 50)  # the comments read a few games at a time
    rng = random.Random(2022)
    texts = []
    for number in range(40):
        # most games of one variant; some with one odd comment among lichess's own
        odd = rng.choice(_SHAPES)
        shapes = [odd if rng.random() < (0.9 if number % 2 else 0.05) else _SHAPES[rng.randrange(3)]
                  for _ in range(16)]
        texts.append(_commented(_PLAIN, shapes))
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join(texts), encoding="utf-8")
    _assert_same(pgn, tmp_path)


def _benchmark_module(name: str) -> Any:
    """A module of benchmarks/ (not a package)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lichess_benchmark_file_is_read_whole_by_the_batch_path(tmp_path: Path) -> None:
    """The benchmark's lichess-style games (benchmarks/lichess_pgn.py: an evaluation and a clock after every move,
    real games): none refused, every one read by the batch path, the python-chess path's bytes."""
    source = find_corpus("pgn/twic1134-mainlines.pgn")
    pgn = tmp_path / "lichess.pgn"
    _benchmark_module("lichess_pgn").write(300, pgn, source=source)
    report, _ = _assert_same(pgn, tmp_path)
    assert report.written == 300 and not report.skipped and not report.warnings
    with open_text(pgn) as handle:
        kinds = {type(getattr(item, "annotations", item)).__name__ for item in pgn_items(handle)}
    assert kinds == {"ItemRecord"}


def test_the_constants_written_out_are_python_chesss() -> None:
    """The fast path reads without python-chess's PGN module: its roster, mark NAGs and plain move tokens are
    python-chess's (every token of its plain pattern is one python-chess's movetext pattern reads whole as a
    move), and the empty command is no item, as python-chess's readings give."""
    from chessformats.formats.chessbase import annotation_batch
    from chessformats.formats.chessbase.annotation_writer import command_item

    assert chessbase_import._ROSTER == dict(chess.pgn.Headers())
    assert chessbase_import._MARKS == {"!": chess.pgn.NAG_GOOD_MOVE, "?": chess.pgn.NAG_MISTAKE,
                                       "!!": chess.pgn.NAG_BRILLIANT_MOVE, "??": chess.pgn.NAG_BLUNDER,
                                       "!?": chess.pgn.NAG_SPECULATIVE_MOVE, "?!": chess.pgn.NAG_DUBIOUS_MOVE}
    squares = [a + b for a in "abcdefgh" for b in "12345678"]
    tokens = [f"{piece}{origin}{capture}{square}{promotion}" for piece in ("", "N", "B", "R", "Q", "K")
              for origin in ("", "a", "h", "1", "8", "e4") for capture in ("", "x") for square in squares
              for promotion in ("", "=Q", "=N")] + ["O-O", "O-O-O"]
    plain = [token for token in tokens if chessbase_import._SAN_TOKEN.fullmatch(token)]
    assert len(plain) == len(tokens)
    for token in plain:
        match = chess.pgn.MOVETEXT_REGEX.match(token)
        assert match is not None and match.group(0) == token and match.group(1) == token, token
    assert chessbase_import._valid_tokens(["e4", "Nf3", "O-O", "0-0", "e2-e4", "--", "Z0", "e4+", "P@e4"]).tolist() == \
        [True, True, True, True, True, False, False, False, True]
    for group in annotation_batch._groups():  # row 0: no command
        for mover in (False, True):
            item = command_item("", mover)
            assert item is not None and item[1] == group.types[0, int(mover)] == -1 and not group.bad[0, int(mover)]
