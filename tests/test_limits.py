"""Range checks of policy and --param numbers (`privcheck.limits`, `privcheck.params`)."""

from __future__ import annotations

import json

import pytest
import yaml

from privcheck.anonymizers.mingen import MinGen
from privcheck.errors import PolicyError
from privcheck.limits import (
    INT64_MAX,
    INT64_MIN,
    HugeInt,
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
