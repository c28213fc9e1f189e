"""Real Spark (local[2], one session for the run): every model's value equals pandas on Adult
and on 1 M synthetic records, missing values behave as on pandas, the CLI runs on Spark."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from privcheck import check
from privcheck.errors import DataError
from tests.engines.conftest import (
    ADULT,
    ADULT_ALL_MODELS,
    SYNTHETIC_POLICY,
    TYPED_POLICY,
    comparable,
    summary,
    typed_frame,
    write_parquet,
)

pytest.importorskip("narwhals", reason="the engine path needs narwhals")


def test_adult_every_model_identical_report(spark, adult_parquet, adult_frame):
    expected = check(adult_frame, ADULT_ALL_MODELS, max_violators=50)
    got = check(spark.read.parquet(str(adult_parquet)), ADULT_ALL_MODELS, max_violators=50)
    assert comparable(got) == comparable(expected)
    assert [m.value for m in got.models] == [m.value for m in expected.models]
    assert not got.passed and any(m.violators for m in got.models)


def test_million_records_equal_pandas(spark, million_parquet):
    """The one large Spark run: 1 M records, nulls in two quasi-identifiers (own class)."""
    expected = check(pd.read_parquet(million_parquet), SYNTHETIC_POLICY)
    got = check(spark.read.parquet(str(million_parquet)), SYNTHETIC_POLICY)
    assert got.n_records == 1_000_000
    assert summary(got) == summary(expected)
    # a mix of verdicts and partial violations, so the equality above is not one of trivia
    assert {m.passed for m in got.models} == {True, False}
    assert any(0 < m.violating_classes < got.n_classes for m in got.models)


MISSING_POLICY = {
    "attributes": {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 2},
        {"model": "l-diversity", "variant": "entropy", "l": 1.2},
        {"model": "t-closeness", "t": 0.3, "distance": "ordered"},
    ],
}


@pytest.fixture(scope="module")
def missing_parquet(tmp_path_factory):
    frame = pd.DataFrame(
        {
            "zip": ["02139", "02139", None, "02140", " ", "02140", "02139", None, "02140"],
            "age": [30, 31, 30, None, 30, 30, 31, 30, 30],
            "disease": ["flu", "flu", "cold", "flu", "cold", None, "flu", "cold", "flu"],
        }
    )
    return frame, write_parquet(frame, tmp_path_factory.mktemp("missing"))


def test_missing_error_same_as_pandas(spark, missing_parquet):
    frame, path = missing_parquet
    with pytest.raises(DataError) as on_pandas:
        check(frame, MISSING_POLICY)
    with pytest.raises(DataError) as on_spark:
        check(spark.read.parquet(str(path)), MISSING_POLICY)
    assert "'zip' has 3 missing value(s)" in str(on_spark.value)
    assert str(on_spark.value) == re.sub(r" \(first at row \d+\)", "", str(on_pandas.value))


def test_missing_own_class_same_as_pandas(spark, missing_parquet):
    frame, path = missing_parquet
    policy = {**MISSING_POLICY, "missing": "own_class"}
    expected = check(frame, policy, max_violators=100)
    got = check(spark.read.parquet(str(path)), policy, max_violators=100)
    assert comparable(got, keep_order=False) == comparable(expected, keep_order=False)
    assert any(v.values["zip"] == "<missing>" for m in got.models for v in m.violators)


def test_absent_column_fails_on_the_schema(spark, missing_parquet):
    frame, path = missing_parquet
    policy = {**MISSING_POLICY, "attributes": {**MISSING_POLICY["attributes"]}}
    policy["attributes"]["zip5"] = policy["attributes"].pop("zip")
    with pytest.raises(DataError) as on_pandas:
        check(frame, policy)
    with pytest.raises(DataError) as on_spark:
        check(spark.read.parquet(str(path)), policy)
    assert str(on_spark.value) == str(on_pandas.value)


def test_awkward_column_names(spark, tmp_path):
    """Spark reads `a.b` as a struct field unless quoted: privcheck quotes."""
    frame = pd.DataFrame({"a.b": ["x", "x", "y"], "age `x`": ["1", "1", "2"], "s": list("uvu")})
    policy = {
        "attributes": {
            "a.b": {"role": "quasi_identifier"},
            "age `x`": {"role": "quasi_identifier"},
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}, {"model": "l-diversity", "l": 2}],
    }
    got = check(spark.read.parquet(str(write_parquet(frame, tmp_path))), policy)
    assert comparable(got) == comparable(check(frame, policy))


def test_dates_intervals_masking(spark, tmp_path):
    frame = typed_frame()
    expected = check(frame, TYPED_POLICY, max_violators=1000)
    got = check(
        spark.read.parquet(str(write_parquet(frame, tmp_path))), TYPED_POLICY, max_violators=1000
    )
    assert comparable(got, keep_order=False) == comparable(expected, keep_order=False)


def test_group_limit_names_the_threshold(spark, adult_parquet):
    with pytest.raises(DataError, match=r"more than 1,000 distinct combinations.*--max-groups"):
        check(spark.read.parquet(str(adult_parquet)), ADULT_ALL_MODELS, max_groups=1000)


def test_cli_check_on_spark_glob_and_csv(spark, tmp_path, adult_frame):
    """`privcheck check 'folder/*.parquet' --engine spark` (in-process: reuses the session)."""
    from typer.testing import CliRunner

    from privcheck.cli import app

    half = len(adult_frame) // 2
    write_parquet(adult_frame.iloc[:half], tmp_path / "parts", "a.parquet")
    write_parquet(adult_frame.iloc[half:], tmp_path / "parts", "b.parquet")
    policy = str(ADULT / "policy.yaml")
    runner = CliRunner()
    expected = check(adult_frame, policy)
    for data in (str(tmp_path / "parts" / "*.parquet"), str(ADULT / "adult.csv")):
        res = runner.invoke(
            app, ["check", data, "-p", policy, "--engine", "spark", "--format", "json"]
        )
        assert res.exit_code == 1, res.output  # Adult violates the demo policy
        got = json.loads(res.stdout)
        assert got["source"] == data
        assert got["n_records"] == expected.n_records == len(adult_frame)
        assert [m["value"] for m in got["models"]] == [m.value for m in expected.models]
        assert got["n_classes"] == expected.n_classes


def test_people_counted_in_spark_and_what_refuses(spark, tmp_path):
    """A check in Spark counts people (the individual joins the group-by) exactly as pandas;
    anonymize and apply on a Spark frame refuse a policy that counts people, in one line."""
    import privcheck
    from privcheck.errors import PolicyError
    from tests.people_helpers import VISIT_POLICY, visits

    frame = visits(300, seed=4)
    policy = json.loads(json.dumps(VISIT_POLICY))
    for attr in policy["attributes"].values():
        attr.pop("hierarchy", None)
    policy["models"].append(
        {"model": "l-diversity", "variant": "entropy", "l": 1.5, "attribute": "diagnosis"}
    )
    native = spark.read.parquet(str(write_parquet(frame, tmp_path)))
    got, expected = check(native, policy), check(frame, policy)
    assert got.n_individuals == expected.n_individuals == 300
    assert comparable(got) == comparable(expected)
    with pytest.raises(PolicyError, match="cannot take a person's records out together"):
        privcheck.anonymize(native, VISIT_POLICY)
    transformation = {"node": {q: 0 for q in ("sex", "birth_year", "zip", "age", "ward")}}
    with pytest.raises(PolicyError, match="apply on a Spark frame suppresses aggregated"):
        privcheck.apply(native, transformation, VISIT_POLICY)
