"""Catalog adapters: the payloads are accepted by the catalogs' own models.

DataHub: the acryl-datahub SDK's generated classes (skipped when the SDK is absent).
OpenMetadata: the JSON Schema of the SDK's CreateTestCaseResult model, written down in
tests/data/catalog/ (the SDK itself does not install offline; see the file's $comment).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privcheck.api import evaluate
from privcheck.catalog import datahub_assertion_urn, to_datahub, to_openmetadata
from tests.conftest import ADULT

CATALOG = Path(__file__).resolve().parent / "data" / "catalog"
DATASET = "urn:li:dataset:(urn:li:dataPlatform:hive,census.adult,PROD)"


@pytest.fixture(scope="module")
def verdict():
    return evaluate(ADULT / "adult.csv", ADULT / "policy.yaml", policy_version="7")


def is_subset(small, big) -> bool:
    """Every key/value of ``small`` is in ``big`` (the SDK may add defaults)."""
    if isinstance(small, dict):
        return isinstance(big, dict) and all(
            k in big and is_subset(v, big[k]) for k, v in small.items()
        )
    if isinstance(small, list):
        return (
            isinstance(big, list)
            and len(small) == len(big)
            and all(is_subset(a, b) for a, b in zip(small, big, strict=True))
        )
    return small == big


def test_datahub_payloads_load_into_the_sdk(verdict):
    pytest.importorskip("datahub.emitter.mcp")
    from datahub.emitter.mcp import MetadataChangeProposalWrapper
    from datahub.metadata.schema_classes import AssertionInfoClass, AssertionRunEventClass

    payloads = to_datahub(verdict, DATASET, run_id="ci-42")
    assert len(payloads) == 2 * len(verdict.models)
    for payload, model in zip(payloads[1::2], verdict.models, strict=True):
        assert payload["entityUrn"] == datahub_assertion_urn(DATASET, model)
    for payload in payloads:
        wrapper = MetadataChangeProposalWrapper.from_obj(json.loads(json.dumps(payload)))
        assert isinstance(wrapper, MetadataChangeProposalWrapper), "SDK could not parse the aspect"
        assert isinstance(wrapper.aspect, AssertionInfoClass | AssertionRunEventClass)
        assert wrapper.validate() and wrapper.aspect.validate()
        back = wrapper.to_obj(simplified_structure=True)
        assert is_subset(payload, back), (payload, back)
    k_event = payloads[1]["aspect"]["json"]
    assert k_event["result"]["type"] == "FAILURE"
    assert k_event["result"]["actualAggValue"] == verdict.models[0].value == 1
    assert k_event["result"]["unexpectedCount"] == verdict.models[0].violating_records
    k_info = payloads[0]["aspect"]["json"]["datasetAssertion"]
    assert k_info["operator"] == "GREATER_THAN_OR_EQUAL_TO"
    assert k_info["parameters"]["value"]["value"] == "5"


def test_datahub_assertion_urn_is_stable_per_model(verdict):
    again = evaluate(ADULT / "adult.csv", ADULT / "policy.yaml")
    assert [datahub_assertion_urn(DATASET, m) for m in verdict.models] == [
        datahub_assertion_urn(DATASET, m) for m in again.models
    ]
    assert len({datahub_assertion_urn(DATASET, m) for m in verdict.models}) == 3


def test_openmetadata_payloads_match_the_published_schema(verdict):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((CATALOG / "openmetadata.createTestCaseResult.schema.json").read_text())
    bodies = to_openmetadata(verdict, "hive.default.census.adult")
    assert [b["fqn"] for b in bodies] == [
        "hive.default.census.adult.privcheck_k_anonymity",
        "hive.default.census.adult.privcheck_l_diversity_salary_class",
        "hive.default.census.adult.privcheck_t_closeness_salary_class",
    ]
    for body, m in zip(bodies, verdict.models, strict=True):
        jsonschema.validate(body, schema)
        assert body["testCaseStatus"] == ("Success" if m.passed else "Failed")
        assert body["failedRows"] + body["passedRows"] == verdict.n_records
        assert body["failedRows"] == m.violating_records
    bad = {**bodies[0], "testCaseStatus": "Broken"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
