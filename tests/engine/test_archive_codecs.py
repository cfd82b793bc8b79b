"""The decoding stages of ChessBase archives against word-by-word reference decoders written here.

``engine.huffman`` and ``engine.lzrle`` decode whole buffers at once with numpy (lanes that fall into step,
pointer doubling); the references below read one code word, one item at a time, the plain way the format is
described (``schemas/chessbase/cbv.py``). Random codes and streams, the lanes' corner cases forced.
"""

from __future__ import annotations

import random

import pytest

from chessformats.engine import huffman, lzrle


def _reference_huffman(data: bytes, start: int, lengths: list[int], codes: list[int], count: int) -> bytes:
    words = {(length, codes[byte]): byte for byte, length in enumerate(lengths) if length}
    bits = "".join(f"{byte:08b}" for byte in data)
    out, position = bytearray(), start
    while len(out) < count:
        for length in range(1, 16):
            if position + length > len(bits):
                raise ValueError("end")
            found = words.get((length, int(bits[position:position + length], 2)))
            if found is not None:
                out.append(found)
                position += length
                break
        else:
            raise ValueError("no word")
    return bytes(out)


def _random_code(rng: random.Random, symbols: int) -> tuple[list[int], list[int]]:
    """A complete prefix code over ``symbols`` random byte values, the words shuffled (not canonical)."""
    chosen = rng.sample(range(256), symbols)
    leaves = [""]
    while len(leaves) < symbols:
        leaf = leaves.pop(rng.randrange(len(leaves)))
        if len(leaf) >= 15:
            leaves.append(leaf)
            continue
        leaves += [leaf + "0", leaf + "1"]
    lengths, codes = [0] * 256, [0] * 256
    for byte, word in zip(chosen, leaves, strict=True):
        lengths[byte], codes[byte] = len(word), int(word, 2)
    return lengths, codes


