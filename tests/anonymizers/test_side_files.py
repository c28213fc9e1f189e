"""The strict schemas of the files beside a policy (`privcheck.pipeline.side_files`): a
transformation JSON and an anonymization report, as `apply` and `anonymize --previous` read them.
Each wrong value is refused in one line naming the file and the key — never the value."""

from __future__ import annotations

import json

import pytest

from privcheck.errors import PolicyError
from privcheck.pipeline.apply import load_transformation
from privcheck.pipeline.side_files import parse_previous_node, parse_transformation, previous_node

NODE = {"age": 1, "sex": 0}
SECRET = "S3CRET-value-0x5f"


def test_a_valid_transformation_and_report_are_read():
    t = parse_transformation(
        {"kind": "transformation", "node": NODE, "suppression_limit": 0.01,
         "suppressed_records": "star", "algorithm": "mingen"}, "t",
    )  # fmt: skip
    assert t == {
        "kind": "transformation", "node": NODE, "suppression_limit": 0.01,
        "suppressed_records": "star", "algorithm": "mingen",
    }  # fmt: skip
    parameters = {"suppression_limit": 0, "suppressed_records": "remove", "x": [1]}
    report = {
        "kind": "anonymization", "algorithm": "incognito", "node": NODE, "n_records": 9,
        "parameters": parameters,
    }  # fmt: skip
    t = parse_transformation(report, "r")
    assert t["suppression_limit"] == 0 and t["suppressed_records"] == "remove"
    assert parse_transformation({"node": NODE}, "t")["suppression_limit"] is None


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"suppression_limit": 5}, "suppression_limit: Input should be less than or equal to 1"),
        ({"suppression_limit": -1}, "suppression_limit: Input should be greater than or equal"),
        ({"suppression_limit": "bogus"}, "suppression_limit: Input should be a valid number"),
        ({"suppression_limit": "0.01"}, "suppression_limit: Input should be a valid number"),
        ({"suppression_limit": float("nan")}, "suppression_limit is nan; numbers must be finite"),
        ({"suppression_limit": float("inf")}, "suppression_limit is inf; numbers must be finite"),
        ({"suppression_limit": 1e308}, "suppression_limit: Input should be less than or equal"),
        (
            {"suppression_limit": [1]},
            "suppression_limit: Input should be a valid number; got a l",
        ),
        ({"suppression_limit": True}, "suppression_limit: Input should be a valid number"),
        ({"suppressed_records": "bogus"}, "suppressed_records: Input should be 'remove' or 'star'"),
        ({"suppressed_records": SECRET}, "suppressed_records: Input should be 'remove' or 'star'"),
        (
            {"node": {"age": True, "sex": 0}},
            "node.age: Input should be a valid integer; got a boolean",
        ),
        ({"node": {"age": 1.0, "sex": 0}}, "node.age: Input should be a valid integer"),
        (
            {"node": {"age": "1", "sex": 0}},
            "node.age: Input should be a valid integer; got a string",
        ),
        ({"node": {"age": -1, "sex": 0}}, "node.age: Input should be greater than or equal to 0"),
        ({"node": {"age": 2**70, "sex": 0}}, "node.age is out of range"),
        ({"node": [1, 0]}, "node: Input should be a mapping; got a list"),
        ({"node": SECRET}, "node: Input should be a mapping; got a string"),
        ({"parameters": {"suppression_limit": 0.5}}, "parameters: unknown key"),
        ({f"root:${SECRET}:1::": 1}, "<key on line 1, column "),  # (a key that is no name)
        ({"algorithm": 5}, "algorithm: Input should be a valid string"),
    ],
)
def test_a_transformation_file_is_validated_strictly(tmp_path, change, needle):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"kind": "transformation", "node": NODE, **change}))
    with pytest.raises(PolicyError) as info:
        load_transformation(path)
    message = str(info.value)
    assert message.startswith(f"transformation file {path}") and needle in message, message
    assert SECRET not in message and "\n" not in message


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"parameters": SECRET}, "parameters: Input should be a mapping; got a string"),
        ({"parameters": {"suppression_limit": "x"}}, "parameters.suppression_limit: Input should"),
        ({"parameters": {"suppressed_records": 1}}, "parameters.suppressed_records: Input should"),
        ({"node": {"age": True}}, "node.age: Input should be a valid integer; got a boolean"),
        ({"node": None}, "has no generalization node"),
        ({"kind": "check"}, "its 'kind' is neither 'transformation' nor 'anonymization'"),
    ],
)
def test_a_report_given_to_apply_is_validated_strictly(tmp_path, change, needle):
    report = {"kind": "anonymization", "algorithm": "mingen", "node": NODE, "parameters": {}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**report, **change}))
    with pytest.raises(PolicyError, match="transformation file") as info:
        load_transformation(path)
    assert needle in str(info.value) and SECRET not in str(info.value)


def test_a_non_mapping_or_unparsable_file_is_one_line(tmp_path):
    path = tmp_path / "t.json"
    for text in (json.dumps([SECRET]), f'{{"node": {{}}, "x": "{SECRET}",}}', f"{SECRET}"):
        path.write_text(text)
        with pytest.raises(PolicyError) as info:
            load_transformation(path)
        assert SECRET not in str(info.value) and str(info.value).count("\n") == 0


@pytest.mark.parametrize(
    ("previous", "needle"),
    [
        ({"age": True, "sex": 0}, "node.age: Input should be a valid integer; got a boolean"),
        ({"age": -2, "sex": 0}, "greater than or equal to 0"),
        ({"kind": "anonymization", "node": {"age": "1"}}, "node.age: Input should be a valid"),
        ({"kind": "anonymization", "node": None}, "has no generalization node"),
        ({"kind": "risk", "node": NODE}, "its 'kind' is not 'anonymization'"),
    ],
)
def test_a_previous_report_is_validated_strictly(tmp_path, previous, needle):
    path = tmp_path / "prev.json"
    path.write_text(json.dumps(previous))
    with pytest.raises(PolicyError, match="previous release report") as info:
        previous_node(path)
    assert needle in str(info.value)


def test_a_previous_node_is_read_from_a_report_a_transformation_or_a_mapping():
    assert parse_previous_node({"kind": "anonymization", "node": NODE, "x": 1}, "p") == NODE
    assert parse_previous_node({"kind": "transformation", "node": NODE}, "p") == NODE
    assert parse_previous_node(NODE, "p") == NODE
