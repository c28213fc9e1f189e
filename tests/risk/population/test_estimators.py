"""The population-uniqueness estimators against independent computations: the hypergeometric
mass by math.comb (Zayatz), Pitman's likelihood equations as ARX's term-by-term sums, the SNB
expectations as a direct series over population class sizes, Haas et al.'s Shlosser estimator
term by term; and the estimates against the truth on a simulated population."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privcheck.risk.population import estimators as pe


def _sample(seed: int, fraction: float):
    rng = np.random.default_rng(seed)
    pop = rng.zipf(1.6, size=60_000)
    keep = rng.random(len(pop)) < fraction
    _, sizes = np.unique(pop[keep], return_counts=True)
    _, psizes = np.unique(pop, return_counts=True)
    return sizes, len(pop), int((psizes == 1).sum())


def _hyper1(N: int, K: int, n: int) -> float:
    """P[exactly one of K marked among n draws from N]."""
    return (
        math.exp(
            math.log(K)
            + math.lgamma(N - K + 1)
            - math.lgamma(n)
            - math.lgamma(N - K - n + 2)
            + math.lgamma(n + 1)
            + math.lgamma(N - n + 1)
            - math.lgamma(N + 1)
        )
        if N - K - n + 1 >= 0
        else 0.0
    )


def test_zayatz_by_hand():
    sizes, N, _ = _sample(0, 0.1)
    n = int(sizes.sum())
    counts: dict[int, int] = {}
    for s in sizes.tolist():
        counts[s] = counts.get(s, 0) + 1
    u = len(sizes)
    denom = sum(c / u * _hyper1(N, i, n) for i, c in counts.items())
    p = counts[1] / u * _hyper1(N, 1, n) / denom
    assert pe.zayatz(sizes, N) == pytest.approx(counts[1] * p / (n / N), rel=1e-9)


def test_pitman_solves_the_likelihood_equations():
    sizes, N, _ = _sample(1, 0.05)
    theta, alpha = pe.pitman_fit(sizes)
    u, n = len(sizes), int(sizes.sum())
    o1 = sum(1 / (theta + i * alpha) for i in range(1, u))
    o2 = sum(1 / (theta + i) for i in range(1, n))
    o3 = sum(i / (theta + i * alpha) for i in range(1, u))
    o4 = sum(sum(1 / (j - alpha) for j in range(1, int(k))) for k in sizes if k > 1)
    assert abs(o1 - o2) < 1e-6 and abs(o3 - o4) < 1e-5
    expected = math.exp(math.lgamma(theta + 1) - math.lgamma(theta + alpha)) * N**alpha
    assert pe.pitman(sizes, N) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("pi", "alpha", "beta"), [(0.1, 0.7, 0.3), (0.4, 2.0, 0.6)])
def test_snb_expectations_are_the_series(pi, alpha, beta):
    """E[c_1]/K = Σ_F P(F) F π (1−π)^(F−1), E[c_2]/K = Σ_F P(F) C(F,2) π² (1−π)^(F−2), with
    F − 1 ~ NegBin(α, β) summed term by term."""
    e1 = e2 = 0.0
    for g in range(0, 4000):
        pmf = math.exp(
            math.lgamma(g + alpha)
            - math.lgamma(alpha)
            - math.lgamma(g + 1)
            + alpha * math.log(beta)
            + g * math.log(1 - beta)
        )
        f = g + 1
        e1 += pmf * f * pi * (1 - pi) ** (f - 1)
        if f >= 2:
            e2 += pmf * f * (f - 1) / 2 * pi**2 * (1 - pi) ** (f - 2)
    got = pe.snb_expected(1.0, pi, alpha, beta)
    assert got[0] == pytest.approx(e1, rel=1e-9)
    assert got[1] == pytest.approx(e2, rel=1e-9)


def test_shlosser_term_by_term():
    sizes, N, _ = _sample(2, 0.3)
    q = float(sizes.sum() / N)
    c: dict[int, int] = {}
    for s in sizes.tolist():
        c[s] = c.get(s, 0) + 1
    a = sum(i * q**2 * (1 - q**2) ** (i - 1) * n for i, n in c.items())
    # (1 + q)^i overflows for the largest classes, whose terms are then ~0 ((1 − q²)^i)
    b = sum((1 - q) ** i * ((1 + q) ** i - 1) * n for i, n in c.items() if i * math.log1p(q) < 700)
    s = sum((1 - q) ** i * n for i, n in c.items())
    t = sum(i * q * (1 - q) ** (i - 1) * n for i, n in c.items())
    assert pe.shlosser(sizes, q) == pytest.approx(len(sizes) + c[1] * a / b * (s / t) ** 2)


@pytest.mark.parametrize("fraction", [0.05, 0.3])
def test_estimates_near_the_truth(fraction):
    sizes, N, truth = _sample(3, fraction)
    for name in ["zayatz", "pitman", "snb", "dankar"]:
        value, used = pe.population_uniques(sizes, N, name)
        assert value == pytest.approx(truth, rel=0.25), (name, used)
    # Dankar's rule: Pitman at small fractions, else the smaller of Zayatz and SNB
    _, used = pe.dankar(sizes, N)
    if fraction <= 0.1:
        assert used == "pitman"
    else:
        z, s = pe.zayatz(sizes, N), pe.snb(sizes, N)
        assert used == ("snb" if s <= z else "zayatz")


def test_no_sample_uniques_no_population_uniques():
    sizes = np.array([2, 3, 5])
    for name in ["zayatz", "pitman", "snb", "dankar"]:
        assert pe.population_uniques(sizes, 100, name)[0] == 0.0


def test_model_value_is_the_share(tmp_path):
    import pandas as pd

    from privcheck.checker import check

    sizes, N, _ = _sample(4, 0.05)
    data = pd.DataFrame({"q": np.repeat(np.arange(len(sizes)), sizes).astype(str), "s": "x"})
    policy = {
        "attributes": {"q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "population": {"size": N},
        "models": [{"model": "population-uniqueness", "threshold": 0.01, "estimator": "zayatz"}],
    }
    (m,) = check(data, policy).models
    share = pe.zayatz(sizes, N) / N
    assert m.value == pytest.approx(share, rel=1e-12)
    assert m.passed == (share <= 0.01)


# ARX (arx-deidentifier/arx at aacd487f, 2025-09-12, built by ../shared/tools/arx/build.sh) on
# these samples with a population of 60,000, through benchmarks/EstimatorsBench.java
# (RiskEstimateBuilder.getPopulationBasedUniquenessRisk, default solver configuration):
ARX = {
    "zipf_sample_05.txt": {
        "zayatz": 0.013304106825919476,
        "pitman": 0.01449493772306337,
        "snb": 0.0,
        "dankar": (0.01449493772306337, "pitman"),
    },
    "zipf_sample_30.txt": {
        "zayatz": 0.015367516544399796,
        "pitman": 0.017421423320737258,
        "snb": 0.0,
        "dankar": (0.015367516544399796, "zayatz"),
    },
}


@pytest.mark.parametrize("name", list(ARX))
def test_against_arx(name):
    """Zayatz equals ARX's to rounding; Pitman to ARX's solver accuracy (1e-6); Dankar's rule
    picks the same estimator. Pinned departure: ARX's SNB finds no solution on either sample
    (its second equation multiplies by (1 − d)^(α+2) where the derivation divides; ARX then
    reports 0), while the derived equations fit. On these two samples the estimate falls within
    10 % of the range of Zayatz's and Pitman's; that is not a property of SNB (on Adult it lies
    below both in some set-ups, above both in another), only a sanity check of these fits."""
    from pathlib import Path

    sizes = np.loadtxt(Path(__file__).parents[2] / "data" / "population" / name, dtype=int)
    N = 60_000
    arx = ARX[name]
    assert pe.zayatz(sizes, N) / N == pytest.approx(arx["zayatz"], rel=1e-12)
    assert pe.pitman(sizes, N) / N == pytest.approx(arx["pitman"], rel=1e-5)
    value, used = pe.dankar(sizes, N)
    assert used == arx["dankar"][1]
    assert value / N == pytest.approx(arx["dankar"][0], rel=1e-5)
    assert arx["snb"] == 0.0
    snb = pe.snb(sizes, N) / N
    assert min(arx["zayatz"], arx["pitman"]) * 0.9 < snb < max(arx["zayatz"], arx["pitman"]) * 1.1
