"""Monty training data: reading against the reference crate's own log, writing, lossless round trips.

References: the oracle table the reference crate's driver logged for the corpus file (FEN before each ply,
UCI, u16 code, ep byte), python-chess (legal moves, positions), the corpus bytes themselves (parsed with the
declarations), the spec and notes (formulas), and hand arithmetic (commented).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import pytest

from chessformats import FormatError, InvalidValueError, TruncatedError, monty
from chessformats.formats.monty import games as monty_games
from chessformats.formats.monty import read as monty_read
from chessformats.schemas import monty as schema
from monty_cases import oracle_order

POLICY = ("monty", "reference_generated_policy.montyformat")
VALUE = ("monty", "reference_generated_value.montyvalue")
TSV = ("monty", "reference_generated_policy.montyformat.plies.tsv")
RESULT_TEXT = {0: "0-1", 1: "1/2-1/2", 2: "1-0"}  # spec: 0 loss, 1 draw, 2 win, from white's side
CHESS960_GAME = 3  # corpus/README.md: the fourth game is the Chess960 one (rook files [[5, 7], [5, 7]])


@pytest.fixture(scope="module")
def policy_path(corpus_path: Callable[..., Path]) -> Path:
    return corpus_path(*POLICY)


@pytest.fixture(scope="module")
def value_path(corpus_path: Callable[..., Path]) -> Path:
    return corpus_path(*VALUE)


@pytest.fixture(scope="module")
def oracle(corpus_path: Callable[..., Path]) -> list[dict[str, str]]:
    with corpus_path(*TSV).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@pytest.fixture(scope="module")
def games(policy_path: Path) -> list[monty.Game]:
    return list(monty.read_games(policy_path))


@pytest.fixture(scope="module")
def value_games(value_path: Path) -> list[monty.Game]:
    return list(monty.read_games(value_path, format="value"))


@pytest.fixture(scope="module")
def stored(policy_path: Path) -> list[Any]:
    """The corpus games as the declarations parse them (raw header fields, scores, visit bytes)."""
    return list(schema.POLICY_FILE.parse(policy_path.read_bytes()))


def monty_castling(board: chess.Board) -> set[str]:
    """The castling letters of a position as Monty's FEN writes them (Q K q k rights)."""
    letters = {"Q": board.has_queenside_castling_rights(chess.WHITE),
               "K": board.has_kingside_castling_rights(chess.WHITE),
               "q": board.has_queenside_castling_rights(chess.BLACK),
               "k": board.has_kingside_castling_rights(chess.BLACK)}
    return {letter for letter, held in letters.items() if held}


def plies(games: list[monty.Game]) -> Iterator[tuple[monty.Game, int, monty.Ply]]:
    for game in games:
        for index, ply in enumerate(game.plies):
            yield game, index, ply


# --- reading: the corpus against the reference crate's log ---------------------------------------------------

def test_every_ply_agrees_with_the_oracle(games: list[monty.Game], oracle: list[dict[str, str]]) -> None:
    rows = list(plies(games))
    assert len(rows) == len(oracle) == 132
    for (game, index, ply), row in zip(rows, oracle, strict=True):
        assert (game.number, index) == (int(row["game"]), int(row["ply"]))
        placement, turn, castling, _, halfmove, fullmove = row["fen_before(as_fen,no ep)"].split()
        board = ply.board
        assert board is not None
        assert board.board_fen() == placement, row
        assert ("w" if board.turn else "b") == turn
        assert monty_castling(board) == set(castling) - {"-"}, row
        assert (board.halfmove_clock, board.fullmove_number) == (int(halfmove), int(fullmove)), row
        assert (board.ep_square or 0) == int(row["enp_sq_byte_before"]), row
        assert ply.move.uci() == row["uci"] and ply.code == int(row["move_u16"]), row
        assert ply.move in board.legal_moves


def test_games_results_and_chess960(games: list[monty.Game], stored: list[Any]) -> None:
    assert [game.result for game in games] == [RESULT_TEXT[int(game.header.result)] for game in stored]
    assert [game.board.chess960 for game in games] == [n == CHESS960_GAME for n in range(5)]
    # the Chess960 game's rook files are f, h for both sides: 05 07 05 07
    assert games[CHESS960_GAME].rook_files == (5, 7, 5, 7)
    assert all(game.rook_files == (0, 7, 0, 7) for n, game in enumerate(games) if n != CHESS960_GAME)
    assert games[0].offset == 0 and [game.number for game in games] == list(range(5))


