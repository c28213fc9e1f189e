"""Singling out: predicate counts against a row-by-row evaluation, the control set's size
correction against an enumeration of subsets, and the attack's own behaviour."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import PolicyError
from privcheck.risk.synthetic.singling_out import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    UNUSED,
    _control_successes,
    match_counts,
    one_match,
    singling_out,
)

TESTS = {
    EQ: lambda a, b: a == b,
    NE: lambda a, b: a != b,
    GT: lambda a, b: a > b,
    LT: lambda a, b: a < b,
    GE: lambda a, b: a >= b,
    LE: lambda a, b: a <= b,
}


def test_match_counts_against_row_by_row():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, size=(50, 3)).astype(float)
    ops = rng.integers(-1, 6, size=(200, 3))
    values = rng.integers(0, 4, size=(200, 3)).astype(float)
    got = match_counts(x, ops, values)
    for q in range(200):
        want = sum(
            all(
                ops[q, j] == UNUSED or TESTS[int(ops[q, j])](x[r, j], values[q, j])
                for j in range(3)
            )
            for r in range(50)
        )
        assert got[q] == want


def test_one_match_is_the_hypergeometric_probability_by_enumeration():
    """P(exactly one of k marked rows among x drawn from m), counted over every subset."""
    m = 9
    for k in range(m + 1):
        for x in range(1, m + 1):
            marked = set(range(k))
            subsets = list(itertools.combinations(range(m), x))
            want = sum(len(marked.intersection(s)) == 1 for s in subsets) / len(subsets)
            assert one_match(m, np.array([k]), x)[0] == pytest.approx(want, abs=1e-12)


def test_control_count_at_the_members_size():
    counts = np.array([0, 1, 1, 2, 3, 7, 1])
    assert _control_successes(counts, 50, 50) == (3.0, "none (equal sizes)")
    larger, how = _control_successes(counts, 80, 50)  # exact expectation over 50-row subsets
    assert how.startswith("exact")
    assert larger == pytest.approx(sum(one_match(80, counts, 50)))
    # a smaller control set: a larger table singles out less often, so fewer successes
    smaller, how = _control_successes(np.array([1] * 30 + [2] * 30 + [0] * 40), 1200, 2000)
    assert how.startswith("extrapolated") and 0 < smaller < 30


def test_a_copied_unique_record_is_singled_out():
    """Every member is unique and the synthetic table is the members: each predicate that
    singles out a synthetic record singles out its member; a disjoint control set of unique
    records of another range is singled out by none."""
    members = pd.DataFrame({"a": np.arange(40), "b": np.arange(40) % 7})
    control = pd.DataFrame({"a": np.arange(100, 140), "b": np.arange(40) % 7})
    res = singling_out(members, members, control, n_attacks=30, n_cols=2, random_state=1)
    assert res["n_attacks"] > 5 and res["n_success"] == res["n_attacks"]
    assert res["n_control_success"] < res["n_attacks"] / 2 and res["risk_ci"][0] > 0
    uni = singling_out(members, members, control, mode="univariate", random_state=1)
    assert uni["n_attacks"] >= 2  # ≤ min and ≥ max of each column, rare values
    with pytest.raises(PolicyError, match="n_cols"):
        singling_out(members, members, control, n_cols=5)
    assert math.isfinite(res["baseline_rate"])
