"""k-map (Sweeney; ARX's ``KMap``): ``{model: k-map, k: 5}`` — every released class matches at
least k people of the population, not only k records of the data.

- With a population table (``population: {path, count_column}``): F, the number of population
  records each class matches (the population generalized with the same node and hierarchies), must
  be ≥ k. ``value`` is the smallest F.
- With only a size (``population: {size: N}``): F is estimated from the sampling fraction
  π = n/N. Under Pannekoek's model the sample count of a class of F people is Poisson(πF); a class
  is accepted when its size f makes "F < k" implausible at the ``significance`` level: f > c, c the
  smallest count with P[X ≤ c] ≥ 1 − significance for X ~ Poisson(πk) (estimator ``poisson``,
  El Emam & Dankar's D3) or the zero-truncated Poisson(πk) (``zero-truncated-poisson``, D4). That
  is k-anonymity with the derived k' = min(c + 1, k, n) (never stricter than k: no class larger
  than k needs a test). The per-class statistic and ``value`` are the point estimate f/π of the
  smallest class's population size; the verdict is the test's.

  ARX's ``KMap.calculateKPoisson`` returns c + 2 for the Poisson estimator (its loop counts one
  step past the test, as its ε,δ parameter calculation does); its zero-truncated variant returns
  c + 1 like this one. ``tests/models/test_population_models.py`` pins both against k' measured
  from ARX (``benchmarks/KMapBench.java``).

Properties: *monotone under generalization and with suppression* (with a table, merged classes
match the union of their population classes; with a size, it is k'-anonymity). Not
table-dependent.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable, count
from privcheck.encoding import EncodedTable, n_subjects
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.policy import ModelConfig, PopulationTable
from privcheck.population import check_contains, load_population, population_size


class KMapConfig(ModelConfig):
    """Every class matches at least k people of the population."""

    model: Literal["k-map"] = "k-map"
    k: int = Field(..., ge=1, description="Smallest allowed population class size")
    estimator: Literal["poisson", "zero-truncated-poisson"] | None = Field(
        None,
        description="With only a population size: how population class sizes are estimated "
        "(default poisson)",
    )
    significance: float | None = Field(
        None,
        gt=0,
        lt=1,
        description="With only a population size: the accepted probability that a class "
        "passing the test has fewer than k people in the population (default 0.01)",
    )


def derived_k(k: int, fraction: float, estimator: str, significance: float) -> int:
    """k': the smallest class size at which "fewer than k people" is rejected (see module)."""
    lam = fraction * k
    threshold = 1.0 - significance
    c = np.arange(0, k + 1)
    from scipy.stats import poisson  # (imported when the model runs, not when it is listed)

    if estimator == "poisson":
        cdf = poisson.cdf(c, lam)
    else:  # zero-truncated: P[X ≤ c | X ≥ 1]
        p0 = math.exp(-lam)
        cdf = np.where(c >= 1, (poisson.cdf(c, lam) - p0) / -math.expm1(-lam), 0.0)
    hit = np.flatnonzero(cdf >= threshold)
    return min(k, int(hit[0]) + 1 if len(hit) else k)


class KMap(PrivacyModel):
    name = "k-map"
    config = KMapConfig
    summary = "every class matches at least k population records (table, or Poisson estimate)"

    @classmethod
    def monotone_with_suppression(cls, config: KMapConfig) -> bool:
        return True

    @classmethod
    def validate_data(cls, encoded: EncodedTable, config: KMapConfig) -> None:
        policy = encoded.policy
        population_size(policy, n_subjects(encoded), cls.name)
        if isinstance(policy.population, PopulationTable):
            check_contains(count(encoded, track_records=False), cls.name)

    @classmethod
    def evaluate(cls, table: ClassTable, config: KMapConfig) -> Evaluation:
        policy = table.encoded.policy
        if isinstance(policy.population, PopulationTable):
            load_population(policy)
            from privcheck.population import class_population_sizes

            big_f = class_population_sizes(table).astype(float)
            return Evaluation(config, big_f >= config.k, big_f, "population class size")
        n = table.n_subjects
        size = population_size(policy, n, cls.name)
        fraction = n / size
        estimator = config.estimator or "poisson"
        significance = 0.01 if config.significance is None else config.significance
        k_prime = min(derived_k(config.k, fraction, estimator, significance), n)
        estimate = table.subjects / fraction
        return Evaluation(
            config,
            table.subjects >= max(k_prime, 1),
            estimate,
            f"estimated population class size (f/π; passes at f ≥ {k_prime})",
        )


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [KMap]
