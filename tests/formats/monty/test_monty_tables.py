"""Monty data as a table: one row per ply, equal to the reader's plies and to the reference crate's own listing
(``corpus/monty/*.plies.tsv``: FEN before the move, UCI, move code)."""

from __future__ import annotations

import csv

import pytest

pytest.importorskip("pyarrow")

from chessformats import monty
from conftest import find_corpus


@pytest.mark.parametrize("name", ["reference_generated_policy.montyformat", "reference_generated_value.montyvalue"])
def test_rows_are_the_plies(name: str) -> None:
    with monty.open_games(find_corpus("monty", name)) as games:
        rows = games.to_arrow().to_pylist()
        plies = [(game, index, ply) for game in games for index, ply in enumerate(game.plies)]
    assert len(rows) == len(plies)
    for row, (game, index, ply) in zip(rows, plies, strict=True):
        assert (row["game"], row["ply"], row["result"]) == (game.number, index, game.result)
        assert (row["fen"], row["move"], row["code"]) == (ply.board.fen(), ply.move.uci(), ply.code)
        assert (row["score"], row["raw_score"]) == (ply.score, ply.raw_score)
        if ply.visits is None:
            assert row["visit_moves"] is None and row["visits"] is None
        else:
            assert dict(zip(row["visit_moves"], row["visits"], strict=True)) == {
                move.uci(): share for move, share in ply.visits.items()}
    if name.endswith("montyformat"):
        assert any(row["visits"] for row in rows)
        with find_corpus("monty", name + ".plies.tsv").open() as handle:
            listed = list(csv.DictReader(handle, delimiter="\t"))
        assert [(int(item["game"]), int(item["ply"]), item["uci"], int(item["move_u16"])) for item in listed] == [
            (row["game"], row["ply"], row["move"], row["code"]) for row in rows]
        # the crate writes castling rights in its own order and no en-passant square: the placement and side agree
        assert [item["fen_before(as_fen,no ep)"].split()[:2] for item in listed] == [
            row["fen"].split()[:2] for row in rows]
