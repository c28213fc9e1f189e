"""The attribute- and model-disclosure attacks as risk measures: ``interval-disclosure`` (rank-
or SD-based intervals around the masked values) and ``ddmbar`` (models of an attribute built from
the original and from a release that lacks it). Membership inference on a released model runs
through the ``membership-inference`` measure of the synthetic-data family, which holds the
control set it needs.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from privcheck.errors import PolicyError
from privcheck.risk.base import RiskMeasure
from privcheck.risk.disclosure.attribute import rank_interval_disclosure, sd_interval_disclosure
from privcheck.risk.outcome import AttackInputs, RiskOutcome


class IntervalDisclosure(RiskMeasure):
    """Interval disclosure (attribute disclosure): no linkage, so no re-identification rate."""

    name = "interval-disclosure"
    summary = "rank- or SD-based interval disclosure of numeric attributes (param method, p)"

    @classmethod
    def function(cls):
        return rank_interval_disclosure

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        method = params.get("method", "rank")
        if method not in ("rank", "sd"):
            raise PolicyError(f"interval-disclosure method must be 'rank' or 'sd'; got {method!r}")
        rest = {k: v for k, v in params.items() if k != "method"}
        fn = rank_interval_disclosure if method == "rank" else sd_interval_disclosure
        accepted = [
            n for n, p in inspect.signature(fn).parameters.items() if p.default is not p.empty
        ]
        accepted = [n for n in accepted if n != "attributes"]
        for key in rest:
            if key not in accepted:
                raise PolicyError(
                    f"attack interval-disclosure ({method}) has no parameter {key!r}; its "
                    f"parameters: method, {', '.join(accepted)}"
                )

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        method = params.pop("method", "rank")
        fn = rank_interval_disclosure if method == "rank" else sd_interval_disclosure
        orig = inputs.original.iloc[inputs.rows][inputs.attributes].reset_index(drop=True)
        masked = inputs.masked.iloc[inputs.rows][inputs.attributes].reset_index(drop=True)
        res = fn(orig, masked, attributes=inputs.attributes, **params)
        detail = res.model_dump(mode="json")
        return RiskOutcome(
            reidentification_rate=None,
            certain_rate=None,
            record_risk=np.asarray(res.record_risk, dtype=np.float64),
            attribute_contribution=dict(res.per_attribute),
            contribution_kind="share of records whose original value lies in the interval "
            "around the masked value",
            figures={
                "method": res.method,
                "disclosure_rate": res.rate,
                "record_rate": res.record_rate,
            },
            detail=detail,
        )


def _require_target(attack: str, what: str, params: dict[str, Any], seed: int) -> None:
    """The model-based attacks need ``--param target=COLUMN``; their learners draw from the
    run's seed unless ``random_state`` is given."""
    if "target" not in params:
        raise PolicyError(f"attack {attack} needs {what}: --param target=COLUMN")
    params.setdefault("random_state", seed)


class DDMBAR(RiskMeasure):
    """Torra's model-based disclosure for absent attributes (algorithm 11)."""

    name = "ddmbar"
    summary = (
        "agreement of models of an attribute built from the original and from the release "
        "(params target, model); needs scikit-learn"
    )
    numeric = False
    aligned = False
    reserved = (*RiskMeasure.reserved, "release")

    @classmethod
    def function(cls):
        from privcheck.risk.disclosure.absent_attribute import ddmbar

        return ddmbar

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        _require_target(cls.name, "the attacked attribute", params, inputs.seed)
        res = cls.function()(inputs.original, inputs.masked, **params)
        agree = np.asarray(res["agree"], dtype=np.float64)
        return RiskOutcome(
            reidentification_rate=None,
            certain_rate=None,
            record_risk=agree,
            attribute_contribution={},
            contribution_kind="",
            figures={
                "agreement": res["agreement"],
                "target_in_release": res["target_in_release"],
                "features": res["features"],
            },
            detail={"agreement": res["agreement"], "features": res["features"]},
        )
