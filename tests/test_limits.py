"""Range checks of policy and --param numbers (`privcheck.limits`, `privcheck.params`)."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from privcheck.anonymizers.mingen import MinGen
from privcheck.errors import PolicyError
from privcheck.limits import (
    INT64_MAX,
    INT64_MIN,
    HugeInt,
    Spelling,
    as_bool,
    check_integers,
    load_json,
    load_yaml,
)
from privcheck.params import parse_params
from privcheck.policy import load_policy, parse_policy
from tests.conftest import EXAMPLES, run_cli

HUGE = "9" * 5000


def test_long_integers_parse_to_a_marker_not_a_traceback():
    assert isinstance(load_yaml(f"k: {HUGE}")["k"], HugeInt)
    assert isinstance(load_json(f'{{"k": {HUGE}}}')["k"], HugeInt)
    assert load_yaml("k: 3\nl: -12\nh: 0x1f")["h"] == 31  # ordinary integers are unchanged
    assert load_json('{"k": -3}')["k"] == -3


# --------------------------------------------------------------------------- YAML 1.2 core

#: the YAML 1.2.2 specification's example 10.9, "Core Tag Resolution", and what it resolves to
SPEC_EXAMPLE_10_9 = """\
A null: null
Also a null: # Empty
Not a null: ""
Booleans: [ true, True, false, FALSE ]
Integers: [ 0, 0o7, 0x3A, -19 ]
Floats: [ 0., -0.0, .5, +12e03, -2E+05 ]
Also floats: [ .inf, -.Inf, +.INF, .NAN ]
"""


def test_yaml_is_read_with_the_core_schema_of_yaml_1_2():
    got = load_yaml(SPEC_EXAMPLE_10_9)
    assert got["A null"] is None and got["Also a null"] is None and got["Not a null"] == ""
    assert got["Booleans"] == [True, True, False, False]
    assert got["Integers"] == [0, 7, 58, -19]
    assert got["Floats"] == [0.0, -0.0, 0.5, 12000.0, -200000.0]
    inf = got["Also floats"]
    assert inf[:3] == [float("inf"), float("-inf"), float("inf")] and inf[3] != inf[3]


@pytest.mark.parametrize(
    "text",
    ["2024-01-31", "yes", "No", "on", "OFF", "1:20", "0b101", "1_000", "-0x1F"],
)
def test_what_yaml_1_1_read_as_a_date_number_or_boolean_is_text(text):
    """As YAML 1.2 (and ruamel.yaml, its implementation) reads them: text, not a date, a
    boolean, a base-60 or binary number. PyYAML's YAML 1.1 would change the meaning."""
    value = load_yaml(text)
    assert type(value) in (str, Spelling) and value == text
    assert yaml.safe_load(text) != text  # (the YAML 1.1 reading this replaces)


def test_a_yaml_1_1_value_scalar_is_text():
    """PyYAML resolves a lone '=' to YAML 1.1's "value" tag, which it cannot construct."""
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("a: =")
    assert load_yaml("a: =") == {"a": "="}


@pytest.mark.parametrize(
    ("text", "kind", "fix"),
    [("010", "number", "write 10"), ("-007", "number", "write -7"), ("00", "number", "write 0"),
     ("1_000", "number", "'_'"), ("1:20", "number", "base-60"), ("0b11", "number", "decimal"),
     ("yes", "boolean", "write true"), ("Off", "boolean", "write false")],
)  # fmt: skip
def test_yaml_1_1_spellings_carry_how_to_write_what_was_meant(text, kind, fix):
    value = load_yaml(text)
    assert isinstance(value, Spelling) and value.kind == kind and fix in value.hint


def test_a_leading_zero_is_refused_where_a_number_is_expected(tmp_path):
    """`k: 010` was enforced as k = 8 (YAML 1.1 octal); YAML 1.2 would read 10. Neither is
    what a reader of the policy can be sure of: refused, naming the field and the fix."""
    path = tmp_path / "p.yaml"
    for value, fix in (("010", "write 10"), ("0010", "write 10"), ("+07", "write 7")):
        path.write_text(
            f"attributes: {{a: {{role: quasi_identifier}}}}\n"
            f"models:\n  - {{model: k-anonymity, k: {value}}}\n"
        )
        expected = rf"models\[0\] \(k-anonymity\)\.k: {re.escape(value)} has a leading zero"
        with pytest.raises(PolicyError, match=f"{expected}.*{fix}"):
            load_policy(path)
    path.write_text("attributes: {a: {role: quasi_identifier}}\nsuppression_limit: 1_0\n")
    with pytest.raises(PolicyError, match="suppression_limit: 1_0 uses '_'"):
        load_policy(path)


