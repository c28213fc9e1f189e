"""One check, one DataHub assertion: the GX plugin's results name the assertions that
``privcheck catalog check`` writes for the same dataset, model and parameters."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

gx = pytest.importorskip("great_expectations")
pytest.importorskip("datahub.lite.lite_util")

import privcheck_gx as pg  # noqa: E402
from great_expectations.data_context.types.base import ProgressBarsConfig  # noqa: E402
from privcheck_gx.datahub import assertion_urns, models_of  # noqa: E402

from privcheck.api import evaluate  # noqa: E402
from privcheck.catalog import datahub_assertion_urn, to_datahub  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MEDICAL = ROOT / "schemas" / "examples" / "medical.csv"
POLICY = ROOT / "schemas" / "examples" / "medical.yaml"
URN = "urn:li:dataset:(urn:li:dataPlatform:hive,clinic.patients,PROD)"


@pytest.fixture(scope="module")
def batch():
    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    source = ctx.data_sources.add_pandas(name="clinic")
    asset = source.add_dataframe_asset(name="patients")
    frame = pd.read_csv(MEDICAL, dtype=str, keep_default_na=False)
    return asset.add_batch_definition_whole_dataframe("all").get_batch(
        batch_parameters={"dataframe": frame}
    )


def test_a_policy_expectation_names_the_catalog_checks_assertions(batch):
    result = batch.validate(pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(POLICY)))
    verdict = evaluate(MEDICAL, POLICY, name=URN)
    catalog_urns = [datahub_assertion_urn(URN, m) for m in verdict.models]
    assert assertion_urns(result, URN) == catalog_urns
    # to_datahub writes exactly those assertions (each with its run event)
    written = [
        p["entityUrn"] for p in to_datahub(verdict, URN) if p["aspectName"] == "assertionInfo"
    ]
    assert written == catalog_urns
    assert len(set(catalog_urns)) == len(verdict.models) == 4


def test_a_single_model_expectation_and_its_json_form(batch):
    result = batch.validate(pg.ExpectTableToBeKAnonymous(quasi_identifiers=["zip", "age"], k=3))
    verdict = evaluate(
        MEDICAL,
        {
            "attributes": {
                "zip": {"role": "quasi_identifier"},
                "age": {"role": "quasi_identifier"},
            },
            "models": [{"model": "k-anonymity", "k": 3}],
        },
        name=URN,
    )
    (expected,) = [datahub_assertion_urn(URN, m) for m in verdict.models]
    assert assertion_urns(result, URN) == [expected]
    assert assertion_urns(result.to_json_dict(), URN) == [expected]
    assert models_of(result) == [("k-anonymity", {"k": 3})]
    assert assertion_urns(result, URN.replace("patients", "other")) != [expected]