def test_visits_align_with_legal_moves_sorted_by_code(games: list[monty.Game], stored: list[Any]) -> None:
    checked = 0
    for game, stored_game in zip(games, stored, strict=True):
        for ply, stored_ply in zip(game.plies, stored_game.plies, strict=True):
            assert ply.raw_score == stored_ply.score
            if stored_ply.num_moves == 0:
                assert ply.visits is None and ply.visit_bytes is None
                continue
            assert ply.board is not None
            moves = oracle_order(ply.board)
            total = sum(stored_ply.visits)
            assert ply.visit_bytes == bytes(stored_ply.visits)
            assert list(ply.visits or {}) == moves
            assert ply.visits == {move: byte / total for move, byte in zip(moves, stored_ply.visits, strict=True)}
            checked += 1
    assert checked == 106  # plies with a distribution: 132 minus the 26 with num_moves 0


def test_scores(games: list[monty.Game], value_games: list[monty.Game]) -> None:
    first, second = games[0].plies[0], games[0].plies[1]
    # policy: game 0 ply 0 stores ab a0 = 41131 -> 41131 / 65535
    assert first.raw_score == 41131 and first.score == 41131 / 65535
    # value: d0 00 = 208 for white to move: 1 / (1 + e^(-208/400)) = 0.62714...
    value_first, value_second = value_games[0].plies[0], value_games[0].plies[1]
    assert value_first.raw_score == 208 and value_first.score == pytest.approx(0.627148, abs=1e-6)
    # ply 1, black to move, stores 628 (white's view): black's score 1 - 1 / (1 + e^(-1.57)) = 1 / (1 + e^1.57)
    # = 1 / (1 + 4.80664) = 0.172216
    assert value_second.raw_score == 628 and value_second.score == pytest.approx(0.172216, abs=1e-6)
    # the same search scores in both files: policy 11283 / 65535 = 0.17217 for black
    assert second.score == pytest.approx(value_second.score, abs=2e-4)


def test_value_file_has_the_same_games(games: list[monty.Game], value_games: list[monty.Game]) -> None:
    assert len(value_games) == len(games)
    for game, value_game in zip(games, value_games, strict=True):
        assert value_game.board == game.board and value_game.result == game.result
        assert [p.move for p in value_game.plies] == [p.move for p in game.plies]
        assert [p.board for p in value_game.plies] == [p.board for p in game.plies]
        for ply, value_ply in zip(game.plies, value_game.plies, strict=True):
            assert value_ply.visits is None and value_ply.visit_bytes is None
            assert ply.board is not None and value_ply.raw_score is not None
            # notes point 6 and MontyValueFormat::push: i16 = trunc(-400 ln(1/p - 1)), p white's score; the
            # corpus driver clamped p to [0.01, 0.99] (+-1838 = 400 ln 99). The policy u16 is itself truncated,
            # so allow one unit.
            white = ply.score if ply.board.turn else 1 - ply.score
            p = min(max(white, 0.01), 0.99)
            assert abs(value_ply.raw_score - int(-400 * math.log(1 / p - 1))) <= 1


# --- writing --------------------------------------------------------------------------------------------------

