"""Population uniqueness (ARX's ``PopulationUniqueness``): ``{model: population-uniqueness,
threshold: t, estimator: pitman | zayatz | snb | dankar}``.

The share of the population that is unique on the released quasi-identifiers, estimated from the
sample's class sizes and the population size N (``population: {size: N}``, or a population
table's total), must be ≤ t. ``value`` is that estimated share (uniques / N). The estimators are in
``privcheck.risk.population.estimators``; ``dankar`` is Dankar et al. (2012)'s decision rule.

An estimator that does not converge (NaN) cannot vouch for the data: the table then holds only if
it has no sample uniques (ARX's rule), and ``value`` is null.

Enforcement, as ARX's: suppress the smallest classes first, the fewest (found by bisection over how
many) after which the estimate of the kept table is ≤ t.

Properties: *not monotone* (under generalization nor with suppression): the estimates are fitted
models, and a coarser table can be estimated to hold more uniques (ARX declares only Zayatz
monotone under generalization; here no pruning relies on any of them). Table-dependent.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable
from privcheck.encoding import EncodedTable, n_subjects
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.models.base import PrivacyModel
from privcheck.models.reidentification import TableEvaluation
from privcheck.policy import ModelConfig
from privcheck.population import population_size


class PopulationUniquenessConfig(ModelConfig):
    """The estimated share of population uniques is at most ``threshold``."""

    model: Literal["population-uniqueness"] = "population-uniqueness"
    threshold: float = Field(
        ..., ge=0, le=1, description="Largest allowed share of population uniques, [0, 1]"
    )
    estimator: Literal["pitman", "zayatz", "snb", "dankar"] = Field(
        "dankar", description="How population uniques are estimated (dankar: Dankar et al.'s rule)"
    )


def estimated_share(sizes: np.ndarray, population: int, estimator: str) -> float:
    """Estimated population uniques / N (NaN: the estimator failed)."""
    if len(sizes) == 0:
        return 0.0
    # (the estimators need SciPy: imported when a policy uses the model, not when it is listed)
    from privcheck.risk.population.estimators import population_uniques

    uniques, _ = population_uniques(sizes, population, estimator)
    return uniques / population


def holds(sizes: np.ndarray, population: int, config: PopulationUniquenessConfig) -> bool:
    if len(sizes) == 0:
        return True
    share = estimated_share(sizes, population, config.estimator)
    if not math.isfinite(share):
        return not (sizes == 1).any()
    return share <= config.threshold


class PopulationUniqueness(PrivacyModel):
    name = "population-uniqueness"
    config = PopulationUniquenessConfig
    summary = "estimated share of population uniques (pitman, zayatz, snb, dankar) ≤ t"
    monotone = False
    table_dependent = True

    @classmethod
    def validate_data(cls, encoded: EncodedTable, config: PopulationUniquenessConfig) -> None:
        population_size(encoded.policy, n_subjects(encoded), cls.name)

    @classmethod
    def evaluate(cls, table: ClassTable, config: PopulationUniquenessConfig) -> TableEvaluation:
        sizes = table.subjects
        if table.people is not None and int(sizes.sum()) != table.n_individuals:
            raise PolicyError(
                "population-uniqueness cannot count people here: its estimators read the "
                "class sizes of a sample in which each person sits in one class, but some "
                f"people of {table.encoded.policy.individual!r} have records in several "
                "classes (quasi-identifiers that vary across their records); use k-anonymity "
                "or average-risk, which count people per class"
            )
        size = population_size(table.encoded.policy, table.n_subjects, cls.name)
        ok = np.ones(len(sizes), dtype=bool)
        if len(sizes) and not holds(sizes, size, config):
            order = np.argsort(sizes, kind="stable")  # smallest (riskiest) first

            def kept(m: int) -> np.ndarray:
                return sizes[order[m:]]

            lo, hi = 1, len(sizes)  # removing all always holds
            while lo < hi:
                mid = (lo + hi) // 2
                if holds(kept(mid), size, config):
                    hi = mid
                else:
                    lo = mid + 1
            ok[order[:lo]] = False

        def value(keep: np.ndarray | None) -> float | None:
            share = estimated_share(sizes if keep is None else sizes[keep], size, config.estimator)
            return share if math.isfinite(share) else None

        return TableEvaluation(
            config,
            ok,
            1.0 / sizes.astype(float),
            f"estimated share of population uniques ({config.estimator})",
            larger_is_safer=False,
            table_value=value,
        )


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [PopulationUniqueness]
