"""polars (eager and lazy), pyarrow and DuckDB give the pandas report: same values, same
violators (bar record numbers), same errors — the group-by ran inside each engine."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from privcheck import check
from privcheck.errors import DataError
from privcheck.io import read_table
from tests.engines.conftest import (
    ADULT_ALL_MODELS,
    SYNTHETIC_POLICY,
    TYPED_POLICY,
    comparable,
    summary,
    synthetic_table,
    typed_frame,
)

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")

pytest.importorskip("narwhals", reason="the engine path needs narwhals")


def _duckdb(frame: pd.DataFrame):
    con = duckdb.connect()
    return con.from_arrow(pa.Table.from_pandas(frame, preserve_index=False))


BACKENDS = {
    "polars": lambda f: pl.from_pandas(f),
    "polars-lazy": lambda f: pl.from_pandas(f).lazy(),
    "pyarrow": lambda f: pa.Table.from_pandas(f, preserve_index=False),
    "duckdb": _duckdb,
}


@pytest.fixture(params=sorted(BACKENDS))
def to_engine(request):
    return BACKENDS[request.param]


def test_adult_every_model_identical_report(adult_frame, to_engine):
    expected = check(adult_frame, ADULT_ALL_MODELS, max_violators=50)
    got = check(to_engine(adult_frame), ADULT_ALL_MODELS, max_violators=50)
    assert comparable(got) == comparable(expected)
    # the comparison is not vacuous: violators are listed, and the engine names no records
    listed = [v for m in got.models for v in m.violators]
    assert listed and all(v.records == [] for v in listed)
    assert any(v.records for m in expected.models for v in m.violators)


@pytest.mark.parametrize("seed", range(2))
def test_synthetic_with_nulls_equal_pandas(to_engine, seed):
    frame = synthetic_table(20_000, seed=seed, null_rate=0.02).to_pandas()
    assert frame["age"].isna().any() and frame["region"].isna().any()
    expected = check(frame, SYNTHETIC_POLICY, max_violators=10_000)
    got = check(to_engine(frame), SYNTHETIC_POLICY, max_violators=10_000)
    assert summary(got) == summary(expected)
    # every violator listed (the cap is above their number): the same classes, in any order
    assert comparable(got, keep_order=False) == comparable(expected, keep_order=False)
    assert any(v.values.get("age") == "<missing>" for m in got.models for v in m.violators)


def test_million_records_every_backend_equals_pandas(million_parquet):
    """1 M records read by each engine itself from Parquet (nulls in two QIs, own class)."""
    import pyarrow.parquet as pq

    expected = summary(check(pd.read_parquet(million_parquet), SYNTHETIC_POLICY))
    for frame in (
        pl.read_parquet(million_parquet),
        pl.scan_parquet(million_parquet),
        pq.read_table(million_parquet),
        duckdb.read_parquet(str(million_parquet)),
    ):
        assert summary(check(frame, SYNTHETIC_POLICY)) == expected
    assert expected[1] == 1_000_000


def _missing_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "zip": ["02139", "02139", None, "02140", "  ", "02140", "02139", None],
            "age": [30, 31, 30, np.nan, 30, 30, 31, 30],
            "disease": ["flu", "flu", "cold", "flu", "cold", None, "flu", "cold"],
        }
    )


MISSING_POLICY = {
    "attributes": {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 2},
        {"model": "l-diversity", "variant": "distinct", "l": 2},
        {"model": "t-closeness", "t": 0.3, "distance": "equal"},
    ],
}


def _without_row(message: str) -> str:
    return re.sub(r" \(first at row \d+\)", "", message)


def test_missing_error_same_as_pandas(to_engine):
    frame = _missing_frame()
    with pytest.raises(DataError) as on_pandas:
        check(frame, MISSING_POLICY)
    with pytest.raises(DataError) as on_engine:
        check(to_engine(frame), MISSING_POLICY)
    # same column, same number of missing RECORDS (blank strings count, as on pandas)
    assert "column 'zip' has 3 missing value(s)" in str(on_pandas.value)
    assert str(on_engine.value) == _without_row(str(on_pandas.value))


def test_missing_error_counts_records_not_groups(to_engine):
    frame = pd.DataFrame({"zip": ["a", None, None, None], "age": [1] * 4, "disease": ["x"] * 4})
    with pytest.raises(DataError, match="'zip' has 3 missing"):
        check(to_engine(frame), MISSING_POLICY)


def test_missing_own_class_same_as_pandas(to_engine):
    frame = _missing_frame()
    policy = {**MISSING_POLICY, "missing": "own_class"}
    expected = check(frame, policy, max_violators=100)
    got = check(to_engine(frame), policy, max_violators=100)
    assert comparable(got, keep_order=False) == comparable(expected, keep_order=False)
    assert got.n_classes == 5  # the null and the blank ZIP are one class, as on pandas


def test_nan_and_null_are_one_missing_class():
    """polars keeps NaN and null apart; pandas sees both as missing: so must the check."""
    frame = pl.DataFrame(
        {
            "zip": ["a", "a", "a", "a"],
            "age": [1.0, float("nan"), None, 1.0],
            "disease": list("xyxy"),
        }
    )
    policy = {**MISSING_POLICY, "missing": "own_class"}
    got = check(frame, policy, max_violators=100)
    expected = check(frame.to_pandas(), policy, max_violators=100)
    assert got.n_classes == expected.n_classes == 2
    assert comparable(got, keep_order=False) == comparable(expected, keep_order=False)


def test_absent_column_same_error_before_any_work(adult_frame, to_engine):
    policy = {**MISSING_POLICY, "attributes": {**MISSING_POLICY["attributes"], "zipp": {}}}
    policy["attributes"]["zipp"] = {"role": "insensitive"}
    frame = _missing_frame()
    with pytest.raises(DataError) as on_pandas:
        check(frame, policy)
    with pytest.raises(DataError) as on_engine:
        check(to_engine(frame), policy)
    assert str(on_engine.value) == str(on_pandas.value)
    assert "'zipp' named in the policy is missing" in str(on_engine.value)


def test_identifier_and_insensitive_columns_stay_out_of_the_group_by(adult_frame, to_engine):
    policy = {
        **ADULT_ALL_MODELS,
        "attributes": {
            **ADULT_ALL_MODELS["attributes"],
            "rowid": {"role": "identifier"},
            "note": {"role": "insensitive"},
        },
    }
    frame = adult_frame.assign(rowid=np.arange(len(adult_frame)).astype(str), note="n")
    expected = check(frame, policy)
    got = check(to_engine(frame), policy)
    assert comparable(got) == comparable(expected)


def test_group_limit(adult_frame, to_engine):
    keys = list(ADULT_ALL_MODELS["attributes"])
    n_groups = len(adult_frame.groupby(keys, dropna=False))
    ok = check(to_engine(adult_frame), ADULT_ALL_MODELS, max_groups=n_groups)
    assert ok.n_records == len(adult_frame)
    with pytest.raises(DataError, match=f"more than {n_groups - 1:,} distinct combinations"):
        check(to_engine(adult_frame), ADULT_ALL_MODELS, max_groups=n_groups - 1)
    # 0: no limit
    assert check(to_engine(adult_frame), ADULT_ALL_MODELS, max_groups=0).n_classes == ok.n_classes


def test_polars_lazy_and_duckdb_identical_reports():
    """Identity quasi-identifiers: class order comes from the data, so this is a real test of
    the engines' output order being normalised (both list tied violators alike)."""
    frame = synthetic_table(50_000, seed=7, null_rate=0.01).to_pandas()
    lazy = check(pl.from_pandas(frame).lazy(), SYNTHETIC_POLICY)
    rel = check(_duckdb(frame), SYNTHETIC_POLICY)
    assert comparable(lazy) == comparable(rel)
    assert any(not m.passed and m.violators for m in lazy.models)