def _stream(rng: random.Random, lengths: list[int], codes: list[int], count: int, start: int) -> bytes:
    present = [byte for byte in range(256) if lengths[byte]]
    bits = "".join(rng.choice("01") for _ in range(start))
    bits += "".join(format(codes[byte], f"0{lengths[byte]}b") for byte in rng.choices(present, k=count))
    bits += "".join(rng.choice("01") for _ in range(-len(bits) % 8 + 8 * rng.randrange(3)))
    return int(bits, 2).to_bytes(len(bits) // 8, "big")


@pytest.mark.parametrize("seed", range(12))
def test_huffman_decodes_as_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    lengths, codes = _random_code(rng, rng.choice([2, 3, 17, 100, 256]))
    count = rng.choice([1, 7, 500, 5000])
    start = rng.randrange(40)
    data = _stream(rng, lengths, codes, count, start)
    expected = _reference_huffman(data, start, lengths, codes, count)
    assert huffman.decode(data, start, huffman.decode_table(lengths, codes), count) == expected


@pytest.mark.parametrize(("lane_bits", "rounds", "overlap"),
                         [(16, 4, 0), (64, 0, 0), (64, 1, 1), (4096, 4, 80), (24, 4, 0), (64, 4, 2), (200, 4, 1)])
def test_huffman_lanes_and_fallback(lane_bits: int, rounds: int, overlap: int,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Lanes whose walks start too close to them to be in step (``overlap`` words before), walked again from
    where the lane before them left, in rounds, or word by word after ``rounds``."""
    monkeypatch.setattr(huffman, "LANE_BITS", lane_bits)
    monkeypatch.setattr(huffman, "_ROUNDS", rounds)
    monkeypatch.setattr(huffman, "_OVERLAP_WORDS", overlap)
    rng = random.Random(lane_bits + rounds + overlap)
    streams = []
    for _ in range(5):
        lengths, codes = _random_code(rng, rng.choice([2, 9, 256]))
        count, start = rng.choice([0, 3, 3000]), rng.randrange(30)
        data = _stream(rng, lengths, codes, count, start)
        streams.append((huffman.Stream(data, start, huffman.decode_table(lengths, codes), count),
                        _reference_huffman(data, start, lengths, codes, count)))
    assert huffman.decode_many([stream for stream, _ in streams]) == [expected for _, expected in streams]


@pytest.mark.parametrize("seed", range(6))
def test_huffman_lanes_walked_again_in_rounds(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lanes of 16 bits whose walks start at their own first bit: most are out of step, a lane walked again
    moves where the next one enters, and a lane that meets its guess in a later round leaves where its guess
    does, round after round."""
    monkeypatch.setattr(huffman, "LANE_BITS", 16)
    monkeypatch.setattr(huffman, "_OVERLAP_WORDS", 0)
    monkeypatch.setattr(huffman, "_ROUNDS", 64)
    rng = random.Random(seed)
    lengths, codes = _random_code(rng, rng.choice([5, 9, 30]))
    start = rng.randrange(30)
    data = _stream(rng, lengths, codes, 3000, start)
    expected = _reference_huffman(data, start, lengths, codes, 3000)
    assert huffman.decode(data, start, huffman.decode_table(lengths, codes), 3000) == expected


def test_huffman_shorter_words_win_and_later_bytes_win() -> None:
    lengths, codes = [0] * 256, [0] * 256
    lengths[1], codes[1] = 3, 0b101
    lengths[2], codes[2] = 1, 0b1  # a prefix of byte 1's word: byte 1 is never decoded
    lengths[3], codes[3] = 1, 0b0
    lengths[4], codes[4] = 1, 0b0  # the same word as byte 3: the later byte wins
    assert huffman.decode(bytes([0b10100000]), 0, huffman.decode_table(lengths, codes), 8) == b"\2\4\2\4\4\4\4\4"


def test_huffman_errors_say_where() -> None:
    lengths, codes = [0] * 256, [0] * 256
    lengths[65], codes[65] = 2, 0b00
    lengths[66], codes[66] = 2, 0b01  # words 1x start nothing
    table = huffman.decode_table(lengths, codes)
    with pytest.raises(huffman.BitStreamError) as bad:
        huffman.decode(bytes([0b00011000]), 0, table, 4)
    assert bad.value.bit == 4 and not bad.value.truncated
    with pytest.raises(huffman.BitStreamError) as short:
        huffman.decode(bytes([0b00010001]), 0, table, 5)
    assert short.value.truncated


@pytest.mark.parametrize("seed", range(4))
def test_huffman_encoder_round_trips(seed: int) -> None:
    rng = random.Random(seed)
    data = bytes(rng.choice(b"aaaaaaaabbbbccd\x00\xff" if seed % 2 else range(256)) for _ in range(3000))
    lengths, codes = huffman.build_code(data)
    assert max(lengths) <= huffman.MAX_LENGTH
    words, bits = huffman.encode(data, lengths, codes)
    assert bits <= 8 * len(words) < bits + 8
    assert _reference_huffman(words, 0, lengths, codes, len(data)) == data


def _reference_lz(data: bytes) -> bytes:
    out = bytearray()
    position = 0
    while position < len(data):
        control = data[position] | data[position + 1] << 8
        position += 2
        for bit in range(16):
            if position >= len(data):
                break
            if not control >> (15 - bit) & 1:
                out.append(data[position])
                position += 1
                continue
            first = data[position]
            high, low = first >> 4, first & 15
            if high == 0:
                out += bytes([data[position + 1]]) * (low + 3)
                position += 2
            elif high == 1:
                out += bytes([data[position + 2]]) * (low + (data[position + 1] << 4) + 19)
                position += 3
            else:
                distance = (data[position + 1] << 4) + low + 3
                length = data[position + 2] + 16 if high == 2 else high
                position += 3 if high == 2 else 2
                for _ in range(length):  # byte by byte: a copy longer than its distance repeats
                    out.append(out[-distance])
    return bytes(out)


def _lz_items(rng: random.Random, groups: int) -> bytes:
    coded, made = bytearray(), 0
    for _ in range(groups):
        control, items = 0, bytearray()
        for bit in range(16):
            kind = rng.random()
            if kind < 0.4 or made < 3:
                items.append(rng.randrange(256))
                made += 1
                continue
            control |= 1 << (15 - bit)
            if kind < 0.5:
                low, value = rng.randrange(16), rng.randrange(256)
                items += bytes([low, value])
                made += low + 3
            elif kind < 0.55:
                low, high, value = rng.randrange(16), rng.randrange(4), rng.randrange(256)
                items += bytes([0x10 | low, high, value])
                made += low + (high << 4) + 19
            else:
                distance = rng.randrange(3, min(made, 4098) + 1)
                low, high = (distance - 3) & 15, (distance - 3) >> 4
                if kind < 0.65:
                    extra = rng.randrange(256)
                    items += bytes([0x20 | low, high, extra])
                    made += extra + 16
                else:
                    length = rng.randrange(3, 16)
                    items += bytes([length << 4 | low, high])
                    made += length
        coded += bytes([control & 0xFF, control >> 8]) + items
    return bytes(coded)


def test_lz_long_runs_and_copies() -> None:
    """Runs and copies longer than DEFLATE's 258-byte matches (cut into pieces), runs of 3 and 4 bytes."""
    items = bytes([0x41, 0x1F, 0xFF, 0x42, 0x00, 0x43, 0x01, 0x44, 0x20, 0x00, 0xFF, 0x12, 0x0F, 0x45])
    data = bytes([0x00, 0x7C]) + items  # a literal, a run of 4,114, of 3, of 4, a copy of 271, a run of 261
    assert lzrle.decode(data, 1 << 20) == _reference_lz(data)
    assert len(_reference_lz(data)) == 1 + 4114 + 3 + 4 + 271 + 261


@pytest.mark.parametrize("seed", range(10))
def test_lz_decodes_as_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    data = _lz_items(rng, rng.choice([1, 5, 200]))
    data = data[:len(data) - rng.choice([0, 0, 1, 2])]  # the last group cut after any item
    try:
        expected = _reference_lz(data)
    except IndexError:
        with pytest.raises(lzrle.LzError):
            lzrle.decode(data, 1 << 30)
        return
    assert lzrle.decode(data, 1 << 30) == expected


def test_lz_errors() -> None:
    with pytest.raises(lzrle.LzError) as before:
        lzrle.decode(bytes([0x00, 0x80, 0x30, 0x00]), 100)  # a copy of 3 from 3 back, at the start
    assert before.value.at == 2
    with pytest.raises(lzrle.LzError) as limit:
        lzrle.decode(bytes([0x00, 0x80, 0x1F, 0xFF, 0x41]), 100)  # a run of 4,114 bytes
    assert limit.value.at == 2
    with pytest.raises(lzrle.LzError):
        lzrle.decode(bytes([0x00, 0x80, 0x20, 0x00]), 100)  # a long copy without its length byte
    assert lzrle.decode(lzrle.store(b"abcdefghijklmnopqrstuvwxyz"), 100) == b"abcdefghijklmnopqrstuvwxyz"
    assert lzrle.decode(bytes([0x00, 0x80]), 100) == _reference_lz(bytes([0x00, 0x80])) == b""  # no item
