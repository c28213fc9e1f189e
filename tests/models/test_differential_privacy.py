"""(ε, δ)-differential privacy: the policy entry, and (β, k) derived from (ε, δ).

The oracle is the theorem of Li, Qardaji & Su (2012) as SafePub states it, written here again
with scipy.stats.binom and nothing of privcheck's: a (k, β)-SDGS is (ε, δ)-DP for
ε ≥ −ln(1 − β) and δ = max_{n ≥ ⌈k/γ − 1⌉} Σ_{j > γn} Binomial(j; n, β), γ = (e^ε − 1 + β)/e^ε.
The maximum runs over a long fixed range of n, and Hoeffding's inequality (a bound independent
of the one privcheck stops on) shows that no later n can exceed it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from privcheck.errors import PolicyError
from privcheck.models.differential_privacy import (
    NOT_CHECKABLE,
    derive_parameters,
    sdgs_delta,
)
from privcheck.policy import parse_policy

#: (ε, δ) → (β, k) as ARX's ParameterCalculation returns them, measured with ARX built from its
#: source (org.deidentifier.arx.dp.ParameterCalculation(ε, δ).getBeta()/.getK()). ARX's loop
#: increments k once more after the test that ends it, so its k is the smallest valid k plus one.
ARX = [
    (2.0, 1e-5, 0.8646647167633871, 114),
    (1.0, 1e-5, 0.6321205588285574, 62),
    (1.5, 1e-6, 0.77686983985157, 100),
    (math.log(2), 1e-7, 0.4999999999999997, 81),
    (math.log(3), 1e-8, 0.6666666666666664, 109),
    (0.5, 1e-6, 0.3934693402873664, 64),
    (0.9, 1e-6, 0.5934303402594007, 74),
    (1.8, 1e-6, 0.8347011117784133, 118),
    (0.45, 1e-6, 0.3623718483782265, 65),
    (0.01, 1e-9, 0.00995016625083178, 96),
    (3.0, 1e-4, 0.9502129316321359, 182),
]


def oracle_delta(k: int, beta: float, eps: float) -> float:
    """δ of a (k, β)-SDGS at ε, straight from the theorem."""
    gamma = (math.exp(eps) - 1 + beta) / math.exp(eps)
    n_m = max(math.ceil(k / gamma - 1), 0)
    span = 20_000
    while True:
        n = np.arange(n_m, n_m + span)
        terms = binom.sf(np.floor(gamma * n), n, beta)  # P[X > γn] = Σ_{j > γn} f(j; n, β)
        best = float(terms.max())
        # Hoeffding: P[X > γn] ≤ exp(−2n(γ − β)²), decreasing in n: once it is below the
        # maximum found, no later n can exceed it
        if math.exp(-2 * (n_m + span) * (gamma - beta) ** 2) < best:
            return best
        span *= 2


@pytest.mark.parametrize(("eps", "delta", "arx_beta", "arx_k"), ARX)
def test_beta_and_k_follow_the_theorem_and_arx(eps, delta, arx_beta, arx_k):
    p = derive_parameters(eps, delta)
    beta = 1 - math.exp(-eps)
    assert p.beta == pytest.approx(beta, rel=1e-12)
    assert -math.log(1 - p.beta) <= eps * (1 + 1e-12)  # ε ≥ −ln(1 − β)
    d_k = oracle_delta(p.k, beta, eps)
    assert d_k <= delta  # k is valid ...
    assert oracle_delta(p.k - 1, beta, eps) > delta  # ... and the smallest valid k
    assert p.delta_achieved == pytest.approx(d_k, rel=1e-9)
    # ARX: the same β (it keeps the lower end of an interval), and one more than the smallest k
    assert p.beta == pytest.approx(arx_beta, rel=1e-12)
    assert p.k + 1 == arx_k


def test_sdgs_delta_is_the_theorem_at_other_k():
    for eps, k in [(0.5, 10), (1.0, 40), (2.0, 150), (0.1, 3)]:
        beta = 1 - math.exp(-eps)
        assert sdgs_delta(k, beta, eps) == pytest.approx(oracle_delta(k, beta, eps), rel=1e-9)
    # a β below the maximum is allowed too (ε ≥ −ln(1 − β) still holds)
    assert sdgs_delta(30, 0.3, 1.0) == pytest.approx(oracle_delta(30, 0.3, 1.0), rel=1e-9)


def test_a_worked_example_by_hand():
    # ε = ln 2, β = 1/2: γ = (2 − 1 + 1/2)/2 = 3/4; k = 3 → n_m = ⌈3/(3/4) − 1⌉ = 3.
    # n = 3: P[X > 2.25] = P[X = 3] = 1/8; n = 4: P[X > 3] = 1/16; n = 5: P[X > 3.75] = 6/32 …
    beta, eps = 0.5, math.log(2)
    direct = max(
        sum(math.comb(m, j) for j in range(math.floor(0.75 * m) + 1, m + 1)) / 2**m
        for m in range(3, 400)
    )
    assert direct == pytest.approx(6 / 32)
    assert sdgs_delta(3, beta, eps) == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"epsilon": 0, "delta": 1e-6}, "epsilon must be a positive number"),
        ({"epsilon": -1, "delta": 1e-6}, "epsilon must be a positive number"),
        ({"epsilon": 1, "delta": 0}, "delta must lie strictly between 0 and 1"),
        ({"epsilon": 1, "delta": 1}, "delta must lie strictly between 0 and 1"),
        ({"epsilon": 1, "delta": -0.1}, "delta must lie strictly between 0 and 1"),
        ({"epsilon": 1}, "delta"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(entry, needle):
    policy = {
        "attributes": {"a": {"role": "quasi_identifier"}},
        "models": [{"model": "differential-privacy", **entry}],
    }
    with pytest.raises(PolicyError) as err:
        parse_policy(policy)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_out_of_range_epsilon_is_refused():
    with pytest.raises(PolicyError, match="out of range"):
        derive_parameters(25.0, 1e-6)
    with pytest.raises(PolicyError, match="epsilon must be a positive"):
        derive_parameters(0.0, 1e-6)


def test_the_model_cannot_be_evaluated_on_a_table():
    from privcheck.plugins import model_registry

    model = model_registry()["differential-privacy"]
    assert model.target == "mechanism"
    config = model.config(epsilon=1, delta=1e-6)
    with pytest.raises(PolicyError, match="property of the mechanism"):
        model.evaluate(None, config)
    assert "privcheck check cannot verify it" in NOT_CHECKABLE


def test_the_entry_is_in_the_json_schema():
    from privcheck.policy import policy_json_schema

    schema = policy_json_schema()
    defs = schema["$defs"]
    entry = defs["DifferentialPrivacyConfig"]
    assert entry["properties"]["model"]["const"] == "differential-privacy"
    assert set(entry["required"]) >= {"epsilon", "delta"}
