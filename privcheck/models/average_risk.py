"""Average re-identification risk (El Emam; ARX's ``AverageReidentificationRisk``):
``{model: average-risk, threshold: t, attacker: prosecutor | journalist | marketer}``.

The prosecutor's average risk is #classes / n (each record's risk 1/|class|, averaged); the
journalist's and marketer's use the population table (``privcheck.models.reidentification``).
``value`` is that average. The table holds iff it is ≤ t.

Enforcement (ARX's): suppress the riskiest classes first until the average of the kept classes is
≤ t; the report's violators are those classes.

Properties (``tests/models/test_risk_models.py`` proves them by brute force on small lattices):

- *monotone under generalization* for every attacker: merging classes lowers #classes at the same
  n (prosecutor), and f_A/F_A + f_B/F_B ≥ (f_A + f_B)/(F_A + F_B) (marketer), and #classes/ΣF
  falls as well (journalist). It has Incognito's subset property for the same reason.
- *not declared monotone with suppression*: whether the records the riskiest-first suppression
  removes can only fall as a node is generalized is not proven here (ARX declares it; the brute
  force over small lattices finds no counterexample either). Declaring it would let searches prune
  with it; leaving it out only costs pruning, never a wrong optimum.
- table-dependent: a class's verdict depends on the others.
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
    average_risk,
    population_sizes,
    prefix_sums,
    record_risk,
    suppress_riskiest,
)
from privcheck.policy import ModelConfig


class AverageRiskConfig(ModelConfig):
    """The average re-identification risk is at most ``threshold``."""

    model: Literal["average-risk"] = "average-risk"
    threshold: float = Field(..., ge=0, le=1, description="Largest allowed average risk, [0, 1]")
    attacker: Literal["prosecutor", "journalist", "marketer"] = Field(
        "prosecutor",
        description="Who attacks: the prosecutor (knows the target is in the data), journalist "
        "or marketer (both need a population table)",
    )


class AverageRisk(PrivacyModel):
    name = "average-risk"
    config = AverageRiskConfig
    summary = "average re-identification risk (prosecutor #classes/n, journalist, marketer) ≤ t"
    table_dependent = True

    @classmethod
    def validate_data(cls, encoded, config: AverageRiskConfig) -> None:
        if config.attacker != "prosecutor":
            from privcheck.classes import count

            population_sizes(count(encoded, track_records=False), config.attacker, cls.name)

    @classmethod
    def evaluate(cls, table: ClassTable, config: AverageRiskConfig) -> TableEvaluation:
        sizes = table.subjects
        pop = population_sizes(table, config.attacker, cls.name)
        risk = record_risk(sizes, pop)
        f = sizes.astype(float)

        def holds_after(order: np.ndarray) -> np.ndarray:
            c = len(order) - np.arange(len(order) + 1)
            n = f.sum() - prefix_sums(f, order)
            with np.errstate(divide="ignore", invalid="ignore"):
                if config.attacker == "prosecutor":
                    avg = c / n
                else:
                    ratio = prefix_sums(f / pop, order)
                    marketer = (ratio[-1] - ratio) / n
                    if config.attacker == "marketer":
                        avg = marketer
                    else:
                        big = float(pop.sum()) - prefix_sums(pop.astype(float), order)
                        avg = np.maximum(c / big, marketer)
            return np.where(c > 0, avg <= config.threshold, True)

        ok = suppress_riskiest(risk, holds_after) if len(sizes) else np.ones(0, dtype=bool)
        size = "size" if config.attacker == "prosecutor" else "population size"
        what = f"{config.attacker} average risk (classes: 1/{size})"
        return TableEvaluation(
            config,
            ok,
            risk,
            what,
            larger_is_safer=False,
            table_value=lambda keep: average_risk(sizes, pop, config.attacker, keep),
        )


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [AverageRisk]
