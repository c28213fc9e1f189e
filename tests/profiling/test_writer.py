"""The YAML writer: whatever a column is called and whatever its comment says, the policy
text parses back (privcheck's bounded loader) to exactly the entries written, and validates
against the policy's JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.limits import load_yaml
from privcheck.policy import parse_policy
from privcheck.profiling import writer

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "policy.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


@settings(max_examples=150, deadline=None)
@given(
    columns=st.lists(st.text(min_size=1, max_size=25), min_size=1, max_size=6, unique=True),
    comment=st.text(max_size=60),
    value=st.text(max_size=20),
)
def test_any_name_and_comment_round_trip(columns, comment, value):
    lines = [
        writer.AttributeLine(
            name,
            {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "rows": [[value, "*"], ["x" + value, "*"]]},
            },
            comment,
        )
        for name in columns
    ]
    models = [writer.ModelLine({"model": "k-anonymity", "k": 2}, comment)]
    text = writer.policy_yaml(
        lines, models, suppression_limit=0.05, missing="own_class", header=[comment, ""]
    )
    data = load_yaml(text)
    assert list(data["attributes"]) == columns
    for name in columns:
        assert data["attributes"][name] == lines[0].entry
    assert data["models"] == [{"model": "k-anonymity", "k": 2}]
    assert data["suppression_limit"] == 0.05 and data["missing"] == "own_class"
    VALIDATOR.validate(data)
    parse_policy(data)


@pytest.mark.parametrize(
    "value", [0.05, 1e-05, 2.5e20, 1e20, 0.1, 3, True, None, "no", "on", "null", "*", "a: b"]
)
def test_scalars_read_back_as_written(value):
    assert load_yaml(f"x: {writer.scalar(value)}\n") == {"x": value}


def test_each_attribute_line_carries_its_comment():
    text = writer.policy_yaml(
        [
            writer.AttributeLine("email", {"role": "identifier"}, "99 % e-mail addresses"),
            writer.AttributeLine("ward", {"role": "insensitive"}, "review: 5 values\nno name"),
        ],
        [],
        suppression_limit=0.0,
    )
    lines = text.splitlines()
    assert lines[1] == "  email: {role: identifier}  # 99 % e-mail addresses"
    assert lines[2] == "  ward:  {role: insensitive}  # review: 5 values no name"
    assert "models: []" in lines


def test_hierarchy_csv():
    assert writer.hierarchy_csv([["a", "x", "*"], ["b", "x", "*"]]) == "a;x;*\nb;x;*\n"
    assert writer.hierarchy_csv([["a;1", "*"]], sep="\t") == "a;1\t*\n"
