"""The OpenMetadata back-end (payload-only) through the same interface as DataHub: a table
entity's tags (OpenMetadata's own classifications) → the policy → check → the published
CreateTestCaseResult bodies; the oracle is ``evaluate`` with the policy written by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privcheck.api import evaluate
from privcheck.catalogs.openmetadata import OpenMetadataCatalog
from privcheck.catalogs.tagged import check_in_catalog
from privcheck.errors import DataError
from privcheck.plugins import catalog_registry

ROOT = Path(__file__).resolve().parents[2]
MEDICAL = ROOT / "schemas" / "examples" / "medical.csv"
SCHEMA = ROOT / "tests" / "data" / "catalog" / "openmetadata.createTestCaseResult.schema.json"
FQN = "hive.default.clinic.patients"


def _tag(fqn: str) -> dict:
    return {"tagFQN": fqn, "source": "Classification", "labelType": "Manual", "state": "Confirmed"}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    entity = {
        "id": "0b1c0000-0000-0000-0000-000000000000",
        "name": "patients",
        "fullyQualifiedName": FQN,
        "columns": [
            {"name": "name", "dataType": "STRING", "tags": [_tag("PII.Sensitive")]},
            {"name": "zip", "dataType": "STRING", "tags": [_tag("PII.NonSensitive")]},
            {"name": "age", "dataType": "INT", "tags": [_tag("PII.NonSensitive")]},
            {"name": "sex", "dataType": "STRING", "tags": [_tag("PII.None")]},
            {"name": "salary", "dataType": "STRING", "tags": []},
            {
                "name": "disease",
                "dataType": "STRING",
                "tags": [_tag("PersonalData.SpecialCategory")],
            },
        ],
    }
    (tmp_path / f"{FQN}.table.json").write_text(json.dumps(entity))
    (tmp_path / "base.yaml").write_text(
        "attributes:\n  zip: {role: quasi_identifier}\n  disease: {role: sensitive}\n"
        "models:\n  - {model: k-anonymity, k: 2}\n"
        "  - {model: l-diversity, variant: distinct, l: 2, attribute: disease}\n"
    )
    return tmp_path


def test_the_check_through_the_interface_equals_evaluate(folder):
    jsonschema = pytest.importorskip("jsonschema")
    catalog = catalog_registry()["openmetadata"](folder)
    verdict, _ = check_in_catalog(catalog, FQN, MEDICAL, folder / "base.yaml")
    expected = evaluate(
        MEDICAL,
        {
            "attributes": {
                "name": {"role": "identifier"},
                "zip": {"role": "quasi_identifier"},
                "age": {"role": "quasi_identifier"},
                "sex": {"role": "insensitive"},
                "disease": {"role": "sensitive"},
            },
            "models": [
                {"model": "k-anonymity", "k": 2},
                {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "disease"},
            ],
        },
    )
    keys = ("model", "params", "passed", "value", "violating_classes", "violating_records")
    assert [m.model_dump(include=set(keys)) for m in verdict.models] == [
        m.model_dump(include=set(keys)) for m in expected.models
    ]
    assert verdict.identifiers_present == ["name"] and verdict.passed is False
    written = json.loads((folder / f"{FQN}.results.json").read_text())
    schema = json.loads(SCHEMA.read_text())
    for body, m in zip(written["testCaseResults"], verdict.models, strict=True):
        jsonschema.validate(body, schema)
        assert body["testCaseStatus"] == ("Success" if m.passed else "Failed")
    results = catalog.latest_results(FQN)
    assert [(r.model, r.passed) for r in results] == [(m.model, m.passed) for m in verdict.models]
    assert all(not r.verdict_passed and r.identifiers_present == ("name",) for r in results)


def test_an_unknown_table_writes_nothing(folder):
    catalog = OpenMetadataCatalog(folder)
    with pytest.raises(DataError, match="no OpenMetadata table entity"):
        check_in_catalog(catalog, "hive.default.other", MEDICAL, folder / "base.yaml")
    with pytest.raises(DataError, match="no privcheck result"):
        catalog.latest_results(FQN)
    assert sorted(p.name for p in folder.iterdir()) == ["base.yaml", f"{FQN}.table.json"]
