"""β-likeness (basic and enhanced) against exact per-class fractions on Adult and random tables,
worked cases on the threshold, and its properties proved on every node of small lattices."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.encoding import encode
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


def _models(betas: list[float]) -> list[dict]:
    return [
        {"model": "beta-likeness", "beta": b, "variant": v}
        for v in ("basic", "enhanced")
        for b in betas
    ]


def _policy(models: list[dict], qis=("q",)) -> dict:
    return {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in qis},
            "s": {"role": "sensitive"},
        },
        "models": models,
    }


ADULT_CASES = [
    ("salary-class", (0,) * 8),
    ("salary-class", (1, 0, 0, 1, 1, 1, 1, 0)),
    ("salary-class", (3, 1, 0, 2, 2, 1, 2, 1)),
    ("occupation", (1, 1, 0, 1, 1, 1, 1, 0)),
    ("occupation", (2, 0, 1, 2, 3, 2, 1, 0)),
]


@pytest.mark.parametrize(("sensitive", "node"), ADULT_CASES)
def test_adult(adult_frame, sensitive, node):
    qis = ADULT_QIS if sensitive == "salary-class" else [*ADULT_QIS[:-1], "salary-class"]
    assert_agrees(
        adult_frame,
        adult_policy(qis, sensitive, _models([0.5, 1.0, 3.2])),
        adult_rows(),
        node=node,
        hierarchies=adult_hierarchies(),
    )


def _random_case(rng: np.random.Generator) -> tuple[pd.DataFrame, dict]:
    m = int(rng.integers(1, 8))
    values = [f"v{i}" for i in range(m)]
    n = int(rng.integers(1, 300))
    n_qi = int(rng.integers(0, 3))
    frame = pd.DataFrame(
        {f"q{j}": rng.integers(0, rng.integers(1, 6), size=n) for j in range(n_qi)}
    )
    frame["s"] = rng.choice(values, size=n, p=rng.dirichlet(np.ones(m) * 0.6))
    betas = [float(b) for b in rng.uniform(0.05, 3, size=2)] + [1.0]
    return frame, _policy(_models(betas), [f"q{j}" for j in range(n_qi)])


@pytest.mark.parametrize("seed", range(30))
def test_random_tables_match_exact_fractions(seed):
    frame, policy = _random_case(np.random.default_rng(seed))
    assert_agrees(frame, policy, bf.rows_from_frame(frame))


def test_on_the_threshold():
    """(q − p)/p = 0.1 exactly (11 of 20 against 20 of 40) holds for β = 0.1 without tolerance;
    = 1 exactly (4 of 10 against 6 of 30) holds for β = 1, not for 0.999."""
    frame = pd.DataFrame(
        {"q": ["x"] * 20 + ["y"] * 20, "s": ["a"] * 11 + ["b"] * 18 + ["a"] * 9 + ["b"] * 2}
    )
    results = privcheck.check(frame, _policy([{"model": "beta-likeness", "beta": 0.1}])).models
    assert (results[0].value, results[0].passed) == (0.1, True)
    frame = pd.DataFrame(
        {"q": ["x"] * 10 + ["y"] * 20, "s": ["a"] * 4 + ["b"] * 6 + ["a"] * 2 + ["b"] * 18}
    )
    models = [{"model": "beta-likeness", "beta": b} for b in (1.0, 0.999)]
    got = [(m.value, m.passed) for m in privcheck.check(frame, _policy(models)).models]
    assert got == [(1.0, True), (1.0, False)]


def test_enhanced_caps_frequent_values_at_minus_ln_p():
    """p_a = ½ caps a's gain at ln 2 ≈ 0.693 whatever β: a class with q_a = 0.9 (gain 0.8) fails
    enhanced 1-likeness but passes basic; q_a = 0.8 (gain 0.6) passes both. The value is the
    largest gain in both variants."""
    frame = pd.DataFrame(
        {
            "q": ["x"] * 10 + ["y"] * 10,
            "s": ["a"] * 9 + ["b"] + ["a"] + ["b"] * 9,
        }
    )
    models = [{"model": "beta-likeness", "beta": 1.0, "variant": v} for v in ("basic", "enhanced")]
    basic, enhanced = privcheck.check(frame, _policy(models)).models
    assert basic.passed and not enhanced.passed
    assert basic.value == enhanced.value == pytest.approx(0.8)
    assert enhanced.violating_classes == 2  # both classes over-represent a value by 0.8
    frame["s"] = ["a"] * 8 + ["b"] * 2 + ["a"] * 2 + ["b"] * 8
    basic, enhanced = privcheck.check(frame, _policy(models)).models
    assert basic.passed and enhanced.passed and enhanced.value == pytest.approx(0.6)
    assert 0.6 < math.log(2) < 0.8


def test_properties_declared():
    cls = model_registry()["beta-likeness"]
    config = load_policy(_policy([{"model": "beta-likeness", "beta": 1}])).models[0]
    assert cls.monotone and cls.table_dependent
    assert not cls.monotone_with_suppression(config)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("variant", ["basic", "enhanced"])
def test_generalization_property_on_every_edge(seed, variant):
    """No satisfying node of a random lattice (32 nodes, counted from the records) has a failing
    direct generalization, for β over the range where some nodes pass and some fail."""
    frame, base = random_table(seed)
    for beta in (0.3, 0.8, 1.5, 3.0):
        policy = load_policy(
            {**base, "models": [{"model": "beta-likeness", "beta": beta, "variant": variant}]}
        )
        assert generalization_breaks(encode(frame, policy), policy.models) == []


def _merge_table() -> tuple[pd.DataFrame, dict]:
    """p_a = 0.2; x=1: 4 a of 10 (gain 1 = β: passes), x=2: 2 a of 2 (gain 4: violates),
    x=3: 18 b. Merging x=1 and x=2 gives 6 a of 12: gain 1.5, 12 records violate instead of 2."""
    frame = pd.DataFrame(
        {
            "x": ["1"] * 10 + ["2"] * 2 + ["3"] * 18,
            "s": ["a"] * 4 + ["b"] * 6 + ["a"] * 2 + ["b"] * 18,
        }
    )
    rows = [["1", "12", "*"], ["2", "12", "*"], ["3", "3", "*"]]
    policy = {
        "attributes": {
            "x": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": rows}},
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "beta-likeness", "beta": 1.0}],
    }
    return frame, policy


def test_not_monotone_with_suppression():
    frame, policy = _merge_table()
    policy = load_policy(policy)
    assert suppression_breaks(encode(frame, policy), policy.models) == [((0,), (1,))]
