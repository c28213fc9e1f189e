"""Disclosure-risk assessment: how much an intruder learns from a masked release.

Identity disclosure (re-identification by record linkage):

- ``dbrl`` — distance-based record linkage, Euclidean or Mahalanobis, nearest or one-to-one;
- ``prl`` — Fellegi–Sunter probabilistic linkage with EM-estimated m/u probabilities;
- ``learned_distance`` — worst-case learned distances (weighted mean, OWA, bilinear, Choquet);
- ``rank_swap_transparency`` / ``microaggregation_transparency`` /
  ``multivariate_microaggregation_transparency`` / ``microaggregation_replay`` — attacks by an
  intruder who knows the masking method and its parameters;
- ``uniqueness_risk`` — sample uniques, prosecutor / journalist / marketer risk.

Attribute disclosure: ``rank_interval_disclosure``, ``sd_interval_disclosure``,
``average_interval_disclosure``, ``sdcmicro_drisk``, ``categorical_disclosure`` (SADR) and
``model_disclosure``.

``ATTACKS`` maps the attack names of ``privcheck risk --attack`` to their functions; each takes
``(intruder, masked, **params)`` and returns a ``LinkageResult``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from privcheck.risk.attribute_disclosure import (
    average_interval_disclosure,
    categorical_disclosure,
    model_disclosure,
    rank_interval_disclosure,
    sd_interval_disclosure,
    sdcmicro_drisk,
)
from privcheck.risk.learned import FAMILIES, learned_distance
from privcheck.risk.linkage import (
    covariance_matrix,
    dbrl,
    nearest_links,
    one_to_one_links,
    univariate_rates,
)
from privcheck.risk.multivariate_transparency import (
    microaggregation_replay,
    multivariate_microaggregation_transparency,
)
from privcheck.risk.probabilistic import (
    EMResult,
    agreement_pattern_counts,
    estimate_m_u,
    fellegi_sunter_thresholds,
    pattern_weights,
    prl,
)
from privcheck.risk.results import (
    CategoricalDisclosureResult,
    IntervalDisclosureResult,
    LinkageResult,
    ModelDisclosureResult,
    RecordRiskSummary,
    UniquenessResult,
)
from privcheck.risk.transparency import (
    microaggregation_group_bounds,
    microaggregation_transparency,
    rank_interval,
    rank_swap_transparency,
    rank_swap_window,
)
from privcheck.risk.uniqueness import class_sizes_of, record_risks, uniqueness_risk

ATTACKS: dict[str, Any] = {
    "dbrl": dbrl,
    "mahalanobis": partial(dbrl, metric="mahalanobis"),
    "prl": prl,
    "learned-weighted-mean": partial(learned_distance, family="weighted_mean"),
    "learned-owa": partial(learned_distance, family="owa"),
    "learned-bilinear": partial(learned_distance, family="bilinear"),
    "learned-choquet": partial(learned_distance, family="choquet"),
    "rank-swap-transparency": rank_swap_transparency,
    "microaggregation-transparency": microaggregation_transparency,
    "microaggregation-multivariate-transparency": multivariate_microaggregation_transparency,
}

__all__ = [
    "ATTACKS",
    "FAMILIES",
    "CategoricalDisclosureResult",
    "EMResult",
    "IntervalDisclosureResult",
    "LinkageResult",
    "ModelDisclosureResult",
    "RecordRiskSummary",
    "UniquenessResult",
    "agreement_pattern_counts",
    "average_interval_disclosure",
    "categorical_disclosure",
    "class_sizes_of",
    "covariance_matrix",
    "dbrl",
    "estimate_m_u",
    "fellegi_sunter_thresholds",
    "learned_distance",
    "microaggregation_group_bounds",
    "microaggregation_replay",
    "microaggregation_transparency",
    "model_disclosure",
    "multivariate_microaggregation_transparency",
    "nearest_links",
    "one_to_one_links",
    "pattern_weights",
    "prl",
    "rank_interval",
    "rank_interval_disclosure",
    "rank_swap_transparency",
    "rank_swap_window",
    "record_risks",
    "sd_interval_disclosure",
    "sdcmicro_drisk",
    "uniqueness_risk",
    "univariate_rates",
]
