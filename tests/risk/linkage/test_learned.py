"""Learned worst-case distances: oracles for the aggregations and for the optimum."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.risk.linkage.learned import _Family, learned_distance


def _z(x):
    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)


def _choquet_loop(d, mu):
    """Choquet integral by its definition: Σ_k (d_(k) − d_(k−1))·μ({attributes ≥ d_(k)})."""
    order = sorted(range(len(d)), key=lambda k: d[k])
    total, prev = 0.0, 0.0
    for pos, k in enumerate(order):
        upper = frozenset(order[pos:])
        total += (d[k] - prev) * mu[upper]
        prev = d[k]
    return total


def test_aggregations_match_their_definitions():
    rng = np.random.default_rng(0)
    m = 3
    za, zb = rng.normal(size=(5, m)), rng.normal(size=(6, m))
    # OWA: weights on the differences sorted in decreasing order
    w = np.array([0.5, 0.3, 0.2])
    got = _Family("owa", m).scores(w, za, zb)
    for i in range(5):
        for j in range(6):
            d = sorted(((za[i] - zb[j]) ** 2).tolist(), reverse=True)
            assert got[i, j] == pytest.approx(sum(wk * dk for wk, dk in zip(w, d, strict=True)))
    # bilinear form δᵀWδ
    fam = _Family("bilinear", m)
    mat = np.array([[0.5, 0.1, -0.05], [0.1, 0.3, 0.02], [-0.05, 0.02, 0.2]])
    params = mat[np.triu_indices(m)]
    got = fam.scores(params, za, zb)
    for i in range(5):
        for j in range(6):
            delta = za[i] - zb[j]
            assert got[i, j] == pytest.approx(float(delta @ mat @ delta))
    # features reproduce the scores (the MILP sees exactly what evaluation uses)
    const, feats = fam.features(za[:1] - zb[:1])
    assert const[0] + feats[0] @ params == pytest.approx(got[0, 0])
    # Choquet integral with a random monotone measure
    fam = _Family("choquet", m)
    mu = {frozenset(): 0.0, frozenset(range(m)): 1.0}
    masks = range(1, 2**m - 1)
    values = {}
    for s in sorted(masks, key=lambda s: bin(s).count("1")):
        members = frozenset(k for k in range(m) if (s >> k) & 1)
        below = [values[t] for t in values if t < members]
        values[members] = max([*below, 0.0]) + rng.random() * 0.3
    top = max(values.values())
    for key in values:
        mu[key] = values[key] / (top + 0.01)
    params = np.array([mu[frozenset(k for k in range(m) if (s >> k) & 1)] for s in masks])
    got = fam.scores(params, za, zb)
    for i in range(5):
        for j in range(6):
            d = ((za[i] - zb[j]) ** 2).tolist()
            assert got[i, j] == pytest.approx(_choquet_loop(d, mu))
            const, feats = fam.features((za[i] - zb[j])[None, :])
            assert const[0] + feats[0] @ params == pytest.approx(got[i, j])


def test_noise_free_attribute_gets_the_weight_and_links_everything():
    rng = np.random.default_rng(1)
    n = 60
    x = np.column_stack([rng.permutation(n).astype(float), rng.normal(size=(n, 2))])
    xm = x + np.column_stack([np.zeros(n), rng.normal(scale=2.0, size=(n, 2))])
    res = learned_distance(x, xm, "weighted_mean", time_limit=30)
    weights = res.figures["parameters"]["weights"]
    assert weights["x0"] > 0.9
    assert res.reidentification_rate == 1.0
    assert res.certain_rate == 1.0
    assert res.figures["optimal"]
    assert res.figures["arithmetic_mean_linked"] < n  # plain Euclidean misses some
    assert res.attribute_contribution["x0"] == pytest.approx(weights["x0"])


def test_weighted_mean_optimum_matches_a_breakpoint_scan():
    """Two attributes: C_p = p·d0 + (1 − p)·d1, a line in p, so the linked count only changes
    where a constraint gap crosses ε — evaluating it at every breakpoint finds the optimum."""
    rng = np.random.default_rng(4)
    n, eps = 14, 1e-5
    x = rng.normal(size=(n, 2))
    xm = x + rng.normal(scale=[0.6, 0.9], size=x.shape)
    za, zb = _z(x), _z(xm)

    def linked(p):
        count = 0
        for i in range(n):
            cii = p * (za[i, 0] - zb[i, 0]) ** 2 + (1 - p) * (za[i, 1] - zb[i, 1]) ** 2
            ok = True
            for j in range(n):
                if j != i:
                    cij = p * (za[i, 0] - zb[j, 0]) ** 2 + (1 - p) * (za[i, 1] - zb[j, 1]) ** 2
                    ok &= cij - cii >= eps
            count += ok
        return count

    points = {0.0, 1.0}
    for i in range(n):
        for j in range(n):
            if i != j:
                g0 = (za[i, 0] - zb[j, 0]) ** 2 - (za[i, 0] - zb[i, 0]) ** 2
                g1 = (za[i, 1] - zb[j, 1]) ** 2 - (za[i, 1] - zb[i, 1]) ** 2
                if g0 != g1:
                    p = (eps - g1) / (g0 - g1)
                    if 0 <= p <= 1:
                        points.add(p)
    ps = sorted(points)
    ps += [(a + b) / 2 for a, b in itertools.pairwise(ps)]
    best = max(linked(p) for p in ps)
    res = learned_distance(x, xm, "weighted_mean", epsilon=eps)
    assert res.figures["optimal"]
    assert res.figures["linked_records"] == best
    assert res.figures["milp_linked"] == best


def test_family_ordering_on_small_data():
    """Correlated attributes, correlated noise: the containments arithmetic ⊂ weighted mean ⊂
    bilinear ⊃ Mahalanobis show in the optimal counts, solved without the weighted-mean seed."""
    from privcheck.risk.linkage.distance import dbrl

    rng = np.random.default_rng(2)
    n = 30
    cov = np.array([[1.0, 0.7, 0.2], [0.7, 1.0, 0.4], [0.2, 0.4, 1.0]])
    x = rng.multivariate_normal(np.zeros(3), cov, size=n)
    xm = x + rng.multivariate_normal(np.zeros(3), 0.1 * cov[::-1, ::-1], size=n)
    linked = {}
    for fam in ("weighted_mean", "owa", "bilinear", "choquet"):
        res = learned_distance(x, xm, fam, time_limit=60, seed_with_weighted_mean=False)
        assert res.figures["optimal"], fam
        assert res.figures["milp_linked"] == res.figures["linked_records"], fam
        linked[fam] = res.figures["linked_records"]
        arith = res.figures["arithmetic_mean_linked"]
        assert arith <= linked[fam], fam  # every family contains the arithmetic mean
        if fam == "bilinear":
            assert np.trace(np.array(res.figures["parameters"]["matrix"])) == pytest.approx(1.0)
    assert linked["weighted_mean"] <= linked["bilinear"]
    assert linked["weighted_mean"] <= linked["choquet"]  # additive measures = weighted means
    assert linked["owa"] <= linked["choquet"]  # symmetric measures = OWA operators
    # the bilinear family contains the (normalised) Mahalanobis distance
    mahalanobis = dbrl(x, xm, metric="mahalanobis", covariance="difference")
    assert round(mahalanobis.certain_rate * n) <= linked["bilinear"]
    assert linked["weighted_mean"] < linked["bilinear"]  # here the off-diagonal terms matter


def test_time_limit_reports_the_incumbent():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(80, 4))
    xm = x + rng.normal(scale=1.2, size=x.shape)
    res = learned_distance(x, xm, "bilinear", time_limit=1.0)
    assert res.figures["time_limit_reached"]
    assert not res.figures["optimal"]
    assert res.figures["solve_seconds"] < 3
    # the incumbent is at least the weighted mean it was seeded with, and the arithmetic mean
    assert res.figures["linked_records"] >= res.figures["weighted_mean_seed_linked"]
    assert res.figures["linked_records"] >= res.figures["arithmetic_mean_linked"]


def test_errors():
    x = np.ones((5, 7))
    with pytest.raises(PolicyError, match="Choquet"):
        learned_distance(x, x, "choquet")
    with pytest.raises(PolicyError, match="family"):
        learned_distance(x, x, "median")
    with pytest.raises(DataError, match="supervised"):
        learned_distance(np.ones((5, 2)), np.ones((6, 2)))
    with pytest.raises(PolicyError, match="epsilon"):
        learned_distance(np.eye(4), np.eye(4), epsilon=0)
