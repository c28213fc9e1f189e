"""Reading data files in other encodings (issue 29): a Windows-1252 CSV is refused in one line
naming the file, the byte offset of the first byte that is not UTF-8, the likely encoding and
``--encoding cp1252``; with the option every command reads it and the values are exact.

The oracle is Python's own codec: the files are the bytes ``str.encode("cp1252")`` makes of
known strings (é, ü, €), and the offset is found by scanning those bytes here.
"""

from __future__ import annotations

import codecs
import json
import random

import pandas as pd
import pytest

from privcheck.errors import DataError
from privcheck.io import (
    csv_encoding,
    encoding_for,
    first_undecodable,
    likely_encoding,
    read_table,
)
from tests.test_cli import assert_one_line_error, write_policy

NAMES = ["René", "Jürgen", "Zoë", "Ångström", "Müller", "Ana", "Łukasz"[1:], "Bob"]
CITIES = ["Zürich", "Köln", "Besançon", "Málaga"]
POLICY = {
    "attributes": {
        "city": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "rows": [[c, "*"] for c in CITIES]},
        },
        "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [10]}},
        "name": {"role": "insensitive"},
        "price": {"role": "insensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 3}],
    "suppression_limit": 0.1,
}


def table(n: int = 200, seed: int = 7, ascii_rows: int = 0) -> pd.DataFrame:
    """Names, cities and prices with é, ü, €; ``ascii_rows`` plain rows first (the first
    non-ASCII byte then lies far into the file)."""
    rng = random.Random(seed)
    rows = [("Bob", "Paris", str(20 + i % 50), "12 EUR") for i in range(ascii_rows)]
    rows += [
        (rng.choice(NAMES), rng.choice(CITIES), str(rng.randint(20, 69)), f"€ {rng.randint(1, 99)}")
        for _ in range(n)
    ]
    return pd.DataFrame(rows, columns=["name", "city", "age", "price"])


def write(frame: pd.DataFrame, path, encoding: str):
    """The CSV bytes as another program writes them, in ``encoding``."""
    text = frame.to_csv(index=False, lineterminator="\n")
    path.write_bytes(text.encode(encoding))
    return path


def first_high_byte(raw: bytes) -> tuple[int, int]:
    offset = next(i for i, b in enumerate(raw) if b >= 0x80)
    return offset, raw[:offset].count(b"\n") + 1


@pytest.mark.parametrize("ascii_rows", [0, 20_000])  # the header reader, and Arrow's reader
def test_a_cp1252_file_is_one_line_naming_offset_and_encoding(tmp_path, ascii_rows):
    frame = table(ascii_rows=ascii_rows)
    path = write(frame, tmp_path / "data.csv", "cp1252")
    raw = path.read_bytes()
    offset, line = first_high_byte(raw)
    if ascii_rows:
        assert offset > 64 * 1024  # beyond what the delimiter sniffer reads
    with pytest.raises(DataError) as info:
        read_table(path)
    message = str(info.value)
    assert "\n" not in message
    assert f"data file {path} is not UTF-8: byte 0x{raw[offset]:02x} at offset {offset:,} " in (
        message
    )
    assert f"(line {line:,})" in message and message.endswith("pass --encoding cp1252")
    assert "Windows-1252" in message
    got = read_table(path, encoding="cp1252")
    pd.testing.assert_frame_equal(got, frame)  # values exact: é, ü, €
    with csv_encoding("cp1252"):  # what a command's --encoding sets
        pd.testing.assert_frame_equal(read_table(path), frame)
        arrow = read_table(path, arrow=True, dictionary=True)
        assert set(arrow.column("city").to_pylist()) == set(frame["city"])


def test_utf8_files_stay_utf8_whatever_the_option(tmp_path):
    """--encoding names the encoding of the files that are not UTF-8: a release privcheck
    wrote (UTF-8, a BOM or not) reads the same beside a cp1252 original."""
    frame = table()
    plain = write(frame, tmp_path / "plain.csv", "utf-8")
    bom = write(frame, tmp_path / "bom.csv", "utf-8-sig")
    assert bom.read_bytes().startswith(codecs.BOM_UTF8)
    for path in (plain, bom):
        pd.testing.assert_frame_equal(read_table(path), frame)
        assert encoding_for(path, "cp1252") == "utf-8"
        pd.testing.assert_frame_equal(read_table(path, encoding="cp1252"), frame)


