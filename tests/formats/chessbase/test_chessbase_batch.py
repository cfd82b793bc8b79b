"""The batch decoder (many games at once with numpy) against the scalar one, on every game of the corpus; its SAN
(checks, mates, rivals: worked out on the chess kernel) against python-chess's ``Board.san``."""

from __future__ import annotations

import io
import random
from collections import Counter
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from chessbase_corpus import cbh_path, copy_base
from chessformats import chessbase
from chessformats.engine.codec import codec
from chessformats.engine.errors import FormatError
from chessformats.formats.chessbase.batch import decode_batch
from chessformats.formats.chessbase.batch_pgn import san_strings
from chessformats.formats.chessbase.database import _SKIPPED as SKIPPED
from chessformats.formats.chessbase.database import _pgn_one
from chessformats.formats.chessbase.moves import POP, PUSH, DecodedGame, DecodedMove, decode_game
from chessformats.schemas import chessbase as schema
from conftest import find_corpus

SIZE = codec(schema.DATA_WORD).field("size")
WORD = schema.DATA_WORD.sizeof()
BASES = sorted(path.name for path in find_corpus("chessbase").iterdir() if any(path.glob("*.cbh")))


def _scalar(db: chessbase.Database, number: int) -> DecodedGame | tuple[type, str, int | None]:
    try:
        return db.decode(number)
    except FormatError as error:
        return type(error), str(error), error.offset


@pytest.mark.parametrize("name", BASES)
def test_decode_many_equals_decode_on_every_game(name: str) -> None:
    with chessbase.open_database(cbh_path(name)) as db:
        numbers = range(1, db.record_count + 1)
        expected = [_scalar(db, number) for number in numbers]
        batch = db.decode_batch(np.arange(1, db.record_count + 1))
        for index, want in enumerate(expected):
            if not batch.fallback[index]:
                assert isinstance(want, DecodedGame), (name, index + 1)
                assert batch.game(index) == want, (name, index + 1)
        for number, want in zip(numbers, expected, strict=True):
            if not isinstance(want, DecodedGame):  # decode_many raises decode's error
                with pytest.raises(FormatError) as raised:
                    list(db.decode_many([number]))
                assert (type(raised.value), str(raised.value), raised.value.offset) == want
        games = [number for number, want in zip(numbers, expected, strict=True) if isinstance(want, DecodedGame)]
        assert [number for number, _ in db.decode_many(games, chunk=7 if len(games) < 1000 else 4096)] == games
        assert [game for _, game in db.decode_many(games)] == [expected[n - 1] for n in games]


@pytest.mark.parametrize(("name", "least"), [("uncbv_twic1134", 6117), ("libcbh_NormalGames", 548),
                                             ("libcbh_WithVariations", 15), ("morphy_hedgehog", 140)])
def test_the_batch_decodes_ordinary_games_itself(name: str, least: int) -> None:
    # the speed comes from games the batch decodes without the scalar decoder; variations included
    with chessbase.open_database(cbh_path(name)) as db:
        batch = db.decode_batch(np.arange(1, db.record_count + 1))
        assert int((~batch.fallback).sum()) >= least
        if name == "libcbh_WithVariations":
            assert any("(" in batch.game(index).tokens for index in np.flatnonzero(~batch.fallback).tolist())


@pytest.mark.parametrize("seed", range(6))
def test_damaged_streams_give_the_scalar_result_or_fall_back(seed: int, tmp_path: Path) -> None:
    # one byte changed in each game's stream: where the batch still decodes a game, it decodes it as the scalar
    # decoder does; the games it gives up are the scalar decoder's (which raises its located errors)
    rng = random.Random(seed)
    with chessbase.open_database(cbh_path("libcbh_NormalGames")) as db:
        offsets = db.records["cbg_offset"].astype(np.int64)
        data = bytearray(db._cbg)
    for start in offsets.tolist():
        size = SIZE.get(data, start)
        if size > 2 * WORD:
            data[start + rng.randrange(WORD, size)] = rng.randrange(256)
    blob = bytes(data)
    batch = decode_batch(blob, np.arange(1, len(offsets) + 1), offsets)
    decoded = failed = 0
    for index, start in enumerate(offsets.tolist()):
        size = SIZE.get(blob, start)
        try:
            want: object = decode_game(blob[start:start + size], base=start, game=index + 1)
        except FormatError:
            assert batch.fallback[index]
            failed += 1
            continue
        if not batch.fallback[index]:
            assert batch.game(index) == want
            decoded += 1
    assert decoded > 0 and failed > 0


