"""Fellegi–Sunter linkage: EM on simulated patterns, loop oracles for pairs and thresholds."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.risk.linkage.probabilistic import (
    agreement_pattern_counts,
    estimate_m_u,
    fellegi_sunter_thresholds,
    pattern_bits,
    pattern_weights,
    prl,
)


def test_em_recovers_known_m_u():
    rng = np.random.default_rng(0)
    m_true = np.array([0.95, 0.9, 0.8, 0.85])
    u_true = np.array([0.1, 0.2, 0.05, 0.3])
    p_true, n = 0.02, 400_000
    match = rng.random(n) < p_true
    probs = np.where(match[:, None], m_true, u_true)
    gamma = rng.random((n, 4)) < probs
    codes = gamma.astype(np.int64) @ (1 << np.arange(4))
    counts = np.bincount(codes, minlength=16)
    seen = np.flatnonzero(counts)
    em = estimate_m_u(pattern_bits(seen, 4), counts[seen])
    assert em.converged
    assert em.p == pytest.approx(p_true, abs=0.002)
    np.testing.assert_allclose(em.m, m_true, atol=0.02)
    np.testing.assert_allclose(em.u, u_true, atol=0.005)
    # label switching is undone whatever the start
    em2 = estimate_m_u(pattern_bits(seen, 4), counts[seen], p0=0.9, m0=0.1, u0=0.9)
    np.testing.assert_allclose(em2.m, em.m, atol=1e-3)


def _files():
    rng = np.random.default_rng(3)
    n = 60
    orig = pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n),
            "region": rng.choice(list("abcdef"), n),
            "age": rng.integers(20, 70, n).astype(float),
            "income": rng.normal(50, 10, n).round(1),
        }
    )
    masked = orig.copy()
    flip = rng.random(n) < 0.15
    masked.loc[flip, "region"] = rng.choice(list("abcdef"), flip.sum())
    masked["age"] = masked["age"] + rng.integers(-3, 4, n)
    masked["income"] = (masked["income"] + rng.normal(0, 3, n)).round(1)
    return orig, masked


TOL = {"age": 2.0, "income": 2.5}


def _loop_pattern(orig, masked, i, k, cols=("sex", "region", "age", "income")):
    """Agreement pattern of one pair, from plain Python values (orig/masked: lists of dicts)."""
    code = 0
    for j, c in enumerate(cols):
        a, b = orig[i][c], masked[k][c]
        agree = a == b if c in ("sex", "region") else abs(a - b) <= TOL[c]
        code += int(agree) << j
    return code


def test_pattern_counts_match_loops():
    orig, masked = _files()
    counts = agreement_pattern_counts(orig, masked, tolerance=TOL, pair_budget=500)
    ro, rm = orig.to_dict("records"), masked.to_dict("records")
    expected = np.zeros(16, dtype=np.int64)
    for i in range(len(ro)):
        for k in range(len(rm)):
            expected[_loop_pattern(ro, rm, i, k)] += 1
    assert counts.tolist() == expected.tolist()
    # blocking on sex: only pairs of equal sex are compared
    blocked = agreement_pattern_counts(orig, masked, tolerance=TOL, block_on=["sex"])
    expected_b = np.zeros(16, dtype=np.int64)
    for i in range(len(ro)):
        for k in range(len(rm)):
            if ro[i]["sex"] == rm[k]["sex"]:
                expected_b[_loop_pattern(ro, rm, i, k)] += 1
    assert blocked.tolist() == expected_b.tolist()


@pytest.mark.parametrize("block_on", [None, ["sex"]])
def test_prl_anonymity_sets_match_loops(block_on):
    orig, masked = _files()
    res = prl(orig, masked, tolerance=TOL, block_on=block_on, pair_budget=700)
    m = np.array(list(res.figures["m"].values()))
    u = np.array(list(res.figures["u"].values()))
    assert np.all(m > u)
    weights = pattern_weights(m, u)
    cols = tuple(res.attributes)
    assert cols == (("region", "age", "income") if block_on else ("sex", "region", "age", "income"))
    ro, rm = orig.to_dict("records"), masked.to_dict("records")
    credit, certain = 0.0, 0
    upper = res.figures["thresholds"]["upper"]
    for i in range(len(ro)):
        ws = {}
        for k in range(len(rm)):
            if block_on and ro[i]["sex"] != rm[k]["sex"]:
                continue
            ws[k] = weights[_loop_pattern(ro, rm, i, k, cols)]
        top = max(ws.values())
        best = {k for k, w in ws.items() if w >= top - 1e-9}
        assert res.anonymity_set_size[i] == len(best)
        assert res.true_in_set[i] == (i in best)
        assert int(res.linked_index[i]) in best
        credit += 1 / len(best) if i in best else 0
        certain += best == {i} and top >= upper
    assert res.anonymity_set_rate == pytest.approx(credit / len(orig))
    assert res.certain_rate == pytest.approx(certain / len(orig))
    assert res.reidentification_rate > 0.3
    assert res.figures["n_pairs"] == sum(res.figures["pairs_per_region"].values())


def test_thresholds_meet_targets_and_are_maximal():
    m = np.array([0.9, 0.85, 0.7])
    u = np.array([0.1, 0.3, 0.2])
    fmr, fnmr = 0.01, 0.05
    thr = fellegi_sunter_thresholds(m, u, fmr, fnmr)
    pats = []
    for bits in itertools.product([0, 1], repeat=3):
        w = sum(
            math.log2(m[j] / u[j]) if bits[j] else math.log2((1 - m[j]) / (1 - u[j]))
            for j in range(3)
        )
        pm = math.prod(m[j] if bits[j] else 1 - m[j] for j in range(3))
        pu = math.prod(u[j] if bits[j] else 1 - u[j] for j in range(3))
        pats.append((w, pm, pu))
    fm = sum(pu for w, _, pu in pats if w >= thr["upper"] - 1e-9)
    fnm = sum(pm for w, pm, _ in pats if w <= thr["lower"] + 1e-9)
    assert fm <= fmr + 1e-12 and fnm <= fnmr + 1e-12
    assert fm == pytest.approx(thr["false_match_rate"])
    assert fnm == pytest.approx(thr["false_non_match_rate"])
    # one more weight level in either region would break its target
    below = max(w for w, _, _ in pats if w < thr["upper"] - 1e-9)
    assert sum(pu for w, _, pu in pats if w >= below - 1e-9) > fmr
    above = min(w for w, _, _ in pats if w > thr["lower"] + 1e-9)
    if above < thr["upper"] - 1e-9:
        assert sum(pm for w, pm, _ in pats if w <= above + 1e-9) > fnmr
    assert thr["lower"] < thr["upper"]


def test_prl_errors():
    orig, masked = _files()
    with pytest.raises(PolicyError, match="categorical"):
        prl(orig, masked, tolerance={"sex": 1.0})
    with pytest.raises(PolicyError, match="unknown attribute"):
        prl(orig, masked, tolerance={"nope": 1.0})
    with pytest.raises(DataError, match="no column"):
        prl(orig, masked, attributes=["sex", "zip"])
    with pytest.raises(PolicyError, match="probability"):
        fellegi_sunter_thresholds(np.array([0.9]), np.array([0.1]), 1.5, 0.1)


def test_probabilistic_linkage_compares_values_near_the_float_limits_exactly():
    """prl's agreement |a − b| ≤ tolerance overflows to inf for 1e308 against −1e308: a
    disagreement, which is exactly right (the true difference exceeds every float). The
    pattern counts equal an exact count in rational arithmetic, and infinite values (inf − inf
    is nan: equal values would disagree) and a NaN tolerance are refused in one line."""
    big = [1.7976931348623157e308, -1.7976931348623157e308, 1e308, -1e308, 0.0, 5e-324]
    intruder = pd.DataFrame({"x": big, "y": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    masked = pd.DataFrame({"x": big[::-1], "y": [1.0, 1.0, 3.0, 3.0, 5.0, 7.0]})
    for tolerance in (0.0, 1e308, 1.7976931348623157e308):
        counts = agreement_pattern_counts(intruder, masked, tolerance=tolerance)
        exact = np.zeros(4, dtype=np.int64)
        for a in intruder.itertuples(index=False):
            for b in masked.itertuples(index=False):
                code = sum(
                    (abs(Fraction(u) - Fraction(v)) <= Fraction(tolerance)) << j
                    for j, (u, v) in enumerate(zip(a, b, strict=True))
                )
                exact[code] += 1
        assert counts.tolist() == exact.tolist(), tolerance
    with pytest.raises(DataError, match="column 'x' of the intruder file has infinite values"):
        agreement_pattern_counts(intruder.assign(x=[np.inf, *big[1:]]), masked)
    with pytest.raises(PolicyError, match="non-negative numbers"):
        agreement_pattern_counts(intruder, masked, tolerance=float("nan"))
