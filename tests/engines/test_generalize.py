"""Generalization anonymizers on engines: Incognito on Spark chooses the node pandas chooses and
releases the same rows (as a multiset), with and without suppression, starred or removed, and
when Spark must generalize first; a transformation re-applied on Spark equals pandas; polars
takes the in-process path with the same result."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.apply import apply
from privcheck.policy import Policy, load_policy
from tests.engines.conftest import ADULT

pytest.importorskip("narwhals", reason="the engine path needs narwhals")


def adult_policy(**update) -> Policy:
    base = load_policy(ADULT / "policy.yaml")
    out = base.model_copy(update=update)
    out._base_dir = base.base_dir
    return out


K5 = {"models": [{"model": "k-anonymity", "k": 5}]}


def k5_policy(**update) -> Policy:
    models = load_policy({**K5, "attributes": {"x": {"role": "quasi_identifier"}}}).models
    return adult_policy(models=models, **update)


def rows(release) -> pd.Series:
    """A release as a multiset of rows (value → count), whatever frame holds it."""
    frame = release if isinstance(release, pd.DataFrame) else release.toPandas()
    frame = frame[sorted(frame.columns)].astype(str)
    return frame.value_counts().sort_index()


@pytest.mark.parametrize("suppression", [0.0, 0.01])
def test_incognito_on_spark_equals_pandas(spark, adult_parquet, adult_frame, suppression):
    policy = k5_policy(suppression_limit=suppression)
    release, report = anonymize(adult_frame, policy, "incognito")
    got, got_report = anonymize(spark.read.parquet(str(adult_parquet)), policy, "incognito")
    assert got_report.node == report.node
    assert got_report.n_suppressed == report.n_suppressed
    assert (report.n_suppressed > 0) == (suppression > 0)  # the limit is used when allowed
    assert got_report.metrics == pytest.approx(report.metrics)
    assert got_report.n_released_rows == len(release) == got.count()
    assert got_report.check.passed and got_report.parameters["engine"] == "spark"
    assert rows(got).equals(rows(release))
    # the risk before and after from Spark's class counts equals the pandas path's
    assert got_report.risk_before.model_dump() == pytest.approx(report.risk_before.model_dump())
    assert got_report.risk_after.model_dump() == pytest.approx(report.risk_after.model_dump())
    assert got_report.risk_profile == report.risk_profile


def test_star_and_generalize_first_equal_pandas_above_the_start(spark, adult_parquet, adult_frame):
    """max_groups too small for the ground table: Spark generalizes first; the result equals
    the pandas search restricted to the lattice above the reported start node."""
    policy = adult_policy(suppressed_records="star")  # k=5, l=2, t=0.2, 1 % suppression
    got, got_report = anonymize(
        spark.read.parquet(str(adult_parquet)), policy, "incognito", max_groups=3000
    )
    start = got_report.parameters["start_node"]
    assert any(v > 0 for v in start.values())
    assert all(got_report.node[q] >= start[q] for q in start)
    release, report = anonymize(adult_frame, policy, "incognito", previous=start)
    assert got_report.node == report.node
    assert got_report.n_suppressed == report.n_suppressed > 0
    assert got.count() == len(release) == len(adult_frame)  # starred rows stay
    assert rows(got).equals(rows(release))
    # the ground values never reached privcheck: no input risk; the release's is the same
    assert got_report.risk_before is None and got_report.risk_profile is None
    assert got_report.risk_after.model_dump() == pytest.approx(report.risk_after.model_dump())


def test_apply_on_spark_equals_pandas_and_refuses_a_failing_batch(spark, tmp_path, adult_frame):
    policy = adult_policy()
    first, second = adult_frame.iloc[:15000], adult_frame.iloc[15000:].reset_index(drop=True)
    _, report = anonymize(first, policy, "incognito")
    path = tmp_path / "second.parquet"
    second.to_parquet(path, index=False)
    expected, expected_check = apply(second, report, policy)
    got, got_check = apply(spark.read.parquet(str(path)), report, policy)
    assert expected_check.passed and got_check.passed
    assert rows(got).equals(rows(expected))
    too_fine = {"node": dict.fromkeys(report.node, 0)}
    none, failing = apply(spark.read.parquet(str(path)), too_fine, policy)
    assert none is None and not failing.passed
    _, pandas_failing = apply(second, too_fine, policy)
    assert [m.violating_records for m in failing.models] == [
        m.violating_records for m in pandas_failing.models
    ]


def test_cli_anonymize_and_apply_on_spark(spark, tmp_path, adult_frame):
    """In-process CLI (reuses the session): a Parquet folder written atomically, then apply."""
    from typer.testing import CliRunner

    from privcheck.cli import app

    first, second = adult_frame.iloc[:15000], adult_frame.iloc[15000:]
    first.to_parquet(tmp_path / "a.parquet", index=False)
    second.iloc[:200].to_parquet(tmp_path / "small.parquet", index=False)
    policy = str(ADULT / "policy.yaml")
    out, rep = tmp_path / "release", tmp_path / "report.json"
    runner = CliRunner()
    res = runner.invoke(
        app,
        [
            *("anonymize", str(tmp_path / "a.parquet"), "-p", policy, "-o", str(out)),
            *("--engine", "spark", "--report", str(rep), "--algorithm", "incognito"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert out.is_dir() and not list(tmp_path.glob(".release.*"))
    written = pd.read_parquet(out)
    node = json.loads(rep.read_text())["node"]
    _, report = anonymize(first, policy, "incognito")
    assert node == report.node and len(written) == report.n_released_rows
    res = runner.invoke(
        app,
        [
            *("apply", str(tmp_path / "small.parquet"), "-t", str(rep), "-p", policy),
            *("-o", str(tmp_path / "small_release"), "--engine", "spark"),
        ],
    )
    assert res.exit_code == 1, res.output  # 200 records: the node no longer holds
    assert not (tmp_path / "small_release").exists()


def test_polars_and_duckdb_take_the_in_process_path(adult_frame):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    policy = k5_policy(suppression_limit=0.01)
    release, report = anonymize(adult_frame, policy, "incognito")
    frame = pl.from_pandas(adult_frame)
    got, got_report = anonymize(frame.lazy(), policy, "incognito")
    assert got_report.node == report.node and rows(got).equals(rows(release))
    con = duckdb.connect()
    relation = con.from_arrow(frame.to_arrow())
    got, got_report = anonymize(relation, policy, "incognito")
    assert got_report.node == report.node and rows(got).equals(rows(release))


def test_generated_hierarchies_and_nan_on_spark_equal_pandas(spark):
    """Interval and masking hierarchies, a NaN (missing: own_class) that Spark keeps as NaN."""
    rng = np.random.default_rng(0)
    n = 400
    age = rng.integers(18, 80, n).astype(float)
    age[:7] = np.nan
    frame = pd.DataFrame(
        {
            "age": age,
            "zip": rng.choice(np.array(["02139", "02141", "10001"], dtype=object), n),
            "s": rng.choice(np.array(list("ab"), dtype=object), n),
        }
    )
    policy = {
        "attributes": {
            "age": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "intervals", "widths": [5, 10]},
            },
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
        "missing": "own_class",
    }
    release, report = anonymize(frame, policy, "incognito")
    got, got_report = anonymize(spark.createDataFrame(frame), policy, "incognito")
    assert got_report.node == report.node and report.node["age"] < 3  # NaN mapped mid-way
    assert "<missing>" in set(release["age"])
    assert rows(got).equals(rows(release))
