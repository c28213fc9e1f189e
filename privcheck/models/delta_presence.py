"""δ-presence (Nergiz, Atzori & Clifton, SIGMOD 2007; ARX's ``DPresence``):
``{model: delta-presence, delta_min: a, delta_max: b}``.

The data is a subset of a public population table (``population: {path, count_column}``); an
intruder who knows someone is in the population should not learn much about whether they are in
the data. For every released class, the probability that a population member matching it is in
the data, f/F (f its records in the data, F its people in the population generalized with the same
node), must lie in [δ_min, δ_max]. ``value`` is the pair [min, max] of f/F over the classes.

The population must contain the released individuals: a class absent from the population (or with
fewer people there than in the data) is an input error, not a violation.

Properties (brute force in ``tests/models/test_population_models.py``):

- *monotone under generalization* (and Incognito's subset property): a merged class's f/F is the
  mediant (Σf)/(ΣF) of its parts', which lies between their smallest and largest, so a merge of
  classes inside [a, b] stays inside.
- *not monotone with suppression*: a violating class merged with satisfying ones can drag the
  merged class outside [a, b], so the records to suppress can grow as a node is generalized.
- not table-dependent: each class is judged on its own.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from privcheck.classes import ClassTable, count
from privcheck.encoding import EncodedTable
from privcheck.hookspecs import hookimpl
from privcheck.models.base import PrivacyModel
from privcheck.models.reidentification import TableEvaluation
from privcheck.policy import ModelConfig
from privcheck.population import check_contains, require_table


class DeltaPresenceConfig(ModelConfig):
    """Every class's share of its population matches lies in [delta_min, delta_max]."""

    model: Literal["delta-presence"] = "delta-presence"
    delta_min: float = Field(0.0, ge=0, le=1, description="Smallest allowed f/F, [0, 1]")
    delta_max: float = Field(..., ge=0, le=1, description="Largest allowed f/F, [0, 1]")

    @model_validator(mode="after")
    def _ordered(self) -> DeltaPresenceConfig:
        if self.delta_min > self.delta_max:
            raise ValueError(
                f"delta_min ({self.delta_min}) is larger than delta_max ({self.delta_max}); "
                "give delta_min <= delta_max"
            )
        return self


def ratio_range(ratio: np.ndarray, keep: np.ndarray | None = None) -> list[float] | None:
    r = ratio if keep is None else ratio[keep]
    return [float(r.min()), float(r.max())] if len(r) else None


class DeltaPresence(PrivacyModel):
    name = "delta-presence"
    config = DeltaPresenceConfig
    summary = "every class's share f/F of its population matches lies in [δmin, δmax]"

    @classmethod
    def validate_data(cls, encoded: EncodedTable, config: DeltaPresenceConfig) -> None:
        require_table(encoded.policy, cls.name, "")
        check_contains(count(encoded, track_records=False), cls.name)

    @classmethod
    def evaluate(cls, table: ClassTable, config: DeltaPresenceConfig) -> TableEvaluation:
        require_table(table.encoded.policy, cls.name, "")
        from privcheck.population import class_population_sizes

        big_f = class_population_sizes(table).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(big_f > 0, table.subjects / big_f, np.inf)
        ok = (ratio >= config.delta_min) & (ratio <= config.delta_max)
        ev = TableEvaluation(
            config,
            ok,
            ratio,
            "f/F, data / population records per class (value: min, max)",
            larger_is_safer=False,
            table_value=lambda keep: ratio_range(ratio, keep),
        )
        return ev


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [DeltaPresence]
