"""Parameter values checked against the type the function names (issue 30).

``--param n_attacks=nan`` reached ``n_attacks < 1`` as the string 'nan' (a TypeError),
``block_on=5`` was iterated, ``random_state=-1`` reached numpy: tracebacks. The attack
functions' type hints (and an anonymizer's defaults) now say what each parameter takes, and a
value of another kind is one line naming the parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import pytest

from privcheck.errors import PolicyError
from privcheck.params import (
    SEED_MAX,
    accepted_kinds,
    check_param_types,
    check_param_value,
    parse_params,
)


def attack(
    original: Any,
    *,
    n_attacks: int = 500,
    threshold: float = 0.2,
    mode: Literal["a", "b"] = "a",
    block_on: Sequence[str] | None = None,
    tolerance: float | Sequence[float] | Mapping[str, float] = 0.0,
    model: Any = "tree",
    random_state: int | None = None,
    flag: bool = False,
) -> None:
    """A stand-in with the hints the attack functions use."""


def check(name: str, value: Any) -> Any:
    return check_param_value(
        f"attack x parameter {name}", name, value, accepted_kinds(attack, name)
    )


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("n_attacks", 5, 5),
        ("n_attacks", 5.0, 5),  # a whole float where an integer is wanted
        ("threshold", 1, 1),  # an int where a float is
        ("threshold", 0.5, 0.5),
        ("mode", "b", "b"),
        ("block_on", ["age", "sex"], ["age", "sex"]),
        ("block_on", None, None),
        ("tolerance", [1, 2.5], [1, 2.5]),
        ("tolerance", {"age": 1}, {"age": 1}),
        ("model", [1, 2], [1, 2]),  # Any: left to the function
        ("random_state", 0, 0),
        ("random_state", SEED_MAX, SEED_MAX),
        ("flag", True, True),
    ],
)
def test_values_of_the_named_kind_pass(name, value, expected):
    assert check(name, value) == expected


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("n_attacks", "nan", "a whole number"),
        ("n_attacks", 2.5, "a whole number"),
        ("n_attacks", True, "a whole number"),
        ("n_attacks", 1e308, "out of range"),
        ("threshold", "abc", "a number"),
        ("threshold", [1, 2], "a number"),
        ("block_on", 5, "a list of names"),
        ("block_on", "age", "a list of names"),
        ("block_on", [1, 2], "a list of names"),
        ("tolerance", "abc", "a number or a list of numbers or a mapping"),
        ("random_state", -1, "a seed"),
        ("random_state", SEED_MAX + 1, "a seed"),
        ("random_state", 2.5, "a seed"),
        ("random_state", "abc", "a seed"),
        ("mode", 3, "a word"),
    ],
)
def test_values_of_another_kind_are_one_line_naming_the_parameter(name, value, needle):
    with pytest.raises(PolicyError) as refused:
        check(name, value)
    message = str(refused.value)
    assert f"parameter {name}" in message and needle in message and "\n" not in message


def test_anonymizer_parameters_are_checked_against_their_defaults():
    defaults = {"tol": 1e-5, "max_iter": 300, "aggregate": "mean", "node": None, "flag": False}
    assert check_param_types("x", defaults, {"tol": 1, "max_iter": 10.0}) == {
        "tol": 1,
        "max_iter": 10,
    }
    for bad in ({"tol": "nan"}, {"max_iter": 2.5}, {"aggregate": 5}, {"flag": "maybe"}):
        with pytest.raises(PolicyError, match="x parameter"):
            check_param_types("x", defaults, bad)
    assert check_param_types("x", defaults, {"node": [1, 2]}) == {"node": [1, 2]}  # unknown type


def test_every_attack_parameter_of_the_wrong_kind_is_one_line_through_the_cli(cli, tmp_path):
    """The hostile values the issue named, through the command."""
    data = tmp_path / "d.csv"
    data.write_text("zip,age\n" + "".join(f"{1000 + i % 4},{20 + i % 5}\n" for i in range(20)))
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "attributes:\n  zip: {role: quasi_identifier}\n  age: {role: quasi_identifier}\n"
        "models:\n  - {model: k-anonymity, k: 2}\n"
    )
    base = ["risk", "--original", data, "--masked", data, "-p", policy]
    for args in (
        ["-a", "uniqueness", "--param", "threshold=nan"],
        ["-a", "dbrl", "--param", "random_state=-1"],
        ["-a", "prl", "--param", "block_on=5"],
        ["-a", "prl", "--param", "tolerance=[1, 2, 3]"],
        ["-a", "interval-disclosure", "--param", "p=abc"],
    ):
        res = cli(*base, *args)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1, (args, res.stderr)
        assert "Traceback" not in res.stderr


def test_parsed_values_reach_the_check_as_yaml_reads_them():
    assert parse_params(["n_attacks=nan", "block_on=[age]"]) == {
        "n_attacks": "nan",
        "block_on": ["age"],
    }
