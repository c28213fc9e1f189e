"""Estimators of the number of population uniques from a sample's class sizes (the four ARX ships).

Input: the class-size histogram of the sample (c_i classes of size i, u classes, n records) and the
population size N; π = n/N. Each returns the estimated number of population uniques (NaN when the
estimator does not converge or is out of range); divide by N for the share.

- Zayatz (1991): P(unique in population | unique in sample) from the hypergeometric probability of
  drawing exactly one of a class of size i, with the sample's class-size shares as the prior;
  uniques = c_1 · P / π.
- Pitman (Hoshino 2001): the Pitman sampling formula's maximum-likelihood (θ, α), from the two
  likelihood equations (solved in closed form with digamma functions, as ARX's closed form);
  uniques = Γ(θ + 1)/Γ(θ + α) · N^α.
- SNB (Chen & Keller-McNulty 1998): population class sizes F with F − 1 ~ NegBin(α, β), sampled
  with probability π; K, the population's non-empty classes, by Haas et al.'s Shlosser estimator
  (Sh3); (α, β) fitted so the expected sample classes of size 1 and 2 equal c_1 and c_2;
  uniques = K · β^α. The expectations, derived from the probability generating function
  P(z) = (β / (1 − (1 − β) z))^α of F − 1 at z = 1 − π, d = (1 − β)(1 − π):
  E[c_1] = K π (β/(1 − d))^α (1 + α d/(1 − d)),
  E[c_2] = K (π²/2) α (1 − β) β^α (2 − (1 − α) d) / (1 − d)^(α + 2).
- Dankar et al. (2012)'s decision rule: Pitman when π ≤ 0.1, else the smaller of Zayatz and SNB
  (Zayatz when the chosen estimator fails).

Departures from ARX's source (``org.deidentifier.arx.risk``), each pinned by a test against an
independent computation: ARX's SNB multiplies E[c_2] by (1 − d)^(α + 2) where the derivation
divides by it, and its Shlosser sum adds (1 − π)^i c_i (1 + π)^i − 1 per size where Haas et al.
have (1 − π)^i c_i ((1 + π)^i − 1); here both follow the derivations. On the test samples ARX's
SNB finds no solution (it reports 0) where these equations fit; Zayatz equals ARX's to rounding,
Pitman to ARX's solver accuracy (``tests/risk/population/test_estimators.py``).

Dankar's rule here falls back to Zayatz when Pitman fails (ARX's ``getFractionOfUniqueTuplesDankar``
does too; ARX's ``PopulationUniqueness`` criterion disables the fallback and then fails the table).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares, root
from scipy.special import digamma, gammaln
from scipy.stats import hypergeom


def histogram(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct class sizes i, number of classes c_i of each)."""
    i, c = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return i, c.astype(float)


def zayatz(sizes: np.ndarray, population: int) -> float:
    i, c = histogram(sizes)
    n = int(i @ c)
    u = c.sum()
    c1 = c[i == 1].sum()
    if c1 == 0:
        return 0.0
    pmf = hypergeom.pmf(1, population, i, n)  # P[exactly one of a class of size i is drawn]
    prior = (c / u) * pmf
    unique = (c1 / u) * hypergeom.pmf(1, population, 1, n) / prior.sum()
    return float(c1 * unique / (n / population))


