"""t-closeness (EMD with equal, ordered and hierarchical ground distance) against three oracles:
exact per-class formulas in fractions, the transport linear programme solved by scipy, and the
worked examples of Li, Li & Venkatasubramanian (ICDE 2007)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.models.base import evaluate_models
from privcheck.policy import parse_policy
from tests.conftest import EXAMPLES
from tests.models import bruteforce as bf
from tests.models.compare import (
    ADULT_QIS,
    HIERARCHIES,
    adult_hierarchies,
    adult_policy,
    adult_rows,
    assert_agrees,
)

DISTANCES = ("equal", "ordered", "hierarchical")


def _models(ts: list[float]) -> list[dict]:
    return [{"model": "t-closeness", "t": t, "distance": d} for d in DISTANCES for t in ts]


OCCUPATION_QIS = [q for q in ADULT_QIS if q != "occupation"] + ["salary-class"]


@pytest.fixture(scope="module")
def salary_encoded(adult_frame):
    policy = parse_policy(adult_policy(ADULT_QIS, "salary-class", _models([0.2])))
    return encode(adult_frame, policy)


@pytest.fixture(scope="module")
def occupation_encoded(adult_frame):
    policy = parse_policy(adult_policy(OCCUPATION_QIS, "occupation", _models([0.2])))
    return encode(adult_frame, policy)


@pytest.mark.parametrize(
    "node", [(0,) * 8, (1, 0, 0, 1, 1, 1, 1, 0), (3, 1, 0, 2, 2, 1, 2, 1), (4, 1, 1, 2, 3, 2, 2, 2)]
)
def test_adult_salary_class(adult_frame, salary_encoded, node):
    hierarchies = adult_hierarchies()
    assert_agrees(
        adult_frame,
        adult_policy(ADULT_QIS, "salary-class", _models([0.05, 0.2, 0.5])),
        adult_rows(),
        node=node,
        hierarchies=hierarchies,
        sensitive_tree=bf.Tree.from_rows(hierarchies["salary-class"]),
        encoded=salary_encoded,
    )


@pytest.mark.parametrize(
    "node", [(0,) * 8, (1, 1, 0, 1, 1, 1, 1, 0), (2, 0, 1, 2, 3, 2, 1, 0), (4, 1, 1, 2, 3, 2, 2, 1)]
)
def test_adult_occupation(adult_frame, occupation_encoded, node):
    """Occupation (14 values, hierarchy of height 2) as in ARX's t-closeness benchmark."""
    hierarchies = adult_hierarchies()
    assert_agrees(
        adult_frame,
        adult_policy(OCCUPATION_QIS, "occupation", _models([0.1, 0.2, 0.4])),
        adult_rows(),
        node=node,
        hierarchies=hierarchies,
        sensitive_tree=bf.Tree.from_rows(hierarchies["occupation"]),
        encoded=occupation_encoded,
    )


def test_adult_occupation_hierarchical_equals_linear_programme(occupation_encoded):
    """The closed form agrees with the transport LP on real classes (a sample of 60)."""
    table = count(occupation_encoded, (1, 1, 0, 1, 1, 1, 1, 0))
    policy = occupation_encoded.policy
    (ev,) = evaluate_models(
        table, [c for c in policy.models if getattr(c, "distance", None) == "hierarchical"]
    )
    rows = bf.read_hierarchy(HIERARCHIES / "occupation.csv")
    tree = bf.Tree.from_rows(rows)
    domain = [r[0] for r in rows]
    col = occupation_encoded.sensitive["occupation"]
    position = [domain.index(str(g)) for g in col.levels.ground]
    dense = np.zeros((table.n_classes, len(domain)))
    dense[:, position] = table.sensitive["occupation"].dense()
    q = dense.sum(axis=0) / dense.sum()
    distance = bf.hierarchical_distance(tree, domain)
    rng = np.random.default_rng(7)
    for c in rng.choice(table.n_classes, size=60, replace=False):
        p = dense[c] / dense[c].sum()
        assert math.isclose(ev.class_value[c], bf.emd_lp(p, q, distance), abs_tol=1e-7)


# --------------------------------------------------------------------------- random tables


