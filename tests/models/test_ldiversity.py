"""Distinct, entropy and recursive (c,l)-diversity against per-class brute force.

The oracle decides entropy l-diversity exactly (l^n·Π f^f ≤ n^n in integers) and recursive
(c,l) with fractions, so classes sitting on the bound are judged without rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.encoding import encode
from privcheck.policy import parse_policy
from tests.conftest import EXAMPLES
from tests.models import bruteforce as bf
from tests.models.compare import (
    ADULT_QIS,
    adult_hierarchies,
    adult_policy,
    adult_rows,
    assert_agrees,
)

SALARY_MODELS = [
    {"model": "l-diversity", "variant": "distinct", "l": 2},
    {"model": "l-diversity", "variant": "entropy", "l": 2},
    {"model": "l-diversity", "variant": "entropy", "l": 1.5},
    {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3},
    {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 1.5},
    {"model": "l-diversity", "variant": "recursive", "l": 1, "c": 1},
]
#: ARX's l-diversity set-up: occupation sensitive, salary-class one of the 8 QIs
OCCUPATION_QIS = [q for q in ADULT_QIS if q != "occupation"] + ["salary-class"]
OCCUPATION_MODELS = [
    {"model": "l-diversity", "variant": "distinct", "l": 3},
    {"model": "l-diversity", "variant": "entropy", "l": 3},
    {"model": "l-diversity", "variant": "entropy", "l": 2.5},
    {"model": "l-diversity", "variant": "recursive", "l": 3, "c": 4},
    {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 0.5},
]


@pytest.fixture(scope="module")
def salary_encoded(adult_frame):
    return encode(adult_frame, parse_policy(adult_policy(ADULT_QIS, "salary-class", SALARY_MODELS)))


@pytest.fixture(scope="module")
def occupation_encoded(adult_frame):
    return encode(
        adult_frame,
        parse_policy(adult_policy(OCCUPATION_QIS, "occupation", OCCUPATION_MODELS)),
    )


@pytest.mark.parametrize(
    "node",
    [(0,) * 8, (1, 0, 0, 1, 1, 1, 1, 0), (2, 1, 1, 2, 2, 2, 0, 1), (4, 1, 1, 2, 3, 2, 2, 2)],
)
def test_adult_salary_class(adult_frame, salary_encoded, node):
    assert_agrees(
        adult_frame,
        adult_policy(ADULT_QIS, "salary-class", SALARY_MODELS),
        adult_rows(),
        node=node,
        hierarchies=adult_hierarchies(),
        encoded=salary_encoded,
    )


@pytest.mark.parametrize(
    "node",
    # age, sex, race, marital, education, country, workclass, salary-class
    [(0,) * 8, (1, 1, 0, 1, 1, 1, 1, 0), (2, 0, 1, 2, 3, 2, 1, 0), (3, 1, 1, 2, 3, 2, 2, 1)],
)
def test_adult_occupation(adult_frame, occupation_encoded, node):
    assert_agrees(
        adult_frame,
        adult_policy(OCCUPATION_QIS, "occupation", OCCUPATION_MODELS),
        adult_rows(),
        node=node,
        hierarchies=adult_hierarchies(),
        encoded=occupation_encoded,
    )


def random_policy_frame(rng: np.random.Generator):
    n, n_qi = int(rng.integers(1, 500)), int(rng.integers(0, 4))
    qis = [f"q{j}" for j in range(n_qi)]
    frame = pd.DataFrame({q: rng.integers(0, rng.integers(1, 6), size=n) for q in qis})
    m = int(rng.integers(1, 7))
    # skewed sensitive values, so all verdicts occur
    frame["s"] = rng.choice([f"v{i}" for i in range(m)], size=n, p=rng.dirichlet(np.ones(m)))
    models = []
    for _ in range(4):
        l = int(rng.integers(1, 5))  # noqa: E741
        models += [
            {"model": "l-diversity", "variant": "distinct", "l": l},
            {"model": "l-diversity", "variant": "entropy", "l": l},
            {"model": "l-diversity", "variant": "entropy", "l": float(rng.uniform(1, 4))},
            {
                "model": "l-diversity",
                "variant": "recursive",
                "l": l,
                "c": float(rng.choice([0.5, 1, 1.5, 2, 3, rng.uniform(0.1, 5)])),
            },
        ]
    policy = {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in qis},
            "s": {"role": "sensitive"},
        },
        "models": models,
    }
    return frame, policy


@pytest.mark.parametrize("seed", range(20))
def test_random_tables(seed):
    frame, policy = random_policy_frame(np.random.default_rng(seed))
    assert_agrees(frame, policy, bf.rows_from_frame(frame))


def _one_class(counts: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame({"q": "a", "s": [v for v, c in counts.items() for _ in range(c)]})


def _value(frame: pd.DataFrame, model: dict):
    policy = {
        "attributes": {"q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "models": [model],
    }
    (result,) = privcheck.check(frame, policy).models
    return result.value, result.passed


@pytest.mark.parametrize("l", [2, 3, 4, 7])
def test_entropy_uniform_class_sits_exactly_on_the_bound(l):  # noqa: E741
    """A class uniform over l values has exp(entropy) = l: it is entropy-l-diverse, not l+ε."""
    counts = {f"v{i}": 5 for i in range(l)}
    value, passed = _value(
        _one_class(counts), {"model": "l-diversity", "variant": "entropy", "l": l}
    )
    assert math.isclose(value, l, rel_tol=1e-12) and passed
    value, passed = _value(
        _one_class(counts), {"model": "l-diversity", "variant": "entropy", "l": l + 1e-6}
    )
    assert not passed


@pytest.mark.parametrize(
    ("counts", "l", "holds"),
    [
        ((15082, 15080), 2, False),  # exp(H) = 1.999999996: just short of 2
        ((501, 499), 2, False),
        ((15081, 15081), 2, True),  # uniform: exactly on the bound
        ((4, 1, 1, 1, 1), 4, True),  # not uniform, yet H = ln 4 exactly: ½·ln 2 + 4·⅛·ln 8
        ((4, 1, 1, 1, 2), 4, True),
        ((5, 1, 1, 1, 1), 4, False),
    ],
)
def test_entropy_decided_exactly_near_the_bound(counts, l, holds):  # noqa: E741
    """Integer counts close to the bound, judged against the exact integer test l^n·Π f^f ≤ n^n."""
    values = [f"v{i}" for i, c in enumerate(counts) for _ in range(c)]
    assert bf.entropy_ok(values, l) is holds
    frame = pd.DataFrame({"q": "a", "s": pd.Series(values, dtype="category")})
    _, passed = _value(frame, {"model": "l-diversity", "variant": "entropy", "l": l})
    assert passed is holds


@pytest.mark.parametrize("n", [1, 6, 7, 22, 49, 114])
def test_single_valued_class_has_entropy_l_exactly_one(n):
    """exp(0) is 1: a report must not say 0.9999999999999996 (ln n − n·ln n / n rounds)."""
    value, passed = _value(
        _one_class({"x": n}), {"model": "l-diversity", "variant": "entropy", "l": 1}
    )
    assert value == 1.0 and passed


@pytest.mark.parametrize(("c", "passed"), [(2.5, False), (2.51, True), (3, True)])
def test_recursive_5_1_1(c, passed):
    """Counts {5,1,1}, l = 2: r1 = 5 < c·(1 + 1) holds iff c > 2.5."""
    value, ok = _value(
        _one_class({"a": 5, "b": 1, "c": 1}),
        {"model": "l-diversity", "variant": "recursive", "l": 2, "c": c},
    )
    assert value == 2.5 and ok is passed


@pytest.mark.parametrize(("c", "passed"), [(0.14, False), (0.1400001, True), (0.15, True)])
def test_recursive_c_exactly_on_the_bound(c, passed):
    """r1 = 7, r2 + … = 50: (0.14, 2) needs 7 < 0.14·50 = 7, which is false — although the
    floating-point product 0.14 * 50 is 7.000000000000001."""
    counts = dict.fromkeys("abcdefgh", 7) | {"i": 1}
    value, ok = _value(
        _one_class(counts), {"model": "l-diversity", "variant": "recursive", "l": 2, "c": c}
    )
    assert value == pytest.approx(0.14) and ok is passed


def test_recursive_with_fewer_than_l_values_never_holds():
    value, ok = _value(
        _one_class({"a": 1, "b": 1}),
        {"model": "l-diversity", "variant": "recursive", "l": 3, "c": 100},
    )
    assert value is None and not ok  # r_3 + … is empty: the ratio is unbounded


def test_machanavajjhala_three_diverse_table():
    """Three classes of three records, three distinct diseases each: distinct l = 3 exactly,
    entropy l = 3 (each class uniform), recursive (c,3) needs c > 1 (r1 = r3 = 1)."""
    frame = pd.read_csv(EXAMPLES / "three_diverse.csv", dtype=str)
    policy = {
        "attributes": {
            "zip": {"role": "quasi_identifier"},
            "age": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "models": [
            {"model": "l-diversity", "variant": "distinct", "l": 3},
            {"model": "l-diversity", "variant": "distinct", "l": 4},
            {"model": "l-diversity", "variant": "entropy", "l": 3},
            {"model": "l-diversity", "variant": "recursive", "l": 3, "c": 1},
            {"model": "l-diversity", "variant": "recursive", "l": 3, "c": 1.01},
            {"model": "k-anonymity", "k": 3},
        ],
    }
    report = privcheck.check(frame, policy)
    assert report.n_classes == 3
    got = [(m.value, m.passed) for m in report.models]
    assert got[0] == (3, True) and got[1] == (3, False)
    assert math.isclose(got[2][0], 3, rel_tol=1e-12) and got[2][1]
    assert got[3] == (1, False) and got[4] == (1, True)
    assert got[5] == (3, True)
