"""The GX expectations on a Spark datasource pass and fail exactly as on pandas (same success,
same observed value), through the plugin's Spark metric (privcheck's engine path)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
import pytest

gx = pytest.importorskip("great_expectations")
GX_PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "privcheck-gx"
if str(GX_PLUGIN) not in sys.path:
    sys.path.insert(0, str(GX_PLUGIN))
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")

import privcheck_gx as pg  # noqa: E402
from great_expectations.data_context.types.base import ProgressBarsConfig  # noqa: E402

from tests.engines.conftest import ADULT  # noqa: E402

QIS = ["age", "sex", "race", "marital-status", "education", "native-country"]


def test_expectations_agree_on_spark_and_pandas(spark, adult_frame):
    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    on_pandas = (
        ctx.data_sources.add_pandas(name="p")
        .add_dataframe_asset(name="adult")
        .add_batch_definition_whole_dataframe("all")
    )
    on_spark = (
        ctx.data_sources.add_spark(name="s")
        .add_dataframe_asset(name="adult")
        .add_batch_definition_whole_dataframe("all")
    )
    coarse = adult_frame.assign(age=(pd.to_numeric(adult_frame["age"]) // 20 * 20).astype(str))
    expectations = [
        pg.ExpectTableToBeKAnonymous(quasi_identifiers=["sex", "race"], k=5),  # passes
        pg.ExpectTableToBeKAnonymous(quasi_identifiers=QIS, k=5, max_violators=3),  # fails
        pg.ExpectTableToBeLDiverse(
            quasi_identifiers=["sex", "race"], attribute="salary-class", l=2
        ),
        pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(ADULT / "policy.yaml")),  # fails
    ]
    outcomes = {}
    for name, bd, frame in (
        ("pandas", on_pandas, coarse),
        ("spark", on_spark, spark.createDataFrame(coarse)),
    ):
        batch = bd.get_batch(batch_parameters={"dataframe": frame})
        results = [batch.validate(e) for e in expectations]
        assert all(r.exception_info.get("raised_exception") is not True for r in results), results
        outcomes[name] = [(r.success, r.result.get("observed_value")) for r in results]
    assert outcomes["spark"] == outcomes["pandas"]
    # the oracle: plain pandas group-bys (class sizes, distinct sensitive values per class)
    sizes = coarse.groupby(["sex", "race"]).size()
    full = coarse.groupby(QIS).size()
    distinct = coarse.groupby(["sex", "race"])["salary-class"].nunique()
    oracle = [bool(sizes.min() >= 5), bool(full.min() >= 5), bool(distinct.min() >= 2), False]
    assert [s for s, _ in outcomes["pandas"]] == oracle
    assert outcomes["spark"][1][1] == int(full.min())  # observed value: the smallest class