def _random_case(rng: np.random.Generator):
    m = int(rng.integers(1, 9))
    tree_rows = bf.random_tree(
        rng, m, int(rng.integers(1, 4)), "s", single_top=bool(rng.integers(2))
    )
    values = [r[0] for r in tree_rows]
    n = int(rng.integers(1, 300))
    n_qi = int(rng.integers(0, 3))
    frame = pd.DataFrame(
        {f"q{j}": rng.integers(0, rng.integers(1, 5), size=n) for j in range(n_qi)}
    )
    frame["s"] = rng.choice(values, size=n, p=rng.dirichlet(np.ones(m) * 0.7))
    order = list(rng.permutation(values))
    policy = {
        "attributes": {
            **{f"q{j}": {"role": "quasi_identifier"} for j in range(n_qi)},
            "s": {
                "role": "sensitive",
                "hierarchy": {"type": "table", "rows": tree_rows},
                "order": order,
            },
        },
        "models": _models([float(t) for t in rng.uniform(0, 0.6, size=2)] + [0.0, 1.0]),
    }
    return frame, policy, order, bf.Tree.from_rows(tree_rows)


@pytest.mark.parametrize("seed", range(25))
def test_random_tables_match_exact_formulas(seed):
    frame, policy, order, tree = _random_case(np.random.default_rng(seed))
    assert_agrees(frame, policy, bf.rows_from_frame(frame), order=order, sensitive_tree=tree)


@pytest.mark.parametrize("seed", range(30))
def test_random_distributions_match_linear_programme(seed):
    """Per-class EMD = the optimal transport cost, for all three ground distances."""
    rng = np.random.default_rng(1000 + seed)
    m = int(rng.integers(2, 9))
    tree_rows = bf.random_tree(
        rng, m, int(rng.integers(1, 4)), "v", single_top=bool(rng.integers(2))
    )
    tree = bf.Tree.from_rows(tree_rows)
    domain = [r[0] for r in tree_rows]
    n_classes = int(rng.integers(1, 6))
    counts = rng.integers(0, 6, size=(n_classes, m)) * (rng.random((n_classes, m)) < 0.7)
    counts[counts.sum(axis=1) == 0, 0] = 1
    frame = pd.DataFrame(
        {
            "q": [f"c{c}" for c in range(n_classes) for v in range(m) for _ in range(counts[c, v])],
            "s": [
                domain[v] for c in range(n_classes) for v in range(m) for _ in range(counts[c, v])
            ],
        }
    )
    policy = parse_policy(
        {
            "attributes": {
                "q": {"role": "quasi_identifier"},
                "s": {
                    "role": "sensitive",
                    "hierarchy": {"type": "table", "rows": tree_rows},
                    "order": domain,
                },
            },
            "models": _models([0.3]),
        }
    )
    table = count(encode(frame, policy))
    evs = evaluate_models(table, policy.models)
    labels = [lab["q"] for lab in table.class_labels(np.arange(table.n_classes))]
    q = counts.sum(axis=0) / counts.sum()
    observed = np.flatnonzero(q > 0)
    equal = 1.0 - np.eye(m)
    for ev in evs:
        for c, label in enumerate(labels):
            row = counts[int(label[1:])]
            p = row / row.sum()
            if ev.config.distance == "hierarchical":
                want = bf.emd_lp(p, q, bf.hierarchical_distance(tree, domain))
            elif ev.config.distance == "ordered":  # over the observed values, in order
                want = bf.emd_lp(p[observed], q[observed], bf.ordered_distance(len(observed)))
            else:
                want = bf.emd_lp(p, q, equal)
            assert math.isclose(ev.class_value[c], want, abs_tol=1e-7), (ev.config.distance, c)


