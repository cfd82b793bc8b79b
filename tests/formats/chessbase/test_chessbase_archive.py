"""ChessBase archives (.cbv, .cbz): extraction, deciphering, the archived base, writing, hostile input.

The expected bytes are the corpus's: uncbv's extracted folders (``uncbv_twic1134``, ``uncbv_small``) and its
deciphered ``decrypted_small.cbv`` (``corpus/chessbase/uncbv_archives/SOURCES.txt``); games read from an
archive are compared with games read from the extracted base. Nothing is compared with our own output.
"""

from __future__ import annotations

import os
import struct
import tempfile
import tracemalloc
from pathlib import Path

import pytest

from chessbase_corpus import cbh_path
from chessformats import chessbase
from chessformats.cli import main
from chessformats.engine import des
from chessformats.engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from chessformats.formats.chessbase.archive import PasswordError, name_problem, open_archive, safe_name
from chessformats.formats.chessbase.archive_write import base_files, write_archive
from conftest import find_corpus

ARCHIVES = (("twic1134.cbv", "uncbv_twic1134", None), ("small.cbv", "uncbv_small", None),
            ("small.cbz", "uncbv_small", "password"), ("small2.cbz", "uncbv_small", "pass"),
            ("small3.cbz", "uncbv_small", "my long password"))
ENTRY = 173


def _archive(name: str) -> Path:
    return find_corpus("chessbase", "uncbv_archives", name)


def _expected(folder: str) -> dict[str, bytes]:
    root = find_corpus("chessbase", folder)
    return {path.name: path.read_bytes() for path in root.iterdir() if path.name != "SOURCES.txt"}


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temporary folders made by the code under test go below ``tmp_path/tmp`` (to see that they are removed)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.mark.parametrize(("name", "folder", "password"), ARCHIVES)
def test_extraction_gives_the_corpus_files(name: str, folder: str, password: str | None, tmp_path: Path) -> None:
    expected = _expected(folder)
    with open_archive(_archive(name), password=password) as archive:
        assert sorted(member.path for member in archive.members) == sorted(expected)
        assert {member.path: member.size for member in archive.members} == {k: len(v) for k, v in expected.items()}
        written = archive.extract(tmp_path / "out")
    assert sorted(os.path.basename(path) for path in written) == sorted(expected)
    for file, data in expected.items():
        assert (tmp_path / "out" / file).read_bytes() == data, file


def test_small_cbz_deciphers_to_uncbvs_output() -> None:
    enciphered = _archive("small.cbz").read_bytes()
    assert des.decrypt(enciphered, des.password_key("password")) == _archive("decrypted_small.cbv").read_bytes()


@pytest.mark.parametrize(("name", "password"), [("small2.cbz", "pass"), ("small3.cbz", "my long password")])
def test_other_cbz_decipher_to_the_same_archive(name: str, password: str) -> None:
    # the three were packed apart: only the leftovers after the first name's terminator differ
    reference = _archive("decrypted_small.cbv").read_bytes()
    plain = des.decrypt(_archive(name).read_bytes(), des.password_key(password))
    assert len(plain) == len(reference)
    name_end = 8 + reference[8:].index(b"\0")
    assert plain[:name_end] == reference[:name_end]
    assert plain[8 + ENTRY:] == reference[8 + ENTRY:]


def test_des_known_answer() -> None:
    # the worked example of the DES standard's literature (key 133457799BBCDFF1)
    key, plain = bytes.fromhex("133457799BBCDFF1"), bytes.fromhex("0123456789ABCDEF")
    assert des.encrypt(plain, key).hex() == "85e813540f0ab405"
    assert des.decrypt(bytes.fromhex("85E813540F0AB405"), key) == plain


def test_password_keys() -> None:
    assert des.password_key("pass") == b"passpass"
    assert des.password_key("password") == b"password"
    long = b"my long password"
    assert des.password_key("my long password") == bytes((2 * long[i]) ^ long[i + 8] for i in range(8))
    with pytest.raises(ValueError):
        des.password_key("")


