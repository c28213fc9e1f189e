"""Mondrian, local suppression and auto on Spark: the plan is made on Spark's counts, its mapping
joined back in Spark, and the release equals the pandas release as a multiset of rows, with the
same report figures. The data has records of one combination that differ in another column, so
taking a divided combination's records in another order would write other rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.pipeline.anonymize import anonymize
from privcheck.policy import parse_policy
from tests.anonymizers.test_mapping import label_spelled_case

pytest.importorskip("narwhals", reason="the engine path needs narwhals")

ZIPS = ["02139", "02141", "02142", "10001", "10002", "94110"]


def table(n: int = 3000, seed: int = 3) -> pd.DataFrame:
    """Few ages (relaxed median cuts fall inside a value), a masked ZIP, a missing sex, a
    sensitive and an insensitive column, an identifier."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(np.array(["F", "M"], dtype=object), n)
    sex[rng.random(n) < 0.01] = None
    return pd.DataFrame(
        {
            "id": np.arange(n).astype(str),
            "age": rng.integers(20, 61, n),
            "zip": rng.choice(ZIPS, n, p=[0.3, 0.2, 0.1, 0.2, 0.1, 0.1]),
            "sex": sex,
            "disease": rng.choice(["flu", "cold", "ache", "none"], n),
            "note": rng.integers(0, 10**6, n).astype(str),
        }
    )


