"""Opening data in the chosen engine: files, folders, globs, CSV; the CLI's --engine option."""

from __future__ import annotations

import json

import pytest

from privcheck import check
from privcheck.engines.readers import data_format, has_scheme, local_matches, open_frame
from privcheck.errors import DataError, PolicyError
from tests.engines.conftest import ADULT, comparable, write_parquet

pytest.importorskip("polars")
pytest.importorskip("duckdb")

pytest.importorskip("narwhals", reason="the engine path needs narwhals")


@pytest.fixture(scope="module")
def parts(tmp_path_factory, adult_frame):
    """Adult split over two Parquet files in a folder."""
    folder = tmp_path_factory.mktemp("parts")
    half = len(adult_frame) // 2
    write_parquet(adult_frame.iloc[:half], folder, "a.parquet")
    write_parquet(adult_frame.iloc[half:], folder, "b.parquet")
    return folder


def test_paths():
    assert has_scheme("s3://bucket/data") and has_scheme("dbfs:/mnt/x")
    assert not has_scheme("/tmp/x.parquet") and not has_scheme("C:/x.parquet")
    assert data_format("a/b.CSV") == "csv" and data_format("a/*.tsv") == "csv"
    assert data_format("a/folder/") == "parquet" and data_format("x.parquet") == "parquet"
    assert local_matches("s3://bucket/x") == []


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_file_folder_glob_and_csv_agree_with_pandas(engine, parts, adult_frame):
    policy = ADULT / "policy.yaml"
    expected = comparable(check(adult_frame, policy))
    for data in (parts / "a.parquet", parts, str(parts / "*.parquet"), ADULT / "adult.csv"):
        got = check(open_frame(data, engine), policy)
        if data == parts / "a.parquet":
            assert got.n_records == len(adult_frame) // 2
        else:
            assert comparable(got) == expected


@pytest.mark.parametrize("engine", ["polars", "duckdb", "spark"])
def test_missing_data_is_one_clear_error(engine, tmp_path):
    with pytest.raises(DataError, match="data file not found"):
        open_frame(tmp_path / "nope.parquet", engine)
    with pytest.raises(DataError, match="no data file matches"):
        open_frame(str(tmp_path / "*.parquet"), engine)


def test_unknown_engine():
    with pytest.raises(PolicyError, match="unknown engine 'dask'"):
        open_frame("x.parquet", "dask")


def test_unreadable_file_is_a_data_error(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    for engine in ("polars", "duckdb"):
        with pytest.raises(DataError, match=engine):
            check(open_frame(bad, engine), ADULT / "policy.yaml")


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_cli_engine_option(cli, engine, parts):
    res = cli("check", parts, "-p", ADULT / "policy.yaml", "--engine", engine, "--format", "json")
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    assert report["n_records"] == 30162 and report["source"] == str(parts)
    res = cli("check", parts, "-p", ADULT / "policy.yaml", "--engine", engine, "--max-groups", "10")
    assert res.returncode == 2 and "more than 10 distinct combinations" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
