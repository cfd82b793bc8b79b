"""A ChessBase base as a table (one row per game) and through Parquet: every game of twic1134 checked against the
game-by-game reader, a sample replayed in python-chess; variations, Chess960, setup positions and damaged games
against ``to_pgn``."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")

from chessbase_corpus import cbh_path  # noqa: E402
from chessformats.engine.tables import write_parquet  # noqa: E402
from chessformats.formats.chessbase import open_database  # noqa: E402
from chessformats.formats.chessbase.moves import DecodedMove  # noqa: E402


def test_twic1134_to_parquet_to_pandas(tmp_path: Path) -> None:
    target = tmp_path / "games.parquet"
    with open_database(cbh_path("uncbv_twic1134")) as db:
        rows = write_parquet(db.iter_batches(batch_size=2048), target)  # several batches
        frame = pd.read_parquet(target)
        assert rows == len(frame) == 6117 == db.record_count  # no guiding text, no deleted game in this base
        assert frame["number"].tolist() == list(range(1, 6118))
        assert frame["error"].isna().all() and frame["fen"].isna().all()
        # every game: the main line against the scalar decoder (twic1134 has no variations: every move token)
        for row in frame.itertuples():
            tokens = db.decode(row.number).tokens
            assert row.uci.split() == [token.uci() for token in tokens if isinstance(token, DecodedMove)]
            assert row.plies == len(row.uci.split())
            assert db.records["moves"][row.number - 1] == min((row.plies + 1) // 2, 255)  # the header's move count
        # a sample replayed by python-chess to the reader's final position, with the reader's headers
        rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
        for number in random.Random(27).sample(range(1, 6118), 300):
            row = rows[number - 1]
            game = db[number].to_pgn()
            board = chess.Board()
            for uci in row["uci"].split():
                board.push_uci(uci)  # raises on an illegal move
            assert board.fen() == game.end().board().fen()
            headers = game.headers
            names = ("white", "black", "event", "site", "date", "result")
            assert [row[name] for name in names] == [headers[name.capitalize()] for name in names]
            assert (row["eco"], row["source"], row["annotator"]) == tuple(map(headers.get, ("ECO", "Source",
                                                                                          "Annotator")))
            for name, tag in (("white_elo", "WhiteElo"), ("black_elo", "BlackElo")):
                assert row[name] == (int(headers[tag]) if tag in headers else None)
            round_, subround = (None if row[name] is None else int(row[name]) for name in ("round", "subround"))
            assert f"{round_ or '?'}" + (f".{subround}" if subround else "") == headers["Round"]


@pytest.mark.parametrize("name", ["libcbh_WithVariations", "libcbh_Chess960NonStandard", "libcbh_UnusualStart",
                                  "libcbh_ManyPromotions", "morphy_test_annotations"])
def test_main_lines_and_san_as_the_reader(name: str) -> None:
    with open_database(cbh_path(name)) as db:
        rows = db.to_arrow(san=True).to_pylist()
        assert len(rows) == len(db)
        for row in rows:
            game = db[row["number"]].to_pgn()
            board = game.board()
            assert row["fen"] == (None if game.headers.get("FEN") is None else board.fen())
            sans = []
            for uci in row["uci"].split():
                move = board.parse_uci(uci)
                sans.append(board.san(move))
                board.push(move)
            assert board.fen() == game.end().board().fen()
            assert sans == row["san"].split()
            assert row["variations"] == sum(len(node.variations) - 1 for node in _nodes(game) if node.variations)
            assert row["annotations"] == len(db.annotations(row["number"]))


def _nodes(game: chess.pgn.Game) -> list[chess.pgn.GameNode]:
    nodes, stack = [], [game]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.variations)
    return nodes


def test_unreadable_games_keep_their_row_with_the_reason() -> None:
    with open_database(cbh_path("libcbh_Chess960Corrupt")) as db:
        table = db.to_arrow()
        assert table.num_rows == len(db) == 4
        assert table.column("error").null_count == 0
        assert table.column("uci").null_count == 4
        assert table.column("white").to_pylist() == [game.headers["White"] for game in db]


def test_batches_are_the_table() -> None:
    with open_database(cbh_path("morphy_hedgehog")) as db:
        whole = db.to_arrow()
        parts = pa.Table.from_batches(list(db.iter_batches(batch_size=37)))
        assert parts.equals(whole)
        assert whole.schema.equals(db.table_schema())


@pytest.mark.parametrize("name", ["libcbh_WithVariations", "libcbh_Annotation", "libcbh_UnusualStart",
                                  "morphy_test_annotations"])
def test_movetext_is_the_game(name: str) -> None:
    import io

    import chess.pgn

    def exported(game: chess.pgn.Game) -> str:
        return game.accept(chess.pgn.StringExporter(headers=False, columns=None))

    with open_database(cbh_path(name)) as db:
        rows = db.to_arrow(movetext=True).to_pylist()
        assert len(rows) == len(db)
        for row in rows:
            setup = f'[FEN "{row["fen"]}"]\n[SetUp "1"]\n\n' if row["fen"] else ""
            parsed = chess.pgn.read_game(io.StringIO(setup + row["movetext"]))
            assert parsed is not None and not parsed.errors
            assert exported(parsed) == exported(db[row["number"]].to_pgn())
