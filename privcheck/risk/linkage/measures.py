"""The record-linkage attacks as risk measures: ``dbrl``, ``mahalanobis``, ``prl`` and the four
worst-case learned distances (``learned-weighted-mean``, ``learned-owa``, ``learned-bilinear``,
``learned-choquet``). ``LinkageMeasure`` — the intruder's rows linked to the whole release, the
truth being the same row — is also the base of the transparency attacks' measures.
"""

from __future__ import annotations

from typing import Any, ClassVar

from privcheck.risk.base import RiskMeasure
from privcheck.risk.linkage.distance import dbrl
from privcheck.risk.linkage.probabilistic import prl
from privcheck.risk.outcome import AttackInputs, RiskOutcome, from_linkage


class LinkageMeasure(RiskMeasure):
    """Linkage of the intruder's rows to the whole release, truth = the same row."""

    defaults: ClassVar[dict[str, Any]] = {}

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        params.setdefault("random_state", inputs.seed)
        res = cls.function()(
            inputs.intruder(),
            inputs.masked[inputs.attributes],
            attributes=inputs.attributes,
            true_index=inputs.rows,
            **{**cls.defaults, **params},
        )
        return from_linkage(res)


class DBRL(LinkageMeasure):
    name = "dbrl"
    summary = "distance-based record linkage, Euclidean on standardised attributes"

    @classmethod
    def function(cls):
        return dbrl


class Mahalanobis(LinkageMeasure):
    name = "mahalanobis"
    summary = "distance-based record linkage, Mahalanobis distance"
    defaults: ClassVar[dict[str, Any]] = {"metric": "mahalanobis"}
    reserved = (*RiskMeasure.reserved, "metric")

    @classmethod
    def function(cls):
        return dbrl


class PRL(LinkageMeasure):
    name = "prl"
    summary = "probabilistic record linkage (Fellegi–Sunter, EM-estimated m/u)"
    numeric = False

    @classmethod
    def function(cls):
        return prl


class _Learned(RiskMeasure):
    """Worst-case learned distance: supervised on the intruder's rows of both files.

    The programme learns from aligned pairs, so it runs on the intruder's rows of the original
    file against the same rows of the release (all rows by default — the worst case).
    """

    family: ClassVar[str]

    @classmethod
    def function(cls):
        from privcheck.risk.linkage.learned import (  # (scipy's MILP: imported when used)
            learned_distance,
        )

        return learned_distance

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        from privcheck.risk.linkage.learned import learned_distance

        params.setdefault("random_state", inputs.seed)
        masked = inputs.masked.iloc[inputs.rows][inputs.attributes].reset_index(drop=True)
        res = learned_distance(
            inputs.intruder(),
            masked,
            family=cls.family,  # type: ignore[arg-type]
            attributes=inputs.attributes,
            **params,
        )
        out = from_linkage(res)
        if not inputs.all_rows:
            out.figures["linked_within"] = "the intruder's rows of the release"
        return out


class LearnedWeightedMean(_Learned):
    name = "learned-weighted-mean"
    summary = "worst-case learned distance: weighted mean (MILP)"
    family = "weighted_mean"


class LearnedOWA(_Learned):
    name = "learned-owa"
    summary = "worst-case learned distance: OWA (MILP)"
    family = "owa"


class LearnedBilinear(_Learned):
    name = "learned-bilinear"
    summary = "worst-case learned distance: symmetric bilinear form (MILP)"
    family = "bilinear"


class LearnedChoquet(_Learned):
    name = "learned-choquet"
    summary = "worst-case learned distance: Choquet integral, ≤ 6 attributes (MILP)"
    family = "choquet"