def test_reading_the_archive_equals_reading_the_extracted_base(tmp_path: Path, private_tmp: Path) -> None:
    extracted = find_corpus("chessbase", "uncbv_twic1134", "twic1134.cbh")
    with chessbase.open_database(_archive("twic1134.cbv")) as archived, chessbase.open_database(extracted) as base:
        assert archived.archive_path == str(_archive("twic1134.cbv"))
        folder = os.path.dirname(archived.cbh_path)
        assert len(archived) == len(base) == 6117
        for number in (1, 2, 100, 3000, 6117):
            assert archived[number].headers == base[number].headers
            assert str(archived[number].to_pgn()) == str(base[number].to_pgn())
    assert not os.path.exists(folder)
    assert list(private_tmp.iterdir()) == []
    chessbase.export_pgn(_archive("twic1134.cbv"), tmp_path / "archived.pgn")
    chessbase.export_pgn(extracted, tmp_path / "extracted.pgn")
    assert (tmp_path / "archived.pgn").read_bytes() == (tmp_path / "extracted.pgn").read_bytes()
    assert list(private_tmp.iterdir()) == []


def test_cbz_base_needs_its_password(private_tmp: Path) -> None:
    with pytest.raises(PasswordError) as needed:
        chessbase.open_database(_archive("small.cbz"))
    assert needed.value.needed
    with pytest.raises(PasswordError) as wrong:
        chessbase.open_database(_archive("small.cbz"), password="wrong")
    assert not wrong.value.needed and wrong.value.offset == 0
    with chessbase.open_database(_archive("small.cbz"), password="password") as db:
        small = find_corpus("chessbase", "uncbv_small", "small.cbh")
        with chessbase.open_database(small) as base:
            assert len(db) == len(base)
    assert list(private_tmp.iterdir()) == []


@pytest.mark.parametrize("password", [None, "a password"])
def test_written_archive_round_trips(password: str | None, tmp_path: Path) -> None:
    source = find_corpus("chessbase", "uncbv_twic1134", "twic1134.cbh")
    target = tmp_path / ("copy.cbz" if password else "copy.cbv")
    report = write_archive(target, base_files(source), password=password)
    assert report.written == 13
    expected = _expected("uncbv_twic1134")
    with open_archive(target, password=password) as archive:
        assert archive.members[0].path == "twic1134.cbh"
        assert {member.path: archive.read(member) for member in archive.members} == expected
    assert target.stat().st_size < sum(map(len, expected.values()))  # Huffman-coded, not only stored


def _small_base_as(stem: str, folder: Path) -> list[Path]:
    """The corpus's empty base copied into ``folder`` under the name ``stem`` (its files keep their extensions)."""
    folder.mkdir()
    copies = []
    for extension, data in _expected("uncbv_small").items():
        copies.append(folder / (stem + os.path.splitext(extension)[1]))
        copies[-1].write_bytes(data)
    return copies


def test_a_western_name_is_stored_in_cp1252_and_read_back(tmp_path: Path) -> None:
    files = _small_base_as("Café Zürich", tmp_path / "in")
    write_archive(tmp_path / "w.cbv", files)
    data = (tmp_path / "w.cbv").read_bytes()
    assert b"Caf\xe9 Z\xfcrich.cbh\0" in data  # the Windows Western code page's bytes (as uncbv's Latin-1 reads them)
    with open_archive(tmp_path / "w.cbv") as archive:
        assert sorted(member.name for member in archive.members) == sorted(path.name for path in files)


def test_a_name_the_code_page_lacks_is_refused_not_written_broken(tmp_path: Path) -> None:
    # issue: "Иван.cbh" went in as "????.cbh" (cp1252 with errors="replace"), which the reader then refused
    files = _small_base_as("Иван", tmp_path / "in")
    with pytest.raises(FormatError) as refused:
        write_archive(tmp_path / "r.cbv", files)
    assert "'И' (U+0418)" in str(refused.value) and "rename" in str(refused.value)
    assert not (tmp_path / "r.cbv").exists()
    with pytest.raises(FormatError) as refused:
        write_archive(tmp_path / "r.cbv", _small_base_as("a|b", tmp_path / "bar")[:1])
    assert "'a|b.cbg' cannot be a member's name: the character '|', which Windows refuses" in str(refused.value)


def test_cli_convert_to_archive_and_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = find_corpus("chessbase", "uncbv_small", "small.cbh")
    assert main(["convert", str(source), "-o", str(tmp_path / "b.cbz"), "--password", "pw"]) == 0
    assert main(["extract", str(tmp_path / "b.cbz"), "-o", str(tmp_path / "x"), "--password", "pw"]) == 0
    assert {p.name: p.read_bytes() for p in (tmp_path / "x").iterdir()} == _expected("uncbv_small")
    capsys.readouterr()
    assert main(["list", str(_archive("small.cbv"))]) == 0
    listed = [line.split()[-1] for line in capsys.readouterr().out.splitlines()]
    assert sorted(listed) == sorted(_expected("uncbv_small"))
    assert main(["list", str(_archive("small.cbz")), "--password", "nope"]) == 2
    assert main(["info", str(_archive("twic1134.cbv")), "--json"]) == 0
    assert '"games": 6117' in capsys.readouterr().out