_ONE_BY_ONE: dict[tuple[str, bool], tuple[list[bytes], list[str]]] = {}
"""The game-by-game export of a base (texts, errors), by (base, whether its annotation records are read): a base
without any annotation record is exported game by game once for both values of ``annotations``."""


def _one_by_one(name: str, annotations: bool) -> tuple[list[bytes], list[str]]:
    with chessbase.open_database(cbh_path(name)) as db:
        annotated = db.records["cba_offset"] != 0
        key = (name, annotations and bool(annotated.any()))
        if key not in _ONE_BY_ONE:
            _ONE_BY_ONE.clear()  # one base at a time: the parameters run base by base
            texts: list[bytes] = []
            errors: list[str] = []
            for number in range(1, db.record_count + 1):
                if db.records["kind"][number - 1] & SKIPPED:
                    continue
                one = _pgn_one(db, number, annotations and bool(annotated[number - 1]))
                if isinstance(one, FormatError):
                    errors.append(str(one))
                else:
                    texts.append(one.encode("utf-8") + b"\n")
            _ONE_BY_ONE[key] = texts, errors
    return _ONE_BY_ONE[key]


@pytest.mark.parametrize("annotations", [True, False])
@pytest.mark.parametrize("name", BASES)
def test_export_equals_the_game_by_game_export_byte_for_byte(name: str, annotations: bool, tmp_path: Path) -> None:
    # export_pgn writes games without annotations from the batch decoder's arrays; game by game (the scalar
    # decoder, python-chess's SAN, chess.pgn for annotated games) must give the same bytes and the same errors
    cbh = cbh_path(name)
    texts, errors = _one_by_one(name, annotations)
    for chunk in (4096, 5):
        if chunk == 5 and len(texts) > 600:
            continue
        target = tmp_path / f"out{chunk}.pgn"
        written, failed = chessbase.export_pgn(cbh, target, annotations=annotations, chunk=chunk)
        assert target.read_bytes() == b"".join(texts)
        assert (written, [str(error) for error in failed]) == (len(texts), errors)


