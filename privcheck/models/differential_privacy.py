"""(ε, δ)-differential privacy as a policy entry: ``{model: differential-privacy, epsilon: 1,
delta: 1e-6}``.

Differential privacy is a property of the randomised mechanism that produced a release, not of
the release: no table can be checked for it. The model is therefore a checker plugin whose
target is the *mechanism*: it registers through the same hook as the built-ins (so the policy,
its JSON Schema and ``privcheck plugins`` know it), ``privcheck check`` refuses it with one line,
and only an anonymizer that implements a differentially private mechanism (``safepub``) enforces
it — the generalization searches and the masking methods refuse it.

The arithmetic that turns (ε, δ) into the mechanism's parameters lives here as well, because it
*is* the model's definition as SafePub (Bild, Kuhn & Prasser, PoPETs 2018) enforces it, after Li,
Qardaji & Su (ASIACCS 2012): drawing every record independently with probability β, generalizing
the sample with a data-independent scheme and suppressing every class of fewer than k records
(a "(k, β)-SDGS") is (ε, δ)-differentially private for every ε ≥ −ln(1 − β) and

    δ = d(k, β, ε) = max_{n ≥ n_m} Σ_{j > γn}^{n} f(j; n, β),
    γ = (e^ε − 1 + β) / e^ε,  n_m = ⌈k/γ − 1⌉,

``f(j; n, β)`` the binomial probability mass. SafePub spends ε_anon of the budget on this step:
β = 1 − e^(−ε_anon) (the largest β the first condition allows) and k the smallest class size
whose d(k, β, ε_anon) is at most the δ asked for. ``d`` is a maximum over infinitely many n; each
term is below the Chernoff bound c_n = exp(−n(γ ln(γ/β) − (γ − β))), which decreases in n, so the
maximum is found once the running maximum reaches c_n (ARX's stopping rule; a tighter Chernoff
bound, the relative-entropy one, is used here to stop sooner — the maximum is the same).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator

from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.policy import ModelConfig

#: the one line ``privcheck check`` answers a policy with this model
NOT_CHECKABLE = (
    "differential privacy is a property of the mechanism that made a release, not of a table: "
    "privcheck check cannot verify it; anonymize with --algorithm safepub (which enforces it) "
    "and check the other models of the policy without it"
)

#: the n a δ computation may scan before it gives up (ε so small that k is astronomically large)
MAX_N = 20_000_000
_CHUNK = 1 << 16


class DifferentialPrivacyConfig(ModelConfig):
    """(ε, δ)-differential privacy of the mechanism that makes the release (enforced by
    ``privcheck anonymize --algorithm safepub``; not checkable on a table)."""

    model: Literal["differential-privacy"] = "differential-privacy"
    epsilon: float = Field(..., description="Privacy budget ε (> 0; e.g. 1)")
    delta: float = Field(..., description="Privacy parameter δ, in (0, 1) (e.g. 1e-6)")

    @field_validator("epsilon")
    @classmethod
    def _epsilon(cls, value: float) -> float:
        if not math.isfinite(value) or value <= 0:
            raise ValueError(
                f"epsilon must be a positive number (the privacy budget); got {value!r}; "
                "use e.g. epsilon: 1"
            )
        return value

    @field_validator("delta")
    @classmethod
    def _delta(cls, value: float) -> float:
        if not math.isfinite(value) or not 0 < value < 1:
            raise ValueError(
                f"delta must lie strictly between 0 and 1; got {value!r}; use e.g. delta: 1e-6"
            )
        return value


class DifferentialPrivacy(PrivacyModel):
    name = "differential-privacy"
    config = DifferentialPrivacyConfig
    summary = "(ε, δ)-differential privacy of the mechanism (enforced by safepub; not checkable)"
    #: what the model is a property of: the randomised mechanism, not a table or a graph
    target: ClassVar[str] = "mechanism"
    #: the anonymizer that enforces it
    enforced_by: ClassVar[str] = "safepub"

    @classmethod
    def evaluate(cls, table: Any, config: ModelConfig) -> Evaluation:
        raise PolicyError(NOT_CHECKABLE)


# ---------------------------------------------------------------------- (ε, δ) → (β, k)
def sampling_probability(epsilon: float) -> float:
    """β = 1 − e^(−ε): the largest sampling probability for which ε ≥ −ln(1 − β)."""
    return float(-math.expm1(-epsilon))


def gamma_of(epsilon: float, beta: float) -> float:
    """γ = (e^ε − 1 + β) / e^ε."""
    return float((math.expm1(epsilon) + beta) / math.exp(epsilon))


def _rate(epsilon: float, beta: float) -> float:
    """The exponent of a Chernoff bound exp(−n · rate) on each term a_n of d, decreasing in n.

    The relative-entropy form D(γ‖β) = γ ln(γ/β) + (1 − γ) ln((1 − γ)/(1 − β)), which here is
    γ ln(γ/β) − ε(1 − γ) because (1 − γ) = (1 − β)e^(−ε). ARX stops on the looser
    γ ln(γ/β) − (γ − β); both bound every later term, so the maximum found is the same, but the
    looser one needs millions of terms once β nears 1 (ε ≳ 5).
    """
    gamma = gamma_of(epsilon, beta)
    excess = -math.expm1(-epsilon) * (1.0 - beta)  # γ − β, without cancellation
    return gamma * math.log1p(excess / beta) - epsilon * (1.0 - gamma)


def _terms(ns: np.ndarray, gamma: float, beta: float) -> np.ndarray:
    """a_n = P[Binomial(n, β) > γn] = Σ_{j > γn} f(j; n, β) for each n of ``ns``."""
    from scipy.stats import binom  # (scipy.stats: ~0.3 s to import; only SafePub needs it)

    return binom.sf(np.floor(gamma * ns), ns, beta)


def sdgs_delta(k: int, beta: float, epsilon: float) -> float:
    """d(k, β, ε): the δ of a (k, β)-SDGS at ε (Li, Qardaji & Su 2012, Theorem; see module)."""
    _check_beta(epsilon, beta)
    gamma = gamma_of(epsilon, beta)
    rate = _rate(epsilon, beta)
    n = max(math.ceil(k / gamma - 1), 0)
    best = 0.0
    while n <= MAX_N:
        ns = np.arange(n, n + _CHUNK, dtype=np.float64)
        running = np.maximum.accumulate(np.maximum(_terms(ns, gamma, beta), best))
        done = np.flatnonzero(running >= np.exp(-ns * rate))
        if len(done):
            return float(running[done[0]])
        best = float(running[-1])
        n += _CHUNK
    raise PolicyError(  # pragma: no cover - guarded by derive_parameters' bound
        f"differential privacy: δ cannot be computed for k={k}, ε={epsilon:g} (the bound needs "
        f"more than {MAX_N:,} terms); use a larger epsilon"
    )


def smallest_k(beta: float, epsilon: float, delta: float) -> int:
    """The smallest k ≥ 1 with d(k, β, ε) ≤ δ.

    d(k) is the maximum of the terms a_n over n ≥ n_m(k), and n_m(k) = ⌈k/γ − 1⌉ grows with k:
    so d(k) ≤ δ exactly when every term from n_m(k) on is at most δ. The terms beyond the first n
    whose Chernoff bound is below δ all are; below it, the suffix maxima of the terms say where
    they stop exceeding δ (n*), and k is the smallest with n_m(k) ≥ n*.
    """
    _check_beta(epsilon, beta)
    gamma = gamma_of(epsilon, beta)
    rate = _rate(epsilon, beta)
    last = math.ceil(-math.log(delta) / rate)  # c_n < δ for every n > last
    if last > MAX_N:
        raise PolicyError(
            f"differential privacy with epsilon={epsilon:g} (for the sampling step) and "
            f"delta={delta:g} is out of range: no class size k can be computed within "
            f"{MAX_N:,} records; use an epsilon between 1e-5 and 20"
        )
    n_star = 0  # every term from n_star on is ≤ δ
    for start in range(0, last + 1, _CHUNK):
        ns = np.arange(start, min(start + _CHUNK, last + 1), dtype=np.float64)
        above = np.flatnonzero(_terms(ns, gamma, beta) > delta)
        if len(above):
            n_star = start + int(above[-1]) + 1
    lo, hi = 1, max(1, math.ceil(gamma * (n_star + 2)))
    while math.ceil(hi / gamma - 1) < n_star:  # pragma: no cover - float safety
        hi *= 2
    while lo < hi:  # the smallest k with n_m(k) ≥ n_star (n_m is monotone in k)
        mid = (lo + hi) // 2
        if math.ceil(mid / gamma - 1) >= n_star:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _check_beta(epsilon: float, beta: float) -> None:
    if not (0 < beta < 1) or epsilon <= 0:
        raise PolicyError(
            f"differential privacy needs epsilon > 0 and 0 < beta < 1; got epsilon={epsilon!r}, "
            f"beta={beta!r}"
        )


@dataclass(frozen=True)
class SDGSParameters:
    """What (ε_anon, δ) make of the sampling and suppression step."""

    epsilon: float
    delta: float
    beta: float
    k: int
    #: d(k, β, ε): the δ the step actually achieves (≤ ``delta``)
    delta_achieved: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "beta": self.beta,
            "k": self.k,
            "delta_achieved": self.delta_achieved,
        }


def derive_parameters(epsilon: float, delta: float) -> SDGSParameters:
    """(β, k) of the (k, β)-SDGS step that is (ε, δ)-differentially private (see module).

    ARX (``org.deidentifier.arx.dp.ParameterCalculation``) computes the same β and, because its
    loop increments k once more after the test that ends it, returns k + 1 (tests pin this).
    """
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise PolicyError(f"epsilon must be a positive number; got {epsilon!r}; use e.g. 1")
    if not math.isfinite(delta) or not 0 < delta < 1:
        raise PolicyError(f"delta must lie strictly between 0 and 1; got {delta!r}; use e.g. 1e-6")
    beta = sampling_probability(epsilon)
    if not 0 < beta < 1:
        raise PolicyError(
            f"epsilon={epsilon:g} is outside what the sampling step can use (β = 1 − e^−ε "
            "rounds to 0 or 1); use an epsilon between 1e-12 and 30"
        )
    k = smallest_k(beta, epsilon, delta)
    return SDGSParameters(epsilon, delta, beta, k, sdgs_delta(k, beta, epsilon))


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [DifferentialPrivacy]