def test_cli_extract_replaces_files_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x"
    out.mkdir()
    (out / "small.cbh").write_bytes(b"mine")
    (out / "notes.txt").write_bytes(b"kept")
    assert main(["extract", str(_archive("small.cbv")), "-o", str(out)]) == 2
    assert "--force" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "small.cbh"]  # nothing written
    assert (out / "small.cbh").read_bytes() == b"mine"
    assert main(["extract", str(_archive("small.cbv")), "small.ini", "-o", str(out)]) == 0  # no name taken
    assert main(["extract", str(_archive("small.cbv")), "nothere.cbh", "-o", str(out)]) == 2
    assert "no member" in capsys.readouterr().err
    assert main(["extract", str(_archive("small.cbv")), "-o", str(out), "--force"]) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != "notes.txt"} == _expected("uncbv_small")
    assert (out / "notes.txt").read_bytes() == b"kept"


# --- hostile names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["x.cbh", "sub\\x.cbh", "sub/x.cbh", "Résumé.ini"])
def test_safe_names_are_kept(name: str) -> None:
    assert safe_name(name) == name.replace("\\", "/")


@pytest.mark.parametrize("name", ["..\\..\\x.ini", "../x.ini", "a\\..\\..\\x", "C:\\x", "C:x", "/tmp/x", "\\x",
                                  "CON", "nul.txt", "com1", "LPT9.cbh", "a\x01b", "", ".", "x.", "x:stream",
                                  "a//b", "a|b"])
def test_unsafe_names_are_refused(name: str) -> None:
    assert safe_name(name) is None and name_problem(name)


@pytest.mark.parametrize(("name", "reason"), [("../x.ini", "'..' part"), ("/tmp/x", "absolute"), ("C:x", "drive"),
                                              ("nul.txt", "device name ('nul.txt')"), ("a\x01b", "control "
                                              "character (0x01)"), ("x.", "ending in a dot"), ("a//b", "empty part"),
                                              ("????.cbh", "'?' is also what a writer puts")])
def test_a_refused_name_says_why(name: str, reason: str) -> None:
    assert reason in (name_problem(name) or "")


def _with_name(data: bytes, raw: bytes, entry: int = 0) -> bytes:
    at = 8 + entry * ENTRY
    return data[:at] + raw.ljust(132, b"\0")[:132] + data[at + 132:]


@pytest.mark.parametrize("raw", [b"..\\..\\x.ini", b"C:\\x.ini", b"/tmp/x.ini", b"NUL", b"aux.cbh", b"x\x07y",
                                 b"????.cbh"])
def test_a_hostile_member_name_writes_nothing(raw: bytes, tmp_path: Path, private_tmp: Path) -> None:
    crafted = tmp_path / "crafted.cbv"
    crafted.write_bytes(_with_name(_archive("small.cbv").read_bytes(), raw, entry=1))
    out = tmp_path / "nested" / "out"
    with pytest.raises(InvalidValueError) as refused:
        open_archive(crafted)
    assert refused.value.file == str(crafted) and refused.value.offset == 8 + ENTRY
    assert refused.value.path == "files[1].name"
    assert ("absolute" in str(refused.value)) == raw.startswith(b"/")  # the reason found, not a list of them
    assert (b"?" in raw) == ("'?'" in str(refused.value))
    with pytest.raises(InvalidValueError):
        chessbase.open_database(crafted)
    assert main(["extract", str(crafted), "-o", str(out)]) == 2
    assert not (tmp_path / "nested").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crafted.cbv", "tmp"]
    assert list(private_tmp.iterdir()) == []