def test_a_leading_zero_is_text_where_text_is_expected(tmp_path):
    """A ZIP code in an inline hierarchy stays as written (YAML 1.1 made 02134 the octal
    integer 1116, which the strict policy refused as a label)."""
    path = tmp_path / "p.yaml"
    path.write_text(
        "attributes:\n  zip: {role: quasi_identifier, hierarchy: {type: table, rows: "
        "[[02134, 021*], [02139, 021*]]}}\n  no: {role: insensitive}\n"
        "models: [{model: k-anonymity, k: 2}]\n"
    )
    policy = load_policy(path)
    assert policy.attributes["zip"].hierarchy.rows == [["02134", "021*"], ["02139", "021*"]]
    assert list(policy.attributes) == ["zip", "no"]  # (YAML 1.1: the key False)


def test_yaml_1_1_booleans_are_refused_where_a_boolean_is_expected(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(
        "attributes: {a: {role: quasi_identifier, hierarchy: {type: intervals, widths: [5], "
        "top: yes}}}\nmodels: [{model: k-anonymity, k: 2}]\n"
    )
    with pytest.raises(PolicyError, match=r"top: yes is text in YAML 1\.2, not a boolean"):
        load_policy(path)
    path.write_text(path.read_text().replace("top: yes", "top: true"))
    assert load_policy(path).attributes["a"].hierarchy.top is True
    path.write_text(path.read_text().replace("k: 2", "k: yes"))  # a boolean where a number is
    with pytest.raises(PolicyError, match="k: Input should be a valid integer; got a string"):
        load_policy(path)


@pytest.mark.parametrize("text", ["!!binary aGk=", "!!timestamp 2024-01-31", "!!set {a}"])
def test_tags_outside_the_core_schema_are_refused(text, tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(f"attributes: {text}\n")
    with pytest.raises(PolicyError, match=r"is not valid YAML/JSON \(line 1, column 13\)"):
        load_policy(path)


def test_params_refuse_yaml_1_1_numbers():
    for raw, fix in (("010", "write 10"), ("1_000", "'_'"), ("1:20", "base-60")):
        with pytest.raises(PolicyError, match=rf"^--param k: {raw} .*{fix}"):
            parse_params([f"k={raw}"])
    assert parse_params(["k=0o17", "h=0x1F", "e=1E-3"]) == {"k": 15, "h": 31, "e": 0.001}


@pytest.mark.parametrize("value", [INT64_MAX + 1, INT64_MIN - 1, 10**30, HugeInt(HUGE)])
def test_integers_outside_64_bits_are_refused_naming_the_field(value):
    with pytest.raises(PolicyError, match=r"^models\[1\]\.k is out of range"):
        check_integers({"models": [{"k": 2}, {"k": value}]}, "")


def test_integers_inside_64_bits_and_other_values_pass():
    check_integers({"a": [INT64_MAX, INT64_MIN, True, 1e308, "x", None]}, "")


@pytest.mark.parametrize(
    ("word", "value"),
    [("true", True), ("YES", True), ("1", True), (1, True), (True, True),
     ("false", False), ("No", False), ("0", False), (0, False), (False, False)],
)  # fmt: skip
def test_boolean_spellings(word, value):
    assert as_bool(word, "x") is value


@pytest.mark.parametrize("word", ["maybe", 2, -1, "", None, 0.5, [True]])
def test_other_boolean_spellings_are_refused(word):
    with pytest.raises(PolicyError, match="must be true or false"):
        as_bool(word, "mingen parameter tradeoff")


def test_policy_with_a_5000_digit_k_is_one_error_naming_the_field(tmp_path):
    for suffix, text in (
        (".yaml", f"attributes: {{a: {{role: quasi_identifier}}}}\nmodels:\n"
                  f"  - {{model: k-anonymity, k: {HUGE}}}\n"),
        (".json", f'{{"attributes": {{"a": {{"role": "quasi_identifier"}}}}, '
                  f'"models": [{{"model": "k-anonymity", "k": {HUGE}}}]}}'),
    ):  # fmt: skip
        path = tmp_path / f"p{suffix}"
        path.write_text(text)
        with pytest.raises(PolicyError, match=r"models\[0\]\.k is out of range"):
            load_policy(path)
    with pytest.raises(PolicyError, match=r"models\[0\]\.k is out of range"):
        parse_policy({"models": [{"model": "k-anonymity", "k": 10**5000 // 10**800}]})


def test_params_range_checked_and_read_like_yaml():
    # (YAML 1.2: `yes` is text — a boolean parameter reads it with as_bool — and `true` a boolean)
    assert parse_params(["k=3", "eps=1e-6", "on=yes", "t=true", "g=[[a,b]]"]) == {
        "k": 3, "eps": 1e-6, "on": "yes", "t": True, "g": [["a", "b"]],
    }  # fmt: skip
    with pytest.raises(PolicyError, match=r"^--param k is out of range"):
        parse_params([f"k={HUGE}"])
    with pytest.raises(PolicyError, match=r"^--param g\[0\] is out of range"):
        parse_params([f"g=[{2**63}]"])


def test_boolean_algorithm_parameters_take_only_boolean_spellings():
    assert MinGen(tradeoff="yes").params["tradeoff"] is True
    assert MinGen(tagging=0).params["tagging"] is False
    with pytest.raises(PolicyError, match="mingen parameter tradeoff must be true or false"):
        MinGen(tradeoff="maybe")
    with pytest.raises(PolicyError, match="mingen parameter tradeoff is out of range"):
        MinGen(tradeoff=2**70)


def one_line_exit_2(res) -> str:
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, res.stderr
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    return lines[0]


def test_cli_refusals_are_one_line_and_write_nothing(tmp_path):
    data = EXAMPLES / "race_zip.csv"
    policy = tmp_path / "p.yaml"
    out = tmp_path / "out.csv"
    policy.write_text(
        yaml.safe_dump(
            {
                "attributes": {"Race": {"role": "quasi_identifier"}},
                "models": [{"model": "k-anonymity", "k": 2}],
                "suppression_limit": 1.0,
            }
        )
    )
    mingen = ("-a", "mingen", "-o", out)
    res = run_cli("anonymize", data, "-p", policy, *mingen, "--param", "tradeoff=maybe")
    assert "tradeoff must be true or false" in one_line_exit_2(res)
    res = run_cli("anonymize", data, "-p", policy, *mingen, "--param", f"k={HUGE}")
    assert "--param k is out of range" in one_line_exit_2(res)
    big = tmp_path / "big.yaml"
    big.write_text(policy.read_text().replace("k: 2", f"k: {HUGE}"))
    for args in (("check", data, "-p", big), ("anonymize", data, "-p", big, "-o", out)):
        assert "models[0].k is out of range" in one_line_exit_2(run_cli(*args))
    jbig = tmp_path / "big.json"
    as_json = json.dumps(yaml.safe_load(policy.read_text()))
    jbig.write_text(as_json.replace('"k": 2', f'"k": {HUGE}'))
    assert "models[0].k is out of range" in one_line_exit_2(run_cli("check", data, "-p", jbig))
    assert not out.exists()


def test_graph_and_attack_booleans_take_only_boolean_spellings(tmp_path):
    from privcheck.graph.policy_anonymize import anonymize_graph_file
    from privcheck.plugins import risk_registry

    with pytest.raises(PolicyError, match="deletions must be true or false"):
        anonymize_graph_file(tmp_path / "g.csv", {}, tmp_path / "o.csv", deletions="maybe")
    measure = risk_registry()["learned-owa"]
    params = {"seed_with_weighted_mean": "no"}
    measure.check_params(params)
    assert params == {"seed_with_weighted_mean": False}
    with pytest.raises(PolicyError, match="seed_with_weighted_mean must be true or false"):
        measure.check_params({"seed_with_weighted_mean": "maybe"})
    with pytest.raises(PolicyError, match="is out of range"):
        measure.check_params({"seed_with_weighted_mean": 2**64})
