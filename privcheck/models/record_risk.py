"""Records at risk (El Emam; ARX's relaxed ``AverageReidentificationRisk``): ``{model: record-risk,
threshold: t, max_share: s, attacker: prosecutor | journalist | marketer}``.

A record's risk is 1/|class| for the prosecutor and 1/F (its class's population size) for the
journalist and the marketer (``privcheck.models.reidentification``). The table holds iff the share
of records whose risk exceeds t is at most s (default 0: no record above t). ``value`` is that
share.

With s = 0 and the prosecutor this is k-anonymity with k = the smallest size whose risk is ≤ t;
with s > 0, the riskiest classes are suppressed first until the share of the kept records above t
is ≤ s (ARX's enforcement); the report's violators are the classes this suppresses.

Properties (``tests/models/test_risk_models.py``, brute force on small lattices):

- *monotone under generalization* (every attacker): a merged class is at least as large as its
  parts, in the data and in the population, so a record's risk only falls and the records above t
  only become fewer (and a subset of the attribute set merges classes the same way: Incognito's
  subset property holds).
- *monotone with suppression* for s = 0: the classes above t are then exactly the violators, and
  they only become fewer. For s > 0 it is not declared (not proven for the riskiest-first
  suppression; no counterexample found by the brute force): searches do not prune with it.
- table-dependent for s > 0 (the verdict is a share over the table), not for s = 0.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable
from privcheck.hookspecs import hookimpl
from privcheck.models.base import PrivacyModel
from privcheck.models.reidentification import (
    TableEvaluation,
    population_sizes,
    prefix_sums,
    record_risk,
    suppress_riskiest,
)
from privcheck.policy import ModelConfig


class RecordRiskConfig(ModelConfig):
    """At most a share ``max_share`` of the records has a re-identification risk above
    ``threshold``."""

    model: Literal["record-risk"] = "record-risk"
    threshold: float = Field(..., ge=0, le=1, description="Largest allowed record risk, [0, 1]")
    max_share: float = Field(
        0.0, ge=0, le=1, description="Largest allowed share of records above the threshold"
    )
    attacker: Literal["prosecutor", "journalist", "marketer"] = Field(
        "prosecutor",
        description="Who attacks: the prosecutor (risk 1/class size), journalist or marketer "
        "(risk 1/population class size; both need a population table)",
    )


def at_risk_share(
    sizes: np.ndarray, risk: np.ndarray, threshold: float, keep: np.ndarray | None = None
) -> float:
    """The share of the (kept) records whose risk exceeds ``threshold``."""
    f = sizes if keep is None else sizes[keep]
    r = risk if keep is None else risk[keep]
    return float(f[r > threshold].sum()) / float(f.sum())


class RecordRisk(PrivacyModel):
    name = "record-risk"
    config = RecordRiskConfig
    summary = "share of records whose re-identification risk exceeds t is at most s"
    # a share over the whole table when s > 0 (anonymizers re-evaluate after suppressing)
    table_dependent = True

    @classmethod
    def monotone_with_suppression(cls, config: RecordRiskConfig) -> bool:
        return config.max_share == 0

    @classmethod
    def validate_data(cls, encoded, config: RecordRiskConfig) -> None:
        if config.attacker != "prosecutor":
            from privcheck.classes import count

            population_sizes(count(encoded, track_records=False), config.attacker, cls.name)

    @classmethod
    def evaluate(cls, table: ClassTable, config: RecordRiskConfig) -> TableEvaluation:
        sizes = table.subjects
        pop = population_sizes(table, config.attacker, cls.name)
        risk = record_risk(sizes, pop)
        above = risk > config.threshold
        f = sizes.astype(float)
        if config.max_share == 0:
            ok = ~above
        else:

            def holds_after(order: np.ndarray) -> np.ndarray:
                n = f.sum() - prefix_sums(f, order)
                risky = (f * above).sum() - prefix_sums(f * above, order)
                with np.errstate(divide="ignore", invalid="ignore"):
                    return np.where(n > 0, risky / n <= config.max_share, True)

            ok = suppress_riskiest(risk, holds_after) if len(sizes) else np.ones(0, dtype=bool)
        return TableEvaluation(
            config,
            ok,
            risk,
            f"share of records with {config.attacker} risk > {config.threshold:g} "
            "(classes: their risk)",
            larger_is_safer=False,
            table_value=lambda keep: at_risk_share(sizes, risk, config.threshold, keep),
        )


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [RecordRisk]
