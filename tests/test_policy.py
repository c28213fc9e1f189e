"""Policy schema: loading, validation, JSON Schema export kept in sync with the code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privcheck.errors import PolicyError
from privcheck.plugins import reset_plugins
from privcheck.policy import Policy, load_policy, parse_policy, policy_json_schema

ROOT = Path(__file__).resolve().parent.parent


def test_committed_schema_is_current(monkeypatch):
    """`privcheck schema` output must be committed whenever the policy models change."""
    monkeypatch.setenv("PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD", "1")
    reset_plugins()
    try:
        committed = json.loads((ROOT / "schemas" / "policy.schema.json").read_text())
        assert committed == policy_json_schema(), (
            "schemas/policy.schema.json is stale: run `privcheck schema`"
        )
    finally:
        monkeypatch.undo()
        reset_plugins()


@pytest.mark.parametrize("name", ["adult.yaml", "medical.yaml"])
def test_example_policies_validate_against_code_and_schema(name):
    jsonschema = pytest.importorskip("jsonschema")
    path = ROOT / "schemas" / "examples" / name
    policy = load_policy(path)
    assert policy.quasi_identifiers
    import yaml

    schema = json.loads((ROOT / "schemas" / "policy.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(path.read_text()), schema)


def test_json_and_yaml_policies_are_equivalent(tmp_path):
    data = {
        "attributes": {"a": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "models": [{"model": "l-diversity", "l": 2}],
    }
    (tmp_path / "p.json").write_text(json.dumps(data))
    import yaml

    (tmp_path / "p.yaml").write_text(yaml.safe_dump(data))
    a, b = load_policy(tmp_path / "p.json"), load_policy(tmp_path / "p.yaml")
    assert a.model_dump() == b.model_dump()
    # the single sensitive attribute is filled in when a model omits it
    assert a.models[0].attribute == "s"


def test_roundtrip_through_json():
    p = load_policy(ROOT / "schemas" / "examples" / "medical.yaml")
    again = Policy.model_validate(json.loads(p.model_dump_json()))
    assert again.model_dump() == p.model_dump()


@pytest.mark.parametrize(
    "policy, needle",
    [
        (
            {
                "attributes": {"s": {"role": "sensitive"}, "t": {"role": "sensitive"}},
                "models": [{"model": "l-diversity", "l": 2}],
            },
            "must name its 'attribute'",
        ),
        ({"attributes": {}, "suppression_limit": 1.5}, "suppression_limit"),
        (
            {
                "attributes": {
                    "a": {
                        "role": "quasi_identifier",
                        "hierarchy": {"type": "intervals", "widths": [5, 7]},
                    }
                }
            },
            "not a multiple",
        ),
        (
            {"attributes": {"a": {"role": "quasi_identifier", "hierarchy": {"type": "table"}}}},
            "exactly one of",
        ),
        (
            {
                "attributes": {"a": {"role": "quasi_identifier"}},
                "models": [
                    {"model": "l-diversity", "variant": "distinct", "l": 2.5, "attribute": "a"}
                ],
            },
            "whole number",
        ),
        (["not", "a", "mapping"], "must be a mapping"),
    ],
)
def test_policy_errors(policy, needle):
    with pytest.raises(PolicyError, match=needle.replace("(", r"\(")):
        load_policy(policy) if isinstance(policy, dict) else load_policy_from_list(policy)


def load_policy_from_list(value):
    from privcheck.policy import parse_policy

    return parse_policy(value)


def test_graph_policy_needs_no_attributes_but_a_table_policy_does():
    import pandas as pd

    from privcheck.encoding import encode
    from privcheck.pipeline.check import check

    graph = parse_policy({"models": [{"model": "k-degree", "k": 3}]})
    assert graph.attributes == {}
    table_policy = {"models": [{"model": "k-anonymity", "k": 3}]}
    frame = pd.DataFrame({"a": ["x", "y"]})
    for run in (check, encode):
        with pytest.raises(PolicyError, match="a table policy needs 'attributes'") as err:
            run(frame, table_policy)  # never a vacuous pass over one class of every record
        assert "\n" not in str(err.value)


def _qi(**extra) -> dict:
    return {"attributes": {"d": {"role": "quasi_identifier", **extra}}, "models": []}


def test_duplicate_order_values_are_refused_at_load():
    with pytest.raises(PolicyError, match=r"attributes\.d\.order: lists the value 'b' twice"):
        parse_policy(_qi(order=["a", "b", "c", "b"]))
    assert parse_policy(_qi(order=["a", "b"])).attributes["d"].order == ["a", "b"]


def test_week_level_is_accepted_with_year_levels_and_refused_with_months():
    ok = parse_policy(_qi(hierarchy={"type": "dates", "levels": ["week", "year", "decade"]}))
    assert ok.attributes["d"].hierarchy.levels == ["week", "year", "decade"]
    for levels in (["week", "month"], ["week", "quarter", "year"]):
        with pytest.raises(PolicyError, match="'week' cannot be followed by 'month' or 'quarter'"):
            parse_policy(_qi(hierarchy={"type": "dates", "levels": levels}))
    with pytest.raises(PolicyError, match="fine to coarse"):
        parse_policy(_qi(hierarchy={"type": "dates", "levels": ["year", "week"]}))


def test_interval_widths_keep_exact_integers():
    spec = (
        parse_policy(_qi(hierarchy={"type": "intervals", "widths": [2**60 + 1, 3 * (2**60 + 1)]}))
        .attributes["d"]
        .hierarchy
    )
    assert spec.widths == [2**60 + 1, 3 * (2**60 + 1)] and spec.origin == 0
    with pytest.raises(PolicyError, match="not a multiple"):
        parse_policy(_qi(hierarchy={"type": "intervals", "widths": [2**60 + 1, 2**61 + 1]}))