def test_encodings_guessed_only_when_the_bytes_say_so(tmp_path):
    frame = table(n=50)
    text = frame.to_csv(index=False)
    assert likely_encoding(text.encode("cp1252")) == "cp1252"
    assert likely_encoding(text.encode("latin-1", errors="replace")) == "cp1252"
    assert likely_encoding(text.encode("utf-16")) == "utf-16"
    assert likely_encoding(text.encode("utf-16-le")) == "utf-16-le"
    cyrillic = "имя,город\nИван,Москва\nПётр,Санкт-Петербург\n"
    assert likely_encoding(cyrillic.encode("cp1251")) is None  # runs of high bytes: no guess
    assert likely_encoding("名前,都市\n山田,東京\n".encode("shift_jis")) is None
    path = tmp_path / "ru.csv"
    path.write_bytes(cyrillic.encode("cp1251"))
    with pytest.raises(DataError, match="pass the file's encoding with --encoding") as info:
        read_table(path)
    assert "it reads as" not in str(info.value)
    assert read_table(path, encoding="cp1251")["город"].tolist() == ["Москва", "Санкт-Петербург"]
    utf16 = tmp_path / "u16.csv"
    utf16.write_bytes(text.encode("utf-16"))
    with pytest.raises(DataError, match="UTF-16 text: pass --encoding utf-16"):
        read_table(utf16)
    pd.testing.assert_frame_equal(read_table(utf16, encoding="utf-16"), frame)
    bad = tmp_path / "bad.csv"  # 0x81 is not a character of cp1252
    bad.write_bytes(b"a,b\n\xe9,\x81\n")
    with pytest.raises(DataError, match=r"not cp1252 text: byte 0x81 at offset 6 \(line 2\)"):
        read_table(bad, encoding="cp1252")
    with pytest.raises(DataError, match="not an encoding Python knows"):
        read_table(bad, encoding="klingon")


def test_first_undecodable_across_blocks(tmp_path):
    """The offset is exact when the bad byte follows a multi-byte character cut by a block."""
    path = tmp_path / "x.csv"
    head = b"a" * ((1 << 20) - 1) + "é".encode()  # é's two bytes straddle the first block
    path.write_bytes(head + b"xx\xe9yy")
    assert first_undecodable(path, "utf-8") == (len(head) + 2, 0xE9)
    path.write_bytes(head)
    assert first_undecodable(path, "utf-8") is None


@pytest.fixture
def cp1252_files(tmp_path):
    data = write(table(), tmp_path / "data.csv", "cp1252")
    policy = write_policy(tmp_path, POLICY)
    return tmp_path, data, policy


def test_every_command_refuses_then_reads_with_encoding(cli, cp1252_files):
    folder, data, policy = cp1252_files
    frame = table()
    needles = (str(data), "is not UTF-8", "offset", "pass --encoding cp1252")
    release, report = folder / "release.csv", folder / "report.json"
    # anonymize: refused, then run; the release (UTF-8) keeps the insensitive values exactly
    assert_one_line_error(cli("anonymize", data, "-p", policy, "-o", release), *needles)
    assert not release.exists()
    res = cli(
        "anonymize", data, "-p", policy, "-o", release, "--report", report, "--keep-order",
        "--seed", "1", "--encoding", "cp1252", "--algorithm", "mingen",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = pd.read_csv(release, dtype=str, keep_default_na=False, encoding="utf-8")
    kept = out["name"] != "*"
    assert out["name"].tolist() == frame["name"].tolist()
    assert out["price"].tolist() == frame["price"].tolist()
    assert set(out.loc[kept, "city"]) <= {*CITIES, "*"}
    toml = folder / "privcheck.toml"
    toml.write_text(f'[[check]]\nfiles = ["data.csv"]\npolicy = "{policy.name}"\n')
    commands = {
        "check": ["check", data, "-p", policy, "-f", "json"],
        "apply": ["apply", data, "-t", report, "-p", policy, "-o", folder / "next.csv"],
        "risk": ["risk", "--original", data, "--masked", release, "-p", policy,
                 "--attack", "uniqueness"],
        "compare": ["compare", data, release, "-p", policy],
        "init": ["init", data, "-o", folder / "drafted.yaml", "-f", "json"],
        "hook": ["hook", "--config", toml, data],
    }  # fmt: skip
    for name, args in commands.items():
        if name == "hook":
            res = cli(*args)
            assert res.returncode == 2 and "pass --encoding cp1252" in res.stderr, name
        else:
            assert_one_line_error(cli(*args), *needles)
        res = cli(*args, "--encoding", "cp1252")
        assert res.returncode in (0, 1), (name, res.stderr)
        if name == "check":
            checked = json.loads(res.stdout)
            assert checked["n_records"] == len(frame)
            sizes = frame.groupby(["city", "age"]).size()
            bad = next(m for m in checked["models"] if m["model"] == "k-anonymity")
            assert bad["violating_classes"] == int((sizes < 3).sum())
            assert {v["values"]["city"] for v in bad["violators"]} <= set(CITIES)
        if name == "init":
            profile = {c["name"]: c for c in json.loads(res.stdout)["columns"]}
            assert profile["city"]["distinct"] == frame["city"].nunique()
            assert profile["name"]["distinct"] == frame["name"].nunique()


def test_engines_that_read_utf8_only_say_so(cli, cp1252_files):
    pytest.importorskip("polars")
    _, data, policy = cp1252_files
    assert_one_line_error(
        cli("check", data, "-p", policy, "--engine", "polars", "--encoding", "cp1252"),
        "reads UTF-8 CSV files only",
        "--engine pandas",
    )
