"""The built-in risk measures of ``privcheck risk --attack NAME``, registered as one plugin.

They arrive through the ``privcheck_risk_measures`` hook like a third-party plugin's measures
would, so ``privcheck plugins`` lists them (under this module's name) and a plugin adds its own
attack with the same interface (``privcheck.risk.base.RiskMeasure``). Each family of attacks
keeps its measures beside its attacks (``privcheck.risk.<family>.measures``); this list is the
one place a built-in measure is registered, in the order ``privcheck plugins`` shows them.

Every measure reduces its attack's result to a ``RiskOutcome``: the two headline rates the CLI
reports for every attack (``reidentification_rate``, ``certain_rate``), the per-record risk the
risk profile is drawn from, the per-attribute contribution and the attack's own figures.
"""

from __future__ import annotations

from privcheck.hookspecs import hookimpl
from privcheck.risk.base import RiskMeasure
from privcheck.risk.disclosure.measures import DDMBAR, IntervalDisclosure
from privcheck.risk.linkage.measures import (
    DBRL,
    PRL,
    LearnedBilinear,
    LearnedChoquet,
    LearnedOWA,
    LearnedWeightedMean,
    Mahalanobis,
)
from privcheck.risk.population.measures import ReleaseIntersection, Uniqueness
from privcheck.risk.synthetic.measures import (
    Inference,
    Linkability,
    MembershipInference,
    SinglingOut,
)
from privcheck.risk.transparency.measures import (
    MicroaggregationTransparency,
    MultivariateMicroaggregationTransparency,
    RankSwapTransparency,
)

BUILTIN_MEASURES: list[type[RiskMeasure]] = [
    DBRL,
    Mahalanobis,
    PRL,
    LearnedWeightedMean,
    LearnedOWA,
    LearnedBilinear,
    LearnedChoquet,
    RankSwapTransparency,
    MicroaggregationTransparency,
    MultivariateMicroaggregationTransparency,
    Uniqueness,
    IntervalDisclosure,
    MembershipInference,
    SinglingOut,
    Linkability,
    Inference,
    DDMBAR,
    ReleaseIntersection,
]


@hookimpl
def privcheck_risk_measures() -> list[type]:
    return list(BUILTIN_MEASURES)
