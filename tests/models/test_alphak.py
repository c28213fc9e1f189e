"""(α,k)-anonymity against exact per-class shares on Adult and random tables, with and without a
protected value; its properties on every node of small lattices; the absent-value policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.encoding import encode
from privcheck.errors import PolicyError
from privcheck.pipeline.anonymize import anonymize
from privcheck.plugins import model_registry
from privcheck.policy import load_policy
from tests.anonymizers.anon_helpers import random_table
from tests.models import bruteforce as bf
from tests.models.compare import (
    ADULT_QIS,
    adult_hierarchies,
    adult_policy,
    adult_rows,
    assert_agrees,
)
from tests.models.properties import generalization_breaks, suppression_breaks


def _policy(models: list[dict], qis=("q",)) -> dict:
    return {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in qis},
            "s": {"role": "sensitive"},
        },
        "models": models,
    }


@pytest.mark.parametrize("node", [(0,) * 8, (1, 0, 0, 1, 1, 1, 1, 0), (3, 1, 0, 2, 2, 1, 2, 1)])
def test_adult(adult_frame, node):
    models = [
        {"model": "alpha-k-anonymity", "alpha": a, "k": k, **extra}
        for a, k in ((0.5, 2), (0.8, 5), (1.0, 3))
        for extra in ({}, {"value": ">50K"}, {"value": "<=50K"})
    ]
    assert_agrees(
        adult_frame,
        adult_policy(ADULT_QIS, "salary-class", models),
        adult_rows(),
        node=node,
        hierarchies=adult_hierarchies(),
    )


@pytest.mark.parametrize("seed", range(30))
def test_random_tables_match_exact_shares(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 6))
    n = int(rng.integers(1, 300))
    n_qi = int(rng.integers(0, 3))
    frame = pd.DataFrame(
        {f"q{j}": rng.integers(0, rng.integers(1, 6), size=n) for j in range(n_qi)}
    )
    frame["s"] = rng.choice([f"v{i}" for i in range(m)], size=n, p=rng.dirichlet(np.ones(m)))
    frame.loc[0, "s"] = "v0"  # the protected value occurs
    models = [
        {"model": "alpha-k-anonymity", "alpha": float(a), "k": int(k), **extra}
        for a, k in zip(rng.uniform(0.2, 1, 2), rng.integers(1, 6, 2), strict=True)
        for extra in ({}, {"value": "v0"})
    ]
    assert_agrees(frame, _policy(models, [f"q{j}" for j in range(n_qi)]), bf.rows_from_frame(frame))


def test_numeric_value_matches_the_column_as_written():
    """`value: 1` names the sensitive value 1 whether the column holds ints, floats or strings."""
    frame = pd.DataFrame({"q": ["a"] * 4 + ["b"] * 4, "s": [1, 1, 1, 0, 1, 0, 0, 0]})
    for column in (frame["s"], frame["s"].astype(float), frame["s"].astype(str)):
        report = privcheck.check(
            frame.assign(s=column),
            _policy([{"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2, "value": 1}]),
        )
        (m,) = report.models
        assert (m.value, m.passed, m.violating_classes) == (0.75, False, 1)


def test_value_absent_from_the_attribute_is_a_policy_error(cli, tmp_path):
    frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "y", "x", "y"]})
    policy = _policy([{"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2, "value": "hiv"}])
    with pytest.raises(PolicyError, match=r"value 'hiv' does not occur in 's'"):
        privcheck.check(frame, policy)
    with pytest.raises(PolicyError, match=r"value 'hiv' does not occur in 's'"):
        anonymize(frame, {**policy, "attributes": {**policy["attributes"]}}, "datafly")
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    pfile = tmp_path / "p.yaml"
    import yaml

    pfile.write_text(yaml.safe_dump(policy))
    res = cli("check", data, "--policy", pfile)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1 and "does not occur in 's'" in res.stderr


def test_release_without_the_value_rechecks():
    """Suppressing every record of the protected value is a legitimate outcome: the release (no
    'hiv' left) re-checks with share 0 instead of failing on a missing value."""
    frame = pd.DataFrame(
        {
            "q": ["a"] * 6 + ["b"] * 2,
            "s": ["flu", "flu", "cold", "cold", "flu", "cold", "hiv", "hiv"],
        }
    )
    policy = {
        **_policy([{"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2, "value": "hiv"}]),
        "suppression_limit": 0.25,
    }
    policy["attributes"]["q"]["hierarchy"] = {"type": "table", "rows": [["a", "*"], ["b", "*"]]}
    release, report = anonymize(frame, policy, "mingen")
    assert report.n_suppressed == 2 and "hiv" not in set(release["s"])
    assert report.check.passed and report.check.models[0].value == 0.0


def test_properties_declared():
    cls = model_registry()["alpha-k-anonymity"]
    half, one = load_policy(
        _policy(
            [
                {"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2},
                {"model": "alpha-k-anonymity", "alpha": 1, "k": 2},
            ]
        )
    ).models
    assert cls.monotone and not cls.table_dependent
    assert not cls.monotone_with_suppression(half) and cls.monotone_with_suppression(one)


@pytest.mark.parametrize("seed", range(12))
def test_generalization_property_on_every_edge(seed):
    frame, base = random_table(seed)
    for alpha, k, extra in ((0.4, 2, {}), (0.5, 3, {}), (0.25, 2, {"value": "hiv"}), (0.6, 1, {})):
        model = {"model": "alpha-k-anonymity", "alpha": alpha, "k": k, **extra}
        policy = load_policy({**base, "models": [model]})
        assert generalization_breaks(encode(frame, policy), policy.models) == []


@pytest.mark.parametrize("seed", range(6))
def test_alpha_one_is_monotone_with_suppression(seed):
    frame, base = random_table(seed)
    policy = load_policy({**base, "models": [{"model": "alpha-k-anonymity", "alpha": 1, "k": 3}]})
    assert suppression_breaks(encode(frame, policy), policy.models) == []


def test_not_monotone_with_suppression():
    """5 x of 10 (share ½: holds for α = ½) merged with 2 x of 2 (violates) gives 7 of 12: the
    violating records grow from 2 to 12 as the node is generalized."""
    rows = [["1", "12", "*"], ["2", "12", "*"], ["3", "3", "*"]]
    frame = pd.DataFrame(
        {
            "x": ["1"] * 10 + ["2"] * 2 + ["3"] * 6,
            "s": ["x"] * 5 + ["y"] * 5 + ["x"] * 2 + ["y"] * 6,
        }
    )
    policy = load_policy(
        {
            "attributes": {
                "x": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": rows}},
                "s": {"role": "sensitive"},
            },
            "models": [{"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2}],
        }
    )
    assert suppression_breaks(encode(frame, policy), policy.models) == [((0,), (1,))]


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ({"alpha": 0, "k": 2}, "alpha"),
        ({"alpha": 1.5, "k": 2}, "alpha"),
        ({"alpha": 0.5, "k": 0}, "k"),
        ({"alpha": 0.5}, "k"),
    ],
)
def test_bad_parameters(model, message):
    with pytest.raises(PolicyError, match=message):
        load_policy(_policy([{"model": "alpha-k-anonymity", **model}]))
