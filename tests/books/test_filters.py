"""Game filters of the book builder (ratings, lichess time-control categories, Variant): the games left out are
exactly the expected ones, and the book equals the book of a PGN holding only the games kept."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.polyglot
import pytest

from chessformats.books.build import BookBuilder
from chessformats.books.filters import GameFilter, time_category, variant_name
from chessformats.cli import main
from chessformats.formats.polyglot import decode_move
from chessformats.polyglot import make_book

# (first move, tags): every game opens with its own move, so the start position's moves tell the games kept
GAMES: list[tuple[str, dict[str, str]]] = [
    ("a3", {"WhiteElo": "2000", "BlackElo": "2100", "TimeControl": "180+2"}),  # blitz (260 s)
    ("a4", {"WhiteElo": "1700", "BlackElo": "2100", "TimeControl": "180+2"}),  # one rating under 1800
    ("b3", {"WhiteElo": "2000", "TimeControl": "300+0"}),  # no BlackElo; blitz (300 s)
    ("b4", {"WhiteElo": "?", "BlackElo": "2100", "TimeControl": "180+2"}),  # a rating unknown
    ("c3", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "60+0"}),  # bullet
    ("c4", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "-"}),  # correspondence
    ("d3", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "15+0"}),  # ultraBullet
    ("d4", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "600+5"}),  # rapid (800 s)
    ("e3", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "1800+0"}),  # classical
    ("e4", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "180+2", "Variant": "Crazyhouse"}),
    ("f3", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "180+2", "Variant": "Standard"}),
    ("f4", {"WhiteElo": "1800", "BlackElo": "1800", "TimeControl": "479+0"}),  # blitz at its upper limit
    ("g3", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "180+2", "Variant": "Atomic"}),
    ("g4", {"WhiteElo": "2200", "BlackElo": "2200", "TimeControl": "59+3"}),  # bullet at its upper limit (179 s)
    ("Nf3", {"WhiteElo": "2300", "BlackElo": "2300"}),  # no TimeControl
    ("h3", {"WhiteElo": "2300", "BlackElo": "2300", "TimeControl": "180+2", "Variant": "From Position",
            "SetUp": "1", "FEN": chess.STARTING_FEN}),
]
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def pgn_of(chosen: list[str], repeat: int = 1) -> str:
    parts = []
    for round_ in range(repeat):
        for number, (first, tags) in enumerate(GAMES):
            if first not in chosen:
                continue
            result = RESULTS[(number + round_) % 4]
            header = "".join(f'[{name} "{value}"]\n' for name, value in {"Result": result, **tags}.items())
            parts.append(f"{header}\n1. {first} Nf6 {result}\n")
    return "\n".join(parts)


ALL = [first for first, _ in GAMES]
CASES = [
    (GameFilter(), [m for m in ALL if m not in ("e4", "g3")]),
    (GameFilter(variants=None), ALL),
    (GameFilter.of(variants="standard"), [m for m in ALL if m not in ("e4", "g3", "h3")]),
    (GameFilter.of(min_rating=1800), [m for m in ALL if m not in ("a4", "b3", "b4", "e4", "g3")]),
    (GameFilter.of(time_controls="blitz"), ["a3", "a4", "b3", "b4", "f3", "f4", "h3"]),
    (GameFilter.of(time_controls="bullet, 1800+0,correspondence"), ["c3", "c4", "e3", "g4"]),
    (GameFilter.of(time_controls="ultraBullet,rapid"), ["d3", "d4"]),
    (GameFilter.of(min_rating=1800, time_controls="BLITZ", variants="any"), ["a3", "e4", "f3", "f4", "g3", "h3"]),
]


def first_moves(builder: BookBuilder) -> set[str]:
    board = chess.Board()
    start = chess.polyglot.zobrist_hash(board)
    return {board.san(decode_move(board, e.raw_move)) for e in builder.entries() if e.key == start}


def test_time_categories_follow_lichess() -> None:
    assert [time_category(t) for t in ("15+0", "29+0", "30+0", "0+1", "179+0", "59+3", "180+0", "479+0", "480+0",
                                       "600+5", "1499+0", "1500+0", "-", "?", "40/7200", "")] == [
        "ultraBullet", "ultraBullet", "bullet", "bullet", "bullet", "bullet", "blitz", "blitz", "rapid",
        "rapid", "rapid", "classical", "correspondence", None, None, None]
    assert variant_name("From Position") == "fromposition" and variant_name("Fischerandom") == "chess960"
    assert variant_name(None) == variant_name("Standard") == "standard"


def filter_id(value: object) -> str | None:
    """A test id that does not depend on set order (pytest-xdist's workers must collect the same ids)."""
    if not isinstance(value, GameFilter):
        return None
    return ",".join(f"{name}={value if value is None or isinstance(value, int) else '|'.join(sorted(value))}"
                    for name, value in (("min_rating", value.min_rating), ("time_controls", value.time_controls),
                                        ("variants", value.variants)))


@pytest.mark.parametrize(("game_filter", "kept"), CASES, ids=filter_id)
@pytest.mark.parametrize("jobs", [1, 2])
def test_filtered_games_are_exactly_the_expected_ones(tmp_path: Path, game_filter: GameFilter, kept: list[str],
                                                      jobs: int) -> None:
    repeat = 300  # over 1 MB: jobs=2 forks its second reader
    pgn = tmp_path / "all.pgn"
    pgn.write_text(pgn_of(ALL, repeat))
    builder = BookBuilder(max_ply=6, game_filter=game_filter)
    builder.add_pgn(pgn, jobs=jobs)
    assert builder.games == len(GAMES) * repeat and not builder.skipped
    assert builder.filtered == (len(GAMES) - len(kept)) * repeat
    assert first_moves(builder) == set(kept)
    only = BookBuilder(max_ply=6, game_filter=GameFilter(variants=None))
    only.add_pgn_text(pgn_of(kept, repeat))
    assert only.filtered == 0 and only.games == len(kept) * repeat
    make_book(tmp_path / "filtered.bin", builder, min_games=1)
    make_book(tmp_path / "only.bin", only, min_games=1)
    assert (tmp_path / "filtered.bin").read_bytes() == (tmp_path / "only.bin").read_bytes()


def test_python_chess_games_are_filtered_too() -> None:
    import io

    import chess.pgn

    text = pgn_of(ALL)
    games = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    builder = BookBuilder(game_filter=GameFilter.of(min_rating=1800, time_controls="blitz"))
    builder.add_games(games)
    assert builder.games == len(GAMES) and builder.filtered == len(GAMES) - 4
    assert first_moves(builder) == {"a3", "f3", "f4", "h3"}


def test_cli_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "all.pgn"
    pgn.write_text(pgn_of(ALL, 3))
    (tmp_path / "kept.pgn").write_text(pgn_of(["a3", "f3", "f4", "h3"], 3))
    assert main(["build", str(pgn), "-o", str(tmp_path / "cli.bin"), "--min-rating", "1800",
                 "--time-control", "blitz", "--min-games", "1", "--jobs", "1"]) == 0
    assert "filtered out" in capsys.readouterr().err
    assert main(["build", str(tmp_path / "kept.pgn"), "-o", str(tmp_path / "kept.bin"), "--min-games", "1"]) == 0
    assert (tmp_path / "cli.bin").read_bytes() == (tmp_path / "kept.bin").read_bytes()
    assert main(["build", str(pgn), "-o", str(tmp_path / "standard.bin"), "--variant", "standard",
                 "--min-games", "1"]) == 0
    (tmp_path / "standard.pgn").write_text(pgn_of([m for m in ALL if m not in ("e4", "g3", "h3")], 3))
    assert main(["build", str(tmp_path / "standard.pgn"), "-o", str(tmp_path / "expected.bin"),
                 "--min-games", "1"]) == 0
    assert (tmp_path / "standard.bin").read_bytes() == (tmp_path / "expected.bin").read_bytes()


@pytest.mark.parametrize("wanted", ["zzz", "blitzz", "180 + x", "40/", "rapid,3+"])
def test_a_time_control_that_is_no_category_nor_tag_is_refused(wanted: str) -> None:
    # a typo left every game out without a word; the PGN standard's TimeControl forms (9.6.1) and the categories pass
    with pytest.raises(ValueError, match="neither a lichess category"):
        GameFilter.of(time_controls=wanted)
    for fine in ("blitz,Rapid", "180+2", "40/7200:3600", "*60", "-", "?", "300"):
        assert GameFilter.of(time_controls=fine).time_controls is not None


def test_cli_refuses_an_unknown_time_control_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "g.pgn").write_text('[Result "1-0"]\n\n1. e4 e5 1-0\n')
    assert main(["build", str(tmp_path / "g.pgn"), "-o", str(tmp_path / "b.bin"), "--time-control", "zzz"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "time control 'zzz'" in err and not (tmp_path / "b.bin").exists()