def test_a_name_is_cut_at_its_terminator(tmp_path: Path) -> None:
    crafted = tmp_path / "crafted.cbv"
    crafted.write_bytes(_with_name(_archive("small.cbv").read_bytes(), b"small.ini\0..\\..\\evil", entry=1))
    with open_archive(crafted) as archive:
        archive.extract(tmp_path / "out")
    assert (tmp_path / "out" / "small.ini").read_bytes() == _expected("uncbv_small")["small.ini"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crafted.cbv", "out"]


def test_two_members_with_one_name_are_refused(tmp_path: Path) -> None:
    crafted = tmp_path / "crafted.cbv"
    crafted.write_bytes(_with_name(_archive("small.cbv").read_bytes(), b"SMALL.CBH", entry=1))
    with pytest.raises(InvalidValueError) as refused:
        open_archive(crafted)
    assert refused.value.path == "files[1].name"


# --- damaged archives --------------------------------------------------------------------------------------


def _blocks(data: bytes) -> list[tuple[int, int]]:
    """(offset of the head, size) of every block, walked from the file table's sizes."""
    count = struct.unpack_from("<H", data, 2)[0]
    position = 8 + count * ENTRY
    found = []
    for entry in range(count):
        compressed = struct.unpack_from("<i", data, 8 + entry * ENTRY + 132)[0]
        end = position + compressed
        while position < end:
            size = struct.unpack_from("<H", data, position)[0]
            found.append((position, size))
            position += 4 + size
    return found


def test_a_damaged_block_is_found_by_its_checksum(tmp_path: Path) -> None:
    data = bytearray(_archive("twic1134.cbv").read_bytes())
    head, size = _blocks(bytes(data))[3]
    data[head + 4 + size // 2] ^= 0x10
    damaged = tmp_path / "damaged.cbv"
    damaged.write_bytes(bytes(data))
    with pytest.raises(InvalidValueError) as found:
        with open_archive(damaged) as archive:
            archive.extract(tmp_path / "out")
    assert found.value.file == str(damaged) and found.value.offset == head + 2
    assert found.value.path.endswith(".head.checksum")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("block", [0, 5, 20])
def test_damage_behind_a_matching_checksum_is_a_format_error_or_other_bytes(block: int, tmp_path: Path) -> None:
    data = bytearray(_archive("twic1134.cbv").read_bytes())
    head, size = _blocks(bytes(data))[block]
    for at in range(head + 7, head + 4 + size, max(1, size // 40)):
        data[at] ^= 0xA5
    payload = bytes(data[head + 4:head + 4 + size])
    data[head + 2:head + 4] = struct.pack("<H", sum(struct.unpack_from(f"<{size // 2}H", payload)) & 0xFFFF)
    damaged = tmp_path / "damaged.cbv"
    damaged.write_bytes(bytes(data))
    try:
        with open_archive(damaged) as archive:
            for member in archive.members:
                archive.read(member)
    except FormatError as error:
        assert error.file == str(damaged) and error.offset is not None and error.offset >= head


@pytest.mark.parametrize("keep", [5, 100, 2257 - 1, 2257 + 3, 60_000, 805_378])
def test_a_truncated_archive(keep: int, tmp_path: Path, private_tmp: Path) -> None:
    cut = tmp_path / "cut.cbv"
    cut.write_bytes(_archive("twic1134.cbv").read_bytes()[:keep])
    with pytest.raises(TruncatedError) as found:
        with open_archive(cut) as archive:
            archive.extract(tmp_path / "out")
    assert found.value.file == str(cut) and found.value.offset is not None
    assert not (tmp_path / "out").exists()
    with pytest.raises(TruncatedError):
        chessbase.open_database(cut)
    assert list(private_tmp.iterdir()) == []


def test_a_file_table_that_points_outside(tmp_path: Path) -> None:
    data = bytearray(_archive("small.cbv").read_bytes())
    struct.pack_into("<i", data, 8 + 2 * ENTRY + 132, 10**9)
    crafted = tmp_path / "outside.cbv"
    crafted.write_bytes(bytes(data))
    with pytest.raises(TruncatedError) as found:
        open_archive(crafted)
    assert found.value.offset == 8 + 2 * ENTRY + 132 and found.value.path == "files[2].compressed_size"
    struct.pack_into("<H", data, 2, 60_000)  # more entries than the file holds
    crafted.write_bytes(bytes(data))
    with pytest.raises(TruncatedError) as found:
        open_archive(crafted)
    assert found.value.path == "files"


def test_a_4_gb_size_claim_costs_no_memory(tmp_path: Path, private_tmp: Path) -> None:
    data = bytearray(_archive("twic1134.cbv").read_bytes())
    struct.pack_into("<i", data, 8 + 2 * ENTRY + 136, 0x7FFFFFFF)  # twic1134.cbg: 533,877 bytes
    struct.pack_into("<Q", data, 8 + 2 * ENTRY + 165, 1 << 32)
    crafted = tmp_path / "huge.cbv"
    crafted.write_bytes(bytes(data))
    tracemalloc.start()
    try:
        with pytest.raises(InvalidValueError) as found:
            with open_archive(crafted) as archive:
                archive.extract(tmp_path / "out")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found.value.path == "files[2].size" and found.value.expected == 0x7FFFFFFF
    assert peak < 64 << 20
    with open_archive(crafted) as archive:
        for _ in range(2):  # the same answer each time
            with pytest.raises(InvalidValueError) as again:
                archive.read(archive.members[2])
            assert again.value.path == "files[2].size" and again.value.offset == found.value.offset
    assert not (tmp_path / "out").exists()
    with pytest.raises(InvalidValueError):
        chessbase.open_database(crafted)
    assert list(private_tmp.iterdir()) == []


def test_a_block_claiming_more_than_its_member(tmp_path: Path) -> None:
    data = bytearray(_archive("twic1134.cbv").read_bytes())
    head, _ = _blocks(bytes(data))[0]  # twic1134.cbh's first block, Huffman-coded
    assert data[head + 4] & 2
    struct.pack_into("<i", data, 8 + 136, 1000)  # the member says 1,000 bytes, the block's count 31,883
    crafted = tmp_path / "claims.cbv"
    crafted.write_bytes(bytes(data))
    with pytest.raises(InvalidValueError) as found:
        with open_archive(crafted) as archive:
            archive.read(archive.members[0])
    assert found.value.offset == head + 5 and found.value.path == "files[0].blocks[0].data.count"


def test_an_archive_with_two_bases_is_extracted_not_opened(tmp_path: Path, private_tmp: Path) -> None:
    first = find_corpus("chessbase", "uncbv_small", "small.cbh")
    other = tmp_path / "other.cbh"
    other.write_bytes(first.read_bytes())
    write_archive(tmp_path / "two.cbv", [first, other])
    with pytest.raises(UnsupportedError):
        chessbase.open_database(tmp_path / "two.cbv")
    assert list(private_tmp.iterdir()) == []


def test_not_an_archive(tmp_path: Path) -> None:
    other = tmp_path / "x.cbv"
    other.write_bytes(b"\x01\x02" + bytes(100))
    with pytest.raises(InvalidValueError) as found:
        open_archive(other)
    assert found.value.path == "header.magic" and found.value.offset == 0


def test_a_book_built_from_the_archive_equals_one_built_from_the_base(tmp_path: Path, private_tmp: Path) -> None:
    extracted = find_corpus("chessbase", "uncbv_twic1134", "twic1134.cbh")
    for source, book in ((_archive("twic1134.cbv"), "archive.bin"), (extracted, "base.bin")):
        assert main(["build", str(source), "-o", str(tmp_path / book), "--max-ply", "8", "--jobs", "1"]) == 0
    assert (tmp_path / "archive.bin").read_bytes() == (tmp_path / "base.bin").read_bytes()
    assert list(private_tmp.iterdir()) == []


def test_a_book_built_from_a_cbz_takes_its_password(tmp_path: Path, private_tmp: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    source = cbh_path("libcbh_NormalGames")  # (the corpus .cbz hold an empty base)
    archive = tmp_path / "games.cbz"
    write_archive(archive, base_files(source), password="my long password")
    common = ["--max-ply", "12", "--min-games", "1", "--jobs", "1"]
    plain, book = tmp_path / "plain.bin", tmp_path / "cbz.bin"
    assert main(["build", str(source), "-o", str(plain), *common]) == 0
    assert main(["build", str(archive), "-o", str(book), "--password", "my long password", *common]) == 0
    assert plain.stat().st_size > 0 and book.read_bytes() == plain.read_bytes()
    capsys.readouterr()
    assert main(["build", str(archive), "-o", str(tmp_path / "wrong.bin"), "--password", "nope", *common]) == 2
    assert "password" in capsys.readouterr().err
    assert main(["build", str(archive), "-o", str(tmp_path / "none.bin"), *common]) == 2  # no terminal to ask on
    assert "--password" in capsys.readouterr().err
    assert not (tmp_path / "wrong.bin").exists() and not (tmp_path / "none.bin").exists()
    assert list(private_tmp.iterdir()) == []