SPEC = {
    "attributes": {
        "id": {"role": "identifier"},
        "age": {"role": "quasi_identifier"},
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
        "sex": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
        "note": {"role": "insensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 4}],
    "missing": "own_class",
    "suppression_limit": 0.02,
}
DIVERSE = [
    {"model": "k-anonymity", "k": 6},
    {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "disease"},
]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    frame = table()
    path = tmp_path_factory.mktemp("release") / "data.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


def rows(release) -> pd.Series:
    """A release as a multiset of rows (value → count), whatever frame holds it."""
    frame = release if isinstance(release, pd.DataFrame) else release.toPandas()
    frame = frame[sorted(frame.columns)].astype(str)
    return frame.value_counts().sort_index()


def figures(report) -> dict:
    return {
        "n_records": report.n_records,
        "n_suppressed": report.n_suppressed,
        "n_kept": report.n_kept,
        "n_released_rows": report.n_released_rows,
        "n_classes": report.check.n_classes,
        "check_suppressed": report.check.n_suppressed,
        "passed": report.check.passed,
        "chosen": report.chosen,
        "suppressed_cells": report.suppressed_cells,
        "changed_cells": report.changed_cells,
        "removed": report.removed_columns,
    }


CASES = {
    "mondrian": ("mondrian", {}, {"models": DIVERSE}),
    "mondrian-relaxed": ("mondrian", {"relaxed": True}, {}),
    "local-suppression": ("local-suppression", {}, {}),
    "local-suppression-star": ("local-suppression", {}, {"suppressed_records": "star"}),
    "auto": ("auto", {}, {}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_spark_release_equals_pandas(spark, data, name):
    algorithm, params, update = CASES[name]
    frame, path = data
    policy = parse_policy({**SPEC, **update})
    release, report = anonymize(frame, policy, algorithm, seed=0, **params)
    got, got_report = anonymize(spark.read.parquet(str(path)), policy, algorithm, **params)
    assert rows(got).equals(rows(release)), name
    assert figures(got_report) == figures(report)
    assert got_report.metrics == pytest.approx(report.metrics)
    assert got_report.parameters["engine"] == "spark"
    assert got_report.risk_after.model_dump() == pytest.approx(report.risk_after.model_dump())
    assert got_report.risk_before.model_dump() == pytest.approx(report.risk_before.model_dump())
    if algorithm == "auto":
        assert got_report.candidates is not None and report.candidates is not None
        keys = ("algorithm", "passed", "metric_value", "n_classes", "n_suppressed")
        assert [{k: c[k] for k in keys} for c in got_report.candidates] == [
            {k: c[k] for k in keys} for c in report.candidates
        ]
    assert got_report.loss_by_attribute == pytest.approx(report.loss_by_attribute)
    if name == "local-suppression":
        assert report.changed_cells > 0 and report.suppressed_cells["total"] > 0
    if name == "local-suppression-star":
        assert report.n_suppressed > 0  # records written all '*'


def adult_policy(name: str):
    """The demo policy (k = 5, distinct 2-diversity, t = 0.2) or k = 5 alone."""
    from privcheck.policy import load_policy
    from tests.engines.conftest import ADULT

    demo = load_policy(ADULT / "policy.yaml")
    if name == "demo":
        return demo
    out = demo.model_copy(update={"models": parse_policy({**SPEC, "models": [
        {"model": "k-anonymity", "k": 5}]}).models})  # fmt: skip
    out._base_dir = demo.base_dir
    return out


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    from privcheck.io import read_table
    from tests.engines.conftest import ADULT

    frame = read_table(ADULT / "adult.csv")
    path = tmp_path_factory.mktemp("adult") / "adult.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


@pytest.mark.parametrize(
    ("algorithm", "policy_name"),
    [("mondrian", "demo"), ("mondrian", "k5"), ("local-suppression", "k5"), ("auto", "demo"),
     ("auto", "k5")],
)  # fmt: skip
def test_adult_spark_release_equals_pandas(spark, adult, algorithm, policy_name):
    """On Adult (30,162 records), with the demo policy and with k = 5 alone: the Spark release
    is the pandas release as a multiset of rows, with the same loss (overall and per attribute),
    suppressed records and choice."""
    frame, path = adult
    policy = adult_policy(policy_name)
    release, report = anonymize(frame, policy, algorithm, seed=0)
    got, got_report = anonymize(spark.read.parquet(str(path)), policy, algorithm)
    assert rows(got).equals(rows(release))
    assert figures(got_report) == figures(report)
    assert got_report.metrics["loss"] == pytest.approx(report.metrics["loss"])
    assert got_report.loss_by_attribute == pytest.approx(report.loss_by_attribute)
    assert report.loss_by_attribute and report.metrics["loss"] == pytest.approx(
        np.mean(list(report.loss_by_attribute.values()))
    )
    if algorithm == "auto":
        assert got_report.chosen == report.chosen
        assert [c["metric_value"] for c in got_report.candidates] == pytest.approx(
            [c["metric_value"] for c in report.candidates], nan_ok=True
        )


def test_cli_release_on_spark_passes_both_checks(spark, data, tmp_path):
    """`privcheck anonymize --engine spark` writes a folder of Parquet parts equal to the
    pandas release; `check --engine spark` and the plain check of those files pass."""
    import yaml
    from typer.testing import CliRunner

    from privcheck.cli import app

    _, path = data
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump({**SPEC, "suppressed_records": "star"}))
    out, pandas_out = tmp_path / "release", tmp_path / "pandas.parquet"
    runner = CliRunner()
    for args in (
        [str(path), "-o", str(out), "--engine", "spark"],
        [str(path), "-o", str(pandas_out), "--seed", "1"],
    ):
        res = runner.invoke(
            app, ["anonymize", *args, "-p", str(policy), "--algorithm", "local-suppression"]
        )
        assert res.exit_code == 0, res.output
    assert out.is_dir()
    assert rows(pd.read_parquet(out)).equals(rows(pd.read_parquet(pandas_out)))
    for engine in ("spark", "pandas"):
        res = runner.invoke(app, ["check", str(out), "-p", str(policy), "--engine", engine])
        assert res.exit_code == 0, (engine, res.output)


def test_changed_cells_counted_in_spark(spark):
    """At a node where a class holds a value spelled as its label, which records keep their
    value depends on which are blanked: Spark counts the changed cells row by row."""
    frame, policy, params = label_spelled_case()
    release, report = anonymize(frame, policy, "local-suppression", seed=0, **params)
    got, got_report = anonymize(spark.createDataFrame(frame), policy, "local-suppression", **params)
    assert rows(got).equals(rows(release))
    assert got_report.changed_cells == report.changed_cells


def test_refusals_on_spark(spark, data):
    _, path = data
    sdf = spark.read.parquet(str(path))
    policy = parse_policy(SPEC)
    with pytest.raises(PolicyError, match="needs the rows in process"):
        anonymize(sdf, policy, "rank-swapping")
    # too many combinations: Mondrian needs the ground values, Spark may not generalize first
    with pytest.raises(DataError, match="mondrian needs the ground class table"):
        anonymize(sdf, policy, "mondrian", max_groups=500)
    # auto: only the full-domain candidate runs above the start node Spark generalized to
    _, report = anonymize(sdf, policy, "auto", max_groups=500)
    by = {c["algorithm"]: c for c in report.candidates}
    assert report.chosen == "mingen" and "start_node" in report.parameters
    assert (
        not by["mondrian"]["passed"]
        and "generalized the rows first" in (by["mondrian"]["excluded_reason"])
    )
    assert "rank-swapping" not in by and not by["safepub"]["passed"]


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [("local-suppression", {}), ("mondrian", {}), ("mondrian", {"relaxed": True})],
)
def test_dates_floats_and_nan_on_spark(spark, algorithm, params):
    """Date, interval (floats with a NaN, missing: own_class) and masking hierarchies: a column
    the release leaves at its ground values keeps its type (dates stay dates), as in pandas."""
    from tests.engines.conftest import TYPED_POLICY, typed_frame

    frame = typed_frame()
    policy = {**TYPED_POLICY, "models": [{"model": "k-anonymity", "k": 3}]}
    release, report = anonymize(frame, policy, algorithm, seed=0, **params)
    got, got_report = anonymize(spark.createDataFrame(frame), policy, algorithm, **params)
    assert rows(got).equals(rows(release))
    assert figures(got_report) == figures(report)
    if algorithm == "local-suppression":
        kept = [f.name for f in got.schema.fields if f.dataType.typeName() == "date"]
        assert kept == [c for c in ("born",) if not (release["born"] == "*").any()]
