"""A new anonymizer is one file plus one registration, and runs on every engine through the
pipeline (issue 31's reader's test).

``toy_anonymizer.py`` is registered as a plugin would be, nothing else is touched, and it
anonymizes Adult in pandas and in Spark. The oracles are written here, without privcheck: the
node is found by generalizing the raw values through the hierarchy files with pandas merges and
counting the classes smaller than k; the release's classes are counted with a pandas group-by;
the Spark release is the pandas release as a multiset of rows.
"""

from __future__ import annotations

import pandas as pd
import pytest

from privcheck.pipeline.anonymize import anonymize
from privcheck.plugins import anonymizer_registry, register_plugin, reset_plugins
from tests.conftest import ADULT
from tests.pipeline import toy_anonymizer

QIS = ["age", "sex", "race", "marital-status"]
K = 5
LIMIT = 0.01
POLICY = {
    "attributes": {
        **{
            q: {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies" / f"{q}.csv")},
            }
            for q in QIS
        },
        "salary-class": {"role": "insensitive"},
    },
    "models": [{"model": "k-anonymity", "k": K}],
    "suppression_limit": LIMIT,
}


@pytest.fixture
def toy():
    """The toy registered as a notebook or a test registers a plugin; forgotten afterwards."""
    register_plugin(toy_anonymizer, "toy")
    yield
    reset_plugins()


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    return frame[[*QIS, "salary-class"]].head(3000)


def hierarchy(q: str) -> pd.DataFrame:
    return pd.read_csv(
        ADULT / "hierarchies" / f"{q}.csv", sep=";", header=None, dtype=str, keep_default_na=False
    )


def oracle_node(frame: pd.DataFrame) -> dict[str, int]:
    """The fewest equal steps up at which the records in classes smaller than k are within the
    suppression limit: every step generalized with pandas merges over the hierarchy files."""
    tables = {q: hierarchy(q) for q in QIS}
    heights = {q: tables[q].shape[1] - 1 for q in QIS}
    for step in range(max(heights.values()) + 1):
        node = {q: min(step, heights[q]) for q in QIS}
        general = pd.DataFrame(
            {q: frame[q].map(dict(zip(tables[q][0], tables[q][node[q]], strict=True))) for q in QIS}
        )
        counts = general.value_counts()
        small = int(counts[counts < K].sum())
        if small <= int(LIMIT * len(frame) + 1e-9):
            return node
    raise AssertionError("no step satisfies the policy")


def smallest_class(release: pd.DataFrame) -> int:
    return int(release[QIS].astype(str).value_counts().min())


def test_the_toy_is_registered_by_its_one_hook(toy):
    assert anonymizer_registry()["toy"] is toy_anonymizer.Toy


def test_the_toy_runs_on_pandas_through_the_pipeline(toy, adult):
    release, report = anonymize(adult, POLICY, "toy", seed=1)
    assert report.algorithm == "toy"
    assert report.node == oracle_node(adult)
    assert report.check.passed
    assert smallest_class(release) >= K
    assert len(adult) - len(release) == report.n_suppressed <= LIMIT * len(adult)
    # the release's values are the hierarchy's labels at the node
    for q in QIS:
        labels = set(hierarchy(q)[report.node[q]])
        assert set(release[q].astype(str)) <= labels


def test_the_toy_runs_on_spark_through_the_pipeline(toy, adult, spark, tmp_path):
    path = tmp_path / "adult.parquet"
    adult.to_parquet(path, index=False)
    frame = spark.read.parquet(str(path))
    release, report = anonymize(frame, POLICY, "toy")
    expected, expected_report = anonymize(adult, POLICY, "toy", seed=1)
    assert report.parameters["engine"] == "spark"
    assert report.node == expected_report.node == oracle_node(adult)
    assert report.check.passed
    got = release.toPandas().astype(str)
    want = expected.astype(str)
    columns = sorted(want.columns)
    assert sorted(map(tuple, got[columns].to_numpy())) == sorted(
        map(tuple, want[columns].to_numpy())
    )
