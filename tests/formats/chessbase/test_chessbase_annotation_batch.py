"""The batch reading of lichess's comments (:mod:`chessformats.formats.chessbase.annotation_batch`): each clock and
evaluation command read by the module's own patterns gives the item python-chess's readings give
(``GameNode.clock``, ``eval``, ``eval_depth``, the oracle; the bodies as the schema lays them out: a clock
``>I`` centiseconds, an evaluation ``<hhh`` value, kind, depth), and the writer's one-comment path
(:func:`.annotation_writer.command_item`) agrees; a command whose item cannot be written is left to that path,
which then does what it does (raises)."""

from __future__ import annotations

import random
import struct

import chess
import chess.pgn
import pytest

from chessformats.formats.chessbase import annotation_batch
from chessformats.formats.chessbase.annotation_writer import command_item

_CLOCK_TYPES = {chess.WHITE: 0x16, chess.BLACK: 0x17}
_EVALUATION = 0x21
_BLANKS = (" ", "\t", "\n", "\x0b", "\x1c", "\xa0", "\u2003")


def _node(comment: str, mover: chess.Color) -> chess.pgn.ChildNode:
    """A node after a move of ``mover``, with ``comment``."""
    game = chess.pgn.Game()
    node = game.add_variation(chess.Move.from_uci("e2e4"))
    if mover == chess.BLACK:
        node = node.add_variation(chess.Move.from_uci("e7e5"))
    node.comment = comment
    return node


def _clocks(rng: random.Random) -> list[str]:
    fixed = ["[%clk 0:03:00]", "[%clk 0:00:00]", "[%clk 9:59:59]", "[%clk 0:02:41.5]", "[%clk 0:02:41.]",
             "[%clk 0:02:41.123]", "[%clk 10:00:00]", "[%clk 1193:02:47.295]", "[%clk 1193:02:47.296]",
             "[%clk 0:1:2]", "[%clk 0:99:99]", "[%clk 000:00:01]", "[%clk abc]", "[%clk ]", "[%clk 0:01]",
             "[%clk 0:01:00 ]", "[%clk  0:01:00]", "[%clk -0:01:00]", "[%clk 0:01:.5]", "[%clk 0:0a:00]",
             "[%clk0:01:00]", "[%clk 0:01:00:00]", "[%clk ١:٠٠:٠٠]", "[%clk 99999:00:00]"]
    fixed += [f"[%clk{blank}0:01:00]" for blank in _BLANKS]
    made = [f"[%clk {rng.randrange(12)}:{rng.randrange(100):0{rng.choice((1, 2))}d}:{rng.randrange(60):02d}"
            f"{rng.choice(('', '', '.', '.5', '.25', '.999'))}]" for _ in range(300)]
    return fixed + made


def _evaluations(rng: random.Random) -> list[str]:
    fixed = ["[%eval 0.39]", "[%eval -0.39]", "[%eval +0.39]", "[%eval 0]", "[%eval -0]", "[%eval 0.0]",
             "[%eval -0.00]", "[%eval .5]", "[%eval 5.]", "[%eval -.05]", "[%eval 1.005]", "[%eval 1.2.3]",
             "[%eval 327.67]", "[%eval 327.68]", "[%eval -327.68]", "[%eval -327.69]", "[%eval 99999.99]",
             "[%eval 12345678901]", "[%eval 1234567890]", "[%eval #3]", "[%eval #-3]", "[%eval #+3]", "[%eval #0]",
             "[%eval #-0]", "[%eval #32767]", "[%eval #32768]", "[%eval #-32768]", "[%eval #-32769]", "[%eval #]",
             "[%eval ##3]", "[%eval 0.39,20]", "[%eval #-2,7]", "[%eval 0.39,]", "[%eval 0.39,0]",
             "[%eval 0.39,32767]", "[%eval 0.39,32768]", "[%eval 0.39, 20]", "[%eval 0.39 ]", "[%eval  0.39]",
             "[%eval abc]", "[%eval ]", "[%eval -]", "[%eval +-1]", "[%eval 1e3]", "[%eval 0,5]", "[%eval0.39]",
             "[%eval ١.٥]"]
    fixed += [f"[%eval{blank}0.39]" for blank in _BLANKS]
    made = []
    for _ in range(300):
        if rng.random() < 0.1:
            value = f"#{rng.choice(('', '-', '+'))}{rng.randrange(30)}"
        else:
            value = f"{rng.choice(('', '-', '+'))}{rng.randrange(100)}{rng.choice(('', '.', '.0', '.5', '.25', '.07'))}"
        made.append(f"[%eval {value}{rng.choice(('', '', ',', f',{rng.randrange(60)}'))}]")
    return fixed + made