def pitman_equations(theta: float, alpha: float, i: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The two likelihood equations of the Pitman model at (θ, α), in closed form:
    Σ_{j<u} 1/(θ + jα) − Σ_{j<n} 1/(θ + j) and Σ_{j<u} j/(θ + jα) − Σ_k c_k Σ_{j<k} 1/(j − α)."""
    u = c.sum()
    n = i @ c
    r = theta / alpha
    o1 = (digamma(r + u) - digamma(r + 1)) / alpha
    o2 = digamma(theta + n) - digamma(theta + 1)
    o3 = (u - 1) / alpha - r * o1
    o4 = float(c @ (digamma(i - alpha) - digamma(1 - alpha)))
    return np.array([o1 - o2, o3 - o4])


def pitman_fit(sizes: np.ndarray) -> tuple[float, float] | None:
    """The maximum-likelihood (θ, α) of the Pitman model (None: no solution with θ ≥ 0,
    0 < α < 1)."""
    i, c = histogram(sizes)
    n, u = float(i @ c), c.sum()
    c1 = c[i == 1].sum()
    c2 = c[i == 2].sum() or 1.0
    # Hoshino's moment-based starting point (as ARX)
    g = c1 * (c1 - 1) / c2
    denom = 2 * c1 * u + c1 * g - n * g
    t0 = (n * u * g - c1 * (n - 1) * (2 * u + g)) / denom if denom else 1.0
    a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    starts = [(t0, a0), (1.0, 0.5), (10.0, 0.3), (100.0, 0.7), (0.5, 0.9)]
    for t, a in starts:
        if not (math.isfinite(t) and math.isfinite(a)):
            continue
        t, a = max(t, 1e-6), min(max(a, 1e-6), 1 - 1e-6)
        with np.errstate(all="ignore"):
            sol = root(lambda x: pitman_equations(x[0], x[1], i, c), [t, a], method="hybr")
        theta, alpha = (float(v) for v in sol.x)
        if sol.success and theta >= 0 and 0 < alpha < 1:
            res = pitman_equations(theta, alpha, i, c)
            if np.all(np.abs(res) < 1e-6):
                return theta, alpha
    return None


def pitman(sizes: np.ndarray, population: int) -> float:
    i, c = histogram(sizes)
    if c[i == 1].sum() == 0:
        return 0.0
    fit = pitman_fit(sizes)
    if fit is None:
        return float("nan")
    theta, alpha = fit
    value = math.exp(gammaln(theta + 1) - gammaln(theta + alpha) + alpha * math.log(population))
    return value if 0 <= value <= population else float("nan")


def shlosser(sizes: np.ndarray, fraction: float) -> float:
    """Haas et al.'s Sh3 estimate of the population's non-empty classes."""
    i, c = histogram(sizes)
    q = fraction
    c1 = c[i == 1].sum()
    a = float(np.sum(i * q**2 * (1 - q**2) ** (i - 1) * c))
    # (1 − q)^i ((1 + q)^i − 1), written without the overflowing (1 + q)^i
    b = float(np.sum(((1 - q**2) ** i - (1 - q) ** i) * c))
    s = float(np.sum((1 - q) ** i * c))
    t = float(np.sum(i * q * (1 - q) ** (i - 1) * c))
    return float(c.sum() + c1 * (a / b) * (s / t) ** 2)


def snb_expected(k: float, pi: float, alpha: float, beta: float) -> tuple[float, float]:
    """E[c_1], E[c_2] of the SNB model (see module)."""
    d = (1 - pi) * (1 - beta)
    e1 = k * pi * (beta / (1 - d)) ** alpha * (1 + alpha * d / (1 - d))
    e2 = (
        k
        * pi**2
        / 2
        * alpha
        * (1 - beta)
        * beta**alpha
        * (2 - (1 - alpha) * d)
        / (1 - d) ** (alpha + 2)
    )
    return e1, e2


def snb(sizes: np.ndarray, population: int) -> float:
    i, c = histogram(sizes)
    c1, c2 = c[i == 1].sum(), c[i == 2].sum()
    if c1 == 0:
        return 0.0
    n = float(i @ c)
    pi = n / population
    k = shlosser(sizes, pi)

    def residual(x: np.ndarray) -> np.ndarray:
        try:
            alpha, beta = math.exp(x[0]), 1 / (1 + math.exp(-x[1]))
            e1, e2 = snb_expected(k, pi, alpha, beta)
        except (OverflowError, ZeroDivisionError):
            return np.array([1e10, 1e10])
        out = np.array([(e1 - c1) / max(c1, 1), (e2 - c2) / max(c2, 1)])
        return np.where(np.isfinite(out), out, 1e10)

    best = None
    for a0, b0 in [(1.0, 0.5), (0.1, 0.1), (5.0, 0.9), (0.5, 0.01), (10.0, 0.5)]:
        try:
            with np.errstate(all="ignore"):
                sol = least_squares(residual, [math.log(a0), math.log(b0 / (1 - b0))], xtol=1e-14)
        except (ValueError, OverflowError):
            continue
        if np.all(np.isfinite(sol.fun)) and np.max(np.abs(sol.fun)) < 1e-6:
            best = sol.x
            break
    if best is None:
        return float("nan")
    alpha, beta = math.exp(best[0]), 1 / (1 + math.exp(-best[1]))
    value = k * beta**alpha
    return float(value) if 0 <= value <= population else float("nan")


def _valid(v: float) -> bool:
    return math.isfinite(v) and v != 0


def dankar(sizes: np.ndarray, population: int) -> tuple[float, str]:
    """Dankar et al.'s decision rule: (estimate, the estimator it chose)."""
    i, c = histogram(sizes)
    if c[i == 1].sum() == 0:
        return 0.0, "none (no sample uniques)"
    pi = float(i @ c) / population
    if pi <= 0.1:
        p = pitman(sizes, population)
        if _valid(p):
            return p, "pitman"
        return zayatz(sizes, population), "zayatz"
    z, s = zayatz(sizes, population), snb(sizes, population)
    if _valid(s) and s <= z:
        return s, "snb"
    return z, "zayatz"


ESTIMATORS = {"pitman": pitman, "zayatz": zayatz, "snb": snb}


def population_uniques(sizes: np.ndarray, population: int, estimator: str) -> tuple[float, str]:
    """The estimated number of population uniques and the estimator that made it."""
    if estimator == "dankar":
        return dankar(sizes, population)
    return ESTIMATORS[estimator](sizes, population), estimator
