"""The population and uniqueness attacks as risk measures: ``uniqueness`` (sample uniques and
prosecutor / journalist / marketer risk of the release's classes) and ``release-intersection``
(the candidate set each record keeps across several releases).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.risk.base import RiskMeasure
from privcheck.risk.outcome import AttackInputs, RiskOutcome
from privcheck.risk.population.uniqueness import class_sizes_of, record_risks, uniqueness_risk


def _uniques_share(frame: pd.DataFrame) -> float:
    sizes, cls_of = class_sizes_of(frame)
    return float(np.mean(sizes[cls_of] == 1)) if len(frame) else 0.0


class Uniqueness(RiskMeasure):
    """Prosecutor / journalist / marketer risk of the release's quasi-identifier classes.

    The expected share of records a prosecutor re-identifies (each record's risk is 1/f of its
    class) is the re-identification rate; records alone in their class are the certain ones.
    """

    name = "uniqueness"
    summary = "sample uniques and prosecutor/journalist/marketer risk of the masked file's QIs"
    numeric = False
    reserved = (*RiskMeasure.reserved, "class_sizes", "population_sizes")

    @classmethod
    def function(cls):
        return uniqueness_risk

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        released = inputs.masked[inputs.attributes].astype(str)
        sizes, cls_of = class_sizes_of(released)
        res = uniqueness_risk(sizes, **params)
        risk = record_risks(sizes, cls_of)["prosecutor"][inputs.rows]
        base = res.sample_uniqueness
        contribution = {}
        for a in inputs.attributes:
            rest = [c for c in inputs.attributes if c != a]
            contribution[a] = base - (_uniques_share(released[rest]) if rest else 0.0)
        detail = res.model_dump(mode="json")
        return RiskOutcome(
            reidentification_rate=res.prosecutor_average_risk,
            certain_rate=res.sample_uniqueness,
            record_risk=np.asarray(risk, dtype=np.float64),
            attribute_contribution=contribution,
            contribution_kind="share of records that stop being sample uniques when the "
            "attribute is left out of the quasi-identifiers",
            figures={
                k: v
                for k, v in detail.items()
                if not isinstance(v, dict) and k not in ("has_population",)
            },
            detail=detail,
        )


class ReleaseIntersection(RiskMeasure):
    """The intersection attack across several releases of the same individuals."""

    name = "release-intersection"
    summary = (
        "candidate sets after intersecting several releases (--masked repeated; params key, "
        "sensitive, k)"
    )
    numeric = False
    aligned = False
    #: takes every ``--masked`` release, not one
    several_releases = True
    reserved = (*RiskMeasure.reserved, "releases", "policy", "rows")

    @classmethod
    def function(cls):
        from privcheck.risk.population.intersection import release_intersection

        return release_intersection

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        if inputs.policy is None:
            raise PolicyError("the release-intersection attack needs the policy's hierarchies")
        res = cls.function()(
            inputs.original,
            [inputs.masked, *inputs.others],
            inputs.policy,
            rows=inputs.rows,
            **params,
        )
        candidates = res.pop("candidates")
        records = res.pop("records")
        risk = 1.0 / np.maximum(candidates, 1)
        return RiskOutcome(
            reidentification_rate=float(risk.mean()) if len(risk) else None,
            certain_rate=float((candidates == 1).mean()) if len(risk) else None,
            record_risk=risk,
            attribute_contribution={},
            contribution_kind="",
            figures=res,
            detail={**res, "records": records.tolist(), "candidates": candidates.tolist()},
        )