def test_lossless_round_trip(games: list[monty.Game], value_games: list[monty.Game], policy_path: Path,
                             value_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "copy.montyformat"
    assert monty.write_games(out, games).written == 5
    assert out.read_bytes() == policy_path.read_bytes()
    buffer = io.BytesIO()
    assert monty.write_games(buffer, value_games, format="value").written == 5
    assert buffer.getvalue() == value_path.read_bytes()
    # also with the older rounding asked for: stored visit bytes are written as they are
    buffer = io.BytesIO()
    monty.write_games(buffer, monty.read_games(policy_path), rounding="trunc256")
    assert buffer.getvalue() == policy_path.read_bytes()


def test_writing_independent_data_gives_the_reference_bytes(oracle: list[dict[str, str]], stored: list[Any],
                                                            policy_path: Path, value_path: Path) -> None:
    """Start positions and moves from the oracle table, scores and visits from the stored numbers."""
    policy_games, value_games = [], []
    for number, stored_game in enumerate(stored):
        rows = [row for row in oracle if int(row["game"]) == number]
        placement, turn, castling, _, halfmove, fullmove = rows[0]["fen_before(as_fen,no ep)"].split()
        rights = "".join(sorted(set(castling) - {"-"}, key="KQkq".index)) or "-"
        board = chess.Board(f"{placement} {turn} {rights} - {halfmove} {fullmove}", chess960=number == CHESS960_GAME)
        board.ep_square = int(rows[0]["enp_sq_byte_before"]) or None
        start = board.copy()
        policy_plies, value_plies = [], []
        for row, stored_ply in zip(rows, stored_game.plies, strict=True):
            move = chess.Move.from_uci(row["uci"])
            visits = None
            if stored_ply.num_moves:  # the stored bytes as visit counts: round(b * 255 / 255) = b
                visits = dict(zip(oracle_order(board), stored_ply.visits, strict=True))
            # trunc(f32((raw + 0.5) / 65535) * 65535) = raw: the half unit is far above the f32 error
            policy_plies.append(monty.Ply(move, (stored_ply.score + 0.5) / 65535, visits))
            value_plies.append(monty.Ply(move, value_score(next_value_raw(value_path, number, len(value_plies)),
                                                           board.turn)))
            board.push(move)
        result = RESULT_TEXT[int(stored_game.header.result)]
        policy_games.append(monty.Game(start, policy_plies, result))
        value_games.append(monty.Game(start, value_plies, result))
    buffer = io.BytesIO()
    monty.write_games(buffer, policy_games)
    assert buffer.getvalue() == policy_path.read_bytes()
    buffer = io.BytesIO()
    monty.write_games(buffer, value_games, format="value")
    assert buffer.getvalue() == value_path.read_bytes()


def next_value_raw(value_path: Path, game: int, ply: int) -> int:
    return int(_value_games(value_path)[game].plies[ply].score)


_VALUE_CACHE: dict[Path, Any] = {}


def _value_games(path: Path) -> Any:
    if path not in _VALUE_CACHE:
        _VALUE_CACHE[path] = schema.VALUE_FILE.parse(path.read_bytes())
    return _VALUE_CACHE[path]


def value_score(raw: int, white_to_move: bool) -> float:
    """A score for the side to move that MontyValueFormat::push turns into ``raw``: white's p with
    -400 ln(1/p - 1) = raw +- 0.5 (away from zero, as the conversion truncates toward zero)."""
    target = raw + (0.5 if raw >= 0 else -0.5)
    white = 1 / (1 + math.exp(-target / 400))
    return white if white_to_move else 1 - white


def test_raw_values_of_the_other_format_are_not_reused(games: list[monty.Game]) -> None:
    # a policy game written as a value file: scores are converted from the float score, not copied
    buffer = io.BytesIO()
    monty.write_games(buffer, games[:1], format="value")
    (game,) = monty.read_games(io.BytesIO(buffer.getvalue()), format="value")
    first = game.plies[0]
    # 41131 / 65535 = 0.62762 for white: trunc(-400 ln(1/0.62762 - 1)) = trunc(208.81) = 208
    assert first.raw_score == 208


# --- reading: faults --------------------------------------------------------------------------------------------

def patched(data: bytes, offset: int, new: bytes) -> bytes:
    return data[:offset] + new + data[offset + len(new):]


def read_all(data: bytes, tmp_path: Path, format: str = "policy", name: str = "bad.montyformat") -> None:
    path = tmp_path / name
    path.write_bytes(data)
    for _ in monty.read_games(path, format=format):
        pass


# game 0 starts at 0: header 43 bytes, ply 0 at 43 (move 43-44, score 45-46, num_moves 47, 20 visit bytes)
FAULTS = [
    (47, b"\x15", InvalidValueError, "games[0].plies[0].num_moves", 47, "game 0, ply 0"),
    # e2e5: 12 << 10 | 36 << 4 = 12864 = 0x3240, stored 40 32
    (43, b"\x40\x32", InvalidValueError, "games[0].plies[0].move", 43, "not a legal move"),
    # g2g4 with flag 6: 0x39e6
    (43, b"\xe6\x39", InvalidValueError, "games[0].plies[0].move.flag", 43, "flag"),
    (32, b"\x02", InvalidValueError, "games[0].header.side_to_move", 32, "side to move"),
    (34, b"\x1f", InvalidValueError, "games[0].header.castling_rights", 34, "low 4 bits"),
    (38, b"\x08", InvalidValueError, "games[0].header.white_queenside_rook", 38, "rook file"),
    (42, b"\x03", InvalidValueError, "games[0].header.result", 42, "result"),
    # a1 (a rook: in rooks_queens_kings) also in knights_bishops_kings and pawns_bishops_queens
    (16, b"\x77", InvalidValueError, "games[0].header.board", 0, "all three"),
    # white to move with an en-passant square on e3 (20): no black pawn just advanced
    (33, b"\x14", InvalidValueError, "games[0].header.ep_square", 33, "advanced two squares"),
    # the white king's bit removed from both king bitboards: e1 = bit 4 of byte 8 and byte 16
    (8, b"\x89", InvalidValueError, "games[0].header.board", 0, "king"),
]


@pytest.mark.parametrize("offset,new,kind,path,at,words", FAULTS)
def test_faults_are_located(policy_path: Path, tmp_path: Path, offset: int, new: bytes, kind: type[FormatError],
                            path: str, at: int, words: str) -> None:
    data = policy_path.read_bytes()
    if offset == 8:  # both king bitboards lose e1: 0x99 -> 0x89 (byte 8) and 0x76 -> 0x66 (byte 16)
        data = patched(data, 16, b"\x66")
    if offset == 16:  # a1 into byte 16 and byte 24 (0x2c -> 0x2d)
        data = patched(data, 24, b"\x2d")
    with pytest.raises(kind) as caught:
        read_all(patched(data, offset, new), tmp_path)
    error = caught.value
    assert (error.path, error.offset, error.file) == (path, at, str(tmp_path / "bad.montyformat"))
    assert words in str(error) and str(error).startswith("bad.montyformat: offset ")


def test_value_null_move_with_a_score(value_path: Path, tmp_path: Path) -> None:
    # game 0 has 40 plies of 4 bytes: its terminator is at 43 + 160 = 203; give it score 1
    data = patched(value_path.read_bytes(), 205, b"\x01")
    with pytest.raises(InvalidValueError) as caught:
        read_all(data, tmp_path, "value", "bad.montyvalue")
    assert (caught.value.path, caught.value.offset) == ("games[0].plies[40].score", 205)


def test_truncation_anywhere(policy_path: Path, value_path: Path) -> None:
    for path, format in ((policy_path, "policy"), (value_path, "value")):
        data = path.read_bytes()
        boundaries = [game.offset for game in monty.read_games(path, format=format)] + [len(data)]
        cuts = sorted(set(range(0, len(data), 13)) | set(range(40, 50)) | {b - 1 for b in boundaries[1:]})
        for cut in cuts:
            try:
                games = list(monty.read_games(io.BytesIO(data[:cut]), format=format))
            except TruncatedError as error:
                assert error.offset is not None and error.offset <= cut
                assert error.path is not None and error.path.startswith("games[")
                assert error.needed is not None and error.available is not None
                continue
            assert cut in boundaries and len(games) == boundaries.index(cut)


@pytest.mark.parametrize("chunk", [1, 2, 5, 64, 4096])
def test_small_chunks_give_the_same_games(policy_path: Path, games: list[monty.Game], chunk: int,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(monty_read, "_CHUNK", chunk)
    again = list(monty.read_games(io.BytesIO(policy_path.read_bytes())))
    assert [[(p.code, p.raw_score, p.visit_bytes) for p in g.plies] for g in again] == [
        [(p.code, p.raw_score, p.visit_bytes) for p in g.plies] for g in games]


def _everything(games: list[monty.Game]) -> list[Any]:
    return [(g.board.fen(), g.board.chess960, g.result, g.rook_files, g.number, g.offset,
             [(p.move, p.score, None if p.visits is None else dict(p.visits.items()), p.raw_score, p.visit_bytes,
               p.board.fen() if p.board else None, p.board.chess960 if p.board else None, p.code) for p in g.plies])
            for g in games]


@pytest.mark.parametrize("window", [1, 50])
def test_small_windows_give_the_same_games(policy_path: Path, value_path: Path, games: list[monty.Game],
                                           value_games: list[monty.Game], window: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader makes Python values a window of plies at a time: windows ending inside games change nothing."""
    monkeypatch.setattr(monty_games, "_WINDOW", window)
    assert _everything(list(monty.read_games(policy_path))) == _everything(games)
    assert _everything(list(monty.read_games(value_path, format="value"))) == _everything(value_games)


class CountingReader(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.served = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.served += len(data)
        return data


def test_games_are_streamed(policy_path: Path, games: list[monty.Game], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(monty_read, "_CHUNK", 64)
    data = policy_path.read_bytes()
    source = CountingReader(data)
    reader = monty.read_games(source, format="policy")  # named: finding the format reads the file's first 8 KiB
    next(reader)
    # game 0 ends where game 1 starts; the reader reads chunks of 64 bytes until a game is whole
    end_of_first = games[1].offset
    assert end_of_first is not None and source.served <= end_of_first + 64 < len(data)
    assert len(list(reader)) == 4


def test_unknown_format_name(policy_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown Monty format"):
        list(monty.read_games(policy_path, format="binpack"))


# --- the format found from the bytes; the games as a collection ----------------------------------------------

class Unseekable(io.RawIOBase):
    """A pipe-like stream: it reads, it cannot seek."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self.data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        return self.data.read(-1 if size is None else size)


def test_a_value_file_reads_without_its_format(value_path: Path, value_games: list[monty.Game],
                                               tmp_path: Path) -> None:
    assert list(monty.read_games(value_path)) == value_games
    # the content decides, not the name: the value file under a policy name, and under none
    for name in ("misnamed.montyformat", "unnamed.bin"):
        copy = tmp_path / name
        copy.write_bytes(value_path.read_bytes())
        assert monty.detect_format(copy) == "value"
        assert list(monty.read_games(copy)) == value_games


def test_the_format_is_found_from_streams_without_losing_bytes(policy_path: Path, value_path: Path,
                                                                games: list[monty.Game],
                                                                value_games: list[monty.Game]) -> None:
    for path, format, expected in ((policy_path, "policy", games), (value_path, "value", value_games)):
        data = path.read_bytes()
        handle = io.BytesIO(data)
        assert monty.detect_format(handle) == format and handle.tell() == 0  # sought back
        assert list(monty.read_games(handle)) == expected
        assert list(monty.read_games(Unseekable(data))) == expected  # the bytes peeked at are given back


def test_format_by_position_is_deprecated(value_path: Path, value_games: list[monty.Game]) -> None:
    with pytest.deprecated_call():
        assert list(monty.read_games(value_path, "value")) == value_games
    with pytest.raises(TypeError):
        list(monty.read_games(value_path, "value", format="value"))


def test_neither_reading_holds(tmp_path: Path) -> None:
    path = tmp_path / "noise.bin"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(FormatError):
        monty.detect_format(path)
    named = tmp_path / "noise.montyvalue"  # damaged, but named: reading it reports its fault
    named.write_bytes(path.read_bytes())
    assert monty.detect_format(named) == "value"
    with pytest.raises(FormatError):
        list(monty.read_games(named))
    empty = tmp_path / "empty.montyvalue"
    empty.write_bytes(b"")
    assert monty.detect_format(empty) == "value" and list(monty.read_games(empty)) == []  # no bytes: the name


@pytest.mark.parametrize("which", ["policy", "value"])
def test_open_games_is_a_game_collection(which: str, policy_path: Path, value_path: Path,
                                         games: list[monty.Game], value_games: list[monty.Game]) -> None:
    from chessformats.engine.contract import ClosedError, GameCollection

    path, expected = (policy_path, games) if which == "policy" else (value_path, value_games)
    with monty.open_games(path) as collection:
        assert isinstance(collection, GameCollection) and collection.format == which
        assert len(collection) == len(expected) == 5
        assert list(collection) == expected
        assert [collection[n] for n in range(len(collection))] == expected  # numbered from 0, as Game.number
        assert [game.number for game in collection] == list(range(5))
        assert collection[-1] == expected[-1]
        iterator = iter(collection)
        assert next(iterator) == expected[0] and collection[3] == expected[3] and next(iterator) == expected[1]
        with pytest.raises(IndexError):
            collection[5]
    for use in (len, list, lambda c: c[0]):
        with pytest.raises(ClosedError, match="closed"):
            use(collection)
    with open(path, "rb") as handle:  # a file object given is read, and left open
        with monty.open_games(handle, format=which) as collection:
            assert list(collection) == expected
        assert not handle.closed
    with pytest.raises(ValueError, match="seek"):
        monty.open_games(Unseekable(path.read_bytes()))


def test_len_does_not_read_the_plies_as_chess(policy_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chessformats.formats.monty import read as reader

    with monty.open_games(policy_path, format="policy") as collection:
        monkeypatch.setattr(reader, "game_from_raw", lambda *args: pytest.fail("a game was read as chess"))
        assert len(collection) == 5


def test_write_games_reports(value_games: list[monty.Game], tmp_path: Path) -> None:
    from chessformats.engine.contract import WriteReport

    report = monty.write_games(tmp_path / "out.montyvalue", value_games, format="value")
    assert isinstance(report, WriteReport) and int(report) == report.written == 5 and report.unit == "games"
    assert report.files == [str(tmp_path / "out.montyvalue")] and not report.skipped