_PROBLEM = (-2, b"")


def _expected(command: str, mover: chess.Color) -> tuple[int, bytes] | None:
    """python-chess's reading of ``command`` as an item (type, body); None: no item; :data:`_PROBLEM`: the writer
    reports a problem (a clock or an evaluation out of range, left out; a depth out of range, left out of its
    evaluation), and the batch leaves the game to it."""
    node = _node(command, mover)
    clock, score = node.clock(), node.eval()
    if clock is not None:
        centiseconds = round(clock * 100)
        if not 0 <= centiseconds < 1 << 32:
            return _PROBLEM
        return _CLOCK_TYPES[mover], struct.pack(">I", centiseconds)
    if score is None:
        return None
    white = score.white()
    mate = white.mate()
    value = mate if mate is not None else white.score()
    assert value is not None
    depth = node.eval_depth() or 0
    if not -(1 << 15) <= value < 1 << 15:
        return _PROBLEM
    if depth >= 1 << 15:
        return _PROBLEM
    return _EVALUATION, struct.pack("<hhh", value, 0 if mate is None else 1, depth)


def _read(group: annotation_batch._Commands, commands: list[str]) -> None:
    """Read ``commands`` (each as a comment's text, none keyed) into ``group``."""
    data = "".join(commands).encode("utf-8")
    stops = [len("".join(commands[:at + 1]).encode("utf-8")) for at in range(len(commands))]
    starts = [0, *stops[:-1]]
    import numpy as np

    group.read(np.zeros(len(commands), dtype=np.int64), np.zeros(len(commands), dtype=bool),
               np.array(starts, dtype=np.int64), np.array(stops, dtype=np.int64), data)


@pytest.mark.parametrize("index", [0, 1])
def test_commands_read_as_python_chess_reads_them(index: int) -> None:
    rng = random.Random(22 + index)
    commands = (_clocks if index == 0 else _evaluations)(rng)
    template = annotation_batch._groups()[index]
    group = annotation_batch._Commands(template.keys, template.text, template.group)
    _read(group, commands)
    taken = 0
    for command, row in zip(commands, group.ids.tolist(), strict=True):
        for mover in (chess.BLACK, chess.WHITE):
            type_, bad = int(group.types[row, int(mover)]), bool(group.bad[row, int(mover)])
            expected = _expected(command, mover)
            if expected == _PROBLEM:
                assert bad and command_item(command, mover) is None, command
                continue
            assert not bad, command
            assert (type_, group.bodies[row].tobytes() if type_ >= 0 else b"") == (expected or (-1, b"")), command
            written = command_item(command, mover)
            assert written is not None and (written[1], written[3]) == (type_, group.bodies[row].tobytes() if
                                                                        type_ >= 0 else b""), command
            taken += type_ >= 0
    assert taken > len(commands)  # most are read (both movers)


def test_keyed_commands_are_their_texts() -> None:
    """A clock or an evaluation numbered by its characters (the batch's key) reads as its text."""
    clocks, evaluations = annotation_batch._groups()
    assert [clocks.text(key) for key in (0, 10000, 13000, 95959)] == \
        ["[%clk 0:00:00]", "[%clk 1:00:00]", "[%clk 1:30:00]", "[%clk 9:59:59]"]
    code = {char: number for number, char in enumerate("0123456789.-#+,", 1)}

    def key(sign: int, value: str) -> int:
        number = sign
        for at in range(5):
            number = number << 4 | (code[value[at]] if at < len(value) else 0)
        return number

    assert [evaluations.text(key(sign, value)) for sign, value in ((0, "0.39"), (1, "12.5"), (2, "3"), (3, "10"))] \
        == ["[%eval 0.39]", "[%eval -12.5]", "[%eval #3]", "[%eval #-10]"]