def test_output_order_does_not_matter():
    frame = synthetic_table(5_000, seed=3).to_pandas()
    shuffled = frame.sample(frac=1.0, random_state=0)
    assert comparable(check(pl.from_pandas(frame), SYNTHETIC_POLICY)) == comparable(
        check(pl.from_pandas(shuffled), SYNTHETIC_POLICY)
    )


def test_csv_read_by_engines_like_pandas(tmp_path):
    """ZIP codes keep their zeros, 'NA' is a value, only an empty field is missing."""
    from privcheck.engines.readers import open_frame

    path = tmp_path / "t.csv"
    path.write_text("zip;age;disease\n02139;30;flu\n02139;30;NA\n;30;flu\n02139;NA;flu\n")
    policy = {**MISSING_POLICY, "missing": "own_class"}
    expected = check(read_table(path), policy, max_violators=100)
    for engine in ("polars", "duckdb"):
        got = check(open_frame(path, engine), policy, max_violators=100)
        assert comparable(got, keep_order=False) == comparable(expected, keep_order=False)
    labels = {v.values["zip"] for m in expected.models for v in m.violators}
    assert "02139" in labels and "<missing>" in labels


def test_unsupported_input_is_a_data_error():
    with pytest.raises(DataError, match="pass a pandas, polars"):
        check([1, 2, 3], MISSING_POLICY)


def test_awkward_column_names(to_engine):
    """Dots, spaces and backticks in names are columns, not struct fields or syntax."""
    frame = pd.DataFrame({"a.b": ["x", "x", "y"], "age `x`": ["1", "1", "2"], "s s": list("uvu")})
    policy = {
        "attributes": {
            "a.b": {"role": "quasi_identifier"},
            "age `x`": {"role": "quasi_identifier"},
            "s s": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}, {"model": "l-diversity", "l": 2}],
    }
    assert comparable(check(to_engine(frame), policy)) == comparable(check(frame, policy))


def test_dates_intervals_masking_and_categories(to_engine):
    """Dates stay dates (labels '1960-02-24', not timestamps), floats with a NaN bin as on
    pandas, a categorical column groups by its values."""
    frame = typed_frame()
    expected = check(frame, TYPED_POLICY, max_violators=1000)
    assert any(v.values["born"] == "1960-02-24" for m in expected.models for v in m.violators)
    for data in (frame, frame.assign(zip=frame["zip"].astype("category"))):
        got = check(to_engine(data), TYPED_POLICY, max_violators=1000)
        assert comparable(got, keep_order=False) == comparable(expected, keep_order=False)
