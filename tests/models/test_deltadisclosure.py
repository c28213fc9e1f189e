"""δ-disclosure privacy against exact per-class ratios on Adult and random tables (both logarithm
bases), its strict bound, and the proof that it lacks the generalization property."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.encoding import encode
from privcheck.pipeline.anonymize import anonymize
from privcheck.plugins import model_registry
from privcheck.policy import load_policy
from tests.anonymizers.anon_helpers import random_table
from tests.anonymizers.anon_oracle import all_verdicts, minimal_brute
from tests.models import bruteforce as bf
from tests.models.compare import (
    ADULT_QIS,
    adult_hierarchies,
    adult_policy,
    adult_rows,
    assert_agrees,
)
from tests.models.properties import generalization_breaks


def _models(deltas: list[float]) -> list[dict]:
    return [
        {"model": "delta-disclosure", "delta": d, "log_base": base}
        for base in ("e", 2)
        for d in deltas
    ]


def _policy(models: list[dict], qis=("q",)) -> dict:
    return {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in qis},
            "s": {"role": "sensitive"},
        },
        "models": models,
    }


@pytest.mark.parametrize(
    ("sensitive", "node"),
    [
        ("salary-class", (0,) * 8),
        ("salary-class", (2, 1, 0, 2, 2, 1, 2, 1)),
        ("occupation", (1, 1, 0, 1, 1, 1, 1, 0)),
        ("occupation", (4, 1, 1, 2, 3, 2, 2, 1)),
    ],
)
def test_adult(adult_frame, sensitive, node):
    qis = ADULT_QIS if sensitive == "salary-class" else [*ADULT_QIS[:-1], "salary-class"]
    assert_agrees(
        adult_frame,
        adult_policy(qis, sensitive, _models([0.5, 1.2, 4.0])),
        adult_rows(),
        node=node,
        hierarchies=adult_hierarchies(),
    )


@pytest.mark.parametrize("seed", range(30))
def test_random_tables_match_exact_ratios(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 8))
    n = int(rng.integers(1, 300))
    n_qi = int(rng.integers(0, 3))
    frame = pd.DataFrame(
        {f"q{j}": rng.integers(0, rng.integers(1, 6), size=n) for j in range(n_qi)}
    )
    frame["s"] = rng.choice([f"v{i}" for i in range(m)], size=n, p=rng.dirichlet(np.ones(m)))
    deltas = [float(d) for d in rng.uniform(0.05, 3, size=2)]
    policy = _policy(_models(deltas), [f"q{j}" for j in range(n_qi)])
    assert_agrees(frame, policy, bf.rows_from_frame(frame))


def test_strict_bound_and_arx_base():
    """q/p = 2 exactly: |log2| = 1 fails δ = 1 (strict, as ARX's ``value >= d`` rejects) and passes
    δ = 1.0001; in base e the same table is ln 2-disclosed."""
    frame = pd.DataFrame({"q": ["x"] * 2 + ["y"] * 2, "s": ["a", "a", "b", "b"]})
    models = [
        {"model": "delta-disclosure", "delta": 1.0, "log_base": 2},
        {"model": "delta-disclosure", "delta": 1.0001, "log_base": "2"},
        {"model": "delta-disclosure", "delta": 0.7},
        {"model": "delta-disclosure", "delta": math.log(2)},
    ]
    got = [(m.value, m.passed) for m in privcheck.check(frame, _policy(models)).models]
    assert got == [(1.0, False), (1.0, True), (math.log(2), True), (math.log(2), False)]


def test_absent_values_are_not_bounded():
    """A class without b is not judged on b (its ratio 0 would be |ln 0| = ∞); only the values
    present count: {a, a} against p_a = ½ is ln 2, not ∞."""
    frame = pd.DataFrame({"q": ["x", "x", "y", "y"], "s": ["a", "a", "b", "b"]})
    (m,) = privcheck.check(frame, _policy([{"model": "delta-disclosure", "delta": 1}])).models
    assert m.passed and m.value == pytest.approx(math.log(2))


DILUTION_ROWS = [["1", "12", "*"], ["2", "12", "*"], ["3", "3", "*"]]


def _dilution() -> tuple[pd.DataFrame, dict]:
    """p_a = p_b = ½; x=1 {a, b}, x=2 {a, a, a, a}, x=3 {b, b, b, b}: every class within
    |ln 2| < 0.7. Merging x=1 and x=2 dilutes b to 1/6: |ln(1/3)| = 1.10. The top (q = p) passes."""
    frame = pd.DataFrame(
        {"x": ["1"] * 2 + ["2"] * 4 + ["3"] * 4, "s": ["a", "b"] + ["a"] * 4 + ["b"] * 4}
    )
    policy = {
        "attributes": {
            "x": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "rows": DILUTION_ROWS},
            },
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "delta-disclosure", "delta": 0.7}],
    }
    return frame, policy


def test_not_monotone_under_generalization():
    frame, policy = _dilution()
    policy = load_policy(policy)
    encoded = encode(frame, policy)
    assert generalization_breaks(encoded, policy.models) == [((0,), (1,))]
    _lat, sat, _ = all_verdicts(encoded, policy.models, 0)
    assert sat.tolist() == [True, False, True]
    assert not model_registry()["delta-disclosure"].monotone


def test_random_lattices_break_the_property_too():
    """Not a contrived case: random tables (32-node lattices) have satisfying nodes with failing
    generalizations for δ in the usual range."""
    breaks = 0
    for seed in range(8):
        frame, base = random_table(seed)
        for delta in (0.5, 1.0):
            policy = load_policy(
                {**base, "models": [{"model": "delta-disclosure", "delta": delta}]}
            )
            breaks += len(generalization_breaks(encode(frame, policy), policy.models))
    assert breaks > 0


@pytest.mark.parametrize("algorithm", ["incognito", "mingen", "datafly"])
def test_searches_do_not_prune_with_it(algorithm):
    """On the dilution table every search finds what brute force finds: incognito and mingen the
    satisfying nodes {bottom, top} (the middle node fails although the bottom satisfies)."""
    frame, policy = _dilution()
    policy = load_policy(policy)
    lat, sat, _ = all_verdicts(encode(frame, policy), policy.models, 0)
    _release, report = anonymize(frame, policy, algorithm)
    assert report.check.passed
    if algorithm == "datafly":  # greedy: the bottom already satisfies
        assert report.node == {"x": 0}
        return
    assert report.satisfying_nodes == int(sat.sum()) == 2
    assert {tuple(m.values()) for m in report.minimal_nodes} == minimal_brute(lat, sat)
