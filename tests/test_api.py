"""The catalog API: Verdict contract and schema, tag-derived policies, the remediation hook."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privcheck.api import (
    Verdict,
    evaluate,
    policy_digest,
    policy_from_tags,
    remediate,
    verdict_json_schema,
)
from privcheck.errors import PolicyError
from privcheck.policy import load_policy
from tests.conftest import ADULT

ROOT = Path(__file__).resolve().parent.parent
QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]


def test_committed_verdict_schema_is_current():
    committed = json.loads((ROOT / "schemas" / "verdict.schema.json").read_text())
    assert committed == verdict_json_schema(), (
        "schemas/verdict.schema.json is stale: run `privcheck schema --verdict`"
    )


def test_verdict_validates_against_schema_and_matches_the_data(adult_frame):
    jsonschema = pytest.importorskip("jsonschema")
    verdict = evaluate(ADULT / "adult.csv", ADULT / "policy.yaml", policy_version="v3")
    doc = json.loads(verdict.to_json())
    jsonschema.validate(doc, json.loads((ROOT / "schemas" / "verdict.schema.json").read_text()))
    assert doc["dataset"] == "adult.csv" and doc["policy_version"] == "v3"
    assert doc["passed"] is False and doc["n_records"] == 30162
    k = doc["models"][0]
    sizes = adult_frame.groupby(QIS).size()  # independent oracle
    assert (k["model"], k["required"], k["comparison"]) == ("k-anonymity", 5, ">=")
    assert k["value"] == sizes.min() and k["violating_classes"] == (sizes < 5).sum()
    assert k["violating_records"] == sizes[sizes < 5].sum()
    t = doc["models"][2]
    assert (t["required"], t["comparison"]) == (0.2, "<=")
    # a broken verdict does not validate
    doc["models"][0]["violating_classes"] = -1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, verdict_json_schema())
    assert Verdict.model_validate_json(verdict.to_json()) == verdict


def test_policy_digest_identifies_the_policy():
    a = load_policy(ADULT / "policy.yaml")
    b = load_policy(ADULT / "policy.yaml")
    assert policy_digest(a) == policy_digest(b)
    changed = load_policy({**a.model_dump(mode="json"), "suppression_limit": 0.02})
    assert policy_digest(changed) != policy_digest(a)


TAGS = {
    "age": ["pii:quasi-identifier"],
    "sex": ["PII:Quasi-Identifier", "demographic"],
    "race": ["urn:li:tag:pii:quasi-identifier"],
    "salary-class": ["pii:sensitive"],
    "education": ["curated"],
}
MODELS = [
    {"model": "k-anonymity", "k": 5},
    {"model": "l-diversity", "variant": "entropy", "l": 1.5},
    {"model": "t-closeness", "t": 0.15, "distance": "hierarchical"},
]


def test_tag_derived_policy_gives_the_hand_written_verdict(adult_frame):
    hierarchies = {
        "salary-class": {"type": "table", "path": str(ADULT / "hierarchies" / "salary-class.csv")}
    }
    tagged = policy_from_tags(TAGS, models=MODELS, default_hierarchies=hierarchies)
    by_hand = load_policy(
        {
            "attributes": {
                "age": {"role": "quasi_identifier"},
                "sex": {"role": "quasi_identifier"},
                "race": {"role": "quasi_identifier"},
                "salary-class": {"role": "sensitive", "hierarchy": hierarchies["salary-class"]},
                "education": {"role": "insensitive"},
            },
            "models": MODELS,
        }
    )
    assert policy_digest(tagged) == policy_digest(by_hand)
    a = evaluate(adult_frame, tagged, name="adult").model_dump(exclude={"evaluated_at"})
    b = evaluate(adult_frame, by_hand, name="adult").model_dump(exclude={"evaluated_at"})
    assert a == b
    sizes = adult_frame.groupby(["age", "sex", "race"]).size()
    assert a["models"][0]["value"] == sizes.min()
    assert a["quasi_identifiers"] == ["age", "sex", "race"]


def test_custom_tag_mapping_and_errors():
    mapping = {"Privacy.QuasiIdentifier": "quasi_identifier", "Privacy.Sensitive": "sensitive"}
    p = policy_from_tags(
        {"zip": ["Privacy.QuasiIdentifier"], "dx": ["privacy.sensitive"], "note": []},
        models=[{"model": "k-anonymity", "k": 2}],
        mapping=mapping,
        untagged="ignore",
    )
    assert p.quasi_identifiers == ["zip"] and p.sensitive_attributes == ["dx"]
    assert "note" not in p.attributes
    with pytest.raises(PolicyError, match="several roles"):
        policy_from_tags({"a": ["pii:quasi-identifier", "pii:sensitive"]}, models=[])
    with pytest.raises(PolicyError, match="no column is tagged as a quasi-identifier"):
        policy_from_tags({"a": ["pii:sensitive"]}, models=[])
    with pytest.raises(PolicyError, match="unknown role"):
        policy_from_tags({"a": ["x"]}, models=[], mapping={"x": "secret"})
    with pytest.raises(PolicyError, match="k-anonymity"):
        policy_from_tags({"a": ["pii:quasi-identifier"]}, models=[{"model": "k-anonymity"}])


def test_openmetadata_pii_classification_tags(adult_frame):
    """OpenMetadata's system tags (its tagFQN, or the tag's name alone) by their definitions:
    PII.Sensitive identifies on its own, PII.NonSensitive in combination (zip, race, gender,
    date of birth), PII.None is not personal, PersonalData.SpecialCategory is sensitive, and
    PersonalData.Personal says personal without its role: an open decision (a draft)."""
    tags = {
        "email": ["PII.Sensitive"],
        "age": ["PII.NonSensitive", "Tier.Tier1"],
        "sex": ["NonSensitive"],  # tagLabel.name, without the classification
        "race": ["pii.nonsensitive"],
        "salary-class": ["PersonalData.SpecialCategory"],
        "education": ["PII.None"],
        "occupation": ["PersonalData.Personal"],
    }
    policy = policy_from_tags(tags, models=[{"model": "k-anonymity", "k": 5}])
    roles = {c: a.role.value for c, a in policy.attributes.items()}
    assert roles == {
        "email": "identifier",
        "age": "quasi_identifier",
        "sex": "quasi_identifier",
        "race": "quasi_identifier",
        "salary-class": "sensitive",
        "education": "insensitive",
        "occupation": "insensitive",
    }
    assert list(policy.open_reviews) == ["occupation"]
    assert "tagged PersonalData.Personal" in policy.open_reviews["occupation"]
    with pytest.raises(PolicyError, match=r"is a draft: 1 column\(s\) still marked review"):
        evaluate(adult_frame, policy)
    assert evaluate(adult_frame, policy, allow_draft=True).draft is True
    with pytest.raises(PolicyError, match="several roles"):
        policy_from_tags({"a": ["PII.Sensitive", "PII.None"]}, models=[])


def test_remediate_releases_what_an_independent_check_confirms(adult_frame):
    """The Verdict is a fresh check of the release, confirmed here by a pandas group-by."""
    release, verdict = remediate(
        adult_frame, ADULT / "policy.yaml", algorithm="mingen", name="adult", seed=1
    )
    assert isinstance(release, pd.DataFrame) and verdict.dataset == "adult"
    assert verdict.passed
    sizes = release.groupby(QIS).size()
    assert verdict.models[0].value == sizes.min() >= 5
    assert len(release) >= len(adult_frame) * (1 - 0.01)  # within the suppression budget


def _recursive_policy() -> dict:
    return {
        "attributes": {"q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "models": [{"model": "l-diversity", "variant": "recursive", "l": 3, "c": 2}],
    }


def test_an_unbounded_statistic_is_explicit_in_report_and_verdict():
    """Recursive (3,c)-diversity of a class with two sensitive values: r1 / (r3 + …) has an
    empty tail, so no c makes it hold. JSON says value null AND unbounded true, never only null
    (which means "nothing measured": an empty table allowed with allow_empty)."""
    from privcheck.catalog import describe, to_openmetadata
    from privcheck.pipeline.check import check

    frame = pd.DataFrame({"q": ["a"] * 4 + ["b"] * 3, "s": ["x", "x", "y", "y", "x", "y", "z"]})
    report = check(frame, _recursive_policy())
    (m,) = report.models
    assert (m.passed, m.value, m.unbounded) == (False, None, True)
    dumped = json.loads(report.to_json())["models"][0]
    assert dumped["value"] is None and dumped["unbounded"] is True
    (violator,) = m.violators
    assert violator.values == {"q": "a"} and violator.statistic is None and violator.unbounded
    verdict = evaluate(frame, _recursive_policy())
    (mv,) = verdict.models
    assert (mv.value, mv.unbounded) == (None, True)
    assert "unbounded" in describe(mv)
    (case,) = to_openmetadata(verdict, "db.schema.t")
    values = {v["name"]: v["value"] for v in case["testResultValue"]}
    assert values["value"] == "unbounded"

    empty = evaluate(frame.iloc[:0], _recursive_policy(), allow_empty=True)
    (mv,) = empty.models
    assert (mv.passed, mv.value, mv.unbounded) == (True, None, False)
    assert "n/a" in describe(mv)


def test_an_empty_dataset_is_refused_by_default():
    from privcheck.errors import DataError

    frame = pd.DataFrame({"q": pd.Series([], dtype=str), "s": pd.Series([], dtype=str)})
    with pytest.raises(DataError, match="no records"):
        evaluate(frame, _recursive_policy())