def test_oracle_closed_form_equals_linear_programme():
    """The test's own closed form is itself checked against the LP (it judges privcheck)."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        m = int(rng.integers(2, 8))
        tree_rows = bf.random_tree(rng, m, int(rng.integers(1, 4)), "v", bool(rng.integers(2)))
        tree = bf.Tree.from_rows(tree_rows)
        domain = [r[0] for r in tree_rows]
        table = Counter(
            {v: int(c) for v, c in zip(domain, rng.integers(1, 9, size=m), strict=True)}
        )
        cls = list(rng.choice(domain, size=int(rng.integers(1, 12))))
        q = np.array([table[v] for v in domain], float) / sum(table.values())
        p = np.array([cls.count(v) for v in domain], float) / len(cls)
        got = float(bf.emd_hierarchical(cls, table, tree))
        assert math.isclose(
            got, bf.emd_lp(p, q, bf.hierarchical_distance(tree, domain)), abs_tol=1e-9
        )


# --------------------------------------------------------------------------- literature


def _salary_policy(t: float, distance: str = "ordered") -> dict:
    return {
        "attributes": {
            "zip": {"role": "quasi_identifier"},
            "age": {"role": "quasi_identifier"},
            "salary": {"role": "sensitive"},
        },
        "models": [{"model": "t-closeness", "t": t, "distance": distance}],
    }


def _class_emds(frame: pd.DataFrame, policy: dict) -> dict[str, float]:
    pol = parse_policy(policy)
    table = count(encode(frame, pol))
    (ev,) = evaluate_models(table, pol.models)
    labels = table.class_labels(np.arange(table.n_classes))
    return {
        f"{lab['zip']} {lab['age']}": float(v)
        for lab, v in zip(labels, ev.class_value, strict=True)
    }


def test_li_three_diverse_table_similarity_attack():
    """Li et al. 2007, Table 3: ordered EMDs 0.375 / 0.167 / 0.236 on salary: 0.375-close."""
    frame = pd.read_csv(EXAMPLES / "three_diverse.csv", dtype=str)
    emds = _class_emds(frame, _salary_policy(0.3))
    assert emds == pytest.approx(
        {"476** 2*": 3 / 8, "4790* >=40": 1 / 6, "476** 3*": 17 / 72}, abs=1e-12
    )
    (at,) = privcheck.check(frame, _salary_policy(0.375)).models
    (below,) = privcheck.check(frame, _salary_policy(0.374)).models
    assert at.passed and at.value == pytest.approx(0.375, abs=1e-12)
    assert not below.passed and below.violating_classes == 1 and below.violating_records == 3


def test_li_t_close_table():
    """Li et al. 2007, Table 4: ordered EMDs 0.167, 0.167, 0.083: the table is 0.167-close."""
    frame = pd.read_csv(EXAMPLES / "t_close.csv", dtype=str)
    emds = _class_emds(frame, _salary_policy(0.2))
    want = {"4767* <=40": 1 / 6, "4790* >=40": 1 / 6, "4760* <=40": 1 / 12}
    assert emds == pytest.approx(want, abs=1e-12)
    (result,) = privcheck.check(frame, _salary_policy(1 / 6)).models
    assert result.passed and result.value == pytest.approx(1 / 6, abs=1e-12)


@pytest.mark.parametrize(
    ("salaries", "emd"),
    [(["3K", "4K", "5K"], Fraction(3, 8)), (["6K", "8K", "11K"], Fraction(1, 6))],
)
def test_li_salary_worked_example(salaries, emd):
    """{3k,4k,5k} vs the 9 salaries 3k…11k: ordered EMD 0.375; {6k,8k,11k}: 0.167.

    The table is the nine salaries; the class is the group of three sharing one QI value, the
    other six records are each alone. Numeric salaries (3000 …) and labelled ones ('3K' …) must
    give the same answer.
    """
    all_salaries = [f"{k}K" for k in range(3, 12)]
    frame = pd.DataFrame(
        {
            "zip": ["in" if s in salaries else f"out{i}" for i, s in enumerate(all_salaries)],
            "age": "x",
            "salary": all_salaries,
        }
    )
    assert _class_emds(frame, _salary_policy(0.5))["in x"] == pytest.approx(float(emd), abs=1e-12)
    numeric = frame.assign(salary=[int(s[:-1]) * 1000 for s in all_salaries])
    assert _class_emds(numeric, _salary_policy(0.5))["in x"] == pytest.approx(float(emd), abs=1e-12)
    # an explicit order in the policy is honoured: reversed, nothing changes (EMD is symmetric);
    # shuffled, the EMD is the one over that order
    policy = _salary_policy(0.5)
    policy["attributes"]["salary"]["order"] = all_salaries[::-1]
    assert _class_emds(frame, policy)["in x"] == pytest.approx(float(emd), abs=1e-12)
    shuffled = ["3K", "11K", "6K", "4K", "10K", "8K", "5K", "9K", "7K"]
    policy["attributes"]["salary"]["order"] = shuffled
    want = bf.emd_ordered(salaries, Counter(all_salaries), shuffled)
    assert want != emd
    assert _class_emds(frame, policy)["in x"] == pytest.approx(float(want), abs=1e-12)
    # equal distance sees only that the class holds 3 of 9 values: ½(3·(1/3 − 1/9) + 6/9) = 2/3
    assert _class_emds(frame, _salary_policy(0.5, "equal"))["in x"] == pytest.approx(2 / 3)


def test_ordered_distance_uses_numeric_not_lexical_order():
    """'11K' comes after '9K': lexical order would put it first and change the EMD."""
    frame = pd.DataFrame(
        {"zip": ["a", "a", "b", "b"], "age": "x", "salary": ["9K", "11K", "3K", "4K"]}
    )
    # order 3K 4K 9K 11K: class a = {9K, 11K}; cumulative p−q: −¼, −½, −¼, 0 → 1/(3)·1 = 1/3
    assert _class_emds(frame, _salary_policy(0.5)) == pytest.approx({"a x": 1 / 3, "b x": 1 / 3})
