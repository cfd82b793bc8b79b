"""DES (FIPS 46-3) in electronic-codebook mode over numpy arrays: every 8-byte block at once.

ChessBase's encrypted archives (``.cbz``) are a ``.cbv`` enciphered with single DES, each 8-byte block on its own
(ECB), under a key made from the password (:func:`password_key`; facts from uncbv, ``src/decrypt.rs``). DES is
weak and ECB weaker: this module reads what ChessBase wrote, it protects nothing.

The tables are the standard's. A round is done for all blocks together with the usual combined S-box and
permutation tables (:func:`_sp_tables`): eight 64-entry lookups and a few shifts per round, on arrays of 32-bit halves.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

__all__ = ["decrypt", "encrypt", "password_key"]

_IP = (58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6,
       64, 56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
       61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7)
_FP = tuple(_IP.index(bit) + 1 for bit in range(1, 65))
_P = (16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9,
      19, 13, 30, 6, 22, 11, 4, 25)
_PC1 = (57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3,
        60, 52, 44, 36, 63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, 14, 6, 61, 53, 45, 37,
        29, 21, 13, 5, 28, 20, 12, 4)
_PC2 = (14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
        41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32)
_SHIFTS = (1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1)
_S = (
    (14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
     4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13),
    (15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
     0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9),
    (10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
     13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12),
    (7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
     10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14),
    (2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
     4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3),
    (12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
     9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13),
    (4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
     1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12),
    (13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
     7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11),
)


def _permute(value: int, table: tuple[int, ...], width: int) -> int:
    """``value`` (``width`` bits, bit 1 the most significant) rearranged: output bit i is input bit table[i]."""
    out = 0
    for bit in table:
        out = (out << 1) | ((value >> (width - bit)) & 1)
    return out


@functools.cache
def _sp_tables() -> np.ndarray[Any, Any]:
    """The eight S-boxes with the permutation P applied to their output, 64 entries each (made on first use)."""
    tables = np.zeros((8, 64), np.uint32)
    for box in range(8):
        for six in range(64):
            row = ((six >> 4) & 2) | (six & 1)
            column = (six >> 1) & 15
            tables[box, six] = _permute(_S[box][row * 16 + column] << (28 - 4 * box), _P, 32)
    return tables


def _subkeys(key: bytes) -> list[list[int]]:
    """The 16 round keys, each as eight 6-bit pieces (one per S-box)."""
    if len(key) != 8:
        raise ValueError("a DES key has 8 bytes")
    permuted = _permute(int.from_bytes(key, "big"), _PC1, 64)
    left, right = permuted >> 28, permuted & 0xFFFFFFF
    keys = []
    for shift in _SHIFTS:
        left = ((left << shift) | (left >> (28 - shift))) & 0xFFFFFFF
        right = ((right << shift) | (right >> (28 - shift))) & 0xFFFFFFF
        round_key = _permute((left << 28) | right, _PC2, 56)
        keys.append([(round_key >> (42 - 6 * box)) & 0x3F for box in range(8)])
    return keys


def _bit_permute(blocks: np.ndarray[Any, Any], table: tuple[int, ...]) -> np.ndarray[Any, Any]:
    out = np.zeros_like(blocks)
    for position, bit in enumerate(table):
        out |= ((blocks >> np.uint64(64 - bit)) & np.uint64(1)) << np.uint64(63 - position)
    return out


def _crypt(data: bytes | memoryview, key: bytes, keys_in_order: bool) -> bytes:
    if len(data) % 8:
        raise ValueError("DES works on whole 8-byte blocks")
    round_keys = _subkeys(key)
    sp = _sp_tables()
    if not keys_in_order:
        round_keys.reverse()
    blocks = _bit_permute(np.frombuffer(data, ">u8").astype(np.uint64), _IP)
    left = (blocks >> np.uint64(32)).astype(np.uint32)
    right = (blocks & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    for pieces in round_keys:
        wide = right.astype(np.uint64)
        expanded = ((wide & np.uint64(1)) << np.uint64(33)) | (wide << np.uint64(1)) | (wide >> np.uint64(31))
        mixed = np.zeros_like(right)
        for box in range(8):
            six = ((expanded >> np.uint64(28 - 4 * box)) & np.uint64(0x3F)).astype(np.intp) ^ pieces[box]
            mixed |= sp[box][six]
        left, right = right, left ^ mixed
    joined = (right.astype(np.uint64) << np.uint64(32)) | left.astype(np.uint64)
    return _bit_permute(joined, _FP).astype(">u8").tobytes()


def decrypt(data: bytes | memoryview, key: bytes) -> bytes:
    """``data`` (a multiple of 8 bytes) deciphered block by block with the 8-byte ``key``."""
    return _crypt(data, key, keys_in_order=False)


def encrypt(data: bytes | memoryview, key: bytes) -> bytes:
    """``data`` (a multiple of 8 bytes) enciphered block by block with the 8-byte ``key``."""
    return _crypt(data, key, keys_in_order=True)


def password_key(password: str | bytes) -> bytes:
    """ChessBase's DES key for a password (its UTF-8 bytes): 8 bytes as they are; shorter ones repeated to 8;
    longer ones folded, byte i going into key byte i mod 8 as ``key = (2 * key) ^ byte`` (mod 256)."""
    raw = password.encode("utf-8") if isinstance(password, str) else bytes(password)
    if not raw:
        raise ValueError("an empty password makes no key")
    if len(raw) <= 8:
        return (raw * 8)[:8]
    key = [0] * 8
    for index, byte in enumerate(raw):
        key[index % 8] = ((key[index % 8] * 2) ^ byte) & 0xFF
    return bytes(key)