def _random_games(seed: int, count: int) -> list[chess.pgn.Game]:
    """Random legal games from the start (checks, mates, promotions, en passant, castling, pins, rivals), with
    random variations."""
    rng = random.Random(seed)
    games = []
    for number in range(count):
        game = chess.pgn.Game()
        game.headers["White"], game.headers["Black"], game.headers["Event"] = f"W{number}", f"B{number}", "random"
        node: chess.pgn.GameNode = game
        for _ in range(rng.randrange(1, 160)):
            board = node.board()
            moves = list(board.legal_moves)
            if not moves:
                break
            if rng.random() < 0.05 and node.parent is not None:
                line: chess.pgn.GameNode = node.parent
                for _ in range(rng.randrange(1, 6)):
                    options = [m for m in line.board().legal_moves if not line.has_variation(m)]
                    if not options:
                        break
                    line = line.add_variation(rng.choice(options))
            captures = [m for m in moves if board.is_capture(m) or board.gives_check(m) or m.promotion]
            node = node.add_variation(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        games.append(game)
    return games


@pytest.mark.parametrize("seed", range(3))
def test_export_of_random_games_has_python_chess_san(seed: int, tmp_path: Path) -> None:
    # SAN decided by the batch (rivals, pins, check, mate, promotions, en passant, castling) against python-chess's
    # own SAN of the same games, and byte for byte against the game-by-game export
    games = _random_games(seed, 120)
    cbh = tmp_path / "random.cbh"
    report = chessbase.write_database(cbh, games)
    written, failed = chessbase.export_pgn(cbh, tmp_path / "out.pgn")
    assert not failed and written == len(games) - len(report.skipped)
    text = (tmp_path / "out.pgn").read_text(encoding="utf-8")
    with chessbase.open_database(cbh) as db:
        old = [_pgn_one(db, number, False) for number in range(1, db.record_count + 1)]
        assert text == "".join(f"{one}\n" for one in old)
        batch = db.decode_batch(np.arange(1, db.record_count + 1), san=True)
        assert (~batch.fallback).sum() >= len(db) * 0.9  # the batch wrote them (4th queens aside)
    source = io.StringIO(text)
    skipped = {left.item - 1 for left in report.skipped}
    kept = [game for index, game in enumerate(games) if index not in skipped]
    for game in kept:
        ours = chess.pgn.read_game(source)
        assert ours is not None and not ours.errors
        exporter = chess.pgn.StringExporter(headers=False, comments=False)
        assert ours.accept(exporter).split() == game.accept(chess.pgn.StringExporter(headers=False,
                                                                                        comments=False)).split()


@pytest.mark.parametrize("seed", range(3))
def test_export_of_a_damaged_base_equals_the_game_by_game_export(seed: int, tmp_path: Path) -> None:
    # bytes changed all over the move streams: games that still decode hold illegal moves (kings left in check,
    # pieces jumping); the export must still be the game-by-game one, byte for byte, with the same errors
    cbh = copy_base("libcbh_NormalGames", tmp_path)
    cbg = next(tmp_path.glob("*.cbg"))
    data = bytearray(cbg.read_bytes())
    rng = random.Random(seed)
    for _ in range(300):
        data[rng.randrange(WORD, len(data))] = rng.randrange(256)
    cbg.write_bytes(bytes(data))
    texts: list[bytes] = []
    errors: list[str] = []
    with chessbase.open_database(cbh) as db:
        for number in range(1, db.record_count + 1):
            one = _pgn_one(db, number, False)
            if isinstance(one, FormatError):
                errors.append(str(one))
            else:
                texts.append(one.encode("utf-8") + b"\n")
    written, failed = chessbase.export_pgn(cbh, tmp_path / "out.pgn", annotations=False)
    assert (tmp_path / "out.pgn").read_bytes() == b"".join(texts)
    assert (written, [str(error) for error in failed]) == (len(texts), errors)
    assert written > 100 and errors


def _compare_with_python_chess(cbh: Path) -> Counter[str]:
    """Every move of every game the batch decodes with ``san=True``, against python-chess's SAN of the same move
    in the same position; how many moves were compared, and how many of them were checks, mates and moves named
    with their origin's file, rank or square."""
    compared: Counter[str] = Counter()
    with chessbase.open_database(cbh) as db:
        batch = db.decode_batch(np.arange(1, db.record_count + 1), san=True)
        sans = san_strings(batch)
        for index in np.flatnonzero(~batch.fallback).tolist():
            game = batch.game(index)
            board = chess.Board(game.start.fen())
            stack: list[chess.Board] = []
            slot = int(batch.first[index])
            for token in game.tokens:
                if token is PUSH:
                    stack.append(board.copy(stack=False))
                elif token is POP:
                    if stack:
                        board = stack.pop()
                elif isinstance(token, DecodedMove):
                    move = token.move()
                    assert token.null or board.is_legal(move), (cbh.name, index, slot)
                    assert sans[slot] == board.san(move), (cbh.name, index, slot, board.fen(), move.uci())
                    board.push(move)
                    compared["moves"] += 1
                    text = sans[slot]
                    compared["checks"] += text.endswith("+")
                    compared["mates"] += text.endswith("#")
                    compared["named"] += len(text.rstrip("+#").replace("x", "")) > 3 and text[0] in "NBRQ"
                slot += 1
    return compared


@pytest.mark.parametrize("name", ["libcbh_NormalGames", "libcbh_WithVariations"])
def test_batch_san_equals_python_chess_on_corpus_games(name: str) -> None:
    found = _compare_with_python_chess(cbh_path(name))
    assert found["moves"] > 1000 and found["checks"] > 50 and found["named"] > 20


def test_batch_san_equals_python_chess_on_random_games(tmp_path: Path) -> None:
    cbh = tmp_path / "random.cbh"
    report = chessbase.write_database(cbh, _random_games(7, 60))
    assert len(report.skipped) < 10
    found = _compare_with_python_chess(cbh)
    assert found["moves"] > 2000 and found["mates"] > 3 and found["checks"] > 300 and found["named"] > 5
